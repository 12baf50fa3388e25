/* The walls' reactions on the device-only path (large_on = device): the force, torque and
 * contact count each wall of any shape receives (with --diagnostics the energy its contacts
 * lost and the work it did), summed on the device from the discs' reaction records in the
 * CPU worker's order (kernels/walls.cl), read back, and a force-driven wall moved with them
 * by the worker's own ms_walls_advance. Summed every iteration when a wall is force-driven
 * or with --diagnostics, else at an advance's last iteration, where ms_sim_wall reads them. */
#ifndef MS_DEVICE_WALLS_H
#define MS_DEVICE_WALLS_H

#include "collision/device/device.h"
#include "collision/device_only/dl_state.h"
#include "collision/worker/worker.h"

/* Reaction records a disc needs: one per contact it can have with the walls (a circle
 * gives one, a polyline one per segment), at most MS_DW_HITS; 1 without walls. */
#define MS_DW_HITS 16 /* kernels/large_friction.cl has the same */
size_t ms_dlw_room(const ms_params *pm);

/* Makes the buffers (once; with no walls, one-slot placeholders the kernels are bound to)
 * and, at each advance's start, marks the device's copy of the bands stale, clears the
 * records' overflow flag in `flags` (slot `flag`) and with --diagnostics uploads what each
 * wall lost and did so far. Blocks. */
ms_status ms_dlw_begin(const ms_ctx *c, ms_dlarge *dl, const ms_worker *w, int flag);

/* This iteration's arguments of the wall kernels (`sum`: records are written and summed),
 * the bands uploaded when they moved. The walls are placed. Blocks when it uploads. */
ms_status ms_dlw_bind(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int sum);

/* After the wall kernels: with `sum`, the runs' and the walls' sums, and a read of the
 * totals without waiting (the iteration's blocking call completes it). */
ms_status ms_dlw_sum(const ms_ctx *c, ms_device *dev, ms_dlarge *dl);

/* After the iteration's blocking call: the totals into the worker's walls, and the
 * force-driven walls moved. */
void ms_dlw_take(const ms_ctx *c, ms_dlarge *dl, ms_worker *w);

#endif
