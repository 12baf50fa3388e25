/* Scene loader, after placement: the small radii take in the inflows' (the grid's cell is
 * one largest small diameter), and a periodic box is checked against what it cannot hold:
 * a grid that does not tile the period, large discs reaching round to themselves, walls
 * too wide to meet a disc through one image only (docs/scenes.md). */
#include "scene/loader.h"

#include <math.h>

/* The neighbour list's skin, as a multiple of the largest small radius: the simulation's
 * MS_NLIST_SKIN_RATIO (collision/device/device.h, a layer above the loader). */
#define NLIST_SKIN_RATIO 0.3

static const char *const g_axis[2] = {"x", "y"};

void ms_ld_small_radius_range(const loader *ld, float *r_min, float *r_max)
{
  const ms_scene *s = ld->scene;
  *r_min = *r_max = 0.0f;
  if (ld->small.count > 0) {
    *r_min = s->small_radius_min;
    *r_max = s->small_radius;
  }
  for (int i = 0; i < s->inflow_count; i++) {
    const ms_inflow *in = &s->inflows[i];
    if (in->kind != MS_INFLOW_SMALL || !(in->radius_max > 0.0f))
      continue;
    *r_max = fmaxf(*r_max, in->radius_max);
    *r_min = *r_min > 0.0f ? fminf(*r_min, in->radius_min) : in->radius_min;
  }
}

/* The grid's smallest cell as the simulation computes it (collision/sim.c setup_grid). */
static double min_cell(const ms_scene *s)
{
  float skin = ms_scene_friction_on(s) ? (float)(NLIST_SKIN_RATIO * s->small_radius) : 0.0f;
  return 2.0 * s->small_radius + skin;
}

/* ms_box_cell found no cell: say why and what would do, at the periodic key's line. */
static int fail_cell(loader *ld, const section *box, double w, double h, double c0)
{
  const ms_scene *s = ld->scene;
  const char *what = ms_scene_friction_on(s) ? "the largest small diameter plus the neighbour "
                                               "list's skin, with friction on"
                                             : "the largest small diameter";
  double len[2] = {w, h};
  for (int a = 0; a < 2; a++)
    if (s->periodic[a] && floor(len[a] / c0) < 3.0) /* as ms_box_cell counts */
      return ms_ld_fail_key(ld, box, "periodic", "the box is %g m along %s, less than 3 cells "
                            "of %g m (%s): a periodic side must span at least 3 cells; make "
                            "it at least %g m long, or the particles smaller", len[a],
                            g_axis[a], c0, what, 3.0 * c0);
  double cell = w / floor(w / c0), n = fmax(3.0, nearbyint(h / cell));
  return ms_ld_fail_key(ld, box, "periodic", "with periodic = xy the width and the height must "
                        "both be whole multiples of one cell of at least %g m (%s), and no such "
                        "cell divides both %g and %g m; a height of %.12g m (%.0f cells of %.12g "
                        "m, as the width holds %.0f) would do", c0, what, w, h, n * cell, n,
                        cell, floor(w / c0));
}

/* A disc of radius r must reach less than half the period round, less a cell: with the
 * largest small disc against it, radius + small radius <= period / 2 - cell. */
static int check_large_radius(loader *ld, const section *sec, const char *key, double r,
                              double cell, double r_small)
{
  const ms_scene *s = ld->scene;
  for (int a = 0; a < 2; a++) {
    if (!s->periodic[a])
      continue;
    double p = s->box_max[a] - s->box_min[a], limit = p / 2.0 - cell;
    if (r + r_small > limit)
      return ms_ld_fail_key(ld, sec, key, "a large disc of radius %g m with the largest small "
                            "radius (%g m) reaches %g m, more than the periodic box allows "
                            "along %s: half the period (%g m) less one grid cell (%g m) = %g m",
                            r, r_small, r + r_small, g_axis[a], p / 2.0, cell, limit);
  }
  return 1;
}

static const section *section_at(const loader *ld, int index) { return &ld->sections[index]; }

/* Every large disc: [large.*], [large_random.*], [large_file.*], kind = large inflows. */
static int check_large_all(loader *ld, double cell, double r_small)
{
  const ms_scene *s = ld->scene;
  for (int i = 0; i < ld->large_count; i++)
    if (!check_large_radius(ld, section_at(ld, ld->large[i].section), "radius",
                            ld->large[i].radius, cell, r_small))
      return 0;
  for (int i = 0; i < ld->group_count; i++)
    if (!check_large_radius(ld, section_at(ld, ld->groups[i].section), "radius_max",
                            ld->groups[i].radius_max, cell, r_small))
      return 0;
  for (int f = 0; f < ld->file_count; f++) {
    const particle_file *pf = &ld->files[f];
    double r = 0.0;
    for (long i = 0; i < pf->count; i++)
      r = fmax(r, pf->disc[i].r);
    if (!check_large_radius(ld, section_at(ld, pf->section), "file", r, cell, r_small))
      return 0;
  }
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = section_at(ld, i);
    if (sec->kind != SEC_INFLOW || s->inflows[sec->item].kind != MS_INFLOW_LARGE)
      continue;
    const char *key = ms_ld_line_of(sec, "radius") ? "radius" : "radius_max";
    if (!check_large_radius(ld, sec, key, s->inflows[sec->item].radius_max, cell, r_small))
      return 0;
  }
  return 1;
}

/* The largest radius of any particle the scene has or pours in (r_small: the small ones'). */
static double largest_radius(const loader *ld, double r_small)
{
  const ms_scene *s = ld->scene;
  double r = r_small;
  for (int i = 0; i < s->large_count; i++)
    r = fmax(r, s->large[i].radius);
  for (int i = 0; i < s->inflow_count; i++)
    r = fmax(r, s->inflows[i].radius_max);
  return r;
}

double ms_wall_extent(const ms_wall *w, int axis)
{
  if (w->kind == MS_WALL_CIRCLE)
    return 2.0 * w->radius;
  double lo = w->points[axis], hi = lo, far = 0.0;
  for (int i = 0; i < w->n_points; i++) {
    const double *p = &w->points[2 * i];
    lo = fmin(lo, p[axis]);
    hi = fmax(hi, p[axis]);
    far = fmax(far, hypot(p[0] - w->rot_center[0], p[1] - w->rot_center[1]));
  }
  return w->rotates ? 2.0 * far : hi - lo;
}

/* A wall's point p (frame) near a periodic side of axis a: closer than `reach` to it. */
static int near_side(const ms_scene *s, int a, double p, double reach)
{
  double len = s->box_max[a] - s->box_min[a];
  return p < reach || p > len - reach;
}

/* Point i of a polyline lies on a periodic side of axis a and ends a straight segment whose
 * other end lies on the opposite side at the same height: a base or lid spanning the period. */
static int spans_period(const ms_scene *s, const ms_wall *w, int a, int i)
{
  double len = s->box_max[a] - s->box_min[a];
  const double *p = &w->points[2 * i];
  if (p[a] != 0.0 && p[a] != len)
    return 0;
  int n = w->n_points;
  int nb[2] = {i > 0 || w->closed ? (i + n - 1) % n : -1,
               i + 1 < n || w->closed ? (i + 1) % n : -1};
  for (int k = 0; k < 2; k++) {
    if (nb[k] < 0)
      continue;
    const double *q = &w->points[2 * nb[k]];
    if (q[a] == (p[a] == 0.0 ? len : 0.0) && q[1 - a] == p[1 - a])
      return 1;
  }
  return 0;
}

static int fail_wall_near(loader *ld, const section *sec, const char *key, int a, double reach,
                          const char *what)
{
  return ms_ld_fail_key(ld, sec, key, "%s lies closer than %g m (the largest particle radius "
                        "plus two largest small radii) to a periodic side (periodic along %s) "
                        "on a wall that spans the period: only its straight segments from one "
                        "periodic side to the other at the same height may touch them", what,
                        reach, g_axis[a]);
}

/* Whether a polyline has a straight segment spanning the period along a. */
static int spans(const ms_scene *s, const ms_wall *w, int a)
{
  for (int i = 0; w->kind == MS_WALL_POLYLINE && i < w->n_points; i++)
    if (spans_period(s, w, a, i))
      return 1;
  return 0;
}

/* A wall spanning the period along a (a chute's base or lid): as before seams were crossed,
 * no rotation, no motion along a, clear of the periodic sides but for its spanning segments. */
static int check_wall_spanning(loader *ld, const section *sec, int a, double reach)
{
  const ms_scene *s = ld->scene;
  const ms_wall *w = &s->walls[sec->item];
  if (w->rotates)
    return ms_ld_fail_key(ld, sec, "rotate", "a wall spanning the period along %s may not "
                          "rotate", g_axis[a]);
  const char *key = w->velocity[a] != 0.0 ? "velocity" : w->osc_amp[a] != 0.0 ? "oscillate"
                    : w->force_driven && w->force[a] != 0.0 ? "force" : NULL;
  if (key)
    return ms_ld_fail_key(ld, sec, key, "a wall spanning the period along %s may not move "
                          "along it", g_axis[a]);
  char what[128];
  for (int i = 0; i < w->n_points; i++)
    if (near_side(s, a, w->points[2 * i + a], reach) && !spans_period(s, w, a, i)) {
      snprintf(what, sizeof what, "point %d (%.15g, %.15g)", i + 1,
               w->points[2 * i] + s->box_min[0], w->points[2 * i + 1] + s->box_min[1]);
      return fail_wall_near(ld, sec, "segments", a, reach, what);
    }
  return 1;
}

/* A wall on a periodic box meets discs through their images across the seams (docs/walls.md)
 * unless it spans the period; it must then be narrow enough, over its whole motion, that no
 * disc can touch one of its features through two images. */
static int check_wall_periodic(loader *ld, const section *sec, double reach)
{
  const ms_scene *s = ld->scene;
  const ms_wall *w = &s->walls[sec->item];
  for (int a = 0; a < 2; a++) {
    if (!s->periodic[a])
      continue;
    if (spans(s, w, a)) {
      if (!check_wall_spanning(ld, sec, a, reach))
        return 0;
      continue;
    }
    double period = s->box_max[a] - s->box_min[a], extent = ms_wall_extent(w, a);
    if (extent + 2.0 * reach >= period)
      return ms_ld_fail_key(ld, sec, w->rotates ? "rotate" : w->kind == MS_WALL_CIRCLE ? "circle"
                                                                                  : "segments",
                            "the wall is %g m across along %s (%s) and a disc reaches %g m (the "
                            "largest particle radius plus two largest small radii): %g + 2 x %g "
                            "is not less than the period, %g m, so a disc could touch it through "
                            "two images across the seam; make the wall smaller or the box longer "
                            "(only a straight segment from one periodic side to the other at one "
                            "height may span the period)", extent, g_axis[a],
                            w->rotates ? "the circle it sweeps as it rotates"
                                       : w->kind == MS_WALL_CIRCLE ? "its diameter"
                                                                   : "its points' extent",
                            reach, extent, reach, period);
  }
  return 1;
}

int ms_ld_check_open(loader *ld)
{
  ms_scene *s = ld->scene;
  float r_min = 0.0f, r_max = 0.0f;
  ms_ld_small_radius_range(ld, &r_min, &r_max);
  if (r_max > 0.0f && s->inflow_count > 0) {
    s->small_radius = r_max;
    s->small_radius_min = r_min;
    if (!ms_ld_check_grid(ld))
      return 0;
  }
  if (!s->periodic[0] && !s->periodic[1])
    return 1;
  const section *box = ms_ld_find_kind(ld, SEC_BOX);
  double w = s->box_max[0] - s->box_min[0], h = s->box_max[1] - s->box_min[1], cell = 0.0;
  double r_small = r_max > 0.0f ? s->small_radius : 0.0;
  if (r_small > 0.0) {
    double c0 = min_cell(s);
    cell = ms_box_cell(w, h, s->periodic, c0);
    if (!(cell > 0.0))
      return fail_cell(ld, box, w, h, c0);
  }
  if (!check_large_all(ld, cell, r_small))
    return 0;
  double reach = largest_radius(ld, r_small) + 2.0 * r_small;
  for (int i = 0; i < ld->section_count; i++)
    if (ld->sections[i].kind == SEC_WALL && !check_wall_periodic(ld, &ld->sections[i], reach))
      return 0;
  return 1;
}
