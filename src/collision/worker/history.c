/* The CPU worker's contact histories (collision/worker/history.h): sorted arrays looked up by
 * binary search, written in a loop's order and sorted after it; and the worker's share
 * of the friction state (ms_friction_state, sim_internal.h): the large particles'
 * rotation, their wall displacements and the large-small and large-large histories,
 * exported for checkpoints and tests and imported after a restore. */
#include "collision/worker/history.h"

#include "core/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>



/* Below this many entries an insertion sort (the lists come nearly sorted: cells in
 * order, each cell's particles by index); above it qsort. Keys are unique, so both give
 * the one sorted order. */
#define INSERTION_MAX 48

float ms_xi_find(const ms_xi_list *l, int j)
{
  int lo = 0, hi = l->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int k = l->e[mid].j;
    if (k == j)
      return l->e[mid].xi;
    if (k < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0.0f;
}

int ms_xi_push(ms_xi_list *l, int j, float xi)
{
  ms_xi_entry *p = ms_grow(l->e, (size_t)l->n, &l->cap, sizeof *p, 16);
  if (!p)
    return 0;
  l->e = p;
  l->e[l->n++] = (ms_xi_entry){j, xi};
  return 1;
}

static int by_j(const void *a, const void *b)
{
  int x = ((const ms_xi_entry *)a)->j, y = ((const ms_xi_entry *)b)->j;
  return (x > y) - (x < y);
}

void ms_xi_sort(ms_xi_list *l)
{
  if (l->n > INSERTION_MAX) {
    qsort(l->e, (size_t)l->n, sizeof *l->e, by_j);
    return;
  }
  for (int a = 1; a < l->n; a++) {
    ms_xi_entry v = l->e[a];
    int b = a - 1;
    while (b >= 0 && l->e[b].j > v.j) {
      l->e[b + 1] = l->e[b];
      b--;
    }
    l->e[b + 1] = v;
  }
}

/* (a, b) against (c, d), lexicographic. */
static int pair_cmp(int a, int b, int c, int d)
{
  if (a != c)
    return a < c ? -1 : 1;
  return (b > d) - (b < d);
}

float ms_xi_pair_find(const ms_xi_pairs *p, int a, int b)
{
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = pair_cmp(p->e[mid].a, p->e[mid].b, a, b);
    if (c == 0)
      return p->e[mid].xi;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0.0f;
}

int ms_xi_pair_push(ms_xi_pairs *p, int a, int b, float xi)
{
  ms_xi_pair *e = ms_grow(p->e, p->n, &p->cap, sizeof *e, 64);
  if (!e)
    return 0;
  p->e = e;
  p->e[p->n++] = a < b ? (ms_xi_pair){a, b, xi} : (ms_xi_pair){b, a, xi};
  return 1;
}

static int by_pair(const void *x, const void *y)
{
  const ms_xi_pair *p = x, *q = y;
  return pair_cmp(p->a, p->b, q->a, q->b);
}

void ms_xi_pairs_sort(ms_xi_pairs *p)
{
  if (p->n > 1)
    qsort(p->e, p->n, sizeof *p->e, by_pair);
}

ms_status ms_history_init(ms_worker_history *h, int n_large)
{
  memset(h, 0, sizeof *h);
  h->n_large = n_large;
  if (n_large <= 0)
    return MS_OK;
  h->ls_cur = calloc((size_t)n_large, sizeof *h->ls_cur);
  h->ls_next = calloc((size_t)n_large, sizeof *h->ls_next);
  h->wall_xi = calloc((size_t)n_large * 4, sizeof *h->wall_xi);
  if (!h->ls_cur || !h->ls_next || !h->wall_xi) {
    ms_history_free(h);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the contact histories of %d large "
                                   "particles", n_large);
  }
  return MS_OK;
}

void ms_history_free(ms_worker_history *h)
{
  for (int i = 0; i < h->n_large; i++) {
    if (h->ls_cur)
      free(h->ls_cur[i].e);
    if (h->ls_next)
      free(h->ls_next[i].e);
  }
  free(h->ls_cur);
  free(h->ls_next);
  free(h->ll_cur.e);
  free(h->ll_next.e);
  free(h->wall_xi);
  memset(h, 0, sizeof *h);
}

void ms_history_clear(ms_worker_history *h)
{
  for (int i = 0; i < h->n_large; i++)
    h->ls_cur[i].n = h->ls_next[i].n = 0;
  h->ll_cur.n = h->ll_next.n = 0;
  if (h->wall_xi)
    memset(h->wall_xi, 0, (size_t)h->n_large * 4 * sizeof *h->wall_xi);
}

void ms_history_ls_start(ms_worker_history *h, int i) { h->ls_next[i].n = 0; }

void ms_history_ls_finish(ms_worker_history *h, int i)
{
  ms_xi_sort(&h->ls_next[i]);
  ms_xi_list t = h->ls_cur[i];
  h->ls_cur[i] = h->ls_next[i];
  h->ls_next[i] = t;
}

void ms_history_ll_start(ms_worker_history *h) { h->ll_next.n = 0; }

void ms_history_ll_finish(ms_worker_history *h)
{
  ms_xi_pairs_sort(&h->ll_next);
  ms_xi_pairs t = h->ll_cur;
  h->ll_cur = h->ll_next;
  h->ll_next = t;
}

/* ---- the worker's part of ms_friction_state (sim_internal.h) -------------------------- */

ms_status ms_worker_history_export(const ms_worker_history *h, const ms_body *large, int n_large,
                                   ms_friction_state *out)
{
  size_t n = (size_t)n_large, n_ls = 0;
  for (int i = 0; i < h->n_large; i++)
    n_ls += (size_t)h->ls_cur[i].n;
  size_t n_ll = h->n_large ? h->ll_cur.n : 0;
  out->large_rot = malloc((2 * n + 1) * sizeof *out->large_rot);
  out->large_wall_xi = calloc(4 * n + 1, sizeof *out->large_wall_xi);
  out->ls = malloc((n_ls + 1) * sizeof *out->ls);
  out->ll = malloc((n_ll + 1) * sizeof *out->ll);
  if (!out->large_rot || !out->large_wall_xi || !out->ls || !out->ll)
    return ms_fail(MS_ERR_RUNTIME, "out of memory exporting the large particles' friction state");
  for (size_t i = 0; i < n; i++) {
    out->large_rot[2 * i] = large[i].theta;
    out->large_rot[2 * i + 1] = large[i].w;
  }
  if (h->wall_xi)
    memcpy(out->large_wall_xi, h->wall_xi, 4 * n * sizeof *h->wall_xi);
  /* Large particles ascending, each one's partners sorted: sorted by (a, b). */
  size_t k = 0;
  for (int i = 0; i < h->n_large; i++)
    for (int e = 0; e < h->ls_cur[i].n; e++)
      out->ls[k++] = (ms_history_entry){i, h->ls_cur[i].e[e].j, h->ls_cur[i].e[e].xi};
  for (size_t e = 0; e < n_ll; e++)
    out->ll[e] = (ms_history_entry){h->ll_cur.e[e].a, h->ll_cur.e[e].b, h->ll_cur.e[e].xi};
  out->n_ls = n_ls;
  out->n_ll = n_ll;
  return MS_OK;
}

/* Whether entries are strictly ascending by (a, b) with a in [0, na), b in [0, nb) (and
 * a < b when `ordered`) and finite xi; else the first bad one's index in *bad. */
static int entries_ok(const ms_history_entry *e, size_t n, int na, int nb, int ordered,
                      size_t *bad)
{
  for (size_t k = 0; k < n; k++) {
    int in_range = e[k].a >= 0 && e[k].a < na && e[k].b >= 0 && e[k].b < nb;
    int ascending = k == 0 || pair_cmp(e[k - 1].a, e[k - 1].b, e[k].a, e[k].b) < 0;
    if (!in_range || !ascending || (ordered && e[k].a >= e[k].b) || !isfinite(e[k].xi)) {
      *bad = k;
      return 0;
    }
  }
  return 1;
}

/* Checks everything before changing anything: a bad state leaves the histories as
 * they were. */
static ms_status check_import(int n_large, int n_small, const ms_friction_state *in)
{
  size_t n = (size_t)n_large, bad = 0;
  for (size_t i = 0; i < 2 * n; i++)
    if (!isfinite(in->large_rot[i]))
      return ms_fail(MS_ERR_INPUT, "friction state: large particle %zu has a non-finite %s",
                     i / 2, i % 2 ? "spin" : "angle");
  for (size_t i = 0; i < 4 * n; i++)
    if (!isfinite(in->large_wall_xi[i]))
      return ms_fail(MS_ERR_INPUT, "friction state: large particle %zu has a non-finite wall "
                                   "displacement", i / 4);
  if (!entries_ok(in->ls, in->n_ls, n_large, n_small, 0, &bad))
    return ms_fail(MS_ERR_INPUT, "friction state: large-small contact %zu (%d, %d) is out of "
                                 "range, out of order or not finite",
                   bad, in->ls[bad].a, in->ls[bad].b);
  if (!entries_ok(in->ll, in->n_ll, n_large, n_large, 1, &bad))
    return ms_fail(MS_ERR_INPUT, "friction state: large-large contact %zu (%d, %d) is out of "
                                 "range, out of order, not a < b or not finite",
                   bad, in->ll[bad].a, in->ll[bad].b);
  return MS_OK;
}

ms_status ms_worker_history_import(ms_worker_history *h, ms_body *large, int n_large, int n_small,
                                   const ms_friction_state *in)
{
  ms_status st = check_import(n_large, n_small, in);
  if (!st && h->n_large != n_large)
    st = ms_history_init(h, n_large);
  if (st)
    return st;
  ms_history_clear(h);
  for (int i = 0; i < n_large; i++) {
    ms_body *L = &large[i];
    L->theta = in->large_rot[2 * i];
    L->w = L->is_static ? 0.0 : in->large_rot[2 * i + 1];
  }
  if (n_large > 0)
    memcpy(h->wall_xi, in->large_wall_xi, 4 * (size_t)n_large * sizeof *h->wall_xi);
  for (size_t k = 0; k < in->n_ls; k++)
    if (!ms_xi_push(&h->ls_cur[in->ls[k].a], in->ls[k].b, in->ls[k].xi))
      return ms_fail(MS_ERR_RUNTIME, "out of memory importing the large-small contacts");
  for (size_t k = 0; k < in->n_ll; k++)
    if (!ms_xi_pair_push(&h->ll_cur, in->ll[k].a, in->ll[k].b, in->ll[k].xi))
      return ms_fail(MS_ERR_RUNTIME, "out of memory importing the large-large contacts");
  return MS_OK;
}
