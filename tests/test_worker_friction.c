/* Friction on the CPU worker (collision/worker/worker_friction.h, collision/worker/history.h), through
 * the simulator: a large disc on an incline (the floor under tilted gravity) rolls at
 * 2/3 g sin(theta) with w = -v/r, or slides at g (sin(theta) - mu cos(theta)) when
 * tan(theta) > 3 mu; large-large and large-small contacts keep the angular momentum;
 * a frictional scene of 150 large and 2000 small discs gives one hash
 * on 1, 2, 3 and 8 worker threads, both exchanges, both buffer modes and both
 * pipelines; and the worker's friction state exported and imported into a fresh
 * simulation continues to the uninterrupted run's hash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;

#define DEG (3.14159265358979323846 / 180.0)

/* A disc (r = 5 cm, m = 0.1 kg) resting on the floor of a 2 m box, gravity tilted by
 * `theta_deg` so that the floor is an incline going down towards +x. */
static int incline_scene(double theta_deg, double mu_wall, ms_scene *sc)
{
  double g = 9.81, t = theta_deg * DEG;
  char text[1024];
  snprintf(text, sizeof text,
           "[simulation]\ndt = 1e-5\ngravity = %.17g, %.17g\n"
           "[box]\nmin = 0, 0\nmax = 2, 0.5\n"
           "[material]\nstiffness = 1e5\nrestitution = 0.5\nwall_friction = %.17g\n"
           "[large.disc]\nposition = 0.1, 0.05\nradius = 0.05\n"
           "density = %.17g kg/m^2\n",
           g * sin(t), -g * cos(t), mu_wall, 0.1 / (3.14159265358979323846 * 0.05 * 0.05));
  if (ms_scene_load_string(text, "incline.ini", sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  return 0;
}

/* Least-squares slope of y over x. */
static double slope(const double *x, const double *y, int n)
{
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (int i = 0; i < n; i++) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  for (int i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxy / sxx;
}

#define SAMPLES 20

/* Runs the incline for 0.05 s (the landing's few-micron bounce dies out), then samples v
 * and w every 5 ms for 0.1 s: the slopes of both, and the last v and w. */
static int incline_run(double theta_deg, double mu_wall, double *a, double *alpha, double *v,
                       double *w)
{
  ms_scene sc;
  if (incline_scene(theta_deg, mu_wall, &sc))
    return -1;
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) ? -1 : 0;
  if (!rc)
    rc = ms_sim_advance(sim, 5000) ? -1 : 0;
  double ts[SAMPLES], vs[SAMPLES], ws[SAMPLES];
  for (int k = 0; !rc && k < SAMPLES; k++) {
    rc = ms_sim_advance(sim, 500) ? -1 : 0;
    ms_state st;
    if (!rc && !(rc = ms_sim_read_state(sim, &st) ? -1 : 0)) {
      ts[k] = (double)st.step * 1e-5;
      vs[k] = st.large_vel[0];
      ws[k] = st.large_rot ? st.large_rot[1] : 0.0;
      rc = st.large_rot ? 0 : -1; /* friction on: the rotation is part of the state */
      ms_state_free(&st);
    }
  }
  if (rc)
    fprintf(stderr, "%s\n", ms_error_message());
  else {
    *a = slope(ts, vs, SAMPLES);
    *alpha = slope(ts, ws, SAMPLES);
    *v = vs[SAMPLES - 1];
    *w = ws[SAMPLES - 1];
  }
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

/* tan(20 deg) < 3 mu: rolling without slipping, a = 2/3 g sin(theta), w = -v/r. */
static void test_physics_incline_rolls(void)
{
  double a, alpha, v, w;
  ENSURE(incline_run(20.0, 0.5, &a, &alpha, &v, &w) == 0);
  double want = 2.0 / 3.0 * 9.81 * sin(20.0 * DEG);
  printf("    rolling: a = %.6f (want %.6f), -w r / v = %.6f\n", a, want, -w * 0.05 / v);
  ENSURE_SMALL(a / want - 1.0, 0.01);
  ENSURE_SMALL(-w * 0.05 / v - 1.0, 0.01);
  ENSURE_SMALL(-alpha * 0.05 / a - 1.0, 0.01);
}

/* tan(40 deg) > 3 mu: sliding, a = g (sin - mu cos), clockwise angular acceleration
 * 2 mu g cos(theta) / r. */
static void test_physics_incline_slides(void)
{
  double a, alpha, v, w, t = 40.0 * DEG, mu = 0.2;
  ENSURE(incline_run(40.0, mu, &a, &alpha, &v, &w) == 0);
  double want = 9.81 * (sin(t) - mu * cos(t)), want_alpha = -2.0 * mu * 9.81 * cos(t) / 0.05;
  printf("    sliding: a = %.6f (want %.6f), alpha = %.4f (want %.4f)\n", a, want, alpha,
         want_alpha);
  ENSURE_SMALL(a / want - 1.0, 0.01);
  ENSURE_SMALL(alpha / want_alpha - 1.0, 0.01);
  ENSURE(-w * 0.05 < v * 0.99); /* still slipping */
}

/* Total angular momentum about the origin, orbital and spin, of a state. */
static double angular_momentum(const ms_state *st, const double *m_small, const double *r_small,
                               const double *m_large, const double *r_large)
{
  double l = 0.0;
  for (int i = 0; i < st->n_small; i++) {
    const double *x = &st->small_pos[2 * i], *v = &st->small_vel[2 * i];
    l += m_small[i] * (x[0] * v[1] - x[1] * v[0]) +
         0.5 * m_small[i] * r_small[i] * r_small[i] * st->small_rot[2 * i + 1];
  }
  for (int i = 0; i < st->n_large; i++) {
    const double *x = &st->large_pos[2 * i], *v = &st->large_vel[2 * i];
    l += m_large[i] * (x[0] * v[1] - x[1] * v[0]) +
         0.5 * m_large[i] * r_large[i] * r_large[i] * st->large_rot[2 * i + 1];
  }
  return l;
}

/* No gravity, no walls in reach: a spinning large disc struck off-centre by another
 * and by a small one. The contacts turn spin into motion and back (the spins change by
 * a good part of the first one's), and the total angular momentum stays what it was to
 * within what the lever arms r (the radii, not the distances to the contact point) leave,
 * the overlap's share: a torque with the wrong sign or on the wrong disc would change it
 * by about as much as the spins change. */
static void test_physics_angular_momentum(void)
{
  const char *text =
      "[simulation]\ndt = 1e-5\ngravity = 0, 0\n"
      "[box]\nmin = 0, 0\nmax = 1, 1\n"
      "[material]\nstiffness = 1e5\nrestitution = 0.5\nfriction = 0.5\n"
      "rolling_friction = 0.05\n"
      "[small]\ncount = 1\nradius = 0.01\ndensity = 10\nplacement = lattice\n"
      "region = 0.35, 0.52, 0.371, 0.541\nvelocity = 1, 0\nspin = -5\n"
      "[large.spinner]\nposition = 0.5, 0.5\nradius = 0.05\ndensity = 12.7\nspin = 20\n"
      "[large.striker]\nposition = 0.62, 0.53\nradius = 0.05\ndensity = 12.7\n"
      "velocity = -1, 0\n";
  ms_scene sc;
  ENSURE(ms_scene_load_string(text, "spin.ini", &sc) == 0);
  double ms = sc.small_m[0], rs = sc.small_r[0], ml[2], rl[2];
  for (int i = 0; i < 2; i++) {
    ml[i] = sc.large[i].mass;
    rl[i] = sc.large[i].radius;
  }
  ms_sim *sim = NULL;
  ms_state a, b;
  int ok = ms_sim_create(&sc, NULL, &sim) == 0 && ms_sim_read_state(sim, &a) == 0;
  ok = ok && ms_sim_advance(sim, 15000) == 0 && ms_sim_read_state(sim, &b) == 0;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  double l0 = angular_momentum(&a, &ms, &rs, ml, rl), l1 = angular_momentum(&b, &ms, &rs, ml, rl);
  double spin0 = 0.5 * ml[0] * rl[0] * rl[0] * a.large_rot[1];
  double moved = 0.0; /* spin angular momentum handed over, summed over the bodies */
  for (int i = 0; i < 2; i++)
    moved += fabs(0.5 * ml[i] * rl[i] * rl[i] * (b.large_rot[2 * i + 1] - a.large_rot[2 * i + 1]));
  moved += fabs(0.5 * ms * rs * rs * (b.small_rot[1] - a.small_rot[1]));
  printf("    L %.9g -> %.9g (%.2g of the spin's %.6g); spin moved %.6g; spins %.4f %.4f %.4f\n",
         l0, l1, (l1 - l0) / spin0, spin0, moved, b.large_rot[1], b.large_rot[3], b.small_rot[1]);
  ms_state_free(&a);
  ms_state_free(&b);
  ENSURE(moved > 0.1 * fabs(spin0));
  ENSURE_SMALL((l1 - l0) / spin0, 0.01);
}

/* 30 static pegs in a bed of 2000 small discs, 120 rocks falling onto it into each
 * other: large-small, large-large and wall contacts with friction and rolling
 * resistance from the first steps. */
static const char *const g_bed =
    "[simulation]\ndt = 1.5e-5\nseed = 3\ngravity = 0, -9.81\n"
    "[box]\nmin = 0, 0\nmax = 0.5, 0.5\n"
    "[material]\nstiffness = 2000\nrestitution = 0.5\nfriction = 0.5\n"
    "rolling_friction = 0.02\nwall_friction = 0.3\n"
    "[small]\ncount = 2000\nradius_min = 0.0022\nradius_max = 0.003\ndensity = 10\n"
    "placement = lattice\nregion = 0, 0, 0.5, 0.3\nvelocity_spread = 0.5\nspin = 3\n"
    "[large_random.pegs]\ncount = 30\nradius_min = 0.008\nradius_max = 0.012\n"
    "region = 0, 0.02, 0.5, 0.2\nstatic = true\ndensity = 10\n"
    "[large_random.rocks]\ncount = 120\nradius_min = 0.01\nradius_max = 0.016\n"
    "region = 0, 0.12, 0.5, 0.5\nvelocity = 0, -1\nvelocity_spread = 0.5\ndensity = 10\n";

typedef struct bed_run {
  int threads;
  ms_exchange exchange;
  ms_buffer_mode buffers;
  ms_pipeline pipeline;
} bed_run;

static int bed_sim(const bed_run *r, ms_scene *sc, ms_sim **sim)
{
  if (ms_scene_load_string(g_bed, "bed.ini", sc))
    return -1;
  sc->cpu_threads = r->threads;
  sc->exchange = r->exchange;
  sc->exchange_given = 1;
  sc->buffers = r->buffers;
  sc->buffers_given = 1;
  sc->pipeline = r->pipeline;
  return ms_sim_create(sc, NULL, sim) ? -1 : 0;
}

static int bed_hash(const bed_run *r, long steps, uint32_t *hash, ms_state_summary *sm)
{
  ms_scene sc;
  ms_sim *sim = NULL;
  int rc = bed_sim(r, &sc, &sim);
  if (!rc)
    rc = ms_sim_advance(sim, steps) || ms_sim_hash(sim, hash) ? -1 : 0;
  if (!rc && sm)
    rc = ms_sim_summarise(sim, sm) ? -1 : 0;
  if (rc)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

#define BED_STEPS 250

/* The contacts the matrix compares are real: many of each kind, large particles and
 * small ones spinning. */
static void test_bed_has_frictional_contacts(void)
{
  ms_scene sc;
  ms_sim *sim = NULL;
  bed_run r = {2, MS_EXCHANGE_ZONE, MS_BUFFERS_SHARED, MS_PIPELINE_REORDERED};
  ENSURE(bed_sim(&r, &sc, &sim) == 0);
  ms_state_summary sm;
  ms_state st;
  int ok = ms_sim_advance(sim, BED_STEPS) == 0 && ms_sim_summarise(sim, &sm) == 0 &&
           ms_sim_read_state(sim, &st) == 0;
  ms_friction_state fs;
  ok = ok && ms_sim_friction_export(sim, &fs) == 0;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  int spinning = 0;
  for (int i = 0; i < st.n_large; i++)
    spinning += st.large_rot[2 * i + 1] != 0.0;
  printf("    contacts: large-small %ld, large-large %ld; %d large spinning; history "
         "ls %zu ll %zu\n",
         sm.contacts_large_small, sm.contacts_large_large, spinning, fs.n_ls, fs.n_ll);
  ms_state_free(&st);
  size_t n_ls = fs.n_ls, n_ll = fs.n_ll;
  ms_friction_state_free(&fs);
  ENSURE(sm.contacts_large_small >= 30);
  ENSURE(sm.contacts_large_large >= 4);
  ENSURE(spinning >= 40);
  ENSURE(n_ls >= 30 && n_ll >= 4);
}

static void test_bed_same_hash_everywhere(void)
{
  static const int threads[] = {1, 2, 3, 8};
  uint32_t want = 0;
  ENSURE(bed_hash(&(bed_run){1, MS_EXCHANGE_FULL, MS_BUFFERS_SHARED, MS_PIPELINE_REORDERED},
                  BED_STEPS, &want, NULL) == 0);
  for (int t = 0; t < 4; t++)
    for (int e = 0; e < 2; e++)
      for (int b = 0; b < 2; b++)
        for (int p = 0; p < 2; p++) {
          bed_run r = {threads[t], (ms_exchange)e, (ms_buffer_mode)b, (ms_pipeline)p};
          uint32_t h = 0;
          ENSURE(bed_hash(&r, BED_STEPS, &h, NULL) == 0);
          if (h != want)
            fprintf(stderr, "threads %d %s %s %s: %08x, want %08x\n", r.threads,
                    ms_exchange_name(r.exchange), ms_buffer_mode_name(r.buffers),
                    ms_pipeline_name(r.pipeline), h, want);
          ENSURE(h == want);
        }
}

/* Export after 100 steps, restore and import into a fresh simulation (on other threads
 * and the other exchange), 100 more: the hash of 200 uninterrupted steps. */
static void test_export_import_continues(void)
{
  uint32_t want = 0, got = 0;
  bed_run a = {1, MS_EXCHANGE_FULL, MS_BUFFERS_SHARED, MS_PIPELINE_REORDERED};
  bed_run b = {3, MS_EXCHANGE_ZONE, MS_BUFFERS_COPIED, MS_PIPELINE_NAIVE};
  ENSURE(bed_hash(&a, 200, &want, NULL) == 0);
  ms_scene sa, sb;
  ms_sim *first = NULL, *second = NULL;
  ENSURE(bed_sim(&a, &sa, &first) == 0);
  ms_state st;
  ms_friction_state fs;
  int ok = ms_sim_advance(first, 100) == 0 && ms_sim_read_state(first, &st) == 0;
  ok = ok && ms_sim_friction_export(first, &fs) == 0;
  size_t cap = (size_t)ms_sim_get_stats(first)->grid_capacity;
  ms_sim_destroy(first);
  ms_scene_free(&sa);
  ENSURE(ok);
  double *large = malloc(((size_t)st.n_large * 4 + 1) * sizeof *large);
  for (int i = 0; i < st.n_large; i++) {
    large[4 * i] = st.large_pos[2 * i];
    large[4 * i + 1] = st.large_pos[2 * i + 1];
    large[4 * i + 2] = st.large_vel[2 * i];
    large[4 * i + 3] = st.large_vel[2 * i + 1];
  }
  ok = bed_sim(&b, &sb, &second) == 0 &&
       ms_sim_restore(second, st.step, cap, st.small_pos, st.small_vel, large) == 0 &&
       ms_sim_friction_import(second, &fs) == 0 && ms_sim_advance(second, 100) == 0 &&
       ms_sim_hash(second, &got) == 0;
  if (!ok)
    fprintf(stderr, "%s\n", ms_error_message());
  printf("    resumed %08x, uninterrupted %08x (histories: %zu large-small, %zu large-large)\n",
         got, want, fs.n_ls, fs.n_ll);
  ms_sim_destroy(second);
  ms_scene_free(&sb);
  ms_state_free(&st);
  ms_friction_state_free(&fs);
  free(large);
  ENSURE(ok);
  ENSURE(got == want);
}

/* Imports `fs` into `sim` expecting a refusal whose message has `what`. */
static int refused(ms_sim *sim, const ms_friction_state *fs, const char *what)
{
  ms_error_clear();
  int ok = ms_sim_friction_import(sim, fs) == MS_ERR_INPUT &&
           strstr(ms_error_message(), what) != NULL;
  if (!ok)
    fprintf(stderr, "expected a refusal naming '%s', got: %s\n", what, ms_error_message());
  ms_error_clear();
  return ok;
}

/* A friction state that no run could have written is refused, and changes nothing: the
 * run goes on to the hash of one never asked to import. */
static void test_import_refuses_bad_histories(void)
{
  ms_scene sc;
  ms_sim *sim = NULL;
  bed_run r = {1, MS_EXCHANGE_FULL, MS_BUFFERS_SHARED, MS_PIPELINE_REORDERED};
  uint32_t want = 0, got = 0;
  ENSURE(bed_hash(&r, BED_STEPS + 50, &want, NULL) == 0);
  ENSURE(bed_sim(&r, &sc, &sim) == 0);
  ms_friction_state fs;
  int ok = ms_sim_advance(sim, BED_STEPS) == 0 && ms_sim_friction_export(sim, &fs) == 0;
  ok = ok && fs.n_ls >= 2 && fs.n_ll >= 1;
  if (ok) {
    ms_history_entry keep = fs.ls[0];
    fs.ls[0] = fs.ls[1]; /* out of order */
    ok = refused(sim, &fs, "large-small contact 1 ");
    fs.ls[0] = keep;
    int b = fs.ll[0].b;
    fs.ll[0].b = fs.ll[0].a; /* not a < b */
    ok = ok && refused(sim, &fs, "large-large contact 0 ");
    fs.ll[0].b = b;
    int j = fs.ls[fs.n_ls - 1].b;
    fs.ls[fs.n_ls - 1].b = 2000; /* no such small particle */
    ok = ok && refused(sim, &fs, "out of range");
    fs.ls[fs.n_ls - 1].b = j;
    fs.large_rot[1] = NAN;
    ok = ok && refused(sim, &fs, "large particle 0 has a non-finite spin");
  }
  ok = ok && ms_sim_advance(sim, 50) == 0 && ms_sim_hash(sim, &got) == 0;
  ms_friction_state_free(&fs);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  ENSURE(got == want);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  /* Every phase split over the pool even on these small scenes (cpu_worker.c). */
  setenv("MIXSIM_CPU_GRAIN", "1", 1);
  RUN_TEST(test_physics_incline_rolls, filter);
  RUN_TEST(test_physics_incline_slides, filter);
  RUN_TEST(test_physics_angular_momentum, filter);
  RUN_TEST(test_bed_has_frictional_contacts, filter);
  RUN_TEST(test_bed_same_hash_everywhere, filter);
  RUN_TEST(test_export_import_continues, filter);
  RUN_TEST(test_import_refuses_bad_histories, filter);
  return TEST_EXIT();
}
