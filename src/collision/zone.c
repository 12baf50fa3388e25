/* The contact zone's host side: listing the cells, the zone buffers in both buffer
 * modes, the count, gather and scatter kernels on the worker's queue (collision/zone.h). */
#include "collision/zone.h"

#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "shared/grid.h"

#define ZONE_MIN_ROWS 64

/* Bytes moved per zone slot: index, position and velocity down, force up. */
#define SLOT_BYTES ((double)(sizeof(int) + 4 * sizeof(double) + 2 * sizeof(float)))

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

static void release_mems(cl_mem *const *mems, int n)
{
  for (int i = 0; i < n; i++) {
    if (*mems[i])
      clReleaseMemObject(*mems[i]);
    *mems[i] = NULL;
  }
}

static void release_rows(ms_zone *z)
{
  cl_mem *mems[] = {&z->m_cells, &z->m_count, &z->m_start};
  release_mems(mems, 3);
  z->rows = 0;
}

static void release_slots(ms_zone *z, ms_cl *cl)
{
  ms_staging *copies[] = {&z->c_idx, &z->c_pos, &z->c_vel, &z->c_f};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
    ms_buffers_staging_free(cl->zone_queue, copies[i]);
  cl_mem *mems[] = {&z->m_idx, &z->m_pos, &z->m_vel, &z->m_f};
  release_mems(mems, 4);
  z->room = 0;
}

/* Amortised growth: at least double, with a quarter's headroom, at most `limit`. */
static size_t grown(size_t have, size_t need, size_t limit)
{
  size_t to = have * 2 > need + need / 4 ? have * 2 : need + need / 4;
  if (to < ZONE_MIN_ROWS)
    to = ZONE_MIN_ROWS;
  return to > limit ? (limit > need ? limit : need) : to;
}

/* Per-cell buffers for `need` cells: the list, the counts, the first slots. */
static ms_status fit_rows(ms_sim *s, ms_zone *z, size_t need)
{
  if (z->m_cells && need <= z->rows)
    return MS_OK;
  int had = z->m_cells != NULL;
  size_t rows = grown(z->rows, need, s->grid.n_cells);
  release_rows(z);
  ms_cl *cl = &s->cl;
  size_t bytes = rows * sizeof(int);
  /* cells and first slots: written by the host, read by kernels; counts: read back */
  ms_status st = ms_buffers_new(cl, MS_BUFFERS_COPIED, bytes, "zone cells", &z->m_cells);
  if (!st)
    st = ms_buffers_new(cl, MS_BUFFERS_COPIED, bytes, "zone starts", &z->m_start);
  if (!st)
    st = ms_buffers_new(cl, z->mode, bytes, "zone count", &z->m_count);
  int *c = st ? NULL : realloc(z->cells, bytes);
  if (c)
    z->cells = c;
  int *n = c ? realloc(z->count, bytes) : NULL;
  if (n)
    z->count = n;
  int *f = n ? realloc(z->start, bytes) : NULL;
  if (f)
    z->start = f;
  if (!st && !f)
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for a contact zone of %zu cells", rows);
  if (st) {
    release_rows(z);
    return st;
  }
  z->rows = rows;
  if (had)
    s->stats.zone_growths++;
  s->stats.zone_rows = (long)rows;
  return MS_OK;
}

/* Per-slot buffers for `need` particles, in the zone's buffer mode. */
static ms_status fit_slots(ms_sim *s, ms_zone *z, size_t need)
{
  if (z->m_idx && need <= z->room)
    return MS_OK;
  int had = z->m_idx != NULL;
  size_t room = grown(z->room, need, (size_t)(s->n_small > 0 ? s->n_small : 1));
  ms_cl *cl = &s->cl;
  release_slots(z, cl);
  size_t bytes[4] = {room * sizeof(int), room * 2 * sizeof(double), room * 2 * sizeof(double),
                     room * 2 * sizeof(float)};
  static const char *const what[4] = {"zone index", "zone pos", "zone vel", "zone f_ls"};
  cl_mem *mems[4] = {&z->m_idx, &z->m_pos, &z->m_vel, &z->m_f};
  ms_staging *copies[4] = {&z->c_idx, &z->c_pos, &z->c_vel, &z->c_f};
  ms_status st = MS_OK;
  for (int i = 0; i < 4 && !st; i++) {
    st = ms_buffers_new(cl, z->mode, bytes[i], what[i], mems[i]);
    if (!st && z->mode == MS_BUFFERS_COPIED)
      st = ms_buffers_staging_alloc(cl, cl->zone_queue, bytes[i], what[i], copies[i]);
  }
  if (st) {
    release_slots(z, cl);
    return st;
  }
  z->room = room;
  if (had)
    s->stats.zone_growths++;
  s->stats.zone_room = (long)room;
  return MS_OK;
}

/* The buffers follow the sim's buffer mode: a switch remakes them (not a growth). */
static void follow_mode(ms_sim *s, ms_zone *z)
{
  if (z->mode == s->buf.mode)
    return;
  release_rows(z);
  release_slots(z, &s->cl);
  z->mode = s->buf.mode;
}

ms_status ms_zone_reserve(ms_sim *s, size_t rows)
{
  ms_zone *z = &s->zone;
  if (rows == 0)
    rows = 1;
  if (rows > s->grid.n_cells)
    rows = s->grid.n_cells;
  size_t room = rows * s->buf.cap;
  if (room > (size_t)s->n_small)
    room = (size_t)(s->n_small > 0 ? s->n_small : 1);
  follow_mode(s, z);
  for (size_t r = 0; z->row_of && r < z->n; r++)
    z->row_of[z->cells[r]] = -1; /* the list may not fit the new room: start afresh */
  z->n = 0;
  release_rows(z);
  release_slots(z, &s->cl);
  ms_status st = fit_rows(s, z, rows);
  if (!st)
    st = fit_slots(s, z, room);
  return st;
}

static ms_status run(ms_sim *s, int kernel, size_t n, cl_event *ev)
{
  return ms_kernels_run_1d_on(&s->kern, s->cl.zone_queue, kernel, n, ev);
}

#define ARG(id, i, value)                                                                   \
  MS_CL_TRY(clSetKernelArg(s->kern.kernel[id], (i), sizeof(value), &(value)),               \
            "clSetKernelArg(" #id ", " #value ")")

static ms_status count_kernel(ms_sim *s, ms_zone *z, cl_event *ev)
{
  int rows = (int)z->n, cap = (int)s->buf.cap;
  ARG(MS_K_ZONE_COUNT, 0, z->m_cells);
  ARG(MS_K_ZONE_COUNT, 1, rows);
  ARG(MS_K_ZONE_COUNT, 2, cap);
  ARG(MS_K_ZONE_COUNT, 3, s->buf.count);
  ARG(MS_K_ZONE_COUNT, 4, z->m_count);
  return run(s, MS_K_ZONE_COUNT, z->n, ev);
}

static ms_status gather_kernel(ms_sim *s, ms_zone *z, cl_event *ev)
{
  const ms_buffers *b = &s->buf;
  int rows = (int)z->n, cap = (int)b->cap;
  ARG(MS_K_ZONE_GATHER, 0, z->m_cells);
  ARG(MS_K_ZONE_GATHER, 1, rows);
  ARG(MS_K_ZONE_GATHER, 2, cap);
  ARG(MS_K_ZONE_GATHER, 3, b->idx);
  ARG(MS_K_ZONE_GATHER, 4, b->pos);
  ARG(MS_K_ZONE_GATHER, 5, b->vel);
  ARG(MS_K_ZONE_GATHER, 6, z->m_start);
  ARG(MS_K_ZONE_GATHER, 7, z->m_count);
  ARG(MS_K_ZONE_GATHER, 8, z->m_idx);
  ARG(MS_K_ZONE_GATHER, 9, z->m_pos);
  ARG(MS_K_ZONE_GATHER, 10, z->m_vel);
  return run(s, MS_K_ZONE_GATHER, z->n, ev);
}

static ms_status scatter_kernel(ms_sim *s, ms_zone *z, cl_event *ev)
{
  int slots = (int)z->n_slots;
  ARG(MS_K_ZONE_SCATTER, 0, slots);
  ARG(MS_K_ZONE_SCATTER, 1, z->m_idx);
  ARG(MS_K_ZONE_SCATTER, 2, z->m_f);
  ARG(MS_K_ZONE_SCATTER, 3, s->buf.f_ls);
  return run(s, MS_K_ZONE_SCATTER, z->n_slots, ev);
}

/* Books a zone kernel's profiled time once a blocking call has passed it. */
static void book(ms_sim *s, int kernel, cl_event *ev, int ok)
{
  if (!*ev)
    return;
  if (ok)
    ms_trace_kernel(&s->trace, kernel, *ev);
  else
    clReleaseEvent(*ev);
  *ev = 0;
}

/* Maps and reads are enqueued without blocking, the last one blocking (one round trip
 * for all: the worker's queue is in order). */
static ms_status map(ms_cl *cl, cl_mem m, cl_map_flags flags, size_t bytes, const char *what,
                     cl_bool block, void **out)
{
  cl_int err;
  *out = clEnqueueMapBuffer(cl->zone_queue, m, block, flags, 0, bytes, 0, NULL, NULL, &err);
  return ms_cl_check(err, "clEnqueueMapBuffer", what);
}

static ms_status read_into(ms_cl *cl, cl_mem m, void *dst, size_t bytes, const char *what,
                           cl_bool block)
{
  cl_int err = clEnqueueReadBuffer(cl->zone_queue, m, block, 0, bytes, dst, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueReadBuffer", what);
}

static ms_status unmap(ms_cl *cl, cl_mem m, const void *view, const char *what)
{
  cl_int err = clEnqueueUnmapMemObject(cl->zone_queue, m, (void *)view, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueUnmapMemObject", what);
}

/* The listed cells' counts to the host (map or read: one round trip), then the zone's
 * layout: each cell's particles follow the previous cell's. */
static ms_status lay_out(ms_sim *s, ms_zone *z)
{
  ms_cl *cl = &s->cl;
  size_t cb = z->n * sizeof(int);
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    void *c;
    if ((st = map(cl, z->m_count, CL_MAP_READ, cb, "zone count", CL_TRUE, &c)))
      return st;
    memcpy(z->count, c, cb);
    if ((st = unmap(cl, z->m_count, c, "zone count")))
      return st;
  } else if ((st = read_into(cl, z->m_count, z->count, cb, "zone count", CL_TRUE))) {
    return st;
  }
  size_t at = 0;
  for (size_t r = 0; r < z->n; r++) {
    z->start[r] = (int)at;
    at += (size_t)z->count[r];
  }
  z->n_slots = at;
  return MS_OK;
}

static ms_status slot_views(ms_zone *z, ms_cl *cl)
{
  size_t ns = z->n_slots, ib = ns * sizeof(int);
  size_t d2 = ns * 2 * sizeof(double), f2 = ns * 2 * sizeof(float);
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    void *i, *p, *v, *f;
    if ((st = map(cl, z->m_idx, CL_MAP_READ, ib, "zone index", CL_FALSE, &i)) ||
        (st = map(cl, z->m_pos, CL_MAP_READ, d2, "zone pos", CL_FALSE, &p)) ||
        (st = map(cl, z->m_vel, CL_MAP_READ, d2, "zone vel", CL_FALSE, &v)) ||
        (st = map(cl, z->m_f, CL_MAP_WRITE_INVALIDATE_REGION, f2, "zone f_ls", CL_TRUE, &f)))
      return st;
    z->h_idx = i;
    z->h_pos = p;
    z->h_vel = v;
    z->h_f = f;
  } else {
    if ((st = read_into(cl, z->m_idx, z->c_idx.ptr, ib, "zone index", CL_FALSE)) ||
        (st = read_into(cl, z->m_pos, z->c_pos.ptr, d2, "zone pos", CL_FALSE)) ||
        (st = read_into(cl, z->m_vel, z->c_vel.ptr, d2, "zone vel", CL_TRUE)))
      return st;
    z->h_idx = z->c_idx.ptr;
    z->h_pos = z->c_pos.ptr;
    z->h_vel = z->c_vel.ptr;
    z->h_f = z->c_f.ptr;
  }
  /* The forces start from +0.0f, as F_ls does on the device: the same sums result. */
  memset(z->h_f, 0, f2);
  return MS_OK;
}

static void count_stats(ms_sim *s, const ms_zone *z)
{
  ms_sim_stats *st = &s->stats;
  st->zone_iterations++;
  st->zone_cells_total += (long)z->n;
  st->zone_particles_total += (long)z->n_slots;
  if ((long)z->n > st->zone_cells_max)
    st->zone_cells_max = (long)z->n;
  if ((long)z->n_slots > st->zone_particles_max)
    st->zone_particles_max = (long)z->n_slots;
  /* cells and starts up, counts down; index, position, velocity down, forces up */
  st->exchange_bytes += (double)(3 * z->n * sizeof(int)) + (double)z->n_slots * SLOT_BYTES;
}

ms_status ms_zone_begin(ms_sim *s)
{
  ms_zone *z = &s->zone;
  ms_cl *cl = &s->cl;
  z->n_slots = 0;
  follow_mode(s, z);
  if (!list_cells(s, z))
    return ms_fail(MS_ERR_RUNTIME, "out of memory listing the contact zone");
  ms_status st = fit_rows(s, z, z->n);
  if (st || z->n == 0) {
    if (!st)
      count_stats(s, z);
    return st;
  }
  cl_event ev_count = 0, ev_gather = 0;
  st = ms_cl_check(clEnqueueWriteBuffer(cl->zone_queue, z->m_cells, CL_FALSE, 0,
                                        z->n * sizeof(int), z->cells, 0, NULL, NULL),
                   "clEnqueueWriteBuffer", "zone cells");
  if (!st)
    st = count_kernel(s, z, &ev_count);
  if (!st)
    st = lay_out(s, z); /* blocks: the cells' upload and the count are done */
  book(s, MS_K_ZONE_COUNT, &ev_count, !st);
  if (!st)
    st = fit_slots(s, z, z->n_slots);
  if (st || z->n_slots == 0) {
    if (!st)
      count_stats(s, z);
    return st;
  }
  st = ms_cl_check(clEnqueueWriteBuffer(cl->zone_queue, z->m_start, CL_FALSE, 0,
                                        z->n * sizeof(int), z->start, 0, NULL, NULL),
                   "clEnqueueWriteBuffer", "zone starts");
  if (!st)
    st = gather_kernel(s, z, &ev_gather);
  if (!st)
    st = slot_views(z, cl); /* blocks: the gather is done */
  book(s, MS_K_ZONE_GATHER, &ev_gather, !st);
  if (!st)
    count_stats(s, z);
  return st;
}

ms_status ms_zone_end(ms_sim *s)
{
  ms_zone *z = &s->zone;
  ms_cl *cl = &s->cl;
  if (z->n_slots == 0)
    return MS_OK;
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    if ((st = unmap(cl, z->m_idx, z->h_idx, "zone index")) ||
        (st = unmap(cl, z->m_pos, z->h_pos, "zone pos")) ||
        (st = unmap(cl, z->m_vel, z->h_vel, "zone vel")) ||
        (st = unmap(cl, z->m_f, z->h_f, "zone f_ls")))
      return st;
  } else {
    cl_int err = clEnqueueWriteBuffer(cl->zone_queue, z->m_f, CL_FALSE, 0,
                                      z->n_slots * 2 * sizeof(float), z->c_f.ptr, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueWriteBuffer", "zone f_ls");
  }
  z->h_idx = NULL;
  z->h_pos = z->h_vel = NULL;
  z->h_f = NULL;
  cl_event ev = 0;
  st = scatter_kernel(s, z, &ev);
  if (!st)
    st = ms_cl_check(clFinish(cl->zone_queue), "clFinish", "worker queue");
  book(s, MS_K_ZONE_SCATTER, &ev, !st);
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
  if (cl->zone_queue)
    release_slots(z, cl);
  release_rows(z);
  free(z->cells);
  free(z->count);
  free(z->start);
  free(z->row_of);
  memset(z, 0, sizeof *z);
}
