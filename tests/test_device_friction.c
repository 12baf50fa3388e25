/* Friction on the device-only path (large_on = device, collision/device_only/device_friction.h,
 * kernels/large_friction.cl) through the API: on a frictional bed of static pegs,
 * falling rocks and small discs (tests/scenes/friction_bed.ini: large-small, large-large
 * and wall contacts with friction and rolling resistance) the device gives the CPU
 * worker's hash, bit for bit, on both of the worker's pipelines; switching large_on
 * between advances, exporting the friction state on one path and importing it on the
 * other, and per-large history lists that must grow with a grid that starts with one
 * slot per cell all end where the CPU worker alone does; and a failing advance leaves the
 * worker's state and message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char root[1024] = ".";

#define BED "tests/scenes/friction_bed.ini"
#define STEPS 200

typedef struct spec {
  ms_large_on large_on;
  ms_pipeline pipeline;
  long switch_every; /* 0: never; else flip large_on (and every other time the buffers) */
  int grid_capacity; /* 0: the scene's */
  int regrow;        /* the device's lists grow by one slot every iteration */
  const char *scene; /* NULL: BED */
} spec;

static int load(const char *scene, ms_scene *sc)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", root, scene ? scene : BED);
  if (ms_scene_load(path, sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  return 0;
}

static ms_status create(const spec *r, ms_scene *sc, ms_sim **sim)
{
  if (load(r->scene, sc))
    return MS_ERR_INPUT;
  sc->large_on = r->large_on;
  sc->pipeline = r->pipeline;
  if (r->grid_capacity)
    sc->grid_capacity = r->grid_capacity;
  ms_status st = ms_sim_create(sc, NULL, sim);
  if (!st)
    (*sim)->dl.fr.test_regrow = r->regrow;
  return st;
}

static void flip(ms_sim *sim, long done, long every, ms_status *st)
{
  *st = ms_sim_set_large_on(sim, ms_sim_large_on(sim) == MS_LARGE_ON_CPU ? MS_LARGE_ON_DEVICE
                                                                        : MS_LARGE_ON_CPU);
  if (!*st && done % (2 * every) == 0)
    *st = ms_sim_set_buffers(sim, ms_sim_buffers(sim) == MS_BUFFERS_SHARED ? MS_BUFFERS_COPIED
                                                                           : MS_BUFFERS_SHARED);
}

/* Runs the spec for `steps`; the hash, and the histories' growths on the device. */
static int run(const spec *r, long steps, uint32_t *hash, long *growths)
{
  ms_scene sc;
  ms_sim *sim = NULL;
  ms_status st = create(r, &sc, &sim);
  long done = 0, chunk = r->switch_every ? r->switch_every : steps;
  while (!st && done < steps) {
    long n = chunk < steps - done ? chunk : steps - done;
    st = ms_sim_advance(sim, n);
    done += n;
    if (!st && r->switch_every)
      flip(sim, done, chunk, &st);
  }
  if (!st)
    st = ms_sim_hash(sim, hash);
  if (!st && growths)
    *growths = sim->dl.fr.growths;
  if (st)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return st ? -1 : 0;
}

static int cpu_hash(long steps, uint32_t *h)
{
  return run(&(spec){MS_LARGE_ON_CPU, MS_PIPELINE_REORDERED, 0, 0, 0, NULL}, steps, h, NULL);
}

/* The device's hash is the worker's, and the worker's is the same on both pipelines. */
static void test_device_equals_cpu(void)
{
  uint32_t want = 0, naive = 1, device = 2;
  ENSURE(cpu_hash(STEPS, &want) == 0);
  ENSURE(run(&(spec){MS_LARGE_ON_CPU, MS_PIPELINE_NAIVE, 0, 0, 0, NULL}, STEPS, &naive, NULL) == 0);
  ENSURE(run(&(spec){MS_LARGE_ON_DEVICE, MS_PIPELINE_REORDERED, 0, 0, 0, NULL}, STEPS, &device, NULL) ==
         0);
  printf("    cpu reordered %08x, cpu naive %08x, device %08x\n", want, naive, device);
  ENSURE(naive == want && device == want);
}

/* Flipping between the worker and the device every few iterations carries the rotation
 * and every history across (through the host's ms_worker_history). */
static void test_switch_between_advances(void)
{
  uint32_t want = 0, got = 1;
  ENSURE(cpu_hash(STEPS, &want) == 0);
  ENSURE(run(&(spec){MS_LARGE_ON_DEVICE, MS_PIPELINE_REORDERED, 7, 0, 0, NULL}, STEPS, &got, NULL) == 0);
  printf("    cpu %08x, switching every 7 %08x\n", want, got);
  ENSURE(got == want);
}

/* 100 steps on `a`, the state and friction state exported, restored and imported into a
 * fresh simulation on `b`, 100 more: the hash of 200 uninterrupted steps. */
static int resumed(ms_large_on a, ms_large_on b, uint32_t *got)
{
  ms_scene sa, sb;
  ms_sim *first = NULL, *second = NULL;
  ms_state st;
  ms_friction_state fs;
  int ok = create(&(spec){a, MS_PIPELINE_REORDERED, 0, 0, 0, NULL}, &sa, &first) == MS_OK &&
           ms_sim_advance(first, STEPS / 2) == 0 && ms_sim_read_state(first, &st) == 0;
  ok = ok && ms_sim_friction_export(first, &fs) == 0;
  size_t cap = ok ? (size_t)ms_sim_get_stats(first)->grid_capacity : 0;
  ms_sim_destroy(first);
  ms_scene_free(&sa);
  if (!ok) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  double *large = malloc(((size_t)st.n_large * 4 + 1) * sizeof *large);
  for (int i = 0; i < st.n_large; i++) {
    large[4 * i] = st.large_pos[2 * i];
    large[4 * i + 1] = st.large_pos[2 * i + 1];
    large[4 * i + 2] = st.large_vel[2 * i];
    large[4 * i + 3] = st.large_vel[2 * i + 1];
  }
  ok = create(&(spec){b, MS_PIPELINE_REORDERED, 0, 0, 0, NULL}, &sb, &second) == MS_OK &&
       ms_sim_restore(second, st.step, cap, st.small_pos, st.small_vel, large) == 0 &&
       ms_sim_friction_import(second, &fs) == 0 && ms_sim_advance(second, STEPS / 2) == 0 &&
       ms_sim_hash(second, got) == 0;
  if (!ok)
    fprintf(stderr, "%s\n", ms_error_message());
  printf("    %s then %s: %08x (histories: %zu large-small, %zu large-large)\n",
         a == MS_LARGE_ON_CPU ? "cpu" : "device", b == MS_LARGE_ON_CPU ? "cpu" : "device", *got,
         fs.n_ls, fs.n_ll);
  ok = ok && fs.n_ls >= 20 && fs.n_ll >= 1; /* the histories carried are not empty */
  ms_sim_destroy(second);
  ms_scene_free(&sb);
  ms_state_free(&st);
  ms_friction_state_free(&fs);
  free(large);
  return ok ? 0 : -1;
}

static void test_export_import(void)
{
  uint32_t want = 0, dd = 1, dc = 2, cd = 3;
  ENSURE(cpu_hash(STEPS, &want) == 0);
  printf("    uninterrupted cpu %08x\n", want);
  ENSURE(resumed(MS_LARGE_ON_DEVICE, MS_LARGE_ON_DEVICE, &dd) == 0 && dd == want);
  ENSURE(resumed(MS_LARGE_ON_DEVICE, MS_LARGE_ON_CPU, &dc) == 0 && dc == want);
  ENSURE(resumed(MS_LARGE_ON_CPU, MS_LARGE_ON_DEVICE, &cd) == 0 && cd == want);
}

/* A grid of one slot per cell gives per-large lists of little room at first: they grow
 * with the grid, keeping every history, and the hash stays. So it does when the lists
 * are made longer every iteration, their live histories moved each time. */
static void test_history_lists_grow(void)
{
  uint32_t want = 0, got = 1;
  long growths = 0;
  ENSURE(cpu_hash(STEPS, &want) == 0);
  ENSURE(run(&(spec){MS_LARGE_ON_DEVICE, MS_PIPELINE_REORDERED, 0, 1, 0, NULL}, STEPS, &got,
             &growths) == 0);
  printf("    cpu %08x, device from grid capacity 1 %08x, %ld list growths\n", want, got,
         growths);
  ENSURE(growths > 0);
  ENSURE(got == want);
  got = 1;
  ENSURE(run(&(spec){MS_LARGE_ON_DEVICE, MS_PIPELINE_REORDERED, 0, 0, 1, NULL}, STEPS, &got,
             &growths) == 0);
  printf("    device, lists grown every iteration %08x, %ld list growths\n", got, growths);
  ENSURE(growths >= STEPS);
  ENSURE(got == want);
}

/* A failing advance with friction (tests/scenes/exploding_group.ini, its three rocks past
 * max_speed in one iteration, with friction and spins added): the same status, message and
 * state (the first failing rock integrated, rotation included, those after it not). */
static int failing(ms_large_on on, uint32_t *hash, char *message, size_t size)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/tests/scenes/exploding_group.ini", root);
  ms_scene sc;
  ms_sim *sim = NULL;
  if (ms_scene_load(path, &sc))
    return -1;
  sc.friction = 0.4f;
  sc.rolling_friction = 0.01f;
  sc.wall_friction = 0.3f;
  for (int i = 0; i < sc.large_count; i++) /* spinning, so that the rotation's rollback shows */
    sc.large[i].spin = sc.large[i].is_static ? 0.0 : 5.0 + i;
  sc.large_on = on;
  ms_status st = ms_sim_create(&sc, NULL, &sim);
  int rc = st ? -1 : (int)ms_sim_advance(sim, 100);
  snprintf(message, size, "%s", ms_error_message());
  ms_error_clear();
  if (sim && (!ms_sim_friction_on(sim) || ms_sim_hash(sim, hash)))
    rc = -1;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

static void test_failure_leaves_serial_state(void)
{
  uint32_t want = 0, got = 1;
  char m_cpu[2048], m_dev[2048];
  ENSURE(failing(MS_LARGE_ON_CPU, &want, m_cpu, sizeof m_cpu) == (int)MS_ERR_NUMERIC);
  ENSURE(failing(MS_LARGE_ON_DEVICE, &got, m_dev, sizeof m_dev) == (int)MS_ERR_NUMERIC);
  printf("    cpu %08x: %s\n    device %08x: %s\n", want, m_cpu, got, m_dev);
  ENSURE(strcmp(m_cpu, m_dev) == 0);
  ENSURE(strstr(m_dev, "large particle [large_random.rocks] #0 moves faster") != NULL);
  ENSURE(got == want);
}

int main(int argc, char **argv)
{
  ms_set_quiet(1);
  if (argc > 1 && argv[1][0])
    filter = argv[1];
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_device_equals_cpu, filter);
  RUN_TEST(test_switch_between_advances, filter);
  RUN_TEST(test_export_import, filter);
  RUN_TEST(test_history_lists_grow, filter);
  RUN_TEST(test_failure_leaves_serial_state, filter);
  return TEST_EXIT();
}
