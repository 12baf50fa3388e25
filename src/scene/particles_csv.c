/* Scene loader, particle files: [small] file and [large_file.NAME] file read collision
 * particles from a CSV with the columns --dump writes (kind,index,x,y,vx,vy,radius,
 * mass,static, with friction theta,omega, then id), found by name in the header. Every value is checked with its file, line
 * and column; placement.c then checks the discs against the box and each other. */
#include "scene/loader.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/file.h"
#include "core/number.h"
#include "scene/csv_reader.h"
#include "shared/contact.h"

/* A file holds at most all the particles a scene may have, 256 bytes and 2 lines each. */
#define MAX_ROWS (MS_LD_MAX_SMALL + MS_LD_MAX_LARGE)
#define MAX_BYTES (256L * MAX_ROWS)

enum { COL_KIND, COL_INDEX, COL_X, COL_Y, COL_VX, COL_VY, COL_RADIUS, COL_MASS, COL_STATIC,
       COL_THETA, COL_OMEGA, COL_ID, COL_COUNT };
static const char *const g_names[COL_COUNT] = {"kind", "index", "x",    "y",     "vx",   "vy",
                                               "radius", "mass", "static", "theta", "omega", "id"};

typedef struct reader {
  loader *ld;
  const section *sec;
  particle_file *pf;
  ms_csv *c;
  int large;          /* takes the rows of kind large (else small) */
  int col[COL_COUNT]; /* field of each column, -1: absent */
  int n_cols;
  long header_line;
  long cap;
} reader;

static int has(const reader *r, int column) { return r->col[column] >= 0; }

int ms_ld_fail_csv(loader *ld, const section *sec, const ms_csv *c, ms_status st)
{
  if (st == MS_ERR_RUNTIME) {
    ld->status = st;
    ld->error_line = 0;
    return 0;
  }
  char csv_message[1024];
  snprintf(csv_message, sizeof csv_message, "%s", c->message);
  return ms_ld_fail_key(ld, sec, "file", "%s", csv_message);
}

static ms_status take_header(reader *r, char *field[MS_CSV_MAX_FIELDS], int n)
{
  ms_csv *c = r->c;
  if (n > MS_CSV_MAX_FIELDS)
    return ms_csv_fail(c, "%d columns, more than the %d a header may name", n, MS_CSV_MAX_FIELDS);
  for (int k = 0; k < COL_COUNT; k++)
    r->col[k] = -1;
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < COL_COUNT && strcasecmp(field[i], g_names[k]) != 0)
      k++;
    if (k == COL_COUNT)
      return ms_csv_fail(c, "column '%s' is not one of kind, index, x, y, vx, vy, radius, mass, "
                            "static, theta, omega, id (the first line must be a header naming the "
                            "columns, as --dump writes it)", field[i]);
    if (r->col[k] >= 0)
      return ms_csv_fail(c, "column %s given twice", g_names[k]);
    r->col[k] = i;
  }
  if (!has(r, COL_X) || !has(r, COL_Y))
    return ms_csv_fail(c, "the header has no column %s (x and y are required)",
                       has(r, COL_X) ? "y" : "x");
  r->n_cols = n;
  r->header_line = c->line;
  return MS_OK;
}

/* Keys of the section that a column of the file would contradict. */
static int check_header_keys(reader *r)
{
  loader *ld = r->ld;
  const section *sec = r->sec;
  const char *path = r->pf->path;
  static const struct { int column; const char *key; } pairs[] = {
      {COL_RADIUS, "radius"}, {COL_MASS, "density"}, {COL_MASS, "thickness"},
      {COL_VX, "velocity"}, {COL_VY, "velocity"}, {COL_STATIC, "static"}, {COL_OMEGA, "spin"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (has(r, pairs[i].column) && ms_ld_line_of(sec, pairs[i].key))
      return ms_ld_fail_key(ld, sec, pairs[i].key,
                            "%s has %s %s column (line %ld), which gives it per particle; give "
                            "one or the other", path,
                            strchr("aeiou", g_names[pairs[i].column][0]) ? "an" : "a",
                            g_names[pairs[i].column], r->header_line);
  if (!has(r, COL_RADIUS) && !ms_ld_line_of(sec, "radius"))
    return ms_ld_fail_key(ld, sec, "file",
                          "%s:%ld: no radius column: add one or give radius = r in [%s]", path,
                          r->header_line, sec->name);
  return 1;
}

static ms_status take_radius(reader *r, const char *text, float *out)
{
  double v = 0.0;
  ms_status st = ms_csv_number(r->c, "radius", text, &v);
  if (st)
    return st;
  float f = (float)v;
  if (!(v > 0.0))
    return ms_csv_fail(r->c, "column radius: must be > 0 (got %s)", text);
  if (ms_number_float(v, &f) != MS_NUMBER_OK)
    return ms_csv_fail(r->c, "column radius: %s is %g in single precision, which the simulation "
                             "computes in; it must be a normal float (%g to %g)",
                       text, (double)f, (double)FLT_MIN, (double)FLT_MAX);
  *out = f;
  return MS_OK;
}

/* From the mass column, else density * pi r^2: a normal float either way. */
static ms_status take_mass(reader *r, char *field[MS_CSV_MAX_FIELDS], float radius, float *out)
{
  double v = 0.0;
  const char *column = has(r, COL_MASS) ? "mass" : "radius";
  if (has(r, COL_MASS)) {
    ms_status st = ms_csv_number(r->c, "mass", field[r->col[COL_MASS]], &v);
    if (st)
      return st;
    if (!(v > 0.0))
      return ms_csv_fail(r->c, "column mass: must be > 0 (got %s)", field[r->col[COL_MASS]]);
  } else {
    v = r->pf->density * MS_PI * (double)radius * (double)radius;
  }
  float f = (float)v;
  if (ms_number_float(v, &f) != MS_NUMBER_OK)
    return ms_csv_fail(r->c, "column %s: a mass of %g kg is %g in single precision, which the "
                             "simulation computes in; it must lie between %g and %g kg%s",
                       column, v, (double)f, (double)FLT_MIN, (double)FLT_MAX,
                       has(r, COL_MASS) ? "" : " (mass = density x pi r^2)");
  *out = f;
  return MS_OK;
}

static ms_status take_static(reader *r, const char *text, int *out)
{
  int yes = strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0;
  if (!yes && strcmp(text, "0") != 0 && strcasecmp(text, "false") != 0)
    return ms_csv_fail(r->c, "column static: expected 0/1/true/false, got '%s'", text);
  if (yes && !r->large)
    return ms_csv_fail(r->c, "column static: small particles cannot be static (got '%s')", text);
  *out = yes;
  return MS_OK;
}

/* The id column: a whole number, 0 to 2^53 - 1 (exact in a double, as JSON and the
 * Python tools read numbers); uniqueness is checked over the whole scene (dump_state.c). */
#define ID_MAX ((INT64_C(1) << 53) - 1)
static ms_status take_id(reader *r, const char *text, int64_t *out)
{
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno || text[0] == '+' || v < 0 || v > ID_MAX)
    return ms_csv_fail(r->c, "column id: expected a whole number from 0 to %lld (a particle's "
                             "persistent id), got '%s'", (long long)ID_MAX, text);
  *out = (int64_t)v;
  return MS_OK;
}

/* 1: the row is of the kind this section takes (always, without a kind column). */
static ms_status row_wanted(reader *r, char *field[MS_CSV_MAX_FIELDS], int *wanted)
{
  *wanted = 1;
  if (!has(r, COL_KIND))
    return MS_OK;
  const char *kind = field[r->col[COL_KIND]];
  int large = strcmp(kind, "large") == 0;
  if (!large && strcmp(kind, "small") != 0)
    return ms_csv_fail(r->c, "column kind: expected small or large, got '%s'", kind);
  *wanted = large == r->large;
  r->pf->other_kind += !*wanted;
  return MS_OK;
}

/* The index column is read over, except that a whole number matches a dump's contact
 * histories to the row (dump_state.c); anything else is -1. */
static long row_index(const char *text)
{
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  return end != text && *end == '\0' && errno == 0 && v >= 0 && text[0] != '-' && text[0] != '+'
             ? v : -1;
}

static ms_status grow_discs(reader *r)
{
  particle_file *pf = r->pf;
  if (pf->count < r->cap)
    return MS_OK;
  long n = r->cap ? 2 * r->cap : 1024;
  file_disc *d = realloc(pf->disc, (size_t)n * sizeof *d);
  if (!d)
    return ms_csv_runtime(r->c, "out of memory");
  pf->disc = d;
  r->cap = n;
  return MS_OK;
}

static ms_status take_row(reader *r, char *field[MS_CSV_MAX_FIELDS], int n)
{
  ms_csv *c = r->c;
  particle_file *pf = r->pf;
  if (n != r->n_cols)
    return ms_csv_fail(c, "expected %d comma-separated values (as the header at line %ld), got %d",
                       r->n_cols, r->header_line, n);
  int wanted = 0;
  ms_status st = row_wanted(r, field, &wanted);
  if (st || !wanted)
    return st;
  long max = r->large ? MS_LD_MAX_LARGE : MS_LD_MAX_SMALL;
  if (pf->count == max)
    return ms_csv_fail(c, "more than %ld %s particles", max, r->large ? "large" : "small");
  if ((st = grow_discs(r)))
    return st;
  file_disc d = {.vx = pf->velocity[0], .vy = pf->velocity[1], .r = pf->radius,
                 .w = r->large ? 0.0 : r->ld->scene->small_spin, .is_static = pf->is_static,
                 .line = c->line,
                 .index = has(r, COL_INDEX) ? row_index(field[r->col[COL_INDEX]]) : -1,
                 .id = -1};
  const double *o = r->ld->scene->box_min;
  double *value[COL_COUNT] = {[COL_X] = &d.x, [COL_Y] = &d.y, [COL_VX] = &d.vx, [COL_VY] = &d.vy,
                              [COL_THETA] = &d.theta, [COL_OMEGA] = &d.w};
  for (int k = COL_X; k < COL_COUNT; k++)
    if (value[k] && has(r, k) && (st = ms_csv_number(c, g_names[k], field[r->col[k]], value[k])))
      return st;
  d.x -= o[0]; /* into the frame */
  d.y -= o[1];
  if (has(r, COL_RADIUS) && (st = take_radius(r, field[r->col[COL_RADIUS]], &d.r)))
    return st;
  if ((st = take_mass(r, field, d.r, &d.m)))
    return st;
  if (has(r, COL_STATIC) && (st = take_static(r, field[r->col[COL_STATIC]], &d.is_static)))
    return st;
  if (has(r, COL_ID) && (st = take_id(r, field[r->col[COL_ID]], &d.id)))
    return st;
  if (d.is_static && (d.vx != 0.0 || d.vy != 0.0))
    return ms_csv_fail(c, "a static particle must have velocity 0, 0 (got %g, %g)", d.vx, d.vy);
  if (d.is_static && d.w != 0.0)
    return ms_csv_fail(c, "column omega: a static particle never turns: its spin must be 0 "
                          "(got %g)", d.w);
  pf->disc[pf->count++] = d;
  return MS_OK;
}

static ms_status read_rows(reader *r)
{
  char *field[MS_CSV_MAX_FIELDS];
  int n = 0, header = 0;
  ms_status st;
  while ((st = ms_csv_next(r->c, field, &n)) == MS_OK && n > 0) {
    st = header++ ? take_row(r, field, n) : take_header(r, field, n);
    if (st)
      return st;
    if (header == 1 && !check_header_keys(r))
      return MS_ERR_INPUT;
  }
  if (st)
    return st;
  r->c->line = 0;
  if (!header)
    return ms_csv_fail(r->c, "empty (expected a header naming the columns, then one particle "
                             "per line)");
  if (r->pf->count == 0)
    return ms_csv_fail(r->c, "no %s particles%s", r->large ? "large" : "small",
                       has(r, COL_KIND) ? " (no row of that kind)" : "");
  return MS_OK;
}

/* The file key, relative to the scene's folder unless absolute. */
static int resolve(loader *ld, const section *sec, particle_file *pf)
{
  const char *slash = strrchr(ld->path, '/');
  int dir_len = pf->name[0] != '/' && slash ? (int)(slash - ld->path) + 1 : 0;
  int n = snprintf(pf->path, sizeof pf->path, "%.*s%s", dir_len, ld->path, pf->name);
  if (n < 0 || (size_t)n >= sizeof pf->path)
    return ms_ld_fail_key(ld, sec, "file", "path too long");
  return 1;
}

static int read_file(loader *ld, particle_file *pf, int large)
{
  const section *sec = &ld->sections[pf->section];
  if (!resolve(ld, sec, pf))
    return 0;
  char why[256];
  FILE *f = ms_open_regular(pf->path, MAX_BYTES, why, sizeof why);
  if (!f)
    return ms_ld_fail_key(ld, sec, "file", "cannot open '%s': %s", pf->path, why);
  ms_csv *c = malloc(sizeof *c);
  if (!c) {
    fclose(f);
    return ms_ld_fail_memory(ld);
  }
  *c = (ms_csv){.f = f, .path = pf->path, .max_lines = 2 * MAX_ROWS, .message = ld->message,
                .size = sizeof ld->message};
  reader r = {.ld = ld, .sec = sec, .pf = pf, .c = c, .large = large};
  ms_status st = read_rows(&r);
  int ok = st == MS_OK;
  if (!ok && ld->status == MS_OK) /* (check_header_keys records its own error) */
    ms_ld_fail_csv(r.ld, r.sec, r.c, st);
  free(c);
  fclose(f);
  if (!ok || !ms_ld_note_input(ld, sec->name, "file", pf->path))
    return 0;
  pf->has_rot = has(&r, COL_THETA) || has(&r, COL_OMEGA);
  pf->has_index = has(&r, COL_INDEX);
  pf->has_id = has(&r, COL_ID);
  if (pf->has_rot && !ms_scene_friction_on(ld->scene))
    ms_ld_warn_key(ld, sec, "file", "%s has %s, which this scene does not use: it has no "
                   "friction, so no particle turns", pf->path,
                   has(&r, COL_THETA) && has(&r, COL_OMEGA) ? "theta and omega columns"
                   : has(&r, COL_THETA) ? "a theta column" : "an omega column");
  /* The density's warning, now that the radii are known (rows with a mass use none). */
  double r_min = INFINITY, areal = 0.0;
  for (long i = 0; i < pf->count; i++)
    r_min = fmin(r_min, pf->disc[i].r);
  return has(&r, COL_MASS) || ms_ld_areal_density(ld, sec, r_min, &areal);
}

/* Rows of the other kind are for the other section: said when no section takes them. */
static void warn_other_kind(loader *ld, const particle_file *pf, int large)
{
  if (pf->other_kind == 0)
    return;
  const particle_file *small = &ld->small.file;
  if (large && small->section >= 0 && strcmp(small->path, pf->path) == 0)
    return;
  for (int i = 0; !large && i < ld->file_count; i++)
    if (strcmp(ld->files[i].path, pf->path) == 0)
      return;
  ms_ld_warn_key(ld, &ld->sections[pf->section], "file",
                 "%s has %ld rows of kind %s, which are not loaded (%s reads them)", pf->path,
                 pf->other_kind, large ? "small" : "large",
                 large ? "[small] file" : "a [large_file.NAME] section");
}

/* The small particles' count and sizes are the file's. */
static int take_small_sizes(loader *ld)
{
  ms_scene *s = ld->scene;
  const particle_file *small = &ld->small.file;
  float r_min = small->disc[0].r, r_max = r_min;
  for (long i = 1; i < small->count; i++) {
    r_min = fminf(r_min, small->disc[i].r);
    r_max = fmaxf(r_max, small->disc[i].r);
  }
  ld->small.count = small->count;
  s->small_radius = r_max; /* the grid's cell is one largest diameter */
  s->small_radius_min = r_min;
  return ms_ld_check_grid(ld);
}

int ms_ld_read_particle_files(loader *ld)
{
  particle_file *small = &ld->small.file;
  for (int i = 0; i < ld->file_count; i++)
    if (!read_file(ld, &ld->files[i], 1))
      return 0;
  if (small->section >= 0 && !(read_file(ld, small, 0) && take_small_sizes(ld)))
    return 0;
  if (small->section >= 0)
    warn_other_kind(ld, small, 0);
  for (int i = 0; i < ld->file_count; i++)
    warn_other_kind(ld, &ld->files[i], 1);
  return 1;
}

void ms_ld_free_particle_files(loader *ld)
{
  for (int i = 0; i < ld->file_count; i++)
    free(ld->files[i].disc);
  free(ld->files);
  free(ld->small.file.disc);
}
