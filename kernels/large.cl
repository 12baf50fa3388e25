/* The device-only baseline (large_on = device): the large particles' contacts and
 * integration as kernels, the design the case study argues against. One work-item per
 * large particle walks the cells under it while most lanes of its SIMD group idle; the
 * small particles find their large partners through a large-particle cell list.
 *
 * Every sum adds the same terms in the same order as the CPU worker
 * (src/collision/worker/cpu_worker.c), through the same force law, so the state is the same
 * bit for bit:
 *   - a large particle's reaction: its cells (rows, then columns, ascending), each
 *     cell's small particles in slot order (the grid is sorted per cell);
 *   - a small particle's F_ls: its large partners in ascending index (the cell list
 *     is sorted per cell), which is the order the worker appends them in;
 *   - large-large after that, partners in sweep order (left edge x - r, then index),
 *     with the sweep's own prune; the walls last. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/contact.h"
#include "shared/grid.h"
#include "shared/wall.h"

/* Slots of the large cell list's flags buffer. */
#define MS_LFLAG_OVERFLOW 0   /* insertions that found their cell's list full */
#define MS_LFLAG_MAX_COUNT 1  /* the longest list an overflowing cell needed */
#define MS_LFLAG_FIRST_FAIL 2 /* lowest large index whose integration failed */
#define MS_LFLAG_WALL_HITS 4  /* a disc had more wall contacts than its reaction records */

/* The box's periods (0: the axis does not wrap) and the largest large radius, constants
 * of the run given at the build of the device-only path's own program (collision/sim.c),
 * as the worker's ms_params has them; the other kernels' program has none of them. */
#ifndef MS_PERIOD_X
#define MS_PERIOD_X 0.0
#define MS_PERIOD_Y 0.0
#define MS_R_LARGE_MAX 0.0
#endif
#define MS_PX (MS_PERIOD_X > 0.0)
#define MS_PY (MS_PERIOD_Y > 0.0)

/* The cells under a large particle's reach (radius + largest small radius, plus
 * `margin`), as the CPU worker's large-small walk computes them: unclamped along a
 * periodic axis, walked through ms_large_cell. */
static ms_cell_rect ms_large_rect(double2 p, float r, float r_small_max, double margin,
                                  double inv_cell, int nx, int ny)
{
  double reach = (double)r + r_small_max + margin;
  return ms_grid_rect_wrap(p.x, p.y, reach, inv_cell, nx, ny, MS_PX, MS_PY);
}

/* Cell (cx, cy) of such a walk, round the seams (ms_params_cell on the host). */
static int ms_large_cell(int cx, int cy, int nx, int ny)
{
  return ms_grid_wrap(cy, ny, MS_PY) * nx + ms_grid_wrap(cx, nx, MS_PX);
}

/* Integration's wrap into a periodic box, the periods crossed counted in *img. */
static void ms_large_wrap(double *x, double *y, __global int2 *img)
{
  if (!(MS_PX || MS_PY))
    return;
  int2 m = *img;
  int ix = m.x, iy = m.y;
  ms_wrap_into(x, &ix, MS_PERIOD_X);
  ms_wrap_into(y, &iy, MS_PERIOD_Y);
  *img = (int2)(ix, iy);
}

/* Large-large's own grid (sized by device_large.c): cells wider than two of the largest
 * large radii, so that a touching pair lies in neighbouring cells, each a linked list (head
 * per cell, next per particle) in any order. Off the box a cell is clamped to the edge
 * (neighbours stay neighbours); round a periodic axis it wraps. */
static int ms_coarse_axis(double x, double inv, int n, int periodic)
{
  double f = floor(x * inv);
  if (periodic)
    f -= (double)n * floor(f / (double)n);
  return (int)fmin(fmax(f, 0.0), (double)(n - 1)); /* NaN: 0 */
}

/* The list's kernels run `width` work-items per large particle, item k0 of particle i
 * taking the rows k0, k0 + width, ... of i's rectangle: their cost follows the large
 * particles' cells, not the grid's. Returns i (-1: past the last) and sets k0. */
static int ms_list_item(int width, int n_large, int *k0)
{
  size_t g = get_global_id(0);
  if (g >= (size_t)n_large * (size_t)width)
    return -1;
  *k0 = (int)(g % (size_t)width);
  return (int)(g / (size_t)width);
}

/* Clears the counts and large-large cells the last build filled (lrect, ccell; all others
 * are clear) and the list's counters; `reset_fail` the failure slot too (at an advance's
 * start: during one it stays clear until a failure ends the advance). */
__kernel void ms_large_list_clear(__global int *lcount, __global const int4 *lrect, int n_large,
                                  int width, int nx, int ny, __global int *lflags, int reset_fail,
                                  __global int *chead, __global const int *ccell)
{
  if (get_global_id(0) == 0) {
    lflags[MS_LFLAG_OVERFLOW] = 0;
    lflags[MS_LFLAG_MAX_COUNT] = 0;
    if (reset_fail)
      lflags[MS_LFLAG_FIRST_FAIL] = MS_NO_PARTICLE;
  }
  int k0, i = ms_list_item(width, n_large, &k0);
  if (i < 0)
    return;
  if (k0 == 0 && ccell[i] >= 0)
    chead[ccell[i]] = -1;
  int4 r = lrect[i];
  ms_cell_rect q = {r.x, r.y, r.z, r.w};
  for (int cy = q.y0 + k0; cy <= q.y1; cy += width)
    for (int cx = q.x0; cx <= q.x1; cx++)
      lcount[ms_large_cell(cx, cy, nx, ny)] = 0;
}

/* Each large particle enters every cell of its large-small rectangle, kept in lrect for
 * the next clear (whoever takes a cell's first slot owns its sort), and its large-large
 * cell. A full list is counted
 * (the host grows the capacity and rebuilds), never truncated silently. */
__kernel void ms_large_list_insert(__global const double2 *lpos, __global const float2 *lshape,
                                   int n_large, __global int *lcount, __global int *lidx,
                                   int lcap, double inv_cell, int nx, int ny, float r_small_max,
                                   __global int *lflags, __global int4 *lrect,
                                   __global int *lowner, int width, __global int *chead,
                                   __global int *cnext, __global int *ccell, double2 cinv,
                                   int cnx, int cny)
{
  int k0, i = ms_list_item(width, n_large, &k0);
  if (i < 0)
    return;
  ms_cell_rect q = ms_large_rect(lpos[i], lshape[i].x, r_small_max, 0.0, inv_cell, nx, ny);
  /* In no cell: an empty slot, a failed integration's state (the next clear replays q) */
  int none = lshape[i].y == 0.0f || !isfinite(lpos[i].x) || !isfinite(lpos[i].y);
  if (none) {
    q.x0 = q.y0 = 0;
    q.x1 = q.y1 = -1;
  }
  if (k0 == 0) {
    lrect[i] = (int4)(q.x0, q.x1, q.y0, q.y1);
    int c = ms_coarse_axis(lpos[i].y, cinv.y, cny, MS_PY) * cnx +
            ms_coarse_axis(lpos[i].x, cinv.x, cnx, MS_PX);
    c = none ? -1 : c;
    ccell[i] = c;
    if (c >= 0)
      cnext[i] = atomic_xchg(&chead[c], i);
  }
  for (int cy = q.y0 + k0; cy <= q.y1; cy += width) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_large_cell(cx, cy, nx, ny);
      int slot = atomic_inc(&lcount[cell]);
      if (slot == 0)
        lowner[cell] = i;
      if (slot < lcap) {
        lidx[ms_grid_slot(cell, lcap, slot)] = i;
      } else {
        atomic_inc(&lflags[MS_LFLAG_OVERFLOW]);
        atomic_max(&lflags[MS_LFLAG_MAX_COUNT], slot + 1);
      }
    }
  }
}

/* Insertion sort of each filled cell's list by its owner, so that no sum depends on the
 * atomics' order. A rectangle meets a cell once (the scene keeps its reach under half a
 * period less a cell, scene/flows_periodic.c), so one work-item sorts each cell. */
__kernel void ms_large_list_sort(__global const int *lcount, __global int *lidx, int lcap,
                                 __global const int4 *lrect, __global const int *lowner,
                                 int n_large, int width, int nx, int ny)
{
  int k0, i = ms_list_item(width, n_large, &k0);
  if (i < 0)
    return;
  int4 r = lrect[i];
  ms_cell_rect q = {r.x, r.y, r.z, r.w};
  for (int cy = q.y0 + k0; cy <= q.y1; cy += width) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_large_cell(cx, cy, nx, ny);
      if (lowner[cell] == i)
        ms_grid_sort_cell(lidx + ms_grid_slot(cell, lcap, 0), min(lcount[cell], lcap));
    }
  }
}

/* The force of large particle L on small particle j (x, v, r, m of each), and whether
 * it counts: the CPU worker's test, mass and skip of a zero force. */
static int ms_ls_force(double2 lx, double2 lv, float2 ls, int lstat, double2 xj, double2 vj,
                       float2 sj, float k, float two_zeta, ms_v2 *f)
{
  float dx = (float)ms_image(lx.x - xj.x, MS_PERIOD_X);
  float dy = (float)ms_image(lx.y - xj.y, MS_PERIOD_Y);
  if (!ms_touching(dx, dy, ls.x + sj.x))
    return 0;
  /* A static particle acts with infinite mass: the pair's mass is the small one's. */
  float m_eff = lstat ? sj.y : ms_pair_mass(ls.y, sj.y);
  *f = ms_contact_force(dx, dy, (float)(vj.x - lv.x), (float)(vj.y - lv.y), ls.x + sj.x, k,
                        two_zeta, m_eff);
  return !(f->x == 0.0f && f->y == 0.0f);
}

#ifdef MS_DIAG
/* --diagnostics: the whole dissipation of a large-small pair goes to the large particle,
 * as the CPU worker books it (the apply kernel books none), added pair by pair. */
static void ms_ls_diss(double2 lx, double2 lv, float2 ls, int lstat, double2 xj, double2 vj,
                       float2 sj, float k, float two_zeta, double dt, __global double *acc)
{
  float dx = (float)ms_image(lx.x - xj.x, MS_PERIOD_X);
  float dy = (float)ms_image(lx.y - xj.y, MS_PERIOD_Y);
  float m_eff = lstat ? sj.y : ms_pair_mass(ls.y, sj.y);
  *acc += dt * (double)ms_contact_dissipation(dx, dy, (float)(vj.x - lv.x), (float)(vj.y - lv.y),
                                              ls.x + sj.x, k, two_zeta, m_eff);
}
#endif

/* One work-item per large particle: its reaction to the small particles under it,
 * which starts its force for this iteration. */
__kernel void ms_large_small_react(__global const double2 *lpos, __global const double2 *lvel,
                                   __global const float2 *lshape, __global const int *lstat,
                                   int n_large, __global const double2 *pos,
                                   __global const double2 *vel, __global const float2 *shape,
                                   __global const int *count, __global const int *idx, int cap,
                                   double inv_cell, int nx, int ny, float r_small_max, float k,
                                   float two_zeta, __global float2 *lf
#ifdef MS_DIAG
                                   , __global double *diss, int diss_off, double dt
#endif
                                   )
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  double2 lx = lpos[i], lv = lvel[i];
  float2 ls = lshape[i];
  int st = lstat[i];
  float fx = 0.0f, fy = 0.0f;
  ms_cell_rect q = ms_large_rect(lx, ls.x, r_small_max, 0.0, inv_cell, nx, ny);
  if (ls.y == 0.0f) /* an empty slot: no contacts */
    q.y1 = q.y0 - 1;
  for (int cy = q.y0; cy <= q.y1; cy++) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_large_cell(cx, cy, nx, ny);
      int n = min(count[cell], cap);
      for (int s = 0; s < n; s++) {
        int j = idx[ms_grid_slot(cell, cap, s)];
        ms_v2 f;
        if (!ms_ls_force(lx, lv, ls, st, pos[j], vel[j], shape[j], k, two_zeta, &f))
          continue;
        fx -= f.x;
        fy -= f.y;
#ifdef MS_DIAG
        ms_ls_diss(lx, lv, ls, st, pos[j], vel[j], shape[j], k, two_zeta, dt,
                   &diss[diss_off + i]);
#endif
      }
    }
  }
  lf[i] = (float2)(fx, fy);
}

/* One work-item per small particle: F_ls from the large particles whose rectangle
 * holds its cell (the same pairs the CPU worker finds), in ascending large index. */
__kernel void ms_large_small_apply(__global const double2 *pos, __global const double2 *vel,
                                   __global const float2 *shape, int n_small, double inv_cell,
                                   int nx, int ny, __global const int *lcount,
                                   __global const int *lidx, int lcap,
                                   __global const double2 *lpos, __global const double2 *lvel,
                                   __global const float2 *lshape, __global const int *lstat,
                                   float k, float two_zeta, __global float2 *f_ls)
{
  int j = get_global_id(0);
  if (j >= n_small)
    return;
  double2 xj = pos[j], vj = vel[j];
  float2 sj = shape[j];
  /* The cell the grid put j in: built from these positions by the same function. */
  int cell = ms_grid_axis(xj.y, inv_cell, ny) * nx + ms_grid_axis(xj.x, inv_cell, nx);
  int n = min(lcount[cell], lcap);
  float fx = 0.0f, fy = 0.0f; /* F_ls is zero between iterations */
  for (int a = 0; a < n; a++) {
    int L = lidx[ms_grid_slot(cell, lcap, a)];
    ms_v2 f;
    if (!ms_ls_force(lpos[L], lvel[L], lshape[L], lstat[L], xj, vj, sj, k, two_zeta, &f))
      continue;
    fx += f.x;
    fy += f.y;
  }
  f_ls[j] = (float2)(fx, fy);
}

/* Whether X and P add a large-large term, by the tests the kernels then repeat on the same
 * values: the sweep looks at the pair (in its roles: A before B), not both are static and
 * their centres are closer than the radii's sum. */
static int ms_ll_touch(int x, int p, double ex, double ep, __global const double2 *lpos,
                       __global const float2 *lshape, __global const int *lstat)
{
  int before = ep < ex || (ep == ex && p < x);
  int a = before ? p : x, b = before ? x : p;
  double2 pa = lpos[a], pb = lpos[b];
  float2 sa = lshape[a], sb = lshape[b];
  if (!ms_sweep_pair(pa.x - sa.x, pa.x + sa.x, pb.x - sb.x, MS_PERIOD_X, MS_R_LARGE_MAX))
    return 0;
  if (lstat[a] && lstat[b])
    return 0;
  float dx = (float)ms_image(pb.x - pa.x, MS_PERIOD_X);
  float dy = (float)ms_image(pb.y - pa.y, MS_PERIOD_Y), rs = sa.x + sb.x;
  return dx * dx + dy * dy < rs * rs;
}

/* X's partners that add a term, in the sweep's order: a pass over the 3 x 3 large-large
 * cells round X's holds the MS_LL_HELD first, by (left edge, index), above the last one
 * walked (a few touch a disc at once: one pass); a disc with more takes another pass for
 * each MS_LL_HELD. A particle met twice (a period of fewer than 3 cells) is held once. */
#define MS_LL_HELD 32

typedef struct ms_ll_walk {
  __global const int *head, *next; /* the large-large cells' lists */
  double2 inv;                     /* cells per metre along x and y */
  int nx, ny;
  int held[MS_LL_HELD];
  double held_e[MS_LL_HELD]; /* their left edges */
  int n, at;                 /* partners held, the next one to walk */
  int more;                  /* some were left for the next pass */
} ms_ll_walk;

static void ms_ll_gather(ms_ll_walk *wk, __global const double2 *lpos,
                         __global const float2 *lshape, __global const int *lstat, int x,
                         int last, double last_e)
{
  double ex = lpos[x].x - lshape[x].x;
  int n = 0, more = 0;
  int cx = ms_coarse_axis(lpos[x].x, wk->inv.x, wk->nx, MS_PX);
  int cy = ms_coarse_axis(lpos[x].y, wk->inv.y, wk->ny, MS_PY);
  for (int k = 0; k < 9; k++) {
    int cell = ms_grid_neighbour(cx, cy, k, wk->nx, wk->ny, MS_PX, MS_PY);
    for (int p = cell < 0 ? -1 : wk->head[cell]; p >= 0; p = wk->next[p]) {
      double e = lpos[p].x - lshape[p].x;
      if (p == x || (last >= 0 && !(e > last_e || (e == last_e && p > last))))
        continue;
      int at = n; /* p's place by its key; the one before it is p itself when held */
      while (at > 0 &&
             (wk->held_e[at - 1] > e || (wk->held_e[at - 1] == e && wk->held[at - 1] > p)))
        at--;
      if ((at > 0 && wk->held[at - 1] == p) || !ms_ll_touch(x, p, ex, e, lpos, lshape, lstat))
        continue;
      if (n == MS_LL_HELD) { /* the last held, or p, waits for the next pass */
        more = 1;
        if (at == n)
          continue;
        n--;
      }
      for (int b = n; b > at; b--) {
        wk->held[b] = wk->held[b - 1];
        wk->held_e[b] = wk->held_e[b - 1];
      }
      wk->held[at] = p;
      wk->held_e[at] = e;
      n++;
    }
  }
  wk->n = n;
  wk->at = 0;
  wk->more = more;
}

/* The walk's next partner (its left edge in *e), or -1 when none is left. */
static int ms_ll_next(ms_ll_walk *wk, __global const double2 *lpos, __global const float2 *lshape,
                      __global const int *lstat, int x, double *e)
{
  if (wk->at == wk->n && wk->more)
    ms_ll_gather(wk, lpos, lshape, lstat, x, wk->held[wk->n - 1], wk->held_e[wk->n - 1]);
  if (wk->at == wk->n)
    return -1;
  *e = wk->held_e[wk->at];
  return wk->held[wk->at++];
}

/* One work-item per large particle X: large-large in the sweep's order. The candidates
 * are the particles in the large-large cells round X's, among which is every one that
 * touches X (each partner is taken once, by its key, and tested as the sweep tests it).
 * Partners are visited in ascending (left edge, index), the order in which the worker's
 * sweep adds X's terms (ms_ll_walk). */
__kernel void ms_large_large(__global const double2 *lpos, __global const double2 *lvel,
                             __global const float2 *lshape, __global const int *lstat,
                             int n_large, __global const int *chead,
                             __global const int *cnext, double2 cinv, int cnx, int cny, float k,
                             float two_zeta, __global float2 *lf
#ifdef MS_DIAG
                             , __global double *diss, int diss_off, double dt
#endif
                             )
{
  int x = get_global_id(0);
  if (x >= n_large)
    return;
  double2 px = lpos[x];
  float rx = lshape[x].x;
#ifdef MS_DIAG
  double acc = diss[diss_off + x];
#endif
  double ex = px.x - rx; /* X's left edge */
  float2 fsum = lf[x];
  ms_ll_walk wk = {chead, cnext, cinv, cnx, cny}; /* nothing held */
  if (lshape[x].y != 0.0f) /* an empty slot: no pairs */
    ms_ll_gather(&wk, lpos, lshape, lstat, x, -1, 0.0);
  for (;;) {
    double best_e;
    int best = ms_ll_next(&wk, lpos, lshape, lstat, x, &best_e);
    if (best < 0)
      break;
    /* The sweep pairs (A, B) with A before B and adds B's force on A to A, its
     * negation to B. */
    int before = best_e < ex || (best_e == ex && best < x);
    int a = before ? best : x, b = before ? x : best;
    double2 pa = lpos[a], pb = lpos[b];
    float2 sa = lshape[a], sb = lshape[b];
    if (!ms_sweep_pair(pa.x - sa.x, pa.x + sa.x, pb.x - sb.x, MS_PERIOD_X, MS_R_LARGE_MAX))
      continue;
    int sta = lstat[a], stb = lstat[b];
    if (sta && stb)
      continue;
    float dx = (float)ms_image(pb.x - pa.x, MS_PERIOD_X);
    float dy = (float)ms_image(pb.y - pa.y, MS_PERIOD_Y), rs = sa.x + sb.x;
    if (dx * dx + dy * dy >= rs * rs)
      continue;
    /* A static partner acts with infinite mass: the pair's mass is the moving one's. */
    float m_eff = sta ? sb.y : stb ? sa.y : ms_pair_mass(sa.y, sb.y);
    double2 va = lvel[a], vb = lvel[b];
    ms_v2 f = ms_contact_force(dx, dy, (float)(va.x - vb.x), (float)(va.y - vb.y), rs, k,
                               two_zeta, m_eff);
    if (before) {
      fsum.x -= f.x;
      fsum.y -= f.y;
    } else {
      fsum.x += f.x;
      fsum.y += f.y;
    }
#ifdef MS_DIAG /* half of the pair's to each side, as the worker books it */
    acc += 0.5 * (dt * (double)ms_contact_dissipation(dx, dy, (float)(va.x - vb.x),
                                                      (float)(va.y - vb.y), rs, k, two_zeta,
                                                      m_eff));
#endif
  }
  lf[x] = fsum;
#ifdef MS_DIAG
  diss[diss_off + x] = acc;
#endif
}

/* ---- Walls of any shape ([wall.NAME], docs/walls.md) ---------------------------------
 * The host places every wall each iteration as the CPU worker does (ms_walls_place) and
 * writes one record of MS_DW_STRIDE doubles per wall, its points after the records
 * (collision/device_only/device_large.c writes the same layout). The contacts go through
 * kernels/shared/wall.h with the worker's arguments (collision/worker/walls.c), so each
 * force is the worker's to the bit. */
#define MS_DW_STRIDE 28
#define MS_DW_T 8       /* after the motion's 8 doubles: t, the pose's tx, ty */
#define MS_DW_CENTER 11 /* a circle's centre now, its radius */
#define MS_DW_VT 14     /* a force-driven wall's velocity */
#define MS_DW_COEF 16   /* 2 zeta, mu (floats, exact in double) */
#define MS_DW_KIND 18   /* kind, points, closed, force-driven, the points' offset */
#define MS_DW_SEAM 23   /* the periods it takes images along, its anchor now (shared/wall.h) */
#define MS_DW_CIRCLE 1  /* kind: the inside of a circle (else a polyline) */

typedef struct ms_dwall {
  ms_wall_motion m;
  double t, tx, ty, cx, cy, radius, vtx, vty;
  float two_zeta, mu;
  double seam_x, seam_y, anchor_x, anchor_y;
  int kind, n, closed, force_driven, off;
} ms_dwall;

static ms_dwall ms_dwall_load(__global const double *wd, int k)
{
  __global const double *r = wd + MS_DW_STRIDE * k;
  ms_dwall d;
  d.m.vx = r[0];
  d.m.vy = r[1];
  d.m.cx = r[2];
  d.m.cy = r[3];
  d.m.omega = r[4];
  d.m.ax = r[5];
  d.m.ay = r[6];
  d.m.f = r[7];
  d.t = r[MS_DW_T];
  d.tx = r[MS_DW_T + 1];
  d.ty = r[MS_DW_T + 2];
  d.cx = r[MS_DW_CENTER];
  d.cy = r[MS_DW_CENTER + 1];
  d.radius = r[MS_DW_CENTER + 2];
  d.vtx = r[MS_DW_VT];
  d.vty = r[MS_DW_VT + 1];
  d.two_zeta = (float)r[MS_DW_COEF];
  d.mu = (float)r[MS_DW_COEF + 1];
  d.kind = (int)r[MS_DW_KIND];
  d.n = (int)r[MS_DW_KIND + 1];
  d.closed = (int)r[MS_DW_KIND + 2];
  d.force_driven = (int)r[MS_DW_KIND + 3];
  d.off = (int)r[MS_DW_KIND + 4];
  d.seam_x = r[MS_DW_SEAM];
  d.seam_y = r[MS_DW_SEAM + 1];
  d.anchor_x = r[MS_DW_SEAM + 2];
  d.anchor_y = r[MS_DW_SEAM + 3];
  return d;
}

/* The worker's seam_image: a disc's centre as wall d meets it, across a periodic seam. */
static double2 ms_dwall_image(const ms_dwall *d, double2 p)
{
  return (double2)(ms_wall_image(p.x, d->anchor_x, d->seam_x),
                   ms_wall_image(p.y, d->anchor_y, d->seam_y));
}

/* The worker's reference(): the point a wall's torque is taken about, now. */
static double2 ms_dwall_reference(const ms_dwall *d, __global const double *wd)
{
  if (d->m.omega != 0.0)
    return (double2)(d->m.cx + d->tx, d->m.cy + d->ty);
  if (d->kind == MS_DW_CIRCLE)
    return (double2)(d->cx, d->cy);
  return (double2)(wd[d->off], wd[d->off + 1]);
}

/* A disc's reaction records (kernels/walls.cl sums them, per wall, as the worker sums its
 * contacts): slot e of the disc's kr gets the wall, the force on the disc and the torque the
 * wall receives. Returns e + 1; past kr the count goes on and the flag reports it. */
typedef struct ms_dw_records {
  __global int *key;
  __global float2 *f;
  __global double *t;
  __global double2 *lw; /* --diagnostics: (lost, work) */
  int kr, on; /* slots per disc; 0: nothing written this iteration */
} ms_dw_records;

static int ms_dw_record(const ms_dw_records *rec, size_t base, int e, int wall, double2 q,
                        double px, double py, float r, const ms_wall_hit *hit,
                        const ms_wall_force *c, double2 lw)
{
  if (rec->on && e < rec->kr) {
    rec->key[base + e] = wall;
    rec->f[base + e] = (float2)(c->f.x, c->f.y);
    rec->t[base + e] = ms_wall_reaction_torque(q.x, q.y, px, py, r, hit->n, c);
#ifdef MS_DIAG
    rec->lw[base + e] = lw;
#endif
  }
  return e + 1;
}

static void ms_dw_records_end(const ms_dw_records *rec, __global int *n, int i, int e,
                              __global int *lflags)
{
  if (!rec->on)
    return;
  if (e > rec->kr)
    atomic_max(&lflags[MS_LFLAG_WALL_HITS], e);
  n[i] = min(e, rec->kr);
}

/* The worker's next_hit: the disc's contacts with wall d one at a time, in segment order. */
static int ms_dwall_next_hit(const ms_dwall *d, __global const double *wd, double px, double py,
                             float r, int *seg, ms_wall_hit *hit, int *feature)
{
  if (d->kind == MS_DW_CIRCLE) {
    if ((*seg)++ > 0)
      return 0;
    *feature = 0;
    return ms_circle_contact(px, py, r, d->cx, d->cy, d->radius, hit);
  }
  int n_seg = ms_polyline_segments(d->n, d->closed);
  __global const double *at = wd + d->off;
  while (*seg < n_seg) {
    int i = (*seg)++;
    ms_wall_segment s = ms_polyline_segment(i, d->n, d->closed);
    if (ms_segment_contact(px, py, r, at[2 * s.a], at[2 * s.a + 1], at[2 * s.b],
                           at[2 * s.b + 1], s.start_free, s.end_free, at[2 * s.c],
                           at[2 * s.c + 1], hit)) {
      *feature = ms_polyline_feature(i, hit->feature, d->n);
      return 1;
    }
  }
  return 0;
}

/* The worker's contact(): the law with the wall's velocity at the disc's centre. */
typedef struct ms_dw_motion {
  double vwx, vwy; /* the wall's velocity at the disc's centre */
  float omega;     /* its spin */
} ms_dw_motion;

static ms_wall_force ms_dwall_contact(const ms_dwall *d, double px, double py, float vx,
                                      float vy, float w, float r, float m,
                                      const ms_wall_hit *hit, float xi, float k, float kt,
                                      float mu_r, float dt, int friction_on, ms_dw_motion *mv)
{
  if (d->force_driven) {
    mv->vwx = d->vtx;
    mv->vwy = d->vty;
    mv->omega = 0.0f;
  } else {
    ms_wall_velocity_at(&d->m, d->t, d->tx, d->ty, px, py, &mv->vwx, &mv->vwy);
    mv->omega = (float)d->m.omega;
  }
  float dvx = (float)((double)vx - mv->vwx), dvy = (float)((double)vy - mv->vwy);
  return ms_wall_contact_force(hit->n, hit->overlap, dvx, dvy, w - mv->omega, r, m, k,
                               d->two_zeta, kt, d->mu, mu_r, xi, dt, friction_on);
}

/* --diagnostics: a contact's (energy lost, work the wall did), the worker's terms. */
static double2 ms_dw_energy(const ms_wall_force *c, const ms_dw_motion *mv, float kt,
                            float xi_old, float w, float dt)
{
#ifdef MS_DIAG
  return (double2)(ms_wall_contact_lost(c, kt, xi_old, w - mv->omega, dt),
                   ms_wall_contact_work(c, mv->vwx, mv->vwy, mv->omega, dt));
#else
  return (double2)(0.0, 0.0);
#endif
}

/* One disc without friction (centre p, velocity v, radius r, mass m) against every wall in
 * order, each wall's contacts in segment order: the forces added to *f, the records written
 * from slot 0, each contact's loss added to *lost. Returns the contacts found. */
static int ms_dw_disc_plain(__global const double *wd, int n_walls, double2 centre, double2 v,
                            float r, float m, float k, float kt, float mu_r, float dt,
                            const ms_dw_records *rec, size_t base, float2 *f, double *lost)
{
  int e = 0;
  for (int wi = 0; wi < n_walls; wi++) {
    ms_dwall d = ms_dwall_load(wd, wi);
    double2 q = ms_dwall_reference(&d, wd), p = ms_dwall_image(&d, centre);
    int seg = 0, feature;
    ms_wall_hit hit;
    while (ms_dwall_next_hit(&d, wd, p.x, p.y, r, &seg, &hit, &feature)) {
      ms_dw_motion mv;
      ms_wall_force c = ms_dwall_contact(&d, p.x, p.y, (float)v.x, (float)v.y, 0.0f, r, m, &hit,
                                         0.0f, k, kt, mu_r, dt, 0, &mv);
      f->x += c.f.x;
      f->y += c.f.y;
      double2 lw = ms_dw_energy(&c, &mv, kt, 0.0f, 0.0f, dt);
      *lost += lw.x;
      e = ms_dw_record(rec, base, e, wi, q, p.x, p.y, r, &hit, &c, lw);
    }
  }
  return e;
}

/* One work-item per small particle, after ms_large_small_apply (frictionless): its wall
 * contacts added to F_ls, walls in order, each wall's in segment order, as the worker adds
 * them after the large particles'; with `record`, their reaction records. */
__kernel void ms_walls_small_apply(__global const double2 *pos, __global const double2 *vel,
                                   __global const float2 *shape, int n_small,
                                   __global const double *wd, int n_walls, float k, float kt,
                                   float mu_r, float dt, __global float2 *f_ls, int kr,
                                   int record, __global int *rec_n, __global int *rec_key,
                                   __global float2 *rec_f, __global double *rec_t,
                                   __global int *lflags
#ifdef MS_DIAG
                                   , __global double2 *rec_lw
#endif
                                   )
{
  int j = get_global_id(0);
  if (j >= n_small)
    return;
  double2 xj = pos[j], vj = vel[j];
  float2 sj = shape[j];
  float2 f = f_ls[j];
#ifndef MS_DIAG
  __global double2 *rec_lw = 0;
#endif
  ms_dw_records rec = {rec_key, rec_f, rec_t, rec_lw, kr, record};
  double lost = 0.0; /* a small contact's loss is its wall's, from the records */
  int e = ms_dw_disc_plain(wd, n_walls, xj, vj, sj.x, sj.y, k, kt, mu_r, dt, &rec,
                           (size_t)j * (size_t)kr, &f, &lost);
  f_ls[j] = f;
  ms_dw_records_end(&rec, rec_n, j, e, lflags);
}

/* The walls, added last to each moving large particle's force: those of any shape in
 * order (each one's contacts in segment order, recorded with `record`), then the box's. */
__kernel void ms_large_walls(__global const double2 *lpos, __global const double2 *lvel,
                             __global const float2 *lshape, __global const int *lstat,
                             int n_large, double4 box, float k, float two_zeta,
                             __global float2 *lf, __global const double *wd, int n_walls,
                             float kt, float mu_r, float dt_f, int kr, int record,
                             __global int *rec_n, __global int *rec_key, __global float2 *rec_f,
                             __global double *rec_t, __global int *lflags
#ifdef MS_DIAG
                             , __global double *diss, int diss_off, double dt,
                             __global double2 *rec_lw
#endif
                             )
{
  int i = get_global_id(0);
  if (i >= n_large || lstat[i])
    return;
  double2 p = lpos[i], v = lvel[i];
  float2 s = lshape[i];
  float2 f = lf[i];
#ifdef MS_DIAG
  double acc = diss[diss_off + i]; /* each wall contact's loss, as the worker adds it */
#else
  double acc = 0.0;
  __global double2 *rec_lw = 0;
#endif
  ms_dw_records rec = {rec_key, rec_f, rec_t, rec_lw, kr, record};
  int e = ms_dw_disc_plain(wd, n_walls, p, v, s.x, s.y, k, kt, mu_r, dt_f, &rec,
                           (size_t)i * (size_t)kr, &f, &acc);
  ms_dw_records_end(&rec, rec_n, i, e, lflags);
#ifdef MS_DIAG
  diss[diss_off + i] = acc;
#endif
  ms_v2 w = ms_walls_force(p.x, p.y, (float)v.x, (float)v.y, s.x, box.x, box.y, box.z, box.w, k, two_zeta,
                           s.y);
  f.x += w.x;
  f.y += w.y;
  lf[i] = f;
#ifdef MS_DIAG /* after the pairs, as the worker books its walls */
  diss[diss_off + i] += dt * (double)ms_walls_dissipation(p.x, p.y, (float)v.x, (float)v.y, s.x,
                                                          box.x, box.y, box.z, box.w, k, two_zeta, s.y);
#endif
}

/* Integrates the moving large particles in double, keeping each one's previous state
 * (the host puts back those after the first failure, as the serial loop leaves them),
 * and records the lowest index with a non-finite state or a speed over max_speed. */
__kernel void ms_integrate_large(__global double2 *lpos, __global double2 *lvel,
                                 __global const float2 *lshape, __global const int *lstat,
                                 __global const float2 *lf, int n_large, double gx, double gy,
                                 double dt, double max_speed2, __global double2 *prev_pos,
                                 __global double2 *prev_vel, __global int *lflags,
                                 __global int2 *limg, __global int2 *prev_img)
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  double2 p = lpos[i], v = lvel[i];
  prev_pos[i] = p;
  prev_vel[i] = v;
  prev_img[i] = limg[i];
  if (lstat[i])
    return;
  float2 f = lf[i];
  double x = p.x, y = p.y, vx = v.x, vy = v.y;
  ms_integrate(&x, &y, &vx, &vy, f.x, f.y, lshape[i].y, gx, gy, dt);
  ms_large_wrap(&x, &y, &limg[i]);
  lpos[i] = (double2)(x, y);
  lvel[i] = (double2)(vx, vy);
  int finite = isfinite(x) && isfinite(y) && isfinite(vx) && isfinite(vy);
  if (!finite || (max_speed2 > 0.0 && !(vx * vx + vy * vy <= max_speed2)))
    atomic_min(&lflags[MS_LFLAG_FIRST_FAIL], i);
}
