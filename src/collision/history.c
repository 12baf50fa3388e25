/* The CPU worker's contact histories (collision/history.h): sorted arrays looked up by
 * binary search, written in a loop's order and sorted after it. */
#include "collision/history.h"

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
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    ms_xi_entry *p = realloc(l->e, (size_t)cap * sizeof *p);
    if (!p)
      return 0;
    l->e = p;
    l->cap = cap;
  }
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
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    ms_xi_pair *e = realloc(p->e, cap * sizeof *e);
    if (!e)
      return 0;
    p->e = e;
    p->cap = cap;
  }
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
