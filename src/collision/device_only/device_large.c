/* The device-only baseline's host side (large_on = device): the large particles'
 * buffers, their upload and read-back around an advance, the large cell list and its
 * growth, and the enqueueing of kernels/large.cl on the manager's queue. */
#include "collision/device_only/device_large.h"

#include "collision/device_only/device_friction.h"
#include "collision/device_only/device_walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/worker/cpu_worker.h"
#include "collision/worker/walls.h"
#include "collision/device/gpu_manager.h"
#include "core/number.h"
#include "shared/grid.h"

/* Slots of the flags buffer (kernels/large.cl has the same). */
#define LFLAG_OVERFLOW 0
#define LFLAG_MAX_COUNT 1
#define LFLAG_FIRST_FAIL 2
#define LFLAG_HISTORY 3 /* friction on: a history list's overflow (large_friction.cl) */
#define LFLAG_WALL_HITS 4 /* a disc's wall contacts past its reaction records */
#define LFLAG_COUNT 5

/* A wall's record in the walls' buffer (kernels/large.cl has the same). */
#define MS_DW_STRIDE 28

/* Binds kernel arguments of the program of the context `c` in scope (collision/base/kernels.h). */
#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)


/* The arguments that name the list's slots (set again when it grows). */
static ms_status bind_list(const ms_ctx *c, ms_dlarge *dl)
{
  int cap = (int)dl->cap;
  ARG(MS_K_LARGE_LIST_INSERT, 4, dl->idx);
  ARG(MS_K_LARGE_LIST_INSERT, 5, cap);
  ARG(MS_K_LARGE_LIST_SORT, 1, dl->idx);
  ARG(MS_K_LARGE_LIST_SORT, 2, cap);
  ARG(MS_K_LARGE_SMALL_APPLY, 7, dl->count);
  ARG(MS_K_LARGE_SMALL_APPLY, 8, dl->idx);
  ARG(MS_K_LARGE_SMALL_APPLY, 9, cap);
  return MS_OK;
}

/* The list kernels' arguments that never change: counts, rectangles, owners, the grid. */
static ms_status bind_list_fixed(const ms_ctx *c, ms_dlarge *dl)
{
  const ms_grid *g = &c->p->grid;
  int n = c->p->n_large;
  ARG(MS_K_LARGE_LIST_CLEAR, 0, dl->count);
  ARG(MS_K_LARGE_LIST_CLEAR, 1, dl->rect);
  ARG(MS_K_LARGE_LIST_CLEAR, 2, n);
  ARG(MS_K_LARGE_LIST_CLEAR, 3, dl->width);
  ARG(MS_K_LARGE_LIST_CLEAR, 4, g->nx);
  ARG(MS_K_LARGE_LIST_CLEAR, 5, g->ny);
  ARG(MS_K_LARGE_LIST_CLEAR, 6, dl->flags);
  ARG(MS_K_LARGE_LIST_INSERT, 3, dl->count);
  ARG(MS_K_LARGE_LIST_INSERT, 11, dl->rect);
  ARG(MS_K_LARGE_LIST_INSERT, 12, dl->owner);
  ARG(MS_K_LARGE_LIST_INSERT, 13, dl->width);
  ARG(MS_K_LARGE_LIST_SORT, 0, dl->count);
  ARG(MS_K_LARGE_LIST_SORT, 3, dl->rect);
  ARG(MS_K_LARGE_LIST_SORT, 4, dl->owner);
  ARG(MS_K_LARGE_LIST_SORT, 5, n);
  ARG(MS_K_LARGE_LIST_SORT, 6, dl->width);
  ARG(MS_K_LARGE_LIST_SORT, 7, g->nx);
  ARG(MS_K_LARGE_LIST_SORT, 8, g->ny);
  ARG(MS_K_LARGE_LIST_CLEAR, 8, dl->chead);
  ARG(MS_K_LARGE_LIST_CLEAR, 9, dl->ccell);
  cl_mem cells[] = {dl->chead, dl->cnext, dl->ccell};
  for (int a = 0; a < 3; a++)
    ARG(MS_K_LARGE_LIST_INSERT, 14 + a, cells[a]);
  ARG(MS_K_LARGE_LIST_INSERT, 17, dl->cinv);
  ARG(MS_K_LARGE_LIST_INSERT, 18, dl->cnx);
  ARG(MS_K_LARGE_LIST_INSERT, 19, dl->cny);
  ARG(MS_K_LARGE_LARGE, 5, dl->chead);
  ARG(MS_K_LARGE_LARGE, 6, dl->cnext);
  ARG(MS_K_LARGE_LARGE, 7, dl->cinv);
  ARG(MS_K_LARGE_LARGE, 8, dl->cnx);
  ARG(MS_K_LARGE_LARGE, 9, dl->cny);
  return MS_OK;
}

/* The arguments that never change: the large buffers and the scene's constants. */
static ms_status bind_large(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  const ms_grid *g = &c->p->grid;
  int n = c->p->n_large;
  cl_double4 box = ms_params_sides(c->p);
  ARG(MS_K_LARGE_LIST_INSERT, 0, dl->pos);
  ARG(MS_K_LARGE_LIST_INSERT, 1, dl->shape);
  ARG(MS_K_LARGE_LIST_INSERT, 2, n);
  ARG(MS_K_LARGE_LIST_INSERT, 6, g->inv_cell);
  ARG(MS_K_LARGE_LIST_INSERT, 7, g->nx);
  ARG(MS_K_LARGE_LIST_INSERT, 8, g->ny);
  ARG(MS_K_LARGE_LIST_INSERT, 9, c->p->r_small_max);
  ARG(MS_K_LARGE_LIST_INSERT, 10, dl->flags);
  cl_mem large[4] = {dl->pos, dl->vel, dl->shape, dl->stat};
  for (int a = 0; a < 4; a++) {
    ARG(MS_K_LARGE_SMALL_REACT, a, large[a]);
    ARG(MS_K_LARGE_SMALL_APPLY, 10 + a, large[a]);
    ARG(MS_K_LARGE_LARGE, a, large[a]);
    ARG(MS_K_LARGE_WALLS, a, large[a]);
    ARG(MS_K_INTEGRATE_LARGE, a, large[a]);
  }
  ARG(MS_K_LARGE_SMALL_REACT, 4, n);
  ARG(MS_K_LARGE_SMALL_REACT, 11, g->inv_cell);
  ARG(MS_K_LARGE_SMALL_REACT, 12, g->nx);
  ARG(MS_K_LARGE_SMALL_REACT, 13, g->ny);
  ARG(MS_K_LARGE_SMALL_REACT, 14, c->p->r_small_max);
  ARG(MS_K_LARGE_SMALL_REACT, 15, c->p->k);
  ARG(MS_K_LARGE_SMALL_REACT, 16, c->p->two_zeta);
  ARG(MS_K_LARGE_SMALL_REACT, 17, dl->f);
  ARG(MS_K_LARGE_SMALL_APPLY, 3, c->p->n_small);
  ARG(MS_K_LARGE_SMALL_APPLY, 4, g->inv_cell);
  ARG(MS_K_LARGE_SMALL_APPLY, 5, g->nx);
  ARG(MS_K_LARGE_SMALL_APPLY, 6, g->ny);
  ARG(MS_K_LARGE_SMALL_APPLY, 14, c->p->k);
  ARG(MS_K_LARGE_SMALL_APPLY, 15, c->p->two_zeta);
  ARG(MS_K_LARGE_LARGE, 4, n);
  ARG(MS_K_LARGE_LARGE, 10, c->p->k);
  ARG(MS_K_LARGE_LARGE, 11, c->p->two_zeta);
  ARG(MS_K_LARGE_LARGE, 12, dl->f);
  ARG(MS_K_LARGE_WALLS, 4, n);
  ARG(MS_K_LARGE_WALLS, 5, box);
  ARG(MS_K_LARGE_WALLS, 6, c->p->k);
  ARG(MS_K_LARGE_WALLS, 7, c->p->two_zeta);
  ARG(MS_K_LARGE_WALLS, 8, dl->f);
  int n_walls = c->p->n_walls;
  float dt_f = (float)c->p->dt;
  ARG(MS_K_LARGE_WALLS, 9, dl->wall);
  ARG(MS_K_LARGE_WALLS, 10, n_walls);
  ARG(MS_K_LARGE_WALLS, 11, c->p->kt);
  ARG(MS_K_LARGE_WALLS, 12, c->p->mu_r);
  ARG(MS_K_LARGE_WALLS, 13, dt_f);
  ARG(MS_K_WALLS_SMALL_APPLY, 3, c->p->n_small);
  ARG(MS_K_WALLS_SMALL_APPLY, 4, dl->wall);
  ARG(MS_K_WALLS_SMALL_APPLY, 5, n_walls);
  ARG(MS_K_WALLS_SMALL_APPLY, 6, c->p->k);
  ARG(MS_K_WALLS_SMALL_APPLY, 7, c->p->kt);
  ARG(MS_K_WALLS_SMALL_APPLY, 8, c->p->mu_r);
  ARG(MS_K_WALLS_SMALL_APPLY, 9, dt_f);
  ARG(MS_K_INTEGRATE_LARGE, 4, dl->f);
  ARG(MS_K_INTEGRATE_LARGE, 5, n);
  ARG(MS_K_INTEGRATE_LARGE, 6, c->p->gx);
  ARG(MS_K_INTEGRATE_LARGE, 7, c->p->gy);
  ARG(MS_K_INTEGRATE_LARGE, 8, c->p->dt);
  ARG(MS_K_INTEGRATE_LARGE, 9, c->p->max_speed2);
  ARG(MS_K_INTEGRATE_LARGE, 10, dl->prev_pos);
  ARG(MS_K_INTEGRATE_LARGE, 11, dl->prev_vel);
  ARG(MS_K_INTEGRATE_LARGE, 12, dl->flags);
  ARG(MS_K_INTEGRATE_LARGE, 13, dl->img);
  ARG(MS_K_INTEGRATE_LARGE, 14, dl->prev_img);
  if (c->p->diag) { /* built with MS_DIAG: each large particle's sum after the small ones' */
    int off = c->p->n_small;
    ARG(MS_K_LARGE_SMALL_REACT, 18, dev->diss);
    ARG(MS_K_LARGE_SMALL_REACT, 19, off);
    ARG(MS_K_LARGE_SMALL_REACT, 20, c->p->dt);
    ARG(MS_K_LARGE_LARGE, 13, dev->diss);
    ARG(MS_K_LARGE_LARGE, 14, off);
    ARG(MS_K_LARGE_LARGE, 15, c->p->dt);
    ARG(MS_K_LARGE_WALLS, 21, dev->diss);
    ARG(MS_K_LARGE_WALLS, 22, off);
    ARG(MS_K_LARGE_WALLS, 23, c->p->dt);
  }
  ms_status st = bind_list_fixed(c, dl);
  return st ? st : bind_list(c, dl);
}

/* The arguments that name the small particles' buffers and the grid, which the
 * manager replaces when the grid grows or the buffer mode changes: set before each use. */
static ms_status bind_small(const ms_ctx *c)
{
  const ms_buffers *b = &c->x->buf;
  int cap = (int)b->cap;
  ARG(MS_K_LARGE_SMALL_REACT, 5, b->pos);
  ARG(MS_K_LARGE_SMALL_REACT, 6, b->vel);
  ARG(MS_K_LARGE_SMALL_REACT, 7, b->shape);
  ARG(MS_K_LARGE_SMALL_REACT, 8, b->count);
  ARG(MS_K_LARGE_SMALL_REACT, 9, b->idx);
  ARG(MS_K_LARGE_SMALL_REACT, 10, cap);
  ARG(MS_K_LARGE_SMALL_APPLY, 0, b->pos);
  ARG(MS_K_LARGE_SMALL_APPLY, 1, b->vel);
  ARG(MS_K_LARGE_SMALL_APPLY, 2, b->shape);
  ARG(MS_K_LARGE_SMALL_APPLY, 16, b->f_ls);
  ARG(MS_K_WALLS_SMALL_APPLY, 0, b->pos);
  ARG(MS_K_WALLS_SMALL_APPLY, 1, b->vel);
  ARG(MS_K_WALLS_SMALL_APPLY, 2, b->shape);
  ARG(MS_K_WALLS_SMALL_APPLY, 10, b->f_ls);
  return MS_OK;
}

/* The cell list's index buffer with `cap` slots per cell. */
static ms_status set_capacity(const ms_ctx *c, ms_dlarge *dl, size_t cap)
{
  ms_dl_release_mem(&dl->idx);
  dl->cap = cap;
  c->stats->large_list_capacity = (int)cap;
  ms_status st = ms_dl_make(c->cl, dl->n_cells * cap * sizeof(int), "large cell list", &dl->idx);
  return st ? st : bind_list(c, dl);
}

/* Work-items per large particle for the list's kernels, each taking every width-th row
 * of its rectangle (so any rectangle is covered): on a GPU about the rows of the largest
 * one, at most 64; on a CPU device one, where a work-item's own cost outweighs the
 * parallelism. MIXSIM_DL_WIDTH (1..1024) sets it (tests); anything else there is refused. */
static ms_status list_width(const ms_ctx *c, int *width)
{
  const ms_params *p = c->p;
  long w = 0;
  ms_status st = ms_number_env("MIXSIM_DL_WIDTH", 1, 1024, &w);
  if (st || w > 0) {
    *width = (int)w;
    return st;
  }
  if (!(c->cl->device_type & CL_DEVICE_TYPE_GPU)) {
    *width = 1;
    return MS_OK;
  }
  double rows = ceil(2.0 * ((double)p->r_large_max + p->r_small_max) * p->grid.inv_cell) + 2.0;
  *width = rows > 64.0 ? 64 : rows < 1.0 ? 1 : (int)rows;
  return MS_OK;
}

/* Fills a buffer of ints with v on the manager's queue (in order: before any kernel). */
static ms_status fill(const ms_ctx *c, cl_mem m, size_t bytes, int v, const char *what)
{
  if (bytes == 0)
    return MS_OK;
  return ms_cl_check(clEnqueueFillBuffer(c->cl->gpu_queue, m, &v, sizeof v, 0, bytes, 0, NULL,
                                         NULL),
                     "clEnqueueFillBuffer", what);
}

/* Large-large's cells along an axis of `extent` metres: as many as fit, each wider than two
 * of the largest large radii by more than float rounding adds to a touching pair's
 * distance, and no narrower than the grid's (so never more of them). Sets *inv. */
static int coarse_axis(const ms_params *p, double extent, double *inv)
{
  double least = fmax(2.0 * (double)p->r_large_max * (1.0 + ldexp(1.0, -16)),
                      1.0 / p->grid.inv_cell);
  double n = floor(extent / least);
  n = n < 1.0 ? 1.0 : n;
  *inv = n / extent;
  return (int)n;
}

/* Every buffer, made on the first device advance (a run that never takes this path
 * pays nothing), and the host staging for uploads and read-backs. */
static ms_status make_all(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  size_t n = (size_t)c->p->n_large, d2 = n * 2 * sizeof(double), f2 = n * 2 * sizeof(float);
  dl->n_cells = c->p->grid.n_cells;
  dl->cnx = coarse_axis(c->p, c->p->box[0], &dl->cinv.s[0]);
  dl->cny = coarse_axis(c->p, c->p->box[1], &dl->cinv.s[1]);
  size_t cells = (size_t)dl->cnx * (size_t)dl->cny;
  dl->h_pos = malloc(d2 + 16);
  dl->h_vel = malloc(d2 + 16);
  dl->h_shape = malloc(f2 + 8);
  dl->h_stat = malloc(n * sizeof(int) + 4);
  dl->h_img = malloc(n * 2 * sizeof(int) + 8);
  if (!dl->h_pos || !dl->h_vel || !dl->h_shape || !dl->h_stat || !dl->h_img)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %zu large particles", n);
  /* A disc's rectangle widened by what float rounding can add to a touching pair's
   * distance (relative 2^-24 of the radii's sum) lists every large particle that can touch
   * it: the bound on its large-large partners (device_friction.c's ll_room). */
  dl->margin = 2.0 * (double)c->p->r_large_max * ldexp(1.0, -20);
  /* The walls' records and points (kernels/large.cl's layout), at least one record. */
  dl->wall_doubles = MS_DW_STRIDE * (size_t)(c->p->n_walls > 0 ? c->p->n_walls : 1);
  for (int k = 0; k < c->p->n_walls; k++)
    dl->wall_doubles += 2 * (size_t)c->p->walls[k].n_points;
  if (!(dl->h_wall = calloc(dl->wall_doubles, sizeof(double))))
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", c->p->n_walls);
  ms_status st = MS_OK;
  struct {
    cl_mem *m;
    size_t bytes;
    const char *what;
  } bufs[] = {{&dl->pos, d2, "large pos"},           {&dl->vel, d2, "large vel"},
              {&dl->prev_pos, d2, "large prev pos"}, {&dl->prev_vel, d2, "large prev vel"},
              {&dl->shape, f2, "large shape"},       {&dl->stat, n * sizeof(int), "large static"},
              {&dl->f, f2, "large force"},
              {&dl->img, n * 2 * sizeof(int), "large images"},
              {&dl->prev_img, n * 2 * sizeof(int), "large prev images"},
              {&dl->count, dl->n_cells * sizeof(int), "large cell counts"},
              {&dl->owner, dl->n_cells * sizeof(int), "large cell owners"},
              {&dl->rect, n * 4 * sizeof(int), "large rectangles"},
              {&dl->chead, cells * sizeof(int), "large-large cells"},
              {&dl->cnext, n * sizeof(int), "large-large lists"},
              {&dl->ccell, n * sizeof(int), "large-large cell of each"},
              {&dl->flags, LFLAG_COUNT * sizeof(int), "large flags"},
              {&dl->wall, dl->wall_doubles * sizeof(double), "walls"}};
  for (size_t b = 0; !st && b < sizeof bufs / sizeof bufs[0]; b++)
    st = ms_dl_make(c->cl, bufs[b].bytes, bufs[b].what, bufs[b].m);
  /* Every count 0, every list empty, every rectangle and large-large cell the first one:
   * the first clear has nothing else to undo. */
  if (!st)
    st = fill(c, dl->count, dl->n_cells * sizeof(int), 0, "large cell counts");
  if (!st)
    st = fill(c, dl->rect, n * 4 * sizeof(int), 0, "large rectangles");
  if (!st)
    st = fill(c, dl->chead, cells * sizeof(int), -1, "large-large cells");
  if (!st)
    st = fill(c, dl->ccell, n * sizeof(int), 0, "large-large cell of each");
  if (!st)
    st = list_width(c, &dl->width);
  if (!st)
    st = set_capacity(c, dl, MS_DL_FIRST_CAPACITY);
  dl->shapes_stale = 1;
  if (!st)
    st = bind_large(c, dev, dl);
  dl->made = !st;
  return st;
}

/* Radius, mass and whether static, per slot: at the first advance and after an exchange
 * filled or emptied a slot (collision/open.c). */
static ms_status upload_shapes(const ms_ctx *c, ms_dlarge *dl, const ms_worker *w)
{
  size_t n = (size_t)c->p->n_large;
  for (size_t i = 0; i < n; i++) {
    const ms_body *L = &w->large[i];
    dl->h_shape[2 * i] = L->r;
    dl->h_shape[2 * i + 1] = L->m;
    dl->h_stat[i] = L->is_static;
  }
  ms_status st = ms_buffers_upload(c->cl, dl->shape, dl->h_shape, n * 2 * sizeof(float));
  if (!st)
    st = ms_buffers_upload(c->cl, dl->stat, dl->h_stat, n * sizeof(int));
  dl->shapes_stale = st != MS_OK;
  return st;
}

/* Clear, insert, sort, each over the large particles' cells; then the flags, read without
 * waiting (into h_flags, complete after the next blocking call on the queue) or, with
 * `wait`, read now. */
static ms_status build_list(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, int reset_fail,
                            int wait)
{
  MS_CL_TRY(clSetKernelArg(c->kern->kernel[MS_K_LARGE_LIST_CLEAR], 7, sizeof reset_fail,
                           &reset_fail),
            "clSetKernelArg(MS_K_LARGE_LIST_CLEAR, reset_fail)");
  size_t items = (size_t)c->p->n_large * (size_t)dl->width;
  ms_status st = ms_dl_enqueue(c, dev, MS_K_LARGE_LIST_CLEAR, items > 0 ? items : 1);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_LIST_INSERT, items);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_LIST_SORT, items);
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, dl->flags, wait ? CL_TRUE : CL_FALSE, 0,
                                         sizeof dl->h_flags, dl->h_flags, 0, NULL, NULL),
                     "clEnqueueReadBuffer", "large flags");
  if (!st && wait)
    ms_gpu_settle(c, dev);
  c->stats->large_list_builds++;
  return st;
}

/* An overflowing list (h_flags read): grows to the longest list needed, rounded up to
 * 4 as the grid does, and rebuilds, until no cell overflows. Nothing is truncated. */
static ms_status grow_until_fits(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  while (dl->h_flags[LFLAG_OVERFLOW] > 0) {
    size_t cap = ((size_t)dl->h_flags[LFLAG_MAX_COUNT] + 3) / 4 * 4;
    ms_status st = set_capacity(c, dl, cap);
    if (!st)
      st = build_list(c, dev, dl, 0, 1);
    if (st)
      return st;
    c->stats->large_list_growths++;
  }
  return MS_OK;
}

ms_status ms_dl_begin(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w)
{
  double t0 = ms_now();
  ms_status st = dl->made ? MS_OK : make_all(c, dev, dl);
  size_t n = (size_t)c->p->n_large;
  for (size_t i = 0; i < n; i++) {
    const ms_body *L = &w->large[i];
    dl->h_pos[2 * i] = L->x;
    dl->h_pos[2 * i + 1] = L->y;
    dl->h_vel[2 * i] = L->vx;
    dl->h_vel[2 * i + 1] = L->vy;
    dl->h_img[2 * i] = L->img[0];
    dl->h_img[2 * i + 1] = L->img[1];
  }
  if (!st && dl->shapes_stale)
    st = upload_shapes(c, dl, w);
  if (!st)
    st = ms_buffers_upload(c->cl, dl->img, dl->h_img, n * 2 * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, dl->pos, dl->h_pos, n * 2 * sizeof(double));
  if (!st)
    st = ms_buffers_upload(c->cl, dl->vel, dl->h_vel, n * 2 * sizeof(double));
  if (!st)
    st = build_list(c, dev, dl, 1, 1);
  if (!st)
    st = grow_until_fits(c, dev, dl);
  if (!st && c->p->friction_on)
    st = ms_dlf_begin(c, dl, w);
  if (!st)
    st = ms_dlw_begin(c, dl, w, LFLAG_WALL_HITS);
  dl->host_current = 0;
  ms_trace_phase(c->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0);
  return st;
}

/* The walls as the worker placed them this iteration (ms_walls_place), in kernels/large.cl's
 * layout: one record per wall, the polylines' points after the records. Blocks. */
static ms_status upload_walls(const ms_ctx *c, ms_dlarge *dl, const ms_worker *w)
{
  const ms_params *pm = c->p;
  size_t off = MS_DW_STRIDE * (size_t)pm->n_walls;
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    const ms_wall_now *now = &w->wall[k];
    const ms_wall_motion *m = &d->motion;
    int poly = d->kind == MS_WALL_POLYLINE;
    double rec[MS_DW_STRIDE] = {m->vx,         m->vy,         m->cx,       m->cy,
                                m->omega,      m->ax,         m->ay,       m->f,
                                now->t,        now->tx,       now->ty,     now->center[0],
                                now->center[1], d->radius,    now->vtx,    now->vty,
                                d->two_zeta,   d->mu,         !poly,       d->n_points,
                                d->closed,     d->force_driven, (double)off, d->seam[0],
                                d->seam[1],    now->anchor[0], now->anchor[1], 0.0};
    memcpy(&dl->h_wall[MS_DW_STRIDE * (size_t)k], rec, sizeof rec);
    if (poly) {
      memcpy(&dl->h_wall[off], now->at, (size_t)d->n_points * 2 * sizeof(double));
      off += 2 * (size_t)d->n_points;
    }
  }
  return ms_buffers_upload(c->cl, dl->wall, dl->h_wall, off * sizeof(double));
}

ms_status ms_dl_forces(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w, int sum)
{
  double t0 = ms_now();
  ms_status st = c->p->n_walls > 0 ? upload_walls(c, dl, w) : MS_OK;
  if (!st)
    st = ms_dlw_bind(c, dl, w, sum);
  if (!st)
    st = bind_small(c);
  if (!st && c->p->friction_on)
    st = ms_dlf_forces(c, dev, dl, w);
  else if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_SMALL_REACT, (size_t)c->p->n_large);
  if (!st && !c->p->friction_on)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_SMALL_APPLY, (size_t)c->p->n_small);
  if (!st && !c->p->friction_on && c->p->n_walls > 0)
    st = ms_dl_enqueue(c, dev, MS_K_WALLS_SMALL_APPLY, (size_t)c->p->n_small);
  if (!st && !c->p->friction_on)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_LARGE, (size_t)c->p->n_large);
  if (!st && !c->p->friction_on)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_WALLS, (size_t)c->p->n_large);
  if (!st)
    st = ms_dlw_sum(c, dev, dl);
  if (!st)
    st = ms_cl_check(clFlush(c->cl->gpu_queue), "clFlush", "large forces");
  ms_trace_phase(c->trace, MS_THREAD_GPU, MS_PHASE_COLLIDE, t0);
  return st;
}

ms_status ms_dl_integrate(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  double t0 = ms_now();
  size_t n = (size_t)c->p->n_large;
  ms_status st = c->p->friction_on ? ms_dlf_integrate(c, dev, dl)
                                   : ms_dl_enqueue(c, dev, MS_K_INTEGRATE_LARGE, n);
  if (!st)
    st = build_list(c, dev, dl, 0, 0);
  ms_trace_phase(c->trace, MS_THREAD_GPU, MS_PHASE_INTEGRATE, t0);
  return st;
}

/* Reads the large particles back into the host's copy; with `failed` >= 0, those
 * after it get their state from before the integration, as the serial loop, which
 * stops at the first failure, leaves them. */
static ms_status read_back(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int failed)
{
  size_t n = (size_t)c->p->n_large, bytes = n * 2 * sizeof(double);
  for (int pass = 0; pass < (failed >= 0 ? 2 : 1); pass++) {
    ms_status st = ms_buffers_download(c->cl, pass ? dl->prev_pos : dl->pos, dl->h_pos, bytes);
    if (!st)
      st = ms_buffers_download(c->cl, pass ? dl->prev_vel : dl->vel, dl->h_vel, bytes);
    if (!st)
      st = ms_buffers_download(c->cl, pass ? dl->prev_img : dl->img, dl->h_img,
                               n * 2 * sizeof(int));
    if (st)
      return st;
    for (size_t i = pass ? (size_t)failed + 1 : 0; i < n; i++) {
      ms_body *L = &w->large[i];
      L->x = dl->h_pos[2 * i];
      L->y = dl->h_pos[2 * i + 1];
      L->vx = dl->h_vel[2 * i];
      L->vy = dl->h_vel[2 * i + 1];
      L->img[0] = dl->h_img[2 * i];
      L->img[1] = dl->h_img[2 * i + 1];
    }
  }
  dl->host_current = 1;
  return c->p->friction_on ? ms_dlf_read_back(c, dl, w, failed) : MS_OK;
}

ms_status ms_dl_check(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w, long step,
                      ms_status grid)
{
  if (grid && grid != MS_ERR_NUMERIC)
    return grid; /* the flags may not have been read */
  int failed = dl->h_flags[LFLAG_FIRST_FAIL];
  if (failed >= 0 && failed < c->p->n_large) {
    /* The grid's message for the same state gives way, as the manager's gives way to
     * the worker's on the two-thread path. */
    if (grid) {
      ms_error_clear();
      ms_error_thread_clear();
    }
    ms_status st = read_back(c, dl, w, failed);
    if (st)
      return st;
    const ms_body *L = &w->large[failed];
    int finite = isfinite(L->x) && isfinite(L->y) && isfinite(L->vx) && isfinite(L->vy) &&
                 (!c->p->friction_on || isfinite(L->w));
    return ms_cpu_large_failure(c->p, step, failed, finite);
  }
  if (grid)
    return grid;
  /* large_friction.cl: never for the pairs; a disc with more than 16 contacts with the
   * walls of any shape (docs/walls.md) */
  if (c->p->friction_on && dl->h_flags[LFLAG_HISTORY] > 0)
    return ms_fail(MS_ERR_RUNTIME, "step %ld: a particle's contact history needed %d slots, "
                                   "more than its list has", step,
                   dl->h_flags[LFLAG_HISTORY]);
  if (dl->h_flags[LFLAG_WALL_HITS] > 0)
    return ms_fail(MS_ERR_RUNTIME, "step %ld: a particle touched the walls at %d points at "
                                   "once; the device-only path keeps %d (large_on = cpu has "
                                   "no such limit)",
                   step, dl->h_flags[LFLAG_WALL_HITS], MS_DW_HITS);
  ms_dlw_take(c, dl, w);
  return grow_until_fits(c, dev, dl);
}

ms_status ms_dl_end(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  if (!dl->made || dl->host_current)
    return MS_OK;
  return read_back(c, dl, w, -1);
}
