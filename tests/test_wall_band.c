/* The cells within reach of a wall (collision/worker/wall_band.h): every point within reach
 * of a polyline or of a circle lies in a cell of the band, the runs are sorted, disjoint
 * and merged, and the band of a drum is a ring, not its bounding square; across a periodic
 * seam the band wraps round the grid. */
#include <math.h>
#include <stdlib.h>

#include "collision/worker/wall_band.h"
#include "harness.h"
#include "shared/grid.h"

static const char *filter;
static const double no_seam[2] = {0.0, 0.0};
static unsigned long long rng_state = 12345;

static double uniform(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static ms_grid grid_of(double cell, int nx, int ny)
{
  ms_grid g = {1.0 / cell, nx, ny, (size_t)nx * (size_t)ny, {0, 0, 0, 0}};
  return g;
}

static int in_band(const ms_band *b, int x, int y)
{
  for (size_t i = 0; i < b->n; i++)
    if (b->span[i].y == y && b->span[i].x0 <= x && x <= b->span[i].x1)
      return 1;
  return 0;
}

static int well_formed(const ms_band *b)
{
  for (size_t i = 1; i < b->n; i++) {
    const ms_band_span *p = &b->span[i - 1], *s = &b->span[i];
    if (s->y < p->y || (s->y == p->y && s->x0 <= p->x1 + 1))
      return 0;
  }
  for (size_t i = 0; i < b->n; i++)
    if (b->span[i].x0 > b->span[i].x1)
      return 0;
  return 1;
}

/* Random points within reach of a random polyline: each one's cell is in the band. */
static void test_polyline_band_covers_reach(void)
{
  ms_grid g = grid_of(0.01, 100, 80);
  for (int round = 0; round < 200; round++) {
    int n = 2 + (int)(uniform() * 5), closed = round % 3 == 0 && n >= 3;
    double pts[14];
    for (int i = 0; i < n; i++) {
      pts[2 * i] = uniform() * 1.0;
      pts[2 * i + 1] = uniform() * 0.8;
    }
    double reach = 0.002 + uniform() * 0.02;
    ms_band b = {0};
    ENSURE(ms_band_polyline(&b, pts, n, closed, reach, &g, no_seam));
    ENSURE(well_formed(&b));
    int n_seg = closed ? n : n - 1;
    for (int k = 0; k < 400; k++) {
      int s = (int)(uniform() * n_seg);
      const double *a = &pts[2 * s], *e = &pts[2 * ((s + 1) % n)];
      double t = uniform(), ang = uniform() * 6.283185307179586, d = uniform() * reach * 0.999;
      double x = a[0] + t * (e[0] - a[0]) + d * cos(ang), y = a[1] + t * (e[1] - a[1]) + d * sin(ang);
      int cx = ms_grid_axis(x, g.inv_cell, g.nx), cy = ms_grid_axis(y, g.inv_cell, g.ny);
      if (!in_band(&b, cx, cy)) {
        fprintf(stderr, "round %d: (%g, %g) in cell (%d, %d) is within reach, not in the band\n",
                round, x, y, cx, cy);
        ms_band_free(&b);
        ENSURE(0);
      }
    }
    ms_band_free(&b);
  }
}

/* A drum: the points within reach of its rim are covered, and the band is a ring (its
 * centre's cells are not in it, and it holds far fewer cells than the square around it). */
static void test_circle_band_is_a_ring(void)
{
  ms_grid g = grid_of(0.01, 120, 120);
  double cx = 0.6, cy = 0.6, R = 0.5, reach = 0.01;
  ms_band b = {0};
  ENSURE(ms_band_circle(&b, cx, cy, R, reach, &g, no_seam));
  ENSURE(well_formed(&b));
  for (int k = 0; k < 20000; k++) {
    double ang = uniform() * 6.283185307179586, d = R + (2.0 * uniform() - 1.0) * reach * 0.999;
    double x = cx + d * cos(ang), y = cy + d * sin(ang);
    ENSURE(in_band(&b, ms_grid_axis(x, g.inv_cell, g.nx), ms_grid_axis(y, g.inv_cell, g.ny)));
  }
  ENSURE(!in_band(&b, 60, 60));
  size_t cells = 0;
  for (size_t i = 0; i < b.n; i++)
    cells += (size_t)(b.span[i].x1 - b.span[i].x0 + 1);
  /* the ring's area over the cell's is 2 pi R (2 reach) / cell^2 ~ 630; a few rows more */
  ENSURE(cells < 1400);
  ms_band_free(&b);
}

/* Two collinear segments give the band of one segment: the walk cannot tell a joint. */
static void test_collinear_joint_same_band(void)
{
  ms_grid g = grid_of(0.01, 100, 50);
  double one[] = {0.05, 0.2, 0.95, 0.2}, two[] = {0.05, 0.2, 0.5, 0.2, 0.95, 0.2};
  ms_band a = {0}, b = {0};
  ENSURE(ms_band_polyline(&a, one, 2, 0, 0.01, &g, no_seam) &&
         ms_band_polyline(&b, two, 3, 0, 0.01, &g, no_seam));
  ENSURE(a.n == b.n);
  for (size_t i = 0; i < a.n; i++)
    ENSURE(a.span[i].y == b.span[i].y && a.span[i].x0 == b.span[i].x0 &&
           a.span[i].x1 == b.span[i].x1);
  ms_band_free(&a);
  ms_band_free(&b);
}

/* Across a periodic seam: a segment and a drum lying over the box's sides (x and y periodic)
 * have bands that wrap round the grid, every point within reach covered through its image in
 * the box, and no cell twice. */
static void test_band_wraps_round_a_seam(void)
{
  ms_grid g = grid_of(0.01, 100, 50);
  const double seam[2] = {1.0, 0.5};
  double seg[] = {0.9, 0.45, 1.2, 0.58}; /* from inside the box across both seams */
  ms_band a = {0}, b = {0};
  ENSURE(ms_band_polyline(&a, seg, 2, 0, 0.01, &g, seam));
  ENSURE(ms_band_circle(&b, -0.05, 0.25, 0.1, 0.01, &g, seam));
  ENSURE(well_formed(&a) && well_formed(&b));
  for (int k = 0; k < 4000; k++) {
    double t = uniform(), ang = uniform() * 6.283185307179586, d = uniform() * 0.01 * 0.999;
    double x = 0.9 + t * 0.3 + d * cos(ang), y = 0.45 + t * 0.13 + d * sin(ang);
    double xc = x - floor(x), yc = y - 0.5 * floor(y / 0.5);
    ENSURE(in_band(&a, ms_grid_axis(xc, g.inv_cell, g.nx), ms_grid_axis(yc, g.inv_cell, g.ny)));
    double rr = 0.1 + (2.0 * uniform() - 1.0) * 0.01 * 0.999;
    x = -0.05 + rr * cos(ang);
    y = 0.25 + rr * sin(ang);
    xc = x - floor(x);
    ENSURE(in_band(&b, ms_grid_axis(xc, g.inv_cell, g.nx), ms_grid_axis(y, g.inv_cell, g.ny)));
  }
  ENSURE(in_band(&a, 0, 0) && in_band(&a, 99, 49)); /* both seams crossed */
  ENSURE(in_band(&b, 85, 25) && in_band(&b, 4, 25) && !in_band(&b, 99, 25)); /* a ring still */
  ms_band_free(&a);
  ms_band_free(&b);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_polyline_band_covers_reach, filter);
  RUN_TEST(test_circle_band_is_a_ring, filter);
  RUN_TEST(test_collinear_joint_same_band, filter);
  RUN_TEST(test_band_wraps_round_a_seam, filter);
  return TEST_EXIT();
}
