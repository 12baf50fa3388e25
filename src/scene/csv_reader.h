/* The line-by-line CSV reading shared by the gravity body files (bodies_csv.c) and the
 * collision particle files (particles_csv.c): bounded lines, a UTF-8 byte order mark
 * skipped, NUL bytes refused, blank lines and '#' comment lines skipped, fields split at
 * commas and trimmed, numbers checked, every message "path:line: problem". */
#ifndef MS_SCENE_CSV_READER_H
#define MS_SCENE_CSV_READER_H

#include <stddef.h>
#include <stdio.h>

#include "mixsim/status.h"

#define MS_CSV_MAX_FIELDS 16

typedef struct ms_csv {
  FILE *f;
  const char *path;  /* for messages */
  long line;         /* of the line last read; 0 for messages about the whole file */
  long max_lines;
  char *message;     /* where the first error goes */
  size_t size;
  char buf[4096];
} ms_csv;

/* Reads the next line with content and splits it at commas: field[0..min(*n, max)-1]
 * point into the line, *n is how many fields it had. Returns MS_OK with *n > 0, MS_OK
 * with *n = 0 at the end of the file, or an error with the message set (MS_ERR_INPUT:
 * too many lines, a line too long, a NUL byte; MS_ERR_RUNTIME: a read error). */
ms_status ms_csv_next(ms_csv *c, char *field[MS_CSV_MAX_FIELDS], int *n);

/* Records "path:line: problem" (or "path: problem" when line is 0); MS_ERR_INPUT. */
__attribute__((format(printf, 2, 3))) ms_status ms_csv_fail(ms_csv *c, const char *fmt, ...);

/* Records "path: problem" as a runtime failure (out of memory); MS_ERR_RUNTIME. */
ms_status ms_csv_runtime(ms_csv *c, const char *problem);

/* One finite number in column `column`: an empty field, text, trailing text, NaN/Inf
 * and numbers beyond a double's range are refused naming the column and the text. */
ms_status ms_csv_number(ms_csv *c, const char *column, const char *text, double *out);

#endif
