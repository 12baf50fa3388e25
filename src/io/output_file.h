/* Output files are written whole or not at all, whatever the output: stats, dumps,
 * checkpoints, PNG frames. */
#ifndef MS_OUTPUT_FILE_H
#define MS_OUTPUT_FILE_H

#include <stdio.h>

#include "mixsim/status.h"

/* Writes `path` through `write` into a temporary file in the same folder, then renames
 * it over `path`; on failure nothing is left behind. */
ms_status ms_write_atomic(const char *path, int (*write)(FILE *f, void *ctx), void *ctx);

/* Writes `text` as a JSON string literal, escaped. */
void ms_json_string(FILE *f, const char *text);

#endif
