/* Integration of the small particles: v += ((F_ss + F_ls)/m + g) dt; x += v dt, in
 * double, then wrapped into a periodic box, counting the images crossed. F_ls, written by the CPU worker, is zeroed here for the next iteration. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/contact.h"
#include "shared/grid.h"

__kernel void ms_integrate_small(__global double2 *pos, __global double2 *vel,
                                 __global const float2 *shape, __global const float2 *f_ss,
                                 __global float2 *f_ls, int n, double gx, double gy, double dt,
                                 double2 period, __global int2 *img)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 fl = f_ls[i];
  f_ls[i] = (float2)(0.0f, 0.0f);
  if (ms_slot_empty(shape[i]))
    return;
  double2 p = pos[i];
  double2 v = vel[i];
  float2 fs = f_ss[i];
  /* Vector components have no address in OpenCL C: go through scalars. */
  double x = p.x, y = p.y, vx = v.x, vy = v.y;
  ms_integrate(&x, &y, &vx, &vy, fs.x + fl.x, fs.y + fl.y, shape[i].y, gx, gy, dt);
  if (period.x > 0.0 || period.y > 0.0) {
    int2 m = img[i];
    int ix = m.x, iy = m.y;
    ms_wrap_into(&x, &ix, period.x);
    ms_wrap_into(&y, &iy, period.y);
    img[i] = (int2)(ix, iy);
  }
  pos[i] = (double2)(x, y);
  vel[i] = (double2)(vx, vy);
}
