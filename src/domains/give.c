/* A domain's share of the state after its step, as bytes, and the merge (give.h). */
#include "domains/give.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


void ms_bytes_free(ms_bytes *b)
{
  free(b->b);
  memset(b, 0, sizeof *b);
}

void *ms_bytes_room(ms_bytes *o, size_t size)
{
  if (o->n + size > o->cap || !o->b) { /* (never NULL for room of none) */
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->n + size)
      cap *= 2;
    unsigned char *b = realloc(o->b, cap);
    if (!b)
      return NULL;
    o->b = b;
    o->cap = cap;
  }
  void *at = o->b + o->n;
  o->n += size;
  return at;
}

int ms_bytes_put(ms_bytes *o, const void *p, size_t size)
{
  void *at = ms_bytes_room(o, size);
  if (at && size)
    memcpy(at, p, size);
  return at != NULL;
}

/* The histories domain d owns, in global slots: a pair is its lower small slot's owner's,
 * a large particle's (and its walls') its owner's. Counts first, then the entries. */
static int give_histories(const ms_carry *c, const ms_layout *l, int d, ms_bytes *o, int friction)
{
  const ms_friction_state *f = &c->fout;
  const ms_walls_state *w = &c->wout;
  const int *list = l->list[d];
  ms_bytes ss = {0}, ls = {0}, ll = {0}, ws = {0}, wl = {0};
  int ok = 1;
  for (size_t e = 0; friction && ok && e < f->n_ss; e++) {
    int a = list[f->ss[e].a], b = list[f->ss[e].b];
    ms_history_entry h = {a < b ? a : b, a < b ? b : a, f->ss[e].xi};
    ok = l->owner_small[h.a] != d || ms_bytes_put(&ss, &h, sizeof h);
  }
  for (size_t e = 0; friction && ok && e < f->n_ls; e++) {
    ms_history_entry h = {f->ls[e].a, list[f->ls[e].b], f->ls[e].xi};
    ok = l->owner_small[h.b] != d || ms_bytes_put(&ls, &h, sizeof h);
  }
  for (size_t e = 0; friction && ok && e < f->n_ll; e++)
    ok = l->owner_large[f->ll[e].a] != d || ms_bytes_put(&ll, &f->ll[e], sizeof f->ll[e]);
  for (int64_t e = 0; ok && e < w->n_small; e++) {
    ms_wall_history h = w->small[e];
    h.b = list[h.b];
    ok = l->owner_small[h.b] != d || ms_bytes_put(&ws, &h, sizeof h);
  }
  for (int64_t e = 0; ok && e < w->n_large; e++)
    ok = l->owner_large[w->large[e].a] != d || ms_bytes_put(&wl, &w->large[e], sizeof w->large[e]);
  uint64_t n[5] = {ss.n, ls.n, ll.n, ws.n, wl.n};
  ok = ok && ms_bytes_put(o, n, sizeof n) && ms_bytes_put(o, ss.b, ss.n) && ms_bytes_put(o, ls.b, ls.n) &&
       ms_bytes_put(o, ll.b, ll.n) && ms_bytes_put(o, ws.b, ws.n) && ms_bytes_put(o, wl.b, wl.n);
  ms_bytes_free(&ss), ms_bytes_free(&ls), ms_bytes_free(&ll), ms_bytes_free(&ws),
      ms_bytes_free(&wl);
  return ok;
}

/* --diagnostics: its own small particles' accumulators, its large particles' (the
 * device-only path's and the worker's), the device's and the worker's own, the walls'. */
static int give_dissipation(const ms_carry *c, const ms_global *g, const ms_layout *l, int d,
                            ms_bytes *o)
{
  size_t n = (size_t)c->slots, nl = (size_t)g->st.n_large;
  int ok = ms_bytes_put(o, c->diss_dev, (size_t)l->own[d] * sizeof(double));
  for (size_t j = 0; ok && j < nl; j++)
    ok = l->owner_large[j] != d || (ms_bytes_put(o, &c->diss_dev[n + j], sizeof(double)) &&
                                    ms_bytes_put(o, &c->diss_large[j], sizeof(double)));
  return ok && ms_bytes_put(o, &c->diss_dev[n + nl], sizeof(double)) &&
         ms_bytes_put(o, &c->diss_worker, sizeof(double)) &&
         ms_bytes_put(o, c->diss_walls, 2 * (size_t)g->w.n_walls * sizeof(double));
}

ms_status ms_give(const ms_carry *c, const ms_global *g, const ms_layout *l, int d, ms_bytes *o)
{
  const ms_state *s = &c->out;
  int64_t head[2] = {s->step, l->own[d]};
  int ok = ms_bytes_put(o, head, sizeof head);
  for (int k = 0; ok && k < l->own[d]; k++) {
    static const int zero[2] = {0, 0};
    ok = ms_bytes_put(o, &s->small_pos[2 * k], 2 * sizeof(double)) &&
         ms_bytes_put(o, &s->small_vel[2 * k], 2 * sizeof(double)) &&
         ms_bytes_put(o, s->small_img ? &s->small_img[2 * k] : zero, 2 * sizeof(int)) &&
         (!g->friction || (ms_bytes_put(o, &c->fout.small_rot[2 * k], 2 * sizeof(double)) &&
                           ms_bytes_put(o, &c->fout.small_wall_xi[4 * k], 4 * sizeof(float))));
  }
  for (int j = 0; ok && j < s->n_large; j++) {
    static const int zero[2] = {0, 0};
    if (l->owner_large[j] != d)
      continue;
    ok = ms_bytes_put(o, &s->large_pos[2 * j], 2 * sizeof(double)) &&
         ms_bytes_put(o, &s->large_vel[2 * j], 2 * sizeof(double)) &&
         ms_bytes_put(o, s->large_img ? &s->large_img[2 * j] : zero, 2 * sizeof(int)) &&
         (!g->friction || (ms_bytes_put(o, &c->fout.large_rot[2 * j], 2 * sizeof(double)) &&
                           ms_bytes_put(o, &c->fout.large_wall_xi[4 * j], 4 * sizeof(float))));
  }
  ok = ok && give_histories(c, l, d, o, g->friction);
  /* the walls' motion: domain 0's is the run's (it holds every force-driven wall's band) */
  ok = ok && ms_bytes_put(o, c->wout.motion, 2 * (size_t)g->w.n_walls * sizeof(double)) &&
       ms_bytes_put(o, c->wall4, 4 * (size_t)g->w.n_walls * sizeof(double));
  ok = ok && (!g->diag || give_dissipation(c, g, l, d, o));
  ok = ok && (!g->forces || ms_bytes_put(o, c->force_small, 2 * (size_t)l->own[d] * sizeof(float)));
  for (int j = 0; ok && g->forces && j < s->n_large; j++)
    ok = l->owner_large[j] != d || ms_bytes_put(o, &c->force_large[2 * j], 2 * sizeof(float));
  return ok ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory for domain %d's results", d);
}

/* ---- the merge ---------------------------------------------------------------------- */

typedef struct reader {
  const unsigned char *p, *end;
} reader;

static int get(reader *r, void *dst, size_t size)
{
  if ((size_t)(r->end - r->p) < size)
    return 0;
  if (size)
    memcpy(dst, r->p, size);
  r->p += size;
  return 1;
}

static int take_particle(reader *r, int friction, double *pos, double *vel, int *img, double *rot,
                         float *wxi)
{
  return get(r, pos, 2 * sizeof(double)) && get(r, vel, 2 * sizeof(double)) &&
         get(r, img, 2 * sizeof(int)) &&
         (!friction || (get(r, rot, 2 * sizeof(double)) && get(r, wxi, 4 * sizeof(float))));
}

/* give_dissipation's, into g: the device's, the worker's and the walls' own from domain 0
 * (every domain holds every large pair and domain 0 every wall's band). */
static int take_dissipation(reader *r, ms_global *g, const ms_layout *l, int d)
{
  size_t gn = (size_t)g->st.slots, nl = (size_t)g->st.n_large;
  int ok = 1;
  for (int k = 0; ok && k < l->own[d]; k++)
    ok = get(r, &g->diss_dev[l->list[d][k]], sizeof(double));
  for (size_t j = 0; ok && j < nl; j++)
    ok = l->owner_large[j] != d ||
         (get(r, &g->diss_dev[gn + j], sizeof(double)) && get(r, &g->diss_large[j], sizeof(double)));
  double own[2], *walls = d == 0 ? g->diss_walls : NULL;
  ok = ok && get(r, own, sizeof own);
  if (ok && d == 0) {
    g->diss_dev[gn + nl] = own[0];
    g->diss_worker = own[1];
  }
  for (int k = 0; ok && k < g->w.n_walls; k++)
    ok = get(r, walls ? &walls[2 * k] : own, 2 * sizeof(double));
  return ok;
}

ms_status ms_take(ms_global *g, ms_gathered *h, const ms_layout *l, int d, const unsigned char *in,
                  size_t n, size_t *used)
{
  reader r = {in, in + n};
  int64_t head[2];
  int ok = get(&r, head, sizeof head) && head[1] == l->own[d];
  double *rot = g->friction ? g->f.small_rot : NULL, *lrot = g->friction ? g->f.large_rot : NULL;
  float *wxi = g->friction ? g->f.small_wall_xi : NULL, *lwxi = g->friction ? g->f.large_wall_xi : NULL;
  for (int k = 0; ok && k < l->own[d]; k++) {
    int i = l->list[d][k];
    ok = take_particle(&r, g->friction, &g->st.small_pos[2 * i], &g->st.small_vel[2 * i],
                       &g->st.small_img[2 * i], rot ? &rot[2 * i] : NULL,
                       wxi ? &wxi[4 * i] : NULL);
  }
  for (int j = 0; ok && j < g->st.n_large; j++)
    if (l->owner_large[j] == d)
      ok = take_particle(&r, g->friction, &g->st.large_pos[2 * j], &g->st.large_vel[2 * j],
                         &g->st.large_img[2 * j], lrot ? &lrot[2 * j] : NULL,
                         lwxi ? &lwxi[4 * j] : NULL);
  uint64_t count[5];
  ms_bytes *into[5] = {&h->ss, &h->ls, &h->ll, &h->ws, &h->wl};
  ok = ok && get(&r, count, sizeof count);
  for (int k = 0; ok && k < 5; k++)
    ok = (size_t)(r.end - r.p) >= count[k] && ms_bytes_put(into[k], r.p, count[k]) &&
         (r.p += count[k], 1);
  double scratch[4];
  for (int k = 0; ok && k < g->w.n_walls; k++)
    ok = get(&r, d == 0 ? &g->w.motion[2 * k] : scratch, 2 * sizeof(double));
  for (int k = 0; ok && k < g->w.n_walls; k++) /* domain 0's: it holds every wall's band */
    ok = get(&r, d == 0 ? &g->wall4[4 * k] : scratch, sizeof scratch);
  ok = ok && (!g->diag || take_dissipation(&r, g, l, d));
  for (int k = 0; ok && g->forces && k < l->own[d]; k++)
    ok = get(&r, &g->force_small[2 * l->list[d][k]], 2 * sizeof(float));
  for (int j = 0; ok && g->forces && j < g->st.n_large; j++)
    ok = l->owner_large[j] != d || get(&r, &g->force_large[2 * j], 2 * sizeof(float));
  if (!ok)
    return ms_fail(MS_ERR_RUNTIME, "domain %d's results are cut short or do not fit the layout "
                                   "(%zu bytes)", d, n);
  g->st.step = head[0];
  *used = (size_t)(r.p - in);
  return MS_OK;
}

/* Replaces *items, *count by the gathered entries, sorted. */
static int settle(ms_bytes *b, void *items_p, size_t *count, size_t size,
                  int (*cmp)(const void *, const void *))
{
  size_t n = b->n / size;
  void *items = b->b ? b->b : calloc(1, size); /* (none: an empty array, not NULL) */
  if (!items)
    return 0;
  if (n)
    qsort(items, n, size, cmp);
  free(*(void **)items_p);
  *(void **)items_p = items;
  *count = n;
  memset(b, 0, sizeof *b);
  return 1;
}

ms_status ms_take_end(ms_global *g, ms_gathered *h)
{
  size_t n_ws = 0, n_wl = 0;
  int ok = !g->friction ||
           (settle(&h->ss, &g->f.ss, &g->f.n_ss, sizeof(ms_history_entry), ms_history_cmp) &&
            settle(&h->ls, &g->f.ls, &g->f.n_ls, sizeof(ms_history_entry), ms_history_cmp) &&
            settle(&h->ll, &g->f.ll, &g->f.n_ll, sizeof(ms_history_entry), ms_history_cmp));
  ok = ok && settle(&h->ws, &g->w.small, &n_ws, sizeof(ms_wall_history), ms_wall_history_cmp) &&
       settle(&h->wl, &g->w.large, &n_wl, sizeof(ms_wall_history), ms_wall_history_cmp);
  if (ok) {
    g->w.n_small = (int64_t)n_ws;
    g->w.n_large = (int64_t)n_wl;
  }
  ms_bytes_free(&h->ss), ms_bytes_free(&h->ls), ms_bytes_free(&h->ll), ms_bytes_free(&h->ws),
      ms_bytes_free(&h->wl);
  if (!ok)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the gathered histories");
  ms_global_large4(g);
  return MS_OK;
}
