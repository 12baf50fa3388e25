/* The CPU worker's walls (collision/worker/walls.h): their pose, bands, contacts with the
 * small and the large particles through kernels/shared/wall.h, their histories and the
 * motion of force-driven walls. */
#include "collision/worker/walls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "shared/friction.h"
#include "shared/grid.h"
#include "shared/wall.h"

ms_status ms_walls_init(const ms_params *pm, ms_worker *w)
{
  if (pm->n_walls == 0)
    return MS_OK;
  w->wall = calloc((size_t)pm->n_walls, sizeof *w->wall);
  if (!w->wall)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", pm->n_walls);
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    if (d->kind == MS_WALL_POLYLINE &&
        (!(w->wall[k].at = malloc((size_t)d->n_points * 2 * sizeof(double))) ||
         !(w->wall[k].shown = malloc((size_t)d->n_points * 2 * sizeof(double)))))
      return ms_fail(MS_ERR_RUNTIME, "out of memory for the points of [%s]", d->section);
  }
  if (pm->friction_on && pm->n_large > 0) {
    w->wall_xi_cur = calloc((size_t)pm->n_large, sizeof *w->wall_xi_cur);
    w->wall_xi_next = calloc((size_t)pm->n_large, sizeof *w->wall_xi_next);
    if (!w->wall_xi_cur || !w->wall_xi_next)
      return ms_fail(MS_ERR_RUNTIME, "out of memory for the wall histories of %d large "
                                     "particles", pm->n_large);
  }
  return MS_OK;
}

void ms_walls_forget_large(ms_worker *w, int i)
{
  if (!w->wall_xi_cur)
    return;
  w->wall_xi_cur[i].n = 0;
  w->wall_xi_next[i].n = 0;
}

void ms_walls_free(const ms_params *pm, ms_worker *w)
{
  for (int k = 0; w->wall && k < pm->n_walls; k++) {
    free(w->wall[k].at);
    free(w->wall[k].shown);
    ms_band_free(&w->wall[k].band);
    free(w->wall[k].small_cur.e);
    free(w->wall[k].small_next.e);
    free(w->wall[k].item_run);
    free(w->wall[k].run);
  }
  free(w->wall);
  w->wall = NULL;
  free(w->wall_rects);
  w->wall_rects = NULL;
  for (int i = 0; w->wall_xi_cur && i < pm->n_large; i++) {
    free(w->wall_xi_cur[i].e);
    free(w->wall_xi_next[i].e);
  }
  free(w->wall_xi_cur);
  free(w->wall_xi_next);
  w->wall_xi_cur = w->wall_xi_next = NULL;
}

/* ---- Where a wall is ------------------------------------------------------------ */

static void pose(const ms_params *pm, const ms_wall_def *d, ms_wall_now *now, long step)
{
  now->t = (double)step * pm->dt;
  if (d->force_driven) {
    now->tx = now->s * d->dir[0];
    now->ty = now->s * d->dir[1];
    now->angle = 0.0;
    now->vtx = now->s_dot * d->dir[0];
    now->vty = now->s_dot * d->dir[1];
  } else {
    ms_wall_pose(&d->motion, now->t, &now->tx, &now->ty, &now->angle);
  }
  now->tx = ms_wall_seam_translation(now->tx, d->seam[0]);
  now->ty = ms_wall_seam_translation(now->ty, d->seam[1]);
  if (d->kind == MS_WALL_CIRCLE) {
    ms_wall_place(&d->motion, now->tx, now->ty, now->angle, d->center[0], d->center[1],
                  &now->center[0], &now->center[1]);
    now->anchor[0] = now->center[0];
    now->anchor[1] = now->center[1];
    return;
  }
  double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
  for (int k = 0; k < d->n_points; k++) {
    double *q = &now->at[2 * k];
    ms_wall_place(&d->motion, now->tx, now->ty, now->angle, d->points[2 * k],
                  d->points[2 * k + 1], &q[0], &q[1]);
    for (int a = 0; a < 2; a++) {
      lo[a] = fmin(lo[a], q[a]);
      hi[a] = fmax(hi[a], q[a]);
    }
  }
  now->anchor[0] = 0.5 * (lo[0] + hi[0]);
  now->anchor[1] = 0.5 * (lo[1] + hi[1]);
}

/* A disc's centre as the wall meets it: its image nearest the wall across a periodic seam. */
static void seam_image(const ms_wall_def *d, const ms_wall_now *now, double *x, double *y)
{
  *x = ms_wall_image(*x, now->anchor[0], d->seam[0]);
  *y = ms_wall_image(*y, now->anchor[1], d->seam[1]);
}

/* The walls' runs as one-row rectangles for the zone, after the large particles' own. */
static ms_status zone_rects(const ms_params *pm, ms_worker *w)
{
  w->n_wall_rects = 0;
  for (int k = 0; k < pm->n_walls; k++) {
    ms_wall_now *now = &w->wall[k];
    now->first_span = pm->n_stepped + (int)w->n_wall_rects;
    for (size_t i = 0; i < now->band.n; i++) {
      int *r = ms_grow(w->wall_rects, w->n_wall_rects, &w->wall_rects_cap, 4 * sizeof *r, 64);
      if (!r)
        return ms_fail(MS_ERR_RUNTIME, "out of memory for the cells along the walls");
      w->wall_rects = r;
      const ms_band_span *s = &now->band.span[i];
      int *q = &w->wall_rects[4 * w->n_wall_rects++];
      q[0] = s->x0;
      q[1] = s->x1;
      q[2] = q[3] = s->y;
    }
  }
  return MS_OK;
}

/* Room for a band's runs' sums and its items' first runs. */
static int band_room(ms_wall_now *now)
{
  size_t n = now->band.n;
  while (now->run_cap < n) {
    ms_wall_run *r = ms_grow(now->run, now->run_cap, &now->run_cap, sizeof *r, 64);
    if (!r)
      return 0;
    now->run = r;
  }
  while (now->items_cap < n + 1) {
    int *r = ms_grow(now->item_run, now->items_cap, &now->items_cap, sizeof *r, 64);
    if (!r)
      return 0;
    now->item_run = r;
  }
  return 1;
}

/* The small particles run k of a wall's band holds in the source. */
static int run_particles(const ms_params *pm, const ms_wall_now *now, size_t k,
                         const ms_ls_source *src)
{
  if (src->span) {
    int r = src->base[now->first_span + (int)k];
    return src->span[2 * r + 1] - src->span[2 * r];
  }
  const ms_band_span *s = &now->band.span[k];
  int n = 0;
  for (int cx = s->x0; cx <= s->x1; cx++) {
    int c = src->count[s->y * pm->grid.nx + cx];
    n += c < src->cap ? c : src->cap;
  }
  return n;
}

/* Each band cut into items of about ITEM_PARTICLES particles, a large particle's share
 * of large-small (a wall's visit, with its contact law for one in five or so, costs about
 * three of a large particle's, which is about 50 visits in the walls' benchmark), so the
 * walls spread over the threads where the particles are (the sums do not depend on the cut:
 * see ms_walls_small_finish). */
#define ITEM_PARTICLES 16
int ms_walls_split(const ms_params *pm, ms_worker *w, const ms_ls_source *src)
{
  w->n_wall_items = 0;
  for (int wi = 0; wi < pm->n_walls; wi++) {
    ms_wall_now *now = &w->wall[wi];
    int n = 0, held = 0;
    for (size_t k = 0; k < now->band.n; k++) {
      if (held == 0)
        now->item_run[n++] = (int)k;
      held += 1 + run_particles(pm, now, k, src); /* an empty run costs a little too */
      if (held >= ITEM_PARTICLES)
        held = 0;
    }
    now->item_run[n] = (int)now->band.n;
    now->n_items = n;
    now->first_item = w->n_wall_items;
    w->n_wall_items += n;
  }
  return w->n_wall_items;
}

ms_status ms_walls_place(const ms_params *pm, ms_worker *w, long step)
{
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    ms_wall_now *now = &w->wall[k];
    double was[5] = {now->center[0], now->center[1], now->tx, now->ty, now->angle};
    int placed = now->placed;
    pose(pm, d, now, step);
    /* A wall whose shape did not move (a drum turning about its centre, a static wall)
     * keeps its band: a polyline's points are a function of its pose alone. */
    int same = placed && (d->kind == MS_WALL_CIRCLE
                              ? was[0] == now->center[0] && was[1] == now->center[1]
                              : was[2] == now->tx && was[3] == now->ty && was[4] == now->angle);
    now->placed = 1;
    now->band_new = !same;
    int ok = same || (d->kind == MS_WALL_CIRCLE
                          ? ms_band_circle(&now->band, now->center[0], now->center[1],
                                           d->radius, (double)pm->r_small_max, &pm->grid, d->seam)
                          : ms_band_polyline(&now->band, now->at, d->n_points, d->closed,
                                             (double)pm->r_small_max, &pm->grid, d->seam));
    if (!ok || !band_room(now))
      return ms_fail(MS_ERR_RUNTIME, "out of memory for the cells along [%s]", d->section);
    now->fx = now->fy = now->torque = 0.0; /* lost and work add up over the run */
    now->contacts = 0;
  }
  return zone_rects(pm, w);
}

/* The wall's velocity at (px, py) and its spin. */
static void wall_velocity(const ms_wall_def *d, const ms_wall_now *now, double px, double py,
                          double *vx, double *vy, float *omega)
{
  if (d->force_driven) {
    *vx = now->vtx;
    *vy = now->vty;
    *omega = 0.0f;
    return;
  }
  ms_wall_velocity_at(&d->motion, now->t, now->tx, now->ty, px, py, vx, vy);
  *omega = (float)d->motion.omega;
}

/* The point the wall's torque is taken about: its rotation centre now when it turns,
 * else its first point (a polyline) or its centre (a circle) now. */
static void reference(const ms_wall_def *d, const ms_wall_now *now, double *qx, double *qy)
{
  if (d->motion.omega != 0.0) {
    *qx = d->motion.cx + now->tx;
    *qy = d->motion.cy + now->ty;
  } else if (d->kind == MS_WALL_CIRCLE) {
    *qx = now->center[0];
    *qy = now->center[1];
  } else {
    *qx = now->at[0];
    *qy = now->at[1];
  }
}

/* The contacts of a disc with a wall, one at a time: *seg is where the search goes on
 * (start at 0); returns 1 with the next contact and its polyline-wide feature id. */
static int next_hit(const ms_wall_def *d, const ms_wall_now *now, double px, double py, float r,
                    int *seg, ms_wall_hit *hit, int *feature)
{
  if (d->kind == MS_WALL_CIRCLE) {
    if ((*seg)++ > 0)
      return 0;
    *feature = 0;
    return ms_circle_contact(px, py, r, now->center[0], now->center[1], d->radius, hit);
  }
  int n = d->n_points, n_seg = ms_polyline_segments(n, d->closed);
  while (*seg < n_seg) {
    int i = (*seg)++;
    ms_wall_segment s = ms_polyline_segment(i, n, d->closed);
    const double *a = &now->at[2 * s.a], *b = &now->at[2 * s.b], *c = &now->at[2 * s.c];
    if (ms_segment_contact(px, py, r, a[0], a[1], b[0], b[1], s.start_free, s.end_free, c[0],
                           c[1], hit)) {
      *feature = ms_polyline_feature(i, hit->feature, n);
      return 1;
    }
  }
  return 0;
}

/* ---- Histories ------------------------------------------------------------------ */

static int xi_push(ms_wall_xi_list *l, int j, int feature, float xi)
{
  ms_wall_xi *e = ms_grow(l->e, (size_t)l->n, &l->cap, sizeof *e, 16);
  if (!e)
    return 0;
  l->e = e;
  l->e[l->n++] = (ms_wall_xi){j, feature, xi};
  return 1;
}

static int by_key(const void *pa, const void *pb)
{
  const ms_wall_xi *a = pa, *b = pb;
  if (a->j != b->j)
    return a->j < b->j ? -1 : 1;
  return (a->feature > b->feature) - (a->feature < b->feature);
}

/* --diagnostics: the spring energy of the contacts that ended (no contact took their slot),
 * dissipated as the box walls count theirs. */
static double dropped(const ms_wall_xi_list *cur, float kt)
{
  double e = 0.0;
  for (int k = 0; k < cur->n; k++)
    if (cur->e[k].feature >= 0)
      e += ms_spring_energy(kt, cur->e[k].xi);
  return e;
}

/* The same for a wall's small contacts, summed per block of DROP_BLOCK particles first, as
 * the device-only path sums them (kernels/walls.cl, MS_DROP_BLOCK). */
#define DROP_BLOCK 256
static double dropped_small(const ms_wall_xi_list *cur, float kt)
{
  double e = 0.0, part = 0.0;
  int block = -1;
  for (int k = 0; k < cur->n; k++) {
    if (cur->e[k].feature < 0)
      continue;
    if (cur->e[k].j / DROP_BLOCK != block) {
      e += part;
      part = 0.0;
      block = cur->e[k].j / DROP_BLOCK;
    }
    part += ms_spring_energy(kt, cur->e[k].xi);
  }
  return e + part;
}

/* The list written this iteration becomes the one read by the next. */
static void xi_turn(ms_wall_xi_list *cur, ms_wall_xi_list *next)
{
  if (next->n > 1)
    qsort(next->e, (size_t)next->n, sizeof *next->e, by_key);
  ms_wall_xi_list t = *cur;
  *cur = *next;
  *next = t;
  next->n = 0;
}

/* Whether `feature` is among the n contacts of this step. */
static int touched(const int *features, int n, int feature)
{
  for (int k = 0; k < n; k++)
    if (features[k] == feature)
      return 1;
  return 0;
}

/* The stored xi of partner j's contact with `feature`; else of its contact with a
 * neighbouring feature that no contact of this step has (the contact moved across a
 * joint: it keeps its history); else 0, a new contact (docs/walls.md). */
static float taken(ms_wall_xi *e)
{
  e->feature = -1 - e->feature; /* marked: no other contact takes it, and it is not dropped */
  return e->xi;
}

static float xi_find(ms_wall_xi_list *l, int j, int feature, const ms_wall_def *d,
                     const int *now, int n_now)
{
  int lo = 0, hi = l->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (l->e[mid].j < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int k = lo; k < l->n && l->e[k].j == j; k++)
    if (l->e[k].feature == feature)
      return taken(&l->e[k]);
  if (d->kind == MS_WALL_CIRCLE)
    return 0.0f;
  for (int k = lo; k < l->n && l->e[k].j == j; k++)
    if (l->e[k].feature >= 0 &&
        ms_wall_features_adjacent(l->e[k].feature, feature, d->n_points, d->closed) &&
        !touched(now, n_now, l->e[k].feature))
      return taken(&l->e[k]);
  return 0.0f;
}

/* ---- Contacts ------------------------------------------------------------------- */

/* One disc's contact with a wall: the law with the wall's velocity at the centre. */
typedef struct disc {
  double x, y;
  float vx, vy, w, r, m;
} disc;

static ms_wall_force contact(const ms_params *pm, const ms_wall_def *d, const ms_wall_now *now,
                             const disc *p, const ms_wall_hit *hit, float xi, double *vwx,
                             double *vwy, float *omega)
{
  wall_velocity(d, now, p->x, p->y, vwx, vwy, omega);
  float dvx = (float)((double)p->vx - *vwx), dvy = (float)((double)p->vy - *vwy);
  return ms_wall_contact_force(hit->n, hit->overlap, dvx, dvy, p->w - *omega, p->r, p->m, pm->k,
                               d->two_zeta, pm->kt, d->mu, pm->mu_r, xi, (float)pm->dt,
                               pm->friction_on);
}

/* A disc's contacts with one wall, into the chunk's scratch; returns how many, -1 when out
 * of memory. */
static int gather(const ms_wall_def *d, const ms_wall_now *now, double px, double py, float r,
                  ms_worker_chunk *c)
{
  int n = 0, seg = 0, feature;
  ms_wall_hit hit;
  while (next_hit(d, now, px, py, r, &seg, &hit, &feature)) {
    if ((size_t)n == c->hit_cap) {
      size_t cap = c->hit_cap ? 2 * c->hit_cap : 8;
      ms_wall_hit *h = realloc(c->hit, cap * sizeof *h);
      if (h)
        c->hit = h;
      int *f = h ? realloc(c->feature, cap * sizeof *f) : NULL;
      if (!f)
        return -1;
      c->feature = f;
      c->hit_cap = cap;
    }
    c->hit[n] = hit;
    c->feature[n++] = feature;
  }
  return n;
}

static int push_ls(ms_worker_chunk *c, int at, ms_v2 f, float t)
{
  ms_ls_contact *ls = ms_grow(c->ls, c->n_ls, &c->ls_cap, sizeof *ls, 256);
  if (!ls)
    return 0;
  c->ls = ls;
  c->ls[c->n_ls++] = (ms_ls_contact){at, f.x, f.y, t};
  return 1;
}

/* A wall's new history entry, kept by the chunk whose item found the contact. */
struct ms_wall_xi_at {
  int wall;
  ms_wall_xi e;
};

static int xi_keep(ms_worker_chunk *c, int wall, int j, int feature, float xi)
{
  struct ms_wall_xi_at *e = ms_grow(c->wxi, c->n_wxi, &c->wxi_cap, sizeof *e, 64);
  if (!e)
    return 0;
  c->wxi = e;
  c->wxi[c->n_wxi++] = (struct ms_wall_xi_at){wall, {j, feature, xi}};
  return 1;
}

/* Small particle j, at `at` of the source, against wall wi. */
static int small_one(const ms_params *pm, ms_wall_now *now, const ms_wall_def *d, int wi, int j,
                     size_t at, const ms_ls_source *src, ms_worker_chunk *out, ms_wall_run *sum)
{
  const double *x = &src->pos[(size_t)src->pv * at], *v = &src->vel[(size_t)src->pv * at];
  disc p = {x[0], x[1], (float)v[0], (float)v[1], 0.0f, pm->shape[2 * j], pm->shape[2 * j + 1]};
  seam_image(d, now, &p.x, &p.y);
  if (pm->friction_on)
    p.w = (float)src->w[(size_t)src->w_stride * at];
  double qx, qy;
  reference(d, now, &qx, &qy);
  int n = gather(d, now, p.x, p.y, p.r, out);
  if (n < 0)
    return 0;
  for (int h = 0; h < n; h++) {
    ms_wall_hit hit = out->hit[h];
    int feature = out->feature[h];
    float xi = pm->friction_on ? xi_find(&now->small_cur, j, feature, d, out->feature, n) : 0.0f;
    double vwx, vwy;
    float omega;
    ms_wall_force c = contact(pm, d, now, &p, &hit, xi, &vwx, &vwy, &omega);
    if (!push_ls(out, (int)at, c.f, c.torque))
      return 0;
    if (pm->friction_on && !xi_keep(out, wi, j, feature, c.xi))
      return 0;
    sum->fx -= (double)c.f.x;
    sum->fy -= (double)c.f.y;
    sum->torque += ms_wall_reaction_torque(qx, qy, p.x, p.y, p.r, hit.n, &c);
    sum->contacts++;
    if (pm->diag) {
      sum->lost += ms_wall_contact_lost(&c, pm->kt, xi, p.w - omega, (float)pm->dt);
      sum->work += ms_wall_contact_work(&c, vwx, vwy, omega, (float)pm->dt);
    }
  }
  return 1;
}

static void add_run(ms_wall_now *now, const ms_wall_run *r)
{
  now->fx += r->fx;
  now->fy += r->fy;
  now->torque += r->torque;
  now->contacts += r->contacts;
  now->lost += r->lost;
  now->work += r->work;
}

/* Run k of wall wi's band: its contacts' sums into now->run[k]. */
static int small_run(const ms_params *pm, ms_wall_now *now, const ms_wall_def *d, int wi,
                     size_t k, const ms_ls_source *src, ms_worker_chunk *out)
{
  ms_wall_run *sum = &now->run[k];
  memset(sum, 0, sizeof *sum);
  if (src->span) { /* the zone: the band's runs are owners of their own, one row each */
    int r = src->base[now->first_span + (int)k];
    for (int slot = src->span[2 * r]; slot < src->span[2 * r + 1]; slot++)
      if (!small_one(pm, now, d, wi, ms_ls_zone_index(src, slot), (size_t)slot, src, out, sum))
        return 0;
    return 1;
  }
  const ms_band_span *s = &now->band.span[k];
  for (int cx = s->x0; cx <= s->x1; cx++) {
    int cell = s->y * pm->grid.nx + cx;
    int n = src->count[cell] < src->cap ? src->count[cell] : src->cap;
    for (int q = 0; q < n; q++) {
      int j = src->idx[ms_grid_slot(cell, src->cap, q)];
      if (!small_one(pm, now, d, wi, j, (size_t)j, src, out, sum))
        return 0;
    }
  }
  return 1;
}

int ms_walls_small(const ms_params *pm, ms_worker *w, int item, const ms_ls_source *src,
                   ms_worker_chunk *out)
{
  int wi = 0;
  while (item >= w->wall[wi].first_item + w->wall[wi].n_items)
    wi++;
  ms_wall_now *now = &w->wall[wi];
  int i = item - now->first_item;
  for (int k = now->item_run[i]; k < now->item_run[i + 1]; k++)
    if (!small_run(pm, now, &pm->walls[wi], wi, (size_t)k, src, out))
      return 0;
  return 1;
}

int ms_walls_small_finish(const ms_params *pm, ms_worker *w)
{
  for (int wi = 0; wi < pm->n_walls; wi++) {
    ms_wall_now *now = &w->wall[wi];
    for (size_t k = 0; pm->n_small > 0 && k < now->band.n; k++)
      add_run(now, &now->run[k]);
    if (!pm->friction_on)
      continue;
    for (int t = 0; t < w->cpu_threads; t++) /* sorted by xi_turn: the order is no matter */
      for (size_t e = 0; e < w->chunk[t].n_wxi; e++) {
        const struct ms_wall_xi_at *x = &w->chunk[t].wxi[e];
        if (x->wall == wi && !xi_push(&now->small_next, x->e.j, x->e.feature, x->e.xi))
          return 0;
      }
    if (pm->diag)
      now->lost += dropped_small(&now->small_cur, pm->kt);
    xi_turn(&now->small_cur, &now->small_next);
  }
  return 1;
}

static int push_reaction(ms_worker_chunk *c, ms_wall_reaction r)
{
  ms_wall_reaction *e = ms_grow(c->wr, c->n_wr, &c->wr_cap, sizeof *e, 16);
  if (!e)
    return 0;
  c->wr = e;
  c->wr[c->n_wr++] = r;
  return 1;
}

int ms_walls_large(const ms_params *pm, ms_worker *w, int i, ms_worker_chunk *out)
{
  ms_body *L = &w->large[i];
  const disc body = {L->x, L->y, (float)L->vx, (float)L->vy, (float)L->w, L->r, L->m};
  ms_wall_xi_list *cur = pm->friction_on ? &w->wall_xi_cur[i] : NULL;
  ms_wall_xi_list *next = pm->friction_on ? &w->wall_xi_next[i] : NULL;
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    const ms_wall_now *now = &w->wall[k];
    disc p = body;
    seam_image(d, now, &p.x, &p.y);
    double qx, qy;
    reference(d, now, &qx, &qy);
    int n = gather(d, now, p.x, p.y, p.r, out);
    if (n < 0)
      return 0;
    for (int h = 0; h < n; h++) {
      ms_wall_hit hit = out->hit[h];
      int feature = out->feature[h];
      float xi = cur ? xi_find(cur, k, feature, d, out->feature, n) : 0.0f;
      double vwx, vwy;
      float omega;
      ms_wall_force c = contact(pm, d, now, &p, &hit, xi, &vwx, &vwy, &omega);
      L->fx += c.f.x;
      L->fy += c.f.y;
      L->torque += c.torque;
      if (next && !xi_push(next, k, feature, c.xi))
        return 0;
      ms_wall_reaction r = {k, -(double)c.f.x, -(double)c.f.y,
                            ms_wall_reaction_torque(qx, qy, p.x, p.y, p.r, hit.n, &c), 0.0, 0.0};
      if (pm->diag) {
        r.lost = ms_wall_contact_lost(&c, pm->kt, xi, p.w - omega, (float)pm->dt);
        r.work = ms_wall_contact_work(&c, vwx, vwy, omega, (float)pm->dt);
        w->diss_large[i] += r.lost;
      }
      if (!push_reaction(out, r))
        return 0;
    }
  }
  if (next) {
    if (pm->diag)
      w->diss_large[i] += dropped(cur, pm->kt);
    xi_turn(cur, next);
  }
  return 1;
}

void ms_walls_apply_large(const ms_params *pm, ms_worker *w)
{
  for (int t = 0; t < w->cpu_threads; t++) {
    const ms_worker_chunk *ch = &w->chunk[t];
    for (size_t e = 0; e < ch->n_wr; e++) {
      const ms_wall_reaction *r = &ch->wr[e];
      ms_wall_now *now = &w->wall[r->wall];
      now->fx += r->fx;
      now->fy += r->fy;
      now->torque += r->torque;
      now->work += r->work;
      now->contacts++;
    }
  }
  (void)pm;
}

void ms_walls_info(const ms_params *pm, ms_worker *w, int k, long step, ms_wall_info *out)
{
  const ms_wall_def *d = &pm->walls[k];
  ms_wall_now *now = &w->wall[k], then = *now;
  then.at = now->shown; /* the pose of `step` into the display copy, the state untouched */
  pose(pm, d, &then, step);
  memset(out, 0, sizeof *out);
  out->section = d->section;
  out->kind = d->kind;
  out->n_points = d->n_points;
  out->closed = d->closed;
  out->points = then.at;
  out->center[0] = then.center[0];
  out->center[1] = then.center[1];
  out->radius = d->radius;
  reference(d, &then, &out->ref[0], &out->ref[1]);
  for (int a = 0; a < 2; a++) {
    out->seam[a] = d->seam[a];
    out->anchor[a] = then.anchor[a];
  }
  out->fx = now->fx;
  out->fy = now->fy;
  out->torque = now->torque;
  out->contacts = now->contacts;
  out->work = now->work;
  out->lost = now->lost;
}

void ms_walls_advance(const ms_params *pm, ms_worker *w)
{
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    ms_wall_now *now = &w->wall[k];
    if (!d->force_driven)
      continue;
    double along = d->push + now->fx * d->dir[0] + now->fy * d->dir[1];
    now->s_dot = now->s_dot + along / d->mass * pm->dt;
    now->s = now->s + now->s_dot * pm->dt;
  }
}
