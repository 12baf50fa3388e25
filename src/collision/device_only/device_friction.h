/* Friction on the device-only path (large_on = device, issue 12): the large particles'
 * rotation, torques and wall displacements in device buffers during an advance, and
 * their contact histories as per-large-particle lists of (partner, xi) sorted by
 * partner (double buffered), run by kernels/large_friction.cl. The host's
 * ms_worker_history (collision/worker/history.h) stays the one state between advances: it is
 * uploaded at the advance's start and read back at its end, so switching large_on,
 * checkpoints and resume see the same histories the CPU worker keeps. */
#ifndef MS_DEVICE_FRICTION_H
#define MS_DEVICE_FRICTION_H

#include "collision/device/device.h"
#include "collision/device_only/dl_state.h"
#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"



/* The advance's start: makes the buffers, uploads the rotation and the histories. */
ms_status ms_dlf_begin(const ms_ctx *c, ms_dlarge *dl, ms_worker *w);

/* Enqueues large-small, large-large and the walls with friction (the lists grown first
 * when the grid or the large cell list has grown). */
ms_status ms_dlf_forces(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w);

/* Enqueues the large integration with rotation. */
ms_status ms_dlf_integrate(const ms_ctx *c, ms_device *dev, ms_dlarge *dl);

/* Reads the rotation back (with `failed` >= 0, those after it from before the
 * integration) and the histories into the host's ms_worker_history. */
ms_status ms_dlf_read_back(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int failed);


#endif
