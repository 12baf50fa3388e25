/* The time step's effect on restitution (docs/time-step.md): the loader's prediction
 * (ms_restitution_at) against real runs at the same phase of the step grid, and the
 * warning it gives for a dt whose restitution error exceeds MS_RESTITUTION_WARN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"
#include "shared/contact.h"

static const char *filter;

/* Small discs of r = 0.01 m, density 1000 (m = 0.314 kg), k = 1e4 N/m, no gravity. */
static const double K = 1e4, R = 0.01, M = 1000 * MS_PI * 0.01 * 0.01;

static void scene_text(char *out, size_t size, double dt, double e, int count)
{
  snprintf(out, size,
           "[simulation]\ndt = %.17g\ngravity = 0, 0\nsteps = 1\n"
           "[box]\nmin = 0, 0\nmax = 1, 1\n"
           "[material]\nstiffness = 1e4\nrestitution = %g\n"
           "[small]\ncount = %d\nradius = 0.01\ndensity = 1000\nregion = 0.1, 0.1, 0.2, 0.2\n",
           dt, e, count);
}

/* One head-on contact run to its end: the restitution it gave and the phase at which
 * it started (first overlap / one step's travel). `wall`: one disc against the left
 * wall; else two discs closing on each other. */
typedef struct measured {
  double e, phase;
} measured;

static int measure(double dt, double e, int wall, measured *out)
{
  char text[1024];
  scene_text(text, sizeof text, dt, e, wall ? 1 : 2);
  ms_scene sc;
  if (ms_scene_load_string(text, "test", &sc))
    return fprintf(stderr, "scene: %s\n", ms_error_message()), 0;
  /* Wall: 1.3 mm from the wall, -0.2 m/s. Pair: 1 mm apart, closing at 0.2 m/s. */
  const float wall_pos[2] = {0.0113f, 0.5f}, wall_vel[2] = {-0.2f, 0.0f};
  const float pair_pos[4] = {0.48f, 0.5f, 0.501f, 0.5f}, pair_vel[4] = {0.1f, 0, -0.1f, 0};
  for (int k = 0; k < 2 * sc.small_count; k++) {
    sc.small_pos[k] = wall ? wall_pos[k] : pair_pos[k];
    sc.small_vel[k] = wall ? wall_vel[k] : pair_vel[k];
  }
  ms_sim *sim = NULL;
  int ok = 0, started = 0;
  double v_before = 0.0;
  if (ms_sim_create(&sc, NULL, &sim))
    goto done;
  for (int step = 0; step < 2000; step++) {
    ms_state st;
    if (ms_sim_read_state(sim, &st))
      goto done;
    const double *x = st.small_pos, *v = st.small_vel;
    /* gap between the surfaces and closing speed */
    double gap = wall ? x[0] - R : (x[2] - x[0]) - 2 * R;
    double closing = wall ? -v[0] : v[0] - v[2];
    ms_state_free(&st);
    if (!started && gap < 0.0) {
      started = 1;
      out->phase = -gap / (v_before * dt);
    } else if (!started) {
      v_before = closing;
    } else if (gap >= 0.0) {
      out->e = -closing / v_before;
      ok = 1;
      break;
    }
    if (ms_sim_advance(sim, 1))
      goto done;
  }
done:
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return ok;
}

/* (a) The prediction is the program's own arithmetic: at the phase a run started at, it
 * gives the restitution the run measured, at dt = t_c/10 where the spread is widest. */
static void test_prediction_matches_runs(void)
{
  const double es[] = {0.5, 0.1, 0.9};
  for (int i = 0; i < 3; i++) {
    for (int wall = 0; wall < 2; wall++) {
      double m_eff = wall ? M : M / 2, dt = ms_contact_time(K, es[i], m_eff) / 10.01;
      measured got;
      ENSURE(measure(dt, es[i], wall, &got));
      double predicted = ms_restitution_at(K, es[i], m_eff, dt, got.phase);
      ms_restitution_range r = ms_restitution_sweep(K, es[i], m_eff, dt, 32);
      printf("    %s e = %.1f, t_c/10, phase %.3f: run %.5f, predicted %.5f (range %.4f..%.4f)\n",
             wall ? "small-wall" : "small-small", es[i], got.phase, got.e, predicted, r.min,
             r.max);
      ENSURE(got.phase > 0.0 && got.phase <= 1.0);
      ENSURE_SMALL(got.e - predicted, 1e-4);
      ENSURE(got.e >= r.min - 1e-3 * es[i] && got.e <= r.max + 1e-3 * es[i]);
    }
  }
}

static int load_two_discs(double dt, double e, ms_scene *sc)
{
  char text[1024];
  scene_text(text, sizeof text, dt, e, 2);
  if (ms_scene_load_string(text, "test", sc) != MS_OK) {
    fprintf(stderr, "scene: %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

/* (b) A dt accepted by the hard limit but with a large error warns, at the dt line, with
 * the contact kind, the range and a dt; that dt pasted back gives no warning. */
static void test_large_error_warns_with_a_dt_that_passes(void)
{
  double t_c = ms_contact_time(K, 0.5, M / 2), dt = t_c / 12;
  ms_scene sc;
  ENSURE(load_two_discs(dt, 0.5, &sc));
  int count = sc.warning_count;
  char warning[1024];
  snprintf(warning, sizeof warning, "%s", count ? sc.warnings[0] : "");
  ms_scene_free(&sc);
  printf("    %s\n", warning);
  ENSURE(count == 1);
  ENSURE(strncmp(warning, "test:2: [simulation] dt: ", 25) == 0);
  ENSURE(strstr(warning, "small-small"));
  ENSURE(strstr(warning, "restitutes e = 0.5 as 0.4"));
  const char *use = strstr(warning, "use dt <= ");
  ENSURE(use);
  double suggested = strtod(use + strlen("use dt <= "), NULL);
  ENSURE(suggested > t_c / 100 && suggested < dt);
  ENSURE(load_two_discs(suggested, 0.5, &sc));
  int again = sc.warning_count;
  ms_scene_free(&sc);
  ENSURE(again == 0);
  /* ... and the prediction agrees: within the threshold there, not at the first dt. */
  ms_restitution_range r = ms_restitution_sweep(K, 0.5, M / 2, (float)suggested, 32);
  ENSURE(fabs(r.min - 0.5) <= 0.5 * MS_RESTITUTION_WARN);
  ENSURE(fabs(r.max - 0.5) <= 0.5 * MS_RESTITUTION_WARN);
}

/* (c) A dt whose error is within the threshold, for every e, gives no warning. */
static void test_small_error_does_not_warn(void)
{
  const double es[] = {0.1, 0.5, 0.9, 1.0};
  const double per_contact[] = {500, 60, 15, 10.01};
  for (int i = 0; i < 4; i++) {
    ms_scene sc;
    ENSURE(load_two_discs(ms_contact_time(K, es[i], M / 2) / per_contact[i], es[i], &sc));
    int count = sc.warning_count;
    if (count)
      printf("    unexpected: %s\n", sc.warnings[0]);
    ms_scene_free(&sc);
    ENSURE(count == 0);
  }
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  ms_set_quiet(1);
  RUN_TEST(test_prediction_matches_runs, filter);
  RUN_TEST(test_large_error_warns_with_a_dt_that_passes, filter);
  RUN_TEST(test_small_error_does_not_warn, filter);
  return TEST_EXIT();
}
