/* The wall law of kernels/shared/wall.h on the host, without OpenCL: which contacts a disc
 * has with polylines and drums (the feature rule at joints and corners), the walls' motion
 * against its closed form and its derivative, one contact's force against the box walls'
 * and its reaction, then a disc stepped by a tiny loop of the shared helpers against
 * analytic results: rolling and sliding down an inclined segment, rolling along ten
 * collinear segments as along one, rebounding from a segment's end point, carried by a
 * moving belt, and the energy balance on a shaken floor (docs/walls.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "shared/wall.h"

static const char *filter;

#define G 9.81
#define MAX_HITS 16

static float lcg_unit(unsigned *state) /* deterministic values in [-1, 1) */
{
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

/* Every contact of a disc with a polyline, as the engine loops over it: the hits and their
 * polyline-wide feature ids. */
static int polyline_hits(double px, double py, float r, const double *xs, const double *ys,
                         int nv, int closed, ms_wall_hit *hits, int *ids)
{
  int n = 0;
  for (int i = 0; i < ms_polyline_segments(nv, closed); i++) {
    ms_wall_segment s = ms_polyline_segment(i, nv, closed);
    ms_wall_hit h;
    if (ms_segment_contact(px, py, r, xs[s.a], ys[s.a], xs[s.b], ys[s.b], s.start_free,
                           s.end_free, xs[s.c], ys[s.c], &h)) {
      hits[n] = h;
      ids[n] = ms_polyline_feature(i, h.feature, nv);
      n++;
    }
  }
  return n;
}

/* ---- Geometry ------------------------------------------------------------------------ */

/* A face contact on either side of a two-sided segment: the normal from the line to the
 * centre, the overlap r - distance, the foot as contact point; none at distance r. */
static void test_segment_face(void)
{
  float r = 0.01f;
  double ax = 0.1, ay = 0.2, bx = 0.4, by = 0.6; /* u = (0.6, 0.8), left = (-0.8, 0.6) */
  for (int side = -1; side <= 1; side += 2) {
    double px = ax + 0.25 * 0.6 + side * 0.7 * r * -0.8;
    double py = ay + 0.25 * 0.8 + side * 0.7 * r * 0.6;
    ms_wall_hit h;
    ENSURE(ms_segment_contact(px, py, r, ax, ay, bx, by, 1, 1, 0.0, 0.0, &h) == 1);
    ENSURE(h.feature == MS_WALL_FACE);
    ENSURE_SMALL(h.n.x - side * -0.8f, 1e-6);
    ENSURE_SMALL(h.n.y - side * 0.6f, 1e-6);
    ENSURE_SMALL(h.overlap - 0.3f * r, 1e-9);
    ENSURE_SMALL(h.x - (ax + 0.25 * 0.6), 1e-12);
    ENSURE_SMALL(h.y - (ay + 0.25 * 0.8), 1e-12);
  }
  ms_wall_hit h;
  ENSURE(!ms_segment_contact(0.3, 0.2 + r, r, 0.0, 0.2, 1.0, 0.2, 1, 1, 0.0, 0.0, &h));
  ENSURE(ms_segment_contact(0.3, 0.2 + 0.5 * r, r, 0.0, 0.2, 1.0, 0.2, 1, 1, 0.0, 0.0, &h));
}

/* An open polyline's first and last points have contacts beyond them (radial normal, the
 * point as contact point); a joint's side gives none past its end, as does a start owned
 * by the segment before; t = L exactly is the end's (the half-open rule). */
static void test_segment_free_ends(void)
{
  float r = 0.01f;
  ms_wall_hit h;
  /* segment (0, 0) -> (0.1, 0) */
  ENSURE(ms_segment_contact(-0.003, 0.004, r, 0.0, 0.0, 0.1, 0.0, 1, 1, 0.0, 0.0, &h));
  ENSURE(h.feature == MS_WALL_START && h.x == 0.0 && h.y == 0.0);
  ENSURE_SMALL(h.n.x + 0.6f, 1e-6);
  ENSURE_SMALL(h.n.y - 0.8f, 1e-6);
  ENSURE_SMALL(h.overlap - 0.005f, 1e-9);
  ENSURE(!ms_segment_contact(-0.003, 0.004, r, 0.0, 0.0, 0.1, 0.0, 0, 1, 0.0, 0.0, &h));
  ENSURE(ms_segment_contact(0.103, -0.004, r, 0.0, 0.0, 0.1, 0.0, 1, 1, 0.0, 0.0, &h));
  ENSURE(h.feature == MS_WALL_END && h.x == 0.1 && h.y == 0.0);
  ENSURE_SMALL(h.n.x - 0.6f, 1e-6);
  ENSURE_SMALL(h.n.y + 0.8f, 1e-6);
  /* the end is a joint with a straight continuation: the next segment's face has it */
  ENSURE(!ms_segment_contact(0.103, -0.004, r, 0.0, 0.0, 0.1, 0.0, 1, 0, 0.2, 0.0, &h));
  /* exactly at t = L: the end point's contact, with the face's normal and overlap */
  ENSURE(ms_segment_contact(0.1, 0.004, r, 0.0, 0.0, 0.1, 0.0, 1, 1, 0.0, 0.0, &h));
  ENSURE(h.feature == MS_WALL_END && h.n.x == 0.0f && h.n.y == 1.0f);
  ENSURE(h.overlap == r - 0.004f);
  ENSURE(!ms_segment_contact(0.1, 0.004, r, 0.0, 0.0, 0.1, 0.0, 1, 0, 0.2, 0.0, &h));
  ENSURE(ms_segment_contact(0.1, 0.004, r, 0.1, 0.0, 0.2, 0.0, 0, 1, 0.0, 0.0, &h));
  ENSURE(h.feature == MS_WALL_FACE && h.overlap == r - 0.004f);
}

/* A disc crossing the joint of collinear segments has exactly one contact, with the normal
 * and overlap of one long segment: to the bit on a horizontal line; on an inclined one
 * whose segments have the same direction bits, the same normal and the overlap within a
 * float rounding (the distance is taken from each segment's own start). */
static void test_collinear_joint_one_contact(void)
{
  float r = 0.01f;
  ms_wall_hit hits[MAX_HITS], one[MAX_HITS];
  int ids[MAX_HITS], one_ids[MAX_HITS];
  double hx[4] = {0.0, 0.1, 0.2, 0.3}, hy[4] = {0.3, 0.3, 0.3, 0.3};
  double lx[2] = {0.0, 0.3}, ly[2] = {0.3, 0.3};
  int seen_before = 0, seen_after = 0;
  for (int side = -1; side <= 1; side += 2)
    for (int k = -1002; k <= 1000; k++) {
      double px = k == -1002 ? 0.1 : k == -1001 ? nextafter(0.1, 0.0) : 0.1 + 2e-5 * k;
      double py = 0.3 + side * 0.6 * r;
      int n = polyline_hits(px, py, r, hx, hy, 4, 0, hits, ids);
      ENSURE(n == 1);
      ENSURE(polyline_hits(px, py, r, lx, ly, 2, 0, one, one_ids) == 1);
      ENSURE(hits[0].n.x == one[0].n.x && hits[0].n.y == one[0].n.y);
      ENSURE(hits[0].overlap == one[0].overlap);
      ENSURE(ids[0] == (px < 0.1 ? 1 : 3)); /* the joint belongs to the second segment */
      seen_before += px < 0.1;
      seen_after += px >= 0.1;
    }
  ENSURE(seen_before > 1000 && seen_after > 1000);
  /* inclined: steps of (3, 4)/64 from (0.25, 0.125), exact in binary, so every segment
   * (and the long one) has u = (0.6, 0.8) to the same bits */
  double ix[4], iy[4], jx[2], jy[2];
  for (int i = 0; i < 4; i++) {
    ix[i] = 0.25 + 3.0 * i / 64.0;
    iy[i] = 0.125 + 4.0 * i / 64.0;
  }
  jx[0] = ix[0], jy[0] = iy[0], jx[1] = ix[3], jy[1] = iy[3];
  int differ = 0;
  for (int side = -1; side <= 1; side += 2)
    for (int k = -1000; k <= 1000; k++) {
      double s = 2e-5 * k, hgt = side * 0.6 * r;
      double px = ix[1] + s * 0.6 - hgt * 0.8, py = iy[1] + s * 0.8 + hgt * 0.6;
      ENSURE(polyline_hits(px, py, r, ix, iy, 4, 0, hits, ids) == 1);
      ENSURE(polyline_hits(px, py, r, jx, jy, 2, 0, one, one_ids) == 1);
      ENSURE(ids[0] == 1 || ids[0] == 3);
      ENSURE(hits[0].n.x == one[0].n.x && hits[0].n.y == one[0].n.y);
      ENSURE(fabsf(hits[0].overlap - one[0].overlap) <= ldexpf(r, -23));
      differ += hits[0].overlap != one[0].overlap;
    }
  printf("  inclined joint: %d of 4002 overlaps one float rounding from the long segment's\n",
         differ);
}

/* An L: inside the corner (concave) two face contacts; outside, in the corner's outer wedge,
 * one vertex contact; outside beside one face, that face only. A closed square: the corner
 * between its last and first segments is the last segment's, with the point's id. */
static void test_corners(void)
{
  float r = 0.01f;
  ms_wall_hit h[MAX_HITS];
  int ids[MAX_HITS];
  double lx[3] = {0.0, 0.0, 0.1}, ly[3] = {0.1, 0.0, 0.0};
  ENSURE(polyline_hits(0.8 * r, 0.8 * r, r, lx, ly, 3, 0, h, ids) == 2);
  ENSURE(ids[0] == 1 && ids[1] == 3 && h[0].feature == MS_WALL_FACE);
  ENSURE(h[0].n.x == 1.0f && h[1].n.y == 1.0f && h[0].overlap == h[1].overlap);
  ENSURE(polyline_hits(-0.5 * r, -0.5 * r, r, lx, ly, 3, 0, h, ids) == 1);
  ENSURE(ids[0] == 2 && h[0].feature == MS_WALL_END);
  ENSURE_SMALL(h[0].n.x + sqrtf(0.5f), 1e-6);
  ENSURE_SMALL(h[0].n.y + sqrtf(0.5f), 1e-6);
  ENSURE_SMALL(h[0].overlap - (1.0f - sqrtf(0.5f)) * r, 1e-8);
  ENSURE(polyline_hits(-0.5 * r, 0.3 * r, r, lx, ly, 3, 0, h, ids) == 1);
  ENSURE(ids[0] == 1 && h[0].n.x == -1.0f && h[0].overlap == r - (float)(0.5 * r));
  /* on the wedge's edge: the vertex, with the face's normal and distance */
  ENSURE(polyline_hits(-0.5 * r, 0.0, r, lx, ly, 3, 0, h, ids) == 1);
  ENSURE(ids[0] == 2 && h[0].n.x == -1.0f && h[0].n.y == 0.0f);
  ENSURE(h[0].overlap == r - (float)(0.5 * r));
  double sx[4] = {0.0, 1.0, 1.0, 0.0}, sy[4] = {0.0, 0.0, 1.0, 1.0};
  ENSURE(polyline_hits(0.6 * r, 0.6 * r, r, sx, sy, 4, 1, h, ids) == 2);
  ENSURE(ids[0] == 1 && ids[1] == 7);
  ENSURE(polyline_hits(-0.5 * r, -0.5 * r, r, sx, sy, 4, 1, h, ids) == 1);
  ENSURE(ids[0] == 0 && h[0].feature == MS_WALL_END);
  ENSURE(polyline_hits(1.0 + 0.5 * r, 1.0 + 0.5 * r, r, sx, sy, 4, 1, h, ids) == 1);
  ENSURE(ids[0] == 4);
  ENSURE(ms_wall_features_adjacent(7, 1, 4, 1) && ms_wall_features_adjacent(0, 7, 4, 1));
  ENSURE(!ms_wall_features_adjacent(1, 5, 4, 1) && !ms_wall_features_adjacent(0, 7, 4, 0));
}

/* The inside of a circle: a contact when -r < R - |p - c| < r, normal towards the centre;
 * a centre outside by less than r is pushed back in, one outside by r or more is clear;
 * none at the centre. */
static void test_circle_contact(void)
{
  float r = 0.01f;
  ms_wall_hit h;
  double cx = 0.5, cy = 0.5, R = 0.4;
  ENSURE(ms_circle_contact(cx + 0.395 * 0.6, cy + 0.395 * 0.8, r, cx, cy, R, &h));
  ENSURE_SMALL(h.n.x + 0.6f, 1e-6);
  ENSURE_SMALL(h.n.y + 0.8f, 1e-6);
  ENSURE_SMALL(h.overlap - 0.005f, 1e-8);
  ENSURE_SMALL(h.x - (cx + 0.4 * 0.6), 1e-12);
  ENSURE_SMALL(h.y - (cy + 0.4 * 0.8), 1e-12);
  ENSURE(!ms_circle_contact(cx + 0.38, cy, r, cx, cy, R, &h));
  ENSURE(ms_circle_contact(cx, cy - 0.405, r, cx, cy, R, &h));
  ENSURE(h.n.x == 0.0f && h.n.y == 1.0f);
  ENSURE_SMALL(h.overlap - 0.015f, 1e-8);
  ENSURE(!ms_circle_contact(cx, cy - 0.41, r, cx, cy, R, &h));
  ENSURE(!ms_circle_contact(cx + 0.3, cy + 0.45, r, cx, cy, R, &h));
  ENSURE(!ms_circle_contact(cx, cy, 0.5f, cx, cy, R, &h));
}

/* ---- Motion -------------------------------------------------------------------------- */

/* ms_sincos, which the motion uses instead of the libraries' sin and cos (the same bits on
 * every device), is within an ulp-sized error of the true values (long double), near 0 and
 * at the large angles a spinning wall reaches. */
static void test_sincos_accuracy(void)
{
  unsigned seed = 31u;
  double worst[2] = {0.0, 0.0}, spans[2] = {10.0, 1e5};
  for (int i = 0; i < 400000; i++) {
    int big = i & 1;
    double x = spans[big] * lcg_unit(&seed) + 1e-3 * lcg_unit(&seed), s, c;
    ms_sincos(x, &s, &c);
    worst[big] = fmax(worst[big], fmax(fabs((double)(s - sinl(x))), fabs((double)(c - cosl(x)))));
  }
  double s, c;
  ms_sincos(0.0, &s, &c);
  ENSURE(s == 0.0 && c == 1.0);
  printf("  largest error: %.3g within 10 rad, %.3g within 1e5 rad\n", worst[0], worst[1]);
  ENSURE(worst[0] <= 2.3e-16 && worst[1] <= 2.3e-16);
}

static const ms_wall_motion g_motion = {0.3, -0.1, 0.5, 0.25, 1.7, 0.01, 0.02, 7.3};

/* The pose at any t is the closed form (against long double), not a sum of steps; a wall
 * that does not turn is placed at exactly x0 + T. */
static void test_pose_is_closed_form(void)
{
  const ms_wall_motion *m = &g_motion;
  const long double two_pi = 6.283185307179586476925286766559L;
  double ts[4] = {0.0, 0.37, 1234.567, 98765.4321};
  for (int i = 0; i < 4; i++) {
    double t = ts[i], tx, ty, ang, x, y;
    ms_wall_pose(m, t, &tx, &ty, &ang);
    long double s = sinl(two_pi * ((long double)m->f * t));
    long double ltx = (long double)m->vx * t + m->ax * s, lty = (long double)m->vy * t + m->ay * s;
    double tol = 4e-16 * (fabs(m->vx * t) + fabs(m->vy * t) + 1.0) + 4e-16 * m->f * t * 0.02;
    ENSURE_SMALL(tx - ltx, tol);
    ENSURE_SMALL(ty - lty, tol);
    ENSURE(ang == m->omega * t);
    ms_wall_place(m, tx, ty, ang, 0.9, -0.4, &x, &y);
    long double c = cosl((long double)m->omega * t), sn = sinl((long double)m->omega * t);
    long double dx = 0.9L - m->cx, dy = -0.4L - m->cy;
    ENSURE_SMALL(x - (m->cx + ltx + c * dx - sn * dy), tol + 1e-15 * (1.0 + m->omega * t));
    ENSURE_SMALL(y - (m->cy + lty + sn * dx + c * dy), tol + 1e-15 * (1.0 + m->omega * t));
  }
  ms_wall_motion slide = {0.3, 0.0, 0.1, 0.2, 0.0, 0.0, 0.0, 0.0};
  double tx, ty, ang, x, y;
  ms_wall_pose(&slide, 3.3, &tx, &ty, &ang);
  ms_wall_place(&slide, tx, ty, ang, 0.7, 0.3, &x, &y);
  ENSURE(ang == 0.0 && x == 0.7 + 0.3 * 3.3 && y == 0.3);
}

/* The velocity of a material point equals the central difference of its placed position. */
static void test_velocity_is_derivative(void)
{
  const ms_wall_motion *m = &g_motion;
  double ts[3] = {0.3, 12.7, 1000.1}, h = 1e-5, worst = 0.0;
  double pts[3][2] = {{0.9, -0.4}, {0.5, 0.25}, {-1.0, 2.0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double p[3][2];
      for (int s = -1; s <= 1; s++) {
        double tx, ty, ang;
        ms_wall_pose(m, ts[i] + s * h, &tx, &ty, &ang);
        ms_wall_place(m, tx, ty, ang, pts[j][0], pts[j][1], &p[s + 1][0], &p[s + 1][1]);
      }
      double tx, ty, ang, vx, vy;
      ms_wall_pose(m, ts[i], &tx, &ty, &ang);
      ms_wall_velocity_at(m, ts[i], tx, ty, p[1][0], p[1][1], &vx, &vy);
      double ex = vx - (p[2][0] - p[0][0]) / (2.0 * h), ey = vy - (p[2][1] - p[0][1]) / (2.0 * h);
      worst = fmax(worst, fmax(fabs(ex), fabs(ey)));
    }
  printf("  largest difference from the central difference: %.3g m/s\n", worst);
  ENSURE_SMALL(worst, 1e-7);
}

/* ---- One contact's force ------------------------------------------------------------- */

/* A segment along each side of the box [0, W] x [0, H] gives the box walls' force to the
 * bit: frictionless as ms_walls_force (and its dissipation), with friction as the kernels
 * compose the box walls' push, tangential law and rolling torque. */
static void test_segments_match_box_walls(void)
{
  double W = 0.3, H = 0.2;
  double sides[4][4] = {{0.0, H, 0.0, 0.0}, {W, 0.0, W, H}, {0.0, 0.0, W, 0.0}, {W, H, 0.0, H}};
  float r = 0.004f, m = 0.05f, k = 2e4f, two_zeta = 0.43f, kt = k / 3.0f, dt = 1e-5f;
  unsigned seed = 99u;
  for (int i = 0; i < 4000; i++) {
    int side = i % 4;
    double along = 0.05 + 0.05 * (lcg_unit(&seed) + 1.0), gap = r * 0.5 * (lcg_unit(&seed) + 1.5);
    double x = side == 0 ? gap : side == 1 ? W - gap : along;
    double y = side == 2 ? gap : side == 3 ? H - gap : along;
    float vx = lcg_unit(&seed), vy = lcg_unit(&seed), w = 30.0f * lcg_unit(&seed);
    float xi = 1e-5f * lcg_unit(&seed);
    ms_wall_hit h;
    int touch = ms_segment_contact(x, y, r, sides[side][0], sides[side][1], sides[side][2],
                                   sides[side][3], 1, 1, 0.0, 0.0, &h);
    ms_v2 box = ms_walls_force(x, y, vx, vy, r, 0.0, W, 0.0, H, k, two_zeta, m);
    ENSURE(touch == (box.x != 0.0f || box.y != 0.0f));
    if (!touch)
      continue;
    ms_wall_force c = ms_wall_contact_force(h.n, h.overlap, vx, vy, w, r, m, k, two_zeta, kt,
                                            0.5f, 0.05f, xi, dt, 0);
    ENSURE(c.f.x == box.x && c.f.y == box.y && c.torque == 0.0f && c.xi == 0.0f);
    ENSURE(c.dissipation == ms_walls_dissipation(x, y, vx, vy, r, 0.0, W, 0.0, H, k, two_zeta, m));
    /* with friction: the kernels' box-wall side (kernels/friction.cl, wall_friction) */
    float gaps[4] = {(float)x, (float)(W - x), (float)y, (float)(H - y)};
    float apps[4] = {-vx, vx, -vy, vy};
    ms_v2 nw = {side == 0 ? -1.0f : side == 1 ? 1.0f : 0.0f,
                side == 2 ? -1.0f : side == 3 ? 1.0f : 0.0f};
    float push = ms_wall_push(gaps[side], apps[side], r, k, ms_dashpot(two_zeta, k, m));
    float u = ms_wall_slip_velocity(nw, vx, vy, w, r);
    ms_tangential t = ms_wall_tangential_law(nw, r, u, xi, push, kt,
                                             ms_tangential_dashpot(two_zeta, kt, m), 0.5f, dt);
    float roll = ms_rolling_torque(w, push, 0.05f, r, ms_disc_inertia(m, r), dt);
    c = ms_wall_contact_force(h.n, h.overlap, vx, vy, w, r, m, k, two_zeta, kt, 0.5f, 0.05f, xi,
                              dt, 1);
    ENSURE(c.fn == push && c.u == u && c.ft == t.ft && c.xi == t.xi && c.m_roll == roll);
    ENSURE(c.f.x == -push * nw.x + t.f.x && c.f.y == -push * nw.y + t.f.y);
    ENSURE(c.torque == t.torque_i + roll);
  }
}

/* The wall's reaction (-f at the disc's rim point, -M) balances the disc's torque and its
 * force's moment about any point; the slip u is that of the rim point over the wall's
 * material point there, for a moving, turning wall. */
static void test_reaction_and_slip(void)
{
  unsigned seed = 4242u;
  for (int i = 0; i < 1000; i++) {
    float a = 3.14159f * lcg_unit(&seed), r = 0.01f, m = 0.2f;
    ms_v2 n = {cosf(a), sinf(a)};
    double px = lcg_unit(&seed), py = lcg_unit(&seed), qx = 2.0 * lcg_unit(&seed),
           qy = 2.0 * lcg_unit(&seed), t = 5.0 * (lcg_unit(&seed) + 1.0);
    double wv = 3.0 * lcg_unit(&seed); /* the disc's spin */
    double vx = lcg_unit(&seed), vy = lcg_unit(&seed), tx, ty, ang, vwx, vwy;
    ms_wall_pose(&g_motion, t, &tx, &ty, &ang);
    ms_wall_velocity_at(&g_motion, t, tx, ty, px, py, &vwx, &vwy);
    float w_rel = (float)(wv - g_motion.omega);
    ms_wall_force c = ms_wall_contact_force(n, 2e-4f, (float)(vx - vwx), (float)(vy - vwy), w_rel,
                                            r, m, 1e4f, 0.4f, 3e3f, 0.5f, 0.1f,
                                            1e-5f * lcg_unit(&seed), 1e-5f, 1);
    double moment = (px - qx) * c.f.y - (py - qy) * c.f.x;
    double total = moment + c.torque + ms_wall_reaction_torque(qx, qy, px, py, r, n, &c);
    double scale = hypot(c.f.x, c.f.y) * (hypot(px - qx, py - qy) + r) + fabs(c.m_roll);
    ENSURE_SMALL(total / scale, 1e-6);
    /* the rim point p - r n of the disc and of the wall, along t = (n.y, -n.x) */
    double rx = px - r * n.x, ry = py - r * n.y, wx, wy;
    ms_wall_velocity_at(&g_motion, t, tx, ty, rx, ry, &wx, &wy);
    double dvx = vx - wv * (ry - py) - wx, dvy = vy + wv * (rx - px) - wy;
    ENSURE_SMALL(c.u - (dvx * n.y - dvy * n.x), 2e-6);
  }
}

/* ---- A disc stepped against one wall -------------------------------------------------- */

typedef struct wall {
  int nv, closed;
  double x0[MAX_HITS], y0[MAX_HITS];
  double radius; /* > 0: the inside of the circle about point 0 instead */
  ms_wall_motion mo;
  float k, two_zeta, kt, mu, mu_r;
  int friction_on;
} wall;

typedef struct slot {
  int id;
  float xi;
} slot;

typedef struct disc {
  double x, y, vx, vy, theta, w;
  float r, m, inertia;
  slot s[MAX_HITS];
  int ns;
  double energy; /* at the start of the last step: kinetic, potential, both springs */
  double lost, work;
} disc;

static wall make_wall(int nv, const double *xs, const double *ys, float k, double e, float mu,
                      float mu_r)
{
  wall w;
  memset(&w, 0, sizeof w);
  w.nv = nv;
  for (int i = 0; i < nv; i++) {
    w.x0[i] = xs[i];
    w.y0[i] = ys[i];
  }
  w.k = k;
  w.two_zeta = (float)(2.0 * ms_damping_ratio(e));
  w.kt = MS_DISC_KT_RATIO * k;
  w.mu = mu;
  w.mu_r = mu_r;
  w.friction_on = mu > 0.0f || mu_r > 0.0f;
  return w;
}

static disc make_disc(float r, float m)
{
  disc d;
  memset(&d, 0, sizeof d);
  d.r = r;
  d.m = m;
  d.inertia = ms_disc_inertia(m, r);
  return d;
}

/* The stored displacement for a contact on feature `id`: its own slot, else that of a
 * neighbouring feature whose contact has just moved on (no hit of this step has it), else 0. */
static float history(const disc *d, const wall *w, const int *ids, int nh, int h, int *used)
{
  for (int o = 0; o < d->ns; o++)
    if (d->s[o].id == ids[h]) {
      used[o] = 1;
      return d->s[o].xi;
    }
  for (int o = 0; o < d->ns; o++) {
    int kept = 0;
    for (int g = 0; g < nh; g++)
      kept |= ids[g] == d->s[o].id;
    if (!used[o] && !kept && ms_wall_features_adjacent(d->s[o].id, ids[h], w->nv, w->closed)) {
      used[o] = 1;
      return d->s[o].xi;
    }
  }
  return 0.0f;
}

/* One step at time t, as the engine will take it: the wall's pose, its contacts, their
 * forces with the history carried along the polyline, then the shared integrators. */
static void step(disc *d, const wall *w, double t, double dt, double gx, double gy)
{
  double tx, ty, ang, xs[MAX_HITS], ys[MAX_HITS], vwx, vwy;
  ms_wall_pose(&w->mo, t, &tx, &ty, &ang);
  for (int j = 0; j < w->nv; j++)
    ms_wall_place(&w->mo, tx, ty, ang, w->x0[j], w->y0[j], &xs[j], &ys[j]);
  ms_wall_hit hits[MAX_HITS];
  int ids[MAX_HITS], used[MAX_HITS] = {0};
  int nh = w->radius > 0.0
               ? ms_circle_contact(d->x, d->y, d->r, xs[0], ys[0], w->radius, &hits[0])
               : polyline_hits(d->x, d->y, d->r, xs, ys, w->nv, w->closed, hits, ids);
  ids[0] = w->radius > 0.0 ? 0 : ids[0];
  ms_wall_velocity_at(&w->mo, t, tx, ty, d->x, d->y, &vwx, &vwy);
  float dvx = (float)(d->vx - vwx), dvy = (float)(d->vy - vwy);
  float w_rel = (float)(d->w - w->mo.omega);
  float fx = 0.0f, fy = 0.0f, tq = 0.0f;
  slot next[MAX_HITS];
  d->energy = 0.5 * d->m * (d->vx * d->vx + d->vy * d->vy) + 0.5 * d->inertia * d->w * d->w -
              d->m * (gx * d->x + gy * d->y);
  for (int o = 0; o < d->ns; o++)
    d->energy += ms_spring_energy(w->kt, d->s[o].xi);
  for (int h = 0; h < nh; h++) {
    float xi = history(d, w, ids, nh, h, used);
    ms_wall_force c = ms_wall_contact_force(hits[h].n, hits[h].overlap, dvx, dvy, w_rel, d->r,
                                            d->m, w->k, w->two_zeta, w->kt, w->mu, w->mu_r, xi,
                                            (float)dt, w->friction_on);
    fx += c.f.x;
    fy += c.f.y;
    tq += c.torque;
    d->energy += 0.5 * (double)w->k * (double)hits[h].overlap * (double)hits[h].overlap;
    d->lost += ms_wall_contact_lost(&c, w->kt, xi, w_rel, (float)dt);
    d->work += ms_wall_contact_work(&c, vwx, vwy, (float)w->mo.omega, (float)dt);
    next[h].id = ids[h];
    next[h].xi = c.xi;
  }
  for (int o = 0; o < d->ns; o++)
    if (!used[o]) /* an opened contact forgets what its spring held */
      d->lost += ms_spring_energy(w->kt, d->s[o].xi);
  memcpy(d->s, next, sizeof(slot) * (size_t)nh);
  d->ns = nh;
  ms_integrate(&d->x, &d->y, &d->vx, &d->vy, fx, fy, d->m, gx, gy, dt);
  ms_integrate_rotation(&d->theta, &d->w, tq, d->inertia, dt);
}

/* Two parameter sets: a 2 mm disc (k = 1e4 N/m) and a 10 cm one (k = 1e6 N/m), both of
 * areal density 2500 kg/m^2, restitution 0.5; dt = t_c / 200. */
typedef struct params {
  const char *name;
  float r, k;
  double t_settle, t_end;
} params;

static const params g_small = {"small disc", 0.002f, 1e4f, 0.1, 0.4};
static const params g_large = {"large disc", 0.1f, 1e6f, 0.5, 1.5};

static float disc_mass(float r) { return (float)(2500.0 * MS_PI * (double)r * (double)r); }

static double step_of(const params *p)
{
  return ms_contact_time(p->k, 0.5, disc_mass(p->r)) / 200.0;
}

static void report(const char *what, double measured, double analytic)
{
  printf("  %-44s measured %12.7g  analytic %12.7g  (%+.4f %%)\n", what, measured, analytic,
         100.0 * (measured / analytic - 1.0));
}

/* A disc set down at its static overlap on one segment inclined at theta (downhill to +x):
 * the least-squares slope of its speed along the segment after the contact settled. */
static double incline_acceleration(const params *p, double theta_deg, float mu)
{
  double th = theta_deg * MS_PI / 180.0, ux = cos(th), uy = -sin(th), nx = sin(th), ny = cos(th);
  double xs[2] = {0.0, 10.0 * ux}, ys[2] = {0.0, 10.0 * uy}, dt = step_of(p);
  float m = disc_mass(p->r);
  wall w = make_wall(2, xs, ys, p->k, 0.5, mu, 0.0f);
  disc d = make_disc(p->r, m);
  double s0 = 1.0, h0 = p->r - m * G * ny / p->k;
  d.x = s0 * ux + h0 * nx;
  d.y = s0 * uy + h0 * ny;
  double st = 0, sv = 0, stt = 0, stv = 0, cnt = 0;
  long steps = (long)(p->t_end / dt);
  for (long i = 0; i < steps; i++) {
    step(&d, &w, i * dt, dt, 0.0, -G);
    double t = (i + 1) * dt, v = d.vx * ux + d.vy * uy;
    if (t < p->t_settle)
      continue;
    st += t, sv += v, stt += t * t, stv += t * v, cnt += 1;
  }
  return (cnt * stv - st * sv) / (cnt * stt - st * st);
}

/* tan 20 deg < 3 mu = 1.5: the disc rolls, a = 2/3 g sin theta. */
static void test_incline_rolls(void)
{
  const params *ps[2] = {&g_small, &g_large};
  for (int i = 0; i < 2; i++) {
    double a = incline_acceleration(ps[i], 20.0, 0.5f);
    double want = 2.0 / 3.0 * G * sin(20.0 * MS_PI / 180.0);
    report(ps[i]->name, a, want);
    ENSURE_SMALL(a / want - 1.0, 0.005);
  }
}

/* tan 40 deg > 3 mu = 0.6: the disc slides, a = g (sin theta - mu cos theta). */
static void test_incline_slides(void)
{
  const params *ps[2] = {&g_small, &g_large};
  double th = 40.0 * MS_PI / 180.0;
  for (int i = 0; i < 2; i++) {
    double a = incline_acceleration(ps[i], 40.0, 0.2f), want = G * (sin(th) - 0.2 * cos(th));
    report(ps[i]->name, a, want);
    ENSURE_SMALL(a / want - 1.0, 0.005);
  }
}

/* A disc rolling (and one sliding into rolling) along ten collinear segments never leaves
 * its line (|v_y| < 1e-6 m/s) and keeps the energy, step by step, of the same disc on one
 * long segment: the contact crosses each joint as one contact, its history carried over. */
static void test_ten_segments_roll_as_one(void)
{
  float r = g_small.r, m = disc_mass(r);
  double dt = step_of(&g_small), xs[11], ys[11] = {0.0}, lx[2] = {0.0, 0.1}, ly[2] = {0.0, 0.0};
  for (int i = 0; i <= 10; i++)
    xs[i] = 0.01 * i;
  for (int run = 0; run < 2; run++) {
    wall ten = make_wall(11, xs, ys, g_small.k, 0.5, 0.3f, 0.02f);
    wall one = make_wall(2, lx, ly, g_small.k, 0.5, 0.3f, 0.02f);
    disc a = make_disc(r, m);
    a.x = 0.004;
    a.y = r - m * G / g_small.k;
    a.vx = run == 0 ? 0.3 : 0.4;
    a.w = run == 0 ? -a.vx / r : 0.0;
    disc b = a;
    double vy_max = 0.0, de_max = 0.0;
    long steps = (long)(0.3 / dt);
    for (long i = 0; i < steps; i++) {
      step(&a, &ten, i * dt, dt, 0.0, -G);
      step(&b, &one, i * dt, dt, 0.0, -G);
      vy_max = fmax(vy_max, fabs(a.vy));
      de_max = fmax(de_max, fabs(a.energy + a.lost - (b.energy + b.lost)));
      ENSURE(a.ns == 1);
    }
    ENSURE(a.x > 0.075 && a.x < 0.096); /* it crossed seven joints */
    printf("  %s: |v_y| <= %.3g m/s, energy differs by <= %.3g J/m of %.3g\n",
           run == 0 ? "rolling" : "sliding first", vy_max, de_max, b.energy);
    ENSURE(vy_max < 1e-6);
    ENSURE(de_max <= 1e-12 * b.energy);
  }
}

/* A disc hitting a segment's free end point head-on (along the segment, and at 45 degrees)
 * rebounds with the restitution e = 0.5, frictionless and with friction and spin. */
static void test_end_point_restitution(void)
{
  float r = g_small.r, m = disc_mass(r);
  double dt = step_of(&g_small), xs[2] = {0.0, 0.05}, ys[2] = {0.0, 0.0}, v0 = 0.5;
  for (int fric = 0; fric < 2; fric++)
    for (int dir = 0; dir < 2; dir++) {
      double ex = dir == 0 ? 1.0 : sqrt(0.5), ey = dir == 0 ? 0.0 : sqrt(0.5);
      wall w = make_wall(2, xs, ys, g_small.k, 0.5, fric ? 0.5f : 0.0f, fric ? 0.05f : 0.0f);
      disc d = make_disc(r, m);
      d.x = 0.05 + ex * 1.1 * r;
      d.y = ey * 1.1 * r;
      d.vx = -v0 * ex;
      d.vy = -v0 * ey;
      d.w = fric ? 20.0 : 0.0;
      double nx = ex, ny = ey; /* the contact's normal when it opened */
      for (long i = 0; i < (long)(0.02 / dt); i++) {
        step(&d, &w, i * dt, dt, 0.0, 0.0);
        if (d.ns)
          nx = d.x - 0.05, ny = d.y;
      }
      double e = (d.vx * nx + d.vy * ny) / hypot(nx, ny) / v0;
      printf("  %s, %s: e = %.5f\n", fric ? "friction" : "frictionless",
             dir == 0 ? "along the segment" : "at 45 degrees", e);
      ENSURE(d.ns == 0);
      ENSURE_SMALL(e / 0.5 - 1.0, 0.01);
    }
}

/* A belt: a horizontal segment moving along itself at V. A disc set down at rest slides,
 * then rolls on it at V/3 with spin 2V/(3r) (the wall's velocity enters the slip). */
static void test_moving_belt(void)
{
  float r = g_small.r, m = disc_mass(r), mu = 0.3f;
  double dt = step_of(&g_small), xs[2] = {-1.0, 1.0}, ys[2] = {0.0, 0.0}, V = 0.3;
  wall w = make_wall(2, xs, ys, g_small.k, 0.5, mu, 0.0f);
  w.mo.vx = V;
  disc d = make_disc(r, m);
  d.y = r - m * G / g_small.k;
  double t_roll = -1.0;
  for (long i = 0; i < (long)(0.1 / dt); i++) {
    step(&d, &w, i * dt, dt, 0.0, -G);
    if (t_roll < 0.0 && d.vx >= (1.0 - 1e-3) * V / 3.0) /* accelerating at mu g until then */
      t_roll = (i + 1) * dt;
  }
  report("speed when rolling on the belt", d.vx, V / 3.0);
  report("rim speed", d.w * r, 2.0 * V / 3.0);
  report("time to rolling", t_roll, V / (3.0 * mu * G));
  ENSURE_SMALL(d.vx / (V / 3.0) - 1.0, 0.002);
  ENSURE_SMALL(d.w * r / (2.0 * V / 3.0) - 1.0, 0.002);
  ENSURE_SMALL(t_roll / (V / (3.0 * mu * G)) - 1.0, 0.02);
}

/* The energy balance: kinetic + potential + spring energy + dissipated - the wall's work
 * stays at its start value within 2 % of the work done (the integrator's first-order
 * error), for a disc bouncing and skidding on a floor shaken vertically (peak acceleration
 * 1.8 g) and for one dragged up the side of a turning drum and tumbling back. */
static double energy_drift(wall *w, disc *d, double seconds, double *work)
{
  double dt = step_of(&g_small), e0 = 0.0, drift = 0.0;
  for (long i = 0; i < (long)(seconds / dt); i++) {
    double lost = d->lost, done = d->work;
    step(d, w, i * dt, dt, 0.0, -G);
    if (i == 0)
      e0 = d->energy;
    drift = fmax(drift, fabs(d->energy + lost - done - e0));
  }
  *work = d->work;
  printf("  work %.4g J/m, dissipated %.4g, largest drift %.3g (%.2f %% of the work)\n", d->work,
         d->lost, drift, 100.0 * drift / d->work);
  return drift;
}

static void test_energy_balance_on_moving_walls(void)
{
  float r = g_small.r, m = disc_mass(r);
  double xs[2] = {-1.0, 1.0}, ys[2] = {0.0, 0.0}, work;
  wall floor = make_wall(2, xs, ys, g_small.k, 0.5, 0.5f, 0.02f);
  floor.mo.ay = 5e-4;
  floor.mo.f = 30.0;
  disc d = make_disc(r, m);
  d.y = r - m * G / g_small.k;
  d.vx = 0.1;
  double drift = energy_drift(&floor, &d, 1.0, &work);
  ENSURE(work > 1e-2 && drift < 0.02 * work);
  double cx[1] = {0.0}, cy[1] = {0.0};
  wall drum = make_wall(1, cx, cy, g_small.k, 0.5, 0.5f, 0.02f);
  drum.radius = 0.05;
  drum.mo.omega = 5.0;
  d = make_disc(r, m);
  d.y = -(0.05 - r + m * G / g_small.k);
  drift = energy_drift(&drum, &d, 1.0, &work);
  ENSURE(work > 1e-3 && drift < 0.02 * work);
}

int main(int argc, char **argv)
{
  filter = argc > 1 ? argv[1] : "";
  RUN_TEST(test_segment_face, filter);
  RUN_TEST(test_segment_free_ends, filter);
  RUN_TEST(test_collinear_joint_one_contact, filter);
  RUN_TEST(test_corners, filter);
  RUN_TEST(test_circle_contact, filter);
  RUN_TEST(test_sincos_accuracy, filter);
  RUN_TEST(test_pose_is_closed_form, filter);
  RUN_TEST(test_velocity_is_derivative, filter);
  RUN_TEST(test_segments_match_box_walls, filter);
  RUN_TEST(test_reaction_and_slip, filter);
  RUN_TEST(test_incline_rolls, filter);
  RUN_TEST(test_incline_slides, filter);
  RUN_TEST(test_ten_segments_roll_as_one, filter);
  RUN_TEST(test_end_point_restitution, filter);
  RUN_TEST(test_moving_belt, filter);
  RUN_TEST(test_energy_balance_on_moving_walls, filter);
  return TEST_EXIT();
}
