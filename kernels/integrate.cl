/* Integration of the small particles: v += (F_ss + F_ls)/m dt + g dt; x += v dt.
 * F_ls, written by the CPU worker, is zeroed here for the next iteration. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/contact.h"

__kernel void ms_integrate_small(__global float2 *pos, __global float2 *vel,
                                 __global const float2 *f_ss, __global float2 *f_ls, int n,
                                 float mass, float gx, float gy, float dt)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 p = pos[i];
  float2 v = vel[i];
  float2 fs = f_ss[i];
  float2 fl = f_ls[i];
  /* Vector components have no address in OpenCL C: go through scalars. */
  float x = p.x, y = p.y, vx = v.x, vy = v.y;
  ms_integrate(&x, &y, &vx, &vy, fs.x + fl.x, fs.y + fl.y, mass, gx, gy, dt);
  pos[i] = (float2)(x, y);
  vel[i] = (float2)(vx, vy);
  f_ls[i] = (float2)(0.0f, 0.0f);
}
