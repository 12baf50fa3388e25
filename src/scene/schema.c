/* Scene loader, schema: the sections and keys of the format, which are required,
 * what each key sets, and the checks that need several keys at once. */
#include "scene/loader.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_GROUP 1000000L
/* An areal density s on a disc of radius r weighs what a sphere of bulk density
 * 3 s / (4 r) does: above this no solid is that dense, so s was likely meant as bulk. */
#define DENSEST_SOLID 25000.0

static const char *const g_kind_names[SEC_KIND_COUNT] = {
    "simulation", "box", "material", "grid", "small", "gravity", "large.", "large_random.",
    "large_file.", "output", "wall.", "inflow.", "outflow.",
};

/* Known keys of each section kind. */
static const char *const g_keys[SEC_KIND_COUNT][MAX_KEYS + 1] = {
    [SEC_SIMULATION] = {"mode", "dt", "steps", "iterations_per_frame", "seed", "pipeline",
                        "buffers", "exchange", "gravity", "max_speed", "cpu_threads",
                        "large_on", "worker_list"},
    [SEC_BOX] = {"min", "max", "periodic", "walls"},
    [SEC_MATERIAL] = {"stiffness", "restitution", "friction", "rolling_friction", "wall_friction",
                      "tangential_stiffness"},
    [SEC_GRID] = {"capacity"},
    [SEC_SMALL] = {"count", "radius", "density", "placement", "region", "spacing", "velocity",
                   "velocity_spread", "radius_min", "radius_max", "radius_distribution", "file",
                   "thickness", "spin"},
    [SEC_GRAVITY] = {"bodies", "count", "G", "softening", "integrator", "burst", "energy",
                     "diagnostics_every", "mass", "radius", "eccentricity", "semi_major_axis",
                     "mass_ratio", "central_mass", "thickness", "file", "dt_check",
                     "max_energy_error"},
    [SEC_LARGE] = {"position", "radius", "density", "velocity", "static", "thickness", "spin"},
    [SEC_LARGE_RANDOM] = {"count", "radius_min", "radius_max", "region", "density", "velocity",
                          "velocity_spread", "static", "thickness", "spin"},
    [SEC_LARGE_FILE] = {"file", "radius", "density", "thickness", "velocity", "static"},
    [SEC_OUTPUT] = {"dir", "every", "format", "diagnostics"},
    [SEC_WALL] = {"segments", "closed", "circle", "velocity", "rotate", "oscillate", "force",
                  "mass", "friction", "restitution"},
    [SEC_INFLOW] = {"kind", "region", "rate", "start", "stop", "max_count", "radius",
                    "radius_min", "radius_max", "radius_distribution", "density", "thickness",
                    "velocity", "velocity_spread", "spin"},
    [SEC_OUTFLOW] = {"region"},
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
    [SEC_LARGE_FILE] = {"file"},
    [SEC_OUTPUT] = {"dir"},
    [SEC_INFLOW] = {"region", "rate"},
    [SEC_OUTFLOW] = {"region"},
};

static int key_index(section_kind kind, const char *key)
{
  for (int i = 0; g_keys[kind][i]; i++)
    if (strcmp(g_keys[kind][i], key) == 0)
      return i;
  return -1;
}

int ms_ld_line_of(const section *sec, const char *key)
{
  int i = key_index(sec->kind, key);
  return i >= 0 ? sec->key_line[i] : 0;
}

int ms_ld_kind_of(const char *name, section_kind *kind)
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

/* Both modes step in float, and positions move by v dt + a dt^2 / 2: dt and dt^2 must
 * be normal floats, or the steps would silently do nothing. */
static int check_dt_float(loader *ld, double dt)
{
  float f = (float)dt;
  if (!(f <= FLT_MAX))
    return ms_ld_bad_value(ld, "%g does not fit in a float", dt);
  float f2 = f * f;
  if (!(f2 >= FLT_MIN))
    return ms_ld_bad_value(ld, "%g s is too small for single precision, which the simulation "
                               "steps in (dt = %g and dt^2 = %g there: x += v dt + a dt^2 / 2 "
                               "would not move); use dt >= %.3g s",
                           dt, (double)f, (double)f2, 1.1e-19);
  return 1;
}

/* The speed check compares v^2 with max_speed^2 in float: the square must be a normal
 * float, or the limit would silently be off (0) or never reached (Inf). */
static int check_max_speed(loader *ld, float max_speed)
{
  float sq = max_speed * max_speed;
  if (sq >= FLT_MIN && sq <= FLT_MAX)
    return 1;
  return ms_ld_bad_value(ld, "%g m/s: its square, which the speed check compares against, is "
                             "%g in single precision; use a value between %.3g and %.3g m/s",
                         (double)max_speed, (double)sq, 1.1e-19, 1.8e19);
}

static int set_simulation(loader *ld, const char *key, const char *v)
{
  ms_scene *s = ld->scene;
  if (ms_ld_is(key, "mode")) {
    s->mode = MS_MODE_COLLISION;
    if (ms_ld_is(v, "collision"))
      return 1;
    if (ms_ld_is(v, "gravity")) {
      s->mode = MS_MODE_GRAVITY;
      return 1;
    }
    return ms_ld_bad_value(ld, "expected collision or gravity, got '%s'", v);
  }
  if (ms_ld_is(key, "dt")) {
    s->dt_line = ld->line;
    return ms_ld_read_positive(ld, v, &s->dt_s) && check_dt_float(ld, s->dt_s);
  }
  if (ms_ld_is(key, "steps"))
    return ms_ld_read_long(ld, v, 0, MS_STEPS_MAX, &s->steps);
  if (ms_ld_is(key, "iterations_per_frame"))
    return ms_ld_read_int(ld, v, 1, 1000, &s->iterations_per_frame);
  if (ms_ld_is(key, "seed"))
    return ms_ld_read_seed(ld, v, &s->seed);
  if (ms_ld_is(key, "pipeline"))
    return ms_pipeline_parse(v, &s->pipeline) ||
           ms_ld_bad_value(ld, "expected naive or reordered, got '%s'", v);
  /* auto: the run times the values (collision/tuner.h); the defaults stay for a run too
   * short to tune, so auto leaves `buffers`, exchange_given and `large_on` alone. */
  if (ms_ld_is(key, "buffers")) {
    if (ms_ld_is(v, "auto")) {
      s->buffers_auto = ld->line;
      return 1;
    }
    if (!ms_buffer_mode_parse(v, &s->buffers))
      return ms_ld_bad_value(ld, "expected shared, copied or auto, got '%s'", v);
    s->buffers_given = 1; /* else the device type decides (collision/sim.c) */
    return 1;
  }
  if (ms_ld_is(key, "exchange")) {
    if (ms_ld_is(v, "auto")) {
      s->exchange_auto = ld->line;
      return 1;
    }
    if (!ms_exchange_parse(v, &s->exchange))
      return ms_ld_bad_value(ld, "expected zone, full or auto, got '%s'", v);
    s->exchange_given = 1; /* else the device type decides (collision/sim.c) */
    return 1;
  }
  if (ms_ld_is(key, "large_on")) {
    if (ms_ld_is(v, "auto")) {
      s->large_on_auto = ld->line;
      return 1;
    }
    return ms_large_on_parse(v, &s->large_on) ||
           ms_ld_bad_value(ld, "expected cpu, device or auto, got '%s'", v);
  }
  if (ms_ld_is(key, "cpu_threads"))
    return ms_ld_read_int(ld, v, 1, MS_CPU_THREADS_MAX, &s->cpu_threads);
  if (ms_ld_is(key, "worker_list")) {
    if (!ms_worker_list_parse(v, &s->worker_list_off))
      return ms_ld_bad_value(ld, "expected on or off, got '%s'", v);
    return 1;
  }
  if (ms_ld_is(key, "max_speed"))
    return ms_ld_read_positive_float(ld, v, &s->max_speed) && check_max_speed(ld, s->max_speed);
  return ms_ld_read_vec2f(ld, v, s->gravity); /* gravity */
}

static int set_box(loader *ld, const char *key, const char *v)
{
  if (ms_ld_is(key, "periodic") || ms_ld_is(key, "walls"))
    return ms_ld_set_box_sides(ld, key, v);
  return ms_ld_read_vec2(ld, v, ms_ld_is(key, "min") ? ld->scene->box_min : ld->scene->box_max);
}

/* A friction coefficient (friction, rolling_friction, wall_friction, a wall's friction):
 * >= 0, a float that is 0 (the default, that part of the law off) or normal. */
int ms_ld_read_coefficient(loader *ld, const char *v, float *out)
{
  double mu = 0.0;
  return ms_ld_parse_number(ld, v, &mu) && ms_ld_at_least(ld, mu, 0.0) && ms_ld_float(ld, mu, out);
}

/* tangential_stiffness = k_t / k_n, a ratio in (0, 1] (docs/friction.md: 1/3 for discs). */
static int read_kt_ratio(loader *ld, const char *v, float *out)
{
  double r = 0.0;
  if (!ms_ld_parse_number(ld, v, &r))
    return 0;
  if (!(r > 0.0 && r <= 1.0))
    return ms_ld_bad_value(ld, "the ratio k_t / k_n must be in (0, 1] (got %g)", r);
  return ms_ld_positive_float(ld, r, out);
}

int ms_ld_read_restitution(loader *ld, const char *v, float *out)
{
  double e = 0.0;
  if (!ms_ld_parse_number(ld, v, &e))
    return 0;
  if (!(e > 0.0 && e <= 1.0))
    return ms_ld_bad_value(ld, "must be in (0, 1] (got %g)", e);
  /* The damping ratio takes log(e): e must stay a normal float. */
  return ms_ld_positive_float(ld, e, out);
}

static int set_material(loader *ld, const char *key, const char *v)
{
  ms_scene *s = ld->scene;
  if (ms_ld_is(key, "friction"))
    return ms_ld_read_coefficient(ld, v, &s->friction);
  if (ms_ld_is(key, "rolling_friction"))
    return ms_ld_read_coefficient(ld, v, &s->rolling_friction);
  if (ms_ld_is(key, "wall_friction"))
    return ms_ld_read_coefficient(ld, v, &s->wall_friction);
  if (ms_ld_is(key, "tangential_stiffness"))
    return read_kt_ratio(ld, v, &s->tangential_stiffness);
  if (ms_ld_is(key, "stiffness"))
    return ms_ld_read_positive_float(ld, v, &ld->scene->stiffness);
  return ms_ld_read_restitution(ld, v, &s->restitution);
}

static int set_grid(loader *ld, const char *key, const char *v)
{
  (void)key; /* capacity */
  return ms_ld_read_int(ld, v, 1, 4096, &ld->scene->grid_capacity);
}

static int read_file_key(loader *ld, particle_file *pf, const char *v)
{
  if (!*v)
    return ms_ld_bad_value(ld, "empty path");
  if (strlen(v) >= sizeof pf->name)
    return ms_ld_bad_value(ld, "path too long");
  strcpy(pf->name, v);
  pf->section = ld->current;
  return 1;
}

static int set_small(loader *ld, const char *key, const char *v)
{
  small_spec *sm = &ld->small;
  ms_scene *s = ld->scene;
  if (ms_ld_is(key, "count"))
    return ms_ld_read_long(ld, v, 0, MS_LD_MAX_SMALL, &sm->count);
  if (ms_ld_is(key, "radius") || ms_ld_is(key, "radius_max"))
    return ms_ld_read_positive_float(ld, v, &s->small_radius);
  if (ms_ld_is(key, "radius_min"))
    return ms_ld_read_positive_float(ld, v, &s->small_radius_min);
  if (ms_ld_is(key, "radius_distribution")) {
    static const char *const names[] = {"uniform", "area"};
    int d = 0;
    if (!ms_ld_read_choice(ld, v, names, 2, &d))
      return 0;
    sm->sizes = (small_sizes)d;
    return 1;
  }
  if (ms_ld_is(key, "file"))
    return read_file_key(ld, &sm->file, v);
  if (ms_ld_is(key, "placement")) {
    sm->random = ms_ld_is(v, "random");
    if (!sm->random && !ms_ld_is(v, "lattice"))
      return ms_ld_bad_value(ld, "expected lattice or random, got '%s'", v);
    return 1;
  }
  if (ms_ld_is(key, "region"))
    return ms_ld_read_region(ld, v, sm->region);
  if (ms_ld_is(key, "spacing"))
    return ms_ld_parse_number(ld, v, &sm->spacing) && ms_ld_at_least(ld, sm->spacing, 1.0);
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, sm->velocity);
  if (ms_ld_is(key, "spin"))
    return ms_ld_parse_number(ld, v, &s->small_spin);
  return ms_ld_read_spread(ld, v, &sm->spread); /* velocity_spread */
}

static int set_large(loader *ld, large_spec *l, const char *key, const char *v)
{
  if (ms_ld_is(key, "position"))
    return ms_ld_read_vec2(ld, v, l->position);
  if (ms_ld_is(key, "radius"))
    return ms_ld_read_positive_float(ld, v, &l->radius);
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, l->velocity);
  if (ms_ld_is(key, "spin"))
    return ms_ld_parse_number(ld, v, &l->spin);
  return ms_ld_read_bool(ld, v, &l->is_static); /* static */
}

static int set_group(loader *ld, group_spec *g, const char *key, const char *v)
{
  if (ms_ld_is(key, "count"))
    return ms_ld_read_long(ld, v, 1, MAX_GROUP, &g->count);
  if (ms_ld_is(key, "radius_min"))
    return ms_ld_read_positive_float(ld, v, &g->radius_min);
  if (ms_ld_is(key, "radius_max"))
    return ms_ld_read_positive_float(ld, v, &g->radius_max);
  if (ms_ld_is(key, "region"))
    return ms_ld_read_region(ld, v, g->region);
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, g->velocity);
  if (ms_ld_is(key, "velocity_spread"))
    return ms_ld_read_spread(ld, v, &g->spread);
  if (ms_ld_is(key, "spin"))
    return ms_ld_parse_number(ld, v, &g->spin);
  return ms_ld_read_bool(ld, v, &g->is_static); /* static */
}

static int set_file_section(loader *ld, particle_file *pf, const char *key, const char *v)
{
  if (ms_ld_is(key, "file"))
    return read_file_key(ld, pf, v);
  if (ms_ld_is(key, "radius"))
    return ms_ld_read_positive_float(ld, v, &pf->radius);
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, pf->velocity);
  return ms_ld_read_bool(ld, v, &pf->is_static); /* static */
}

/* [output]: the folder (relative to the current directory, as --output), frames every
 * K steps, vtk or csv, diagnostics.csv or not; --output, --output-every and
 * --output-format override them (--diagnostics turns it on). */
static int set_output(loader *ld, const char *key, const char *v)
{
  ms_scene *s = ld->scene;
  s->output_line = s->output_line ? s->output_line : ld->line;
  if (ms_ld_is(key, "every"))
    return ms_ld_read_long(ld, v, 1, MS_STEPS_MAX, &s->output_every);
  if (ms_ld_is(key, "diagnostics"))
    return ms_ld_read_bool(ld, v, &s->output_diagnostics);
  if (ms_ld_is(key, "format")) {
    if (!ms_ld_is(v, "vtk") && !ms_ld_is(v, "csv"))
      return ms_ld_bad_value(ld, "expected vtk or csv, got '%s'", v);
    s->output_csv = ms_ld_is(v, "csv");
    return 1;
  }
  if (!*v) /* dir */
    return ms_ld_bad_value(ld, "empty path");
  if (strlen(v) >= sizeof s->output_dir)
    return ms_ld_bad_value(ld, "path too long");
  strcpy(s->output_dir, v);
  return 1;
}

static int set_key(loader *ld, section *sec, const char *key, const char *v)
{
  /* Densities and thicknesses of the particle sections ([gravity] has its own). */
  if (sec->kind != SEC_GRAVITY && ms_ld_is(key, "density"))
    return ms_ld_read_density(ld, v, sec);
  if (sec->kind != SEC_GRAVITY && ms_ld_is(key, "thickness"))
    return ms_ld_read_positive(ld, v, &sec->thickness);
  switch (sec->kind) {
  case SEC_SIMULATION: return set_simulation(ld, key, v);
  case SEC_BOX: return set_box(ld, key, v);
  case SEC_MATERIAL: return set_material(ld, key, v);
  case SEC_GRID: return set_grid(ld, key, v);
  case SEC_SMALL: return set_small(ld, key, v);
  case SEC_GRAVITY: return ms_ld_set_gravity(ld, key, v);
  case SEC_LARGE: return set_large(ld, &ld->large[sec->item], key, v);
  case SEC_LARGE_RANDOM: return set_group(ld, &ld->groups[sec->item], key, v);
  case SEC_LARGE_FILE: return set_file_section(ld, &ld->files[sec->item], key, v);
  case SEC_OUTPUT: return set_output(ld, key, v);
  case SEC_WALL: return ms_ld_set_wall(ld, &ld->scene->walls[sec->item], key, v);
  case SEC_INFLOW: return ms_ld_set_inflow(ld, &ld->scene->inflows[sec->item], key, v);
  case SEC_OUTFLOW: return ms_ld_set_outflow(ld, &ld->scene->outflows[sec->item], key, v);
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
  return ms_ld_fail_at(ld, ld->line, sec->name, key, "unknown key (expected one of: %s)", known);
}

/* inih calls this for every key; the section comes from our own reader, which also
 * sees headers of empty sections. */
int ms_ld_on_key(void *user, const char *inih_section, const char *key, const char *value)
{
  loader *ld = user;
  (void)inih_section;
  if (ld->status != MS_OK)
    return 0;
  if (ld->current < 0)
    return ms_ld_fail_at(ld, ld->line, NULL, key, "key outside any section");
  section *sec = &ld->sections[ld->current];
  int k = key_index(sec->kind, key);
  if (k < 0)
    return unknown_key(ld, sec, key);
  if (sec->key_line[k])
    return ms_ld_fail_at(ld, ld->line, sec->name, key, "key given twice (first at line %d)",
                   sec->key_line[k]);
  sec->key_line[k] = ld->line;
  ld->key = key;
  int ok = set_key(ld, sec, key, value);
  ld->key = NULL;
  return ok;
}

const section *ms_ld_find_kind(const loader *ld, section_kind kind)
{
  for (int i = 0; i < ld->section_count; i++)
    if (ld->sections[i].kind == kind)
      return &ld->sections[i];
  return NULL;
}

int ms_ld_check_required(loader *ld)
{
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    int from_file = sec->kind == SEC_SMALL && ms_ld_line_of(sec, "file");
    for (int k = 0; !from_file && g_required[sec->kind][k]; k++)
      if (!ms_ld_line_of(sec, g_required[sec->kind][k]))
        return ms_ld_fail_at(ld, sec->line, sec->name, g_required[sec->kind][k],
                       "required key is missing");
    if (sec->kind == SEC_SMALL && !from_file && ld->small.count > 0 &&
        !ms_ld_line_of(sec, "radius") &&
        !ms_ld_line_of(sec, "radius_min") && !ms_ld_line_of(sec, "radius_max"))
      return ms_ld_fail_at(ld, sec->line, sec->name, "radius",
                     "required key is missing (count is %ld; or give radius_min and radius_max)",
                     ld->small.count);
  }
  static const section_kind collision_needs[] = {SEC_SIMULATION, SEC_BOX, SEC_MATERIAL};
  static const section_kind gravity_needs[] = {SEC_SIMULATION, SEC_GRAVITY};
  int gravity = ld->scene->mode == MS_MODE_GRAVITY;
  const section_kind *needed = gravity ? gravity_needs : collision_needs;
  size_t n_needed = gravity ? 2 : 3;
  for (size_t i = 0; i < n_needed; i++)
    if (!ms_ld_find_kind(ld, needed[i]))
      return ms_ld_fail_at(ld, 0, g_kind_names[needed[i]], NULL, "required section is missing");
  return 1;
}

static int region_in_box(const ms_scene *s, const double r[4])
{
  return r[0] >= s->box_min[0] && r[1] >= s->box_min[1] && r[2] <= s->box_max[0] &&
         r[3] <= s->box_max[1];
}

int ms_ld_check_region(loader *ld, const section *sec, const double r[4])
{
  const ms_scene *s = ld->scene;
  if (region_in_box(s, r))
    return 1;
  return ms_ld_fail_key(ld, sec, "region", "must lie inside the box (%g, %g .. %g, %g)",
                  s->box_min[0], s->box_min[1], s->box_max[0], s->box_max[1]);
}

/* The section's density as the discs use it, kg/m^2 (1000 when not given): a bulk
 * density times `thickness`. A bare number on discs of radius r_min (> 0) that would
 * be denser than any solid as a sphere is warned about: it was probably meant as bulk. */
int ms_ld_areal_density(loader *ld, const section *sec, double r_min, double *areal)
{
  int given = ms_ld_line_of(sec, "density") != 0, bulk = sec->density_unit == DENSITY_BULK;
  if (ms_ld_line_of(sec, "thickness") && !(given && bulk))
    return ms_ld_fail_key(ld, sec, "thickness",
                          "only converts a bulk density: write density = N kg/m^3 (a bare "
                          "density is already areal, kg/m^2)");
  if (given && bulk && !ms_ld_line_of(sec, "thickness"))
    return ms_ld_fail_key(ld, sec, "density",
                          "a bulk density (kg/m^3) needs thickness = T (m), the discs' "
                          "thickness: the areal density is bulk * T; or give kg/m^2");
  *areal = !given ? 1000.0 : bulk ? sec->density * sec->thickness : sec->density;
  double as_sphere = r_min > 0.0 ? 3.0 * *areal / (4.0 * r_min) : 0.0;
  if (given && sec->density_unit == DENSITY_BARE && as_sphere > DENSEST_SOLID)
    ms_ld_warn_key(ld, sec, "density",
                   "%g kg/m^2 (areal) on discs of radius %g m is as heavy as spheres of %.6g "
                   "kg/m^3, denser than any solid. If %g is a bulk density, write density = %g "
                   "kg/m^3 with thickness = T in m (areal = bulk x T; T = %g, the diameter, "
                   "gives %g kg/m^2); to keep it, write density = %g kg/m^2",
                   *areal, r_min, as_sphere, sec->density, sec->density, 2.0 * r_min,
                   sec->density * 2.0 * r_min, sec->density);
  return 1;
}

/* Masses are floats in the simulation (and divide forces): density * pi r^2 must be a
 * normal float, or a particle would be weightless or infinitely heavy. */
int ms_ld_check_mass(loader *ld, const section *sec, double density, double r,
                     const char *radius_key)
{
  float m = (float)ms_ld_disc_mass(density, r);
  if (m >= FLT_MIN && m <= FLT_MAX)
    return 1;
  return ms_ld_fail_key(ld, sec, ms_ld_line_of(sec, "density") ? "density" : radius_key,
                        "a disc of radius %g and density %g has mass %g kg in single precision, "
                        "which the simulation computes in; it must lie between %g and %g kg",
                        r, density, (double)m, (double)FLT_MIN, (double)FLT_MAX);
}

/* `radius = r` (one size), or `radius_min` and `radius_max` (a size distribution). */
static int check_small_sizes(loader *ld, const section *sec)
{
  ms_scene *s = ld->scene;
  int mono = ms_ld_line_of(sec, "radius"), lo = ms_ld_line_of(sec, "radius_min"),
      hi = ms_ld_line_of(sec, "radius_max");
  if (mono && (lo || hi))
    return ms_ld_fail_key(ld, sec, lo ? "radius_min" : "radius_max",
                          "give either radius (one size) or radius_min and radius_max, not both");
  if (!mono && (lo || hi) && !(lo && hi))
    return ms_ld_fail_key(ld, sec, lo ? "radius_min" : "radius_max",
                          "needs %s as well", lo ? "radius_max" : "radius_min");
  if (ms_ld_line_of(sec, "radius_distribution") && !lo)
    return ms_ld_fail_key(ld, sec, "radius_distribution",
                          "only applies with radius_min and radius_max");
  if (!lo)
    s->small_radius_min = s->small_radius;
  if (s->small_radius_min > s->small_radius)
    return ms_ld_fail_key(ld, sec, "radius_max", "must be >= radius_min (%g < %g)",
                          (double)s->small_radius, (double)s->small_radius_min);
  return 1;
}

/* [small] file: the file gives the particles; the keys that would place them are
 * refused rather than ignored. */
static int check_small_file(loader *ld, const section *sec)
{
  static const char *const placing[] = {"count", "placement", "region", "spacing",
                                        "radius_min", "radius_max", "radius_distribution",
                                        "velocity_spread"};
  for (size_t i = 0; i < sizeof placing / sizeof placing[0]; i++)
    if (ms_ld_line_of(sec, placing[i]))
      return ms_ld_fail_key(ld, sec, placing[i],
                            "does not apply with file = (line %d): the file gives the small "
                            "particles, their number, positions and sizes",
                            ms_ld_line_of(sec, "file"));
  ms_scene *s = ld->scene;
  double areal = 0.0;
  if (!ms_ld_areal_density(ld, sec, 0.0, &areal))
    return 0;
  s->small_density = (float)areal;
  particle_file *pf = &ld->small.file;
  pf->density = areal;
  pf->radius = ms_ld_line_of(sec, "radius") ? s->small_radius : 0.0f;
  memcpy(pf->velocity, ld->small.velocity, sizeof pf->velocity);
  return 1;
}

static int check_small(loader *ld, const section *sec)
{
  small_spec *sm = &ld->small;
  ms_scene *s = ld->scene;
  const char *rkey = ms_ld_line_of(sec, "radius") ? "radius" : "radius_min";
  if (ms_ld_line_of(sec, "file"))
    return check_small_file(ld, sec);
  double areal = 0.0;
  if (!ms_ld_areal_density(ld, sec, sm->count > 0 ? s->small_radius_min : 0.0, &areal))
    return 0;
  s->small_density = (float)areal;
  if (sm->count > 0 &&
      !(ms_ld_check_mass(ld, sec, s->small_density, s->small_radius_min, rkey) &&
        ms_ld_check_mass(ld, sec, s->small_density, s->small_radius,
                         ms_ld_line_of(sec, "radius") ? "radius" : "radius_max")))
    return 0;
  if (ms_ld_line_of(sec, "region") && !ms_ld_check_region(ld, sec, sm->region))
    return 0;
  if (sm->random && ms_ld_line_of(sec, "spacing"))
    return ms_ld_fail_key(ld, sec, "spacing", "only applies to placement = lattice");
  return 1;
}

static int check_large(loader *ld, const section *sec)
{
  large_spec *l = &ld->large[sec->item];
  if (!ms_ld_areal_density(ld, sec, l->radius, &l->density) ||
      !ms_ld_check_mass(ld, sec, l->density, l->radius, "radius"))
    return 0;
  if (l->is_static && (l->velocity[0] != 0.0f || l->velocity[1] != 0.0f))
    return ms_ld_fail_key(ld, sec, "velocity", "a static particle must have velocity 0, 0");
  if (l->is_static && l->spin != 0.0)
    return ms_ld_fail_key(ld, sec, "spin", "a static particle never turns: its spin must be 0");
  return 1;
}

static int check_group(loader *ld, const section *sec)
{
  group_spec *g = &ld->groups[sec->item];
  if (g->radius_max < g->radius_min)
    return ms_ld_fail_key(ld, sec, "radius_max", "must be >= radius_min (%g > %g)",
                    (double)g->radius_min, (double)g->radius_max);
  if (!ms_ld_areal_density(ld, sec, g->radius_min, &g->density))
    return 0;
  if (!ms_ld_check_region(ld, sec, g->region) ||
      !ms_ld_check_mass(ld, sec, g->density, g->radius_min, "radius_min") ||
      !ms_ld_check_mass(ld, sec, g->density, g->radius_max, "radius_max"))
    return 0;
  double d = 2.0 * g->radius_max;
  if (g->region[2] - g->region[0] < d || g->region[3] - g->region[1] < d)
    return ms_ld_fail_key(ld, sec, "region", "too small for a disc of radius_max %g",
                    (double)g->radius_max);
  if (g->is_static && (g->velocity[0] != 0.0f || g->velocity[1] != 0.0f))
    return ms_ld_fail_key(ld, sec, "velocity", "static particles must have velocity 0, 0");
  if (g->is_static && g->spread != 0.0)
    return ms_ld_fail_key(ld, sec, "velocity_spread", "static particles must have velocity_spread 0");
  if (g->is_static && g->spin != 0.0)
    return ms_ld_fail_key(ld, sec, "spin", "static particles never turn: their spin must be 0");
  return 1;
}

/* [large_file.NAME]: the density (areal) for rows without a mass; static particles
 * from the section's key must be at rest. */
static int check_file_section(loader *ld, const section *sec)
{
  particle_file *pf = &ld->files[sec->item];
  if (!ms_ld_areal_density(ld, sec, 0.0, &pf->density))
    return 0;
  if (pf->is_static && (pf->velocity[0] != 0.0 || pf->velocity[1] != 0.0))
    return ms_ld_fail_key(ld, sec, "velocity", "static particles must have velocity 0, 0");
  return 1;
}

/* The collision grid has cells of one small diameter over the box; the simulation
 * refuses more than MS_GRID_MAX_CELLS of them, so say so here, at the box's line. The
 * arithmetic is the simulation's (src/collision/sim.c). Small particles from a file
 * are checked once read; the inflows' small particles count too. */
int ms_ld_check_grid(loader *ld)
{
  const ms_scene *s = ld->scene;
  const section *box = ms_ld_find_kind(ld, SEC_BOX);
  float r_min = 0.0f, r_max = 0.0f;
  ms_ld_small_radius_range(ld, &r_min, &r_max);
  if (r_max <= 0.0f)
    return 1; /* no small particles: one cell */
  double w = s->box_max[0] - s->box_min[0], h = s->box_max[1] - s->box_min[1];
  double cell = 2.0 * r_max;
  double nx = fmax(ceil(w / cell), 1.0), ny = fmax(ceil(h / cell), 1.0);
  if (nx * ny <= (double)MS_GRID_MAX_CELLS)
    return 1;
  return ms_ld_fail_key(ld, box, "max",
                        "the grid would need %.0f x %.0f cells of one small diameter (%g m), "
                        "more than %ld; use a smaller box or larger small particles",
                        nx, ny, cell, MS_GRID_MAX_CELLS);
}

int ms_ld_check_sections(loader *ld)
{
  const ms_scene *s = ld->scene;
  const section *box = ms_ld_find_kind(ld, SEC_BOX);
  if (!(s->box_max[0] > s->box_min[0] && s->box_max[1] > s->box_min[1]))
    return ms_ld_fail_key(ld, box, "max", "must be greater than min in x and y (min = %g, %g)",
                    s->box_min[0], s->box_min[1]);
  if (!ms_ld_check_box_sides(ld))
    return 0;
  const section *small = ms_ld_find_kind(ld, SEC_SMALL);
  if (small && !ms_ld_line_of(small, "file") && !check_small_sizes(ld, small))
    return 0;
  if (ld->small.file.section < 0 && !ms_ld_check_grid(ld)) /* (a file: once read) */
    return 0;
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    int ok = sec->kind == SEC_SMALL        ? check_small(ld, sec)
             : sec->kind == SEC_LARGE      ? check_large(ld, sec)
             : sec->kind == SEC_LARGE_RANDOM ? check_group(ld, sec)
             : sec->kind == SEC_LARGE_FILE ? check_file_section(ld, sec)
             : sec->kind == SEC_WALL       ? ms_ld_check_wall(ld, sec)
             : sec->kind == SEC_INFLOW     ? ms_ld_check_inflow(ld, sec)
             : sec->kind == SEC_OUTFLOW    ? ms_ld_check_outflow(ld, sec)
                                           : 1;
    if (!ok)
      return 0;
  }
  return 1;
}

/* Sections and [simulation] keys of one mode are errors in the other. */
int ms_ld_check_mode(loader *ld)
{
  const section *sim = ms_ld_find_kind(ld, SEC_SIMULATION);
  int mode_line = sim ? ms_ld_line_of(sim, "mode") : 0;
  if (ld->scene->mode != MS_MODE_GRAVITY) {
    const section *grav = ms_ld_find_kind(ld, SEC_GRAVITY);
    return !grav || ms_ld_fail_at(ld, grav->line, "gravity", NULL,
                            "needs mode = gravity in [simulation]");
  }
  for (int i = 0; i < ld->section_count; i++) {
    const section *sec = &ld->sections[i];
    if (sec->kind != SEC_SIMULATION && sec->kind != SEC_GRAVITY && sec->kind != SEC_OUTPUT)
      return ms_ld_fail_at(ld, sec->line, sec->name, NULL,
                     "only used in collision mode (mode = gravity at line %d)", mode_line);
  }
  static const char *const collision_keys[] = {"iterations_per_frame", "pipeline", "buffers",
                                               "exchange", "gravity", "max_speed", "cpu_threads",
                                               "large_on", "worker_list"};
  for (size_t k = 0; sim && k < sizeof collision_keys / sizeof collision_keys[0]; k++)
    if (ms_ld_line_of(sim, collision_keys[k]))
      return ms_ld_fail_key(ld, sim, collision_keys[k],
                      "only used in collision mode (mode = gravity at line %d)", mode_line);
  return 1;
}
