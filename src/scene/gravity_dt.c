/* Scene loader, mode = gravity: dt against the shortest two-body time scale of the
 * initial bodies (docs/gravity.md, "Checks and failures"). For every pair,
 *
 *     tau_ij = sqrt((r_ij^2 + eps^2)^(3/2) / (G (m_i + m_j)))
 *
 * is 1/omega of the pair's circular orbit at its softened separation, and of the
 * oscillation through the softened core (sqrt(eps^3 / (G M))) when r << eps. The
 * smallest over all pairs is found exactly with a k-d tree whose nodes carry their
 * heaviest mass, pruned by the best found so far: O(N log N) in practice, so a million
 * bodies load in about a second, never O(N^2). dt above tau/2 is refused, with a dt
 * that passes when pasted back; above tau/5 it is a warning; `[gravity] dt_check = off`
 * skips both. */
#include "scene/loader.h"

#include <math.h>
#include <stdlib.h>

/* Steps per radian of the closest pair's orbit (omega dt = 1/steps), measured on
 * Kepler orbits and the shipped scenes (docs/gravity.md): leapfrog is unstable from
 * omega dt = 2; at 1/2 the pair's own energy error is 1 % on a circular orbit and 9 % at
 * e = 0.5 (refused); at 1/5 it is 4e-4 and 1.4 % (a warning between the two). */
#define REFUSE_BELOW 2.0
#define WARN_BELOW 5.0
#define LEAF 8

typedef struct kd_node {
  double lo[3], hi[3]; /* bounding box of its bodies */
  double m_max;        /* heaviest of them */
  int first, count;    /* range of `order` */
  int left, right;     /* children; -1 for a leaf */
} kd_node;

typedef struct kd_tree {
  const float *pos; /* 4 per body: x, y, z, m */
  int *order;
  kd_node *node;
  int n_nodes;
  double eps2;
  double best;    /* smallest (r^2 + eps^2)^(3/2) / (m_i + m_j) so far */
  int best_i, best_j;
} kd_tree;

static double coord(const kd_tree *t, int body, int axis) { return t->pos[4 * body + axis]; }

/* Partial sort of order[lo..hi] so that the k-th element sits where it would sorted. */
static void select_kth(kd_tree *t, int lo, int hi, int k, int axis)
{
  int *o = t->order;
  while (lo < hi) {
    double pivot = coord(t, o[(lo + hi) / 2], axis);
    int i = lo, j = hi;
    while (i <= j) {
      while (coord(t, o[i], axis) < pivot)
        i++;
      while (coord(t, o[j], axis) > pivot)
        j--;
      if (i <= j) {
        int tmp = o[i];
        o[i++] = o[j];
        o[j--] = tmp;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

static int build(kd_tree *t, int first, int count)
{
  int id = t->n_nodes++;
  kd_node *nd = &t->node[id];
  *nd = (kd_node){.first = first, .count = count, .left = -1, .right = -1};
  for (int k = 0; k < 3; k++)
    nd->lo[k] = INFINITY, nd->hi[k] = -INFINITY;
  for (int i = first; i < first + count; i++) {
    int b = t->order[i];
    for (int k = 0; k < 3; k++) {
      nd->lo[k] = fmin(nd->lo[k], coord(t, b, k));
      nd->hi[k] = fmax(nd->hi[k], coord(t, b, k));
    }
    nd->m_max = fmax(nd->m_max, t->pos[4 * b + 3]);
  }
  if (count <= LEAF)
    return id;
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (nd->hi[k] - nd->lo[k] > nd->hi[axis] - nd->lo[axis])
      axis = k;
  int half = count / 2;
  if (nd->hi[axis] > nd->lo[axis]) /* bodies at one point: any split will do */
    select_kth(t, first, first + count - 1, first + half, axis);
  int left = build(t, first, half);
  int right = build(t, first + half, count - half);
  t->node[id].left = left;
  t->node[id].right = right;
  return id;
}

static double box_dist2(const kd_node *nd, const float *p)
{
  double d2 = 0.0;
  for (int k = 0; k < 3; k++) {
    double d = p[k] < nd->lo[k] ? nd->lo[k] - p[k] : p[k] > nd->hi[k] ? p[k] - nd->hi[k] : 0.0;
    d2 += d * d;
  }
  return d2;
}

/* The smallest the key can be for body i against any body of the node. */
static double bound(const kd_tree *t, const kd_node *nd, int i)
{
  double m = t->pos[4 * i + 3] + nd->m_max;
  if (!(m > 0.0))
    return INFINITY;
  double s2 = box_dist2(nd, &t->pos[4 * i]) + t->eps2;
  return s2 * sqrt(s2) / m;
}

static void visit(kd_tree *t, int id, int i)
{
  const kd_node *nd = &t->node[id];
  if (bound(t, nd, i) >= t->best)
    return;
  if (nd->left < 0) {
    const float *p = &t->pos[4 * i];
    for (int k = nd->first; k < nd->first + nd->count; k++) {
      int j = t->order[k];
      const float *q = &t->pos[4 * j];
      double m = (double)p[3] + q[3];
      if (j == i || !(m > 0.0))
        continue;
      double dx = (double)q[0] - p[0], dy = (double)q[1] - p[1], dz = (double)q[2] - p[2];
      double s2 = dx * dx + dy * dy + dz * dz + t->eps2, key = s2 * sqrt(s2) / m;
      if (key < t->best) {
        t->best = key;
        t->best_i = i < j ? i : j;
        t->best_j = i < j ? j : i;
      }
    }
    return;
  }
  int a = nd->left, b = nd->right; /* the nearer child first: it lowers `best` sooner */
  if (box_dist2(&t->node[b], &t->pos[4 * i]) < box_dist2(&t->node[a], &t->pos[4 * i])) {
    a = nd->right;
    b = nd->left;
  }
  visit(t, a, i);
  visit(t, b, i);
}

/* The shortest tau_ij of the bodies; *i, *j the pair (-1 with fewer than two massive). */
static int shortest_time(const ms_gravity_scene *g, double *tau, int *bi, int *bj)
{
  kd_tree t = {.pos = g->pos, .eps2 = g->softening * g->softening, .best = INFINITY,
               .best_i = -1, .best_j = -1};
  t.order = malloc((size_t)g->count * sizeof *t.order);
  t.node = malloc(((size_t)g->count + 16) * sizeof *t.node); /* leaves hold >= LEAF/2 */
  if (!t.order || !t.node) {
    free(t.order);
    free(t.node);
    return 0;
  }
  for (int i = 0; i < g->count; i++)
    t.order[i] = i;
  build(&t, 0, g->count);
  for (int i = 0; i < g->count; i++)
    visit(&t, 0, i);
  free(t.order);
  free(t.node);
  *tau = sqrt(t.best / g->g);
  *bi = t.best_i;
  *bj = t.best_j;
  return 1;
}

/* Rounds down to 3 significant digits, so the suggested dt passes when pasted back. */
static double round_down_3(double v)
{
  double unit = pow(10.0, floor(log10(v)) - 2.0);
  return floor(v / unit) * unit;
}

double ms_gravity_shortest_time(const ms_gravity_scene *g)
{
  double tau = INFINITY;
  int i, j;
  return shortest_time(g, &tau, &i, &j) ? tau : NAN;
}

int ms_ld_check_gravity_dt(loader *ld)
{
  const ms_scene *s = ld->scene;
  const ms_gravity_scene *g = &s->grav;
  if (!g->dt_check)
    return 1;
  double tau;
  int i, j;
  if (!shortest_time(g, &tau, &i, &j))
    return ms_ld_fail_memory(ld);
  if (i < 0 || s->dt_s <= tau / WARN_BELOW * (1.0 + 1e-12))
    return 1;
  const float *p = &g->pos[4 * i], *q = &g->pos[4 * j];
  double r = sqrt(pow((double)p[0] - q[0], 2) + pow((double)p[1] - q[1], 2) +
                  pow((double)p[2] - q[2], 2));
  char pair[400];
  snprintf(pair, sizeof pair,
           "the closest encounter of the initial bodies, bodies %d and %d (masses %g and %g, "
           "%.3g apart, softening %g), has the softened two-body time tau = sqrt((r^2 + "
           "eps^2)^(3/2) / (G (m_i + m_j))) = %.3g",
           i, j, (double)p[3], (double)q[3], r, g->softening, tau);
  double suggest = round_down_3(tau / WARN_BELOW);
  if (s->dt_s <= tau / REFUSE_BELOW * (1.0 + 1e-12)) {
    ms_ld_warn_at(ld, s->dt_line, "simulation", "dt",
                  "dt = %g is tau/%.2g: %s; that pair's orbit is stepped coarsely (its energy "
                  "error may reach percents); dt <= %.3g (tau/%g) resolves it",
                  s->dt_s, tau / s->dt_s, pair, suggest, WARN_BELOW);
    return 1;
  }
  return ms_ld_fail_at(ld, s->dt_line, "simulation", "dt",
                       "dt = %g is too large: %s, and leapfrog needs dt well below tau (it is "
                       "unstable from 2 tau); use dt <= %.3g (tau/%g), or [gravity] dt_check = "
                       "off to run it anyway",
                       s->dt_s, pair, suggest, WARN_BELOW);
}
