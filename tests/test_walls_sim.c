/* Walls through the simulator (docs/walls.md): a disc on an inclined segment rolls at
 * (2/3) g sin(theta) when tan(theta) < 3 mu and slides at g (sin - mu cos) otherwise, a
 * large disc (the worker's) and a small one (the device's, its wall force from the worker)
 * alike; a disc rolling across the joints of ten collinear segments moves exactly as on one
 * segment; a force-driven piston on a bed comes to rest with the floor carrying its force
 * and the bed's weight. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;

#define DEG (3.14159265358979323846 / 180.0)
#define PI 3.14159265358979323846

static int load(const char *text, const char *name, ms_scene *sc)
{
  if (ms_scene_load_string(text, name, sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  return 0;
}

/* An incline from (0.1, 1.1) down to the right at theta, gravity straight down, and one
 * disc just above its top part: large (r = 5 cm, 0.1 kg) or small (r = 5 mm). */
static int incline_scene(double theta_deg, double mu, int small, ms_scene *sc)
{
  double t = theta_deg * DEG, r = small ? 0.005 : 0.05;
  double len = fmin(1.8, 1.0 / sin(t)); /* ends 0.1 m above the floor at the most */
  double ax = 0.1, ay = 1.1, bx = ax + len * cos(t), by = ay - len * sin(t);
  /* the disc's centre: 0.2 m down the slope, r and a hair above it */
  double px = ax + 0.2 * cos(t) + (r + 1e-5) * sin(t), py = ay - 0.2 * sin(t) + (r + 1e-5) * cos(t);
  double rho = 0.1 / (PI * r * r); /* 0.1 kg either way */
  char disc[512], text[2048];
  if (small)
    snprintf(disc, sizeof disc,
             "[small]\ncount = 1\nradius_min = %.17g\nradius_max = %.17g\ndensity = %.17g "
             "kg/m^2\nplacement = lattice\nregion = %.17g, %.17g, %.17g, %.17g\n",
             r, r, rho, px - r, py - r, px + r, py + r);
  else
    snprintf(disc, sizeof disc,
             "[large.disc]\nposition = %.17g, %.17g\nradius = %.17g\ndensity = %.17g kg/m^2\n",
             px, py, r, rho);
  snprintf(text, sizeof text,
           "[simulation]\ndt = 1e-5\ngravity = 0, -9.81\n"
           "[box]\nmin = 0, 0\nmax = 2, 1.2\n"
           "[material]\nstiffness = 1e5\nrestitution = 0.5\nfriction = 0.3\nwall_friction = 0\n"
           "%s[wall.incline]\nsegments = %.17g, %.17g, %.17g, %.17g\nfriction = %.17g\n",
           disc, ax, ay, bx, by, mu);
  return load(text, "incline.ini", sc);
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

/* Runs 0.05 s (the landing's bounce dies out), then samples the disc's speed down the
 * slope every 5 ms for 0.1 s: its slope (the acceleration), and whether it rolls (w r = -v
 * within 1 %, or clearly not). */
static int incline_run(double theta_deg, double mu, int small, double *a, double *roll)
{
  ms_scene sc;
  if (incline_scene(theta_deg, mu, small, &sc))
    return -1;
  double ux = cos(theta_deg * DEG), uy = -sin(theta_deg * DEG), r = small ? 0.005 : 0.05;
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) ? -1 : 0;
  if (!rc)
    rc = ms_sim_advance(sim, 5000) ? -1 : 0;
  double ts[SAMPLES], vs[SAMPLES];
  for (int k = 0; !rc && k < SAMPLES; k++) {
    rc = ms_sim_advance(sim, 500) ? -1 : 0;
    ms_state st;
    if (!rc && !(rc = ms_sim_read_state(sim, &st) ? -1 : 0)) {
      const double *v = small ? st.small_vel : st.large_vel;
      const double *rot = small ? st.small_rot : st.large_rot;
      ts[k] = (double)st.step * 1e-5;
      vs[k] = v[0] * ux + v[1] * uy;
      *roll = -rot[1] * r / vs[k];
      ms_state_free(&st);
    }
  }
  if (rc)
    fprintf(stderr, "%s\n", ms_error_message());
  else
    *a = slope(ts, vs, SAMPLES);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

static void rolls(int small)
{
  double a, roll;
  ENSURE(incline_run(20.0, 0.5, small, &a, &roll) == 0);
  double want = 2.0 / 3.0 * 9.81 * sin(20.0 * DEG);
  printf("    %s rolling: a = %.6f (want %.6f), -w r / v = %.6f\n", small ? "small" : "large", a,
         want, roll);
  ENSURE_SMALL(a / want - 1.0, 0.005);
  ENSURE_SMALL(roll - 1.0, 0.01);
}

static void slides(int small)
{
  double a, roll, t = 40.0 * DEG, mu = 0.2;
  ENSURE(incline_run(40.0, mu, small, &a, &roll) == 0);
  double want = 9.81 * (sin(t) - mu * cos(t));
  printf("    %s sliding: a = %.6f (want %.6f), -w r / v = %.4f\n", small ? "small" : "large", a,
         want, roll);
  ENSURE_SMALL(a / want - 1.0, 0.005);
  ENSURE(roll < 0.99); /* still slipping */
}

static void test_physics_large_disc_rolls_on_wall(void) { rolls(0); }
static void test_physics_large_disc_slides_on_wall(void) { slides(0); }
static void test_physics_small_disc_rolls_on_wall(void) { rolls(1); }
static void test_physics_small_disc_slides_on_wall(void) { slides(1); }

/* A large disc rolling from rest along a floor of `pieces` collinear segments under
 * gravity tilted by 20 degrees (the floor an incline: static friction holds a tangential
 * spring in the contact the whole way): its state after 1 s. */
static int floor_run(int pieces, ms_state *st)
{
  char segs[1024] = "", text[2048];
  for (int i = 0; i <= pieces; i++) {
    size_t n = strlen(segs);
    snprintf(segs + n, sizeof segs - n, "%s%.4g,0.2", i ? "," : "", 0.1 + 1.8 * i / pieces);
  }
  snprintf(text, sizeof text,
           "[simulation]\ndt = 1e-5\ngravity = %.17g, %.17g\n"
           "[box]\nmin = 0, 0\nmax = 2, 1\n"
           "[material]\nstiffness = 1e5\nrestitution = 0.5\nfriction = 0.3\nwall_friction = 0.5\n"
           "[large.disc]\nposition = 0.15, 0.2499\nradius = 0.05\ndensity = 12.7 kg/m^2\n"
           "[wall.floor]\nsegments = %s\n",
           9.81 * sin(20.0 * DEG), -9.81 * cos(20.0 * DEG), segs);
  ms_scene sc;
  if (load(text, "floor.ini", &sc))
    return -1;
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) || ms_sim_advance(sim, 100000) ||
                   ms_sim_read_state(sim, st)
               ? -1
               : 0;
  if (rc)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

/* Ten collinear segments are one segment to a rolling disc: the same state to the bit
 * after it crossed several joints (the same normal and overlap from each segment's face,
 * its tangential history handed over at each joint), and it never hops. */
static void test_collinear_joints_are_seamless(void)
{
  ms_state one, ten;
  ENSURE(floor_run(1, &one) == 0);
  if (floor_run(10, &ten)) {
    ms_state_free(&one);
    ENSURE(0);
  }
  printf("    x = %.6f (crossed %d joints), vy = %.3g\n", ten.large_pos[0],
         (int)((ten.large_pos[0] - 0.1) / 0.18), ten.large_vel[1]);
  int same = ten.large_pos[0] > 0.1 + 5 * 0.18 && memcmp(one.large_pos, ten.large_pos, 2 * sizeof(double)) == 0 &&
             memcmp(one.large_vel, ten.large_vel, 2 * sizeof(double)) == 0 &&
             memcmp(one.large_rot, ten.large_rot, 2 * sizeof(double)) == 0 &&
             fabs(ten.large_vel[1]) < 1e-6;
  ms_state_free(&one);
  ms_state_free(&ten);
  ENSURE(same);
}

/* A bed of small discs on a floor wall under a force-driven piston (frictionless walls, so
 * the sides carry nothing): at rest the floor carries the piston's force and the bed's
 * weight, within 1 % (the mean of its reaction over the last 0.1 s). */
static void test_piston_floor_carries_force_and_weight(void)
{
  const double F = 2.0;
  char text[2048];
  snprintf(text, sizeof text,
           "[simulation]\ndt = 2e-5\ngravity = 0, -9.81\n"
           "[box]\nmin = 0, 0\nmax = 0.2, 0.3\n"
           "[material]\nstiffness = 2500\nrestitution = 0.5\nfriction = 0.3\nwall_friction = 0\n"
           "[small]\ncount = 120\nradius_min = 0.004\nradius_max = 0.005\n"
           "density = 2500 kg/m^3\nthickness = 0.01\nplacement = lattice\n"
           "region = 0.002, 0.03, 0.198, 0.12\nspacing = 1.05\n"
           "[wall.floor]\nsegments = 0, 0.02, 0.2, 0.02\n"
           "[wall.piston]\nsegments = 0, 0.16, 0.2, 0.16\nforce = 0, %.17g\nmass = 0.05\n",
           -F);
  ms_scene sc;
  ENSURE(load(text, "piston.ini", &sc) == 0);
  double weight = 0.0;
  for (int i = 0; i < sc.small_count; i++)
    weight += sc.small_m[i] * 9.81;
  ms_sim *sim = NULL;
  int ok = ms_sim_create(&sc, NULL, &sim) == MS_OK && ms_sim_advance(sim, 50000) == MS_OK;
  double sum = 0.0, piston_y = 0.0;
  int n = 0;
  for (int k = 0; ok && k < 100; k++, n++) {
    ok = ms_sim_advance(sim, 250) == MS_OK;
    ms_wall_info floor, piston;
    ms_sim_wall(sim, 0, &floor);
    ms_sim_wall(sim, 1, &piston);
    sum += floor.fy;
    piston_y = piston.points[1];
  }
  if (!ok)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  double load = -sum / n;
  printf("    floor carries %.5f N/m, piston %.1f + bed %.5f = %.5f; piston at y = %.4f\n", load, F,
         weight, F + weight, piston_y);
  ENSURE(piston_y < 0.16 && piston_y > 0.03); /* it came down onto the bed */
  ENSURE_SMALL(load / (F + weight) - 1.0, 0.01);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_physics_large_disc_rolls_on_wall, filter);
  RUN_TEST(test_physics_large_disc_slides_on_wall, filter);
  RUN_TEST(test_physics_small_disc_rolls_on_wall, filter);
  RUN_TEST(test_physics_small_disc_slides_on_wall, filter);
  RUN_TEST(test_collinear_joints_are_seamless, filter);
  RUN_TEST(test_piston_floor_carries_force_and_weight, filter);
  return TEST_EXIT();
}
