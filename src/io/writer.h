/* A writer thread with double buffering, for outputs written while the simulation runs
 * (the --output time series; later ones may share it). The caller owns two slots of its
 * own kind (say, a copy of the state); the simulation thread takes a free slot, fills it
 * (its one copy) and hands it over, and goes on while the thread formats and writes it.
 * Only when both slots are still queued or being written does the simulation thread
 * wait; such waits are counted and timed. Jobs are written in the order handed over. */
#ifndef MS_IO_WRITER_H
#define MS_IO_WRITER_H

#include "mixsim/status.h"

typedef struct ms_writer ms_writer;

/* Writes one slot; runs on the writer thread. A failure is returned with ms_fail's
 * message (which names the file); the writer then writes nothing more. */
typedef ms_status (*ms_writer_fn)(void *slot, void *ctx);

typedef struct ms_writer_stats {
  long jobs;      /* slots written (or tried) */
  long waits;     /* times the simulation thread found no free slot and waited */
  double wait_s;  /* its time spent waiting so */
  double busy_s;  /* the writer thread's time writing */
} ms_writer_stats;

ms_status ms_writer_start(void *slots[2], ms_writer_fn write, void *ctx, ms_writer **out);

/* A free slot to fill, waiting for the writer when both are busy; NULL once a write
 * failed (ms_writer_finish returns the failure). */
void *ms_writer_acquire(ms_writer *w);

/* Hands a slot from ms_writer_acquire to the thread. */
void ms_writer_submit(ms_writer *w, void *slot);

/* Gives back a slot taken but not filled (the copy failed). */
void ms_writer_release(ms_writer *w, void *slot);

/* Whether a write failed already (the run should stop). */
int ms_writer_failed(ms_writer *w);

/* Waits until everything handed over is written, stops the thread and frees the writer
 * (not the slots). Returns the first failure, with its message, or MS_OK. */
ms_status ms_writer_finish(ms_writer *w, ms_writer_stats *stats);

#endif
