/* Where gravity-mode bodies come from: the generators and the CSV reader behind
 * [gravity] bodies = plummer | uniform | kepler | disk | file. The scene loader calls
 * them once the [gravity] keys are validated. */
#ifndef MS_GRAVITY_INIT_H
#define MS_GRAVITY_INIT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "mixsim/scene.h"

#define MS_GRAVITY_MAX_BODIES 16777216 /* 2^24: int indices, float4 buffers < 256 MiB */
/* A body file: 128 bytes and 2 lines (comments, blank lines) per body at most. */
#define MS_BODIES_MAX_BYTES (128L * MS_GRAVITY_MAX_BODIES)
#define MS_BODIES_MAX_LINES (2L * MS_GRAVITY_MAX_BODIES)

/* Fills g->pos and g->vel (g->count bodies, or 2 for kepler) from the parameters in g,
 * deterministically from `seed`, with the centre of mass at rest at the origin.
 * Returns MS_OK or MS_ERR_RUNTIME (out of memory). */
ms_status ms_bodies_generate(ms_gravity_scene *g, uint64_t seed);

/* Reads `f`, opened from g->file: one body per line, x,y,z,vx,vy,vz,m; a UTF-8 byte
 * order mark, blank lines and lines starting with '#' are skipped, and a first line
 * that does not start with a number is a header naming the seven columns in any order
 * (no others; each once). Every value must be a finite number that fits
 * in a float, masses 0 or normal floats with a positive total; a NUL byte is an error. Sets g->count, g->pos, g->vel. On failure returns MS_ERR_INPUT with
 * "file:line: problem" in `message` (MS_ERR_RUNTIME: read error, out of memory). */
ms_status ms_bodies_read_csv(FILE *f, ms_gravity_scene *g, char *message, size_t size);

#endif
