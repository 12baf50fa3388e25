/* What the preview needs from the simulation: moving a large particle by hand (the mouse
 * drag), which every pipeline and buffer mode follow alike, and the phase events of the
 * last advance, which the timing bar draws. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mixsim/mixsim.h"
#include "collision/sim_internal.h"

static const char *filter;
static char tiny[1200];

static ms_sim *open_tiny(ms_pipeline p, ms_buffer_mode b)
{
  ms_scene sc;
  if (ms_scene_load(tiny, &sc)) {
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

static void test_move_large_sets_position_and_stops_it(void)
{
  ms_sim *sim = open_tiny(MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED);
  ENSURE(sim);
  ms_state st;
  int ok = ms_sim_advance(sim, 50) == MS_OK && ms_sim_move_large(sim, 2, 0.1f, 0.25f) == MS_OK &&
           ms_sim_read_state(sim, &st) == MS_OK;
  ms_sim_destroy(sim);
  ENSURE(ok);
  printf("    large 2 at (%g, %g), velocity (%g, %g)\n", st.large_pos[4], st.large_pos[5],
         st.large_vel[4], st.large_vel[5]);
  ok = st.large_pos[4] == 0.1f && st.large_pos[5] == 0.25f && st.large_vel[4] == 0.0f &&
       st.large_vel[5] == 0.0f;
  ms_state_free(&st);
  ENSURE(ok);
}

/* Advance, move a falling rock into the bed, advance: the hash. */
static int moved_hash(ms_pipeline p, ms_buffer_mode b, int move, uint32_t *hash)
{
  ms_sim *sim = open_tiny(p, b);
  if (!sim)
    return -1;
  int rc = ms_sim_advance(sim, 40) ? -1 : 0;
  if (!rc && move)
    rc = ms_sim_move_large(sim, 3, 0.08f, 0.11f) ? -1 : 0;
  if (!rc)
    rc = ms_sim_advance(sim, 60) || ms_sim_hash(sim, hash) ? -1 : 0;
  ms_sim_destroy(sim);
  return rc;
}

static void test_move_large_same_hash_every_mode(void)
{
  uint32_t h[4], unmoved;
  int i = 0;
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 2; b++, i++)
      ENSURE(moved_hash((ms_pipeline)p, (ms_buffer_mode)b, 1, &h[i]) == 0);
  ENSURE(moved_hash(MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED, 0, &unmoved) == 0);
  printf("    moved: %08x %08x %08x %08x, not moved: %08x\n", h[0], h[1], h[2], h[3], unmoved);
  ENSURE(h[0] == h[1] && h[1] == h[2] && h[2] == h[3]);
  ENSURE(h[0] != unmoved);
}

static void test_move_large_refuses_bad_input(void)
{
  ms_sim *sim = open_tiny(MS_PIPELINE_REORDERED, MS_BUFFERS_SHARED);
  ENSURE(sim);
  int n = ms_sim_get_stats(sim)->iterations == 0;
  ms_status a = ms_sim_move_large(sim, 5, 0.1f, 0.1f);  /* tiny.ini has 5: 0..4 */
  ms_status b = ms_sim_move_large(sim, -1, 0.1f, 0.1f);
  ms_status c = ms_sim_move_large(sim, 0, NAN, 0.1f);
  ms_sim_destroy(sim);
  ms_error_clear();
  ENSURE(n && a == MS_ERR_INPUT && b == MS_ERR_INPUT && c == MS_ERR_INPUT);
}

static int count(const ms_trace_event *ev, int n, ms_thread_id th, ms_phase p)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    k += ev[i].thread == th && ev[i].phase == p;
  return k;
}

static ms_trace_event events[2 * MS_TRACE_RING];

static void test_trace_events_of_last_advance(void)
{
  ms_sim *sim = open_tiny(MS_PIPELINE_NAIVE, MS_BUFFERS_SHARED);
  ENSURE(sim);
  int ok = ms_sim_advance(sim, 10) == MS_OK && ms_sim_advance(sim, 3) == MS_OK;
  const ms_trace *t = &sim->run.trace;
  int n = ok ? ms_trace_last_advance(t, events, 2 * MS_TRACE_RING) : 0;
  int ordered = 1;
  for (int i = 0; i < n; i++) {
    ordered &= events[i].t0 <= events[i].t1 && events[i].t0 >= t->advance_t0;
    if (i > 0 && events[i].thread == events[i - 1].thread)
      ordered &= events[i].t0 >= events[i - 1].t1;
  }
  /* naive: GPU 7 events an iteration (the grid build's enqueues, its wait for the kernels
   * before it, its own wait; sync 1, small-small, sync 2, integrate), CPU 7 */
  printf("    %d events; %d GPU sync-2 waits, %d CPU large-small\n", n,
         count(events, n, MS_THREAD_GPU, MS_PHASE_WAIT_SYNC2),
         count(events, n, MS_THREAD_CPU, MS_PHASE_LARGE_SMALL));
  int shape = n == 3 * (7 + 7) && count(events, n, MS_THREAD_GPU, MS_PHASE_WAIT_SYNC2) == 3 &&
              count(events, n, MS_THREAD_CPU, MS_PHASE_LARGE_SMALL) == 3;
  /* An advance longer than the ring keeps its newest events. */
  ok = ok && ms_sim_advance(sim, MS_TRACE_RING / 5 + 10) == MS_OK;
  int n_long = ok ? ms_trace_last_advance(t, events, 2 * MS_TRACE_RING) : 0;
  double newest = 0.0;
  for (int i = 0; i < n_long; i++)
    newest = events[i].t1 > newest ? events[i].t1 : newest;
  int wrapped = n_long == 2 * MS_TRACE_RING && newest > t->advance_t0;
  ms_sim_destroy(sim);
  ENSURE(ok);
  ENSURE(ordered);
  ENSURE(shape);
  ENSURE(wrapped);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  const char *root = argc > 2 ? argv[2] : ".";
  snprintf(tiny, sizeof tiny, "%s/tests/scenes/tiny.ini", root);
  RUN_TEST(test_move_large_sets_position_and_stops_it, filter);
  RUN_TEST(test_move_large_same_hash_every_mode, filter);
  RUN_TEST(test_move_large_refuses_bad_input, filter);
  RUN_TEST(test_trace_events_of_last_advance, filter);
  return TEST_EXIT();
}
