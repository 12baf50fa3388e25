/* Gravity mode's driver: turns a scene into device state, runs steps in bursts between
 * read-backs, moves a multi-device split when its controller asks, and answers for the
 * state: diagnostics, hash, accelerations, timings. The step itself is in
 * gravity_split.c, the physics in kernels/gravity.cl. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gravity/rank_ranges.h"
#include "gravity/ranks.h"
#include "gravity/split.h"
#include "mixsim/gravity.h"
#include "cl/trace_events.h"
#include "core/clock.h"

struct ms_gravity {
  ms_gset set;
  int n;
  ms_integrator integrator;
  ms_energy_mode energy;
  long burst;
  double dt, softening, g;
  ms_gparams params;
  long step;
  float *pos, *vel, *acc; /* host copies, float4 x n_pad */
  long host_step;         /* step the host copy of pos and vel holds; -1: none */
  float *start_pos, *start_vel; /* a burst's start state, to find the step that failed */
  long start_step;              /* step they hold; -1: none */
  double e0;              /* energy at step 0 */
  const volatile sig_atomic_t *stop; /* set: stop after the current step */
  ms_gravity_stats stats;
  ms_rank_split ranks; /* several MPI ranks: the bodies among them (set.ranks points here) */
};

/* Several MPI ranks: the ranks' ranges are planned again by their speed after these steps
 * (the first measurements); within a rank the devices' controller goes on (balance.h). */
static int is_rank_rebalance_step(long step)
{
  return step == 2 || step == 4 || step == 8 || step == 16;
}

static int energy_sample(const ms_gravity *g)
{
  switch (g->energy) {
  case MS_ENERGY_EXACT: return 0;
  case MS_ENERGY_SAMPLED: return g->n < 4096 ? g->n : 4096;
  case MS_ENERGY_AUTO: return g->n <= MS_ENERGY_EXACT_MAX ? 0 : 4096;
  case MS_ENERGY_OFF: break;
  }
  return -1;
}

/* The host copy of the state at this step, read if it is not current. With several ranks
 * each reads its own range and the ranges are gathered (accelerations too, for --output),
 * so every rank holds the whole state after create, every burst and a shared restore: a
 * collective call there, with `st` (this rank's status so far) agreed first; elsewhere it
 * finds the copy current. */
static ms_status read_state(ms_gravity *g, ms_status st)
{
  if (!st && g->host_step == g->step)
    return MS_OK;
  double t0 = ms_now();
  if (!st)
    st = ms_gset_read(&g->set, g->pos, g->vel, g->set.ranks ? g->acc : NULL);
  if (ms_ranks_size() > 1) /* (also when this rank failed before it had its range) */
    st = ms_ranks_gather_state(g->set.ranks, st, g->pos, g->vel, g->acc);
  g->stats.readback_s += ms_now() - t0;
  if (ms_tev_on)
    ms_tev_span("driver", "read-back", t0, ms_now());
  if (!st)
    g->host_step = g->step;
  return st;
}

/* The first body of the host copy whose position or velocity is not finite; -1: none. */
static int first_not_finite(const ms_gravity *g)
{
  for (int i = 0; i < g->n; i++) {
    const float *p = &g->pos[4 * i], *v = &g->vel[4 * i];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !isfinite(v[0]) ||
        !isfinite(v[1]) || !isfinite(v[2]))
      return i;
  }
  return -1;
}

static ms_status fail_not_finite(const ms_gravity *g, int i)
{
  const float *p = &g->pos[4 * i];
  return ms_fail(MS_ERR_NUMERIC,
                 "body %d is no longer finite at step %ld (position %g, %g, %g): dt is too "
                 "large or the softening too small for this scene",
                 i, g->step, p[0], p[1], p[2]);
}

/* read_state, and a body no longer finite fails (several ranks: all find it, from the same
 * gathered state). */
static ms_status read_back(ms_gravity *g, ms_status st)
{
  st = read_state(g, st);
  int bad = st ? -1 : first_not_finite(g);
  return st ? st : bad >= 0 ? fail_not_finite(g, bad) : MS_OK;
}

static ms_status measure(ms_gravity *g, ms_gravity_diag *d)
{
  if (ms_ranks_rank() != 0) { /* several ranks: rank 0 reports; the others skip the O(n^2) */
    memset(d, 0, sizeof *d);
    d->step = g->step;
    return MS_OK;
  }
  double t0 = ms_now();
  float *vel3 = malloc((size_t)g->n * 3 * sizeof *vel3);
  if (!vel3)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (int i = 0; i < g->n; i++)
    memcpy(&vel3[3 * i], &g->vel[4 * i], 3 * sizeof *vel3);
  ms_gravity_measure(g->pos, vel3, g->n, g->g, g->softening, energy_sample(g), d);
  free(vel3);
  d->step = g->step;
  d->time = g->step * g->dt;
  d->energy_error = d->has_energy && g->e0 != 0.0 ? (d->energy - g->e0) / fabs(g->e0) : 0.0;
  g->stats.diagnostics_s += ms_now() - t0;
  return MS_OK;
}

static void update_stats(ms_gravity *g)
{
  ms_gravity_stats *s = &g->stats;
  s->steps = g->step;
  s->bodies = g->n;
  s->padded = g->set.n_pad;
  s->device_count = g->set.n_dev;
  s->exchange_s = g->set.exchange_s;
  s->ranks = g->set.ranks ? g->ranks.size : 1;
  s->mpi_s = g->ranks.mpi_s;
  s->rebalances = g->set.rebalances;
  s->initial_energy = g->e0;
  for (int i = 0; i < g->set.n_dev; i++) {
    const ms_gdev *d = &g->set.dev[i];
    ms_gravity_device_stats *o = &s->device[i];
    snprintf(o->name, sizeof o->name, "%s", d->cl.name);
    snprintf(o->platform, sizeof o->platform, "%s", d->cl.platform_name);
    snprintf(o->spec, sizeof o->spec, "%s", d->spec);
    o->is_gpu = (d->cl.type & CL_DEVICE_TYPE_GPU) != 0;
    o->kernel = d->variant->name;
    o->work_group = d->launch.wg;
    int end = d->first + d->count < g->n ? d->first + d->count : g->n;
    o->first = d->first;
    o->count = end > d->first ? end - d->first : 0;
    o->force_s = d->force_s;
    o->other_s = d->other_s;
    o->bodies_per_s = d->bodies_per_s;
  }
}

ms_status ms_gravity_create(const ms_scene *scene, const ms_gravity_options *opt,
                            ms_gravity **out)
{
  *out = NULL;
  if (scene->mode != MS_MODE_GRAVITY)
    return ms_fail(MS_ERR_INPUT, "%s: not a gravity scene (mode = gravity)", scene->path);
  const ms_gravity_scene *gs = &scene->grav;
  ms_gravity_options none = {0};
  if (!opt)
    opt = &none;
  if (opt->burst < 0)
    return ms_fail(MS_ERR_INPUT, "--burst: must be >= 1");
  ms_gravity *g = calloc(1, sizeof *g);
  if (!g)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  g->n = gs->count;
  g->integrator = gs->integrator;
  g->energy = gs->energy;
  g->burst = opt->burst > 0 ? opt->burst : gs->burst;
  g->dt = scene->dt_s;
  g->softening = gs->softening;
  g->g = gs->g;
  g->params = (ms_gparams){(float)(gs->softening * gs->softening), (float)gs->g, (float)scene->dt_s};
  g->host_step = -1;
  g->start_step = -1;
  ms_status st = ms_gset_open(&g->set, opt->devices, opt->kernel, g->n, opt->kernel_dir);
  if (ms_ranks_size() > 1) { /* every rank opened its devices: then the ranks' ranges */
    st = ms_ranks_agree(st);
    if (!st)
      st = ms_ranks_attach(&g->set, &g->ranks);
  }
  size_t bytes = (size_t)g->set.n_pad * 4 * sizeof(float);
  if (!st && (!(g->pos = calloc(1, bytes)) || !(g->vel = calloc(1, bytes)) ||
              !(g->acc = calloc(1, bytes)) || !(g->start_pos = calloc(1, bytes)) ||
              !(g->start_vel = calloc(1, bytes))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for %d bodies", g->n);
  if (!st) {
    memcpy(g->pos, gs->pos, (size_t)g->n * 4 * sizeof(float));
    for (int i = 0; i < g->n; i++)
      memcpy(&g->vel[4 * i], &gs->vel[3 * i], 3 * sizeof(float));
    st = ms_gset_upload(&g->set, g->pos, g->vel, g->acc);
  }
  /* a(x0): the leapfrog's first kick needs it; it also compiles the kernels for their
   * launch size (pocl does that at the first launch), before anything is timed. */
  if (!st)
    st = ms_gset_force(&g->set, MS_GRAV_MODE_ACCEL, &g->params);
  if (!st)
    st = ms_gset_finish(&g->set);
  for (int i = 0; !st && i < g->set.n_dev; i++) /* (the stepping's times from here) */
    g->set.dev[i].force_s = g->set.dev[i].other_s = g->set.dev[i].seen_force_s =
        g->set.dev[i].seen_other_s = 0.0;
  st = read_back(g, st);
  if (!st && g->energy != MS_ENERGY_OFF) {
    ms_gravity_diag d;
    st = measure(g, &d);
    g->e0 = st ? 0.0 : d.energy;
  }
  if (st) {
    ms_gravity_destroy(g);
    return st;
  }
  update_stats(g);
  *out = g;
  return MS_OK;
}

void ms_gravity_destroy(ms_gravity *g)
{
  if (!g)
    return;
  ms_gset_close(&g->set);
  ms_rank_split_free(&g->ranks);
  free(g->pos);
  free(g->vel);
  free(g->acc);
  free(g->start_pos);
  free(g->start_vel);
  free(g);
}

/* --trace: the devices' clocks calibrated, and the step about to be enqueued marked as
 * this thread's iteration; returns the time. */
static double trace_step(ms_gravity *g)
{
  if (!ms_tev_on)
    return 0.0;
  if (g->step % 64 == 0) /* (the first step's too: calibrating waits for the queues) */
    for (int i = 0; i < g->set.n_dev; i++)
      ms_tev_calibrate(g->set.dev[i].spec, g->set.dev[i].queue);
  ms_tev_iteration(g->step);
  return ms_now();
}

/* One step enqueued; with several devices, the split rebalanced when its controller asks
 * (balance.h). Several ranks: every rank makes the same calls in the same order (the
 * step's exchange, the ranks' rebalance at fixed steps, the stop agreed), so this runs in
 * lockstep on all; the devices' controller is each rank's own, within its range. */
static ms_status one_step(ms_gravity *g)
{
  double ts = trace_step(g);
  ms_status st = ms_gset_step(&g->set, g->integrator, &g->params);
  if (ms_tev_on)
    ms_tev_span("driver", "enqueue step", ts, ms_now());
  g->step++;
  if (!st && ms_gset_wants_rebalance(&g->set)) {
    st = ms_gset_finish(&g->set);
    if (!st)
      st = ms_gset_rebalance(&g->set, g->vel, g->acc);
    g->host_step = -1; /* the scratch arrays were the host copy */
  }
  if (st && g->set.ranks) /* the other ranks wait in the next exchange */
    ms_ranks_abort(st);
  if (g->set.ranks && is_rank_rebalance_step(g->step)) {
    st = ms_ranks_rebalance(&g->set, ms_gset_finish(&g->set), g->pos, g->vel, g->acc);
    g->host_step = -1;
  }
  if (!st && g->set.ranks) /* a signal on any rank stops all after the same step */
    ms_ranks_agree_stop();
  return st;
}

static ms_status upload_state(ms_gravity *g, long step, const float *pos4, const float *vel4);

/* A burst ended with a body no longer finite: runs it again from its start state one
 * step at a time (the same bits: runs are deterministic) up to the step where the first
 * body turned, so the failure names that step, not the burst's end. */
static ms_status fail_at_exact_step(ms_gravity *g, long end)
{
  int bad = first_not_finite(g), at_end = bad;
  if (g->start_step < 0 || g->start_step >= end - 1)
    return fail_not_finite(g, bad);
  /* Several ranks: all hold the same whole state, so all come here and rerun in lockstep,
   * and each step's read-back agrees on the status and gathers the state. */
  ms_status st = ms_ranks_agree(upload_state(g, g->start_step, g->start_pos, g->start_vel));
  while (!st && g->step < end) {
    st = one_step(g);
    if (!st)
      st = ms_gset_finish(&g->set);
    st = read_state(g, st);
    if (!st && (bad = first_not_finite(g)) >= 0)
      break;
  }
  return st ? st : fail_not_finite(g, bad >= 0 ? bad : at_end);
}

ms_status ms_gravity_advance(ms_gravity *g, long steps)
{
  double t0 = ms_now();
  ms_status st = MS_OK;
  for (long done = 0; !st && done < steps;) {
    long chunk = steps - done < g->burst ? steps - done : g->burst;
    if (g->stop && *g->stop)
      break;
    g->start_step = -1;
    if (chunk > 1 && g->host_step == g->step) { /* the start state, already on the host */
      memcpy(g->start_pos, g->pos, (size_t)g->set.n_pad * 4 * sizeof(float));
      memcpy(g->start_vel, g->vel, (size_t)g->set.n_pad * 4 * sizeof(float));
      g->start_step = g->step;
    }
    long before = g->step;
    for (long k = 0; !st && k < chunk; k++) {
      if (g->stop && *g->stop) {
        chunk = k;
        break;
      }
      st = one_step(g);
    }
    double tf = ms_now();
    if (!st)
      st = ms_gset_finish(&g->set);
    if (ms_tev_on)
      ms_tev_span("driver", "finish", tf, ms_now());
    st = read_state(g, st); /* (several ranks: all hold the whole state, and agree) */
    if (!st && first_not_finite(g) >= 0)
      st = fail_at_exact_step(g, g->step);
    g->stats.steps_run += g->step - before;
    done += chunk;
  }
  g->stats.advance_s += ms_now() - t0;
  update_stats(g);
  return st;
}

ms_status ms_gravity_diagnose(ms_gravity *g, ms_gravity_diag *out)
{
  ms_status st = read_back(g, MS_OK);
  return st ? st : measure(g, out);
}

ms_status ms_gravity_read_state(ms_gravity *g, ms_gravity_state *state)
{
  memset(state, 0, sizeof *state);
  ms_status st = read_back(g, MS_OK);
  if (st)
    return st;
  state->pos = malloc((size_t)g->n * 4 * sizeof(float));
  state->vel = malloc((size_t)g->n * 3 * sizeof(float));
  if (!state->pos || !state->vel) {
    ms_gravity_state_free(state);
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  }
  state->n = g->n;
  state->step = g->step;
  state->time = g->step * g->dt;
  memcpy(state->pos, g->pos, (size_t)g->n * 4 * sizeof(float));
  for (int i = 0; i < g->n; i++)
    memcpy(&state->vel[3 * i], &g->vel[4 * i], 3 * sizeof(float));
  return MS_OK;
}

void ms_gravity_state_free(ms_gravity_state *state)
{
  free(state->pos);
  free(state->vel);
  memset(state, 0, sizeof *state);
}

uint32_t ms_gravity_state_hash(const ms_gravity_state *state)
{
  uLong crc = crc32(0L, Z_NULL, 0);
  for (int i = 0; i < state->n; i++)
    crc = crc32(crc, (const Bytef *)&state->pos[4 * i], 3 * sizeof(float));
  return (uint32_t)crc32(crc, (const Bytef *)state->vel, (uInt)(3 * sizeof(float) * state->n));
}

ms_status ms_gravity_hash(ms_gravity *g, uint32_t *hash)
{
  ms_gravity_state s;
  ms_status st = ms_gravity_read_state(g, &s);
  if (st)
    return st;
  *hash = ms_gravity_state_hash(&s);
  ms_gravity_state_free(&s);
  return MS_OK;
}

ms_status ms_gravity_accelerations(ms_gravity *g, float *acc)
{
  ms_status st = ms_gset_force(&g->set, MS_GRAV_MODE_ACCEL, &g->params);
  if (!st)
    st = ms_gset_finish(&g->set);
  if (!st)
    st = ms_gset_read(&g->set, g->pos, g->vel, g->acc);
  update_stats(g);
  if (st)
    return st;
  for (int i = 0; i < g->n; i++)
    memcpy(&acc[3 * i], &g->acc[4 * i], 3 * sizeof(float));
  return MS_OK;
}

ms_status ms_gravity_step_accelerations(ms_gravity *g, float *acc)
{
  if (g->set.ranks) { /* several ranks: gathered with the state */
    for (int i = 0; i < g->n; i++)
      memcpy(&acc[3 * i], &g->acc[4 * i], 3 * sizeof(float));
    return MS_OK;
  }
  size_t bytes = (size_t)g->set.n_pad * 4 * sizeof(float);
  float *p = malloc(bytes), *a = malloc(bytes);
  ms_status st = p && a ? ms_gset_read(&g->set, p, NULL, a)
                        : ms_fail(MS_ERR_RUNTIME, "out of memory for %d bodies", g->n);
  for (int i = 0; !st && i < g->n; i++)
    memcpy(&acc[3 * i], &a[4 * i], 3 * sizeof(float));
  free(p);
  free(a);
  return st;
}

const ms_gravity_stats *ms_gravity_get_stats(const ms_gravity *g) { return &g->stats; }

long ms_gravity_step(const ms_gravity *g) { return g->step; }
double ms_gravity_initial_energy(const ms_gravity *g) { return g->e0; }
int ms_gravity_body_count(const ms_gravity *g) { return g->n; }
void ms_gravity_set_stop_flag(ms_gravity *g, const volatile sig_atomic_t *flag) { g->stop = flag; }

/* Puts a state (4 floats a body for both) on the devices with a(x) computed again: what
 * the last step's force kernel left for the next opening kick, bit for bit. */
static ms_status upload_state(ms_gravity *g, long step, const float *pos4, const float *vel4)
{
  if (pos4 != g->pos)
    memcpy(g->pos, pos4, (size_t)g->set.n_pad * 4 * sizeof(float));
  if (vel4 != g->vel)
    memcpy(g->vel, vel4, (size_t)g->set.n_pad * 4 * sizeof(float));
  ms_status st = ms_gset_upload(&g->set, g->pos, g->vel, g->acc);
  if (!st)
    st = ms_gset_force(&g->set, MS_GRAV_MODE_ACCEL, &g->params);
  if (!st)
    st = ms_gset_finish(&g->set);
  g->step = step;
  g->host_step = -1;
  return st;
}

ms_status ms_gravity_restore(ms_gravity *g, long step, const float *pos, const float *vel,
                             double e0)
{
  memcpy(g->pos, pos, (size_t)g->n * 4 * sizeof(float));
  for (int i = 0; i < g->n; i++)
    memcpy(&g->vel[4 * i], &vel[3 * i], 3 * sizeof(float));
  ms_status st = upload_state(g, step, g->pos, g->vel);
  g->e0 = e0;
  if (g->set.ranks) /* local: the host copy is what was uploaded (ms_gravity_share) */
    g->host_step = step;
  else
    st = read_back(g, st);
  update_stats(g);
  return st;
}

ms_status ms_gravity_share(ms_gravity *g, ms_status st)
{
  if (!g->set.ranks)
    return st;
  st = ms_ranks_agree(st);
  long step = g->step;
  double e0 = g->e0;
  ms_gravity_state s = {0};
  if (!st && ms_ranks_rank() == 0)
    st = ms_gravity_read_state(g, &s);
  else if (!st && (!(s.pos = malloc((size_t)g->n * 4 * sizeof(float))) ||
                   !(s.vel = malloc((size_t)g->n * 3 * sizeof(float)))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for %d bodies", g->n);
  st = ms_ranks_agree(st);
  if (!st)
    st = ms_ranks_bcast(&step, sizeof step);
  if (!st)
    st = ms_ranks_bcast(&e0, sizeof e0);
  if (!st)
    st = ms_ranks_bcast(s.pos, (size_t)g->n * 4 * sizeof(float));
  if (!st)
    st = ms_ranks_bcast(s.vel, (size_t)g->n * 3 * sizeof(float));
  if (!st && ms_ranks_rank() != 0)
    st = ms_gravity_restore(g, step, s.pos, s.vel, e0);
  ms_gravity_state_free(&s);
  g->host_step = -1; /* every rank's accelerations to all */
  st = read_back(g, st);
  update_stats(g);
  return st;
}
long ms_gravity_burst(const ms_gravity *g) { return g->burst; }
