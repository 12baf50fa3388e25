/* Open systems (docs/open-systems.md): an inflow places its particles at its rate while its
 * region is clear, never overlapping anything; particles leave through outflows and open
 * sides, counted, and a removed particle's id never comes back; the count adds up; one hash
 * in every mode, thread count and place of the large particles with particles entering and
 * leaving (the arrays growing on the way); a checkpoint in the middle of a pour resumes to
 * the uninterrupted run. Usage: test_open [FILTER] [SOURCE_ROOT] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"

static char root[1024] = ".";

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

static int create(const ms_scene *sc, ms_sim **out)
{
  if (ms_sim_create(sc, NULL, out)) {
    fprintf(stderr, "    %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

static int advance(ms_sim *sim, long n)
{
  if (ms_sim_advance(sim, n)) {
    fprintf(stderr, "    %s\n", ms_error_message());
    return 0;
  }
  return 1;
}

/* A tall empty box; an inflow high up drops discs fast enough that its region is clear
 * at every exchange: after 0.5 s it placed rate * 0.5 of them, none skipped. */
static void test_inflow_keeps_its_rate(void)
{
  static const char text[] =
      "[simulation]\ndt = 2e-5\nseed = 4\ngravity = 0, -9.81\n[box]\nmin = 0, 0\nmax = 0.3, 3\n"
      "walls = left, right, top\n[material]\nstiffness = 2500\nrestitution = 0.5\n"
      "[inflow.rain]\nregion = 0.02, 2.9, 0.28, 2.99\nrate = 1000\nradius = 0.002\n"
      "density = 25\nvelocity = 0, -3\n";
  ms_scene sc;
  ENSURE(!ms_scene_load_string(text, "rain.ini", &sc));
  ms_sim *sim = NULL;
  ENSURE(create(&sc, &sim) && advance(sim, 25000));
  ms_flow_info f;
  ms_sim_flow(sim, 0, &f);
  ENSURE(f.kind == MS_FLOW_INFLOW && strcmp(f.name, "inflow.rain") == 0);
  ENSURE(f.total.skipped == 0);
  ENSURE(f.total.count == 500); /* rate * t exactly: the exchange falls on t = 0.5 s */
  ENSURE(ms_sim_small_count(sim) == f.total.count);
  /* each disc's mass is a float (the device's): the sum to float precision */
  ENSURE_SMALL(f.total.mass / (f.total.count * 25 * 3.14159265358979323846 * 4e-6) - 1.0, 1e-6);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

/* After each exchange, every particle that just came in, small or large, is clear of
 * every other one. */
static void test_newcomers_never_overlap(void)
{
  ms_scene sc;
  ENSURE(load_file("open_flow.ini", &sc));
  ms_sim *sim = NULL;
  ENSURE(create(&sc, &sim));
  int64_t seen = 0; /* ids below this were checked already */
  long placed = 0, placed_large = 0;
  for (int round = 0; round < 40; round++) {
    ENSURE(advance(sim, 50)); /* one exchange per 50 steps (1 ms) */
    ms_state st;
    ENSURE(!ms_sim_read_state(sim, &st));
    ms_state_compact(&st);
    for (int i = 0; i < st.n_small; i++) {
      if (st.small_id[i] < seen)
        continue;
      placed++;
      for (int j = 0; j < st.n_small; j++) {
        double dx = st.small_pos[2 * j] - st.small_pos[2 * i];
        double dy = st.small_pos[2 * j + 1] - st.small_pos[2 * i + 1];
        double rs = (double)st.small_shape[2 * i] + (double)st.small_shape[2 * j];
        ENSURE(j == i || dx * dx + dy * dy >= rs * rs);
      }
    }
    for (int i = 0; i < st.n_large; i++) { /* the rocks: clear of every disc */
      if (st.large_id[i] < seen)
        continue;
      placed_large++;
      for (int j = 0; j < st.n_small + st.n_large; j++) {
        int small = j < st.n_small, k = small ? j : j - st.n_small;
        const double *p = small ? &st.small_pos[2 * k] : &st.large_pos[2 * k];
        double dx = p[0] - st.large_pos[2 * i], dy = p[1] - st.large_pos[2 * i + 1];
        double rs = (double)st.large_shape[2 * i] +
                    (double)(small ? st.small_shape[2 * k] : st.large_shape[2 * k]);
        ENSURE((!small && k == i) || dx * dx + dy * dy >= rs * rs);
      }
    }
    seen = ms_sim_next_id(sim);
    ms_state_free(&st);
  }
  ENSURE(placed > 60); /* the inflow did place particles, beside the 60 of the scene */
  ENSURE(placed_large >= 7); /* 200 rocks a second for 40 ms */
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

/* Particles leave through the outflow and the open sides, small and large; an id that
 * left never comes back, and the count adds up. */
static void test_removed_ids_never_return(void)
{
  ms_scene sc;
  ENSURE(load_file("open_flow.ini", &sc));
  ms_sim *sim = NULL;
  ENSURE(create(&sc, &sim));
  int64_t room = 4096;
  unsigned char *gone = calloc((size_t)room, 1), *here = calloc((size_t)room, 1);
  ENSURE(gone && here);
  int large_now = 0, large_left = 0;
  for (int round = 0; round < 15; round++) {
    ENSURE(advance(sim, 1000));
    ms_state st;
    ENSURE(!ms_sim_read_state(sim, &st));
    ms_state_compact(&st);
    ENSURE(ms_sim_next_id(sim) < room);
    unsigned char *now = calloc((size_t)room, 1);
    ENSURE(now);
    for (int i = 0; i < st.n_small; i++) {
      ENSURE(!gone[st.small_id[i]]);
      now[st.small_id[i]] = 2;
    }
    for (int i = 0; i < st.n_large; i++) { /* the rocks come and go: 2 static discs stay */
      ENSURE(!gone[st.large_id[i]]);
      now[st.large_id[i]] = 1;
    }
    large_now = st.n_large;
    for (int64_t id = 0; id < room; id++)
      if (here[id] && !now[id]) {
        gone[id] = 1;
        large_left += here[id] == 1;
      }
    memcpy(here, now, (size_t)room);
    free(now);
    ms_state_free(&st);
  }
  long in = 0, out = 0;
  for (int k = 0; k < ms_sim_flow_count(sim); k++) {
    ms_flow_info f;
    ms_sim_flow(sim, k, &f);
    if (f.kind == MS_FLOW_INFLOW)
      in += f.total.count;
    else
      out += f.total.count;
  }
  long left = 0;
  for (int64_t id = 0; id < room; id++)
    left += gone[id];
  ENSURE(out > 50 && left == out); /* every removal counted, by the flows too */
  ENSURE(large_left >= 10);         /* the outflow took most of the 15 rocks */
  ENSURE(ms_sim_small_count(sim) + large_now == 60 + 2 + in - out);
  free(gone);
  free(here);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

/* One hash in every mode with particles entering and leaving: pipelines, buffers,
 * exchanges, thread counts, the worker's list and the large particles on the device. */
static void test_one_hash_in_every_mode(void)
{
  uint32_t first = 0;
  for (int m = 0; m < 7; m++) {
    ms_scene sc;
    ENSURE(load_file("open_flow.ini", &sc));
    sc.pipeline = m % 2 ? MS_PIPELINE_NAIVE : MS_PIPELINE_REORDERED;
    sc.buffers = m == 2 ? MS_BUFFERS_COPIED : MS_BUFFERS_SHARED;
    sc.buffers_given = 1;
    sc.exchange = m < 3 ? MS_EXCHANGE_ZONE : MS_EXCHANGE_FULL;
    sc.exchange_given = 1;
    sc.cpu_threads = 1 + m % 3;
    sc.large_on = m == 5 ? MS_LARGE_ON_DEVICE : MS_LARGE_ON_CPU;
    sc.worker_list_off = m == 4;
    ms_sim_options o = {0};
    o.diagnostics = m == 6; /* the accumulators grow with the arrays */
    ms_sim *sim = NULL;
    uint32_t h = 0;
    int ok = !ms_sim_create(&sc, &o, &sim) && !ms_sim_advance(sim, 2500) &&
             !ms_sim_advance(sim, 2321) && !ms_sim_hash(sim, &h);
    if (!ok)
      fprintf(stderr, "    %s\n", ms_error_message());
    ms_sim_destroy(sim);
    ms_scene_free(&sc);
    ENSURE(ok);
    if (m == 0)
      first = h;
    if (h != first)
      fprintf(stderr, "    mode %d: %08x, mode 0: %08x\n", m, h, first);
    ENSURE(h == first);
  }
}

/* A checkpoint in the middle of the pour (arrays grown, slots emptied and filled again)
 * resumes to the uninterrupted run: state, ids and the flows' totals. */
static void test_checkpoint_in_the_pour(void)
{
  ms_scene sc;
  ENSURE(load_file("open_flow.ini", &sc));
  ms_scene_id id;
  ENSURE(!ms_scene_identity(&sc, &id));
  char path[] = "/tmp/mixsim_open_XXXXXX";
  int fd = mkstemp(path);
  ENSURE(fd >= 0);
  close(fd);
  ms_sim *a = NULL, *b = NULL;
  ENSURE(create(&sc, &a) && advance(a, 3025));
  ENSURE(!ms_checkpoint_save(path, a, &id) && advance(a, 3000));
  ENSURE(create(&sc, &b) && !ms_checkpoint_load(path, b, &id) && advance(b, 3000));
  uint32_t ha, hb;
  ENSURE(!ms_sim_hash(a, &ha) && !ms_sim_hash(b, &hb) && ha == hb);
  ENSURE(ms_sim_next_id(a) == ms_sim_next_id(b));
  for (int k = 0; k < ms_sim_flow_count(a); k++) {
    ms_flow_info fa, fb;
    ms_sim_flow(a, k, &fa);
    ms_sim_flow(b, k, &fb);
    ENSURE(fa.total.count == fb.total.count && fa.total.mass == fb.total.mass &&
           fa.total.skipped == fb.total.skipped);
  }
  ms_state sa, sb;
  ENSURE(!ms_sim_read_state(a, &sa) && !ms_sim_read_state(b, &sb));
  ENSURE(sa.n_small == sb.n_small && sa.n_small > 60);
  ENSURE(memcmp(sa.small_id, sb.small_id, (size_t)sa.n_small * sizeof *sa.small_id) == 0);
  ms_state_free(&sa);
  ms_state_free(&sb);
  ms_sim_destroy(a);
  ms_sim_destroy(b);
  unlink(path);
  ms_scene_id_free(&id);
  ms_scene_free(&sc);
}

/* A snapshot taken before the arrays grew, restored after: the run goes on as the first
 * time (the last good state of a failed run is found so). */
static void test_snapshot_across_growth(void)
{
  ms_scene sc;
  ENSURE(load_file("open_flow.ini", &sc));
  ms_sim *sim = NULL;
  ENSURE(create(&sc, &sim) && advance(sim, 500));
  ms_snapshot *snap = NULL;
  ENSURE(!ms_snapshot_take(sim, &snap));
  ms_state before;
  ENSURE(!ms_sim_read_state(sim, &before));
  ENSURE(advance(sim, 3000));
  uint32_t first, again;
  ENSURE(!ms_sim_hash(sim, &first));
  ms_state grown;
  ENSURE(!ms_sim_read_state(sim, &grown));
  ENSURE(grown.slots > before.slots); /* the inflow outgrew the arrays in between */
  ENSURE(!ms_snapshot_restore(sim, snap) && advance(sim, 3000) && !ms_sim_hash(sim, &again));
  ENSURE(first == again);
  ms_state_free(&before);
  ms_state_free(&grown);
  ms_snapshot_free(snap);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

/* Beyond 65536 slots the arrays grow by a 64th, not by doubling: the kernels run over
 * every slot, and a doubled array would be half empty. */
static void test_growth_beyond_65536_slots(void)
{
  static const char text[] =
      "[simulation]\ndt = 1e-4\nseed = 3\ngravity = 0, 0\n[box]\nmin = 0, 0\nmax = 2, 2\n"
      "[material]\nstiffness = 100\nrestitution = 0.5\n[small]\ncount = 65536\n"
      "radius = 0.002\ndensity = 25\nregion = 0, 0, 1.5, 1.5\n[inflow.in]\n"
      "region = 1.6, 1.6, 1.9, 1.9\nrate = 50000\nradius = 0.002\ndensity = 25\n";
  ms_scene sc;
  ENSURE(!ms_scene_load_string(text, "grow.ini", &sc));
  ms_sim *sim = NULL;
  ENSURE(create(&sc, &sim) && advance(sim, 11)); /* one exchange, at step 10: 50 owed */
  ms_state st;
  ENSURE(!ms_sim_read_state(sim, &st));
  ENSURE(ms_sim_small_count(sim) == 65536 + 50);
  ENSURE(st.slots == 65536 + 65536 / 64);
  ms_state_free(&st);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2)
    snprintf(root, sizeof root, "%s", argv[2]);
  RUN_TEST(test_inflow_keeps_its_rate, filter);
  RUN_TEST(test_newcomers_never_overlap, filter);
  RUN_TEST(test_removed_ids_never_return, filter);
  RUN_TEST(test_one_hash_in_every_mode, filter);
  RUN_TEST(test_checkpoint_in_the_pour, filter);
  RUN_TEST(test_snapshot_across_growth, filter);
  RUN_TEST(test_growth_beyond_65536_slots, filter);
  return TEST_EXIT();
}
