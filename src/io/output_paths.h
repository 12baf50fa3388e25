/* Every file a run writes, and those it reads that a write must not replace, compared by
 * where they land (io/output_file.h): two outputs on one file, an output on an input, or
 * on one of the names the --output or --frames folder holds, is refused before the run. */
#ifndef MS_IO_OUTPUT_PATHS_H
#define MS_IO_OUTPUT_PATHS_H

#include "io/series.h"
#include "mixsim/status.h"

typedef enum ms_path_role {
  MS_PATH_OUTPUT,  /* written by the run: an option's file */
  MS_PATH_IMPLIED, /* written by the run beside or instead of one (named after it) */
  MS_PATH_INPUT,  /* read by the run: the scene and its files; no output may replace it */
  MS_PATH_RESUME  /* the --resume checkpoint: only --checkpoint may replace it */
} ms_path_role;

typedef struct ms_path_use {
  const char *what; /* an option ("--stats"), or what the file is ("the scene file") */
  const char *path; /* NULL: not used by this run */
  ms_path_role role;
} ms_path_use;

/* MS_ERR_INPUT, naming both uses and the path, at the first clash: two outputs, or an
 * output and an input, on one file; an output or an input on a file the series
 * (`series`, may be NULL or have no folder) writes, or on a PNG frame of `frames_dir`
 * (may be NULL). */
ms_status ms_paths_distinct(const ms_path_use *use, int n, const ms_series_options *series,
                            const char *frames_dir);

#endif
