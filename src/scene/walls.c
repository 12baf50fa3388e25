/* Scene loader, walls: the keys of [wall.NAME] (a polyline or a circle, its motion, its
 * coefficients) and the checks that need several of them, the box and [material]; the
 * geometry's exact tests are in wall_geometry.c. */
#include "scene/loader.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "scene/wall_geometry.h"

int ms_ld_add_wall(loader *ld, section *sec)
{
  ms_scene *s = ld->scene;
  if (s->wall_count == ld->wall_cap) {
    int cap = ld->wall_cap ? 2 * ld->wall_cap : 4;
    ms_wall *grown = realloc(s->walls, (size_t)cap * sizeof *grown);
    if (!grown)
      return ms_ld_fail_memory(ld);
    s->walls = grown;
    ld->wall_cap = cap;
  }
  sec->item = s->wall_count++;
  ms_wall *w = &s->walls[sec->item];
  *w = (ms_wall){.line = sec->line, .kind = MS_WALL_POLYLINE};
  snprintf(w->section, sizeof w->section, "%s", sec->name);
  return 1;
}

/* segments = x1, y1, x2, y2, ...: two points or more. */
static int read_segments(loader *ld, ms_wall *w, const char *v)
{
  int n = 0;
  if (!ms_ld_read_list(ld, v, &w->points, &n))
    return 0;
  if (n % 2)
    return ms_ld_bad_value(ld, "expected x, y pairs, got %d numbers (an odd count)", n);
  if (n < 4)
    return ms_ld_bad_value(ld, "a polyline needs at least 2 points (x1, y1, x2, y2), got 1");
  w->n_points = n / 2;
  return 1;
}

/* circle = cx, cy, R */
static int read_circle(loader *ld, ms_wall *w, const char *v)
{
  double c[3];
  if (!ms_ld_read_numbers(ld, v, 3, c))
    return 0;
  if (!(c[2] > 0.0))
    return ms_ld_bad_value(ld, "the radius R must be > 0 (got %g)", c[2]);
  w->kind = MS_WALL_CIRCLE;
  w->center[0] = c[0];
  w->center[1] = c[1];
  w->radius = c[2];
  return 1;
}

/* rotate = cx, cy, omega */
static int read_rotate(loader *ld, ms_wall *w, const char *v)
{
  double r[3];
  if (!ms_ld_read_numbers(ld, v, 3, r))
    return 0;
  w->rotates = 1;
  w->rot_center[0] = r[0];
  w->rot_center[1] = r[1];
  w->omega = r[2];
  return 1;
}

/* oscillate = ax, ay, f */
static int read_oscillate(loader *ld, ms_wall *w, const char *v)
{
  double o[3];
  if (!ms_ld_read_numbers(ld, v, 3, o))
    return 0;
  if (!(o[2] > 0.0))
    return ms_ld_bad_value(ld, "the frequency f must be > 0 Hz (got %g)", o[2]);
  if (o[0] == 0.0 && o[1] == 0.0)
    return ms_ld_bad_value(ld, "the amplitude ax, ay is 0, 0: the wall would not move");
  w->osc_amp[0] = o[0];
  w->osc_amp[1] = o[1];
  w->osc_freq = o[2];
  return 1;
}

/* force = fx, fy: not 0, 0, whose direction is the line the wall moves along. */
static int read_force(loader *ld, ms_wall *w, const char *v)
{
  if (!ms_ld_read_vec2(ld, v, w->force))
    return 0;
  if (w->force[0] == 0.0 && w->force[1] == 0.0)
    return ms_ld_bad_value(ld, "the force is 0, 0: it gives no line to move along (a wall "
                               "that does not move needs no force)");
  w->force_driven = 1;
  return 1;
}

/* mass = M: > 0 and a normal float, as every mass of the simulation. */
static int read_mass(loader *ld, ms_wall *w, const char *v)
{
  float f = 0.0f;
  return ms_ld_parse_number(ld, v, &w->mass) && ms_ld_positive_float(ld, w->mass, &f);
}

int ms_ld_set_wall(loader *ld, ms_wall *w, const char *key, const char *v)
{
  if (ms_ld_is(key, "segments"))
    return read_segments(ld, w, v);
  if (ms_ld_is(key, "closed"))
    return ms_ld_read_bool(ld, v, &w->closed);
  if (ms_ld_is(key, "circle"))
    return read_circle(ld, w, v);
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, w->velocity);
  if (ms_ld_is(key, "rotate"))
    return read_rotate(ld, w, v);
  if (ms_ld_is(key, "oscillate"))
    return read_oscillate(ld, w, v);
  if (ms_ld_is(key, "force"))
    return read_force(ld, w, v);
  if (ms_ld_is(key, "mass"))
    return read_mass(ld, w, v);
  if (ms_ld_is(key, "friction"))
    return ms_ld_read_coefficient(ld, v, &w->friction);
  return ms_ld_read_restitution(ld, v, &w->restitution); /* restitution */
}

/* One shape: segments or circle; closed only with segments. */
static int check_shape_keys(loader *ld, const section *sec)
{
  int segments = ms_ld_line_of(sec, "segments"), circle = ms_ld_line_of(sec, "circle");
  if (segments && circle)
    return ms_ld_fail_key(ld, sec, "circle", "give either segments (a polyline) or circle, "
                          "not both (segments at line %d)", segments);
  if (!segments && !circle)
    return ms_ld_fail_key(ld, sec, "segments", "required key is missing (or give circle = "
                          "cx, cy, R)");
  if (circle && ms_ld_line_of(sec, "closed"))
    return ms_ld_fail_key(ld, sec, "closed", "only applies to segments (a circle is closed)");
  return 1;
}

/* A force-driven wall moves only under its force and contacts, so it takes no prescribed
 * motion, and needs a mass; mass means nothing without force. */
static int check_motion_keys(loader *ld, const section *sec)
{
  static const char *const prescribed[] = {"velocity", "rotate", "oscillate"};
  int force = ms_ld_line_of(sec, "force");
  for (size_t i = 0; force && i < sizeof prescribed / sizeof prescribed[0]; i++)
    if (ms_ld_line_of(sec, prescribed[i]))
      return ms_ld_fail_key(ld, sec, "force", "does not go with %s (line %d): a force-driven "
                            "wall moves only along its force's line, pushed by the force and "
                            "its contacts; give one kind of motion", prescribed[i],
                            ms_ld_line_of(sec, prescribed[i]));
  if (force && !ms_ld_line_of(sec, "mass"))
    return ms_ld_fail_key(ld, sec, "force", "needs mass = M (kg), the wall's inertia");
  if (!force && ms_ld_line_of(sec, "mass"))
    return ms_ld_fail_key(ld, sec, "mass", "only applies with force = fx, fy (a wall of "
                          "prescribed motion has no mass)");
  return 1;
}

/* What scene coordinates x, y are in the simulation frame: the subtraction placement uses. */
static void to_frame(const ms_scene *s, double p[2])
{
  p[0] -= s->box_min[0];
  p[1] -= s->box_min[1];
}

/* The circle inside the box. Written as touching a side, it may come out of the frame's
 * subtraction a few units in the last place over it: that still touches. */
static int check_circle(loader *ld, const section *sec, const ms_wall *w)
{
  const ms_scene *s = ld->scene;
  double wd = s->box_max[0] - s->box_min[0], ht = s->box_max[1] - s->box_min[1];
  double c[2] = {w->center[0], w->center[1]}, r = w->radius;
  to_frame(s, c);
  double cx = c[0], cy = c[1];
  double slack = 4.0 * DBL_EPSILON * (fmax(fmax(fabs(s->box_min[0]), fabs(s->box_max[0])),
                                           fmax(fabs(s->box_min[1]), fabs(s->box_max[1]))) + r);
  /* along a periodic axis it may lie across the seam (flows_periodic.c limits its size) */
  if ((s->periodic[0] || (cx - r >= -slack && cx + r <= wd + slack)) &&
      (s->periodic[1] || (cy - r >= -slack && cy + r <= ht + slack)))
    return 1;
  return ms_ld_fail_key(ld, sec, "circle", "the circle of centre (%.15g, %.15g) and radius "
                        "%.15g does not fit inside the box (%g, %g .. %g, %g)", w->center[0],
                        w->center[1], r, s->box_min[0], s->box_min[1], s->box_max[0],
                        s->box_max[1]);
}

/* Point i (from 0) as written, for messages. */
static const double *written(const double *xy, int i) { return &xy[2 * i]; }

/* Segment i runs from point i to point i + 1 (the closing one, of a closed polyline, from
 * the last point to the first). */
static int seg_end(const ms_wall *w, int i) { return (i + 1) % w->n_points; }

/* The shape's tests run twice: on the points as written (what the scene means: points on
 * one line there count up to the rounding of their decimals) and in the frame (what the
 * simulation gets, exactly: the subtraction may round points onto a line, or onto each
 * other). Messages give the points as written. */
typedef struct shape {
  const ms_wall *w;
  const double *p;  /* the points tested */
  const double *xy; /* as written */
  int as_written;   /* p is xy */
  const char *in;   /* "" or " in the simulation frame" */
} shape;

static int collinear(const shape *sh, int i, int j, int k)
{
  const double *p = sh->p;
  return sh->as_written ? ms_collinear_within_rounding(&p[2 * i], &p[2 * j], &p[2 * k])
                        : ms_orient2d(&p[2 * i], &p[2 * j], &p[2 * k]) == 0;
}

static int folds_back(const shape *sh, int i, int j, int k)
{
  const double *p = sh->p;
  return sh->as_written ? ms_folds_back_within_rounding(&p[2 * i], &p[2 * j], &p[2 * k])
                        : ms_folds_back(&p[2 * i], &p[2 * j], &p[2 * k]);
}

static int fail_segments(loader *ld, const section *sec, const shape *sh, int i, int j,
                         const char *what)
{
  const double *a = written(sh->xy, i), *b = written(sh->xy, seg_end(sh->w, i));
  const double *c = written(sh->xy, j), *d = written(sh->xy, seg_end(sh->w, j));
  return ms_ld_fail_key(ld, sec, "segments", "segment %d (%.15g, %.15g .. %.15g, %.15g) and "
                        "segment %d (%.15g, %.15g .. %.15g, %.15g) %s%s: a wall may not "
                        "intersect itself", i + 1, a[0], a[1], b[0], b[1], j + 1, c[0], c[1],
                        d[0], d[1], what, sh->in);
}

/* No segment of zero length, a closed polyline enclosing an area. Points and segments
 * are numbered from 1 in messages. */
static int check_points(loader *ld, const section *sec, const shape *sh)
{
  const ms_wall *w = sh->w;
  const double *p = sh->p, *xy = sh->xy;
  int n = w->n_points;
  for (int i = 0; i < (w->closed ? n : n - 1); i++) {
    int j = seg_end(w, i);
    if (p[2 * i] == p[2 * j] && p[2 * i + 1] == p[2 * j + 1])
      return ms_ld_fail_key(ld, sec, "segments", "points %d (%.15g, %.15g) and %d (%.15g, "
                            "%.15g) coincide%s: segment %d has zero length%s", i + 1, xy[2 * i],
                            xy[2 * i + 1], j + 1, xy[2 * j], xy[2 * j + 1], sh->in, i + 1,
                            j == 0 ? " (closed = yes joins the last point to the first: "
                                     "leave the last point out)" : "");
  }
  if (!w->closed && n >= 3 && p[0] == p[2 * n - 2] && p[1] == p[2 * n - 1])
    return ms_ld_fail_key(ld, sec, "segments", "the last point (%.15g, %.15g) is the first%s: "
                          "leave it out and write closed = yes", xy[2 * n - 2], xy[2 * n - 1],
                          sh->in);
  if (!w->closed)
    return 1;
  for (int k = 2; k < n; k++)
    if (!collinear(sh, 0, 1, k))
      return 1;
  return ms_ld_fail_key(ld, sec, "segments", "all %d points lie on one line%s: a closed "
                        "polyline must enclose an area", n, sh->in);
}

/* No two segments meet but neighbours at their common point, and neighbours do not fold
 * back onto each other. */
static int check_crossings(loader *ld, const section *sec, const shape *sh)
{
  const ms_wall *w = sh->w;
  const double *p = sh->p;
  int segs = w->closed ? w->n_points : w->n_points - 1;
  for (int i = 0; i < segs; i++) {
    int next = i + 1 < segs ? i + 1 : w->closed ? 0 : -1;
    if (next >= 0 && folds_back(sh, i, seg_end(w, i), seg_end(w, next)))
      return fail_segments(ld, sec, sh, i, next, "fold back onto each other");
    for (int j = i + 2; j < segs; j++) {
      if (w->closed && i == 0 && j == segs - 1)
        continue; /* neighbours through the first point */
      if (ms_segments_meet(&p[2 * i], &p[2 * seg_end(w, i)], &p[2 * j], &p[2 * seg_end(w, j)]))
        return fail_segments(ld, sec, sh, i, j, "cross or touch");
    }
  }
  return 1;
}

/* Inside the box (exactly: the subtraction keeps the order of coordinates) but along a
 * periodic axis, where it may cross the seam; then the shape as written and in the frame. */
static int check_polyline(loader *ld, const section *sec, ms_wall *w)
{
  const ms_scene *s = ld->scene;
  size_t n = 2 * (size_t)w->n_points;
  double *xy = malloc(n * sizeof *xy);
  if (!xy)
    return ms_ld_fail_memory(ld);
  for (size_t i = 0; i < n; i++)
    xy[i] = w->points[i];
  for (int i = 0; i < w->n_points; i++)
    to_frame(s, &w->points[2 * i]);
  double wd = s->box_max[0] - s->box_min[0], ht = s->box_max[1] - s->box_min[1];
  const double *p = w->points;
  int ok = 1;
  for (int i = 0; ok && i < w->n_points; i++)
    if (!((s->periodic[0] || (p[2 * i] >= 0.0 && p[2 * i] <= wd)) &&
          (s->periodic[1] || (p[2 * i + 1] >= 0.0 && p[2 * i + 1] <= ht))))
      ok = ms_ld_fail_key(ld, sec, "segments", "point %d (%.15g, %.15g) lies outside the box "
                          "(%g, %g .. %g, %g)", i + 1, xy[2 * i], xy[2 * i + 1], s->box_min[0],
                          s->box_min[1], s->box_max[0], s->box_max[1]);
  if (ok && w->closed && w->n_points < 3)
    ok = ms_ld_fail_key(ld, sec, "closed", "a closed polyline needs at least 3 points "
                        "(segments has %d)", w->n_points);
  const shape as_written = {w, xy, xy, 1, ""};
  const shape in_frame = {w, p, xy, 0, " in the simulation frame"};
  ok = ok && check_points(ld, sec, &as_written) && check_crossings(ld, sec, &as_written) &&
       check_points(ld, sec, &in_frame) && check_crossings(ld, sec, &in_frame);
  free(xy);
  return ok;
}

int ms_ld_check_wall(loader *ld, const section *sec)
{
  const ms_scene *s = ld->scene;
  ms_wall *w = &ld->scene->walls[sec->item];
  if (!check_shape_keys(ld, sec) || !check_motion_keys(ld, sec))
    return 0;
  if (!ms_ld_line_of(sec, "friction"))
    w->friction = s->wall_friction;
  if (!ms_ld_line_of(sec, "restitution"))
    w->restitution = s->restitution;
  if (w->rotates)
    to_frame(s, w->rot_center);
  if (w->kind == MS_WALL_POLYLINE ? !check_polyline(ld, sec, w) : !check_circle(ld, sec, w))
    return 0;
  if (w->kind == MS_WALL_CIRCLE)
    to_frame(s, w->center);
  return 1;
}
