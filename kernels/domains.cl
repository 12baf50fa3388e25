/* A split run's meeting between iterations (collision/split.c, docs/domains.md): each slot
 * of a domain has a role (0 empty, 1 own, 2 halo). After a step only the own particles'
 * states are right; every one of them goes to each domain that needs it now (its new
 * owner, and every domain whose window of columns holds it), as a record the host passes
 * on, and the halo is dropped. Records are 8 doubles: position, velocity, then (radius,
 * mass), the periods crossed, and (global slot, destination * 4 + role) in one double each. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/grid.h"

/* The domain owning column c under the cut start[0..P]. */
static int ms_split_owner(int c, int P, __global const int *start)
{
  int d = 0;
  while (d + 1 < P && c >= start[d + 1])
    d++;
  return d;
}

/* Whether domain e's window (its columns and w more each side, wrapped on a periodic
 * axis) holds column c. */
static int ms_split_window(int c, int e, int w, int ncol, int periodic,
                           __global const int *start)
{
  int lo = start[e] - w, hi = start[e + 1] + w;
  if (!periodic)
    return c >= lo && c < hi;
  if (hi - lo >= ncol)
    return 1;
  return ((c - lo) % ncol + ncol) % ncol < hi - lo;
}

/* Slot i's record into *out: its state, its global slot and `dest` (domain * 4 + role).
 * Written through a pointer: a double8 return value changes pocl's x86 ABI (a warning). */
static void ms_split_record(__global double8 *out, int i, int dest,
                            __global const double2 *pos, __global const double2 *vel,
                            __global const float2 *shape, __global const int2 *img,
                            __global const int *key)
{
  double2 p = pos[i], v = vel[i];
  *out = (double8)(p.x, p.y, v.x, v.y, as_double(shape[i]), as_double(img[i]),
                   as_double((int2)(key[i], dest)), 0.0);
}

/* A slot's role in domain e for a particle at column c: 1 own, 2 held, 0 none. */
static int ms_split_role(int c, int e, int owner, int w, int ncol, int periodic,
                         __global const int *start)
{
  return owner == e ? 1 : ms_split_window(c, e, w, ncol, periodic, start) ? 2 : 0;
}

/* The column of slot i's particle along the cut's axis. */
static int ms_split_column(int i, int axis, double inv_cell, int ncol,
                           __global const double2 *pos)
{
  double2 p = pos[i];
  return ms_grid_axis(axis ? p.y : p.x, inv_cell, ncol);
}

/* Whether column c lies deep inside domain d's own: no other domain needs a particle there. */
static int ms_split_deep(int c, int d, int w, __global const int *start)
{
  return c >= start[d] + w && c < start[d + 1] - w;
}

/* A place in a run of global memory for each work-item that `takes`, in a block the group
 * reserves with one atomic on `counter` (the items' own atomics on one counter queue
 * behind each other on a GPU: 100,000 records a meeting). Every item of the group calls it
 * alike; n and base are the group's scratch. */
static int ms_split_group_take(int takes, __global int *counter, __local int *n,
                               __local int *base)
{
  if (get_local_id(0) == 0)
    *n = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int k = takes ? atomic_inc(n) : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    *base = *n > 0 ? atomic_add(counter, *n) : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  return *base + k;
}

/* One work-item per slot of domain d: how many records each other domain e is given
 * (to[e]), so that the pack lays them out grouped by destination. */
__kernel void ms_split_count(int n, int d, int P, int axis, int w, int ncol, int periodic,
                             double inv_cell, __global const int *start,
                             __global const double2 *pos, __global const uchar *role,
                             __global int *to)
{
  __local int group_n, group_base;
  int i = get_global_id(0);
  int near = i < n && role[i] == 1, c = 0, owner = 0;
  if (near) {
    c = ms_split_column(i, axis, inv_cell, ncol, pos);
    near = !ms_split_deep(c, d, w, start);
  }
  if (near)
    owner = ms_split_owner(c, P, start);
  for (int e = 0; e < P; e++) /* (every item alike: the group's barriers) */
    ms_split_group_take(near && e != d && ms_split_role(c, e, owner, w, ncol, periodic, start),
                        &to[e], &group_n, &group_base);
}

/* One work-item per slot of domain d: its next role, its records for the other domains,
 * and the slots it leaves (count[0] left slots). The records for domain e go from at[e] on
 * (the host set at[] to the running sums of ms_split_count's to[]), so each domain's are
 * one run of the buffer; a record past `room` is dropped, which the count rules out. Where
 * in its run a record or a left slot lands does not change the state (every sum is ordered
 * by global slot). */
__kernel void ms_split_pack(int n, int d, int P, int axis, int w, int ncol, int periodic,
                            double inv_cell, __global const int *start,
                            __global const double2 *pos, __global const double2 *vel,
                            __global const float2 *shape, __global const int2 *img,
                            __global const int *key, __global const uchar *role,
                            __global uchar *role_next, int room, __global int *count,
                            __global int *at, __global double8 *out, __global int *left)
{
  __local int group_n, group_base;
  int i = get_global_id(0);
  int r = i < n ? role[i] : 0, near = r == 1, c = 0, owner = 0;
  if (near) {
    c = ms_split_column(i, axis, inv_cell, ncol, pos);
    near = !ms_split_deep(c, d, w, start);
  }
  if (near)
    owner = ms_split_owner(c, P, start);
  /* (empty stays empty; the halo is given afresh; deep inside, own stays own) */
  int mine = near ? ms_split_role(c, d, owner, w, ncol, periodic, start) : r == 1;
  int leaves = r == 2 || (r == 1 && !mine);
  if (i < n)
    role_next[i] = (uchar)mine;
  int gone = ms_split_group_take(leaves, &count[0], &group_n, &group_base);
  if (leaves)
    left[gone] = i;
  for (int e = 0; e < P; e++) { /* (every item alike: the group's barriers) */
    int re = near && e != d ? ms_split_role(c, e, owner, w, ncol, periodic, start) : 0;
    int k = ms_split_group_take(re != 0, &at[e], &group_n, &group_base);
    if (re && k < room)
      ms_split_record(&out[k], i, e * 4 + re, pos, vel, shape, img, key);
  }
}

/* After a pack that fitted: every slot takes its next role; a slot left is emptied
 * (kernels/shared/grid.h), keyed past every global slot (g_slots). */
__kernel void ms_split_commit(int n, int g_slots, __global uchar *role,
                              __global const uchar *role_next, __global double2 *pos,
                              __global double2 *vel, __global float2 *shape,
                              __global int2 *img, __global int *key)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  int was = role[i], now = role_next[i];
  role[i] = (uchar)now;
  if (was && !now) {
    pos[i] = (double2)(MS_SLOT_EMPTY_AT, MS_SLOT_EMPTY_AT);
    vel[i] = (double2)(0.0, 0.0);
    shape[i] = (float2)(0.0f, 0.0f);
    img[i] = (int2)(0, 0);
    key[i] = g_slots + i;
  }
}

/* The records given to this domain, each into the slot the host chose for it. */
__kernel void ms_split_unpack(int m, __global const double8 *in, __global const int *slot,
                              __global uchar *role, __global double2 *pos,
                              __global double2 *vel, __global float2 *shape,
                              __global int2 *img, __global int *key)
{
  int k = get_global_id(0);
  if (k >= m)
    return;
  double8 e = in[k];
  int i = slot[k];
  int2 kd = as_int2(e.s6);
  pos[i] = (double2)(e.s0, e.s1);
  vel[i] = (double2)(e.s2, e.s3);
  shape[i] = as_float2(e.s4);
  img[i] = as_int2(e.s5);
  key[i] = kd.x;
  role[i] = (uchar)(kd.y & 3);
}

/* The own particles' records (the whole state's gathering), and each column's count of
 * them (the balance's cut): count[0] records. */
__kernel void ms_split_own(int n, int axis, int ncol, double inv_cell,
                           __global const double2 *pos, __global const double2 *vel,
                           __global const float2 *shape, __global const int2 *img,
                           __global const int *key, __global const uchar *role, int room,
                           __global int *count, __global double8 *out, __global int *column)
{
  int i = get_global_id(0);
  if (i >= n || role[i] != 1)
    return;
  atomic_inc(&column[ms_split_column(i, axis, inv_cell, ncol, pos)]);
  if (room == 0)
    return;
  int at = atomic_inc(&count[0]);
  if (at < room)
    ms_split_record(&out[at], i, 1, pos, vel, shape, img, key);
}
