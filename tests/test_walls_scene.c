/* [wall.NAME] in the scene loader: walls land in the simulation frame with their shape,
 * motion and coefficients, and every malformed wall is refused at its line and key.
 * Usage: test_walls_scene [FILTER|""] [SCENES_DIR] (tests/scenes, for walls.ini). */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mixsim/scene.h"
#include "scene/wall_geometry.h"
#include "shared/contact.h"

static const char *g_scenes = "tests/scenes";

/* A box from (1, 2) to (2, 3); the wall's header is line 9, its first key line 10. */
#define BASE                                                                         \
  "[simulation]\ndt = 1e-4\n[box]\nmin = 1, 2\nmax = 2, 3\n"                         \
  "[material]\nstiffness = 1e5\nrestitution = 0.5\n[wall.w]\n"

static int is_zeroed(const ms_scene *s)
{
  static const ms_scene zero;
  return memcmp(s, &zero, sizeof zero) == 0;
}

static ms_status load_text(const char *text, ms_scene *s)
{
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "w.ini", s);
  if (st != MS_OK)
    fprintf(stderr, "    %s\n", ms_error_message());
  return st;
}

static ms_status load_wall(const char *keys, ms_scene *s)
{
  char text[2048];
  snprintf(text, sizeof text, BASE "%s", keys);
  return load_text(text, s);
}

static ms_status load_file(const char *name, ms_scene *s)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", g_scenes, name);
  ms_error_clear();
  ms_status st = ms_scene_load(path, s);
  if (st != MS_OK)
    fprintf(stderr, "    %s\n", ms_error_message());
  return st;
}

/* BASE + `keys` is refused at `line`, naming [wall.w] and `key` (NULL: none), with `words`. */
static int refuses(const char *keys, int line, const char *key, const char *words)
{
  char text[2048], where[128];
  snprintf(text, sizeof text, BASE "%s", keys);
  snprintf(where, sizeof where, "w.ini:%d: [wall.w] %s%s", line, key ? key : "", key ? ": " : "");
  ms_scene s;
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "w.ini", &s);
  const char *msg = ms_error_message();
  if (st == MS_ERR_INPUT && strstr(msg, where) && strstr(msg, words) && is_zeroed(&s))
    return 1;
  fprintf(stderr, "    expected \"%s... %s\", got status %d: %s\n", where, words, st,
          st == MS_OK ? "(loaded)" : msg);
  if (st == MS_OK)
    ms_scene_free(&s);
  return 0;
}

static const ms_wall *find(const ms_scene *s, const char *section)
{
  for (int i = 0; i < s->wall_count; i++)
    if (strcmp(s->walls[i].section, section) == 0)
      return &s->walls[i];
  return NULL;
}

/* --- what loads ------------------------------------------------------------------------- */

static void test_walls_in_file_order(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  ENSURE(s.wall_count == 4);
  static const char *const names[] = {"wall.funnel", "wall.block", "wall.drum", "wall.piston"};
  static const int lines[] = {13, 16, 20, 25};
  for (int i = 0; i < 4; i++)
    ENSURE(strcmp(s.walls[i].section, names[i]) == 0 && s.walls[i].line == lines[i]);
  ENSURE(s.warning_count == 0);
  ms_scene_free(&s);
  ENSURE(is_zeroed(&s));
}

/* The box starts at (-0.5, 0.25): the points are those written minus box_min. */
static void test_polyline_in_simulation_frame(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  const ms_wall *w = find(&s, "wall.funnel");
  ENSURE(w && w->kind == MS_WALL_POLYLINE && w->n_points == 4 && !w->closed);
  static const double written[8] = {-0.5, 1.0, -0.1, 0.7, 0.1, 0.7, 0.5, 1.0};
  for (int i = 0; i < 4; i++) {
    ENSURE(w->points[2 * i] == written[2 * i] - -0.5);
    ENSURE(w->points[2 * i + 1] == written[2 * i + 1] - 0.25);
  }
  ENSURE(w->points[0] == 0.0 && w->points[1] == 0.75 && w->points[6] == 1.0);
  ENSURE(w->osc_amp[0] == 0.0 && w->osc_amp[1] == 0.01 && w->osc_freq == 5.0);
  ENSURE(w->velocity[0] == 0.0 && w->velocity[1] == 0.0 && !w->rotates && !w->force_driven);
  ms_scene_free(&s);
}

static void test_closed_polygon(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  const ms_wall *w = find(&s, "wall.block");
  ENSURE(w && w->kind == MS_WALL_POLYLINE && w->n_points == 3 && w->closed);
  ENSURE(w->points[0] == -0.2 + 0.5 && w->points[1] == 0.4 - 0.25);
  ENSURE(w->points[4] == 0.5 && w->points[5] == 0.6 - 0.25);
  ENSURE(w->velocity[0] == 0.1 && w->velocity[1] == 0.0 && w->osc_freq == 0.0);
  ms_scene_free(&s);
}

static void test_circle_with_rotate(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  const ms_wall *w = find(&s, "wall.drum");
  ENSURE(w && w->kind == MS_WALL_CIRCLE && w->points == NULL && w->n_points == 0);
  ENSURE(w->center[0] == 0.5 && w->center[1] == 0.5 && w->radius == 0.5);
  ENSURE(w->rotates && w->rot_center[0] == 0.5 && w->rot_center[1] == 0.5 && w->omega == 2.0);
  ENSURE(w->friction == 0.4f && w->restitution == 0.8f);
  ms_scene_free(&s);
}

static void test_force_driven_wall(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  const ms_wall *w = find(&s, "wall.piston");
  ENSURE(w && w->force_driven && w->force[0] == 0.0 && w->force[1] == -50.0 && w->mass == 2.0);
  ENSURE(w->velocity[0] == 0.0 && !w->rotates && w->osc_freq == 0.0);
  ms_scene_free(&s);
}

/* A wall without friction or restitution of its own takes [material] wall_friction and
 * restitution; its own win. */
static void test_coefficients_from_material(void)
{
  ms_scene s;
  ENSURE(load_file("walls.ini", &s) == MS_OK);
  const ms_wall *funnel = find(&s, "wall.funnel"), *drum = find(&s, "wall.drum");
  ENSURE(funnel && funnel->friction == 0.2f && funnel->restitution == 0.5f);
  ENSURE(drum && drum->friction == 0.4f && drum->restitution == 0.8f);
  ms_scene_free(&s);
  ENSURE(load_wall("segments = 1.1, 2.1, 1.9, 2.1\n", &s) == MS_OK);
  ENSURE(s.walls[0].friction == 0.0f && s.walls[0].restitution == 0.5f);
  ms_scene_free(&s);
}

/* A wall's own friction > 0 turns friction on, as [material] wall_friction does. */
static void test_wall_friction_turns_friction_on(void)
{
  ms_scene s;
  ENSURE(load_wall("segments = 1.1, 2.1, 1.9, 2.1\nfriction = 0\n", &s) == MS_OK);
  ENSURE(!ms_scene_friction_on(&s));
  ms_scene_free(&s);
  ENSURE(load_wall("segments = 1.1, 2.1, 1.9, 2.1\nfriction = 0.3\n", &s) == MS_OK);
  ENSURE(ms_scene_friction_on(&s) && s.wall_friction == 0.0f);
  ms_scene_free(&s);
}

/* Points on the box's sides, a closed square with a point midway along a side (collinear
 * neighbours going on), an open Z, and a circle touching every side of a box whose
 * frame coordinates are rounded (0.4 - 0.1 is 0.30000000000000004) all load. */
static void test_touching_accepted(void)
{
  ms_scene s;
  ENSURE(load_wall("segments = 1, 2, 2, 3, 1, 3\n", &s) == MS_OK);
  ms_scene_free(&s);
  ENSURE(load_wall("segments = 1.25, 2.25, 1.5, 2.25, 1.75, 2.25, 1.75, 2.75, 1.25, 2.75\n"
                   "closed = yes\n", &s) == MS_OK);
  ms_scene_free(&s);
  ENSURE(load_wall("segments = 1.1, 2.1, 1.5, 2.1, 1.1, 2.5, 1.5, 2.5\n", &s) == MS_OK);
  ms_scene_free(&s);
  ENSURE(load_text("[simulation]\ndt = 1e-4\n[box]\nmin = 0.1, 0.2\nmax = 0.7, 0.8\n"
                   "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
                   "[wall.drum]\ncircle = 0.4, 0.5, 0.3\n", &s) == MS_OK);
  ENSURE(s.walls[0].center[0] == 0.4 - 0.1 && s.walls[0].radius == 0.3);
  ms_scene_free(&s);
}

/* The orientation's sign is exact where the plain formula's rounding gets it wrong:
 * points a rounding error off the line y = x, and exactly on it. */
static void test_orientation_is_exact(void)
{
  const double a[2] = {0.5, 0.5}, b[2] = {12.0, 12.0}, c[2] = {24.0, 24.0};
  ENSURE(ms_orient2d(a, b, c) == 0);
  int wrong = 0;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      double p[2] = {0.5 + i * DBL_EPSILON / 2, 0.5 + j * DBL_EPSILON / 2};
      double naive = (b[0] - p[0]) * (c[1] - p[1]) - (b[1] - p[1]) * (c[0] - p[0]);
      int want = i == j ? 0 : i > j ? -1 : 1; /* p below the line: clockwise */
      ENSURE(ms_orient2d(p, b, c) == want);
      ENSURE(ms_orient2d(b, c, p) == want && ms_orient2d(c, p, b) == want);
      ENSURE(ms_orient2d(p, c, b) == -want);
      wrong += (naive > 0) - (naive < 0) != want;
    }
  printf("    the plain formula gets %d of 4096 signs wrong; the exact test none\n", wrong);
  ENSURE(wrong > 0);
  /* far from the origin and tiny: only the signs of the exact products matter */
  const double f0[2] = {1e200, 1e200}, f1[2] = {3e200, 3e200}, f2[2] = {2e200, 2e200};
  ENSURE(ms_orient2d(f0, f1, f2) == 0);
  const double t0[2] = {1e-200, 0.0}, t1[2] = {3e-200, 0.0}, t2[2] = {2e-200, 1e-300};
  ENSURE(ms_orient2d(t0, t1, t2) == 1);
}

static void test_segments_meet(void)
{
  const double a[2] = {0, 0}, b[2] = {1, 0}, c[2] = {0.5, 0}, d[2] = {0.5, 1};
  const double e[2] = {1, 1}, f[2] = {2, 0}, g[2] = {1.5, 0}, h[2] = {0.5, -1};
  ENSURE(ms_segments_meet(a, b, c, d));  /* an end on the other: touching */
  ENSURE(ms_segments_meet(a, e, b, c) == 0 && ms_segments_meet(a, e, b, d)); /* no; crossing */
  ENSURE(ms_segments_meet(a, b, b, f));  /* end to end */
  ENSURE(ms_segments_meet(a, b, c, f));  /* overlapping on one line */
  ENSURE(!ms_segments_meet(a, c, g, f)); /* apart on one line */
  ENSURE(ms_segments_meet(d, h, a, b));  /* crossing */
  ENSURE(ms_folds_back(a, b, c) && !ms_folds_back(a, c, b) && !ms_folds_back(a, b, e));
}

/* 0.1, 0.3 and 0.2, 0.6 and 0.3, 0.9 lie on y = 3x as written, not as doubles (0.3 is not
 * 3 x 0.1 there); a point 1e-9 off the line is off it. */
static void test_collinear_within_rounding(void)
{
  const double a[2] = {0.1, 0.3}, b[2] = {0.2, 0.6}, c[2] = {0.3, 0.9}, d[2] = {0.3, 0.9 + 1e-9};
  ENSURE(ms_orient2d(a, b, c) != 0 && ms_collinear_within_rounding(a, b, c));
  ENSURE(!ms_collinear_within_rounding(a, b, d));
  ENSURE(ms_folds_back_within_rounding(a, c, b) && !ms_folds_back_within_rounding(a, b, c));
  ENSURE(!ms_folds_back_within_rounding(a, c, d));
}

/* The dt check counts a wall's contacts at its own restitution (e = 1 makes them shorter
 * than [material]'s 0.05 does), and a force-driven wall's with its mass. */
static void test_dt_check_counts_wall_contacts(void)
{
  ms_scene s;
  ENSURE(load_text("[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 1, 1\n[material]\n"
                   "stiffness = 1e5\nrestitution = 0.05\n[large.rock]\nposition = 0.5, 0.5\n"
                   "radius = 0.02\n[wall.floor]\nsegments = 0, 0.1, 1, 0.1\nrestitution = 1\n",
                   &s) == MS_OK);
  double m = s.large[0].mass;
  ENSURE_SMALL(ms_scene_min_contact_time(&s) / ms_contact_time(1e5, 1.0, m) - 1, 1e-12);
  ENSURE(ms_contact_time(1e5, 0.05, m) > 1.3 * ms_contact_time(1e5, 1.0, m));
  ms_scene_free(&s);
  ENSURE(load_text("[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 0.4, 0.4\n[material]\n"
                   "stiffness = 1e5\nrestitution = 0.5\n[small]\ncount = 4\nradius = 0.005\n"
                   "[wall.piston]\nsegments = 0, 0.3, 0.4, 0.3\nforce = 0, -1\nmass = 1e-4\n",
                   &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "w.ini:2: [simulation] dt: dt = 0.0001 s is too large: the "
                                    "stiffest contact (small-wall, [wall.piston]) lasts"));
}

/* --- what is refused, at its line and key ---------------------------------------------- */

static void test_refuses_unknown_key(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\ncolour = red\n", 11, "colour",
                 "unknown key (expected one of: segments, closed, circle, velocity, rotate, "
                 "oscillate, force, mass, friction, restitution)"));
}

static void test_refuses_odd_count(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9\n", 10, "segments", "got 3 numbers (an odd count)"));
}

static void test_refuses_one_point(void)
{
  ENSURE(refuses("segments = 1.1, 2.1\n", 10, "segments", "needs at least 2 points"));
}

static void test_refuses_non_finite(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, nan, 2.5\n", 10, "segments", "NaN/Inf not allowed"));
  ENSURE(refuses("circle = 1.5, inf, 0.2\n", 10, "circle", "NaN/Inf not allowed"));
  ENSURE(refuses("circle = 1.5, 2.5, 0.2\nrotate = 1.5, 2.5, -inf\n", 11, "rotate",
                 "NaN/Inf not allowed"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nvelocity = 1e999, 0\n", 11, "velocity",
                 "number out of range"));
}

static void test_refuses_zero_length_segment(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.5, 2.5, 1.5, 2.5, 1.9, 2.1\n", 10, "segments",
                 "points 2 (1.5, 2.5) and 3 (1.5, 2.5) coincide: segment 2 has zero length"));
}

/* Distinct as written, one point in the frame: 1e7 + 0.5 and 1e7 + 0.5000000001 are one
 * double. */
static void test_refuses_points_merged_in_frame(void)
{
  ms_scene s;
  ENSURE(load_text("[simulation]\ndt = 1e-4\n[box]\nmin = -1e7, 0\nmax = 1, 1\n"
                   "[material]\nstiffness = 1e5\nrestitution = 0.5\n[wall.w]\n"
                   "segments = 0.5, 0.5, 0.5000000001, 0.5\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "w.ini:10: [wall.w] segments: points 1") &&
         strstr(ms_error_message(), "coincide in the simulation frame"));
}

static void test_refuses_zero_length_closing_segment(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.5, 2.5, 1.9, 2.1, 1.1, 2.1\nclosed = yes\n", 10,
                 "segments", "points 4 (1.1, 2.1) and 1 (1.1, 2.1) coincide: segment 4 has zero "
                 "length (closed = yes joins the last point to the first"));
}

static void test_refuses_open_loop(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.5, 2.5, 1.9, 2.1, 1.1, 2.1\n", 10, "segments",
                 "the last point (1.1, 2.1) is the first: leave it out and write closed = yes"));
}

static void test_refuses_crossing(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.9, 1.9, 2.1, 1.1, 2.9\n", 10, "segments",
                 "segment 1 (1.1, 2.1 .. 1.9, 2.9) and segment 3 (1.9, 2.1 .. 1.1, 2.9) cross or "
                 "touch: a wall may not intersect itself"));
}

static void test_refuses_touching(void)
{
  ENSURE(refuses("segments = 1.1, 2.5, 1.9, 2.5, 1.9, 2.8, 1.5, 2.8, 1.5, 2.5\n", 10,
                 "segments", "segment 1 (1.1, 2.5 .. 1.9, 2.5) and segment 4 (1.5, 2.8 .. 1.5, "
                 "2.5) cross or touch"));
}

/* Also on a slanted line whose decimals binary cannot hold: on one line as written. */
static void test_refuses_fold_back(void)
{
  ENSURE(refuses("segments = 1.1, 2.5, 1.8, 2.5, 1.4, 2.5\n", 10, "segments",
                 "segment 1 (1.1, 2.5 .. 1.8, 2.5) and segment 2 (1.8, 2.5 .. 1.4, 2.5) fold "
                 "back onto each other"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.7, 2.3, 1.4, 2.2\n", 10, "segments",
                 "segment 1 (1.1, 2.1 .. 1.7, 2.3) and segment 2 (1.7, 2.3 .. 1.4, 2.2) fold "
                 "back onto each other"));
}

/* The Z of test_touching_accepted, closed: the closing segment crosses the diagonal. */
static void test_refuses_closing_segment_crossing(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.5, 2.1, 1.1, 2.5, 1.5, 2.5\nclosed = yes\n", 10,
                 "segments", "segment 2 (1.5, 2.1 .. 1.1, 2.5) and segment 4 (1.5, 2.5 .. 1.1, "
                 "2.1) cross or touch"));
}

static void test_refuses_closed_two_points(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.9\nclosed = yes\n", 11, "closed",
                 "a closed polyline needs at least 3 points (segments has 2)"));
}

static void test_refuses_closed_collinear(void)
{
  ENSURE(refuses("segments = 1.25, 2.25, 1.5, 2.5, 1.75, 2.75\nclosed = yes\n", 10, "segments",
                 "all 3 points lie on one line: a closed polyline must enclose an area"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.3, 2.3, 1.2, 2.2, 1.4, 2.4\nclosed = yes\n", 10,
                 "segments", "all 4 points lie on one line"));
}

static void test_refuses_segments_and_circle(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\ncircle = 1.5, 2.5, 0.2\n", 11, "circle",
                 "give either segments (a polyline) or circle, not both (segments at line 10)"));
}

static void test_refuses_no_shape(void)
{
  ENSURE(refuses("velocity = 1, 0\n", 9, "segments",
                 "required key is missing (or give circle = cx, cy, R)"));
}

static void test_refuses_closed_with_circle(void)
{
  ENSURE(refuses("circle = 1.5, 2.5, 0.2\nclosed = no\n", 11, "closed",
                 "only applies to segments"));
}

static void test_refuses_circle_radius(void)
{
  ENSURE(refuses("circle = 1.5, 2.5, 0\n", 10, "circle", "the radius R must be > 0 (got 0)"));
  ENSURE(refuses("circle = 1.5, 2.5, -0.1\n", 10, "circle", "must be > 0 (got -0.1)"));
}

static void test_refuses_circle_outside_box(void)
{
  ENSURE(refuses("circle = 1.5, 2.5, 0.6\n", 10, "circle", "the circle of centre (1.5, 2.5) "
                 "and radius 0.6 does not fit inside the box (1, 2 .. 2, 3)"));
  ENSURE(refuses("circle = 1.3, 2.5, 0.31\n", 10, "circle", "does not fit inside the box"));
}

static void test_refuses_point_outside_box(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 2.1, 2.5\n", 10, "segments",
                 "point 2 (2.1, 2.5) lies outside the box (1, 2 .. 2, 3)"));
  ENSURE(refuses("segments = 1.1, 1.99, 1.5, 2.5\n", 10, "segments", "point 1 (1.1, 1.99)"));
}

static void test_refuses_force_with_prescribed_motion(void)
{
  static const char *const motions[] = {"velocity = 1, 0\n", "rotate = 1.5, 2.5, 1\n",
                                        "oscillate = 0, 0.1, 2\n"};
  static const char *const names[] = {"velocity (line 11)", "rotate (line 11)",
                                      "oscillate (line 11)"};
  for (int i = 0; i < 3; i++) {
    char keys[256];
    snprintf(keys, sizeof keys, "segments = 1.1, 2.1, 1.9, 2.1\n%sforce = 0, -1\nmass = 1\n",
             motions[i]);
    ENSURE(refuses(keys, 12, "force", names[i]));
  }
}

static void test_refuses_force_without_mass(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nforce = 0, -10\n", 11, "force",
                 "needs mass = M (kg)"));
}

static void test_refuses_mass_without_force(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nmass = 2\n", 11, "mass",
                 "only applies with force = fx, fy"));
}

static void test_refuses_mass_not_positive(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nforce = 0, -1\nmass = 0\n", 12, "mass",
                 "must be > 0 (got 0)"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nforce = 0, -1\nmass = -2\n", 12, "mass",
                 "must be > 0 (got -2)"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nforce = 0, -1\nmass = 1e-50\n", 12, "mass",
                 "too small for single precision"));
}

static void test_refuses_zero_force(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nforce = 0, 0\nmass = 1\n", 11, "force",
                 "the force is 0, 0"));
}

static void test_refuses_oscillate_frequency(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\noscillate = 0, 0.1, 0\n", 11, "oscillate",
                 "the frequency f must be > 0 Hz (got 0)"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\noscillate = 0, 0.1, -3\n", 11, "oscillate",
                 "(got -3)"));
}

static void test_refuses_oscillate_zero_amplitude(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\noscillate = 0, 0, 5\n", 11, "oscillate",
                 "the amplitude ax, ay is 0, 0"));
}

static void test_refuses_restitution_out_of_range(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nrestitution = 0\n", 11, "restitution",
                 "must be in (0, 1] (got 0)"));
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nrestitution = 1.5\n", 11, "restitution",
                 "must be in (0, 1] (got 1.5)"));
}

static void test_refuses_negative_friction(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\nfriction = -0.1\n", 11, "friction",
                 "must be >= 0 (got -0.1)"));
}

static void test_refuses_duplicate_name(void)
{
  ENSURE(refuses("segments = 1.1, 2.1, 1.9, 2.1\n[wall.w]\ncircle = 1.5, 2.5, 0.2\n", 11, NULL,
                 "section given twice (first at line 9)"));
}

static void test_refuses_bad_name_and_gravity_mode(void)
{
  ms_scene s;
  ENSURE(load_text(BASE "segments = 1.1, 2.1, 1.9, 2.1\n[wall.a b]\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "w.ini:11: [wall.a b] NAME must be non-empty"));
  ENSURE(load_text("[simulation]\nmode = gravity\ndt = 0.01\n[gravity]\nbodies = kepler\n"
                   "softening = 0.01\n[wall.w]\ncircle = 0, 0, 1\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "w.ini:7: [wall.w] only used in collision mode"));
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2)
    g_scenes = argv[2];
  ms_set_quiet(1); /* the walls' warning is checked on ms_scene.warnings */
  RUN_TEST(test_walls_in_file_order, filter);
  RUN_TEST(test_polyline_in_simulation_frame, filter);
  RUN_TEST(test_closed_polygon, filter);
  RUN_TEST(test_circle_with_rotate, filter);
  RUN_TEST(test_force_driven_wall, filter);
  RUN_TEST(test_coefficients_from_material, filter);
  RUN_TEST(test_wall_friction_turns_friction_on, filter);
  RUN_TEST(test_touching_accepted, filter);
  RUN_TEST(test_orientation_is_exact, filter);
  RUN_TEST(test_segments_meet, filter);
  RUN_TEST(test_collinear_within_rounding, filter);
  RUN_TEST(test_dt_check_counts_wall_contacts, filter);
  RUN_TEST(test_refuses_unknown_key, filter);
  RUN_TEST(test_refuses_odd_count, filter);
  RUN_TEST(test_refuses_one_point, filter);
  RUN_TEST(test_refuses_non_finite, filter);
  RUN_TEST(test_refuses_zero_length_segment, filter);
  RUN_TEST(test_refuses_points_merged_in_frame, filter);
  RUN_TEST(test_refuses_zero_length_closing_segment, filter);
  RUN_TEST(test_refuses_open_loop, filter);
  RUN_TEST(test_refuses_crossing, filter);
  RUN_TEST(test_refuses_touching, filter);
  RUN_TEST(test_refuses_fold_back, filter);
  RUN_TEST(test_refuses_closing_segment_crossing, filter);
  RUN_TEST(test_refuses_closed_two_points, filter);
  RUN_TEST(test_refuses_closed_collinear, filter);
  RUN_TEST(test_refuses_segments_and_circle, filter);
  RUN_TEST(test_refuses_no_shape, filter);
  RUN_TEST(test_refuses_closed_with_circle, filter);
  RUN_TEST(test_refuses_circle_radius, filter);
  RUN_TEST(test_refuses_circle_outside_box, filter);
  RUN_TEST(test_refuses_point_outside_box, filter);
  RUN_TEST(test_refuses_force_with_prescribed_motion, filter);
  RUN_TEST(test_refuses_force_without_mass, filter);
  RUN_TEST(test_refuses_mass_without_force, filter);
  RUN_TEST(test_refuses_mass_not_positive, filter);
  RUN_TEST(test_refuses_zero_force, filter);
  RUN_TEST(test_refuses_oscillate_frequency, filter);
  RUN_TEST(test_refuses_oscillate_zero_amplitude, filter);
  RUN_TEST(test_refuses_restitution_out_of_range, filter);
  RUN_TEST(test_refuses_negative_friction, filter);
  RUN_TEST(test_refuses_duplicate_name, filter);
  RUN_TEST(test_refuses_bad_name_and_gravity_mode, filter);
  return TEST_EXIT();
}
