/* Large particles on the CPU worker thread. */
#include "collision/cpu_worker.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/contact.h"
#include "shared/grid.h"

/* Where large-small reads the small particles and adds their forces. exchange = full:
 * the grid's arrays, rows are cells of `cap` slots, state and forces per particle.
 * exchange = zone: the zone's arrays, rows found through row_of and starting at
 * start[row], state and forces per zone slot (one slot per particle, so each force sums
 * the same terms in the same order either way). */
typedef struct ls_source {
  const int *count, *idx, *row_of, *start;
  const double *pos, *vel;
  float *f;
  int per_slot;
} ls_source;

/* Contacts of one large particle with the small ones in the cells under its extent. */
static void large_small_one(ms_sim *s, ms_body *L, const ls_source *src)
{
  const ms_grid *g = &s->grid;
  double reach = (double)L->r + s->r_small_max;
  int x0 = ms_grid_axis(L->x - reach, g->inv_cell, g->nx);
  int x1 = ms_grid_axis(L->x + reach, g->inv_cell, g->nx);
  int y0 = ms_grid_axis(L->y - reach, g->inv_cell, g->ny);
  int y1 = ms_grid_axis(L->y + reach, g->inv_cell, g->ny);
  int cap = (int)s->buf.cap;
  for (int cy = y0; cy <= y1; cy++) {
    for (int cx = x0; cx <= x1; cx++) {
      int cell = cy * g->nx + cx;
      int row = src->row_of ? src->row_of[cell] : cell;
      int n = src->count[row] < cap ? src->count[row] : cap;
      for (int k = 0; k < n; k++) {
        ms_slot_index slot = src->start ? (ms_slot_index)(src->start[row] + k)
                                        : ms_grid_slot(row, cap, k);
        int j = src->idx[slot];
        size_t at = src->per_slot ? (size_t)slot : (size_t)j;
        const double *xj = &src->pos[2 * at], *vj = &src->vel[2 * at];
        float rj = s->shape[2 * j], mj = s->shape[2 * j + 1];
        float dx = (float)(L->x - xj[0]), dy = (float)(L->y - xj[1]);
        if (!ms_touching(dx, dy, L->r + rj))
          continue;
        /* A static particle acts with infinite mass: the pair's mass is the small one's. */
        float m_eff = L->is_static ? mj : ms_pair_mass(L->m, mj);
        ms_v2 f = ms_contact_force(dx, dy, (float)(vj[0] - L->vx), (float)(vj[1] - L->vy),
                                   L->r + rj, s->k, s->two_zeta, m_eff);
        if (f.x == 0.0f && f.y == 0.0f)
          continue;
        src->f[2 * at] += f.x;
        src->f[2 * at + 1] += f.y;
        L->fx -= f.x;
        L->fy -= f.y;
      }
    }
  }
}

void ms_cpu_large_small(ms_sim *s)
{
  for (int i = 0; i < s->n_large; i++) {
    s->large[i].fx = 0.0f;
    s->large[i].fy = 0.0f;
  }
  if (s->n_small == 0)
    return;
  const ms_buffers *b = &s->buf;
  const ms_zone *z = &s->zone;
  ls_source src = {b->h_count, b->h_idx, NULL, NULL, b->h_pos, b->h_vel, b->h_f_ls, 0};
  if (s->exchange == MS_EXCHANGE_ZONE) /* set only between advances */
    src = (ls_source){z->count, z->h_idx, z->row_of, z->start, z->h_pos, z->h_vel, z->h_f, 1};
  for (int i = 0; i < s->n_large; i++)
    large_small_one(s, &s->large[i], &src);
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
void ms_cpu_sort_sweep(ms_sim *s)
{
  int n = s->n_large;
  if (n < 2)
    return;
  long budget = 8L * n + 64;
  if (insertion_sort(s->sweep_order, s->large, n, budget))
    return;
  if (!radix_sort(s->sweep_order, s->large, n))
    insertion_sort(s->sweep_order, s->large, n, LONG_MAX); /* no memory: slow but right */
}

static void pair_contact(ms_sim *s, ms_body *A, ms_body *B)
{
  if (A->is_static && B->is_static)
    return;
  float dx = (float)(B->x - A->x), dy = (float)(B->y - A->y), rs = A->r + B->r;
  if (dx * dx + dy * dy >= rs * rs)
    return;
  /* A static partner acts with infinite mass: the pair's mass is the moving one's. */
  float m_eff = A->is_static ? B->m : B->is_static ? A->m : ms_pair_mass(A->m, B->m);
  ms_v2 f = ms_contact_force(dx, dy, (float)(A->vx - B->vx), (float)(A->vy - B->vy), rs, s->k,
                             s->two_zeta, m_eff);
  A->fx += f.x;
  A->fy += f.y;
  B->fx -= f.x;
  B->fy -= f.y;
}

void ms_cpu_large_large(ms_sim *s)
{
  ms_cpu_sort_sweep(s);
  const int *o = s->sweep_order;
  for (int a = 0; a < s->n_large; a++) {
    ms_body *A = &s->large[o[a]];
    double right = A->x + A->r;
    for (int b = a + 1; b < s->n_large; b++) {
      ms_body *B = &s->large[o[b]];
      if (B->x - B->r > right)
        break;
      pair_contact(s, A, B);
    }
  }
  for (int i = 0; i < s->n_large; i++) {
    ms_body *L = &s->large[i];
    if (L->is_static)
      continue;
    ms_v2 w = ms_walls_force(L->x, L->y, (float)L->vx, (float)L->vy, L->r, s->box[0], s->box[1],
                             s->k, s->two_zeta, L->m);
    L->fx += w.x;
    L->fy += w.y;
  }
}

ms_status ms_cpu_integrate(ms_sim *s, long step)
{
  for (int i = 0; i < s->n_large; i++) {
    ms_body *L = &s->large[i];
    if (L->is_static)
      continue;
    ms_integrate(&L->x, &L->y, &L->vx, &L->vy, L->fx, L->fy, L->m, s->gx, s->gy, s->dt);
    int finite = isfinite(L->x) && isfinite(L->y) && isfinite(L->vx) && isfinite(L->vy);
    if (finite && !(s->max_speed2 > 0.0 && !(L->vx * L->vx + L->vy * L->vy <= s->max_speed2)))
      continue;
    /* Named as the scene names it, so the user finds the section to look at. */
    char name[96];
    ms_large_label(s->large_origin, s->n_large_origin, i, name, sizeof name);
    if (!finite)
      return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s has a non-finite state; "
                                     "dt may be too large", step, name);
    return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s moves faster than max_speed = "
                                   "%g m/s: the system is exploding; dt may be too large",
                   step, name, sqrt(s->max_speed2));
  }
  return MS_OK;
}
