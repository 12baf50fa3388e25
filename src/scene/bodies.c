/* Gravity-mode initial conditions: the four generators. They work in double precision,
 * move the centre of mass to rest at the origin, then round to the float state the
 * devices integrate. */
#include "scene/bodies.h"

#include <math.h>
#include <stdlib.h>

#include "core/rng.h"
#include "shared/contact.h" /* MS_PI */

typedef struct body {
  double x[3], v[3], m;
} body;

/* A point uniformly distributed on the sphere of radius r. */
static void on_sphere(ms_rng *rng, double r, double out[3])
{
  double z = (1.0 - 2.0 * ms_rng_uniform(rng)) * r;
  double rho = sqrt(fmax(r * r - z * z, 0.0)), phi = 2.0 * MS_PI * ms_rng_uniform(rng);
  out[0] = rho * cos(phi);
  out[1] = rho * sin(phi);
  out[2] = z;
}

/* Aarseth, Henon & Wielen (1974): radii from the inverted cumulative mass, speeds by
 * von Neumann rejection on g(q) = q^2 (1 - q^2)^(7/2), q = v / v_escape. Drawn in
 * Plummer units (G = M = a = 1) within the radius holding 99.9% of the mass (38.7 a;
 * a cut at 10 a would leave the sphere 1.5% too bound for its velocities), then scaled
 * to Henon units (virial radius 1, E = -1/4) and to the scene's mass, radius and G. */
static void plummer(body *b, int n, const ms_gravity_scene *g, ms_rng *rng)
{
  const double to_henon = 3.0 * MS_PI / 16.0;
  double rs = to_henon * g->radius, vs = sqrt(g->g * g->mass / g->radius / to_henon);
  for (int i = 0; i < n; i++) {
    double x1;
    do
      x1 = ms_rng_uniform(rng);
    while (x1 > 0.999);
    double r = x1 > 0.0 ? 1.0 / sqrt(pow(x1, -2.0 / 3.0) - 1.0) : 0.0;
    double q, y;
    do {
      q = ms_rng_uniform(rng);
      y = 0.1 * ms_rng_uniform(rng);
    } while (y >= q * q * pow(1.0 - q * q, 3.5));
    double v = q * sqrt(2.0) * pow(1.0 + r * r, -0.25);
    on_sphere(rng, r * rs, b[i].x);
    on_sphere(rng, v * vs, b[i].v);
    b[i].m = g->mass / n;
  }
}

/* Uniform density inside `radius`, at rest. */
static void uniform(body *b, int n, const ms_gravity_scene *g, ms_rng *rng)
{
  for (int i = 0; i < n; i++) {
    double p[3], r2;
    do {
      for (int k = 0; k < 3; k++)
        p[k] = ms_rng_range(rng, -1.0, 1.0);
      r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    } while (r2 > 1.0);
    for (int k = 0; k < 3; k++) {
      b[i].x[k] = p[k] * g->radius;
      b[i].v[k] = 0.0;
    }
    b[i].m = g->mass / n;
  }
}

/* Two bodies at pericentre r_p = a (1 - e), relative speed sqrt(G M (1 + e) / r_p),
 * along x and y; the period is 2 pi sqrt(a^3 / (G M)). */
static void kepler(body *b, const ms_gravity_scene *g)
{
  double m_total = g->mass, q = g->mass_ratio, e = g->eccentricity, a = g->semi_major_axis;
  double m1 = m_total / (1.0 + q), m2 = m_total - m1;
  double rp = a * (1.0 - e), vp = sqrt(g->g * m_total * (1.0 + e) / rp);
  b[0] = (body){.x = {-rp * m2 / m_total, 0, 0}, .v = {0, -vp * m2 / m_total, 0}, .m = m1};
  b[1] = (body){.x = {rp * m1 / m_total, 0, 0}, .v = {0, vp * m1 / m_total, 0}, .m = m2};
}

/* Uniform surface density out to `radius`, z uniform in +-thickness/2, each body on
 * the circular orbit of the softened pull of the mass inside its radius (taken as if
 * spherical, so the disk starts close to, not exactly in, equilibrium). A central
 * mass, when given, is body 0. */
static void disk(body *b, int n, const ms_gravity_scene *g, ms_rng *rng)
{
  int first = 0;
  if (g->central_mass > 0.0) {
    b[0] = (body){.m = g->central_mass};
    first = 1;
  }
  int n_disk = n - first;
  double eps2 = g->softening * g->softening;
  for (int i = first; i < n; i++) {
    double r = g->radius * sqrt(ms_rng_uniform(rng));
    double phi = 2.0 * MS_PI * ms_rng_uniform(rng);
    double z = g->thickness * (ms_rng_uniform(rng) - 0.5);
    double inside = g->central_mass + g->mass * (r * r) / (g->radius * g->radius);
    double d2 = r * r + eps2;
    double v = sqrt(g->g * inside * r * r / (d2 * sqrt(d2)));
    b[i] = (body){.x = {r * cos(phi), r * sin(phi), z},
                  .v = {-v * sin(phi), v * cos(phi), 0.0},
                  .m = g->mass / n_disk};
  }
}

static void to_rest_frame(body *b, int n)
{
  double m = 0.0, x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    m += b[i].m;
    for (int k = 0; k < 3; k++) {
      x[k] += b[i].m * b[i].x[k];
      v[k] += b[i].m * b[i].v[k];
    }
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      b[i].x[k] -= x[k] / m;
      b[i].v[k] -= v[k] / m;
    }
}

static ms_status alloc_state(ms_gravity_scene *g, int n)
{
  g->pos = malloc((size_t)n * 4 * sizeof *g->pos);
  g->vel = malloc((size_t)n * 3 * sizeof *g->vel);
  return g->pos && g->vel ? MS_OK : MS_ERR_RUNTIME;
}

ms_status ms_bodies_generate(ms_gravity_scene *g, uint64_t seed)
{
  int n = g->bodies == MS_BODIES_KEPLER ? 2 : g->count;
  body *b = calloc((size_t)n, sizeof *b);
  if (!b || alloc_state(g, n) != MS_OK) {
    free(b);
    return MS_ERR_RUNTIME;
  }
  ms_rng rng = {seed};
  switch (g->bodies) {
  case MS_BODIES_PLUMMER: plummer(b, n, g, &rng); break;
  case MS_BODIES_UNIFORM: uniform(b, n, g, &rng); break;
  case MS_BODIES_KEPLER: kepler(b, g); break;
  case MS_BODIES_DISK: disk(b, n, g, &rng); break;
  case MS_BODIES_FILE: break;
  }
  to_rest_frame(b, n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      g->pos[4 * i + k] = (float)b[i].x[k];
      g->vel[3 * i + k] = (float)b[i].v[k];
    }
    g->pos[4 * i + 3] = (float)b[i].m;
  }
  g->count = n;
  free(b);
  return MS_OK;
}
