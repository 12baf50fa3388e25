/* The cells within reach of a wall (collision/worker/wall_band.h). */
#include "collision/worker/wall_band.h"

#include <math.h>
#include <stdlib.h>

#include "core/grow.h"
#include "shared/grid.h"

static int add(ms_band *b, int y, int x0, int x1)
{
  ms_band_span *s = ms_grow(b->span, b->n, &b->cap, sizeof *s, 64);
  if (!s)
    return 0;
  b->span = s;
  b->span[b->n++] = (ms_band_span){y, x0, x1};
  return 1;
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
  if (i < b->n) /* a ring's runs come sorted already; a polyline's segments' do not */
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
static int segment(ms_band *b, double ax, double ay, double bx, double by, double reach,
                   const ms_grid *g)
{
  double cell = 1.0 / g->inv_cell;
  double ylo = (ay < by ? ay : by) - reach, yhi = (ay < by ? by : ay) + reach;
  int r0 = ms_grid_axis(ylo, g->inv_cell, g->ny), r1 = ms_grid_axis(yhi, g->inv_cell, g->ny);
  for (int y = r0; y <= r1; y++) {
    /* Row y holds [y cell, (y + 1) cell); the clamped border rows hold everything beyond. */
    double lo = y == 0 ? -INFINITY : y * cell, hi = y == g->ny - 1 ? INFINITY : (y + 1) * cell;
    double xlo, xhi;
    if (!clip_x(ax, ay, bx, by, lo - reach, hi + reach, &xlo, &xhi))
      continue;
    int x0 = ms_grid_axis(xlo - reach, g->inv_cell, g->nx);
    int x1 = ms_grid_axis(xhi + reach, g->inv_cell, g->nx);
    if (!add(b, y, x0, x1))
      return 0;
  }
  return 1;
}

int ms_band_polyline(ms_band *b, const double *points, int n_points, int closed, double reach,
                     const ms_grid *g)
{
  b->n = 0;
  int n_seg = closed ? n_points : n_points - 1;
  for (int s = 0; s < n_seg; s++) {
    const double *a = &points[2 * s], *e = &points[2 * ((s + 1) % n_points)];
    if (!segment(b, a[0], a[1], e[0], e[1], reach, g)) {
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
                   const ms_grid *g)
{
  b->n = 0;
  double cell = 1.0 / g->inv_cell, ro = radius + reach, ri = radius - reach;
  int r0 = ms_grid_axis(cy - ro, g->inv_cell, g->ny), r1 = ms_grid_axis(cy + ro, g->inv_cell, g->ny);
  for (int y = r0; y <= r1; y++) {
    double lo = y == 0 ? -INFINITY : y * cell, hi = y == g->ny - 1 ? INFINITY : (y + 1) * cell;
    double wo, wi;
    ring_row(cy, ro, ri, lo, hi, &wo, &wi);
    if (wo < 0.0)
      continue;
    int ok;
    if (wi < 0.0) {
      ok = add(b, y, ms_grid_axis(cx - wo, g->inv_cell, g->nx),
               ms_grid_axis(cx + wo, g->inv_cell, g->nx));
    } else {
      ok = add(b, y, ms_grid_axis(cx - wo, g->inv_cell, g->nx),
               ms_grid_axis(cx - wi, g->inv_cell, g->nx)) &&
           add(b, y, ms_grid_axis(cx + wi, g->inv_cell, g->nx),
               ms_grid_axis(cx + wo, g->inv_cell, g->nx));
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
