/* --output's forces over the incremental meeting (live.h): kept from each domain after the
 * block that made the domains' state, before its meeting moves their slots; given with a
 * gathering's records; settled into the whole state, which hands them to the view. */
#include "domains/live.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/forces.h"
#include "collision/sim_internal.h"
#include "domains/domains_internal.h"

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for --output's forces over the domains");
}

/* --output's forces, taken from each domain after a block that ends an advance (or that a
 * stop ends), before the meeting moves its slots: (key, force) for each of its own small
 * particles and (j, force) for each large one it owns, as ms_forces_read gives them (NaN
 * where no step of this run made the state, as on one device). A gathering gives them. */
ms_status ms_live_keep_forces(ms_domains *D, int d)
{
  ms_sim *s = D->sim[d];
  ms_bytes *o = &D->live.forces[d];
  size_t ns = (size_t)s->p.n_small, nl = (size_t)s->p.n_large;
  float *fs = malloc((2 * ns + 1) * sizeof *fs), *fl = malloc((2 * nl + 1) * sizeof *fl);
  unsigned char *role = malloc(ns + 1);
  ms_status st = fs && fl && role ? ms_forces_read(s, fs, fl) : no_memory();
  if (!st) /* (the block's roles: the meeting's commit takes the next ones) */
    st = ms_buffers_download(&s->cl, D->live.split[d].role, role, ns);
  int *small = &D->live.kept_small[d], *large = &D->live.kept_large[d];
  o->n = 0;
  *small = *large = 0;
  for (size_t i = 0; !st && i < ns; i++) {
    if (role[i] != MS_ROLE_OWN)
      continue;
    force_rec r = {s->dev.key_host[i], {fs[2 * i], fs[2 * i + 1]}};
    (*small)++;
    st = ms_bytes_put(o, &r, sizeof r) ? MS_OK : no_memory();
  }
  for (int j = 0; !st && j < s->p.n_large; j++) {
    if (D->live.large_owner[j] != d)
      continue;
    int m = ms_live_large_slot(D, d, j); /* (an owner steps its own: -1 were it empty) */
    force_rec r = {j, {m >= 0 ? fl[2 * m] : NAN, m >= 0 ? fl[2 * m + 1] : NAN}};
    (*large)++;
    st = ms_bytes_put(o, &r, sizeof r) ? MS_OK : no_memory();
  }
  free(fs), free(fl), free(role);
  return st;
}

/* The forces kept, into give o (none kept: the view's frame has NaN forces, as one device's
 * has where no step made its state). */
ms_status ms_live_give_forces(ms_domains *D, int d, ms_bytes *o)
{
  const ms_live *v = &D->live;
  int kept = v->forces_kept;
  if (kept && !ms_bytes_put(o, v->forces[d].b, v->forces[d].n))
    return no_memory();
  give_head h;
  memcpy(&h, o->b, sizeof h);
  h.forces = kept;
  h.n_force = kept ? v->kept_small[d] : 0;
  h.n_force_large = kept ? v->kept_large[d] : 0;
  memcpy(o->b, &h, sizeof h);
  return MS_OK;
}

/* Give g's forces into the whole state's (--output's: ms_global_put hands them to the view):
 * those kept, else NaN for the particles it owns. */
ms_status ms_live_settle_forces(ms_domains *D, int e, const give_view *g)
{
  ms_global *G = &D->g;
  if (!G->forces)
    return MS_OK;
  static const float none[2] = {NAN, NAN};
  for (int k = 0; !g->h.forces && k < g->h.n_rec; k++) /* (keys checked by the caller) */
    memcpy(&G->force_small[2 * g->rec[k].key], none, sizeof none);
  for (int j = 0; !g->h.forces && j < G->st.n_large; j++)
    if (D->live.large_owner[j] == e)
      memcpy(&G->force_large[2 * j], none, sizeof none);
  for (int k = 0; k < g->h.n_force + g->h.n_force_large; k++) {
    int at = g->force[k].j, small = k < g->h.n_force;
    if (at < 0 || at >= (small ? G->st.slots : G->st.n_large))
      return ms_fail(MS_ERR_RUNTIME, "domain %d gave the force of %s particle %d", e,
                     small ? "small" : "large", at);
    memcpy(small ? &G->force_small[2 * at] : &G->force_large[2 * at], g->force[k].f,
           2 * sizeof(float));
  }
  G->forces_stale = 0;
  return MS_OK;
}
