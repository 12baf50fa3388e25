/* The cut of a split run and what each domain holds (layout.h). */
#include "domains/layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "shared/grid.h"

ms_status ms_layout_init(ms_layout *l, int P, const ms_grid_cut *g)
{
  memset(l, 0, sizeof *l);
  l->P = P;
  l->start = calloc((size_t)P + 1, sizeof *l->start);
  l->list = calloc((size_t)P, sizeof *l->list);
  l->held = calloc((size_t)P, sizeof *l->held);
  l->own = calloc((size_t)P, sizeof *l->own);
  l->cap = calloc((size_t)P, sizeof *l->cap);
  l->mark = calloc((size_t)g->ncol + 1, 1);
  l->count = calloc((size_t)g->ncol + 1, sizeof *l->count);
  l->weight = malloc(((size_t)g->ncol + 1) * sizeof *l->weight);
  for (int c = 0; l->weight && c < g->ncol; c++)
    l->weight[c] = 1.0;
  if (l->start && l->list && l->held && l->own && l->cap && l->mark && l->count && l->weight)
    return MS_OK;
  ms_layout_free(l);
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' layout");
}

void ms_layout_free(ms_layout *l)
{
  for (int d = 0; l->list && d < l->P; d++)
    free(l->list[d]);
  free(l->list);
  free(l->start);
  free(l->owner_small);
  free(l->owner_large);
  free(l->held);
  free(l->own);
  free(l->cap);
  free(l->column);
  free(l->mark);
  free(l->count);
  free(l->weight);
  free(l->band);
  memset(l, 0, sizeof *l);
}

static int column_of(const ms_grid_cut *g, const double *pos)
{
  return ms_grid_axis(pos[g->axis], g->inv_cell, g->ncol);
}

/* Cuts by weighted count: domain d starts at the column where the d/P-th of the weighted
 * particles lies, every domain at least one column wide. */
static void cut_weighted(ms_layout *l, const ms_grid_cut *g)
{
  int P = l->P, n = g->ncol;
  double live = 0.0, seen = 0.0;
  for (int c = 0; c < n; c++) /* (whole counts times weights: the same sum on every rank) */
    live += (l->count[c] *= l->weight[c]);
  int c = 0;
  l->start[0] = 0;
  for (int d = 1; d < P; d++) {
    double want = live * d / P;
    while (c < n && seen + l->count[c] <= want)
      seen += l->count[c++];
    int at = c > l->start[d - 1] ? c : l->start[d - 1] + 1;
    l->start[d] = at < n - (P - d) ? at : n - (P - d);
  }
  l->start[P] = n;
}

static void cut(ms_layout *l, const ms_grid_cut *g, const ms_state *st)
{
  memset(l->count, 0, ((size_t)g->ncol + 1) * sizeof *l->count);
  for (int i = 0; i < st->slots; i++)
    if (l->column[i] >= 0)
      l->count[l->column[i]] += 1.0;
  cut_weighted(l, g);
}

void ms_layout_cut_counts(ms_layout *l, const ms_grid_cut *g, const double *count)
{
  memcpy(l->count, count, (size_t)g->ncol * sizeof *l->count);
  cut_weighted(l, g);
  for (int d = 0; d < l->P; d++) {
    l->own[d] = 0;
    for (int c = l->start[d]; c < l->start[d + 1]; c++)
      l->own[d] += (int)count[c];
  }
}

static int domain_of_column(const ms_layout *l, int c)
{
  int d = 0;
  while (d + 1 < l->P && c >= l->start[d + 1])
    d++;
  return d;
}

/* Marks columns [a, b] (wrapped on a periodic axis, else clipped). */
static void mark_range(const ms_layout *l, const ms_grid_cut *g, long a, long b)
{
  long n = g->ncol;
  if (b - a + 1 >= n) {
    memset(l->mark, 1, (size_t)n);
    return;
  }
  for (long c = a; c <= b; c++) {
    long w = g->periodic ? ((c % n) + n) % n : c;
    if (w >= 0 && w < n)
      l->mark[w] = 1;
  }
}

/* A large particle's columns: those its reach covers, one more each side. */
static void mark_large(const ms_layout *l, const ms_grid_cut *g, const ms_state *st, int j)
{
  double x = st->large_pos[2 * j + g->axis];
  double reach = (double)st->large_shape[2 * j] + g->r_small_max;
  double a = floor((x - reach) * g->inv_cell), b = floor((x + reach) * g->inv_cell);
  if (!(a >= -1e9) || !(b <= 1e9)) { /* (far off the grid: a failure the run reports) */
    a = 0;
    b = g->ncol - 1;
  }
  mark_range(l, g, (long)a - 1, (long)b + 1);
}

static ms_status hold(ms_layout *l, const ms_grid_cut *g, const ms_state *st, int d)
{
  memset(l->mark, 0, (size_t)g->ncol);
  mark_range(l, g, (long)l->start[d] - g->halo, (long)l->start[d + 1] - 1 + g->halo);
  for (int j = 0; j < st->n_large; j++)
    if (l->owner_large[j] == d && st->large_shape[2 * j + 1] > 0.0f)
      mark_large(l, g, st, j);
  for (int k = 0; d == 0 && k < l->n_band; k++) { /* (the band: a small radius; one more) */
    double a = floor((l->band[2 * k] - 2.0 * g->r_small_max) * g->inv_cell);
    double b = floor((l->band[2 * k + 1] + 2.0 * g->r_small_max) * g->inv_cell);
    int far = !(a >= -1e9) || !(b <= 1e9);
    mark_range(l, g, far ? 0 : (long)a - 1, far ? g->ncol - 1 : (long)b + 1);
  }
  int m = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < st->slots; i++) {
      int c = l->column[i];
      int mine = c >= 0 && l->owner_small[i] == d;
      if (c < 0 || (pass == 0 ? !mine : (mine || !l->mark[c])))
        continue;
      int *at = ms_grow(l->list[d], (size_t)m, &l->cap[d], sizeof(int), 256);
      if (!at)
        return ms_fail(MS_ERR_RUNTIME, "out of memory for domain %d's particles", d);
      l->list[d] = at;
      l->list[d][m++] = i;
      l->own[d] += pass == 0;
    }
  l->held[d] = m;
  return MS_OK;
}

ms_status ms_layout_make(ms_layout *l, const ms_grid_cut *g, const ms_state *st)
{
  int *col = realloc(l->column, ((size_t)st->slots + 1) * sizeof *col);
  int *os = realloc(l->owner_small, ((size_t)st->slots + 1) * sizeof *os);
  int *ol = realloc(l->owner_large, ((size_t)st->n_large + 1) * sizeof *ol);
  l->column = col ? col : l->column;
  l->owner_small = os ? os : l->owner_small;
  l->owner_large = ol ? ol : l->owner_large;
  if (!col || !os || !ol)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' layout");
  for (int i = 0; i < st->slots; i++) {
    int empty = st->small_shape[2 * i + 1] == 0.0f;
    col[i] = empty ? -1 : column_of(g, &st->small_pos[2 * i]);
  }
  cut(l, g, st);
  for (int i = 0; i < st->slots; i++)
    os[i] = col[i] >= 0 ? domain_of_column(l, col[i]) : -1;
  for (int j = 0; j < st->n_large; j++)
    ol[j] = domain_of_column(l, column_of(g, &st->large_pos[2 * j]));
  for (int d = 0; d < l->P; d++) {
    l->own[d] = 0;
    ms_status s = hold(l, g, st, d);
    if (s)
      return s;
  }
  return MS_OK;
}
