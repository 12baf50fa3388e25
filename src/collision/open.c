/* Open systems: the exchanges with the outside between two advances (collision/open.h,
 * docs/open-systems.md). */
#include "collision/open.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "collision/open_scan.h"
#include "collision/pipeline.h"
#include "collision/slots.h"
#include "collision/worker/walls.h"
#include "core/rng.h"
#include "shared/grid.h"

/* Tries per new particle to find room in its inflow's region. */
#define PLACE_TRIES 32

ms_status ms_open_init(ms_open *o, const ms_scene *sc)
{
  memset(o, 0, sizeof *o);
  for (int k = 0; k < 4; k++)
    o->open[k] = sc->box_open[k] && !sc->periodic[k / 2];
  int sides = o->open[0] || o->open[1] || o->open[2] || o->open[3];
  o->on = sc->inflow_count > 0 || sc->outflow_count > 0 || sides;
  if (!o->on)
    return MS_OK;
  /* Every millisecond of simulated time, at least every step: an inflow's count is then
   * exact to one particle at any rate, and nothing stays out of the box for long. */
  o->every = (long)floor(1e-3 / sc->dt_s);
  o->every = o->every < 1 ? 1 : o->every;
  o->seed = sc->seed;
  o->n_in = sc->inflow_count;
  o->n_out = sc->outflow_count;
  o->in = calloc((size_t)o->n_in + 1, sizeof *o->in);
  o->out = calloc((size_t)o->n_out + 1, sizeof *o->out);
  o->in_total = calloc((size_t)o->n_in + 1, sizeof *o->in_total);
  o->out_total = calloc((size_t)o->n_out + 1, sizeof *o->out_total);
  if (!o->in || !o->out || !o->in_total || !o->out_total)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the scene's flows");
  if (o->n_in)
    memcpy(o->in, sc->inflows, (size_t)o->n_in * sizeof *o->in);
  if (o->n_out)
    memcpy(o->out, sc->outflows, (size_t)o->n_out * sizeof *o->out);
  return MS_OK;
}

void ms_open_free(ms_open *o)
{
  ms_open_scan_release(&o->scan);
  ms_slots_view_free(&o->view);
  free(o->in);
  free(o->out);
  free(o->in_total);
  free(o->out_total);
  memset(o, 0, sizeof *o);
}

/* ---- leaving ------------------------------------------------------------------------ */

static int in_region(const double r[4], double x, double y)
{
  return x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3];
}

/* Where a centre at (x, y) leaves: the first outflow holding it (k), an open side it is
 * past (n_out + side), or -1. */
static int exit_of(const ms_open *o, const ms_params *p, double x, double y)
{
  for (int k = 0; k < o->n_out; k++)
    if (in_region(o->out[k].region, x, y))
      return k;
  const double past[4] = {-x, x - p->box[0], -y, y - p->box[1]};
  for (int side = 0; side < 4; side++)
    if (o->open[side] && past[side] > 0.0)
      return o->n_out + side;
  return -1;
}

static ms_flow_total *exit_total(ms_open *o, int e)
{
  return e < o->n_out ? &o->out_total[e] : &o->side_total[e - o->n_out];
}

/* Empties the slots of the small particles that left; they are not reused before the
 * next exchange (`freed`), so that no contact history can pass to a newcomer. */
static void remove_small(ms_sim *s, ms_slots_view *v)
{
  ms_open *o = &s->open;
  for (int k = 0; k < o->scan.leave.n; k++) { /* the device's candidates, by slot */
    int i = o->scan.leave.slot[k];
    int e = exit_of(o, &s->p, v->pos[2 * i], v->pos[2 * i + 1]);
    if (e < 0)
      continue;
    ms_flow_total *t = exit_total(o, e);
    t->count++;
    t->mass += (double)s->p.shape[2 * i + 1];
    ms_slots_clear(s, v, i);
    o->low_empty = i < o->low_empty ? i : o->low_empty;
  }
}

/* Empties large slot i: parked, its wall histories gone (its other histories end with
 * its contacts at the next step), its id gone for good. */
static void clear_large(ms_sim *s, int i)
{
  ms_body_park(&s->wk.large[i]);
  if (s->p.friction_on)
    memset(&s->wk.hist.wall_xi[4 * i], 0, 4 * sizeof(float));
  ms_walls_forget_large(&s->wk, i);
  s->ids.large[i] = -1;
}

/* The large particles that left, as remove_small; a static one stays (it never moves:
 * one placed in an outflow is part of the scene's geometry). Returns how many. */
static int remove_large(ms_sim *s, uint8_t *freed)
{
  ms_open *o = &s->open;
  int n = 0;
  for (int i = 0; i < s->p.n_large; i++) {
    const ms_body *L = &s->wk.large[i];
    if (L->is_static)
      continue; /* an empty slot is static too */
    int e = exit_of(o, &s->p, L->x, L->y);
    if (e < 0)
      continue;
    ms_flow_total *t = exit_total(o, e);
    t->count++;
    t->mass += (double)L->m;
    clear_large(s, i);
    freed[i] = 1;
    n++;
  }
  return n;
}

/* ---- entering ----------------------------------------------------------------------- */

/* The draws of an inflow's n-th particle, the same wherever and whenever it is placed. */
static ms_rng particle_rng(const ms_open *o, int k, long n)
{
  ms_rng r = {o->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(k + 1)) ^
              (0xd1b54a32d192ed03ull * (uint64_t)(n + 1))};
  ms_rng_next(&r);
  return r;
}

static float draw_radius(const ms_inflow *in, ms_rng *r)
{
  double lo = in->radius_min, hi = in->radius_max, x = hi;
  if (lo < hi && in->radius_law == MS_RADIUS_AREA)
    x = sqrt(ms_rng_range(r, lo * lo, hi * hi));
  else if (lo < hi)
    x = ms_rng_range(r, lo, hi);
  float f = (float)x;
  return f < in->radius_min ? in->radius_min : f > in->radius_max ? in->radius_max : f;
}

/* Whether a disc at (x, y) of radius r overlaps a small particle or a large one. */
static int overlaps(const ms_sim *s, const ms_slots_view *v, const int *near, int n_near,
                    double x, double y, float r)
{
  const double *per = s->p.period;
  for (int a = 0; a < n_near; a++) {
    int j = near[a];
    double dx = ms_image(v->pos[2 * j] - x, per[0]), dy = ms_image(v->pos[2 * j + 1] - y, per[1]);
    double rs = (double)r + (double)s->p.shape[2 * j];
    if (dx * dx + dy * dy < rs * rs)
      return 1;
  }
  for (int i = 0; i < s->p.n_large; i++) {
    const ms_body *L = &s->wk.large[i];
    if (ms_body_empty(L))
      continue;
    double dx = ms_image(L->x - x, per[0]), dy = ms_image(L->y - y, per[1]);
    double rs = (double)r + (double)L->r;
    if (dx * dx + dy * dy < rs * rs)
      return 1;
  }
  return 0;
}

/* The small particles that could touch a newcomer in `region`: of the device's candidates
 * (near some inflow), those near this one. */
static int gather_near(const ms_sim *s, const ms_slots_view *v, const double region[4], float r,
                       int *near)
{
  double reach = (double)r + (double)s->p.r_small_max;
  int n = 0;
  for (int k = 0; k < s->open.scan.near.n; k++) {
    int j = s->open.scan.near.slot[k];
    if (ms_slots_empty(s, j))
      continue; /* (not since the scan: removed ones are not candidates) */
    double x = v->pos[2 * j], y = v->pos[2 * j + 1];
    double dx = x < region[0] ? region[0] - x : x > region[2] ? x - region[2] : 0.0;
    double dy = y < region[1] ? region[1] - y : y > region[3] ? y - region[3] : 0.0;
    if (s->p.period[0] > 0.0 || s->p.period[1] > 0.0 || (dx <= reach && dy <= reach))
      near[n++] = j;
  }
  return n;
}

/* The particles inflow k owes at time t: rate * (t - start) while it runs, at most
 * max_count, less those placed or skipped already. */
static long owed(const ms_open *o, int k, double t)
{
  long due = ms_inflow_due(&o->in[k], t);
  long done = o->in_total[k].count + o->in_total[k].skipped;
  return due > done ? due - done : 0;
}

/* A new large particle, with the next id, into the lowest empty large slot not emptied
 * by this exchange: the loader made one slot per particle the inflows can pour, so there
 * is always one (every slot emptied now held a particle placed before). */
static void fill_large(ms_sim *s, const uint8_t *freed, double x, double y, double vx,
                       double vy, float r, float m, double spin)
{
  int i = 0;
  while (!(ms_body_empty(&s->wk.large[i]) && !freed[i]))
    i++;
  ms_body *L = &s->wk.large[i];
  ms_body_park(L);
  L->x = x;
  L->y = y;
  L->vx = vx;
  L->vy = vy;
  L->r = r;
  L->m = m;
  L->is_static = 0;
  L->w = s->p.friction_on ? spin : 0.0;
  s->ids.large[i] = s->ids.next++;
  s->open.large_filled = 1;
}

/* Places inflow k's owed particles: a free slot each (the lowest not freed now), or new
 * room at the arrays' end; large ones into the large slots. */
static ms_status pour(ms_sim *s, ms_slots_view *v, int k, double t, int *near,
                      const uint8_t *large_freed)
{
  ms_open *o = &s->open;
  const ms_inflow *in = &o->in[k];
  long want = owed(o, k, t);
  int n_near = want > 0 ? gather_near(s, v, in->region, in->radius_max, near) : 0;
  while (o->low_empty < v->n && !ms_slots_empty(s, o->low_empty))
    o->low_empty++;
  int slot = o->low_empty; /* the lowest empty slot not freed now is at or after it */
  for (long q = 0; q < want; q++) {
    long serial = o->in_total[k].count + o->in_total[k].skipped;
    ms_rng r = particle_rng(o, k, serial);
    float rad = draw_radius(in, &r);
    double x = 0.0, y = 0.0;
    int tries = 0;
    for (; tries < PLACE_TRIES; tries++) {
      x = ms_rng_range(&r, in->region[0] + rad, in->region[2] - rad);
      y = ms_rng_range(&r, in->region[1] + rad, in->region[3] - rad);
      if (!overlaps(s, v, near, n_near, x, y, rad))
        break;
    }
    if (tries == PLACE_TRIES) {
      o->in_total[k].skipped++;
      continue;
    }
    double m = in->density * 3.14159265358979323846 * (double)rad * (double)rad;
    double vx = in->velocity[0], vy = in->velocity[1], sp = in->velocity_spread;
    if (sp > 0.0) {
      vx += ms_rng_range(&r, -sp, sp);
      vy += ms_rng_range(&r, -sp, sp);
    }
    if (in->kind == MS_INFLOW_LARGE) {
      fill_large(s, large_freed, x, y, vx, vy, rad, (float)m, in->spin);
    } else {
      while (slot < v->n && !(ms_slots_empty(s, slot) && !v->freed[slot]))
        slot++;
      if (slot == v->n) {
        ms_status st = ms_slots_grow(s, v, v->n + 1);
        if (st)
          return st;
      }
      ms_slots_fill(s, v, slot, x, y, vx, vy, rad, (float)m, in->spin);
      near[n_near++] = slot;
    }
    o->in_total[k].count++;
    o->in_total[k].mass += (double)(float)m;
  }
  return MS_OK;
}

/* ---- the exchange ------------------------------------------------------------------- */

/* The positions of the slots the device's filter found, into the view. */
static void take_positions(ms_slots_view *v, const ms_scan_list *l)
{
  for (int k = 0; k < l->n; k++)
    memcpy(&v->pos[2 * l->slot[k]], &l->xy[2 * k], 2 * sizeof(double));
}

static ms_status exchange(ms_sim *s)
{
  ms_slots_view *v = &s->open.view;
  ms_status st = ms_slots_prepare(s, v);
  if (!st)
    st = ms_open_scan_run(s);
  if (st)
    return st;
  take_positions(v, &s->open.scan.leave);
  take_positions(v, &s->open.scan.near);
  uint8_t *large_freed = calloc((size_t)s->p.n_large + 1, 1);
  if (!large_freed)
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for the scene's flows");
  s->open.large_filled = 0;
  int large_changed = !st && remove_large(s, large_freed) > 0;
  if (!st)
    remove_small(s, v);
  double t = (double)s->run.step * s->p.dt;
  for (int k = 0; !st && k < s->open.n_in; k++) {
    long want = owed(&s->open, k, t);
    size_t room = (size_t)s->open.scan.near.n + (size_t)want + 1;
    int *near = want > 0 ? malloc(room * sizeof *near) : NULL;
    if (want > 0 && !near)
      st = ms_fail(MS_ERR_RUNTIME, "out of memory for the scene's flows");
    if (!st && want > 0)
      st = pour(s, v, k, t, near, large_freed);
    free(near);
  }
  free(large_freed);
  if (!st)
    st = ms_slots_write(s, v);
  if (!st && (large_changed || s->open.large_filled)) {
    s->dl.shapes_stale = 1; /* the device-only path's copy of the shapes */
    ms_sim_state_changed(s);
  }
  return st;
}

ms_status ms_open_advance(ms_sim *s, long iterations)
{
  ms_open *o = &s->open;
  ms_status st = MS_OK;
  if (!o->started && s->run.step == 0) /* t = 0: what the inflows owe from the start */
    st = exchange(s);
  o->started = 1;
  while (!st && iterations > 0) {
    long to_next = o->every - s->run.step % o->every;
    long n = to_next < iterations ? to_next : iterations;
    long before = s->run.step;
    st = ms_pipeline_run(s, n);
    iterations -= n;
    if (st || s->run.step != before + n)
      break; /* stopped early: the exchange waits for the step it belongs to */
    if (s->run.step % o->every == 0)
      st = exchange(s);
  }
  return st;
}

ms_status ms_open_exchange_due(ms_sim *s, int starting, int *made)
{
  ms_open *o = &s->open;
  int due = o->on && (starting ? !o->started && s->run.step == 0 : s->run.step % o->every == 0);
  if (starting)
    o->started |= o->on;
  *made = due;
  return due ? exchange(s) : MS_OK;
}

int ms_sim_flow_count(const ms_sim *s)
{
  const ms_open *o = &s->open;
  return o->n_in + o->n_out + o->open[0] + o->open[1] + o->open[2] + o->open[3];
}

void ms_sim_flow(const ms_sim *s, int k, ms_flow_info *out)
{
  static const char *const sides[4] = {"left", "right", "bottom", "top"};
  const ms_open *o = &s->open;
  memset(out, 0, sizeof *out);
  if (k < o->n_in) {
    snprintf(out->name, sizeof out->name, "%s", o->in[k].section);
    out->kind = MS_FLOW_INFLOW;
    out->total = o->in_total[k];
    return;
  }
  k -= o->n_in;
  if (k < o->n_out) {
    snprintf(out->name, sizeof out->name, "%s", o->out[k].section);
    out->kind = MS_FLOW_OUTFLOW;
    out->total = o->out_total[k];
    return;
  }
  k -= o->n_out;
  for (int side = 0; side < 4; side++) {
    if (!o->open[side] || k-- > 0)
      continue;
    snprintf(out->name, sizeof out->name, "open.%s", sides[side]);
    out->kind = MS_FLOW_OPEN_SIDE;
    out->total = o->side_total[side];
    return;
  }
}

void ms_sim_set_flow(ms_sim *s, int k, const ms_flow_total *t)
{
  ms_open *o = &s->open;
  if (k < o->n_in) {
    o->in_total[k] = *t;
    return;
  }
  k -= o->n_in;
  if (k < o->n_out) {
    o->out_total[k] = *t;
    return;
  }
  k -= o->n_out;
  for (int side = 0; side < 4; side++)
    if (o->open[side] && k-- == 0)
      o->side_total[side] = *t;
}
