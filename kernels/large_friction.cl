/* The friction variants of kernels/large.cl (issue 12, docs/friction.md): the device-only
 * path (large_on = device) with tangential friction, contact history, rolling resistance
 * and the large particles' rotation, enqueued only when the scene has friction.
 *
 * Every sum is the CPU worker's (src/collision/worker/worker_friction.c), term for term, in the
 * order large.cl already follows, so the state is the same bit for bit. The histories
 * are kept per large particle as the worker keeps its large-small ones: a list of
 * (partner, xi) sorted by partner, read from the previous iteration's list by binary
 * search and written anew (double buffered; the host swaps them). Large-large keeps one
 * list per particle too: both members of a pair compute the same pair with the same
 * roles (the sweep's), so their two copies of xi are the same bits. A list has room for
 * every candidate its owner walks (collision/device_only/device_friction.c sizes it), so nothing is
 * ever dropped. Uses ms_large_rect and ms_ll_walk of large.cl, which comes before this
 * file. */
#pragma OPENCL FP_CONTRACT OFF

#include "shared/contact.h"
#include "shared/grid.h"

/* The flags' slot for a history list that needed more room than it has (the host sizes
 * the lists so that this never happens; collision/device_only/device_large.c reports it if it does). */
#define MS_LFLAG_HISTORY 3

/* One disc of a pair: spin, radius, inertia (0: static, infinite). */
typedef struct ms_fdisc {
  float w, r, inertia;
} ms_fdisc;

/* What a pair adds: the total force on i, the torques on i and j, the new xi. */
typedef struct ms_fpair {
  ms_v2 f;
  float ti, tj, xi;
#ifdef MS_DIAG /* --diagnostics: the pair's normal dashpot power, its slip work this step */
  float cdiss;
  double slip;
#endif
} ms_fpair;

/* The friction constants: kt, mu, mu_r, mu_wall in fr; dt as the worker's float. */
static ms_fpair ms_pair_friction(ms_normal c, float dvx, float dvy, ms_fdisc i, ms_fdisc j,
                                 float m_eff, float xi, float two_zeta, float4 fr, float dt)
{
  float u = ms_slip_velocity(c.n, dvx, dvy, i.w, i.r, j.w, j.r);
  float ct = ms_tangential_dashpot(two_zeta, fr.x, m_eff);
  ms_tangential t = ms_tangential_law(c.n, i.r, j.r, u, xi, c.fn, fr.x, ct, fr.y, dt);
  float i_eff = i.inertia == 0.0f   ? j.inertia
                : j.inertia == 0.0f ? i.inertia
                                    : ms_rolling_inertia(i.inertia, j.inertia);
  float m = ms_rolling_torque(i.w - j.w, c.fn, fr.z, ms_rolling_radius(i.r, j.r), i_eff, dt);
  ms_fpair o;
  o.f.x = c.f.x + t.f.x;
  o.f.y = c.f.y + t.f.y;
  o.ti = t.torque_i + m;
  o.tj = t.torque_j - m;
  o.xi = t.xi;
#ifdef MS_DIAG /* as worker_friction.c's pair_friction (its caller adds the dashpot's) */
  o.cdiss = 0.0f;
  o.slip = ms_slip_work(t.ft, u, m, i.w - j.w, dt);
#endif
  return o;
}

static ms_fdisc ms_large_fdisc(float2 shape, int stat, double2 rot)
{
  ms_fdisc d;
  d.w = 0.0f;
  d.r = shape.x;
  d.inertia = 0.0f;
  if (!stat) {
    d.w = (float)rot.y;
    d.inertia = ms_disc_inertia(shape.y, shape.x);
  }
  return d;
}

/* xi of partner j in a list sorted by partner (0 when it is not there: a new contact). */
static float ms_list_find(__global const int *key, __global const float *xi, int n, int j)
{
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int k = key[mid];
    if (k == j)
      return xi[mid];
    if (k < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0.0f;
}

/* Insertion sort of a new list by partner (partners are distinct: one order). */
static void ms_list_sort(__global int *key, __global float *xi, int n)
{
  for (int a = 1; a < n; a++) {
    int k = key[a];
    float x = xi[a];
    int b = a - 1;
    while (b >= 0 && key[b] > k) {
      key[b + 1] = key[b];
      xi[b + 1] = xi[b];
      b--;
    }
    key[b + 1] = k;
    xi[b + 1] = x;
  }
}

/* The contact of large particle L (state lx, lv, shape ls, static st, disc dl) with small
 * particle j, as ms_fr_large_small_pair computes it (the small one is i, L is j).
 * Returns 0 when they do not touch. */
static int ms_ls_friction(double2 lx, double2 lv, float2 ls, int st, ms_fdisc dl, double2 xj,
                          double2 vj, float2 sj, double2 rj, float r_small_max, float k,
                          float two_zeta, float4 fr, float dt, float xi, ms_fpair *o)
{
  float dx = (float)ms_image(lx.x - xj.x, MS_PERIOD_X);
  float dy = (float)ms_image(lx.y - xj.y, MS_PERIOD_Y);
  if (!ms_touching(dx, dy, ls.x + r_small_max))
    return 0;
  if (!ms_touching(dx, dy, ls.x + sj.x))
    return 0;
  float m_eff = st ? sj.y : ms_pair_mass(ls.y, sj.y);
  float dvx = (float)(vj.x - lv.x), dvy = (float)(vj.y - lv.y);
  ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, ls.x + sj.x, k, two_zeta, m_eff);
  ms_fdisc small;
  small.w = (float)rj.y;
  small.r = sj.x;
  small.inertia = ms_disc_inertia(sj.y, sj.x);
  *o = ms_pair_friction(c, dvx, dvy, small, dl, m_eff, xi, two_zeta, fr, dt);
#ifdef MS_DIAG /* the pair seen from the small one, as ms_fr_large_small_pair books it */
  o->cdiss = ms_contact_dissipation(dx, dy, dvx, dvy, small.r + dl.r, k, two_zeta, m_eff);
#endif
  return 1;
}

#ifdef MS_DIAG
/* --diagnostics: the energy 1/2 k_t xi^2 the n springs of a list hold, summed in the
 * list's order as the worker sums them (ms_fr_ls_spring, wall_spring). */
static double ms_list_spring(float kt, __global const float *xi, int n)
{
  double e = 0.0;
  for (int a = 0; a < n; a++)
    e += ms_spring_energy(kt, xi[a]);
  return e;
}
#endif

/* One work-item per large particle: its reaction and torque from the small particles
 * under it (cells and slots in the worker's order), and its new large-small list. */
__kernel void ms_large_small_react_fric(
    __global const double2 *lpos, __global const double2 *lvel, __global const float2 *lshape,
    __global const int *lstat, __global const double2 *lrot, int n_large,
    __global const double2 *pos, __global const double2 *vel, __global const float2 *shape,
    __global const double2 *rot, __global const int *count, __global const int *idx, int cap,
    double inv_cell, int nx, int ny, float r_small_max, float k, float two_zeta, float4 fr,
    float dt, int kls, __global const int *ls_n, __global const int *ls_j,
    __global const float *ls_xi, __global int *new_n, __global int *new_j,
    __global float *new_xi, __global float2 *lf, __global float *lt, __global int *lflags
#ifdef MS_DIAG
    , __global double *diss, int diss_off, double dt_d
#endif
    )
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  double2 lx = lpos[i], lv = lvel[i];
  float2 ls = lshape[i];
  int st = lstat[i];
  ms_fdisc dl = ms_large_fdisc(ls, st, lrot[i]);
  size_t base = (size_t)i * (size_t)kls;
  int n_old = ls_n[i], n_new = 0;
  float fx = 0.0f, fy = 0.0f, tq = 0.0f;
#ifdef MS_DIAG /* what L's springs held, to take off what they store (large_small_chunk) */
  double acc = diss[diss_off + i], held = ms_list_spring(fr.x, ls_xi + base, n_old);
#endif
  ms_cell_rect q = ms_large_rect(lx, ls.x, r_small_max, 0.0, inv_cell, nx, ny);
  if (ls.y == 0.0f) /* an empty slot: no contacts, an empty new list */
    q.y1 = q.y0 - 1;
  for (int cy = q.y0; cy <= q.y1; cy++) {
    for (int cx = q.x0; cx <= q.x1; cx++) {
      int cell = ms_large_cell(cx, cy, nx, ny);
      int n = min(count[cell], cap);
      for (int s = 0; s < n; s++) {
        int j = idx[ms_grid_slot(cell, cap, s)];
        ms_fpair o;
        float xi = ms_list_find(ls_j + base, ls_xi + base, n_old, j);
        if (!ms_ls_friction(lx, lv, ls, st, dl, pos[j], vel[j], shape[j], rot[j], r_small_max,
                            k, two_zeta, fr, dt, xi, &o))
          continue;
        fx -= o.f.x;
        fy -= o.f.y;
        tq += o.tj;
#ifdef MS_DIAG /* the whole pair's to L, as the worker books it (the apply kernel: none) */
        acc += (double)o.cdiss * dt_d + o.slip;
#endif
        if (n_new < kls) {
          new_j[base + n_new] = j;
          new_xi[base + n_new] = o.xi;
        }
        n_new++;
      }
    }
  }
  if (n_new > kls) /* cannot happen (the list has room for every candidate): reported */
    atomic_max(&lflags[MS_LFLAG_HISTORY], n_new);
  n_new = min(n_new, kls);
  ms_list_sort(new_j + base, new_xi + base, n_new);
#ifdef MS_DIAG /* opened contacts give up what they held */
  acc -= ms_list_spring(fr.x, new_xi + base, n_new) - held;
  diss[diss_off + i] = acc;
#endif
  new_n[i] = n_new;
  lf[i] = (float2)(fx, fy);
  lt[i] = tq;
}

/* One work-item per small particle: F_ls and t_ls from its large partners in ascending
 * large index, each contact's xi from L's previous list (the react kernel computes the
 * same contact from L's side, the same bits). */
__kernel void ms_large_small_apply_fric(
    __global const double2 *pos, __global const double2 *vel, __global const float2 *shape,
    __global const double2 *rot, int n_small, double inv_cell, int nx, int ny,
    __global const int *lcount, __global const int *lidx, int lcap,
    __global const double2 *lpos, __global const double2 *lvel, __global const float2 *lshape,
    __global const int *lstat, __global const double2 *lrot, float r_small_max, float k,
    float two_zeta, float4 fr, float dt, int kls, __global const int *ls_n,
    __global const int *ls_j, __global const float *ls_xi, __global float2 *f_ls,
    __global float *t_ls)
{
  int j = get_global_id(0);
  if (j >= n_small)
    return;
  double2 xj = pos[j], vj = vel[j], rj = rot[j];
  float2 sj = shape[j];
  int cell = ms_grid_axis(xj.y, inv_cell, ny) * nx + ms_grid_axis(xj.x, inv_cell, nx);
  int n = min(lcount[cell], lcap);
  float fx = 0.0f, fy = 0.0f, tq = 0.0f; /* F_ls and t_ls are zero between iterations */
  for (int a = 0; a < n; a++) {
    int L = lidx[ms_grid_slot(cell, lcap, a)];
    float2 ls = lshape[L];
    int st = lstat[L];
    size_t base = (size_t)L * (size_t)kls;
    float xi = ms_list_find(ls_j + base, ls_xi + base, ls_n[L], j);
    ms_fpair o;
    if (!ms_ls_friction(lpos[L], lvel[L], ls, st, ms_large_fdisc(ls, st, lrot[L]), xj, vj, sj,
                        rj, r_small_max, k, two_zeta, fr, dt, xi, &o))
      continue;
    fx += o.f.x;
    fy += o.f.y;
    tq += o.ti;
  }
  f_ls[j] = (float2)(fx, fy);
  t_ls[j] = tq;
}

/* Large-large as ms_large_large walks it (partners in sweep order), with the pair's
 * friction computed in the sweep's roles (A before B, as ms_fr_large_large_pair), X's
 * torque, and X's new list of (partner, xi). */
__kernel void ms_large_large_fric(
    __global const double2 *lpos, __global const double2 *lvel, __global const float2 *lshape,
    __global const int *lstat, __global const double2 *lrot, int n_large,
    __global const int *chead, __global const int *cnext, double2 cinv, int cnx, int cny,
    float k, float two_zeta, float4 fr, float dt, int kll, __global const int *ll_n,
    __global const int *ll_p, __global const float *ll_xi,
    __global int *new_n, __global int *new_p, __global float *new_xi, __global float2 *lf,
    __global float *lt, __global int *lflags
#ifdef MS_DIAG
    , __global double *diss, int diss_off, double dt_d
#endif
    )
{
  int x = get_global_id(0);
  if (x >= n_large)
    return;
  double2 px = lpos[x];
  float rx = lshape[x].x;
#ifdef MS_DIAG
  double acc = diss[diss_off + x];
#endif
  double ex = px.x - rx;
  float2 fsum = lf[x];
  float tq = lt[x];
  size_t base = (size_t)x * (size_t)kll;
  int n_old = ll_n[x], n_new = 0;
  ms_ll_walk wk = {chead, cnext, cinv, cnx, cny}; /* nothing held */
  if (lshape[x].y != 0.0f) /* an empty slot: no pairs, an empty new list */
    ms_ll_gather(&wk, lpos, lshape, lstat, x, -1, 0.0);
  for (;;) {
    double best_e;
    int best = ms_ll_next(&wk, lpos, lshape, lstat, x, &best_e);
    if (best < 0)
      break;
    int before = best_e < ex || (best_e == ex && best < x);
    int a = before ? best : x, b = before ? x : best;
    double2 pa = lpos[a], pb = lpos[b];
    float2 sa = lshape[a], sb = lshape[b];
    if (!ms_sweep_pair(pa.x - sa.x, pa.x + sa.x, pb.x - sb.x, MS_PERIOD_X, MS_R_LARGE_MAX))
      continue;
    int sta = lstat[a], stb = lstat[b];
    if (sta && stb)
      continue;
    float dx = (float)ms_image(pb.x - pa.x, MS_PERIOD_X);
    float dy = (float)ms_image(pb.y - pa.y, MS_PERIOD_Y), rs = sa.x + sb.x;
    if (dx * dx + dy * dy >= rs * rs || !ms_touching(dx, dy, rs))
      continue;
    float m_eff = sta ? sb.y : stb ? sa.y : ms_pair_mass(sa.y, sb.y);
    double2 va = lvel[a], vb = lvel[b];
    float dvx = (float)(va.x - vb.x), dvy = (float)(va.y - vb.y);
    ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, rs, k, two_zeta, m_eff);
    float xi = ms_list_find(ll_p + base, ll_xi + base, n_old, best);
    ms_fpair o = ms_pair_friction(c, dvx, dvy, ms_large_fdisc(sa, sta, lrot[a]),
                                  ms_large_fdisc(sb, stb, lrot[b]), m_eff, xi, two_zeta, fr, dt);
#ifdef MS_DIAG /* half of the pair's to each side, as ms_fr_apply_large_large books it */
    acc += 0.5 * ((double)ms_contact_dissipation(dx, dy, dvx, dvy, rs, k, two_zeta, m_eff) * dt_d +
                  o.slip);
#endif
    if (before) {
      fsum.x -= o.f.x;
      fsum.y -= o.f.y;
      tq += o.tj;
    } else {
      fsum.x += o.f.x;
      fsum.y += o.f.y;
      tq += o.ti;
    }
    if (n_new < kll) {
      new_p[base + n_new] = best;
      new_xi[base + n_new] = o.xi;
    }
    n_new++;
  }
  if (n_new > kll)
    atomic_max(&lflags[MS_LFLAG_HISTORY], n_new);
  n_new = min(n_new, kll);
  ms_list_sort(new_p + base, new_xi + base, n_new);
  new_n[x] = n_new;
  lf[x] = fsum;
#ifdef MS_DIAG /* the springs' share: ms_large_walls_fric, over every pair at once */
  diss[diss_off + x] = acc;
#endif
  lt[x] = tq;
}

/* One wall of ms_fr_walls: n towards it, its push, the disc's xi against it. */
static void ms_wall_fric(ms_v2 n, float push, int touching, float vx, float vy, float w,
                         float2 s, float k_t, float two_zeta, float mu_wall, float mu_r,
                         float dt, float2 *f, float *tq, __global float *xi)
{
  if (!touching) {
    *xi = 0.0f;
    return;
  }
  float inertia = ms_disc_inertia(s.y, s.x);
  float u = ms_wall_slip_velocity(n, vx, vy, w, s.x);
  float ct = ms_tangential_dashpot(two_zeta, k_t, s.y);
  ms_tangential t = ms_wall_tangential_law(n, s.x, u, *xi, push, k_t, ct, mu_wall, dt);
  float m = ms_rolling_torque(w, push, mu_r, s.x, inertia, dt);
  f->x += t.f.x;
  f->y += t.f.y;
  *tq += t.torque_i + m;
  *xi = t.xi;
}

#ifdef MS_DIAG
/* --diagnostics: the slip work of one touching wall of ms_wall_fric, computed again from
 * the disc's xi before the step (the same arguments, the same bits; worker_friction.c's
 * wall_friction books the same). */
static double ms_wall_slip(ms_v2 n, float push, float vx, float vy, float w, float2 s,
                           float k_t, float two_zeta, float mu_wall, float mu_r, float dt,
                           float xi)
{
  float inertia = ms_disc_inertia(s.y, s.x);
  float u = ms_wall_slip_velocity(n, vx, vy, w, s.x);
  float ct = ms_tangential_dashpot(two_zeta, k_t, s.y);
  ms_tangential t = ms_wall_tangential_law(n, s.x, u, xi, push, k_t, ct, mu_wall, dt);
  float m = ms_rolling_torque(w, push, mu_r, s.x, inertia, dt);
  return ms_slip_work(t.ft, u, m, w, dt);
}

/* --diagnostics: the energy the large-large springs hold, each pair once, from its lower
 * member's list: in (a, b) order, the order of the worker's ll_spring. */
static double ms_ll_spring(float kt, int n_large, int kll, __global const int *n,
                           __global const int *p, __global const float *xi)
{
  double e = 0.0;
  for (int x = 0; x < n_large; x++) {
    size_t base = (size_t)x * (size_t)kll;
    for (int a = 0; a < n[x]; a++)
      if (p[base + a] > x)
        e += ms_spring_energy(kt, xi[base + a]);
  }
  return e;
}
#endif

/* ---- Walls of any shape with friction (docs/walls.md) --------------------------------
 * A disc's wall histories are one list per particle of (key, xi), key = wall << 20 |
 * feature, sorted by key: the worker's lists (per wall of (particle, feature), per large
 * particle of (wall, feature)) regrouped, the same entries in the same order for each
 * (wall, particle). The host sizes a list for every contact a disc can have, at most
 * MS_DW_HITS (collision/device_only/device_friction.c). */
#define MS_DW_KEY(w, feature) (((w) << 20) | (feature))
#define MS_DW_HITS 16

static int ms_dw_touched(const int *now, int n, int feature)
{
  for (int a = 0; a < n; a++)
    if (now[a] == feature)
      return 1;
  return 0;
}

/* The worker's xi_find for wall w: the same feature's xi; else a neighbouring feature's
 * that no contact of this step has; else 0. Each old entry is taken once (*taken: a bit per
 * entry of the disc's list, at most 32). */
static float ms_dw_xi_find(__global const int *key, __global const float *xi, int n, int w,
                           int feature, const ms_dwall *d, const int *now, int n_now,
                           uint *taken)
{
  int want = MS_DW_KEY(w, feature);
  for (int a = 0; a < n; a++)
    if (key[a] == want && !(*taken & (1u << a))) {
      *taken |= 1u << a;
      return xi[a];
    }
  if (d->kind == MS_DW_CIRCLE)
    return 0.0f;
  for (int a = 0; a < n; a++) {
    int f = key[a] & 0xFFFFF;
    if ((key[a] >> 20) == w && !(*taken & (1u << a)) &&
        ms_wall_features_adjacent(f, feature, d->n, d->closed) && !ms_dw_touched(now, n_now, f)) {
      *taken |= 1u << a;
      return xi[a];
    }
  }
  return 0.0f;
}

/* One disc (centre p, velocity v, spin w, radius r, mass m) against every wall in order,
 * each wall's contacts in segment order, with histories: the force and torque added to
 * *f and *tq, the new list written. Returns the entries the new list needed. */
static int ms_dw_disc(__global const double *wd, int n_walls, double2 centre, float vx, float vy,
                      float w, float r, float m, float k, float kt, float mu_r, float dt,
                      __global const int *old_key, __global const float *old_xi, int n_old,
                      __global int *new_key, __global float *new_xi, int kw, float2 *f,
                      float *tq, __global int *lflags, const ms_dw_records *rec, size_t rbase,
                      int *n_rec, double *lost, uint *taken_out)
{
  int n_new = 0, e = 0;
  uint taken = 0;
  for (int wi = 0; wi < n_walls; wi++) {
    ms_dwall d = ms_dwall_load(wd, wi);
    double2 q = ms_dwall_reference(&d, wd), p = ms_dwall_image(&d, centre);
    int now[MS_DW_HITS], n_now = 0, seg = 0, feature;
    ms_wall_hit hit;
    while (ms_dwall_next_hit(&d, wd, p.x, p.y, r, &seg, &hit, &feature)) {
      if (n_now < MS_DW_HITS)
        now[n_now] = feature;
      n_now++;
    }
    if (n_now > MS_DW_HITS) { /* more contacts with one wall than the kernel keeps: refused */
      atomic_max(&lflags[MS_LFLAG_HISTORY], n_now);
      n_now = MS_DW_HITS;
    }
    seg = 0;
    while (ms_dwall_next_hit(&d, wd, p.x, p.y, r, &seg, &hit, &feature)) {
      float xi = ms_dw_xi_find(old_key, old_xi, n_old, wi, feature, &d, now, n_now, &taken);
      ms_dw_motion mv;
      ms_wall_force c = ms_dwall_contact(&d, p.x, p.y, vx, vy, w, r, m, &hit, xi, k, kt, mu_r,
                                         dt, 1, &mv);
      f->x += c.f.x;
      f->y += c.f.y;
      *tq += c.torque;
      double2 lw = ms_dw_energy(&c, &mv, kt, xi, w, dt);
      *lost += lw.x; /* the large particle's loss, contact by contact (the small's: unused) */
      e = ms_dw_record(rec, rbase, e, wi, q, p.x, p.y, r, &hit, &c, lw);
      if (n_new < kw) {
        new_key[n_new] = MS_DW_KEY(wi, feature);
        new_xi[n_new] = c.xi;
      }
      n_new++;
    }
  }
  if (n_new > kw) /* the host sizes the lists for every contact: reported if not */
    atomic_max(&lflags[MS_LFLAG_HISTORY], n_new);
  *n_rec = e;
  *taken_out = taken;
  ms_list_sort(new_key, new_xi, min(n_new, kw));
  return min(n_new, kw);
}

/* One work-item per small particle, after ms_large_small_apply_fric: its wall contacts
 * added to F_ls and t_ls after the large particles' terms, as the worker adds them. */
__kernel void ms_walls_small_apply_fric(
    __global const double2 *pos, __global const double2 *vel, __global const float2 *shape,
    __global const double2 *rot, int n_small, __global const double *wd, int n_walls, float k,
    float kt, float mu_r, float dt, int kw, __global const int *ws_n,
    __global const int *ws_key, __global const float *ws_xi, __global int *new_n,
    __global int *new_key, __global float *new_xi, __global float2 *f_ls, __global float *t_ls,
    __global int *lflags, int kr, int record, __global int *rec_n, __global int *rec_key,
    __global float2 *rec_f, __global double *rec_t
#ifdef MS_DIAG
    , __global double2 *rec_lw, __global uint *taken
#endif
    )
{
  int j = get_global_id(0);
  if (j >= n_small)
    return;
  double2 xj = pos[j], vj = vel[j];
  float2 sj = shape[j];
  size_t base = (size_t)j * (size_t)kw;
  float2 f = f_ls[j];
  float tq = t_ls[j];
#ifndef MS_DIAG
  __global double2 *rec_lw = 0;
#endif
  ms_dw_records rec = {rec_key, rec_f, rec_t, rec_lw, kr, record};
  int e;
  double lost = 0.0;
  uint took;
  new_n[j] = ms_dw_disc(wd, n_walls, xj, (float)vj.x, (float)vj.y, (float)rot[j].y, sj.x, sj.y,
                        k, kt, mu_r, dt, ws_key + base, ws_xi + base, ws_n[j], new_key + base,
                        new_xi + base, kw, &f, &tq, lflags, &rec, (size_t)j * (size_t)kr, &e,
                        &lost, &took);
  f_ls[j] = f;
  t_ls[j] = tq;
  ms_dw_records_end(&rec, rec_n, j, e, lflags);
#ifdef MS_DIAG /* which of its old histories a contact took: the rest ended (walls.cl) */
  taken[j] = took;
#endif
}

/* The walls with friction, as ms_fr_walls: the normal pushes summed as ms_walls_force
 * sums them, then each touching side's tangential law and rolling torque. */
__kernel void ms_large_walls_fric(__global const double2 *lpos, __global const double2 *lvel,
                                  __global const float2 *lshape, __global const int *lstat,
                                  __global const double2 *lrot, int n_large, double4 box,
                                  float k, float two_zeta, float4 fr, float dt,
                                  __global float *wall_xi, __global float2 *lf,
                                  __global float *lt, __global const double *wd, int n_walls,
                                  int kw, __global const int *wl_n, __global const int *wl_key,
                                  __global const float *wl_xi, __global int *wnew_n,
                                  __global int *wnew_key, __global float *wnew_xi,
                                  __global int *lflags, int kr, int record,
                                  __global int *rec_n, __global int *rec_key,
                                  __global float2 *rec_f, __global double *rec_t
#ifdef MS_DIAG
                                  , __global double *diss, int diss_off, double dt_d, int kll,
                                  __global const int *ll_n, __global const int *ll_p,
                                  __global const float *ll_xi, __global const int *new_n,
                                  __global const int *new_p, __global const float *new_xi,
                                  __global double2 *rec_lw
#endif
                                  )
{
  int i = get_global_id(0);
#ifdef MS_DIAG
  /* What the large-large springs took or gave back, opened contacts' included, into the
   * slot after the large particles' (one sum, as the worker's diss_worker: the large-large
   * kernel, which wrote the new lists, is complete) */
  if (i == 0)
    diss[diss_off + n_large] -= ms_ll_spring(fr.x, n_large, kll, new_n, new_p, new_xi) -
                                ms_ll_spring(fr.x, n_large, kll, ll_n, ll_p, ll_xi);
#endif
  if (i >= n_large)
    return;
  size_t wbase = (size_t)i * (size_t)kw;
  if (lstat[i]) { /* the worker leaves a static particle's wall list as it is */
    for (int a = 0; a < wl_n[i]; a++) {
      wnew_key[wbase + a] = wl_key[wbase + a];
      wnew_xi[wbase + a] = wl_xi[wbase + a];
    }
    wnew_n[i] = wl_n[i];
    return;
  }
  double2 p = lpos[i], v = lvel[i];
  float2 s = lshape[i];
  __global float *xi = wall_xi + 4 * (size_t)i;
  float r = s.x, vx = (float)v.x, vy = (float)v.y, w = (float)lrot[i].y;
  float2 f = lf[i];
  float tq = lt[i];
  /* the walls of any shape first, as walls_chunk calls ms_walls_large before ms_fr_walls */
#ifndef MS_DIAG
  __global double2 *rec_lw = 0;
#endif
  ms_dw_records rec = {rec_key, rec_f, rec_t, rec_lw, kr, record};
  int e;
  uint took;
#ifdef MS_DIAG
  double lost = diss[diss_off + i]; /* each wall contact's loss, as the worker adds it */
#else
  double lost = 0.0;
#endif
  wnew_n[i] = ms_dw_disc(wd, n_walls, p, vx, vy, w, r, s.y, k, fr.x, fr.z, dt, wl_key + wbase,
                        wl_xi + wbase, wl_n[i], wnew_key + wbase, wnew_xi + wbase, kw, &f, &tq,
                        lflags, &rec, (size_t)i * (size_t)kr, &e, &lost, &took);
  ms_dw_records_end(&rec, rec_n, i, e, lflags);
#ifdef MS_DIAG /* then what its ended wall contacts stored, as the worker's dropped() */
  {
    double ended = 0.0;
    for (int a = 0; a < wl_n[i]; a++)
      if (!(took & (1u << a)))
        ended += ms_spring_energy(fr.x, wl_xi[wbase + a]);
    diss[diss_off + i] = lost + ended;
  }
#endif
  MS_BOX_GAPS(p.x, p.y, box.x, box.y, box.z, box.w);
#ifdef MS_DIAG /* as ms_fr_walls: what the four springs held, and their xi before the step */
  double held = ms_list_spring(fr.x, xi, 4);
  float xo[4] = {xi[0], xi[1], xi[2], xi[3]};
#endif
  if (gl >= r && gr >= r && gb >= r && gt >= r) {
    xi[0] = xi[1] = xi[2] = xi[3] = 0.0f;
#ifdef MS_DIAG /* clear of the walls: the springs give up what they held */
    diss[diss_off + i] += held;
#endif
    lf[i] = f;
    lt[i] = tq;
    return;
  }
  float c = ms_dashpot(two_zeta, k, s.y);
  float pl = ms_wall_push(gl, -vx, r, k, c), pr = ms_wall_push(gr, vx, r, k, c);
  float pb = ms_wall_push(gb, -vy, r, k, c), pt = ms_wall_push(gt, vy, r, k, c);
  float fx = pl, fy = pb;
  fx = fx - pr;
  fy = fy - pt;
  f.x += fx;
  f.y += fy;
  ms_v2 nl = {-1.0f, 0.0f}, nr = {1.0f, 0.0f}, nb = {0.0f, -1.0f}, nt = {0.0f, 1.0f};
  ms_wall_fric(nl, pl, gl < r, vx, vy, w, s, fr.x, two_zeta, fr.w, fr.z, dt, &f, &tq, xi);
  ms_wall_fric(nr, pr, gr < r, vx, vy, w, s, fr.x, two_zeta, fr.w, fr.z, dt, &f, &tq, xi + 1);
  ms_wall_fric(nb, pb, gb < r, vx, vy, w, s, fr.x, two_zeta, fr.w, fr.z, dt, &f, &tq, xi + 2);
  ms_wall_fric(nt, pt, gt < r, vx, vy, w, s, fr.x, two_zeta, fr.w, fr.z, dt, &f, &tq, xi + 3);
#ifdef MS_DIAG /* each touching side's slip work, then the dashpots' less what the springs stored */
  {
    double acc = diss[diss_off + i];
    ms_v2 nd[4] = {nl, nr, nb, nt};
    float pd[4] = {pl, pr, pb, pt};
    int touching[4] = {gl < r, gr < r, gb < r, gt < r};
    for (int side = 0; side < 4; side++)
      if (touching[side])
        acc += ms_wall_slip(nd[side], pd[side], vx, vy, w, s, fr.x, two_zeta, fr.w, fr.z, dt,
                            xo[side]);
    acc += (double)ms_walls_dissipation(p.x, p.y, vx, vy, r, box.x, box.y, box.z, box.w, k, two_zeta, s.y) *
               dt_d -
           (ms_list_spring(fr.x, xi, 4) - held);
    diss[diss_off + i] = acc;
  }
#endif
  lf[i] = f;
  lt[i] = tq;
}

/* ms_integrate_large with the rotation step after the translation, as the worker's
 * integrate_chunk: the previous (theta, w) kept too, the spin checked with the state. */
__kernel void ms_integrate_large_fric(__global double2 *lpos, __global double2 *lvel,
                                      __global const float2 *lshape, __global const int *lstat,
                                      __global const float2 *lf, int n_large, double gx,
                                      double gy, double dt, double max_speed2,
                                      __global double2 *prev_pos, __global double2 *prev_vel,
                                      __global int *lflags, __global double2 *lrot,
                                      __global double2 *prev_rot, __global const float *lt,
                                      __global int2 *limg, __global int2 *prev_img)
{
  int i = get_global_id(0);
  if (i >= n_large)
    return;
  double2 p = lpos[i], v = lvel[i], ro = lrot[i];
  prev_pos[i] = p;
  prev_vel[i] = v;
  prev_rot[i] = ro;
  prev_img[i] = limg[i];
  if (lstat[i])
    return;
  float2 f = lf[i], s = lshape[i];
  double x = p.x, y = p.y, vx = v.x, vy = v.y, theta = ro.x, w = ro.y;
  ms_integrate(&x, &y, &vx, &vy, f.x, f.y, s.y, gx, gy, dt);
  ms_integrate_rotation(&theta, &w, lt[i], ms_disc_inertia(s.y, s.x), dt);
  ms_large_wrap(&x, &y, &limg[i]);
  lpos[i] = (double2)(x, y);
  lvel[i] = (double2)(vx, vy);
  lrot[i] = (double2)(theta, w);
  int finite = isfinite(x) && isfinite(y) && isfinite(vx) && isfinite(vy) && isfinite(w);
  if (!finite || (max_speed2 > 0.0 && !(vx * vx + vy * vy <= max_speed2)))
    atomic_min(&lflags[MS_LFLAG_FIRST_FAIL], i);
}
