/* The ranks' ranges of the bodies over each rank's devices: equal shares at the start
 * (ms_ranks_attach), then shares by measured speed (ms_ranks_rebalance), the state moving
 * with the bodies and each rank's devices re-split. Every MPI call it needs is made in
 * gravity/ranks.c. */
#include "gravity/rank_ranges.h"

#include <stdlib.h>
#include <string.h>

/* This rank's range among its devices: by their measured speeds once all are measured,
 * else as a single process starts (ms_gset_first_split); boundaries in granules. The
 * devices' controller (gravity/balance.h) goes on from there within the range. */
static void split_devices(ms_gset *set, int first, int count)
{
  /* By the measured speeds of the devices that have bodies; one the controller dropped
   * stays out (it was dropped on that speed; the controller's drift watch measures it
   * again), where an even first split would hand it bodies at every rank rebalance. */
  double rate[MS_GRAVITY_MAX_DEVICES];
  int on[MS_GRAVITY_MAX_DEVICES], share[MS_GRAVITY_MAX_DEVICES];
  int units[MS_GRAVITY_MAX_DEVICES] = {0}, m = 0, measured = 1;
  for (int i = 0; i < set->n_dev; i++) {
    if (set->dev[i].count <= 0)
      continue;
    measured &= set->dev[i].bodies_per_s > 0.0;
    on[m] = i;
    rate[m++] = set->dev[i].bodies_per_s;
  }
  if (measured && m > 0) {
    ms_ranks_plan(rate, m, count / set->granule, NULL, share);
    for (int k = 0; k < m; k++)
      units[on[k]] = share[k];
  } else {
    ms_gset_first_split(set, count / set->granule, units);
  }
  ms_gset_set_range(set, first, count / set->granule, units);
}

static void set_layout(ms_rank_split *r, const int *units)
{
  int first = 0;
  for (int i = 0; i < r->size; i++) {
    r->first[i] = first;
    r->count[i] = units[i] * r->granule;
    r->counts[i] = 4 * r->count[i];
    r->displs[i] = 4 * first;
    first += r->count[i];
  }
}

ms_status ms_ranks_attach(ms_gset *set, ms_rank_split *r)
{
  /* rank 0's choice of the exchange, so that all make the same calls (first: a rank
   * that fails below must have made the collective call too) */
  const char *how = getenv("MIXSIM_MPI_EXCHANGE");
  int ring = (how && strncmp(how, "ring", 4) == 0) | (how && strstr(how, "-timed") ? 2 : 0);
  ms_status st = ms_ranks_bcast(&ring, sizeof ring);
  memset(r, 0, sizeof *r);
  if (st)
    return st;
  r->size = ms_ranks_size();
  r->rank = ms_ranks_rank();
  r->n_pad = set->n_pad;
  r->granule = set->granule;
  size_t n = (size_t)r->size;
  r->first = calloc(n, sizeof *r->first);
  r->count = calloc(n, sizeof *r->count);
  r->counts = calloc(n, sizeof *r->counts);
  r->displs = calloc(n, sizeof *r->displs);
  r->rate = calloc(n, sizeof *r->rate);
  int *units = calloc(n, sizeof *units);
  if (!r->first || !r->count || !r->counts || !r->displs || !r->rate || !units) {
    free(units);
    ms_rank_split_free(r);
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  }
  int total = set->n_pad / set->granule;
  for (int i = 0; i < r->size; i++)
    units[i] = total * (i + 1) / r->size - total * i / r->size;
  set_layout(r, units);
  free(units);
  split_devices(set, r->first[r->rank], r->count[r->rank]);
  set->ranks = r;
  r->ring = ring;
  /* the exchange's host copy (ms_gset_open makes it for several devices only) */
  for (int i = 0; i < 2; i++)
    if (!set->stage[i] && !(set->stage[i] = malloc((size_t)set->n_pad * 4 * sizeof(float))))
      return ms_fail(MS_ERR_RUNTIME, "out of memory");
  return MS_OK;
}

void ms_rank_split_free(ms_rank_split *r)
{
  free(r->first);
  free(r->count);
  free(r->counts);
  free(r->displs);
  free(r->rate);
  memset(r, 0, sizeof *r);
}

/* This rank's force speed: its bodies over its slowest device's last force kernel (its
 * devices run side by side); 0 until every device with bodies was measured. */
static double rank_rate(const ms_gset *set, int count)
{
  double slowest = 0.0;
  for (int i = 0; i < set->n_dev; i++) {
    const ms_gdev *d = &set->dev[i];
    if (d->count == 0)
      continue;
    if (!(d->last_force_s > 0.0))
      return 0.0;
    slowest = d->last_force_s > slowest ? d->last_force_s : slowest;
  }
  return slowest > 0.0 ? count / slowest : 0.0;
}

ms_status ms_ranks_rebalance(ms_gset *set, ms_status st, float *pos, float *vel, float *acc)
{
  ms_rank_split *r = set->ranks;
  st = ms_ranks_agree(st);
  if (st || !r)
    return st;
  ms_ranks_share_rate(rank_rate(set, r->count[r->rank]), r->rate);
  for (int i = 0; i < r->size; i++)
    if (!(r->rate[i] > 0.0))
      return MS_OK; /* not measured on every rank yet: keep the split */
  int *old = malloc((size_t)r->size * 2 * sizeof *old);
  if (!old)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "out of memory"));
  int *units = old + r->size;
  for (int i = 0; i < r->size; i++)
    old[i] = r->count[i] / r->granule;
  int changed = ms_ranks_plan(r->rate, r->size, r->n_pad / r->granule, old, units);
  if (!changed) {
    free(old);
    return MS_OK;
  }
  /* The state moves with the bodies: every rank's ranges to all (the old layout), then
   * each rank's devices take the whole state and compute their new ranges. */
  st = ms_ranks_gather_state(r, ms_gset_read(set, pos, vel, acc), pos, vel, acc);
  if (!st) {
    set_layout(r, units);
    split_devices(set, r->first[r->rank], r->count[r->rank]);
    st = ms_ranks_agree(ms_gset_upload(set, pos, vel, acc));
    set->rebalances++;
  }
  free(old);
  return st;
}
