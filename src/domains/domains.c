/* The split run's domains and their one meeting an iteration (domains.h). Each iteration
 * lays every domain's share of the whole state into its simulation, steps all of them on
 * threads of their own, and takes back what each owns (domains/carry.h). */
#include "domains/domains.h"
#include "domains/domains_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cl/runtime.h"
#include "core/clock.h"
#include "collision/open.h"
#include "collision/sim_internal.h"
#include "collision/worker/walls.h"
#include "collision/worker/worker_pool.h"
#include "domains/among.h"
#include "domains/cut_balance.h"
#include "domains/carry.h"
#include "domains/give.h"
#include "domains/layout.h"
#include "domains/live.h"
#include "domains/lockstep.h"
#include "gravity/ranks.h"

int ms_domains_count(const ms_domains *D) { return D->P; }


/* The device specs of the list, into specs[*n] (at most max). */
static ms_status parse_list(const char *devices, char specs[][32], int max, int *n)
{
  *n = 0;
  if (!strcmp(devices, "all")) {
    ms_cl_device *all = NULL;
    int count = 0;
    ms_status st = ms_cl_all_devices(&all, &count);
    for (int k = 0; !st && k < count && *n < max; k++)
      if (all[k].type & CL_DEVICE_TYPE_GPU)
        snprintf(specs[(*n)++], 32, "%s", all[k].spec);
    free(all);
    if (!st && *n == 0)
      st = ms_fail(MS_ERR_INPUT, "--devices all: no GPU found (name the devices: cpu,cpu)");
    return st;
  }
  const char *p = devices;
  while (*p) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= 32 || memchr(p, '/', len))
      return ms_fail(MS_ERR_INPUT, "--devices '%s': expected all, or a comma-separated list of "
                                   "gpu, cpu or P:D (no sub-devices in collision mode)", devices);
    if (*n == max)
      return ms_fail(MS_ERR_INPUT, "--devices '%s': at most %d devices", devices, max);
    snprintf(specs[(*n)++], 32, "%.*s", (int)len, p);
    p += len + (p[len] == ',');
    if (p[-1] == ',' && !*p)
      return ms_fail(MS_ERR_INPUT, "--devices '%s': a trailing comma", devices);
  }
  return *n ? MS_OK : ms_fail(MS_ERR_INPUT, "--devices: an empty list");
}

/* The cut's grid; MIXSIM_DOMAINS_NO_HALO=1 (testing) holds no halo, for tests/domains.sh to
 * show it sees one missing (0 or unset: the halo). */
static ms_status cut_of(const ms_sim *view, ms_grid_cut *out)
{
  const ms_grid *gr = &view->p.grid;
  int axis = gr->ny > gr->nx;
  const char *no_halo = getenv("MIXSIM_DOMAINS_NO_HALO");
  if (no_halo && *no_halo && strcmp(no_halo, "0") && strcmp(no_halo, "1"))
    return ms_fail(MS_ERR_INPUT, "MIXSIM_DOMAINS_NO_HALO '%s': expected 0 or 1", no_halo);
  *out = (ms_grid_cut){axis, axis ? gr->ny : gr->nx, gr->inv_cell, view->p.period[axis] > 0.0,
                       (double)view->p.r_small_max, no_halo && !strcmp(no_halo, "1") ? 0 : 1};
  return MS_OK;
}



ms_status ms_domains_check(const char *devices)
{
  char specs[MAX_DOMAINS][32];
  int P = 0;
  return parse_list(devices, specs, MAX_DOMAINS, &P);
}

static ms_status alloc_domains(ms_domains *D, int P)
{
  D->P = P;
  if ((D->sim = calloc((size_t)P, sizeof *D->sim)) && (D->carry = calloc((size_t)P, sizeof *D->carry)) &&
      (D->time = calloc((size_t)P, sizeof *D->time)) && (D->gives = calloc((size_t)P, sizeof *D->gives)))
    return MS_OK;
  return ms_fail(MS_ERR_RUNTIME, "out of memory for %d domains", P);
}

/* The CPU worker's threads of each domain: unless the scene sets them, this node's cores
 * shared among the domains on it, every rank's (ms_pool_shared_threads): pools that each
 * took all the cores would poll over one another. */
static int worker_threads(const ms_scene *sc, int mine)
{
  if (sc->cpu_threads > 0)
    return sc->cpu_threads;
  long ranks = ms_ranks_local_size() > 0 ? ms_ranks_local_size() : 1;
  return ms_pool_shared_threads(sysconf(_SC_NPROCESSORS_ONLN), (long)mine * ranks);
}

/* This rank's domains' simulations, one per device of its list. */
static ms_status open_mine(ms_domains *D, const ms_scene *sc, const ms_sim_options *opt,
                           char specs[][32])
{
  ms_status st = MS_OK;
  ms_scene shared = *sc; /* (a copy of the fields: the arrays stay the scene's) */
  shared.cpu_threads = worker_threads(sc, D->mine);
  for (int k = 0; !st && k < D->mine; k++) {
    ms_sim_options o = opt ? *opt : (ms_sim_options){0};
    o.device = specs[k];
    ms_sim **s = &D->sim[D->first + k];
    st = ms_sim_create(&shared, &o, s);
    if (!st) { /* the view makes the exchanges with the outside, on the whole state */
      (*s)->open.on = 0;
      (*s)->dev.forces.on = D->view->dev.forces.on;
    }
  }
  for (int a = D->first; a < D->first + D->mine; a++)
    for (int b = a + 1; b < D->first + D->mine; b++)
      D->in_turn |= D->sim[a]->cl.device == D->sim[b]->cl.device;
  return st;
}

ms_status ms_domains_create(const ms_scene *sc, const ms_sim_options *opt, const char *devices,
                            ms_sim *view, const volatile sig_atomic_t *agreed_stop,
                            ms_domains **out)
{
  char specs[MAX_DOMAINS][32];
  int mine = 0, P = 0, first = 0;
  *out = NULL;
  ms_domains *D = calloc(1, sizeof *D);
  ms_status st = D ? parse_list(devices, specs, MAX_DOMAINS, &mine) : ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (D) {
    D->ranks = ms_ranks_size() > 1;
    D->agreed_stop = agreed_stop;
    D->view = view;
    if (!st)
      st = cut_of(view, &D->cut);
    /* (collective: every rank counts, whatever its own check said) */
    ms_status counted = ms_among_count(st ? 0 : mine, &P, &first, &D->per_rank);
    st = st ? st : counted;
  }
  if (!st)
    st = alloc_domains(D, P);
  if (!st && D->cut.ncol < P)
    st = ms_fail(MS_ERR_INPUT, "--devices: %d devices%s, but %s's grid has %d cell columns along "
                               "its longer side: at most one device a column",
                 P, D->ranks ? " on all ranks" : "", sc->path, D->cut.ncol);
  if (!st) {
    D->first = first;
    D->mine = mine;
    st = ms_layout_init(&D->layout, P, &D->cut);
  }
  if (!st)
    st = ms_cutbal_init(&D->balance, P);
  if (!st) { /* --output's forces: asked for on rank 0, kept by every rank's domains */
    int forces = view->dev.forces.on;
    st = ms_ranks_bcast(&forces, sizeof forces);
    view->dev.forces.on = forces;
  }
  if (!st)
    st = open_mine(D, sc, opt, specs);
  if (D && D->ranks)
    st = ms_ranks_agree(st);
  if (st) {
    ms_domains_destroy(D);
    return st;
  }
  *out = D;
  return MS_OK;
}

void ms_domains_destroy(ms_domains *D)
{
  if (!D)
    return;
  ms_live_free(&D->live, D->P); /* (its page-locked buffers unmapped on the domains' queues) */
  for (int d = 0; D->sim && d < D->P; d++) {
    ms_sim_destroy(D->sim[d]);
    ms_carry_free(&D->carry[d]);
    if (D->gives)
      ms_bytes_free(&D->gives[d]);
  }
  free(D->gives);
  free(D->per_rank);
  free(D->sim);
  free(D->carry);
  free(D->time);
  ms_layout_free(&D->layout);
  ms_cutbal_free(&D->balance);
  ms_global_free(&D->g);
  free(D);
}

/* ---- every domain at once ------------------------------------------------------------ */

typedef struct each_job {
  ms_domains *D;
  int d;
  ms_status (*fn)(ms_domains *D, int d);
  ms_status st;
  char msg[2048]; /* (a thread's message stays on its thread: carried here) */
} each_job;

static void *each_main(void *arg)
{
  each_job *j = arg;
  j->st = j->fn(j->D, j->d);
  if (j->st)
    snprintf(j->msg, sizeof j->msg, "%s", ms_error_message());
  return NULL;
}

/* `together`: the domains wait for each other inside fn (lockstep.h), so each has a thread
 * of its own (they share no device then), and one without breaks their barrier. */
static ms_status each(ms_domains *D, ms_status (*fn)(ms_domains *D, int d), int together)
{
  each_job jobs[MAX_DOMAINS];
  pthread_t tid[MAX_DOMAINS];
  int started[MAX_DOMAINS] = {0};
  int a = D->first, b = D->first + D->mine;
  for (int d = a; d < b; d++) {
    jobs[d] = (each_job){D, d, fn, MS_OK, ""};
    started[d] = d > a && (together || !D->in_turn) &&
                 pthread_create(&tid[d], NULL, each_main, &jobs[d]) == 0;
    if (d > a && !started[d] && together) /* (none would wait for it in vain) */
      ms_lockstep_break(D->live.lockstep);
    if (d > a && !started[d])
      each_main(&jobs[d]); /* (no thread to be had: in turn) */
  }
  if (b > a)
    each_main(&jobs[a]);
  for (int d = a + 1; d < b; d++)
    if (started[d])
      pthread_join(tid[d], NULL);
  for (int d = a; d < b; d++) /* (one that left a hand-over first, before those it left) */
    if (jobs[d].st && jobs[d].st != MS_ERR_ABORTED)
      return ms_fail(jobs[d].st, "%s", jobs[d].msg);
  for (int d = a; d < b; d++)
    if (jobs[d].st)
      return ms_fail(jobs[d].st, "%s", jobs[d].msg);
  return MS_OK;
}

ms_status ms_domains_each(ms_domains *D, ms_status (*fn)(ms_domains *D, int d))
{
  return each(D, fn, 0);
}

ms_status ms_domains_each_together(ms_domains *D, ms_status (*fn)(ms_domains *D, int d))
{
  return each(D, fn, 1);
}

ms_status ms_domains_share(ms_domains *D) { return ms_domains_share_needed(D, 0, NULL); }

ms_status ms_domains_share_needed(ms_domains *D, size_t head, ms_among_needs needs)
{
  double t0 = ms_now();
  ms_status st = needs ? ms_among_share_needed(D->gives, D->first, D->mine, D->per_rank, head,
                                               needs)
                       : ms_among_share(D->gives, D->first, D->mine, D->per_rank);
  D->share_s += ms_now() - t0;
  return st;
}

/* ---- one iteration ------------------------------------------------------------------ */

/* Domain d's iteration of the whole state's meeting: laid, stepped, read back, given. */
static ms_status step_one(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  D->carry[d].roomy = 0;
  domain_time *t = &D->time[d];
  double t0 = ms_now();
  ms_status st = ms_carry_lay(s, &D->carry[d], &D->g, &D->layout, d);
  double t1 = ms_now();
  if (!st)
    st = ms_sim_advance(s, 1);
  double t2 = ms_now();
  if (!st)
    st = ms_carry_read(s, &D->carry[d]);
  D->gives[d].n = 0;
  if (!st)
    st = ms_give(&D->carry[d], &D->g, &D->layout, d, &D->gives[d]);
  double t3 = ms_now();
  t->lay_s += t1 - t0;
  t->step_s += t2 - t1;
  t->read_s += t3 - t2;
  t->own += D->layout.own[d];
  ms_cutbal_note(&D->balance, d, t3 - t0);
  return st;
}

/* An open system's exchange with the outside, due after the iteration that reached the
 * gathered step (or at the start): made by the view on the whole state, which is then
 * gathered again. */
static ms_status exchange_due(ms_domains *D, int starting)
{
  const ms_open *o = &D->view->open;
  if (!o->on || (starting ? o->started : D->g.st.step % o->every != 0))
    return MS_OK;
  int made = 0;
  ms_status st = ms_global_put(D->view, &D->g);
  if (!st)
    st = ms_open_exchange_due(D->view, starting, &made);
  if (!st && made) {
    /* a change of slots leaves the step's forces unknown, as on one device (open.c) */
    int stale = D->view->dev.forces.step != D->view->run.step;
    ms_global_free(&D->g);
    st = ms_global_take(D->view, &D->g);
    D->g.forces_stale = stale; /* (until the next step's) */
  }
  return st;
}


/* The view's choices (the scene's, or the tuner's between its batches) onto this rank's
 * domains: none changes the state. */
ms_status ms_domains_follow(ms_domains *D)
{
  ms_status st = MS_OK;
  for (int d = D->first; !st && d < D->first + D->mine; d++) {
    ms_sim *s = D->sim[d];
    ms_sim_set_pipeline(s, ms_sim_pipeline(D->view));
    ms_sim_set_exchange(s, ms_sim_exchange(D->view));
    st = ms_sim_set_large_on(s, ms_sim_large_on(D->view));
    if (!st && ms_sim_buffers(s) != ms_sim_buffers(D->view))
      st = ms_sim_set_buffers(s, ms_sim_buffers(D->view));
  }
  return st;
}

/* The [wall.NAME]s' extents along the cut's axis now (layout.h): a force-driven one's
 * points (or circle) at t = 0 moved along its line, another's as its motion puts it. */
static ms_status wall_bands(ms_domains *D)
{
  const ms_params *p = &D->view->p;
  ms_layout *l = &D->layout;
  int a = D->cut.axis;
  if (p->n_walls && !l->band && !(l->band = malloc(2 * (size_t)p->n_walls * sizeof *l->band)))
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the walls' bands");
  l->n_band = p->n_walls;
  for (int k = 0; k < p->n_walls; k++) {
    const ms_wall_def *w = &p->walls[k];
    ms_wall_info now;
    ms_walls_info(p, &D->view->wk, k, D->g.st.step, &now); /* (a pose, nothing changed) */
    double t = w->force_driven ? D->g.w.motion[2 * k] * w->dir[a] : 0.0, lo = HUGE_VAL,
           hi = -HUGE_VAL;
    const double *pts = w->force_driven ? w->points : now.points;
    double c = w->force_driven ? w->center[a] : now.center[a];
    if (w->kind == MS_WALL_CIRCLE) {
      lo = c - w->radius;
      hi = c + w->radius;
    }
    for (int i = 0; w->kind != MS_WALL_CIRCLE && i < w->n_points; i++) {
      lo = fmin(lo, pts[2 * i + a]);
      hi = fmax(hi, pts[2 * i + a]);
    }
    l->band[2 * k] = lo + t;
    l->band[2 * k + 1] = hi + t;
  }
  return MS_OK;
}

/* Whether the run stops before the next iteration: on every rank at once. */
int ms_domains_stop_agreed(ms_domains *D)
{
  if (!D->ranks)
    return ms_sim_stop_requested(D->view);
  if (D->agreed_stop && *D->agreed_stop)
    ms_sim_request_stop(D->view); /* (the run loop reads the view's) */
  return ms_sim_stop_requested(D->view);
}

/* Every domain's share into the whole state, domains in order. */
static ms_status merge(ms_domains *D)
{
  ms_gathered h = {0};
  ms_status st = MS_OK;
  for (int d = 0; !st && d < D->P; d++) {
    size_t used = 0;
    st = ms_take(&D->g, &h, &D->layout, d, D->gives[d].b, D->gives[d].n, &used);
    if (!st && used != D->gives[d].n)
      st = ms_fail(MS_ERR_RUNTIME, "domain %d gave %zu bytes, its share is %zu", d,
                   D->gives[d].n, used);
  }
  ms_status end = ms_take_end(&D->g, &h);
  return st ? st : end;
}

ms_status ms_domains_advance(ms_domains *D, long iterations)
{
  if (ms_live_fits(D))
    return ms_live_advance(D, iterations);
  /* (the other meeting starts from the view: brought up to the domains' state) */
  ms_status st = ms_live_settle(D);
  ms_status dropped = ms_live_drop(D);
  st = st ? st : dropped;
  if (st)
    return st;
  double w0 = ms_now();
  ms_global_free(&D->g);
  st = ms_domains_follow(D);
  if (!st)
    st = ms_global_take(D->view, &D->g);
  if (!st && iterations > 0)
    st = exchange_due(D, 1);
  long done = 0;
  for (; !st && done < iterations && !ms_domains_stop_agreed(D); done++) {
    st = wall_bands(D);
    if (!st)
      st = ms_layout_make(&D->layout, &D->cut, &D->g.st);
    if (!st)
      st = ms_domains_each(D, step_one);
    if (D->ranks) /* every rank fails with the lowest failing rank's message */
      st = ms_ranks_agree(st);
    if (!st)
      st = ms_domains_share(D);
    double t0 = ms_now();
    if (!st)
      st = merge(D);
    D->g.forces_stale = 0;
    if (D->ranks) /* (a rank whose merge failed must not leave the others waiting) */
      st = ms_ranks_agree(st);
    ms_cutbal_count(&D->balance, &D->layout);
    double t1 = ms_now();
    if (!st)
      st = exchange_due(D, 0);
    if (!st)
      st = ms_cutbal_after(&D->balance, &D->layout, D->g.st.step);
    D->merge_s += t1 - t0;
    D->exchange_s += ms_now() - t1;
  }
  if (!st && done > 0)
    st = ms_global_put(D->view, &D->g);
  D->iterations += done;
  D->wall_s += ms_now() - w0;
  if (!st)
    ms_domains_report_on_view(D);
  return st;
}

/* The view's report reads its trace and counters: this rank's first domain's phases and
 * counters, the split's iterations and wall. */
void ms_domains_report_on_view(ms_domains *D)
{
  ms_trace *t = &D->view->run.trace;
  if (D->mine == 0)
    return;
  *t = D->sim[D->first]->run.trace;
  t->iterations = D->iterations;
  t->wall_s = D->wall_s;
  D->view->run.stats = D->sim[D->first]->run.stats; /* (its grid, lists, exchange) */
  D->view->run.stats.iterations = D->iterations;
}

static double per_it(double s, long n) { return n > 0 ? 1e3 * s / (double)n : 0.0; }

int ms_domains_describe(const ms_domains *D, char *out, size_t size)
{
  long n = D->iterations;
  int k = snprintf(out, size, "domains   %d%s, slabs of cell columns along %s cut by the small "
                              "particles' measured cost; the phases and counters below are domain "
                              "%d's\n",
                   D->P, D->ranks ? " on all ranks" : "", D->cut.axis ? "y" : "x", D->first);
  for (int d = 0; d < D->P && k >= 0 && (size_t)k < size; d++) {
    const domain_time *t = &D->time[d];
    if (!D->sim[d]) {
      k += snprintf(out + k, size - (size_t)k, "  domain %d on another rank\n", d);
      continue;
    }
    k += snprintf(out + k, size - (size_t)k, "  domain %d on %s: %.0f own small particles, "
                  "step %.4f ms/it, lay %.4f, read %.4f\n", d, ms_sim_device_name(D->sim[d]),
                  n > 0 ? t->own / (double)n : 0.0, per_it(t->step_s, n), per_it(t->lay_s, n),
                  per_it(t->read_s, n));
  }
  char share[64] = ""; /* (ranks only: in one process the gives are not copied) */
  if (D->ranks)
    snprintf(share, sizeof share, ", shared among the ranks %.4f ms/it", per_it(D->share_s, n));
  if (k >= 0 && (size_t)k < size)
    k += snprintf(out + k, size - (size_t)k, "  meeting: merge %.4f ms/it, exchanges with the "
                  "outside %.4f ms/it%s; %s\n", per_it(D->merge_s, n), per_it(D->exchange_s, n),
                  share,
                  D->in_turn ? "domains sharing a device step in turn" : "domains step at once");
  if (k >= 0 && (size_t)k < size)
    k += ms_live_describe(D, out + k, size - (size_t)k);
  return k;
}

ms_status ms_domains_settle(ms_domains *D) { return ms_live_settle(D); }

void ms_domains_forces_read(ms_domains *D, int read) { D->forces_read = read; }
