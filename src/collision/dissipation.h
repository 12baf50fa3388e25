/* The dissipated-energy accumulators of --diagnostics (collision/sim_internal.h: diag,
 * diss, diss_large): made with the sim, zeroed on a restore, summed on request. */
#ifndef MS_COLLISION_DISSIPATION_H
#define MS_COLLISION_DISSIPATION_H

#include "collision/sim_internal.h"

/* With s->diag: the device buffer and the large particles' array, zeroed. */
ms_status ms_diss_create(ms_sim *s);
/* Zeroes both (a restored state starts its own account). */
ms_status ms_diss_reset(ms_sim *s);
void ms_diss_release(ms_sim *s);
/* --diagnostics and the slots' growth (collision/slots.c): the device's accumulators read
 * (*out NULL without diagnostics), then made again for p.n_small slots from those of
 * n_old slots, the new slots' zero. */
ms_status ms_diss_take_small(ms_sim *s, double **out);
ms_status ms_diss_resize_small(ms_sim *s, const double *old, int n_old);

/* For a run over domains (domains/carry.c), between advances: every accumulator out and
 * in. `dev`: the device's entries (ms_diss_entries: small slots, the device-only path's
 * large particles, its own slot); `large`: the worker's per large particle; `worker` its
 * own; `walls`: lost and work per [wall.NAME]. */
size_t ms_diss_entries(const ms_sim *s);
ms_status ms_diss_export(ms_sim *s, double *dev, double *large, double *worker, double *walls);
ms_status ms_diss_import(ms_sim *s, const double *dev, const double *large, double worker,
                         const double *walls);

#endif
