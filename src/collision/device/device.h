/* The GPU manager's state beside the buffers: the small particles' neighbour list, the
 * grid's currency, the kernel events not yet booked, the dissipation accumulators and
 * the kept forces. Touched only by the manager's thread during an advance (the device-
 * only path runs on that thread too); by the caller's thread between advances. */
#ifndef MS_COLLISION_DEVICE_H
#define MS_COLLISION_DEVICE_H

#include "cl/runtime.h"
#include "collision/forces.h"
#include "collision/device/nlist.h"

#define MS_PENDING_MAX 16

typedef struct ms_device {
  ms_nlist nl;           /* friction on: the small particles' neighbour list */
  int grid_current;      /* the device grid matches the current small positions */
  ms_kept_forces forces; /* --output: the forces of an advance's last iteration */
  /* Kernel events not yet booked: read once a blocking call shows them complete. */
  cl_event pending_event[MS_PENDING_MAX];
  int pending_kernel[MS_PENDING_MAX];
  int n_pending;
  /* --diagnostics: double per small particle, per large one (large_on = device), and one
   * more slot: the energy the device's contacts dissipated (dissipation.c). */
  cl_mem diss;
  int outside_warned; /* a centre outside the grid was reported once */
} ms_device;

#endif
