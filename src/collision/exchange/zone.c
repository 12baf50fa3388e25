/* The contact zone's host side: the large particles' rectangles sent up, the kernels of
 * kernels/zone.cl on the worker's queue, the zone buffers in both buffer modes and
 * their growth (collision/exchange/zone.h). */
#include "collision/exchange/zone.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "collision/exchange/zone_host.h"
#include "shared/grid.h"

#define ZONE_MIN_ROOM 64
#define ZONE_LANES 256 /* MS_ZONE_LANES of kernels/zone.cl: the most lanes of a group */

#define OWNER 5 /* ints per owner: its first span, then its rectangle (kernels/zone.cl) */

/* Bytes per zone slot: its record down, its forces up. */
#define SLOT_DOWN(z) ((double)((z)->rec * sizeof(double)))
#define SLOT_UP(z) ((double)((z)->up * sizeof(float)))

static void release_mems(cl_mem *const *mems, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (*mems[i])
      clReleaseMemObject(*mems[i]);
    *mems[i] = NULL;
  }
}

static void release_stagings(ms_cl *cl, ms_staging *const *st, size_t n)
{
  for (size_t i = 0; i < n; i++)
    ms_buffers_staging_free(cl->zone_queue, st[i]);
}

/* The buffers whose kind follows the buffer mode: read back or mapped by the worker. */
static void release_slots(ms_zone *z, ms_cl *cl)
{
  ms_staging *st[] = {&z->c_rec, &z->c_up};
  release_stagings(cl, st, 2);
  cl_mem *mems[] = {&z->m_rec, &z->m_up};
  release_mems(mems, 2);
  z->room = 0;
}

static void release_spans(ms_zone *z, ms_cl *cl)
{
  ms_staging *st[] = {&z->c_span};
  release_stagings(cl, st, 1);
  cl_mem *mems[] = {&z->m_span};
  release_mems(mems, 1);
  z->span_room = 0;
}

/* Amortised growth: at least double, with a quarter's headroom, at most `limit`. */
static size_t grown(size_t have, size_t need, size_t limit)
{
  size_t to = have * 2 > need + need / 4 ? have * 2 : need + need / 4;
  if (to < ZONE_MIN_ROOM)
    to = ZONE_MIN_ROOM;
  return to > limit ? (limit > need ? limit : need) : to;
}

/* A device buffer in the zone's mode and, when copied, its pinned host copy. */
static ms_status mode_buffer(const ms_ctx *c, ms_zone *z, size_t bytes, const char *what, cl_mem *m,
                             ms_staging *copy)
{
  ms_status st = ms_buffers_new(c->cl, z->mode, bytes, what, m);
  if (!st && z->mode == MS_BUFFERS_COPIED)
    st = ms_buffers_staging_alloc(c->cl, c->cl->zone_queue, bytes, what, copy);
  return st;
}

/* Per-slot buffers for `need` particles. */
/* The per-slot buffers, `room` slots exactly. */
static ms_status make_slots(const ms_ctx *c, ms_zone *z, size_t room)
{
  release_slots(z, c->cl);
  z->rec = c->p->friction_on ? 6 : 5;
  z->up = c->p->friction_on ? 3 : 2;
  ms_status st;
  if ((st = mode_buffer(c, z, room * z->rec * sizeof(double), "zone records", &z->m_rec,
                        &z->c_rec)) ||
      (st = mode_buffer(c, z, room * z->up * sizeof(float), "zone forces", &z->m_up,
                        &z->c_up))) {
    release_slots(z, c->cl);
    return st;
  }
  z->room = room;
  c->stats->zone_room = (long)room;
  return MS_OK;
}

static ms_status fit_slots(const ms_ctx *c, ms_zone *z, size_t need)
{
  if (z->m_rec && need <= z->room)
    return MS_OK;
  int had = z->m_rec != NULL;
  ms_status st =
      make_slots(c, z, grown(z->room, need, (size_t)(c->p->n_small > 0 ? c->p->n_small : 1)));
  if (!st && had)
    c->stats->zone_growths++;
  return st;
}

/* The span buffer for the totals and `rows` rectangle rows exactly. */
static ms_status make_spans(const ms_ctx *c, ms_zone *z, size_t rows)
{
  release_spans(z, c->cl);
  ms_status st = mode_buffer(c, z, (rows + 1) * 2 * sizeof(int), "zone spans", &z->m_span,
                             &z->c_span);
  if (st) {
    release_spans(z, c->cl);
    return st;
  }
  z->span_room = rows;
  c->stats->zone_rows = (long)rows;
  return MS_OK;
}

/* The span buffer for the totals and `need` rectangle rows. */
static ms_status fit_spans(const ms_ctx *c, ms_zone *z, size_t need)
{
  if (z->m_span && need <= z->span_room)
    return MS_OK;
  return make_spans(c, z, grown(z->span_room, need, (size_t)INT_MAX - 1));
}

/* Lanes of the zone's work-groups: on a GPU the largest power of two that every kernel
 * sharing local memory can run, up to ZONE_LANES, of 4 cells each; on other devices one
 * lane of 64 cells (pocl ran the 256-lane groups 3-5 times slower than single lanes). */
static size_t group_lanes(const ms_ctx *c, size_t *per_lane)
{
  const ms_kernels *k = c->kern;
  *per_lane = 64;
  if (!(c->cl->device_type & CL_DEVICE_TYPE_GPU))
    return 1;
  *per_lane = 4;
  static const int kernels[3] = {MS_K_ZONE_BLOCKS, MS_K_ZONE_SCAN, MS_K_ZONE_GATHER};
  size_t most = ZONE_LANES;
  for (int i = 0; i < 3; i++)
    if (k->max_group[kernels[i]] < most)
      most = k->max_group[kernels[i]];
  size_t lanes = 1;
  while (lanes * 2 <= most)
    lanes *= 2;
  return lanes;
}

/* Once per sim: the per-large and per-cell buffers, which do not depend on the mode.
 * The marks start at 0 and stamps at 1, so no cell starts marked. */
static ms_status fit_fixed(const ms_ctx *c, ms_zone *z)
{
  if (z->m_mark)
    return MS_OK;
  ms_cl *cl = c->cl;
  size_t cells = c->p->grid.n_cells;
  z->lanes = group_lanes(c, &z->per_lane);
  size_t per_block = z->lanes * z->per_lane, blocks = (cells + per_block - 1) / per_block;
  ms_status st;
  if ((st = ms_buffers_new(cl, MS_BUFFERS_COPIED, cells * sizeof(int), "zone marks",
                           &z->m_mark)) ||
      (st = ms_buffers_new(cl, MS_BUFFERS_COPIED, cells * sizeof(int), "zone first slots",
                           &z->m_first)) ||
      (st = ms_buffers_new(cl, MS_BUFFERS_COPIED, blocks * 2 * sizeof(int), "zone blocks",
                           &z->m_block)) ||
      (st = ms_buffers_new(cl, MS_BUFFERS_COPIED, blocks * sizeof(int), "zone block starts",
                           &z->m_block_start)))
    return st;
  z->n_cells = cells;
  z->n_blocks = blocks;
  z->stamp = 0;
  int zero = 0;
  return ms_cl_check(clEnqueueFillBuffer(cl->zone_queue, z->m_mark, &zero, sizeof zero, 0,
                                         cells * sizeof(int), 0, NULL, NULL),
                     "clEnqueueFillBuffer", "zone marks");
}

/* Room for `owners` rectangles (the large particles', then the walls' runs of cells, whose
 * number changes as the walls move): remade larger when they outgrow it. */
static ms_status fit_owners(const ms_ctx *c, ms_zone *z, size_t owners)
{
  if (owners <= z->large_room && z->base)
    return MS_OK;
  ms_cl *cl = c->cl;
  size_t room = owners + owners / 2 + 1;
  free(z->base);
  ms_buffers_staging_free(cl->zone_queue, &z->up_own);
  cl_mem *mems[] = {&z->m_own};
  release_mems(mems, 1);
  z->large_room = 0;
  z->base = malloc((room + 1) * sizeof *z->base);
  if (!z->base)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the contact zone of %zu rectangles", room);
  ms_status st;
  if ((st = ms_buffers_new(cl, MS_BUFFERS_COPIED, room * OWNER * sizeof(int), "zone owners",
                           &z->m_own)) ||
      (st = ms_buffers_staging_alloc(cl, cl->zone_queue, room * OWNER * sizeof(int),
                                     "zone owners", &z->up_own)))
    return st;
  z->large_room = room;
  return MS_OK;
}

/* The buffers follow the sim's buffer mode: a switch remakes them (not a growth). */
static void follow_mode(const ms_ctx *c, ms_zone *z)
{
  if (z->mode == c->x->buf.mode)
    return;
  release_slots(z, c->cl);
  release_spans(z, c->cl);
  z->mode = c->x->buf.mode;
}

ms_status ms_zone_follow_buffers(const ms_ctx *c)
{
  ms_zone *z = &c->x->zone;
  if (z->mode == c->x->buf.mode || !z->m_rec)
    return MS_OK;
  size_t room = z->room, rows = z->span_room, expect = z->expect;
  follow_mode(c, z);
  ms_status st = make_slots(c, z, room);
  if (!st && rows > 0)
    st = make_spans(c, z, rows);
  z->expect = expect < z->room ? expect : z->room;
  return st;
}

ms_status ms_zone_reserve(const ms_ctx *c, size_t cells)
{
  ms_zone *z = &c->x->zone;
  if (cells == 0)
    cells = 1;
  size_t room = cells * c->x->buf.cap;
  if (room > (size_t)c->p->n_small)
    room = (size_t)(c->p->n_small > 0 ? c->p->n_small : 1);
  follow_mode(c, z);
  release_slots(z, c->cl);
  ms_status st = fit_slots(c, z, room);
  z->expect = 0;
  return st;
}

/* Each large particle's rectangle (the cells large-small walks: its reach r + the
 * largest small radius) into the upload copy, and where its rows start among the
 * spans. Returns the number of rows in all. */
static size_t rectangles(const ms_ctx *c, ms_zone *z, const ms_body *large, const int *extra,
                         size_t n_extra)
{
  const ms_grid *g = &c->p->grid;
  int *own = z->up_own.ptr;
  size_t rows = 0;
  for (int i = 0; i < c->p->n_stepped; i++) {
    const ms_body *L = &large[i];
    /* An empty slot (a domain's parked ones too: three in four on four GPUs) has no rows,
     * and the owner search passes it by: no rectangle made for nothing. */
    ms_cell_rect q = ms_body_empty(L) ? (ms_cell_rect){0, 0, 0, -1}
                                      : ms_params_rect(c->p, L->x, L->y,
                                                       (double)L->r + c->p->r_small_max);
    int *r = &own[z->n_owners + 4 * (size_t)i];
    r[0] = q.x0;
    r[1] = q.x1;
    r[2] = q.y0;
    r[3] = q.y1;
    z->base[i] = own[i] = (int)rows;
    /* a row across a periodic seam is two spans (kernels/zone.cl) */
    int pieces = q.x0 < 0 || q.x1 >= g->nx ? 2 : 1;
    rows += (size_t)(r[3] - r[2] + 1) * (size_t)pieces;
  }
  for (size_t e = 0; e < n_extra; e++) { /* the walls' runs, after the large particles */
    size_t i = (size_t)c->p->n_stepped + e;
    memcpy(&own[z->n_owners + 4 * i], &extra[4 * e], 4 * sizeof(int));
    z->base[i] = own[i] = (int)rows;
    rows += (size_t)(extra[4 * e + 3] - extra[4 * e + 2] + 1);
  }
  z->base[z->n_owners] = (int)rows;
  return rows;
}

/* The first zone's room: the rectangles' cells (overlaps counted twice) at the small
 * particles' mean density over the grid. A zone that outgrows it grows, counted. */
static size_t first_room(const ms_ctx *c, const ms_zone *z)
{
  const int *r = (const int *)z->up_own.ptr + z->n_owners; /* the rectangles */
  double cells = 0.0;
  for (size_t i = 0; i < z->n_owners; i++, r += 4)
    cells += (double)(r[1] - r[0] + 1) * (double)(r[3] - r[2] + 1);
  double room = cells * (double)c->p->n_small / (double)c->p->grid.n_cells + ZONE_MIN_ROOM;
  return room < (double)c->p->n_small ? (size_t)room : (size_t)c->p->n_small;
}

/* Binds kernel arguments of the program of the context `c` in scope (collision/base/kernels.h). */
#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)

static ms_status run(const ms_ctx *c, int kernel, size_t n, cl_event *ev)
{
  ms_status st = ms_kernels_run_1d_on(c->kern, c->cl->zone_queue, kernel, n, ev);
  return ms_trace_device("queue: zone", kernel, st || !ev ? NULL : *ev), st;
}

typedef ms_zone_events zone_events; /* (booked once a blocking call has passed them) */

/* A layout kernel's event: kept only to be timed. */
static cl_event *timed(const ms_ctx *c, zone_events *e, int kernel)
{
  return ms_trace_timed(c->trace, &e->ev[kernel]);
}

/* Whether cells c0 .. c0 + w (c0 unclamped along a periodic axis) lie in the span's s0 ..
 * s0 + sw - 1 along an axis of n. */
static int in_span(int c0, int w, int s0, int sw, int n)
{
  /* (the whole axis holds a rectangle across its seam too; else its first cell lies within
   * the span's first sw - w cells) */
  return sw >= n || ms_span_holds(((c0 % n) + n) % n, s0, sw - w, n);
}

/* The cells this iteration's sweeps visit: the grid's span (the cells that may hold a
 * particle, crossing.h) when it holds every rectangle, else the whole grid; and the blocks
 * of lanes x per_lane cells that cover them. */
static void choose_sweep(const ms_ctx *c, ms_zone *z)
{
  const ms_grid *g = &c->p->grid;
  ms_grid_span s = c->x->span.wx > 0 ? c->x->span : ms_grid_whole(g);
  const int *r = (const int *)z->up_own.ptr + z->n_owners; /* the rectangles */
  for (size_t i = 0; i < z->n_owners; i++, r += 4)
    if (r[3] >= r[2] && !(in_span(r[0], r[1] - r[0], s.x0, s.wx, g->nx) &&
                          in_span(r[2], r[3] - r[2], s.y0, s.wy, g->ny)))
      s = ms_grid_whole(g);
  z->sweep = s;
  size_t cells = (size_t)s.wx * (size_t)s.wy, per_block = z->lanes * z->per_lane;
  z->n_sweep = cells;
  z->n_sweep_blocks = (cells + per_block - 1) / per_block;
}

/* The rectangles' cells marked with this iteration's stamp. */
static ms_status mark(const ms_ctx *c, ms_zone *z, zone_events *e)
{
  int rows = (int)z->n_spans, nl = (int)z->n_owners, nx = c->p->grid.nx;
  ARG(MS_K_ZONE_MARK, 0, rows);
  ARG(MS_K_ZONE_MARK, 1, nl);
  ARG(MS_K_ZONE_MARK, 2, z->m_own);
  ARG(MS_K_ZONE_MARK, 3, nx);
  ARG(MS_K_ZONE_MARK, 4, z->stamp);
  ARG(MS_K_ZONE_MARK, 5, z->m_mark);
  ARG(MS_K_ZONE_MARK, 6, c->p->grid.ny);
  return run(c, MS_K_ZONE_MARK, z->n_spans, timed(c, e, MS_K_ZONE_MARK));
}

/* The marked cells' particles counted per block, and each block's first slot (after sync 1:
 * they read the grid). */
static ms_status count(const ms_ctx *c, ms_zone *z, zone_events *e)
{
  int nx = c->p->grid.nx, cells = (int)z->n_sweep;
  int cap = (int)c->x->buf.cap, blocks = (int)z->n_sweep_blocks, per_lane = (int)z->per_lane;
  ARG(MS_K_ZONE_BLOCKS, 0, cells);
  ARG(MS_K_ZONE_BLOCKS, 1, per_lane);
  ARG(MS_K_ZONE_BLOCKS, 2, cap);
  ARG(MS_K_ZONE_BLOCKS, 3, z->stamp);
  ARG(MS_K_ZONE_BLOCKS, 4, z->m_mark);
  ARG(MS_K_ZONE_BLOCKS, 5, c->x->buf.count);
  ARG(MS_K_ZONE_BLOCKS, 6, z->m_block);
  ARG(MS_K_ZONE_BLOCKS, 7, z->sweep.x0);
  ARG(MS_K_ZONE_BLOCKS, 8, z->sweep.wx);
  ARG(MS_K_ZONE_BLOCKS, 9, z->sweep.y0);
  ARG(MS_K_ZONE_BLOCKS, 10, nx);
  ARG(MS_K_ZONE_BLOCKS, 11, c->p->grid.ny);
  ARG(MS_K_ZONE_SCAN, 0, blocks);
  ARG(MS_K_ZONE_SCAN, 1, z->m_block);
  ARG(MS_K_ZONE_SCAN, 2, z->m_block_start);
  ARG(MS_K_ZONE_SCAN, 3, z->m_span); /* the totals are its first entry */
  cl_command_queue q = c->cl->zone_queue;
  ms_status st = ms_kernels_run_groups_on(c->kern, q, MS_K_ZONE_BLOCKS, z->n_sweep_blocks,
                                          z->lanes, timed(c, e, MS_K_ZONE_BLOCKS));
  if (!st)
    st = ms_kernels_run_groups_on(c->kern, q, MS_K_ZONE_SCAN, 1, z->lanes,
                                  timed(c, e, MS_K_ZONE_SCAN));
  return st;
}

/* Each slot's record; with friction on its spin too (rot is not read otherwise). */
static ms_status gather(const ms_ctx *c, ms_zone *z, zone_events *e)
{
  const ms_buffers *b = &c->x->buf;
  int cells = (int)z->n_sweep, cap = (int)b->cap, room = (int)z->room;
  int per_lane = (int)z->per_lane, rec = (int)z->rec, nx = c->p->grid.nx;
  ARG(MS_K_ZONE_GATHER, 0, cells);
  ARG(MS_K_ZONE_GATHER, 1, per_lane);
  ARG(MS_K_ZONE_GATHER, 2, cap);
  ARG(MS_K_ZONE_GATHER, 3, z->stamp);
  ARG(MS_K_ZONE_GATHER, 4, room);
  ARG(MS_K_ZONE_GATHER, 5, z->m_mark);
  ARG(MS_K_ZONE_GATHER, 6, b->count);
  ARG(MS_K_ZONE_GATHER, 7, b->idx);
  ARG(MS_K_ZONE_GATHER, 8, b->pos);
  ARG(MS_K_ZONE_GATHER, 9, b->vel);
  ARG(MS_K_ZONE_GATHER, 10, z->m_block_start);
  ARG(MS_K_ZONE_GATHER, 11, z->m_first);
  ARG(MS_K_ZONE_GATHER, 12, z->m_rec);
  ARG(MS_K_ZONE_GATHER, 13, rec);
  cl_mem rot = b->rot ? b->rot : b->pos;
  ARG(MS_K_ZONE_GATHER, 14, rot);
  ARG(MS_K_ZONE_GATHER, 15, z->sweep.x0);
  ARG(MS_K_ZONE_GATHER, 16, z->sweep.wx);
  ARG(MS_K_ZONE_GATHER, 17, z->sweep.y0);
  ARG(MS_K_ZONE_GATHER, 18, nx);
  ARG(MS_K_ZONE_GATHER, 19, c->p->grid.ny);
  if (e->ev[MS_K_ZONE_GATHER]) { /* a second gather after growing: keep the first's time */
    ms_trace_kernel(c->trace, MS_K_ZONE_GATHER, e->ev[MS_K_ZONE_GATHER]);
    e->ev[MS_K_ZONE_GATHER] = 0;
  }
  ms_status st = ms_kernels_run_groups_on(c->kern, c->cl->zone_queue, MS_K_ZONE_GATHER,
                                         z->n_sweep_blocks, z->lanes,
                                         timed(c, e, MS_K_ZONE_GATHER));
  ms_trace_device("queue: zone", MS_K_ZONE_GATHER, st ? NULL : e->ev[MS_K_ZONE_GATHER]);
  return st;
}

static ms_status spans(const ms_ctx *c, ms_zone *z, zone_events *e)
{
  int rows = (int)z->n_spans, nl = (int)z->n_owners, nx = c->p->grid.nx, cap = (int)c->x->buf.cap;
  ARG(MS_K_ZONE_SPANS, 0, rows);
  ARG(MS_K_ZONE_SPANS, 1, nl);
  ARG(MS_K_ZONE_SPANS, 2, z->m_own);
  ARG(MS_K_ZONE_SPANS, 3, nx);
  ARG(MS_K_ZONE_SPANS, 4, cap);
  ARG(MS_K_ZONE_SPANS, 5, c->x->buf.count);
  ARG(MS_K_ZONE_SPANS, 6, z->m_first);
  ARG(MS_K_ZONE_SPANS, 7, z->m_span);
  ARG(MS_K_ZONE_SPANS, 8, c->p->grid.ny);
  ms_status st = run(c, MS_K_ZONE_SPANS, z->n_spans, &z->laid);
  cl_event *t = timed(c, e, MS_K_ZONE_SPANS);
  if (!st && t && clRetainEvent(z->laid) == CL_SUCCESS)
    *t = z->laid;
  return st;
}

/* Each slot's force into F_ls, and with friction on its torque into t_ls. */
static ms_status scatter(const ms_ctx *c, ms_zone *z, cl_event *ev)
{
  const ms_buffers *b = &c->x->buf;
  int slots = (int)z->n_slots, rec = (int)z->rec, up = (int)z->up;
  ARG(MS_K_ZONE_SCATTER, 0, slots);
  ARG(MS_K_ZONE_SCATTER, 1, z->m_rec);
  ARG(MS_K_ZONE_SCATTER, 2, rec);
  ARG(MS_K_ZONE_SCATTER, 3, z->m_up);
  ARG(MS_K_ZONE_SCATTER, 4, up);
  ARG(MS_K_ZONE_SCATTER, 5, b->f_ls);
  cl_mem t_ls = b->t_ls ? b->t_ls : b->f_ls;
  ARG(MS_K_ZONE_SCATTER, 6, t_ls);
  return run(c, MS_K_ZONE_SCATTER, z->n_slots, ev);
}

static void book(const ms_ctx *c, zone_events *e, int ok)
{
  for (int k = 0; k < MS_KERNEL_COUNT; k++) {
    if (!e->ev[k])
      continue;
    if (ok)
      ms_trace_kernel(c->trace, k, e->ev[k]);
    else
      clReleaseEvent(e->ev[k]);
    e->ev[k] = 0;
  }
}

/* After the round trip: when the zone outgrew its room, grow and gather again; when it
 * holds more than was read, fetch the rest. Never fewer slots than the zone has. */
static ms_status complete(const ms_ctx *c, ms_zone *z, zone_events *e, double *down)
{
  ms_cl *cl = c->cl;
  size_t n = (size_t)z->h_totals[0];
  z->n_marked = (size_t)z->h_totals[1];
  ms_status st = MS_OK;
  if (n > z->room) {
    if (z->mode == MS_BUFFERS_SHARED && (st = ms_zone_unmap_slots(z, cl)))
      return st;
    if ((st = fit_slots(c, z, n)) || (st = gather(c, z, e)))
      return st;
    st = ms_zone_slots_down(z, cl, 0, n, CL_TRUE);
    *down += (double)n * SLOT_DOWN(z);
  } else if (n > z->expect) {
    if (z->mode == MS_BUFFERS_SHARED && (st = ms_zone_unmap_slots(z, cl)))
      return st;
    st = ms_zone_slots_down(z, cl, z->expect, n, CL_TRUE);
    *down += (double)(n - z->expect) * SLOT_DOWN(z);
  }
  z->n_slots = n;
  /* Next time read what this one had, with an eighth to spare. */
  size_t next = n + n / 8 + ZONE_MIN_ROOM;
  z->expect = next < z->room ? next : z->room;
  return st;
}

static void count_stats(const ms_ctx *c, const ms_zone *z, double bytes)
{
  ms_sim_stats *st = c->stats;
  st->zone_iterations++;
  st->zone_cells_total += (long)z->n_marked;
  st->zone_particles_total += (long)z->n_slots;
  if ((long)z->n_marked > st->zone_cells_max)
    st->zone_cells_max = (long)z->n_marked;
  if ((long)z->n_slots > st->zone_particles_max)
    st->zone_particles_max = (long)z->n_slots;
  st->exchange_bytes += bytes;
}

/* The next stamp; at the end of the int range the marks are cleared and stamps restart. */
static ms_status next_stamp(const ms_ctx *c, ms_zone *z)
{
  if (z->stamp < INT_MAX) {
    z->stamp++;
    return MS_OK;
  }
  int zero = 0;
  z->stamp = 1;
  return ms_cl_check(clEnqueueFillBuffer(c->cl->zone_queue, z->m_mark, &zero, sizeof zero, 0,
                                         z->n_cells * sizeof(int), 0, NULL, NULL),
                     "clEnqueueFillBuffer", "zone marks");
}

static ms_status rectangles_up(const ms_ctx *c, ms_zone *z)
{
  return ms_xfer_write(c->cl->zone_queue, "queue: zone", z->m_own,
                       z->n_owners * OWNER * sizeof(int), z->up_own.ptr, "zone owners");
}

/* The worker's queue is left alone from sync 2 to sync 1: the last layout's event, which
 * the manager's small-small waited for, is released in the next sync 1, and the rectangles
 * are sent and marked there. NVIDIA's runtime blocks the first call on this queue after the
 * manager's queue waited for one of its events until it has synchronised that queue: here
 * the manager's integration and grid build, still running (at 16M small particles 0.7-1.6
 * ms, the worker late to sync 1 by as much). In sync 1 the manager has read the grid's
 * flags, so its queue is synchronised and the calls are free. */
static void spend_laid(ms_zone *z)
{
  if (z->laid_spent) /* (two prepares without a layout between them) */
    clReleaseEvent(z->laid_spent);
  z->laid_spent = z->laid;
  z->laid = NULL;
}

ms_status ms_zone_prepare(const ms_ctx *c, const ms_body *large, const int *extra,
                          size_t n_extra)
{
  ms_zone *z = &c->x->zone;
  z->prepared = 0;
  if (z->laid) /* (the manager enqueued its small-small, which waited for it, before sync 2) */
    spend_laid(z);
  book(c, &z->timed, 0); /* (a layout whose meeting was aborted) */
  z->n_slots = z->n_marked = z->n_spans = 0;
  z->n_owners = (size_t)c->p->n_stepped + n_extra;
  follow_mode(c, z);
  if (z->n_owners == 0 || c->p->n_small == 0)
    return MS_OK;
  ms_status st = fit_fixed(c, z);
  if (!st)
    st = fit_owners(c, z, z->n_owners);
  if (!st)
    st = next_stamp(c, z);
  if (st)
    return st;
  /* The rectangles are written in both modes: a few bytes per large particle, where a
   * map would cost a round trip of its own. */
  z->n_spans = rectangles(c, z, large, extra, n_extra);
  if (!z->m_rec)
    z->expect = first_room(c, z);
  if ((st = fit_spans(c, z, z->n_spans)) || (st = fit_slots(c, z, z->expect)))
    return st;
  if (z->expect == 0 || z->expect > z->room)
    z->expect = z->room;
  z->prepared = 1;
  return MS_OK;
}

ms_status ms_zone_lay(const ms_ctx *c)
{
  ms_zone *z = &c->x->zone;
  if (!z->prepared)
    return MS_OK;
  choose_sweep(c, z); /* (the grid's span crossed sync 1 with the grid) */
  if (z->laid_spent) /* (see spend_laid) */
    clReleaseEvent(z->laid_spent);
  z->laid_spent = NULL;
  zone_events *e = &z->timed;
  ms_status st = rectangles_up(c, z);
  if (!st)
    st = mark(c, z, e);
  if (!st)
    st = count(c, z, e);
  if (!st && !(st = gather(c, z, e)))
    st = spans(c, z, e);
  if (!st) /* (on the device before the manager's small-small, which waits for them) */
    st = ms_cl_check(clFlush(c->cl->zone_queue), "clFlush", "worker queue");
  if (st)
    book(c, e, 0);
  return st;
}

ms_status ms_zone_begin(const ms_ctx *c)
{
  ms_zone *z = &c->x->zone;
  if (!z->prepared) { /* (nothing to exchange: no large particle, wall or small one) */
    count_stats(c, z, 0.0);
    return MS_OK;
  }
  z->prepared = 0;
  zone_events *e = &z->timed;
  double down = (double)z->expect * SLOT_DOWN(z);
  ms_status st = ms_zone_all_down(z, c->cl);
  if (!st)
    st = complete(c, z, e, &down);
  book(c, e, !st);
  if (st)
    return st;
  /* F_ls (and t_ls) start at +0.0f too */
  memset(z->h_up, 0, z->n_slots * z->up * sizeof(float));
  double up = (double)z->n_owners * OWNER * sizeof(int) + (double)z->n_slots * SLOT_UP(z);
  count_stats(c, z, up + down + (double)(z->n_spans + 1) * 2 * sizeof(int));
  return MS_OK;
}

/* Books the previous iteration's scatter (complete: the manager's grid build, which
 * sync 1 waits for, came after the integration that waited for it) and lets it go. */
static void forget_event(const ms_ctx *c, cl_event *ev, int kernel)
{
  if (!*ev)
    return;
  cl_int status = CL_QUEUED;
  clGetEventInfo(*ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  cl_command_type type = 0;
  clGetEventInfo(*ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL);
  if (status == CL_COMPLETE && type == CL_COMMAND_NDRANGE_KERNEL)
    ms_trace_kernel(c->trace, kernel, *ev);
  else
    clReleaseEvent(*ev);
  *ev = NULL;
}


ms_status ms_zone_end(const ms_ctx *c)
{
  ms_zone *z = &c->x->zone;
  ms_cl *cl = c->cl;
  if (z->n_owners == 0 || c->p->n_small == 0 || !z->h_totals)
    return MS_OK;
  ms_status st = MS_OK;
  if (z->mode == MS_BUFFERS_SHARED) {
    if ((st = ms_zone_unmap(cl, z->m_span, z->h_totals, "zone spans")) ||
        (st = ms_zone_unmap_slots(z, cl)))
      return st;
  } else if (z->n_slots > 0) {
    st = ms_xfer_write(cl->zone_queue, "queue: zone", z->m_up,
                       z->n_slots * z->up * sizeof(float), z->c_up.ptr, "zone forces");
  }
  z->h_totals = z->h_span = NULL;
  z->h_rec = NULL;
  z->h_up = NULL;
  forget_event(c, &z->scattered, MS_K_ZONE_SCATTER);
  cl_event ev = 0;
  if (!st && z->n_slots > 0)
    st = scatter(c, z, &ev);
  else if (!st)
    st = ms_cl_check(clEnqueueMarkerWithWaitList(cl->zone_queue, 0, NULL, &ev),
                     "clEnqueueMarkerWithWaitList", "worker queue");
  if (!st)
    st = ms_cl_check(clFlush(cl->zone_queue), "clFlush", "worker queue");
  if (st && ev)
    clReleaseEvent(ev);
  else
    z->scattered = ev;
  return st;
}

void ms_zone_release(ms_zone *z, ms_cl *cl)
{
  cl_event *ev[] = {&z->laid, &z->laid_spent};
  for (int k = 0; k < 2; k++)
    if (*ev[k])
      clReleaseEvent(*ev[k]);
  for (int k = 0; k < MS_KERNEL_COUNT; k++)
    if (z->timed.ev[k])
      clReleaseEvent(z->timed.ev[k]);
  if (z->scattered) {
    clWaitForEvents(1, &z->scattered);
    clReleaseEvent(z->scattered);
  }
  if (cl->zone_queue) {
    release_slots(z, cl);
    release_spans(z, cl);
    ms_staging *st[] = {&z->up_own};
    release_stagings(cl, st, 1);
  }
  cl_mem *mems[] = {&z->m_own, &z->m_mark, &z->m_first, &z->m_block, &z->m_block_start};
  release_mems(mems, 5);
  free(z->base);
  memset(z, 0, sizeof *z);
}
