/* PNG files of rendered frames, written whole or not at all (libpng). */
#ifndef MS_PNG_OUT_H
#define MS_PNG_OUT_H

#include <stdint.h>

#include "mixsim/status.h"

/* Writes `rgba` (w x h pixels, 4 bytes each in R G B A order, `stride` bytes a row) to
 * `path` through ms_write_atomic (io/output_file.h). */
ms_status ms_png_write(const char *path, int w, int h, const uint8_t *rgba, int stride);

#endif
