/* The device-only baseline (large_on = device): the large particles' state in device
 * buffers during an advance, a large-particle cell list, and the kernels of
 * kernels/large.cl (large-small both ways, large-large, walls, integration), all on the
 * manager's queue. The sums are the CPU worker's, term for term, so the state is the
 * same bit for bit; the host's copy of the large particles (ms_sim.large) is current
 * whenever an advance returns, and is uploaded again at the start of the next one. */
#ifndef MS_DEVICE_LARGE_H
#define MS_DEVICE_LARGE_H

#include "cl/runtime.h"
#include "collision/device_only/device_friction.h"

/* The large cell list's first slots per cell; it grows when a cell's list overflows. */
#define MS_DL_FIRST_CAPACITY 4

typedef struct ms_dlarge {
  int made;              /* buffers exist (made on the first device advance) */
  size_t n_cells, cap;   /* cells of the grid; slots per cell of the list */
  double margin;         /* widening of large-large's search (see large.cl) */
  cl_mem pos, vel;       /* double2: x y, vx vy per large particle */
  cl_mem shape, stat, f; /* float2 (radius, mass), int static, float2 force */
  cl_mem prev_pos, prev_vel; /* the state before this iteration's integration */
  cl_mem count, idx, flags;  /* the cell list: per-cell counts, cap slots per cell */
  double *h_pos, *h_vel;     /* host staging for uploads and read-backs */
  float *h_shape;
  int *h_stat;
  int h_flags[4]; /* the list's and the integration's flags, read without waiting */
  int host_current; /* a failure already read the state back this advance */
  ms_dl_friction fr; /* friction on: rotation and histories (device_friction.h) */
} ms_dlarge;

struct ms_sim;

/* Start of an advance: makes the buffers the first time, uploads the host's large
 * particles (whatever changed them since: a move, a restore, the CPU path) and builds
 * the cell list, growing it until no cell overflows. Blocks. */
ms_status ms_dl_begin(struct ms_sim *s);

/* Enqueues large-small (the large particles' reactions, then F_ls of the small ones),
 * large-large and the walls. Needs the grid of the current positions. */
ms_status ms_dl_forces(struct ms_sim *s);

/* Enqueues the large integration, the cell list of the new positions and a
 * non-blocking read of the flags, which the next blocking call completes. */
ms_status ms_dl_integrate(struct ms_sim *s);

/* After the iteration's blocking grid build (`grid`: its status): a large particle's
 * failure is reported as the CPU worker reports it (and wins over the grid's, as the
 * worker's does), the host state left as the serial loop leaves it; else the grid's
 * status; else an overflowing cell list grows and is rebuilt. */
ms_status ms_dl_check(struct ms_sim *s, long step, ms_status grid);

/* End of an advance: reads the large particles back into the host's copy (unless a
 * failure already did). */
ms_status ms_dl_end(struct ms_sim *s);

void ms_dl_release(ms_dlarge *d);

/* One device buffer of the baseline (refused with the device's limit named when it is
 * larger than one allocation), and its release; for device_friction.c too. */
ms_status ms_dl_make(struct ms_sim *s, size_t bytes, const char *what, cl_mem *out);
void ms_dl_release_mem(cl_mem *m);

#endif
