/* Uniform-grid addressing shared by the grid kernels and the CPU worker's large-small
 * search: cell size = the largest small diameter (so the 3x3 search finds every contact
 * of a size distribution), fixed capacity per cell, row-major cells; the grid's corner
 * is the frame's origin (the box's min corner). */
#ifndef MS_SHARED_GRID_H
#define MS_SHARED_GRID_H

#include "compat.h"

#ifdef __OPENCL_C_VERSION__
typedef ulong ms_slot_index;
#else
#include <stdint.h>
typedef uint64_t ms_slot_index;
#endif

/* Slots of the flags buffer the grid kernels fill (reset by ms_grid_clear). */
#define MS_FLAG_OVERFLOW 0   /* insertions that found their cell full */
#define MS_FLAG_MAX_COUNT 1  /* largest count an overflowing cell reached */
#define MS_FLAG_OUTSIDE 2    /* particles whose centre lies outside the grid */
#define MS_FLAG_NONFINITE 3  /* particles with a NaN/Inf position */
#define MS_FLAG_FIRST_BAD 4  /* lowest index among the non-finite ones */
#define MS_FLAG_FIRST_OUT 5  /* lowest index among those outside */
#define MS_FLAG_FAST 6       /* particles faster than the scene's max_speed */
#define MS_FLAG_FIRST_FAST 7 /* lowest index among the fast ones */
#define MS_FLAG_OFF_SPAN 8   /* particles in a cell outside the grid's span (below) */
#define MS_FLAG_COUNT 9
#define MS_NO_PARTICLE 0x7fffffff

/* Cell coordinate along one axis, clamped into [0, n-1]: a particle outside the grid
 * still lands in a border cell (and is counted), so no contact is lost. */
MS_FN int ms_grid_axis(double p, double inv_cell, int n)
{
  double f = floor(p * inv_cell);
  if (!(f >= 0.0))
    return 0;
  if (f >= (double)n)
    return n - 1;
  return (int)f;
}

MS_FN int ms_grid_axis_outside(double p, double inv_cell, int n)
{
  double f = floor(p * inv_cell);
  return !(f >= 0.0) || f >= (double)n;
}

/* The grid's span: the cells that may hold small particles, columns x0 .. x0 + wx - 1 and
 * rows y0 .. y0 + wy - 1, each taken round its axis (x0 < nx, wx <= nx; the same for y). The
 * whole grid is (0, nx, 0, ny); a domain narrows it to its columns and windows, and the
 * grid's clear and sort and the zone's sweeps then visit its cells only
 * (collision/device/grid.c: a particle found outside it widens it to the whole grid). */

/* Cell i (0 .. wx * wy - 1) of a span, row by row and each row from x0: within a row of
 * the span, the grid's own order but for the wrap at the seam. */
MS_FN int ms_span_cell(int i, int x0, int wx, int y0, int nx, int ny)
{
  if (wx == nx) { /* whole rows (the whole grid too): no division per cell */
    int c = y0 * nx + i;
    return c < nx * ny ? c : c - nx * ny;
  }
  int y = y0 + i / wx, x = x0 + i % wx;
  return (y < ny ? y : y - ny) * nx + (x < nx ? x : x - nx);
}

/* Whether c (in [0, n)) lies within the w cells from c0 along an axis of n, round it. */
MS_FN int ms_span_holds(int c, int c0, int w, int n)
{
  int d = c - c0;
  return (d < 0 ? d + n : d) < w;
}

/* An empty slot of the small particles' arrays (docs/open-systems.md): a particle removed
 * there, or room not filled yet. Its shape (radius, mass) is (0, 0) and it lies far outside
 * the box, at rest; the grid leaves it out, so nothing meets it, and it is not stepped. */
#define MS_SLOT_EMPTY_AT (-1.0e9)
#ifdef __OPENCL_C_VERSION__
MS_FN int ms_slot_empty(float2 shape) { return shape.y == 0.0f; }
#endif

/* Periodic boundaries (docs/open-systems.md): a periodic axis has a whole number of cells
 * (scene/box_cell.c), positions are kept in [0, period), and two particles meet through
 * the nearest image. `period` is 0 along an axis that does not wrap. */

/* The offset d = x_j - x_i (double) through the nearest image: every pair's offset is
 * taken through this one expression, so the device and the worker agree to the bit. */
MS_FN double ms_image(double d, double period)
{
  if (period > 0.0) {
    if (d > 0.5 * period)
      d -= period;
    else if (d < -0.5 * period)
      d += period;
  }
  return d;
}

/* Puts a coordinate stepped past a periodic side back into [0, period), counting the
 * periods crossed in *image (the unwrapped coordinate is x + image * period). */
MS_FN void ms_wrap_into(double *x, int *image, double period)
{
  if (!(period > 0.0))
    return;
  if (*x < 0.0) {
    *x += period;
    *image -= 1;
  }
  if (*x >= period) { /* also a tiny negative x that rounded up to the period */
    *x -= period;
    *image += 1;
  }
}

/* Cell c along an axis of n cells, wrapped when the axis is periodic; -1 when it lies
 * off a non-periodic grid. */
MS_FN int ms_grid_wrap(int c, int n, int periodic)
{
  if (c < 0)
    return periodic ? c + n : -1;
  if (c >= n)
    return periodic ? c - n : -1;
  return c;
}

/* Cell (cx, cy) as an index into the row-major grid, each axis wrapped where it is
 * periodic; -1 when it lies off a non-periodic side. */
MS_FN int ms_grid_cell_wrap(int cx, int cy, int nx, int ny, int px, int py)
{
  int x = ms_grid_wrap(cx, nx, px), y = ms_grid_wrap(cy, ny, py);
  return x < 0 || y < 0 ? -1 : y * nx + x;
}

/* The k-th (0..8) of the 3x3 cells around (cx, cy), rows bottom to top and each row left to
 * right, or -1: a plain `for k < 9` walk visits them in one fixed order, so every sum over
 * a particle's neighbours comes out the same on every side. */
MS_FN int ms_grid_neighbour(int cx, int cy, int k, int nx, int ny, int px, int py)
{
  return ms_grid_cell_wrap(cx + k % 3 - 1, cy + k / 3 - 1, nx, ny, px, py);
}

/* The cells within `reach` of (x, y), clamped to the grid: columns x0..x1, rows y0..y1.
 * With reach = a large particle's radius + the largest small radius, the rectangle its
 * large-small walk visits (the worker, the zone, the device-only kernels, the summary). */
typedef struct ms_cell_rect {
  int x0, x1, y0, y1;
} ms_cell_rect;

MS_FN ms_cell_rect ms_grid_rect(double x, double y, double reach, double inv_cell, int nx, int ny)
{
  ms_cell_rect q;
  q.x0 = ms_grid_axis(x - reach, inv_cell, nx);
  q.x1 = ms_grid_axis(x + reach, inv_cell, nx);
  q.y0 = ms_grid_axis(y - reach, inv_cell, ny);
  q.y1 = ms_grid_axis(y + reach, inv_cell, ny);
  return q;
}

/* The cells c0..c1 within `reach` of x along a periodic axis of n cells, c0 taken into
 * [0, n) (c1 may pass n - 1: walk it through ms_grid_wrap). Moving the walk's start by whole
 * periods visits the same cells in the same order; a coordinate many periods out (a blown-up
 * state, before its check stops the run) or not finite gets a valid span, never a cell off
 * the grid. */
MS_FN void ms_grid_span_wrap(double x, double reach, double inv_cell, int n, int *c0, int *c1)
{
  double a = ms_floor((x - reach) * inv_cell), w = ms_floor((x + reach) * inv_cell) - a;
  double s = a - (double)n * ms_floor(a / (double)n);
  if (!(s >= 0.0 && s < (double)n && w >= 0.0 && w < (double)n))
    s = w = 0.0; /* NaN, infinite, or past what a double resolves */
  *c0 = (int)s;
  *c1 = (int)s + (int)w;
}

/* The same on a box that may wrap: along a periodic axis the range is not clamped (it may
 * end past n - 1; walk it through ms_grid_wrap). The scene keeps a reach under half the
 * period, so no cell comes twice. */
MS_FN ms_cell_rect ms_grid_rect_wrap(double x, double y, double reach, double inv_cell, int nx,
                                     int ny, int px, int py)
{
  ms_cell_rect q = ms_grid_rect(x, y, reach, inv_cell, nx, ny);
  if (px)
    ms_grid_span_wrap(x, reach, inv_cell, nx, &q.x0, &q.x1);
  if (py)
    ms_grid_span_wrap(y, reach, inv_cell, ny, &q.y0, &q.y1);
  return q;
}

/* Where cell c (in [0, n)) lies in a walk from c0 (a rectangle's unclamped start):
 * c - c0, taken modulo n when the axis is periodic (a walk spans fewer than n cells). */
MS_FN int ms_grid_walk_offset(int c, int c0, int n, int periodic)
{
  int d = c - c0;
  if (periodic) {
    d %= n;
    if (d < 0)
      d += n;
  }
  return d;
}

/* The large-large sweep (particles by ascending left edge) pairs A with each B after it
 * that starts left of A's right edge and, periodic in x, with each B whose image one period
 * to the left may touch A: that image ends by left_b - period + 2 r_large_max, so only a B
 * starting past ms_seam_left(A) can reach A's left edge. */
MS_FN double ms_seam_left(double left_a, double period_x, double r_large_max)
{
  return left_a + period_x - 2.0 * r_large_max;
}

/* Whether the sweep looks at the pair A before B (left_a <= left_b): the worker, the
 * device's large-large kernel, the summary, the contact counts and the diagnostics. */
MS_FN int ms_sweep_pair(double left_a, double right_a, double left_b, double period_x,
                        double r_large_max)
{
  if (!(left_b > right_a))
    return 1;
  return period_x > 0.0 && left_b > ms_seam_left(left_a, period_x, r_large_max);
}

/* Position of slot `slot` of cell `cell` in the index buffer (cap slots per cell,
 * row-major cells). In 64 bits: cells x capacity passes 2^31 on a large device (2^28
 * cells of 8 slots do), where an int product would wrap. */
MS_FN ms_slot_index ms_grid_slot(int cell, int cap, int slot)
{
  return (ms_slot_index)cell * (ms_slot_index)cap + (ms_slot_index)slot;
}

#ifdef __OPENCL_C_VERSION__
/* What orders small particle i: its key, the global slot it stands for, when the device
 * holds its particles in an order of its own (`keyed`, docs/domains.md); else its index,
 * which is the global slot. */
MS_FN int ms_slot_key(__global const int *key, int keyed, int i) { return keyed ? key[i] : i; }

/* Insertion sort of one cell's n entries (a handful), by ms_slot_key: the grid's and the
 * large list's per-cell sorts, so no sum depends on the order the atomics ran in, and a cell's
 * particles come out in the order one device holding them all sorts them. */
MS_FN void ms_grid_sort_cell_by(__global int *cell, int n, __global const int *key, int keyed)
{
  for (int a = 1; a < n; a++) {
    int v = cell[a], kv = ms_slot_key(key, keyed, v);
    int b = a - 1;
    while (b >= 0 && ms_slot_key(key, keyed, cell[b]) > kv) {
      cell[b + 1] = cell[b];
      b--;
    }
    cell[b + 1] = v;
  }
}

/* The same by index (the large list's cells, which hold large particles). */
MS_FN void ms_grid_sort_cell(__global int *cell, int n) { ms_grid_sort_cell_by(cell, n, 0, 0); }
#endif

#endif
