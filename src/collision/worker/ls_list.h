/* The CPU worker's Verlet list for large-small (exchange = full): per large particle the
 * small particles within r_L + r_j + margin of it at the list's build, found by the
 * grid walk over the rectangle of that reach, kept until a particle may have closed the
 * margin. Each iteration the worker takes from a large particle's list the entries whose
 * current cell lies in the rectangle its walk would visit, sorted by (cell, index): the
 * order the walk visits them, so every sum is the walk's bit for bit (docs/friction.md,
 * "The CPU worker's list").
 *
 * When it is rebuilt: at its first use and after anything changed the state outside
 * stepping (ms_ls_list_invalidate), when a large particle has moved more than the
 * rebuild distance since the build (checked on the host), and when a small one may have:
 * with friction on, exactly when the small particles' own list (collision/device/nlist.h) is
 * rebuilt; without, by the same check kernel against a copy of the positions taken on the
 * device at each build of this list. The manager writes the flag before sync 1 and the
 * worker reads it after (small_moved); the worker asks for the copy before sync 2 and the
 * manager takes it after (ref_due): the syncs order both. */
#ifndef MS_LS_LIST_H
#define MS_LS_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"


/* The worker, after sync 1 and before large-small: rebuilds the lists when due (over
 * the pool in chunks of `grain` large particles, each thread its own). */
ms_status ms_ls_list_prepare(const ms_ctx *c, ms_worker *w, int grain);

/* The candidates of large particle i this iteration into the chunk's keys, sorted:
 * (cell << 32 | j) for each listed j whose current cell lies in i's walk rectangle and
 * which is within i's reach of the largest small particle (visit's own first test, which
 * has no side effect when it fails). Returns the count, or -1 out of memory. */
long ms_ls_list_candidates(const ms_params *pm, const ms_worker *w, int i, const double *pos,
                           ms_worker_chunk *out);

/* Mean entries per large particle at the last build (0: never built). */
double ms_ls_list_mean(const ms_sim_stats *st, int n_large);

void ms_ls_list_release(ms_ls_list *wl);

#endif
