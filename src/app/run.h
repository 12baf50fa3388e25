/* The collision-mode run loop of headless and offscreen runs: chunks with progress,
 * periodic checkpoints, offscreen frames, a stop on SIGINT/SIGTERM at the next
 * iteration, and the last-good-state replay after a numerical failure. */
#ifndef MS_APP_RUN_H
#define MS_APP_RUN_H

#include <stdint.h>

#include "collision/tuner.h"
#include "domains/domains.h"
#include "io/series.h"
#include "mixsim/checkpoint.h"
#include "mixsim/sim.h"
#include "preview/preview.h"

typedef struct ms_run_plan {
  long total;             /* run up to this step (a resumed run starts past 0) */
  int progress;           /* show a progress line on stderr */
  const char *checkpoint; /* NULL: no periodic checkpoints */
  long checkpoint_every;  /* 0: none on the way */
  const ms_scene_id *scene_id; /* what checkpoints record (NULL: none) */
  const char *last_good;  /* where a numerical failure leaves the last good state; NULL: nowhere */
  const ms_preview_options *offscreen; /* frames_dir and/or screenshot; NULL: headless */
  /* An output that could not be written on the way (a periodic checkpoint, a frame, the
   * screenshot) is handed to this, naming its option, and the run goes on: one lost
   * output costs neither the run nor the report. */
  void (*output_lost)(ms_status st, const char *opt);
  /* Something given as auto: before each chunk the tuner sets the configuration and
   * caps the chunk at its batch, and is told the chunk's time after (collision/tuner.h).
   * NULL: the configuration stays as it is. */
  ms_tuner *tuner;
  /* --output: a frame of the first state, every K steps and of the last (where a signal
   * stopped the run too), handed to the writer thread; a failed write goes to output_lost
   * and stops the run there, which returns MS_OK. NULL: none. */
  ms_series *series;
  /* --devices in collision mode: the advances go over these domains, `sim` the whole
   * state between them (domains/domains.h). NULL: `sim` steps itself. */
  ms_domains *domains;
} ms_run_plan;

/* Runs `sim` to plan->total, or until ms_sim_request_stop (from a signal handler):
 * then it stops after the current iteration, draws the screenshot of the state it
 * reached, and returns MS_OK. `*wall_s` is the loop's time, drawing included. Errors
 * of the simulation itself (OpenCL, numerical) end the run and are returned. */
ms_status ms_app_run(ms_sim *sim, const ms_run_plan *plan, double *wall_s);

#endif
