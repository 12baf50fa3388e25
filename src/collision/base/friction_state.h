/* The friction state beyond positions and velocities, as checkpoints, dumps and tests
 * carry it: each thread exports and imports its own share (the manager the small
 * particles', the worker the large particles'), between advances only. */
#ifndef MS_COLLISION_FRICTION_STATE_H
#define MS_COLLISION_FRICTION_STATE_H

#include <stddef.h>

/* One history entry: the pair (a, b) and its stored tangential displacement. */
typedef struct ms_history_entry {
  int a, b;
  float xi;
} ms_history_entry;

typedef struct ms_friction_state {
  int n_small, n_large;
  double *small_rot, *large_rot;        /* (theta, w) per particle */
  float *small_wall_xi, *large_wall_xi; /* 4 per particle: left, right, bottom, top */
  ms_history_entry *ss, *ls, *ll;       /* small-small (a < b: one entry per live pair),
                                           large-small (a = large, b = small),
                                           large-large (a < b), each sorted by (a, b) */
  size_t n_ss, n_ls, n_ll;
} ms_friction_state;

void ms_friction_state_free(ms_friction_state *f);

#endif
