/* The large particles in the incremental meeting's domains (live.h). Every domain holds
 * every large particle's state as the owners gave it; its worker steps only those near its
 * columns, laid first in its slots in ascending global index, the others parked after them.
 * The worker's sums run over its slots in order, so the order among those it steps is one
 * device's, and it passes over a quarter of the scene's large particles on four domains,
 * not all of them (docs/domains.md#the-incremental-meeting). */
#include "domains/live.h"

#include "collision/sim_internal.h"
#include "collision/split.h"
#include "domains/domains_internal.h"
#include "shared/grid.h"

static int domain_of(const ms_split_cut *c, double at)
{
  int col = ms_grid_axis(at, c->inv_cell, c->ncol), d = 0;
  while (d + 1 < c->P && col >= c->start[d + 1])
    d++;
  return d;
}

/* Every large particle's owner for the step about to be made: the domain of its centre
 * (every domain holds the same large state, so every rank finds the same). */
void ms_live_large_owners(ms_domains *D)
{
  ms_live *v = &D->live;
  for (int j = 0; j < D->view->p.n_large; j++)
    v->large_owner[j] = domain_of(&v->cut, v->large_xv[4 * j + v->cut.axis]);
}

/* Whether column c lies within `w` columns of domain d's own (wrapped on a periodic axis). */
static int near_domain(const ms_split_cut *c, int d, int w, int col)
{
  long lo = (long)c->start[d] - w, hi = (long)c->start[d + 1] + w, n = c->ncol;
  if (!c->periodic)
    return col >= lo && col < hi;
  return hi - lo >= n || ((col - lo) % n + n) % n < hi - lo;
}

const int *ms_live_held(const ms_live *v, int d, int n_large)
{
  return v->held + (size_t)d * ((size_t)n_large + 1);
}

static int *slots_of(const ms_live *v, int d, int n_large)
{
  return v->slot + (size_t)d * ((size_t)n_large + 1);
}

/* Large particle j into slot L: its shape, and its state as the owners gave it. */
static void lay_large(const ms_live *v, int j, ms_body *L)
{
  ms_body b = {0};
  b.r = v->large_r[j];
  b.m = v->large_m[j];
  b.is_static = v->large_static[j];
  b.x = v->large_xv[4 * j], b.y = v->large_xv[4 * j + 1];
  b.vx = v->large_xv[4 * j + 2], b.vy = v->large_xv[4 * j + 3];
  b.img[0] = v->large_img[2 * j], b.img[1] = v->large_img[2 * j + 1];
  *L = b;
}

void ms_live_place_large(ms_domains *D, int d)
{
  ms_live *v = &D->live;
  ms_sim *s = D->sim[d];
  int n = s->p.n_large, m = 0;
  int *held = (int *)ms_live_held(v, d, n), *slot = slots_of(v, d, n);
  for (int j = 0; j < n; j++) {
    int col = ms_grid_axis(v->large_xv[4 * j + v->cut.axis], v->cut.inv_cell, v->cut.ncol);
    int near = v->large_m[j] != 0.0f && near_domain(&v->cut, d, v->w_large, col);
    slot[j] = near ? m : -1;
    if (!near)
      continue;
    held[m] = j;
    lay_large(v, j, &s->wk.large[m++]);
  }
  for (int k = m; k < n; k++)
    if (!ms_body_empty(&s->wk.large[k]))
      ms_body_park(&s->wk.large[k]);
  s->p.n_stepped = m;
  ms_sim_state_changed(s);
}

void ms_live_unplace_large(ms_domains *D, int d)
{
  ms_live *v = &D->live;
  ms_sim *s = D->sim[d];
  for (int j = 0; j < s->p.n_large; j++) {
    if (v->large_m[j] != 0.0f)
      lay_large(v, j, &s->wk.large[j]);
    else
      ms_body_park(&s->wk.large[j]);
  }
  s->p.n_stepped = s->p.n_large;
  ms_sim_state_changed(s);
}

void ms_live_large_get(const ms_domains *D, int d, int j, double xv[4], int img[2])
{
  const ms_live *v = &D->live;
  const ms_sim *s = D->sim[d];
  int m = slots_of(v, d, s->p.n_large)[j];
  if (m >= 0) {
    ms_split_large_get(s, m, xv, img);
    return;
  }
  for (int i = 0; i < 4; i++) /* (not stepped here: an empty slot, as it was given) */
    xv[i] = v->large_xv[4 * j + i];
  img[0] = v->large_img[2 * j], img[1] = v->large_img[2 * j + 1];
}

int ms_live_large_slot(const ms_domains *D, int d, int j)
{
  return slots_of(&D->live, d, D->sim[d]->p.n_large)[j];
}
