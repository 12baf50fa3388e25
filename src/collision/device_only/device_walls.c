/* The walls' reactions on the device-only path (collision/device_only/device_walls.h). */
#include "collision/device_only/device_walls.h"

#include <stdlib.h>
#include <string.h>

#include "collision/exchange/buffers.h"
#include "collision/worker/walls.h"
#include "core/grow.h"

#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)

size_t ms_dlw_room(const ms_params *pm)
{
  size_t k = 0;
  for (int w = 0; w < pm->n_walls; w++) {
    const ms_wall_def *d = &pm->walls[w];
    k += d->kind == MS_WALL_CIRCLE ? 1 : (size_t)(d->closed ? d->n_points : d->n_points - 1);
  }
  return k < 1 ? 1 : k > MS_DW_HITS ? MS_DW_HITS : k;
}

/* A disc kind's records: n discs of kr slots (one slot in all without walls). */
static ms_status make_records(const ms_ctx *c, size_t n, size_t kr, cl_mem *cnt, cl_mem *key,
                              cl_mem *f, cl_mem *t, const char *what)
{
  size_t slots = c->p->n_walls > 0 ? n * kr : 1, discs = c->p->n_walls > 0 ? n : 1;
  ms_status st = ms_dl_make(c->cl, (discs ? discs : 1) * sizeof(int), what, cnt);
  if (!st)
    st = ms_dl_make(c->cl, (slots ? slots : 1) * sizeof(int), what, key);
  if (!st)
    st = ms_dl_make(c->cl, (slots ? slots : 1) * 2 * sizeof(float), what, f);
  if (!st)
    st = ms_dl_make(c->cl, (slots ? slots : 1) * sizeof(double), what, t);
  return st;
}

#define DROP_BLOCK 256 /* kernels/walls.cl's MS_DROP_BLOCK */

/* --diagnostics: the energy's buffers (placeholders of one slot where a kind has none). */
static ms_status make_diag(const ms_ctx *c, ms_dl_walls *r)
{
  const ms_params *pm = c->p;
  int walls = pm->n_walls > 0, fric = pm->friction_on && walls;
  size_t n_small = walls ? (size_t)pm->n_small * r->kr : 1;
  size_t n_large = walls ? (size_t)pm->n_large * r->kr : 1;
  r->n_blocks = fric ? (pm->n_small + DROP_BLOCK - 1) / DROP_BLOCK : 0;
  size_t drop = (size_t)pm->n_walls * (size_t)r->n_blocks;
  size_t d2 = 2 * sizeof(double);
  ms_status st =
      ms_dl_make(c->cl, (n_small ? n_small : 1) * d2, "walls' small energy", &r->small_lw);
  if (!st)
    st = ms_dl_make(c->cl, (n_large ? n_large : 1) * d2, "walls' large energy", &r->large_lw);
  if (!st)
    st = ms_dl_make(c->cl, (walls ? (size_t)pm->n_walls : 1) * d2, "walls' energy", &r->acc);
  if (!st)
    st = ms_dl_make(c->cl, (fric && pm->n_small ? (size_t)pm->n_small : 1) * sizeof(cl_uint),
                    "walls' taken histories", &r->taken);
  if (!st)
    st = ms_dl_make(c->cl, (drop ? drop : 1) * sizeof(double), "walls' ended histories",
                    &r->drop);
  if (!st && !(r->h_acc = calloc(walls ? (size_t)pm->n_walls * 2 : 2, sizeof(double))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", pm->n_walls);
  return st;
}

static ms_status make(const ms_ctx *c, ms_dl_walls *r)
{
  int walls = c->p->n_walls > 0 ? c->p->n_walls : 1;
  r->kr = ms_dlw_room(c->p);
  ms_status st = make_records(c, (size_t)c->p->n_small, r->kr, &r->small_n, &r->small_key,
                              &r->small_f, &r->small_t, "walls' small reaction records");
  if (!st)
    st = make_records(c, (size_t)c->p->n_large, r->kr, &r->large_n, &r->large_key, &r->large_f,
                      &r->large_t, "walls' large reaction records");
  if (!st)
    st = ms_dl_make(c->cl, ((size_t)walls + 1) * sizeof(int), "walls' first runs", &r->first);
  if (!st)
    st = ms_dl_make(c->cl, (size_t)walls * 4 * sizeof(double), "walls' reactions", &r->out);
  if (!st && !(r->h_first = calloc((size_t)walls + 1, sizeof(int))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", walls);
  if (!st && !(r->h_out = calloc((size_t)walls * 4, sizeof(double))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", walls);
  if (!st && c->p->diag)
    st = make_diag(c, r);
  r->made = !st;
  return st;
}

ms_status ms_dlw_begin(const ms_ctx *c, ms_dlarge *dl, const ms_worker *w, int flag)
{
  ms_dl_walls *r = &dl->wr;
  ms_status st = r->made ? MS_OK : make(c, r);
  r->stale = 1;
  static const int zero = 0;
  if (!st)
    st = ms_cl_check(clEnqueueWriteBuffer(c->cl->gpu_queue, dl->flags, CL_TRUE,
                                          (size_t)flag * sizeof(int), sizeof zero, &zero, 0,
                                          NULL, NULL),
                     "clEnqueueWriteBuffer", "large flags");
  if (!st && c->p->diag && c->p->n_walls > 0) { /* the walls' energy so far, to add to */
    for (int k = 0; k < c->p->n_walls; k++) {
      r->h_acc[2 * k] = w->wall[k].lost;
      r->h_acc[2 * k + 1] = w->wall[k].work;
    }
    st = ms_buffers_upload(c->cl, r->acc, r->h_acc, (size_t)c->p->n_walls * 2 * sizeof(double));
  }
  return st;
}

/* Every wall's band runs in wall order, (wall, row, x0, x1), and each wall's first run,
 * uploaded (the buffers grown as needed). */
static ms_status upload_runs(const ms_ctx *c, ms_dl_walls *r, const ms_worker *w)
{
  size_t n = 0;
  for (int k = 0; k < c->p->n_walls; k++) {
    const ms_band *b = &w->wall[k].band;
    r->h_first[k] = (int)n;
    for (size_t s = 0; s < b->n; s++, n++) {
      int *q = ms_grow(r->h_spans, n, &r->h_spans_cap, 4 * sizeof *q, 64);
      if (!q)
        return ms_fail(MS_ERR_RUNTIME, "out of memory for the cells along the walls");
      r->h_spans = q;
      q = &r->h_spans[4 * n];
      q[0] = k;
      q[1] = b->span[s].y;
      q[2] = b->span[s].x0;
      q[3] = b->span[s].x1;
    }
  }
  r->h_first[c->p->n_walls] = (int)n;
  r->n_spans = (int)n;
  ms_status st = MS_OK;
  if (!r->spans || n > r->spans_cap) {
    size_t cap = n > 2 * r->spans_cap ? n : 2 * r->spans_cap;
    cap = cap ? cap : 1;
    ms_dl_release_mem(&r->spans);
    ms_dl_release_mem(&r->partial);
    ms_dl_release_mem(&r->partial_lw);
    st = ms_dl_make(c->cl, cap * 4 * sizeof(int), "walls' runs", &r->spans);
    if (!st)
      st = ms_dl_make(c->cl, cap * 4 * sizeof(double), "walls' run sums", &r->partial);
    if (!st && c->p->diag)
      st = ms_dl_make(c->cl, cap * 2 * sizeof(double), "walls' run energy", &r->partial_lw);
    r->spans_cap = st ? 0 : cap;
  }
  if (!st && n)
    st = ms_buffers_upload(c->cl, r->spans, r->h_spans, n * 4 * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, r->first, r->h_first,
                           ((size_t)c->p->n_walls + 1) * sizeof(int));
  r->stale = st != MS_OK;
  return st;
}

/* The records' arguments of kernel `id` from index `at`: kr, on, count, key, force, torque. */
static ms_status bind_records(const ms_ctx *c, int id, int at, const ms_dl_walls *r, int on,
                              cl_mem n, cl_mem key, cl_mem f, cl_mem t)
{
  int kr = (int)r->kr;
  ARG(id, at, kr);
  ARG(id, at + 1, on);
  ARG(id, at + 2, n);
  ARG(id, at + 3, key);
  ARG(id, at + 4, f);
  ARG(id, at + 5, t);
  return MS_OK;
}

ms_status ms_dlw_bind(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int sum)
{
  ms_dl_walls *r = &dl->wr;
  int walls = c->p->n_walls > 0;
  sum = sum && walls;
  r->summed = sum;
  int moved = r->stale;
  for (int k = 0; k < c->p->n_walls; k++)
    moved |= w->wall[k].band_new;
  ms_status st = walls && moved ? upload_runs(c, r, w) : MS_OK;
  int fric = c->p->friction_on;
  int small = fric ? MS_K_WALLS_SMALL_APPLY_FRIC : MS_K_WALLS_SMALL_APPLY;
  int large = fric ? MS_K_LARGE_WALLS_FRIC : MS_K_LARGE_WALLS;
  if (!st && walls)
    st = bind_records(c, small, fric ? 21 : 11, r, sum, r->small_n, r->small_key, r->small_f,
                      r->small_t);
  if (!st && !fric && walls)
    ARG(small, 17, dl->flags);
  if (!st)
    st = bind_records(c, large, fric ? 24 : 14, r, sum, r->large_n, r->large_key, r->large_f,
                      r->large_t);
  if (!st && !fric)
    ARG(large, 20, dl->flags);
  if (!st && c->p->diag) { /* after the kernels' other --diagnostics arguments */
    if (walls)
      ARG(small, fric ? 27 : 18, r->small_lw);
    if (walls && fric)
      ARG(small, 28, r->taken);
    ARG(large, fric ? 40 : 24, r->large_lw);
  }
  return st;
}

/* --diagnostics: the sums' energy arguments; with friction the ended histories' kernel's,
 * the old small lists being those the wall kernel read (ms_dlf_forces has made the new ones
 * current). */
static ms_status bind_energy(const ms_ctx *c, ms_dlarge *dl)
{
  ms_dl_walls *r = &dl->wr;
  ARG(MS_K_WALLS_SPAN_SUM, 12, r->small_lw);
  ARG(MS_K_WALLS_SPAN_SUM, 13, r->partial_lw);
  ARG(MS_K_WALLS_TOTAL, 11, r->partial_lw);
  ARG(MS_K_WALLS_TOTAL, 12, r->drop);
  ARG(MS_K_WALLS_TOTAL, 13, r->n_blocks);
  ARG(MS_K_WALLS_TOTAL, 14, r->large_lw);
  ARG(MS_K_WALLS_TOTAL, 15, r->acc);
  if (r->n_blocks == 0)
    return MS_OK;
  const ms_dl_lists *ws = &dl->fr.ws;
  int old = 1 - ws->cur, id = MS_K_WALLS_DROPPED, n = c->p->n_small, kw = (int)ws->k;
  int n_walls = c->p->n_walls;
  ARG(id, 0, n);
  ARG(id, 1, n_walls);
  ARG(id, 2, c->p->kt);
  ARG(id, 3, kw);
  ARG(id, 4, ws->n[old]);
  ARG(id, 5, ws->key[old]);
  ARG(id, 6, ws->xi[old]);
  ARG(id, 7, r->taken);
  ARG(id, 8, r->n_blocks);
  ARG(id, 9, r->drop);
  return MS_OK;
}

ms_status ms_dlw_sum(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  ms_dl_walls *r = &dl->wr;
  if (!r->summed)
    return MS_OK;
  const ms_buffers *b = &c->x->buf;
  int cap = (int)b->cap, nx = c->p->grid.nx, kr = (int)r->kr, n_walls = c->p->n_walls;
  int n_large = c->p->n_large;
  int id = MS_K_WALLS_SPAN_SUM;
  ARG(id, 0, r->spans);
  ARG(id, 1, r->n_spans);
  ARG(id, 2, b->count);
  ARG(id, 3, b->idx);
  ARG(id, 4, cap);
  ARG(id, 5, nx);
  ARG(id, 6, kr);
  cl_mem recs[] = {r->small_n, r->small_key, r->small_f, r->small_t, r->partial};
  for (int a = 0; a < 5; a++)
    ARG(id, 7 + a, recs[a]);
  id = MS_K_WALLS_TOTAL;
  ARG(id, 0, r->partial);
  ARG(id, 1, r->first);
  ARG(id, 2, n_walls);
  ARG(id, 3, dl->stat);
  ARG(id, 4, n_large);
  ARG(id, 5, kr);
  cl_mem large[] = {r->large_n, r->large_key, r->large_f, r->large_t, r->out};
  for (int a = 0; a < 5; a++)
    ARG(id, 6 + a, large[a]);
  ms_status st = c->p->diag ? bind_energy(c, dl) : MS_OK;
  if (!st && r->n_spans > 0)
    st = ms_dl_enqueue(c, dev, MS_K_WALLS_SPAN_SUM, (size_t)r->n_spans);
  if (!st && r->n_blocks > 0)
    st = ms_dl_enqueue(c, dev, MS_K_WALLS_DROPPED, (size_t)r->n_blocks);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_WALLS_TOTAL, (size_t)n_walls);
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, r->out, CL_FALSE, 0,
                                         (size_t)n_walls * 4 * sizeof(double), r->h_out, 0,
                                         NULL, NULL),
                     "clEnqueueReadBuffer", "walls' reactions");
  if (!st && c->p->diag)
    st = ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, r->acc, CL_FALSE, 0,
                                         (size_t)n_walls * 2 * sizeof(double), r->h_acc, 0,
                                         NULL, NULL),
                     "clEnqueueReadBuffer", "walls' energy");
  return st;
}

void ms_dlw_take(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_walls *r = &dl->wr;
  if (!r->summed)
    return;
  for (int k = 0; k < c->p->n_walls; k++) {
    ms_wall_now *now = &w->wall[k];
    const double *o = &r->h_out[4 * k];
    now->fx = o[0];
    now->fy = o[1];
    now->torque = o[2];
    now->contacts = (int)o[3];
    if (c->p->diag) {
      now->lost = r->h_acc[2 * k];
      now->work = r->h_acc[2 * k + 1];
    }
  }
  ms_walls_advance(c->p, w);
}
