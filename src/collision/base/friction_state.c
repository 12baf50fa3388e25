/* The friction state's storage (collision/base/friction_state.h). */
#include "collision/base/friction_state.h"

#include <stdlib.h>
#include <string.h>

void ms_friction_state_free(ms_friction_state *f)
{
  free(f->small_rot);
  free(f->large_rot);
  free(f->small_wall_xi);
  free(f->large_wall_xi);
  free(f->ss);
  free(f->ls);
  free(f->ll);
  memset(f, 0, sizeof *f);
}
