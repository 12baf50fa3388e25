/* The contact zone: the part of the small particles' state the CPU worker's
 * large-small search needs. The worker sends each large particle's cell rectangle (the
 * one large-small walks); kernels mark those cells, lay the zone out without gaps in
 * cell order, gather the particles there (index, position, velocity) and give each row
 * of each rectangle its run of slots (kernels/zone.cl). The worker maps or reads only
 * that, in one round trip: the totals, the runs and the slots. It adds the large-small
 * forces per zone slot, and a last kernel stores them into F_ls. The full arrays never
 * cross to the host (exchange = zone); the exchange = full path of collision/exchange/buffers.h
 * moves them all. With friction on, the zone also carries each slot's spin down and the
 * large particles' torque on it up, stored into t_ls like the forces into F_ls. Each way is
 * one transfer of packed records (kernels/zone.cl). */
#ifndef MS_ZONE_H
#define MS_ZONE_H

#include "collision/exchange/crossing.h"


/* The worker's side, on its own queue. Before sync 1, from its own state alone: prepare
 * makes the rectangles (while the manager builds the grid), enqueueing nothing (zone.c's
 * spend_laid says why). In sync 1, once the manager has arrived with the grid built and
 * while it still waits (collision/sync.h's leading meeting): lay sends the rectangles and
 * enqueues the kernels that mark their cells and lay out and gather the zone; `laid` is
 * the last one's event, which the manager's small-small waits for on the
 * device, so that the device runs them first and the zone's transfer overlaps small-small.
 * Between sync 1 and sync 2: begin maps or reads the zone, growing the buffers when it
 * outgrew them (never truncating); end publishes the zone's forces (unmap or write) and
 * enqueues their store into F_ls, flushed but not waited for: `scattered` is its event,
 * which the manager's integration waits for on the device. */
/* `extra`: n_extra more rectangles (x0, x1, y0, y1 each) after the large particles', the
 * walls' runs of cells (collision/worker/walls.h), walked like a large particle's rows. */
ms_status ms_zone_prepare(const ms_ctx *c, const ms_body *large, const int *extra,
                          size_t n_extra);
ms_status ms_zone_lay(const ms_ctx *c);
ms_status ms_zone_begin(const ms_ctx *c);
ms_status ms_zone_end(const ms_ctx *c);
/* After the buffer mode changed between advances: the zone's buffers made again in the new
 * mode at the sizes they had, so that the next iteration neither allocates nor grows them
 * (they would otherwise restart from an estimate, and an automatic choice's first batch after
 * a switch paid a grown zone's second round trip and its allocation: 1M small particles on the
 * H200, the default's rounds 0.50-0.55 ms/it in batches of 15 against 0.33 in a run). */
ms_status ms_zone_follow_buffers(const ms_ctx *c);

/* Remakes the per-slot buffers with room for about `cells` cells' particles (at least
 * a minimum, at most the small particles), now: for tests, a zone with ample room from
 * the start, or with almost none. */
ms_status ms_zone_reserve(const ms_ctx *c, size_t cells);

void ms_zone_release(ms_zone *z, ms_cl *cl);

#endif
