/* CSV lines and numbers for the scene's data files (see csv_reader.h). */
#include "scene/csv_reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/strtrim.h"

ms_status ms_csv_fail(ms_csv *c, const char *fmt, ...)
{
  char problem[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(problem, sizeof problem, fmt, ap);
  va_end(ap);
  if (c->line > 0)
    snprintf(c->message, c->size, "%s:%ld: %s", c->path, c->line, problem);
  else
    snprintf(c->message, c->size, "%s: %s", c->path, problem);
  return MS_ERR_INPUT;
}

ms_status ms_csv_runtime(ms_csv *c, const char *problem)
{
  snprintf(c->message, c->size, "%s: %s", c->path, problem);
  return MS_ERR_RUNTIME;
}

/* Splits `line` at commas into trimmed fields (the first MS_CSV_MAX_FIELDS kept);
 * returns how many there were. */
static int split(char *line, char *field[MS_CSV_MAX_FIELDS])
{
  int n = 0;
  for (char *p = line;; n++) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    if (n < MS_CSV_MAX_FIELDS)
      field[n] = ms_trim(p);
    if (!comma)
      return n + 1;
    p = comma + 1;
  }
}

/* Spreadsheets save UTF-8 with a byte order mark in front of the header. */
static char *skip_bom(char *line)
{
  return strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? line + 3 : line;
}

ms_status ms_csv_next(ms_csv *c, char *field[MS_CSV_MAX_FIELDS], int *n)
{
  ms_line read;
  *n = 0;
  while (ms_read_line(c->f, c->buf, sizeof c->buf, &read)) {
    if (++c->line > c->max_lines)
      return ms_csv_fail(c, "too many lines (at most %ld)", c->max_lines);
    if (!read.complete)
      return ms_csv_fail(c, "line too long (at most %d characters)", (int)sizeof c->buf - 2);
    if (read.has_nul)
      return ms_csv_fail(c, "NUL byte in the line (text after it would be lost)");
    char *line = ms_trim(c->line == 1 ? skip_bom(c->buf) : c->buf);
    if (!*line || *line == '#')
      continue;
    *n = split(line, field);
    return MS_OK;
  }
  if (ferror(c->f))
    return ms_csv_runtime(c, "read error");
  return MS_OK;
}

ms_status ms_csv_number(ms_csv *c, const char *column, const char *text, double *out)
{
  if (!*text)
    return ms_csv_fail(c, "column %s: empty value", column);
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end)
    return ms_csv_fail(c, "column %s: expected a number, got '%s'", column, text);
  if (!isfinite(v))
    return ms_csv_fail(c, "column %s: %s not allowed (got '%s')", column,
                       errno == ERANGE ? "out-of-range number" : "NaN/Inf", text);
  *out = v;
  return MS_OK;
}
