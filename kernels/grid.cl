/* Atomic uniform-grid construction (clear, insert) and the per-cell sort that makes
 * every later summation order independent of the order the atomics happened in. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/grid.h"

/* Clears the counts of the first n_cells cells of the span (x0, wx, y0) (0 where a fill
 * clears them: collision/device/grid.c) and resets the flags the build fills. */
__kernel void ms_grid_clear(__global int *count, int n_cells, __global int *flags, int x0,
                            int wx, int y0, int nx, int ny)
{
  int i = get_global_id(0);
  if (i < n_cells)
    count[ms_span_cell(i, x0, wx, y0, nx, ny)] = 0;
  if (i < MS_FLAG_COUNT)
    flags[i] = (i == MS_FLAG_FIRST_BAD || i == MS_FLAG_FIRST_OUT || i == MS_FLAG_FIRST_FAST)
                   ? MS_NO_PARTICLE
                   : 0;
}

__kernel void ms_grid_insert(__global const double2 *pos, int n, __global int *count,
                             __global int *idx, int cap, double inv_cell, int nx, int ny,
                             __global int *flags, __global const double2 *vel,
                             double max_speed2, __global const float2 *shape, int x0, int wx,
                             int y0, int wy)
{
  int i = get_global_id(0);
  if (i >= n || ms_slot_empty(shape[i]))
    return;
  double2 p = pos[i];
  if (max_speed2 > 0.0) { /* an exploding system shows first as runaway speed */
    double2 v = vel[i];
    if (!(v.x * v.x + v.y * v.y <= max_speed2)) {
      atomic_inc(&flags[MS_FLAG_FAST]);
      atomic_min(&flags[MS_FLAG_FIRST_FAST], i);
    }
  }
  if (!isfinite(p.x) || !isfinite(p.y)) {
    atomic_inc(&flags[MS_FLAG_NONFINITE]);
    atomic_min(&flags[MS_FLAG_FIRST_BAD], i);
    return;
  }
  if (ms_grid_axis_outside(p.x, inv_cell, nx) || ms_grid_axis_outside(p.y, inv_cell, ny)) {
    atomic_inc(&flags[MS_FLAG_OUTSIDE]);
    atomic_min(&flags[MS_FLAG_FIRST_OUT], i);
  }
  int cx = ms_grid_axis(p.x, inv_cell, nx), cy = ms_grid_axis(p.y, inv_cell, ny);
  if (!ms_span_holds(cx, x0, wx, nx) || !ms_span_holds(cy, y0, wy, ny))
    atomic_inc(&flags[MS_FLAG_OFF_SPAN]); /* the host builds again over the whole grid */
  int cell = cy * nx + cx;
  int slot = atomic_inc(&count[cell]);
  if (slot < cap) {
    idx[ms_grid_slot(cell, cap, slot)] = i;
  } else {
    /* Only overflowing insertions touch the shared counters: every work-item
     * hitting one word would serialise the kernel. */
    atomic_inc(&flags[MS_FLAG_OVERFLOW]);
    atomic_max(&flags[MS_FLAG_MAX_COUNT], slot + 1);
  }
}

/* Insertion sort of one cell's indices, for each of the n_cells cells of the span (x0, wx,
 * y0): cells hold a handful of entries. `keyed`: by key[i], the global slot of local
 * particle i, where the device holds its particles in an order of its own
 * (docs/domains.md); else by index, which is the global slot. */
__kernel void ms_grid_sort(__global const int *count, __global int *idx, int cap, int n_cells,
                           __global const int *key, int keyed, int x0, int wx, int y0, int nx,
                           int ny)
{
  int i = get_global_id(0);
  if (i >= n_cells)
    return;
  int c = ms_span_cell(i, x0, wx, y0, nx, ny);
  ms_grid_sort_cell_by(idx + ms_grid_slot(c, cap, 0), min(count[c], cap), key, keyed);
}
