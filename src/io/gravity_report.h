/* The gravity mode's report: devices, run, speed, energy, momentum, time per phase and
 * the state hash. One text for the headless run and for the window when it closes. */
#ifndef MS_GRAVITY_REPORT_H
#define MS_GRAVITY_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "mixsim/gravity.h"

typedef struct ms_gravity_summary {
  const ms_scene *scene;
  const ms_gravity_stats *stats;
  const ms_gravity_diag *first, *last; /* diagnostics of the first and the final state */
  double max_error;                    /* largest |dE/E| among the diagnostics taken */
  long burst;
  uint32_t hash; /* of the final state */
} ms_gravity_summary;

void ms_report_gravity(FILE *out, const ms_gravity_summary *sum);

#endif
