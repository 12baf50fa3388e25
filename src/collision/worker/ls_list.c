/* The CPU worker's Verlet list for large-small (collision/worker/ls_list.h): when it is rebuilt,
 * its build over the pool, and the candidates it gives each iteration, in the walk's
 * order. */
#include "collision/worker/ls_list.h"

#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>

#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"
#include "collision/worker/worker_pool.h"
#include "shared/contact.h"
#include "shared/grid.h"

/* A particle may move this far between builds (the small ones' check uses the same:
 * collision/device/nlist.c), less 2 % so that float rounding never lets a pair close that the
 * build left out. */
#define REBUILD_SHARE 0.49


void ms_ls_list_release(ms_ls_list *wl)
{
  for (int i = 0; i < wl->n_rows; i++)
    free(wl->row[i].j);
  free(wl->row);
  wl->row = NULL;
  wl->n_rows = 0;
}

/* Whether some large particle moved more than the rebuild distance since the build. */
static int large_moved(const ms_ctx *c, const ms_worker *w)
{
  double d = REBUILD_SHARE * (double)c->p->list_skin, limit2 = d * d;
  for (int i = 0; i < c->p->n_stepped; i++) {
    const ms_body *L = &w->large[i];
    double dx = ms_image(L->x - w->wl.row[i].x, c->p->period[0]);
    double dy = ms_image(L->y - w->wl.row[i].y, c->p->period[1]);
    if (!(dx * dx + dy * dy <= limit2))
      return 1;
  }
  return 0;
}

static int push(ms_ls_row *r, int j)
{
  int *p = ms_grow(r->j, (size_t)r->n, &r->cap, sizeof *p, 64);
  if (!p)
    return 0;
  r->j = p;
  r->j[r->n++] = j;
  return 1;
}

/* One large particle's list: the walk over the rectangle of reach r_L + r_max + margin,
 * keeping the small particles within r_L + r_j + margin (in double: the margin holds a
 * rounding allowance, see REBUILD_SHARE). */
static int build_row(const ms_params *pm, const ms_buffers *b, const ms_worker *w, int i)
{
  const ms_body *L = &w->large[i];
  ms_ls_row *r = &w->wl.row[i];
  double margin = w->wl.margin;
  ms_cell_rect q = ms_params_rect(pm, L->x, L->y, (double)L->r + pm->r_small_max + margin);
  int cap = (int)b->cap;
  r->n = 0;
  r->x = L->x;
  r->y = L->y;
  if (ms_body_empty(L))
    return 1; /* an empty slot has no candidates */
  for (int cy = q.y0; cy <= q.y1; cy++) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_params_cell(pm, cx, cy);
      if (cell < 0)
        continue;
      int n = b->h_count[cell] < cap ? b->h_count[cell] : cap;
      for (int k = 0; k < n; k++) {
        int j = b->h_idx[ms_grid_slot(cell, cap, k)];
        double dx = ms_image(L->x - b->h_pos[2 * j], pm->period[0]);
        double dy = ms_image(L->y - b->h_pos[2 * j + 1], pm->period[1]);
        double reach = (double)L->r + (double)pm->shape[2 * j] + margin;
        if (dx * dx + dy * dy <= reach * reach && !push(r, j))
          return 0;
      }
    }
  }
  return 1;
}

static ms_status build_chunk(void *ctx, int begin, int end, int chunk, char *why,
                             size_t why_size)
{
  const ms_worker_job *job = ctx;
  const ms_params *pm = job->p;
  ms_worker *w = job->w;
  (void)chunk;
  for (int i = begin; i < end; i++)
    if (!build_row(pm, job->buf, w, i)) {
      snprintf(why, why_size, "out of memory for the CPU worker's large-small list");
      return MS_ERR_RUNTIME;
    }
  return MS_OK;
}

/* The rows, one per large particle, made at the first build (n_large is fixed). */
static ms_status make_rows(const ms_ctx *c, ms_worker *w)
{
  ms_ls_list *wl = &w->wl;
  if (wl->row)
    return MS_OK;
  wl->row = calloc((size_t)c->p->n_large + 1, sizeof *wl->row);
  if (!wl->row)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the CPU worker's large-small list of %d "
                                   "large particles", c->p->n_large);
  wl->n_rows = c->p->n_large;
  return MS_OK;
}

/* The margin a build needs so that every pair that can touch before the next build is
 * in the list: the large particle moves at most the rebuild distance d = 0.49 skin from
 * its build position, and so does a small one from the positions of the check's
 * reference. Without friction that reference is taken at this build: d + d < skin. With
 * friction it is the small list's, taken at its own build; when that was this grid build
 * the same holds, otherwise the small particle may already be up to d from it and move
 * d further: d + 2 d < 1.5 skin. */
static double build_margin(const ms_ctx *c)
{
  double skin = (double)c->p->list_skin;
  return c->p->friction_on && !c->x->list.small_moved ? 1.5 * skin : skin;
}

ms_status ms_ls_list_prepare(const ms_ctx *c, ms_worker *w, int grain)
{
  ms_ls_list *wl = &w->wl;
  ms_status st = make_rows(c, w);
  if (st)
    return st;
  if (!wl->stale && !c->x->list.small_moved && !large_moved(c, w))
    return MS_OK;
  wl->margin = build_margin(c);
  st = ms_pool_run(w->pool, build_chunk, &(ms_worker_job){c->p, w, NULL, &c->x->buf, 0},
                   c->p->n_stepped, grain);
  if (st) {
    wl->stale = 1;
    return st;
  }
  wl->stale = 0;
  wl->entries = 0;
  for (int i = 0; i < c->p->n_stepped; i++)
    wl->entries += wl->row[i].n;
  if (!c->p->friction_on)
    c->x->list.ref_due = 1; /* the manager copies the positions of this build after sync 2 */
  c->stats->worker_list_builds++;
  c->stats->worker_list_entries += (double)wl->entries;
  return MS_OK;
}

double ms_ls_list_mean(const ms_sim_stats *st, int n_large)
{
  if (st->worker_list_builds == 0 || n_large == 0)
    return 0.0;
  return st->worker_list_entries / (double)st->worker_list_builds / (double)n_large;
}

/* Insertion sort, near linear here: the build lists in walk order and the cells change
 * little before the next build. Gives up past `budget` moves (0: then qsort). */
static int insertion_sort(ms_ls_cand *k, long n, long budget)
{
  for (long a = 1; a < n; a++) {
    ms_ls_cand v = k[a];
    long b = a - 1;
    while (b >= 0 && k[b].order > v.order) {
      k[b + 1] = k[b];
      b--;
    }
    k[b + 1] = v;
    budget -= a - 1 - b;
    if (budget < 0)
      return 0;
  }
  return 1;
}

static int by_order(const void *a, const void *b)
{
  uint64_t x = ((const ms_ls_cand *)a)->order, y = ((const ms_ls_cand *)b)->order;
  return (x > y) - (x < y);
}

long ms_ls_list_candidates(const ms_params *pm, const ms_worker *w, int i, const double *pos,
                           ms_worker_chunk *out)
{
  const ms_body *L = &w->large[i];
  const ms_grid *g = &pm->grid;
  const ms_ls_row *r = &w->wl.row[i];
  /* The rectangle the walk visits now: an entry outside it the walk would not see, even
   * where rounding lets it touch. */
  ms_cell_rect q = ms_params_rect(pm, L->x, L->y, (double)L->r + pm->r_small_max);
  int px = pm->period[0] > 0.0, py = pm->period[1] > 0.0;
  if ((size_t)r->n > out->cand_cap) {
    size_t cap = (size_t)r->n + (size_t)r->n / 2 + 64;
    ms_ls_cand *p = realloc(out->cand, cap * sizeof *p);
    if (!p)
      return -1;
    out->cand = p;
    out->cand_cap = cap;
  }
  long n = 0;
  for (int e = 0; e < r->n; e++) {
    int j = r->j[e];
    const double *xj = &pos[2 * j];
    float dx = (float)ms_image(L->x - xj[0], pm->period[0]);
    float dy = (float)ms_image(L->y - xj[1], pm->period[1]);
    if (!ms_touching(dx, dy, L->r + pm->r_small_max))
      continue;
    /* The order is the walk's: rows, then cells in a row, from the rectangle's corner
     * round the seams, then a cell's particles as the grid sorts them (by key). */
    int rx = ms_grid_walk_offset(ms_grid_axis(xj[0], g->inv_cell, g->nx), q.x0, g->nx, px);
    int ry = ms_grid_walk_offset(ms_grid_axis(xj[1], g->inv_cell, g->ny), q.y0, g->ny, py);
    if (rx < 0 || rx > q.x1 - q.x0 || ry < 0 || ry > q.y1 - q.y0)
      continue;
    uint64_t cell = (uint64_t)(uint32_t)(ry * g->nx + rx);
    int key = w->slot_key ? w->slot_key[j] : j;
    out->cand[n++] = (ms_ls_cand){cell << 32 | (uint64_t)(uint32_t)key, j};
  }
  if (!insertion_sort(out->cand, n, 4 * n + 64))
    qsort(out->cand, (size_t)n, sizeof *out->cand, by_order);
  return n;
}
