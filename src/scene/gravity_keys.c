/* Scene loader, mode = gravity: the [gravity] keys, which of them apply to which
 * bodies, and the bodies themselves (generated, or read from the CSV file). */
#include "scene/loader.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "scene/bodies.h"

int ms_ld_set_gravity(loader *ld, const char *key, const char *v)
{
  static const char *const bodies[] = {"plummer", "uniform", "kepler", "disk", "file"};
  static const char *const integrators[] = {"leapfrog", "taylor"};
  static const char *const energies[] = {"auto", "exact", "sampled", "off"};
  ms_gravity_scene *g = &ld->scene->grav;
  int choice = 0;
  if (ms_ld_is(key, "bodies")) {
    if (!ms_ld_read_choice(ld, v, bodies, 5, &choice))
      return 0;
    g->bodies = (ms_bodies)choice;
    return 1;
  }
  if (ms_ld_is(key, "integrator")) {
    if (!ms_ld_read_choice(ld, v, integrators, 2, &choice))
      return 0;
    g->integrator = (ms_integrator)choice;
    return 1;
  }
  if (ms_ld_is(key, "energy")) {
    if (!ms_ld_read_choice(ld, v, energies, 4, &choice))
      return 0;
    g->energy = (ms_energy_mode)choice;
    return 1;
  }
  if (ms_ld_is(key, "count"))
    return ms_ld_read_int(ld, v, 1, MS_GRAVITY_MAX_BODIES, &g->count);
  if (ms_ld_is(key, "burst"))
    return ms_ld_read_long(ld, v, 1, MS_BURST_MAX, &g->burst);
  if (ms_ld_is(key, "dt_check")) { /* on/off, or any boolean */
    if (ms_ld_is(v, "on") || ms_ld_is(v, "off")) {
      g->dt_check = ms_ld_is(v, "on");
      return 1;
    }
    return ms_ld_read_bool(ld, v, &g->dt_check);
  }
  if (ms_ld_is(key, "max_energy_error")) {
    if (ms_ld_is(v, "off")) {
      g->max_energy_error = 0.0;
      return 1;
    }
    return ms_ld_read_positive(ld, v, &g->max_energy_error);
  }
  if (ms_ld_is(key, "diagnostics_every"))
    return ms_ld_read_long(ld, v, 0, LONG_MAX, &g->diagnostics_every);
  if (ms_ld_is(key, "softening")) {
    if (!ms_ld_parse_number(ld, v, &g->softening))
      return 0;
    if (!(g->softening >= 1e-12 && g->softening <= 1e18))
      return ms_ld_bad_value(ld, "must be between 1e-12 and 1e18 (got %g): eps^2 and 1/eps^3 must "
                           "fit in a float, and eps > 0 keeps the self term finite",
                       g->softening);
    return 1;
  }
  if (ms_ld_is(key, "eccentricity")) {
    if (!ms_ld_parse_number(ld, v, &g->eccentricity))
      return 0;
    return (g->eccentricity >= 0.0 && g->eccentricity < 1.0) ||
           ms_ld_bad_value(ld, "must be in [0, 1) (got %g)", g->eccentricity);
  }
  if (ms_ld_is(key, "central_mass") || ms_ld_is(key, "thickness")) {
    double *out = ms_ld_is(key, "thickness") ? &g->thickness : &g->central_mass;
    return ms_ld_parse_number(ld, v, out) && ms_ld_at_least(ld, *out, 0.0);
  }
  if (ms_ld_is(key, "file")) {
    if (strlen(v) >= sizeof ld->body_file)
      return ms_ld_bad_value(ld, "path too long");
    strcpy(ld->body_file, v);
    return 1;
  }
  double *positive_key = ms_ld_is(key, "G")                 ? &g->g
                         : ms_ld_is(key, "mass")            ? &g->mass
                         : ms_ld_is(key, "radius")          ? &g->radius
                         : ms_ld_is(key, "semi_major_axis") ? &g->semi_major_axis
                                                      : &g->mass_ratio;
  float as_float = 0.0f; /* G is a float in the kernels: it must stay a normal one */
  return ms_ld_read_positive(ld, v, positive_key) &&
         (positive_key != &g->g || ms_ld_positive_float(ld, g->g, &as_float));
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
    if (ms_ld_line_of(sec, g_generator_keys[i].key) && !(g_generator_keys[i].bodies & (1u << g->bodies)))
      return ms_ld_fail_key(ld, sec, g_generator_keys[i].key, "does not apply to bodies = %s",
                      ms_bodies_name(g->bodies));
  int needs_count = g->bodies != MS_BODIES_KEPLER && g->bodies != MS_BODIES_FILE;
  if (needs_count && !ms_ld_line_of(sec, "count"))
    return ms_ld_fail_at(ld, sec->line, sec->name, "count", "required key is missing (bodies = %s)",
                   ms_bodies_name(g->bodies));
  if (g->bodies == MS_BODIES_FILE && !ms_ld_line_of(sec, "file"))
    return ms_ld_fail_at(ld, sec->line, sec->name, "file", "required key is missing (bodies = file)");
  if (g->bodies == MS_BODIES_DISK && g->central_mass > 0.0 && g->count < 2)
    return ms_ld_fail_key(ld, sec, "count", "must be >= 2 with a central mass (got %d)", g->count);
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
    return ms_ld_fail_key(ld, sec, "file", "path too long");
  return 1;
}

static int read_body_file(loader *ld, const section *sec)
{
  ms_gravity_scene *g = &ld->scene->grav;
  if (!resolve_body_file(ld, sec))
    return 0;
  char why[256];
  FILE *f = ms_open_regular(g->file, MS_BODIES_MAX_BYTES, why, sizeof why);
  if (!f)
    return ms_ld_fail_key(ld, sec, "file", "cannot open '%s': %s", g->file, why);
  ms_status st = ms_bodies_read_csv(f, g, ld->message, sizeof ld->message);
  fclose(f);
  if (st == MS_OK)
    return ms_ld_note_input(ld, sec->name, "file", g->file);
  ld->status = st;
  ld->error_line = 0;
  return 0;
}

/* Generated bodies, rounded to float: every mass a normal float (a generator never
 * means a massless body), every position and velocity finite. */
static int check_generated(loader *ld, const section *sec)
{
  const ms_gravity_scene *g = &ld->scene->grav;
  for (int i = 0; i < g->count; i++) {
    const float *p = &g->pos[4 * i], *v = &g->vel[3 * i];
    int disk_centre = g->bodies == MS_BODIES_DISK && i == 0 && g->central_mass > 0.0;
    const char *mass_key = disk_centre                                          ? "central_mass"
                           : g->bodies == MS_BODIES_KEPLER &&
                                   ms_ld_line_of(sec, "mass_ratio") && (float)g->mass >= FLT_MIN
                               ? "mass_ratio"
                               : "mass";
    if (!(p[3] >= FLT_MIN && p[3] <= FLT_MAX))
      return ms_ld_fail_key(ld, sec, mass_key,
                            "body %d would have mass %g in single precision, which the "
                            "simulation computes in; it must lie between %g and %g",
                            i, (double)p[3], (double)FLT_MIN, (double)FLT_MAX);
    int finite = 1;
    for (int k = 0; k < 3; k++)
      finite = finite && isfinite(p[k]) && isfinite(v[k]);
    if (!finite)
      return ms_ld_fail_key(ld, sec, g->bodies == MS_BODIES_KEPLER ? "semi_major_axis" : "radius",
                            "body %d's position or velocity (from G, mass and this size) does "
                            "not fit in single precision",
                            i);
  }
  return 1;
}

/* The kernels compute in float (dt is checked where it is read): generated bodies
 * must survive the rounding, and the self term m_i / eps^3 (multiplied by r = 0) must
 * stay finite, or it would add 0 x inf = NaN. */
static int check_gravity_floats(loader *ld, const section *sec)
{
  const ms_scene *s = ld->scene;
  const ms_gravity_scene *g = &s->grav;
  if (g->bodies != MS_BODIES_FILE && !check_generated(ld, sec))
    return 0;
  double heaviest = 0.0, eps3 = g->softening * g->softening * g->softening;
  for (int i = 0; i < g->count; i++)
    heaviest = fmax(heaviest, g->pos[4 * i + 3]);
  if (heaviest / eps3 > 0.5 * FLT_MAX)
    return ms_ld_fail_key(ld, sec, "softening",
                    "%g is too small for a body of mass %g: m / softening^3 overflows a float",
                    g->softening, heaviest);
  return 1;
}

/* Everything after parsing in gravity mode: checks, then the bodies. */
int ms_ld_build_gravity(loader *ld)
{
  if (!ms_ld_check_required(ld))
    return 0;
  const section *sec = ms_ld_find_kind(ld, SEC_GRAVITY);
  if (!check_gravity_keys(ld, sec))
    return 0;
  int ok = ld->scene->grav.bodies == MS_BODIES_FILE
             ? read_body_file(ld, sec)
             : ms_bodies_generate(&ld->scene->grav, ld->scene->seed) == MS_OK || ms_ld_fail_memory(ld);
  return ok && check_gravity_floats(ld, sec) && ms_ld_check_gravity_dt(ld);
}
