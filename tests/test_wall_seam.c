/* Walls across a periodic seam (docs/walls.md): a disc rolling down an incline that crosses
 * the seam keeps its contact and its history, moving as on the same incline away from the
 * seam; a tray moving along the periodic axis for several periods carries a disc; one hash
 * in every mode with a belt and a paddle over the seam and large discs on them.
 * Usage: test_wall_seam [FILTER] [SOURCE_ROOT] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "io/wall_frame.h"
#include "mixsim/mixsim.h"

static char root[1024] = ".";

#define PERIOD 0.2
#define RADIUS 0.005

/* A 0.2 m x 0.1 m box periodic in x, one small disc (r = 5 mm, friction), and `walls`. */
static int load(const char *walls, double dt, ms_scene *sc)
{
  char text[2048];
  snprintf(text, sizeof text,
           "[simulation]\ndt = %g\ngravity = 0, -9.81\n[box]\nmin = 0, 0\nmax = 0.2, 0.1\n"
           "periodic = x\n[material]\nstiffness = 2000\nrestitution = 0.6\nfriction = 0.5\n"
           "wall_friction = 0.5\n[small]\ncount = 1\nradius = 0.005\ndensity = 25\n"
           "placement = lattice\nregion = 0, 0.05, 0.2, 0.06\n%s",
           dt, walls);
  if (ms_scene_load_string(text, "wall_seam.ini", sc)) {
    fprintf(stderr, "    %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

/* Runs `steps` steps; the state, and the contacts of small disc 0 with the walls as the
 * report counts them plus as the output's wall frames find them (one each: 2). */
static int run(const ms_scene *sc, long steps, ms_state *out, long *at_walls)
{
  ms_sim *sim = NULL;
  ms_state_summary sum;
  ms_wall_frame frame = {0};
  *at_walls = -1;
  int ok = !ms_sim_create(sc, NULL, &sim) && !ms_sim_advance(sim, steps) &&
           !ms_sim_read_state(sim, out) && !ms_sim_summarise(sim, &sum) &&
           !ms_wall_frame_alloc(sim, &frame);
  if (ok) {
    ms_wall_frame_take(sim, &frame);
    *at_walls = sum.contacts_wall +
                ms_wall_frame_touch(&frame, &out->small_pos[0], RADIUS, NULL, NULL);
  }
  ms_wall_frame_free(&frame);
  if (!ok)
    fprintf(stderr, "    %s\n", ms_error_message());
  ms_sim_destroy(sim);
  return ok;
}

/* A disc set at rest on an incline of 20 degrees from (x0, 0.08), 0.16 m long, 2 cm down
 * it, after `steps` steps of 2e-5 s. It rolls (tan 20 < 3 mu): static friction, whose
 * spring is the contact's history, holds its rim. */
static int roll_down(double x0, long steps, ms_state *out, long *at_walls)
{
  double th = 20.0 * 3.14159265358979323846 / 180.0, ux = cos(th), uy = -sin(th);
  char wall[256];
  snprintf(wall, sizeof wall, "[wall.incline]\nsegments = %.17g, 0.08, %.17g, %.17g\n", x0,
           x0 + 0.16, 0.08 + 0.16 * (uy / ux));
  ms_scene sc;
  if (!load(wall, 2e-5, &sc))
    return 0;
  double s = 0.02 / ux, lift = RADIUS - 1e-5; /* about its static overlap */
  sc.small_pos[0] = x0 + s * ux - lift * uy;
  sc.small_pos[1] = 0.08 + s * uy + lift * ux;
  sc.small_vel[0] = sc.small_vel[1] = 0.0;
  int ok = run(&sc, steps, out, at_walls);
  ms_scene_free(&sc);
  return ok;
}

/* The incline over the seam (from x = 0.12 to 0.28, the seam at 0.2) and the same incline
 * 0.1 m to the left, inside the box: after 0.3 s, crossing the seam at about 0.24 s, the
 * disc is where the other one is, shifted, with its velocity and spin, to rounding. Were the
 * contact lost at the seam the disc would fall through; were its history dropped, the
 * rolling's static friction would start again from zero and the two would part. */
static void test_rolling_disc_keeps_contact_across_the_seam(void)
{
  ms_state seam, inside;
  long steps = 15000, touch_seam, touch_inside;
  ENSURE(roll_down(0.12, steps, &seam, &touch_seam) &&
         roll_down(0.02, steps, &inside, &touch_inside));
  ENSURE(touch_seam == 2 && touch_inside == 2); /* the report and the frames find it too */
  ENSURE(seam.small_img[0] == 1 && inside.small_img[0] == 0); /* it crossed the seam */
  double xs = seam.small_pos[0] + PERIOD * seam.small_img[0];
  ENSURE(xs > 0.21 && xs < 0.26);
  ENSURE_SMALL(xs - 0.1 - inside.small_pos[0], 1e-10);
  ENSURE_SMALL(seam.small_pos[1] - inside.small_pos[1], 1e-10);
  ENSURE_SMALL(seam.small_vel[0] - inside.small_vel[0], 1e-8);
  ENSURE_SMALL(seam.small_vel[1] - inside.small_vel[1], 1e-8);
  ENSURE_SMALL(seam.small_rot[1] - inside.small_rot[1], 1e-6);
  /* rolling: v = omega r, a = 2/3 g sin 20, so v = 2.2368 m/s^2 x 0.3 s */
  double v = hypot(seam.small_vel[0], seam.small_vel[1]);
  ENSURE_SMALL(v - 2.0 / 3.0 * 9.81 * sin(20.0 * 3.14159265358979323846 / 180.0) * 0.3, 2e-3);
  ENSURE_SMALL(v + seam.small_rot[1] * RADIUS, 1e-3);
  ms_state_free(&seam);
  ms_state_free(&inside);
}

/* A tray 0.1 m wide moving at 1 m/s along x for 1 s (5 periods) with a disc set down at rest
 * in it over the seam: its back pushes the disc along, the disc stays inside it and on its
 * floor, and the tray's points stay within a period of the box (its translation reduced). */
static void test_tray_carries_a_disc_for_periods(void)
{
  const char *tray = "[wall.tray]\nsegments = 0.15, 0.05, 0.15, 0.02, 0.25, 0.02, 0.25, 0.05\n"
                     "velocity = 1, 0\n";
  ms_scene sc;
  ENSURE(load(tray, 5e-5, &sc));
  sc.small_pos[0] = 0.199;
  sc.small_pos[1] = 0.02 + RADIUS - 1e-5;
  sc.small_vel[0] = sc.small_vel[1] = 0.0;
  ms_sim *sim = NULL;
  ms_state st;
  long steps = 20000; /* 1 s */
  int ok = !ms_sim_create(&sc, NULL, &sim) && !ms_sim_advance(sim, steps) &&
           !ms_sim_read_state(sim, &st);
  if (!ok)
    fprintf(stderr, "    %s\n", ms_error_message());
  ENSURE(ok);
  ms_wall_info w;
  ms_sim_wall(sim, 0, &w);
  double lo = w.points[0], hi = w.points[0];
  for (int i = 0; i < w.n_points; i++) {
    lo = fmin(lo, w.points[2 * i]);
    hi = fmax(hi, w.points[2 * i]);
  }
  ENSURE(lo >= 0.0 && hi < 2.0 * PERIOD); /* not 0.15 + 1 m */
  ENSURE_SMALL(hi - lo - 0.1, 1e-12);
  ms_sim_destroy(sim);
  double x = st.small_pos[0] + PERIOD * st.small_img[0]; /* unwrapped */
  double back = 0.15 + 1.0 * (double)steps * 5e-5;          /* the tray's back, unwrapped */
  ENSURE(st.small_img[0] >= 5);
  ENSURE(x > back + 0.9 * RADIUS && x < back + 0.1 - 0.9 * RADIUS);
  ENSURE(st.small_pos[1] > 0.02 && st.small_pos[1] < 0.02 + 2.0 * RADIUS);
  ms_state_free(&st);
  ms_scene_free(&sc);
}

/* One hash in every mode (pipelines, buffers, exchanges, thread counts, the large particles
 * on the device) with walls over the seam: tests/scenes/wall_seam.ini's belt moving along
 * the periodic axis and paddle turning across it, small and large discs on them. */
static void test_one_hash_in_every_mode(void)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/tests/scenes/wall_seam.ini", root);
  uint32_t first = 0;
  for (int m = 0; m < 7; m++) {
    ms_scene sc;
    ENSURE(!ms_scene_load(path, &sc));
    sc.pipeline = m % 2 ? MS_PIPELINE_NAIVE : MS_PIPELINE_REORDERED;
    sc.buffers = m == 2 ? MS_BUFFERS_COPIED : MS_BUFFERS_SHARED;
    sc.buffers_given = 1;
    sc.exchange = m < 3 || m == 6 ? MS_EXCHANGE_ZONE : MS_EXCHANGE_FULL;
    sc.exchange_given = 1;
    sc.cpu_threads = 1 + m % 3;
    sc.large_on = m >= 5 ? MS_LARGE_ON_DEVICE : MS_LARGE_ON_CPU;
    sc.worker_list_off = m == 4;
    ms_sim *sim = NULL;
    uint32_t h = 0;
    int ok = !ms_sim_create(&sc, NULL, &sim) && !ms_sim_advance(sim, 4000) &&
             !ms_sim_hash(sim, &h);
    if (!ok)
      fprintf(stderr, "    %s\n", ms_error_message());
    int touching = 0;
    for (int k = 0; ok && k < ms_sim_wall_count(sim); k++) {
      ms_wall_info w;
      ms_sim_wall(sim, k, &w);
      touching += w.contacts > 0;
    }
    ms_sim_destroy(sim);
    ms_scene_free(&sc);
    ENSURE(ok);
    ENSURE(touching == 2); /* both walls have contacts */
    if (m == 0)
      first = h;
    if (h != first)
      fprintf(stderr, "    mode %d: %08x, mode 0: %08x\n", m, h, first);
    ENSURE(h == first);
  }
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_rolling_disc_keeps_contact_across_the_seam, filter);
  RUN_TEST(test_tray_carries_a_disc_for_periods, filter);
  RUN_TEST(test_one_hash_in_every_mode, filter);
  return TEST_EXIT();
}
