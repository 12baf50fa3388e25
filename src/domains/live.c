/* The incremental meeting (live.h). Each iteration: every domain steps, packs its records
 * (collision/split.h) and its own large particles' states into its give; the gives are
 * shared (all-gathered across ranks); each domain then takes its roles, and lays the
 * records given to it in ascending global slot and the large particles' states. Only
 * where a domain is short of slots is the whole state gathered and laid again. */
#include "domains/live.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/device/gpu_manager.h"
#include "collision/sim_internal.h"
#include "core/clock.h"
#include "domains/among.h"
#include "core/number.h"
#include "domains/domains_internal.h"
#include "domains/lockstep.h"
#include "domains/meet.h"
#include "gravity/ranks.h"
#include "shared/grid.h"

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' meeting");
}

int ms_live_fits(const ms_domains *D)
{
  const ms_sim *v = D->view;
  return !v->p.friction_on && v->p.n_walls == 0 && !v->open.on &&
         v->p.large_on == MS_LARGE_ON_CPU && !v->p.diag;
}

/* Domain d's speed check: the scene's, or the bound its windows need. */
static ms_status limit_speed(ms_domains *D, int d)
{
  int k = D->live.k;
  double u = k > 1 ? ms_meet_speed(D, k) : 0.0;
  return ms_split_speed_limit(D->sim[d], k > 1 ? u * u : D->view->p.max_speed2);
}

/* The domains no longer hold the state: every large particle back in its own slot, with
 * its shape (the whole state's meeting lays positions only). */
ms_status ms_live_drop(ms_domains *D)
{
  ms_live *v = &D->live;
  v->on = 0;
  v->k = 1; /* (the scene's speed check back) */
  ms_status st = MS_OK;
  for (int d = D->first; v->split && d < D->first + D->mine; d++) {
    st = st ? st : limit_speed(D, d);
    ms_split_grid_span(D->sim[d], 0, 0, LONG_MAX); /* (the whole grid) */
  }
  for (int d = D->first; v->large_r && d < D->first + D->mine; d++)
    ms_live_unplace_large(D, d);
  return st;
}

void ms_live_free(ms_live *v, int P)
{
  for (int d = 0; d < P; d++) {
    if (v->split)
      ms_split_free(&v->split[d]);
    if (v->spare)
      ms_bytes_free(&v->spare[d]);
    if (v->forces)
      ms_bytes_free(&v->forces[d]);
  }
  free(v->split);
  free(v->spare);
  free(v->forces);
  free(v->large_owner);
  free(v->large_xv), free(v->keep_xv), free(v->large_img), free(v->keep_img);
  free(v->large_r), free(v->large_m), free(v->large_static);
  free(v->held), free(v->slot);
  free(v->column);
  ms_lockstep_free(v->lockstep);
  memset(v, 0, sizeof *v);
}

static ms_status alloc_live(ms_domains *D)
{
  ms_live *v = &D->live;
  if (v->split)
    return MS_OK;
  v->split = calloc((size_t)D->P, sizeof *v->split);
  v->spare = calloc((size_t)D->P, sizeof *v->spare);
  v->forces = calloc((size_t)D->P, sizeof *v->forces);
  size_t nl = (size_t)D->view->p.n_large + 1;
  v->large_owner = malloc(nl * sizeof *v->large_owner);
  v->large_xv = malloc(4 * nl * sizeof *v->large_xv);
  v->keep_xv = malloc(4 * nl * sizeof *v->keep_xv);
  v->large_img = malloc(2 * nl * sizeof *v->large_img);
  v->keep_img = malloc(2 * nl * sizeof *v->keep_img);
  v->large_r = malloc(nl * sizeof *v->large_r);
  v->large_m = malloc(nl * sizeof *v->large_m);
  v->large_static = malloc(nl * sizeof *v->large_static);
  v->column = calloc((size_t)D->cut.ncol + 1, sizeof *v->column);
  v->held = malloc((size_t)D->P * nl * sizeof *v->held);
  v->slot = malloc((size_t)D->P * nl * sizeof *v->slot);
  if (!v->split || !v->spare || !v->forces || !v->large_owner || !v->held || !v->slot ||
      !v->large_xv || !v->keep_xv || !v->large_img || !v->keep_img || !v->large_r ||
      !v->large_m || !v->large_static || !v->column)
    return no_memory();
  /* (a closed system: the large particles' shapes are the scene's for the whole run) */
  for (int j = 0; D->mine > 0 && j < D->view->p.n_large; j++) {
    const ms_body *L = &D->view->wk.large[j];
    v->large_r[j] = L->r;
    v->large_m[j] = L->m;
    v->large_static[j] = L->is_static;
  }
  return MS_OK;
}

/* ---- the lay from the whole state ------------------------------------------------------ */

static ms_status lay_one(ms_domains *D, int d)
{
  ms_carry *c = &D->carry[d];
  const ms_layout *l = &D->layout;
  c->roomy = 1;
  ms_status st = ms_carry_lay(D->sim[d], c, &D->g, l, d);
  unsigned char *role = st ? NULL : malloc((size_t)c->slots + 1);
  if (!st && !role)
    st = no_memory();
  for (int k = 0; !st && k < c->slots; k++)
    role[k] = k < l->own[d] ? MS_ROLE_OWN : k < l->held[d] ? MS_ROLE_HALO : MS_ROLE_EMPTY;
  if (!st)
    st = ms_split_begin(D->sim[d], &D->live.split[d], role, D->g.st.slots);
  if (!st) /* (its records each way are about the halo it holds: its neighbours hold as much) */
    st = ms_split_reserve(D->sim[d], &D->live.split[d], l->held[d] - l->own[d], !D->ranks);
  if (!st)
    st = limit_speed(D, d);
  free(role);
  return st;
}

static void note_view(ms_domains *D)
{
  D->live.view_step = D->view->run.step;
  D->live.view_changes = D->view->run.changes;
}

static void set_cut(ms_domains *D)
{
  ms_split_cut *c = &D->live.cut;
  c->P = D->P;
  c->axis = D->cut.axis;
  c->ncol = D->cut.ncol;
  c->periodic = D->cut.periodic;
  c->inv_cell = D->cut.inv_cell;
  memcpy(c->start, D->layout.start, ((size_t)D->P + 1) * sizeof(int));
}

/* Whether the domains hand their large particles over every iteration: in one process or a
 * domain a rank, with large particles, not meeting every iteration after a failure;
 * MIXSIM_LARGE_HANDOVER=0 (measuring) grows the windows by the largest radius instead. */
static ms_status hand_over_or_not(ms_domains *D)
{
  ms_live *v = &D->live;
  long on = 1;
  ms_status st = ms_number_env("MIXSIM_LARGE_HANDOVER", 0, 1, &on);
  int ranks_ok = !D->ranks || (ms_among_one_each(D->per_rank, ms_ranks_size()) &&
                               ms_ranks_serialized());
  v->together = !st && on && ranks_ok && !v->one_by_one && D->view->p.n_large > 0;
  if (v->together && !v->lockstep)
    st = ms_lockstep_make(D->view->p.n_large, D->P, &v->lockstep);
  return st;
}

static ms_status lay(ms_domains *D)
{
  ms_live *v = &D->live;
  double t0 = ms_now();
  ms_global_free(&D->g);
  ms_status st = ms_global_take(D->view, &D->g);
  D->layout.n_band = 0; /* (no [wall.NAME] here) */
  if (!st)
    st = hand_over_or_not(D);
  if (!st)
    st = ms_meet_every(D, v->one_by_one, &v->k);
  v->together &= v->k > 1; /* (meeting every iteration, the windows are the same) */
  if (!st)
    st = ms_meet_span(D, v->k, &v->w_span);
  ms_grid_cut held = D->cut; /* (each domain holds its whole window from the start) */
  held.halo = st ? 0 : ms_meet_window(D, v->k);
  if (!st)
    st = ms_layout_make(&D->layout, &held, &D->g.st);
  if (!st) {
    set_cut(D);
    v->cut.w = held.halo;
    v->cut_next = v->cut;
    v->w_large = D->cut.halo ? ms_meet_window_large(D, v->k) : D->cut.ncol;
    for (int j = 0; j < D->g.st.n_large; j++) {
      memcpy(&v->large_xv[4 * j], &D->g.large4[4 * j], 4 * sizeof(double));
      memcpy(&v->large_img[2 * j], &D->g.st.large_img[2 * j], 2 * sizeof(int));
    }
    st = ms_domains_each(D, lay_one);
  }
  if (D->ranks)
    st = ms_ranks_agree(st);
  v->on = !st;
  v->behind = 0;
  v->forces_kept = 0;
  v->step = D->g.st.step;
  v->lays++;
  note_view(D);
  v->lay_s += ms_now() - t0;
  return st;
}

/* ---- one meeting ------------------------------------------------------------------------ */

/* Domain d's give: its records (or, settling, its own particles' records, with their forces
 * where --output asked for them) and its own large particles' states. */
static ms_status give(ms_domains *D, int d, int room, int large)
{
  const ms_split *x = &D->live.split[d];
  ms_sim *s = D->sim[d];
  ms_bytes *o = &D->gives[d];
  /* (in one process the records stay in the domain's page-locked buffer, read from there) */
  give_head h = {x->n_rec, room, 0, D->ranks, 0, 0, 0, 0, {0}};
  memcpy(h.to, x->to, sizeof h.to);
  for (int j = 0; large && j < s->p.n_large; j++)
    h.n_large += D->live.large_owner[j] == d;
  size_t rec_bytes = h.inline_rec ? (size_t)x->n_rec * sizeof(ms_split_record) : 0;
  o->n = 0;
  size_t large_bytes = (size_t)h.n_large * sizeof(large_rec);
  unsigned char *at = ms_bytes_room(o, sizeof h + rec_bytes + large_bytes);
  if (!at)
    return no_memory();
  memcpy(at, &h, sizeof h);
  /* (the records straight from the device into the give, or the page-locked buffer) */
  ms_status st = h.inline_rec ? ms_split_records(s, x, (ms_split_record *)(at + sizeof h))
                              : ms_split_records_pinned(s, &D->live.split[d], &D->live.rec_at[d]);
  large_rec *lr = (large_rec *)(at + sizeof h + rec_bytes);
  for (int j = 0, k = 0; !st && large && j < s->p.n_large; j++) {
    if (D->live.large_owner[j] != d)
      continue;
    lr[k] = (large_rec){j, {0, 0}, 0, {0, 0, 0, 0}};
    ms_live_large_get(D, d, j, lr[k].xv, lr[k].img);
    k++;
  }
  if (!st && !large && D->g.forces)
    st = ms_live_give_forces(D, d, o);
  return st;
}

/* What domain `to` reads of a give (ms_among_needs): its run of the records, where they are
 * inline, and the large particles' states, which every domain takes. */
static int give_needs(const unsigned char *head, size_t size, int to, size_t part[][2])
{
  give_head h;
  memcpy(&h, head, sizeof h);
  (void)size; /* (ms_among_share_needed checks the parts against it) */
  size_t rec = sizeof(ms_split_record), from = 0;
  for (int f = 0; f < to && f < MS_SPLIT_MAX; f++)
    from += (size_t)h.to[f];
  int k = 0;
  if (h.inline_rec && to < MS_SPLIT_MAX && h.to[to] > 0) {
    part[k][0] = sizeof h + from * rec;
    part[k++][1] = (size_t)h.to[to] * rec;
  }
  part[k][0] = sizeof h + (h.inline_rec ? (size_t)h.n_rec * rec : 0);
  part[k++][1] = (size_t)h.n_large * sizeof(large_rec);
  return k;
}

/* Domain d's give b (its records at `pinned` where they are not inline) into g. */
static ms_status read_give(const ms_bytes *b, int d, const ms_split_record *pinned, give_view *g)
{
  memset(g, 0, sizeof *g);
  if (b->n < sizeof g->h)
    return ms_fail(MS_ERR_RUNTIME, "domain %d gave %zu bytes, no header", d, b->n);
  memcpy(&g->h, b->b, sizeof g->h);
  size_t rec_bytes = g->h.inline_rec ? (size_t)g->h.n_rec * sizeof(ms_split_record) : 0;
  size_t large_bytes = (size_t)g->h.n_large * sizeof(large_rec);
  size_t force_bytes = ((size_t)g->h.n_force + (size_t)g->h.n_force_large) * sizeof(force_rec);
  size_t want = sizeof g->h + rec_bytes + large_bytes + force_bytes;
  if (g->h.n_rec < 0 || g->h.n_large < 0 || g->h.n_force < 0 || g->h.n_force_large < 0 ||
      b->n != want)
    return ms_fail(MS_ERR_RUNTIME, "domain %d gave %zu bytes, its header says %zu", d, b->n, want);
  if (!g->h.inline_rec && g->h.n_rec > 0 && !pinned)
    return ms_fail(MS_ERR_RUNTIME, "domain %d's records are not in this process", d);
  long sum = 0;
  int negative = 0;
  for (int e = 0; e < MS_SPLIT_MAX; e++) {
    negative |= g->h.to[e] < 0;
    sum += g->h.to[e];
  }
  if (negative || sum != g->h.n_rec)
    return ms_fail(MS_ERR_RUNTIME, "domain %d gave %d records, its parts say %ld", d,
                   g->h.n_rec, sum);
  g->rec = g->h.inline_rec ? (const ms_split_record *)(b->b + sizeof g->h) : pinned;
  g->large = (const large_rec *)(b->b + sizeof g->h + rec_bytes);
  g->force = (const force_rec *)(b->b + sizeof g->h + rec_bytes + large_bytes);
  return MS_OK;
}

/* Every domain's give, shared: read into gv[0..P) (checked once, then walked freely). */
static ms_status read_gives(ms_domains *D, give_view *gv)
{
  ms_status st = MS_OK;
  for (int e = 0; !st && e < D->P; e++)
    st = read_give(&D->gives[e], e, D->ranks ? NULL : D->live.rec_at[e], &gv[e]);
  return st;
}

/* Domain d ready for its block: its large particles placed, its grid's span, its part in
 * the large particles' hand-over (which no domain then waits for if it fails). */
static ms_status step_ready(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  ms_live_place_large(D, d);
  const ms_split_cut *c = &D->live.cut;
  ms_split_grid_span(s, c->axis, (long)c->start[d] - D->live.w_span,
                     (long)c->start[d + 1] + D->live.w_span);
  ms_status st = D->live.together
                    ? ms_lockstep_join(D->live.lockstep, d, s, D->live.large_owner,
                                       ms_live_held(&D->live, d, s->p.n_large), s->p.n_stepped)
                    : MS_OK;
  if (st)
    ms_lockstep_break(D->live.lockstep);
  return st;
}

/* Domain d's records after its block (from t0, stepped until t1) into its give. */
static ms_status pack_give(ms_domains *D, int d, ms_status st, double t0, double t1)
{
  ms_sim *s = D->sim[d];
  ms_split *x = &D->live.split[d];
  ms_lockstep_leave(s);
  if (!st)
    st = ms_split_pack(s, x, &D->live.cut_next, d);
  double tp = ms_now();
  if (!st)
    st = give(D, d, x->n_free + x->n_left, 1);
  double t2 = ms_now();
  D->live.pack_s[d] += tp - t1;
  D->live.out_s[d] += t2 - tp;
  D->live.rec_out[d] += x->n_rec;
  D->time[d].step_s += t1 - t0;
  D->time[d].read_s += t2 - t1;
  D->time[d].own += (double)D->layout.own[d] * D->live.block;
  ms_cutbal_note(&D->balance, d, (t2 - t0) / D->live.block);
  return st;
}

/* (the records change the state at once: only the advance's last state is checked where it
 * ends, the others by the next iteration's grid) */
static ms_status step_pack(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  double t0 = ms_now();
  ms_status st = step_ready(D, d);
  s->run.end_unchecked = !D->live.last;
  if (!st)
    st = ms_sim_advance(s, D->live.block);
  s->run.end_unchecked = 0;
  if (D->live.together) /* (across ranks: the hand-overs it did not make) */
    ms_lockstep_finish(D->live.lockstep, d);
  return pack_give(D, d, st, t0, ms_now());
}

/* Domains that share a device and hand their large particles over: every domain's iteration
 * in turn before any domain's next (which is the hand-over's order), then each's records. */
static ms_status step_pack_in_turn(ms_domains *D)
{
  ms_live *v = &D->live;
  int a = D->first, b = D->first + D->mine;
  double step_s[MAX_DOMAINS] = {0};
  ms_status st = MS_OK;
  for (int d = a; !st && d < b; d++)
    st = step_ready(D, d);
  for (int t = 0; !st && t < v->block; t++)
    for (int d = a; !st && d < b; d++) {
      ms_sim *s = D->sim[d];
      double t0 = ms_now();
      s->run.end_unchecked = t + 1 < v->block || !v->last;
      st = ms_sim_advance(s, 1);
      s->run.end_unchecked = 0;
      step_s[d] += ms_now() - t0;
    }
  for (int d = a; d < b; d++) {
    double t1 = ms_now();
    ms_status sd = pack_give(D, d, st, t1 - step_s[d], t1);
    st = st ? st : sd;
  }
  return st;
}

/* The records given to domain d: each giver's run of them, where the giver's give has it
 * (in the givers' order: where a record lands does not change the state, every sum being
 * ordered by global slot). */
static void collect(ms_domains *D, int d, ms_split_part part[MS_SPLIT_MAX], int *parts)
{
  *parts = 0;
  for (int e = 0; e < D->P; e++) {
    const give_view *g = &D->live.gv[e];
    int from = 0;
    for (int f = 0; f < d; f++)
      from += g->h.to[f];
    if (g->h.to[d] > 0)
      part[(*parts)++] = (ms_split_part){g->rec + from, g->h.to[d]};
  }
}

/* The large particles' states the owners gave, for every domain's next step. */
static ms_status take_large(ms_domains *D)
{
  ms_live *v = &D->live;
  for (int e = 0; e < D->P; e++) {
    const give_view g = v->gv[e];
    for (int k = 0; k < g.h.n_large; k++) {
      int j = g.large[k].j;
      if (j < 0 || j >= D->view->p.n_large)
        return ms_fail(MS_ERR_RUNTIME, "domain %d gave large particle %d", e, j);
      memcpy(&v->large_xv[4 * j], g.large[k].xv, 4 * sizeof(double));
      memcpy(&v->large_img[2 * j], g.large[k].img, 2 * sizeof(int));
    }
  }
  return MS_OK;
}

static ms_status commit_unpack(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  ms_live *v = &D->live;
  double t0 = ms_now();
  ms_split_part part[MS_SPLIT_MAX];
  int parts = 0, m = 0;
  ms_status st = ms_split_commit(s, &v->split[d]);
  double t1 = ms_now();
  collect(D, d, part, &parts);
  for (int p = 0; p < parts; p++)
    m += part[p].n;
  if (!st)
    st = ms_split_unpack(s, &v->split[d], part, parts);
  double t2 = ms_now();
  v->commit_s[d] += t1 - t0;
  v->in_s[d] += t2 - t1;
  v->rec_in[d] += m;
  D->time[d].lay_s += t2 - t0;
  return st;
}

/* Whether a domain is given more than it has slots free (every rank decides alike from
 * the shared gives). */
static ms_status short_of_room(ms_domains *D, int *short_room)
{
  ms_status st = read_gives(D, D->live.gv);
  *short_room = 0;
  for (int d = 0; !st && d < D->P; d++) {
    long given = 0;
    for (int e = 0; e < D->P; e++)
      given += D->live.gv[e].h.to[d];
    *short_room |= given > D->live.gv[d].h.room;
  }
  for (int e = 0; !st && e < D->P; e++)
    for (int d = 0; !st && d < MS_SPLIT_MAX; d++)
      if ((d == e || d >= D->P) && D->live.gv[e].h.to[d] != 0)
        st = ms_fail(MS_ERR_RUNTIME, "domain %d gave records for domain %d", e, d);
  return st;
}

/* The gives laid from are kept as they are until every domain has read from them (the next
 * meeting's pack): the next gives go into the spare ones. */
static void swap_gives(ms_domains *D)
{
  ms_bytes *t = D->gives;
  D->gives = D->live.spare;
  D->live.spare = t;
}

/* ---- the whole state for the view ------------------------------------------------------ */

static ms_status own_records(ms_domains *D, int d)
{
  ms_status st = ms_split_own(D->sim[d], &D->live.split[d], &D->live.cut, 1);
  return st ? st : give(D, d, 0, 0);
}

static ms_status settle_from_gives(ms_domains *D)
{
  ms_state *s = &D->g.st;
  ms_status st = read_gives(D, D->live.gv);
  for (int e = 0; !st && e < D->P; e++) {
    const give_view g = D->live.gv[e];
    for (int k = 0; k < g.h.n_rec; k++) {
      const ms_split_record *r = &g.rec[k];
      if (r->key < 0 || r->key >= s->slots)
        return ms_fail(MS_ERR_RUNTIME, "domain %d gave global slot %d of %d", e, r->key, s->slots);
      memcpy(&s->small_pos[2 * r->key], r->pos, sizeof r->pos);
      memcpy(&s->small_vel[2 * r->key], r->vel, sizeof r->vel);
      memcpy(&s->small_img[2 * r->key], r->img, sizeof r->img);
    }
    st = ms_live_settle_forces(D, e, &g);
  }
  if (st)
    return st;
  const ms_live *v = &D->live; /* (the large particles: as every rank has them) */
  for (int j = 0; j < s->n_large; j++) {
    memcpy(&s->large_pos[2 * j], &v->large_xv[4 * j], 2 * sizeof(double));
    memcpy(&s->large_vel[2 * j], &v->large_xv[4 * j + 2], 2 * sizeof(double));
    memcpy(&s->large_img[2 * j], &v->large_img[2 * j], 2 * sizeof(int));
  }
  s->step = D->live.step;
  ms_global_large4(&D->g);
  return MS_OK;
}

ms_status ms_live_settle(ms_domains *D)
{
  ms_live *v = &D->live;
  if (!v->on || !v->behind)
    return MS_OK;
  double t0 = ms_now();
  ms_status st = ms_domains_each(D, own_records);
  if (D->ranks)
    st = ms_ranks_agree(st);
  if (!st)
    st = ms_domains_share(D);
  if (!st)
    st = settle_from_gives(D);
  if (!st)
    st = ms_global_put(D->view, &D->g);
  if (D->ranks)
    st = ms_ranks_agree(st);
  v->behind = 0;
  v->on = !st;
  note_view(D);
  v->settles++;
  v->settle_s += ms_now() - t0;
  return st;
}

/* ---- the advance ------------------------------------------------------------------------ */

/* Every domain's block; handing the large particles over, as the domains can meet each
 * iteration (lockstep.h): across ranks, in turn on a shared device, else at once. */
static ms_status step_all(ms_domains *D)
{
  ms_live *v = &D->live;
  if (!v->together)
    return ms_domains_each(D, step_pack);
  ms_lockstep_mode how = D->ranks     ? MS_LOCKSTEP_RANKS
                         : D->in_turn ? MS_LOCKSTEP_IN_TURN
                                      : MS_LOCKSTEP_AT_ONCE;
  /* (a domain on a GPU waits an iteration's time polling) */
  double spin_s = D->sim[D->first]->cl.device_type & CL_DEVICE_TYPE_GPU ? 2e-3 : 0.0;
  ms_lockstep_begin(v->lockstep, D->mine, spin_s, how, v->block);
  if (how == MS_LOCKSTEP_IN_TURN)
    return step_pack_in_turn(D);
  return how == MS_LOCKSTEP_AT_ONCE ? ms_domains_each_together(D, step_pack)
                                    : ms_domains_each(D, step_pack);
}

/* The domains step v->block iterations each, then meet. */
static ms_status one_meeting(ms_domains *D)
{
  ms_live *v = &D->live;
  ms_live_large_owners(D);
  ms_status st = step_all(D);
  if (D->ranks)
    st = ms_ranks_agree(st);
  v->stop_seen = ms_domains_stop_agreed(D); /* (the advance stops after this block) */
  v->forces_kept = 0;
  if (!st && D->g.forces && ((v->last && D->forces_read) || v->stop_seen)) {
    st = ms_domains_each(D, ms_live_keep_forces);
    v->forces_kept = !st;
    if (D->ranks)
      st = ms_ranks_agree(st);
  }
  if (!st) /* (a domain lays only its own run of each give's records: collect) */
    st = ms_domains_share_needed(D, sizeof(give_head), give_needs);
  double t0 = ms_now();
  int short_room = 0;
  if (!st)
    st = short_of_room(D, &short_room);
  v->check_s += ms_now() - t0;
  if (!st && short_room) { /* the step's results into the view, and laid again with room */
    st = take_large(D);
    v->step += v->block;
    v->behind = 1;
    if (!st)
      st = ms_live_settle(D);
    if (!st)
      st = lay(D);
  } else if (!st) {
    st = ms_domains_each(D, commit_unpack);
    if (!st)
      st = take_large(D);
    swap_gives(D);
    v->cut = v->cut_next;
    v->step += v->block;
    v->meetings++;
    v->behind = 1;
  }
  if (D->ranks)
    st = ms_ranks_agree(st);
  double t1 = ms_now();
  if (!st && !short_room)
    st = ms_live_rebalance(D);
  v->balance_s += ms_now() - t1;
  D->merge_s += ms_now() - t0;
  return st;
}

static ms_status finish_one(ms_domains *D, int d) { return ms_split_finish(D->sim[d]); }

/* A domain's state checked as an advance's end checks it: its grid built (collision/device). */
static ms_status check_state(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  return ms_gpu_build_grid(&s->ctx, &s->dev, s->run.step);
}

static ms_status mark(ms_domains *D, int d)
{
  return ms_split_mark(D->sim[d], &D->live.split[d]);
}

/* The large particles' shared state: kept at the mark, back at a rewind. */
static void keep_large(ms_live *v, int n, int back)
{
  size_t xv = 4 * (size_t)n * sizeof(double), img = 2 * (size_t)n * sizeof(int);
  memcpy(back ? v->large_xv : v->keep_xv, back ? v->keep_xv : v->large_xv, xv);
  memcpy(back ? v->large_img : v->keep_img, back ? v->keep_img : v->large_img, img);
}

static ms_status rewind_one(ms_domains *D, int d)
{
  return ms_split_rewind(D->sim[d], &D->live.split[d]);
}

/* After the failure `why`: the domains back at the advance's start, the view settled
 * there (ms_domains_advance's promise), the failure's message kept. Whether that held. */
static int rewind_to(ms_domains *D, long start, ms_status why)
{
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", ms_error_message());
  ms_live *v = &D->live;
  ms_status st = ms_domains_each(D, rewind_one);
  if (D->ranks)
    st = ms_ranks_agree(st);
  keep_large(v, D->view->p.n_large, 1);
  ms_live_large_owners(D); /* (each owner's copy of its large particles is the mark's) */
  v->forces_kept = 0;      /* (no step of this run made the mark's state: NaN) */
  v->step = start;
  v->behind = 1;
  if (!st)
    st = ms_live_settle(D);
  ms_status dropped = ms_live_drop(D); /* (the next advance lays afresh, from the view) */
  ms_fail(why, "%s", msg);
  return !st && !dropped;
}

/* A failure meeting every k > 1 iterations may be a halo's outer columns going wrong
 * (which the windows let them): the advance again from its start, meeting every iteration,
 * where only a failure of the one device's state stops the run. */
static ms_status again_one_by_one(ms_domains *D, long iterations, double w0)
{
  D->wall_s += ms_now() - w0;
  ms_error_clear();
  D->live.one_by_one = 1;
  ms_status st = ms_live_advance(D, iterations);
  D->live.one_by_one = 0;
  return st;
}

ms_status ms_live_advance(ms_domains *D, long iterations)
{
  double w0 = ms_now();
  ms_live *v = &D->live;
  ms_status st = alloc_live(D);
  if (!st)
    st = ms_domains_follow(D);
  int moved = D->view->run.step != v->view_step || D->view->run.changes != v->view_changes;
  if (!st && iterations > 0 && (!v->on || moved))
    st = lay(D);
  if (!st && iterations > 0)
    st = ms_domains_each(D, mark);
  if (!st)
    keep_large(v, D->view->p.n_large, 0);
  long start = v->step, done = 0;
  v->stop_seen = ms_domains_stop_agreed(D);
  while (!st && done < iterations && !v->stop_seen) {
    v->block = (int)(iterations - done < v->k ? iterations - done : v->k);
    v->last = done + v->block == iterations;
    st = one_meeting(D);
    done += v->block;
  }
  if (!st && done > 0 && !v->last) { /* stopped inside the advance: its state checked here */
    st = ms_domains_each(D, check_state);
    if (D->ranks)
      st = ms_ranks_agree(st);
  }
  ms_status done_writing = ms_domains_each(D, finish_one); /* (the gives may change now) */
  st = st ? st : done_writing;
  int deep = v->k > 1, rewound = 0;
  if (st && v->on && done > 0)
    rewound = rewind_to(D, start, st);
  else if (st)
    (void)ms_live_drop(D); /* (st says what failed first) */
  if (st && deep && D->ranks) { /* (every rank tries again, or none: the advance is collective) */
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ms_error_message());
    rewound = !ms_ranks_agree(rewound ? MS_OK : MS_ERR_RUNTIME);
    ms_fail(st, "%s", msg);
  }
  if (st && deep && rewound)
    return again_one_by_one(D, iterations, w0);
  if (!st && v->behind) { /* the view's step moves on; its arrays follow at a settle */
    D->view->run.step = v->step;
    note_view(D);
  }
  D->iterations += done;
  D->wall_s += ms_now() - w0;
  if (!st)
    ms_domains_report_on_view(D);
  return st;
}
