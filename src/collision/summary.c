/* What the state looks like at a moment, beyond the hash: how many contacts of each
 * kind are closed and the kinetic energy. Computed on the host from a read-back of the
 * state with the force law's own overlap test, so a count says how many pairs pushed
 * each other in the last force computation's sense; a [wall.NAME]'s contacts with the
 * wall's own tests (kernels/shared/wall.h), where the wall is at the state's step. */
#include "collision/sim_internal.h"

#include "collision/worker/cpu_worker.h"

#include <stdlib.h>

#include "shared/contact.h"
#include "shared/grid.h"
#include "shared/wall.h"

/* The force law's overlap test on a difference taken in double, through the seams. */
static int touching(const ms_params *pm, const double *a, const double *b, float r_sum)
{
  return ms_touching((float)ms_image(b[0] - a[0], pm->period[0]),
                     (float)ms_image(b[1] - a[1], pm->period[1]), r_sum);
}

/* Small particles sorted by cell (counting sort): first[c] .. first[c + 1] in `order`. */
typedef struct cells {
  size_t *first;
  int *order;
} cells;

static int cell_of(const ms_grid *g, const double *p)
{
  return ms_grid_axis(p[1], g->inv_cell, g->ny) * g->nx + ms_grid_axis(p[0], g->inv_cell, g->nx);
}

static int empty(const ms_sim *s, int i) { return s->p.shape[2 * i + 1] == 0.0f; }

static int bin_small(const ms_sim *s, const ms_state *st, cells *c)
{
  const ms_grid *g = &s->p.grid;
  c->first = calloc(g->n_cells + 2, sizeof *c->first);
  c->order = malloc(((size_t)st->n_small + 1) * sizeof *c->order);
  if (!c->first || !c->order)
    return 0;
  /* (an open system's empty slots are left out: they all sit in one corner cell) */
  for (int i = 0; i < st->n_small; i++)
    if (!empty(s, i))
      c->first[cell_of(g, &st->small_pos[2 * i]) + 2]++;
  for (size_t k = 2; k < g->n_cells + 2; k++)
    c->first[k] += c->first[k - 1];
  for (int i = 0; i < st->n_small; i++)
    if (!empty(s, i))
      c->order[c->first[cell_of(g, &st->small_pos[2 * i]) + 1]++] = i;
  return 1;
}

/* Pairs of small particles i < j that touch, over each one's 3 x 3 cells. */
static long small_small(const ms_sim *s, const ms_state *st, const cells *c)
{
  const ms_grid *g = &s->p.grid;
  long n = 0;
  for (int i = 0; i < st->n_small; i++) {
    if (empty(s, i))
      continue;
    const double *p = &st->small_pos[2 * i];
    int cx = ms_grid_axis(p[0], g->inv_cell, g->nx), cy = ms_grid_axis(p[1], g->inv_cell, g->ny);
    for (int nb = 0; nb < 9; nb++) {
      int cell = ms_grid_neighbour(cx, cy, nb, g->nx, g->ny, s->p.period[0] > 0.0,
                                   s->p.period[1] > 0.0);
      if (cell < 0)
        continue;
      for (size_t k = c->first[cell]; k < c->first[cell + 1]; k++) {
        int j = c->order[k];
        n += j > i && touching(&s->p, p, &st->small_pos[2 * j],
                               s->p.shape[2 * i] + s->p.shape[2 * j]);
      }
    }
  }
  return n;
}

static long large_small(const ms_sim *s, const ms_state *st, const cells *c)
{
  long n = 0;
  for (int i = 0; i < st->n_large && st->n_small > 0; i++) {
    const double *p = &st->large_pos[2 * i];
    float r = s->wk.large[i].r;
    if (ms_body_empty(&s->wk.large[i]))
      continue;
    ms_cell_rect q = ms_params_rect(&s->p, p[0], p[1], (double)r + s->p.r_small_max);
    for (int y = q.y0; y <= q.y1; y++)
      for (int x = q.x0; x <= q.x1; x++) {
        int cell = ms_params_cell(&s->p, x, y);
        for (size_t k = c->first[cell]; k < c->first[cell + 1]; k++) {
          int j = c->order[k];
          n += touching(&s->p, p, &st->small_pos[2 * j], r + s->p.shape[2 * j]);
        }
      }
  }
  return n;
}

/* Large pairs in the worker's sweep order (left edges ascending, as it last sorted). */
static long large_large(ms_sim *s, const ms_state *st)
{
  ms_cpu_sort_sweep(&s->wk, s->p.n_large);
  const int *o = s->wk.sweep_order;
  long n = 0;
  for (int a = 0; a < st->n_large; a++) {
    const ms_body *A = &s->wk.large[o[a]];
    if (ms_body_empty(A))
      continue; /* empty slots sort first and touch nothing */
    double left = A->x - A->r, right = A->x + A->r;
    for (int b = a + 1; b < st->n_large; b++) {
      const ms_body *B = &s->wk.large[o[b]];
      if (!ms_sweep_pair(left, right, B->x - B->r, s->p.period[0], (double)s->p.r_large_max)) {
        if (!(s->p.period[0] > 0.0))
          break; /* past A's right edge; without a seam no later B comes back */
        continue;
      }
      n += !(A->is_static && B->is_static) &&
           touching(&s->p, &st->large_pos[2 * o[a]], &st->large_pos[2 * o[b]], A->r + B->r);
    }
  }
  return n;
}

/* A particle touches a wall when a wall pushes it (ms_walls_force's gaps). */
static int at_wall(const ms_sim *s, const double *p, float r)
{
  const double *sd = s->p.side;
  MS_BOX_GAPS(p[0], p[1], sd[0], sd[1], sd[2], sd[3]);
  return gl < r || gr < r || gb < r || gt < r;
}

/* The contacts of a disc with a [wall.NAME] (the worker's search: a circle gives one at
 * most, a polyline one per segment at most, by the feature rule of each segment), through
 * the disc's image nearest the wall across a periodic seam. */
static long wall_hits(const ms_wall_info *w, const double *centre, float r)
{
  double p[2] = {ms_wall_image(centre[0], w->anchor[0], w->seam[0]),
                 ms_wall_image(centre[1], w->anchor[1], w->seam[1])};
  ms_wall_hit hit;
  if (w->kind == MS_WALL_CIRCLE)
    return ms_circle_contact(p[0], p[1], r, w->center[0], w->center[1], w->radius, &hit);
  long n = 0;
  int nv = w->n_points;
  for (int i = 0; i < ms_polyline_segments(nv, w->closed); i++) {
    ms_wall_segment g = ms_polyline_segment(i, nv, w->closed);
    const double *a = &w->points[2 * g.a], *b = &w->points[2 * g.b], *c = &w->points[2 * g.c];
    n += ms_segment_contact(p[0], p[1], r, a[0], a[1], b[0], b[1], g.start_free, g.end_free,
                            c[0], c[1], &hit);
  }
  return n;
}

/* Every contact with the scene's walls: small particles and the dynamic large ones. */
static long scene_wall_contacts(ms_sim *s, const ms_state *st)
{
  long n = 0;
  for (int k = 0; k < s->p.n_walls; k++) {
    ms_wall_info w;
    ms_sim_wall(s, k, &w);
    for (int i = 0; i < st->n_small; i++)
      n += wall_hits(&w, &st->small_pos[2 * i], s->p.shape[2 * i]);
    for (int i = 0; i < st->n_large; i++)
      if (!s->wk.large[i].is_static)
        n += wall_hits(&w, &st->large_pos[2 * i], s->wk.large[i].r);
  }
  return n;
}

static double kinetic(const double *v, float m) { return 0.5 * m * (v[0] * v[0] + v[1] * v[1]); }

ms_status ms_sim_summarise(ms_sim *s, ms_state_summary *out)
{
  *out = (ms_state_summary){0};
  ms_state st;
  ms_status rc = ms_sim_read_state(s, &st);
  if (rc)
    return rc;
  cells c = {0};
  if (!bin_small(s, &st, &c)) {
    free(c.first);
    free(c.order);
    ms_state_free(&st);
    return ms_fail(MS_ERR_RUNTIME, "out of memory counting contacts");
  }
  out->contacts_small_small = small_small(s, &st, &c);
  out->contacts_large_small = large_small(s, &st, &c);
  out->contacts_large_large = large_large(s, &st);
  for (int i = 0; i < st.n_small; i++) {
    if (empty(s, i))
      continue;
    out->contacts_wall += at_wall(s, &st.small_pos[2 * i], s->p.shape[2 * i]);
    out->kinetic_energy += kinetic(&st.small_vel[2 * i], s->p.shape[2 * i + 1]);
  }
  for (int i = 0; i < st.n_large; i++) {
    if (s->wk.large[i].is_static)
      continue;
    out->contacts_wall += at_wall(s, &st.large_pos[2 * i], s->wk.large[i].r);
    out->kinetic_energy += kinetic(&st.large_vel[2 * i], s->wk.large[i].m);
  }
  out->contacts_wall += scene_wall_contacts(s, &st);
  free(c.first);
  free(c.order);
  ms_state_free(&st);
  return MS_OK;
}
