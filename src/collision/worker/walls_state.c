/* The walls' state between advances (collision/worker/walls_state.h): exported from the
 * worker's walls, checked and imported back, or reset to the run's start. */
#include "collision/worker/walls_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* The feature ids a wall's contacts can have (shared/wall.h, ms_polyline_feature): point j
 * is 2 j, segment i 2 i + 1; an open polyline's last segment ends at point n - 1. */
static int features(const ms_wall_def *d)
{
  if (d->kind == MS_WALL_CIRCLE)
    return 1;
  return d->closed ? 2 * d->n_points : 2 * d->n_points - 1;
}

int64_t ms_walls_history_max(const ms_params *pm, int64_t n)
{
  int64_t f = 0;
  for (int k = 0; k < pm->n_walls; k++)
    f += features(&pm->walls[k]);
  if (n <= 0 || f == 0)
    return 0;
  return f > INT64_MAX / n ? INT64_MAX : f * n;
}

void ms_walls_state_free(ms_walls_state *st)
{
  free(st->driven);
  free(st->motion);
  free(st->small);
  free(st->large);
  memset(st, 0, sizeof *st);
}

/* ---- export and import ------------------------------------------------------------- */

ms_status ms_walls_export(const ms_params *pm, const ms_worker *w, ms_walls_state *out)
{
  memset(out, 0, sizeof *out);
  size_t nw = (size_t)pm->n_walls, ns = 0, nl = 0;
  for (int k = 0; k < pm->n_walls; k++)
    ns += (size_t)w->wall[k].small_cur.n;
  for (int i = 0; w->wall_xi_cur && i < pm->n_large; i++)
    nl += (size_t)w->wall_xi_cur[i].n;
  out->n_walls = pm->n_walls;
  out->driven = malloc((nw + 1) * sizeof *out->driven);
  out->motion = malloc((2 * nw + 1) * sizeof *out->motion);
  out->small = malloc((ns + 1) * sizeof *out->small);
  out->large = malloc((nl + 1) * sizeof *out->large);
  if (!out->driven || !out->motion || !out->small || !out->large) {
    ms_walls_state_free(out);
    return ms_fail(MS_ERR_RUNTIME, "out of memory exporting the state of %d walls", pm->n_walls);
  }
  /* Walls ascending, each one's list sorted by (j, feature); large particles ascending,
   * each one's by (wall, feature): both sorted by (a, b, feature). */
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_now *now = &w->wall[k];
    int driven = pm->walls[k].force_driven;
    out->driven[k] = driven;
    out->motion[2 * k] = driven ? now->s : 0.0;
    out->motion[2 * k + 1] = driven ? now->s_dot : 0.0;
    for (int e = 0; e < now->small_cur.n; e++) {
      const ms_wall_xi *x = &now->small_cur.e[e];
      out->small[out->n_small++] = (ms_wall_history){k, x->j, x->feature, x->xi};
    }
  }
  for (int i = 0; w->wall_xi_cur && i < pm->n_large; i++)
    for (int e = 0; e < w->wall_xi_cur[i].n; e++) {
      const ms_wall_xi *x = &w->wall_xi_cur[i].e[e];
      out->large[out->n_large++] = (ms_wall_history){i, x->j, x->feature, x->xi};
    }
  return MS_OK;
}

void ms_walls_reset(const ms_params *pm, ms_worker *w)
{
  for (int k = 0; k < pm->n_walls; k++) {
    ms_wall_now *now = &w->wall[k];
    now->s = now->s_dot = 0.0;
    now->fx = now->fy = now->torque = 0.0;
    now->contacts = 0;
    now->lost = now->work = 0.0;
    now->small_cur.n = now->small_next.n = 0;
  }
  for (int i = 0; w->wall_xi_cur && i < pm->n_large; i++)
    w->wall_xi_cur[i].n = w->wall_xi_next[i].n = 0;
}

static int push(ms_wall_xi_list *l, int j, int feature, float xi)
{
  ms_wall_xi *e = ms_grow(l->e, (size_t)l->n, &l->cap, sizeof *e, 16);
  if (!e)
    return 0;
  l->e = e;
  l->e[l->n++] = (ms_wall_xi){j, feature, xi};
  return 1;
}

ms_status ms_walls_import(const ms_params *pm, ms_worker *w, const ms_walls_state *in)
{
  char why[512];
  const char *part = ms_walls_state_fault(pm, in, why, sizeof why);
  if (part)
    return ms_fail(MS_ERR_INPUT, "walls' state refused: '%s' %s", part, why);
  ms_walls_reset(pm, w);
  for (int k = 0; k < pm->n_walls; k++)
    if (pm->walls[k].force_driven) {
      w->wall[k].s = in->motion[2 * k];
      w->wall[k].s_dot = in->motion[2 * k + 1];
    }
  for (int64_t e = 0; e < in->n_small; e++) {
    const ms_wall_history *h = &in->small[e];
    if (!push(&w->wall[h->a].small_cur, h->b, h->feature, h->xi))
      return ms_fail(MS_ERR_RUNTIME, "out of memory importing the walls' histories");
  }
  for (int64_t e = 0; e < in->n_large; e++) {
    const ms_wall_history *h = &in->large[e];
    if (!push(&w->wall_xi_cur[h->a], h->b, h->feature, h->xi))
      return ms_fail(MS_ERR_RUNTIME, "out of memory importing the walls' histories");
  }
  return MS_OK;
}

/* ---- checks ------------------------------------------------------------------------ */

/* A history count: none without friction, at most one per particle and feature. */
static int bad_count(const ms_params *pm, int64_t v, int64_t particles, const char *kind,
                     char *why, size_t n)
{
  int64_t max = ms_walls_history_max(pm, particles);
  if (v != 0 && !pm->friction_on)
    snprintf(why, n, "= %lld, but the scene has no friction (no wall histories)", (long long)v);
  else if (v < 0)
    snprintf(why, n, "= %lld is negative", (long long)v);
  else if (v > max)
    snprintf(why, n, "= %lld is more than the %s particles times the walls' features (%lld)",
             (long long)v, kind, (long long)max);
  else
    return 0;
  return 1;
}

static int after(const ms_wall_history *p, const ms_wall_history *q)
{
  if (p->a != q->a)
    return q->a > p->a;
  if (p->b != q->b)
    return q->b > p->b;
  return q->feature > p->feature;
}

/* One kind's entries: a in [0, na) and b in [0, nb) (named a_name, b_name), the feature one
 * of its wall's (the wall is a when wall_is_a, else b), strictly ascending, xi finite. */
static int bad_entries(const ms_params *pm, const ms_wall_history *e, int64_t n, int na,
                       const char *a_name, int nb, const char *b_name, int wall_is_a,
                       char *why, size_t len)
{
  for (int64_t i = 0; i < n; i++) {
    const ms_wall_history *h = &e[i];
    if (h->a < 0 || h->a >= na || h->b < 0 || h->b >= nb) {
      snprintf(why, len, "entry %lld names %s %d and %s %d, outside [0, %d) and [0, %d)",
               (long long)i, a_name, h->a, b_name, h->b, na, nb);
      return 1;
    }
    const ms_wall_def *d = &pm->walls[wall_is_a ? h->a : h->b];
    if (h->feature < 0 || h->feature >= features(d)) {
      snprintf(why, len, "entry %lld names feature %d of [%s], outside [0, %d)", (long long)i,
               h->feature, d->section, features(d));
      return 1;
    }
    if (i > 0 && !after(&e[i - 1], h)) {
      snprintf(why, len, "entry %lld (%d, %d, feature %d) is not after entry %lld (%d, %d, "
                         "feature %d)", (long long)i, h->a, h->b, h->feature, (long long)(i - 1),
               e[i - 1].a, e[i - 1].b, e[i - 1].feature);
      return 1;
    }
    if (!isfinite(h->xi)) {
      snprintf(why, len, "has a non-finite value (entry %lld)", (long long)i);
      return 1;
    }
  }
  return 0;
}

/* Each wall force-driven as in the scene; s and s_dot finite, and 0 for a prescribed one. */
static const char *bad_motion(const ms_params *pm, const ms_walls_state *in, char *why,
                              size_t n)
{
  for (int k = 0; k < pm->n_walls; k++) {
    const ms_wall_def *d = &pm->walls[k];
    if (in->driven[k] != d->force_driven) {
      snprintf(why, n, "entry %d is %ld: [%s] is %s in the scene (%d)", k, (long)in->driven[k],
               d->section, d->force_driven ? "force-driven" : "prescribed", d->force_driven);
      return MS_WALLS_F_DRIVEN;
    }
  }
  for (int k = 0; k < 2 * pm->n_walls; k++)
    if (!isfinite(in->motion[k])) {
      snprintf(why, n, "has a non-finite value (entry %d)", k);
      return MS_WALLS_F_MOTION;
    }
  for (int k = 0; k < pm->n_walls; k++) {
    const double *m = &in->motion[2 * k];
    if (!pm->walls[k].force_driven && (m[0] != 0.0 || m[1] != 0.0)) {
      snprintf(why, n, "entries %d, %d (s, s_dot) = %g, %g: [%s] moves as prescribed, "
                       "its pose a function of the time alone (0, 0)",
               2 * k, 2 * k + 1, m[0], m[1], pm->walls[k].section);
      return MS_WALLS_F_MOTION;
    }
  }
  return NULL;
}

const char *ms_walls_state_fault(const ms_params *pm, const ms_walls_state *in, char *why,
                                 size_t n)
{
  if (in->n_walls != pm->n_walls) {
    snprintf(why, n, "= %ld: the scene has %d ([wall.NAME] sections)", (long)in->n_walls,
             pm->n_walls);
    return MS_WALLS_F_COUNT;
  }
  if (bad_count(pm, in->n_small, pm->n_small, "small", why, n))
    return MS_WALLS_F_N_SMALL;
  if (bad_count(pm, in->n_large, pm->n_large, "large", why, n))
    return MS_WALLS_F_N_LARGE;
  const char *part = bad_motion(pm, in, why, n);
  if (part)
    return part;
  if (bad_entries(pm, in->small, in->n_small, pm->n_walls, "wall", pm->n_small,
                  "small particle", 1, why, n))
    return MS_WALLS_F_SMALL;
  if (bad_entries(pm, in->large, in->n_large, pm->n_large, "large particle", pm->n_walls,
                  "wall", 0, why, n))
    return MS_WALLS_F_LARGE;
  return NULL;
}
