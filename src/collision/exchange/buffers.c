/* Shared (mapped) versus copied buffers for the data the CPU worker touches. */
#include "collision/exchange/buffers.h"
#include "cl/trace_events.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "shared/grid.h"

ms_status ms_buffers_limits(const ms_cl *cl, ms_device_limits *out)
{
  cl_ulong global = 0;
  MS_CL_TRY(clGetDeviceInfo(cl->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL),
            "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE)");
  out->max_alloc = cl->max_alloc;
  out->global_mem = global;
  return MS_OK;
}

/* One buffer of a configuration, by name and size. */
typedef struct planned {
  const char *what;
  uint64_t bytes;
} planned;

int ms_buffers_fit(const ms_device_limits *lim, ms_buffer_mode mode, uint64_t n_small,
                   uint64_t n_cells, uint64_t cap, char *why, size_t why_len)
{
  (void)mode; /* the copied mode's staging copies are host memory, each no larger than
                 its device buffer: the same checks cover them */
  if (n_small > INT_MAX / 2 || n_cells > INT_MAX || cap > INT_MAX) {
    snprintf(why, why_len, "%llu small particles and a grid of %llu cells x %llu slots: the "
             "kernels take these as int (at most %d particles, %d cells, %d slots per cell)",
             (unsigned long long)n_small, (unsigned long long)n_cells, (unsigned long long)cap,
             INT_MAX / 2, INT_MAX, INT_MAX);
    return 0;
  }
  uint64_t v2 = n_small * 2 * sizeof(float), d2 = n_small * 2 * sizeof(double);
  const planned bufs[] = {{"pos", d2}, {"vel", d2}, {"f_ss", v2}, {"f_ls", v2},
                          {"grid count", n_cells * sizeof(int)},
                          {"grid index", n_cells * cap * sizeof(int)},
                          {"grid flags", MS_FLAG_COUNT * sizeof(int)}, {"shape", v2}};
  uint64_t total = 0;
  const planned *largest = &bufs[0];
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    const planned *b = &bufs[i];
    if (b->bytes > lim->max_alloc) {
      char detail[96] = "";
      if (b == &bufs[5])
        snprintf(detail, sizeof detail, " (%llu cells x %llu slots x 4)",
                 (unsigned long long)n_cells, (unsigned long long)cap);
      snprintf(why, why_len, "buffer '%s' needs %llu bytes%s, more than the device's largest "
               "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)", b->what,
               (unsigned long long)b->bytes, detail, (unsigned long long)lim->max_alloc);
      return 0;
    }
    total += b->bytes;
    if (b->bytes > largest->bytes)
      largest = b;
  }
  if (total > lim->global_mem) {
    snprintf(why, why_len, "the device buffers need %llu bytes in all (the largest, '%s', "
             "%llu bytes), more than the device's memory (CL_DEVICE_GLOBAL_MEM_SIZE = %llu "
             "bytes)", (unsigned long long)total, largest->what,
             (unsigned long long)largest->bytes, (unsigned long long)lim->global_mem);
    return 0;
  }
  return 1;
}

/* Refuses, before allocating anything, a configuration the device cannot hold. */
static ms_status check_fit(const ms_cl *cl, ms_buffer_mode mode, size_t n_small, size_t n_cells,
                           size_t cap)
{
  ms_device_limits lim;
  ms_status st = ms_buffers_limits(cl, &lim);
  if (st)
    return st;
  char why[512];
  if (!ms_buffers_fit(&lim, mode, n_small, n_cells, cap, why, sizeof why))
    return ms_fail(MS_ERR_RUNTIME, "%s", why);
  return MS_OK;
}

static ms_status create(ms_cl *cl, cl_mem_flags flags, size_t bytes, const char *what, cl_mem *out)
{
  if (bytes == 0)
    bytes = 8; /* zero-sized buffers are invalid; an empty set still needs a handle */
  if (bytes > cl->max_alloc)
    return ms_fail(MS_ERR_RUNTIME,
                   "buffer '%s' needs %zu bytes, more than the device's largest allocation "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                   what, bytes, (unsigned long long)cl->max_alloc);
  cl_int err;
  *out = clCreateBuffer(cl->context, flags, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    char detail[128];
    snprintf(detail, sizeof detail, "buffer '%s' of %zu bytes", what, bytes);
    return ms_cl_check(err, "clCreateBuffer", detail);
  }
  return MS_OK;
}

static cl_mem_flags host_flags(const ms_buffers *b)
{
  return CL_MEM_READ_WRITE | (b->mode == MS_BUFFERS_SHARED ? CL_MEM_ALLOC_HOST_PTR : 0);
}

ms_status ms_buffers_staging_alloc(ms_cl *cl, cl_command_queue queue, size_t bytes,
                                   const char *what, ms_staging *st)
{
  ms_status rc = create(cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, what, &st->mem);
  if (rc)
    return rc;
  cl_int err;
  st->ptr = clEnqueueMapBuffer(queue, st->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               bytes ? bytes : 8, 0, NULL, NULL, &err);
  return ms_cl_check(err, "clEnqueueMapBuffer", what);
}

void ms_buffers_staging_free(cl_command_queue queue, ms_staging *st)
{
  if (st->ptr)
    clEnqueueUnmapMemObject(queue, st->mem, st->ptr, 0, NULL, NULL);
  if (st->mem) {
    clFinish(queue);
    clReleaseMemObject(st->mem);
  }
  st->mem = NULL;
  st->ptr = NULL;
}

static ms_status staging_alloc(ms_cl *cl, size_t bytes, const char *what, ms_staging *st)
{
  return ms_buffers_staging_alloc(cl, cl->gpu_queue, bytes, what, st);
}

static void staging_free(ms_cl *cl, ms_staging *st) { ms_buffers_staging_free(cl->gpu_queue, st); }

ms_status ms_buffers_new(ms_cl *cl, ms_buffer_mode mode, size_t bytes, const char *what,
                         cl_mem *out)
{
  cl_mem_flags flags = CL_MEM_READ_WRITE | (mode == MS_BUFFERS_SHARED ? CL_MEM_ALLOC_HOST_PTR : 0);
  return create(cl, flags, bytes, what, out);
}

static ms_status alloc_copies(ms_buffers *b, ms_cl *cl)
{
  size_t v2 = b->n_small * 2 * sizeof(float), d2 = b->n_small * 2 * sizeof(double);
  ms_status st;
  if ((st = staging_alloc(cl, d2, "pos copy", &b->copy_pos)) ||
      (st = staging_alloc(cl, d2, "vel copy", &b->copy_vel)) ||
      (st = staging_alloc(cl, v2, "f_ls copy", &b->copy_f_ls)) ||
      (st = staging_alloc(cl, b->n_cells * sizeof(int), "grid count copy", &b->copy_count)) ||
      (st = staging_alloc(cl, b->n_cells * b->cap * sizeof(int), "grid index copy", &b->copy_idx)))
    return st;
  return MS_OK;
}

ms_status ms_buffers_create(ms_buffers *b, ms_cl *cl, ms_buffer_mode mode, size_t n_small,
                            size_t n_cells, size_t cap)
{
  memset(b, 0, sizeof *b);
  ms_status st = check_fit(cl, mode, n_small, n_cells, cap);
  if (st)
    return st;
  b->mode = mode;
  b->n_small = n_small;
  b->n_cells = n_cells;
  b->cap = cap;
  size_t v2 = n_small * 2 * sizeof(float), d2 = n_small * 2 * sizeof(double);
  cl_mem_flags hf = host_flags(b);
  if ((st = create(cl, hf, d2, "pos", &b->pos)) || (st = create(cl, hf, d2, "vel", &b->vel)) ||
      (st = create(cl, CL_MEM_READ_ONLY, v2, "shape", &b->shape)) ||
      (st = create(cl, CL_MEM_READ_WRITE, v2, "f_ss", &b->f_ss)) ||
      (st = create(cl, hf, v2, "f_ls", &b->f_ls)) ||
      (st = create(cl, hf, n_cells * sizeof(int), "grid count", &b->count)) ||
      (st = create(cl, hf, n_cells * cap * sizeof(int), "grid index", &b->idx)) ||
      (st = create(cl, CL_MEM_READ_WRITE, MS_FLAG_COUNT * sizeof(int), "grid flags", &b->flags)) ||
      (st = create(cl, CL_MEM_READ_WRITE, n_small * 2 * sizeof(int), "images", &b->img)))
    return st;
  if (mode == MS_BUFFERS_COPIED && (st = alloc_copies(b, cl)))
    return st;
  /* F_ls starts at zero: afterwards the integrate kernel clears it each iteration. */
  float *zero = calloc(2 * n_small + 2, sizeof(float));
  if (!zero)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  st = ms_buffers_upload(cl, b->f_ls, zero, v2);
  if (!st) /* images: as many ints as F_ls has floats */
    st = ms_buffers_upload(cl, b->img, zero, n_small * 2 * sizeof(int));
  free(zero);
  return st;
}

ms_status ms_buffers_add_rotation(ms_buffers *b, ms_cl *cl, const double *rot)
{
  size_t n = b->n_small, d2 = n * 2 * sizeof(double), f1 = n * sizeof(float);
  cl_mem_flags hf = host_flags(b);
  ms_status st;
  if ((st = create(cl, hf, d2, "rot", &b->rot)) ||
      (st = create(cl, CL_MEM_READ_WRITE, f1, "t_ss", &b->t_ss)) ||
      (st = create(cl, hf, f1, "t_ls", &b->t_ls)))
    return st;
  if (b->mode == MS_BUFFERS_COPIED &&
      ((st = staging_alloc(cl, d2, "rot copy", &b->copy_rot)) ||
       (st = staging_alloc(cl, f1, "t_ls copy", &b->copy_t_ls))))
    return st;
  /* Torques start at zero, like F_ls: the integration clears t_ls each iteration and the
   * collide kernel writes every t_ss before it is read. */
  double *zero = calloc(2 * n + 2, sizeof(double));
  if (!zero)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  st = ms_buffers_upload(cl, b->rot, rot ? rot : zero, d2);
  if (!st)
    st = ms_buffers_upload(cl, b->t_ss, zero, f1);
  if (!st)
    st = ms_buffers_upload(cl, b->t_ls, zero, f1);
  free(zero);
  return st;
}

void ms_buffers_release(ms_buffers *b, ms_cl *cl)
{
  if (b->written) {
    clWaitForEvents(1, &b->written);
    clReleaseEvent(b->written);
  }
  ms_staging *copies[] = {&b->copy_pos,   &b->copy_vel, &b->copy_f_ls, &b->copy_count,
                          &b->copy_idx,   &b->copy_rot, &b->copy_t_ls};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
    staging_free(cl, copies[i]);
  cl_mem *mems[] = {&b->pos,  &b->vel,   &b->shape, &b->f_ss, &b->f_ls,
                    &b->count, &b->idx, &b->flags, &b->rot,  &b->t_ss, &b->t_ls, &b->img};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
    if (*mems[i])
      clReleaseMemObject(*mems[i]);
  memset(b, 0, sizeof *b);
}

ms_status ms_buffers_set_capacity(ms_buffers *b, ms_cl *cl, size_t cap)
{
  cl_mem fresh = NULL;
  ms_status st = check_fit(cl, b->mode, b->n_small, b->n_cells, cap);
  if (st)
    return st;
  st = create(cl, host_flags(b), b->n_cells * cap * sizeof(int), "grid index", &fresh);
  if (st)
    return st;
  clReleaseMemObject(b->idx);
  b->idx = fresh;
  b->cap = cap;
  if (b->mode == MS_BUFFERS_COPIED) {
    staging_free(cl, &b->copy_idx);
    return staging_alloc(cl, b->n_cells * cap * sizeof(int), "grid index copy", &b->copy_idx);
  }
  return MS_OK;
}

/* Maps and reads are enqueued without blocking, the last one blocking: the worker's
 * queue is in order, so one wait covers them all (each wait costs a round trip). */
/* --trace: an event slot for a transfer while recording (NULL otherwise, so an untraced
 * run enqueues exactly as before), then the event handed to the worker queue's track. */
static cl_event *tev_slot(cl_event *ev)
{
  *ev = 0;
  return ms_tev_on ? ev : NULL;
}

static void tev_note(const char *name, cl_event ev)
{
  if (!ev)
    return;
  ms_tev_device("queue: worker", name, ev);
  clReleaseEvent(ev);
}

static ms_status map(ms_cl *cl, cl_mem m, cl_map_flags flags, size_t bytes, const char *what,
                     const char *tname, cl_bool block, void **out)
{
  cl_int err;
  cl_event ev;
  *out = clEnqueueMapBuffer(cl->cpu_queue, m, block, flags, 0, bytes ? bytes : 8, 0, NULL,
                            tev_slot(&ev), &err);
  if (err == CL_SUCCESS)
    tev_note(tname, ev);
  return ms_cl_check(err, "clEnqueueMapBuffer", what);
}

static ms_status read_into(ms_cl *cl, cl_mem m, void *dst, size_t bytes, const char *what,
                           const char *tname, cl_bool block)
{
  cl_int err = CL_SUCCESS;
  cl_event ev;
  if (bytes) {
    err = clEnqueueReadBuffer(cl->cpu_queue, m, CL_FALSE, 0, bytes, dst, 0, NULL, tev_slot(&ev));
    if (err == CL_SUCCESS)
      tev_note(tname, ev);
  }
  if (err == CL_SUCCESS && block)
    err = clFinish(cl->cpu_queue);
  return ms_cl_check(err, "clEnqueueReadBuffer", what);
}

/* Shared mode: gives the five host views back (seven with friction); the first failure,
 * or CL_SUCCESS. */
static cl_int unmap_views(const ms_buffers *b, ms_cl *cl)
{
  const void *views[] = {b->h_pos, b->h_vel, b->h_count, b->h_idx, b->h_f_ls, b->h_rot, b->h_t_ls};
  cl_mem mems[] = {b->pos, b->vel, b->count, b->idx, b->f_ls, b->rot, b->t_ls};
  static const char *names[] = {"unmap pos", "unmap vel", "unmap grid count", "unmap grid index",
                                "unmap f_ls", "unmap rot", "unmap t_ls"};
  for (int k = 0; k < (b->rot ? 7 : 5); k++) {
    cl_event ev;
    cl_int err = clEnqueueUnmapMemObject(cl->cpu_queue, mems[k], (void *)views[k], 0, NULL,
                                         tev_slot(&ev));
    if (err != CL_SUCCESS)
      return err;
    tev_note(names[k], ev);
  }
  return CL_SUCCESS;
}

ms_status ms_buffers_host_request(ms_buffers *b, ms_cl *cl)
{
  size_t v2 = b->n_small * 2 * sizeof(float), d2 = b->n_small * 2 * sizeof(double);
  size_t cb = b->n_cells * sizeof(int), ib = b->n_cells * b->cap * sizeof(int);
  ms_status st;
  if (b->requested)
    return MS_OK;
  if (b->mode == MS_BUFFERS_SHARED) {
    void *p, *v, *c, *i, *f;
    if ((st = map(cl, b->pos, CL_MAP_READ, d2, "pos", "map pos", CL_FALSE, &p)) ||
        (st = map(cl, b->vel, CL_MAP_READ, d2, "vel", "map vel", CL_FALSE, &v)) ||
        (st = map(cl, b->count, CL_MAP_READ, cb, "grid count", "map grid count", CL_FALSE, &c)) ||
        (st = map(cl, b->idx, CL_MAP_READ, ib, "grid index", "map grid index", CL_FALSE, &i)) ||
        (st = map(cl, b->f_ls, CL_MAP_READ | CL_MAP_WRITE, v2, "f_ls", "map f_ls", CL_FALSE, &f)))
      return st;
    b->h_pos = p;
    b->h_vel = v;
    b->h_count = c;
    b->h_idx = i;
    b->h_f_ls = f;
    if (b->rot) {
      size_t f1 = b->n_small * sizeof(float);
      void *r, *t;
      if ((st = map(cl, b->rot, CL_MAP_READ, d2, "rot", "map rot", CL_FALSE, &r)) ||
          (st = map(cl, b->t_ls, CL_MAP_READ | CL_MAP_WRITE, f1, "t_ls", "map t_ls", CL_FALSE, &t)))
        return st;
      b->h_rot = r;
      b->h_t_ls = t;
    }
  } else {
    if ((st = read_into(cl, b->pos, b->copy_pos.ptr, d2, "pos", "read pos", CL_FALSE)) ||
        (st = read_into(cl, b->vel, b->copy_vel.ptr, d2, "vel", "read vel", CL_FALSE)) ||
        (st = read_into(cl, b->count, b->copy_count.ptr, cb, "grid count", "read grid count",
                        CL_FALSE)) ||
        (st =
             read_into(cl, b->idx, b->copy_idx.ptr, ib, "grid index", "read grid index", CL_FALSE)))
      return st;
    b->h_pos = b->copy_pos.ptr;
    b->h_vel = b->copy_vel.ptr;
    b->h_count = b->copy_count.ptr;
    b->h_idx = b->copy_idx.ptr;
    b->h_f_ls = b->copy_f_ls.ptr;
    if (b->rot) {
      if ((st = read_into(cl, b->rot, b->copy_rot.ptr, d2, "rot", "read rot", CL_FALSE)))
        return st;
      b->h_rot = b->copy_rot.ptr;
      b->h_t_ls = b->copy_t_ls.ptr;
    }
  }
  MS_CL_TRY(clFlush(cl->cpu_queue), "clFlush(worker queue)");
  b->requested = 1;
  return MS_OK;
}

ms_status ms_buffers_host_begin(ms_buffers *b, ms_cl *cl)
{
  ms_status st = ms_buffers_host_request(b, cl);
  if (st)
    return st;
  MS_CL_TRY(clFinish(cl->cpu_queue), "clFinish(worker queue)");
  b->requested = 0;
  /* The device clears its F_ls after integrating; the host copy starts from zero too. */
  if (b->mode == MS_BUFFERS_COPIED)
    memset(b->copy_f_ls.ptr, 0, b->n_small * 2 * sizeof(float));
  if (b->mode == MS_BUFFERS_COPIED && b->rot)
    memset(b->copy_t_ls.ptr, 0, b->n_small * sizeof(float));
  return MS_OK;
}

void ms_buffers_host_cancel(ms_buffers *b, ms_cl *cl)
{
  if (!b->requested)
    return;
  clFinish(cl->cpu_queue);
  b->requested = 0;
  if (b->mode == MS_BUFFERS_SHARED) {
    unmap_views(b, cl); /* giving back: nothing to report */
    clFinish(cl->cpu_queue);
  }
  b->h_pos = b->h_vel = NULL;
  b->h_count = b->h_idx = NULL;
  b->h_f_ls = NULL;
  b->h_rot = NULL;
  b->h_t_ls = NULL;
}

ms_status ms_buffers_host_end(ms_buffers *b, ms_cl *cl)
{
  cl_int err;
  cl_event ev;
  if (b->mode == MS_BUFFERS_SHARED) {
    if ((err = unmap_views(b, cl)) != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueUnmapMemObject", NULL);
  } else if (b->n_small) {
    err = clEnqueueWriteBuffer(cl->cpu_queue, b->f_ls, CL_FALSE, 0, b->n_small * 2 * sizeof(float),
                               b->copy_f_ls.ptr, 0, NULL, tev_slot(&ev));
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueWriteBuffer", "f_ls");
    tev_note("write F_ls", ev);
    if (b->rot) {
      err = clEnqueueWriteBuffer(cl->cpu_queue, b->t_ls, CL_FALSE, 0, b->n_small * sizeof(float),
                                 b->copy_t_ls.ptr, 0, NULL, tev_slot(&ev));
      if (err != CL_SUCCESS)
        return ms_cl_check(err, "clEnqueueWriteBuffer", "t_ls");
      tev_note("write T_ls", ev);
    }
  }
  b->h_pos = b->h_vel = NULL;
  b->h_count = b->h_idx = NULL;
  b->h_f_ls = NULL;
  b->h_rot = NULL;
  b->h_t_ls = NULL;
  /* The manager's integration reads F_ls from its own queue: it waits for this marker on
   * the device, where a finish here would cost the worker a round trip before sync 2. The
   * last one is long complete (the grid build after the integration waited for it). */
  if (b->written)
    clReleaseEvent(b->written);
  b->written = NULL;
  MS_CL_TRY(clEnqueueMarkerWithWaitList(cl->cpu_queue, 0, NULL, &b->written),
            "clEnqueueMarkerWithWaitList(worker queue)");
  MS_CL_TRY(clFlush(cl->cpu_queue), "clFlush(worker queue)");
  return MS_OK;
}

ms_status ms_buffers_upload(ms_cl *cl, cl_mem m, const void *src, size_t bytes)
{
  if (bytes == 0)
    return MS_OK;
  cl_int err = clEnqueueWriteBuffer(cl->gpu_queue, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueWriteBuffer", "upload");
}

ms_status ms_buffers_download(ms_cl *cl, cl_mem m, void *dst, size_t bytes)
{
  if (bytes == 0)
    return MS_OK;
  cl_int err = clEnqueueReadBuffer(cl->gpu_queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueReadBuffer", "download");
}

ms_status ms_buffers_clear_forces(ms_buffers *b, ms_cl *cl)
{
  static const float zero = 0.0f;
  cl_mem mems[] = {b->f_ls, b->t_ls};
  size_t bytes[] = {b->n_small * 2 * sizeof(float), b->n_small * sizeof(float)};
  for (int i = 0; i < 2; i++)
    if (mems[i] && bytes[i] > 0)
      MS_CL_TRY(clEnqueueFillBuffer(cl->gpu_queue, mems[i], &zero, sizeof zero, 0, bytes[i], 0,
                                    NULL, NULL),
                "clEnqueueFillBuffer(F_ls)");
  MS_CL_TRY(clFinish(cl->gpu_queue), "clFinish");
  return MS_OK;
}

double ms_buffers_full_bytes(const ms_buffers *b)
{
  double v2 = (double)b->n_small * 2 * sizeof(float), d2 = (double)b->n_small * 2 * sizeof(double);
  double cb = (double)b->n_cells * sizeof(int), ib = cb * (double)b->cap;
  /* pos, vel, the grid down; F_ls down (shared maps it for reading too) and up; with
   * friction rot down like pos, and t_ls like F_ls but one float */
  double fr = b->rot ? d2 + (b->mode == MS_BUFFERS_SHARED ? 2 : 1) * v2 / 2 : 0.0;
  return 2 * d2 + cb + ib + (b->mode == MS_BUFFERS_SHARED ? 2 : 1) * v2 + fr;
}
