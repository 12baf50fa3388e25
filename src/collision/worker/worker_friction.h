/* The CPU worker's contacts with friction on (issue 12, docs/friction.md): large-small,
 * large-large and large-wall through the law of kernels/shared/friction.h, with the
 * histories of collision/worker/history.h. The frictionless contacts stay in cpu_worker.c,
 * untouched; cpu_worker.c calls these only when friction_on. */
#ifndef MS_WORKER_FRICTION_H
#define MS_WORKER_FRICTION_H

#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"

/* Makes the worker's histories when friction is on and they are not made yet. */
ms_status ms_fr_ready(const ms_params *pm, ms_worker *w);

/* The contact of large particle i (L) with small particle j at `at` of the source:
 * normal, tangential and rolling; the force and torque on j go to the chunk's list,
 * the reaction and the torque sum on L, the new xi to L's new history. Returns 0 when
 * out of memory. */
int ms_fr_large_small_pair(const ms_params *pm, const ms_worker *w, int i, ms_body *L, int j,
                           size_t at, const ms_ls_source *src, ms_worker_chunk *out);

/* The friction version of a large-large pair (ia left of ib in the sweep): whether they
 * touch, and then the pair's force on ia, both torques and the new xi in *p. */
int ms_fr_large_large_pair(const ms_params *pm, const ms_worker *w, int ia, int ib, ms_ll_pair *p);

/* Adds the pairs' forces and torques in sweep order and rebuilds the large-large
 * history from them (serial order, then sorted). Returns 0 when out of memory. */
int ms_fr_apply_large_large(const ms_params *pm, ms_worker *w);

/* --diagnostics: the energy the tangential springs of large particle i's large-small
 * histories (the current ones) hold. */
double ms_fr_ls_spring(const ms_params *pm, const ms_worker *w, int i);

/* The four walls on large particle i (dynamic): the normal pushes as ms_walls_force sums
 * them, then each touching wall's tangential force and rolling torque; its wall xi kept
 * while touching, zeroed when not. */
void ms_fr_walls(const ms_params *pm, ms_worker *w, int i);

#endif
