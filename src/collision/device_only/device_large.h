/* The device-only baseline (large_on = device): the large particles' state in device
 * buffers during an advance, a large-particle cell list, and the kernels of
 * kernels/large.cl (large-small both ways, large-large, walls, integration), all on the
 * manager's queue. The sums are the CPU worker's, term for term, so the state is the
 * same bit for bit; the host's copy of the large particles (the worker's, ms_worker.large)
 * is current whenever an advance returns, and is uploaded again at the start of the next
 * one. */
#ifndef MS_DEVICE_LARGE_H
#define MS_DEVICE_LARGE_H

#include "cl/runtime.h"
#include "collision/device/device.h"
#include "collision/device_only/dl_state.h"
#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"



/* Start of an advance: makes the buffers the first time, uploads the host's large
 * particles (whatever changed them since: a move, a restore, the CPU path) and builds
 * the cell list, growing it until no cell overflows. Blocks. */
ms_status ms_dl_begin(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w);

/* Enqueues large-small (the large particles' reactions, then F_ls of the small ones),
 * large-large and the walls; with `sum`, the walls' reactions (device_walls.h). Needs the
 * grid of the current positions. */
ms_status ms_dl_forces(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w, int sum);

/* Enqueues the large integration, the cell list of the new positions and a
 * non-blocking read of the flags, which the next blocking call completes. */
ms_status ms_dl_integrate(const ms_ctx *c, ms_device *dev, ms_dlarge *dl);

/* After the iteration's blocking grid build (`grid`: its status): a large particle's
 * failure is reported as the CPU worker reports it (and wins over the grid's, as the
 * worker's does), the host state left as the serial loop leaves it; else the grid's
 * status; else the walls' reactions are taken (force-driven walls move) and an
 * overflowing cell list grows and is rebuilt. */
ms_status ms_dl_check(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w, long step,
                      ms_status grid);

/* End of an advance: reads the large particles back into the host's copy (unless a
 * failure already did). */
ms_status ms_dl_end(const ms_ctx *c, ms_dlarge *dl, ms_worker *w);



#endif
