/* Persistent particle ids: one id space for small and large particles, kept host-side by
 * the sim beside the device's order (a small particle's id follows its index), and the
 * next id to hand out. Ids are not part of the physics state nor of its hash
 * (docs/output.md, "Particle ids"). */
#ifndef MS_COLLISION_IDS_H
#define MS_COLLISION_IDS_H

#include <stdint.h>

#include "mixsim/scene.h"
#include "mixsim/status.h"

typedef struct ms_ids {
  int n_small, n_large;
  int64_t *small, *large; /* one per particle, in index order */
  int64_t next;           /* the next id to hand out: more than every id held */
} ms_ids;

/* The scene's ids (ms_scene.small_id / large_id, from its particle files' id columns), or
 * where it has none small 0 .. Ns-1 and large Ns .. Ns+Nl-1; next = largest + 1. The
 * large slots after the scene's (kind = large inflows') start empty, id -1. */
ms_status ms_ids_init(ms_ids *ids, const ms_scene *scene, int large_slots);
/* Puts the ids of a saved state back (counts as the sim's); next as saved. */
void ms_ids_set(ms_ids *ids, const int64_t *small, const int64_t *large, int64_t next);
void ms_ids_free(ms_ids *ids);

/* The ids of a read-back state (mixsim/sim.h, ms_state): arrays of this size, then a copy. */
int ms_ids_state_alloc(const ms_ids *ids, int64_t **small, int64_t **large);
void ms_ids_state_copy(const ms_ids *ids, int64_t *small, int64_t *large);

#endif
