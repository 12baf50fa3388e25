/* The device buffers of the small particles and the grid, in one of two modes behind
 * one interface:
 *   shared  CL_MEM_ALLOC_HOST_PTR buffers; the CPU worker maps them (zero copy where
 *           the runtime allows) and touches them only between map and unmap;
 *   copied  plain device buffers; the CPU worker reads them into host arrays and
 *           writes F_ls back.
 * Either way the CPU worker sees the same host views (h_*) between begin and end. */
#ifndef MS_BUFFERS_H
#define MS_BUFFERS_H

#include <stdint.h>

#include "cl/runtime.h"
#include "mixsim/scene.h"

/* The most grid cells a scene may ask for (the loader refuses more). */
#ifndef MS_GRID_MAX_CELLS
#define MS_GRID_MAX_CELLS (1 << 28)
#endif
/* The largest initial capacity the scene's [grid] capacity key accepts. */
#ifndef MS_GRID_MAX_CAPACITY
#define MS_GRID_MAX_CAPACITY 4096
#endif

typedef struct ms_staging {
  cl_mem mem;
  void *ptr;
} ms_staging;

typedef struct ms_buffers {
  ms_buffer_mode mode;
  size_t n_small, n_cells, cap;
  cl_mem pos, vel;   /* double2 each: the small particles' state (simulation frame) */
  cl_mem shape;      /* float2: radius and mass of each small particle, set once */
  cl_mem f_ss;       /* float2: small-small forces, device only */
  cl_mem f_ls;       /* float2: large-small forces, written by the CPU worker */
  cl_mem count, idx; /* grid: per-cell counters, cap slots per cell */
  cl_mem flags;      /* MS_FLAG_* counters of the grid kernels */
  cl_mem img;        /* int2: the periods each small particle crossed (periodic box), device
                        only; zeros otherwise */
  /* Friction on only (ms_buffers_add_rotation; NULL otherwise): */
  cl_mem rot;        /* double2: angle and spin of each small particle */
  cl_mem t_ss;       /* float: small-small and wall torque, device only */
  cl_mem t_ls;       /* float: torque from the large particles, written by the CPU worker */

  /* Host views, valid between ms_buffers_host_begin and ms_buffers_host_end. */
  const double *h_pos, *h_vel;
  const int *h_count, *h_idx;
  float *h_f_ls;
  const double *h_rot; /* friction on: (theta, w) per small particle, read like h_vel */
  float *h_t_ls;       /* friction on: written back like h_f_ls */
  int requested; /* the maps or reads are enqueued (ms_buffers_host_request), not waited for */
  /* The worker's last write or unmap of an iteration, set by ms_buffers_host_end before
   * sync 2: the manager's reads of F_ls (its integration) wait for it on the device. */
  cl_event written;

  /* Copied mode: the host arrays behind the views, in page-locked staging memory
   * (a host-allocated buffer mapped once for good, never used by a kernel), so the
   * explicit copies run at full DMA speed instead of through a driver bounce. */
  ms_staging copy_pos, copy_vel, copy_f_ls, copy_count, copy_idx;
  ms_staging copy_rot, copy_t_ls; /* friction on */
} ms_buffers;

/* The device's limits the buffers must respect. */
typedef struct ms_device_limits {
  uint64_t max_alloc;  /* CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest single buffer */
  uint64_t global_mem; /* CL_DEVICE_GLOBAL_MEM_SIZE: all buffers together */
} ms_device_limits;

ms_status ms_buffers_limits(const ms_cl *cl, ms_device_limits *out);

/* Whether the buffers of `n_small` particles and a grid of `n_cells` x `cap` slots fit
 * the device: each buffer under max_alloc, the device buffers together under
 * global_mem, and the grid's counts in the int range of the kernels' arguments.
 * Returns 1, or 0 with `why` naming the buffer, its size and the limit. Sizes are
 * computed in 64 bits, so no product wraps. */
int ms_buffers_fit(const ms_device_limits *lim, ms_buffer_mode mode, uint64_t n_small,
                   uint64_t n_cells, uint64_t cap, char *why, size_t why_len);

ms_status ms_buffers_create(ms_buffers *b, ms_cl *cl, ms_buffer_mode mode, size_t n_small,
                            size_t n_cells, size_t cap);
void ms_buffers_release(ms_buffers *b, ms_cl *cl);

/* Friction on: adds rot (uploaded from `rot`, 2 doubles per particle; NULL: zeros), t_ss
 * and t_ls (zeros) to buffers just created; the full exchange then maps or reads rot and
 * writes t_ls back with the other views. */
ms_status ms_buffers_add_rotation(ms_buffers *b, ms_cl *cl, const double *rot);

/* Replaces the grid's index buffer with one of `cap` slots per cell. */
ms_status ms_buffers_set_capacity(ms_buffers *b, ms_cl *cl, size_t cap);

/* CPU worker side: make the host views valid (map, or read), then publish F_ls (unmap,
 * or write). Both run on the worker's own queue and return once complete. */
ms_status ms_buffers_host_begin(ms_buffers *b, ms_cl *cl);
ms_status ms_buffers_host_end(ms_buffers *b, ms_cl *cl);

/* Enqueues begin's maps or reads without waiting (begin then only waits for them), so
 * that the manager can put them on the worker's queue as soon as the grid is built,
 * ahead of its own small-small kernel: a device that runs commands in the order they
 * arrive (pocl) would otherwise have the worker's map wait for that kernel. Cancel
 * gives back views requested and never used (an advance that ended first). */
ms_status ms_buffers_host_request(ms_buffers *b, ms_cl *cl);
void ms_buffers_host_cancel(ms_buffers *b, ms_cl *cl);

/* A buffer of `bytes` for data the CPU worker touches, as `mode` keeps it (host-allocated
 * when shared); the contact zone's buffers (collision/exchange/zone.h) are made this way. */
ms_status ms_buffers_new(ms_cl *cl, ms_buffer_mode mode, size_t bytes, const char *what,
                         cl_mem *out);

/* Page-locked host memory for the copied mode (see ms_staging), mapped once on `queue`;
 * freed on the same queue. */
ms_status ms_buffers_staging_alloc(ms_cl *cl, cl_command_queue queue, size_t bytes,
                                   const char *what, ms_staging *st);
void ms_buffers_staging_free(cl_command_queue queue, ms_staging *st);

/* F_ls (and t_ls) back to all +0.0f, as every iteration's integration leaves them: after
 * a restore, since an advance that failed between the syncs left them half made. Blocks. */
ms_status ms_buffers_clear_forces(ms_buffers *b, ms_cl *cl);

/* Blocking whole-buffer transfers for set-up and state read-back (any mode). */
ms_status ms_buffers_upload(ms_cl *cl, cl_mem m, const void *src, size_t bytes);
ms_status ms_buffers_download(ms_cl *cl, cl_mem m, void *dst, size_t bytes);

/* Bytes the exchange = full path moves between device and host per iteration. */
double ms_buffers_full_bytes(const ms_buffers *b);

#endif
