/* The frictional part of the contact law (issue 12), written once for the kernels and
 * the host like the normal law in contact.h, which includes this file: a tangential
 * spring-dashpot with contact history and a Coulomb limit (Cundall-Strack, what LAMMPS
 * calls `tangential linear_history`), a constant directional rolling torque, and the
 * rotation step of a disc. Called by kernels/friction.cl (small particles) and the CPU
 * worker; docs/friction.md derives the equations, the defaults and what
 * tests/test_friction_law.c measures.
 *
 * Conventions, for a pair (i, j) and for a disc i against a static wall:
 *   n = unit vector from the centre of i towards j (towards the wall);
 *   t = (-n.y, n.x), n turned a quarter anticlockwise, so that n x t = +1;
 *   spins w are anticlockwise-positive (the z component of the angular velocity);
 *   u = (v_i - v_j) . t + w_i r_i + w_j r_j, the speed at which the contact point of i
 *       slides past that of j along t (a wall has v_j = 0, w_j = 0);
 *   xi = the stored tangential displacement, a scalar along t (docs/friction.md: in 2D
 *       the tangent plane is a line that turns with n, so a scalar along the current t
 *       is the 2-vector of 3D codes already rotated and rescaled into it).
 * The tangential force on i is F_t t (j gets -F_t t); both torques are then +r F_t:
 * the lever arm r_i n of i and -r_j n of j both cross their force to +r F_t. */
#ifndef MS_SHARED_FRICTION_H
#define MS_SHARED_FRICTION_H

#include "compat.h"
/* contact.h includes this file at its end; included first, this brings the normal law
 * in (its guard makes the inner include of this file a no-op). */
#include "contact.h"

/* Tangential to normal stiffness for discs: k_t / k_n = 1/3 makes the tangential
 * (slip) oscillation as fast as the normal one. The slip mode's effective mass is
 * m_eff / 3 for any two discs (or a disc and a wall), since I = m r^2 / 2 adds r^2/I = 2/m
 * per disc to 1/m; equal periods need k_t / (m_eff/3) = k_n / m_eff. Spheres
 * (I = 2/5 m r^2) give 2/7, the ratio of Silbert et al., Phys. Rev. E 64, 051302 (2001). */
#define MS_DISC_KT_RATIO (1.0f / 3.0f)

/* The slip mode's mass over the pair's effective mass, for discs (above). */
#define MS_DISC_SLIP_MASS_RATIO (1.0f / 3.0f)

/* Moment of inertia of a uniform disc about its centre. */
MS_FN float ms_disc_inertia(float m, float r) { return 0.5f * m * r * r; }

/* Tangential dashpot c_t = 2 zeta sqrt(k_t m_eff / 3): the normal law's damping ratio
 * applied to the slip mode, so a tangential oscillation decays like a normal one. */
MS_FN float ms_tangential_dashpot(float two_zeta, float kt, float m_eff)
{
  return two_zeta * ms_sqrtf(kt * m_eff * MS_DISC_SLIP_MASS_RATIO);
}

/* The unit tangent t = (-n.y, n.x) of a contact with normal n. */
MS_FN ms_v2 ms_tangent(ms_v2 n)
{
  ms_v2 t;
  t.x = -n.y;
  t.y = n.x;
  return t;
}

/* Slip speed u of the contact point of i past that of j, along t: (dvx, dvy) = v_i - v_j,
 * wi, wj the spins, ri, rj the radii. Seen from j, n and v_i - v_j change sign and the
 * spins' sum is bracketed, so u comes out as the same bits: each side of a pair can
 * keep its own copy of the history and both stay identical. */
MS_FN float ms_slip_velocity(ms_v2 n, float dvx, float dvy, float wi, float ri, float wj,
                             float rj)
{
  return -dvx * n.y + dvy * n.x + (wi * ri + wj * rj);
}

/* The same against a static wall (no velocity, no spin); n points towards the wall. */
MS_FN float ms_wall_slip_velocity(ms_v2 n, float vx, float vy, float w, float r)
{
  return ms_slip_velocity(n, vx, vy, w, r, 0.0f, 0.0f);
}

/* What one tangential contact gives back: the force on i (j gets -f), the torques on i and
 * j (both r F_t, see the top), the new stored displacement and whether it slid. */
typedef struct ms_tangential {
  ms_v2 f;
  float ft;       /* the force along t: f = ft t */
  float torque_i; /* r_i ft */
  float torque_j; /* r_j ft (0 against a wall) */
  float xi;       /* the displacement to store for the next step */
  int sliding;    /* the Coulomb limit was reached and xi rescaled */
} ms_tangential;

/* The Cundall-Strack law for one step of a contact that is closed:
 *     xi' = xi + u dt;   F_t = -k_t xi' - c_t u;
 * if |F_t| > mu |F_n| the force is cut to exactly mu |F_n| (its sign kept) and xi' set to
 * what the spring must hold for the cut force: -k_t xi' = F_t - (-c_t u), as LAMMPS does,
 * so that a contact which stops sliding restarts from the limit instead of from a spring
 * stretched further every step. With c_t = 0 the spring alone holds mu |F_n|. |F_n| is
 * taken as the magnitude of the normal force (the dashpot may make it negative). mu = 0
 * gives no force at all, whatever the spring holds. */
MS_FN ms_tangential ms_tangential_law(ms_v2 n, float ri, float rj, float u, float xi, float fn,
                                      float kt, float ct, float mu, float dt)
{
  ms_tangential out;
  float xi_new = xi + u * dt;
  float ft = -kt * xi_new - ct * u;
  float limit = mu * (fn < 0.0f ? -fn : fn);
  out.sliding = 0;
  if ((ft < 0.0f ? -ft : ft) > limit) {
    ft = ft < 0.0f ? -limit : limit;
    xi_new = kt > 0.0f ? -(ft + ct * u) / kt : 0.0f;
    out.sliding = 1;
  }
  ms_v2 t = ms_tangent(n);
  out.f.x = ft * t.x;
  out.f.y = ft * t.y;
  out.ft = ft;
  out.torque_i = ri * ft;
  out.torque_j = rj * ft;
  out.xi = xi_new;
  return out;
}

/* The law against a static wall: infinite mass, no spin, its own mu (n towards the wall). */
MS_FN ms_tangential ms_wall_tangential_law(ms_v2 n, float r, float u, float xi, float fn,
                                           float kt, float ct, float mu_wall, float dt)
{
  return ms_tangential_law(n, r, 0.0f, u, xi, fn, kt, ct, mu_wall, dt);
}

/* A closed pair contact's normal part, as the tangential and rolling laws need it: the
 * force on i (the same bits as ms_contact_force gives, by the same arithmetic), the unit
 * normal n from i towards j and the normal force fn along -n (spring plus dashpot; the
 * dashpot may make it negative). Zero when the discs do not touch. */
typedef struct ms_normal {
  ms_v2 f;
  ms_v2 n;
  float fn;
} ms_normal;

MS_FN ms_normal ms_contact_normal(float dx, float dy, float dvx, float dvy, float r_sum, float k,
                                  float two_zeta, float m_eff)
{
  ms_normal c;
  c.f.x = 0.0f;
  c.f.y = 0.0f;
  c.n.x = 0.0f;
  c.n.y = 0.0f;
  c.fn = 0.0f;
  if (!ms_touching(dx, dy, r_sum))
    return c;
  float dist = ms_sqrtf(dx * dx + dy * dy);
  float nx = dx / dist;
  float ny = dy / dist;
  float overlap = r_sum - dist;
  float approach = dvx * nx + dvy * ny; /* > 0 while closing */
  float fn = k * overlap + ms_dashpot(two_zeta, k, m_eff) * approach;
  c.f.x = -fn * nx;
  c.f.y = -fn * ny;
  c.n.x = nx;
  c.n.y = ny;
  c.fn = fn;
  return c;
}

/* The displacement a contact slot keeps: an open contact forgets its history, so that a
 * contact closing again starts unstretched. */
MS_FN float ms_tangential_history(int touching, float xi) { return touching ? xi : 0.0f; }

/* Rolling radius r_i r_j / (r_i + r_j) of a pair; against a wall it is r_i. */
MS_FN float ms_rolling_radius(float ri, float rj) { return ri * rj / (ri + rj); }

/* Rotational effective inertia I_i I_j / (I_i + I_j) of a pair; against a wall it is I_i. */
MS_FN float ms_rolling_inertia(float ii, float ij) { return ii * ij / (ii + ij); }

/* Constant directional torque (model A of Ai et al., Powder Technol. 206, 269 (2011);
 * LIGGGHTS `rolling_friction cdt`): the torque on i is mu_r |F_n| r_eff against the
 * relative rolling velocity w_rel = w_i - w_j (j gets the opposite torque). A pure sign
 * function would reverse a tiny w_rel every step by 2 mu_r |F_n| r_eff dt / I and keep a
 * resting disc rocking; so the torque is capped at i_eff |w_rel| / dt, the torque that
 * brings w_rel exactly to rest within the step: a rolling disc decelerates at the full
 * torque, stops, and stays stopped, and w_rel = 0 gives exactly no torque. */
MS_FN float ms_rolling_torque(float w_rel, float fn, float mu_r, float r_eff, float i_eff,
                              float dt)
{
  float m = mu_r * (fn < 0.0f ? -fn : fn) * r_eff;
  float w_abs = w_rel < 0.0f ? -w_rel : w_rel;
  float cap = i_eff * w_abs / dt;
  if (cap < m)
    m = cap;
  if (w_rel > 0.0f)
    return -m;
  if (w_rel < 0.0f)
    return m;
  return 0.0f;
}

/* Diagnostics only (--diagnostics): the energy one step of a closed frictional contact
 * takes from the motion through its tangential force and rolling torque, (-F_t u - M w_rel)
 * dt, with u the slip speed, M the rolling torque on i and w_rel = w_i - w_j (a wall:
 * w_rel = w_i). Part of it is stored in the tangential spring: the caller subtracts the
 * change of ms_spring_energy, which leaves what the tangential dashpot, the Coulomb slip
 * and the rolling resistance dissipated. In double: a small difference of larger terms. */
MS_FN double ms_slip_work(float ft, float u, float m_roll, float w_rel, float dt)
{
  return (-(double)ft * (double)u - (double)m_roll * (double)w_rel) * (double)dt;
}

/* The energy 1/2 k_t xi^2 a contact's tangential spring holds. */
MS_FN double ms_spring_energy(float kt, float xi)
{
  return 0.5 * (double)kt * (double)xi * (double)xi;
}

/* Symplectic Euler step of the rotation, as ms_integrate does the translation:
 *     w += (torque / I) dt;  theta += w dt
 * with the state in double and the torque (a sum of float contacts) in float. */
MS_FN void ms_integrate_rotation(double *theta, double *w, float torque, float inertia,
                                 double dt)
{
  *w = *w + (double)(torque / inertia) * dt;
  *theta = *theta + *w * dt;
}

#endif
