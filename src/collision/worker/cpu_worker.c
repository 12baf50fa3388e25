/* Large particles on the CPU worker and its pool (worker_pool.h). Each phase splits its
 * loop over the pool's threads and then adds the results in the one-thread order, so
 * the state does not depend on the thread count. */
#include "collision/worker/cpu_worker.h"

#include "core/grow.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision/worker/ls_list.h"
#include "collision/worker/worker_friction.h"
#include "collision/worker/walls.h"
#include "core/clock.h"
#include "collision/worker/worker_pool.h"
#include "shared/contact.h"
#include "shared/grid.h"

/* Work per thread below which a phase takes fewer threads. Waking helpers and joining
 * them costs more than it saves on small scenes: on an H200's host, scenes/mixed.ini (150
 * large) ran 0.154 ms/iteration with large-small on one thread and 0.18 split from 32
 * large particles a thread. Large-small's work is the small particles it visits, so its
 * grain is in visits: 1M small + 1000 large of 10 small radii (about 150,000 visits) runs
 * on fifteen threads, 0.12 ms against 0.23 on four. Chunks never change the results,
 * only the time. */
#define GRAIN_VISITS 4096.0
#define GRAIN_LARGE_LARGE 1024
#define GRAIN_PER_BODY 2048

static int grain(const ms_worker *w, int phase_default)
{
  return w->cpu_grain > 0 ? w->cpu_grain : phase_default;
}

/* Appends one entry to a chunk's list, growing it by doubling. 0: out of memory. */
/* Where large-small reads the small particles and adds their forces. exchange = full:
 * the grid's arrays, rows are cells of `cap` slots, state and forces per particle.
 * exchange = zone: the zone's arrays, each row of a rectangle one run of slots (its
 * cells' particles in cell order), state and forces per zone slot (one slot per
 * particle, so each force sums the same terms in the same order either way). */
typedef ms_ls_source ls_source; /* collision/worker/worker_friction.h */

static ls_source source_of(const ms_ctx *c)
{
  const ms_buffers *b = &c->x->buf;
  const ms_zone *z = &c->x->zone;
  if (c->p->exchange == MS_EXCHANGE_ZONE) { /* set only between advances */
    const double *r = z->h_rec; /* x, y, vx, vy, index, spin (kernels/zone.cl) */
    int rec = (int)z->rec, up = (int)z->up;
    return (ls_source){NULL, NULL, 0, z->base, z->h_span, r, r ? r + 2 : NULL, r ? r + 4 : NULL,
                       rec, z->h_up, up, r && rec > 5 ? r + 5 : NULL, rec,
                       z->h_up && up > 2 ? z->h_up + 2 : NULL, up};
  }
  return (ls_source){b->h_count, b->h_idx, (int)b->cap, NULL, NULL, b->h_pos, b->h_vel, NULL,
                     2, b->h_f_ls, 2, b->h_rot ? b->h_rot + 1 : NULL, 2, b->h_t_ls, 1};
}

/* A force on the small particle at `j` (its index, or its zone slot), kept for
 * apply_large_small to add in the serial order. */
static int record_ls(ms_worker_chunk *c, int j, ms_v2 f)
{
  ms_ls_contact *ls = ms_grow(c->ls, c->n_ls, &c->ls_cap, sizeof *ls, 256);
  if (!ls)
    return 0;
  c->ls = ls;
  c->ls[c->n_ls++] = (ms_ls_contact){j, f.x, f.y, 0.0f};
  return 1;
}

/* The contact of L with small particle j, whose state is at `at` of the source (its
 * index, or its zone slot): the reaction sums on L in place, the force on j goes to
 * the chunk's list. Returns 0 when out of memory. */
static int large_small_pair(const ms_params *pm, const ms_worker *w, ms_body *L, int j, size_t at,
                            const ls_source *src, ms_worker_chunk *out)
{
  const double *xj = &src->pos[(size_t)src->pv * at], *vj = &src->vel[(size_t)src->pv * at];
  float dx = (float)ms_image(L->x - xj[0], pm->period[0]);
  float dy = (float)ms_image(L->y - xj[1], pm->period[1]);
  /* Out of reach of the largest small particle, out of reach of this one (r_sum and its
   * square only shrink with rj, rounding included): most candidates end here, before
   * their radius is looked up at an index the zone does not order. */
  if (!ms_touching(dx, dy, L->r + pm->r_small_max))
    return 1;
  float rj = pm->shape[2 * j], mj = pm->shape[2 * j + 1];
  if (!ms_touching(dx, dy, L->r + rj))
    return 1;
  /* A static particle acts with infinite mass: the pair's mass is the small one's. */
  float m_eff = L->is_static ? mj : ms_pair_mass(L->m, mj);
  ms_v2 f = ms_contact_force(dx, dy, (float)(vj[0] - L->vx), (float)(vj[1] - L->vy), L->r + rj,
                             pm->k, pm->two_zeta, m_eff);
  if (f.x == 0.0f && f.y == 0.0f)
    return 1;
  if (!record_ls(out, (int)at, f))
    return 0;
  L->fx -= f.x;
  L->fy -= f.y;
  if (pm->diag) /* the whole pair's: the device never sees it (collision/dissipation.h) */
    w->diss_large[L - w->large] +=
        pm->dt * (double)ms_contact_dissipation(dx, dy, (float)(vj[0] - L->vx),
                                               (float)(vj[1] - L->vy), L->r + rj, pm->k,
                                               pm->two_zeta, m_eff);
  return 1;
}

/* One candidate pair, with or without friction. */
static int visit(const ms_params *pm, const ms_worker *w, int i, ms_body *L, int j, size_t at,
                 const ls_source *src, ms_worker_chunk *out)
{
  if (pm->friction_on)
    return ms_fr_large_small_pair(pm, w, i, L, j, at, src, out);
  return large_small_pair(pm, w, L, j, at, src, out);
}

/* The same contacts through the worker's list (collision/worker/ls_list.h): its candidates
 * sorted by (cell, key), the order the walk below visits them; the walk's other
 * candidates do not touch, and visit() does nothing for those. */
static int large_small_listed(const ms_params *pm, const ms_worker *w, int i, const ls_source *src,
                              ms_worker_chunk *out)
{
  ms_body *L = &w->large[i];
  long n = ms_ls_list_candidates(pm, w, i, src->pos, out);
  if (n < 0)
    return 0;
  for (long e = 0; e < n; e++) {
    int j = out->cand[e].j;
    if (!visit(pm, w, i, L, j, (size_t)j, src, out))
      return 0;
  }
  return 1;
}

/* Contacts of large particle i with the small ones in the cells under its reach, rows
 * ascending, cells ascending in a row, each cell's slots ascending. Returns 0 when out
 * of memory. */
static int large_small_one(const ms_params *pm, const ms_worker *w, int i, const ls_source *src,
                           ms_worker_chunk *out)
{
  ms_body *L = &w->large[i];
  /* The zone keeps walking its slots: the device gathered exactly the rectangles'
   * particles already, and a list would need it to gather by index (ls_list.h). */
  if (src->span) { /* the zone: each row is one run of slots, in that order */
    for (int r = src->base[i]; r < src->base[i + 1]; r++)
      for (int slot = src->span[2 * r]; slot < src->span[2 * r + 1]; slot++)
        if (!visit(pm, w, i, L, ms_ls_zone_index(src, slot), (size_t)slot, src, out))
          return 0;
    return 1;
  }
  ms_cell_rect q = ms_params_rect(pm, L->x, L->y, (double)L->r + pm->r_small_max);
  int cap = src->cap;
  for (int cy = q.y0; cy <= q.y1; cy++) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_params_cell(pm, cx, cy);
      int n = src->count[cell] < cap ? src->count[cell] : cap;
      for (int k = 0; k < n; k++) {
        int j = src->idx[ms_grid_slot(cell, cap, k)];
        if (!visit(pm, w, i, L, j, (size_t)j, src, out))
          return 0;
      }
    }
  }
  return 1;
}

static ms_status out_of_memory(char *why, size_t why_size, const char *what)
{
  snprintf(why, why_size, "out of memory for the CPU worker's %s contact list", what);
  return MS_ERR_RUNTIME;
}

/* One chunk of large particles: each one's contacts on this thread alone. */
static ms_status large_small_chunk(void *ctx, int begin, int end, int chunk, char *why,
                                   size_t why_size)
{
  const ms_worker_job *job = ctx;
  const ms_params *pm = job->p;
  ms_worker *w = job->w;
  ms_worker_chunk *ch = &w->chunk[chunk];
  const ls_source *src = job->src;
  int listed = ms_worker_list_in_use(pm);
  ch->n_ls = 0;
  double walls_t0 = -1.0; /* the walls' items' start: their share goes to the report */
  for (int i = begin; i < end; i++) {
    if (i >= pm->n_stepped) { /* the walls' items follow the large particles' */
      if (walls_t0 < 0.0)
        walls_t0 = ms_now();
      if (pm->n_small > 0 && !ms_walls_small(pm, w, i - pm->n_stepped, src, ch))
        return out_of_memory(why, why_size, "wall-small");
      continue;
    }
    ms_body *L = &w->large[i];
    L->fx = 0.0f;
    L->fy = 0.0f;
    L->torque = 0.0f;
    /* --diagnostics with friction: what L's springs held, to take off what they store */
    double held = pm->diag && pm->friction_on ? ms_fr_ls_spring(pm, w, i) : 0.0;
    if (pm->friction_on) /* L's new history, written in the loop's order, then sorted */
      ms_history_ls_start(&w->hist, i);
    if (pm->n_small > 0 && !ms_body_empty(L) &&
        !(listed ? large_small_listed(pm, w, i, src, ch) : large_small_one(pm, w, i, src, ch)))
      return out_of_memory(why, why_size, "large-small");
    if (pm->friction_on)
      ms_history_ls_finish(&w->hist, i);
    if (pm->diag && pm->friction_on) /* opened contacts give up what they held */
      w->diss_large[i] -= ms_fr_ls_spring(pm, w, i) - held;
  }
  if (walls_t0 >= 0.0) {
    double t1 = ms_now();
    ch->wall_s += t1 - walls_t0;
    ms_trace_walls_span(chunk, w->trace_iteration, walls_t0, t1);
  }
  return MS_OK;
}

/* Adds the recorded forces to F_ls in the serial loop's order (large particles
 * ascending, their cells, their slots): the chunks are contiguous and ascending, so
 * their lists one after the other are that order, and each F_ls sum is bit for bit what
 * one thread computes, whatever the thread count. */
static void apply_large_small(const ms_ctx *c, ms_worker *w)
{
  ls_source src = source_of(c);
  float *f_ls = src.f;
  size_t fs = (size_t)src.fs;
  for (int t = 0; t < w->cpu_threads; t++) {
    const ms_worker_chunk *ch = &w->chunk[t];
    for (size_t e = 0; e < ch->n_ls; e++) {
      f_ls[fs * (size_t)ch->ls[e].j] += ch->ls[e].fx;
      f_ls[fs * (size_t)ch->ls[e].j + 1] += ch->ls[e].fy;
    }
    if (c->p->friction_on) /* the torques in the same order */
      for (size_t e = 0; e < ch->n_ls; e++)
        src.t[(size_t)src.ts * (size_t)ch->ls[e].j] += ch->ls[e].t;
  }
}

/* Items per chunk from the visits they make: GRAIN_VISITS each. */
static int grain_of(double visits, int items)
{
  double per_item = items > 0 ? visits / (double)items : 0.0;
  double grain = per_item > 0.0 ? GRAIN_VISITS / per_item : (double)items;
  return grain < 1.0 ? 1 : grain > (double)items ? (items > 0 ? items : 1) : (int)grain;
}

/* The visits the large particles make, estimated as their cell rectangles' cells at the
 * small particles' mean density. */
static double large_visits(const ms_params *pm, const ms_worker *w)
{
  const ms_grid *g = &pm->grid;
  double cells = 0.0;
  for (int i = 0; i < pm->n_stepped; i++) {
    const ms_body *L = &w->large[i];
    if (ms_body_empty(L))
      continue;
    ms_cell_rect q = ms_params_rect(pm, L->x, L->y, (double)L->r + pm->r_small_max);
    cells += (double)(q.x1 - q.x0 + 1) * (double)(q.y1 - q.y0 + 1);
  }
  return cells * (double)pm->n_small / (double)g->n_cells;
}

/* The same for the walls' bands. */
static double wall_visits(const ms_params *pm, const ms_worker *w)
{
  double cells = 0.0;
  for (int k = 0; k < pm->n_walls; k++)
    for (size_t r = 0; r < w->wall[k].band.n; r++)
      cells += (double)(w->wall[k].band.span[r].x1 - w->wall[k].band.span[r].x0 + 1);
  return cells * (double)pm->n_small / (double)pm->grid.n_cells;
}

/* Items (large particles, then the walls' items) per thread in large-small. The zone
 * knows the visits: its particles. Else estimated, or with the worker's list its entries
 * and the walls' estimate. */
static int large_small_grain(const ms_ctx *c, const ms_worker *w, int listed)
{
  const ms_params *pm = c->p;
  if (w->cpu_grain > 0)
    return w->cpu_grain;
  int items = pm->n_stepped + w->n_wall_items;
  if (pm->exchange == MS_EXCHANGE_ZONE)
    return grain_of((double)c->x->zone.n_slots, items);
  double large = listed ? (double)w->wl.entries : large_visits(pm, w);
  return grain_of(large + wall_visits(pm, w), items);
}

ms_status ms_cpu_large_small(const ms_ctx *c, ms_worker *w)
{
  for (int t = 0; t < w->cpu_threads; t++)
    w->chunk[t].n_ls = w->chunk[t].n_wxi = 0; /* chunks the job leaves empty add nothing */
  ms_status st = ms_fr_ready(c->p, w);
  if (st)
    return st;
  ls_source src = source_of(c);
  w->trace_iteration = ms_tev_on ? ms_tev_current() : -1;
  w->n_wall_items = 0; /* no small particles: the walls have nothing to walk */
  if (c->p->n_walls > 0 && c->p->n_small > 0)
    ms_walls_split(c->p, w, &src);
  int listed = ms_worker_list_in_use(c->p);
  if (listed) { /* the list's rebuild: large particles alone */
    int grain = w->cpu_grain > 0 ? w->cpu_grain : grain_of(large_visits(c->p, w), c->p->n_stepped);
    if ((st = ms_ls_list_prepare(c, w, grain)))
      return st;
    c->stats->worker_list_iterations++;
  }
  int grain = large_small_grain(c, w, listed);
  st = ms_pool_run(w->pool, large_small_chunk, &(ms_worker_job){c->p, w, &src, NULL, 0},
                   c->p->n_stepped + w->n_wall_items, grain);
  if (!st && c->p->n_walls > 0 && !ms_walls_small_finish(c->p, w))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for the walls' contact histories");
  if (!st)
    apply_large_small(c, w);
  return st;
}

/* The sweep order: large particles by (left edge, index). Left edges are never NaN
 * (positions are finite, radii positive: a non-finite state stops the run before the
 * next sort), so this is a strict total order and every correct sort yields the same
 * permutation; the large-large sums follow it, so the state hash does not depend on
 * which sort ran. */
static double left_edge(const ms_body *B, int i) { return B[i].x - B[i].r; }

/* Insertion sort, cheap when the order is nearly right (the usual case: particles move
 * a little per iteration). Gives up once it has moved entries `budget` places in all,
 * leaving a permutation that a full sort then orders. Returns 0 when it gave up. */
static int insertion_sort(int *o, const ms_body *B, int n, long budget)
{
  for (int a = 1; a < n; a++) {
    int v = o[a];
    double key = left_edge(B, v);
    int b = a - 1;
    while (b >= 0) {
      double kb = left_edge(B, o[b]);
      if (kb < key || (kb == key && o[b] < v))
        break;
      o[b + 1] = o[b];
      b--;
    }
    o[b + 1] = v;
    budget -= a - 1 - b;
    if (budget < 0)
      return 0;
  }
  return 1;
}

/* The left edge as an unsigned integer that orders the same way: the double's bits
 * mapped to an order-preserving unsigned form (both zeros alike, as == sees them). */
static uint64_t edge_key(const ms_body *B, int i)
{
  double edge = left_edge(B, i);
  if (edge == 0.0)
    edge = 0.0; /* -0 compares equal to +0: the index decides */
  uint64_t u;
  memcpy(&u, &edge, sizeof u);
  return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

typedef struct sweep_item {
  uint64_t key;
  int index;
} sweep_item;

/* LSD radix sort of (edge key, index), one byte of the key per pass, skipping the bytes
 * all keys share. The passes are stable and start from index order, so equal edges
 * stay in index order. Linear in n: the first iteration (from the scene's order) and any
 * badly outdated order cost what nearly sorted ones do. Returns 0 when out of memory. */
static int radix_sort(int *o, const ms_body *B, int n)
{
  sweep_item *item = malloc((size_t)n * sizeof *item), *tmp = malloc((size_t)n * sizeof *tmp);
  size_t(*count)[256] = calloc(8, sizeof *count);
  if (!item || !tmp || !count) {
    free(item);
    free(tmp);
    free(count);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    item[i] = (sweep_item){edge_key(B, i), i};
    for (int d = 0; d < 8; d++)
      count[d][(item[i].key >> (8 * d)) & 0xff]++;
  }
  for (int d = 0; d < 8; d++) {
    if (count[d][(item[0].key >> (8 * d)) & 0xff] == (size_t)n)
      continue; /* one value in this byte: the pass would not move anything */
    size_t at = 0;
    for (int v = 0; v < 256; v++) {
      size_t c = count[d][v];
      count[d][v] = at;
      at += c;
    }
    for (int i = 0; i < n; i++)
      tmp[count[d][(item[i].key >> (8 * d)) & 0xff]++] = item[i];
    sweep_item *t = item;
    item = tmp;
    tmp = t;
  }
  for (int i = 0; i < n; i++)
    o[i] = item[i].index;
  free(item);
  free(tmp);
  free(count);
  return 1;
}

/* Insertion sort while the order is nearly right; a full sort when it is far off
 * (more than a few places per particle on average), as from the scene's order. */
void ms_cpu_sort_sweep(ms_worker *w, int n)
{
  if (w->sweep_n != n) { /* (a domain steps another number of them: its order afresh) */
    for (int i = 0; i < n; i++)
      w->sweep_order[i] = i;
    w->sweep_n = n;
  }
  if (n < 2)
    return;
  long budget = 8L * n + 64;
  if (insertion_sort(w->sweep_order, w->large, n, budget))
    return;
  if (!radix_sort(w->sweep_order, w->large, n))
    insertion_sort(w->sweep_order, w->large, n, LONG_MAX); /* no memory: slow but right */
}

/* The force of B on A when they touch, and whether to add it (never for two static
 * particles). Reads positions and velocities only, so pairs can run on any thread. */
static int pair_force(const ms_params *pm, const ms_body *A, const ms_body *B, ms_v2 *f,
                      double *lost)
{
  if ((A->is_static && B->is_static) || ms_body_empty(A) || ms_body_empty(B))
    return 0;
  float dx = (float)ms_image(B->x - A->x, pm->period[0]);
  float dy = (float)ms_image(B->y - A->y, pm->period[1]), rs = A->r + B->r;
  if (dx * dx + dy * dy >= rs * rs)
    return 0;
  /* A static partner acts with infinite mass: the pair's mass is the moving one's. */
  float m_eff = A->is_static ? B->m : B->is_static ? A->m : ms_pair_mass(A->m, B->m);
  *f = ms_contact_force(dx, dy, (float)(A->vx - B->vx), (float)(A->vy - B->vy), rs, pm->k,
                        pm->two_zeta, m_eff);
  if (pm->diag)
    *lost = pm->dt * (double)ms_contact_dissipation(dx, dy, (float)(A->vx - B->vx),
                                                   (float)(A->vy - B->vy), rs, pm->k,
                                                   pm->two_zeta, m_eff);
  return 1;
}

/* Whether the pair p->a, p->b touches, and then its force (and with friction on its
 * torques and new history) in *p. */
static int ll_pair(const ms_params *pm, const ms_worker *w, ms_ll_pair *p)
{
  if (pm->friction_on)
    return ms_fr_large_large_pair(pm, w, p->a, p->b, p);
  ms_v2 f;
  if (!pair_force(pm, &w->large[p->a], &w->large[p->b], &f, &p->lost))
    return 0;
  p->fx = f.x;
  p->fy = f.y;
  return 1;
}

/* A large particle's extent, copied into sweep order before the pairs are sought, so
 * the search reads consecutive memory instead of jumping through the bodies. */
struct ms_sweep_item {
  double left, right, x, y;
  float r;
  int index, empty;
};

static ms_status sweep_chunk(void *ctx, int begin, int end, int chunk, char *why,
                             size_t why_size)
{
  ms_worker *w = ((const ms_worker_job *)ctx)->w;
  (void)chunk;
  (void)why;
  (void)why_size;
  for (int a = begin; a < end; a++) {
    int i = w->sweep_order[a];
    const ms_body *B = &w->large[i];
    w->sweep[a] = (struct ms_sweep_item){left_edge(w->large, i), B->x + B->r, B->x, B->y, B->r, i,
                                         ms_body_empty(B)};
  }
  return MS_OK;
}

static ms_status fill_sweep(const ms_params *pm, ms_worker *w)
{
  if (!w->sweep && !(w->sweep = malloc(((size_t)pm->n_large + 1) * sizeof *w->sweep)))
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the sweep of %d large particles",
                   pm->n_large);
  return ms_pool_run(w->pool, sweep_chunk, &(ms_worker_job){pm, w, NULL, NULL, 0}, pm->n_stepped,
                     grain(w, GRAIN_PER_BODY));
}

/* Sweep positions a < b as a candidate pair: kept with its force when the two touch.
 * Returns 0 when out of memory. */
static int ll_candidate(const ms_params *pm, ms_worker *w, ms_worker_chunk *ch, int a, int b)
{
  const struct ms_sweep_item *sw = w->sweep;
  float dx = (float)ms_image(sw[b].x - sw[a].x, pm->period[0]);
  float dy = (float)ms_image(sw[b].y - sw[a].y, pm->period[1]), rs = sw[a].r + sw[b].r;
  if (dx * dx + dy * dy >= rs * rs)
    return 1;
  ms_ll_pair p = {sw[a].index, sw[b].index, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0};
  if (!ll_pair(pm, w, &p))
    return 1;
  ms_ll_pair *ll = ms_grow(ch->ll, ch->n_ll, &ch->ll_cap, sizeof *ll, 256);
  if (!ll)
    return 0;
  ch->ll = ll;
  ch->ll[ch->n_ll++] = p;
  return 1;
}

/* One chunk of sweep positions: the touching pairs whose left member is there, in sweep
 * order, with their forces. The extents decide which pairs to look at (pair_force's own
 * distance test, on the same values); pair_force decides and computes. */
static ms_status large_large_chunk(void *ctx, int begin, int end, int chunk, char *why,
                                   size_t why_size)
{
  const ms_worker_job *job = ctx;
  const ms_params *pm = job->p;
  ms_worker *w = job->w;
  ms_worker_chunk *ch = &w->chunk[chunk];
  const struct ms_sweep_item *sw = w->sweep;
  ch->n_ll = 0;
  for (int a = begin + job->from; a < end + job->from; a++) {
    if (sw[a].empty)
      continue; /* empty slots sort first (parked far left): no pairs */
    double right = sw[a].right;
    int b = a + 1;
    for (; b < pm->n_stepped && sw[b].left <= right; b++)
      if (!ll_candidate(pm, w, ch, a, b))
        return out_of_memory(why, why_size, "large-large");
    /* Periodic in x: the pairs that touch across the seam, B near the right side and its
     * image left of A, in sweep order after the direct ones. */
    if (pm->period[0] > 0.0) {
      double seam = ms_seam_left(sw[a].left, pm->period[0], (double)pm->r_large_max);
      int lo = pm->n_stepped;
      while (lo > b && sw[lo - 1].left > seam)
        lo--;
      for (int c = lo; c < pm->n_stepped; c++)
        if (!ll_candidate(pm, w, ch, a, c))
          return out_of_memory(why, why_size, "large-large");
    }
  }
  return MS_OK;
}

/* Wall contacts of a chunk of large particles: each body's own sum, after its pairs. */
static ms_status walls_chunk(void *ctx, int begin, int end, int chunk, char *why,
                             size_t why_size)
{
  const ms_worker_job *job = ctx;
  const ms_params *pm = job->p;
  ms_worker *w = job->w;
  ms_worker_chunk *ch = &w->chunk[chunk];
  for (int i = begin; i < end; i++) {
    ms_body *L = &w->large[i];
    if (L->is_static)
      continue;
    if (pm->n_walls > 0 && !ms_walls_large(pm, w, i, ch))
      return out_of_memory(why, why_size, "wall-large");
    if (pm->friction_on) {
      ms_fr_walls(pm, w, i);
      continue;
    }
    ms_v2 fw = ms_walls_force(L->x, L->y, (float)L->vx, (float)L->vy, L->r, pm->side[0],
                              pm->side[1], pm->side[2], pm->side[3], pm->k, pm->two_zeta, L->m);
    L->fx += fw.x;
    L->fy += fw.y;
    if (pm->diag)
      w->diss_large[i] += pm->dt * (double)ms_walls_dissipation(
                                         L->x, L->y, (float)L->vx, (float)L->vy, L->r, pm->side[0],
                                         pm->side[1], pm->side[2], pm->side[3], pm->k,
                                         pm->two_zeta, L->m);
  }
  return MS_OK;
}

static void apply_large_large(const ms_params *pm, ms_worker *w)
{
  for (int t = 0; t < w->cpu_threads; t++) {
    const ms_worker_chunk *ch = &w->chunk[t];
    for (size_t e = 0; e < ch->n_ll; e++) {
      ms_body *A = &w->large[ch->ll[e].a], *B = &w->large[ch->ll[e].b];
      A->fx += ch->ll[e].fx;
      A->fy += ch->ll[e].fy;
      B->fx -= ch->ll[e].fx;
      B->fy -= ch->ll[e].fy;
      if (pm->diag) { /* half of the pair's to each, as the device books its pairs */
        w->diss_large[ch->ll[e].a] += 0.5 * ch->ll[e].lost;
        w->diss_large[ch->ll[e].b] += 0.5 * ch->ll[e].lost;
      }
    }
  }
}

ms_status ms_cpu_large_large(const ms_params *pm, ms_worker *w)
{
  ms_cpu_sort_sweep(w, pm->n_stepped);
  for (int t = 0; t < w->cpu_threads; t++)
    w->chunk[t].n_ll = 0;
  ms_status st = pm->n_stepped > 0 ? fill_sweep(pm, w) : MS_OK;
  int from = 0; /* (the empty sort first, parked far left: the chunks share the others) */
  while (!st && from < pm->n_stepped && w->sweep[from].empty)
    from++;
  if (!st)
    st = ms_pool_run(w->pool, large_large_chunk, &(ms_worker_job){pm, w, NULL, NULL, from},
                     pm->n_stepped - from, grain(w, GRAIN_LARGE_LARGE));
  if (st)
    return st;
  /* The pairs in sweep order (chunks are contiguous and ascending), so every body's
   * force sums in the order the serial sweep adds it, whatever the thread count. */
  if (pm->friction_on) {
    if (!ms_fr_apply_large_large(pm, w))
      return ms_fail(MS_ERR_RUNTIME, "out of memory for the large-large contact history");
  } else {
    apply_large_large(pm, w);
  }
  for (int t = 0; t < w->cpu_threads; t++)
    w->chunk[t].n_wr = 0; /* chunks the job leaves empty add nothing */
  st = ms_pool_run(w->pool, walls_chunk, &(ms_worker_job){pm, w, NULL, NULL, 0}, pm->n_stepped,
                   grain(w, GRAIN_PER_BODY));
  if (!st && pm->n_walls > 0)
    ms_walls_apply_large(pm, w);
  return st;
}

/* Integrates a chunk of large particles, keeping each one's state from before in
 * large_prev, and stops at the chunk's first particle that fails the check (integrated,
 * as the serial loop leaves it); its index goes to the chunk's `failed`. */
static ms_status integrate_chunk(void *ctx, int begin, int end, int chunk, char *why,
                                 size_t why_size)
{
  const ms_worker_job *job = ctx;
  const ms_params *pm = job->p;
  ms_worker *w = job->w;
  ms_worker_chunk *ch = &w->chunk[chunk];
  (void)why;
  (void)why_size;
  ch->failed = -1;
  ch->begin = begin;
  ch->end = end;
  for (int i = begin; i < end; i++) {
    ms_body *L = &w->large[i];
    w->large_prev[i] = *L;
    if (L->is_static)
      continue;
    ms_integrate(&L->x, &L->y, &L->vx, &L->vy, L->fx, L->fy, L->m, pm->gx, pm->gy, pm->dt);
    ms_wrap_into(&L->x, &L->img[0], pm->period[0]);
    ms_wrap_into(&L->y, &L->img[1], pm->period[1]);
    if (pm->friction_on)
      ms_integrate_rotation(&L->theta, &L->w, L->torque, ms_disc_inertia(L->m, L->r), pm->dt);
    int finite = isfinite(L->x) && isfinite(L->y) && isfinite(L->vx) && isfinite(L->vy) &&
                 isfinite(L->w);
    if (finite && !(pm->max_speed2 > 0.0 && !(L->vx * L->vx + L->vy * L->vy <= pm->max_speed2)))
      continue;
    ch->failed = i;
    ch->failed_finite = finite;
    return MS_OK;
  }
  return MS_OK;
}

/* The first failing particle in index order, or -1. Particles after it that later chunks
 * integrated are put back, so the state is the serial loop's, which stops there. */
static int first_failure(ms_worker *w, int *finite)
{
  int threads = w->cpu_threads;
  for (int t = 0; t < threads; t++) {
    const ms_worker_chunk *ch = &w->chunk[t];
    if (ch->failed < 0)
      continue;
    *finite = ch->failed_finite;
    for (int u = t + 1; u < threads; u++) {
      const ms_worker_chunk *later = &w->chunk[u];
      int end = later->failed >= 0 ? later->failed + 1 : later->end;
      for (int i = later->begin; i < end; i++)
        w->large[i] = w->large_prev[i];
    }
    return ch->failed;
  }
  return -1;
}

ms_status ms_cpu_integrate(const ms_params *pm, ms_worker *w, long step)
{
  for (int t = 0; t < w->cpu_threads; t++) {
    w->chunk[t].failed = -1;
    w->chunk[t].begin = w->chunk[t].end = 0; /* chunks the job leaves empty */
  }
  ms_status st = ms_pool_run(w->pool, integrate_chunk, &(ms_worker_job){pm, w, NULL, NULL, 0},
                             pm->n_stepped, grain(w, GRAIN_PER_BODY));
  int finite = 1, i = st ? -1 : first_failure(w, &finite);
  if (i < 0) {
    if (!st)
      ms_walls_advance(pm, w);
    return st;
  }
  return ms_cpu_large_failure(pm, step, i, finite);
}

ms_status ms_cpu_large_failure(const ms_params *pm, long step, int i, int finite)
{
  /* Named as the scene names it, so the user finds the section to look at. */
  char name[96];
  ms_large_label(pm->large_origin, pm->n_large_origin, i, name, sizeof name);
  if (!finite)
    return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s has a non-finite state; "
                                   "dt may be too large", step, name);
  return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s moves faster than max_speed = "
                                 "%g m/s: the system is exploding; dt may be too large",
                 step, name, sqrt(pm->max_speed2));
}
