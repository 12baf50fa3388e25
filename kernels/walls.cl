/* The reactions of the walls of any shape on the device-only path (large_on = device): the
 * force, torque and contact count each wall receives, summed from the discs' reaction records
 * (kernels/large.cl, ms_dw_record) in the CPU worker's order (collision/worker/walls.c), so
 * that a force-driven wall moves as it does there, to the bit: per run of the wall's band
 * (a row's cells in order, each cell's slots in order, each disc's contacts in segment
 * order), then the runs in the band's order, then the large particles' in index order. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/grid.h"

/* One work-item per run: spans[s] = (wall, row, first column, last column). */
__kernel void ms_walls_span_sum(__global const int4 *spans, int n_spans,
                                __global const int *count, __global const int *idx, int cap,
                                int nx, int kr, __global const int *rec_n,
                                __global const int *rec_key, __global const float2 *rec_f,
                                __global const double *rec_t, __global double4 *partial)
{
  int s = get_global_id(0);
  if (s >= n_spans)
    return;
  int4 q = spans[s];
  double fx = 0.0, fy = 0.0, tq = 0.0, n = 0.0;
  for (int cx = q.z; cx <= q.w; cx++) {
    int cell = q.y * nx + cx;
    int m = min(count[cell], cap);
    for (int slot = 0; slot < m; slot++) {
      int j = idx[ms_grid_slot(cell, cap, slot)];
      size_t base = (size_t)j * (size_t)kr;
      for (int e = 0; e < rec_n[j]; e++) {
        if (rec_key[base + e] != q.x)
          continue;
        float2 f = rec_f[base + e];
        fx -= (double)f.x;
        fy -= (double)f.y;
        tq += rec_t[base + e];
        n += 1.0;
      }
    }
  }
  partial[s] = (double4)(fx, fy, tq, n);
}

/* One work-item per wall: its runs' sums in order from first[k] to first[k + 1], then the
 * moving large particles' contacts with it. out[k] = (fx, fy, torque, contacts). */
__kernel void ms_walls_total(__global const double4 *partial, __global const int *first,
                             int n_walls, __global const int *lstat, int n_large, int kr,
                             __global const int *rec_n, __global const int *rec_key,
                             __global const float2 *rec_f, __global const double *rec_t,
                             __global double4 *out)
{
  int k = get_global_id(0);
  if (k >= n_walls)
    return;
  double fx = 0.0, fy = 0.0, tq = 0.0, n = 0.0;
  for (int s = first[k]; s < first[k + 1]; s++) {
    double4 p = partial[s];
    fx += p.x;
    fy += p.y;
    tq += p.z;
    n += p.w;
  }
  for (int i = 0; i < n_large; i++) {
    if (lstat[i])
      continue;
    size_t base = (size_t)i * (size_t)kr;
    for (int e = 0; e < rec_n[i]; e++) {
      if (rec_key[base + e] != k)
        continue;
      float2 f = rec_f[base + e];
      fx += -(double)f.x;
      fy += -(double)f.y;
      tq += rec_t[base + e];
      n += 1.0;
    }
  }
  out[k] = (double4)(fx, fy, tq, n);
}
