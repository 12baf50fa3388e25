/* Checkpoints of collision mode (gravity mode's: checkpoint_gravity.c): their state as images (plain arrays), the field table that
 * lays each out in the file (host byte order, marked by a byte-order word; the header
 * and the reading are in checkpoint_file.c), and the checks of what was read.
 *
 * One table per mode describes the payload, so saving and loading cannot drift apart.
 * A table is in sections: each starts with the count fields its array sizes depend on,
 * which are checked before its arrays are allocated. The collision table's second
 * section is the friction state (rotation and contact histories), empty when the scene
 * has no friction; its third the walls' state ([wall.NAME]: each wall's kind of motion, a
 * force-driven one's displacement and rate, with friction its contacts' histories); its
 * fourth, since version 6, the particles' persistent ids, the next id and the periods each
 * particle crossed (a periodic box's images). */
#include "mixsim/checkpoint.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mixsim/gravity.h"
#include "collision/sim_internal.h"
#include "collision/slots.h"
#include "io/checkpoint_file.h"

/* ---- the images: a run's state flattened into plain arrays ------------------------ */

/* Collision mode. */
typedef struct cimage {
  int32_t n_small, n_large;
  int64_t step, grid_builds, overflow_builds, capacity_growths, outside_events;
  int32_t capacity, max_overflow;
  double *small_pos, *small_vel; /* 2 n_small each, simulation frame */
  double *large_state;           /* 4 n_large: x y vx vy */
  /* The friction state (collision/sim_internal.h, ms_friction_state); without friction
   * the flag and the counts are 0 and the arrays empty. */
  int32_t friction;
  int64_t n_ss, n_ls, n_ll;
  double *small_rot, *large_rot;        /* theta, omega of each particle */
  float *small_wall_xi, *large_wall_xi; /* 4 per particle: left, right, bottom, top */
  ms_history_entry *ss, *ls, *ll;       /* small-small, large-small, large-large */
  /* The walls' state (collision/worker/walls_state.h, ms_walls_state). */
  int32_t n_walls;
  int64_t n_sw, n_lw;            /* small-wall and large-wall histories */
  int32_t *wall_driven;          /* per wall: 1 force-driven */
  double *wall_motion;           /* per wall: s, s_dot */
  ms_wall_history *sw, *lw;
  /* Since version 6: the persistent ids (collision/ids.h); NULL when read from version 5. */
  int64_t next_id;
  int64_t *small_id, *large_id; /* n_small, n_large */
  int32_t *small_img, *large_img; /* 2 per particle: the periods crossed (zeros unless the
                                     box is periodic) */
  /* Open systems (collision/open.h): the slots' shapes (an inflow's particles are not the
   * scene's) and each flow's totals. */
  int32_t n_flows, open_started;
  float *small_shape;            /* 2 per slot: radius, mass (0, 0: empty) */
  int64_t *flow_count, *flow_skipped;
  double *flow_mass;
  /* Since version 7: each large slot's radius, mass (0, 0: empty, a kind = large inflow's
   * slot) and whether static; NULL when read from an older version (the scene's). */
  float *large_shape;
  int32_t *large_static;
} cimage;

SCALAR(cimage, n_small) SCALAR(cimage, n_large) SCALAR(cimage, step)
SCALAR(cimage, capacity) SCALAR(cimage, max_overflow) SCALAR(cimage, grid_builds)
SCALAR(cimage, overflow_builds) SCALAR(cimage, capacity_growths) SCALAR(cimage, outside_events)
ARRAY(cimage, small_pos, (size_t)im->n_small * 2) ARRAY(cimage, small_vel, (size_t)im->n_small * 2)
ARRAY(cimage, large_state, (size_t)im->n_large * 4)
SCALAR(cimage, friction) SCALAR(cimage, n_ss) SCALAR(cimage, n_ls) SCALAR(cimage, n_ll)
ARRAY(cimage, small_rot, im->friction ? (size_t)im->n_small * 2 : 0)
ARRAY(cimage, large_rot, im->friction ? (size_t)im->n_large * 2 : 0)
ARRAY(cimage, small_wall_xi, im->friction ? (size_t)im->n_small * 4 : 0)
ARRAY(cimage, large_wall_xi, im->friction ? (size_t)im->n_large * 4 : 0)
ARRAY(cimage, ss, im->n_ss) ARRAY(cimage, ls, im->n_ls) ARRAY(cimage, ll, im->n_ll)
SCALAR(cimage, n_walls) SCALAR(cimage, n_sw) SCALAR(cimage, n_lw)
ARRAY(cimage, wall_driven, im->n_walls) ARRAY(cimage, wall_motion, (size_t)im->n_walls * 2)
ARRAY(cimage, sw, im->n_sw) ARRAY(cimage, lw, im->n_lw)
SCALAR(cimage, next_id) SCALAR(cimage, n_flows) SCALAR(cimage, open_started)
ARRAY(cimage, small_id, im->n_small) ARRAY(cimage, large_id, im->n_large)
ARRAY(cimage, small_img, (size_t)im->n_small * 2) ARRAY(cimage, large_img, (size_t)im->n_large * 2)
ARRAY(cimage, small_shape, (size_t)im->n_small * 2) ARRAY(cimage, flow_count, im->n_flows)
ARRAY(cimage, flow_mass, im->n_flows) ARRAY(cimage, flow_skipped, im->n_flows)
ARRAY(cimage, large_shape, (size_t)im->n_large * 2) ARRAY(cimage, large_static, im->n_large)

static const field collision_fields[] = {
  F(cimage, n_small, "n_small"), F(cimage, n_large, "n_large"), F(cimage, step, "step"),
  F(cimage, capacity, "grid capacity"), F(cimage, max_overflow, "largest overflow"),
  F(cimage, grid_builds, "grid builds"), F(cimage, overflow_builds, "overflowed builds"),
  F(cimage, capacity_growths, "capacity growths"),
  F(cimage, outside_events, "outside-box events"), F(cimage, small_pos, "small positions"),
  F(cimage, small_vel, "small velocities"), F(cimage, large_state, "large state"),
  F(cimage, friction, "friction"), F(cimage, n_ss, "small-small contacts"),
  F(cimage, n_ls, "large-small contacts"), F(cimage, n_ll, "large-large contacts"),
  F(cimage, small_rot, "small rotation"), F(cimage, large_rot, "large rotation"),
  F(cimage, small_wall_xi, "small wall histories"),
  F(cimage, large_wall_xi, "large wall histories"),
  F(cimage, ss, "small-small histories"), F(cimage, ls, "large-small histories"),
  F(cimage, ll, "large-large histories"),
  F(cimage, n_walls, MS_WALLS_F_COUNT), F(cimage, n_sw, MS_WALLS_F_N_SMALL),
  F(cimage, n_lw, MS_WALLS_F_N_LARGE), F(cimage, wall_driven, MS_WALLS_F_DRIVEN),
  F(cimage, wall_motion, MS_WALLS_F_MOTION), F(cimage, sw, MS_WALLS_F_SMALL),
  F(cimage, lw, MS_WALLS_F_LARGE),
  F(cimage, next_id, "next id"), F(cimage, n_flows, "flows"),
  F(cimage, open_started, "flows started"), F(cimage, small_id, "small ids"),
  F(cimage, large_id, "large ids"), F(cimage, small_img, "small images"),
  F(cimage, large_img, "large images"), F(cimage, small_shape, "small shapes"),
  F(cimage, flow_count, "flow counts"), F(cimage, flow_mass, "flow masses"),
  F(cimage, flow_skipped, "flow skipped"),
  F(cimage, large_shape, "large shapes"), F(cimage, large_static, "large static"),
};

/* Where the collision table's friction and walls sections start, and their counts end. */
#define C_FRICTION_FIRST 12
#define C_FRICTION_COUNTS 16
#define C_WALLS_FIRST 23
#define C_WALLS_COUNTS 26
#define C_IDS_FIRST 30
#define C_IDS_COUNTS 33
#define C_IDS_SINCE 6
#define C_LARGE_FIRST 41
#define C_LARGE_SINCE 7

static int c_alloc(void *v)
{
  cimage *im = v;
  im->small_pos = malloc(sz_cimage_small_pos(im) + 1);
  im->small_vel = malloc(sz_cimage_small_vel(im) + 1);
  im->large_state = malloc(sz_cimage_large_state(im) + 1);
  return im->small_pos && im->small_vel && im->large_state;
}

static int c_alloc_friction(void *v)
{
  cimage *im = v;
  im->small_rot = malloc(sz_cimage_small_rot(im) + 1);
  im->large_rot = malloc(sz_cimage_large_rot(im) + 1);
  im->small_wall_xi = malloc(sz_cimage_small_wall_xi(im) + 1);
  im->large_wall_xi = malloc(sz_cimage_large_wall_xi(im) + 1);
  im->ss = malloc(sz_cimage_ss(im) + 1);
  im->ls = malloc(sz_cimage_ls(im) + 1);
  im->ll = malloc(sz_cimage_ll(im) + 1);
  return im->small_rot && im->large_rot && im->small_wall_xi && im->large_wall_xi && im->ss &&
         im->ls && im->ll;
}

static int c_alloc_walls(void *v)
{
  cimage *im = v;
  im->wall_driven = malloc(sz_cimage_wall_driven(im) + 1);
  im->wall_motion = malloc(sz_cimage_wall_motion(im) + 1);
  im->sw = malloc(sz_cimage_sw(im) + 1);
  im->lw = malloc(sz_cimage_lw(im) + 1);
  return im->wall_driven && im->wall_motion && im->sw && im->lw;
}

static int c_alloc_ids(void *v)
{
  cimage *im = v;
  im->small_id = malloc(sz_cimage_small_id(im) + 1);
  im->large_id = malloc(sz_cimage_large_id(im) + 1);
  im->small_img = calloc(sz_cimage_small_img(im) + 1, 1);
  im->large_img = calloc(sz_cimage_large_img(im) + 1, 1);
  im->small_shape = malloc(sz_cimage_small_shape(im) + 1);
  im->flow_count = malloc(sz_cimage_flow_count(im) + 1);
  im->flow_mass = malloc(sz_cimage_flow_mass(im) + 1);
  im->flow_skipped = malloc(sz_cimage_flow_skipped(im) + 1);
  return im->small_id && im->large_id && im->small_img && im->large_img && im->small_shape &&
         im->flow_count && im->flow_mass && im->flow_skipped;
}

static int c_alloc_large(void *v)
{
  cimage *im = v;
  im->large_shape = malloc(sz_cimage_large_shape(im) + 1);
  im->large_static = malloc(sz_cimage_large_static(im) + 1);
  return im->large_shape && im->large_static;
}

static void c_release(void *v)
{
  cimage *im = v;
  free(im->large_shape);
  free(im->large_static);
  im->large_shape = NULL;
  im->large_static = NULL;
  free(im->small_id);
  free(im->large_id);
  im->small_id = im->large_id = NULL;
  free(im->small_img);
  free(im->large_img);
  im->small_img = im->large_img = NULL;
  free(im->small_shape);
  free(im->flow_count);
  free(im->flow_mass);
  free(im->flow_skipped);
  im->small_shape = NULL;
  im->flow_count = im->flow_skipped = NULL;
  im->flow_mass = NULL;
  free(im->small_pos);
  free(im->small_vel);
  free(im->large_state);
  im->small_pos = im->small_vel = im->large_state = NULL;
  free(im->small_rot);
  free(im->large_rot);
  free(im->small_wall_xi);
  free(im->large_wall_xi);
  free(im->ss);
  free(im->ls);
  free(im->ll);
  im->small_rot = im->large_rot = NULL;
  im->small_wall_xi = im->large_wall_xi = NULL;
  im->ss = im->ls = im->ll = NULL;
  ms_walls_state w = {.driven = im->wall_driven, .motion = im->wall_motion, .small = im->sw,
                      .large = im->lw};
  ms_walls_state_free(&w);
  im->wall_driven = NULL;
  im->wall_motion = NULL;
  im->sw = im->lw = NULL;
}


/* Version 2 made the collision state double precision (version 1 held floats); version
 * 3 added the friction section, 5 the walls section, 6 the ids section (a version 5 file
 * ends before it, and keeps the ids the scene gives), 7 the large slots' shapes (the
 * large inflows'; an older file keeps the scene's). The gravity payload
 * (checkpoint_gravity.c) has not changed since version 1. */
static const layout collision_layout = {
    0, 5, collision_fields, (int)(sizeof collision_fields / sizeof(field)), 5,
    {{0, 2, c_alloc, 0},
     {C_FRICTION_FIRST, C_FRICTION_COUNTS, c_alloc_friction, 0},
     {C_WALLS_FIRST, C_WALLS_COUNTS, c_alloc_walls, 0},
     {C_IDS_FIRST, C_IDS_COUNTS, c_alloc_ids, C_IDS_SINCE},
     {C_LARGE_FIRST, C_LARGE_FIRST, c_alloc_large, C_LARGE_SINCE}},
    c_release};

/* The grid's capacity starts at the scene's [grid] capacity (at most
 * MS_GRID_MAX_CAPACITY) and grows to the fullest cell's count rounded up to 4, which
 * is at most every small particle: beyond both, no run wrote it. It must also fit
 * the device this run has. */
static ms_status capacity_field(const char *path, const cimage *im, const ms_sim *s)
{
  int64_t grown = ((int64_t)s->p.n_small + 3) / 4 * 4;
  int64_t max = grown > MS_GRID_MAX_CAPACITY ? grown : MS_GRID_MAX_CAPACITY;
  if (im->capacity < 1 || im->capacity > max)
    return ms_ck_refuse_field(path, "grid capacity",
                        "= %ld is outside [1, %lld] (the [grid] capacity limit %d, or the %d "
                        "small particles rounded up to 4, which the grid can grow to)",
                        (long)im->capacity, (long long)max, MS_GRID_MAX_CAPACITY, s->p.n_small);
  ms_device_limits lim;
  ms_status st = ms_buffers_limits(&s->cl, &lim);
  if (st)
    return st;
  char why[512];
  if (!ms_buffers_fit(&lim, s->x.buf.mode, (uint64_t)s->p.n_small, s->p.grid.n_cells,
                      (uint64_t)im->capacity, why, sizeof why))
    return ms_ck_refuse_field(path, "grid capacity", "= %ld does not fit the device: %s",
                        (long)im->capacity, why);
  return MS_OK;
}

/* A count of history entries: 0 without friction, at most `max` (every pair). */
static ms_status history_count(const char *path, const char *field, int64_t v, int friction,
                               int64_t max, const char *max_name)
{
  if (!friction && v != 0)
    return ms_ck_refuse_field(path, field, "= %lld, but the checkpoint holds no friction state",
                        (long long)v);
  return ms_ck_counter(path, field, v, max, max_name);
}

/* The friction section's counts: the flag as the scene has it, the histories no more
 * than the pairs there are. */
static ms_status friction_counts(const char *path, const cimage *im, const ms_sim *s)
{
  int on = ms_sim_friction_on(s);
  if (im->friction != on)
    return ms_ck_refuse_field(path, "friction", "= %ld: the scene has %s", (long)im->friction,
                        on ? "friction, and the checkpoint no friction state"
                           : "no friction, and the checkpoint a friction state");
  int64_t ns = im->n_small, nl = im->n_large;
  ms_status st;
  if ((st = history_count(path, "small-small contacts", im->n_ss, on, ns * (ns - 1) / 2,
                          "the pairs of small particles")) ||
      (st = history_count(path, "large-small contacts", im->n_ls, on, nl * ns,
                          "the large-small pairs")) ||
      (st = history_count(path, "large-large contacts", im->n_ll, on, nl * (nl - 1) / 2,
                          "the pairs of large particles")))
    return st;
  return MS_OK;
}

/* The walls section's counts: the scene's walls, histories only with friction and no more
 * than one per particle and feature of a wall. */
static ms_status walls_counts(const char *path, const cimage *im, const ms_sim *s)
{
  if (im->n_walls != s->p.n_walls)
    return ms_ck_refuse_field(path, MS_WALLS_F_COUNT, "= %ld: the scene has %d ([wall.NAME] "
                              "sections)", (long)im->n_walls, s->p.n_walls);
  int on = ms_sim_friction_on(s);
  ms_status st;
  if ((st = history_count(path, MS_WALLS_F_N_SMALL, im->n_sw, on,
                          ms_walls_history_max(&s->p, s->p.n_small),
                          "the small particles times the walls' features")) ||
      (st = history_count(path, MS_WALLS_F_N_LARGE, im->n_lw, on,
                          ms_walls_history_max(&s->p, s->p.n_large),
                          "the large particles times the walls' features")))
    return st;
  return MS_OK;
}

static ms_status sim_counts(const char *path, const void *v, const void *ctx, int section)
{
  const cimage *im = v;
  const ms_sim *s = ctx;
  if (section == 1)
    return friction_counts(path, im, s);
  if (section == 2)
    return walls_counts(path, im, s);
  if (section == 3) {
    ms_status st = ms_ck_counter(path, "next id", im->next_id, 0, NULL);
    if (!st && im->n_flows != ms_sim_flow_count(s))
      st = ms_ck_refuse_field(path, "flows", "= %ld: the scene has %d inflows, outflows and "
                              "open sides", (long)im->n_flows, ms_sim_flow_count(s));
    if (!st && (im->open_started < 0 || im->open_started > 1))
      st = ms_ck_refuse_field(path, "flows started", "= %ld is neither 0 nor 1",
                              (long)im->open_started);
    return st;
  }
  /* An open system's slots only grow: the scene's count or more. */
  if (s->open.on ? im->n_small < s->p.n_small : im->n_small != s->p.n_small)
    return ms_ck_refuse_field(path, "n_small", "= %ld: particle counts differ from the scene (%d)",
                        (long)im->n_small, s->p.n_small);
  if (im->n_large != s->p.n_large)
    return ms_ck_refuse_field(path, "n_large", "= %ld: particle counts differ from the scene (%d)",
                        (long)im->n_large, s->p.n_large);
  return MS_OK;
}

/* History entries: partners that exist (a < b for pairs of one kind), each pair once,
 * sorted by (a, b) as the simulation keeps them, and a finite xi. */
static ms_status history_field(const char *path, const char *field, const ms_history_entry *e,
                               int64_t n, int n_a, int n_b, int ordered_pair)
{
  for (int64_t i = 0; i < n; i++) {
    if (e[i].a < 0 || e[i].a >= n_a || e[i].b < 0 || e[i].b >= n_b)
      return ms_ck_refuse_field(path, field, "entry %lld names particles %d and %d, outside [0, %d) "
                          "and [0, %d)", (long long)i, e[i].a, e[i].b, n_a, n_b);
    if (ordered_pair && !(e[i].a < e[i].b))
      return ms_ck_refuse_field(path, field, "entry %lld pairs %d with %d (must be a < b)", (long long)i,
                          e[i].a, e[i].b);
    if (n_a == n_b && e[i].a == e[i].b)
      return ms_ck_refuse_field(path, field, "entry %lld pairs particle %d with itself", (long long)i,
                          e[i].a);
    if (i > 0 && !(e[i - 1].a < e[i].a || (e[i - 1].a == e[i].a && e[i - 1].b < e[i].b)))
      return ms_ck_refuse_field(path, field, "entry %lld (%d, %d) is not after entry %lld (%d, %d)",
                          (long long)i, e[i].a, e[i].b, (long long)(i - 1), e[i - 1].a,
                          e[i - 1].b);
    if (!isfinite(e[i].xi))
      return ms_ck_non_finite(path, field, (size_t)i);
  }
  return MS_OK;
}

static ms_status friction_fields(const char *path, const cimage *im)
{
  size_t ns = (size_t)im->n_small, nl = (size_t)im->n_large;
  ms_status st;
  if ((st = ms_ck_finite_doubles(path, "small rotation", im->small_rot, 2 * ns)) ||
      (st = ms_ck_finite_doubles(path, "large rotation", im->large_rot, 2 * nl)) ||
      (st = ms_ck_finite_floats(path, "small wall histories", im->small_wall_xi, 4 * ns)) ||
      (st = ms_ck_finite_floats(path, "large wall histories", im->large_wall_xi, 4 * nl)) ||
      (st = history_field(path, "small-small histories", im->ss, im->n_ss, im->n_small,
                          im->n_small, 1)) ||
      (st = history_field(path, "large-small histories", im->ls, im->n_ls, im->n_large,
                          im->n_small, 0)) ||
      (st = history_field(path, "large-large histories", im->ll, im->n_ll, im->n_large,
                          im->n_large, 1)))
    return st;
  return MS_OK;
}

/* The image's walls section as the walls' state (its arrays, not copies). */
static ms_walls_state walls_of(const cimage *im)
{
  return (ms_walls_state){.n_walls = im->n_walls, .driven = im->wall_driven,
                          .motion = im->wall_motion, .small = im->sw, .large = im->lw,
                          .n_small = im->n_sw, .n_large = im->n_lw};
}

/* Centres (x, y every `stride` values, frame coordinates) more than a box width or height
 * outside the box are said, not refused: nothing in a run stops a particle that leaves
 * the box (the walls push it back), and the last good state before a failure can hold
 * one far away (tests/scenes/overflow_nan.ini's: 2e32 m), which must load. */
static void say_far_centres(const char *path, const char *field, const double *v, size_t n,
                            size_t stride, const float *shape, const ms_sim *s)
{
  double w = s->p.box[0], h = s->p.box[1];
  size_t far = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    if (shape && shape[2 * i + 1] == 0.0f)
      continue; /* an empty slot, parked outside on purpose */
    double x = v[stride * i], y = v[stride * i + 1];
    if (!(x >= -w && x <= 2.0 * w && y >= -h && y <= 2.0 * h) && !far++)
      first = i;
  }
  if (far)
    ms_warn("checkpoint '%s': field '%s' has %zu particle(s) more than the box's width or height "
            "outside the box (%g, %g .. %g, %g), first #%zu at (%.17g, %.17g); loaded (the walls "
            "push them back, and the last good state of a failing run can hold such particles)",
            path, field, far, s->p.origin[0], s->p.origin[1], s->p.origin[0] + w, s->p.origin[1] + h,
            first, s->p.origin[0] + v[stride * first], s->p.origin[1] + v[stride * first + 1]);
}

static int by_value(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The ids: each at least 0, below the next id, and none twice. */
/* The slots' shapes: an empty slot (0, 0), a particle's radius in (0, the largest small
 * radius] (the grid's cell holds it) and a positive mass, all finite. */
static ms_status shape_fields(const char *path, const cimage *im, const ms_sim *s)
{
  for (int32_t i = 0; i < im->n_small; i++) {
    float r = im->small_shape[2 * i], m = im->small_shape[2 * i + 1];
    int empty = r == 0.0f && m == 0.0f;
    if (!empty && !(r > 0.0f && r <= s->p.r_small_max && m > 0.0f && isfinite(m)))
      return ms_ck_refuse_field(path, "small shapes", "entry %ld = (%g, %g): a radius in (0, %g] "
                                "and a positive mass, or (0, 0) for an empty slot",
                                (long)i, (double)r, (double)m, (double)s->p.r_small_max);
  }
  return MS_OK;
}

/* The large slots: (0, 0) and static for an empty one, else a positive finite radius and
 * mass; static 0 or 1. */
static ms_status large_shape_fields(const char *path, const cimage *im)
{
  for (int32_t i = 0; i < im->n_large; i++) {
    float r = im->large_shape[2 * i], m = im->large_shape[2 * i + 1];
    int32_t st = im->large_static[i];
    int empty = r == 0.0f && m == 0.0f;
    if (!(st == 0 || st == 1) || (empty && !st))
      return ms_ck_refuse_field(path, "large static", "entry %ld = %ld: 0 or 1, and 1 for an "
                                "empty slot", (long)i, (long)st);
    if (!empty && !(r > 0.0f && isfinite(r) && m > 0.0f && isfinite(m)))
      return ms_ck_refuse_field(path, "large shapes", "entry %ld = (%g, %g): a positive radius "
                                "and mass, or (0, 0) for an empty slot", (long)i, (double)r,
                                (double)m);
  }
  return MS_OK;
}

static ms_status ids_fields(const char *path, const cimage *im)
{
  size_t ns = (size_t)im->n_small, n = ns + (size_t)im->n_large;
  int64_t *all = malloc((n + 1) * sizeof *all);
  if (!all)
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading checkpoint '%s'", path);
  memcpy(all, im->small_id, ns * sizeof *all);
  memcpy(all + ns, im->large_id, (n - ns) * sizeof *all);
  ms_status st = MS_OK;
  size_t held = 0; /* an empty slot holds no id (-1) */
  for (size_t i = 0; !st && i < n; i++) {
    size_t at = i < ns ? i : i - ns; /* the entry in its own array */
    const char *field = i < ns ? "small ids" : "large ids";
    int empty = i < ns ? im->small_shape && im->small_shape[2 * i + 1] == 0.0f
                       : im->large_shape && im->large_shape[2 * at + 1] == 0.0f;
    if (empty && all[i] != -1)
      st = ms_ck_refuse_field(path, field, "entry %zu = %lld: an empty slot holds no id (-1)",
                              at, (long long)all[i]);
    else if (!empty && (all[i] < 0 || all[i] >= im->next_id))
      st = ms_ck_refuse_field(path, field, "entry %zu = %lld is outside [0, next id = %lld)", at,
                              (long long)all[i], (long long)im->next_id);
    else if (!empty)
      all[held++] = all[i];
  }
  n = held;
  if (!st && n > 1)
    qsort(all, n, sizeof *all, by_value);
  for (size_t i = 1; !st && i < n; i++)
    if (all[i] == all[i - 1])
      st = ms_ck_refuse_field(path, "small ids", "and 'large ids' hold id %lld twice",
                              (long long)all[i]);
  free(all);
  return st;
}

static ms_status sim_fields(const char *path, const void *v, const void *ctx)
{
  const cimage *im = v;
  const ms_sim *s = ctx;
  ms_status st;
  if ((st = ms_ck_counter(path, "step", im->step, MS_STEPS_MAX,
                          "the most steps a run takes (10^15)")) ||
      (st = capacity_field(path, im, s)) ||
      (st = ms_ck_counter(path, "largest overflow", im->max_overflow, s->p.n_small,
                          "the number of small particles")) ||
      (st = ms_ck_counter(path, "grid builds", im->grid_builds, 0, NULL)) ||
      (st = ms_ck_counter(path, "overflowed builds", im->overflow_builds, im->grid_builds,
                          "the grid builds")) ||
      (st = ms_ck_counter(path, "capacity growths", im->capacity_growths, im->overflow_builds,
                          "the overflowed builds")) ||
      (st = ms_ck_counter(path, "outside-box events", im->outside_events, 0, NULL)) ||
      (st = ms_ck_finite_doubles(path, "small positions", im->small_pos, (size_t)im->n_small * 2)) ||
      (st = ms_ck_finite_doubles(path, "small velocities", im->small_vel, (size_t)im->n_small * 2)) ||
      (st = ms_ck_finite_doubles(path, "large state", im->large_state, (size_t)im->n_large * 4)))
    return st;
  say_far_centres(path, "small positions", im->small_pos, (size_t)im->n_small, 2, im->small_shape,
                  s);
  say_far_centres(path, "large state", im->large_state, (size_t)im->n_large, 4, im->large_shape,
                  s);
  if (im->friction && (st = friction_fields(path, im)))
    return st;
  if (im->small_shape && (st = shape_fields(path, im, s)))
    return st;
  if (im->large_shape && (st = large_shape_fields(path, im)))
    return st;
  if (im->small_id && (st = ids_fields(path, im)))
    return st;
  /* the walls' state, checked as its import checks it */
  ms_walls_state w = walls_of(im);
  char why[512];
  const char *part = ms_walls_state_fault(&s->p, &w, why, sizeof why);
  return part ? ms_ck_refuse_field(path, part, "%s", why) : MS_OK;
}

static const checks sim_checks = {sim_counts, sim_fields};

/* ---- collision mode ---------------------------------------------------------------- */

/* The friction state, its arrays handed over to the image. */
static ms_status capture_friction(ms_sim *s, cimage *im)
{
  ms_friction_state f;
  memset(&f, 0, sizeof f);
  ms_status st = ms_sim_friction_export(s, &f);
  if (st) {
    ms_friction_state_free(&f);
    return st;
  }
  im->friction = 1;
  im->n_ss = (int64_t)f.n_ss;
  im->n_ls = (int64_t)f.n_ls;
  im->n_ll = (int64_t)f.n_ll;
  im->small_rot = f.small_rot;
  im->large_rot = f.large_rot;
  im->small_wall_xi = f.small_wall_xi;
  im->large_wall_xi = f.large_wall_xi;
  im->ss = f.ss;
  im->ls = f.ls;
  im->ll = f.ll;
  return MS_OK;
}

/* The periods each particle crossed (periodic box; zeros otherwise). */
static ms_status capture_images(ms_sim *s, cimage *im)
{
  memcpy(im->small_shape, s->p.shape, sz_cimage_small_shape(im));
  for (int k = 0; k < im->n_flows; k++) {
    ms_flow_info f;
    ms_sim_flow(s, k, &f);
    im->flow_count[k] = f.total.count;
    im->flow_mass[k] = f.total.mass;
    im->flow_skipped[k] = f.total.skipped;
  }
  for (int i = 0; i < s->p.n_large; i++) {
    im->large_img[2 * i] = s->wk.large[i].img[0];
    im->large_img[2 * i + 1] = s->wk.large[i].img[1];
  }
  ms_status st = ms_buffers_download(&s->cl, s->x.buf.img, im->small_img,
                                     sz_cimage_small_img(im));
  if (st)
    c_release(im);
  return st;
}

static ms_status capture(ms_sim *s, cimage *im)
{
  memset(im, 0, sizeof *im);
  im->n_small = s->p.n_small;
  im->n_large = s->p.n_large;
  im->step = s->run.step;
  im->capacity = (int32_t)s->x.buf.cap;
  im->max_overflow = s->run.stats.max_cell_count;
  im->grid_builds = s->run.stats.grid_builds;
  im->overflow_builds = s->run.stats.overflow_builds;
  im->capacity_growths = s->run.stats.capacity_growths;
  im->outside_events = s->run.stats.outside_events;
  if (!c_alloc(im)) {
    c_release(im);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a checkpoint of %d + %d particles",
                   im->n_small, im->n_large);
  }
  ms_status st;
  if ((st = ms_buffers_download(&s->cl, s->x.buf.pos, im->small_pos, sz_cimage_small_pos(im))) ||
      (st = ms_buffers_download(&s->cl, s->x.buf.vel, im->small_vel, sz_cimage_small_vel(im)))) {
    c_release(im);
    return st;
  }
  for (int i = 0; i < s->p.n_large; i++) {
    double *L = &im->large_state[4 * i];
    L[0] = s->wk.large[i].x;
    L[1] = s->wk.large[i].y;
    L[2] = s->wk.large[i].vx;
    L[3] = s->wk.large[i].vy;
  }
  if (ms_sim_friction_on(s) && (st = capture_friction(s, im))) {
    c_release(im);
    return st;
  }
  ms_walls_state w;
  if ((st = ms_sim_walls_export(s, &w))) {
    c_release(im);
    return st;
  }
  im->n_walls = w.n_walls;
  im->n_sw = w.n_small;
  im->n_lw = w.n_large;
  im->wall_driven = w.driven;
  im->wall_motion = w.motion;
  im->sw = w.small;
  im->lw = w.large;
  im->next_id = s->ids.next;
  im->n_flows = ms_sim_flow_count(s);
  im->open_started = s->open.started;
  if (!c_alloc_ids(im)) {
    c_release(im);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a checkpoint's ids");
  }
  ms_ids_state_copy(&s->ids, im->small_id, im->large_id);
  if (!c_alloc_large(im)) {
    c_release(im);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a checkpoint's large shapes");
  }
  for (int i = 0; i < s->p.n_large; i++) {
    im->large_shape[2 * i] = s->wk.large[i].r;
    im->large_shape[2 * i + 1] = s->wk.large[i].m;
    im->large_static[i] = s->wk.large[i].is_static;
  }
  return capture_images(s, im);
}

static ms_status restore(ms_sim *s, const cimage *im)
{
  /* an open system's slots as the saved state had them (a snapshot may have fewer) */
  ms_status grown = im->n_small != s->p.n_small ? ms_slots_resize(s, im->n_small) : MS_OK;
  if (grown)
    return grown;
  if (im->small_shape && (grown = ms_sim_set_shapes(s, im->small_shape)))
    return grown;
  if (im->large_shape && (grown = ms_sim_set_large_shapes(s, im->large_shape, im->large_static)))
    return grown;
  /* version 5 had no periodic boxes: every image 0 */
  ms_status st = ms_sim_restore(s, im->step, (size_t)im->capacity, im->small_pos, im->small_vel,
                                im->large_state);
  if (!st && im->friction) {
    ms_friction_state f = {im->n_small, im->n_large, im->small_rot, im->large_rot,
                           im->small_wall_xi, im->large_wall_xi, im->ss, im->ls, im->ll,
                           (size_t)im->n_ss, (size_t)im->n_ls, (size_t)im->n_ll};
    st = ms_sim_friction_import(s, &f);
  }
  if (!st) {
    ms_walls_state w = walls_of(im);
    st = ms_sim_walls_import(s, &w);
  }
  if (!st && im->small_id) /* (version 5: the ids the scene gave, which that run kept) */
    ms_ids_set(&s->ids, im->small_id, im->large_id, im->next_id);
  if (!st)
    st = ms_sim_set_images(s, im->small_img, im->large_img);
  if (!st && im->flow_count) {
    s->open.started = im->open_started;
    for (int k = 0; k < im->n_flows; k++)
      ms_sim_set_flow(s, k, &(ms_flow_total){im->flow_count[k], im->flow_mass[k],
                                             im->flow_skipped[k]});
  }
  if (!st) {
    s->run.stats.grid_builds = im->grid_builds;
    s->run.stats.overflow_builds = im->overflow_builds;
    s->run.stats.capacity_growths = im->capacity_growths;
    s->run.stats.outside_events = im->outside_events;
    s->run.stats.max_cell_count = im->max_overflow;
  }
  return st;
}

ms_status ms_checkpoint_save(const char *path, ms_sim *s, const ms_scene_id *scene_id)
{
  cimage im;
  ms_status st = capture(s, &im);
  if (st)
    return st;
  st = ms_ck_save(path, &collision_layout, &im, scene_id);
  c_release(&im);
  return st;
}

ms_status ms_checkpoint_load(const char *path, ms_sim *s, const ms_scene_id *scene_id)
{
  cimage im;
  memset(&im, 0, sizeof im);
  ms_status st = ms_ck_read(path, &collision_layout, &im, scene_id, &sim_checks, s);
  if (st)
    return st;
  st = restore(s, &im);
  c_release(&im);
  return st;
}

struct ms_snapshot {
  cimage im;
};

ms_status ms_snapshot_take(ms_sim *s, ms_snapshot **out)
{
  *out = calloc(1, sizeof **out);
  if (!*out)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a snapshot");
  ms_status st = capture(s, &(*out)->im);
  if (st) {
    free(*out);
    *out = NULL;
  }
  return st;
}

ms_status ms_snapshot_restore(ms_sim *s, const ms_snapshot *snap)
{
  return restore(s, &snap->im);
}

ms_status ms_snapshot_save(const char *path, const ms_snapshot *snap, const ms_scene_id *scene_id)
{
  cimage im = snap->im; /* the field table takes a mutable image; nothing is changed */
  return ms_ck_save(path, &collision_layout, &im, scene_id);
}

long ms_snapshot_step(const ms_snapshot *snap) { return (long)snap->im.step; }

void ms_snapshot_free(ms_snapshot *snap)
{
  if (!snap)
    return;
  c_release(&snap->im);
  free(snap);
}
