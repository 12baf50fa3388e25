/* The program under mpirun: joining the job, the launch agreement (every rank's start-up
 * status, and the same scene and options on every rank), and one exit code at the end.
 * Outside an MPI launch these change nothing. */
#ifndef MS_APP_RANKS_LAUNCH_H
#define MS_APP_RANKS_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "io/series.h"
#include "mixsim/scene.h"

/* Joins the MPI job when started by a launcher; non-root ranks' output is silenced from
 * here on (their start-up messages are kept for the launch agreement). Returns -1 to go
 * on, or an exit code. */
int ms_app_ranks_start(int *argc, char ***argv);

/* The launch agreement (collective with several ranks): `rc` is this rank's state (-1: go
 * on; 0: done without failing, as --help; else its exit code) and `hash` its scene and
 * options (ms_app_launch_hash). Returns -1 to go on, or the exit code for every rank: the
 * lowest failing rank's, whose message rank 0 prints; 2 when the hashes differ. */
int ms_app_ranks_launch(int rc, uint32_t hash);

/* The end of main: makes the launch agreement if this rank never reached it, else agrees
 * on the exit code (the lowest failing rank's); leaves the MPI job. Returns the code. */
int ms_app_ranks_end(int rc);

/* --devices local-rank (else `devices` itself): the GPU of this rank's place among the
 * ranks on its node (MPI_COMM_TYPE_SHARED), the (local rank mod GPUs)-th GPU in P:D order,
 * written to buf; without a GPU the CPU device. */
const char *ms_app_rank_devices(const char *devices, char *buf, size_t cap);

/* 1 on rank 0 (and in a single process): the rank that writes every output. */
int ms_app_is_root(void);

/* The launch agreement after the scene was loaded: several ranks (gravity mode's split of
 * the bodies, collision mode's domains) compare a CRC-32 of the parsed scene (the keys that
 * steer a run, and gravity's bodies) and the options that steer its collective steps
 * (checkpoint_every: -1 without --checkpoint). Returns -1 to go on, or an exit code. */
int ms_app_launch(const ms_scene *sc, const char *kernel, long burst,
                  long checkpoint_every, int resume, const ms_series_options *so);

#endif
