/* All-pairs gravity: the force kernels (one per variant, chosen per device by
 * src/gravity/variants.c), the leapfrog drift, and the copy of positions into
 * structure-of-arrays form that the CPU variants stream.
 *
 * Bodies are float4 {x, y, z, m}, as in the OpenCL N-body tutorial; positions are
 * double-buffered (pos_in is read by every work-item while pos_out is written).
 * A device updates the bodies [first, end) but sums over all n_pad bodies, padding
 * included (zero mass), in the same order whichever device or work-item owns body i,
 * so a multi-device run computes the same bits as a single-device one.
 *
 * Build-time constants (-D): MS_WG work-group size and MS_IPT bodies per work-item
 * (tiled variants), MS_SLICES work-items per body (jsplit), MS_VW vector width and
 * MS_BPI bodies per work-item (soa variants). */
#include "shared/gravity.h"

#define MS_GRAV_ARGS                                                                 \
  __global const float4 *pos_in, __global float4 *pos_out, __global float4 *vel,     \
      __global float4 *acc, __global const float *soa, int first, int end, int n_pad, \
      float eps2, float g, float dt, int mode

/* Body i has its acceleration sum (sx, sy, sz): store G times it and move the body on
 * as `mode` says (shared/gravity.h). */
MS_FN void ms_grav_finish(int i, float sx, float sy, float sz, __global const float4 *pos_in,
                          __global float4 *pos_out, __global float4 *vel, __global float4 *acc,
                          float g, float dt, int mode)
{
  float4 a = (float4)(g * sx, g * sy, g * sz, 0.0f);
  acc[i] = a;
  if (mode == MS_GRAV_MODE_ACCEL)
    return;
  float4 v = vel[i];
  if (mode == MS_GRAV_MODE_KICK) {
    float h = 0.5f * dt;
    v.x = v.x + a.x * h;
    v.y = v.y + a.y * h;
    v.z = v.z + a.z * h;
  } else { /* Taylor, the tutorial's update: x += v dt + a dt^2/2, v += a dt */
    float4 p = pos_in[i];
    float hdt2 = 0.5f * dt * dt;
    p.x = p.x + v.x * dt + hdt2 * a.x;
    p.y = p.y + v.y * dt + hdt2 * a.y;
    p.z = p.z + v.z * dt + hdt2 * a.z;
    pos_out[i] = p; /* w, the mass, is kept */
    v.x = v.x + a.x * dt;
    v.y = v.y + a.y * dt;
    v.z = v.z + a.z * dt;
  }
  vel[i] = v;
}

/* Leapfrog, first half of a step: v += a dt/2 (a from the previous step), x += v dt. */
__kernel void ms_grav_drift(__global const float4 *pos_in, __global float4 *pos_out,
                            __global float4 *vel, __global const float4 *acc, int first, int end,
                            float dt)
{
  int i = first + (int)get_global_id(0);
  if (i >= end)
    return;
  float h = 0.5f * dt;
  float4 v = vel[i], a = acc[i], p = pos_in[i];
  v.x = v.x + a.x * h;
  v.y = v.y + a.y * h;
  v.z = v.z + a.z * h;
  p.x = p.x + v.x * dt;
  p.y = p.y + v.y * dt;
  p.z = p.z + v.z * dt;
  vel[i] = v;
  pos_out[i] = p;
}

/* x[], y[], z[], m[] one after the other, n_pad each, for the soa variants. */
__kernel void ms_grav_pack(__global const float4 *pos, __global float *soa, int n_pad)
{
  int i = (int)get_global_id(0);
  if (i >= n_pad)
    return;
  float4 p = pos[i];
  soa[i] = p.x;
  soa[n_pad + i] = p.y;
  soa[2 * n_pad + i] = p.z;
  soa[3 * n_pad + i] = p.w;
}

#ifdef MS_WG
MS_GRAVITY_DEFINE(ms_grav_pull, float, 1)

/* The tutorial's kernel, kept as the baseline: one body per work-item; the work-group
 * copies MS_WG positions into local memory (its pblock), waits, and each work-item
 * sums over that tile. */
__kernel __attribute__((reqd_work_group_size(MS_WG, 1, 1))) void ms_grav_simple(MS_GRAV_ARGS)
{
  __local float4 tile[MS_WG];
  int lid = (int)get_local_id(0);
  int i = first + (int)get_global_id(0);
  float4 p = pos_in[min(i, n_pad - 1)];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int t = 0; t < n_pad; t += MS_WG) {
    tile[lid] = pos_in[t + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < MS_WG; j++) {
      float4 q = tile[j];
      ms_grav_pull(q.x - p.x, q.y - p.y, q.z - p.z, q.w, eps2, &ax, &ay, &az);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < end)
    ms_grav_finish(i, ax, ay, az, pos_in, pos_out, vel, acc, g, dt, mode);
}

/* The GPU kernel: the same tiling, the inner loop unrolled (fewer branches and index
 * updates per interaction, more independent work in flight), and MS_IPT bodies per
 * work-item, MS_WG apart, so that each position read from local memory serves MS_IPT
 * interactions. */
__kernel __attribute__((reqd_work_group_size(MS_WG, 1, 1))) void ms_grav_tiled(MS_GRAV_ARGS)
{
  __local float4 tile[MS_WG];
  int lid = (int)get_local_id(0);
  int base = first + (int)get_group_id(0) * (MS_WG * MS_IPT) + lid;
  float px[MS_IPT], py[MS_IPT], pz[MS_IPT], ax[MS_IPT], ay[MS_IPT], az[MS_IPT];
#pragma unroll
  for (int k = 0; k < MS_IPT; k++) {
    float4 p = pos_in[min(base + k * MS_WG, n_pad - 1)];
    px[k] = p.x;
    py[k] = p.y;
    pz[k] = p.z;
    ax[k] = ay[k] = az[k] = 0.0f;
  }
  for (int t = 0; t < n_pad; t += MS_WG) {
    tile[lid] = pos_in[t + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 8
    for (int j = 0; j < MS_WG; j++) {
      float4 q = tile[j];
#pragma unroll
      for (int k = 0; k < MS_IPT; k++)
        ms_grav_pull(q.x - px[k], q.y - py[k], q.z - pz[k], q.w, eps2, &ax[k], &ay[k], &az[k]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int k = 0; k < MS_IPT; k++) {
    int i = base + k * MS_WG;
    if (i < end)
      ms_grav_finish(i, ax[k], ay[k], az[k], pos_in, pos_out, vel, acc, g, dt, mode);
  }
}

#ifdef MS_SLICES
/* For GPUs with few bodies per multiprocessor: MS_SLICES work-items share a body,
 * each summing its slice of every tile, and the partial sums are added in slice
 * order through local memory. A work-group then holds MS_WG / MS_SLICES bodies, so
 * there are MS_SLICES times more work-items to hide latency with. */
#define MS_BODIES_PER_GROUP (MS_WG / MS_SLICES)
__kernel __attribute__((reqd_work_group_size(MS_WG, 1, 1))) void ms_grav_jsplit(MS_GRAV_ARGS)
{
  __local float4 tile[MS_WG];
  int lid = (int)get_local_id(0);
  int slot = lid % MS_BODIES_PER_GROUP, slice = lid / MS_BODIES_PER_GROUP;
  int i = first + (int)get_group_id(0) * MS_BODIES_PER_GROUP + slot;
  float4 p = pos_in[min(i, n_pad - 1)];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  int from = slice * MS_BODIES_PER_GROUP;
  for (int t = 0; t < n_pad; t += MS_WG) {
    tile[lid] = pos_in[t + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 8
    for (int j = from; j < from + MS_BODIES_PER_GROUP; j++) {
      float4 q = tile[j];
      ms_grav_pull(q.x - p.x, q.y - p.y, q.z - p.z, q.w, eps2, &ax, &ay, &az);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  tile[lid] = (float4)(ax, ay, az, 0.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (slice == 0) {
    float4 sum = tile[slot];
    for (int s = 1; s < MS_SLICES; s++)
      sum = sum + tile[s * MS_BODIES_PER_GROUP + slot];
    if (i < end)
      ms_grav_finish(i, sum.x, sum.y, sum.z, pos_in, pos_out, vel, acc, g, dt, mode);
  }
}
#endif
#endif

#ifdef MS_VW
/* The CPU kernel. pocl runs the work-items of a group in a loop around each barrier
 * region and leaves vectorising to LLVM, which (POCL_VECTORIZER_REMARKS=1) does not
 * vectorise the interaction loop of the kernels above: it is a floating-point sum it
 * may not reorder, inside the work-item loop (tiled4 gets 4-wide SLP vectors across
 * its four bodies, no more). So this kernel spells the vectors out:
 * body j's coordinates come from structure-of-arrays copies MS_VW at a time (float16
 * is one AVX-512 register), MS_BPI bodies i stay in registers, each with MS_VW
 * partial sums that are added up at the end, in a fixed order. No local memory, no
 * barriers; run with one work-item per group. */
#if MS_VW == 16
typedef float16 ms_vfloat;
#define ms_vload vload16
#elif MS_VW == 8
typedef float8 ms_vfloat;
#define ms_vload vload8
#else
#error "MS_VW must be 8 or 16"
#endif
MS_GRAVITY_DEFINE(ms_grav_pull_v, ms_vfloat, 0)

MS_FN float ms_vsum(ms_vfloat v)
{
#if MS_VW == 16
  float8 s8 = v.lo + v.hi;
#else
  float8 s8 = v;
#endif
  float4 s4 = s8.lo + s8.hi;
  float2 s2 = s4.lo + s4.hi;
  return s2.x + s2.y;
}

__kernel void ms_grav_soa(MS_GRAV_ARGS)
{
  int i0 = first + (int)get_global_id(0) * MS_BPI;
  __global const float *sx = soa, *sy = soa + n_pad, *sz = soa + 2 * n_pad;
  __global const float *sm = soa + 3 * n_pad;
  ms_vfloat px[MS_BPI], py[MS_BPI], pz[MS_BPI], ax[MS_BPI], ay[MS_BPI], az[MS_BPI];
  ms_vfloat e2 = (ms_vfloat)(eps2);
#pragma unroll
  for (int b = 0; b < MS_BPI; b++) {
    float4 p = pos_in[min(i0 + b, n_pad - 1)];
    px[b] = (ms_vfloat)(p.x);
    py[b] = (ms_vfloat)(p.y);
    pz[b] = (ms_vfloat)(p.z);
    ax[b] = ay[b] = az[b] = (ms_vfloat)(0.0f);
  }
  for (int j = 0; j < n_pad; j += MS_VW) {
    ms_vfloat xj = ms_vload(0, sx + j), yj = ms_vload(0, sy + j), zj = ms_vload(0, sz + j);
    ms_vfloat mj = ms_vload(0, sm + j);
#pragma unroll
    for (int b = 0; b < MS_BPI; b++)
      ms_grav_pull_v(xj - px[b], yj - py[b], zj - pz[b], mj, e2, &ax[b], &ay[b], &az[b]);
  }
#pragma unroll
  for (int b = 0; b < MS_BPI; b++)
    if (i0 + b < end)
      ms_grav_finish(i0 + b, ms_vsum(ax[b]), ms_vsum(ay[b]), ms_vsum(az[b]), pos_in, pos_out,
                     vel, acc, g, dt, mode);
}
#endif
