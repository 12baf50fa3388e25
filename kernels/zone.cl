/* The contact zone: the small particles in the cells under the large particles' reach,
 * gathered into compact buffers for the CPU worker (index, position, velocity of each,
 * no empty slots), and the worker's large-small forces on them stored back into F_ls.
 *
 * The zone is laid out on the device, so the worker's exchange is one round trip:
 *   mark    every cell of every large particle's rectangle gets this iteration's stamp;
 *   blocks  per block of cells (a work-group): the particles in its marked cells;
 *   scan    one work-group: each block's first slot, and the totals;
 *   gather  per block: its marked cells' particles to consecutive slots, in cell order;
 *   spans   per row of each rectangle: the run of slots of that row's cells.
 * Blocks and gather sweep the grid's span (the whole grid, or a domain's columns and
 * windows), which holds every rectangle (else the host sweeps the whole grid). Slots follow
 * the sweep's cell order, row by row, and each cell's sorted slots, so a row of a rectangle
 * (cells cy*nx + x0 .. x1, all marked, on one side of a seam) is one run of slots holding
 * exactly those cells' particles in the order the worker's cell walk visits them.
 *
 * What crosses to the host is packed so that each direction is one transfer: the owners'
 * first spans (n ints), then their rectangles (x0, x1, y0, y1: 4 n ints); the totals are the span
 * buffer's first entry and row r its entry 1 + r; a slot going down is one record of
 * `rec` doubles (position, velocity, the particle's index, and with friction its spin),
 * and coming up one of `up` floats (the force, and with friction the torque). */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/grid.h"

/* Work-groups of `lanes` work-items (a power of two, at most MS_ZONE_LANES) cover
 * blocks of per_lane * lanes cells: lane l takes cells per_lane * l onwards. A GPU runs
 * many lanes of few cells; a CPU device one lane of many (its work-items are loop
 * iterations, and barriers between them cost more than they share). */
#define MS_ZONE_LANES 256

/* Inclusive prefix sums of a[0 .. lanes-1] in place (Hillis-Steele); integer sums, so
 * the order of the additions does not matter. Every lane must call it, after writing
 * its own entry. */
static void ms_zone_scan_local(__local int2 *a, int lane, int lanes)
{
  barrier(CLK_LOCAL_MEM_FENCE); /* every lane's entry is written */
  for (int off = 1; off < lanes; off <<= 1) {
    int2 v = lane >= off ? a[lane - off] : (int2)(0, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    a[lane] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* The owner (large particle, or a wall's run) whose rows include rectangle row r: the
 * first spans, own[0 .. n), ascend. */
static int ms_zone_owner(__global const int *own, int n_large, int r)
{
  int lo = 0, hi = n_large - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (own[mid] <= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Owner i's rectangle (x0, x1, y0, y1), after the n first spans. */
static int4 ms_zone_rect(__global const int *own, int n, int i)
{
  __global const int *o = own + n + 4 * i;
  return (int4)(o[0], o[1], o[2], o[3]);
}

/* Span r of rectangle q = (x0, x1, y0, y1) starting at span `first`: its row's first
 * cell and last cell. On a periodic box the rectangle is unclamped along a periodic
 * axis (kernels/shared/grid.h): its rows are taken round the seam, and a row that crosses
 * the seam is two spans, its cells left of the seam (wrapped to the grid's end) first,
 * as the worker's walk visits them. */
static int2 ms_zone_span_cells(int4 q, int first, int r, int nx, int ny)
{
  int pieces = q.x < 0 || q.y >= nx ? 2 : 1;
  int k = r - first, y = q.z + k / pieces, piece = k % pieces;
  y = y < 0 ? y + ny : y >= ny ? y - ny : y;
  int a = q.x, b = q.y;
  if (pieces == 2) {
    a = piece == 0 ? (q.x < 0 ? q.x + nx : q.x) : 0;
    b = piece == 0 ? nx - 1 : (q.y >= nx ? q.y - nx : q.y);
  }
  return (int2)(y * nx + a, y * nx + b);
}

/* One work-item per span: each owner's rectangle as the worker computes it, and its
 * first span. */
__kernel void ms_zone_mark(int n_rows, int n_large, __global const int *own, int nx, int stamp,
                           __global int *mark, int ny)
{
  int r = get_global_id(0);
  if (r >= n_rows)
    return;
  int i = ms_zone_owner(own, n_large, r);
  int2 cells = ms_zone_span_cells(ms_zone_rect(own, n_large, i), own[i], r, nx, ny);
  for (int cell = cells.x; cell <= cells.y; cell++)
    mark[cell] = stamp;
}

/* The cells the sweeps visit: the first n_cells of the grid's span (x0, wx, y0), every
 * cell that may hold a particle (kernels/shared/grid.h). */
#define MS_ZONE_SWEEP int n_cells, int x0, int wx, int y0, int nx, int ny
#define MS_ZONE_CELL(i) ms_span_cell(i, x0, wx, y0, nx, ny)

/* A lane's marked cells: (particles, cells). */
static int2 ms_zone_lane_sum(int c0, int per_lane, MS_ZONE_SWEEP, int cap, int stamp,
                             __global const int *mark, __global const int *count)
{
  int2 sum = (int2)(0, 0);
  for (int i = c0; i < min(c0 + per_lane, n_cells); i++) {
    int c = MS_ZONE_CELL(i);
    if (mark[c] == stamp) {
      sum.x += min(count[c], cap);
      sum.y += 1;
    }
  }
  return sum;
}

/* One work-group per block: its marked cells' (particles, cells). */
__kernel void ms_zone_blocks(int n_cells, int per_lane, int cap, int stamp,
                             __global const int *mark, __global const int *count,
                             __global int2 *block, int x0, int wx, int y0, int nx, int ny)
{
  __local int2 part[MS_ZONE_LANES];
  int lane = get_local_id(0), lanes = get_local_size(0);
  int c0 = (get_group_id(0) * lanes + lane) * per_lane;
  part[lane] = ms_zone_lane_sum(c0, per_lane, n_cells, x0, wx, y0, nx, ny, cap, stamp, mark,
                                count);
  ms_zone_scan_local(part, lane, lanes);
  if (lane == lanes - 1)
    block[get_group_id(0)] = part[lane];
}

/* One work-group: each block's first slot, tile by tile of `lanes` blocks, and
 * totals = (particles, cells) of the whole zone, span[0]. */
__kernel void ms_zone_scan(int n_blocks, __global const int2 *block, __global int *block_start,
                           __global int2 *totals)
{
  __local int2 part[MS_ZONE_LANES];
  int lane = get_local_id(0), lanes = get_local_size(0);
  int2 carry = (int2)(0, 0);
  for (int t = 0; t < n_blocks; t += lanes) {
    int b = t + lane;
    int2 own = b < n_blocks ? block[b] : (int2)(0, 0);
    part[lane] = own;
    ms_zone_scan_local(part, lane, lanes);
    if (b < n_blocks)
      block_start[b] = carry.x + part[lane].x - own.x;
    carry += part[lanes - 1];
    barrier(CLK_LOCAL_MEM_FENCE); /* part is rewritten by the next tile */
  }
  if (lane == 0)
    totals[0] = carry;
}

/* One work-group per block: each lane copies its marked cells' particles to their
 * slots' records (rec doubles: x, y, vx, vy, index, and with rec = 6 the spin from
 * rot = (theta, w)); first[c] = the first slot of marked cell c. Slots at `room` and beyond
 * are not written: the host sees the total, grows the buffers and gathers again. */
__kernel void ms_zone_gather(int n_cells, int per_lane, int cap, int stamp, int room,
                             __global const int *mark,
                             __global const int *count, __global const int *idx,
                             __global const double2 *pos, __global const double2 *vel,
                             __global const int *block_start, __global int *first,
                             __global double *zrec, int rec, __global const double2 *rot,
                             int x0, int wx, int y0, int nx, int ny)
{
  __local int2 part[MS_ZONE_LANES];
  int lane = get_local_id(0), lanes = get_local_size(0);
  int c0 = (get_group_id(0) * lanes + lane) * per_lane;
  int2 own = ms_zone_lane_sum(c0, per_lane, n_cells, x0, wx, y0, nx, ny, cap, stamp, mark,
                               count);
  part[lane] = own;
  ms_zone_scan_local(part, lane, lanes);
  int at = block_start[get_group_id(0)] + part[lane].x - own.x;
  for (int i = c0; i < min(c0 + per_lane, n_cells); i++) {
    int c = MS_ZONE_CELL(i);
    if (mark[c] != stamp)
      continue;
    first[c] = at;
    int n = min(count[c], cap);
    for (int k = 0; k < n && at + k < room; k++) {
      int j = idx[ms_grid_slot(c, cap, k)];
      __global double *z = zrec + (size_t)rec * (size_t)(at + k);
      double2 p = pos[j], v = vel[j];
      z[0] = p.x;
      z[1] = p.y;
      z[2] = v.x;
      z[3] = v.y;
      z[4] = (double)j; /* exact: particle counts are far below 2^53 */
      if (rec > 5)
        z[5] = rot[j].y;
    }
    at += n;
  }
}

/* One work-item per rectangle row: span[1 + r] = (first slot, one past the last) of the
 * row's cells, rows of each owner ascending from its first span. */
__kernel void ms_zone_spans(int n_rows, int n_large, __global const int *own, int nx, int cap,
                            __global const int *count, __global const int *first,
                            __global int2 *span, int ny)
{
  int r = get_global_id(0);
  if (r >= n_rows)
    return;
  int i = ms_zone_owner(own, n_large, r);
  int2 cells = ms_zone_span_cells(ms_zone_rect(own, n_large, i), own[i], r, nx, ny);
  int a = cells.x, b = cells.y;
  span[1 + r] = (int2)(first[a], first[b] + min(count[b], cap));
}

/* Stores each slot's force (up = 2 floats a slot), and with up = 3 its torque, into F_ls
 * and t_ls of its particle (t_ls is not touched otherwise). A small particle sits in one
 * cell and a cell is in the zone once, so every particle has at most one slot: a store,
 * with nothing to order. F_ls of the particles outside the zone stays zero (the small
 * integration clears it after use). */
__kernel void ms_zone_scatter(int n_slots, __global const double *zrec, int rec,
                              __global const float *zup, int up, __global float2 *f_ls,
                              __global float *t_ls)
{
  int t = get_global_id(0);
  if (t >= n_slots)
    return;
  int j = (int)zrec[(size_t)rec * (size_t)t + 4];
  __global const float *u = zup + (size_t)up * (size_t)t;
  f_ls[j] = (float2)(u[0], u[1]);
  if (up > 2)
    t_ls[j] = u[2];
}
