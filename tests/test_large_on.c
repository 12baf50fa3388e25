/* The device-only baseline (large_on = device) through the API: switching between the
 * CPU worker and the device between advances, a large particle moved between advances,
 * and the state a failing advance leaves (the serial loop's: the first failing large
 * particle integrated, those after it not) must all be what the CPU worker gives. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char root[1024] = ".";

typedef struct run_spec {
  const char *scene; /* relative to the source root */
  ms_large_on large_on;
  long steps;
  long switch_every; /* 0: never; else flip large_on (and every other time the buffers) */
  long move_at;      /* 0: never; else move large particle 0 after this many steps */
} run_spec;

/* Runs the spec; returns the advance's status, the state's hash and, on a failure,
 * its message. */
static ms_status run(const run_spec *r, uint32_t *hash, char *message, size_t message_size)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", root, r->scene);
  ms_scene sc;
  ms_error_clear();
  if (ms_scene_load(path, &sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return MS_ERR_INPUT;
  }
  sc.large_on = r->large_on;
  ms_sim *sim = NULL;
  ms_status st = ms_sim_create(&sc, NULL, &sim);
  long done = 0, chunk = r->switch_every ? r->switch_every : r->steps;
  while (!st && done < r->steps) {
    long n = chunk < r->steps - done ? chunk : r->steps - done;
    if (r->move_at > done && r->move_at < done + n)
      n = r->move_at - done;
    st = ms_sim_advance(sim, n);
    done += n;
    if (!st && done == r->move_at)
      st = ms_sim_move_large(sim, 0, 0.02, 0.085);
    if (!st && r->switch_every && done % chunk == 0) {
      st = ms_sim_set_large_on(sim, ms_sim_large_on(sim) == MS_LARGE_ON_CPU
                                        ? MS_LARGE_ON_DEVICE
                                        : MS_LARGE_ON_CPU);
      if (!st && done % (2 * chunk) == 0)
        st = ms_sim_set_buffers(sim, ms_sim_buffers(sim) == MS_BUFFERS_SHARED
                                         ? MS_BUFFERS_COPIED
                                         : MS_BUFFERS_SHARED);
    }
  }
  if (message)
    snprintf(message, message_size, "%s", st ? ms_error_message() : "");
  ms_error_clear();
  if (sim && ms_sim_hash(sim, hash))
    st = st ? st : MS_ERR_RUNTIME;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return st;
}

/* Flipping between the CPU worker and the device every few iterations (and the buffer
 * mode every other flip) ends where the CPU worker alone does. */
static void test_switch_between_advances(void)
{
  uint32_t want = 0, got = 1;
  ENSURE(run(&(run_spec){"tests/scenes/squeeze.ini", MS_LARGE_ON_CPU, 150, 0, 0}, &want, NULL,
             0) == MS_OK);
  ENSURE(run(&(run_spec){"tests/scenes/squeeze.ini", MS_LARGE_ON_DEVICE, 150, 7, 0}, &got,
             NULL, 0) == MS_OK);
  printf("    cpu %08x, switching %08x\n", want, got);
  ENSURE(got == want);
}

/* A large particle moved between advances (the preview's drag) reaches the device. */
static void test_move_between_advances(void)
{
  uint32_t want = 0, got = 1, unmoved = 2;
  ENSURE(run(&(run_spec){"tests/scenes/squeeze.ini", MS_LARGE_ON_CPU, 100, 0, 40}, &want, NULL,
             0) == MS_OK);
  ENSURE(run(&(run_spec){"tests/scenes/squeeze.ini", MS_LARGE_ON_DEVICE, 100, 0, 40}, &got, NULL,
             0) == MS_OK);
  ENSURE(run(&(run_spec){"tests/scenes/squeeze.ini", MS_LARGE_ON_DEVICE, 100, 0, 0}, &unmoved,
             NULL, 0) == MS_OK);
  printf("    cpu %08x, device %08x (not moved: %08x)\n", want, got, unmoved);
  ENSURE(got == want && got != unmoved);
}

/* A failing advance: the same status and message, and the same state, on both. In
 * exploding_group.ini the three rocks (large particles 1 to 3) pass max_speed in the same
 * iteration: the first is reported, and the other two keep their state from before it. */
static void test_failure_leaves_serial_state(void)
{
  uint32_t want = 0, got = 1;
  char m_cpu[2048], m_dev[2048];
  ENSURE(run(&(run_spec){"tests/scenes/exploding_group.ini", MS_LARGE_ON_CPU, 100, 0, 0}, &want,
             m_cpu, sizeof m_cpu) == MS_ERR_NUMERIC);
  ENSURE(run(&(run_spec){"tests/scenes/exploding_group.ini", MS_LARGE_ON_DEVICE, 100, 0, 0},
             &got, m_dev, sizeof m_dev) == MS_ERR_NUMERIC);
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
  RUN_TEST(test_switch_between_advances, filter);
  RUN_TEST(test_move_between_advances, filter);
  RUN_TEST(test_failure_leaves_serial_state, filter);
  return TEST_EXIT();
}
