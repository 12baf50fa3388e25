/* The large particles handed over every iteration (docs/domains.md#the-incremental-meeting):
 * between meetings, each domain's CPU worker, once it has integrated its large particles,
 * writes those it owns where the others read them, waits for every domain of the process
 * to do the same, and takes the owners' states of the others it holds in place of its own.
 * Every large particle a domain holds is then the one device's at every step, so what
 * reaches an own particle through one travels no further than a small contact an iteration,
 * and a domain's windows grow by that instead of two of the largest radii. In one process
 * the hand-over is a copy in memory and a barrier, or, where the domains share a device
 * (pocl's, which two contexts may not drive at once), their iterations made in turn; across
 * MPI ranks, a domain a rank, an all-gather from each rank's worker thread. */
#ifndef MS_DOMAINS_LOCKSTEP_H
#define MS_DOMAINS_LOCKSTEP_H

#include "mixsim/sim.h"

typedef struct ms_lockstep ms_lockstep;

/* How the domains meet each iteration: at once in one process (a barrier), in turn (domains
 * sharing a device: the driver's order), or one a rank across MPI ranks (an all-gather). */
typedef enum {
  MS_LOCKSTEP_AT_ONCE,
  MS_LOCKSTEP_IN_TURN,
  MS_LOCKSTEP_RANKS
} ms_lockstep_mode;

/* For `n_large` large particles and at most `parties` domains. */
ms_status ms_lockstep_make(int n_large, int parties, ms_lockstep **out);
void ms_lockstep_free(ms_lockstep *ls);

/* Before a block of `block` iterations of `parties` domains (on the driving thread, no
 * domain stepping): the barrier afresh; `spin_s`: how long a domain polls for the others
 * before it sleeps (at once). */
void ms_lockstep_begin(ms_lockstep *ls, int parties, double spin_s, ms_lockstep_mode mode,
                       int block);

/* Domain d's part in the block about to start (on its own thread, before its advance): the
 * large particles its worker steps, held[m] in its slot m for m < n_held (global indices),
 * each owned by owner[j], and the worker's hooks. ms_lockstep_leave takes the hooks off
 * after the advance. */
ms_status ms_lockstep_join(ms_lockstep *ls, int d, ms_sim *s, const int *owner, const int *held,
                           int n_held);
void ms_lockstep_leave(ms_sim *s);
/* Across ranks, after domain d's advance (on the driving thread): the block's hand-overs its
 * worker did not make, flagged as left, so that no rank waits for them. */
void ms_lockstep_finish(ms_lockstep *ls, int d);

/* No domain waits any more: this block's hand-overs fail (a domain that cannot step). */
void ms_lockstep_break(ms_lockstep *ls);

/* Domain d's time waiting for the others, and its hand-overs, since the lockstep was made. */
double ms_lockstep_wait_s(const ms_lockstep *ls, int d);
long ms_lockstep_handovers(const ms_lockstep *ls, int d);

#endif
