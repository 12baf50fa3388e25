/* The reactions of the walls of any shape on the device-only path (large_on = device): the
 * force, torque and contact count each wall receives, summed from the discs' reaction records
 * (kernels/large.cl, ms_dw_record) in the CPU worker's order (collision/worker/walls.c), so
 * that a force-driven wall moves as it does there, to the bit: per run of the wall's band
 * (a row's cells in order, each cell's slots in order, each disc's contacts in segment
 * order), then the runs in the band's order, then the large particles' in index order. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/friction.h"
#include "shared/grid.h"

/* --diagnostics with friction: the ended small contacts' springs are summed per block of
 * this many particles (collision/worker/walls.c sums them so too). */
#define MS_DROP_BLOCK 256

/* One work-item per run: spans[s] = (wall, row, first column, last column). */
__kernel void ms_walls_span_sum(__global const int4 *spans, int n_spans,
                                __global const int *count, __global const int *idx, int cap,
                                int nx, int kr, __global const int *rec_n,
                                __global const int *rec_key, __global const float2 *rec_f,
                                __global const double *rec_t, __global double4 *partial
#ifdef MS_DIAG
                                , __global const double2 *rec_lw, __global double2 *partial_lw
#endif
                                )
{
  int s = get_global_id(0);
  if (s >= n_spans)
    return;
  int4 q = spans[s];
  double fx = 0.0, fy = 0.0, tq = 0.0, n = 0.0;
  double2 lw = (double2)(0.0, 0.0);
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
#ifdef MS_DIAG
        lw.x += rec_lw[base + e].x;
        lw.y += rec_lw[base + e].y;
#endif
      }
    }
  }
  partial[s] = (double4)(fx, fy, tq, n);
#ifdef MS_DIAG
  partial_lw[s] = lw;
#endif
}

/* --diagnostics with friction, one work-item per block of MS_DROP_BLOCK small particles:
 * per wall, the springs of the old histories no contact took (`taken`, a bit per entry of a
 * particle's list, from ms_walls_small_apply_fric), particles in order, each one's entries in
 * key order: drop[wall * n_blocks + block]. */
__kernel void ms_walls_dropped(int n_small, int n_walls, float kt, int kw,
                               __global const int *old_n, __global const int *old_key,
                               __global const float *old_xi, __global const uint *taken,
                               int n_blocks, __global double *drop)
{
  int b = get_global_id(0);
  if (b >= n_blocks)
    return;
  int j0 = b * MS_DROP_BLOCK, j1 = min(j0 + MS_DROP_BLOCK, n_small);
  for (int k = 0; k < n_walls; k++) {
    double e = 0.0;
    for (int j = j0; j < j1; j++) {
      size_t base = (size_t)j * (size_t)kw;
      for (int a = 0; a < old_n[j]; a++)
        if ((old_key[base + a] >> 20) == k && !(taken[j] & (1u << a)))
          e += ms_spring_energy(kt, old_xi[base + a]);
    }
    drop[(size_t)k * (size_t)n_blocks + (size_t)b] = e;
  }
}

/* One work-item per wall: its runs' sums in order from first[k] to first[k + 1], then the
 * moving large particles' contacts with it. out[k] = (fx, fy, torque, contacts). */
__kernel void ms_walls_total(__global const double4 *partial, __global const int *first,
                             int n_walls, __global const int *lstat, int n_large, int kr,
                             __global const int *rec_n, __global const int *rec_key,
                             __global const float2 *rec_f, __global const double *rec_t,
                             __global double4 *out
#ifdef MS_DIAG
                             , __global const double2 *partial_lw,
                             __global const double *drop, int n_blocks,
                             __global const double2 *rec_lw, __global double2 *acc
#endif
                             )
{
  int k = get_global_id(0);
  if (k >= n_walls)
    return;
  double fx = 0.0, fy = 0.0, tq = 0.0, n = 0.0;
#ifdef MS_DIAG /* what the wall lost and did since the start, added to as the worker adds */
  double2 lw = acc[k];
#endif
  for (int s = first[k]; s < first[k + 1]; s++) {
    double4 p = partial[s];
    fx += p.x;
    fy += p.y;
    tq += p.z;
    n += p.w;
#ifdef MS_DIAG
    lw.x += partial_lw[s].x;
    lw.y += partial_lw[s].y;
#endif
  }
#ifdef MS_DIAG
  if (n_blocks > 0) { /* friction on: the ended small contacts' springs */
    double ended = 0.0;
    for (int b = 0; b < n_blocks; b++)
      ended += drop[(size_t)k * (size_t)n_blocks + (size_t)b];
    lw.x += ended;
  }
#endif
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
#ifdef MS_DIAG
      lw.y += rec_lw[base + e].y; /* its loss is the large particle's (ms_large_walls) */
#endif
    }
  }
  out[k] = (double4)(fx, fy, tq, n);
#ifdef MS_DIAG
  acc[k] = lw;
#endif
}
