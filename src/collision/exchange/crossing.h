/* What crosses the two syncs between the GPU manager and the CPU worker (docs/
 * architecture.md has the table of who writes what between which syncs):
 *   buf   the small particles' device buffers and the grid. The manager's kernels write
 *         positions, velocities and the grid before sync 1; between sync 1 and sync 2 the
 *         worker reads them through the host views (exchange = full) and writes F_ls,
 *         which the manager's integration reads after sync 2, waiting on the device for
 *         `written` (set before sync 2).
 *   zone  exchange = zone: the worker's own gather of the cells under the large
 *         particles, on its queue: laid out in sync 1 (`laid`, set there before the
 *         manager leaves it, is the event its small-small waits for) and read between the
 *         syncs; `scattered` (set before sync 2) is the event the integration waits for. */
#ifndef MS_COLLISION_CROSSING_H
#define MS_COLLISION_CROSSING_H

#include "collision/base/kernels.h"
#include "collision/base/params.h"
#include "collision/base/trace.h"
#include "collision/exchange/buffers.h"
#include "collision/exchange/zone_state.h"
#include "mixsim/sim.h"

/* The worker's large-small list (collision/worker/ls_list.h) and the manager's check of
 * the small particles against it: two flags cross the syncs. */
typedef struct ms_list_signal {
  int small_moved; /* manager, before sync 1: a small particle may have moved more than
                      the rebuild distance since the list's build; worker reads after */
  int ref_due;     /* worker, before sync 2: it rebuilt the list, so the manager is to
                      copy the positions of that build (after sync 2, before integration) */
} ms_list_signal;

typedef struct ms_crossing {
  ms_buffers buf;
  ms_grid_span span; /* manager, with each grid build (before sync 1): the cells that may
                        hold a particle (params.h); the worker's zone sweeps them after */
  ms_zone zone;
  ms_list_signal list;
} ms_crossing;

/* The worker's last command on F_ls and t_ls this iteration, set before sync 2: the zone's
 * scatter, or the full exchange's last write or unmap. The manager's reads of them after
 * sync 2 wait for it on the device. NULL with the large particles on the device. */
static inline cl_event ms_crossing_forces_done(const ms_crossing *x, const ms_params *p)
{
  if (p->large_on != MS_LARGE_ON_CPU)
    return NULL;
  return p->exchange == MS_EXCHANGE_ZONE ? x->zone.scattered : x->buf.written;
}

/* The zone's layout, which the manager's small-small waits for on the device (set in
 * sync 1's hand-over; NULL without a zone this iteration). */
static inline cl_event ms_crossing_zone_laid(const ms_crossing *x, const ms_params *p)
{
  if (p->large_on != MS_LARGE_ON_CPU || p->exchange != MS_EXCHANGE_ZONE)
    return NULL;
  return x->zone.laid;
}

/* What either thread's code is handed during an advance beside its own state: the
 * parameters (read only), the crossing (under the sync rules above), the OpenCL context
 * and program (each thread enqueues on its own queues and sets its own kernels'
 * arguments), and the run's counters and trace (each thread writes only its own: the
 * counters its comments in mixsim/sim.h name, its own thread's phases and ring). */
typedef struct ms_ctx {
  const ms_params *p;
  ms_crossing *x;
  ms_cl *cl;
  ms_kernels *kern;
  ms_sim_stats *stats;
  ms_trace *trace;
} ms_ctx;

#endif
