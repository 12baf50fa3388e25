/* The small particles' Verlet neighbour list with contact history (friction on only):
 * per particle up to k slots (partner index, tangential displacement) in ascending
 * partner index, holding every partner within r_i + r_j + skin at the last build. Two
 * lists alternate: a build writes the other one, copying each partner's displacement
 * from the live list, so a build that overflows k leaves the live list intact while k
 * grows. The list is rebuilt when some particle has moved more than half the skin since
 * (a check run with every grid build, read with the grid's flags), at the start and after
 * a restore, a move or an import. Also each particle's four wall displacements.
 * docs/friction.md says why the sums cannot depend on when the list was rebuilt. */
#ifndef MS_NLIST_H
#define MS_NLIST_H

#include "collision/device/device.h"
#include "collision/exchange/crossing.h"



/* Creates both lists (empty), the reference positions and the wall displacements. */
ms_status ms_nlist_create(const ms_ctx *c, ms_device *d);
void ms_nlist_release(ms_nlist *nl);

/* Sets the arguments of the check, build and friction collide kernels. */
ms_status ms_nlist_bind(const ms_ctx *c, ms_device *d);

/* Enqueues the moved-too-far check and the non-blocking read of its flag, ahead of the
 * grid's blocking flags read (collision/device/grid.c); without friction the worker list's. */
ms_status ms_nlist_enqueue_check(const ms_ctx *c, ms_device *d);

/* After a grid build: rebuilds the list when due (growing it until it fits), and tells
 * the worker's list whether a small particle may have moved too far for it. */
ms_status ms_nlist_update(const ms_ctx *c, ms_device *d, long step);

/* Without friction, the worker's list's check (collision/worker/ls_list.h): ms_nlist_enqueue_check
 * runs it with the grid build; this takes its reference positions when the worker built
 * the list this iteration (after sync 2, before the small integration). */
ms_status ms_nlist_worker_ref(const ms_ctx *c, ms_device *d);

/* The small side of ms_sim_friction_export/import (sim_internal.h): each particle's wall
 * displacements, and one entry (a < b) per pair whose slot holds a displacement (its
 * bits not +0: an open pair's slot holds +0). Import fills the live list from the entries
 * (both copies of each pair) and rebuilds it at the next grid build, where every
 * displacement is carried over as any rebuild carries it. */
struct ms_friction_state;
ms_status ms_nlist_export(const ms_ctx *c, ms_device *d, struct ms_friction_state *out);
ms_status ms_nlist_import(const ms_ctx *c, ms_device *d, const struct ms_friction_state *in);

/* Forgets every history (after a restore) and rebuilds at the next grid build. */
ms_status ms_nlist_reset(const ms_ctx *c, ms_device *d);

/* The buffers of the check of the worker's list (ms_nlist_worker_ref makes them). */
void ms_list_check_release(ms_list_check *k);

#endif
