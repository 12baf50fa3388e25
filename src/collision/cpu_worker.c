/* Large particles on the CPU worker thread. */
#include "collision/cpu_worker.h"

#include "shared/contact.h"
#include "shared/grid.h"

/* Contacts of one large particle with the small ones in the cells under its extent. */
static void large_small_one(ms_sim *s, ms_body *L)
{
  const ms_buffers *b = &s->buf;
  const ms_grid *g = &s->grid;
  float reach = L->r + s->r_small;
  int x0 = ms_grid_axis(L->x - reach, g->min_x, g->inv_cell, g->nx);
  int x1 = ms_grid_axis(L->x + reach, g->min_x, g->inv_cell, g->nx);
  int y0 = ms_grid_axis(L->y - reach, g->min_y, g->inv_cell, g->ny);
  int y1 = ms_grid_axis(L->y + reach, g->min_y, g->inv_cell, g->ny);
  int cap = (int)b->cap;
  for (int cy = y0; cy <= y1; cy++) {
    for (int cx = x0; cx <= x1; cx++) {
      int cell = cy * g->nx + cx;
      int n = b->h_count[cell] < cap ? b->h_count[cell] : cap;
      for (int k = 0; k < n; k++) {
        int j = b->h_idx[cell * cap + k];
        const float *xj = &b->h_pos[2 * j], *vj = &b->h_vel[2 * j];
        ms_v2 f = ms_contact_force(L->x - xj[0], L->y - xj[1], vj[0] - L->vx, vj[1] - L->vy,
                                   L->r + s->r_small, s->k, L->c_small);
        if (f.x == 0.0f && f.y == 0.0f)
          continue;
        b->h_f_ls[2 * j] += f.x;
        b->h_f_ls[2 * j + 1] += f.y;
        L->fx -= f.x;
        L->fy -= f.y;
      }
    }
  }
}

void ms_cpu_large_small(ms_sim *s)
{
  for (int i = 0; i < s->n_large; i++) {
    s->large[i].fx = 0.0f;
    s->large[i].fy = 0.0f;
  }
  if (s->n_small == 0)
    return;
  for (int i = 0; i < s->n_large; i++)
    large_small_one(s, &s->large[i]);
}

/* Insertion sort by (left edge, index): nearly sorted from the last iteration, and a
 * pure function of the positions, so the contact order is reproducible. */
static void sort_sweep_order(ms_sim *s)
{
  int *o = s->sweep_order;
  const ms_body *B = s->large;
  for (int a = 1; a < s->n_large; a++) {
    int v = o[a];
    float key = B[v].x - B[v].r;
    int b = a - 1;
    while (b >= 0) {
      float kb = B[o[b]].x - B[o[b]].r;
      if (kb < key || (kb == key && o[b] < v))
        break;
      o[b + 1] = o[b];
      b--;
    }
    o[b + 1] = v;
  }
}

static void pair_contact(ms_sim *s, ms_body *A, ms_body *B)
{
  if (A->is_static && B->is_static)
    return;
  float dx = B->x - A->x, dy = B->y - A->y, rs = A->r + B->r;
  if (dx * dx + dy * dy >= rs * rs)
    return;
  double m_eff = ms_effective_mass(A->m, A->is_static, B->m, B->is_static);
  float c = (float)ms_damping_coeff(s->k, s->e, m_eff);
  ms_v2 f = ms_contact_force(dx, dy, A->vx - B->vx, A->vy - B->vy, rs, s->k, c);
  A->fx += f.x;
  A->fy += f.y;
  B->fx -= f.x;
  B->fy -= f.y;
}

void ms_cpu_large_large(ms_sim *s)
{
  sort_sweep_order(s);
  const int *o = s->sweep_order;
  for (int a = 0; a < s->n_large; a++) {
    ms_body *A = &s->large[o[a]];
    float right = A->x + A->r;
    for (int b = a + 1; b < s->n_large; b++) {
      ms_body *B = &s->large[o[b]];
      if (B->x - B->r > right)
        break;
      pair_contact(s, A, B);
    }
  }
  for (int i = 0; i < s->n_large; i++) {
    ms_body *L = &s->large[i];
    if (L->is_static)
      continue;
    ms_v2 w = ms_walls_force(L->x, L->y, L->vx, L->vy, L->r, s->box[0], s->box[1], s->box[2],
                             s->box[3], s->k, L->c_wall);
    L->fx += w.x;
    L->fy += w.y;
  }
}

ms_status ms_cpu_integrate(ms_sim *s, long step)
{
  for (int i = 0; i < s->n_large; i++) {
    ms_body *L = &s->large[i];
    if (L->is_static)
      continue;
    ms_integrate(&L->x, &L->y, &L->vx, &L->vy, L->fx, L->fy, L->m, s->gx, s->gy, s->dt);
    int finite = isfinite(L->x) && isfinite(L->y) && isfinite(L->vx) && isfinite(L->vy);
    if (finite && !(s->max_speed2 > 0.0f && !(L->vx * L->vx + L->vy * L->vy <= s->max_speed2)))
      continue;
    /* Named as the scene names it, so the user finds the section to look at. */
    char name[96];
    ms_large_label(s->large_origin, s->n_large_origin, i, name, sizeof name);
    if (!finite)
      return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s has a non-finite state; "
                                     "dt may be too large", step, name);
    return ms_fail(MS_ERR_NUMERIC, "step %ld: large particle %s moves faster than max_speed = "
                                   "%g m/s: the system is exploding; dt may be too large",
                   step, name, sqrt(s->max_speed2));
  }
  return MS_OK;
}
