/* The GPU manager's work: each function enqueues its kernels on the manager's queue,
 * waits for them and books their wall and profiled times. */
#ifndef MS_GPU_MANAGER_H
#define MS_GPU_MANAGER_H

#include "collision/device/device.h"
#include "collision/device/events.h"
#include "collision/exchange/crossing.h"

/* Sets every kernel argument; again after buffers are replaced. */
ms_status ms_gpu_bind(const ms_ctx *c, ms_device *d);

/* The global slot each small particle stands for (n_small ints, copied), by which the grid
 * sorts each cell, so that a device holding the particles in an order of its own sums
 * every force in one device's order (docs/domains.md); NULL: by index, as one device. The
 * grid is rebuilt before its next use. */
ms_status ms_gpu_set_keys(const ms_ctx *c, ms_device *d, const int *key);
/* Back to no keys, without binding (the device's buffers may be gone). */
void ms_gpu_release_keys(ms_device *d);

/* Builds the grid from the current small positions: clear, atomic insert, per-cell
 * sort, then reads the counters back, which waits for all work queued so far. A full
 * cell grows the capacity and the build is redone, so no contact is ever missed; a
 * NaN/Inf position stops the run. With friction on, the small particles' neighbour list
 * is then rebuilt when due (collision/device/nlist.h). */
/* Whether the grid's counts are cleared by a fill before the clearing kernel (CPU
 * devices) rather than by the kernel itself (GPUs): collision/device/grid.c says why. */
int ms_gpu_fill_clears(const ms_ctx *c);

ms_status ms_gpu_build_grid(const ms_ctx *c, ms_device *d, long step);

/* Enqueue without waiting: the queue is in order, and the pipeline needs the device
 * to be done only where the grid is read back (before sync 1). Waiting after every
 * kernel would cost a host round trip each. */
ms_status ms_gpu_collide(const ms_ctx *c, ms_device *d);
ms_status ms_gpu_integrate(const ms_ctx *c, ms_device *d);


#endif
