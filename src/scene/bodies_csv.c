/* Gravity-mode bodies from a CSV file: x,y,z,vx,vy,vz,m per line, every value checked
 * with the line it came from. */
#include "scene/bodies.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/file.h"
#include "core/strtrim.h"

static const char *const g_columns[7] = {"x", "y", "z", "vx", "vy", "vz", "m"};

typedef struct csv {
  const char *path;
  int line;
  char *message;
  size_t size;
} csv;

__attribute__((format(printf, 2, 3))) static ms_status csv_fail(csv *c, const char *fmt, ...)
{
  char problem[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(problem, sizeof problem, fmt, ap);
  va_end(ap);
  if (c->line > 0)
    snprintf(c->message, c->size, "%s:%d: %s", c->path, c->line, problem);
  else
    snprintf(c->message, c->size, "%s: %s", c->path, problem);
  return MS_ERR_INPUT;
}

/* Splits `line` at commas into at most 8 trimmed fields; returns how many there were. */
static int split(char *line, char *field[8])
{
  int n = 0;
  for (char *p = line;; n++) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    if (n < 8)
      field[n] = ms_trim(p);
    if (!comma)
      return n + 1;
    p = comma + 1;
  }
}

static int is_header(char *field[8], int n)
{
  if (n != 7)
    return 0;
  for (int k = 0; k < 7; k++)
    if (strcasecmp(field[k], g_columns[k]) != 0)
      return 0;
  return 1;
}

static ms_status parse_value(csv *c, int column, const char *text, double *out)
{
  const char *name = g_columns[column];
  if (!*text)
    return csv_fail(c, "column %s: empty value", name);
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end)
    return csv_fail(c, "column %s: expected a number, got '%s'", name, text);
  if (!isfinite(v))
    return csv_fail(c, "column %s: %s not allowed (got '%s')", name,
                    errno == ERANGE ? "out-of-range number" : "NaN/Inf", text);
  if (fabs(v) > FLT_MAX)
    return csv_fail(c, "column %s: %s does not fit in a float", name, text);
  if (column == 6 && v < 0.0)
    return csv_fail(c, "column m: negative mass (got %s)", text);
  /* The kernels divide by and sum masses in float: one that becomes 0 or denormal
   * there would silently turn a body into a tracer. */
  if (column == 6 && v > 0.0 && (float)v < FLT_MIN)
    return csv_fail(c, "column m: %s is too small for single precision, which the simulation "
                       "computes in (it would be %g; use 0 for a massless body or at least %g)",
                    text, (double)(float)v, (double)FLT_MIN);
  *out = v;
  return MS_OK;
}

/* Spreadsheets save UTF-8 with a byte order mark in front of the header. */
static char *skip_bom(char *line)
{
  return strncmp(line, "\xEF\xBB\xBF", 3) == 0 ? line + 3 : line;
}

static ms_status grow_state(ms_gravity_scene *g, int *cap)
{
  int n = *cap ? *cap * 2 : 1024;
  float *pos = realloc(g->pos, (size_t)n * 4 * sizeof *pos);
  if (pos)
    g->pos = pos;
  float *vel = pos ? realloc(g->vel, (size_t)n * 3 * sizeof *vel) : NULL;
  if (!pos || !vel)
    return MS_ERR_RUNTIME;
  g->vel = vel;
  *cap = n;
  return MS_OK;
}

static ms_status read_rows(csv *c, FILE *f, ms_gravity_scene *g)
{
  char buf[4096];
  int cap = 0, seen_content = 0;
  double total_mass = 0.0;
  g->count = 0;
  ms_line read;
  while (ms_read_line(f, buf, sizeof buf, &read)) {
    if (++c->line > MS_BODIES_MAX_LINES)
      return csv_fail(c, "too many lines (at most %ld)", MS_BODIES_MAX_LINES);
    if (!read.complete)
      return csv_fail(c, "line too long (at most %d characters)", (int)sizeof buf - 2);
    if (read.has_nul)
      return csv_fail(c, "NUL byte in the line (text after it would be lost)");
    char *line = ms_trim(c->line == 1 ? skip_bom(buf) : buf);
    if (!*line || *line == '#')
      continue;
    char *field[8];
    int n = split(line, field);
    if (!seen_content++ && is_header(field, n))
      continue;
    if (n != 7)
      return csv_fail(c, "expected 7 comma-separated values x,y,z,vx,vy,vz,m, got %d", n);
    if (g->count == MS_GRAVITY_MAX_BODIES)
      return csv_fail(c, "too many bodies (at most %d)", MS_GRAVITY_MAX_BODIES);
    if (g->count == cap && grow_state(g, &cap) != MS_OK) {
      snprintf(c->message, c->size, "%s: out of memory", c->path);
      return MS_ERR_RUNTIME;
    }
    double v[7];
    for (int k = 0; k < 7; k++)
      if (parse_value(c, k, field[k], &v[k]) != MS_OK)
        return MS_ERR_INPUT;
    float *p = &g->pos[4 * g->count], *u = &g->vel[3 * g->count];
    p[0] = (float)v[0], p[1] = (float)v[1], p[2] = (float)v[2], p[3] = (float)v[6];
    u[0] = (float)v[3], u[1] = (float)v[4], u[2] = (float)v[5];
    total_mass += p[3];
    g->count++;
  }
  if (ferror(f)) {
    snprintf(c->message, c->size, "%s: read error", c->path);
    return MS_ERR_RUNTIME;
  }
  c->line = 0;
  if (g->count == 0)
    return csv_fail(c, "no bodies (expected lines x,y,z,vx,vy,vz,m)");
  if (!(total_mass > 0.0))
    return csv_fail(c, "total mass is 0: at least one body needs m > 0");
  return MS_OK;
}

ms_status ms_bodies_read_csv(FILE *f, ms_gravity_scene *g, char *message, size_t size)
{
  csv c = {g->file, 0, message, size};
  return read_rows(&c, f, g);
}
