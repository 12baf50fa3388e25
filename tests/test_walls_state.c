/* The walls' state ([wall.NAME]) through the API: a snapshot puts back the drum's contact
 * histories and the piston's motion, so that the run goes on as before; the run loop's
 * replay after a failure writes the last good state of a moving piston, which resumes to the
 * uninterrupted hash; a walls' state this scene could not have written is refused by the
 * import, changing nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run.h"
#include "collision/sim_internal.h"
#include "harness.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"

static char drum[1200], piston[1200];

static ms_sim *open_sim(const char *path, ms_pipeline p, int threads)
{
  ms_scene sc;
  if (ms_scene_load(path, &sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return NULL;
  }
  sc.pipeline = p;
  sc.cpu_threads = threads;
  ms_sim *sim = NULL;
  if (ms_sim_create(&sc, NULL, &sim))
    fprintf(stderr, "%s\n", ms_error_message());
  ms_scene_free(&sc);
  return sim;
}

static uint32_t hash_of(ms_sim *sim)
{
  uint32_t h = 0;
  return ms_sim_hash(sim, &h) == MS_OK ? h : 0;
}

/* Whether two walls' states are the same, bit for bit. */
static int same_walls(const ms_walls_state *a, const ms_walls_state *b)
{
  return a->n_walls == b->n_walls && a->n_small == b->n_small && a->n_large == b->n_large &&
         !memcmp(a->driven, b->driven, (size_t)a->n_walls * sizeof *a->driven) &&
         !memcmp(a->motion, b->motion, (size_t)a->n_walls * 2 * sizeof *a->motion) &&
         !memcmp(a->small, b->small, (size_t)a->n_small * sizeof *a->small) &&
         !memcmp(a->large, b->large, (size_t)a->n_large * sizeof *a->large);
}

/* Snapshot at `at`, `more` steps, back to the snapshot, the same steps again: the walls'
 * state and the hash are those of the first time. `need` says what the snapshot must hold
 * for the case to prove anything: 1 small-wall histories, 2 a moving force-driven wall. */
static int snapshot_case(const char *scene, long at, long more, int need)
{
  ms_sim *sim = open_sim(scene, MS_PIPELINE_REORDERED, 2);
  if (!sim)
    return 0;
  ms_snapshot *snap = NULL;
  ms_walls_state w0, w1, w2;
  memset(&w1, 0, sizeof w1);
  memset(&w2, 0, sizeof w2);
  int ok = ms_sim_advance(sim, at) == MS_OK && ms_snapshot_take(sim, &snap) == MS_OK &&
           ms_sim_walls_export(sim, &w0) == MS_OK;
  int holds = ok && (need == 1 ? w0.n_small > 0 : w0.driven[0] && w0.motion[1] != 0.0);
  uint32_t first = ok && ms_sim_advance(sim, more) == MS_OK ? hash_of(sim) : 0;
  ok = ok && ms_snapshot_restore(sim, snap) == MS_OK && ms_sim_walls_export(sim, &w1) == MS_OK;
  uint32_t again = ok && ms_sim_advance(sim, more) == MS_OK ? hash_of(sim) : 1;
  ok = ok && ms_sim_walls_export(sim, &w2) == MS_OK;
  printf("    %s: step %ld, %lld small-wall and %lld large-wall histories, s_dot %g; at %ld: "
         "%08x, again %08x\n", strrchr(scene, '/') + 1, at, (long long)w0.n_small,
         (long long)w0.n_large, w0.n_walls ? w0.motion[1] : 0.0, at + more, first, again);
  ok = ok && holds && first != 0 && first == again && same_walls(&w0, &w1) && !same_walls(&w0, &w2);
  ms_walls_state_free(&w0);
  ms_walls_state_free(&w1);
  ms_walls_state_free(&w2);
  ms_snapshot_free(snap);
  ms_sim_destroy(sim);
  return ok;
}

static void test_snapshot_restores_the_walls(void)
{
  ENSURE(snapshot_case(drum, 5000, 600, 1));
  ENSURE(snapshot_case(piston, 1100, 600, 2));
}

/* A failure planted while the piston moves, where the worker's check of the large particles
 * finds a runaway (after sync 2), or between the syncs (F_ls half made): the run loop replays
 * from its snapshot and writes the state before the failing step, which resumes to the
 * uninterrupted hash. */
static void replay_case(ms_fault_point point)
{
  const long fail_at = 1100, end = 1800;
  char path[64];
  snprintf(path, sizeof path, "/tmp/mixsim-test-walls-state-%d.ck", (int)getpid());
  ms_sim *full = open_sim(piston, MS_PIPELINE_NAIVE, 1);
  ENSURE(full);
  uint32_t want = ms_sim_advance(full, end) == MS_OK ? hash_of(full) : 0;
  ms_sim_destroy(full);
  ms_sim *sim = open_sim(piston, MS_PIPELINE_NAIVE, 1);
  ENSURE(sim);
  sim->run.fault = (ms_fault){1, fail_at, MS_THREAD_CPU, point, 0};
  ms_run_plan plan = {end, 0, NULL, 0, 0, path, NULL, NULL, NULL, NULL, NULL};
  double wall = 0;
  remove(path);
  ms_status st = ms_app_run(sim, &plan, &wall);
  ms_sim_destroy(sim);
  ms_sim *again = open_sim(piston, MS_PIPELINE_REORDERED, 3);
  ENSURE(again);
  int loaded = ms_checkpoint_load(path, again, NULL) == MS_OK;
  long at = ms_sim_step(again);
  uint32_t got = loaded && ms_sim_advance(again, end - at) == MS_OK ? hash_of(again) : 1;
  printf("    failure at %ld: status %d, last good step %ld, resumed to %ld: %08x (uninterrupted "
         "%08x)\n", fail_at, (int)st, at, end, got, want);
  ms_sim_destroy(again);
  remove(path);
  ENSURE(st == MS_ERR_NUMERIC);
  ENSURE(loaded && at == fail_at);
  ENSURE(want != 0 && got == want);
}

static void test_replay_after_failure_resumes_to_the_same_hash(void)
{
  replay_case(MS_FAULT_AFTER_SYNC2);
}

static void test_replay_after_failure_between_syncs(void) { replay_case(MS_FAULT_BETWEEN_SYNCS); }

/* Each fault the import must see, on an exported state; the state stays as it was. */
static void test_bad_import_refused_and_changes_nothing(void)
{
  ms_sim *sim = open_sim(drum, MS_PIPELINE_REORDERED, 1);
  ENSURE(sim);
  ms_walls_state w, after;
  int ok = ms_sim_advance(sim, 5000) == MS_OK && ms_sim_walls_export(sim, &w) == MS_OK;
  ok = ok && w.n_small >= 2 && w.n_walls == 2;
  for (int c = 0; ok && c < 8; c++) {
    ms_error_clear();
    ms_walls_state bad = w;
    ms_wall_history e0 = w.small[0], e1 = w.small[1];
    int32_t driven = w.driven[0];
    double s = w.motion[0];
    switch (c) {
    case 0: bad.n_walls = 1; break;
    case 1: w.driven[0] = 1; break;                  /* the drum is prescribed */
    case 2: w.motion[0] = 1e-3; break;               /* ... and has no s */
    case 3: w.small[0].a = 2; break;                 /* no third wall */
    case 4: w.small[0].feature = 1; break;           /* a circle has feature 0 only */
    case 5: w.small[0] = e1, w.small[1] = e0; break; /* out of order */
    case 6: w.small[1] = e0; break;                  /* twice */
    default: w.small[0].xi = (float)NAN; break;
    }
    ok = ms_sim_walls_import(sim, &bad) == MS_ERR_INPUT && ms_sim_walls_export(sim, &after) == MS_OK;
    printf("    case %d: %s\n", c, ms_error_message());
    w.small[0] = e0, w.small[1] = e1, w.driven[0] = driven, w.motion[0] = s;
    ok = ok && same_walls(&w, &after);
    ms_walls_state_free(&after);
  }
  /* and the state as exported goes back in */
  ok = ok && ms_sim_walls_import(sim, &w) == MS_OK;
  ms_walls_state_free(&w);
  ms_sim_destroy(sim);
  ENSURE(ok);
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  const char *root = argc > 2 ? argv[2] : ".";
  snprintf(drum, sizeof drum, "%s/tests/scenes/walls_drum.ini", root);
  snprintf(piston, sizeof piston, "%s/tests/scenes/walls_piston.ini", root);
  ms_set_quiet(1);
  RUN_TEST(test_snapshot_restores_the_walls, filter);
  RUN_TEST(test_replay_after_failure_resumes_to_the_same_hash, filter);
  RUN_TEST(test_replay_after_failure_between_syncs, filter);
  RUN_TEST(test_bad_import_refused_and_changes_nothing, filter);
  return TEST_EXIT();
}
