/* Kernels of tools/studies/layout_bench.c: one collision iteration (grid clear, insert, per-cell
 * sort, 3x3 collide with the walls, integrate) for three layouts of the small discs'
 * state, so their cost and precision can be compared on one device:
 *   A (suffix _a)  pos float2, vel float2: the old layout, positions in scene coordinates
 *   B (suffix _b)  pos double2, vel double2: mixsim's layout, frame = the box's min corner
 *   C (suffix _c)  pos = int2 cell + float2 offset in [0, h) inside the cell, vel double2
 * The contact law is kernels/shared/contact.h for all three (ms_touching, ms_contact_force,
 * ms_wall_push, ms_integrate for B); where a shared function takes doubles, layout A has a
 * local copy of the same arithmetic in float. Clear and sort touch only indices and are
 * shared. The grid's cell size h is a float-exact number (the host picks it), so layout C's
 * cell-to-cell distances (cj - ci) * h are exact in float for neighbours. */
#pragma OPENCL FP_CONTRACT OFF
#include "../../kernels/shared/contact.h"
#include "../../kernels/shared/grid.h"

#define LB_FLAG_OVERFLOW 0 /* insertions that found their cell full */
#define LB_FLAG_OUTSIDE 1  /* particles outside the grid (counted, put in a border cell) */
#define LB_FLAG_BAD 2      /* particles with a non-finite position */
#define LB_FLAGS 3

__kernel void lb_clear(__global int *count, int n_cells, __global int *flags)
{
  int i = get_global_id(0);
  if (i < n_cells)
    count[i] = 0;
  if (i < LB_FLAGS)
    flags[i] = 0;
}

/* The insertion shared by every layout once it has the particle's cell. */
static void lb_insert_cell(int i, int cx, int cy, int nx, int outside, __global int *count,
                           __global int *idx, int cap, __global int *flags)
{
  if (outside)
    atomic_inc(&flags[LB_FLAG_OUTSIDE]);
  int cell = cy * nx + cx;
  int slot = atomic_inc(&count[cell]);
  if (slot < cap)
    idx[ms_grid_slot(cell, cap, slot)] = i;
  else
    atomic_inc(&flags[LB_FLAG_OVERFLOW]);
}

/* Insertion sort of one cell's indices, so sums do not depend on the atomics' order. */
__kernel void lb_sort(__global const int *count, __global int *idx, int cap, int n_cells)
{
  int c = get_global_id(0);
  if (c >= n_cells)
    return;
  int n = min(count[c], cap);
  __global int *cell = idx + ms_grid_slot(c, cap, 0);
  for (int a = 1; a < n; a++) {
    int v = cell[a];
    int b = a - 1;
    while (b >= 0 && cell[b] > v) {
      cell[b + 1] = cell[b];
      b--;
    }
    cell[b + 1] = v;
  }
}

/* ---- A: float positions in scene coordinates (the box's min corner is 0 here) ---- */

/* The float grid axis of the old layout (grid corner at the scene's origin). */
static int lb_axis_f(float p, float inv_cell, int n, int *outside)
{
  float f = floor(p * inv_cell);
  *outside |= !(f >= 0.0f) || f >= (float)n;
  if (!(f >= 0.0f))
    return 0;
  if (f >= (float)n)
    return n - 1;
  return (int)f;
}

/* ms_walls_force with the gaps taken in float: the old layout had no double. */
static ms_v2 lb_walls_f(float x, float y, float vx, float vy, float r, float w, float h, float k,
                        float two_zeta, float m)
{
  ms_v2 f;
  f.x = 0.0f;
  f.y = 0.0f;
  float gl = x, gr = w - x, gb = y, gt = h - y;
  if (gl >= r && gr >= r && gb >= r && gt >= r)
    return f;
  float c = ms_dashpot(two_zeta, k, m);
  f.x = ms_wall_push(gl, -vx, r, k, c);
  f.x = f.x - ms_wall_push(gr, vx, r, k, c);
  f.y = ms_wall_push(gb, -vy, r, k, c);
  f.y = f.y - ms_wall_push(gt, vy, r, k, c);
  return f;
}

/* ms_integrate in float: v += (F/m + g) dt; x += v dt. */
static void lb_integrate_f(float2 *p, float2 *v, float2 f, float m, float gx, float gy, float dt)
{
  float vx = v->x + (f.x / m + gx) * dt;
  float vy = v->y + (f.y / m + gy) * dt;
  *v = (float2)(vx, vy);
  *p = (float2)(p->x + vx * dt, p->y + vy * dt);
}

__kernel void lb_insert_a(__global const float2 *pos, int n, __global int *count,
                          __global int *idx, int cap, float inv_cell, int nx, int ny,
                          __global int *flags)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 p = pos[i];
  if (!isfinite(p.x) || !isfinite(p.y)) {
    atomic_inc(&flags[LB_FLAG_BAD]);
    return;
  }
  int out = 0;
  int cx = lb_axis_f(p.x, inv_cell, nx, &out);
  int cy = lb_axis_f(p.y, inv_cell, ny, &out);
  lb_insert_cell(i, cx, cy, nx, out, count, idx, cap, flags);
}

__kernel void lb_collide_a(__global const float2 *pos, __global const float2 *vel,
                           __global const float2 *shape, __global const int *count,
                           __global const int *idx, int cap, int n, float inv_cell, int nx,
                           int ny, float k, float two_zeta, float2 box, __global float2 *f_out)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 xi = pos[i];
  float2 vi = vel[i];
  float2 si = shape[i];
  int out = 0;
  int cx = lb_axis_f(xi.x, inv_cell, nx, &out);
  int cy = lb_axis_f(xi.y, inv_cell, ny, &out);
  float fx = 0.0f, fy = 0.0f;
  for (int y = max(cy - 1, 0); y <= min(cy + 1, ny - 1); y++) {
    for (int x = max(cx - 1, 0); x <= min(cx + 1, nx - 1); x++) {
      int cell = y * nx + x;
      int m = min(count[cell], cap);
      for (int s = 0; s < m; s++) {
        int j = idx[ms_grid_slot(cell, cap, s)];
        if (j == i)
          continue;
        float2 xj = pos[j];
        float2 sj = shape[j];
        float dx = xj.x - xi.x, dy = xj.y - xi.y;
        if (!ms_touching(dx, dy, si.x + sj.x))
          continue;
        float2 vj = vel[j];
        ms_v2 f = ms_contact_force(dx, dy, vi.x - vj.x, vi.y - vj.y, si.x + sj.x, k, two_zeta,
                                   ms_pair_mass(si.y, sj.y));
        fx += f.x;
        fy += f.y;
      }
    }
  }
  ms_v2 w = lb_walls_f(xi.x, xi.y, vi.x, vi.y, si.x, box.x, box.y, k, two_zeta, si.y);
  f_out[i] = (float2)(fx + w.x, fy + w.y);
}

__kernel void lb_integrate_a(__global float2 *pos, __global float2 *vel,
                             __global const float2 *shape, __global const float2 *force, int n,
                             float gx, float gy, float dt)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 p = pos[i], v = vel[i];
  lb_integrate_f(&p, &v, force[i], shape[i].y, gx, gy, dt);
  pos[i] = p;
  vel[i] = v;
}

/* ---- B: double positions in the box's frame (mixsim's kernels, shape for shape) ---- */

static void lb_integrate_d(double2 *p, double2 *v, float2 f, float m, double gx, double gy,
                           double dt)
{
  /* Vector components have no address in OpenCL C: go through scalars. */
  double x = p->x, y = p->y, vx = v->x, vy = v->y;
  ms_integrate(&x, &y, &vx, &vy, f.x, f.y, m, gx, gy, dt);
  *p = (double2)(x, y);
  *v = (double2)(vx, vy);
}

__kernel void lb_insert_b(__global const double2 *pos, int n, __global int *count,
                          __global int *idx, int cap, double inv_cell, int nx, int ny,
                          __global int *flags)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  double2 p = pos[i];
  if (!isfinite(p.x) || !isfinite(p.y)) {
    atomic_inc(&flags[LB_FLAG_BAD]);
    return;
  }
  int out = ms_grid_axis_outside(p.x, inv_cell, nx) || ms_grid_axis_outside(p.y, inv_cell, ny);
  lb_insert_cell(i, ms_grid_axis(p.x, inv_cell, nx), ms_grid_axis(p.y, inv_cell, ny), nx, out,
                 count, idx, cap, flags);
}

__kernel void lb_collide_b(__global const double2 *pos, __global const double2 *vel,
                           __global const float2 *shape, __global const int *count,
                           __global const int *idx, int cap, int n, double inv_cell, int nx,
                           int ny, float k, float two_zeta, double2 box, __global float2 *f_out)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  double2 xi = pos[i];
  double2 vi = vel[i];
  float2 si = shape[i];
  int cx = ms_grid_axis(xi.x, inv_cell, nx);
  int cy = ms_grid_axis(xi.y, inv_cell, ny);
  float fx = 0.0f, fy = 0.0f;
  for (int y = max(cy - 1, 0); y <= min(cy + 1, ny - 1); y++) {
    for (int x = max(cx - 1, 0); x <= min(cx + 1, nx - 1); x++) {
      int cell = y * nx + x;
      int m = min(count[cell], cap);
      for (int s = 0; s < m; s++) {
        int j = idx[ms_grid_slot(cell, cap, s)];
        if (j == i)
          continue;
        double2 xj = pos[j];
        float2 sj = shape[j];
        float dx = (float)(xj.x - xi.x), dy = (float)(xj.y - xi.y);
        if (!ms_touching(dx, dy, si.x + sj.x))
          continue;
        double2 vj = vel[j];
        ms_v2 f = ms_contact_force(dx, dy, (float)(vi.x - vj.x), (float)(vi.y - vj.y),
                                   si.x + sj.x, k, two_zeta, ms_pair_mass(si.y, sj.y));
        fx += f.x;
        fy += f.y;
      }
    }
  }
  ms_v2 w = ms_walls_force(xi.x, xi.y, (float)vi.x, (float)vi.y, si.x, 0.0, box.x, 0.0, box.y, k, two_zeta,
                           si.y);
  f_out[i] = (float2)(fx + w.x, fy + w.y);
}

__kernel void lb_integrate_b(__global double2 *pos, __global double2 *vel,
                             __global const float2 *shape, __global const float2 *force, int n,
                             double gx, double gy, double dt)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  double2 p = pos[i], v = vel[i];
  lb_integrate_d(&p, &v, force[i], shape[i].y, gx, gy, dt);
  pos[i] = p;
  vel[i] = v;
}

/* ---- C: cell index + float offset, double velocity ---- */

/* One axis of layout C's drift: the new offset o + v dt is taken in double, the particle
 * moves to the cell it lands in, and the offset inside that cell is rounded to float once.
 * Rounding may give exactly h (an offset just below h): that is the next cell's 0. */
static void lb_move_c(int *c, float *o, double v, double dt, double h, double inv_h)
{
  double p = (double)*o + v * dt;
  if (p >= 0.0 && p < h && (float)p < (float)h) {
    *o = (float)p; /* the usual case: still in its cell */
    return;
  }
  double s = floor(p * inv_h);
  double r = p - s * h;
  if (r < 0.0) { /* p * inv_h rounded up across an integer */
    s -= 1.0;
    r += h;
  } else if (r >= h) {
    s += 1.0;
    r -= h;
  }
  float of = (float)r;
  if (of >= (float)h) {
    s += 1.0;
    of = 0.0f;
  }
  *c += (int)s;
  *o = of;
}

/* ms_integrate's velocity update in double, then the cell-relative drift. */
static void lb_integrate_c(int2 *c, float2 *o, double2 *v, float2 f, float m, double gx,
                           double gy, double dt, double h, double inv_h)
{
  double vx = v->x + ((double)(f.x / m) + gx) * dt;
  double vy = v->y + ((double)(f.y / m) + gy) * dt;
  int cx = c->x, cy = c->y;
  float ox = o->x, oy = o->y;
  lb_move_c(&cx, &ox, vx, dt, h, inv_h);
  lb_move_c(&cy, &oy, vy, dt, h, inv_h);
  *c = (int2)(cx, cy);
  *o = (float2)(ox, oy);
  *v = (double2)(vx, vy);
}

/* A stored cell index clamped into the grid, as ms_grid_axis clamps a position. */
static int lb_clamp_cell(int c, int n, int *outside)
{
  *outside |= c < 0 || c >= n;
  return clamp(c, 0, n - 1);
}

__kernel void lb_insert_c(__global const int2 *cellv, __global const float2 *off, int n,
                          __global int *count, __global int *idx, int cap, int nx, int ny,
                          __global int *flags)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 o = off[i];
  if (!isfinite(o.x) || !isfinite(o.y)) {
    atomic_inc(&flags[LB_FLAG_BAD]);
    return;
  }
  int2 c = cellv[i];
  int out = 0;
  int cx = lb_clamp_cell(c.x, nx, &out);
  int cy = lb_clamp_cell(c.y, ny, &out);
  lb_insert_cell(i, cx, cy, nx, out, count, idx, cap, flags);
}

/* Pair difference x_j - x_i = (c_j - c_i) * h + (o_j - o_i), all in float: the cell
 * difference is an int, times h exact for neighbours (|c_j - c_i| <= 1, h a float); the
 * offsets' difference is rounded once (both lie in [0, h)) and the sum once more, so the
 * error is about one ulp of h (~1e-9 m for h = 1 cm) wherever the pair is. Wall gaps
 * likewise from the cell index and offset: left/bottom c * h + o, right/top (n - c) * h - o,
 * the box being nx x ny whole cells. */
__kernel void lb_collide_c(__global const int2 *cellv, __global const float2 *off,
                           __global const double2 *vel, __global const float2 *shape,
                           __global const int *count, __global const int *idx, int cap, int n,
                           float h, int nx, int ny, float k, float two_zeta,
                           __global float2 *f_out)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  int2 ci = cellv[i];
  float2 oi = off[i];
  double2 vi = vel[i];
  float2 si = shape[i];
  int out = 0;
  int cx = lb_clamp_cell(ci.x, nx, &out);
  int cy = lb_clamp_cell(ci.y, ny, &out);
  float fx = 0.0f, fy = 0.0f;
  for (int y = max(cy - 1, 0); y <= min(cy + 1, ny - 1); y++) {
    for (int x = max(cx - 1, 0); x <= min(cx + 1, nx - 1); x++) {
      int cell = y * nx + x;
      int m = min(count[cell], cap);
      for (int s = 0; s < m; s++) {
        int j = idx[ms_grid_slot(cell, cap, s)];
        if (j == i)
          continue;
        int2 cj = cellv[j];
        float2 oj = off[j];
        float2 sj = shape[j];
        float dx = (float)(cj.x - ci.x) * h + (oj.x - oi.x);
        float dy = (float)(cj.y - ci.y) * h + (oj.y - oi.y);
        if (!ms_touching(dx, dy, si.x + sj.x))
          continue;
        double2 vj = vel[j];
        ms_v2 f = ms_contact_force(dx, dy, (float)(vi.x - vj.x), (float)(vi.y - vj.y),
                                   si.x + sj.x, k, two_zeta, ms_pair_mass(si.y, sj.y));
        fx += f.x;
        fy += f.y;
      }
    }
  }
  float gl = (float)ci.x * h + oi.x, gr = (float)(nx - ci.x) * h - oi.x;
  float gb = (float)ci.y * h + oi.y, gt = (float)(ny - ci.y) * h - oi.y;
  float r = si.x;
  if (!(gl >= r && gr >= r && gb >= r && gt >= r)) { /* ms_walls_force from here on */
    float c = ms_dashpot(two_zeta, k, si.y);
    float vx = (float)vi.x, vy = (float)vi.y;
    fx += ms_wall_push(gl, -vx, r, k, c) - ms_wall_push(gr, vx, r, k, c);
    fy += ms_wall_push(gb, -vy, r, k, c) - ms_wall_push(gt, vy, r, k, c);
  }
  f_out[i] = (float2)(fx, fy);
}

__kernel void lb_integrate_c_k(__global int2 *cellv, __global float2 *off, __global double2 *vel,
                               __global const float2 *shape, __global const float2 *force, int n,
                               double gx, double gy, double dt, double h)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  int2 c = cellv[i];
  float2 o = off[i];
  double2 v = vel[i];
  lb_integrate_c(&c, &o, &v, force[i], shape[i].y, gx, gy, dt, h, 1.0 / h);
  cellv[i] = c;
  off[i] = o;
  vel[i] = v;
}

/* ---- Precision: `steps` free steps of one disc (no force, no gravity) with each
 * layout's own integrate arithmetic, in one work-item. ---- */

__kernel void lb_drift_a(__global float2 *pos, __global float2 *vel, float m, float dt,
                         int steps)
{
  float2 p = pos[0], v = vel[0];
  for (int s = 0; s < steps; s++)
    lb_integrate_f(&p, &v, (float2)(0.0f, 0.0f), m, 0.0f, 0.0f, dt);
  pos[0] = p;
  vel[0] = v;
}

__kernel void lb_drift_b(__global double2 *pos, __global double2 *vel, float m, double dt,
                         int steps)
{
  double2 p = pos[0], v = vel[0];
  for (int s = 0; s < steps; s++)
    lb_integrate_d(&p, &v, (float2)(0.0f, 0.0f), m, 0.0, 0.0, dt);
  pos[0] = p;
  vel[0] = v;
}

__kernel void lb_drift_c(__global int2 *cellv, __global float2 *off, __global double2 *vel,
                         float m, double dt, int steps, double h)
{
  int2 c = cellv[0];
  float2 o = off[0];
  double2 v = vel[0];
  for (int s = 0; s < steps; s++)
    lb_integrate_c(&c, &o, &v, (float2)(0.0f, 0.0f), m, 0.0, 0.0, dt, h, 1.0 / h);
  cellv[0] = c;
  off[0] = o;
  vel[0] = v;
}
