/* The walls' state between advances ([wall.NAME], collision/worker/walls_state.c): what a
 * checkpoint or a snapshot carries for the walls to go on as they would have. A prescribed
 * wall's pose is a function of the time alone; a force-driven one has its displacement and
 * rate along its line; with friction, each wall contact has its tangential history. */
#ifndef MS_WORKER_WALLS_STATE_H
#define MS_WORKER_WALLS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "collision/worker/worker.h"

/* A wall contact's history: for the small particles' contacts a = the wall, b = the small
 * particle; for the large ones' a = the large particle, b = the wall. The feature is the
 * wall's (shared/wall.h, ms_polyline_feature; 0 on a circle). Sorted by (a, b, feature),
 * each once. */
typedef struct ms_wall_history {
  int32_t a, b, feature;
  float xi;
} ms_wall_history;

typedef struct ms_walls_state {
  int32_t n_walls;
  int32_t *driven;  /* per wall: 1 force-driven, 0 prescribed */
  double *motion;   /* per wall: s (m) and s_dot (m/s) along its line; 0, 0 when prescribed */
  ms_wall_history *small, *large;
  int64_t n_small, n_large; /* entries of each (0 without friction) */
} ms_walls_state;

/* The parts of the state, as refusals name them (and checkpoints their fields). */
#define MS_WALLS_F_COUNT "walls"
#define MS_WALLS_F_N_SMALL "small-wall contacts"
#define MS_WALLS_F_N_LARGE "large-wall contacts"
#define MS_WALLS_F_DRIVEN "force-driven flags"
#define MS_WALLS_F_MOTION "wall motion"
#define MS_WALLS_F_SMALL "small-wall histories"
#define MS_WALLS_F_LARGE "large-wall histories"

/* The walls' state now, into arrays of its own (free with ms_walls_state_free). */
ms_status ms_walls_export(const ms_params *pm, const ms_worker *w, ms_walls_state *out);

/* Puts a state back, checked first (ms_walls_state_fault): a bad one changes nothing. */
ms_status ms_walls_import(const ms_params *pm, ms_worker *w, const ms_walls_state *in);

/* The walls as at the run's start: force-driven ones at rest where written, no histories,
 * their sums cleared (a restore, before the saved state is imported). */
void ms_walls_reset(const ms_params *pm, ms_worker *w);

void ms_walls_state_free(ms_walls_state *st);

/* The most history entries n particles can have with the walls: one per particle and
 * feature of each wall (INT64_MAX past it). */
int64_t ms_walls_history_max(const ms_params *pm, int64_t n);

/* What a state could not have been written by this scene: NULL when it could, else the part
 * at fault (MS_WALLS_F_*) and, in `why`, what is wrong with it: its wall count, its history
 * counts (beyond ms_walls_history_max, or any without friction), a force-driven flag other
 * than the scene's, a non-finite s or s_dot or a prescribed wall's not 0, a history entry out
 * of range, out of order, twice or not finite. */
const char *ms_walls_state_fault(const ms_params *pm, const ms_walls_state *in, char *why,
                                 size_t n);

#endif
