/* DIR/diagnostics.csv (io/diagnostics.h): the header, the sample the simulation thread
 * takes with a frame, and the row the writer thread computes from the frame's copy of
 * the state (energies, momentum, contacts by kind over a host grid of the small
 * particles, as io/contacts.c finds them) and appends in one write. docs/output.md
 * defines every column. */
#include "io/diagnostics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io_wait.h"
#include "io/host_grid.h"
#include "shared/contact.h"
#include "shared/grid.h"

struct ms_diag {
  int fd;
  long long bytes; /* written so far */
  char path[4352];
  int gravity;
  ms_diag_setup c;
  ms_host_grid g; /* the writer thread's grid of the small particles */
  float r_max;
  float r_large; /* the largest large radius (the sweep's seam) */
  struct edge *edges; /* the large particles by left edge */
  ms_flow_total *last; /* the flows' totals at the last row */
  uint8_t *inflow;     /* per flow: an inflow (it has a skipped column) */
  char *row;           /* a row's text, room for every column */
};

struct edge {
  double left;
  int i;
};

static const char collision_header[] =
    "step,time,ke_translational,ke_rotational,potential,elastic_normal,elastic_tangential,"
    "dissipated,total,px,py,"
    "contacts_ss,contacts_ls,contacts_ll,contacts_wall,max_overlap,coordination,"
    "grid_builds,grid_overflow_builds,grid_capacity,zone_iterations,zone_cells_mean,"
    "zone_particles_mean,wall_work\n";

/* A collision row's room: its fixed columns, and at most 70 characters a flow. */
#define ROW_ROOM(n_flows) (1024 + 70 * (size_t)(n_flows))

static const char gravity_header[] =
    "step,time,kinetic,potential,energy,energy_error,px,py,pz,lx,ly,lz,virial_ratio\n";

/* Writes all of `text` (a whole row) in one call where the system allows; something
 * other than a regular file is waited for in slices a stop ends (core/io_wait.h). */
static ms_status put(ms_diag *d, const char *text, size_t n)
{
  size_t done = 0;
  int rc = ms_io_test_full(d->path, d->bytes + (long long)n)
               ? (errno = ENOSPC, -1)
               : ms_io_write_all(d->fd, text, n, &done);
  d->bytes += (long long)done;
  if (rc && errno == ECANCELED)
    return ms_fail(MS_ERR_STOPPED, "--diagnostics: cannot write '%s': stopped (SIGINT/SIGTERM) "
                   "while waiting for its reader", d->path);
  if (rc)
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: cannot write '%s': %s", d->path,
                   strerror(errno));
  return MS_OK;
}

static ms_status open_file(const char *dir, int gravity, ms_diag **out)
{
  *out = NULL;
  ms_diag *d = calloc(1, sizeof *d);
  if (!d)
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  d->gravity = gravity;
  snprintf(d->path, sizeof d->path, "%s/diagnostics.csv", dir);
  d->fd = ms_io_open(d->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (d->fd < 0) {
    ms_status st = ms_fail(errno == ECANCELED ? MS_ERR_STOPPED : MS_ERR_RUNTIME,
                           "--diagnostics: cannot create '%s': %s", d->path,
                           errno == ECANCELED ? "stopped (SIGINT/SIGTERM) while waiting for a "
                                                "reader" : strerror(errno));
    free(d);
    return st;
  }
  const char *h = gravity ? gravity_header : collision_header;
  ms_status st = put(d, h, strlen(h) - (gravity ? 0 : 1)); /* collision: flows, then \n */
  if (st) {
    ms_diag_close(d);
    return st;
  }
  *out = d;
  return MS_OK;
}

/* The flows' columns: an inflow's count, mass and skipped, an outflow's or an open side's
 * count and mass, each over the time since the previous row; then the small particles in
 * the box. None for a closed system. */
static ms_status flow_header(ms_diag *d)
{
  char h[512];
  ms_status st = MS_OK;
  for (int k = 0; !st && k < d->c.n_flows; k++) {
    char name[96];
    snprintf(name, sizeof name, "%s", d->c.flows[k].name);
    for (char *c = name; *c; c++)
      *c = *c == '.' ? '_' : *c;
    int len = snprintf(h, sizeof h, d->c.flows[k].kind == MS_FLOW_INFLOW
                                        ? ",%s_count,%s_mass,%s_skipped"
                                        : ",%s_count,%s_mass",
                       name, name, name);
    st = put(d, h, (size_t)len);
  }
  const char *end = d->c.n_flows ? ",small_count\n" : "\n";
  return st ? st : put(d, end, strlen(end));
}

ms_status ms_diag_open(const char *dir, const ms_diag_setup *setup, ms_diag **out)
{
  ms_status st = open_file(dir, 0, out);
  if (st)
    return st;
  ms_diag *d = *out;
  d->c = *setup;
  d->last = calloc((size_t)setup->n_flows + 1, sizeof *d->last);
  d->inflow = calloc((size_t)setup->n_flows + 1, 1);
  d->row = malloc(ROW_ROOM(setup->n_flows));
  for (int k = 0; d->inflow && k < setup->n_flows; k++)
    d->inflow[k] = setup->flows[k].kind == MS_FLOW_INFLOW;
  if (!d->last || !d->inflow || !d->row || (st = flow_header(d))) {
    ms_diag_close(d);
    *out = NULL;
    return st ? st : ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  }
  d->c.flows = NULL; /* the names are written; the rows take the totals from the samples */
  d->r_max = setup->r_small_max;
  for (int i = 0; i < setup->n_small; i++)
    d->r_max = setup->radius[i] > d->r_max ? setup->radius[i] : d->r_max;
  d->r_large = setup->r_large_max; /* the large inflows' too */
  for (int i = setup->n_small; i < setup->n; i++)
    d->r_large = setup->radius[i] > d->r_large ? setup->radius[i] : d->r_large;
  int grid = ms_host_grid_init(&d->g, setup->box, setup->period, d->r_max, setup->n_small);
  d->edges = malloc(((size_t)(setup->n - setup->n_small) + 1) * sizeof *d->edges);
  if (!grid || !d->edges) {
    ms_diag_close(d);
    *out = NULL;
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  }
  return MS_OK;
}

ms_status ms_diag_open_gravity(const char *dir, ms_diag **out)
{
  return open_file(dir, 1, out);
}

void ms_diag_close(ms_diag *d)
{
  if (!d)
    return;
  if (d->fd >= 0)
    close(d->fd);
  ms_host_grid_free(&d->g);
  free(d->edges);
  free(d->last);
  free(d->inflow);
  free(d->row);
  free(d);
}

ms_status ms_diag_take(ms_sim *sim, ms_diag_sample *out)
{
  ms_flow_total *flows = out->flows;
  int n = ms_sim_flow_count(sim), room = out->n_flows;
  memset(out, 0, sizeof *out);
  if (n > room && !(flows = realloc(flows, (size_t)n * sizeof *flows)))
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  out->flows = flows;
  out->n_flows = n;
  for (int k = 0; k < n; k++) {
    ms_flow_info f;
    ms_sim_flow(sim, k, &f);
    flows[k] = f.total;
  }
  out->small_count = ms_sim_small_count(sim);
  out->stats = *ms_sim_get_stats(sim);
  ms_status st = ms_sim_dissipated(sim, &out->dissipated);
  return st ? st : ms_sim_spring_energy(sim, &out->spring);
}

void ms_diag_sample_free(ms_diag_sample *smp)
{
  free(smp->flows);
  smp->flows = NULL;
  smp->n_flows = 0;
}

void ms_diag_particles(ms_diag *d, int n, int n_small, const float *radius, const float *mass,
                       const uint8_t *kind)
{
  d->c.n = n;
  d->c.n_small = n_small;
  d->c.radius = radius;
  d->c.mass = mass;
  d->c.kind = kind;
}

/* The flows' columns of a row: what each did since the last row. */
static int flow_columns(ms_diag *d, const ms_diag_sample *smp, char *row, size_t room)
{
  int len = 0;
  for (int k = 0; k < d->c.n_flows && k < smp->n_flows && (size_t)len < room; k++) {
    const ms_flow_total *now = &smp->flows[k], *was = &d->last[k];
    len += snprintf(row + len, room - (size_t)len, ",%ld,%.9g", now->count - was->count,
                    now->mass - was->mass);
    if (d->inflow[k] && (size_t)len < room)
      len += snprintf(row + len, room - (size_t)len, ",%ld", now->skipped - was->skipped);
    d->last[k] = *now;
  }
  if (d->c.n_flows && (size_t)len < room)
    len += snprintf(row + len, room - (size_t)len, ",%d", smp->small_count);
  return len;
}

ms_status ms_diag_take_gravity(ms_gravity *g, ms_diag_sample *out)
{
  memset(out, 0, sizeof *out);
  return ms_gravity_diagnose(g, &out->grav);
}

/* ---- one collision row (writer thread) ---------------------------------------------- */

/* The contacts of one row: counts by kind, the elastic energy of the normal springs,
 * the largest overlap over the smaller radius. */
typedef struct tally {
  long ss, ls, ll, wall;
  double elastic, max_overlap;
} tally;

typedef struct view {
  const ms_state *st;
  const ms_diag_setup *c;
} view;

static const double *pos_of(const view *v, int i)
{
  int n = v->c->n_small;
  return i < n ? &v->st->small_pos[2 * i] : &v->st->large_pos[2 * (i - n)];
}

static const double *vel_of(const view *v, int i)
{
  int n = v->c->n_small;
  return i < n ? &v->st->small_vel[2 * i] : &v->st->large_vel[2 * (i - n)];
}

static int bin_small(ms_diag *d, const view *v)
{
  if (!ms_host_grid_bin(&d->g, v->st->small_pos, d->c.n_small))
    return 0;
  return 1;
}

/* A touching pair (the force law's own test): its count, spring energy and overlap. */
static int pair(const ms_diag *d, const view *v, int i, int j, tally *t)
{
  double o[2];
  ms_host_grid_offset(&d->g, pos_of(v, i), pos_of(v, j), o);
  float ri = v->c->radius[i], rj = v->c->radius[j];
  if (!ms_touching((float)o[0], (float)o[1], ri + rj))
    return 0;
  double overlap = (double)(ri + rj) - hypot(o[0], o[1]);
  t->elastic += 0.5 * (double)v->c->k * overlap * overlap;
  double rel = overlap / (double)(ri < rj ? ri : rj);
  t->max_overlap = rel > t->max_overlap ? rel : t->max_overlap;
  return 1;
}

/* Particle i against the small particles in its reach; small pairs once (j > i). */
static void against_small(const ms_diag *d, const view *v, int i, tally *t)
{
  const double *p = pos_of(v, i);
  float r = d->c.radius[i];
  int q[4];
  ms_host_grid_rect(&d->g, p[0], p[1], (double)r + (double)d->r_max, q);
  for (int y = q[2]; y <= q[3]; y++)
    for (int x = q[0]; x <= q[1]; x++) {
      int cell = ms_host_grid_cell(&d->g, x, y);
      if (cell < 0)
        continue;
      for (size_t k = d->g.first[cell]; k < d->g.first[cell + 1]; k++) {
        int j = d->g.order[k];
        if ((i < d->c.n_small && j <= i) || !pair(d, v, i, j, t))
          continue;
        if (i < d->c.n_small)
          t->ss++;
        else
          t->ls++;
      }
    }
}

static int by_left(const void *a, const void *b)
{
  const struct edge *x = a, *y = b;
  return x->left < y->left ? -1 : x->left > y->left ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* Large pairs by a sweep along x; two static particles never act on each other. */
static void large_pairs(ms_diag *d, const view *v, tally *t)
{
  int n0 = d->c.n_small, nl = d->c.n - n0;
  for (int a = 0; a < nl; a++)
    d->edges[a] = (struct edge){pos_of(v, n0 + a)[0] - d->c.radius[n0 + a], n0 + a};
  qsort(d->edges, (size_t)nl, sizeof *d->edges, by_left);
  for (int a = 0; a < nl; a++) {
    int i = d->edges[a].i;
    double right = pos_of(v, i)[0] + d->c.radius[i];
    for (int b = a + 1; b < nl; b++) {
      if (!ms_sweep_pair(d->edges[a].left, right, d->edges[b].left, d->g.period[0],
                         (double)d->r_large)) {
        if (!(d->g.period[0] > 0.0))
          break; /* past i's right edge; without a seam no later j comes back */
        continue;
      }
      int j = d->edges[b].i;
      if (!(d->c.kind[i] == 2 && d->c.kind[j] == 2) && pair(d, v, i, j, t))
        t->ll++;
    }
  }
}

/* The walls that push particle i (ms_walls_force's gaps; static ones feel none), and its
 * contacts with the scene's walls (their own tests). */
static void walls(const ms_diag *d, const view *v, const ms_wall_frame *scene, int i, tally *t)
{
  if (d->c.kind[i] == 2)
    return;
  const double *p = pos_of(v, i);
  float r = d->c.radius[i];
  if (scene && scene->n) {
    double sq = 0.0, most = 0.0;
    t->wall += ms_wall_frame_touch(scene, p, r, &sq, &most);
    t->elastic += 0.5 * (double)d->c.k * sq;
    t->max_overlap = most / r > t->max_overlap ? most / r : t->max_overlap;
  }
  const double *sd = d->c.side;
  double gap[4] = {p[0] - sd[0], sd[1] - p[0], p[1] - sd[2], sd[3] - p[1]};
  for (int side = 0; side < 4; side++) {
    if (!((float)gap[side] < r))
      continue;
    double overlap = (double)r - gap[side];
    t->wall++;
    t->elastic += 0.5 * (double)d->c.k * overlap * overlap;
    t->max_overlap = overlap / r > t->max_overlap ? overlap / r : t->max_overlap;
  }
}

/* Kinetic (translational, rotational) and potential energy and momentum. */
static void motion(const ms_diag *d, const view *v, double out[5])
{
  memset(out, 0, 5 * sizeof *out);
  const ms_state *st = v->st;
  for (int i = 0; i < d->c.n; i++) {
    if (d->c.kind[i] == 2)
      continue; /* static: no motion, a constant potential left out */
    double m = d->c.mass[i], r = d->c.radius[i];
    const double *x = pos_of(v, i), *u = vel_of(v, i);
    out[0] += 0.5 * m * (u[0] * u[0] + u[1] * u[1]);
    const double *rot = i < d->c.n_small ? (st->small_rot ? &st->small_rot[2 * i] : NULL)
                                         : (st->large_rot ? &st->large_rot[2 * (i - d->c.n_small)]
                                                          : NULL);
    if (rot)
      out[1] += 0.5 * (0.5 * m * r * r) * rot[1] * rot[1];
    /* the potential at the unwrapped position: no jump where a particle wraps */
    const int *img = i < d->c.n_small ? (st->small_img ? &st->small_img[2 * i] : NULL)
                                      : (st->large_img ? &st->large_img[2 * (i - d->c.n_small)]
                                                       : NULL);
    double ux = img ? x[0] + img[0] * d->c.period[0] : x[0];
    double uy = img ? x[1] + img[1] * d->c.period[1] : x[1];
    out[2] -= m * (d->c.g[0] * ux + d->c.g[1] * uy);
    out[3] += m * u[0];
    out[4] += m * u[1];
  }
}

static double mean(long total, long n) { return n > 0 ? (double)total / (double)n : 0.0; }

ms_status ms_diag_row(ms_diag *d, const ms_state *st, const ms_diag_sample *smp,
                      const ms_wall_frame *scene)
{
  view v = {st, &d->c};
  tally t = {0};
  if (!bin_small(d, &v))
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  for (int i = 0; i < d->c.n; i++) {
    against_small(d, &v, i, &t);
    walls(d, &v, scene, i, &t);
  }
  large_pairs(d, &v, &t);
  double m[5];
  motion(d, &v, m);
  double work = scene ? ms_wall_frame_work(scene) : 0.0;
  double total = m[0] + m[1] + m[2] + t.elastic + smp->spring + smp->dissipated - work;
  double z = d->c.n > 0 ? (2.0 * (double)(t.ss + t.ls + t.ll) + (double)t.wall) / d->c.n : 0.0;
  const ms_sim_stats *s = &smp->stats;
  char *row = d->row;
  size_t room = ROW_ROOM(d->c.n_flows);
  int len = snprintf(row, room,
                     "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%ld,%ld,%ld,"
                     "%ld,"
                     "%.9g,%.9g,%ld,%ld,%d,%ld,%.9g,%.9g,%.17g",
                     st->step, (double)st->step * d->c.dt, m[0], m[1], m[2], t.elastic,
                     smp->spring, smp->dissipated, total, m[3], m[4], t.ss, t.ls, t.ll, t.wall,
                     t.max_overlap, z, s->grid_builds, s->overflow_builds, s->grid_capacity, s->zone_iterations,
                     mean(s->zone_cells_total, s->zone_iterations),
                     mean(s->zone_particles_total, s->zone_iterations), work);
  len += flow_columns(d, smp, row + len, room - 1 - (size_t)len);
  row[len++] = '\n';
  return put(d, row, (size_t)len);
}

/* ---- gravity mode ------------------------------------------------------------------- */

ms_status ms_diag_row_gravity(ms_diag *d, const ms_diag_sample *smp)
{
  const ms_gravity_diag *g = &smp->grav;
  char row[1024], e[200] = ",,";
  if (g->has_energy)
    snprintf(e, sizeof e, "%.17g,%.17g,%.17g", g->potential, g->energy, g->energy_error);
  int len = snprintf(row, sizeof row,
                     "%ld,%.17g,%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,",
                     g->step, g->time, g->kinetic, e, g->momentum[0], g->momentum[1],
                     g->momentum[2], g->angular_momentum[0], g->angular_momentum[1],
                     g->angular_momentum[2]);
  if (g->has_energy)
    len += snprintf(row + len, sizeof row - (size_t)len, "%.17g", g->virial_ratio);
  row[len++] = '\n';
  return put(d, row, (size_t)len);
}
