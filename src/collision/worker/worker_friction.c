/* The CPU worker's frictional contacts (collision/worker/worker_friction.h): the normal law as
 * the frictionless worker computes it, plus the tangential law with history and the
 * rolling torque of kernels/shared/friction.h, in the conventions of docs/friction.md
 * (n from i to j, t = (-n.y, n.x), both torques +r F_t, the rolling torque M on i and -M
 * on j). A static large particle acts with infinite mass and inertia and never spins. */
#include "collision/worker/worker_friction.h"

#include "core/grow.h"

#include <stdlib.h>

#include "shared/contact.h"

ms_status ms_fr_ready(const ms_params *pm, ms_worker *w)
{
  if (!pm->friction_on || w->hist.n_large == pm->n_large)
    return MS_OK;
  return ms_history_init(&w->hist, pm->n_large);
}

/* One disc of a pair: spin, radius, inertia (0: static, infinite). */
typedef struct disc {
  float w, r, inertia;
} disc;

/* What a pair adds: the total force on i, the torques on i and j, the new xi. */
typedef struct pair_out {
  ms_v2 f;
  float ti, tj, xi;
  double lost; /* --diagnostics: the dashpots' and the friction's work (spring storage not
                  taken off: the callers do, over a whole list of histories) */
} pair_out;

static pair_out pair_friction(const ms_params *pm, ms_normal c, float dvx, float dvy, disc i,
                              disc j, float m_eff, float xi, float dx, float dy)
{
  float dt = (float)pm->dt;
  float u = ms_slip_velocity(c.n, dvx, dvy, i.w, i.r, j.w, j.r);
  float ct = ms_tangential_dashpot(pm->two_zeta, pm->kt, m_eff);
  ms_tangential t = ms_tangential_law(c.n, i.r, j.r, u, xi, c.fn, pm->kt, ct, pm->mu, dt);
  float i_eff = i.inertia == 0.0f   ? j.inertia
                : j.inertia == 0.0f ? i.inertia
                                    : ms_rolling_inertia(i.inertia, j.inertia);
  float m = ms_rolling_torque(i.w - j.w, c.fn, pm->mu_r, ms_rolling_radius(i.r, j.r), i_eff, dt);
  pair_out o;
  o.f.x = c.f.x + t.f.x;
  o.f.y = c.f.y + t.f.y;
  o.ti = t.torque_i + m;
  o.tj = t.torque_j - m;
  o.xi = t.xi;
  o.lost = 0.0;
  if (pm->diag)
    o.lost = (double)ms_contact_dissipation(dx, dy, dvx, dvy, i.r + j.r, pm->k, pm->two_zeta,
                                            m_eff) * pm->dt +
             ms_slip_work(t.ft, u, m, i.w - j.w, dt);
  return o;
}

static disc large_disc(const ms_body *B)
{
  disc d = {0.0f, B->r, 0.0f};
  if (!B->is_static) {
    d.w = (float)B->w;
    d.inertia = ms_disc_inertia(B->m, B->r);
  }
  return d;
}

/* Appends one force and torque on a small particle to the chunk's list. */
static int record(ms_worker_chunk *c, size_t at, ms_v2 f, float t)
{
  ms_ls_contact *p = ms_grow(c->ls, c->n_ls, &c->ls_cap, sizeof *p, 256);
  if (!p)
    return 0;
  c->ls = p;
  c->ls[c->n_ls++] = (ms_ls_contact){(int)at, f.x, f.y, t};
  return 1;
}

/* i = the small particle, j = L, as the frictionless worker computes the normal force
 * (on the small one, from L). */
int ms_fr_large_small_pair(const ms_params *pm, const ms_worker *w, int i, ms_body *L, int j,
                           size_t at, const ms_ls_source *src, ms_worker_chunk *out)
{
  const double *xj = &src->pos[(size_t)src->pv * at], *vj = &src->vel[(size_t)src->pv * at];
  float dx = (float)ms_image(L->x - xj[0], pm->period[0]);
  float dy = (float)ms_image(L->y - xj[1], pm->period[1]);
  if (!ms_touching(dx, dy, L->r + pm->r_small_max))
    return 1;
  float rj = pm->shape[2 * j], mj = pm->shape[2 * j + 1];
  if (!ms_touching(dx, dy, L->r + rj))
    return 1;
  float m_eff = L->is_static ? mj : ms_pair_mass(L->m, mj);
  float dvx = (float)(vj[0] - L->vx), dvy = (float)(vj[1] - L->vy);
  ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, L->r + rj, pm->k, pm->two_zeta, m_eff);
  disc small = {(float)src->w[(size_t)src->w_stride * at], rj, ms_disc_inertia(mj, rj)};
  float xi = ms_xi_find(&w->hist.ls_cur[i], j);
  /* the pair seen from the small one: the offset from it to L */
  pair_out o = pair_friction(pm, c, dvx, dvy, small, large_disc(L), m_eff, xi, dx, dy);
  if (!record(out, at, o.f, o.ti) || !ms_xi_push(&w->hist.ls_next[i], j, o.xi))
    return 0;
  L->fx -= o.f.x;
  L->fy -= o.f.y;
  L->torque += o.tj;
  if (pm->diag)
    w->diss_large[L - w->large] += o.lost;
  return 1;
}

/* i = A (ia), j = B (ib), as pair_force of cpu_worker.c computes the force of B on A. */
int ms_fr_large_large_pair(const ms_params *pm, const ms_worker *w, int ia, int ib, ms_ll_pair *p)
{
  const ms_body *A = &w->large[ia], *B = &w->large[ib];
  if ((A->is_static && B->is_static) || ms_body_empty(A) || ms_body_empty(B))
    return 0;
  float dx = (float)ms_image(B->x - A->x, pm->period[0]);
  float dy = (float)ms_image(B->y - A->y, pm->period[1]), rs = A->r + B->r;
  if (!ms_touching(dx, dy, rs))
    return 0;
  float m_eff = A->is_static ? B->m : B->is_static ? A->m : ms_pair_mass(A->m, B->m);
  float dvx = (float)(A->vx - B->vx), dvy = (float)(A->vy - B->vy);
  ms_normal c = ms_contact_normal(dx, dy, dvx, dvy, rs, pm->k, pm->two_zeta, m_eff);
  float xi = ms_xi_pair_find(&w->hist.ll_cur, ia, ib);
  pair_out o = pair_friction(pm, c, dvx, dvy, large_disc(A), large_disc(B), m_eff, xi, dx, dy);
  *p = (ms_ll_pair){ia, ib, o.f.x, o.f.y, o.ti, o.tj, o.xi, o.lost};
  return 1;
}

/* --diagnostics: the energy the tangential springs of a set of histories hold. */
double ms_fr_ls_spring(const ms_params *pm, const ms_worker *w, int i)
{
  double e = 0.0;
  const ms_xi_list *l = &w->hist.ls_cur[i];
  for (int k = 0; k < l->n; k++)
    e += ms_spring_energy(pm->kt, l->e[k].xi);
  return e;
}

static double ll_spring(const ms_params *pm, const ms_worker *w)
{
  double e = 0.0;
  for (size_t k = 0; k < w->hist.ll_cur.n; k++)
    e += ms_spring_energy(pm->kt, w->hist.ll_cur.e[k].xi);
  return e;
}

int ms_fr_apply_large_large(const ms_params *pm, ms_worker *w)
{
  double held = pm->diag ? ll_spring(pm, w) : 0.0;
  ms_history_ll_start(&w->hist);
  for (int t = 0; t < w->cpu_threads; t++) {
    const ms_worker_chunk *ch = &w->chunk[t];
    for (size_t e = 0; e < ch->n_ll; e++) {
      const ms_ll_pair *p = &ch->ll[e];
      ms_body *A = &w->large[p->a], *B = &w->large[p->b];
      A->fx += p->fx;
      A->fy += p->fy;
      B->fx -= p->fx;
      B->fy -= p->fy;
      A->torque += p->ta;
      B->torque += p->tb;
      if (!ms_xi_pair_push(&w->hist.ll_next, p->a, p->b, p->xi))
        return 0;
      if (pm->diag) { /* half of the pair's to each, as the device books its pairs */
        w->diss_large[p->a] += 0.5 * p->lost;
        w->diss_large[p->b] += 0.5 * p->lost;
      }
    }
  }
  ms_history_ll_finish(&w->hist);
  if (pm->diag) /* what the springs took or gave back, opened contacts' included */
    w->diss_worker -= ll_spring(pm, w) - held;
  return 1;
}

/* One wall: n towards it, its push (0 when clear), the disc's xi against it. */
static void wall_friction(const ms_params *pm, ms_worker *w, int i, ms_v2 n, float push,
                          int touching, float *xi)
{
  ms_body *L = &w->large[i];
  if (!touching) {
    *xi = 0.0f;
    return;
  }
  float dt = (float)pm->dt, vx = (float)L->vx, vy = (float)L->vy, spin = (float)L->w;
  float inertia = ms_disc_inertia(L->m, L->r);
  float u = ms_wall_slip_velocity(n, vx, vy, spin, L->r);
  float ct = ms_tangential_dashpot(pm->two_zeta, pm->kt, L->m);
  ms_tangential t = ms_wall_tangential_law(n, L->r, u, *xi, push, pm->kt, ct, pm->mu_wall, dt);
  float m = ms_rolling_torque(spin, push, pm->mu_r, L->r, inertia, dt);
  L->fx += t.f.x;
  L->fy += t.f.y;
  L->torque += t.torque_i + m;
  *xi = t.xi;
  if (pm->diag) /* the springs' part is taken off in ms_fr_walls */
    w->diss_large[i] += ms_slip_work(t.ft, u, m, spin, dt);
}

/* --diagnostics: the energy of a large particle's four wall springs. */
static double wall_spring(const ms_params *pm, const float *xi)
{
  double e = 0.0;
  for (int side = 0; side < 4; side++)
    e += ms_spring_energy(pm->kt, xi[side]);
  return e;
}

void ms_fr_walls(const ms_params *pm, ms_worker *w, int i)
{
  ms_body *L = &w->large[i];
  float *xi = &w->hist.wall_xi[4 * i];
  float r = L->r, vx = (float)L->vx, vy = (float)L->vy;
  double held = pm->diag ? wall_spring(pm, xi) : 0.0;
  MS_BOX_GAPS(L->x, L->y, pm->side[0], pm->side[1], pm->side[2], pm->side[3]);
  if (gl >= r && gr >= r && gb >= r && gt >= r) {
    xi[0] = xi[1] = xi[2] = xi[3] = 0.0f;
    if (pm->diag) /* clear of the walls: the springs give up what they held */
      w->diss_large[i] += held;
    return;
  }
  /* The normal pushes, summed as ms_walls_force sums them. */
  float c = ms_dashpot(pm->two_zeta, pm->k, L->m);
  float pl = ms_wall_push(gl, -vx, r, pm->k, c), pr = ms_wall_push(gr, vx, r, pm->k, c);
  float pb = ms_wall_push(gb, -vy, r, pm->k, c), pt = ms_wall_push(gt, vy, r, pm->k, c);
  float fx = pl, fy = pb;
  fx = fx - pr;
  fy = fy - pt;
  L->fx += fx;
  L->fy += fy;
  wall_friction(pm, w, i, (ms_v2){-1.0f, 0.0f}, pl, gl < r, &xi[0]);
  wall_friction(pm, w, i, (ms_v2){1.0f, 0.0f}, pr, gr < r, &xi[1]);
  wall_friction(pm, w, i, (ms_v2){0.0f, -1.0f}, pb, gb < r, &xi[2]);
  wall_friction(pm, w, i, (ms_v2){0.0f, 1.0f}, pt, gt < r, &xi[3]);
  if (pm->diag)
    w->diss_large[i] += (double)ms_walls_dissipation(L->x, L->y, vx, vy, r, pm->side[0],
                                                     pm->side[1], pm->side[2], pm->side[3],
                                                     pm->k, pm->two_zeta, L->m) *
                            pm->dt -
                        (wall_spring(pm, xi) - held);
}
