/* The contact zone: the cells under the large particles' reach, gathered into compact
 * buffers for the CPU worker (positions, velocities, indices of the small particles
 * there), and the worker's large-small forces of those slots scattered back into F_ls.
 * Row z of the zone holds cell cells[z]'s `cap` slots, as the grid does. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/grid.h"

/* One work-item per zone slot (z, k). Slots past a cell's count are left as they are:
 * the worker reads only the first zcount[z]. */
__kernel void ms_zone_gather(__global const int *cells, ulong n_slots, int cap,
                             __global const int *count, __global const int *idx,
                             __global const double2 *pos, __global const double2 *vel,
                             __global int *zcount, __global int *zidx, __global double2 *zpos,
                             __global double2 *zvel)
{
  ulong g = get_global_id(0);
  if (g >= n_slots)
    return;
  ulong z = g / (ulong)cap;
  int k = (int)(g - z * (ulong)cap);
  int cell = cells[z];
  int n = min(count[cell], cap);
  if (k == 0)
    zcount[z] = n;
  if (k >= n)
    return;
  int j = idx[ms_grid_slot(cell, cap, k)];
  zidx[g] = j;
  zpos[g] = pos[j];
  zvel[g] = vel[j];
}

/* Stores each listed slot's force into F_ls of its particle. A small particle sits in
 * one cell and the cells are listed once, so every particle has at most one slot: a
 * store, with nothing to order. F_ls of the particles outside the zone stays zero (the
 * small integration clears it). */
__kernel void ms_zone_scatter(ulong n_slots, int cap, __global const int *zcount,
                              __global const int *zidx, __global const float2 *zf,
                              __global float2 *f_ls)
{
  ulong g = get_global_id(0);
  if (g >= n_slots)
    return;
  ulong z = g / (ulong)cap;
  int k = (int)(g - z * (ulong)cap);
  if (k < zcount[z])
    f_ls[zidx[g]] = zf[g];
}
