/* The CPU worker's exchange with the device (exchange = zone or full, collision/exchange/zone.h)
 * must not change the state: the same hash in every pipeline and buffer mode, on scenes
 * with few and many large particles, when the zone outgrows its buffers, and when the
 * exchange is switched between advances. */
#include <stdio.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "collision/exchange/zone.h"
#include "harness.h"
#include "mixsim/mixsim.h"

static const char *filter;
static char root[1024] = ".";

typedef struct run_spec {
  const char *scene; /* relative to the source root */
  ms_pipeline pipeline;
  ms_buffer_mode buffers;
  ms_exchange exchange;
  long steps;
  long switch_every; /* 0: never; else flip the exchange (and buffers) between advances */
  long reserve;      /* 0: the zone's own growth; else room for this many cells at once */
} run_spec;

static int run_hash(const run_spec *r, uint32_t *hash, ms_sim_stats *stats)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", root, r->scene);
  ms_scene sc;
  if (ms_scene_load(path, &sc)) {
    fprintf(stderr, "%s\n", ms_error_message());
    return -1;
  }
  sc.pipeline = r->pipeline;
  sc.buffers = r->buffers;
  sc.buffers_given = 1;
  sc.exchange = r->exchange;
  sc.exchange_given = 1;
  ms_sim *sim = NULL;
  int rc = ms_sim_create(&sc, NULL, &sim) ? -1 : 0;
  if (!rc && r->reserve)
    rc = ms_zone_reserve(&sim->ctx, (size_t)r->reserve) ? -1 : 0;
  long done = 0, chunk = r->switch_every ? r->switch_every : r->steps;
  while (!rc && done < r->steps) {
    long n = chunk < r->steps - done ? chunk : r->steps - done;
    rc = ms_sim_advance(sim, n) ? -1 : 0;
    done += n;
    if (!rc && r->switch_every) {
      ms_sim_set_exchange(sim, ms_sim_exchange(sim) == MS_EXCHANGE_ZONE ? MS_EXCHANGE_FULL
                                                                        : MS_EXCHANGE_ZONE);
      if (done % (2 * chunk) == 0) /* buffers every other switch: all four pairs occur */
        rc = ms_sim_set_buffers(sim, ms_sim_buffers(sim) == MS_BUFFERS_SHARED
                                         ? MS_BUFFERS_COPIED
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

/* Zone and full, in both pipelines and both buffer modes, all give one hash; the zone
 * runs really went through the zone. */
static void matrix(const char *scene, long steps)
{
  uint32_t want = 0;
  ms_sim_stats st;
  ENSURE(run_hash(&(run_spec){scene, MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED,
                              MS_EXCHANGE_FULL, steps, 0, 0},
                  &want, &st) == 0);
  ENSURE(st.zone_iterations == 0);
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++)
      for (int e = 0; e < 2; e++) {
        uint32_t h = 0;
        run_spec r = {scene, (ms_pipeline)p, (ms_buffer_mode)b, (ms_exchange)e, steps, 0, 0};
        ENSURE(run_hash(&r, &h, &st) == 0);
        if (h != want)
          fprintf(stderr, "%s: %s %s %s: %08x, full reordered shared: %08x\n", scene,
                  ms_pipeline_name(r.pipeline), ms_buffer_mode_name(r.buffers),
                  ms_exchange_name(r.exchange), h, want);
        ENSURE(h == want);
        ENSURE(st.zone_iterations == (r.exchange == MS_EXCHANGE_ZONE ? steps : 0));
      }
}

static void test_zone_same_hash_mixed(void) { matrix("tests/scenes/mixed_frictionless.ini", 120); }
static void test_zone_same_hash_packed(void) { matrix("tests/scenes/packed.ini", 120); }
static void test_zone_same_hash_tiny(void) { matrix("tests/scenes/tiny.ini", 120); }
static void test_zone_same_hash_many_large(void) { matrix("tests/scenes/many_large.ini", 40); }

/* The scene's large-small contacts are many by step 40: the test above compares real
 * forces, not zeros. */
static void test_many_large_has_large_small_contacts(void)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/tests/scenes/many_large.ini", root);
  ms_scene sc;
  ENSURE(ms_scene_load(path, &sc) == 0);
  sc.exchange = MS_EXCHANGE_ZONE;
  sc.exchange_given = 1;
  ms_sim *sim = NULL;
  ENSURE(ms_sim_create(&sc, NULL, &sim) == 0);
  ms_state_summary sm;
  int ok = ms_sim_advance(sim, 40) == 0 && ms_sim_summarise(sim, &sm) == 0;
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  ENSURE(sm.contacts_large_small >= 50);
  ENSURE(sm.contacts_large_large >= 5);
}

/* A zone that starts with room for one cell grows (and is counted) and gives the hash of
 * one with room for the whole grid from the start, which never grows. */
static void test_zone_growth_same_as_ample(void)
{
  const char *scene = "tests/scenes/many_large.ini";
  uint32_t grown = 0, ample = 0, full = 0;
  ms_sim_stats sg, sa;
  for (int b = 0; b < 2; b++) {
    ms_buffer_mode mode = (ms_buffer_mode)b;
    ENSURE(run_hash(&(run_spec){scene, MS_PIPELINE_REORDERED, mode, MS_EXCHANGE_ZONE, 30, 0, 1},
                    &grown, &sg) == 0);
    ENSURE(run_hash(&(run_spec){scene, MS_PIPELINE_REORDERED, mode, MS_EXCHANGE_ZONE, 30, 0,
                                1L << 30},
                    &ample, &sa) == 0);
    ENSURE(run_hash(&(run_spec){scene, MS_PIPELINE_REORDERED, mode, MS_EXCHANGE_FULL, 30, 0, 0},
                    &full, NULL) == 0);
    ENSURE(sg.zone_growths >= 1);
    ENSURE(sa.zone_growths == 0);
    ENSURE(sg.zone_cells_max > 1000 && sg.zone_particles_max > 100);
    ENSURE(grown == ample);
    ENSURE(grown == full);
  }
}

/* The grid's capacity grows under the zone (packed.ini starts at 1 slot a cell): the
 * zone reads the grid with its new capacity, in either pipeline, with the same builds,
 * growths and state as the full exchange. */
static void test_zone_follows_grid_capacity(void)
{
  for (int p = 0; p < 2; p++) {
    ms_pipeline pipe = p ? MS_PIPELINE_REORDERED : MS_PIPELINE_NAIVE;
    uint32_t zone = 0, full = 0;
    ms_sim_stats st, sf;
    ENSURE(run_hash(&(run_spec){"tests/scenes/packed.ini", pipe, MS_BUFFERS_COPIED,
                                MS_EXCHANGE_ZONE, 60, 0, 0},
                    &zone, &st) == 0);
    ENSURE(run_hash(&(run_spec){"tests/scenes/packed.ini", pipe, MS_BUFFERS_COPIED,
                                MS_EXCHANGE_FULL, 60, 0, 0},
                    &full, &sf) == 0);
    printf("    %s: zone %08x (%ld growths, %ld overflowed of %ld builds), full %08x (%ld, %ld "
           "of %ld)\n", p ? "reordered" : "naive", zone, st.capacity_growths,
           st.overflow_builds, st.grid_builds, full, sf.capacity_growths, sf.overflow_builds,
           sf.grid_builds);
    ENSURE(st.capacity_growths >= 1);
    ENSURE(st.zone_particles_max > 0 && st.zone_iterations == 60);
    ENSURE(st.capacity_growths == sf.capacity_growths && st.overflow_builds == sf.overflow_builds);
    ENSURE(st.grid_builds == sf.grid_builds && st.grid_capacity == sf.grid_capacity);
    ENSURE(zone == full);
  }
}

/* Switching zone <-> full (and the buffer mode) between advances keeps the trajectory. */
static void test_zone_live_switch(void)
{
  const char *scenes[] = {"tests/scenes/mixed_frictionless.ini", "tests/scenes/many_large.ini"};
  for (int i = 0; i < 2; i++) {
    uint32_t straight = 0, switched = 0;
    ENSURE(run_hash(&(run_spec){scenes[i], MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED,
                                MS_EXCHANGE_FULL, 40, 0, 0},
                    &straight, NULL) == 0);
    ENSURE(run_hash(&(run_spec){scenes[i], MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED,
                                MS_EXCHANGE_ZONE, 40, 3, 0},
                    &switched, NULL) == 0);
    ENSURE(switched == straight);
  }
}

/* A switch of the buffer mode between advances makes the zone's buffers again in the new
 * mode at the sizes they had: the next advance neither allocates nor grows them (an
 * automatic choice times that advance). */
static void test_zone_follows_buffer_switch(void)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/tests/scenes/many_large.ini", root);
  ms_scene sc;
  ENSURE(ms_scene_load(path, &sc) == MS_OK);
  sc.buffers = MS_BUFFERS_SHARED;
  sc.buffers_given = 1;
  sc.exchange = MS_EXCHANGE_ZONE;
  sc.exchange_given = 1;
  ms_sim *sim = NULL;
  ENSURE(ms_sim_create(&sc, NULL, &sim) == MS_OK);
  ENSURE(ms_sim_advance(sim, 20) == MS_OK);
  const ms_zone *z = &sim->x.zone;
  size_t room = z->room, rows = z->span_room, expect = z->expect;
  long growths = ms_sim_get_stats(sim)->zone_growths;
  ENSURE(room > 0 && rows > 0 && z->mode == MS_BUFFERS_SHARED);
  for (int k = 0; k < 2; k++) {
    ms_buffer_mode to = k ? MS_BUFFERS_SHARED : MS_BUFFERS_COPIED;
    ENSURE(ms_sim_set_buffers(sim, to) == MS_OK);
    printf("    to %s: room %zu (was %zu), rows %zu (%zu), expect %zu (%zu)\n",
           ms_buffer_mode_name(to), z->room, room, z->span_room, rows, z->expect, expect);
    ENSURE(z->mode == to && z->m_rec && z->room == room && z->span_room == rows);
    ENSURE(z->expect == expect);
    ENSURE(ms_sim_advance(sim, 1) == MS_OK);
    ENSURE(ms_sim_get_stats(sim)->zone_growths == growths);
  }
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

int main(int argc, char **argv)
{
  if (argc > 1 && argv[1][0])
    filter = argv[1];
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_zone_same_hash_mixed, filter);
  RUN_TEST(test_zone_same_hash_packed, filter);
  RUN_TEST(test_zone_same_hash_tiny, filter);
  RUN_TEST(test_zone_same_hash_many_large, filter);
  RUN_TEST(test_many_large_has_large_small_contacts, filter);
  RUN_TEST(test_zone_growth_same_as_ample, filter);
  RUN_TEST(test_zone_follows_grid_capacity, filter);
  RUN_TEST(test_zone_live_switch, filter);
  RUN_TEST(test_zone_follows_buffer_switch, filter);
  return TEST_EXIT();
}
