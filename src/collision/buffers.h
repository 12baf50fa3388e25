/* The device buffers of the small particles and the grid, in one of two modes behind
 * one interface:
 *   shared  CL_MEM_ALLOC_HOST_PTR buffers; the CPU worker maps them (zero copy where
 *           the runtime allows) and touches them only between map and unmap;
 *   copied  plain device buffers; the CPU worker reads them into host arrays and
 *           writes F_ls back.
 * Either way the CPU worker sees the same host views (h_*) between begin and end. */
#ifndef MS_BUFFERS_H
#define MS_BUFFERS_H

#include "cl/runtime.h"
#include "mixsim/scene.h"

typedef struct ms_staging {
  cl_mem mem;
  void *ptr;
} ms_staging;

typedef struct ms_buffers {
  ms_buffer_mode mode;
  size_t n_small, n_cells, cap;
  cl_mem pos, vel;   /* float2 each: the small particles' state */
  cl_mem f_ss;       /* float2: small-small forces, device only */
  cl_mem f_ls;       /* float2: large-small forces, written by the CPU worker */
  cl_mem count, idx; /* grid: per-cell counters, cap slots per cell */
  cl_mem flags;      /* MS_FLAG_* counters of the grid kernels */

  /* Host views, valid between ms_buffers_host_begin and ms_buffers_host_end. */
  const float *h_pos, *h_vel;
  const int *h_count, *h_idx;
  float *h_f_ls;

  /* Copied mode: the host arrays behind the views, in page-locked staging memory
   * (a host-allocated buffer mapped once for good, never used by a kernel), so the
   * explicit copies run at full DMA speed instead of through a driver bounce. */
  ms_staging copy_pos, copy_vel, copy_f_ls, copy_count, copy_idx;
} ms_buffers;

ms_status ms_buffers_create(ms_buffers *b, ms_cl *cl, ms_buffer_mode mode, size_t n_small,
                            size_t n_cells, size_t cap);
void ms_buffers_release(ms_buffers *b, ms_cl *cl);

/* Replaces the grid's index buffer with one of `cap` slots per cell. */
ms_status ms_buffers_set_capacity(ms_buffers *b, ms_cl *cl, size_t cap);

/* CPU worker side: make the host views valid (map, or read), then publish F_ls (unmap,
 * or write). Both run on the worker's own queue and return once complete. */
ms_status ms_buffers_host_begin(ms_buffers *b, ms_cl *cl);
ms_status ms_buffers_host_end(ms_buffers *b, ms_cl *cl);

/* Blocking whole-buffer transfers for set-up and state read-back (any mode). */
ms_status ms_buffers_upload(ms_cl *cl, cl_mem m, const void *src, size_t bytes);
ms_status ms_buffers_download(ms_cl *cl, cl_mem m, void *dst, size_t bytes);

#endif
