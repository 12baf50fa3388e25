/* The OpenCL side of the multi-device split's controller (gravity/balance.h): each
 * step's measurement under the real conditions of the split (all devices running at
 * once: the step's wall time between the exchange's reads, each device's profiled kernel
 * times), the move of the range boundaries it decides, and the note for a device that
 * it drops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"
#include "gravity/split.h"

/* MIXSIM_GRAVITY_SLOW=I:F[:FROM[:UNTIL]][,...] (a test hook): device I of the list (from
 * 0) counts its force kernels F times slower than measured, and a step of the split with
 * it as much longer, so that the tests can make one device slow; with FROM, only from that
 * step on (the first kernels, before step 1, run at its own speed), with UNTIL up to that
 * step, so that a device turns slow, or fast again, in the steps. */
static ms_status read_slow_item(ms_gset *set, const char *v, const char **next)
{
  char *end = NULL;
  long i = strtol(v, &end, 10), from = 0, until = 0;
  double f = end && *end == ':' ? strtod(end + 1, &end) : 0.0;
  if (end && *end == ':' && end[1] >= '0' && end[1] <= '9')
    from = strtol(end + 1, &end, 10);
  if (end && *end == ':' && end[1] >= '0' && end[1] <= '9')
    until = strtol(end + 1, &end, 10);
  if (!end || (*end && *end != ',') || (*end == ',' && !end[1]) || i < 0 || i >= set->n_dev ||
      !(f >= 1.0 && f <= 1e6) || from < 0 || from > 1000000 || until < 0 || until > 1000000 ||
      (until && until <= from))
    return ms_fail(MS_ERR_INPUT,
                   "MIXSIM_GRAVITY_SLOW: expected DEVICE:FACTOR[:FROM[:UNTIL]][,...], DEVICE "
                   "0..%d, FACTOR 1..1e6, steps 0..1e6 with FROM < UNTIL, got '%s'",
                   set->n_dev - 1, getenv("MIXSIM_GRAVITY_SLOW"));
  ms_gdev *d = &set->dev[i];
  d->slow_hook = f;
  d->slow_from = from;
  d->slow_until = until;
  d->slow = from == 0 ? f : 1.0;
  *next = *end == ',' ? end + 1 : end;
  return MS_OK;
}

static ms_status read_slow_hook(ms_gset *set)
{
  const char *v = getenv("MIXSIM_GRAVITY_SLOW");
  ms_status st = MS_OK;
  while (!st && v && *v)
    st = read_slow_item(set, v, &v);
  return st;
}

/* A device's probe, the granules it is measured with while it has no share of its own:
 * one per compute unit. A granule is one work-group, which pocl runs on one thread, so
 * fewer would leave cores idle and understate its rate. */
static int probe_of(const ms_gdev *d)
{
  return d->compute_units > 1 ? d->compute_units : 1;
}

void ms_gset_first_split(const ms_gset *set, int units_total, int *units)
{
  int is_cpu[MS_GRAVITY_MAX_DEVICES], probe[MS_GRAVITY_MAX_DEVICES];
  for (int i = 0; i < set->n_dev; i++) {
    is_cpu[i] = (set->dev[i].cl.type & CL_DEVICE_TYPE_CPU) != 0;
    probe[i] = probe_of(&set->dev[i]);
  }
  ms_balance_first_split(set->n_dev, is_cpu, probe, units_total, units);
}

static int count_active(const ms_gset *set)
{
  int k = 0;
  for (int i = 0; i < set->n_dev; i++)
    k += set->dev[i].count > 0;
  return k;
}

/* The controller started afresh on the split `units` (after a drift it measures a device
 * left out with its probe: balance.c, probe_left_out). */
static void restart_controller(ms_gset *set, int units_total, const int *units)
{
  ms_balance_init(&set->balance, set->n_dev, units_total, units);
  for (int i = 0; i < set->n_dev; i++) {
    set->balance.probe[i] = probe_of(&set->dev[i]);
    set->balance.on_host[i] = (set->dev[i].cl.type & CL_DEVICE_TYPE_CPU) != 0;
  }
  set->active = count_active(set);
}

ms_status ms_gset_balance_start(ms_gset *set)
{
  int units[MS_GRAVITY_MAX_DEVICES];
  for (int i = 0; i < set->n_dev; i++)
    units[i] = set->dev[i].count / set->granule;
  restart_controller(set, set->range_units, units);
  return read_slow_hook(set);
}

void ms_gset_set_range(ms_gset *set, int first, int units_total, const int *units)
{
  set->range_first = first;
  set->range_units = units_total;
  for (int i = 0; i < set->n_dev; i++) {
    set->dev[i].first = first;
    set->dev[i].count = units[i] * set->granule;
    first += set->dev[i].count;
  }
  set->pending = 0;        /* (a decision for the old range) */
  set->reads_done_t = 0.0; /* the next step's interval held the move */
  if (set->n_dev > 1)
    restart_controller(set, units_total, units);
}

static ms_status sample_steps(ms_gset *set, double step_s, long steps);

/* step_s 0: the step ran alone on one device; it lasted as long as its kernels. */
ms_status ms_gset_sample(ms_gset *set, double step_s)
{
  return sample_steps(set, step_s, 1);
}

/* Settled on one device, steps queue without the host and are not sampled one by one:
 * each finish (a burst's end, a read-back) samples the steps since the last sample as
 * their mean, from the kernels' profiled times, so that the device slowing down (another
 * program on the GPU) still shows as a drift, which measures the devices left out again
 * (balance.c). */
ms_status ms_gset_watch(ms_gset *set)
{
  long k = set->steps - set->sampled_steps;
  if (set->n_dev < 2 || set->active != 1 || set->ranks || !set->balance.settled ||
      set->pending || k <= 0)
    return MS_OK;
  return sample_steps(set, 0.0, k);
}

static ms_status sample_steps(ms_gset *set, double step_s, long steps)
{
  double force[MS_GRAVITY_MAX_DEVICES] = {0}, other[MS_GRAVITY_MAX_DEVICES] = {0};
  double alone = 0.0, hook = 0.0; /* hook: the step's extra time by MIXSIM_GRAVITY_SLOW */
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    ms_status st = MS_OK;
    if (d->count > 0 && step_s == 0.0)
      st = ms_gset_quiet_finish(set, d);
    if (!st)
      st = ms_gset_settle_all(d); /* (already done: they precede the reads) */
    if (st)
      return st;
    if (d->slow_hook > 0.0)
      d->slow = set->steps >= d->slow_from && (!d->slow_until || set->steps < d->slow_until)
                    ? d->slow_hook : 1.0;
    double measured = (d->force_s - d->seen_force_s) / (double)steps;
    force[i] = measured * d->slow;
    hook = force[i] - measured > hook ? force[i] - measured : hook;
    other[i] = (d->other_s - d->seen_other_s) / (double)steps;
    d->seen_force_s = d->force_s;
    d->seen_other_s = d->other_s;
    if (d->count > 0)
      alone += force[i] + other[i];
  }
  set->sampled_steps = set->steps;
  if (step_s >= 0.0)
    ms_balance_sample(&set->balance, step_s > 0.0 ? step_s + hook : alone, force, other);
  return MS_OK;
}

static void note_dropped(ms_gset *set);

/* MIXSIM_BALANCE_LOG=1: a line on stderr for each of the controller's decisions, with
 * the figures it decided on (docs/gravity.md), to see why a split was chosen. */
static void log_decision(const ms_gset *set, const char *what, double window_s, const int *next,
                         const double *rate)
{
  const char *on = getenv("MIXSIM_BALANCE_LOG"); /* (a decision is rare: read each time) */
  if (!on || !*on || !strcmp(on, "0"))
    return;
  const ms_balance *b = &set->balance;
  char line[2048];
  int n = snprintf(line, sizeof line, "mixsim: balance: step %ld %s: window %.3f ms,",
                   set->steps, what, 1e3 * window_s);
  for (int i = 0; i < set->n_dev && n < (int)sizeof line; i++)
    n += snprintf(line + n, sizeof line - (size_t)n, " %s %d->%d (%.3g bodies/s, +%.3f ms)%s",
                  set->dev[i].spec, set->dev[i].count / set->granule, next[i],
                  rate[i] * set->granule, 1e3 * b->model.fixed_s[i],
                  i + 1 < set->n_dev ? "," : "");
  if (n < (int)sizeof line)
    snprintf(line + n, sizeof line - (size_t)n, "; exchange %.3f ms%s", 1e3 * b->model.exchange_s,
             b->settled ? "; settled" : "");
  fprintf(stderr, "%s\n", line);
}

int ms_gset_wants_rebalance(ms_gset *set)
{
  if (set->n_dev > 1 && !set->pending && set->balance.n >= set->balance.want) {
    set->pending = ms_balance_decide(&set->balance, set->next);
    log_decision(set, set->pending ? "moves" : "keeps", set->balance.window_s,
                 set->pending ? set->next : set->balance.cur, set->balance.model.rate);
    note_dropped(set);
  }
  return set->pending;
}

/* A device the settled split leaves out is named once on stderr, with why (when the
 * split it settled on is in use). */
static void note_dropped(ms_gset *set)
{
  if (!set->balance.settled || set->pending)
    return;
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    if (d->count > 0 || d->noted)
      continue;
    char name[400], line[800];
    snprintf(name, sizeof name, "%s (%.200s, %.150s)", d->spec, d->cl.platform_name, d->cl.name);
    if (set->balance.measured[i])
      ms_balance_drop_reason(&set->balance, i, name, set->granule, line, sizeof line);
    else /* never had bodies: fewer granules than devices */
      snprintf(line, sizeof line,
               "--devices: %s gets no bodies: %d bodies make %d granule(s) of %d, fewer than "
               "the devices",
               name, set->n_body, set->range_units, set->granule);
    ms_warn("%s", line);
    d->noted = 1;
  }
}

/* Moves the boundaries to `units` (granules per device): velocities and accelerations
 * are read from their old owners and written to every device with bodies; a device
 * that had none gets the current positions too (it was left out of the exchange). */
static ms_status move_split(ms_gset *set, const int *units, float *vel, float *acc)
{
  /* The last exchange's host copy (the queues are drained: no write reads it); under MPI
   * it also holds the other ranks' ranges, for a device given bodies again. */
  float *pos = set->stage[(set->exchanges + 1) & 1];
  int had[MS_GRAVITY_MAX_DEVICES];
  ms_status st = MS_OK;
  for (int i = 0; !st && i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    had[i] = d->count > 0;
    st = ms_gset_read_range(d, d->vel, vel, "read vel");
    if (!st)
      st = ms_gset_read_range(d, d->acc, acc, "read acc");
    if (!st)
      st = ms_gset_read_range(d, d->pos[set->cur], pos, "read pos");
  }
  for (int i = 0; !st && i < set->n_dev; i++)
    st = ms_gset_quiet_finish(set, &set->dev[i]);
  size_t bytes = (size_t)set->n_pad * 4 * sizeof(float);
  for (int i = 0, first = set->range_first; !st && i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    d->first = first;
    d->count = units[i] * set->granule;
    first += d->count;
    if (d->count == 0)
      continue;
    cl_mem dst[] = {d->vel, d->acc, d->pos[set->cur]};
    float *src[] = {vel, acc, pos};
    for (int b = 0; !st && b < (had[i] ? 2 : 3); b++)
      st = ms_cl_check(clEnqueueWriteBuffer(d->queue, dst[b], CL_TRUE, 0, bytes, src[b], 0, NULL,
                                            NULL),
                       "clEnqueueWriteBuffer", "split");
  }
  for (int i = 0; i < set->n_dev; i++) { /* (ms_gset_finish settled every kernel) */
    set->dev[i].seen_force_s = set->dev[i].force_s;
    set->dev[i].seen_other_s = set->dev[i].other_s;
  }
  set->active = count_active(set);
  set->reads_done_t = 0.0; /* the next step's interval held the move */
  set->rebalances++;
  return st;
}

/* The first split, from the kernels run once before the first step (all devices at
 * once, each with at least a probe: ms_balance_first_split): by speed rather than by the
 * guess, so that a slow device does not hold the first steps up for long. A device the
 * plan leaves out is dropped now, with its note once the controller settles: it was
 * measured under the split's real conditions, and a few steps with it would cost more
 * than the whole run gains at small N (a 14-core CPU beside the H200 at 16K bodies: 1 ms
 * a step against 0.18 ms). The controller then measures the real steps. */
ms_status ms_gset_seed(ms_gset *set)
{
  if (set->seeded || set->n_dev < 2)
    return MS_OK;
  set->seeded = 1;
  ms_balance_input in;
  memset(&in, 0, sizeof in);
  in.n_dev = set->n_dev;
  in.units = set->range_units;
  for (int i = 0; i < set->n_dev; i++) {
    const ms_gdev *d = &set->dev[i]; /* (bodies_per_s: ms_gset_finish, just before) */
    if (!(d->count > 0 && d->bodies_per_s > 0.0))
      return MS_OK;
    in.rate[i] = d->bodies_per_s / set->granule;
  }
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  log_decision(set, "seeds", 0.0, p.units, in.rate);
  int cur[MS_GRAVITY_MAX_DEVICES];
  for (int i = 0; i < set->n_dev; i++)
    cur[i] = set->dev[i].count / set->granule;
  ms_status st = MS_OK;
  if (memcmp(cur, p.units, (size_t)set->n_dev * sizeof *cur)) {
    size_t bytes = (size_t)set->n_pad * 4 * sizeof(float);
    float *vel = malloc(bytes), *acc = malloc(bytes);
    st = vel && acc ? move_split(set, p.units, vel, acc) : ms_fail(MS_ERR_RUNTIME, "out of memory");
    free(vel);
    free(acc);
    set->rebalances = 0; /* (not a rebalance of the run) */
  }
  if (st)
    return st;
  restart_controller(set, in.units, p.units);
  for (int i = 0; i < set->n_dev; i++) { /* (a dropped device's rate, for its note) */
    set->balance.model.rate[i] = in.rate[i];
    set->balance.measured[i] = 1;
  }
  return MS_OK;
}

ms_status ms_gset_rebalance(ms_gset *set, float *vel, float *acc)
{
  if (set->n_dev < 2 || !set->pending)
    return MS_OK;
  set->pending = 0;
  ms_status st = move_split(set, set->next, vel, acc);
  if (!st)
    note_dropped(set);
  return st;
}
