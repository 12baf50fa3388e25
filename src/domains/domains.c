/* The split run's domains and their one meeting an iteration (domains.h). Each iteration
 * lays every domain's share of the whole state into its simulation, steps all of them on
 * threads of their own, and takes back what each owns (domains/carry.h). */
#include "domains/domains.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "collision/sim_internal.h"
#include "domains/carry.h"
#include "domains/layout.h"

struct ms_domains {
  int P;
  ms_sim *view;
  ms_sim **sim;
  ms_carry *carry;
  ms_layout layout;
  ms_grid_cut cut;
  ms_global g;
  int in_turn; /* two domains share a device: they step in turn (pocl's CPU device is not
                  safe to drive from two contexts at once, and one device gains nothing) */
};

int ms_domains_count(const ms_domains *D) { return D->P; }
const char *ms_domains_device(const ms_domains *D, int k) { return ms_sim_device_name(D->sim[k]); }

/* What the split does not carry yet, named; NULL when it carries the scene. */
static const char *not_carried(const ms_scene *sc, const ms_sim_options *opt)
{
  if (sc->inflow_count || sc->outflow_count || sc->box_open[0] || sc->box_open[1] ||
      sc->box_open[2] || sc->box_open[3])
    return "an open system (inflows, outflows, open sides)";
  for (int k = 0; k < sc->wall_count; k++)
    if (sc->walls[k].force_driven)
      return "a force-driven wall";
  if (opt && opt->diagnostics)
    return "--output's diagnostics";
  if (sc->buffers_auto || sc->exchange_auto || sc->large_on_auto)
    return "a choice given as auto (the tuner times one simulation)";
  return NULL;
}

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

static ms_grid_cut cut_of(const ms_sim *view)
{
  const ms_grid *gr = &view->p.grid;
  int axis = gr->ny > gr->nx;
  /* MIXSIM_DOMAINS_NO_HALO=1 (testing): no halo, for tests/domains.sh to show it sees one
   * missing */
  const char *no_halo = getenv("MIXSIM_DOMAINS_NO_HALO");
  return (ms_grid_cut){axis, axis ? gr->ny : gr->nx, gr->inv_cell, view->p.period[axis] > 0.0,
                       (double)view->p.r_small_max, no_halo && !strcmp(no_halo, "1") ? 0 : 1};
}

enum { MAX_DOMAINS = 64 };

static ms_status check(const ms_scene *sc, const ms_sim_options *opt, const char *devices,
                       char specs[][32], int *P)
{
  const char *why = not_carried(sc, opt);
  if (why)
    return ms_fail(MS_ERR_INPUT, "--devices: %s: the split across devices does not carry %s yet "
                                 "(docs/domains.md); run it on one device", sc->path, why);
  return parse_list(devices, specs, MAX_DOMAINS, P);
}

ms_status ms_domains_check(const ms_scene *sc, const ms_sim_options *opt, const char *devices)
{
  char specs[MAX_DOMAINS][32];
  int P = 0;
  return check(sc, opt, devices, specs, &P);
}

ms_status ms_domains_create(const ms_scene *sc, const ms_sim_options *opt, const char *devices,
                            ms_sim *view, ms_domains **out)
{
  char specs[MAX_DOMAINS][32];
  int P = 0;
  *out = NULL;
  ms_status st = check(sc, opt, devices, specs, &P);
  if (st)
    return st;
  ms_domains *D = calloc(1, sizeof *D);
  if (!D || !(D->sim = calloc((size_t)P, sizeof *D->sim)) ||
      !(D->carry = calloc((size_t)P, sizeof *D->carry))) {
    ms_domains_destroy(D);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d domains", P);
  }
  D->P = P;
  D->view = view;
  D->cut = cut_of(view);
  if (D->cut.ncol < P) {
    ms_domains_destroy(D);
    return ms_fail(MS_ERR_INPUT, "--devices: %d devices, but %s's grid has %d cell columns "
                                 "along its longer side: at most one device a column",
                   P, sc->path, D->cut.ncol);
  }
  st = ms_layout_init(&D->layout, P, &D->cut);
  for (int d = 0; !st && d < P; d++) {
    ms_sim_options o = opt ? *opt : (ms_sim_options){0};
    o.device = specs[d];
    st = ms_sim_create(sc, &o, &D->sim[d]);
  }
  if (st) {
    ms_domains_destroy(D);
    return st;
  }
  for (int a = 0; a < P; a++)
    for (int b = a + 1; b < P; b++)
      D->in_turn |= D->sim[a]->cl.device == D->sim[b]->cl.device;
  *out = D;
  return MS_OK;
}

void ms_domains_destroy(ms_domains *D)
{
  if (!D)
    return;
  for (int d = 0; D->sim && d < D->P; d++) {
    ms_sim_destroy(D->sim[d]);
    ms_carry_free(&D->carry[d]);
  }
  free(D->sim);
  free(D->carry);
  ms_layout_free(&D->layout);
  ms_global_free(&D->g);
  free(D);
}

/* ---- one iteration ------------------------------------------------------------------ */

typedef struct job {
  ms_domains *D;
  int d;
  ms_status st;
  char msg[2048]; /* (a thread's message stays on its thread: carried here) */
} job;

static void *step_one(void *arg)
{
  job *j = arg;
  ms_domains *D = j->D;
  ms_sim *s = D->sim[j->d];
  ms_status st = ms_carry_lay(s, &D->carry[j->d], &D->g, &D->layout, j->d);
  if (!st)
    st = ms_sim_advance(s, 1);
  if (!st)
    st = ms_carry_read(s, &D->carry[j->d]);
  if (st)
    snprintf(j->msg, sizeof j->msg, "%s", ms_error_message());
  j->st = st;
  return NULL;
}

/* Every domain's step, each on a thread; the lowest failing domain's error is the run's. */
static ms_status step_all(ms_domains *D)
{
  job jobs[64];
  pthread_t tid[64];
  int started[64] = {0};
  for (int d = 0; d < D->P; d++) {
    jobs[d] = (job){D, d, MS_OK, ""};
    started[d] = d > 0 && !D->in_turn && pthread_create(&tid[d], NULL, step_one, &jobs[d]) == 0;
    if (d > 0 && !started[d])
      step_one(&jobs[d]); /* (no thread to be had: in turn) */
  }
  step_one(&jobs[0]);
  for (int d = 1; d < D->P; d++)
    if (started[d])
      pthread_join(tid[d], NULL);
  for (int d = 0; d < D->P; d++)
    if (jobs[d].st)
      return ms_fail(jobs[d].st, "%s", jobs[d].msg);
  return MS_OK;
}

ms_status ms_domains_advance(ms_domains *D, long iterations)
{
  ms_global_free(&D->g);
  ms_status st = ms_global_take(D->view, &D->g);
  long done = 0;
  for (; !st && done < iterations && !ms_sim_stop_requested(D->view); done++) {
    st = ms_layout_make(&D->layout, &D->cut, &D->g.st);
    if (!st)
      st = step_all(D);
    if (!st)
      st = ms_carry_merge(&D->g, D->carry, &D->layout);
  }
  if (!st && done > 0)
    st = ms_global_put(D->view, &D->g);
  if (!st)
    D->view->run.stats.iterations += done;
  return st;
}
