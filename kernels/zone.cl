/* The contact zone: the cells under the large particles' reach, gathered into compact
 * buffers for the CPU worker (index, position, velocity of each small particle there,
 * cell after cell, no empty slots), and the worker's large-small forces on them stored
 * back into F_ls. Row z of the zone is grid cell cells[z]; its particles are slots
 * start[z] .. start[z] + zcount[z] - 1, in the grid's (sorted) order. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/grid.h"

/* How many particles each listed cell holds: the host reads these to lay out the zone. */
__kernel void ms_zone_count(__global const int *cells, int n_rows, int cap,
                            __global const int *count, __global int *zcount)
{
  int z = get_global_id(0);
  if (z < n_rows)
    zcount[z] = min(count[cells[z]], cap);
}

/* One work-item per listed cell copies its particles to their slots. */
__kernel void ms_zone_gather(__global const int *cells, int n_rows, int cap,
                             __global const int *idx, __global const double2 *pos,
                             __global const double2 *vel, __global const int *zstart,
                             __global const int *zcount, __global int *zidx,
                             __global double2 *zpos, __global double2 *zvel)
{
  int z = get_global_id(0);
  if (z >= n_rows)
    return;
  int cell = cells[z], at = zstart[z], n = zcount[z];
  for (int k = 0; k < n; k++) {
    int j = idx[ms_grid_slot(cell, cap, k)];
    zidx[at + k] = j;
    zpos[at + k] = pos[j];
    zvel[at + k] = vel[j];
  }
}

/* Stores each slot's force into F_ls of its particle. A small particle sits in one cell
 * and the cells are listed once, so every particle has at most one slot: a store, with
 * nothing to order. F_ls of the particles outside the zone stays zero (the small
 * integration clears it after use). */
__kernel void ms_zone_scatter(int n_slots, __global const int *zidx, __global const float2 *zf,
                              __global float2 *f_ls)
{
  int t = get_global_id(0);
  if (t < n_slots)
    f_ls[zidx[t]] = zf[t];
}
