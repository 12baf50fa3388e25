/* The contact force law, written once: a normal linear spring-dashpot
 *     F = (k * overlap + c * approach_speed) along the line of centres,
 *     c = 2 zeta sqrt(k m_eff)  (zeta from the restitution e, m_eff of the pair),
 * for particle pairs and for the four box walls. Compiled by the kernels and by the
 * CPU worker, so small-small and large-small contacts are computed identically.
 * Positions and velocities are double; a contact's arithmetic is float, on the
 * differences of positions and velocities taken in double, which are exact to
 * double precision however far from each other or from the box corner particles are.
 * No tension cut-off: an isolated contact restitutes e as dt -> 0 (docs/time-step.md
 * gives the error at finite dt). */
#ifndef MS_SHARED_CONTACT_H
#define MS_SHARED_CONTACT_H

#include "compat.h"

/* Effective mass m_i m_j / (m_i + m_j) of two moving particles. */
MS_FN float ms_pair_mass(float mi, float mj) { return mi * mj / (mi + mj); }

/* Dashpot coefficient c = 2 zeta sqrt(k m_eff); two_zeta = 2 zeta of the material. */
MS_FN float ms_dashpot(float two_zeta, float k, float m_eff)
{
  return two_zeta * ms_sqrtf(k * m_eff);
}

/* Whether two discs at offset (dx, dy) with radii summing to r_sum push each other:
 * the force law's own test, so callers may skip loading a pair's velocities. */
MS_FN int ms_touching(float dx, float dy, float r_sum)
{
  float dist2 = dx * dx + dy * dy;
  return dist2 < r_sum * r_sum && dist2 > 0.0f;
}

/* Force on particle i from particle j.
 * (dx, dy) = x_j - x_i, (dvx, dvy) = v_i - v_j, r_sum = r_i + r_j,
 * k stiffness (N/m); the pair's dashpot is computed only when they touch. */
MS_FN ms_v2 ms_contact_force(float dx, float dy, float dvx, float dvy, float r_sum, float k,
                             float two_zeta, float m_eff)
{
  ms_v2 f;
  f.x = 0.0f;
  f.y = 0.0f;
  if (!ms_touching(dx, dy, r_sum))
    return f;
  float dist = ms_sqrtf(dx * dx + dy * dy);
  float nx = dx / dist;
  float ny = dy / dist;
  float overlap = r_sum - dist;
  float approach = dvx * nx + dvy * ny; /* > 0 while closing */
  float fn = k * overlap + ms_dashpot(two_zeta, k, m_eff) * approach;
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

/* The gaps from a centre to the box's four sides, left, right, bottom and top, which lie
 * at x = x0, x1 and y = y0, y1 (the box [0, w] x [0, h] of the simulation frame); a side
 * with no wall (periodic or open) lies at infinity and its gap is infinite. */
#define MS_BOX_GAPS(x, y, x0, x1, y0, y1)                                                     \
  float gl = (float)((x) - (x0)), gr = (float)((x1) - (x)), gb = (float)((y) - (y0)),        \
        gt = (float)((y1) - (y))

/* Sum of the four wall forces on a particle of mass m in the box; the gaps are taken in
 * double, the rest in float. */
MS_FN ms_v2 ms_walls_force(double x, double y, float vx, float vy, float r, double x0, double x1,
                           double y0, double y1, float k, float two_zeta, float m)
{
  ms_v2 f;
  f.x = 0.0f;
  f.y = 0.0f;
  MS_BOX_GAPS(x, y, x0, x1, y0, y1);
  if (gl >= r && gr >= r && gb >= r && gt >= r)
    return f; /* clear of every wall: the usual case, no dashpot to compute */
  float c = ms_dashpot(two_zeta, k, m);
  f.x = ms_wall_push(gl, -vx, r, k, c);
  f.x = f.x - ms_wall_push(gr, vx, r, k, c);
  f.y = ms_wall_push(gb, -vy, r, k, c);
  f.y = f.y - ms_wall_push(gt, vy, r, k, c);
  return f;
}

/* Diagnostics only (--diagnostics): the power the normal dashpot of a contact dissipates,
 * c * approach^2 (W per metre of disc thickness), 0 when the discs do not touch. The same
 * normal and approach speed as ms_contact_force; the law has no tension cut-off, so the
 * dashpot acts (and dissipates) for as long as the discs touch. Called beside the force,
 * never in its place: the force's arithmetic is untouched. */
MS_FN float ms_contact_dissipation(float dx, float dy, float dvx, float dvy, float r_sum, float k,
                                   float two_zeta, float m_eff)
{
  if (!ms_touching(dx, dy, r_sum))
    return 0.0f;
  float dist = ms_sqrtf(dx * dx + dy * dy);
  float approach = dvx * (dx / dist) + dvy * (dy / dist);
  return ms_dashpot(two_zeta, k, m_eff) * approach * approach;
}

/* The same for the four walls of ms_walls_force: each touching side's dashpot times the
 * squared speed along its normal. */
MS_FN float ms_walls_dissipation(double x, double y, float vx, float vy, float r, double x0,
                                 double x1, double y0, double y1, float k, float two_zeta,
                                 float m)
{
  MS_BOX_GAPS(x, y, x0, x1, y0, y1);
  if (gl >= r && gr >= r && gb >= r && gt >= r)
    return 0.0f;
  float c = ms_dashpot(two_zeta, k, m);
  float p = 0.0f;
  if (gl < r)
    p += c * vx * vx;
  if (gr < r)
    p += c * vx * vx;
  if (gb < r)
    p += c * vy * vy;
  if (gt < r)
    p += c * vy * vy;
  return p;
}

/* Symplectic Euler step, the same for small (device) and large (host) particles:
 *     v += (F/m + g) dt;  x += v dt
 * The force and F/m are float (a sum of float contacts); the state is double, so a
 * step's change is kept however small it is next to the value it changes. */
MS_FN void ms_integrate(double *x, double *y, double *vx, double *vy, float fx, float fy,
                        float mass, double gx, double gy, double dt)
{
  *vx = *vx + ((double)(fx / mass) + gx) * dt;
  *vy = *vy + ((double)(fy / mass) + gy) * dt;
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

/* Friction, rolling resistance and rotation (issue 12), used when a scene has friction. */
#include "friction.h"

#endif
