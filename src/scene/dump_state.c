/* Scene loader, what a scene gathers from its particle files once they are placed: their
 * id columns over the whole scene (ms_scene.small_id, large_id; each id once), and the
 * FILE.state.csv that a --dump writes beside FILE (ms_dump_state_path), read for each
 * particle file: the grid's radius of the dumped run (a [small] file's grid is sized by
 * it), and with friction the contact histories, matched to the rows by kind and index and
 * kept on the scene for the simulation to start from (ms_scene.hist). One of another
 * version of FILE is warned about and not read; with friction, so is a dump without one:
 * the run then starts with every contact unstretched (docs/output.md, "The dump's
 * state"). */
#include "scene/loader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/grow.h"
#include "scene/csv_reader.h"

/* At most 8 contacts and 4 walls a particle, 64 bytes a line. */
#define MAX_BYTES (64L * 12 * (MS_LD_MAX_SMALL + MS_LD_MAX_LARGE))
#define FIRST_LINE "# mixsim dump state: dump CRC-32 "

int ms_dump_state_path(const char *path, char *out, size_t size)
{
  size_t n = strlen(path);
  if (n >= 4 && strcmp(path + n - 4, ".csv") == 0)
    n -= 4;
  int w = snprintf(out, size, "%.*s.state.csv", (int)n, path);
  return w >= 0 && (size_t)w < size;
}

/* ---- a particle file's rows by their index column ---------------------------------- */

typedef struct row_ref {
  long index, scene; /* the dump's index, the scene's */
} row_ref;

typedef struct row_map {
  row_ref *e;
  size_t n;
} row_map;

static int by_index(const void *a, const void *b)
{
  long x = ((const row_ref *)a)->index, y = ((const row_ref *)b)->index;
  return (x > y) - (x < y);
}

/* The rows of `pf` the scene holds, from its index `first` on. */
static int map_add(row_map *m, const particle_file *pf, long first)
{
  row_ref *grown = realloc(m->e, (m->n + (size_t)pf->count + 1) * sizeof *grown);
  if (!grown)
    return 0;
  m->e = grown;
  for (long i = 0; i < pf->count; i++)
    if (pf->disc[i].index >= 0)
      m->e[m->n++] = (row_ref){pf->disc[i].index, first + i};
  if (m->n > 1)
    qsort(m->e, m->n, sizeof *m->e, by_index);
  return 1;
}

static long map_find(const row_map *m, long index)
{
  row_ref key = {index, 0};
  const row_ref *hit = m->n ? bsearch(&key, m->e, m->n, sizeof *m->e, by_index) : NULL;
  return hit ? hit->scene : -1;
}

/* ---- one state file ------------------------------------------------------------------ */

typedef struct state_file {
  loader *ld;
  const section *sec; /* the first section that reads the particle file */
  const char *dump;   /* the particle file */
  char path[600];     /* its state */
  int keep;           /* friction on: the histories are kept */
  row_map small, large;
  long dropped; /* rows naming particles this scene does not read */
  size_t cap[3]; /* room in hist.ss, ls, ll */
  ms_csv *c;
} state_file;

enum { PAIR_SS, PAIR_LS, PAIR_LL, PAIR_SW, PAIR_LW, PAIR_COUNT };
static const char *const g_pairs[PAIR_COUNT] = {"small-small", "large-small", "large-large",
                                                "small-wall", "large-wall"};
static const char *const g_walls[4] = {"left", "right", "bottom", "top"};
static const char *const g_columns[4] = {"pair", "a", "b", "xi"};

static ms_status whole(ms_csv *c, const char *column, const char *text, long *out)
{
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno || v < 0 || v > MS_LD_MAX_SMALL)
    return ms_csv_fail(c, "column %s: expected a row's index (a whole number >= 0), got '%s'",
                       column, text);
  *out = v;
  return MS_OK;
}

static int push(ms_scene_contact **list, long *n, size_t *cap, long a, long b, float xi)
{
  ms_scene_contact *grown = ms_grow(*list, (size_t)*n, cap, sizeof *grown, 64);
  if (!grown)
    return 0;
  *list = grown;
  grown[(*n)++] = (ms_scene_contact){(int)a, (int)b, xi};
  return 1;
}

/* Room for the walls' displacements of `n` particles, +0 (none) where none is given. */
static float *walls_of(float **xi, int n)
{
  if (!*xi)
    *xi = calloc(4 * (size_t)n + 1, sizeof **xi);
  return *xi;
}

/* The row's pair in the scene's indices, stored; a pair with a particle the scene does not
 * read from the dump is counted and left out. */
static ms_status store(state_file *h, int kind, long a, long b, float xi)
{
  if (!h->keep)
    return MS_OK;
  ms_scene *s = h->ld->scene;
  ms_scene_histories *hs = &s->hist;
  const row_map *ma = kind == PAIR_SS || kind == PAIR_SW ? &h->small : &h->large;
  const row_map *mb = kind == PAIR_LL ? &h->large : &h->small;
  long sa = map_find(ma, a), sb = kind < PAIR_SW ? map_find(mb, b) : b;
  if (sa < 0 || sb < 0) {
    h->dropped++;
    return MS_OK;
  }
  long lo = sa < sb ? sa : sb, hi = sa < sb ? sb : sa;
  int ok;
  if (kind == PAIR_SW || kind == PAIR_LW) {
    float *w = kind == PAIR_SW ? walls_of(&hs->small_wall_xi, s->small_count)
                               : walls_of(&hs->large_wall_xi, s->large_count);
    if (w)
      w[4 * sa + sb] = xi;
    ok = w != NULL;
  } else if (kind == PAIR_LS) {
    ok = push(&hs->ls, &hs->n_ls, &h->cap[1], sa, sb, xi);
  } else if (kind == PAIR_SS) {
    ok = push(&hs->ss, &hs->n_ss, &h->cap[0], lo, hi, xi);
  } else {
    ok = push(&hs->ll, &hs->n_ll, &h->cap[2], lo, hi, xi);
  }
  return ok ? MS_OK : ms_csv_runtime(h->c, "out of memory");
}

static ms_status take_row(state_file *h, char *field[MS_CSV_MAX_FIELDS], int n, const int col[4])
{
  ms_csv *c = h->c;
  if (n != 4)
    return ms_csv_fail(c, "expected 4 comma-separated values (pair, a, b, xi), got %d", n);
  int kind = 0;
  while (kind < PAIR_COUNT && strcmp(field[col[0]], g_pairs[kind]) != 0)
    kind++;
  if (kind == PAIR_COUNT)
    return ms_csv_fail(c, "column pair: expected small-small, large-small, large-large, "
                          "small-wall or large-wall, got '%s'", field[col[0]]);
  long a = 0, b = 0;
  double v = 0.0;
  ms_status st = whole(c, "a", field[col[1]], &a);
  if (!st && kind < PAIR_SW) {
    st = whole(c, "b", field[col[2]], &b);
  } else if (!st) {
    while (b < 4 && strcmp(field[col[2]], g_walls[b]) != 0)
      b++;
    if (b == 4)
      st = ms_csv_fail(c, "column b: expected a wall, left, right, bottom or top, got '%s'",
                       field[col[2]]);
  }
  if (!st && (kind == PAIR_SS || kind == PAIR_LL) && a == b)
    st = ms_csv_fail(c, "a %s pair of particle %ld with itself", g_pairs[kind], a);
  if (!st)
    st = ms_csv_number(c, "xi", field[col[3]], &v);
  if (!st && !isfinite((float)v))
    st = ms_csv_fail(c, "column xi: %s overflows a float", field[col[3]]);
  return st ? st : store(h, kind, a, b, (float)v);
}

static ms_status take_header(state_file *h, char *field[MS_CSV_MAX_FIELDS], int n, int col[4])
{
  for (int k = 0; k < 4; k++)
    col[k] = -1;
  for (int i = 0; i < n && i < MS_CSV_MAX_FIELDS; i++) {
    int k = 0;
    while (k < 4 && strcasecmp(field[i], g_columns[k]) != 0)
      k++;
    if (k == 4 || col[k] >= 0)
      return ms_csv_fail(h->c, "expected the header pair,a,b,xi, got column '%s'", field[i]);
    col[k] = i;
  }
  for (int k = 0; k < 4; k++)
    if (col[k] < 0)
      return ms_csv_fail(h->c, "the header has no column %s (expected pair,a,b,xi)",
                         g_columns[k]);
  return MS_OK;
}

/* The first line names the dump the state belongs to (its CRC-32 and size) and the grid's
 * radius. */
static ms_status take_binding(state_file *h, uint32_t *crc, unsigned long long *bytes,
                              double *grid_radius)
{
  ms_csv *c = h->c;
  ms_line line;
  c->line = 1;
  if (!ms_read_line(c->f, c->buf, sizeof c->buf, &line))
    return ferror(c->f) ? ms_csv_runtime(c, "read error") : ms_csv_fail(c, "empty");
  unsigned x = 0;
  if (strncmp(c->buf, FIRST_LINE, strlen(FIRST_LINE)) != 0 ||
      sscanf(c->buf + strlen(FIRST_LINE), "%8x, %llu bytes; grid radius %lf m", &x, bytes,
             grid_radius) != 3)
    return ms_csv_fail(c, "not a mixsim dump's state (the first line, as --dump writes it, is "
                          "'" FIRST_LINE "HHHHHHHH, N bytes; grid radius R m ...')");
  if (!(*grid_radius > 0.0) || !isfinite((float)*grid_radius))
    return ms_csv_fail(c, "grid radius %g m: expected a positive float", *grid_radius);
  *crc = x;
  return MS_OK;
}

static ms_status read_rows(state_file *h)
{
  char *field[MS_CSV_MAX_FIELDS];
  int n = 0, header = 0, col[4];
  ms_status st;
  while ((st = ms_csv_next(h->c, field, &n)) == MS_OK && n > 0) {
    st = header++ ? take_row(h, field, n, col) : take_header(h, field, n, col);
    if (st)
      return st;
  }
  if (!st && !header)
    st = ms_csv_fail(h->c, "no header (expected pair,a,b,xi)");
  return st;
}

/* ---- every particle file's ---------------------------------------------------------- */

/* The dumped run's grid radius, for a [small] file: the grid's cells (and the neighbour
 * lists' reach) follow it, and with them the order in which forces are summed, so the run
 * goes on as the dumped one did. Below the file's largest radius it is no dump's. */
static int take_grid_radius(state_file *h, double r)
{
  loader *ld = h->ld;
  ms_scene *s = ld->scene;
  const particle_file *sm = &ld->small.file;
  if (sm->section < 0 || strcmp(sm->path, h->dump) != 0)
    return 1; /* the small particles are not the dump's */
  if ((float)r < s->small_radius)
    return ms_ld_fail_key(ld, h->sec, "file", "%s:1: grid radius %.9g m is less than the "
                          "largest radius in %s (%.9g m): not the state of this dump", h->path,
                          r, h->dump, (double)s->small_radius);
  s->small_radius = (float)r;
  return ms_ld_check_grid(ld);
}

/* What a run from the dump without its state loses, for the warnings. */
static const char *lost(const loader *ld)
{
  return ms_scene_friction_on(ld->scene)
             ? "the grid is sized by the file's largest radius and every contact's tangential "
               "spring starts unstretched"
             : "the grid is sized by the file's largest radius";
}

/* The state beside `h->dump`, if any: read, or warned about. */
static int read_beside(state_file *h)
{
  loader *ld = h->ld;
  struct stat sb;
  if (stat(h->path, &sb) != 0 && errno == ENOENT) {
    particle_file *pf = &ld->small.file;
    int dump = pf->section >= 0 && strcmp(pf->path, h->dump) == 0 && pf->has_index;
    for (int i = 0; i < ld->file_count; i++)
      dump |= strcmp(ld->files[i].path, h->dump) == 0 && ld->files[i].has_index;
    if (dump && ms_scene_friction_on(ld->scene)) /* (without friction only the grid is lost) */
      ms_ld_warn_key(ld, h->sec, "file", "%s looks like a --dump (an index column) but has no "
                     "state beside it (%s): %s, so this frictional run does not continue the "
                     "dumped run exactly", h->dump, h->path, lost(ld));
    return 1;
  }
  char why[256];
  FILE *f = ms_open_regular(h->path, MAX_BYTES, why, sizeof why);
  if (!f)
    return ms_ld_fail_key(ld, h->sec, "file", "cannot open the dump's state '%s' beside %s: %s",
                          h->path, h->dump, why);
  if (!ms_ld_note_input(ld, h->sec->name, "file's dump state", h->path)) {
    fclose(f);
    return 0;
  }
  ms_csv c = {.f = f, .path = h->path, .max_lines = MAX_BYTES / 16, .message = ld->message,
              .size = sizeof ld->message};
  h->c = &c;
  uint32_t crc = 0, now_crc = 0;
  unsigned long long bytes = 0;
  uint64_t now_bytes = 0;
  double grid_radius = 0.0;
  ms_status st = take_binding(h, &crc, &bytes, &grid_radius);
  if (!st && ms_file_crc32(h->dump, &now_crc, &now_bytes) != 0)
    st = ms_csv_fail(&c, "cannot read %s: %s", h->dump, strerror(errno));
  if (!st && (crc != now_crc || bytes != now_bytes)) {
    fclose(f);
    ms_ld_warn_key(ld, h->sec, "file", "%s belongs to another version of %s (a dump of CRC-32 "
                   "%08x, %llu bytes; it is %08x, %llu bytes now): it is not read: %s, so the "
                   "run does not continue the dumped run exactly", h->path, h->dump, crc, bytes,
                   now_crc, (unsigned long long)now_bytes, lost(ld));
    return 1;
  }
  h->keep = ms_scene_friction_on(ld->scene);
  ld->scene->hist.present |= h->keep;
  if (!st)
    st = read_rows(h);
  fclose(f);
  if (st)
    return ms_ld_fail_csv(h->ld, h->sec, h->c, st);
  if (h->dropped)
    ms_ld_warn_key(ld, h->sec, "file", "%ld contact histories of %s name rows of %s that this "
                   "scene does not read; they are left out", h->dropped, h->path, h->dump);
  return take_grid_radius(h, grid_radius);
}

/* The first section reading `path`, and the maps of its rows to the scene's particles. */
static int prepare(state_file *h, const char *path)
{
  loader *ld = h->ld;
  const particle_file *sm = &ld->small.file;
  h->dump = path;
  if (sm->section >= 0 && strcmp(sm->path, path) == 0) {
    h->sec = &ld->sections[sm->section];
    if (!map_add(&h->small, sm, 0))
      return ms_ld_fail_memory(ld);
  }
  for (int i = 0; i < ld->file_count; i++) {
    const particle_file *pf = &ld->files[i];
    if (strcmp(pf->path, path) != 0)
      continue;
    if (!h->sec)
      h->sec = &ld->sections[pf->section];
    if (!map_add(&h->large, pf, pf->first))
      return ms_ld_fail_memory(ld);
  }
  if (!ms_dump_state_path(path, h->path, sizeof h->path))
    return ms_ld_fail_key(ld, h->sec, "file", "%s: path too long for the dump's state beside it",
                          path);
  return 1;
}

/* Whether `path` was read by a particle file before index `upto` (small first). */
static int seen(const loader *ld, const char *path, int upto)
{
  const particle_file *sm = &ld->small.file;
  if (upto >= 0 && sm->section >= 0 && strcmp(sm->path, path) == 0)
    return 1;
  for (int i = 0; i < upto; i++)
    if (strcmp(ld->files[i].path, path) == 0)
      return 1;
  return 0;
}

static int by_pair(const void *x, const void *y)
{
  const ms_scene_contact *a = x, *b = y;
  return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* Entries [from, n) sorted by (a, b), as the simulation keeps them; a pair given twice in
 * one file is refused. */
static int sort_pairs(state_file *h, ms_scene_contact *e, long from, long n, const char *what)
{
  if (n - from < 2)
    return 1;
  qsort(e + from, (size_t)(n - from), sizeof *e, by_pair);
  for (long i = from + 1; i < n; i++)
    if (e[i].a == e[i - 1].a && e[i].b == e[i - 1].b)
      return ms_ld_fail_key(h->ld, h->sec, "file", "%s: the %s contact of particles %d and %d "
                            "(the scene's) is given twice", h->path, what, e[i].a, e[i].b);
  return 1;
}

/* ---- the id columns --------------------------------------------------------------- */

/* A particle's id as a file gave it, where, and in which order the files were read. */
typedef struct id_ref {
  int64_t id;
  const particle_file *pf;
  long line, order;
} id_ref;

static int by_id(const void *a, const void *b)
{
  const id_ref *x = a, *y = b;
  if (x->id != y->id)
    return (x->id > y->id) - (x->id < y->id);
  return (x->order > y->order) - (x->order < y->order);
}

/* The ids of `pf`'s particles, scene indices `first` on, into `out` and the list. */
static void ids_of(const particle_file *pf, long first, int64_t *out, id_ref *list, long *n)
{
  if (pf->section < 0 || !pf->has_id)
    return;
  for (long i = 0; i < pf->count; i++) {
    out[first + i] = pf->disc[i].id;
    list[*n] = (id_ref){pf->disc[i].id, pf, pf->disc[i].line, *n};
    (*n)++;
  }
}

/* Each id given once over the whole scene: the second giving is the error, at its line. */
static int ids_unique(loader *ld, id_ref *list, long n)
{
  if (n > 1)
    qsort(list, (size_t)n, sizeof *list, by_id);
  for (long i = 1; i < n; i++)
    if (list[i].id == list[i - 1].id) {
      const id_ref *a = list[i - 1].order < list[i].order ? &list[i - 1] : &list[i];
      const id_ref *b = a == &list[i] ? &list[i - 1] : &list[i];
      return ms_ld_fail_key(ld, &ld->sections[b->pf->section], "file",
                            "%s:%ld: column id: id %lld is given twice (also at %s:%ld); each "
                            "particle's id must be unique", b->pf->path, b->line,
                            (long long)b->id, a->pf->path, a->line);
    }
  return 1;
}

/* The particle files' id columns, as scene->small_id and large_id (mixsim/scene.h): when
 * any file has one, every particle gets an id, those no file gives counting up from the
 * largest given + 1, small particles first. */
static int take_ids(loader *ld)
{
  ms_scene *s = ld->scene;
  long given = 0;
  for (int i = -1; i < ld->file_count; i++) {
    const particle_file *pf = i < 0 ? &ld->small.file : &ld->files[i];
    given += pf->section >= 0 && pf->has_id ? pf->count : 0;
  }
  if (given == 0)
    return 1;
  s->small_id = malloc(((size_t)s->small_count + 1) * sizeof *s->small_id);
  s->large_id = malloc(((size_t)s->large_count + 1) * sizeof *s->large_id);
  id_ref *list = malloc((size_t)given * sizeof *list);
  if (!s->small_id || !s->large_id || !list) {
    free(list);
    return ms_ld_fail_memory(ld);
  }
  for (int i = 0; i < s->small_count; i++)
    s->small_id[i] = -1;
  for (int i = 0; i < s->large_count; i++)
    s->large_id[i] = -1;
  long n = 0;
  ids_of(&ld->small.file, 0, s->small_id, list, &n);
  for (int i = 0; i < ld->file_count; i++)
    ids_of(&ld->files[i], ld->files[i].first, s->large_id, list, &n);
  int ok = ids_unique(ld, list, n);
  int64_t next = n ? list[n - 1].id + 1 : 0; /* (sorted: the largest is last) */
  free(list);
  for (int i = 0; ok && i < s->small_count; i++)
    s->small_id[i] = s->small_id[i] < 0 ? next++ : s->small_id[i];
  for (int i = 0; ok && i < s->large_count; i++)
    s->large_id[i] = s->large_id[i] < 0 ? next++ : s->large_id[i];
  return ok;
}

int ms_ld_read_dump_states(loader *ld)
{
  ms_scene_histories *hs = &ld->scene->hist;
  size_t cap[3] = {0, 0, 0};
  if (!take_ids(ld))
    return 0;
  int ok = 1;
  for (int i = -1; ok && i < ld->file_count; i++) {
    const particle_file *pf = i < 0 ? &ld->small.file : &ld->files[i];
    if (pf->section < 0 || seen(ld, pf->path, i))
      continue;
    state_file h = {.ld = ld};
    memcpy(h.cap, cap, sizeof cap);
    long ss = hs->n_ss, ls = hs->n_ls, ll = hs->n_ll;
    ok = prepare(&h, pf->path) && read_beside(&h) &&
         sort_pairs(&h, hs->ss, ss, hs->n_ss, "small-small") &&
         sort_pairs(&h, hs->ls, ls, hs->n_ls, "large-small") &&
         sort_pairs(&h, hs->ll, ll, hs->n_ll, "large-large");
    memcpy(cap, h.cap, sizeof cap);
    free(h.small.e);
    free(h.large.e);
  }
  /* (the files name disjoint particles: the lists, sorted in parts, are sorted whole) */
  ms_scene_contact *list[3] = {hs->ss, hs->ls, hs->ll};
  long n[3] = {hs->n_ss, hs->n_ls, hs->n_ll};
  for (int k = 0; k < 3; k++)
    if (n[k] > 1)
      qsort(list[k], (size_t)n[k], sizeof *list[k], by_pair);
  return ok;
}
