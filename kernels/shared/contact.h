/* The contact force law, written once: a normal linear spring-dashpot
 *     F = (k * overlap + c * approach_speed) along the line of centres,
 * for particle pairs and for the four box walls. Compiled by the kernels and by the
 * CPU worker, so small-small and large-small contacts are computed identically.
 * No tension cut-off: the restitution of an isolated contact is then e as dt -> 0
 * (at a finite dt it is off by an amount docs/time-step.md measures). */
#ifndef MS_SHARED_CONTACT_H
#define MS_SHARED_CONTACT_H

#include "compat.h"

/* Force on particle i from particle j.
 * (dx, dy) = x_j - x_i, (dvx, dvy) = v_i - v_j, r_sum = r_i + r_j,
 * k stiffness (N/m), c damping coefficient (N s/m) of this pair. */
MS_FN ms_v2 ms_contact_force(float dx, float dy, float dvx, float dvy, float r_sum,
                             float k, float c)
{
  ms_v2 f;
  f.x = 0.0f;
  f.y = 0.0f;
  float dist2 = dx * dx + dy * dy;
  if (dist2 >= r_sum * r_sum || dist2 <= 0.0f)
    return f;
  float dist = ms_sqrtf(dist2);
  float nx = dx / dist;
  float ny = dy / dist;
  float overlap = r_sum - dist;
  float approach = dvx * nx + dvy * ny; /* > 0 while closing */
  float fn = k * overlap + c * approach;
  f.x = -fn * nx;
  f.y = -fn * ny;
  return f;
}

/* Push of one wall along its inward normal: `gap` is the distance from the centre to
 * the wall (negative once the centre is past it), `approach` the speed towards it. */
MS_FN float ms_wall_push(float gap, float approach, float r, float k, float c)
{
  if (gap >= r)
    return 0.0f;
  return k * (r - gap) + c * approach;
}

/* Sum of the four wall forces on a particle in the box [min_x, max_x] x [min_y, max_y]. */
MS_FN ms_v2 ms_walls_force(float x, float y, float vx, float vy, float r, float min_x,
                           float min_y, float max_x, float max_y, float k, float c)
{
  ms_v2 f;
  f.x = ms_wall_push(x - min_x, -vx, r, k, c);
  f.x = f.x - ms_wall_push(max_x - x, vx, r, k, c);
  f.y = ms_wall_push(y - min_y, -vy, r, k, c);
  f.y = f.y - ms_wall_push(max_y - y, vy, r, k, c);
  return f;
}

/* Symplectic Euler step, the same for small (device) and large (host) particles:
 *     v += F/m dt + g dt;  x += v dt */
MS_FN void ms_integrate(float *x, float *y, float *vx, float *vy, float fx, float fy,
                        float mass, float gx, float gy, float dt)
{
  *vx = *vx + fx / mass * dt + gx * dt;
  *vy = *vy + fy / mass * dt + gy * dt;
  *x = *x + *vx * dt;
  *y = *y + *vy * dt;
}

#ifndef __OPENCL_C_VERSION__
/* Host-only helpers for the material constants, in double precision. */
#define MS_PI 3.14159265358979323846

/* Damping ratio zeta of the linear spring-dashpot with restitution e in (0, 1]. */
static inline double ms_damping_ratio(double e)
{
  double l = log(e);
  return -l / sqrt(MS_PI * MS_PI + l * l);
}

/* Damping coefficient c = 2 zeta sqrt(k m_eff) for a pair of effective mass m_eff. */
static inline double ms_damping_coeff(double k, double e, double m_eff)
{
  return 2.0 * ms_damping_ratio(e) * sqrt(k * m_eff);
}

/* Contact duration t_c = pi / omega_d, omega_d = sqrt(k/m_eff) sqrt(1 - zeta^2). */
static inline double ms_contact_time(double k, double e, double m_eff)
{
  double z = ms_damping_ratio(e);
  return MS_PI / (sqrt(k / m_eff) * sqrt(1.0 - z * z));
}

/* Effective mass of a pair; a static partner counts as infinitely heavy. */
static inline double ms_effective_mass(double m1, int static1, double m2, int static2)
{
  if (static1)
    return m2;
  if (static2)
    return m1;
  return m1 * m2 / (m1 + m2);
}
#endif

#endif
