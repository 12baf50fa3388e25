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

#include "cl/runtime.h"

/* The skin as a fraction of the largest small radius (docs/friction.md: measured). */
#define MS_NLIST_SKIN_RATIO 0.3
/* Slots per particle of a new list; grows on overflow. */
#define MS_NLIST_K0 8

typedef struct ms_nlist {
  int k[2];                      /* slots per particle of each list */
  cl_mem j[2], xi[2], count[2];  /* partner, displacement per slot; partners per particle */
  int live;                      /* the list the collide kernel reads */
  int k_want;                    /* slots the next build gets */
  cl_mem ref;                    /* double2: positions at the live list's build */
  cl_mem wall_xi;                /* float: 4 per particle (left, right, bottom, top) */
  cl_mem flags;                  /* int: moved, overflowing particles, most partners */
  int moved;                     /* flags[0], read with the grid's flags */
  int stale;                     /* rebuild at the next grid build */
  float skin;                    /* m */
} ms_nlist;

struct ms_sim;

/* Creates both lists (empty), the reference positions and the wall displacements. */
ms_status ms_nlist_create(struct ms_sim *s);
void ms_nlist_release(ms_nlist *nl);

/* Sets the arguments of the check, build and friction collide kernels. */
ms_status ms_nlist_bind(struct ms_sim *s);

/* Enqueues the moved-too-far check and the non-blocking read of its flag, ahead of the
 * grid's blocking flags read (collision/grid.c); without friction the worker list's. */
ms_status ms_nlist_enqueue_check(struct ms_sim *s);

/* After a grid build: rebuilds the list when due (growing it until it fits), and tells
 * the worker's list whether a small particle may have moved too far for it. */
ms_status ms_nlist_update(struct ms_sim *s, long step);

/* Without friction, the worker's list's check (collision/ls_list.h): ms_nlist_enqueue_check
 * runs it with the grid build; this takes its reference positions when the worker built
 * the list this iteration (after sync 2, before the small integration). */
ms_status ms_nlist_worker_ref(struct ms_sim *s);

/* The small side of ms_sim_friction_export/import (sim_internal.h): each particle's wall
 * displacements, and one entry (a < b) per pair whose slot holds a displacement (its
 * bits not +0: an open pair's slot holds +0). Import fills the live list from the entries
 * (both copies of each pair) and rebuilds it at the next grid build, where every
 * displacement is carried over as any rebuild carries it. */
struct ms_friction_state;
ms_status ms_nlist_export(struct ms_sim *s, struct ms_friction_state *out);
ms_status ms_nlist_import(struct ms_sim *s, const struct ms_friction_state *in);

/* Forgets every history (after a restore) and rebuilds at the next grid build. */
ms_status ms_nlist_reset(struct ms_sim *s);

#endif
