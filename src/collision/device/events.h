/* The manager's kernel events: each enqueue's event is kept until a blocking call shows
 * the device past it, then its profiled time is booked (collision/base/trace.h); kept
 * apart from the rest of the manager so that the neighbour list and the device-only path
 * book theirs the same way. */
#ifndef MS_DEVICE_EVENTS_H
#define MS_DEVICE_EVENTS_H

#include "collision/device/device.h"
#include "collision/exchange/crossing.h"

/* Keeps a kernel's event until the device is known to be past it. */
ms_status ms_gpu_keep_event(const ms_ctx *c, ms_device *d, int kernel, cl_event ev);

/* Books the kept events' profiled times; call only after a blocking call. */
void ms_gpu_settle(const ms_ctx *c, ms_device *d);

/* Waits for the device to finish everything queued, then settles. */
ms_status ms_gpu_finish(const ms_ctx *c, ms_device *d);

#endif
