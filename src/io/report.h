/* What a run reports: the per-phase breakdown (text and JSON) and the state dump.
 * Files are written whole or not at all (io/output_file.h). */
#ifndef MS_REPORT_H
#define MS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "collision/tuner.h"
#include "io/writer.h"
#include "mixsim/sim.h"

typedef struct ms_run_info {
  const char *scene_path;
  uint32_t hash;
  double wall_s; /* wall time of the whole stepping loop */
  ms_state_summary summary; /* contacts and kinetic energy at the end */
  ms_tuner *tuner; /* what was auto and how it was chosen; NULL: nothing was */
  int writer_used;      /* --output: the writer thread's figures below */
  ms_writer_stats writer;
  char domains[16384]; /* --devices in collision mode: the domains' lines (else empty) */
} ms_run_info;

void ms_report_breakdown(FILE *out, const ms_sim *sim, const ms_run_info *info);
ms_status ms_report_stats_json(const char *path, const ms_sim *sim, const ms_run_info *info);
ms_status ms_report_dump_csv(const char *path, ms_sim *sim);

#endif
