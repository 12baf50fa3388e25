/* Open systems' exchange (collision/open_scan.c): the slots an exchange has to see, found
 * on the device so that it reads back a few records instead of every position: the
 * particles whose centre lies in an outflow or past an open side, and those within reach
 * of an inflow's region. A filter only: the host decides on the positions these records
 * carry, with collision/open.c's own tests, so what it does is what it did reading all. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/grid.h"

/* collision/open.c's exit_of, as a yes or no: in an outflow (bounds included) or past an
 * open side (left, right, bottom, top) of the box (w, h). */
static int ms_open_leaves(double2 p, int n_out, __global const double4 *out_rect, int4 open,
                          double2 box)
{
  for (int k = 0; k < n_out; k++) {
    double4 r = out_rect[k];
    if (p.x >= r.x && p.x <= r.z && p.y >= r.y && p.y <= r.w)
      return 1;
  }
  return (open.x && -p.x > 0.0) || (open.y && p.x - box.x > 0.0) || (open.z && -p.y > 0.0) ||
         (open.w && p.y - box.y > 0.0);
}

/* Within `reach` of region r along both axes, through the nearest image across a periodic
 * side; reach carries a margin, so this holds every particle the host's test could. */
static int ms_open_near(double2 p, double4 r, double reach, double2 period)
{
  double hx = 0.5 * (r.z - r.x), hy = 0.5 * (r.w - r.y);
  double dx = fabs(ms_image(p.x - (r.x + hx), period.x)) - hx;
  double dy = fabs(ms_image(p.y - (r.y + hy), period.y)) - hy;
  return dx <= reach && dy <= reach;
}

/* One work-item per slot: count[0] leaving records, count[1] near records, each (slot,
 * position) at an index from the counter; the host sorts them by slot, and reruns with
 * more room when a counter passed `room`. */
__kernel void ms_open_scan(int n, __global const double2 *pos, __global const float2 *shape,
                           int n_out, __global const double4 *out_rect, int4 open, double2 box,
                           int n_in, __global const double4 *in_rect,
                           __global const double *in_reach, double2 period, int room,
                           __global int *count, __global int *leave_idx,
                           __global double2 *leave_pos, __global int *near_idx,
                           __global double2 *near_pos)
{
  int i = get_global_id(0);
  if (i >= n || shape[i].y == 0.0f)
    return;
  double2 p = pos[i];
  if (ms_open_leaves(p, n_out, out_rect, open, box)) {
    int at = atomic_inc(&count[0]);
    if (at < room) {
      leave_idx[at] = i;
      leave_pos[at] = p;
    }
    return; /* removed: no newcomer meets it */
  }
  for (int k = 0; k < n_in; k++) {
    if (!ms_open_near(p, in_rect[k], in_reach[k], period))
      continue;
    int at = atomic_inc(&count[1]);
    if (at < room) {
      near_idx[at] = i;
      near_pos[at] = p;
    }
    return;
  }
}
