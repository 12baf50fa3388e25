/* The failure path of the two-thread pipeline: a fault planted at each point of an
 * iteration (before sync 1, between the syncs, after sync 2) on either thread, in both
 * pipelines and both buffer modes, must end the advance with the failure, and the
 * replay that looks for the last good state, and every advance after it, must run
 * normally. A watchdog turns a hang into a failure. Also: an advance never returns an
 * unchecked (non-finite) state as good, and the run loop's replay stops on request. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run.h"
#include "collision/sim_internal.h"
#include "harness.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char tiny[1200], overflow[1200];

/* A hang must fail the test instead of stalling CI: each test gets a generous bound. */
static void on_alarm(int sig)
{
  (void)sig;
  static const char msg[] = "watchdog: the test hung (a run or a replay that never ends)\n";
  if (write(2, msg, sizeof msg - 1) < 0)
    _exit(2);
  _exit(1);
}

static void watchdog(unsigned seconds)
{
  signal(SIGALRM, on_alarm);
  alarm(seconds);
}

static ms_sim *open_sim(const char *path, ms_pipeline p, ms_buffer_mode b)
{
  ms_scene sc;
  if (ms_scene_load(path, &sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return NULL;
  }
  sc.pipeline = p;
  sc.buffers = b;
  sc.buffers_given = 1;
  ms_sim *sim = NULL;
  if (ms_sim_create(&sc, NULL, &sim))
    fprintf(stderr, "%s\n", ms_error_message());
  ms_scene_free(&sc);
  return sim;
}

static int hash_of(ms_sim *sim, uint32_t *h)
{
  return ms_sim_hash(sim, h) == MS_OK ? 0 : -1;
}

#define FAULT_STEP 5

/* One planted fault: the advance fails, the replay from the snapshot fails again at
 * the same step after FAULT_STEP good iterations, and from the state before it a
 * clean advance reaches the hash of an uninterrupted run. */
static int fault_case(ms_sim *sim, const ms_snapshot *start, ms_thread_id thread,
                      ms_fault_point point, uint32_t want15)
{
  if (ms_snapshot_restore(sim, start))
    return -1;
  sim->run.fault = (ms_fault){1, FAULT_STEP, thread, point, 0};
  if (ms_sim_advance(sim, 10) != MS_ERR_NUMERIC || ms_sim_step(sim) != 0) {
    fprintf(stderr, "    the failing advance did not report the failure\n");
    return -1;
  }
  /* The replay, as the program does it: restore, then one iteration at a time. */
  if (ms_snapshot_restore(sim, start))
    return -1;
  ms_snapshot *good = NULL;
  ms_status st = MS_OK;
  while (!st && ms_sim_step(sim) < 10) {
    ms_snapshot_free(good);
    if (ms_snapshot_take(sim, &good))
      return -1;
    st = ms_sim_advance(sim, 1);
  }
  long good_step = good ? ms_snapshot_step(good) : -1;
  int rc = st == MS_ERR_NUMERIC && good_step == FAULT_STEP ? 0 : -1;
  if (rc)
    fprintf(stderr, "    replay: status %d, last good step %ld\n", (int)st, good_step);
  /* Disarmed, the run goes on from the last good state like an uninterrupted one. */
  sim->run.fault.armed = 0;
  uint32_t h = 0;
  if (!rc && (ms_snapshot_restore(sim, good) || ms_sim_advance(sim, 10) || hash_of(sim, &h)))
    rc = -1;
  if (!rc && (ms_sim_step(sim) != 15 || h != want15)) {
    fprintf(stderr, "    after the replay: step %ld, hash %08x, want %08x\n", ms_sim_step(sim), h,
            want15);
    rc = -1;
  }
  ms_snapshot_free(good);
  return rc;
}

static void test_fault_at_every_point_of_both_threads(void)
{
  static const char *point_name[] = {"before sync 1", "between the syncs", "after sync 2"};
  watchdog(240);
  for (int p = 0; p < 2; p++) {
    for (int b = 0; b < 2; b++) {
      ms_pipeline pipe = p ? MS_PIPELINE_REORDERED : MS_PIPELINE_NAIVE;
      ms_buffer_mode buf = b ? MS_BUFFERS_COPIED : MS_BUFFERS_SHARED;
      ms_sim *sim = open_sim(tiny, pipe, buf);
      ENSURE(sim);
      ms_snapshot *start = NULL;
      uint32_t want15 = 0;
      int ok = ms_snapshot_take(sim, &start) == MS_OK && ms_sim_advance(sim, 15) == MS_OK &&
               hash_of(sim, &want15) == 0;
      for (int t = 0; ok && t < 2; t++) {
        for (int pt = 0; ok && pt < 3; pt++) {
          ms_thread_id thread = t ? MS_THREAD_CPU : MS_THREAD_GPU;
          printf("    %s/%s, %s thread, %s\n", ms_pipeline_name(pipe), ms_buffer_mode_name(buf),
                 t ? "CPU worker" : "GPU manager", point_name[pt]);
          fflush(stdout);
          ok = fault_case(sim, start, thread, (ms_fault_point)pt, want15) == 0;
        }
      }
      ms_snapshot_free(start);
      ms_sim_destroy(sim);
      ENSURE(ok);
    }
  }
  alarm(0);
}

/* Failures in a row, each followed by a clean advance, then a long clean run: nothing
 * of an aborted rendezvous carries over into the next advance. */
static void test_repeated_failures_leave_no_trace(void)
{
  watchdog(120);
  ms_sim *sim = open_sim(tiny, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED);
  ENSURE(sim);
  int ok = 1;
  for (int i = 0; ok && i < 12; i++) {
    sim->run.fault = (ms_fault){1, ms_sim_step(sim) + i % 3, (ms_thread_id)(i % 2),
                            (ms_fault_point)(i % 3), 0};
    ok = ms_sim_advance(sim, 4) == MS_ERR_NUMERIC;
    sim->run.fault.armed = 0;
    long before = ms_sim_step(sim);
    ok = ok && ms_sim_advance(sim, 5) == MS_OK && ms_sim_step(sim) == before + 5;
  }
  sim->run.fault.armed = 0;
  long before = ms_sim_step(sim);
  ok = ok && ms_sim_advance(sim, 200) == MS_OK && ms_sim_step(sim) == before + 200;
  ms_sim_destroy(sim);
  alarm(0);
  ENSURE(ok);
}

/* Naive checks a state when the next iteration builds its grid; the last state of an
 * advance must still be checked before the advance calls it good. overflow_nan.ini
 * turns non-finite at step 15: advancing exactly to it must fail in both orders. */
static void test_no_advance_returns_a_non_finite_state(void)
{
  watchdog(120);
  for (int p = 0; p < 2; p++) {
    ms_sim *sim = open_sim(overflow, p ? MS_PIPELINE_REORDERED : MS_PIPELINE_NAIVE,
                           MS_BUFFERS_SHARED);
    ENSURE(sim);
    long good = -1;
    ms_status st = MS_OK;
    while (!st && ms_sim_step(sim) < 100) {
      good = ms_sim_step(sim);
      st = ms_sim_advance(sim, 1);
    }
    printf("    %s: fails at step %ld (good up to %ld)\n", p ? "reordered" : "naive", good + 1,
           good);
    ms_sim_destroy(sim);
    ENSURE(st == MS_ERR_NUMERIC);
    ENSURE(good == 14);
  }
  alarm(0);
}

/* The run loop after a failure replays for the last good state; a signal then must
 * end the replay at once (it used to spin: a stopped advance makes no progress). */
static void test_replay_stops_on_request(void)
{
  watchdog(120);
  char path[64];
  snprintf(path, sizeof path, "/tmp/mixsim-test-failure-%d.ck", (int)getpid());
  for (int stop = 0; stop < 2; stop++) {
    ms_sim *sim = open_sim(tiny, MS_PIPELINE_NAIVE, MS_BUFFERS_COPIED);
    ENSURE(sim);
    sim->run.fault = (ms_fault){1, 37, MS_THREAD_CPU, MS_FAULT_BETWEEN_SYNCS, stop};
    ms_run_plan plan = {100, 0, NULL, 0, 0, path, NULL, NULL, NULL, NULL, NULL};
    double wall = 0;
    remove(path);
    ms_status st = ms_app_run(sim, &plan, &wall);
    /* The file holds a good state: the fault's step, or with the stop an earlier one. */
    int loaded = ms_checkpoint_load(path, sim, 0) == MS_OK;
    long at = ms_sim_step(sim);
    printf("    %s: status %d, checkpoint of step %ld\n", stop ? "stopped" : "not stopped", (int)st,
           at);
    ms_sim_destroy(sim);
    remove(path);
    ENSURE(st == MS_ERR_NUMERIC);
    ENSURE(loaded);
    ENSURE(stop ? at <= 37 : at == 37);
  }
  alarm(0);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  const char *root = argc > 2 ? argv[2] : ".";
  snprintf(tiny, sizeof tiny, "%s/tests/scenes/tiny.ini", root);
  snprintf(overflow, sizeof overflow, "%s/tests/scenes/overflow_nan.ini", root);
  ms_set_quiet(1);
  RUN_TEST(test_fault_at_every_point_of_both_threads, filter);
  RUN_TEST(test_repeated_failures_leave_no_trace, filter);
  RUN_TEST(test_no_advance_returns_a_non_finite_state, filter);
  RUN_TEST(test_replay_stops_on_request, filter);
  return TEST_EXIT();
}
