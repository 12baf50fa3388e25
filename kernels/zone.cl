/* The contact zone: the small particles in the cells under the large particles' reach,
 * gathered into compact buffers for the CPU worker (index, position, velocity of each,
 * no empty slots), and the worker's large-small forces on them stored back into F_ls.
 *
 * The zone is laid out on the device, so the worker's exchange is one round trip:
 *   mark    every cell of every large particle's rectangle gets this iteration's stamp;
 *   blocks  per block of MS_ZONE_BLOCK cells: the particles in its marked cells;
 *   scan    one work-group: each block's first slot, and the totals;
 *   gather  per block: its marked cells' particles to consecutive slots, in cell order;
 *   spans   per large particle and row of its rectangle: the slots of that row's cells.
 * Slots follow the grid's cell order and each cell's sorted slots, so a row of a
 * rectangle (cells cy*nx + x0 .. x1, all marked) is one run of slots holding exactly
 * those cells' particles in the order the worker's cell walk visits them. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/grid.h"

#define MS_ZONE_BLOCK 64
#define MS_ZONE_SCAN_LANES 256

/* rect = (x0, x1, y0, y1) of large particle i, as the worker computes it. */
__kernel void ms_zone_mark(int n_large, __global const int4 *rect, int nx, int stamp,
                           __global int *mark)
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  int4 r = rect[i];
  for (int cy = r.z; cy <= r.w; cy++)
    for (int cx = r.x; cx <= r.y; cx++)
      mark[cy * nx + cx] = stamp;
}

__kernel void ms_zone_blocks(int n_cells, int cap, int stamp, __global const int *mark,
                             __global const int *count, __global int2 *block)
{
  int b = get_global_id(0);
  int first = b * MS_ZONE_BLOCK;
  if (first >= n_cells)
    return;
  int last = min(first + MS_ZONE_BLOCK, n_cells);
  int2 sum = (int2)(0, 0);
  for (int c = first; c < last; c++) {
    if (mark[c] == stamp) {
      sum.x += min(count[c], cap);
      sum.y += 1;
    }
  }
  block[b] = sum;
}

/* Exclusive scan of the blocks' particle counts into their first slots, by one
 * work-group: each lane scans a contiguous run of blocks; lane 0 scans the lanes' sums.
 * totals = (particles, cells) of the whole zone. */
__kernel void ms_zone_scan(int n_blocks, __global const int2 *block, __global int *block_start,
                           __global int2 *totals)
{
  __local int2 lane_sum[MS_ZONE_SCAN_LANES];
  int lane = get_local_id(0), lanes = get_local_size(0);
  int per = (n_blocks + lanes - 1) / lanes;
  int first = lane * per, last = min(first + per, n_blocks);
  int2 sum = (int2)(0, 0);
  for (int b = first; b < last; b++)
    sum += block[b];
  lane_sum[lane] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lane == 0) {
    int2 at = (int2)(0, 0);
    for (int l = 0; l < lanes; l++) {
      int2 s = lane_sum[l];
      lane_sum[l] = at;
      at += s;
    }
    totals[0] = at;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int at = lane_sum[lane].x;
  for (int b = first; b < last; b++) {
    block_start[b] = at;
    at += block[b].x;
  }
}

/* Slots at `room` and beyond are not written: the host sees the total, grows the
 * buffers and gathers again. first[c] = the first slot of marked cell c. */
__kernel void ms_zone_gather(int n_cells, int cap, int stamp, int room, __global const int *mark,
                             __global const int *count, __global const int *idx,
                             __global const double2 *pos, __global const double2 *vel,
                             __global const int *block_start, __global int *first,
                             __global int *zidx, __global double2 *zpos, __global double2 *zvel)
{
  int b = get_global_id(0);
  int c0 = b * MS_ZONE_BLOCK;
  if (c0 >= n_cells)
    return;
  int last = min(c0 + MS_ZONE_BLOCK, n_cells);
  int at = block_start[b];
  for (int c = c0; c < last; c++) {
    if (mark[c] != stamp)
      continue;
    first[c] = at;
    int n = min(count[c], cap);
    for (int k = 0; k < n && at + k < room; k++) {
      int j = idx[ms_grid_slot(c, cap, k)];
      zidx[at + k] = j;
      zpos[at + k] = pos[j];
      zvel[at + k] = vel[j];
    }
    at += n;
  }
}

/* span_base[i]: where large particle i's rows start in `span`; span = (first slot,
 * one past the last) of each row of its rectangle, rows ascending. */
__kernel void ms_zone_spans(int n_large, __global const int4 *rect,
                            __global const int *span_base, int nx, int cap,
                            __global const int *count, __global const int *first,
                            __global int2 *span)
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  int4 r = rect[i];
  int out = span_base[i];
  for (int cy = r.z; cy <= r.w; cy++) {
    int a = cy * nx + r.x, b = cy * nx + r.y;
    span[out++] = (int2)(first[a], first[b] + min(count[b], cap));
  }
}

/* Stores each slot's force into F_ls of its particle. A small particle sits in one cell
 * and a cell is in the zone once, so every particle has at most one slot: a store, with
 * nothing to order. F_ls of the particles outside the zone stays zero (the small
 * integration clears it after use). */
__kernel void ms_zone_scatter(int n_slots, __global const int *zidx, __global const float2 *zf,
                              __global float2 *f_ls)
{
  int t = get_global_id(0);
  if (t < n_slots)
    f_ls[zidx[t]] = zf[t];
}
