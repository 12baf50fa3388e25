/* The gathered state, a domain's share of it and its results (carry.h). */
#include "domains/carry.h"

#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "collision/device/gpu_manager.h"
#include "collision/dissipation.h"
#include "collision/forces.h"
#include "collision/slots.h"
#include "shared/grid.h"

static ms_status no_memory(const char *what)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for %s", what);
}

/* The dissipation's arrays for sim's sizes; 1 when out of memory. */
static int diss_arrays(double **dev, double **large, double **walls, const ms_sim *s)
{
  free(*dev), free(*large), free(*walls);
  *dev = malloc((ms_diss_entries(s) + 1) * sizeof **dev);
  *large = malloc(((size_t)s->p.n_large + 1) * sizeof **large);
  *walls = malloc((2 * (size_t)s->p.n_walls + 1) * sizeof **walls);
  return !*dev || !*large || !*walls;
}

void ms_global_large4(ms_global *g)
{
  for (int j = 0; j < g->st.n_large; j++) {
    memcpy(&g->large4[4 * j], &g->st.large_pos[2 * j], 2 * sizeof(double));
    memcpy(&g->large4[4 * j + 2], &g->st.large_vel[2 * j], 2 * sizeof(double));
  }
}

ms_status ms_global_take(ms_sim *view, ms_global *g)
{
  memset(g, 0, sizeof *g);
  g->friction = ms_sim_friction_on(view);
  ms_status st = ms_sim_read_state(view, &g->st);
  if (!st && g->friction)
    st = ms_sim_friction_export(view, &g->f);
  if (!st)
    st = ms_sim_walls_export(view, &g->w);
  if (!st && !(g->large4 = malloc(((size_t)g->st.n_large * 4 + 1) * sizeof(double))))
    st = no_memory("the large particles' state");
  if (!st)
    ms_global_large4(g);
  g->open = view->open.on;
  if (!st && g->open &&
      !(g->large_static = malloc(((size_t)g->st.n_large + 1) * sizeof(int32_t))))
    st = no_memory("the large particles' state");
  for (int j = 0; !st && g->open && j < g->st.n_large; j++)
    g->large_static[j] = g->st.large_static[j];
  if (!st && !(g->wall4 = calloc(4 * (size_t)g->w.n_walls + 1, sizeof(double))))
    st = no_memory("the walls' reactions");
  for (int k = 0; !st && k < g->w.n_walls; k++) { /* (as the last put left them) */
    ms_wall_info w;
    ms_sim_wall(view, k, &w);
    double r[4] = {w.fx, w.fy, w.torque, (double)w.contacts};
    memcpy(&g->wall4[4 * k], r, sizeof r);
  }
  g->diag = view->p.diag;
  if (!st && g->diag && diss_arrays(&g->diss_dev, &g->diss_large, &g->diss_walls, view))
    st = no_memory("the dissipation's accumulators");
  if (!st && g->diag)
    st = ms_diss_export(view, g->diss_dev, g->diss_large, &g->diss_worker, g->diss_walls);
  g->forces = view->dev.forces.on;
  if (!st && g->forces &&
      (!(g->force_small = calloc(2 * (size_t)g->st.slots + 1, sizeof(float))) ||
       !(g->force_large = calloc(2 * (size_t)g->st.n_large + 1, sizeof(float)))))
    st = no_memory("the forces");
  if (!st && g->forces) /* (empty slots keep what the view read: NaN where nothing ran) */
    st = ms_forces_read(view, g->force_small, g->force_large);
  if (!st && !g->st.small_img && !(g->st.small_img = calloc(2 * (size_t)g->st.slots + 1, sizeof(int))))
    st = no_memory("the images");
  if (!st && !g->st.large_img && !(g->st.large_img = calloc(2 * (size_t)g->st.n_large + 1, sizeof(int))))
    st = no_memory("the images");
  if (st)
    ms_global_free(g);
  return st;
}

ms_status ms_global_put(ms_sim *view, const ms_global *g)
{
  ms_status st = ms_sim_restore(view, g->st.step, (size_t)ms_sim_get_stats(view)->grid_capacity,
                                g->st.small_pos, g->st.small_vel, g->large4);
  if (!st && g->friction)
    st = ms_sim_friction_import(view, &g->f);
  if (!st)
    st = ms_sim_walls_import(view, &g->w);
  if (!st)
    st = ms_sim_set_images(view, g->st.small_img, g->st.large_img);
  if (!st && g->diag)
    st = ms_diss_import(view, g->diss_dev, g->diss_large, g->diss_worker, g->diss_walls);
  if (!st && g->forces && !g->forces_stale)
    st = ms_forces_put(view, g->force_small, g->force_large);
  for (int k = 0; !st && k < g->w.n_walls; k++) { /* (what the report and --output show) */
    ms_wall_now *now = &view->wk.wall[k];
    now->fx = g->wall4[4 * k];
    now->fy = g->wall4[4 * k + 1];
    now->torque = g->wall4[4 * k + 2];
    now->contacts = (int)g->wall4[4 * k + 3];
  }
  return st;
}

void ms_global_free(ms_global *g)
{
  ms_state_free(&g->st);
  ms_friction_state_free(&g->f);
  ms_walls_state_free(&g->w);
  free(g->large4);
  free(g->large_static);
  free(g->wall4);
  free(g->diss_dev), free(g->diss_large), free(g->diss_walls);
  free(g->force_small), free(g->force_large);
  memset(g, 0, sizeof *g);
}

void ms_carry_free(ms_carry *c)
{
  free(c->pos);
  free(c->vel);
  free(c->shape);
  free(c->img);
  free(c->key);
  free(c->local);
  ms_state_free(&c->out);
  ms_friction_state_free(&c->fout);
  ms_walls_state_free(&c->wout);
  free(c->wall4);
  free(c->diss_dev), free(c->diss_large), free(c->diss_walls);
  free(c->force_small), free(c->force_large);
  memset(c, 0, sizeof *c);
}

/* ---- into a domain ------------------------------------------------------------------ */

/* The domain's slots: room for what it holds, a little more so that it is not rebuilt
 * every iteration as its count moves (the whole state's meeting), or so that the records
 * a meeting brings fit (roomy: the incremental meeting's, whose every kernel visits the
 * slack: a sixteenth); the rest empty (kernels/shared/grid.h). */
static ms_status size_slots(ms_sim *ds, ms_carry *c, int held, int n_global)
{
  int n = ds->p.n_small, want = held + (c->roomy ? held / 16 + 4096 : 0);
  /* (a domain's simulation starts with the whole scene's slots: roomy, it sheds them) */
  int most = c->roomy ? want + held / 16 + 4096 : 2 * want + 64;
  if (n < want || n > most) {
    n = want + (c->roomy ? 0 : held / 8 + 16);
    ms_status st = ms_slots_resize(ds, n);
    if (st)
      return st;
  }
  if (n != c->slots || !c->local) {
    size_t k = (size_t)n + 1;
    free(c->pos), free(c->vel), free(c->shape), free(c->img), free(c->key);
    c->pos = malloc(2 * k * sizeof(double));
    c->vel = malloc(2 * k * sizeof(double));
    c->shape = malloc(2 * k * sizeof(float));
    c->img = malloc(2 * k * sizeof(int));
    c->key = malloc(k * sizeof(int));
    c->slots = n;
  }
  if (!c->local || c->n_local < n_global) {
    free(c->local);
    c->local = malloc(((size_t)n_global + 1) * sizeof(int));
    c->n_local = n_global;
  }
  if (!c->pos || !c->vel || !c->shape || !c->img || !c->key || !c->local)
    return no_memory("a domain's particles");
  return MS_OK;
}

static void fill_slots(ms_carry *c, const ms_global *g, const int *list, int held)
{
  const ms_state *s = &g->st;
  for (int i = 0; i < s->slots; i++)
    c->local[i] = -1;
  for (int k = 0; k < c->slots; k++) {
    if (k < held) {
      int i = list[k];
      c->local[i] = k;
      memcpy(&c->pos[2 * k], &s->small_pos[2 * i], 2 * sizeof(double));
      memcpy(&c->vel[2 * k], &s->small_vel[2 * i], 2 * sizeof(double));
      memcpy(&c->shape[2 * k], &s->small_shape[2 * i], 2 * sizeof(float));
      memcpy(&c->img[2 * k], &s->small_img[2 * i], 2 * sizeof(int));
      c->key[k] = i;
    } else { /* empty, keyed past every global slot */
      c->pos[2 * k] = c->pos[2 * k + 1] = MS_SLOT_EMPTY_AT;
      c->vel[2 * k] = c->vel[2 * k + 1] = 0.0;
      c->shape[2 * k] = c->shape[2 * k + 1] = 0.0f;
      c->img[2 * k] = c->img[2 * k + 1] = 0;
      c->key[k] = s->slots + k;
    }
  }
}

int ms_history_cmp(const void *x, const void *y)
{
  const ms_history_entry *a = x, *b = y;
  return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* The rotations, wall springs and histories of what the domain holds, in its slots. */
static ms_status friction_share(const ms_carry *c, const ms_global *g, ms_friction_state *f)
{
  const ms_friction_state *G = &g->f;
  int n = c->slots, nl = G->n_large;
  memset(f, 0, sizeof *f);
  f->n_small = n;
  f->n_large = nl;
  f->small_rot = calloc(2 * (size_t)n + 1, sizeof(double));
  f->small_wall_xi = calloc(4 * (size_t)n + 1, sizeof(float));
  f->large_rot = G->large_rot; /* (borrowed: every domain holds every large particle) */
  f->large_wall_xi = G->large_wall_xi;
  f->ll = G->ll;
  f->n_ll = G->n_ll;
  f->ss = malloc((G->n_ss + 1) * sizeof *f->ss);
  f->ls = malloc((G->n_ls + 1) * sizeof *f->ls);
  if (!f->small_rot || !f->small_wall_xi || !f->ss || !f->ls)
    return no_memory("a domain's histories");
  for (int i = 0; i < g->st.slots; i++) {
    int k = c->local[i];
    if (k >= 0) {
      memcpy(&f->small_rot[2 * k], &G->small_rot[2 * i], 2 * sizeof(double));
      memcpy(&f->small_wall_xi[4 * k], &G->small_wall_xi[4 * i], 4 * sizeof(float));
    }
  }
  for (size_t e = 0; e < G->n_ss; e++) {
    int a = c->local[G->ss[e].a], b = c->local[G->ss[e].b];
    if (a >= 0 && b >= 0)
      f->ss[f->n_ss++] = (ms_history_entry){a < b ? a : b, a < b ? b : a, G->ss[e].xi};
  }
  qsort(f->ss, f->n_ss, sizeof *f->ss, ms_history_cmp);
  for (size_t e = 0; e < G->n_ls; e++)
    if (c->local[G->ls[e].b] >= 0)
      f->ls[f->n_ls++] = (ms_history_entry){G->ls[e].a, c->local[G->ls[e].b], G->ls[e].xi};
  qsort(f->ls, f->n_ls, sizeof *f->ls, ms_history_cmp);
  return MS_OK;
}

static void friction_share_free(ms_friction_state *f)
{
  free(f->small_rot);
  free(f->small_wall_xi);
  free(f->ss);
  free(f->ls);
}

int ms_wall_history_cmp(const void *x, const void *y)
{
  const ms_wall_history *a = x, *b = y;
  if (a->a != b->a)
    return (a->a > b->a) - (a->a < b->a);
  if (a->b != b->b)
    return (a->b > b->b) - (a->b < b->b);
  return (a->feature > b->feature) - (a->feature < b->feature);
}

/* The walls' state with the small particles' contacts of what the domain holds. */
static ms_status walls_share(const ms_carry *c, const ms_global *g, ms_walls_state *w)
{
  *w = g->w;
  w->small = malloc(((size_t)g->w.n_small + 1) * sizeof *w->small);
  if (!w->small)
    return no_memory("a domain's wall histories");
  w->n_small = 0;
  for (int64_t e = 0; e < g->w.n_small; e++) {
    ms_wall_history h = g->w.small[e];
    if ((h.b = c->local[h.b]) >= 0)
      w->small[w->n_small++] = h;
  }
  qsort(w->small, (size_t)w->n_small, sizeof *w->small, ms_wall_history_cmp);
  return MS_OK;
}

/* --diagnostics: the accumulators of what the domain holds, in its slots (the rest 0), the
 * large particles' and the walls' as the whole state has them. */
static ms_status lay_dissipation(ms_sim *ds, ms_carry *c, const ms_global *g, int held)
{
  if (diss_arrays(&c->diss_dev, &c->diss_large, &c->diss_walls, ds))
    return no_memory("the dissipation's accumulators");
  size_t n = (size_t)c->slots, gn = (size_t)g->st.slots, rest = (size_t)g->st.n_large + 1;
  for (size_t k = 0; k < n; k++)
    c->diss_dev[k] = (int)k < held ? g->diss_dev[c->key[k]] : 0.0;
  memcpy(c->diss_dev + n, g->diss_dev + gn, rest * sizeof(double));
  return ms_diss_import(ds, c->diss_dev, g->diss_large, g->diss_worker, g->diss_walls);
}

ms_status ms_carry_lay(ms_sim *ds, ms_carry *c, const ms_global *g, const ms_layout *l, int d)
{
  ms_status st = size_slots(ds, c, l->held[d], g->st.slots);
  if (st)
    return st;
  fill_slots(c, g, l->list[d], l->held[d]);
  if (g->open && (st = ms_sim_set_large_shapes(ds, g->st.large_shape, g->large_static)))
    return st;
  if ((st = ms_sim_set_shapes(ds, c->shape)) ||
      (st = ms_sim_restore(ds, g->st.step, (size_t)ms_sim_get_stats(ds)->grid_capacity, c->pos,
                           c->vel, g->large4)) ||
      (st = ms_gpu_set_keys(&ds->ctx, &ds->dev, c->key)))
    return st;
  /* (the keys alone, not ms_sim_set_small_keys: its histories are the last lay's, which may
   * name slots a domain shed since; the share below replaces them, ordered by these keys) */
  if (g->friction) {
    ms_friction_state f;
    st = friction_share(c, g, &f);
    if (!st)
      st = ms_sim_friction_import(ds, &f);
    friction_share_free(&f);
  }
  ms_walls_state w = {0};
  if (!st)
    st = walls_share(c, g, &w);
  if (!st)
    st = ms_sim_walls_import(ds, &w);
  free(w.small);
  if (!st)
    st = ms_sim_set_images(ds, c->img, g->st.large_img);
  return st || !g->diag ? st : lay_dissipation(ds, c, g, l->held[d]);
}

/* ---- back from the domains ---------------------------------------------------------- */

ms_status ms_carry_read(ms_sim *ds, ms_carry *c)
{
  ms_friction_state_free(&c->fout);
  ms_walls_state_free(&c->wout);
  /* (into the arrays of the last iteration's: made again only when the slots changed) */
  ms_status st = ms_sim_snapshot(ds, &c->out);
  if (!st && ms_sim_friction_on(ds))
    st = ms_sim_friction_export(ds, &c->fout);
  if (!st)
    st = ms_sim_walls_export(ds, &c->wout);
  if (!st && ds->p.diag)
    st = ms_diss_export(ds, c->diss_dev, c->diss_large, &c->diss_worker, c->diss_walls);
  if (!st && ds->dev.forces.on) {
    free(c->force_small), free(c->force_large);
    c->force_small = malloc((2 * (size_t)ds->p.n_small + 1) * sizeof(float));
    c->force_large = malloc((2 * (size_t)ds->p.n_large + 1) * sizeof(float));
    st = c->force_small && c->force_large ? ms_forces_read(ds, c->force_small, c->force_large)
                                          : no_memory("the forces");
  }
  int n = ms_sim_wall_count(ds);
  if (!st && !c->wall4 && !(c->wall4 = calloc(4 * (size_t)n + 1, sizeof(double))))
    st = no_memory("the walls' reactions");
  for (int k = 0; !st && k < n; k++) {
    ms_wall_info w;
    ms_sim_wall(ds, k, &w);
    double r[4] = {w.fx, w.fy, w.torque, (double)w.contacts};
    memcpy(&c->wall4[4 * k], r, sizeof r);
  }
  return st;
}
