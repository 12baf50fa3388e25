/* What crosses the two syncs between the GPU manager and the CPU worker (docs/
 * architecture.md has the table of who writes what between which syncs):
 *   buf   the small particles' device buffers and the grid. The manager's kernels write
 *         positions, velocities and the grid before sync 1; between sync 1 and sync 2 the
 *         worker reads them through the host views (exchange = full) and writes F_ls,
 *         which the manager's integration reads after sync 2.
 *   zone  exchange = zone: the worker's own gather of the cells under the large
 *         particles, on its queue, between the syncs; `scattered` (set before sync 2) is
 *         the event the manager's integration waits for. */
#ifndef MS_COLLISION_CROSSING_H
#define MS_COLLISION_CROSSING_H

#include "collision/exchange/buffers.h"
#include "collision/exchange/zone.h"

typedef struct ms_crossing {
  ms_buffers buf;
  ms_zone zone;
} ms_crossing;

#endif
