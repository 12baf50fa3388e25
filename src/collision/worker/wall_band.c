/* The cells within reach of a wall (collision/worker/wall_band.h). */
#include "collision/worker/wall_band.h"

#include <math.h>
#include <stdlib.h>

#include "core/grow.h"
#include "shared/grid.h"

static int add_run(ms_band *b, int y, int x0, int x1)
{
  ms_band_span *s = ms_grow(b->span, b->n, &b->cap, sizeof *s, 64);
  if (!s)
    return 0;
  b->span = s;
  b->span[b->n++] = (ms_band_span){y, x0, x1};
  return 1;
}

/* The grid and the axes along which the band wraps round a periodic seam. */
typedef struct grid_at {
  const ms_grid *g;
  int wrap[2];
} grid_at;

static int wrap_into(int c, int n)
{
  c %= n;
  return c < 0 ? c + n : c;
}

/* Columns x0..x1 of row y; along a wrapping axis unclamped, put back into the grid (a run
 * across the seam becomes two, a run as wide as the grid the whole row). */
static int add(ms_band *b, const grid_at *at, int y, int x0, int x1)
{
  int nx = at->g->nx;
  if (at->wrap[1])
    y = wrap_into(y, at->g->ny);
  if (!at->wrap[0])
    return add_run(b, y, x0, x1);
  if (x1 - x0 + 1 >= nx)
    return add_run(b, y, 0, nx - 1);
  int a = wrap_into(x0, nx), e = a + (x1 - x0);
  if (e < nx)
    return add_run(b, y, a, e);
  return add_run(b, y, a, nx - 1) && add_run(b, y, 0, e - nx);
}

/* The cell of coordinate p along axis a: clamped like a particle's, or unclamped where the
 * band wraps. */
static int axis(const grid_at *at, int a, double p)
{
  if (at->wrap[a])
    return (int)floor(p * at->g->inv_cell);
  return ms_grid_axis(p, at->g->inv_cell, a == 0 ? at->g->nx : at->g->ny);
}

/* Row y's y range; a clamped border row holds everything beyond. */
static void row_range(const grid_at *at, int y, double *lo, double *hi)
{
  double cell = 1.0 / at->g->inv_cell;
  int clamp = !at->wrap[1];
  *lo = clamp && y == 0 ? -INFINITY : y * cell;
  *hi = clamp && y == at->g->ny - 1 ? INFINITY : (y + 1) * cell;
}

static int by_row(const void *pa, const void *pb)
{
  const ms_band_span *a = pa, *b = pb;
  if (a->y != b->y)
    return a->y < b->y ? -1 : 1;
  return (a->x0 > b->x0) - (a->x0 < b->x0);
}

/* Sorts the runs by row and start, and merges those that overlap or touch. */
static void merge(ms_band *b)
{
  if (b->n == 0)
    return;
  size_t i = 1;
  while (i < b->n && by_row(&b->span[i - 1], &b->span[i]) <= 0)
    i++;
  if (i < b->n) /* a ring's runs come sorted already (unless wrapped); a polyline's do not */
    qsort(b->span, b->n, sizeof *b->span, by_row);
  size_t out = 0;
  for (size_t i = 1; i < b->n; i++) {
    ms_band_span *last = &b->span[out], s = b->span[i];
    if (s.y == last->y && s.x0 <= last->x1 + 1) {
      if (s.x1 > last->x1)
        last->x1 = s.x1;
    } else {
      b->span[++out] = s;
    }
  }
  b->n = out + 1;
}

/* The part of segment a-b whose y lies in [ylo, yhi], as its x extent; 0 when none. */
static int clip_x(double ax, double ay, double bx, double by, double ylo, double yhi, double *xlo,
                  double *xhi)
{
  double t0 = 0.0, t1 = 1.0, dy = by - ay;
  if (dy == 0.0) {
    if (ay < ylo || ay > yhi)
      return 0;
  } else {
    double ta = (ylo - ay) / dy, tb = (yhi - ay) / dy;
    double lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
    t0 = lo > 0.0 ? lo : 0.0;
    t1 = hi < 1.0 ? hi : 1.0;
    if (t0 > t1)
      return 0;
  }
  double x0 = ax + t0 * (bx - ax), x1 = ax + t1 * (bx - ax);
  *xlo = x0 < x1 ? x0 : x1;
  *xhi = x0 < x1 ? x1 : x0;
  return 1;
}

/* One segment's cells: for each row its capsule crosses, the x extent of the segment
 * within the row's y range widened by reach, widened again by reach. */
static int segment(ms_band *b, const grid_at *at, double ax, double ay, double bx, double by,
                   double reach)
{
  double ylo = (ay < by ? ay : by) - reach, yhi = (ay < by ? by : ay) + reach;
  int r0 = axis(at, 1, ylo), r1 = axis(at, 1, yhi);
  for (int y = r0; y <= r1; y++) {
    double lo, hi, xlo, xhi;
    row_range(at, y, &lo, &hi);
    if (!clip_x(ax, ay, bx, by, lo - reach, hi + reach, &xlo, &xhi))
      continue;
    if (!add(b, at, y, axis(at, 0, xlo - reach), axis(at, 0, xhi + reach)))
      return 0;
  }
  return 1;
}

int ms_band_polyline(ms_band *b, const double *points, int n_points, int closed, double reach,
                     const ms_grid *g, const double seam[2])
{
  grid_at at = {g, {seam[0] > 0.0, seam[1] > 0.0}};
  b->n = 0;
  int n_seg = closed ? n_points : n_points - 1;
  for (int s = 0; s < n_seg; s++) {
    const double *a = &points[2 * s], *e = &points[2 * ((s + 1) % n_points)];
    if (!segment(b, &at, a[0], a[1], e[0], e[1], reach)) {
      b->n = 0;
      return 0;
    }
  }
  merge(b);
  return 1;
}

/* The x half-widths of a ring's outer and inner circles over the row [lo, hi]: the
 * outer's widest (nearest y), the inner's narrowest (farthest y), -1 where none. */
static void ring_row(double cy, double ro, double ri, double lo, double hi, double *wo,
                     double *wi)
{
  double near = cy < lo ? lo - cy : cy > hi ? cy - hi : 0.0;
  double far = fabs(lo - cy) > fabs(hi - cy) ? fabs(lo - cy) : fabs(hi - cy);
  *wo = near <= ro ? sqrt(ro * ro - near * near) : -1.0;
  *wi = ri > 0.0 && far < ri ? sqrt(ri * ri - far * far) : -1.0;
}

int ms_band_circle(ms_band *b, double cx, double cy, double radius, double reach,
                   const ms_grid *g, const double seam[2])
{
  grid_at at = {g, {seam[0] > 0.0, seam[1] > 0.0}};
  b->n = 0;
  double ro = radius + reach, ri = radius - reach;
  int r0 = axis(&at, 1, cy - ro), r1 = axis(&at, 1, cy + ro);
  for (int y = r0; y <= r1; y++) {
    double lo, hi, wo, wi;
    row_range(&at, y, &lo, &hi);
    ring_row(cy, ro, ri, lo, hi, &wo, &wi);
    if (wo < 0.0)
      continue;
    int ok;
    if (wi < 0.0) {
      ok = add(b, &at, y, axis(&at, 0, cx - wo), axis(&at, 0, cx + wo));
    } else {
      ok = add(b, &at, y, axis(&at, 0, cx - wo), axis(&at, 0, cx - wi)) &&
           add(b, &at, y, axis(&at, 0, cx + wi), axis(&at, 0, cx + wo));
    }
    if (!ok) {
      b->n = 0;
      return 0;
    }
  }
  merge(b);
  return 1;
}

void ms_band_free(ms_band *b)
{
  free(b->span);
  b->span = NULL;
  b->n = b->cap = 0;
}
