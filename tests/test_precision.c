/* Precision of the state: slow motion is not rounded away, wherever the box lies, and a
 * scene shifted across space runs as the unshifted one does. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;

static ms_sim *make_sim(const char *text, ms_scene *sc)
{
  if (ms_scene_load_string(text, "test", sc)) {
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

/* One free disc of radius 5 mm at (x0, y0) in a gravity-free box 1.2 m x 0.1 m around
 * it, moving at v along x for `steps` steps of dt: returns its displacement / (v t) - 1. */
static double slow_disc_error(double x0, double v, double dt, long steps)
{
  char text[1024];
  double bx = x0 - 0.6, by = 0.0;
  snprintf(text, sizeof text,
           "[simulation]\ndt = %.17g\ngravity = 0, 0\n"
           "[box]\nmin = %.17g, %.17g\nmax = %.17g, %.17g\n"
           "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
           "[small]\ncount = 1\nradius = 0.005\ndensity = 1000\n"
           "region = %.17g, 0.045, %.17g, 0.055\nvelocity = %.17g, 0\n",
           dt, bx, by, bx + 1.2, by + 0.1, x0 - 0.005, x0 + 0.005, v);
  ms_scene sc;
  ms_sim *sim = make_sim(text, &sc);
  if (!sim)
    return INFINITY;
  double origin[2];
  ms_sim_origin(sim, origin);
  ms_state st;
  double start = 0.0, end = 0.0;
  if (ms_sim_read_state(sim, &st) == MS_OK) {
    start = st.small_pos[0];
    ms_state_free(&st);
  }
  if (ms_sim_advance(sim, steps) == MS_OK && ms_sim_read_state(sim, &st) == MS_OK) {
    end = st.small_pos[0];
    ms_state_free(&st);
  }
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  double moved = end - start, want = v * dt * (double)steps;
  printf("    x = %g m (box from %g), v = %g m/s, dt = %g s, %ld steps: moved %.12g m, v t = "
         "%.12g m (%+.2e)\n",
         origin[0] + start, origin[0], v, dt, steps, moved, want, moved / want - 1.0);
  return moved / want - 1.0;
}

/* The cases: in float, 2e-4 m/s at x = 0.6 m and dt = 1e-4 moved 1e-4 of the
 * way, 5e-4 and 1e-3 m/s moved 19 % too far, and 2 mm/s at dt = 1e-5 did not move. */
static void test_slow_disc_moves_v_t(void)
{
  const double xs[] = {0.6, 1000.0};
  const double v_dt[][2] = {{2e-4, 1e-4}, {1e-3, 1e-4}, {2e-4, 1e-5}, {2e-3, 1e-5}};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 4; b++)
      ENSURE(fabs(slow_disc_error(xs[a], v_dt[b][0], v_dt[b][1], 10000)) < 1e-6);
}

/* A bed of small discs of a range of sizes, stirred, with large ones falling onto it, as
 * given and shifted by +100 m in x and y: the frame is the box's corner, so both run
 * alike (in float, far from the origin the rounding of every step differs). */
static const char *settling =
  "[simulation]\ndt = 2.5e-5\ngravity = 0, -9.81\nseed = 3\n"
  "[box]\nmin = %s, %s\nmax = %s, %s\n"
  "[material]\nstiffness = 1e4\nrestitution = 0.4\n"
  "[small]\ncount = 300\nradius_min = 0.0045\nradius_max = 0.0055\ndensity = 10\n"
  "placement = lattice\nspacing = 1\nregion = %s, %s, %s, %s\nvelocity_spread = 0.5\n"
  "[large_random.rocks]\ncount = 6\nradius_min = 0.015\nradius_max = 0.025\ndensity = 10\n"
  "region = %s, %s, %s, %s\nvelocity_spread = 0.1\n";

static int run_settling(const char *const v[10], long steps, ms_state_summary *out,
                        uint32_t *hash)
{
  char text[2048];
  snprintf(text, sizeof text, settling, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[4],
           v[7], v[8], v[9]);
  ms_scene sc;
  ms_sim *sim = make_sim(text, &sc);
  if (!sim)
    return 0;
  int ok = ms_sim_advance(sim, steps) == MS_OK && ms_sim_summarise(sim, out) == MS_OK &&
           ms_sim_hash(sim, hash) == MS_OK;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  printf("    box from %s, %s, %ld steps: %ld small-small, %ld large-small, %ld large-large, %ld "
         "wall contacts; kinetic energy %.12g J/m; hash %08x\n",
         v[0], v[1], steps, out->contacts_small_small, out->contacts_large_small,
         out->contacts_large_large, out->contacts_wall, out->kinetic_energy, *hash);
  return ok;
}

/* The test: decimal coordinates, so the shifted scene's particles start within
 * a rounding of the unshifted ones (100.01 - 100 is not 0.01 in binary), and after 2000
 * steps the contacts and the kinetic energy agree. */
static void test_shifted_scene_runs_alike(void)
{
  /* box min, box max, small region (x0 y0 x1 y1), top corner of the rocks' region */
  const char *const here[10] = {"0", "0", "0.3", "0.3", "0.01", "0.01", "0.29", "0.2",
                                "0.29", "0.29"};
  const char *const there[10] = {"100", "100", "100.3", "100.3", "100.01", "100.01",
                                 "100.29", "100.2", "100.29", "100.29"};
  ms_state_summary a, b;
  uint32_t ha, hb;
  ENSURE(run_settling(here, 2000, &a, &ha));
  ENSURE(run_settling(there, 2000, &b, &hb));
  ENSURE(a.contacts_small_small >= 20); /* the stirred bed is colliding */
  ENSURE(a.contacts_small_small == b.contacts_small_small);
  ENSURE(a.contacts_large_small == b.contacts_large_small);
  ENSURE(a.contacts_large_large == b.contacts_large_large);
  ENSURE(a.contacts_wall == b.contacts_wall);
  ENSURE(fabs(b.kinetic_energy / a.kinetic_energy - 1.0) < 1e-6);
}

/* Coordinates that shift exactly (multiples of 2^-7 m, and 100 m): the two scenes start
 * from the same frame positions and stay identical, bit for bit, for as long as they
 * run; a state kept in scene coordinates would round every step differently. */
static void test_exact_shift_is_bit_identical(void)
{
  const char *const here[10] = {"0", "0", "0.3125", "0.3125", "0.0078125", "0.0078125",
                                "0.3046875", "0.203125", "0.3046875", "0.3046875"};
  const char *const there[10] = {"100", "-1000", "100.3125", "-999.6875", "100.0078125",
                                 "-999.9921875", "100.3046875", "-999.796875", "100.3046875",
                                 "-999.6953125"};
  ms_state_summary a, b;
  uint32_t ha, hb;
  ENSURE(run_settling(here, 6000, &a, &ha));
  ENSURE(run_settling(there, 6000, &b, &hb));
  ENSURE(a.contacts_small_small >= 100);
  ENSURE(ha == hb);
  ENSURE(a.kinetic_energy == b.kinetic_energy);
}

int main(int argc, char **argv)
{
  filter = argc > 1 ? argv[1] : "";
  RUN_TEST(test_slow_disc_moves_v_t, filter);
  RUN_TEST(test_shifted_scene_runs_alike, filter);
  RUN_TEST(test_exact_shift_is_bit_identical, filter);
  return TEST_EXIT();
}
