/* Friction on the device (kernels/friction.cl, collision/device/nlist.c): a small disc rolls
 * down an incline at (2/3) g sin(theta); a head-on collision restitutes exactly as
 * without friction; a frictional pour gives one hash in every pipeline, buffer mode,
 * exchange, worker thread count, grid capacity, neighbour list size and rebuild
 * schedule; and the exported friction state, imported into a fresh simulation, resumes
 * the run exactly.
 * Usage: test_friction_device [FILTER|""] [SOURCE_ROOT] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "harness.h"
#include "shared/contact.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char root[1024] = ".";

#define POUR "tests/scenes/friction_pour.ini"

static ms_status load_text(const char *text, ms_scene *sc)
{
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "friction.ini", sc);
  if (st)
    fprintf(stderr, "%s\n", ms_error_message());
  return st;
}

static ms_status load_file(const char *rel, ms_scene *sc)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  ms_error_clear();
  ms_status st = ms_scene_load(path, sc);
  if (st)
    fprintf(stderr, "%s\n", ms_error_message());
  return st;
}

static ms_sim *create(const ms_scene *sc)
{
  ms_sim *sim = NULL;
  if (ms_sim_create(sc, NULL, &sim)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return NULL;
  }
  return sim;
}

/* One small disc (m = 0.1 kg, r = 5 cm) resting on the floor under gravity tilted by
 * theta, so the floor is an incline; friction as given. Like tests/test_friction_law.c,
 * it starts at its static overlap so that no bounce has to die out. */
static ms_sim *incline(double theta_deg, double mu, ms_scene *sc)
{
  double g = 9.81, th = theta_deg * MS_PI / 180.0, r = 0.05, m = 0.1, k = 1e5;
  char text[1024];
  snprintf(text, sizeof text,
           "[simulation]\ndt = 1e-5\ngravity = %.17g, %.17g\n[box]\nmin = 0, 0\nmax = 1, 0.5\n"
           "[material]\nstiffness = %g\nrestitution = 0.5\nfriction = %g\nwall_friction = %g\n"
           "[small]\ncount = 1\nradius = %g\ndensity = %.17g\nregion = 0.05, 0, 0.2, 0.2\n",
           g * sin(th), -g * cos(th), k, mu, mu, r, m / (MS_PI * r * r));
  if (load_text(text, sc))
    return NULL;
  ms_sim *sim = create(sc);
  if (!sim)
    return NULL;
  double pos[2] = {0.1, r - m * g * cos(th) / k}, vel[2] = {0.0, 0.0};
  if (ms_sim_restore(sim, 0, (size_t)sc->grid_capacity, pos, vel, NULL)) {
    ms_sim_destroy(sim);
    return NULL;
  }
  return sim;
}

/* Least-squares slope of y against x. */
static double slope(const double *x, const double *y, int n)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* tan 20 deg < 3 mu: the disc rolls without slipping, a = (2/3) g sin(theta), w = -v/r
 * (clockwise while rolling to +x), each within 1 %. */
static void test_incline_rolls(void)
{
  ms_scene sc;
  ms_sim *sim = incline(20.0, 0.5, &sc);
  ENSURE(sim);
  enum { SAMPLES = 20, EVERY = 500 };
  double t[SAMPLES], v[SAMPLES], w[SAMPLES];
  int ok = ms_sim_advance(sim, 5000) == MS_OK; /* 0.05 s to settle */
  for (int i = 0; ok && i < SAMPLES; i++) {
    ms_state st;
    ok = ms_sim_advance(sim, EVERY) == MS_OK && ms_sim_read_state(sim, &st) == MS_OK;
    if (!ok)
      break;
    t[i] = (double)st.step * 1e-5;
    v[i] = st.small_vel[0];
    w[i] = st.small_rot ? st.small_rot[1] : 0.0;
    ms_state_free(&st);
  }
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  double a = slope(t, v, SAMPLES), want = 2.0 / 3.0 * 9.81 * sin(20.0 * MS_PI / 180.0);
  printf("    incline 20 deg, mu 0.5: a = %.6f m/s^2 (analytic %.6f), -w r / v = %.6f\n", a, want,
         -w[SAMPLES - 1] * 0.05 / v[SAMPLES - 1]);
  ENSURE_SMALL(a / want - 1.0, 0.01);
  ENSURE_SMALL(-w[SAMPLES - 1] * 0.05 / v[SAMPLES - 1] - 1.0, 0.01);
}

/* Two discs meeting head-on along x: no slip, so friction adds nothing and the whole
 * state (positions and velocities) equals the frictionless run's to the bit; neither
 * disc turns. */
static void run_head_on(double mu, ms_state *out)
{
  char text[1024];
  snprintf(text, sizeof text,
           "[simulation]\ndt = 1e-5\ngravity = 0, 0\n[box]\nmin = 0, 0\nmax = 0.4, 0.2\n"
           "[material]\nstiffness = 1e5\nrestitution = 0.5\nfriction = %g\n"
           "rolling_friction = %g\n"
           "[small]\ncount = 2\nradius = 0.01\nregion = 0.1, 0.09, 0.3, 0.11\n", mu, mu / 10);
  ms_scene sc;
  memset(out, 0, sizeof *out);
  if (load_text(text, &sc))
    return;
  ms_sim *sim = create(&sc);
  double pos[4] = {0.17, 0.1, 0.23, 0.1}, vel[4] = {0.8, 0.0, -0.4, 0.0};
  if (sim && !ms_sim_restore(sim, 0, (size_t)sc.grid_capacity, pos, vel, NULL) &&
      !ms_sim_advance(sim, 5000))
    ms_sim_read_state(sim, out);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

static void test_head_on_restitutes_as_frictionless(void)
{
  ms_state with, without;
  run_head_on(0.5, &with);
  run_head_on(0.0, &without);
  int ok = with.small_vel && without.small_vel;
  if (ok) {
    double e = -(with.small_vel[2] - with.small_vel[0]) / (-0.4 - 0.8);
    printf("    head-on, mu 0.5: restitution %.6f, v = %.9f, %.9f\n", e, with.small_vel[0],
           with.small_vel[2]);
    ok = with.small_vel[0] < with.small_vel[2] && /* they did collide and separate */
         memcmp(with.small_pos, without.small_pos, 4 * sizeof(double)) == 0 &&
         memcmp(with.small_vel, without.small_vel, 4 * sizeof(double)) == 0 &&
         with.small_rot && !without.small_rot && with.small_rot[1] == 0.0 &&
         with.small_rot[3] == 0.0;
  }
  ms_state_free(&with);
  ms_state_free(&without);
  ENSURE(ok);
}

/* One run of the pour with the given options; returns the hash (0 on failure). */
typedef struct pour_spec {
  ms_pipeline pipeline;
  ms_buffer_mode buffers;
  ms_exchange exchange;
  int cpu_threads;    /* 0: the default */
  int grid_capacity;  /* 0: the scene's */
  int slots;          /* 0: the list's own; else its slots at the first build and at a
                         rebuild forced halfway, when the pairs have histories */
  int rebuild_always; /* rebuild the list before every iteration */
  long switch_every;  /* 0: never; else flip buffers and exchange between advances */
} pour_spec;

static uint32_t pour_hash(const pour_spec *p, long steps, ms_sim_stats *stats)
{
  ms_scene sc;
  if (load_file(POUR, &sc))
    return 0;
  sc.pipeline = p->pipeline;
  sc.buffers = p->buffers;
  sc.buffers_given = 1;
  sc.exchange = p->exchange;
  sc.exchange_given = 1;
  sc.cpu_threads = p->cpu_threads;
  if (p->grid_capacity)
    sc.grid_capacity = p->grid_capacity;
  ms_sim *sim = create(&sc);
  uint32_t hash = 0;
  int ok = sim != NULL;
  if (ok && p->slots)
    sim->dev.nl.k_want = p->slots;
  long chunk = p->rebuild_always ? 1 : p->switch_every ? p->switch_every : p->slots ? steps / 2 : steps;
  for (long done = 0; ok && done < steps; done += chunk) {
    if (p->rebuild_always)
      sim->dev.nl.stale = 1;
    if (p->slots && done > 0) { /* the overflowing build must keep the live list's history */
      sim->dev.nl.k_want = p->slots;
      sim->dev.nl.stale = 1;
    }
    ok = ms_sim_advance(sim, chunk) == MS_OK;
    if (ok && p->switch_every) {
      ms_sim_set_exchange(sim, ms_sim_exchange(sim) == MS_EXCHANGE_ZONE ? MS_EXCHANGE_FULL
                                                                        : MS_EXCHANGE_ZONE);
      ok = ms_sim_set_buffers(sim, ms_sim_buffers(sim) == MS_BUFFERS_SHARED ? MS_BUFFERS_COPIED
                                                                            : MS_BUFFERS_SHARED) ==
           MS_OK;
    }
  }
  if (ok)
    ok = ms_sim_hash(sim, &hash) == MS_OK;
  if (ok && stats)
    *stats = *ms_sim_get_stats(sim);
  if (!ok)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return ok ? hash : 0;
}

#define POUR_STEPS 1200

/* Every pipeline, buffer mode and exchange, and 1 or 3 worker threads, give one hash. */
static void test_pour_same_hash_everywhere(void)
{
  ms_sim_stats st;
  uint32_t want = pour_hash(&(pour_spec){MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED,
                                         MS_EXCHANGE_FULL, 1, 0, 0, 0, 0},
                            POUR_STEPS, &st);
  ENSURE(want != 0);
  printf("    pour: %08x, %ld list builds, %d slots\n", want, st.nlist_builds, st.nlist_capacity);
  ENSURE(st.nlist_builds > 2 && st.nlist_builds < POUR_STEPS); /* rebuilt when due only */
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++)
      for (int e = 0; e < 2; e++) {
        pour_spec s = {(ms_pipeline)p, (ms_buffer_mode)b, (ms_exchange)e, 1 + 2 * ((p + b + e) % 2),
                       0, 0, 0, 0};
        uint32_t h = pour_hash(&s, POUR_STEPS, NULL);
        if (h != want)
          fprintf(stderr, "pipeline %d buffers %d exchange %d: %08x, want %08x\n", p, b, e, h,
                  want);
        ENSURE(h == want);
      }
  ENSURE(pour_hash(&(pour_spec){MS_PIPELINE_NAIVE, MS_BUFFERS_SHARED, MS_EXCHANGE_ZONE, 2, 0, 0,
                                0, 100},
                   POUR_STEPS, NULL) == want);
}

/* A list cut to 1 slot per particle at the start and again halfway grows (counted,
 * nothing dropped, the live list's histories kept) and gives the run's hash, as does one
 * of 64 slots; a grid of capacity 1 grows and changes nothing;
 * rebuilding the list before every iteration changes nothing either: the sums do not
 * depend on when the list was built. */
static void test_pour_same_hash_through_growth_and_rebuilds(void)
{
  ms_sim_stats tiny, ample, always;
  uint32_t want = pour_hash(&(pour_spec){MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED,
                                         MS_EXCHANGE_FULL, 0, 0, 0, 0, 0},
                            POUR_STEPS, NULL);
  ENSURE(want != 0);
  ENSURE(pour_hash(&(pour_spec){MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL, 0, 0,
                                64, 0, 0},
                   POUR_STEPS, &ample) == want);
  ENSURE(ample.nlist_growths == 0 && ample.nlist_capacity == 64);
  ENSURE(pour_hash(&(pour_spec){MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL, 0, 0,
                                1, 0, 0},
                   POUR_STEPS, &tiny) == want);
  printf("    slots from 1: %d growths, %ld overflowing builds, %d slots\n", (int)tiny.nlist_growths,
         tiny.nlist_overflow_builds, tiny.nlist_capacity);
  ENSURE(tiny.nlist_growths >= 2 && tiny.nlist_overflow_builds >= 2 && tiny.nlist_capacity > 1);
  ENSURE(pour_hash(&(pour_spec){MS_PIPELINE_NAIVE, MS_BUFFERS_COPIED, MS_EXCHANGE_ZONE, 0, 1, 0,
                                0, 0},
                   POUR_STEPS, &tiny) == want);
  ENSURE(tiny.capacity_growths > 0);
  ENSURE(pour_hash(&(pour_spec){MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL, 0, 0,
                                0, 1, 0},
                   POUR_STEPS, &always) == want);
  ENSURE(always.nlist_builds >= POUR_STEPS);
}

/* Runs the pour to `mid`, exports, runs on to `end`: the hash. A fresh simulation given
 * the state at `mid` (ms_sim_restore) and the exported friction state reaches the same
 * hash; without the friction state it does not. */
static void test_export_import_resumes(void)
{
  const long mid = 700, end = 1100;
  ms_scene sc;
  ENSURE(load_file(POUR, &sc) == MS_OK);
  ms_sim *a = create(&sc);
  ms_state st = {0};
  ms_friction_state fr = {0};
  uint32_t want = 0, got = 0, bare = 0;
  int ok = a && !ms_sim_advance(a, mid) && !ms_sim_read_state(a, &st) &&
           !ms_sim_friction_export(a, &fr) && !ms_sim_advance(a, end - mid) &&
           !ms_sim_hash(a, &want);
  ms_sim_destroy(a);
  double *large = calloc(4 * (size_t)st.n_large + 4, sizeof *large);
  for (int i = 0; ok && i < st.n_large; i++) {
    large[4 * i] = st.large_pos[2 * i];
    large[4 * i + 1] = st.large_pos[2 * i + 1];
    large[4 * i + 2] = st.large_vel[2 * i];
    large[4 * i + 3] = st.large_vel[2 * i + 1];
  }
  size_t n_ss = fr.n_ss;
  printf("    exported %zu small-small entries\n", n_ss);
  for (int with = 1; ok && with >= 0; with--) {
    ms_sim *b = create(&sc);
    ok = b && !ms_sim_restore(b, mid, (size_t)sc.grid_capacity, st.small_pos, st.small_vel,
                              large);
    if (ok && with)
      ok = !ms_sim_friction_import(b, &fr);
    ok = ok && !ms_sim_advance(b, end - mid) && !ms_sim_hash(b, with ? &got : &bare);
    ms_sim_destroy(b);
  }
  if (!ok)
    fprintf(stderr, "%s\n", ms_error_message());
  free(large);
  ms_state_free(&st);
  ms_friction_state_free(&fr);
  ms_scene_free(&sc);
  ENSURE(ok && n_ss > 0);
  ENSURE(got == want);
  ENSURE(bare != want);
}

/* The scene's spins are the initial state: every small particle's, each large one's (the
 * static peg's 0), at angle 0; the friction state exports the same. */
static void test_initial_spins(void)
{
  ms_scene sc;
  ENSURE(load_file(POUR, &sc) == MS_OK);
  ms_sim *sim = create(&sc);
  ms_state st = {0};
  ms_friction_state fr = {0};
  int ok = sim && ms_sim_friction_on(sim) && !ms_sim_read_state(sim, &st) && st.small_rot &&
           st.large_rot && !ms_sim_friction_export(sim, &fr);
  for (int i = 0; ok && i < st.n_small; i++)
    ok = st.small_rot[2 * i] == 0.0 && st.small_rot[2 * i + 1] == 2.0 &&
         fr.small_rot[2 * i + 1] == 2.0;
  for (int i = 0; ok && i < st.n_large; i++)
    ok = st.large_rot[2 * i] == 0.0 && st.large_rot[2 * i + 1] == (i == 0 ? 0.0 : -1.0) &&
         fr.large_rot[2 * i + 1] == st.large_rot[2 * i + 1];
  ok = ok && fr.n_ss == 0 && st.n_large == 3;
  ms_friction_state_free(&fr);
  ms_state_free(&st);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
}

/* Friction off: no friction state to export, no rotation in the state. */
static void test_frictionless_has_no_friction_state(void)
{
  ms_scene sc;
  ENSURE(load_file("tests/scenes/tiny.ini", &sc) == MS_OK);
  ms_sim *sim = create(&sc);
  ms_state st = {0};
  ms_friction_state fr;
  int ok = sim && !ms_sim_friction_on(sim) && !ms_sim_read_state(sim, &st) && !st.small_rot &&
           !st.large_rot && ms_sim_friction_export(sim, &fr) == MS_ERR_INPUT;
  ms_state_free(&st);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
}

int main(int argc, char **argv)
{
  if (argc > 1 && argv[1][0])
    filter = argv[1];
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_incline_rolls, filter);
  RUN_TEST(test_head_on_restitutes_as_frictionless, filter);
  RUN_TEST(test_pour_same_hash_everywhere, filter);
  RUN_TEST(test_pour_same_hash_through_growth_and_rebuilds, filter);
  RUN_TEST(test_export_import_resumes, filter);
  RUN_TEST(test_initial_spins, filter);
  RUN_TEST(test_frictionless_has_no_friction_state, filter);
  return TEST_EXIT();
}
