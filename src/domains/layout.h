/* Where each particle of a split collision run lives (docs/domains.md): the box cut into
 * slabs of whole cell columns along the grid's longer axis, by the small particles' count;
 * each domain owns the small particles of its columns and the large particles whose centre
 * lies there, and holds besides, read only, the particles of one column each side and of
 * every column its large particles reach. Host arithmetic on the gathered state alone. */
#ifndef MS_DOMAINS_LAYOUT_H
#define MS_DOMAINS_LAYOUT_H

#include "mixsim/sim.h"

typedef struct ms_grid_cut {
  int axis;             /* 0: x, 1: y (the grid's longer) */
  int ncol;             /* cell columns along it */
  double inv_cell;
  int periodic;         /* the axis wraps: the first and last domains are neighbours */
  double r_small_max;   /* a large particle reaches its radius and this further */
  int halo;             /* columns held each side: 1 (0 only for the tests' control) */
} ms_grid_cut;

typedef struct ms_layout {
  int P;
  int *start;           /* P + 1: domain d owns columns [start[d], start[d + 1]) */
  int *owner_small;     /* per small slot: its domain */
  int *owner_large;     /* per large particle */
  int **list;           /* per domain: the global slots it holds, its own first */
  int *held, *own;      /* per domain: how many it holds, how many are its own */
  size_t *cap;          /* per domain: list's room */
  int *column;          /* per small slot (scratch) */
  unsigned char *mark;  /* ncol (scratch): the columns one domain holds */
  double *count;        /* ncol + 1 (scratch): each column's particles, weighted */
  double *weight;       /* ncol: what a particle of each column costs, relative (cut_balance.c;
                           1 until measured) */
  /* Along the axis, the extents [lo, hi] (m) of the [wall.NAME]s now: domain 0 owns them
   * and holds every column within reach of them, so that it sums their reactions (which
   * move a force-driven wall) from every contact in one device's order (the caller sets
   * them before ms_layout_make). */
  int n_band;
  double *band;         /* lo, hi per wall */
} ms_layout;

ms_status ms_layout_init(ms_layout *l, int P, const ms_grid_cut *g);
void ms_layout_free(ms_layout *l);

/* The cut (by the particles' count, each weighted by its column's weight), the owners and
 * every domain's list for the state st. */
ms_status ms_layout_make(ms_layout *l, const ms_grid_cut *g, const ms_state *st);
/* The cut alone, from each column's particles `count` (ncol of them, unweighted), and
 * every domain's own count under it (the incremental meeting's: live.h). */
void ms_layout_cut_counts(ms_layout *l, const ms_grid_cut *g, const double *count);

#endif
