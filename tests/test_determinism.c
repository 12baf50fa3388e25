/* The state hash must not depend on the run: not on repetition, buffer mode, pipeline,
 * live switches between them, or the grid capacity the run started with. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char scenes_dir[1024] = "scenes";
static char test_scenes_dir[1024] = "tests/scenes";

typedef struct run_spec {
  const char *scene;
  ms_pipeline pipeline;
  ms_buffer_mode buffers;
  int capacity;     /* 0: the scene's */
  long steps;
  long toggle_every; /* 0: never switch modes during the run */
} run_spec;

static int run_hash(const run_spec *r, uint32_t *hash, ms_sim_stats *stats)
{
  ms_scene sc;
  if (ms_scene_load(r->scene, &sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  sc.pipeline = r->pipeline;
  sc.buffers = r->buffers;
  sc.buffers_given = 1;
  if (r->capacity)
    sc.grid_capacity = r->capacity;
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) ? -1 : 0;
  long done = 0, chunk = r->toggle_every ? r->toggle_every : r->steps;
  while (!rc && done < r->steps) {
    long n = chunk < r->steps - done ? chunk : r->steps - done;
    rc = ms_sim_advance(sim, n) ? -1 : 0;
    done += n;
    if (!rc && r->toggle_every) {
      ms_sim_set_pipeline(sim, ms_sim_pipeline(sim) == MS_PIPELINE_NAIVE ? MS_PIPELINE_REORDERED
                                                                         : MS_PIPELINE_NAIVE);
      rc = ms_sim_set_buffers(sim, ms_sim_buffers(sim) == MS_BUFFERS_SHARED ? MS_BUFFERS_COPIED
                                                                            : MS_BUFFERS_SHARED)
             ? -1
             : 0;
    }
  }
  if (!rc)
    rc = ms_sim_hash(sim, hash) ? -1 : 0;
  if (!rc && stats)
    *stats = *ms_sim_get_stats(sim);
  if (rc)
    fprintf(stderr, "%s\n", ms_error_message());
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  return rc;
}

static char mixed[1200], packed[1200];

static void test_hash_same_scene_twice(void)
{
  run_spec r = {mixed, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, 0, 150, 0};
  uint32_t a, b;
  ENSURE(run_hash(&r, &a, NULL) == 0);
  ENSURE(run_hash(&r, &b, NULL) == 0);
  printf("    %08x %08x\n", a, b);
  ENSURE(a == b);
}

static void test_hash_changes_with_steps(void)
{
  run_spec r = {mixed, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, 0, 150, 0};
  uint32_t a, b;
  ENSURE(run_hash(&r, &a, NULL) == 0);
  r.steps = 151;
  ENSURE(run_hash(&r, &b, NULL) == 0);
  ENSURE(a != b);
}

static void test_hash_shared_vs_copied(void)
{
  run_spec r = {mixed, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, 0, 150, 0};
  uint32_t a, b;
  ENSURE(run_hash(&r, &a, NULL) == 0);
  r.buffers = MS_BUFFERS_COPIED;
  ENSURE(run_hash(&r, &b, NULL) == 0);
  printf("    shared %08x copied %08x\n", a, b);
  ENSURE(a == b);
}

static void test_hash_naive_vs_reordered(void)
{
  run_spec r = {mixed, MS_PIPELINE_NAIVE, MS_BUFFERS_COPIED, 0, 150, 0};
  uint32_t a, b;
  ENSURE(run_hash(&r, &a, NULL) == 0);
  r.pipeline = MS_PIPELINE_REORDERED;
  ENSURE(run_hash(&r, &b, NULL) == 0);
  printf("    naive %08x reordered %08x\n", a, b);
  ENSURE(a == b);
}

static void test_hash_live_toggles(void)
{
  run_spec r = {mixed, MS_PIPELINE_NAIVE, MS_BUFFERS_SHARED, 0, 150, 0};
  uint32_t a, b;
  ENSURE(run_hash(&r, &a, NULL) == 0);
  r.toggle_every = 7;
  ENSURE(run_hash(&r, &b, NULL) == 0);
  printf("    plain %08x toggled every 7 %08x\n", a, b);
  ENSURE(a == b);
}

static void test_overflow_same_as_ample_capacity(void)
{
  run_spec r = {packed, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, 1, 300, 0};
  uint32_t a, b;
  ms_sim_stats tight, ample;
  ENSURE(run_hash(&r, &a, &tight) == 0);
  r.capacity = 64;
  ENSURE(run_hash(&r, &b, &ample) == 0);
  printf("    capacity 1: %08x (%ld overflowed builds, grew to %d); capacity 64: %08x\n", a,
         tight.overflow_builds, tight.grid_capacity, b);
  ENSURE(tight.overflow_builds > 0);
  ENSURE(tight.capacity_growths > 0);
  ENSURE(tight.grid_capacity >= tight.max_cell_count);
  ENSURE(ample.overflow_builds == 0);
  ENSURE(a == b);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2) {
    snprintf(scenes_dir, sizeof scenes_dir, "%s/scenes", argv[2]);
    snprintf(test_scenes_dir, sizeof test_scenes_dir, "%s/tests/scenes", argv[2]);
  }
  snprintf(mixed, sizeof mixed, "%s/mixed_frictionless.ini", test_scenes_dir);
  snprintf(packed, sizeof packed, "%s/packed.ini", test_scenes_dir);
  RUN_TEST(test_hash_same_scene_twice, filter);
  RUN_TEST(test_hash_changes_with_steps, filter);
  RUN_TEST(test_hash_shared_vs_copied, filter);
  RUN_TEST(test_hash_naive_vs_reordered, filter);
  RUN_TEST(test_hash_live_toggles, filter);
  RUN_TEST(test_overflow_same_as_ample_capacity, filter);
  return TEST_EXIT();
}
