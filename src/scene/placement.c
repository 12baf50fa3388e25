/* Scene loader, placement: explicit large particles, generated groups and small
 * particles (one size or a size distribution), deterministic from the seed; discs may
 * touch but never overlap. Everything is placed in the simulation frame (metres from
 * box_min, double precision): the positions are the ones the simulation starts from. */
#include "scene/loader.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "shared/contact.h"

#define LARGE_ATTEMPTS 10000
#define SMALL_ATTEMPTS 1000

/* Discs hashed by cell; a query looks at the 3 x 3 cells around a point, so the
 * cell size must be at least the largest sum of radii that can overlap. */
typedef struct disc_hash {
  double inv_cell;
  uint32_t mask;
  int *head; /* bucket -> first disc, -1 = none */
  int *next; /* disc -> next disc in its bucket */
  double *x, *y;
  float *r;
  int count;
} disc_hash;

static int hash_init(disc_hash *h, double cell, int capacity)
{
  *h = (disc_hash){.inv_cell = 1.0 / cell};
  uint32_t buckets = 64;
  while (buckets < 2u * (uint32_t)capacity)
    buckets <<= 1;
  h->mask = buckets - 1;
  size_t n = capacity > 0 ? (size_t)capacity : 1;
  h->head = malloc(buckets * sizeof *h->head);
  h->next = malloc(n * sizeof *h->next);
  h->x = malloc(n * sizeof *h->x);
  h->y = malloc(n * sizeof *h->y);
  h->r = malloc(n * sizeof *h->r);
  if (!h->head || !h->next || !h->x || !h->y || !h->r)
    return 0;
  memset(h->head, 0xff, buckets * sizeof *h->head);
  return 1;
}

static void hash_free(disc_hash *h)
{
  free(h->head);
  free(h->next);
  free(h->x);
  free(h->y);
  free(h->r);
}

static uint32_t hash_bucket(const disc_hash *h, int64_t cx, int64_t cy)
{
  uint64_t k = (uint64_t)cx * 0x9e3779b97f4a7c15ull ^ (uint64_t)cy * 0xc2b2ae3d27d4eb4full;
  return (uint32_t)(k ^ (k >> 29)) & h->mask;
}

/* A coordinate's cell, saturated at +-2^52 cells: a box of 1e300 m holds positions whose
 * cell would not fit in an integer (and a query looks at the cells either side). Clamping
 * keeps neighbouring cells neighbours, so the overlap tests stay exact. */
#define HASH_CELL_MAX 4503599627370496.0
static int64_t hash_cell(const disc_hash *h, double p)
{
  double c = floor(p * h->inv_cell);
  if (!(c > -HASH_CELL_MAX)) /* (NaN too) */
    return -(int64_t)HASH_CELL_MAX;
  return c < HASH_CELL_MAX ? (int64_t)c : (int64_t)HASH_CELL_MAX;
}

static void hash_insert(disc_hash *h, double x, double y, float r)
{
  int i = h->count++;
  h->x[i] = x;
  h->y[i] = y;
  h->r[i] = r;
  uint32_t b = hash_bucket(h, hash_cell(h, x), hash_cell(h, y));
  h->next[i] = h->head[b];
  h->head[b] = i;
}

/* Discs may touch. Radii are floats and positions are moved into the frame by a
 * subtraction, so discs written as exactly touching (each other, a wall, a region's
 * edge) can come out overlapping by a few units in the last place: an overlap up to
 * `touch_slack` counts as touching. `scale` is the largest coordinate magnitude in the
 * scene, `need` the distance that must separate them (a sum of radii, or a radius from
 * a wall). The cap of 1/1024 of `need` keeps discs that rounding has moved onto each
 * other an overlap. */
static double touch_slack(double scale, double need)
{
  return fmin(4.0 * FLT_EPSILON * need + 4.0 * DBL_EPSILON * scale, need / 1024.0);
}

/* The largest magnitude of a coordinate the scene uses (the box bounds it). */
static double coord_scale(const ms_scene *s)
{
  return fmax(fmax(fabs(s->box_min[0]), fabs(s->box_max[0])),
              fmax(fabs(s->box_min[1]), fabs(s->box_max[1])));
}

/* A disc of radius r at x is at least r from the wall at `wall`, up to the slack. */
static int clear_of_wall(const ms_scene *s, double x, double wall, double r)
{
  return fabs(x - wall) >= r - touch_slack(coord_scale(s), r);
}

static double frame_w(const ms_scene *s) { return s->box_max[0] - s->box_min[0]; }
static double frame_h(const ms_scene *s) { return s->box_max[1] - s->box_min[1]; }

/* Along one axis of length w: a centre in the box, the disc clear of both sides up to
 * the slack; on a periodic axis a centre in [0, w), the disc free to lie across the seam. */
static int inside_axis(const ms_scene *s, int axis, double x, double w, double r)
{
  if (s->periodic[axis])
    return x >= 0.0 && x < w;
  return x >= 0.0 && x <= w && clear_of_wall(s, x, 0.0, r) && clear_of_wall(s, x, w, r);
}

/* A disc of radius r at frame position (x, y) inside the box, up to the slack. */
static int inside_box(const ms_scene *s, double x, double y, double r)
{
  return inside_axis(s, 0, x, frame_w(s), r) && inside_axis(s, 1, y, frame_h(s), r);
}

/* A region of the scene in the frame. */
static void region_in_frame(const ms_scene *s, const double in[4], double out[4])
{
  out[0] = in[0] - s->box_min[0];
  out[1] = in[1] - s->box_min[1];
  out[2] = in[2] - s->box_min[0];
  out[3] = in[3] - s->box_min[1];
}

/* How much two discs may overlap. Placement's own attempts test strictly (which keeps
 * the seed's positions as they were); explicit particles written as touching are
 * tested with the touch slack; particles read from files may be compressed. */
typedef enum overlap_rule { OVERLAP_STRICT, OVERLAP_TOUCHING, OVERLAP_COMPRESSED } overlap_rule;

/* Index of a disc that a disc of radius r at (x, y) would overlap, or -1. */
static int hash_overlap_within(const disc_hash *h, double x, double y, double r, double scale,
                               overlap_rule rule)
{
  int64_t cx = hash_cell(h, x), cy = hash_cell(h, y);
  for (int64_t j = cy - 1; j <= cy + 1; j++)
    for (int64_t i = cx - 1; i <= cx + 1; i++)
      for (int d = h->head[hash_bucket(h, i, j)]; d >= 0; d = h->next[d]) {
        double dx = x - h->x[d], dy = y - h->y[d];
        double sum = r + h->r[d];
        if (rule == OVERLAP_TOUCHING)
          sum -= touch_slack(scale, sum);
        else if (rule == OVERLAP_COMPRESSED)
          sum -= 0.5 * fmin(r, h->r[d]);
        if (dx * dx + dy * dy < sum * sum)
          return d;
      }
  return -1;
}

static int hash_overlap(const disc_hash *h, double x, double y, double r)
{
  return hash_overlap_within(h, x, y, r, 0.0, OVERLAP_STRICT);
}

/* Frame positions are doubles measured from box_min: only a box some 10^13 diameters
 * wide could make neighbouring sites coincide; say so rather than place them. */
static int unresolved(loader *ld, const section *sec, double x, double y)
{
  double at = fmax(fabs(x), fabs(y));
  return ms_ld_fail_key(ld, sec, "count",
                        "positions %g m from the box's corner cannot be told apart in double "
                        "precision (doubles are %g m apart there); use a smaller box",
                        at, nextafter(at, INFINITY) - at);
}

double ms_ld_disc_mass(double density, double r) { return density * MS_PI * r * r; }

static void add_large(ms_scene *s, disc_hash *h, double x, double y, float r, float mass,
                      double vx, double vy, int is_static)
{
  s->large[s->large_count++] = (ms_large){
      .x = x, .y = y, .vx = vx, .vy = vy, .radius = r, .mass = mass, .is_static = is_static};
  hash_insert(h, x, y, r);
}

/* Records that `sec` placed the next `count` large particles. */
static void add_origin(ms_scene *s, const section *sec, long count, int generated)
{
  ms_large_origin *o = &s->large_origin[s->large_origin_count++];
  snprintf(o->section, sizeof o->section, "%s", sec->name);
  o->first = s->large_count;
  o->count = (int)count;
  o->generated = generated;
}

void ms_large_label(const ms_large_origin *origin, int n_origin, int index, char *out,
                    size_t size)
{
  for (int i = 0; origin && i < n_origin; i++) {
    const ms_large_origin *o = &origin[i];
    if (index < o->first || index - o->first >= o->count)
      continue;
    if (o->generated)
      snprintf(out, size, "[%s] #%d", o->section, index - o->first);
    else
      snprintf(out, size, "[%s]", o->section);
    return;
  }
  snprintf(out, size, "#%d", index);
}

static int place_explicit(loader *ld, disc_hash *h)
{
  ms_scene *s = ld->scene;
  for (int i = 0; i < ld->large_count; i++) {
    const large_spec *l = &ld->large[i];
    const section *sec = &ld->sections[l->section];
    double x = l->position[0] - s->box_min[0], y = l->position[1] - s->box_min[1], r = l->radius;
    if (!inside_box(s, x, y, r))
      return ms_ld_fail_key(ld, sec, "position", "disc of radius %g at (%g, %g) sticks out of the box",
                      r, l->position[0], l->position[1]);
    int other = hash_overlap_within(h, x, y, r, coord_scale(s), OVERLAP_TOUCHING);
    if (other >= 0)
      return ms_ld_fail_key(ld, sec, "position", "overlaps [%s]",
                      ld->sections[ld->large[other].section].name);
    add_origin(s, sec, 1, 0);
    add_large(s, h, x, y, l->radius, (float)ms_ld_disc_mass(l->density, l->radius),
              l->velocity[0], l->velocity[1], l->is_static);
    s->large[s->large_count - 1].spin = l->spin;
  }
  return 1;
}

/* Discs read from a file may overlap each other and the walls by up to half the
 * smaller radius: a dump holds the state of a run, whose contacts are springs
 * compressed by the weight above them and by impacts (a third of a radius in
 * scenes/mixed.ini after 1 s). A deeper overlap (a duplicated row, a file in other
 * units) is refused. */
static int file_overlap(const disc_hash *h, double x, double y, double r)
{
  return hash_overlap_within(h, x, y, r, 0.0, OVERLAP_COMPRESSED);
}

/* A file's disc: its centre inside the box, at most half a radius into a wall. */
static int file_inside_box(const ms_scene *s, const file_disc *d)
{
  double r = 0.5 * d->r;
  return inside_axis(s, 0, d->x, frame_w(s), r) && inside_axis(s, 1, d->y, frame_h(s), r);
}

/* A disc of a file that does not fit: "path:line: ...", at the section's file key. */
static int file_disc_fails(loader *ld, const particle_file *pf, const file_disc *d,
                           const char *other)
{
  const ms_scene *s = ld->scene;
  const section *sec = &ld->sections[pf->section];
  double x = d->x + s->box_min[0], y = d->y + s->box_min[1];
  if (!other)
    return ms_ld_fail_key(ld, sec, "file", "%s:%ld: disc of radius %g at (%.17g, %.17g) lies "
                          "outside the box (%g, %g .. %g, %g) or more than half its radius into "
                          "a wall", pf->path, d->line, (double)d->r, x, y, s->box_min[0],
                          s->box_min[1], s->box_max[0], s->box_max[1]);
  return ms_ld_fail_key(ld, sec, "file", "%s:%ld: disc of radius %g at (%.17g, %.17g) overlaps "
                        "%s by more than half the smaller radius", pf->path, d->line,
                        (double)d->r, x, y, other);
}

/* [large_file.NAME] sections, in file order, after the explicit ones. */
static int place_large_files(loader *ld, disc_hash *h)
{
  ms_scene *s = ld->scene;
  char other[160];
  for (int f = 0; f < ld->file_count; f++) {
    particle_file *pf = &ld->files[f];
    pf->first = s->large_count;
    add_origin(s, &ld->sections[pf->section], pf->count, 1);
    for (long i = 0; i < pf->count; i++) {
      const file_disc *d = &pf->disc[i];
      if (!file_inside_box(s, d))
        return file_disc_fails(ld, pf, d, NULL);
      int o = file_overlap(h, d->x, d->y, d->r);
      if (o >= 0) {
        ms_large_label(s->large_origin, s->large_origin_count, o, other, sizeof other);
        return file_disc_fails(ld, pf, d, other);
      }
      add_large(s, h, d->x, d->y, d->r, d->m, d->vx, d->vy, d->is_static);
      s->large[s->large_count - 1].spin = d->w;
      s->large[s->large_count - 1].theta = d->theta;
    }
  }
  return 1;
}

/* [small] file: the file's discs, checked against the large ones and each other. */
static int place_small_file(loader *ld, const disc_hash *large)
{
  ms_scene *s = ld->scene;
  const particle_file *pf = &ld->small.file;
  disc_hash own;
  if (!hash_init(&own, 2.0 * s->small_radius, s->small_count)) {
    hash_free(&own);
    return ms_ld_fail_memory(ld);
  }
  char other[600];
  int ok = 1;
  if (pf->has_rot && !(s->small_rot = malloc(2 * (size_t)s->small_count * sizeof(double)))) {
    hash_free(&own);
    return ms_ld_fail_memory(ld);
  }
  for (int i = 0; ok && i < s->small_count; i++) {
    const file_disc *d = &pf->disc[i];
    /* The box first: the overlap queries are for discs known to be inside. */
    if (!file_inside_box(s, d)) {
      ok = file_disc_fails(ld, pf, d, NULL);
      break;
    }
    int lo = file_overlap(large, d->x, d->y, d->r), so = file_overlap(&own, d->x, d->y, d->r);
    if (lo >= 0)
      ms_large_label(s->large_origin, s->large_origin_count, lo, other, sizeof other);
    else if (so >= 0)
      snprintf(other, sizeof other, "the small particle at line %ld", pf->disc[so].line);
    if (lo >= 0 || so >= 0) {
      ok = file_disc_fails(ld, pf, d, other);
      break;
    }
    hash_insert(&own, d->x, d->y, d->r);
    s->small_pos[2 * i] = d->x;
    s->small_pos[2 * i + 1] = d->y;
    s->small_vel[2 * i] = d->vx;
    s->small_vel[2 * i + 1] = d->vy;
    s->small_r[i] = d->r;
    s->small_m[i] = d->m;
    if (s->small_rot) {
      s->small_rot[2 * i] = d->theta;
      s->small_rot[2 * i + 1] = d->w;
    }
  }
  hash_free(&own);
  return ok;
}

/* v + uniform(-spread, spread); always draws, so positions never depend on spread. */
static double jitter(ms_rng *rng, double v, double spread)
{
  return v + ms_rng_range(rng, -spread, spread);
}

static int place_group(loader *ld, const group_spec *g, disc_hash *h, ms_rng *rng)
{
  ms_scene *s = ld->scene;
  add_origin(s, &ld->sections[g->section], g->count, 1);
  double reg[4];
  region_in_frame(s, g->region, reg);
  for (long n = 0; n < g->count; n++) {
    float r = (float)ms_rng_range(rng, g->radius_min, g->radius_max);
    double x = 0.0, y = 0.0;
    int attempt = 0;
    for (; attempt < LARGE_ATTEMPTS; attempt++) {
      x = ms_rng_range(rng, reg[0] + r, reg[2] - r);
      y = ms_rng_range(rng, reg[1] + r, reg[3] - r);
      if (hash_overlap(h, x, y, r) < 0)
        break;
    }
    if (attempt == LARGE_ATTEMPTS)
      return ms_ld_fail_key(ld, &ld->sections[g->section], "count",
                      "could only place %ld of %ld particles without overlap", n, g->count);
    if (!inside_box(s, x, y, r))
      return unresolved(ld, &ld->sections[g->section], x, y);
    double vx = jitter(rng, g->velocity[0], g->spread);
    double vy = jitter(rng, g->velocity[1], g->spread);
    if (g->is_static)
      vx = vy = 0.0;
    add_large(s, h, x, y, r, (float)ms_ld_disc_mass(g->density, r), vx, vy, g->is_static);
    s->large[s->large_count - 1].spin = g->spin;
  }
  return 1;
}

/* Neighbouring lattice sites a and b (b after a) 2r apart or more, up to the slack. */
static int lattice_gap_ok(const ms_scene *s, double a, double b, double r)
{
  return b - a >= 2.0 * r - touch_slack(coord_scale(s), 2.0 * r);
}

/* A site's disc fits between lo and hi: a region exactly n discs wide holds n, although
 * lo + r + (n - 1) pitch + r can round past hi by a unit in the last place. */
static int fits_below(const ms_scene *s, double centre, double r, double hi)
{
  return centre + r <= hi + touch_slack(coord_scale(s), r);
}

/* Sites on a square lattice of pitch spacing x the largest diameter, filled row by row;
 * each site holds the next small particle whatever its size (all fit). */
static int place_lattice(loader *ld, const disc_hash *large)
{
  ms_scene *s = ld->scene;
  const small_spec *sm = &ld->small;
  double reg[4];
  region_in_frame(s, sm->region, reg);
  double r = s->small_radius, pitch = sm->spacing * 2.0 * r;
  const section *sec = &ld->sections[sm->section];
  long placed = 0;
  double y_prev = 0.0;
  for (long j = 0; placed < sm->count; j++) {
    double y = reg[1] + r + (double)j * pitch;
    if (!fits_below(s, y, r, reg[3]))
      break;
    /* The sites form a grid of rows and columns, so neighbours in a row and in a
     * column being clear of each other is enough. */
    if (j > 0 && !lattice_gap_ok(s, y_prev, y, r))
      return unresolved(ld, sec, reg[0], y);
    y_prev = y;
    double x_prev = 0.0;
    for (long i = 0; placed < sm->count; i++) {
      double x = reg[0] + r + (double)i * pitch;
      if (!fits_below(s, x, r, reg[2]))
        break;
      if ((i > 0 && !lattice_gap_ok(s, x_prev, x, r)) || !inside_box(s, x, y, r))
        return unresolved(ld, sec, x, y);
      x_prev = x;
      if (hash_overlap(large, x, y, s->small_r[placed]) >= 0)
        continue;
      s->small_pos[2 * placed] = x;
      s->small_pos[2 * placed + 1] = y;
      placed++;
    }
  }
  if (placed < sm->count)
    return ms_ld_fail_key(ld, &ld->sections[sm->section], "count",
                    "only %ld of %ld small particles fit on the lattice in the region", placed,
                    sm->count);
  return 1;
}

static int place_random(loader *ld, const disc_hash *large, ms_rng *rng)
{
  ms_scene *s = ld->scene;
  const small_spec *sm = &ld->small;
  double reg[4];
  region_in_frame(s, sm->region, reg);
  double r_max = s->small_radius;
  const section *sec = &ld->sections[sm->section];
  if (!fits_below(s, reg[0] + 2.0 * r_max, 0.0, reg[2]) ||
      !fits_below(s, reg[1] + 2.0 * r_max, 0.0, reg[3]))
    return ms_ld_fail_key(ld, sec, "count", "could only place 0 of %ld small particles: the region "
                    "is narrower than one particle", sm->count);
  disc_hash own;
  if (!hash_init(&own, 2.0 * r_max, s->small_count)) {
    hash_free(&own);
    return ms_ld_fail_memory(ld);
  }
  for (int n = 0; n < s->small_count; n++) {
    double r = s->small_r[n];
    int attempt = 0;
    double x = 0.0, y = 0.0;
    for (; attempt < SMALL_ATTEMPTS; attempt++) {
      x = ms_rng_range(rng, reg[0] + r, reg[2] - r);
      y = ms_rng_range(rng, reg[1] + r, reg[3] - r);
      if (hash_overlap(large, x, y, r) < 0 && hash_overlap(&own, x, y, r) < 0)
        break;
    }
    if (attempt == SMALL_ATTEMPTS || !inside_box(s, x, y, r)) {
      hash_free(&own);
      if (attempt < SMALL_ATTEMPTS)
        return unresolved(ld, sec, x, y);
      return ms_ld_fail_key(ld, sec, "count",
                      "could only place %d of %ld small particles without overlap", n,
                      sm->count);
    }
    s->small_pos[2 * n] = x;
    s->small_pos[2 * n + 1] = y;
    hash_insert(&own, x, y, (float)r);
  }
  hash_free(&own);
  return 1;
}

/* Radii first, all of them, so placement draws the same numbers whatever the sizes: a
 * single size draws none (scenes of one size place as they always did). */
static void draw_radii(ms_scene *s, const small_spec *sm, ms_rng *rng)
{
  double lo = s->small_radius_min, hi = s->small_radius;
  for (int i = 0; i < s->small_count; i++) {
    double r = hi;
    if (lo < hi && sm->sizes == SIZES_AREA)
      r = sqrt(ms_rng_range(rng, lo * lo, hi * hi));
    else if (lo < hi)
      r = ms_rng_range(rng, lo, hi);
    float f = (float)r;
    s->small_r[i] = f < (float)lo ? (float)lo : f > (float)hi ? (float)hi : f;
    s->small_m[i] = (float)ms_ld_disc_mass(s->small_density, s->small_r[i]);
  }
}

static int place_small(loader *ld, const disc_hash *large, ms_rng *rng)
{
  ms_scene *s = ld->scene;
  const small_spec *sm = &ld->small;
  if (s->small_count == 0)
    return 1;
  size_t n = 2 * (size_t)s->small_count;
  s->small_pos = malloc(n * sizeof *s->small_pos);
  s->small_vel = malloc(n * sizeof *s->small_vel);
  s->small_r = malloc(n / 2 * sizeof *s->small_r);
  s->small_m = malloc(n / 2 * sizeof *s->small_m);
  if (!s->small_pos || !s->small_vel || !s->small_r || !s->small_m)
    return ms_ld_fail_memory(ld);
  if (sm->file.section >= 0)
    return place_small_file(ld, large);
  draw_radii(s, sm, rng);
  if (!(sm->random ? place_random(ld, large, rng) : place_lattice(ld, large)))
    return 0;
  for (int i = 0; i < s->small_count; i++) {
    s->small_vel[2 * i] = jitter(rng, sm->velocity[0], sm->spread);
    s->small_vel[2 * i + 1] = jitter(rng, sm->velocity[1], sm->spread);
  }
  return 1;
}

/* Sizes the large array and the hash that all placement queries use. */
static int prepare_large(loader *ld, disc_hash *h)
{
  ms_scene *s = ld->scene;
  long total = ld->large_count;
  double r_max = 0.0;
  for (int i = 0; i < ld->large_count; i++)
    r_max = fmax(r_max, ld->large[i].radius);
  for (int i = 0; i < ld->group_count; i++) {
    const group_spec *g = &ld->groups[i];
    total += g->count;
    r_max = fmax(r_max, g->radius_max);
    if (total > MS_LD_MAX_LARGE)
      return ms_ld_fail_key(ld, &ld->sections[g->section], "count",
                      "too many large particles in total (at most %ld)", MS_LD_MAX_LARGE);
  }
  for (int f = 0; f < ld->file_count; f++) {
    const particle_file *pf = &ld->files[f];
    for (long i = 0; i < pf->count; i++)
      r_max = fmax(r_max, pf->disc[i].r);
    total += pf->count;
    if (total > MS_LD_MAX_LARGE)
      return ms_ld_fail_key(ld, &ld->sections[pf->section], "file",
                            "too many large particles in total (at most %ld)", MS_LD_MAX_LARGE);
  }
  /* A query disc is a large one (r <= r_max) or a small one. */
  double cell = r_max + fmax(r_max, s->small_radius);
  if (!hash_init(h, cell > 0.0 ? cell : 1.0, (int)total))
    return ms_ld_fail_memory(ld);
  /* zeroed: the padding of ms_large is then the same in every load (memcmp, hashes) */
  s->large = calloc(total > 0 ? (size_t)total : 1, sizeof *s->large);
  s->large_origin = calloc((size_t)(ld->large_count + ld->group_count + ld->file_count + 1),
                           sizeof *s->large_origin);
  return s->large && s->large_origin ? 1 : ms_ld_fail_memory(ld);
}

int ms_ld_place_all(loader *ld)
{
  ms_scene *s = ld->scene;
  ms_rng rng = {s->seed};
  disc_hash large = {0}; /* freed below even when prepare_large fails early */
  int ok = prepare_large(ld, &large) && place_explicit(ld, &large) &&
           place_large_files(ld, &large);
  for (int i = 0; ok && i < ld->group_count; i++)
    ok = place_group(ld, &ld->groups[i], &large, &rng);
  ok = ok && place_small(ld, &large, &rng);
  hash_free(&large);
  return ok;
}
