/* Friction through the whole simulator against analytic results (issue 12): the scenes
 * tests/scenes/friction_*.ini run through the API on the OpenCL device (small disc) and
 * the CPU worker (large discs), and each measured figure must be within 1 % of its
 * analytic value (docs/validation.md, "Analytic tests", derives them and lists what was
 * measured). Tilted gravity makes the floor an incline:
 *   roll    tan(theta) < 3 mu: a = (2/3) g sin(theta), omega = -v / r (clockwise);
 *   slide   tan(theta) > 3 mu: a = g (sin(theta) - mu cos(theta)), angular acceleration
 *           -2 mu g cos(theta) / r;
 *   launch  a disc sliding at v0 without spin rolls at (2/3) v0 after v0 / (3 mu g);
 *   drop    a spinning disc dropped on the floor: the linear and angular velocity after
 *           the bounce, sticking and sliding;
 *   oblique a disc striking a wall obliquely: the same two regimes, tangentially;
 *   head-on with mu > 0, head-on collisions restitute exactly as with mu = 0.
 * Every test but the last fails with friction off (they were run so).
 * usage: test_friction_sim [filter] SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;
static const char *root;

#define TOL 0.01 /* the 1 % */

/* One disc of the state: the large one `index`, or the small one (index < 0: small 0). */
typedef struct disc {
  double x, y, vx, vy, theta, w;
} disc;

static ms_sim *open_scene(const char *name, ms_scene *sc)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/scenes/%s", root, name);
  if (ms_scene_load(path, sc)) {
    fprintf(stderr, "scene: %s\n", ms_error_message());
    return NULL;
  }
  ms_sim *sim = NULL;
  if (ms_sim_create(sc, NULL, &sim)) {
    fprintf(stderr, "sim: %s\n", ms_error_message());
    ms_scene_free(sc);
    return NULL;
  }
  return sim;
}

static void close_scene(ms_sim *sim, ms_scene *sc)
{
  ms_sim_destroy(sim);
  ms_scene_free(sc);
}

/* Reads disc `large` (or the small disc when large < 0) of the current state. Without
 * rotation in the state (friction off) theta and omega read as 0. */
static int read_disc(ms_sim *sim, int large, disc *d)
{
  ms_state st;
  if (ms_sim_read_state(sim, &st))
    return -1;
  const double *p = large < 0 ? st.small_pos : &st.large_pos[2 * large];
  const double *v = large < 0 ? st.small_vel : &st.large_vel[2 * large];
  const double *rot = large < 0 ? st.small_rot : (st.large_rot ? &st.large_rot[2 * large] : NULL);
  *d = (disc){p[0], p[1], v[0], v[1], rot ? rot[0] : 0.0, rot ? rot[1] : 0.0};
  ms_state_free(&st);
  return 0;
}

static double radius_of(const ms_scene *sc, int large)
{
  return large < 0 ? (double)sc->small_r[0] : (double)sc->large[large].radius;
}

static const char *name_of(int large) { return large < 0 ? "small" : "large"; }

static double rel(double measured, double want) { return measured / want - 1.0; }

/* Least-squares slope of y over t. */
static double slope(const double *t, const double *y, int n)
{
  double st = 0, sy = 0, stt = 0, sty = 0;
  for (int i = 0; i < n; i++) {
    st += t[i];
    sy += y[i];
    stt += t[i] * t[i];
    sty += t[i] * y[i];
  }
  return (n * sty - st * sy) / (n * stt - st * st);
}

/* The incline of a scene's tilted gravity: the angle and g. */
static void incline(const ms_scene *sc, double *theta, double *g)
{
  double gx = sc->gravity[0], gy = sc->gravity[1];
  *g = sqrt(gx * gx + gy * gy);
  *theta = atan2(gx, -gy);
}

#define MAX_SAMPLES 512

/* Samples v and omega of every disc (the large ones, then the small one) every `every`
 * steps from t0 to t1 (s). */
typedef struct samples {
  int n, n_discs;
  double t[MAX_SAMPLES];
  double v[3][MAX_SAMPLES], w[3][MAX_SAMPLES];
  disc last[3];
} samples;

static int sample(ms_sim *sim, const ms_scene *sc, double t0, double t1, int every, samples *s)
{
  long first = lround(t0 / sc->dt_s), last = lround(t1 / sc->dt_s);
  s->n = 0;
  s->n_discs = sc->large_count + 1;
  if (ms_sim_advance(sim, first))
    return -1;
  for (long step = first; step <= last && s->n < MAX_SAMPLES; step += every) {
    if (step > first && ms_sim_advance(sim, every))
      return -1;
    s->t[s->n] = (double)step * sc->dt_s;
    for (int k = 0; k < s->n_discs; k++) {
      int large = k < sc->large_count ? k : -1;
      if (read_disc(sim, large, &s->last[k]))
        return -1;
      s->v[k][s->n] = s->last[k].vx;
      s->w[k][s->n] = s->last[k].w;
    }
    s->n++;
  }
  return 0;
}

static void test_incline_rolls_without_slipping(void)
{
  ms_scene sc;
  ms_sim *sim = open_scene("friction_roll.ini", &sc);
  ENSURE(sim);
  double theta, g;
  incline(&sc, &theta, &g);
  ENSURE(tan(theta) < 3.0 * sc.wall_friction);
  samples s;
  /* After 0.1 s the bounce of the start has died out; 0.3 s of rolling. */
  int ok = sample(sim, &sc, 0.1, 0.4, 20, &s) == 0;
  double a_want = 2.0 / 3.0 * g * sin(theta);
  for (int k = 0; ok && k < s.n_discs; k++) {
    int large = k < sc.large_count ? k : -1;
    double r = radius_of(&sc, large), a = slope(s.t, s.v[k], s.n);
    double roll = -s.last[k].w * r / s.last[k].vx;
    printf("    %s disc: a = %.6f m/s^2 (analytic %.6f, %+.4f %%), -omega r / v = %.6f\n",
           name_of(large), a, a_want, 100.0 * rel(a, a_want), roll);
    ok = fabs(rel(a, a_want)) < TOL && fabs(roll - 1.0) < TOL;
  }
  close_scene(sim, &sc);
  ENSURE(ok);
}

static void test_incline_slides(void)
{
  ms_scene sc;
  ms_sim *sim = open_scene("friction_slide.ini", &sc);
  ENSURE(sim);
  double theta, g, mu = sc.wall_friction;
  incline(&sc, &theta, &g);
  ENSURE(tan(theta) > 3.0 * mu);
  samples s;
  int ok = sample(sim, &sc, 0.1, 0.3, 20, &s) == 0;
  double a_want = g * (sin(theta) - mu * cos(theta));
  for (int k = 0; ok && k < s.n_discs; k++) {
    int large = k < sc.large_count ? k : -1;
    double r = radius_of(&sc, large), alpha_want = -2.0 * mu * g * cos(theta) / r;
    double a = slope(s.t, s.v[k], s.n), alpha = slope(s.t, s.w[k], s.n);
    printf("    %s disc: a = %.6f m/s^2 (analytic %.6f, %+.4f %%), angular acceleration "
           "%.5f rad/s^2 (analytic %.5f, %+.4f %%)\n", name_of(large), a, a_want,
           100.0 * rel(a, a_want), alpha, alpha_want, 100.0 * rel(alpha, alpha_want));
    ok = fabs(rel(a, a_want)) < TOL && fabs(rel(alpha, alpha_want)) < TOL;
  }
  close_scene(sim, &sc);
  ENSURE(ok);
}

/* The time the slip u = v + omega r of disc `large` first reaches 0, interpolated
 * between steps, and the speed then; -1 when it does not within `max_t`. */
static double time_to_roll(ms_sim *sim, const ms_scene *sc, int large, double max_t, double *v)
{
  double r = radius_of(sc, large), u_prev = 0.0, v_prev = 0.0;
  long steps = lround(max_t / sc->dt_s);
  for (long step = 0; step <= steps; step++) {
    disc d;
    if (step > 0 && ms_sim_advance(sim, 1))
      return -1.0;
    if (read_disc(sim, large, &d))
      return -1.0;
    double u = d.vx + d.w * r;
    if (step > 0 && u <= 0.0) {
      double f = u_prev / (u_prev - u); /* where between the two steps u crossed 0 */
      *v = v_prev + f * (d.vx - v_prev);
      return ((double)(step - 1) + f) * sc->dt_s;
    }
    u_prev = u;
    v_prev = d.vx;
  }
  return -1.0;
}

static void test_launched_disc_reaches_rolling(void)
{
  int ok = 1;
  for (int k = 0; ok && k < 2; k++) {
    ms_scene sc;
    ms_sim *sim = open_scene("friction_launch.ini", &sc);
    ENSURE(sim);
    int large = k == 0 ? 0 : -1;
    double v0 = large < 0 ? sc.small_vel[0] : sc.large[0].vx, mu = sc.wall_friction;
    double g = -sc.gravity[1], t_want = v0 / (3.0 * mu * g), v = 0.0;
    double t = time_to_roll(sim, &sc, large, 3.0 * t_want, &v);
    printf("    %s disc: rolls after %.6f s (analytic %.6f, %+.4f %%) at %.6f v0 (analytic "
           "2/3, %+.4f %%)\n", name_of(large), t, t_want, 100.0 * rel(t, t_want), v / v0,
           100.0 * rel(v / v0, 2.0 / 3.0));
    ok = t > 0 && fabs(rel(t, t_want)) < TOL && fabs(rel(v / v0, 2.0 / 3.0)) < TOL;
    close_scene(sim, &sc);
  }
  ENSURE(ok);
}

/* The largest speed of separation during a contact of normal restitution e, over the
 * speed of approach: the linear spring-dashpot has no tension cut-off, so after the
 * overlap's rate passes its extreme the dashpot pulls and the disc leaves at e V, slower
 * than the v_peak V it reached. With r = zeta / sqrt(1 - zeta^2) = -ln(e) / pi and
 * x = omega_d t, the overlap's rate is V exp(-r x) (cos x - r sin x), extreme where its
 * derivative vanishes, tan x = 2 r / (r^2 - 1), in (pi/2, pi). */
static double peak_separation(double e)
{
  double r = -log(e) / 3.14159265358979323846;
  double x = 3.14159265358979323846 + atan(2.0 * r / (r * r - 1.0));
  return -exp(-r * x) * (cos(x) - r * sin(x));
}

/* An impact on a wall (docs/validation.md): normal speed V in, slip u0 of the contact
 * point along the wall's tangent t, e the normal restitution measured. With the
 * tangential spring's k_t = k_n / 3 the slip obeys the normal overlap's equation, so
 * F_t / F_n = -u0 / (3 V) all through a contact that sticks: one with |u0| <= 3 mu V
 * sticks throughout and ends with u = -e u0 (tangential impulse -(1 + e) m u0 / 3). One
 * that slides throughout takes mu times the impulse of |F_n|: (1 + e) m V while the
 * spring pushes, and twice (v_peak - e) m V more while the dashpot pulls at the end, so
 * -sign(u0) mu (1 - e + 2 v_peak) m V; it does if |u0| >= 3 mu (1 - e + 2 v_peak) V.
 * Returns the tangential impulse per mass, NaN between the regimes. */
static double impulse_per_mass(double u0, double V, double e, double mu, int *sticks)
{
  double sliding = mu * (1.0 - e + 2.0 * peak_separation(e)) * V;
  *sticks = fabs(u0) <= 3.0 * mu * V;
  if (*sticks)
    return -(1.0 + e) * u0 / 3.0;
  if (fabs(u0) >= 3.0 * sliding)
    return -(u0 > 0 ? 1.0 : -1.0) * sliding;
  return NAN; /* no closed form (the scenes avoid it) */
}

/* One disc's impact: along the wall's tangent t (n = towards the wall, t = n turned a
 * quarter anticlockwise) the speed changes by J and the spin by 2 J / r. */
static int check_impact(const ms_scene *sc, int large, const disc *in, const disc *out,
                        double nx, double ny)
{
  double tx = -ny, ty = nx, r = radius_of(sc, large), mu = sc->wall_friction;
  double V = in->vx * nx + in->vy * ny, vt_in = in->vx * tx + in->vy * ty;
  double e = -(out->vx * nx + out->vy * ny) / V;
  double u0 = vt_in + in->w * r;
  int sticks = 0;
  double J = impulse_per_mass(u0, V, e, mu, &sticks);
  double vt_want = vt_in + J, w_want = in->w + 2.0 * J / r;
  double vt = out->vx * tx + out->vy * ty, u = vt + out->w * r;
  printf("    %s disc, %s (u0 = %.3f m/s, normal restitution %.5f): tangential speed %.6f "
         "m/s (analytic %.6f, %+.4f %%), spin %.5f rad/s (analytic %.5f, %+.4f %%), "
         "tangential restitution %.5f\n", name_of(large), sticks ? "sticks" : "slides", u0, e,
         vt, vt_want, 100.0 * rel(vt, vt_want), out->w, w_want, 100.0 * rel(out->w, w_want),
         -u / u0);
  return isfinite(J) && fabs(rel(vt, vt_want)) < TOL && fabs(rel(out->w, w_want)) < TOL;
}

/* Runs an impact scene: the discs' state before (step 0) and after every impact. */
static int impacts(const char *scene, double nx, double ny)
{
  ms_scene sc;
  ms_sim *sim = open_scene(scene, &sc);
  if (!sim)
    return 0;
  int n = sc.large_count + 1, ok = 1;
  disc in[3], out[3];
  for (int k = 0; k < n && ok; k++)
    ok = read_disc(sim, k < sc.large_count ? k : -1, &in[k]) == 0;
  /* 40 ms: each disc meets the wall after 1 ms and leaves it within 20. */
  ok = ok && ms_sim_advance(sim, lround(0.04 / sc.dt_s)) == 0;
  for (int k = 0; k < n && ok; k++)
    ok = read_disc(sim, k < sc.large_count ? k : -1, &out[k]) == 0;
  int pass = ok;
  for (int k = 0; k < n && ok; k++)
    pass &= check_impact(&sc, k < sc.large_count ? k : -1, &in[k], &out[k], nx, ny);
  close_scene(sim, &sc);
  return ok && pass;
}

static void test_spinning_disc_dropped_on_the_floor(void)
{
  ENSURE(impacts("friction_spin_drop.ini", 0.0, -1.0));
}

static void test_oblique_impact_on_a_wall(void)
{
  ENSURE(impacts("friction_oblique.ini", 1.0, 0.0));
}

/* Head-on collisions on one line (y = 0.5 exactly: the small discs' radius and region
 * are binary fractions, so no contact has the least tangential component): the large
 * discs meet, the left one almost
 * stops and the small disc behind it catches up with it (large-small, on the CPU
 * worker), bounces back and meets the other small disc (small-small, on the device).
 * With friction every contact's slip is exactly 0, so the run is the frictionless one
 * bit for bit: the same restitution, the same state. */
static const char *head_on =
    "[simulation]\ndt = 1e-4\ngravity = 0, 0\nsteps = 1\n"
    "[box]\nmin = 0, 0\nmax = 1, 1\n"
    "[material]\nstiffness = 1e4\nrestitution = 0.5\n%s"
    "[small]\ncount = 2\nradius = 0.015625\ndensity = 1000 kg/m^2\n"
    "region = 0.05, 0.484375, 0.3, 0.6\n"
    "spacing = 2\nvelocity = 0.5, 0\n"
    "[large.a]\nposition = 0.3, 0.5\nradius = 0.03\ndensity = 1000 kg/m^2\nvelocity = 0.5, 0\n"
    "[large.b]\nposition = 0.5, 0.5\nradius = 0.02\ndensity = 1000 kg/m^2\nvelocity = -0.5, 0\n";

static int run_head_on(const char *friction, ms_state *st)
{
  char text[2048];
  snprintf(text, sizeof text, head_on, friction);
  ms_scene sc;
  if (ms_scene_load_string(text, "head-on", &sc)) {
    fprintf(stderr, "scene: %s\n", ms_error_message());
    return -1;
  }
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) || ms_sim_advance(sim, 6500) ||
           ms_sim_read_state(sim, st);
  if (rc)
    fprintf(stderr, "sim: %s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc ? -1 : 0;
}

static void test_head_on_restitutes_as_without_friction(void)
{
  ms_state off, on;
  ENSURE(run_head_on("", &off) == 0);
  ENSURE(run_head_on("friction = 0.5\nwall_friction = 0.5\nrolling_friction = 0.1\n", &on) == 0);
  size_t ns = (size_t)off.n_small * 2 * sizeof(double), nl = (size_t)off.n_large * 2 * sizeof(double);
  /* Every disc was hit: none moves as it started. */
  int collided = off.small_vel[0] != 0.5 && off.small_vel[2] != 0.5 &&
                 off.large_vel[0] != 0.5 && off.large_vel[2] != -0.5;
  int same = on.small_rot && memcmp(off.small_pos, on.small_pos, ns) == 0 &&
             memcmp(off.small_vel, on.small_vel, ns) == 0 &&
             memcmp(off.large_pos, on.large_pos, nl) == 0 &&
             memcmp(off.large_vel, on.large_vel, nl) == 0;
  printf("    after 0.65 s: small vx %.17g %.17g, large vx %.17g %.17g (%s with friction)\n",
         off.small_vel[0], off.small_vel[2], off.large_vel[0], off.large_vel[2],
         same ? "bit for bit the same" : "DIFFERENT");
  if (!same && on.small_rot)
    printf("    with friction: small vx %.17g %.17g, large vx %.17g %.17g\n", on.small_vel[0],
           on.small_vel[2], on.large_vel[0], on.large_vel[2]);
  ms_state_free(&off);
  ms_state_free(&on);
  ENSURE(collided && same);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  root = argc > 2 ? argv[2] : ".";
  RUN_TEST(test_incline_rolls_without_slipping, filter);
  RUN_TEST(test_incline_slides, filter);
  RUN_TEST(test_launched_disc_reaches_rolling, filter);
  RUN_TEST(test_spinning_disc_dropped_on_the_floor, filter);
  RUN_TEST(test_oblique_impact_on_a_wall, filter);
  RUN_TEST(test_head_on_restitutes_as_without_friction, filter);
  return TEST_EXIT();
}
