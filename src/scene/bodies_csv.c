/* Gravity-mode bodies from a CSV file: x,y,z,vx,vy,vz,m per line, or the columns in the
 * order a header line names them; every value checked with the line it came from
 * (lines and numbers: csv_reader.c). */
#include "scene/bodies.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/number.h"
#include "scene/csv_reader.h"

static const char *const g_columns[7] = {"x", "y", "z", "vx", "vy", "vz", "m"};

/* Where each column is on a line: col[k] is the field of g_columns[k]. Without a
 * header, the order of g_columns. */
typedef struct layout {
  int col[7];
  int fields;       /* fields a line must have */
  long header_line; /* 0: no header */
} layout;

/* A first line whose first field is not a number is a header: it names every column,
 * in any order, each once; all seven are required and no other is taken (a column that
 * the reader would drop could be a misspelt one). */
static ms_status take_header(ms_csv *c, char *field[MS_CSV_MAX_FIELDS], int n, layout *lay)
{
  if (n > MS_CSV_MAX_FIELDS)
    return ms_csv_fail(c, "%d columns in the header, more than the %d it may name", n,
                       MS_CSV_MAX_FIELDS);
  for (int k = 0; k < 7; k++)
    lay->col[k] = -1;
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < 7 && strcasecmp(field[i], g_columns[k]) != 0)
      k++;
    if (k == 7)
      return ms_csv_fail(c, "column '%s' is not one of x, y, z, vx, vy, vz, m (the header "
                            "names the columns, in any order)", field[i]);
    if (lay->col[k] >= 0)
      return ms_csv_fail(c, "column %s given twice in the header", g_columns[k]);
    lay->col[k] = i;
  }
  for (int k = 0; k < 7; k++)
    if (lay->col[k] < 0)
      return ms_csv_fail(c, "the header has no column %s (x, y, z, vx, vy, vz and m are "
                            "required)", g_columns[k]);
  lay->fields = n;
  lay->header_line = c->line;
  return MS_OK;
}

/* A number, or an empty field (then the row's own error names the column). */
static int starts_with_number(const char *text)
{
  char *end;
  (void)strtod(text, &end);
  return end != text || !*text;
}

static ms_status parse_value(ms_csv *c, int column, const char *text, double *out)
{
  const char *name = g_columns[column];
  double v = 0.0;
  ms_status st = ms_csv_number(c, name, text, &v);
  if (st)
    return st;
  float f = 0.0f;
  ms_number_error as_float = ms_number_float(v, &f);
  if (as_float == MS_NUMBER_RANGE)
    return ms_csv_fail(c, "column %s: %s does not fit in a float", name, text);
  if (column == 6 && v < 0.0)
    return ms_csv_fail(c, "column m: negative mass (got %s)", text);
  /* The kernels divide by and sum masses in float: one that becomes 0 or denormal
   * there would silently turn a body into a tracer. (A position or velocity may be
   * denormal: a run's state can be, and a dump writes it.) */
  if (column == 6 && as_float == MS_NUMBER_NOT_NORMAL)
    return ms_csv_fail(c, "column m: %s is too small for single precision, which the simulation "
                          "computes in (it would be %g; use 0 for a massless body or at least %g)",
                       text, (double)(float)v, (double)FLT_MIN);
  *out = v;
  return MS_OK;
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

/* One body from the fields of a line. */
static ms_status take_body(ms_csv *c, ms_gravity_scene *g, char *field[MS_CSV_MAX_FIELDS],
                           const layout *lay, double *total_mass)
{
  double v[7];
  for (int k = 0; k < 7; k++)
    if (parse_value(c, k, field[lay->col[k]], &v[k]) != MS_OK)
      return MS_ERR_INPUT;
  float *p = &g->pos[4 * g->count], *u = &g->vel[3 * g->count];
  p[0] = (float)v[0], p[1] = (float)v[1], p[2] = (float)v[2], p[3] = (float)v[6];
  u[0] = (float)v[3], u[1] = (float)v[4], u[2] = (float)v[5];
  *total_mass += p[3];
  g->count++;
  return MS_OK;
}

static ms_status read_rows(ms_csv *c, ms_gravity_scene *g)
{
  int cap = 0, seen_content = 0, n = 0;
  double total_mass = 0.0;
  char *field[MS_CSV_MAX_FIELDS];
  layout lay = {{0, 1, 2, 3, 4, 5, 6}, 7, 0};
  ms_status st;
  g->count = 0;
  while ((st = ms_csv_next(c, field, &n)) == MS_OK && n > 0) {
    if (!seen_content++ && !starts_with_number(field[0])) {
      if ((st = take_header(c, field, n, &lay)))
        return st;
      continue;
    }
    if (n != lay.fields && lay.header_line)
      return ms_csv_fail(c, "expected %d comma-separated values (the columns of the header on "
                            "line %ld), got %d", lay.fields, lay.header_line, n);
    if (n != lay.fields)
      return ms_csv_fail(c, "expected 7 comma-separated values x,y,z,vx,vy,vz,m, got %d", n);
    if (g->count == MS_GRAVITY_MAX_BODIES)
      return ms_csv_fail(c, "too many bodies (at most %d)", MS_GRAVITY_MAX_BODIES);
    if (g->count == cap && grow_state(g, &cap) != MS_OK)
      return ms_csv_runtime(c, "out of memory");
    if ((st = take_body(c, g, field, &lay, &total_mass)))
      return st;
  }
  if (st)
    return st;
  c->line = 0;
  if (g->count == 0)
    return ms_csv_fail(c, "no bodies (expected lines x,y,z,vx,vy,vz,m)");
  if (!(total_mass > 0.0))
    return ms_csv_fail(c, "total mass is 0: at least one body needs m > 0");
  return MS_OK;
}

ms_status ms_bodies_read_csv(FILE *f, ms_gravity_scene *g, char *message, size_t size)
{
  ms_csv *c = malloc(sizeof *c);
  if (!c) {
    snprintf(message, size, "%s: out of memory", g->file);
    return MS_ERR_RUNTIME;
  }
  *c = (ms_csv){.f = f, .path = g->file, .max_lines = MS_BODIES_MAX_LINES, .message = message,
                .size = size};
  ms_status st = read_rows(c, g);
  free(c);
  return st;
}
