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
                                      __global float *t_ls, double2 period,
                                      __global int2 *img)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 fl = f_ls[i];
  float tl = t_ls[i];
  f_ls[i] = (float2)(0.0f, 0.0f);
  t_ls[i] = 0.0f;
  float2 sh = shape[i];
  if (ms_slot_empty(sh))
    return;
  double2 p = pos[i];
  double2 v = vel[i];
  float2 fs = f_ss[i];
  double x = p.x, y = p.y, vx = v.x, vy = v.y;
  ms_integrate(&x, &y, &vx, &vy, fs.x + fl.x, fs.y + fl.y, sh.y, gx, gy, dt);
  if (period.x > 0.0 || period.y > 0.0) {
    int2 m = img[i];
    int ix = m.x, iy = m.y;
    ms_wrap_into(&x, &ix, period.x);
    ms_wrap_into(&y, &iy, period.y);
    img[i] = (int2)(ix, iy);
  }
  pos[i] = (double2)(x, y);
  vel[i] = (double2)(vx, vy);
  double2 r = rot[i];
  double theta = r.x, w = r.y;
  ms_integrate_rotation(&theta, &w, t_ss[i] + tl, ms_disc_inertia(sh.y, sh.x), dt);
  rot[i] = (double2)(theta, w);
}

/* Whether any particle moved more than the rebuild distance (half the skin, less a
 * margin for rounding) since the neighbour list was built: flags[0] = 1 then. Only set
 * here, cleared when the list is rebuilt (collision/device/nlist.c). */
__kernel void ms_nlist_check(__global const double2 *pos, __global const double2 *ref, int n,
                             double limit2, __global int *flags, double2 period)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  double2 p = pos[i], q = ref[i]; /* through the seam by the nearest image */
  double dx = ms_image(p.x - q.x, period.x), dy = ms_image(p.y - q.y, period.y);
  if (dx * dx + dy * dy > limit2)
    flags[0] = 1; /* every writer stores the same value */
}

/* Builds particle i's neighbour list from the grid: every other small particle within
 * r_i + r_j + skin (3x3 cells of 2 r_max + skin), in ascending index (`keyed`: ascending
 * key, the global slot each local particle stands for, docs/domains.md), each partner's
 * tangential displacement copied from i's previous list (0 for a partner not in it).
 * A particle with more than new_k partners counts an overflow (flags[1]) and the most
 * partners seen (flags[2]); the host then grows the list and builds again, the previous
 * list untouched. */
__kernel void ms_nlist_build(__global const double2 *pos, __global const float2 *shape,
                             __global const int *count, __global const int *idx, int cap, int n,
                             double inv_cell, int nx, int ny, float skin,
                             __global const int *old_j, __global const float *old_xi,
                             __global const int *old_n, int old_k, __global int *new_j,
                             __global float *new_xi, __global int *new_n, int new_k,
                             __global int *flags, double2 period, __global const int *key,
                             int keyed)
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  if (ms_slot_empty(shape[i])) {
    new_n[i] = 0;
    return;
  }
  double2 xi = pos[i];
  float ri = shape[i].x;
  int cx = ms_grid_axis(xi.x, inv_cell, nx);
  int cy = ms_grid_axis(xi.y, inv_cell, ny);
  ms_slot_index base = (ms_slot_index)i * (ms_slot_index)new_k;
  int m = 0;
  for (int nb = 0; nb < 9; nb++) {
    int cell = ms_grid_neighbour(cx, cy, nb, nx, ny, period.x > 0.0, period.y > 0.0);
    if (cell < 0)
      continue;
    int c = min(count[cell], cap);
    for (int s = 0; s < c; s++) {
      int j = idx[ms_grid_slot(cell, cap, s)];
      if (j == i)
        continue;
      double2 xj = pos[j];
      float dx = (float)ms_image(xj.x - xi.x, period.x);
      float dy = (float)ms_image(xj.y - xi.y, period.y);
      float reach = ri + shape[j].x + skin;
      if (!(dx * dx + dy * dy < reach * reach))
        continue;
      if (m < new_k) { /* insertion into the ascending list */
        int p = m, kj = ms_slot_key(key, keyed, j);
        while (p > 0 && ms_slot_key(key, keyed, new_j[base + p - 1]) > kj) {
          new_j[base + p] = new_j[base + p - 1];
          p--;
        }
        new_j[base + p] = j;
      }
      m++;
    }
  }
  new_n[i] = m;
  if (m > new_k) {
    atomic_inc(&flags[1]);
    atomic_max(&flags[2], m);
    return;
  }
  /* Both lists ascend: one merge walk finds each partner's old displacement. */
  ms_slot_index obase = (ms_slot_index)i * (ms_slot_index)old_k;
  int on = min(old_n[i], old_k), a = 0;
  for (int e = 0; e < m; e++) {
    int j = new_j[base + e], kj = ms_slot_key(key, keyed, j);
    while (a < on && ms_slot_key(key, keyed, old_j[obase + a]) < kj)
      a++;
    new_xi[base + e] = a < on && old_j[obase + a] == j ? old_xi[obase + a] : 0.0f;
  }
}

/* One wall side's tangential and rolling part for a disc touching it: n points from the
 * centre to the wall, fn is the wall's push (ms_wall_push); adds to the force and the
 * torque, returns the displacement to keep. */
static inline float wall_friction(ms_v2 n, float fn, float vx, float vy, float w, float r,
                                  float inertia, float kt, float ct, float mu_wall, float mu_r,
                                  float dt, float xi, float *fx, float *fy, float *tq)
{
  float u = ms_wall_slip_velocity(n, vx, vy, w, r);
  ms_tangential t = ms_wall_tangential_law(n, r, u, xi, fn, kt, ct, mu_wall, dt);
  *fx += t.f.x;
  *fy += t.f.y;
  *tq += t.torque_i;
  *tq += ms_rolling_torque(w, fn, mu_r, r, inertia, dt);
  return t.xi;
}

#ifdef MS_DIAG
/* --diagnostics: what one wall side's friction (as wall_friction computes it from the
 * displacement xi_old) dissipated this step: its work less what its spring stored. */
static inline double wall_lost(ms_v2 n, float fn, float vx, float vy, float w, float r,
                               float inertia, float kt, float ct, float mu_wall, float mu_r,
                               float dt, float xi_old, float xi_new)
{
  float u = ms_wall_slip_velocity(n, vx, vy, w, r);
  ms_tangential t = ms_wall_tangential_law(n, r, u, xi_old, fn, kt, ct, mu_wall, dt);
  float m = ms_rolling_torque(w, fn, mu_r, r, inertia, dt);
  return ms_slip_work(t.ft, u, m, w, dt) -
         (ms_spring_energy(kt, xi_new) - ms_spring_energy(kt, xi_old));
}
#endif

/* Small-small contacts with friction over each particle's neighbour list, in ascending
 * partner index (a pure function of the state: the list's extra, distant entries add
 * nothing), then the four walls, left, right, bottom, top. The normal force is
 * ms_contact_force's; tangential force, torque and rolling torque come from
 * shared/friction.h; each entry's displacement is written back (0 once the pair has
 * opened). The partner keeps its own copy of the pair, which it computes to the same
 * bits (docs/friction.md), so each work-item writes only its own slots. */
__kernel void ms_collide_small_fric(__global const double2 *pos, __global const double2 *vel,
                                    __global const float2 *shape, __global const double2 *rot,
                                    __global const int *nb_j, __global float *nb_xi,
                                    __global const int *nb_n, int kslots, int n, float k,
                                    float two_zeta, float kt, float mu, float mu_r,
                                    float mu_wall, float dt, double4 box,
                                    __global float *wall_xi, __global float2 *f_out,
                                    __global float *t_out, double2 period
#ifdef MS_DIAG
                                    , __global double *diss
#endif
                                    )
{
  int i = get_global_id(0);
  if (i >= n)
    return;
  float2 si = shape[i];
  if (ms_slot_empty(si)) { /* nothing: no force, no history, no loss */
    f_out[i] = (float2)(0.0f, 0.0f);
    t_out[i] = 0.0f;
    for (int side = 0; side < 4; side++)
      wall_xi[(ms_slot_index)i * 4 + side] = 0.0f;
    return;
  }
  double2 xi = pos[i];
  double2 vi = vel[i];
  float wi = (float)rot[i].y;
  float ii = ms_disc_inertia(si.y, si.x);
  float fx = 0.0f, fy = 0.0f, tq = 0.0f;
#ifdef MS_DIAG
  /* --diagnostics: the energy dissipated this step, half of each pair's (its partner
   * books the other half, computed to the same bits) and all of the walls'. A contact's
   * part is its dashpot's, plus its friction's work less what its tangential spring
   * stored (an opening contact gives up what it held); a side output only. */
  double lost = 0.0;
#endif
  ms_slot_index base = (ms_slot_index)i * (ms_slot_index)kslots;
  int m = min(nb_n[i], kslots);
  for (int e = 0; e < m; e++) {
    int j = nb_j[base + e];
    double2 xj = pos[j];
    float2 sj = shape[j];
    float dx = (float)ms_image(xj.x - xi.x, period.x);
    float dy = (float)ms_image(xj.y - xi.y, period.y);
    float r_sum = si.x + sj.x;
    float kept = 0.0f;
    int touch = ms_touching(dx, dy, r_sum);
    if (touch) {
      double2 vj = vel[j];
      float wj = (float)rot[j].y;
      float dvx = (float)(vi.x - vj.x), dvy = (float)(vi.y - vj.y);
      float m_eff = ms_pair_mass(si.y, sj.y);
      ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, r_sum, k, two_zeta, m_eff);
      float u = ms_slip_velocity(c.n, dvx, dvy, wi, si.x, wj, sj.x);
      ms_tangential t = ms_tangential_law(c.n, si.x, sj.x, u, nb_xi[base + e], c.fn, kt,
                                          ms_tangential_dashpot(two_zeta, kt, m_eff), mu, dt);
      float i_eff = ms_rolling_inertia(ii, ms_disc_inertia(sj.y, sj.x));
      fx += c.f.x;
      fy += c.f.y;
      fx += t.f.x;
      fy += t.f.y;
      tq += t.torque_i;
      tq += ms_rolling_torque(wi - wj, c.fn, mu_r, ms_rolling_radius(si.x, sj.x), i_eff, dt);
      kept = t.xi;
#ifdef MS_DIAG
      float m_roll = ms_rolling_torque(wi - wj, c.fn, mu_r, ms_rolling_radius(si.x, sj.x), i_eff,
                                       dt);
      lost += 0.5 * ((double)ms_contact_dissipation(dx, dy, dvx, dvy, r_sum, k, two_zeta, m_eff) *
                         (double)dt +
                     ms_slip_work(t.ft, u, m_roll, wi - wj, dt));
#endif
    }
#ifdef MS_DIAG
    lost -= 0.5 * (ms_spring_energy(kt, ms_tangential_history(touch, kept)) -
                   ms_spring_energy(kt, nb_xi[base + e]));
#endif
    nb_xi[base + e] = ms_tangential_history(touch, kept);
  }
  /* The walls: the normal push as ms_walls_force adds it, then each touching side's
   * friction with its own displacement. */
  float r = si.x, vx = (float)vi.x, vy = (float)vi.y;
  MS_BOX_GAPS(xi.x, xi.y, box.x, box.y, box.z, box.w);
  float gap[4] = {gl, gr, gb, gt};
  __global float *wx = wall_xi + (ms_slot_index)i * 4;
  float pushes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  ms_v2 w;
  w.x = 0.0f;
  w.y = 0.0f;
  int touching = gap[0] < r || gap[1] < r || gap[2] < r || gap[3] < r;
  if (touching) {
    float c = ms_dashpot(two_zeta, k, si.y);
    pushes[0] = ms_wall_push(gap[0], -vx, r, k, c);
    pushes[1] = ms_wall_push(gap[1], vx, r, k, c);
    pushes[2] = ms_wall_push(gap[2], -vy, r, k, c);
    pushes[3] = ms_wall_push(gap[3], vy, r, k, c);
    w.x = pushes[0];
    w.x = w.x - pushes[1];
    w.y = pushes[2];
    w.y = w.y - pushes[3];
  }
  fx += w.x;
  fy += w.y;
  if (touching) {
    float ct = ms_tangential_dashpot(two_zeta, kt, si.y);
    for (int side = 0; side < 4; side++) {
      ms_v2 nw;
      nw.x = side == 0 ? -1.0f : side == 1 ? 1.0f : 0.0f;
      nw.y = side == 2 ? -1.0f : side == 3 ? 1.0f : 0.0f;
#ifdef MS_DIAG
      float old = wx[side];
#endif
      wx[side] = gap[side] < r ? wall_friction(nw, pushes[side], vx, vy, wi, r, ii, kt, ct,
                                               mu_wall, mu_r, dt, wx[side], &fx, &fy, &tq)
                               : 0.0f;
#ifdef MS_DIAG
      lost += gap[side] < r ? wall_lost(nw, pushes[side], vx, vy, wi, r, ii, kt, ct, mu_wall,
                                        mu_r, dt, old, wx[side])
                            : ms_spring_energy(kt, old);
#endif
    }
  } else {
    for (int side = 0; side < 4; side++) {
#ifdef MS_DIAG
      lost += ms_spring_energy(kt, wx[side]);
#endif
      wx[side] = 0.0f;
    }
  }
  f_out[i] = (float2)(fx, fy);
  t_out[i] = tq;
#ifdef MS_DIAG
  lost += (double)ms_walls_dissipation(xi.x, xi.y, vx, vy, r, box.x, box.y, box.z, box.w, k, two_zeta, si.y) *
          (double)dt;
  diss[i] += lost;
#endif
}
