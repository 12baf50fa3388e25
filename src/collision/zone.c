/* The contact zone's host side: listing the cells, the zone buffers in both buffer
 * modes, the gather and scatter kernels on the worker's queue (collision/zone.h). */
#include "collision/zone.h"

#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "shared/grid.h"

#define ZONE_MIN_ROWS 64

/* Bytes per slot of each zone buffer, and per row of the count. */
#define SLOT_BYTES (sizeof(int) + 4 * sizeof(double) + 2 * sizeof(float))

/* Lists the cells under every large particle's reach (r + the largest small radius:
 * the rectangle large-small walks), each once, in first-visit order: large particles
 * ascending, then rows and columns of each rectangle. The order is deterministic; it
 * enters no sum (each small particle has its own slot), so it need not be sorted. The
 * previous iteration's marks are cleared first. Returns 0 when out of memory. */
static int list_cells(ms_sim *s, ms_zone *z)
{
  const ms_grid *g = &s->grid;
  if (!z->row_of || z->n_cells != g->n_cells) {
    free(z->row_of);
    z->row_of = malloc(g->n_cells * sizeof *z->row_of);
    if (!z->row_of)
      return 0;
    z->n_cells = g->n_cells;
    memset(z->row_of, 0xff, g->n_cells * sizeof *z->row_of); /* all -1 */
  } else {
    for (size_t r = 0; r < z->n; r++)
      z->row_of[z->cells[r]] = -1;
  }
  z->n = 0;
  size_t room = z->rows;
  for (int i = 0; i < s->n_large; i++) {
    const ms_body *L = &s->large[i];
    double reach = (double)L->r + s->r_small_max;
    int x0 = ms_grid_axis(L->x - reach, g->inv_cell, g->nx);
    int x1 = ms_grid_axis(L->x + reach, g->inv_cell, g->nx);
    int y0 = ms_grid_axis(L->y - reach, g->inv_cell, g->ny);
    int y1 = ms_grid_axis(L->y + reach, g->inv_cell, g->ny);
    for (int cy = y0; cy <= y1; cy++) {
      for (int cx = x0; cx <= x1; cx++) {
        int cell = cy * g->nx + cx;
        if (z->row_of[cell] >= 0)
          continue;
        if (z->n == room) { /* the host list grows here; the device buffers after */
          room = room * 2 > ZONE_MIN_ROWS ? room * 2 : ZONE_MIN_ROWS;
          int *grown = realloc(z->cells, room * sizeof *grown);
          if (!grown)
            return 0;
          z->cells = grown;
        }
        z->row_of[cell] = (int)z->n;
        z->cells[z->n++] = cell;
      }
    }
  }
  return 1;
}

static void release_buffers(ms_zone *z, ms_cl *cl)
{
  ms_staging *copies[] = {&z->c_count, &z->c_idx, &z->c_pos, &z->c_vel, &z->c_f};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
    ms_buffers_staging_free(cl->cpu_queue, copies[i]);
  cl_mem *mems[] = {&z->m_cells, &z->m_count, &z->m_idx, &z->m_pos, &z->m_vel, &z->m_f};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) {
    if (*mems[i])
      clReleaseMemObject(*mems[i]);
    *mems[i] = NULL;
  }
  z->rows = 0;
}

/* (Re)makes the buffers for `rows` cells of `slots` slots in `mode`. */
static ms_status make_buffers(ms_zone *z, ms_cl *cl, ms_buffer_mode mode, size_t rows,
                              size_t slots)
{
  release_buffers(z, cl);
  size_t ns = rows * slots;
  size_t bytes[5] = {rows * sizeof(int), ns * sizeof(int), ns * 2 * sizeof(double),
                     ns * 2 * sizeof(double), ns * 2 * sizeof(float)};
  static const char *const what[5] = {"zone count", "zone index", "zone pos", "zone vel",
                                      "zone f_ls"};
  cl_mem *mems[5] = {&z->m_count, &z->m_idx, &z->m_pos, &z->m_vel, &z->m_f};
  ms_staging *copies[5] = {&z->c_count, &z->c_idx, &z->c_pos, &z->c_vel, &z->c_f};
  ms_status st = ms_buffers_new(cl, MS_BUFFERS_COPIED, rows * sizeof(int), "zone cells",
                                &z->m_cells); /* written by the host, read by the kernel */
  for (int i = 0; i < 5 && !st; i++) {
    st = ms_buffers_new(cl, mode, bytes[i], what[i], mems[i]);
    if (!st && mode == MS_BUFFERS_COPIED)
      st = ms_buffers_staging_alloc(cl, cl->cpu_queue, bytes[i], what[i], copies[i]);
  }
  if (st) {
    release_buffers(z, cl);
    return st;
  }
  int *grown = realloc(z->cells, rows * sizeof *grown);
  if (!grown) {
    release_buffers(z, cl);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a contact zone of %zu cells", rows);
  }
  z->cells = grown;
  z->rows = rows;
  z->slots = slots;
  z->mode = mode;
  return MS_OK;
}

/* Grows (amortised: at least doubling) when the listed cells outgrew the buffers, and
 * remakes them when the grid's capacity or the buffer mode changed since. */
static ms_status fit_buffers(ms_sim *s, ms_zone *z, size_t need)
{
  size_t slots = s->buf.cap;
  if (z->m_count && need <= z->rows && z->slots == slots && z->mode == s->buf.mode)
    return MS_OK;
  size_t rows = z->rows;
  if (need > rows) {
    rows = rows * 2 > need + need / 4 ? rows * 2 : need + need / 4;
    if (rows < ZONE_MIN_ROWS)
      rows = ZONE_MIN_ROWS;
    if (rows > s->grid.n_cells)
      rows = s->grid.n_cells; /* never more cells than the grid has */
  }
  size_t old_cells = z->n; /* make_buffers keeps the listed cells: realloc copies them */
  int had = z->m_count != NULL;
  ms_status st = make_buffers(z, &s->cl, s->buf.mode, rows, slots);
  z->n = old_cells;
  if (st)
    return st;
  if (had)
    s->stats.zone_growths++;
  s->stats.zone_rows = (long)z->rows;
  s->stats.zone_slots = (int)z->slots;
  return MS_OK;
}

ms_status ms_zone_reserve(ms_sim *s, size_t rows)
{
  ms_zone *z = &s->zone;
  if (rows > s->grid.n_cells)
    rows = s->grid.n_cells;
  for (size_t r = 0; z->row_of && r < z->n; r++)
    z->row_of[z->cells[r]] = -1; /* the list may not fit the new room: start afresh */
  z->n = 0;
  ms_status st = make_buffers(z, &s->cl, s->buf.mode, rows ? rows : 1, s->buf.cap);
  s->stats.zone_rows = (long)z->rows;
  s->stats.zone_slots = (int)z->slots;
  return st;
}

#define ARG(id, i, value)                                                                   \
  MS_CL_TRY(clSetKernelArg(s->kern.kernel[id], (i), sizeof(value), &(value)),               \
            "clSetKernelArg(" #id ", " #value ")")

static ms_status gather(ms_sim *s, ms_zone *z, cl_event *ev)
{
  const ms_buffers *b = &s->buf;
  cl_ulong n_slots = (cl_ulong)(z->n * z->slots);
  int cap = (int)z->slots;
  ARG(MS_K_ZONE_GATHER, 0, z->m_cells);
  ARG(MS_K_ZONE_GATHER, 1, n_slots);
  ARG(MS_K_ZONE_GATHER, 2, cap);
  ARG(MS_K_ZONE_GATHER, 3, b->count);
  ARG(MS_K_ZONE_GATHER, 4, b->idx);
  ARG(MS_K_ZONE_GATHER, 5, b->pos);
  ARG(MS_K_ZONE_GATHER, 6, b->vel);
  ARG(MS_K_ZONE_GATHER, 7, z->m_count);
  ARG(MS_K_ZONE_GATHER, 8, z->m_idx);
  ARG(MS_K_ZONE_GATHER, 9, z->m_pos);
  ARG(MS_K_ZONE_GATHER, 10, z->m_vel);
  return ms_kernels_run_1d_on(&s->kern, s->cl.cpu_queue, MS_K_ZONE_GATHER, (size_t)n_slots, ev);
}

static ms_status scatter(ms_sim *s, ms_zone *z, cl_event *ev)
{
  cl_ulong n_slots = (cl_ulong)(z->n * z->slots);
  int cap = (int)z->slots;
  ARG(MS_K_ZONE_SCATTER, 0, n_slots);
  ARG(MS_K_ZONE_SCATTER, 1, cap);
  ARG(MS_K_ZONE_SCATTER, 2, z->m_count);
  ARG(MS_K_ZONE_SCATTER, 3, z->m_idx);
  ARG(MS_K_ZONE_SCATTER, 4, z->m_f);
  ARG(MS_K_ZONE_SCATTER, 5, s->buf.f_ls);
  return ms_kernels_run_1d_on(&s->kern, s->cl.cpu_queue, MS_K_ZONE_SCATTER, (size_t)n_slots, ev);
}

/* Maps and reads are enqueued without blocking, the last one blocking (one round trip
 * for all: the worker's queue is in order). */
static ms_status map(ms_cl *cl, cl_mem m, cl_map_flags flags, size_t bytes, const char *what,
                     cl_bool block, void **out)
{
  cl_int err;
  *out = clEnqueueMapBuffer(cl->cpu_queue, m, block, flags, 0, bytes, 0, NULL, NULL, &err);
  return ms_cl_check(err, "clEnqueueMapBuffer", what);
}

static ms_status read_into(ms_cl *cl, cl_mem m, void *dst, size_t bytes, const char *what,
                           cl_bool block)
{
  cl_int err = clEnqueueReadBuffer(cl->cpu_queue, m, block, 0, bytes, dst, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueReadBuffer", what);
}

static ms_status host_views(ms_zone *z, ms_cl *cl)
{
  size_t ns = z->n * z->slots, cb = z->n * sizeof(int), ib = ns * sizeof(int);
  size_t d2 = ns * 2 * sizeof(double), f2 = ns * 2 * sizeof(float);
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    void *c, *i, *p, *v, *f;
    if ((st = map(cl, z->m_count, CL_MAP_READ, cb, "zone count", CL_FALSE, &c)) ||
        (st = map(cl, z->m_idx, CL_MAP_READ, ib, "zone index", CL_FALSE, &i)) ||
        (st = map(cl, z->m_pos, CL_MAP_READ, d2, "zone pos", CL_FALSE, &p)) ||
        (st = map(cl, z->m_vel, CL_MAP_READ, d2, "zone vel", CL_FALSE, &v)) ||
        (st = map(cl, z->m_f, CL_MAP_WRITE_INVALIDATE_REGION, f2, "zone f_ls", CL_TRUE, &f)))
      return st;
    z->h_count = c;
    z->h_idx = i;
    z->h_pos = p;
    z->h_vel = v;
    z->h_f = f;
  } else {
    if ((st = read_into(cl, z->m_count, z->c_count.ptr, cb, "zone count", CL_FALSE)) ||
        (st = read_into(cl, z->m_idx, z->c_idx.ptr, ib, "zone index", CL_FALSE)) ||
        (st = read_into(cl, z->m_pos, z->c_pos.ptr, d2, "zone pos", CL_FALSE)) ||
        (st = read_into(cl, z->m_vel, z->c_vel.ptr, d2, "zone vel", CL_TRUE)))
      return st;
    z->h_count = z->c_count.ptr;
    z->h_idx = z->c_idx.ptr;
    z->h_pos = z->c_pos.ptr;
    z->h_vel = z->c_vel.ptr;
    z->h_f = z->c_f.ptr;
  }
  /* The forces start from +0.0f, as F_ls does on the device: the same sums result. */
  memset(z->h_f, 0, f2);
  return MS_OK;
}

ms_status ms_zone_begin(ms_sim *s)
{
  ms_zone *z = &s->zone;
  if (!list_cells(s, z))
    return ms_fail(MS_ERR_RUNTIME, "out of memory listing the contact zone");
  ms_status st = fit_buffers(s, z, z->n);
  if (st || z->n == 0)
    return st;
  cl_event ev = 0;
  st = ms_cl_check(clEnqueueWriteBuffer(s->cl.cpu_queue, z->m_cells, CL_FALSE, 0,
                                        z->n * sizeof(int), z->cells, 0, NULL, NULL),
                   "clEnqueueWriteBuffer", "zone cells");
  if (!st)
    st = gather(s, z, &ev);
  if (!st)
    st = host_views(z, &s->cl); /* blocks: the cells' upload and the gather are done */
  if (ev) {
    if (!st)
      ms_trace_kernel(&s->trace, MS_K_ZONE_GATHER, ev);
    else
      clReleaseEvent(ev);
  }
  if (st)
    return st;
  size_t ns = z->n * z->slots;
  s->stats.zone_iterations++;
  s->stats.zone_cells_total += (long)z->n;
  if ((long)z->n > s->stats.zone_cells_max)
    s->stats.zone_cells_max = (long)z->n;
  /* cells up; counts, indices, positions, velocities down; forces up */
  s->stats.exchange_bytes += (double)(2 * z->n * sizeof(int)) + (double)ns * (double)SLOT_BYTES;
  return MS_OK;
}

ms_status ms_zone_end(ms_sim *s)
{
  ms_zone *z = &s->zone;
  ms_cl *cl = &s->cl;
  if (z->n == 0)
    return MS_OK;
  size_t f2 = z->n * z->slots * 2 * sizeof(float);
  cl_int err = CL_SUCCESS;
  if (z->mode == MS_BUFFERS_SHARED) {
    const void *views[] = {z->h_count, z->h_idx, z->h_pos, z->h_vel, z->h_f};
    cl_mem mems[] = {z->m_count, z->m_idx, z->m_pos, z->m_vel, z->m_f};
    for (int k = 0; k < 5 && err == CL_SUCCESS; k++)
      err = clEnqueueUnmapMemObject(cl->cpu_queue, mems[k], (void *)views[k], 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueUnmapMemObject", "zone");
  } else {
    err = clEnqueueWriteBuffer(cl->cpu_queue, z->m_f, CL_FALSE, 0, f2, z->c_f.ptr, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueWriteBuffer", "zone f_ls");
  }
  z->h_count = z->h_idx = NULL;
  z->h_pos = z->h_vel = NULL;
  z->h_f = NULL;
  cl_event ev = 0;
  ms_status st = scatter(s, z, &ev);
  if (!st)
    st = ms_cl_check(clFinish(cl->cpu_queue), "clFinish", "worker queue");
  if (ev) {
    if (!st)
      ms_trace_kernel(&s->trace, MS_K_ZONE_SCATTER, ev);
    else
      clReleaseEvent(ev);
  }
  return st;
}

double ms_zone_full_bytes(const ms_sim *s)
{
  const ms_buffers *b = &s->buf;
  double v2 = (double)b->n_small * 2 * sizeof(float), d2 = (double)b->n_small * 2 * sizeof(double);
  double cb = (double)b->n_cells * sizeof(int), ib = cb * (double)b->cap;
  /* pos, vel, the grid down; F_ls down (shared maps it for reading too) and up */
  return 2 * d2 + cb + ib + (b->mode == MS_BUFFERS_SHARED ? 2 : 1) * v2;
}

void ms_zone_release(ms_zone *z, ms_cl *cl)
{
  if (cl->cpu_queue)
    release_buffers(z, cl);
  free(z->cells);
  free(z->row_of);
  memset(z, 0, sizeof *z);
}
