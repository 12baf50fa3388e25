/* The mixsim command for mode = gravity: runs a loaded scene headless with progress
 * lines, then prints the breakdown and the state hash, like the collision mode. */
#ifndef MS_GRAVITY_CLI_H
#define MS_GRAVITY_CLI_H

#include <signal.h>

#include "io/series.h"
#include "mixsim/scene.h"

typedef struct ms_gravity_cli {
  const char *scene_path;
  const char *devices; /* --devices, else --device; NULL: $MIXSIM_DEVICE or the default */
  const char *kernel;  /* --gravity-kernel */
  long burst;          /* --burst; 0: the scene's */
  const char *stats_path, *dump_path;
  int quiet;
  const char *checkpoint, *resume; /* --checkpoint FILE, --resume FILE */
  long checkpoint_every;
  const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: stop after this step */
  const ms_series_options *output;   /* --output; NULL: none */
  /* An output that could not be written (a periodic checkpoint, a frame, an output of the
   * end), named by its option: said on stderr and kept for the exit code. A lost frame
   * stops the run there; the end's outputs are written all the same. */
  void (*output_lost)(ms_status st, const char *opt);
} ms_gravity_cli;

/* Returns the process exit code (0, or the ms_status of the failure, reported); outputs
 * that were not written went to output_lost; the step the run ended at in *step (where a
 * signal stopped it). */
int ms_gravity_cli_run(const ms_gravity_cli *cli, const ms_scene *scene, long *step);

#endif
