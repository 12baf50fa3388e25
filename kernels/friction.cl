/* The friction variants of the small particles' kernels (issue 12, docs/friction.md),
 * enqueued only when the scene has friction; without it the kernels of grid.cl,
 * collide.cl and integrate.cl run exactly as before. */
#pragma OPENCL FP_CONTRACT OFF
#include "shared/contact.h"
#include "shared/grid.h"

/* Integration with rotation: the translation exactly as ms_integrate_small, then the
 * spin and angle from the small-small and wall torque t_ss and the large particles'
 * t_ls; F_ls and t_ls, written by the CPU worker, are zeroed for the next iteration. */
__kernel void ms_integrate_small_fric(__global double2 *pos, __global double2 *vel,
                                      __global const float2 *shape,
                                      __global const float2 *f_ss, __global float2 *f_ls,
                                      int n, double gx, double gy, double dt,
                                      __global double2 *rot, __global const float *t_ss,
                                      __global float *t_ls)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  double2 p = pos[i];
  double2 v = vel[i];
  float2 fs = f_ss[i];
  float2 fl = f_ls[i];
  float2 sh = shape[i];
  double x = p.x, y = p.y, vx = v.x, vy = v.y;
  ms_integrate(&x, &y, &vx, &vy, fs.x + fl.x, fs.y + fl.y, sh.y, gx, gy, dt);
  pos[i] = (double2)(x, y);
  vel[i] = (double2)(vx, vy);
  f_ls[i] = (float2)(0.0f, 0.0f);
  double2 r = rot[i];
  double theta = r.x, w = r.y;
  ms_integrate_rotation(&theta, &w, t_ss[i] + t_ls[i], ms_disc_inertia(sh.y, sh.x), dt);
  rot[i] = (double2)(theta, w);
  t_ls[i] = 0.0f;
}
