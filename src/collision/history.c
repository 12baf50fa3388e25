/* The CPU worker's share of the friction state (ms_friction_state, sim_internal.h): the
 * large particles' rotation, their wall displacements and the large-small and
 * large-large contact histories, exported for checkpoints and tests and imported after
 * a restore. */
#include "collision/sim_internal.h"

#include <stdlib.h>

ms_status ms_worker_history_export(const ms_sim *s, ms_friction_state *out)
{
  size_t n = (size_t)s->n_large;
  out->large_rot = malloc((2 * n + 1) * sizeof *out->large_rot);
  out->large_wall_xi = calloc(4 * n + 1, sizeof *out->large_wall_xi);
  if (!out->large_rot || !out->large_wall_xi)
    return ms_fail(MS_ERR_RUNTIME, "out of memory exporting the large particles' rotation");
  for (size_t i = 0; i < n; i++) {
    out->large_rot[2 * i] = s->large[i].theta;
    out->large_rot[2 * i + 1] = s->large[i].w;
  }
  out->n_ls = out->n_ll = 0;
  return MS_OK;
}

ms_status ms_worker_history_import(ms_sim *s, const ms_friction_state *in)
{
  for (int i = 0; i < s->n_large; i++) {
    ms_body *L = &s->large[i];
    L->theta = in->large_rot[2 * i];
    L->w = L->is_static ? 0.0 : in->large_rot[2 * i + 1];
  }
  return MS_OK;
}
