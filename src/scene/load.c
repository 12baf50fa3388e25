/* Scene loader: reads the INI format below, validates every value against the line it
 * came from, places the particles (deterministically from the seed) and checks dt
 * against the shortest contact the scene can produce. */

/* Format. ';' starts a comment (after white space when inline). Vectors are
 * comma-separated: "0, -9.81". Keys may come in any order; a key or a section given
 * twice, an unknown key or section, and an indented line are errors. Defaults in ().
 *
 *   [simulation]
 *   mode = collision          ; collision | gravity                       (collision)
 *   dt = 1e-4                 ; s, > 0, required; must be <= t_c / 10
 *   steps = 2000              ; >= 1                                      (1000)
 *   iterations_per_frame = 4  ; 1..1000                                   (4)
 *   seed = 42                 ; unsigned 64-bit                           (1)
 *   pipeline = reordered      ; naive | reordered                         (reordered)
 *   buffers = shared          ; shared | copied                           (shared)
 *   gravity = 0, -9.81        ; m/s^2                                     (0, -9.81)
 *   max_speed = 50            ; m/s, > 0: faster particles stop the run    (no limit)
 *   [box]        min = x, y; max = x, y          ; both required, max > min
 *   [material]   stiffness = 1e5 (N/m, > 0); restitution = 0.5 (0 < e <= 1); required
 *   [grid]       capacity = 8                    ; 1..4096                (8)
 *   [small]                   ; optional; absent means no small particles
 *   count = 8200              ; >= 0, required
 *   radius = 0.005            ; m, > 0, required when count > 0
 *   density = 1000            ; kg/m^2 (areal: discs), > 0                (1000)
 *   placement = lattice       ; lattice | random                          (lattice)
 *   region = x0, y0, x1, y1   ; inside the box                            (the box)
 *   spacing = 1.05            ; lattice pitch in diameters, >= 1; lattice only (1.05)
 *   velocity = 0, 0           ; m/s                                       (0, 0)
 *   velocity_spread = 0       ; >= 0, each component + uniform(-s, s)     (0)
 *   [large.NAME]              ; one large particle; NAME: letters, digits, _ -
 *   position = x, y; radius = r   ; required; the disc must lie in the box
 *   density (1000); velocity (0, 0); static = false (true/false/yes/no/1/0;
 *   a static particle never moves and must have velocity 0)
 *   [large_random.NAME]       ; a generated group of large particles
 *   count (>= 1), radius_min (> 0), radius_max (>= radius_min), region: required
 *   density (1000); velocity (0, 0); velocity_spread (0); static (false)
 *
 * mode = gravity uses [simulation] dt, steps and seed, and one more section (the
 * collision sections and keys are then errors):
 *   [gravity]
 *   bodies = plummer          ; plummer | uniform | kepler | disk | file, required
 *   softening = 0.01          ; eps, length, 1e-12 .. 1e18, required
 *   G = 1                     ; > 0                                       (1)
 *   integrator = leapfrog     ; leapfrog | taylor                         (leapfrog)
 *   burst = 10                ; steps on the device between read-backs    (10)
 *   energy = auto             ; auto | exact | sampled | off              (auto)
 *   diagnostics_every = 100   ; steps, >= 0 (0: start and end only)       (100)
 *   count = 16384             ; bodies: plummer, uniform, disk (required there)
 *   mass = 1                  ; total (disk: of the disk), > 0: all but file (1)
 *   radius = 1                ; > 0: plummer virial radius, uniform sphere, disk (1)
 *   eccentricity = 0.5        ; kepler, 0 <= e < 1                        (0)
 *   semi_major_axis = 1       ; kepler, > 0                               (1)
 *   mass_ratio = 1            ; kepler, m2 / m1 > 0                       (1)
 *   central_mass = 0          ; disk, >= 0; > 0 adds body 0 at the centre (0)
 *   thickness = 0             ; disk, >= 0                                (0)
 *   file = bodies.csv         ; file, required there; relative to the scene's folder
 * A key that does not apply to the chosen bodies is an error. Generated bodies come
 * from one splitmix64 stream seeded with `seed` (src/gravity_init.c).
 *
 * Placement, all from one splitmix64 stream seeded with `seed`: [large.*] in file
 * order, then [large_random.*] groups in file order (radius drawn once, then up to
 * 10000 centres), then small particles (lattice: row by row from the region's
 * bottom-left corner, skipping sites on large particles; random: up to 1000 tries
 * each), then small velocities. Discs may touch but never overlap. */
#include "mixsim/scene.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scene/bodies.h"
#include "core/rng.h"
#include "core/strtrim.h"
#include "shared/contact.h"

#define MAX_SMALL 50000000L
#define MAX_GROUP 1000000L
#define MAX_LARGE_TOTAL 10000000L
#define LARGE_ATTEMPTS 10000
#define SMALL_ATTEMPTS 1000
#define NAME_MAX_LEN 64
#define MAX_KEYS 20

typedef enum section_kind {
  SEC_SIMULATION,
  SEC_BOX,
  SEC_MATERIAL,
  SEC_GRID,
  SEC_SMALL,
  SEC_GRAVITY,
  SEC_LARGE,
  SEC_LARGE_RANDOM,
  SEC_KIND_COUNT
} section_kind;

static const char *const g_kind_names[SEC_KIND_COUNT] = {
    "simulation", "box", "material", "grid", "small", "gravity", "large.", "large_random.",
};

/* Known keys of each section kind. */
static const char *const g_keys[SEC_KIND_COUNT][MAX_KEYS + 1] = {
    [SEC_SIMULATION] = {"mode", "dt", "steps", "iterations_per_frame", "seed", "pipeline",
                        "buffers", "gravity", "max_speed"},
    [SEC_BOX] = {"min", "max"},
    [SEC_MATERIAL] = {"stiffness", "restitution"},
    [SEC_GRID] = {"capacity"},
    [SEC_SMALL] = {"count", "radius", "density", "placement", "region", "spacing", "velocity",
                   "velocity_spread"},
    [SEC_GRAVITY] = {"bodies", "count", "G", "softening", "integrator", "burst", "energy",
                     "diagnostics_every", "mass", "radius", "eccentricity", "semi_major_axis",
                     "mass_ratio", "central_mass", "thickness", "file"},
    [SEC_LARGE] = {"position", "radius", "density", "velocity", "static"},
    [SEC_LARGE_RANDOM] = {"count", "radius_min", "radius_max", "region", "density", "velocity",
                          "velocity_spread", "static"},
};

/* Keys that must be given, in the order missing ones are reported. */
static const char *const g_required[SEC_KIND_COUNT][MAX_KEYS + 1] = {
    [SEC_SIMULATION] = {"dt"},
    [SEC_BOX] = {"min", "max"},
    [SEC_MATERIAL] = {"stiffness", "restitution"},
    [SEC_SMALL] = {"count"},
    [SEC_GRAVITY] = {"bodies", "softening"},
    [SEC_LARGE] = {"position", "radius"},
    [SEC_LARGE_RANDOM] = {"count", "radius_min", "radius_max", "region"},
};

typedef struct section {
  char name[NAME_MAX_LEN];
  int line;
  section_kind kind;
  int item;               /* index into the loader's large or group specs */
  int key_line[MAX_KEYS]; /* line of each key of g_keys[kind]; 0 = not given */
} section;

/* Region, spacing and radii hold float-rounded values, so placement tests exactly
 * what the simulation will see. */
typedef struct small_spec {
  int section; /* -1 when there is no [small] */
  long count;
  int random;
  double region[4];
  double spacing;
  float velocity[2];
  double spread;
} small_spec;

typedef struct large_spec {
  int section;
  float position[2];
  float radius;
  double density;
  float velocity[2];
  int is_static;
} large_spec;

typedef struct group_spec {
  int section;
  long count;
  float radius_min, radius_max;
  double region[4];
  double density;
  float velocity[2];
  double spread;
  int is_static;
} group_spec;

typedef struct loader {
  const char *path;
  ms_scene *scene;
  FILE *file;       /* input: a file ... */
  const char *text; /* ... or the rest of a string */
  int line;         /* line inih is working on */
  int line_limit;   /* longest line inih accepts */
  section *sections;
  int section_count, section_cap;
  int current;     /* section of the current line, -1 before the first header */
  const char *key; /* key being read, for messages */
  small_spec small;
  large_spec *large;
  int large_count, large_cap;
  group_spec *groups;
  int group_count, group_cap;
  char body_file[512]; /* [gravity] file as written */
  ms_status status; /* MS_OK until the first error */
  int error_line;
  char message[1024];
} loader;

/* ---- errors ---------------------------------------------------------------------- */

__attribute__((format(printf, 5, 0))) static int
vfail_at(loader *ld, int line, const char *section, const char *key, const char *fmt, va_list ap)
{
  if (ld->status != MS_OK)
    return 0;
  char problem[640], where[200] = "";
  vsnprintf(problem, sizeof problem, fmt, ap);
  if (section && key)
    snprintf(where, sizeof where, "[%s] %s: ", section, key);
  else if (section)
    snprintf(where, sizeof where, "[%s] ", section);
  else if (key)
    snprintf(where, sizeof where, "%s: ", key);
  if (line > 0)
    snprintf(ld->message, sizeof ld->message, "%s:%d: %s%s", ld->path, line, where, problem);
  else
    snprintf(ld->message, sizeof ld->message, "%s: %s%s", ld->path, where, problem);
  ld->status = MS_ERR_INPUT;
  ld->error_line = line;
  return 0;
}

/* Records the first error as "path:line: [section] key: problem". Returns 0 so that
 * callers can `return fail_at(...)` from a handler. */
__attribute__((format(printf, 5, 6))) static int
fail_at(loader *ld, int line, const char *section, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, line, section, key, fmt, ap);
  va_end(ap);
  return 0;
}

static const char *current_name(const loader *ld)
{
  return ld->current >= 0 ? ld->sections[ld->current].name : NULL;
}

/* An error about the value being read. */
__attribute__((format(printf, 2, 3))) static int bad_value(loader *ld, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, ld->line, current_name(ld), ld->key, fmt, ap);
  va_end(ap);
  return 0;
}

static int key_index(section_kind kind, const char *key)
{
  for (int i = 0; g_keys[kind][i]; i++)
    if (strcmp(g_keys[kind][i], key) == 0)
      return i;
  return -1;
}

static int line_of(const section *sec, const char *key)
{
  int i = key_index(sec->kind, key);
  return i >= 0 ? sec->key_line[i] : 0;
}

/* An error found after parsing, at the line of `key` (or the section header). */
__attribute__((format(printf, 4, 5))) static int
fail_key(loader *ld, const section *sec, const char *key, const char *fmt, ...)
{
  int line = line_of(sec, key);
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, line ? line : sec->line, sec->name, key, fmt, ap);
  va_end(ap);
  return 0;
}

static int fail_memory(loader *ld)
{
  snprintf(ld->message, sizeof ld->message, "%s: out of memory", ld->path);
  ld->status = MS_ERR_RUNTIME;
  ld->error_line = 0;
  return 0;
}

/* Returns `array` grown to hold at least `need` elements of `size` bytes, or NULL
 * (leaving it as it was). */
static void *grow(void *array, int *cap, int need, size_t size)
{
  if (need <= *cap)
    return array;
  int n = *cap ? *cap * 2 : 8;
  while (n < need)
    n *= 2;
  void *p = realloc(array, (size_t)n * size);
  if (p)
    *cap = n;
  return p;
}

/* ---- values ---------------------------------------------------------------------- */

/* One whole number: no trailing text, no NaN/Inf. */
static int parse_number(loader *ld, const char *text, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text)
    return bad_value(ld, "expected a number, got '%s'", text);
  if (*end)
    return bad_value(ld, "expected a number, got '%s' (trailing '%s')", text, end);
  if (isinf(v) && errno == ERANGE)
    return bad_value(ld, "number out of range: '%s'", text);
  if (!isfinite(v))
    return bad_value(ld, "NaN/Inf not allowed (got '%s')", text);
  *out = v;
  return 1;
}

static int to_float(loader *ld, double v, float *out)
{
  if (fabs(v) > FLT_MAX)
    return bad_value(ld, "%g does not fit in a float", v);
  *out = (float)v;
  return 1;
}

static int positive(loader *ld, double v)
{
  return v > 0.0 ? 1 : bad_value(ld, "must be > 0 (got %g)", v);
}

static int at_least(loader *ld, double v, double lo)
{
  return v >= lo ? 1 : bad_value(ld, "must be >= %g (got %g)", lo, v);
}

static int read_positive(loader *ld, const char *text, double *out)
{
  return parse_number(ld, text, out) && positive(ld, *out);
}

static int read_positive_float(loader *ld, const char *text, float *out)
{
  double v = 0.0;
  return read_positive(ld, text, &v) && to_float(ld, v, out);
}

static int read_long(loader *ld, const char *text, long lo, long hi, long *out)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end)
    return bad_value(ld, "expected an integer, got '%s'", text);
  if (errno == ERANGE || v < lo || v > hi) {
    if (hi == LONG_MAX)
      return bad_value(ld, "must be >= %ld (got %s)", lo, text);
    return bad_value(ld, "must be between %ld and %ld (got %s)", lo, hi, text);
  }
  *out = v;
  return 1;
}

static int read_int(loader *ld, const char *text, int lo, int hi, int *out)
{
  long v = 0;
  if (!read_long(ld, text, lo, hi, &v))
    return 0;
  *out = (int)v;
  return 1;
}

static int read_seed(loader *ld, const char *text, uint64_t *out)
{
  /* strtoull would quietly wrap "-1" around, hence the digit check. */
  if (!isdigit((unsigned char)text[0]))
    return bad_value(ld, "expected an unsigned 64-bit integer, got '%s'", text);
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end)
    return bad_value(ld, "expected an unsigned 64-bit integer, got '%s'", text);
  if (errno == ERANGE)
    return bad_value(ld, "does not fit in an unsigned 64-bit integer (got %s)", text);
  *out = (uint64_t)v;
  return 1;
}

/* Exactly n comma-separated numbers, each rounded to float (positions and radii
 * are floats in the scene, and comparisons must agree with them). */
static int read_vector(loader *ld, const char *text, int n, double *out)
{
  char buf[512];
  if (strlen(text) >= sizeof buf)
    return bad_value(ld, "value too long");
  strcpy(buf, text);
  int parts = 1;
  for (const char *p = buf; *p; p++)
    parts += *p == ',';
  if (parts != n)
    return bad_value(ld, "expected %d comma-separated numbers, got %d ('%s')", n, parts, text);
  char *p = buf;
  for (int i = 0; i < n; i++) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    float f = 0.0f;
    if (!parse_number(ld, ms_trim(p), &out[i]) || !to_float(ld, out[i], &f))
      return 0;
    out[i] = f;
    if (comma)
      p = comma + 1;
  }
  return 1;
}

static int read_vec2f(loader *ld, const char *text, float out[2])
{
  double v[2] = {0.0, 0.0};
  if (!read_vector(ld, text, 2, v))
    return 0;
  out[0] = (float)v[0];
  out[1] = (float)v[1];
  return 1;
}

static int read_region(loader *ld, const char *text, double out[4])
{
  if (!read_vector(ld, text, 4, out))
    return 0;
  if (!(out[2] > out[0] && out[3] > out[1]))
    return bad_value(ld, "needs x1 > x0 and y1 > y0 (got '%s')", text);
  return 1;
}

static int read_bool(loader *ld, const char *text, int *out)
{
  static const char *const yes[] = {"true", "yes", "1"}, *const no[] = {"false", "no", "0"};
  for (int i = 0; i < 3; i++) {
    if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
      *out = strcasecmp(text, yes[i]) == 0;
      return 1;
    }
  }
  return bad_value(ld, "expected true/false/yes/no/1/0, got '%s'", text);
}

/* ---- keys of each section -------------------------------------------------------- */

static int is(const char *key, const char *name) { return strcmp(key, name) == 0; }

static int set_simulation(loader *ld, const char *key, const char *v)
{
  ms_scene *s = ld->scene;
  if (is(key, "mode")) {
    s->mode = MS_MODE_COLLISION;
    if (is(v, "collision"))
      return 1;
    if (is(v, "gravity")) {
      s->mode = MS_MODE_GRAVITY;
      return 1;
    }
    return bad_value(ld, "expected collision or gravity, got '%s'", v);
  }
  if (is(key, "dt")) {
    s->dt_line = ld->line;
    return read_positive(ld, v, &s->dt_s);
  }
  if (is(key, "steps"))
    return read_long(ld, v, 1, LONG_MAX, &s->steps);
  if (is(key, "iterations_per_frame"))
    return read_int(ld, v, 1, 1000, &s->iterations_per_frame);
  if (is(key, "seed"))
    return read_seed(ld, v, &s->seed);
  if (is(key, "pipeline"))
    return ms_pipeline_parse(v, &s->pipeline) ||
           bad_value(ld, "expected naive or reordered, got '%s'", v);
  if (is(key, "buffers"))
    return ms_buffer_mode_parse(v, &s->buffers) ||
           bad_value(ld, "expected shared or copied, got '%s'", v);
  if (is(key, "max_speed"))
    return read_positive_float(ld, v, &s->max_speed);
  return read_vec2f(ld, v, s->gravity); /* gravity */
}

static int set_box(loader *ld, const char *key, const char *v)
{
  return read_vec2f(ld, v, is(key, "min") ? ld->scene->box_min : ld->scene->box_max);
}

static int set_material(loader *ld, const char *key, const char *v)
{
  if (is(key, "stiffness"))
    return read_positive_float(ld, v, &ld->scene->stiffness);
  double e = 0.0;
  if (!parse_number(ld, v, &e))
    return 0;
  if (!(e > 0.0 && e <= 1.0))
    return bad_value(ld, "must be in (0, 1] (got %g)", e);
  ld->scene->restitution = (float)e;
  return 1;
}

static int set_grid(loader *ld, const char *key, const char *v)
{
  (void)key; /* capacity */
  return read_int(ld, v, 1, 4096, &ld->scene->grid_capacity);
}

static int read_spread(loader *ld, const char *v, double *out)
{
  return parse_number(ld, v, out) && at_least(ld, *out, 0.0);
}

static int set_small(loader *ld, const char *key, const char *v)
{
  small_spec *sm = &ld->small;
  ms_scene *s = ld->scene;
  if (is(key, "count"))
    return read_long(ld, v, 0, MAX_SMALL, &sm->count);
  if (is(key, "radius"))
    return read_positive_float(ld, v, &s->small_radius);
  if (is(key, "density"))
    return read_positive_float(ld, v, &s->small_density);
  if (is(key, "placement")) {
    sm->random = is(v, "random");
    if (!sm->random && !is(v, "lattice"))
      return bad_value(ld, "expected lattice or random, got '%s'", v);
    return 1;
  }
  if (is(key, "region"))
    return read_region(ld, v, sm->region);
  if (is(key, "spacing"))
    return parse_number(ld, v, &sm->spacing) && at_least(ld, sm->spacing, 1.0);
  if (is(key, "velocity"))
    return read_vec2f(ld, v, sm->velocity);
  return read_spread(ld, v, &sm->spread); /* velocity_spread */
}

static int set_large(loader *ld, large_spec *l, const char *key, const char *v)
{
  if (is(key, "position"))
    return read_vec2f(ld, v, l->position);
  if (is(key, "radius"))
    return read_positive_float(ld, v, &l->radius);
  if (is(key, "density"))
    return read_positive(ld, v, &l->density);
  if (is(key, "velocity"))
    return read_vec2f(ld, v, l->velocity);
  return read_bool(ld, v, &l->is_static); /* static */
}

static int set_group(loader *ld, group_spec *g, const char *key, const char *v)
{
  if (is(key, "count"))
    return read_long(ld, v, 1, MAX_GROUP, &g->count);
  if (is(key, "radius_min"))
    return read_positive_float(ld, v, &g->radius_min);
  if (is(key, "radius_max"))
    return read_positive_float(ld, v, &g->radius_max);
  if (is(key, "region"))
    return read_region(ld, v, g->region);
  if (is(key, "density"))
    return read_positive(ld, v, &g->density);
  if (is(key, "velocity"))
    return read_vec2f(ld, v, g->velocity);
  if (is(key, "velocity_spread"))
    return read_spread(ld, v, &g->spread);
  return read_bool(ld, v, &g->is_static); /* static */
}

static int read_choice(loader *ld, const char *v, const char *const *names, int n, int *out)
{
  char list[200] = "";
  for (int i = 0; i < n; i++) {
    if (is(v, names[i])) {
      *out = i;
      return 1;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " | " : "", names[i]);
  }
  return bad_value(ld, "expected %s, got '%s'", list, v);
}

static int set_gravity(loader *ld, const char *key, const char *v)
{
  static const char *const bodies[] = {"plummer", "uniform", "kepler", "disk", "file"};
  static const char *const integrators[] = {"leapfrog", "taylor"};
  static const char *const energies[] = {"auto", "exact", "sampled", "off"};
  ms_gravity_scene *g = &ld->scene->grav;
  int choice = 0;
  if (is(key, "bodies")) {
    if (!read_choice(ld, v, bodies, 5, &choice))
      return 0;
    g->bodies = (ms_bodies)choice;
    return 1;
  }
  if (is(key, "integrator")) {
    if (!read_choice(ld, v, integrators, 2, &choice))
      return 0;
    g->integrator = (ms_integrator)choice;
    return 1;
  }
  if (is(key, "energy")) {
    if (!read_choice(ld, v, energies, 4, &choice))
      return 0;
    g->energy = (ms_energy_mode)choice;
    return 1;
  }
  if (is(key, "count"))
    return read_int(ld, v, 1, MS_GRAVITY_MAX_BODIES, &g->count);
  if (is(key, "burst"))
    return read_long(ld, v, 1, 1000000, &g->burst);
  if (is(key, "diagnostics_every"))
    return read_long(ld, v, 0, LONG_MAX, &g->diagnostics_every);
  if (is(key, "softening")) {
    if (!parse_number(ld, v, &g->softening))
      return 0;
    if (!(g->softening >= 1e-12 && g->softening <= 1e18))
      return bad_value(ld, "must be between 1e-12 and 1e18 (got %g): eps^2 and 1/eps^3 must "
                           "fit in a float, and eps > 0 keeps the self term finite",
                       g->softening);
    return 1;
  }
  if (is(key, "eccentricity")) {
    if (!parse_number(ld, v, &g->eccentricity))
      return 0;
    return (g->eccentricity >= 0.0 && g->eccentricity < 1.0) ||
           bad_value(ld, "must be in [0, 1) (got %g)", g->eccentricity);
  }
  if (is(key, "central_mass") || is(key, "thickness")) {
    double *out = is(key, "thickness") ? &g->thickness : &g->central_mass;
    return parse_number(ld, v, out) && at_least(ld, *out, 0.0);
  }
  if (is(key, "file")) {
    if (strlen(v) >= sizeof ld->body_file)
      return bad_value(ld, "path too long");
    strcpy(ld->body_file, v);
    return 1;
  }
  double *positive_key = is(key, "G")                 ? &g->g
                         : is(key, "mass")            ? &g->mass
                         : is(key, "radius")          ? &g->radius
                         : is(key, "semi_major_axis") ? &g->semi_major_axis
                                                      : &g->mass_ratio;
  return read_positive(ld, v, positive_key);
}

static int set_key(loader *ld, const section *sec, const char *key, const char *v)
{
  switch (sec->kind) {
  case SEC_SIMULATION: return set_simulation(ld, key, v);
  case SEC_BOX: return set_box(ld, key, v);
  case SEC_MATERIAL: return set_material(ld, key, v);
  case SEC_GRID: return set_grid(ld, key, v);
  case SEC_SMALL: return set_small(ld, key, v);
  case SEC_GRAVITY: return set_gravity(ld, key, v);
  case SEC_LARGE: return set_large(ld, &ld->large[sec->item], key, v);
  case SEC_LARGE_RANDOM: return set_group(ld, &ld->groups[sec->item], key, v);
  case SEC_KIND_COUNT: break;
  }
  return 0;
}

static int unknown_key(loader *ld, const section *sec, const char *key)
{
  char known[256] = "";
  for (int i = 0; g_keys[sec->kind][i]; i++) {
    strcat(known, i ? ", " : "");
    strcat(known, g_keys[sec->kind][i]);
  }
  return fail_at(ld, ld->line, sec->name, key, "unknown key (expected one of: %s)", known);
}

/* inih calls this for every key; the section comes from our own reader, which also
 * sees headers of empty sections. */
static int on_key(void *user, const char *inih_section, const char *key, const char *value)
{
  loader *ld = user;
  (void)inih_section;
  if (ld->status != MS_OK)
    return 0;
  if (ld->current < 0)
    return fail_at(ld, ld->line, NULL, key, "key outside any section");
  section *sec = &ld->sections[ld->current];
  int k = key_index(sec->kind, key);
  if (k < 0)
    return unknown_key(ld, sec, key);
  if (sec->key_line[k])
    return fail_at(ld, ld->line, sec->name, key, "key given twice (first at line %d)",
                   sec->key_line[k]);
  sec->key_line[k] = ld->line;
  ld->key = key;
  int ok = set_key(ld, sec, key, value);
  ld->key = NULL;
  return ok;
}

/* ---- lines and section headers --------------------------------------------------- */

static int kind_of(const char *name, section_kind *kind)
{
  for (int k = 0; k < SEC_KIND_COUNT; k++) {
    const char *want = g_kind_names[k];
    size_t n = strlen(want);
    int prefix = want[n - 1] == '.';
    if (prefix ? strncmp(name, want, n) == 0 : strcmp(name, want) == 0) {
      *kind = (section_kind)k;
      return 1;
    }
  }
  return 0;
}

/* NAME of [large.NAME] / [large_random.NAME]: non-empty, letters, digits, _ and -. */
static int valid_item_name(const char *s)
{
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
      return 0;
  return 1;
}

static int add_item(loader *ld, section *sec)
{
  int index = ld->section_count - 1;
  if (sec->kind == SEC_LARGE) {
    large_spec *grown = grow(ld->large, &ld->large_cap, ld->large_count + 1, sizeof *grown);
    if (!grown)
      return fail_memory(ld);
    ld->large = grown;
    sec->item = ld->large_count++;
    ld->large[sec->item] = (large_spec){.section = index, .density = 1000.0};
  } else if (sec->kind == SEC_LARGE_RANDOM) {
    group_spec *grown = grow(ld->groups, &ld->group_cap, ld->group_count + 1, sizeof *grown);
    if (!grown)
      return fail_memory(ld);
    ld->groups = grown;
    sec->item = ld->group_count++;
    ld->groups[sec->item] = (group_spec){.section = index, .density = 1000.0};
  } else if (sec->kind == SEC_SMALL) {
    ld->small.section = index;
  }
  return 1;
}

static int begin_section(loader *ld, const char *name)
{
  section_kind kind;
  if (!kind_of(name, &kind))
    return fail_at(ld, ld->line, name, NULL,
                   "unknown section (expected simulation, box, material, grid, small, "
                   "gravity, large.NAME or large_random.NAME)");
  if (kind >= SEC_LARGE && !valid_item_name(strchr(name, '.') + 1))
    return fail_at(ld, ld->line, name, NULL,
                   "NAME must be non-empty and use only letters, digits, '_' and '-'");
  for (int i = 0; i < ld->section_count; i++)
    if (strcmp(ld->sections[i].name, name) == 0)
      return fail_at(ld, ld->line, name, NULL, "section given twice (first at line %d)",
                     ld->sections[i].line);
  section *grown = grow(ld->sections, &ld->section_cap, ld->section_count + 1, sizeof *grown);
  if (!grown)
    return fail_memory(ld);
  ld->sections = grown;
  section *sec = &ld->sections[ld->section_count++];
  *sec = (section){.line = ld->line, .kind = kind};
  strcpy(sec->name, name);
  ld->current = ld->section_count - 1;
  return add_item(ld, sec);
}

/* `p` points just after '['. */
static int take_header(loader *ld, const char *p)
{
  const char *close = strchr(p, ']');
  if (!close)
    return fail_at(ld, ld->line, NULL, NULL, "unterminated section header (missing ']')");
  const char *rest = close + 1;
  while (isspace((unsigned char)*rest))
    rest++;
  if (*rest && *rest != ';' && *rest != '#')
    return fail_at(ld, ld->line, NULL, NULL, "unexpected text '%.*s' after the section header",
                   (int)strcspn(rest, "\r\n"), rest);
  char name[NAME_MAX_LEN];
  size_t n = (size_t)(close - p);
  if (n >= sizeof name)
    return fail_at(ld, ld->line, NULL, NULL, "section name too long (at most %d characters)",
                   NAME_MAX_LEN - 1);
  memcpy(name, p, n);
  name[n] = '\0';
  return begin_section(ld, ms_trim(name));
}

/* A key line needs '=' before any ':' or inline comment (inih would split at ':'). */
static int take_key_line(loader *ld, const char *p)
{
  for (const char *q = p; *q && *q != ':'; q++) {
    if (*q == '=')
      return 1;
    if (*q == ';' && q > p && isspace((unsigned char)q[-1]))
      break;
  }
  return fail_at(ld, ld->line, current_name(ld), NULL,
                 "syntax error: expected 'key = value' or '[section]'");
}

/* Sees every line before inih does: counts lines, rejects lines that inih would cut
 * in two, and follows section headers. Returns 0 to stop the parse. */
static int take_line(loader *ld, const char *line, int complete)
{
  ld->line++;
  if (!complete)
    return fail_at(ld, ld->line, NULL, NULL, "line too long (at most %d characters)",
                   ld->line_limit);
  const char *p = line;
  if (ld->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  const char *start = p;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '\0' || *p == ';' || *p == '#')
    return 1;
  if (p > start) /* inih would glue the line onto the previous value */
    return fail_at(ld, ld->line, current_name(ld), NULL,
                   "indented line (lines must start at the first column)");
  if (*p == '[')
    return take_header(ld, p + 1);
  return take_key_line(ld, p);
}

static char *read_file_line(char *buf, int size, void *stream)
{
  loader *ld = stream;
  if (ld->status != MS_OK || !fgets(buf, size, ld->file))
    return NULL;
  size_t n = strlen(buf);
  int complete = 1;
  if (n == (size_t)size - 1 && buf[n - 1] != '\n') {
    int c = fgetc(ld->file);
    complete = c == EOF;
    if (c != EOF)
      ungetc(c, ld->file);
  }
  ld->line_limit = size - 3; /* room for "\r\n" */
  return take_line(ld, buf, complete) ? buf : NULL;
}

static char *read_text_line(char *buf, int size, void *stream)
{
  loader *ld = stream;
  if (ld->status != MS_OK || !*ld->text)
    return NULL;
  int n = 0;
  while (n < size - 1 && ld->text[n]) {
    buf[n] = ld->text[n];
    if (buf[n++] == '\n')
      break;
  }
  buf[n] = '\0';
  ld->text += n;
  ld->line_limit = size - 3; /* room for "\r\n" */
  int complete = buf[n - 1] == '\n' || !*ld->text;
  return take_line(ld, buf, complete) ? buf : NULL;
}

/* ---- checks after parsing -------------------------------------------------------- */

static const section *find_kind(const loader *ld, section_kind kind)
{
  for (int i = 0; i < ld->section_count; i++)
    if (ld->sections[i].kind == kind)
      return &ld->sections[i];
  return NULL;
}

static int check_required(loader *ld)
{
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    for (int k = 0; g_required[sec->kind][k]; k++)
      if (!line_of(sec, g_required[sec->kind][k]))
        return fail_at(ld, sec->line, sec->name, g_required[sec->kind][k],
                       "required key is missing");
    if (sec->kind == SEC_SMALL && ld->small.count > 0 && !line_of(sec, "radius"))
      return fail_at(ld, sec->line, sec->name, "radius",
                     "required key is missing (count is %ld)", ld->small.count);
  }
  static const section_kind collision_needs[] = {SEC_SIMULATION, SEC_BOX, SEC_MATERIAL};
  static const section_kind gravity_needs[] = {SEC_SIMULATION, SEC_GRAVITY};
  int gravity = ld->scene->mode == MS_MODE_GRAVITY;
  const section_kind *needed = gravity ? gravity_needs : collision_needs;
  size_t n_needed = gravity ? 2 : 3;
  for (size_t i = 0; i < n_needed; i++)
    if (!find_kind(ld, needed[i]))
      return fail_at(ld, 0, g_kind_names[needed[i]], NULL, "required section is missing");
  return 1;
}

static int region_in_box(const ms_scene *s, const double r[4])
{
  return r[0] >= s->box_min[0] && r[1] >= s->box_min[1] && r[2] <= s->box_max[0] &&
         r[3] <= s->box_max[1];
}

static int check_region(loader *ld, const section *sec, const double r[4])
{
  const ms_scene *s = ld->scene;
  if (region_in_box(s, r))
    return 1;
  return fail_key(ld, sec, "region", "must lie inside the box (%g, %g .. %g, %g)",
                  s->box_min[0], s->box_min[1], s->box_max[0], s->box_max[1]);
}

static int check_small(loader *ld, const section *sec)
{
  small_spec *sm = &ld->small;
  if (line_of(sec, "region") && !check_region(ld, sec, sm->region))
    return 0;
  if (sm->random && line_of(sec, "spacing"))
    return fail_key(ld, sec, "spacing", "only applies to placement = lattice");
  return 1;
}

static int check_large(loader *ld, const section *sec)
{
  const large_spec *l = &ld->large[sec->item];
  if (l->is_static && (l->velocity[0] != 0.0f || l->velocity[1] != 0.0f))
    return fail_key(ld, sec, "velocity", "a static particle must have velocity 0, 0");
  return 1;
}

static int check_group(loader *ld, const section *sec)
{
  const group_spec *g = &ld->groups[sec->item];
  if (g->radius_max < g->radius_min)
    return fail_key(ld, sec, "radius_max", "must be >= radius_min (%g > %g)",
                    (double)g->radius_min, (double)g->radius_max);
  if (!check_region(ld, sec, g->region))
    return 0;
  double d = 2.0 * g->radius_max;
  if (g->region[2] - g->region[0] < d || g->region[3] - g->region[1] < d)
    return fail_key(ld, sec, "region", "too small for a disc of radius_max %g",
                    (double)g->radius_max);
  if (g->is_static && (g->velocity[0] != 0.0f || g->velocity[1] != 0.0f))
    return fail_key(ld, sec, "velocity", "static particles must have velocity 0, 0");
  if (g->is_static && g->spread != 0.0)
    return fail_key(ld, sec, "velocity_spread", "static particles must have velocity_spread 0");
  return 1;
}

static int check_sections(loader *ld)
{
  const ms_scene *s = ld->scene;
  const section *box = find_kind(ld, SEC_BOX);
  if (!(s->box_max[0] > s->box_min[0] && s->box_max[1] > s->box_min[1]))
    return fail_key(ld, box, "max", "must be greater than min in x and y (min = %g, %g)",
                    s->box_min[0], s->box_min[1]);
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    int ok = sec->kind == SEC_SMALL        ? check_small(ld, sec)
             : sec->kind == SEC_LARGE      ? check_large(ld, sec)
             : sec->kind == SEC_LARGE_RANDOM ? check_group(ld, sec)
                                           : 1;
    if (!ok)
      return 0;
  }
  return 1;
}

/* ---- placement ------------------------------------------------------------------- */

/* Discs hashed by cell; a query looks at the 3 x 3 cells around a point, so the
 * cell size must be at least the largest sum of radii that can overlap. */
typedef struct disc_hash {
  double inv_cell;
  uint32_t mask;
  int *head; /* bucket -> first disc, -1 = none */
  int *next; /* disc -> next disc in its bucket */
  float *x, *y, *r;
  float r_all; /* radius of every disc when r is NULL */
  int count;
} disc_hash;

static int hash_init(disc_hash *h, double cell, int capacity, int own_radii)
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
  h->r = own_radii ? malloc(n * sizeof *h->r) : NULL;
  if (!h->head || !h->next || !h->x || !h->y || (own_radii && !h->r))
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

static void hash_insert(disc_hash *h, float x, float y, float r)
{
  int i = h->count++;
  h->x[i] = x;
  h->y[i] = y;
  if (h->r)
    h->r[i] = r;
  uint32_t b = hash_bucket(h, (int64_t)floor(x * h->inv_cell), (int64_t)floor(y * h->inv_cell));
  h->next[i] = h->head[b];
  h->head[b] = i;
}

/* Index of a disc that a disc of radius r at (x, y) would overlap, or -1. */
static int hash_overlap(const disc_hash *h, double x, double y, double r)
{
  int64_t cx = (int64_t)floor(x * h->inv_cell), cy = (int64_t)floor(y * h->inv_cell);
  for (int64_t j = cy - 1; j <= cy + 1; j++)
    for (int64_t i = cx - 1; i <= cx + 1; i++)
      for (int d = h->head[hash_bucket(h, i, j)]; d >= 0; d = h->next[d]) {
        double dx = x - h->x[d], dy = y - h->y[d];
        double sum = r + (h->r ? h->r[d] : h->r_all);
        if (dx * dx + dy * dy < sum * sum)
          return d;
      }
  return -1;
}

static double disc_mass(double density, double r) { return density * MS_PI * r * r; }

static void add_large(ms_scene *s, disc_hash *h, float x, float y, float r, double density,
                      float vx, float vy, int is_static)
{
  s->large[s->large_count++] = (ms_large){
      .x = x, .y = y, .vx = vx, .vy = vy, .radius = r,
      .mass = (float)disc_mass(density, r), .is_static = is_static};
  hash_insert(h, x, y, r);
}

static int place_explicit(loader *ld, disc_hash *h)
{
  ms_scene *s = ld->scene;
  for (int i = 0; i < ld->large_count; i++) {
    const large_spec *l = &ld->large[i];
    const section *sec = &ld->sections[l->section];
    double x = l->position[0], y = l->position[1], r = l->radius;
    if (x - r < s->box_min[0] || y - r < s->box_min[1] || x + r > s->box_max[0] ||
        y + r > s->box_max[1])
      return fail_key(ld, sec, "position", "disc of radius %g at (%g, %g) sticks out of the box",
                      r, x, y);
    int other = hash_overlap(h, x, y, r);
    if (other >= 0)
      return fail_key(ld, sec, "position", "overlaps [%s]",
                      ld->sections[ld->large[other].section].name);
    add_large(s, h, l->position[0], l->position[1], l->radius, l->density, l->velocity[0],
              l->velocity[1], l->is_static);
  }
  return 1;
}

/* v + uniform(-spread, spread); always draws, so positions never depend on spread. */
static float jitter(ms_rng *rng, float v, double spread)
{
  return (float)(v + ms_rng_range(rng, -spread, spread));
}

static int place_group(loader *ld, const group_spec *g, disc_hash *h, ms_rng *rng)
{
  ms_scene *s = ld->scene;
  for (long n = 0; n < g->count; n++) {
    float r = (float)ms_rng_range(rng, g->radius_min, g->radius_max);
    float x = 0.0f, y = 0.0f;
    int attempt = 0;
    for (; attempt < LARGE_ATTEMPTS; attempt++) {
      x = (float)ms_rng_range(rng, g->region[0] + r, g->region[2] - r);
      y = (float)ms_rng_range(rng, g->region[1] + r, g->region[3] - r);
      if (hash_overlap(h, x, y, r) < 0)
        break;
    }
    if (attempt == LARGE_ATTEMPTS)
      return fail_key(ld, &ld->sections[g->section], "count",
                      "could only place %ld of %ld particles without overlap", n, g->count);
    float vx = jitter(rng, g->velocity[0], g->spread);
    float vy = jitter(rng, g->velocity[1], g->spread);
    if (g->is_static)
      vx = vy = 0.0f;
    add_large(s, h, x, y, r, g->density, vx, vy, g->is_static);
  }
  return 1;
}

static int place_lattice(loader *ld, const disc_hash *large)
{
  ms_scene *s = ld->scene;
  const small_spec *sm = &ld->small;
  const double *reg = sm->region;
  double r = s->small_radius, pitch = sm->spacing * 2.0 * r;
  long placed = 0;
  for (long j = 0; placed < sm->count; j++) {
    float y = (float)(reg[1] + r + (double)j * pitch);
    if (y + r > reg[3])
      break;
    for (long i = 0; placed < sm->count; i++) {
      float x = (float)(reg[0] + r + (double)i * pitch);
      if (x + r > reg[2])
        break;
      if (hash_overlap(large, x, y, r) >= 0)
        continue;
      s->small_pos[2 * placed] = x;
      s->small_pos[2 * placed + 1] = y;
      placed++;
    }
  }
  if (placed < sm->count)
    return fail_key(ld, &ld->sections[sm->section], "count",
                    "only %ld of %ld small particles fit on the lattice in the region", placed,
                    sm->count);
  return 1;
}

static int place_random(loader *ld, const disc_hash *large, ms_rng *rng)
{
  ms_scene *s = ld->scene;
  const small_spec *sm = &ld->small;
  const double *reg = sm->region;
  double r = s->small_radius;
  const section *sec = &ld->sections[sm->section];
  if (reg[2] - reg[0] < 2.0 * r || reg[3] - reg[1] < 2.0 * r)
    return fail_key(ld, sec, "count", "could only place 0 of %ld small particles: the region "
                    "is narrower than one particle", sm->count);
  disc_hash own;
  if (!hash_init(&own, 2.0 * r, s->small_count, 0)) {
    hash_free(&own);
    return fail_memory(ld);
  }
  own.r_all = s->small_radius;
  for (int n = 0; n < s->small_count; n++) {
    int attempt = 0;
    float x = 0.0f, y = 0.0f;
    for (; attempt < SMALL_ATTEMPTS; attempt++) {
      x = (float)ms_rng_range(rng, reg[0] + r, reg[2] - r);
      y = (float)ms_rng_range(rng, reg[1] + r, reg[3] - r);
      if (hash_overlap(large, x, y, r) < 0 && hash_overlap(&own, x, y, r) < 0)
        break;
    }
    if (attempt == SMALL_ATTEMPTS) {
      hash_free(&own);
      return fail_key(ld, sec, "count",
                      "could only place %d of %ld small particles without overlap", n,
                      sm->count);
    }
    s->small_pos[2 * n] = x;
    s->small_pos[2 * n + 1] = y;
    hash_insert(&own, x, y, s->small_radius);
  }
  hash_free(&own);
  return 1;
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
  if (!s->small_pos || !s->small_vel)
    return fail_memory(ld);
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
    if (total > MAX_LARGE_TOTAL)
      return fail_key(ld, &ld->sections[g->section], "count",
                      "too many large particles in total (at most %ld)", MAX_LARGE_TOTAL);
  }
  /* A query disc is a large one (r <= r_max) or a small one. */
  double cell = r_max + fmax(r_max, s->small_radius);
  if (!hash_init(h, cell > 0.0 ? cell : 1.0, (int)total, 1))
    return fail_memory(ld);
  s->large = malloc((total > 0 ? (size_t)total : 1) * sizeof *s->large);
  return s->large ? 1 : fail_memory(ld);
}

static int place_all(loader *ld)
{
  ms_scene *s = ld->scene;
  ms_rng rng = {s->seed};
  disc_hash large = {0}; /* freed below even when prepare_large fails early */
  int ok = prepare_large(ld, &large) && place_explicit(ld, &large);
  for (int i = 0; ok && i < ld->group_count; i++)
    ok = place_group(ld, &ld->groups[i], &large, &rng);
  ok = ok && place_small(ld, &large, &rng);
  hash_free(&large);
  return ok;
}

/* ---- dt against the contact time ------------------------------------------------- */

static void consider(double k, double e, double m_eff, const char *kind, double *best,
                     const char **best_kind)
{
  double t = ms_contact_time(k, e, m_eff);
  if (t < *best) {
    *best = t;
    *best_kind = kind;
  }
}

static double min_contact_time(const ms_scene *s, const char **kind)
{
  double k = s->stiffness, e = s->restitution, best = INFINITY;
  double m_s = s->small_mass;
  *kind = "none";
  if (s->small_count >= 2)
    consider(k, e, m_s / 2.0, "small-small", &best, kind);
  if (s->small_count >= 1)
    consider(k, e, m_s, "small-wall", &best, kind);
  double light1 = INFINITY, light2 = INFINITY; /* the two lightest dynamic large */
  int dynamic = 0, statics = 0;
  for (int i = 0; i < s->large_count; i++) {
    const ms_large *l = &s->large[i];
    if (s->small_count >= 1)
      consider(k, e, ms_effective_mass(m_s, 0, l->mass, l->is_static), "small-large", &best,
               kind);
    if (l->is_static) {
      statics++;
      continue;
    }
    dynamic++;
    if (l->mass < light1) {
      light2 = light1;
      light1 = l->mass;
    } else if (l->mass < light2) {
      light2 = l->mass;
    }
  }
  if (dynamic >= 2)
    consider(k, e, ms_effective_mass(light1, 0, light2, 0), "large-large", &best, kind);
  if (dynamic >= 1 && statics >= 1)
    consider(k, e, light1, "large-large", &best, kind);
  if (dynamic >= 1)
    consider(k, e, light1, "large-wall", &best, kind);
  return best;
}

double ms_scene_min_contact_time(const ms_scene *scene)
{
  const char *kind;
  return min_contact_time(scene, &kind);
}

/* Rounds down to 3 significant digits, so the suggested dt passes when pasted back. */
static double round_down_3(double v)
{
  double unit = pow(10.0, floor(log10(v)) - 2.0);
  return floor(v / unit) * unit;
}

static int check_dt(loader *ld)
{
  const ms_scene *s = ld->scene;
  const char *kind;
  double t_c = min_contact_time(s, &kind);
  if (!isfinite(t_c) || s->dt_s <= t_c / 10.0)
    return 1;
  return fail_at(ld, s->dt_line, "simulation", "dt",
                 "dt = %g s is too large: the stiffest contact (%s) lasts t_c = %.3g s; "
                 "use dt <= %.3g",
                 s->dt_s, kind, t_c, round_down_3(t_c / 10.0));
}

/* ---- gravity mode ---------------------------------------------------------------- */

/* Sections and [simulation] keys of one mode are errors in the other. */
static int check_mode(loader *ld)
{
  const section *sim = find_kind(ld, SEC_SIMULATION);
  int mode_line = sim ? line_of(sim, "mode") : 0;
  if (ld->scene->mode != MS_MODE_GRAVITY) {
    const section *grav = find_kind(ld, SEC_GRAVITY);
    return !grav || fail_at(ld, grav->line, "gravity", NULL,
                            "needs mode = gravity in [simulation]");
  }
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    if (sec->kind != SEC_SIMULATION && sec->kind != SEC_GRAVITY)
      return fail_at(ld, sec->line, sec->name, NULL,
                     "only used in collision mode (mode = gravity at line %d)", mode_line);
  }
  static const char *const collision_keys[] = {"iterations_per_frame", "pipeline", "buffers",
                                               "gravity", "max_speed"};
  for (size_t k = 0; sim && k < sizeof collision_keys / sizeof collision_keys[0]; k++)
    if (line_of(sim, collision_keys[k]))
      return fail_key(ld, sim, collision_keys[k],
                      "only used in collision mode (mode = gravity at line %d)", mode_line);
  return 1;
}

#define B_(b) (1u << (b))
/* Generator keys and the bodies they apply to. */
static const struct {
  const char *key;
  unsigned bodies;
} g_generator_keys[] = {
    {"count", B_(MS_BODIES_PLUMMER) | B_(MS_BODIES_UNIFORM) | B_(MS_BODIES_DISK)},
    {"mass", ~B_(MS_BODIES_FILE)},
    {"radius", B_(MS_BODIES_PLUMMER) | B_(MS_BODIES_UNIFORM) | B_(MS_BODIES_DISK)},
    {"eccentricity", B_(MS_BODIES_KEPLER)},
    {"semi_major_axis", B_(MS_BODIES_KEPLER)},
    {"mass_ratio", B_(MS_BODIES_KEPLER)},
    {"central_mass", B_(MS_BODIES_DISK)},
    {"thickness", B_(MS_BODIES_DISK)},
    {"file", B_(MS_BODIES_FILE)},
};
#undef B_

static int check_gravity_keys(loader *ld, const section *sec)
{
  const ms_gravity_scene *g = &ld->scene->grav;
  for (size_t i = 0; i < sizeof g_generator_keys / sizeof g_generator_keys[0]; i++)
    if (line_of(sec, g_generator_keys[i].key) && !(g_generator_keys[i].bodies & (1u << g->bodies)))
      return fail_key(ld, sec, g_generator_keys[i].key, "does not apply to bodies = %s",
                      ms_bodies_name(g->bodies));
  int needs_count = g->bodies != MS_BODIES_KEPLER && g->bodies != MS_BODIES_FILE;
  if (needs_count && !line_of(sec, "count"))
    return fail_at(ld, sec->line, sec->name, "count", "required key is missing (bodies = %s)",
                   ms_bodies_name(g->bodies));
  if (g->bodies == MS_BODIES_FILE && !line_of(sec, "file"))
    return fail_at(ld, sec->line, sec->name, "file", "required key is missing (bodies = file)");
  if (g->bodies == MS_BODIES_DISK && g->central_mass > 0.0 && g->count < 2)
    return fail_key(ld, sec, "count", "must be >= 2 with a central mass (got %d)", g->count);
  return 1;
}

/* [gravity] file, relative to the scene's folder unless absolute. */
static int resolve_body_file(loader *ld, const section *sec)
{
  ms_gravity_scene *g = &ld->scene->grav;
  const char *slash = strrchr(ld->path, '/');
  int dir_len = ld->body_file[0] != '/' && slash ? (int)(slash - ld->path) + 1 : 0;
  int n = snprintf(g->file, sizeof g->file, "%.*s%s", dir_len, ld->path, ld->body_file);
  if (n < 0 || (size_t)n >= sizeof g->file)
    return fail_key(ld, sec, "file", "path too long");
  return 1;
}

static int read_body_file(loader *ld, const section *sec)
{
  ms_gravity_scene *g = &ld->scene->grav;
  if (!resolve_body_file(ld, sec))
    return 0;
  FILE *f = fopen(g->file, "r");
  if (!f)
    return fail_key(ld, sec, "file", "cannot open '%s': %s", g->file, strerror(errno));
  ms_status st = ms_bodies_read_csv(f, g, ld->message, sizeof ld->message);
  fclose(f);
  if (st == MS_OK)
    return 1;
  ld->status = st;
  ld->error_line = 0;
  return 0;
}

/* The kernels compute in float: dt must survive the rounding, and the self term
 * m_i / eps^3 (multiplied by r = 0) must stay finite, or it would add 0 x inf = NaN. */
static int check_gravity_floats(loader *ld, const section *sec)
{
  const ms_scene *s = ld->scene;
  const ms_gravity_scene *g = &s->grav;
  float dt = (float)s->dt_s;
  if (!(dt >= FLT_MIN && dt <= FLT_MAX))
    return fail_at(ld, s->dt_line, "simulation", "dt", "%g does not fit in a float", s->dt_s);
  double heaviest = 0.0, eps3 = g->softening * g->softening * g->softening;
  for (int i = 0; i < g->count; i++)
    heaviest = fmax(heaviest, g->pos[4 * i + 3]);
  if (heaviest / eps3 > 0.5 * FLT_MAX)
    return fail_key(ld, sec, "softening",
                    "%g is too small for a body of mass %g: m / softening^3 overflows a float",
                    g->softening, heaviest);
  return 1;
}

/* Everything after parsing in gravity mode: checks, then the bodies. */
static int build_gravity(loader *ld)
{
  if (!check_required(ld))
    return 0;
  const section *sec = find_kind(ld, SEC_GRAVITY);
  if (!check_gravity_keys(ld, sec))
    return 0;
  int ok = ld->scene->grav.bodies == MS_BODIES_FILE
             ? read_body_file(ld, sec)
             : ms_bodies_generate(&ld->scene->grav, ld->scene->seed) == MS_OK || fail_memory(ld);
  return ok && check_gravity_floats(ld, sec);
}

/* ---- loading --------------------------------------------------------------------- */

static void loader_init(loader *ld, const char *path, ms_scene *scene)
{
  *ld = (loader){.path = path, .scene = scene, .current = -1};
  ld->small = (small_spec){.section = -1, .spacing = 1.05};
  *scene = (ms_scene){
      .mode = MS_MODE_COLLISION,
      .steps = 1000,
      .iterations_per_frame = 4,
      .seed = 1,
      .pipeline = MS_PIPELINE_REORDERED,
      .buffers = MS_BUFFERS_SHARED,
      .gravity = {0.0f, -9.81f},
      .grid_capacity = 8,
      .small_density = 1000.0f,
      .grav = {.g = 1.0, .burst = 10, .diagnostics_every = 100, .mass = 1.0, .radius = 1.0,
               .semi_major_axis = 1.0, .mass_ratio = 1.0},
  };
  snprintf(scene->path, sizeof scene->path, "%s", path);
}

/* Everything after parsing: checks that need several keys, then placement and dt. */
static int build(loader *ld)
{
  ms_scene *s = ld->scene;
  if (!check_mode(ld))
    return 0;
  if (s->mode == MS_MODE_GRAVITY)
    return build_gravity(ld);
  if (!check_required(ld) || !check_sections(ld))
    return 0;
  small_spec *sm = &ld->small;
  if (sm->section < 0 || !line_of(&ld->sections[sm->section], "region")) {
    const double box[4] = {s->box_min[0], s->box_min[1], s->box_max[0], s->box_max[1]};
    memcpy(sm->region, box, sizeof box);
  }
  s->small_count = (int)sm->count;
  s->small_mass = (float)disc_mass(s->small_density, s->small_radius);
  return place_all(ld) && check_dt(ld);
}

static ms_status finish(loader *ld, int inih_result)
{
  /* inih's own syntax errors: our reader catches the ones we know of first. */
  if (inih_result > 0 && (ld->status == MS_OK || inih_result < ld->error_line)) {
    ld->status = MS_OK;
    fail_at(ld, inih_result, NULL, NULL, "syntax error");
  } else if (inih_result == -2) {
    fail_memory(ld);
  }
  if (ld->status == MS_OK)
    build(ld);
  free(ld->sections);
  free(ld->large);
  free(ld->groups);
  if (ld->status == MS_OK)
    return MS_OK;
  ms_scene_free(ld->scene);
  return ms_fail(ld->status, "%s", ld->message);
}

ms_status ms_scene_load(const char *path, ms_scene *scene)
{
  *scene = (ms_scene){0};
  FILE *f = fopen(path, "r");
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot open scene '%s': %s", path, strerror(errno));
  loader ld;
  loader_init(&ld, path, scene);
  ld.file = f;
  int rc = ini_parse_stream(read_file_line, &ld, on_key, &ld);
  if (ferror(f) && ld.status == MS_OK) {
    snprintf(ld.message, sizeof ld.message, "cannot read scene '%s'", path);
    ld.status = MS_ERR_RUNTIME;
  }
  fclose(f);
  return finish(&ld, rc);
}

ms_status ms_scene_load_string(const char *text, const char *name, ms_scene *scene)
{
  loader ld;
  loader_init(&ld, name, scene);
  ld.text = text;
  int rc = ini_parse_stream(read_text_line, &ld, on_key, &ld);
  return finish(&ld, rc);
}

void ms_scene_free(ms_scene *scene)
{
  if (!scene)
    return;
  free(scene->small_pos);
  free(scene->small_vel);
  free(scene->large);
  free(scene->grav.pos);
  free(scene->grav.vel);
  *scene = (ms_scene){0};
}

const char *ms_pipeline_name(ms_pipeline p)
{
  switch (p) {
  case MS_PIPELINE_NAIVE: return "naive";
  case MS_PIPELINE_REORDERED: return "reordered";
  }
  return "unknown";
}

const char *ms_buffer_mode_name(ms_buffer_mode b)
{
  switch (b) {
  case MS_BUFFERS_SHARED: return "shared";
  case MS_BUFFERS_COPIED: return "copied";
  }
  return "unknown";
}

int ms_pipeline_parse(const char *s, ms_pipeline *out)
{
  if (strcmp(s, "naive") == 0)
    *out = MS_PIPELINE_NAIVE;
  else if (strcmp(s, "reordered") == 0)
    *out = MS_PIPELINE_REORDERED;
  else
    return 0;
  return 1;
}

int ms_buffer_mode_parse(const char *s, ms_buffer_mode *out)
{
  if (strcmp(s, "shared") == 0)
    *out = MS_BUFFERS_SHARED;
  else if (strcmp(s, "copied") == 0)
    *out = MS_BUFFERS_COPIED;
  else
    return 0;
  return 1;
}

const char *ms_bodies_name(ms_bodies b)
{
  switch (b) {
  case MS_BODIES_PLUMMER: return "plummer";
  case MS_BODIES_UNIFORM: return "uniform";
  case MS_BODIES_KEPLER: return "kepler";
  case MS_BODIES_DISK: return "disk";
  case MS_BODIES_FILE: return "file";
  }
  return "unknown";
}

const char *ms_integrator_name(ms_integrator i)
{
  return i == MS_INTEGRATOR_TAYLOR ? "taylor" : "leapfrog";
}

const char *ms_energy_mode_name(ms_energy_mode e)
{
  switch (e) {
  case MS_ENERGY_AUTO: return "auto";
  case MS_ENERGY_EXACT: return "exact";
  case MS_ENERGY_SAMPLED: return "sampled";
  case MS_ENERGY_OFF: return "off";
  }
  return "unknown";
}

int ms_integrator_parse(const char *s, ms_integrator *out)
{
  if (strcmp(s, "leapfrog") == 0)
    *out = MS_INTEGRATOR_LEAPFROG;
  else if (strcmp(s, "taylor") == 0)
    *out = MS_INTEGRATOR_TAYLOR;
  else
    return 0;
  return 1;
}
