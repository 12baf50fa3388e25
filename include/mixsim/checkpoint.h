/* Checkpoints: the complete state of a run in one file, written atomically (temporary
 * file, fsync, rename) with a versioned header and a CRC-32 (zlib), so a run can be
 * resumed and end with the same state hash as an uninterrupted one. */
#ifndef MIXSIM_CHECKPOINT_H
#define MIXSIM_CHECKPOINT_H

#include <stdint.h>

#include "mixsim/sim.h"
#include "mixsim/status.h"

/* 6: with the particles' persistent ids and the next id (mixsim/sim.h, ms_sim_small_ids);
 * every checkpoint is written as version 6. Collision mode reads versions 6 and 5: 5 (the
 * walls' state: each wall's kind of motion, a force-driven one's displacement and rate,
 * with friction the histories of the walls' contacts) has no ids and resumes with the ids
 * the scene gives, the ones that run had. 4 (the scene's identity in full: CRC-32 and size
 * of each file the scene reads besides its own) and 3 (the friction state, only the scene
 * file's CRC-32) lack the walls' state, 2 the friction section, 1 double precision; each
 * is refused with a message saying so. Gravity payloads have not changed: versions 4 to 6
 * are read alike, 1 to 3 under version 3's rule (read for a scene that reads no other
 * file, refused, saying why, for one that does). */
#define MS_CHECKPOINT_VERSION 7

/* The identity of a scene: the CRC-32 of its file's bytes, and the CRC-32 and size of
 * each file it reads (ms_scene.inputs). A checkpoint only resumes the scene it was
 * written from, with the same files. */
typedef struct ms_scene_file_id {
  char key[96];   /* "[small] file": the file's name in the checkpoint */
  char path[512]; /* this scene's path of it, for messages */
  uint32_t crc;
  uint64_t bytes;
} ms_scene_file_id;

typedef struct ms_scene_id {
  uint32_t crc; /* the scene file's */
  int n_files;
  ms_scene_file_id *file;
} ms_scene_id;

/* Reads the scene's file and every file it read. MS_ERR_INPUT when one cannot be read;
 * free with ms_scene_id_free. */
ms_status ms_scene_identity(const ms_scene *scene, ms_scene_id *id);
void ms_scene_id_free(ms_scene_id *id);

/* `scene_id` may be NULL in what follows: a scene of CRC 0 that reads no other file. */
ms_status ms_checkpoint_save(const char *path, ms_sim *sim, const ms_scene_id *scene_id);

/* The same for gravity-mode runs. */
struct ms_gravity;
ms_status ms_checkpoint_save_gravity(const char *path, struct ms_gravity *g, const ms_scene_id *scene_id);
ms_status ms_checkpoint_load_gravity(const char *path, struct ms_gravity *g, const ms_scene_id *scene_id);

/* A checkpoint held in memory: taken cheaply between advances, put back, or written. */
typedef struct ms_snapshot ms_snapshot;
ms_status ms_snapshot_take(ms_sim *sim, ms_snapshot **out);
ms_status ms_snapshot_restore(ms_sim *sim, const ms_snapshot *snap);
ms_status ms_snapshot_save(const char *path, const ms_snapshot *snap, const ms_scene_id *scene_id);
long ms_snapshot_step(const ms_snapshot *snap);
void ms_snapshot_free(ms_snapshot *snap);

/* Restores `sim`, created from the same scene, to the saved state. A truncated,
 * corrupted, wrong-version or wrong-scene file is refused with MS_ERR_INPUT and a
 * message saying which; `sim` is then unchanged. */
ms_status ms_checkpoint_load(const char *path, ms_sim *sim, const ms_scene_id *scene_id);

#endif
