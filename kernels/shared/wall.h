/* Walls of any shape, written once for the kernels and the host like contact.h: polylines
 * of two-sided segments (open or closed) and the inside of a circle (a drum), how they
 * move, which contacts a disc has with them, and the force of one contact (the law of
 * particle contacts and the box walls). docs/walls.md explains the feature rule at joints,
 * the motion and what the wall receives; tests/test_wall_law.c measures it.
 *
 * Outputs are returned by value or written through pointers to the caller's private
 * variables, as ms_integrate's are: a kernel copies what it keeps in __global memory (a
 * wall's motion, its points) into private variables first. */
#ifndef MS_SHARED_WALL_H
#define MS_SHARED_WALL_H

#include "compat.h"
#include "contact.h"

#define MS_WALL_TWO_PI 6.28318530717958647692

/* sin and cos of x from +, -, *, floor alone, so that every device and the host get the
 * same bits (the C and OpenCL libraries' may differ in the last one): a three-part
 * Cody-Waite reduction to |r| <= pi/4, then fdlibm's polynomials (__kernel_sin/_cos), within
 * about an ulp of the true values while |x| < 1e6; beyond, the reduction's error grows
 * towards an ulp of x, the argument's own rounding. */
MS_FN void ms_sincos(double x, double *s, double *c)
{
  double k = ms_floor(x * 6.36619772367581382433e-01 + 0.5); /* nearest multiple of pi/2 */
  double r = ((x - k * 1.57079632673412561417e+00) - k * 6.07710050630396597660e-11) -
             k * 2.02226624879595063154e-21;
  double z = r * r;
  double ps = 8.33333333332248946124e-03 +
              z * (-1.98412698298579493134e-04 +
                   z * (2.75573137070700676789e-06 +
                        z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
  double sr = r + (z * r) * (-1.66666666666666324348e-01 + z * ps);
  double pc = 4.16666666666666019037e-02 +
              z * (-1.38888888888741095749e-03 +
                   z * (2.48015872894767294178e-05 +
                        z * (-2.75573143513906633035e-07 +
                             z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))));
  double hz = 0.5 * z, w = 1.0 - hz;
  double cr = w + (((1.0 - w) - hz) + z * (z * pc));
  int q = (int)(k - 4.0 * ms_floor(0.25 * k)); /* the quadrant, 0..3 */
  *s = q == 0 ? sr : q == 1 ? cr : q == 2 ? -sr : -cr;
  *c = q == 0 ? cr : q == 1 ? -sr : q == 2 ? -cr : sr;
}

/* ---- Motion ------------------------------------------------------------------------
 * A point X0 of the wall (as given, at t = 0) is at
 *     X(t) = c + T(t) + R(omega t) (X0 - c),   T(t) = v t + a sin(2 pi f t):
 * a rotation about the centre c, which itself moves with the translation T. */
typedef struct ms_wall_motion {
  double vx, vy; /* constant velocity v (m/s) */
  double cx, cy; /* rotation centre c at t = 0 (m) */
  double omega;  /* spin (rad/s, anticlockwise) */
  double ax, ay; /* oscillation amplitude a (m) */
  double f;      /* oscillation frequency (Hz) */
} ms_wall_motion;

/* 2 pi times the fractional part of f t: the oscillation's phase, reduced before the sine
 * so that sin and cos never see a large argument. */
MS_FN double ms_wall_phase(double f, double t)
{
  double cycles = f * t;
  return MS_WALL_TWO_PI * (cycles - ms_floor(cycles));
}

/* The pose at time t: the translation T(t) and the angle omega t, both from t itself (never
 * summed step by step, so a wall is where the formula says after any number of steps). */
MS_FN void ms_wall_pose(const ms_wall_motion *m, double t, double *tx, double *ty,
                        double *angle)
{
  double s, c;
  ms_sincos(ms_wall_phase(m->f, t), &s, &c);
  *tx = m->vx * t + m->ax * s;
  *ty = m->vy * t + m->ay * s;
  *angle = m->omega * t;
}

/* Where the wall point (x0, y0) is under the pose (tx, ty, angle). At angle 0 (a wall that
 * does not turn, or a force-driven one, whose pose is a translation) it is x0 + tx exactly. */
MS_FN void ms_wall_place(const ms_wall_motion *m, double tx, double ty, double angle, double x0,
                         double y0, double *x, double *y)
{
  if (angle == 0.0) {
    *x = x0 + tx;
    *y = y0 + ty;
    return;
  }
  double s, c;
  ms_sincos(angle, &s, &c);
  double dx = x0 - m->cx, dy = y0 - m->cy;
  *x = (m->cx + tx) + (c * dx - s * dy);
  *y = (m->cy + ty) + (s * dx + c * dy);
}

/* The velocity of a rigid motion at (px, py): translation velocity (vtx, vty) plus the spin
 * omega about the point (ox, oy), v + omega x (p - o). Force-driven walls use it directly. */
MS_FN void ms_wall_rigid_velocity(double vtx, double vty, double omega, double ox, double oy,
                                  double px, double py, double *vx, double *vy)
{
  *vx = vtx - omega * (py - oy);
  *vy = vty + omega * (px - ox);
}

/* The velocity of the wall's material point now at (px, py), given the pose's translation
 * (tx, ty) at t: omega x (p - (c + T)) + v + 2 pi f a cos(2 pi f t). For a contact, pass the
 * disc's centre (see ms_wall_contact_force). */
MS_FN void ms_wall_velocity_at(const ms_wall_motion *m, double t, double tx, double ty,
                               double px, double py, double *vx, double *vy)
{
  double s, c;
  ms_sincos(ms_wall_phase(m->f, t), &s, &c);
  double k = MS_WALL_TWO_PI * m->f * c;
  ms_wall_rigid_velocity(m->vx + m->ax * k, m->vy + m->ay * k, m->omega, m->cx + tx,
                         m->cy + ty, px, py, vx, vy);
}

/* ---- Periodic seams ----------------------------------------------------------------
 * A wall on a periodic box (docs/walls.md, "Walls across a periodic seam") keeps its points
 * unwrapped, its translation reduced modulo the period, and meets a disc through the image
 * of the disc's centre nearest its anchor (the middle of its points' bounds now): the scene
 * keeps the wall's extent plus twice the contact reach under the period, so that image is
 * the only one that can touch it. `period` is 0 along an axis where the wall takes no image
 * (a box that does not wrap there, or a segment spanning the period). */

/* The coordinate p of a disc's centre moved by whole periods to within half a period of
 * `anchor`; p itself (to the bit) when it is within already, and always when period is 0. */
MS_FN double ms_wall_image(double p, double anchor, double period)
{
  if (period > 0.0) {
    double k = ms_floor((p - anchor) / period + 0.5);
    if (k != 0.0)
      return p - k * period;
  }
  return p;
}

/* A translation reduced into [0, period) along an axis where the wall takes images, so a
 * wall moving for ever along it stays near the box (its points never drift to huge values). */
MS_FN double ms_wall_seam_translation(double t, double period)
{
  if (!(period > 0.0))
    return t;
  double r = t - period * ms_floor(t / period);
  return r >= period ? r - period : r;
}

/* ---- Geometry ----------------------------------------------------------------------
 * Which contacts a disc (centre p, radius r) has. Positions are compared in double; the
 * distance is then rounded to float and the overlap taken in float, as ms_walls_force
 * does for the box walls (so a segment along a box wall gives the box wall's force to the
 * bit). The feature rule (docs/walls.md), for segment i from a to b, t = (p - a).u:
 *   - its face when 0 <= t < L (half-open: a joint belongs to the segment after it);
 *   - its end point b when t >= L and either b is a free end (the last point of an open
 *     polyline) or (p - b).u_next < 0, the next segment's t: the centre is in the joint's
 *     outer wedge, which only a convex corner (seen from the disc) has;
 *   - its start point a when t < 0 and a is a free end (the first point of an open
 *     polyline); otherwise the segment before owns a.
 * A segment gives at most one contact. Across the joint of two collinear segments the
 * disc has exactly one contact, the face of one or the other, its normal and overlap those
 * of one long segment; in a concave corner it may have two, at a convex one one. */

/* The feature of a segment a contact is with. */
#define MS_WALL_FACE 0
#define MS_WALL_START 1 /* its start point, a free end */
#define MS_WALL_END 2   /* its end point: a free end or a convex joint */

typedef struct ms_wall_hit {
  ms_v2 n;       /* unit normal from the wall towards the disc's centre */
  float overlap; /* r - distance (m), > 0 */
  double x, y;   /* the point of the wall the disc touches: the foot on the face, the vertex,
                  * or the point of the circle */
  int feature;   /* MS_WALL_FACE, _START or _END; 0 for a circle */
} ms_wall_hit;

/* Unit direction (ux, uy) from a to b; returns the length. Every test of one segment, and
 * the wedge test of the segment before it, takes u from here, so they agree to the bit. */
MS_FN double ms_wall_direction(double ax, double ay, double bx, double by, double *ux,
                               double *uy)
{
  double dx = bx - ax, dy = by - ay;
  double len = ms_sqrt(dx * dx + dy * dy);
  *ux = dx / len;
  *uy = dy / len;
  return len;
}

/* A contact with the point (vx, vy) at offset (dx, dy) = p - v from it; 0 if none (also for
 * a centre exactly on the point, which has no normal). */
MS_FN int ms_vertex_contact(double dx, double dy, float r, double vx, double vy, int feature,
                            ms_wall_hit *hit)
{
  double dist = ms_sqrt(dx * dx + dy * dy);
  float gap = (float)dist;
  if (!(gap < r) || dist == 0.0)
    return 0;
  hit->n.x = (float)(dx / dist);
  hit->n.y = (float)(dy / dist);
  hit->overlap = r - gap;
  hit->x = vx;
  hit->y = vy;
  hit->feature = feature;
  return 1;
}

/* The contact of a disc with segment a -> b, if any (returns 1 and fills *hit). start_free:
 * a is a free end, the first point of an open polyline. end_free: b is a free end, the last
 * point; otherwise (cx, cy) is the far end of the next segment, for the wedge test at b
 * (ignored when end_free). A centre on the segment's line (distance 0) gets the normal on
 * the segment's left, (-u.y, u.x). The segment must have a length. */
MS_FN int ms_segment_contact(double px, double py, float r, double ax, double ay, double bx,
                             double by, int start_free, int end_free, double cx, double cy,
                             ms_wall_hit *hit)
{
  double ux, uy;
  ms_wall_direction(ax, ay, bx, by, &ux, &uy);
  double dax = px - ax, day = py - ay, dbx = px - bx, dby = py - by;
  double ta = dax * ux + day * uy; /* t */
  double tb = dbx * ux + dby * uy; /* t - L, taken from b itself */
  if (ta < 0.0)
    return start_free ? ms_vertex_contact(dax, day, r, ax, ay, MS_WALL_START, hit) : 0;
  if (tb >= 0.0) {
    if (!end_free) {
      double vx, vy;
      ms_wall_direction(bx, by, cx, cy, &vx, &vy);
      if (!(dbx * vx + dby * vy < 0.0))
        return 0; /* the next segment's face (or its own end) has it */
    }
    return ms_vertex_contact(dbx, dby, r, bx, by, MS_WALL_END, hit);
  }
  double h = ux * day - uy * dax; /* signed distance, > 0 on the left */
  float gap = (float)(h < 0.0 ? -h : h);
  if (!(gap < r))
    return 0;
  float side = h < 0.0 ? -1.0f : 1.0f;
  hit->n.x = side * (float)(-uy);
  hit->n.y = side * (float)ux;
  hit->overlap = r - gap;
  hit->x = ax + ta * ux;
  hit->y = ay + ta * uy;
  hit->feature = MS_WALL_FACE;
  return 1;
}

/* Segment i of a polyline of nv points (closed: the last point joins the first, nv >= 3):
 * the indices of its start a, end b and the next segment's end c, and whether a and b are
 * free ends; pass them to ms_segment_contact. Indices only, so the caller loads the points
 * from whatever memory it keeps them in. */
typedef struct ms_wall_segment {
  int a, b, c;
  int start_free, end_free;
} ms_wall_segment;

MS_FN int ms_polyline_segments(int nv, int closed) { return closed ? nv : nv - 1; }

MS_FN ms_wall_segment ms_polyline_segment(int i, int nv, int closed)
{
  ms_wall_segment s;
  s.a = i;
  s.b = i + 1 == nv ? 0 : i + 1;
  s.c = s.b + 1 == nv ? 0 : s.b + 1;
  s.start_free = !closed && i == 0;
  s.end_free = !closed && i == nv - 2;
  if (s.end_free)
    s.c = s.b;
  return s;
}

/* A polyline-wide id of a contact's feature, for keeping its history: point j is 2 j, the
 * face of segment i is 2 i + 1, so the features follow each other along the polyline. */
MS_FN int ms_polyline_feature(int i, int feature, int nv)
{
  if (feature == MS_WALL_START)
    return 2 * i;
  if (feature == MS_WALL_END)
    return 2 * (i + 1 == nv ? 0 : i + 1);
  return 2 * i + 1;
}

/* Whether two feature ids are neighbours along the polyline (at most one feature between
 * them, as two faces meeting at a joint are): a contact that moves from one to the other
 * keeps its tangential history (docs/walls.md). */
MS_FN int ms_wall_features_adjacent(int f, int g, int nv, int closed)
{
  int d = f < g ? g - f : f - g;
  if (closed && 2 * nv - d < d)
    d = 2 * nv - d;
  return d <= 2;
}

/* The contact of a disc with the inside of the circle of centre (cx, cy) and the given
 * radius (a drum): when radius - |p - c| < r, the normal pointing inwards, towards the
 * centre. A centre outside the circle is pushed back in (its overlap is then more than
 * r). A centre exactly at the circle's centre has no normal and no contact. */
MS_FN int ms_circle_contact(double px, double py, float r, double cx, double cy, double radius,
                            ms_wall_hit *hit)
{
  double dx = px - cx, dy = py - cy;
  double d = ms_sqrt(dx * dx + dy * dy);
  float gap = (float)(radius - d);
  /* The disc straddles the rim or is inside within reach; a centre outside by r or more is
   * clear of the drum (the worker's band, R +- the largest small radius, holds every disc
   * that can touch it, so both paths see the same contacts). */
  if (!(gap < r) || !(gap > -r) || d == 0.0)
    return 0;
  hit->n.x = (float)(-dx / d);
  hit->n.y = (float)(-dy / d);
  hit->overlap = r - gap;
  hit->x = cx + radius * (dx / d);
  hit->y = cy + radius * (dy / d);
  hit->feature = 0;
  return 1;
}

/* ---- Force -------------------------------------------------------------------------
 * One wall contact: the normal spring-dashpot of contact.h with m_eff = the disc's mass
 * (the wall is infinitely heavy), the tangential law of friction.h with history xi and a
 * Coulomb cap, and the rolling torque against the relative spin. */
typedef struct ms_wall_force {
  ms_v2 f;           /* force on the disc (N/m); the wall receives -f (ms_wall_reaction_torque) */
  float torque;      /* on the disc about its centre: r F_t + M */
  float fn;          /* normal force along n, spring + dashpot (no cut-off: may be < 0) */
  float ft;          /* tangential force along t = (n.y, -n.x) */
  float m_roll;      /* rolling torque M on the disc; the wall receives -M */
  float u;           /* slip speed along t */
  float xi;          /* tangential displacement to keep for the next step */
  float dissipation; /* the normal dashpot's power c a^2 (W/m), for --diagnostics */
  int sliding;       /* the Coulomb limit was reached */
} ms_wall_force;

/* The force of one contact on a disc of radius r and mass m. n and overlap come from the
 * hit; (dvx, dvy) = v_disc - v_wall(p), the wall's velocity taken at the disc's centre p
 * (ms_wall_velocity_at there); w_rel = the disc's spin less the wall's omega. With these the
 * slip u = dv.t + r w_rel is exactly that of the disc's rim point p - r n over the wall's
 * material point there, and the approach speed is the same at any point along n. k, two_zeta
 * (2 zeta from the wall's restitution, as the material's: ms_damping_ratio), kt, mu and mu_r
 * are the wall's; xi the contact's stored displacement. friction_on = 0 gives the
 * frictionless normal force alone (the same bits as ms_wall_push), no torque and xi = 0. */
MS_FN ms_wall_force ms_wall_contact_force(ms_v2 n, float overlap, float dvx, float dvy,
                                          float w_rel, float r, float m, float k,
                                          float two_zeta, float kt, float mu, float mu_r,
                                          float xi, float dt, int friction_on)
{
  ms_wall_force out;
  ms_v2 nw; /* from the centre towards the wall: friction.h's n */
  nw.x = -n.x;
  nw.y = -n.y;
  float approach = dvx * nw.x + dvy * nw.y; /* > 0 while closing */
  float c = ms_dashpot(two_zeta, k, m);
  float fn = k * overlap + c * approach;
  out.f.x = fn * n.x;
  out.f.y = fn * n.y;
  out.fn = fn;
  out.dissipation = c * approach * approach;
  out.torque = 0.0f;
  out.ft = 0.0f;
  out.m_roll = 0.0f;
  out.u = 0.0f;
  out.xi = 0.0f;
  out.sliding = 0;
  if (!friction_on)
    return out;
  float u = ms_wall_slip_velocity(nw, dvx, dvy, w_rel, r);
  ms_tangential t = ms_wall_tangential_law(nw, r, u, xi, fn, kt,
                                           ms_tangential_dashpot(two_zeta, kt, m), mu, dt);
  float m_roll = ms_rolling_torque(w_rel, fn, mu_r, r, ms_disc_inertia(m, r), dt);
  out.f.x = out.f.x + t.f.x;
  out.f.y = out.f.y + t.f.y;
  out.torque = t.torque_i + m_roll;
  out.ft = t.ft;
  out.m_roll = m_roll;
  out.u = u;
  out.xi = t.xi;
  out.sliding = t.sliding;
  return out;
}

/* The torque on the wall about (qx, qy) from one contact of the disc at (px, py): -f acting
 * at the disc's rim point p - r n, and the couple -M. The disc's torque and its force's
 * moment about q cancel it: the contact conserves angular momentum. */
MS_FN double ms_wall_reaction_torque(double qx, double qy, double px, double py, float r,
                                     ms_v2 n, const ms_wall_force *c)
{
  double lx = px - (double)r * (double)n.x - qx, ly = py - (double)r * (double)n.y - qy;
  return -(lx * (double)c->f.y - ly * (double)c->f.x) - (double)c->m_roll;
}

/* Diagnostics only: the energy one step of a contact dissipated, the normal dashpot's
 * c a^2 dt plus the friction's work less what the tangential spring stored (as the box
 * walls count it); xi_old is the displacement the step started from. */
MS_FN double ms_wall_contact_lost(const ms_wall_force *c, float kt, float xi_old, float w_rel,
                                  float dt)
{
  return (double)c->dissipation * (double)dt + ms_slip_work(c->ft, c->u, c->m_roll, w_rel, dt) -
         (ms_spring_energy(kt, c->xi) - ms_spring_energy(kt, xi_old));
}

/* Diagnostics only: the work a moving wall did on the disc over the step, (f.v_w + omega_w
 * torque) dt with (vwx, vwy) the wall's velocity at the disc's centre (as for dv): the
 * power of -f at the rim point and of -M, with the sign turned. Zero for a static wall. */
MS_FN double ms_wall_contact_work(const ms_wall_force *c, double vwx, double vwy, float w_wall,
                                  float dt)
{
  return ((double)c->f.x * vwx + (double)c->f.y * vwy + (double)w_wall * (double)c->torque) *
         (double)dt;
}

#endif
