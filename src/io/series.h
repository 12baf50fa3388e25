/* The --output time series (docs/output.md): a folder of frames, one every K steps (and
 * the run's first and last state), each a .vtp (or a CSV) listed in frames.pvd (or
 * frames.csv), written by a writer thread (io/writer.h) from a copy of the state, so the
 * simulation waits for the disk only when the writer is two frames behind; the box's
 * walls (walls.vtp, collision mode), written once; and the scene's walls with each frame
 * (walls_SSSSSS.vtp in walls.pvd, or .csv; with --diagnostics walls.csv: io/walls_out.h). */
#ifndef MS_IO_SERIES_H
#define MS_IO_SERIES_H

#include "io/output_file.h"
#include "io/writer.h"
#include "mixsim/gravity.h"
#include "mixsim/sim.h"

typedef struct ms_series_options {
  const char *dir; /* NULL: no time series */
  long every;      /* a frame every K steps, K >= 1 */
  int csv;         /* CSV frames and frames.csv instead of .vtp and frames.pvd */
  int clear;       /* remove an older run's frames (only files of the names written here) */
  int diagnostics; /* also DIR/diagnostics.csv, a row per frame (io/diagnostics.h) */
} ms_series_options;

typedef struct ms_series ms_series;

/* Before a run: makes the folder (mkdir -p), and refuses one that holds frames of an
 * older run (without `clear`) or .vtp/.pvd files of other names. MS_ERR_INPUT naming
 * `opt` and the folder. With `clear`, the older frames are removed here. */
ms_status ms_series_prepare(const char *opt, const ms_series_options *o);

/* Would the series write where `id` lands (io/output_file.h)? One of its names in its
 * folder, however spelled (0 while the folder does not exist): another output there
 * would be replaced, or replace it. */
int ms_series_claims(const ms_series_options *o, const ms_output_id *id);

/* Starts the writer for a collision run or a gravity run; a collision run writes the box's
 * walls (DIR/walls.vtp) here, once. */
ms_status ms_series_open(const ms_series_options *o, ms_sim *sim, ms_series **out);
ms_status ms_series_open_gravity(const ms_series_options *o, ms_gravity *g, ms_series **out);

/* Steps to go from `step` to the next frame (at least 1). */
long ms_series_room(const ms_series *s, long step);
/* Whether a frame is due at `step` (a multiple of K). */
int ms_series_due(const ms_series *s, long step);

/* Writes a frame of the current state if one is due at this step (a multiple of K) or
 * `force` is set (the run's first and last state), unless this step has one already.
 * Returns the writer's failure once, when it finds one (its message names the file;
 * MS_ERR_STOPPED where a stop ended a wait for a FIFO's reader): ms_series_failed then
 * tells it from a failure to copy the state, the run stops there and writes its other
 * outputs, and the series takes no more frames. */
ms_status ms_series_frame(ms_series *s, ms_sim *sim, int force);
ms_status ms_series_frame_gravity(ms_series *s, ms_gravity *g, int force);

/* Did a write fail (the series takes no more frames)? 0 for NULL. */
int ms_series_failed(const ms_series *s);

/* Waits for the writer to write every frame handed over, then frees the series; `stats`
 * (may be NULL) gets the writer's figures. Returns a write's failure that no frame call
 * returned yet, if any: every failure here is a lost output. */
ms_status ms_series_close(ms_series *s, ms_writer_stats *stats);

#endif
