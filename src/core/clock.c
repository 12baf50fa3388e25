/* Wall-clock time on the monotonic clock. */
#include "core/clock.h"

#include <time.h>

double ms_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
