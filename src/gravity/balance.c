/* The planner and controller of the multi-device split (gravity/balance.h): pure
 * arithmetic on measured figures, so that the tests can drive it without a device. */
#include "gravity/balance.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BIG 1e30

static int bits(unsigned m)
{
  int k = 0;
  for (; m; m &= m - 1)
    k++;
  return k;
}

unsigned ms_balance_mask(int n_dev, const int *units)
{
  unsigned m = 0;
  for (int i = 0; i < n_dev; i++)
    if (units[i] > 0)
      m |= 1u << i;
  return m;
}

static double overhead(const ms_balance_input *in, int i, int k)
{
  return in->fixed_s[i] + (k > 1 ? in->exchange_s : 0.0);
}

double ms_balance_predict(const ms_balance_input *in, const int *units)
{
  int k = bits(ms_balance_mask(in->n_dev, units));
  double t = 0.0;
  for (int i = 0; i < in->n_dev; i++) {
    if (units[i] <= 0)
      continue;
    double ti = in->rate[i] > 0.0 ? units[i] / in->rate[i] + overhead(in, i, k) : BIG;
    t = ti > t ? ti : t;
  }
  return t;
}

/* The continuous optimum over the devices of `mask`: every one finishes at the same
 * time T, u_i = rate_i (T - overhead_i), sum u_i = units. *compute_s: the same without
 * the exchange. Returns BIG when a device would get less than one granule. */
static double subset_time(const ms_balance_input *in, unsigned mask, double *compute_s)
{
  int k = bits(mask);
  double r = 0.0, ro = 0.0, rf = 0.0;
  for (int i = 0; i < in->n_dev; i++) {
    if (!(mask & (1u << i)))
      continue;
    if (!(in->rate[i] > 0.0))
      return BIG;
    r += in->rate[i];
    ro += in->rate[i] * overhead(in, i, k);
    rf += in->rate[i] * in->fixed_s[i];
  }
  double t = (in->units + ro) / r;
  if (compute_s)
    *compute_s = (in->units + rf) / r;
  for (int i = 0; i < in->n_dev; i++)
    if ((mask & (1u << i)) && in->rate[i] * (t - overhead(in, i, k)) < 1.0)
      return BIG;
  return t;
}

/* Whole granules for the devices of `mask`: the floors of the continuous shares, then
 * one granule at a time to the device that would finish earliest with it (which
 * minimises the slowest device's time). */
static void discretize(const ms_balance_input *in, unsigned mask, double t, int *units)
{
  int k = bits(mask), given = 0;
  for (int i = 0; i < in->n_dev; i++) {
    units[i] = 0;
    if (!(mask & (1u << i)))
      continue;
    double ideal = in->rate[i] * (t - overhead(in, i, k));
    units[i] = ideal < 1.0 ? 1 : (int)ideal;
    given += units[i];
  }
  while (given > in->units) { /* (only by rounding up to one granule) */
    int big = -1;
    for (int i = 0; i < in->n_dev; i++)
      if (units[i] > 1 && (big < 0 || units[i] > units[big]))
        big = i;
    if (big < 0)
      break;
    units[big]--;
    given--;
  }
  for (; given < in->units; given++) {
    int best = -1;
    double best_t = 0.0;
    for (int i = 0; i < in->n_dev; i++) {
      if (!(mask & (1u << i)))
        continue;
      double ti = (units[i] + 1) / in->rate[i] + overhead(in, i, k);
      if (best < 0 || ti < best_t) {
        best = i;
        best_t = ti;
      }
    }
    units[best]++;
  }
}

void ms_balance_plan_split(const ms_balance_input *in, ms_balance_plan *out)
{
  memset(out, 0, sizeof *out);
  /* Each device beyond the first must gain MS_BALANCE_HYSTERESIS of the step: a device
   * whose share would save less is left out, since its rate is known only to a few
   * percent (a CPU's, measured beside a GPU on the H200 machine, moved by 25 % from one
   * window to the next), and with a small share a slower step than planned costs more
   * than it saves. Scoring by t (1 + h (k - 1)) keeps the choice a minimum over subsets. */
  unsigned best = 0;
  double best_t = BIG, best_score = BIG;
  for (unsigned m = 1; m < (1u << in->n_dev); m++) {
    double t = subset_time(in, m, NULL);
    if (t >= BIG)
      continue;
    double score = t * (1.0 + MS_BALANCE_HYSTERESIS * (bits(m) - 1));
    int fewer = bits(m) < bits(best);
    if (!best || score < best_score * (1.0 - 1e-12) ||
        (score <= best_score * (1.0 + 1e-12) && fewer)) {
      best = m;
      best_t = t;
      best_score = score;
    }
  }
  if (!best) { /* nothing measured: everything on the first device */
    out->units[0] = in->units;
    out->active = 1;
    out->step_s = BIG;
    return;
  }
  discretize(in, best, best_t, out->units);
  out->active = bits(best);
  out->step_s = ms_balance_predict(in, out->units);
  for (int i = 0; i < in->n_dev; i++) {
    if (best & (1u << i))
      continue;
    unsigned with = best | (1u << i);
    double compute = 0.0, r = 0.0, ro = 0.0;
    int k = bits(with);
    for (int j = 0; j < in->n_dev; j++)
      if ((with & (1u << j)) && in->rate[j] > 0.0) {
        r += in->rate[j];
        ro += in->rate[j] * overhead(in, j, k);
        compute += in->rate[j] * in->fixed_s[j];
      }
    double t = r > 0.0 ? (in->units + ro) / r : BIG;
    double share = in->rate[i] > 0.0 ? in->rate[i] * (t - overhead(in, i, k)) / in->units : 0.0;
    compute = r > 0.0 ? (in->units + compute) / r : BIG;
    out->drop_share[i] = share > 0.0 ? share : 0.0;
    out->drop_saves_s[i] = share > 0.0 ? best_t - compute : 0.0;
    out->drop_cost_s[i] = in->exchange_s;
  }
}

static void share_evenly(int n, int units, int *out)
{
  for (int i = 0; i < n; i++)
    out[i] = (int)((long)units * (i + 1) / n - (long)units * i / n);
}

/* Why a probe: a CPU runs this kernel 10-50x slower than a GPU, and an even first split
 * made the first accelerations wait for it (12 s at 1M bodies beside one H200). */
void ms_balance_first_split(int n_dev, const int *is_cpu, const int *probe, int units, int *out)
{
  int others = 0, probed = 0;
  for (int i = 0; i < n_dev; i++)
    others += !is_cpu[i];
  for (int i = 0; others > 0 && i < n_dev; i++)
    probed += is_cpu[i] ? probe[i] : 0;
  if (others == 0 || others == n_dev || units - probed < others) {
    share_evenly(n_dev, units, out);
    return;
  }
  int rest[MS_BALANCE_MAX], k = 0;
  share_evenly(others, units - probed, rest);
  for (int i = 0; i < n_dev; i++)
    out[i] = is_cpu[i] ? probe[i] : rest[k++];
}

/* ---- the controller --------------------------------------------------------------- */

static double median(const double *v, int n)
{
  double s[MS_BALANCE_WINDOW];
  memcpy(s, v, (size_t)n * sizeof *s);
  for (int i = 1; i < n; i++) /* insertion sort: n is tiny */
    for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
      double t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

void ms_balance_init(ms_balance *b, int n_dev, int units_total, const int *units)
{
  memset(b, 0, sizeof *b);
  b->n_dev = n_dev;
  b->units = units_total;
  memcpy(b->cur, units, (size_t)n_dev * sizeof *units);
  b->model.n_dev = n_dev;
  b->model.units = units_total;
  b->best_s = BIG;
  for (int i = 0; i < n_dev; i++)
    b->probe[i] = 1;
  /* The first split is a guess, or seeded from one kernel: decide after two steps (the
   * kernels were built and run once before the first step, so nothing is skipped). */
  b->want = 2;
}

void ms_balance_sample(ms_balance *b, double step_s, const double *force_s,
                       const double *other_s)
{
  if (b->skip > 0) { /* the first step after a change also moved the data */
    b->skip--;
    return;
  }
  if (b->n >= b->want)
    return;
  b->step[b->n] = step_s;
  for (int i = 0; i < b->n_dev; i++) {
    b->force[i][b->n] = force_s[i];
    b->other[i][b->n] = other_s[i];
  }
  b->n++;
}

int ms_balance_wants_samples(const ms_balance *b)
{
  return !b->settled || bits(ms_balance_mask(b->n_dev, b->cur)) > 1;
}

double ms_balance_tried(const ms_balance *b, unsigned mask)
{
  for (int i = 0; i < b->n_tried; i++)
    if (b->tried_mask[i] == mask)
      return b->tried_s[i];
  return 0.0;
}

static void remember(ms_balance *b, unsigned mask, double t)
{
  for (int i = 0; i < b->n_tried; i++)
    if (b->tried_mask[i] == mask) {
      b->tried_s[i] = t < b->tried_s[i] ? t : b->tried_s[i];
      return;
    }
  if (b->n_tried < 64) {
    b->tried_mask[b->n_tried] = mask;
    b->tried_s[b->n_tried++] = t;
  }
}

/* The window's medians into the model: rates and fixed parts of the devices with a
 * share, and the exchange (what the step took beyond the slowest device's kernels). */
static double absorb_window(ms_balance *b)
{
  double t = median(b->step, b->n), slowest = 0.0;
  int k = 0;
  for (int i = 0; i < b->n_dev; i++) {
    if (b->cur[i] <= 0)
      continue;
    double f = median(b->force[i], b->n), o = median(b->other[i], b->n);
    k++;
    if (f > 0.0) {
      b->model.rate[i] = b->cur[i] / f;
      b->measured[i] = 1;
    }
    b->model.fixed_s[i] = o;
    slowest = f + o > slowest ? f + o : slowest;
  }
  if (k > 1) {
    b->model.exchange_s = t > slowest ? t - slowest : 0.0;
    b->exchange_measured = 1;
  }
  b->n = 0;
  b->window_s = t;
  return t;
}

/* The split in use with every device left out given its probe, taken from the device
 * with the most granules (at most half of them); 0 when none is left out. */
static int probe_left_out(const ms_balance *b, int *units)
{
  int changed = 0;
  memcpy(units, b->cur, (size_t)b->n_dev * sizeof *units);
  for (int i = 0; i < b->n_dev; i++) {
    if (units[i] > 0)
      continue;
    int big = 0;
    for (int j = 1; j < b->n_dev; j++)
      big = units[j] > units[big] ? j : big;
    int k = b->probe[i] < units[big] / 2 ? b->probe[i] : units[big] / 2;
    if (k < 1)
      continue;
    units[big] -= k;
    units[i] = k;
    changed = 1;
  }
  return changed;
}

static int change_to(ms_balance *b, const int *units, int *next)
{
  memcpy(b->cur, units, (size_t)b->n_dev * sizeof *units);
  memcpy(next, units, (size_t)b->n_dev * sizeof *units);
  b->changes++;
  b->skip = 1;
  b->want = MS_BALANCE_WINDOW;
  return 1;
}

/* Whether a device of `mask` computes on the host's cores. */
static int any_on_host(const ms_balance *b, unsigned mask)
{
  for (int i = 0; i < b->n_dev; i++)
    if ((mask & (1u << i)) && b->on_host[i])
      return 1;
  return 0;
}

/* The fastest device of `mask` by the model's rates. */
static int fastest_of(const ms_balance *b, unsigned mask)
{
  int fast = -1;
  for (int i = 0; i < b->n_dev; i++)
    if ((mask & (1u << i)) && (fast < 0 || b->model.rate[i] > b->model.rate[fast]))
      fast = i;
  return fast;
}

/* The next split to try, or NULL: the model's plan when it promises a gain (within the
 * same devices, against the model's own figure for the split in use; for another set of
 * devices, once, against the measured time), else, once, the fastest device alone where
 * the model cannot say what it does: when a device of the split computes on the host's
 * cores (its speed alone is unknown while the others share them), or when the model puts
 * it alone within MS_BALANCE_SINGLE_TRIAL of the measured step (a small share runs slower
 * per body than the whole). Elsewhere the plan's figure stands and nothing is spent. */
static const int *next_trial(ms_balance *b, double t, int *single)
{
  unsigned mask = ms_balance_mask(b->n_dev, b->cur);
  ms_balance_plan_split(&b->model, &b->plan);
  unsigned pm = ms_balance_mask(b->n_dev, b->plan.units);
  if (pm == mask &&
      b->plan.step_s < ms_balance_predict(&b->model, b->cur) * (1.0 - MS_BALANCE_HYSTERESIS) &&
      memcmp(b->plan.units, b->cur, (size_t)b->n_dev * sizeof *b->cur))
    return b->plan.units;
  if (pm != mask && ms_balance_tried(b, pm) == 0.0 &&
      b->plan.step_s < t * (1.0 - MS_BALANCE_HYSTERESIS))
    return b->plan.units;
  if (bits(mask) < 2 || b->single_tried)
    return NULL;
  int fast = fastest_of(b, mask);
  memset(single, 0, (size_t)b->n_dev * sizeof *single);
  single[fast] = b->units;
  int close = ms_balance_predict(&b->model, single) <= MS_BALANCE_SINGLE_TRIAL * t;
  if (!any_on_host(b, mask) && !close)
    return NULL;
  b->single_tried = 1;
  return ms_balance_tried(b, 1u << fast) == 0.0 ? single : NULL;
}

int ms_balance_decide(ms_balance *b, int *next)
{
  if (b->n < b->want)
    return 0;
  b->decisions++;
  double t = absorb_window(b);
  unsigned mask = ms_balance_mask(b->n_dev, b->cur);
  remember(b, mask, t);
  if (t < b->best_s) {
    memcpy(b->best, b->cur, sizeof b->best);
    b->best_s = t;
  }
  if (b->settled) {
    b->drift_windows = fabs(t - b->settled_s) > MS_BALANCE_DRIFT * b->settled_s
                           ? b->drift_windows + 1 : 0;
    if (b->drift_windows < MS_BALANCE_DRIFT_WINDOWS)
      return 0;
    /* The conditions changed: forget what was measured under the old ones, and measure
     * the devices left out again (their rates are as old as the split). */
    b->settled = b->drift_windows = b->n_tried = b->single_tried = b->changes = 0;
    memcpy(b->best, b->cur, sizeof b->best);
    b->best_s = t;
    remember(b, mask, t);
    int probed[MS_BALANCE_MAX];
    if (probe_left_out(b, probed))
      return change_to(b, probed, next);
  }
  int single[MS_BALANCE_MAX];
  const int *trial = b->changes < MS_BALANCE_MAX_CHANGES ? next_trial(b, t, single) : NULL;
  if (trial)
    return change_to(b, trial, next);
  b->settled = 1;
  b->drift_windows = 0;
  b->want = MS_BALANCE_WINDOW;
  if (memcmp(b->best, b->cur, (size_t)b->n_dev * sizeof *b->cur) &&
      b->best_s < t * (1.0 - MS_BALANCE_HYSTERESIS)) {
    b->settled_s = b->best_s;
    b->changes++;
    memcpy(b->cur, b->best, sizeof b->cur);
    memcpy(next, b->best, (size_t)b->n_dev * sizeof *next);
    b->skip = 1;
    return 1;
  }
  b->settled_s = t;
  return 0;
}

void ms_balance_drop_reason(const ms_balance *b, int i, const char *name, int granule, char *buf,
                            int size)
{
  const ms_balance_plan *p = &b->plan;
  double rate = b->model.rate[i] * granule;
  unsigned mask = ms_balance_mask(b->n_dev, b->cur);
  double with = ms_balance_tried(b, mask | (1u << i));
  int planned_out = !(p->units[i] > 0) && ms_balance_mask(b->n_dev, p->units) == mask;
  if (planned_out && p->drop_cost_s[i] > p->drop_saves_s[i])
    snprintf(buf, (size_t)size,
             "--devices: %s dropped (%.3g bodies/s measured in the split): its best share "
             "(%.1f %%) saves %.2f ms a step but its exchange costs %.2f ms",
             name, rate, 100.0 * p->drop_share[i], 1e3 * p->drop_saves_s[i],
             1e3 * p->drop_cost_s[i]);
  else if (planned_out && !b->exchange_measured)
    snprintf(buf, (size_t)size,
             "--devices: %s dropped (%.3g bodies/s measured in the first kernels): its best "
             "share (%.1f %%) saves %.2f ms of a %.2f ms step, under the %.0f %% a device must "
             "add",
             name, rate, 100.0 * p->drop_share[i], 1e3 * p->drop_saves_s[i], 1e3 * p->step_s,
             100.0 * MS_BALANCE_HYSTERESIS);
  else if (planned_out)
    snprintf(buf, (size_t)size,
             "--devices: %s dropped (%.3g bodies/s measured in the split): its best share "
             "(%.1f %%) saves %.2f ms a step and its exchange costs %.2f ms, a gain under "
             "the %.0f %% of the step a device must add",
             name, rate, 100.0 * p->drop_share[i], 1e3 * p->drop_saves_s[i],
             1e3 * p->drop_cost_s[i], 100.0 * MS_BALANCE_HYSTERESIS);
  else
    snprintf(buf, (size_t)size,
             "--devices: %s dropped (%.3g bodies/s measured in the split): steps took %.2f ms "
             "with it and %.2f ms without it",
             name, rate, 1e3 * with, 1e3 * b->best_s);
}
