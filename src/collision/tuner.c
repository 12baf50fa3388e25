/* Automatic choices: the table of axes the tuner can choose, the candidates, the
 * interleaved schedule of timed batches and the choice (collision/tuner.h says how). */
#include "collision/tuner.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the axes ------------------------------------------------------------------------ */

static int buffers_auto(const ms_scene *sc) { return sc->buffers_auto != 0; }
static int buffers_get(const ms_sim *s) { return (int)ms_sim_buffers(s); }
/* Remakes the buffers: ms_tuner_before does it, outside the timed advance. */
static ms_status buffers_set(ms_sim *s, int v) { return ms_sim_set_buffers(s, (ms_buffer_mode)v); }
static const char *buffers_name(int v) { return ms_buffer_mode_name((ms_buffer_mode)v); }

static int exchange_auto(const ms_scene *sc) { return sc->exchange_auto != 0; }
static int exchange_get(const ms_sim *s) { return (int)ms_sim_exchange(s); }
static ms_status exchange_set(ms_sim *s, int v)
{
  ms_sim_set_exchange(s, (ms_exchange)v);
  return MS_OK;
}
static const char *exchange_name(int v) { return ms_exchange_name((ms_exchange)v); }

static int large_on_auto(const ms_scene *sc) { return sc->large_on_auto != 0; }
static int large_on_get(const ms_sim *s) { return (int)ms_sim_large_on(s); }
static ms_status large_on_set(ms_sim *s, int v)
{
  return ms_sim_set_large_on(s, (ms_large_on)v);
}
static const char *large_on_name(int v) { return ms_large_on_name((ms_large_on)v); }

/* One entry per choice; the candidates are the product of those given as auto. */
static const ms_tune_axis g_axes[] = {
  {"buffers", 2, {MS_BUFFERS_SHARED, MS_BUFFERS_COPIED}, buffers_auto, buffers_get, buffers_set,
   buffers_name},
  {"exchange", 2, {MS_EXCHANGE_ZONE, MS_EXCHANGE_FULL}, exchange_auto, exchange_get,
   exchange_set, exchange_name},
  {"large_on", 2, {MS_LARGE_ON_CPU, MS_LARGE_ON_DEVICE}, large_on_auto, large_on_get,
   large_on_set, large_on_name},
};
#define N_AXES ((int)(sizeof g_axes / sizeof g_axes[0]))

_Static_assert(N_AXES <= MS_TUNE_AXES_MAX, "raise MS_TUNE_AXES_MAX");

/* "When axis A has value X, axis B does not matter": with the large particles on the
 * device the worker exchanges nothing. The NULL entry only ends the list. */
static const ms_tune_moot g_moot[] = {
  {"large_on", MS_LARGE_ON_DEVICE, "buffers"},
  {"large_on", MS_LARGE_ON_DEVICE, "exchange"},
  {NULL, 0, NULL},
};
#define N_MOOT ((int)(sizeof g_moot / sizeof g_moot[0]) - 1)

const ms_tune_axis *ms_tune_axes(int *n_axes)
{
  *n_axes = N_AXES;
  return g_axes;
}

/* ---- candidates ---------------------------------------------------------------------- */

static int axis_index(const ms_tune_axis *axes, int n_axes, const char *name)
{
  for (int a = 0; name && a < n_axes; a++)
    if (strcmp(axes[a].name, name) == 0)
      return a;
  return -1;
}

/* The moot rules in table order, each once: a rule whose axes are not in the table has
 * nothing to say. */
static void apply_moot(const ms_tune_axis *axes, int n_axes, const ms_tune_moot *moot,
                       int n_moot, const int *base, int *value)
{
  for (int r = 0; r < n_moot; r++) {
    int when = axis_index(axes, n_axes, moot[r].when);
    int what = axis_index(axes, n_axes, moot[r].moot);
    if (when >= 0 && what >= 0 && value[when] == moot[r].value)
      value[what] = base[what];
  }
}

static int known(const ms_tune_candidate *c, int n, const int *value, int n_axes)
{
  for (int i = 0; i < n; i++)
    if (memcmp(c[i].value, value, (size_t)n_axes * sizeof *value) == 0)
      return 1;
  return 0;
}

int ms_tune_candidates(const ms_tune_axis *axes, int n_axes, const ms_tune_moot *moot,
                       int n_moot, const int *is_auto, const int *base,
                       ms_tune_candidate *out, int max)
{
  long combos = 1;
  for (int a = 0; a < n_axes; a++)
    combos *= is_auto[a] ? axes[a].n_values : 1;
  int n = 0;
  for (long k = 0; k < combos && n < max; k++) {
    int value[MS_TUNE_AXES_MAX] = {0};
    long rest = k;
    for (int a = n_axes - 1; a >= 0; a--) { /* the last axis varies fastest */
      int nv = is_auto[a] ? axes[a].n_values : 1;
      value[a] = is_auto[a] ? axes[a].values[rest % nv] : base[a];
      rest /= nv;
    }
    apply_moot(axes, n_axes, moot, n_moot, base, value);
    if (known(out, n, value, n_axes))
      continue;
    memset(&out[n], 0, sizeof out[n]);
    memcpy(out[n].value, value, sizeof value);
    n++;
  }
  return n;
}

/* ---- the schedule -------------------------------------------------------------------- */

long ms_tune_batch(long total, int n_cand, int rounds)
{
  long per = (long)MS_TUNE_SHARE * n_cand * (rounds + 1);
  long b = per > 0 ? total / per : 0;
  return b < MS_TUNE_BATCH_MIN ? MS_TUNE_BATCH_MIN : b > MS_TUNE_BATCH_MAX ? MS_TUNE_BATCH_MAX : b;
}

static int find_base(const ms_tuner *t)
{
  for (int c = 0; c < t->n_cand; c++)
    if (memcmp(t->cand[c].value, t->base, (size_t)t->n_axes * sizeof *t->base) == 0)
      return c;
  return -1;
}

void ms_tuner_plan(ms_tuner *t, const ms_tune_axis *axes, int n_axes, const ms_tune_moot *moot,
                   int n_moot, const int *is_auto, const int *base, long total, int rounds)
{
  memset(t, 0, sizeof *t);
  t->axes = axes;
  t->n_axes = n_axes < MS_TUNE_AXES_MAX ? n_axes : MS_TUNE_AXES_MAX;
  memcpy(t->is_auto, is_auto, (size_t)t->n_axes * sizeof *is_auto);
  memcpy(t->base, base, (size_t)t->n_axes * sizeof *base);
  t->n_cand = ms_tune_candidates(axes, t->n_axes, moot, n_moot, is_auto, base, t->cand,
                                 MS_TUNE_CANDIDATES_MAX);
  t->rounds = rounds < 1 ? 1 : rounds > MS_TUNE_ROUNDS_MAX ? MS_TUNE_ROUNDS_MAX : rounds;
  t->total = total;
  t->batch = ms_tune_batch(total, t->n_cand, t->rounds);
  t->needed = (long)t->n_cand * (t->rounds + 1) * t->batch;
  t->shortest = (long)MS_TUNE_SHARE * t->n_cand * (t->rounds + 1) * MS_TUNE_BATCH_MIN;
  int own = find_base(t);
  t->chosen = -1;
  t->first = own > 0 ? own : 0;
  if (total < t->shortest) {
    t->outcome = MS_TUNE_TOO_SHORT;
    t->chosen = own;
  }
}

/* Slot s of the schedule: warm-up (round 0, from `first`) then the timed rounds, each
 * round starting one candidate later than the one before. */
static int slot_candidate(const ms_tuner *t, int s)
{
  int round = s / t->n_cand, pos = s % t->n_cand;
  return (pos + round + t->first) % t->n_cand;
}

/* A warm-up after the first runs in pieces, so that a far slower one can be cut early. */
static int warm_in_pieces(const ms_tuner *t) { return t->slot < t->n_cand && t->warm_best > 0.0; }

int ms_tuner_next(const ms_tuner *t, long *iterations)
{
  if (t->outcome != MS_TUNE_PENDING || t->n_cand == 0)
    return -1;
  long left = t->batch - t->batch_it;
  long piece = (t->batch + MS_TUNE_WARM_PIECES - 1) / MS_TUNE_WARM_PIECES;
  *iterations = warm_in_pieces(t) && piece < left ? piece : left;
  return slot_candidate(t, t->slot);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Medians and ranges over each candidate's timed rounds; the lowest median of those kept
 * to the end wins, the earlier candidate on a tie. */
static void choose(ms_tuner *t)
{
  for (int c = 0; c < t->n_cand; c++) {
    ms_tune_candidate *k = &t->cand[c];
    int n = k->timed;
    if (n == 0) /* cut in its warm-up */
      continue;
    double v[MS_TUNE_ROUNDS_MAX];
    memcpy(v, k->ms_per_it, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    k->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    k->min = v[0];
    k->max = v[n - 1];
    if (!k->dropped && (t->chosen < 0 || k->median < t->cand[t->chosen].median))
      t->chosen = c;
  }
  t->outcome = MS_TUNE_CHOSEN;
}

static double fastest_round(const ms_tune_candidate *k)
{
  double m = k->ms_per_it[0];
  for (int r = 1; r < k->timed; r++)
    m = k->ms_per_it[r] < m ? k->ms_per_it[r] : m;
  return m;
}

/* After timed round `round`: drops the candidates whose fastest round is slower than
 * MS_TUNE_DROP (after the first, MS_TUNE_DROP_FIRST) times the fastest of all (the fastest
 * candidate itself never is). */
static void drop_slow(ms_tuner *t, int round)
{
  double factor = round == 1 ? MS_TUNE_DROP_FIRST : MS_TUNE_DROP, best = 0.0;
  for (int c = 0; c < t->n_cand; c++) {
    const ms_tune_candidate *k = &t->cand[c];
    if (!k->dropped && (best == 0.0 || fastest_round(k) < best))
      best = fastest_round(k);
  }
  for (int c = 0; c < t->n_cand; c++) {
    ms_tune_candidate *k = &t->cand[c];
    if (!k->dropped && fastest_round(k) > factor * best)
      k->dropped = round;
  }
}

/* The slot after the current one whose candidate is still in, dropping the slow after
 * each timed round but the last; the choice when none is left. */
static void next_slot(ms_tuner *t)
{
  int end = t->n_cand * (t->rounds + 1);
  t->batch_it = 0;
  t->batch_s = 0.0;
  do {
    if (++t->slot % t->n_cand == 0 && t->slot / t->n_cand > 1 && t->slot < end)
      drop_slow(t, t->slot / t->n_cand - 1);
  } while (t->slot < end && t->cand[slot_candidate(t, t->slot)].dropped);
  if (t->slot == end)
    choose(t);
}

void ms_tuner_record(ms_tuner *t, long iterations, double seconds)
{
  if (t->outcome != MS_TUNE_PENDING || t->n_cand == 0 || iterations <= 0)
    return;
  t->batch_it += iterations;
  t->batch_s += seconds;
  t->spent += iterations;
  int round = t->slot / t->n_cand;
  ms_tune_candidate *k = &t->cand[slot_candidate(t, t->slot)];
  double ms = 1e3 * t->batch_s / (double)t->batch_it;
  /* A piece after the first (which bears the switch and any first use) judges the cut. */
  int later = t->batch_it > iterations;
  if (round == 0 && warm_in_pieces(t) && later &&
      1e3 * seconds / (double)iterations > MS_TUNE_WARM_CUT * t->warm_best) {
    k->warm_ms = ms;
    k->dropped = -1;
    next_slot(t);
    return;
  }
  if (t->batch_it < t->batch)
    return;
  if (round == 0) { /* the warm-up: kept only as the reference for cutting the others */
    k->warm_ms = ms;
    t->warm_best = t->warm_best > 0.0 && t->warm_best < ms ? t->warm_best : ms;
  } else {
    k->ms_per_it[round - 1] = ms;
    k->timed = round;
  }
  next_slot(t);
}

/* ---- on a simulation ----------------------------------------------------------------- */

ms_status ms_tuner_create(const ms_scene *sc, ms_sim *sim, long total, ms_tuner **out)
{
  *out = NULL;
  int is_auto[MS_TUNE_AXES_MAX] = {0}, base[MS_TUNE_AXES_MAX] = {0}, any = 0;
  const ms_tune_axis *axes = g_axes;
  for (int a = 0; a < N_AXES; a++) {
    is_auto[a] = axes[a].given_auto(sc);
    base[a] = axes[a].get(sim);
    any |= is_auto[a];
  }
  if (!any)
    return MS_OK;
  ms_tuner *t = malloc(sizeof *t);
  if (!t)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  ms_tuner_plan(t, axes, N_AXES, g_moot, N_MOOT, is_auto, base, total, MS_TUNE_ROUNDS);
  *out = t;
  return MS_OK;
}

void ms_tuner_destroy(ms_tuner *t) { free(t); }

/* Sets the axes whose value differs from the simulation's. */
static ms_status apply(const ms_tuner *t, ms_sim *sim, int c)
{
  for (int a = 0; a < t->n_axes; a++) {
    int v = t->cand[c].value[a];
    ms_status st = t->axes[a].get(sim) == v ? MS_OK : t->axes[a].set(sim, v);
    if (st)
      return st;
  }
  return MS_OK;
}

ms_status ms_tuner_before(ms_tuner *t, ms_sim *sim, long *iterations)
{
  long want = 0;
  int c = ms_tuner_next(t, &want);
  *iterations = LONG_MAX;
  if (c >= 0) {
    *iterations = want;
    return apply(t, sim, c);
  }
  if (t->applied || t->chosen < 0)
    return MS_OK;
  t->applied = 1;
  return apply(t, sim, t->chosen);
}

void ms_tuner_after(ms_tuner *t, long iterations, double seconds)
{
  ms_tuner_record(t, iterations, seconds);
}

int ms_tuner_busy(const ms_tuner *t) { return t && t->outcome == MS_TUNE_PENDING; }

const char *ms_tuner_value_name(const ms_tuner *t, int c, int a)
{
  return t->axes[a].value_name(t->cand[c].value[a]);
}
