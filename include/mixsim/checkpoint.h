/* Checkpoints: the complete state of a run in one file, written atomically (temporary
 * file, fsync, rename) with a versioned header and a CRC-32 (zlib), so a run can be
 * resumed and end with the same state hash as an uninterrupted one. */
#ifndef MIXSIM_CHECKPOINT_H
#define MIXSIM_CHECKPOINT_H

#include <stdint.h>

#include "mixsim/sim.h"
#include "mixsim/status.h"

/* 3: with the friction state (rotation, contact histories) of frictional scenes; every
 * checkpoint is written as version 3. 2: collision state in double precision, refused
 * now (it has no friction section), as is 1 (floats); each with a message saying so.
 * Gravity payloads have not changed: versions 1 to 3 are read. */
#define MS_CHECKPOINT_VERSION 3

/* Identity of a scene: CRC-32 of its file's bytes. A checkpoint only resumes the scene
 * it was written from. Returns MS_ERR_INPUT when the file cannot be read. */
ms_status ms_scene_identity(const char *path, uint32_t *id);

ms_status ms_checkpoint_save(const char *path, ms_sim *sim, uint32_t scene_id);

/* The same for gravity-mode runs. */
struct ms_gravity;
ms_status ms_checkpoint_save_gravity(const char *path, struct ms_gravity *g, uint32_t scene_id);
ms_status ms_checkpoint_load_gravity(const char *path, struct ms_gravity *g, uint32_t scene_id);

/* A checkpoint held in memory: taken cheaply between advances, put back, or written. */
typedef struct ms_snapshot ms_snapshot;
ms_status ms_snapshot_take(ms_sim *sim, ms_snapshot **out);
ms_status ms_snapshot_restore(ms_sim *sim, const ms_snapshot *snap);
ms_status ms_snapshot_save(const char *path, const ms_snapshot *snap, uint32_t scene_id);
long ms_snapshot_step(const ms_snapshot *snap);
void ms_snapshot_free(ms_snapshot *snap);

/* Restores `sim`, created from the same scene, to the saved state. A truncated,
 * corrupted, wrong-version or wrong-scene file is refused with MS_ERR_INPUT and a
 * message saying which; `sim` is then unchanged. */
ms_status ms_checkpoint_load(const char *path, ms_sim *sim, uint32_t scene_id);

#endif
