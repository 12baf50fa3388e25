/* Small-small contacts over the 3x3 neighbour cells, plus the four walls. Every
 * work-item visits nine cells: uniform work, which is why small particles live here.
 * Cells are one largest diameter wide, so any two discs that touch are neighbours. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/contact.h"
#include "shared/grid.h"

/* shape[i] = (radius, mass) of small particle i; box = the sides (x0, x1, y0, y1), at
 * infinity where there is no wall; period = (w, h) along a periodic axis, else 0. */
__kernel void ms_collide_small(__global const double2 *pos, __global const double2 *vel,
                               __global const float2 *shape, __global const int *count,
                               __global const int *idx, int cap, int n, double inv_cell, int nx,
                               int ny, float k, float two_zeta, double4 box,
                               __global float2 *f_out, double2 period
#ifdef MS_DIAG
                               , __global double *diss, double dt
#endif
                               )
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 si = shape[i];
  if (ms_slot_empty(si)) {
    f_out[i] = (float2)(0.0f, 0.0f);
    return;
  }
  double2 xi = pos[i];
  double2 vi = vel[i];
  int cx = ms_grid_axis(xi.x, inv_cell, nx);
  int cy = ms_grid_axis(xi.y, inv_cell, ny);
  float fx = 0.0f, fy = 0.0f;
#ifdef MS_DIAG
  /* --diagnostics: the energy the dashpots dissipate this step, half of each pair's
   * (its partner books the other half) and all of the walls'; a side output only. */
  double lost = 0.0;
#endif
  for (int nb = 0; nb < 9; nb++) {
    int cell = ms_grid_neighbour(cx, cy, nb, nx, ny, period.x > 0.0, period.y > 0.0);
    if (cell < 0)
      continue;
    int m = min(count[cell], cap);
    for (int s = 0; s < m; s++) {
      int j = idx[ms_grid_slot(cell, cap, s)];
      if (j == i)
        continue;
      double2 xj = pos[j];
      float2 sj = shape[j];
      float dx = (float)ms_image(xj.x - xi.x, period.x);
      float dy = (float)ms_image(xj.y - xi.y, period.y);
      if (!ms_touching(dx, dy, si.x + sj.x))
        continue; /* most neighbours: their velocities are never loaded */
      double2 vj = vel[j];
      ms_v2 f = ms_contact_force(dx, dy, (float)(vi.x - vj.x), (float)(vi.y - vj.y),
                                 si.x + sj.x, k, two_zeta, ms_pair_mass(si.y, sj.y));
      fx += f.x;
      fy += f.y;
#ifdef MS_DIAG
      lost += 0.5 * (double)ms_contact_dissipation(dx, dy, (float)(vi.x - vj.x),
                                                   (float)(vi.y - vj.y), si.x + sj.x, k,
                                                   two_zeta, ms_pair_mass(si.y, sj.y));
#endif
    }
  }
  ms_v2 w = ms_walls_force(xi.x, xi.y, (float)vi.x, (float)vi.y, si.x, box.x, box.y, box.z, box.w, k, two_zeta,
                           si.y);
  fx += w.x;
  fy += w.y;
  f_out[i] = (float2)(fx, fy);
#ifdef MS_DIAG
  lost += (double)ms_walls_dissipation(xi.x, xi.y, (float)vi.x, (float)vi.y, si.x, box.x, box.y, box.z, box.w,
                                       k, two_zeta, si.y);
  diss[i] += lost * dt;
#endif
}
