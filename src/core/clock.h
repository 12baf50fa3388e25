/* Wall-clock time for phase timing, progress lines and benchmarks. */
#ifndef MS_CLOCK_H
#define MS_CLOCK_H

/* Seconds on a monotonic clock (only differences mean anything). */
double ms_now(void);

#endif
