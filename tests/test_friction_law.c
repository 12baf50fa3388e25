/* The friction law of kernels/shared/friction.h on the host, without OpenCL: the Coulomb
 * limit and the sticking spring on single calls, then one disc on a floor (a static wall)
 * stepped by a tiny loop of the shared helpers against the analytic results of issue 12:
 * rolling and sliding down an incline, a sliding disc reaching rolling, a spinning one set
 * down rolling off, rolling resistance stopping a disc and leaving a resting one at rest,
 * history forgotten when a contact opens. Each prints what it measured beside the analytic value (docs/friction.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "shared/contact.h"

static const char *filter;

#define G 9.81
#define DT 1e-5

/* A disc of 0.1 kg and radius 5 cm on the floor y = 0, k_n = 1e5 N/m, restitution 0.5:
 * contact time ~3 ms, ~300 steps of DT. */
typedef struct disc {
  double x, y, vx, vy, theta, w;
  float m, r, inertia, xi;
  float kn, cn, kt, ct, mu, mu_r;
  double gx, gy;
  ms_tangential last; /* the tangential contact of the last step */
  int touching;
} disc;

static disc make_disc(double incline_deg, float mu, float mu_r)
{
  disc d;
  memset(&d, 0, sizeof d);
  d.m = 0.1f;
  d.r = 0.05f;
  d.inertia = ms_disc_inertia(d.m, d.r);
  d.kn = 1e5f;
  float two_zeta = (float)(2.0 * ms_damping_ratio(0.5));
  d.cn = ms_dashpot(two_zeta, d.kn, d.m);
  d.kt = MS_DISC_KT_RATIO * d.kn;
  d.ct = ms_tangential_dashpot(two_zeta, d.kt, d.m);
  d.mu = mu;
  d.mu_r = mu_r;
  double th = incline_deg * MS_PI / 180.0;
  d.gx = G * sin(th);
  d.gy = -G * cos(th);
  d.y = d.r + d.m * d.gy / d.kn; /* at the static overlap: no bounce to wait for */
  return d;
}

/* One step: the floor's normal push, the tangential law, rolling resistance, then the
 * symplectic Euler steps of translation and rotation. */
static void step(disc *d)
{
  ms_v2 n = {0.0f, -1.0f}; /* from the centre towards the floor; t = (1, 0) */
  float fx = 0.0f, fy = 0.0f, torque = 0.0f;
  float gap = (float)d->y;
  d->touching = gap < d->r;
  if (d->touching) {
    float fn = ms_wall_push(gap, (float)-d->vy, d->r, d->kn, d->cn);
    float u = ms_wall_slip_velocity(n, (float)d->vx, (float)d->vy, (float)d->w, d->r);
    d->last = ms_wall_tangential_law(n, d->r, u, d->xi, fn, d->kt, d->ct, d->mu, (float)DT);
    d->xi = d->last.xi;
    fx += d->last.f.x;
    fy += fn + d->last.f.y;
    torque += d->last.torque_i;
    torque += ms_rolling_torque((float)d->w, fn, d->mu_r, d->r, d->inertia, (float)DT);
  } else {
    d->xi = ms_tangential_history(0, d->xi);
  }
  ms_integrate(&d->x, &d->y, &d->vx, &d->vy, fx, fy, d->m, d->gx, d->gy, DT);
  ms_integrate_rotation(&d->theta, &d->w, torque, d->inertia, DT);
}

/* Least-squares slopes of vx and w against time over steps [from, to). */
typedef struct slopes {
  double a, alpha;
} slopes;

static slopes run_and_fit(disc *d, long from, long to)
{
  double st = 0, sv = 0, sw = 0, stt = 0, stv = 0, stw = 0, cnt = 0;
  for (long i = 0; i < to; i++) {
    step(d);
    if (i < from)
      continue;
    double t = (i + 1) * DT;
    st += t;
    sv += d->vx;
    sw += d->w;
    stt += t * t;
    stv += t * d->vx;
    stw += t * d->w;
    cnt += 1;
  }
  double den = cnt * stt - st * st;
  slopes s = {(cnt * stv - st * sv) / den, (cnt * stw - st * sw) / den};
  return s;
}

static void report(const char *what, double measured, double analytic)
{
  printf("  %-44s measured %12.6g  analytic %12.6g  (%+.3f %%)\n", what, measured, analytic,
         100.0 * (measured / analytic - 1.0));
}

/* Sliding: |F_t| is cut to exactly mu |F_n| and xi set to what the spring holds. */
static void test_coulomb_limit_slides(void)
{
  ms_v2 n = {0.0f, -1.0f};
  float kt = 1000.0f, ct = 5.0f, mu = 0.4f, fn = 2.0f, u = 1.0f, dt = 1e-4f;
  ms_tangential s = ms_tangential_law(n, 0.05f, 0.0f, u, 0.01f, fn, kt, ct, mu, dt);
  ENSURE(s.sliding);
  ENSURE(s.ft == -(mu * fn)); /* exactly the limit, against the slip */
  ENSURE(s.f.x == s.ft && s.f.y == 0.0f);
  ENSURE(s.torque_i == 0.05f * s.ft && s.torque_j == 0.0f);
  ENSURE_SMALL((-kt * s.xi - ct * u) / s.ft - 1.0f, 1e-5); /* spring + dashpot = the cut */
  ENSURE(fabsf(s.xi) < 0.01f);                            /* rescaled, not stretched on */
  /* a tension (negative F_n) limits by its magnitude; without a dashpot the spring alone
   * holds exactly mu |F_n| */
  s = ms_tangential_law(n, 0.05f, 0.0f, -u, 0.0f, -fn, kt, 0.0f, mu, dt * 100.0f);
  ENSURE(s.sliding && s.ft == mu * fn);
  ENSURE_SMALL(kt * s.xi + s.ft, 1e-6);
  /* mu = 0: no tangential force whatever the spring holds */
  s = ms_tangential_law(n, 0.05f, 0.0f, u, 0.01f, fn, kt, ct, 0.0f, dt);
  ENSURE(s.ft == 0.0f && s.f.x == 0.0f && s.f.y == 0.0f && s.torque_i == 0.0f);
}

/* Sticking: below the limit the contact is a linear spring-dashpot on xi. */
static void test_coulomb_limit_sticks_as_spring(void)
{
  ms_v2 n = {0.6f, 0.8f}; /* t = (-0.8, 0.6) */
  float kt = 1000.0f, ct = 5.0f, mu = 0.5f, fn = 100.0f, dt = 1e-4f;
  for (int i = -3; i <= 3; i++) {
    float xi = 1e-3f * (float)i;
    ms_tangential s = ms_tangential_law(n, 0.02f, 0.03f, 0.0f, xi, fn, kt, ct, mu, dt);
    ENSURE(!s.sliding && s.xi == xi && s.ft == -kt * xi);
    ENSURE(s.f.x == s.ft * -0.8f && s.f.y == s.ft * 0.6f);
    ENSURE(s.torque_i == 0.02f * s.ft && s.torque_j == 0.03f * s.ft);
  }
  ms_tangential s = ms_tangential_law(n, 0.02f, 0.03f, 0.5f, 2e-3f, fn, kt, ct, mu, dt);
  ENSURE(!s.sliding && s.xi == 2e-3f + 0.5f * dt && s.ft == -kt * s.xi - ct * 0.5f);
  /* the slip speed: (v_i - v_j).t plus both spins' rim speeds (discs in mesh) */
  ENSURE_SMALL(ms_slip_velocity(n, 1.0f, 2.0f, 0.0f, 0.02f, 0.0f, 0.03f) - (-0.8f + 1.2f), 1e-6);
  ENSURE_SMALL(ms_slip_velocity(n, 0.0f, 0.0f, 10.0f, 0.02f, 20.0f, 0.03f) - 0.8f, 1e-6);
}

/* The pair law seen from either disc: n, t and (v_i - v_j) all change sign, so u and xi
 * are the same bits on both sides, the forces are opposite and the torques equal; each
 * disc can keep its own copy of a pair's history and both stay identical. */
static float lcg_unit(unsigned *state) /* deterministic values in [-1, 1) */
{
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

static void test_pair_law_symmetric(void)
{
  unsigned seed = 12345u;
  float ri = 0.02f, rj = 0.015f;
  for (int k = 0; k < 1000; k++) { /* contacts of every kind, sticking and sliding */
    float dx = 0.03f * lcg_unit(&seed), dy = 0.03f * lcg_unit(&seed);
    float d = sqrtf(dx * dx + dy * dy);
    ms_v2 nij = {dx / d, dy / d}, nji = {-dx / d, -dy / d};
    float vi[2] = {lcg_unit(&seed), lcg_unit(&seed)}, vj[2] = {lcg_unit(&seed), lcg_unit(&seed)};
    float wi = 50.0f * lcg_unit(&seed), wj = 50.0f * lcg_unit(&seed);
    float xi = 1e-4f * lcg_unit(&seed), fn = 10.0f * (lcg_unit(&seed) + 1.0f);
    float uij = ms_slip_velocity(nij, vi[0] - vj[0], vi[1] - vj[1], wi, ri, wj, rj);
    float uji = ms_slip_velocity(nji, vj[0] - vi[0], vj[1] - vi[1], wj, rj, wi, ri);
    ENSURE(uij == uji);
    ms_tangential a = ms_tangential_law(nij, ri, rj, uij, xi, fn, 1e3f, 2.0f, 0.5f, 1e-5f);
    ms_tangential b = ms_tangential_law(nji, rj, ri, uji, xi, fn, 1e3f, 2.0f, 0.5f, 1e-5f);
    ENSURE(a.sliding == b.sliding);
    ENSURE(a.xi == b.xi && a.ft == b.ft);
    ENSURE(a.f.x == -b.f.x && a.f.y == -b.f.y);
    ENSURE(a.torque_i == b.torque_j && a.torque_j == b.torque_i);
  }
  float wi = 3.5f, wj = -8.25f;
  /* rolling resistance: opposite torques, the same rolling radius and inertia */
  float ii = ms_disc_inertia(0.01f, ri), ij = ms_disc_inertia(0.02f, rj);
  ENSURE(ms_rolling_radius(ri, rj) == ms_rolling_radius(rj, ri));
  ENSURE(ms_rolling_inertia(ii, ij) == ms_rolling_inertia(ij, ii));
  float m = ms_rolling_torque(wi - wj, 1.0f, 0.1f, ms_rolling_radius(ri, rj),
                              ms_rolling_inertia(ii, ij), 1e-5f);
  ENSURE(m < 0.0f && m == -ms_rolling_torque(wj - wi, 1.0f, 0.1f, ms_rolling_radius(rj, ri),
                                             ms_rolling_inertia(ij, ii), 1e-5f));
  ENSURE_SMALL(m / (0.1f * ms_rolling_radius(ri, rj)) + 1.0f, 1e-6);
}

/* ms_contact_normal, which the friction kernels use for a pair's normal part, gives the
 * force of ms_contact_force to the bit, the unit normal from i to j, and |F_n| = |f|; the
 * same n and F_n (n negated) seen from j; zeros for discs apart. */
static void test_contact_normal_matches_contact_force(void)
{
  unsigned seed = 777u;
  for (int k = 0; k < 1000; k++) {
    float dx = 0.04f * lcg_unit(&seed), dy = 0.04f * lcg_unit(&seed);
    float dvx = lcg_unit(&seed), dvy = lcg_unit(&seed), r_sum = 0.035f, m_eff = 0.05f;
    ms_v2 f = ms_contact_force(dx, dy, dvx, dvy, r_sum, 1e5f, 0.4f, m_eff);
    ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, r_sum, 1e5f, 0.4f, m_eff);
    ms_normal o = ms_contact_normal(-dx, -dy, -dvx, -dvy, r_sum, 1e5f, 0.4f, m_eff);
    ENSURE(memcmp(&f, &c.f, sizeof f) == 0);
    ENSURE(c.fn == o.fn && c.n.x == -o.n.x && c.n.y == -o.n.y);
    if (!ms_touching(dx, dy, r_sum)) {
      ENSURE(c.fn == 0.0f && c.n.x == 0.0f && c.n.y == 0.0f);
      continue;
    }
    ENSURE_SMALL(c.n.x * c.n.x + c.n.y * c.n.y - 1.0f, 1e-6);
    ENSURE_SMALL(c.n.x * dy - c.n.y * dx, 1e-6); /* along the line of centres */
    ENSURE(c.n.x * dx + c.n.y * dy > 0.0f);
    ENSURE_SMALL(fabsf(c.fn) - sqrtf(f.x * f.x + f.y * f.y), 1e-4 * fabsf(c.fn) + 1e-12);
  }
}

/* An incline with tan(theta) < 3 mu: rolls without slipping, a = 2/3 g sin(theta) and
 * w = -v/r (rolling towards +x turns the disc clockwise). */
static void test_incline_rolls(void)
{
  double th = 20.0;
  disc d = make_disc(th, 0.5f, 0.0f);
  slopes s = run_and_fit(&d, 10000, 50000);
  double a = 2.0 / 3.0 * G * sin(th * MS_PI / 180.0);
  report("rolling, incline 20 deg, mu 0.5: a", s.a, a);
  report("rolling: -w r / v", -d.w * d.r / d.vx, 1.0);
  ENSURE(d.touching && !d.last.sliding);
  ENSURE_SMALL(s.a / a - 1.0, 0.01);
  ENSURE_SMALL(-d.w * d.r / d.vx - 1.0, 0.01);
}

/* tan(theta) > 3 mu: slides, a = g (sin - mu cos), spun up at 2 mu g cos / r (clockwise). */
static void test_incline_slides(void)
{
  double th = 40.0, c = cos(th * MS_PI / 180.0);
  disc d = make_disc(th, 0.2f, 0.0f);
  slopes s = run_and_fit(&d, 10000, 50000);
  double a = G * (sin(th * MS_PI / 180.0) - 0.2 * c), alpha = 2.0 * 0.2 * G * c / d.r;
  report("sliding, incline 40 deg, mu 0.2: a", s.a, a);
  report("sliding: angular acceleration (clockwise)", -s.alpha, alpha);
  ENSURE(d.touching && d.last.sliding);
  ENSURE_SMALL(s.a / a - 1.0, 0.01);
  ENSURE_SMALL(-s.alpha / alpha - 1.0, 0.01);
}

/* Launched sliding at v0 with no spin on a flat floor: friction -mu g slows it and spins
 * it up until v + w r = 0, at t = v0 / (3 mu g) with v = 2/3 v0; then it rolls on. */
static void test_sliding_disc_reaches_rolling(void)
{
  double v0 = 1.0, mu = 0.3;
  disc d = make_disc(0.0, (float)mu, 0.0f);
  d.vx = v0;
  double u_prev = v0, v_prev = v0, t_roll = -1.0, v_roll = 0.0;
  for (long i = 0; i < 30000 && t_roll < 0.0; i++) {
    step(&d);
    double u = d.vx + d.w * d.r;
    if (u <= 0.0) { /* the step where the slip ends: interpolate within it */
      double f = u_prev / (u_prev - u);
      t_roll = (i + f) * DT;
      v_roll = v_prev + f * (d.vx - v_prev);
    }
    u_prev = u;
    v_prev = d.vx;
  }
  double t_exact = v0 / (3.0 * mu * G);
  report("sliding to rolling, mu 0.3: time", t_roll, t_exact);
  report("sliding to rolling: v / v0", v_roll / v0, 2.0 / 3.0);
  ENSURE(t_roll > 0.0);
  ENSURE_SMALL(t_roll / t_exact - 1.0, 0.01);
  ENSURE_SMALL(v_roll / v0 / (2.0 / 3.0) - 1.0, 0.01);
  for (long i = 0; i < 20000; i++)
    step(&d); /* then it rolls on at that speed (no rolling resistance) */
  ENSURE(!d.last.sliding);
  ENSURE_SMALL(d.vx / v_roll - 1.0, 0.01);
  ENSURE_SMALL(-d.w * d.r / d.vx - 1.0, 0.01);
}

/* A disc spinning at w0 set down on the floor without velocity: friction trades spin for
 * speed, keeping the angular momentum about the contact point, I w0 = I w + m r (-v) with
 * v = -w r at the end: it rolls off at v = -w0 r / 3 (anticlockwise spin drives it to -x). */
static void test_spinning_disc_set_down(void)
{
  double w0 = 30.0;
  disc d = make_disc(0.0, 0.3f, 0.0f);
  d.w = w0;
  for (long i = 0; i < 30000; i++)
    step(&d);
  double v = -w0 * d.r / 3.0;
  report("spinning disc set down, w0 30 rad/s: v", d.vx, v);
  report("spinning disc set down: -w r / v", -d.w * d.r / d.vx, 1.0);
  ENSURE(!d.last.sliding);
  ENSURE_SMALL(d.vx / v - 1.0, 0.01);
  ENSURE_SMALL(-d.w * d.r / d.vx - 1.0, 0.01);
}

/* Rolling resistance on a rolling disc: the torque mu_r m g r against the roll, shared
 * with the translation through static friction: a = -(2/3) mu_r g; it stops at
 * t = v0 / a and stays stopped. */
static void test_rolling_resistance_stops_disc(void)
{
  double v0 = 0.5, mu_r = 0.05, a = 2.0 / 3.0 * mu_r * G, t_stop = v0 / a;
  disc d = make_disc(0.0, 0.5f, (float)mu_r);
  d.vx = v0;
  d.w = -v0 / d.r;
  long stop_step = (long)(t_stop / DT);
  slopes s = run_and_fit(&d, stop_step / 10, stop_step * 8 / 10);
  report("rolling resistance mu_r 0.05: deceleration", -s.a, a);
  ENSURE_SMALL(-s.a / a - 1.0, 0.01);
  long i = stop_step * 8 / 10;
  double t_measured = -1.0;
  for (; i < stop_step * 2 && t_measured < 0.0; i++) {
    step(&d);
    if (d.vx <= 0.0)
      t_measured = (i + 1) * DT;
  }
  report("rolling resistance: stopping time", t_measured, t_stop);
  ENSURE_SMALL(t_measured / t_stop - 1.0, 0.01);
  double x_stop = d.x, worst_v = 0.0, worst_w = 0.0;
  for (long k = 0; k < 50000; k++) { /* half a second more: it does not rock */
    step(&d);
    if (k >= 10000) {
      worst_v = fmax(worst_v, fabs(d.vx));
      worst_w = fmax(worst_w, fabs(d.w));
    }
  }
  printf("  after the stop: |v| <= %g m/s, |w| <= %g rad/s, moved %g m\n", worst_v, worst_w,
         d.x - x_stop);
  ENSURE(worst_v < 1e-6 && worst_w < 1e-5);
  ENSURE_SMALL(d.x - x_stop, 1e-5);
}

/* A disc resting on the floor with a spin of round-off size stays at rest: the capped
 * torque removes the spin instead of reversing it every step. */
static void test_resting_disc_stays_at_rest(void)
{
  disc d = make_disc(0.0, 0.5f, 0.05f);
  d.w = 1e-6;
  double x0 = d.x, worst_v = 0.0, worst_w = 0.0;
  for (long k = 0; k < 50000; k++) {
    step(&d);
    worst_v = fmax(worst_v, fabs(d.vx));
    worst_w = fmax(worst_w, fabs(d.w));
  }
  printf("  resting disc, mu_r 0.05, spin 1e-6 rad/s: |v| <= %g m/s, |w| <= %g rad/s, moved "
         "%g m\n",
         worst_v, worst_w, d.x - x0);
  ENSURE(worst_w <= 1e-6 && worst_v < 1e-7);
  ENSURE_SMALL(d.x - x0, 1e-8);
  /* and exactly no torque at exactly no rolling */
  ENSURE(ms_rolling_torque(0.0f, 1.0f, 0.1f, 0.05f, 1e-4f, 1e-5f) == 0.0f);
}

/* A contact that opens forgets its displacement: rolling down an incline the spring holds
 * the friction that turns the disc; lifted clear for one step xi is 0; put back, its first step is that of
 * a fresh contact, not of the stretched one. */
static void test_history_forgotten_when_open(void)
{
  disc d = make_disc(15.0, 0.5f, 0.0f);
  for (long i = 0; i < 20000; i++)
    step(&d);
  ENSURE(d.touching && !d.last.sliding && fabsf(d.xi) > 1e-6f);
  disc lifted = d;
  lifted.y = d.r + 0.01;
  step(&lifted);
  ENSURE(!lifted.touching && lifted.xi == 0.0f);
  disc back = lifted;
  back.x = d.x, back.y = d.y, back.vx = d.vx, back.vy = d.vy, back.w = d.w;
  step(&back);
  ms_v2 n = {0.0f, -1.0f};
  float u = ms_wall_slip_velocity(n, (float)d.vx, (float)d.vy, (float)d.w, d.r);
  ENSURE(back.touching && !back.last.sliding);
  ENSURE(back.last.xi == 0.0f + u * (float)DT);
  ENSURE(ms_tangential_history(1, 0.25f) == 0.25f && ms_tangential_history(0, 0.25f) == 0.0f);
}

/* The rotation step is symplectic Euler (spin first, then the angle with the new spin),
 * like the translation's; a disc rolling down the incline turns by -distance / r. */
static void test_rotation_step(void)
{
  double theta = 0.0, w = 1.0;
  ms_integrate_rotation(&theta, &w, 2.0f, ms_disc_inertia(4.0f, 1.0f), 0.5);
  ENSURE(w == 1.5 && theta == 0.75);
  ENSURE(ms_disc_inertia(0.1f, 0.05f) == 0.5f * 0.1f * 0.05f * 0.05f);
  disc d = make_disc(20.0, 0.5f, 0.0f);
  double x0 = d.x;
  for (long i = 0; i < 50000; i++)
    step(&d);
  report("rolling: -theta r / distance", -d.theta * d.r / (d.x - x0), 1.0);
  ENSURE_SMALL(-d.theta * d.r / (d.x - x0) - 1.0, 0.01);
}

int main(int argc, char **argv)
{
  filter = argc > 1 ? argv[1] : "";
  RUN_TEST(test_coulomb_limit_slides, filter);
  RUN_TEST(test_coulomb_limit_sticks_as_spring, filter);
  RUN_TEST(test_pair_law_symmetric, filter);
  RUN_TEST(test_contact_normal_matches_contact_force, filter);
  RUN_TEST(test_incline_rolls, filter);
  RUN_TEST(test_incline_slides, filter);
  RUN_TEST(test_sliding_disc_reaches_rolling, filter);
  RUN_TEST(test_spinning_disc_set_down, filter);
  RUN_TEST(test_rolling_resistance_stops_disc, filter);
  RUN_TEST(test_resting_disc_stays_at_rest, filter);
  RUN_TEST(test_history_forgotten_when_open, filter);
  RUN_TEST(test_rotation_step, filter);
  return TEST_EXIT();
}
