/* The tuner of automatic choices without a device (collision/tuner.h): the candidates are
 * the product of the axes given as auto, a "does not matter" rule collapses them, the
 * batch length follows the run's length, the schedule warms every candidate up and then
 * interleaves them with the start rotating, the warm-up is discarded, the lowest median
 * wins, batches split over several advances add up, and a run too short to tune keeps
 * the simulation's own values. Timings here are made up: nothing is timed. */
#include <stdio.h>
#include <string.h>

#include "collision/tuner.h"
#include "harness.h"

static const char *filter;

/* Indices of the two axes mixsim has, by name, so the test does not depend on order. */
static int axis(const char *name)
{
  int n = 0;
  const ms_tune_axis *a = ms_tune_axes(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(a[i].name, name) == 0)
      return i;
  return -1;
}

static int has(const ms_tune_candidate *c, int n, int buffers, int exchange)
{
  int b = axis("buffers"), e = axis("exchange");
  for (int i = 0; i < n; i++)
    if (c[i].value[b] == buffers && c[i].value[e] == exchange)
      return 1;
  return 0;
}

static void base_values(int *base, ms_buffer_mode b, ms_exchange e)
{
  memset(base, 0, MS_TUNE_AXES_MAX * sizeof *base);
  base[axis("buffers")] = (int)b;
  base[axis("exchange")] = (int)e;
}

static void test_axes_table_has_buffers_and_exchange(void)
{
  int n = 0;
  const ms_tune_axis *a = ms_tune_axes(&n);
  ENSURE(n >= 2 && n <= MS_TUNE_AXES_MAX);
  ENSURE(axis("buffers") >= 0 && axis("exchange") >= 0);
  const ms_tune_axis *b = &a[axis("buffers")], *e = &a[axis("exchange")];
  ENSURE(b->n_values == 2 && strcmp(b->value_name(MS_BUFFERS_COPIED), "copied") == 0);
  ENSURE(e->n_values == 2 && strcmp(e->value_name(MS_EXCHANGE_ZONE), "zone") == 0);
}

static void test_candidates_are_the_product_of_the_auto_axes(void)
{
  int n = 0;
  const ms_tune_axis *a = ms_tune_axes(&n);
  int base[MS_TUNE_AXES_MAX], is_auto[MS_TUNE_AXES_MAX] = {0};
  ms_tune_candidate c[MS_TUNE_CANDIDATES_MAX];
  base_values(base, MS_BUFFERS_COPIED, MS_EXCHANGE_FULL);
  is_auto[axis("buffers")] = is_auto[axis("exchange")] = 1;
  int k = ms_tune_candidates(a, n, NULL, 0, is_auto, base, c, MS_TUNE_CANDIDATES_MAX);
  ENSURE(k == 4);
  ENSURE(has(c, k, MS_BUFFERS_SHARED, MS_EXCHANGE_ZONE) && has(c, k, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL));
  ENSURE(has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_ZONE) && has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_FULL));
  /* one axis auto: the other stays at the simulation's value */
  is_auto[axis("buffers")] = 0;
  k = ms_tune_candidates(a, n, NULL, 0, is_auto, base, c, MS_TUNE_CANDIDATES_MAX);
  ENSURE(k == 2 && has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_ZONE) &&
         has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_FULL));
}

/* "When exchange is zone, buffers do not matter" (a made-up rule: mixsim's real one is
 * large_on = device): the two zone candidates become one, at the simulation's buffers. */
static void test_moot_rule_collapses_candidates(void)
{
  int n = 0;
  const ms_tune_axis *a = ms_tune_axes(&n);
  int base[MS_TUNE_AXES_MAX], is_auto[MS_TUNE_AXES_MAX] = {0};
  ms_tune_candidate c[MS_TUNE_CANDIDATES_MAX];
  base_values(base, MS_BUFFERS_COPIED, MS_EXCHANGE_FULL);
  is_auto[axis("buffers")] = is_auto[axis("exchange")] = 1;
  const ms_tune_moot rules[] = {{"exchange", MS_EXCHANGE_ZONE, "buffers"},
                                {"large_on", 1, "exchange"}}; /* no such axis: no effect */
  int k = ms_tune_candidates(a, n, rules, 2, is_auto, base, c, MS_TUNE_CANDIDATES_MAX);
  ENSURE(k == 3);
  ENSURE(has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_ZONE));
  ENSURE(!has(c, k, MS_BUFFERS_SHARED, MS_EXCHANGE_ZONE));
  ENSURE(has(c, k, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL) && has(c, k, MS_BUFFERS_COPIED, MS_EXCHANGE_FULL));
  /* The plan uses the rules too, and the too-short fallback is still a candidate. */
  ms_tuner t;
  ms_tuner_plan(&t, a, n, rules, 2, is_auto, base, 10, 3);
  ENSURE(t.n_cand == 3 && t.outcome == MS_TUNE_TOO_SHORT);
  ENSURE(t.chosen >= 0 && t.cand[t.chosen].value[axis("buffers")] == MS_BUFFERS_COPIED &&
         t.cand[t.chosen].value[axis("exchange")] == MS_EXCHANGE_FULL);
}

static void test_batch_length_follows_the_run(void)
{
  ENSURE(ms_tune_batch(2000, 4, 3) == 12); /* 2000 / (10 * 4 * 4) */
  ENSURE(ms_tune_batch(2000, 2, 3) == 25);
  ENSURE(ms_tune_batch(10000000, 2, 3) == MS_TUNE_BATCH_MAX);
  ENSURE(ms_tune_batch(50, 2, 3) == MS_TUNE_BATCH_MIN);
}

static void plan_two_axes(ms_tuner *t, long total, int rounds)
{
  int n = 0;
  const ms_tune_axis *a = ms_tune_axes(&n);
  int base[MS_TUNE_AXES_MAX], is_auto[MS_TUNE_AXES_MAX] = {0};
  base_values(base, MS_BUFFERS_SHARED, MS_EXCHANGE_FULL);
  is_auto[axis("buffers")] = is_auto[axis("exchange")] = 1;
  ms_tuner_plan(t, a, n, NULL, 0, is_auto, base, total, rounds);
}

/* Runs slot after slot at 1 ms/iteration for every candidate; first[round] is the
 * candidate of the round's first slot, seen[round][c] counts c's slots in the round. */
static void run_flat(ms_tuner *t, int first[4], int seen[4][4])
{
  while (t->outcome == MS_TUNE_PENDING) {
    int slot = t->slot, round = slot / t->n_cand;
    long want = 0;
    int c = ms_tuner_next(t, &want);
    ENSURE(c >= 0 && c < 4 && want > 0 && want <= t->batch);
    if (slot % t->n_cand == 0)
      first[round] = c;
    while (t->slot == slot && t->outcome == MS_TUNE_PENDING) {
      ENSURE(ms_tuner_next(t, &want) == c);
      ms_tuner_record(t, want, 1e-3 * (double)want);
    }
    seen[round][c]++;
  }
}

/* Every round runs each candidate once; the warm-up starts with the simulation's own
 * values and each round one candidate later, so no candidate is always first after a
 * switch. */
static void test_schedule_interleaves_with_rotating_start(void)
{
  ms_tuner t;
  plan_two_axes(&t, 100000, 3);
  ENSURE(t.n_cand == 4 && t.outcome == MS_TUNE_PENDING && t.batch == MS_TUNE_BATCH_MAX);
  int first[4] = {-1, -1, -1, -1}, seen[4][4] = {{0}}, seen_first[4] = {0};
  run_flat(&t, first, seen);
  for (int round = 0; round <= 3; round++)
    for (int c = 0; c < 4; c++)
      ENSURE(seen[round][c] == 1);
  ENSURE(t.cand[first[0]].value[axis("buffers")] == MS_BUFFERS_SHARED &&
         t.cand[first[0]].value[axis("exchange")] == MS_EXCHANGE_FULL);
  for (int round = 0; round <= 3; round++)
    seen_first[first[round]]++;
  for (int c = 0; c < 4; c++)
    ENSURE(seen_first[c] == 1);
  ENSURE(t.outcome == MS_TUNE_CHOSEN && t.spent == t.needed);
  long want = 0;
  ENSURE(ms_tuner_next(&t, &want) == -1);
}

/* Made-up times in ms/iteration per candidate and round, warm-up first: candidate 2 is
 * the slowest in the warm-up (discarded; under MS_TUNE_WARM_CUT times the others, so not
 * cut) and has one slow round, but the lowest median;
 * every round of every candidate within MS_TUNE_DROP of the fastest, so none is dropped. */
static const double g_times[4][4] = {
  {0.9, 0.48, 0.52, 0.51},
  {0.9, 0.52, 0.40, 0.61},
  {2.5, 0.42, 0.95, 0.32},
  {0.9, 0.45, 0.44, 0.46},
};

/* Candidate 1 is over MS_TUNE_DROP_FIRST times the fastest in round 1 (though fast later),
 * candidate 3 over MS_TUNE_DROP by the end of round 2: each runs no batch after that round.
 * Candidate 2's first round is 1.5 times the fastest, a round a switch inflated: it stays,
 * and wins. */
static const double g_drop_times[4][4] = {
  {0.9, 0.50, 0.45, 0.50},
  {0.9, 1.20, 0.30, 0.30},
  {0.9, 0.75, 0.46, 0.47},
  {0.9, 0.62, 0.70, 0.70},
};

/* Runs the schedule with the times of `times`; ran[c][round] counts candidate c's batches
 * (whole or cut). */
static void run_times(ms_tuner *t, long piece, const double times[4][4], int ran[4][4])
{
  int last = -1;
  while (t->outcome == MS_TUNE_PENDING) {
    long want = 0;
    int c = ms_tuner_next(t, &want), round = t->slot / t->n_cand;
    if (ran && t->slot != last)
      ran[c][round]++;
    last = t->slot;
    for (long done = 0; done < want; done += piece) {
      long n = piece < want - done ? piece : want - done;
      ms_tuner_record(t, n, 1e-3 * times[c][round] * (double)n);
    }
  }
}

static void run_schedule(ms_tuner *t, long piece) { run_times(t, piece, g_times, NULL); }

static void test_warmup_discarded_lowest_median_wins(void)
{
  ms_tuner t;
  plan_two_axes(&t, 2000, 3);
  run_schedule(&t, t.batch);
  ENSURE(t.outcome == MS_TUNE_CHOSEN && t.chosen == 2);
  const ms_tune_candidate *k = &t.cand[2];
  ENSURE(k->timed == 3);
  ENSURE_SMALL(k->median - 0.42, 1e-9);
  ENSURE_SMALL(k->min - 0.32, 1e-9);
  ENSURE_SMALL(k->max - 0.95, 1e-9);
  ENSURE_SMALL(t.cand[1].median - 0.52, 1e-9);
  ENSURE_SMALL(t.cand[0].ms_per_it[0] - 0.48, 1e-9); /* round 1, not the warm-up */
  for (int c = 0; c < 4; c++)
    ENSURE(t.cand[c].timed == 3 && !t.cand[c].dropped);
  ENSURE(t.spent == t.needed);
}

/* A candidate clearly slower than the fastest after a round runs no more batches, is
 * never chosen, and keeps the rounds it ran; the schedule takes fewer iterations. */
static void test_slow_candidates_dropped(void)
{
  ms_tuner t;
  int ran[4][4] = {{0}};
  plan_two_axes(&t, 2000, 3);
  run_times(&t, t.batch, g_drop_times, ran);
  ENSURE(t.outcome == MS_TUNE_CHOSEN && t.chosen == 2);
  ENSURE(t.cand[1].dropped == 1 && t.cand[1].timed == 1);
  ENSURE(ran[1][0] == 1 && ran[1][1] == 1 && ran[1][2] == 0 && ran[1][3] == 0);
  ENSURE(t.cand[3].dropped == 2 && t.cand[3].timed == 2 && ran[3][3] == 0);
  ENSURE(!t.cand[0].dropped && !t.cand[2].dropped);
  for (int r = 0; r < 4; r++)
    ENSURE(ran[0][r] == 1 && ran[2][r] == 1);
  ENSURE_SMALL(t.cand[0].median - 0.50, 1e-9);
  ENSURE_SMALL(t.cand[2].median - 0.47, 1e-9);
  ENSURE_SMALL(t.cand[3].median - 0.66, 1e-9); /* over its two rounds */
  ENSURE(t.spent == 13 * t.batch && t.spent < t.needed);
}

/* Candidate 0 (shared/zone) runs 4 times slower than the simulation's own (shared/full,
 * whose warm-up comes first): it is cut after the first piece of its warm-up, never timed,
 * never chosen. */
static const double g_warm_times[4][4] = {
  {2.0, 2.0, 2.0, 2.0},
  {0.5, 0.50, 0.50, 0.50},
  {0.6, 0.55, 0.55, 0.55},
  {0.6, 0.45, 0.45, 0.45},
};

static void test_far_slower_warmup_cut(void)
{
  ms_tuner t;
  int ran[4][4] = {{0}};
  plan_two_axes(&t, 16000, 3); /* batch 100, warm-up pieces of 13 */
  ENSURE(t.batch == 100 && t.first == 1);
  long want = 0;
  ENSURE(ms_tuner_next(&t, &want) == 1 && want == 100); /* the first warm-up is whole */
  run_times(&t, t.batch, g_warm_times, ran);
  ENSURE(t.outcome == MS_TUNE_CHOSEN && t.chosen == 3);
  ENSURE(t.cand[0].dropped == -1 && t.cand[0].timed == 0 && ran[0][0] == 1);
  for (int r = 1; r < 4; r++)
    ENSURE(ran[0][r] == 0 && ran[1][r] == 1 && ran[2][r] == 1 && ran[3][r] == 1);
  ENSURE_SMALL(t.cand[0].warm_ms - 2.0, 1e-9);
  ENSURE_SMALL(t.warm_best - 0.5, 1e-9);
  /* the cut warm-up's two pieces, three whole warm-ups and three rounds of three */
  ENSURE(t.spent == 2 * 13 + 3 * 100 + 9 * 100);

  /* A slow first piece alone (a switch, a kernel's first launch) cuts nothing. */
  plan_two_axes(&t, 16000, 3);
  int c = ms_tuner_next(&t, &want);
  ms_tuner_record(&t, want, 0.5e-3 * (double)want); /* the first warm-up, whole */
  c = ms_tuner_next(&t, &want);
  ENSURE(want == 13);
  ms_tuner_record(&t, want, 20e-3 * (double)want);
  ENSURE(ms_tuner_next(&t, &want) == c && want == 13);
  ms_tuner_record(&t, want, 0.5e-3 * (double)want);
  ENSURE(ms_tuner_next(&t, &want) == c && !t.cand[c].dropped);
}

/* A batch cut into several advances (a checkpoint or a frame fell inside it) is booked
 * whole: the same times and the same choice as in one advance each. */
static void test_split_batches_add_up(void)
{
  ms_tuner whole, split;
  plan_two_axes(&whole, 2000, 3);
  plan_two_axes(&split, 2000, 3);
  run_schedule(&whole, whole.batch);
  run_schedule(&split, 5);
  ENSURE(split.outcome == MS_TUNE_CHOSEN && split.chosen == whole.chosen);
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 3; r++)
      ENSURE_SMALL(split.cand[c].ms_per_it[r] - whole.cand[c].ms_per_it[r], 1e-9);
  ENSURE(whole.needed == 4L * 4 * whole.batch && whole.needed <= 2000 / MS_TUNE_SHARE);
}

/* Shorter than a tenth of the run can time with batches of the minimum length: nothing
 * is timed, and the simulation's own values are the ones kept. */
static void test_too_short_keeps_the_simulation_values(void)
{
  ms_tuner t;
  long shortest = (long)MS_TUNE_SHARE * 4 * (3 + 1) * MS_TUNE_BATCH_MIN;
  plan_two_axes(&t, shortest - 1, 3);
  ENSURE(t.outcome == MS_TUNE_TOO_SHORT && t.shortest == shortest);
  long want = 0;
  ENSURE(ms_tuner_next(&t, &want) == -1);
  ENSURE(t.chosen >= 0 && t.cand[t.chosen].value[axis("buffers")] == MS_BUFFERS_SHARED &&
         t.cand[t.chosen].value[axis("exchange")] == MS_EXCHANGE_FULL);
  plan_two_axes(&t, shortest, 3);
  ENSURE(t.outcome == MS_TUNE_PENDING && t.batch == MS_TUNE_BATCH_MIN);
  plan_two_axes(&t, 0, 3); /* --steps 0 */
  ENSURE(t.outcome == MS_TUNE_TOO_SHORT);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_axes_table_has_buffers_and_exchange, filter);
  RUN_TEST(test_candidates_are_the_product_of_the_auto_axes, filter);
  RUN_TEST(test_moot_rule_collapses_candidates, filter);
  RUN_TEST(test_batch_length_follows_the_run, filter);
  RUN_TEST(test_schedule_interleaves_with_rotating_start, filter);
  RUN_TEST(test_warmup_discarded_lowest_median_wins, filter);
  RUN_TEST(test_slow_candidates_dropped, filter);
  RUN_TEST(test_far_slower_warmup_cut, filter);
  RUN_TEST(test_split_batches_add_up, filter);
  RUN_TEST(test_too_short_keeps_the_simulation_values, filter);
  return TEST_EXIT();
}
