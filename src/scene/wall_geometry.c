/* Exact orientation and segment tests for the wall checks: the cross product is summed
 * as an expansion of error-free products and sums (Shewchuk, "Adaptive precision
 * floating-point arithmetic and fast robust geometric predicates", 1997), so its sign is
 * that of the exact value. Needs floating-point contraction off (meson.build). */
#include "scene/wall_geometry.h"

#include <float.h>
#include <math.h>

/* a + b = s + e exactly (Knuth's two-sum). */
static void two_sum(double a, double b, double *s, double *e)
{
  double x = a + b, bv = x - a, av = x - bv;
  *s = x;
  *e = (a - av) + (b - bv);
}

/* a = hi + lo, each of at most 26 significant bits (Veltkamp's split). */
static void split(double a, double *hi, double *lo)
{
  double c = 134217729.0 * a; /* 2^27 + 1 */
  *hi = c - (c - a);
  *lo = a - *hi;
}

/* a b = p + e exactly (Dekker's product), barring underflow. */
static void two_product(double a, double b, double *p, double *e)
{
  double ah, al, bh, bl;
  *p = a * b;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  *e = al * bl - (((*p - ah * bh) - al * bh) - ah * bl);
}

/* The orientation is homogeneous of degree 2: scaling every coordinate by one power of
 * two keeps its sign, and brings the largest to [0.5, 1), where the products neither
 * overflow nor (down to 2^-450 of the largest) underflow. */
static void scale(const double a[2], const double b[2], const double c[2], double out[6])
{
  const double in[6] = {a[0], a[1], b[0], b[1], c[0], c[1]};
  double big = 0.0;
  for (int i = 0; i < 6; i++)
    big = fmax(big, fabs(in[i]));
  int e = 0;
  frexp(big, &e);
  for (int i = 0; i < 6; i++)
    out[i] = ldexp(in[i], -e);
}

int ms_orient2d(const double a[2], const double b[2], const double c[2])
{
  double v[6];
  scale(a, b, c, v);
  const double ax = v[0], ay = v[1], bx = v[2], by = v[3], cx = v[4], cy = v[5];
  /* (b - a) x (c - a) = bx cy - bx ay - ax cy - by cx + by ax + ay cx (ax ay cancels). */
  const double f[6][2] = {{bx, cy}, {-bx, ay}, {-ax, cy}, {-by, cx}, {by, ax}, {ay, cx}};
  double h[12]; /* non-overlapping, by increasing magnitude (Shewchuk's Grow-Expansion) */
  int n = 0;
  for (int i = 0; i < 6; i++) {
    double t[2];
    two_product(f[i][0], f[i][1], &t[0], &t[1]);
    for (int j = 0; j < 2; j++) {
      double q = t[j];
      for (int k = 0; k < n; k++)
        two_sum(q, h[k], &q, &h[k]);
      h[n++] = q;
    }
  }
  /* The largest non-zero component outweighs all the others together. */
  for (int k = n - 1; k >= 0; k--)
    if (h[k] != 0.0)
      return h[k] > 0.0 ? 1 : -1;
  return 0;
}

/* p, collinear with a and b, lies on the segment a-b. */
static int within(const double a[2], const double b[2], const double p[2])
{
  return fmin(a[0], b[0]) <= p[0] && p[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= p[1] &&
         p[1] <= fmax(a[1], b[1]);
}

int ms_segments_meet(const double p0[2], const double p1[2], const double q0[2],
                     const double q1[2])
{
  /* Boxes apart: no common point (and no predicate to evaluate). */
  if (fmax(p0[0], p1[0]) < fmin(q0[0], q1[0]) || fmax(q0[0], q1[0]) < fmin(p0[0], p1[0]) ||
      fmax(p0[1], p1[1]) < fmin(q0[1], q1[1]) || fmax(q0[1], q1[1]) < fmin(p0[1], p1[1]))
    return 0;
  int d0 = ms_orient2d(q0, q1, p0), d1 = ms_orient2d(q0, q1, p1);
  int d2 = ms_orient2d(p0, p1, q0), d3 = ms_orient2d(p0, p1, q1);
  if (d0 * d1 < 0 && d2 * d3 < 0)
    return 1; /* they cross */
  return (d0 == 0 && within(q0, q1, p0)) || (d1 == 0 && within(q0, q1, p1)) ||
         (d2 == 0 && within(p0, p1, q0)) || (d3 == 0 && within(p0, p1, q1));
}

static int sign(double a, double b) { return (a > b) - (a < b); }

int ms_folds_back(const double a[2], const double b[2], const double c[2])
{
  /* On one line, c turns back when a and c lie on the same side of b: the comparisons of
   * their coordinates with b's then agree (exactly, no difference is rounded). */
  return ms_orient2d(a, b, c) == 0 && sign(a[0], b[0]) == sign(c[0], b[0]) &&
         sign(a[1], b[1]) == sign(c[1], b[1]);
}

/* The cross product's first-order change when every coordinate moves by a relative 2^-53,
 * doubled and more to cover the rounding of its own evaluation: a product of the scaled
 * coordinates (at most 1 in magnitude) overflows nowhere. */
int ms_collinear_within_rounding(const double a[2], const double b[2], const double c[2])
{
  double v[6];
  scale(a, b, c, v);
  const double ax = v[0], ay = v[1], bx = v[2], by = v[3], cx = v[4], cy = v[5];
  double det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  double moved = (fabs(ax) + fabs(bx)) * fabs(cy - ay) + fabs(bx - ax) * (fabs(ay) + fabs(cy)) +
                 (fabs(ay) + fabs(by)) * fabs(cx - ax) + fabs(by - ay) * (fabs(ax) + fabs(cx));
  return ms_orient2d(a, b, c) == 0 || fabs(det) <= 4.0 * DBL_EPSILON * moved;
}

int ms_folds_back_within_rounding(const double a[2], const double b[2], const double c[2])
{
  double v[6];
  scale(a, b, c, v);
  double dot = (v[0] - v[2]) * (v[4] - v[2]) + (v[1] - v[3]) * (v[5] - v[3]);
  return ms_folds_back(a, b, c) || (ms_collinear_within_rounding(a, b, c) && dot > 0.0);
}
