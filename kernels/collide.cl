/* Small-small contacts over the 3x3 neighbour cells, plus the four walls. Every
 * work-item visits nine cells: uniform work, which is why small particles live here. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/contact.h"
#include "shared/grid.h"

__kernel void ms_collide_small(__global const float2 *pos, __global const float2 *vel,
                               __global const int *count, __global const int *idx, int cap,
                               int n, float min_x, float min_y, float inv_cell, int nx, int ny,
                               float radius, float k, float c_pair, float c_wall,
                               float4 box, __global float2 *f_out)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 xi = pos[i];
  float2 vi = vel[i];
  int cx = ms_grid_axis(xi.x, min_x, inv_cell, nx);
  int cy = ms_grid_axis(xi.y, min_y, inv_cell, ny);
  float r_sum = radius + radius;
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
        float2 vj = vel[j];
        ms_v2 f = ms_contact_force(xj.x - xi.x, xj.y - xi.y, vi.x - vj.x, vi.y - vj.y, r_sum,
                                   k, c_pair);
        fx += f.x;
        fy += f.y;
      }
    }
  }
  ms_v2 w = ms_walls_force(xi.x, xi.y, vi.x, vi.y, radius, box.x, box.y, box.z, box.w, k,
                           c_wall);
  fx += w.x;
  fy += w.y;
  f_out[i] = (float2)(fx, fy);
}
