/* Periodic boundaries (docs/open-systems.md): a disc crossing the seam keeps its velocity
 * and counts the periods it crossed; contacts across the seam act as they do in the middle
 * of the box (restitution, a frictional contact's history); a periodic frictional gas keeps
 * its momentum; a scene shifted along the period moves as the unshifted one does; every
 * mode, thread count and place of the large particles gives one hash; a checkpoint resumes
 * a periodic run exactly. Usage: test_periodic [FILTER] [SOURCE_ROOT] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"

static char root[1024] = ".";

/* A 0.2 m x 0.1 m box periodic in x (y too with "xy"), `n` small discs of radius 5 mm. */
static int load(const char *periodic, int n, const char *material, ms_scene *sc)
{
  char text[2048];
  snprintf(text, sizeof text,
           "[simulation]\ndt = 2e-5\ngravity = 0, 0\n[box]\nmin = -0.3, 1\nmax = -0.1, 1.1\n"
           "periodic = %s\n[material]\nstiffness = 2000\nrestitution = 0.6\n%s"
           "[small]\ncount = %d\nradius = 0.005\ndensity = 25\nplacement = lattice\n"
           "region = -0.3, 1, -0.1, 1.1\n",
           periodic, material, n);
  if (ms_scene_load_string(text, "periodic.ini", sc)) {
    fprintf(stderr, "    %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

static void place(ms_scene *sc, int i, double x, double y, double vx, double vy)
{
  sc->small_pos[2 * i] = x;
  sc->small_pos[2 * i + 1] = y;
  sc->small_vel[2 * i] = vx;
  sc->small_vel[2 * i + 1] = vy;
}

static int run(const ms_scene *sc, long steps, ms_state *out)
{
  ms_sim *sim = NULL;
  int ok = !ms_sim_create(sc, NULL, &sim) && !ms_sim_advance(sim, steps) &&
           !ms_sim_read_state(sim, out);
  if (!ok)
    fprintf(stderr, "    %s\n", ms_error_message());
  ms_sim_destroy(sim);
  return ok;
}

/* Free flight through the seam many times: the velocity is untouched, the position stays
 * in the box and the images count the periods, so the unwrapped position is x0 + v t. */
static void test_disc_crosses_the_seam(void)
{
  ms_scene sc;
  ENSURE(load("xy", 1, "", &sc));
  place(&sc, 0, 0.19, 0.02, 3.7, -1.3);
  ms_state st;
  long steps = 20000; /* 0.4 s: 1.48 m along x (7 periods), -0.52 m along y (5) */
  ENSURE(run(&sc, steps, &st));
  ENSURE(st.small_vel[0] == 3.7 && st.small_vel[1] == -1.3);
  ENSURE(st.small_img && st.small_img[0] == 8 && st.small_img[1] == -5);
  double x = st.small_pos[0], y = st.small_pos[1];
  ENSURE(x >= 0.0 && x < 0.2 && y >= 0.0 && y < 0.1);
  ENSURE_SMALL(x + 0.2 * st.small_img[0] - (0.19 + 3.7 * 0.4), 1e-9);
  ENSURE_SMALL(y + 0.1 * st.small_img[1] - (0.02 - 1.3 * 0.4), 1e-9);
  ms_state_free(&st);
  ms_scene_free(&sc);
}

/* Two discs approaching along x, their contact at `at` (the seam: 0). */
static int head_on(const char *material, double at, double vt, ms_state *out)
{
  ms_scene sc;
  if (!load("x", 2, material, &sc))
    return 0;
  double a = at - 0.0052, b = at + 0.0052;
  place(&sc, 0, a < 0.0 ? a + 0.2 : a, 0.05, 0.4, vt);
  place(&sc, 1, b, 0.05, -0.4, -vt);
  int ok = run(&sc, 2000, out);
  ms_scene_free(&sc);
  return ok;
}

/* A collision across the seam rebounds as the same collision in the middle of the box,
 * with restitution e (within the discrete contact's spread at this dt). */
static void test_collision_across_the_seam(void)
{
  ms_state seam, mid;
  ENSURE(head_on("", 0.0, 0.0, &seam));
  ENSURE(head_on("", 0.1, 0.0, &mid));
  double e_seam = (seam.small_vel[2] - seam.small_vel[0]) / 0.8;
  double e_mid = (mid.small_vel[2] - mid.small_vel[0]) / 0.8;
  ENSURE_SMALL(e_seam - e_mid, 1e-6);
  ms_restitution_range r = ms_restitution_sweep(2000.0, 0.6, 0.5 * 25 * 3.14159265358979323846 * 0.005 * 0.005,
                                                2e-5, 4096);
  if (!(e_seam >= r.min - 1e-6 && e_seam <= r.max + 1e-6))
    fprintf(stderr, "    e = %.9f, the discrete contact's range [%.9f, %.9f]\n", e_seam, r.min,
            r.max);
  ENSURE(e_seam >= r.min - 1e-6 && e_seam <= r.max + 1e-6);
  ENSURE(seam.small_img[0] == 0 || seam.small_img[0] == -1);
  ms_state_free(&seam);
  ms_state_free(&mid);
}

/* A frictional contact across the seam, sliding and spinning the discs while they touch:
 * the history the friction keeps is carried across the seam, so the spins and the
 * velocities after it are those of the same contact in the middle of the box. */
static void test_contact_history_across_the_seam(void)
{
  const char *fr = "friction = 0.5\nrolling_friction = 0.02\n";
  ms_state seam, mid;
  ENSURE(head_on(fr, 0.0, 0.3, &seam));
  ENSURE(head_on(fr, 0.1, 0.3, &mid));
  for (int k = 0; k < 4; k++) {
    ENSURE_SMALL(seam.small_vel[k] - mid.small_vel[k], 1e-6);
    ENSURE_SMALL(seam.small_rot[k] - mid.small_rot[k], 1e-4);
  }
  ENSURE(fabs(seam.small_rot[1]) > 1.0); /* the friction acted: the discs spin */
  ms_state_free(&seam);
  ms_state_free(&mid);
}

static void momentum(const ms_scene *sc, const ms_state *st, double p[2])
{
  p[0] = p[1] = 0.0;
  for (int i = 0; i < st->n_small; i++) {
    p[0] += sc->small_m[i] * st->small_vel[2 * i];
    p[1] += sc->small_m[i] * st->small_vel[2 * i + 1];
  }
  for (int i = 0; i < st->n_large; i++) {
    p[0] += sc->large[i].mass * st->large_vel[2 * i];
    p[1] += sc->large[i].mass * st->large_vel[2 * i + 1];
  }
}

static int load_file(const char *name, ms_scene *sc)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/tests/scenes/%s", root, name);
  if (ms_scene_load(path, sc)) {
    fprintf(stderr, "    %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

/* A periodic frictional gas of small and large discs: no wall, no gravity, so the total
 * momentum is kept to rounding over 10,000 steps. */
static void test_periodic_gas_keeps_momentum(void)
{
  ms_scene sc;
  ENSURE(load_file("periodic_gas.ini", &sc));
  ms_state s0, s1;
  ENSURE(run(&sc, 0, &s0));
  ENSURE(run(&sc, 10000, &s1));
  double p0[2], p1[2];
  momentum(&sc, &s0, p0);
  momentum(&sc, &s1, p1);
  double size = hypot(p0[0], p0[1]);
  ENSURE(size > 0.1);
  ENSURE_SMALL(hypot(p1[0] - p0[0], p1[1] - p0[1]) / size, 1e-9);
  ms_state_free(&s0);
  ms_state_free(&s1);
  ms_scene_free(&sc);
}

/* The same gas shifted by 0.37 of the period in x and 0.61 in y: after 400 steps every
 * particle is where the unshifted one is, shifted, to rounding. */
static void test_shifted_scene_moves_alike(void)
{
  ms_scene a, b;
  ENSURE(load_file("periodic_gas.ini", &a) && load_file("periodic_gas.ini", &b));
  double w = a.box_max[0] - a.box_min[0], h = a.box_max[1] - a.box_min[1];
  double shift[2] = {0.37 * w, 0.61 * h}, period[2] = {w, h};
  for (int i = 0; i < b.small_count + b.large_count; i++) {
    double *p = i < b.small_count ? &b.small_pos[2 * i] : &b.large[i - b.small_count].x;
    for (int c = 0; c < 2; c++)
      p[c] = fmod(p[c] + shift[c], period[c]);
  }
  ms_state sa, sb;
  ENSURE(run(&a, 400, &sa) && run(&b, 400, &sb));
  double worst = 0.0;
  for (int i = 0; i < sa.n_small + sa.n_large; i++) {
    const double *pa = i < sa.n_small ? &sa.small_pos[2 * i] : &sa.large_pos[2 * (i - sa.n_small)];
    const double *pb = i < sb.n_small ? &sb.small_pos[2 * i] : &sb.large_pos[2 * (i - sb.n_small)];
    for (int c = 0; c < 2; c++) {
      double d = fmod(pb[c] - pa[c] - shift[c] + 2.5 * period[c], period[c]) - 0.5 * period[c];
      worst = fabs(d) > worst ? fabs(d) : worst;
    }
  }
  ENSURE_SMALL(worst, 1e-9);
  ms_state_free(&sa);
  ms_state_free(&sb);
  ms_scene_free(&a);
  ms_scene_free(&b);
}

/* One hash in every mode: pipelines, buffers, exchanges, thread counts and the large
 * particles on the device, with large particles touching across both seams. */
static void test_one_hash_in_every_mode(void)
{
  const char *scenes[] = {"periodic_gas.ini", "periodic_bed.ini"};
  for (int k = 0; k < 2; k++) {
    uint32_t first = 0;
    for (int m = 0; m < 6; m++) {
      ms_scene sc;
      ENSURE(load_file(scenes[k], &sc));
      sc.pipeline = m % 2 ? MS_PIPELINE_NAIVE : MS_PIPELINE_REORDERED;
      sc.buffers = m == 2 ? MS_BUFFERS_COPIED : MS_BUFFERS_SHARED;
      sc.buffers_given = 1;
      sc.exchange = m < 3 ? MS_EXCHANGE_ZONE : MS_EXCHANGE_FULL;
      sc.exchange_given = 1;
      sc.cpu_threads = 1 + m % 3;
      sc.large_on = m == 5 ? MS_LARGE_ON_DEVICE : MS_LARGE_ON_CPU;
      sc.worker_list_off = m == 4;
      ms_sim *sim = NULL;
      uint32_t h = 0;
      int ok = !ms_sim_create(&sc, NULL, &sim) && !ms_sim_advance(sim, 600) &&
               !ms_sim_hash(sim, &h);
      if (!ok)
        fprintf(stderr, "    %s\n", ms_error_message());
      ms_sim_destroy(sim);
      ms_scene_free(&sc);
      ENSURE(ok);
      if (m == 0)
        first = h;
      if (h != first)
        fprintf(stderr, "    %s mode %d: %08x, mode 0: %08x\n", scenes[k], m, h, first);
      ENSURE(h == first);
    }
  }
}

/* A checkpoint in the middle of a periodic run resumes to the uninterrupted run's state
 * and images. */
static void test_checkpoint_resume(void)
{
  ms_scene sc;
  ENSURE(load_file("periodic_bed.ini", &sc));
  ms_scene_id id;
  ENSURE(!ms_scene_identity(&sc, &id));
  char path[] = "/tmp/mixsim_periodic_XXXXXX";
  int fd = mkstemp(path);
  ENSURE(fd >= 0);
  close(fd);
  ms_sim *a = NULL, *b = NULL;
  ENSURE(!ms_sim_create(&sc, NULL, &a) && !ms_sim_advance(a, 300));
  ENSURE(!ms_checkpoint_save(path, a, &id) && !ms_sim_advance(a, 300));
  ENSURE(!ms_sim_create(&sc, NULL, &b) && !ms_checkpoint_load(path, b, &id));
  ENSURE(!ms_sim_advance(b, 300));
  ms_state sa, sb;
  ENSURE(!ms_sim_read_state(a, &sa) && !ms_sim_read_state(b, &sb));
  ENSURE(ms_state_hash(&sa) == ms_state_hash(&sb));
  size_t ns = 2 * (size_t)sa.n_small * sizeof(int), nl = 2 * (size_t)sa.n_large * sizeof(int);
  ENSURE(memcmp(sa.small_img, sb.small_img, ns) == 0);
  ENSURE(memcmp(sa.large_img, sb.large_img, nl) == 0);
  int crossed = 0;
  for (size_t i = 0; i < 2 * (size_t)sa.n_small; i++)
    crossed += sa.small_img[i] != 0;
  ENSURE(crossed > 0); /* the run did cross the seam */
  ms_state_free(&sa);
  ms_state_free(&sb);
  ms_sim_destroy(a);
  ms_sim_destroy(b);
  unlink(path);
  ms_scene_id_free(&id);
  ms_scene_free(&sc);
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_disc_crosses_the_seam, filter);
  RUN_TEST(test_collision_across_the_seam, filter);
  RUN_TEST(test_contact_history_across_the_seam, filter);
  RUN_TEST(test_periodic_gas_keeps_momentum, filter);
  RUN_TEST(test_shifted_scene_moves_alike, filter);
  RUN_TEST(test_one_hash_in_every_mode, filter);
  RUN_TEST(test_checkpoint_resume, filter);
  return TEST_EXIT();
}
