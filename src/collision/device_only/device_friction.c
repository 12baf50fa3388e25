/* Friction on the device-only path (collision/device_only/device_friction.h): buffers, the lists'
 * room, the exchange with the host's ms_worker_history, and the enqueueing of
 * kernels/large_friction.cl. */
#include "collision/device_only/device_friction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/device/events.h"
#include "collision/device_only/device_walls.h"
#include "collision/worker/worker_friction.h"
#include "core/grow.h"

#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)


/* Cells of a rectangle of half-width `reach` along an axis of n cells, at most: the
 * rounding of the two ends can add one cell to the exact count, the +3 covers it. */
static size_t axis_cells(double reach, double inv_cell, int n)
{
  double c = ceil(2.0 * reach * inv_cell) + 3.0;
  return c > (double)n ? (size_t)n : (size_t)c;
}

static size_t rect_cells(const ms_ctx *c, double reach)
{
  const ms_grid *g = &c->p->grid;
  return axis_cells(reach, g->inv_cell, g->nx) * axis_cells(reach, g->inv_cell, g->ny);
}

static float r_large_max(const ms_ctx *c, ms_worker *w)
{
  float r = 0.0f;
  for (int i = 0; i < c->p->n_large; i++)
    r = w->large[i].r > r ? w->large[i].r : r;
  return r;
}

/* Slots a list needs so that it can never overflow: every particle listed in its owner's
 * rectangle (its cells each at most full; large-large's widened by dl->margin: every disc
 * that can touch it), at most every possible partner. */
static size_t ls_room(const ms_ctx *c, ms_worker *w)
{
  double reach = (double)r_large_max(c, w) + c->p->r_small_max;
  size_t k = rect_cells(c, reach) * c->x->buf.cap;
  k = k < (size_t)c->p->n_small ? k : (size_t)c->p->n_small;
  return k ? k : 1;
}

static size_t ll_room(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  double reach = (double)r_large_max(c, w) + c->p->r_small_max + dl->margin;
  size_t k = rect_cells(c, reach) * dl->cap;
  size_t most = c->p->n_large > 1 ? (size_t)c->p->n_large - 1 : 1;
  k = k < most ? k : most;
  return k ? k : 1;
}

/* The host's histories need this many slots (after an import or a CPU advance). */
static void host_needs(const ms_ctx *c, ms_worker *w, size_t *ls, size_t *ll)
{
  const ms_worker_history *h = &w->hist;
  int *per = calloc((size_t)c->p->n_large + 1, sizeof *per);
  *ls = *ll = 0;
  for (int i = 0; i < c->p->n_large; i++)
    if ((size_t)h->ls_cur[i].n > *ls)
      *ls = (size_t)h->ls_cur[i].n;
  for (size_t e = 0; per && e < h->ll_cur.n; e++) {
    per[h->ll_cur.e[e].a]++;
    per[h->ll_cur.e[e].b]++;
  }
  for (int i = 0; per && i < c->p->n_large; i++)
    if ((size_t)per[i] > *ll)
      *ll = (size_t)per[i];
  if (!per) /* no memory to count: room for every partner */
    *ll = (size_t)c->p->n_large;
  free(per);
}

static ms_status make_lists(const ms_ctx *c, ms_dl_lists *l, size_t k, const char *what)
{
  size_t n = (size_t)c->p->n_large;
  ms_status st = MS_OK;
  ms_dl_release_lists(l);
  l->k = k;
  l->cur = 0;
  for (int g = 0; !st && g < 2; g++) {
    st = ms_dl_make(c->cl, n * sizeof(int), what, &l->n[g]);
    if (!st)
      st = ms_dl_make(c->cl, n * k * sizeof(int), what, &l->key[g]);
    if (!st)
      st = ms_dl_make(c->cl, n * k * sizeof(float), what, &l->xi[g]);
  }
  return st;
}

/* Host staging of one generation of a list. */
typedef struct staging {
  int *n, *key;
  float *xi;
} staging;

static int staging_alloc(staging *t, size_t n, size_t k)
{
  t->n = calloc(n + 1, sizeof *t->n);
  t->key = malloc((n * k + 1) * sizeof *t->key);
  t->xi = malloc((n * k + 1) * sizeof *t->xi);
  return t->n && t->key && t->xi;
}

static void staging_free(staging *t)
{
  free(t->n);
  free(t->key);
  free(t->xi);
}

static ms_status put(const ms_ctx *c, ms_dl_lists *l, const staging *t)
{
  size_t n = (size_t)c->p->n_large;
  ms_status st = ms_buffers_upload(c->cl, l->n[l->cur], t->n, n * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, l->key[l->cur], t->key, n * l->k * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, l->xi[l->cur], t->xi, n * l->k * sizeof(float));
  return st;
}

static ms_status get(const ms_ctx *c, ms_dl_lists *l, staging *t)
{
  size_t n = (size_t)c->p->n_large;
  ms_status st = ms_buffers_download(c->cl, l->n[l->cur], t->n, n * sizeof(int));
  if (!st)
    st = ms_buffers_download(c->cl, l->key[l->cur], t->key, n * l->k * sizeof(int));
  if (!st)
    st = ms_buffers_download(c->cl, l->xi[l->cur], t->xi, n * l->k * sizeof(float));
  return st;
}

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the large particles' contact histories");
}

/* The host's large-small lists and large-large pairs into the device's current lists:
 * each pair (a, b) goes to both a's and b's lists; taken in (a, b) order each list comes
 * out sorted by partner (its partners below it first, by a, then those above, by b). */
static ms_status upload_lists(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  const ms_worker_history *h = &w->hist;
  size_t n = (size_t)c->p->n_large;
  size_t big = f->ls.k > f->ll.k ? f->ls.k : f->ll.k;
  staging t;
  ms_status st = MS_OK;
  if (!staging_alloc(&t, n, big))
    st = no_memory();
  for (size_t i = 0; !st && i < n; i++) {
    const ms_xi_list *l = &h->ls_cur[i];
    t.n[i] = l->n;
    for (int e = 0; e < l->n; e++) {
      t.key[i * f->ls.k + (size_t)e] = l->e[e].j;
      t.xi[i * f->ls.k + (size_t)e] = l->e[e].xi;
    }
  }
  if (!st)
    st = put(c, &f->ls, &t);
  if (!st) {
    memset(t.n, 0, n * sizeof *t.n);
    for (size_t e = 0; e < h->ll_cur.n; e++) {
      const ms_xi_pair *p = &h->ll_cur.e[e];
      int ends[2][2] = {{p->a, p->b}, {p->b, p->a}};
      for (int w = 0; w < 2; w++) {
        size_t at = (size_t)ends[w][0] * f->ll.k + (size_t)t.n[ends[w][0]]++;
        t.key[at] = ends[w][1];
        t.xi[at] = p->xi;
      }
    }
    st = put(c, &f->ll, &t);
  }
  staging_free(&t);
  return st;
}

/* The device's current lists into the host's histories (large-large: each pair from
 * its lower member's list, so the pairs come in (a, b) order). */
static ms_status download_lists(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  ms_worker_history *h = &w->hist;
  size_t n = (size_t)c->p->n_large;
  size_t big = f->ls.k > f->ll.k ? f->ls.k : f->ll.k;
  staging t;
  ms_status st = MS_OK;
  if (!staging_alloc(&t, n, big))
    st = no_memory();
  if (!st)
    st = get(c, &f->ls, &t);
  for (size_t i = 0; !st && i < n; i++) {
    ms_xi_list *l = &h->ls_cur[i];
    l->n = 0;
    for (int e = 0; !st && e < t.n[i]; e++)
      if (!ms_xi_push(l, t.key[i * f->ls.k + (size_t)e], t.xi[i * f->ls.k + (size_t)e]))
        st = no_memory();
  }
  if (!st)
    st = get(c, &f->ll, &t);
  h->ll_cur.n = 0;
  for (size_t i = 0; !st && i < n; i++)
    for (int e = 0; !st && e < t.n[i]; e++) {
      int p = t.key[i * f->ll.k + (size_t)e];
      if (p > (int)i && !ms_xi_pair_push(&h->ll_cur, (int)i, p, t.xi[i * f->ll.k + (size_t)e]))
        st = no_memory();
    }
  staging_free(&t);
  return st;
}

/* Lists with room for what the host holds and every candidate; when they must grow
 * during an advance, their contents go through the host's histories. */
static ms_status ensure_room(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int keep)
{
  ms_dl_friction *f = &dl->fr;
  size_t ls = ls_room(c, w), ll = ll_room(c, dl, w), hls = 0, hll = 0;
  if (!keep) {
    host_needs(c, w, &hls, &hll);
    ls = ls > hls ? ls : hls;
    ll = ll > hll ? ll : hll;
  }
  if (keep && f->test_regrow) { /* tests: one slot more every iteration */
    ls = (ls > f->ls.k ? ls : f->ls.k) + 1;
    ll = (ll > f->ll.k ? ll : f->ll.k) + 1;
  }
  if (keep && ls <= f->ls.k && ll <= f->ll.k)
    return MS_OK;
  ms_status st = keep ? download_lists(c, dl, w) : MS_OK;
  if (keep)
    f->growths++;
  if (!st && ls > f->ls.k)
    st = make_lists(c, &f->ls, ls, "large-small history");
  if (!st && ll > f->ll.k)
    st = make_lists(c, &f->ll, ll, "large-large history");
  return st ? st : upload_lists(c, dl, w);
}

/* ---- Walls of any shape: their histories ------------------------------------------ */

#define WALL_KEY(w, feature) ((w) << 20 | (feature))

/* Slots a disc's wall list needs: one per contact it can have, as its reaction records. */
static size_t wall_room(const ms_params *pm) { return ms_dlw_room(pm); }

/* Lists of `owners` particles (one more, so that none is empty), k slots each. */
static ms_status make_owner_lists(const ms_ctx *c, ms_dl_lists *l, size_t owners, size_t k)
{
  ms_status st = MS_OK;
  ms_dl_release_lists(l);
  l->k = k;
  l->cur = 0;
  owners++;
  for (int g = 0; !st && g < 2; g++) {
    st = ms_dl_make(c->cl, owners * sizeof(int), "wall history", &l->n[g]);
    if (!st)
      st = ms_dl_make(c->cl, owners * k * sizeof(int), "wall history", &l->key[g]);
    if (!st)
      st = ms_dl_make(c->cl, owners * k * sizeof(float), "wall history", &l->xi[g]);
  }
  return st;
}

static ms_status put_owners(const ms_ctx *c, ms_dl_lists *l, const staging *t, size_t owners)
{
  ms_status st = ms_buffers_upload(c->cl, l->n[l->cur], t->n, owners * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, l->key[l->cur], t->key, owners * l->k * sizeof(int));
  if (!st)
    st = ms_buffers_upload(c->cl, l->xi[l->cur], t->xi, owners * l->k * sizeof(float));
  return st;
}

static ms_status get_owners(const ms_ctx *c, ms_dl_lists *l, staging *t, size_t owners)
{
  ms_status st = ms_buffers_download(c->cl, l->n[l->cur], t->n, owners * sizeof(int));
  if (!st)
    st = ms_buffers_download(c->cl, l->key[l->cur], t->key, owners * l->k * sizeof(int));
  if (!st)
    st = ms_buffers_download(c->cl, l->xi[l->cur], t->xi, owners * l->k * sizeof(float));
  return st;
}

static ms_status too_many_wall_contacts(int j, size_t k)
{
  return ms_fail(MS_ERR_RUNTIME, "particle %d has more than %zu wall contact histories, more "
                                 "than the device-only path keeps",
                 j, k);
}

/* The worker's wall histories into the device's current lists: each wall's list of
 * (small particle, feature), walls in order, regrouped per particle, and each large
 * particle's list of (wall, feature); both come out sorted by (wall, feature). */
static ms_status upload_wall_lists(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  size_t ns = (size_t)c->p->n_small, nl = (size_t)c->p->n_large, k = f->wl.k;
  staging t;
  ms_status st = MS_OK;
  if (!staging_alloc(&t, ns > nl ? ns : nl, k))
    return no_memory();
  for (int wi = 0; !st && wi < c->p->n_walls; wi++) {
    const ms_wall_xi_list *l = &w->wall[wi].small_cur;
    for (int e = 0; !st && e < l->n; e++) {
      int j = l->e[e].j;
      if ((size_t)t.n[j] == k) {
        st = too_many_wall_contacts(j, k);
        break;
      }
      size_t at = (size_t)j * k + (size_t)t.n[j]++;
      t.key[at] = WALL_KEY(wi, l->e[e].feature);
      t.xi[at] = l->e[e].xi;
    }
  }
  if (!st && c->p->n_walls > 0)
    st = put_owners(c, &f->ws, &t, ns);
  memset(t.n, 0, (ns > nl ? ns : nl) * sizeof *t.n);
  for (size_t i = 0; !st && i < nl && w->wall_xi_cur; i++) {
    const ms_wall_xi_list *l = &w->wall_xi_cur[i];
    if ((size_t)l->n > k) {
      st = too_many_wall_contacts((int)i, k);
      break;
    }
    t.n[i] = l->n;
    for (int e = 0; e < l->n; e++) {
      t.key[i * k + (size_t)e] = WALL_KEY(l->e[e].j, l->e[e].feature);
      t.xi[i * k + (size_t)e] = l->e[e].xi;
    }
  }
  if (!st)
    st = put_owners(c, &f->wl, &t, nl);
  staging_free(&t);
  return st;
}

static int wall_xi_push(ms_wall_xi_list *l, int j, int feature, float xi)
{
  ms_wall_xi *e = ms_grow(l->e, (size_t)l->n, &l->cap, sizeof *e, 16);
  if (!e)
    return 0;
  l->e = e;
  l->e[l->n++] = (ms_wall_xi){j, feature, xi};
  return 1;
}

/* The device's current wall lists back into the worker's: per wall, particles ascending,
 * each one's features ascending (the worker's (j, feature) order). */
static ms_status download_wall_lists(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  size_t ns = (size_t)c->p->n_small, nl = (size_t)c->p->n_large, k = f->wl.k;
  staging t;
  ms_status st = MS_OK;
  if (c->p->n_walls == 0)
    return MS_OK;
  if (!staging_alloc(&t, ns > nl ? ns : nl, k))
    return no_memory();
  st = get_owners(c, &f->ws, &t, ns);
  for (int wi = 0; !st && wi < c->p->n_walls; wi++) {
    ms_wall_xi_list *l = &w->wall[wi].small_cur;
    l->n = 0;
    for (size_t j = 0; !st && j < ns; j++)
      for (int e = 0; !st && e < t.n[j]; e++) {
        int key = t.key[j * k + (size_t)e];
        if (key >> 20 == wi && !wall_xi_push(l, (int)j, key & 0xFFFFF, t.xi[j * k + (size_t)e]))
          st = no_memory();
      }
  }
  if (!st)
    st = get_owners(c, &f->wl, &t, nl);
  for (size_t i = 0; !st && i < nl && w->wall_xi_cur; i++) {
    ms_wall_xi_list *l = &w->wall_xi_cur[i];
    l->n = 0;
    for (int e = 0; !st && e < t.n[i]; e++) {
      int key = t.key[i * k + (size_t)e];
      if (!wall_xi_push(l, key >> 20, key & 0xFFFFF, t.xi[i * k + (size_t)e]))
        st = no_memory();
    }
  }
  staging_free(&t);
  return st;
}

static ms_status make_all(const ms_ctx *c, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  size_t n = (size_t)c->p->n_large;
  ms_status st = ms_dl_make(c->cl, n * 2 * sizeof(double), "large rotation", &f->rot);
  if (!st)
    st = ms_dl_make(c->cl, n * 2 * sizeof(double), "large prev rotation", &f->prev_rot);
  if (!st)
    st = ms_dl_make(c->cl, n * sizeof(float), "large torque", &f->torque);
  if (!st)
    st = ms_dl_make(c->cl, n * 4 * sizeof(float), "large wall history", &f->wall_xi);
  size_t kw = wall_room(c->p);
  if (!st)
    st = make_owner_lists(c, &f->wl, n, kw);
  if (!st && c->p->n_walls > 0)
    st = make_owner_lists(c, &f->ws, (size_t)c->p->n_small, kw);
  f->made = !st;
  return st;
}

ms_status ms_dlf_begin(const ms_ctx *c, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  size_t n = (size_t)c->p->n_large;
  ms_status st = ms_fr_ready(c->p, w);
  if (!st && !f->made)
    st = make_all(c, dl);
  double *rot = malloc((2 * n + 2) * sizeof *rot);
  if (!st && !rot)
    st = no_memory();
  for (size_t i = 0; !st && i < n; i++) {
    rot[2 * i] = w->large[i].theta;
    rot[2 * i + 1] = w->large[i].w;
  }
  if (!st)
    st = ms_buffers_upload(c->cl, f->rot, rot, n * 2 * sizeof(double));
  free(rot);
  if (!st && n)
    st = ms_buffers_upload(c->cl, f->wall_xi, w->hist.wall_xi, n * 4 * sizeof(float));
  if (!st) {
    static const int zero = 0; /* the lists' overflow slot (never set: see large_friction.cl) */
    st = ms_cl_check(clEnqueueWriteBuffer(c->cl->gpu_queue, dl->flags, CL_TRUE,
                                          3 * sizeof(int), sizeof zero, &zero, 0, NULL, NULL),
                     "clEnqueueWriteBuffer", "large flags");
  }
  if (!st)
    st = upload_wall_lists(c, dl, w);
  return st ? st : ensure_room(c, dl, w, 0);
}

/* The arguments every friction kernel shares after the large particles' own. */
/* The contact law's arguments, the same four in every friction kernel from `first` on:
 * k, 2 zeta, (k_t, mu, mu_r, mu_wall), dt. */
static ms_status bind_law(const ms_ctx *c, int id, int first)
{
  cl_float4 fr = {{c->p->kt, c->p->mu, c->p->mu_r, c->p->mu_wall}};
  float dt = (float)c->p->dt;
  ARG(id, first, c->p->k);
  ARG(id, first + 1, c->p->two_zeta);
  ARG(id, first + 2, fr);
  ARG(id, first + 3, dt);
  return MS_OK;
}

/* --diagnostics (a program built with MS_DIAG): the accumulators after the small
 * particles' (collision/dissipation.c), from argument `first` on: diss, its offset, dt. */
static ms_status bind_diss(const ms_ctx *c, ms_device *dev, int id, int first)
{
  int off = c->p->n_small;
  ARG(id, first, dev->diss);
  ARG(id, first + 1, off);
  ARG(id, first + 2, c->p->dt);
  return MS_OK;
}

static ms_status bind_react(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  const ms_buffers *b = &c->x->buf;
  const ms_grid *g = &c->p->grid;
  int id = MS_K_LARGE_SMALL_REACT_FRIC, n = c->p->n_large, cap = (int)b->cap, k = (int)f->ls.k;
  int cur = f->ls.cur, o = 1 - cur;
  cl_mem in[] = {dl->pos, dl->vel, dl->shape, dl->stat, f->rot};
  for (int a = 0; a < 5; a++)
    ARG(id, a, in[a]);
  ARG(id, 5, n);
  cl_mem small[] = {b->pos, b->vel, b->shape, b->rot, b->count, b->idx};
  for (int a = 0; a < 6; a++)
    ARG(id, 6 + a, small[a]);
  ARG(id, 12, cap);
  ARG(id, 13, g->inv_cell);
  ARG(id, 14, g->nx);
  ARG(id, 15, g->ny);
  ARG(id, 16, c->p->r_small_max);
  ms_status law = bind_law(c, id, 17);
  if (law)
    return law;
  ARG(id, 21, k);
  cl_mem lists[] = {f->ls.n[cur], f->ls.key[cur], f->ls.xi[cur], f->ls.n[o], f->ls.key[o],
                    f->ls.xi[o], dl->f, f->torque, dl->flags};
  for (int a = 0; a < 9; a++)
    ARG(id, 22 + a, lists[a]);
  return c->p->diag ? bind_diss(c, dev, id, 31) : MS_OK;
}

static ms_status bind_apply(const ms_ctx *c, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  const ms_buffers *b = &c->x->buf;
  const ms_grid *g = &c->p->grid;
  int id = MS_K_LARGE_SMALL_APPLY_FRIC, n = c->p->n_small, lcap = (int)dl->cap, k = (int)f->ls.k;
  int cur = f->ls.cur;
  cl_mem small[] = {b->pos, b->vel, b->shape, b->rot};
  for (int a = 0; a < 4; a++)
    ARG(id, a, small[a]);
  ARG(id, 4, n);
  ARG(id, 5, g->inv_cell);
  ARG(id, 6, g->nx);
  ARG(id, 7, g->ny);
  ARG(id, 8, dl->count);
  ARG(id, 9, dl->idx);
  ARG(id, 10, lcap);
  cl_mem large[] = {dl->pos, dl->vel, dl->shape, dl->stat, f->rot};
  for (int a = 0; a < 5; a++)
    ARG(id, 11 + a, large[a]);
  ARG(id, 16, c->p->r_small_max);
  ms_status law = bind_law(c, id, 17);
  if (law)
    return law;
  ARG(id, 21, k);
  cl_mem rest[] = {f->ls.n[cur], f->ls.key[cur], f->ls.xi[cur], b->f_ls, b->t_ls};
  for (int a = 0; a < 5; a++)
    ARG(id, 22 + a, rest[a]);
  return MS_OK;
}

static ms_status bind_large_large(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  int id = MS_K_LARGE_LARGE_FRIC, n = c->p->n_large, k = (int)f->ll.k;
  int cur = f->ll.cur, o = 1 - cur;
  cl_mem large[] = {dl->pos, dl->vel, dl->shape, dl->stat, f->rot};
  for (int a = 0; a < 5; a++)
    ARG(id, a, large[a]);
  ARG(id, 5, n);
  ARG(id, 6, dl->chead);
  ARG(id, 7, dl->cnext);
  ARG(id, 8, dl->cinv);
  ARG(id, 9, dl->cnx);
  ARG(id, 10, dl->cny);
  ms_status law = bind_law(c, id, 11);
  if (law)
    return law;
  ARG(id, 15, k);
  cl_mem rest[] = {f->ll.n[cur], f->ll.key[cur], f->ll.xi[cur], f->ll.n[o], f->ll.key[o],
                   f->ll.xi[o], dl->f, f->torque, dl->flags};
  for (int a = 0; a < 9; a++)
    ARG(id, 16 + a, rest[a]);
  return c->p->diag ? bind_diss(c, dev, id, 25) : MS_OK;
}

static ms_status bind_walls(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  int id = MS_K_LARGE_WALLS_FRIC, n = c->p->n_large;
  cl_double4 box = ms_params_sides(c->p);
  cl_mem large[] = {dl->pos, dl->vel, dl->shape, dl->stat, f->rot};
  for (int a = 0; a < 5; a++)
    ARG(id, a, large[a]);
  ARG(id, 5, n);
  ARG(id, 6, box);
  ms_status law = bind_law(c, id, 7);
  if (law)
    return law;
  ARG(id, 11, f->wall_xi);
  ARG(id, 12, dl->f);
  ARG(id, 13, f->torque);
  int n_walls = c->p->n_walls, kw = (int)f->wl.k, wc = f->wl.cur, wo = 1 - wc;
  ARG(id, 14, dl->wall);
  ARG(id, 15, n_walls);
  ARG(id, 16, kw);
  cl_mem wl[] = {f->wl.n[wc], f->wl.key[wc], f->wl.xi[wc], f->wl.n[wo], f->wl.key[wo],
                 f->wl.xi[wo], dl->flags};
  for (int a = 0; a < 7; a++)
    ARG(id, 17 + a, wl[a]);
  if (!c->p->diag)
    return MS_OK;
  /* the large-large lists before and after this iteration, for their springs' share */
  int cur = f->ll.cur, o = 1 - cur, k = (int)f->ll.k;
  ms_status st = bind_diss(c, dev, id, 30); /* after the reaction records (device_walls.c) */
  if (st)
    return st;
  ARG(id, 33, k);
  cl_mem lists[] = {f->ll.n[cur], f->ll.key[cur], f->ll.xi[cur],
                    f->ll.n[o],   f->ll.key[o],   f->ll.xi[o]};
  for (int a = 0; a < 6; a++)
    ARG(id, 34 + a, lists[a]);
  return MS_OK;
}

/* ms_walls_small_apply_fric's arguments (the walls' buffer is dl->wall, uploaded this
 * iteration). */
static ms_status bind_small_walls(const ms_ctx *c, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  const ms_buffers *b = &c->x->buf;
  int id = MS_K_WALLS_SMALL_APPLY_FRIC, n = c->p->n_small, n_walls = c->p->n_walls;
  int kw = (int)f->ws.k, cur = f->ws.cur, o = 1 - cur;
  float dt = (float)c->p->dt;
  cl_mem small[] = {b->pos, b->vel, b->shape, b->rot};
  for (int a = 0; a < 4; a++)
    ARG(id, a, small[a]);
  ARG(id, 4, n);
  ARG(id, 5, dl->wall);
  ARG(id, 6, n_walls);
  ARG(id, 7, c->p->k);
  ARG(id, 8, c->p->kt);
  ARG(id, 9, c->p->mu_r);
  ARG(id, 10, dt);
  ARG(id, 11, kw);
  cl_mem rest[] = {f->ws.n[cur], f->ws.key[cur], f->ws.xi[cur], f->ws.n[o], f->ws.key[o],
                   f->ws.xi[o], b->f_ls, b->t_ls, dl->flags};
  for (int a = 0; a < 9; a++)
    ARG(id, 12 + a, rest[a]);
  return MS_OK;
}

ms_status ms_dlf_forces(const ms_ctx *c, ms_device *dev, ms_dlarge *dl, ms_worker *w)
{
  ms_dl_friction *f = &dl->fr;
  ms_status st = ensure_room(c, dl, w, 1);
  if (!st)
    st = bind_react(c, dev, dl);
  if (!st)
    st = bind_apply(c, dl);
  if (!st)
    st = bind_large_large(c, dev, dl);
  if (!st)
    st = bind_walls(c, dev, dl);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_SMALL_REACT_FRIC, (size_t)c->p->n_large);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_SMALL_APPLY_FRIC, (size_t)c->p->n_small);
  if (!st && c->p->n_walls > 0)
    st = bind_small_walls(c, dl);
  if (!st && c->p->n_walls > 0)
    st = ms_dl_enqueue(c, dev, MS_K_WALLS_SMALL_APPLY_FRIC, (size_t)c->p->n_small);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_LARGE_FRIC, (size_t)c->p->n_large);
  if (!st)
    st = ms_dl_enqueue(c, dev, MS_K_LARGE_WALLS_FRIC, (size_t)c->p->n_large);
  if (!st) { /* the kernels have their arguments: the new lists become current */
    f->ls.cur = 1 - f->ls.cur;
    f->ll.cur = 1 - f->ll.cur;
    f->wl.cur = 1 - f->wl.cur;
    if (c->p->n_walls > 0)
      f->ws.cur = 1 - f->ws.cur;
  }
  return st;
}

ms_status ms_dlf_integrate(const ms_ctx *c, ms_device *dev, ms_dlarge *dl)
{
  ms_dl_friction *f = &dl->fr;
  int id = MS_K_INTEGRATE_LARGE_FRIC, n = c->p->n_large;
  cl_mem large[] = {dl->pos, dl->vel, dl->shape, dl->stat, dl->f};
  for (int a = 0; a < 5; a++)
    ARG(id, a, large[a]);
  ARG(id, 5, n);
  ARG(id, 6, c->p->gx);
  ARG(id, 7, c->p->gy);
  ARG(id, 8, c->p->dt);
  ARG(id, 9, c->p->max_speed2);
  cl_mem rest[] = {dl->prev_pos, dl->prev_vel, dl->flags, f->rot,
                   f->prev_rot, f->torque,  dl->img,   dl->prev_img};
  for (int a = 0; a < 8; a++)
    ARG(id, 10 + a, rest[a]);
  return ms_dl_enqueue(c, dev, id, (size_t)n);
}

ms_status ms_dlf_read_back(const ms_ctx *c, ms_dlarge *dl, ms_worker *w, int failed)
{
  ms_dl_friction *f = &dl->fr;
  size_t n = (size_t)c->p->n_large, bytes = n * 2 * sizeof(double);
  double *rot = malloc(bytes + 16);
  ms_status st = rot ? MS_OK : no_memory();
  for (int pass = 0; !st && pass < (failed >= 0 ? 2 : 1); pass++) {
    st = ms_buffers_download(c->cl, pass ? f->prev_rot : f->rot, rot, bytes);
    for (size_t i = pass ? (size_t)failed + 1 : 0; !st && i < n; i++) {
      w->large[i].theta = rot[2 * i];
      w->large[i].w = rot[2 * i + 1];
    }
  }
  free(rot);
  if (!st && n)
    st = ms_buffers_download(c->cl, f->wall_xi, w->hist.wall_xi, n * 4 * sizeof(float));
  if (!st)
    st = download_lists(c, dl, w);
  return st ? st : download_wall_lists(c, dl, w);
}
