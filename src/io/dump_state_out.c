/* A dump's state file (io/dump_state_out.h): a first line binding it to the dump and giving
 * the grid's radius, then with friction one row per live contact, the particles by the
 * dump's kind and index, walls by name, the displacement to float precision (9 significant
 * digits read back exactly). */
#include "io/dump_state_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "core/file.h"
#include "io/output_file.h"

typedef struct state_ctx {
  const ms_friction_state *f; /* NULL: no friction */
  uint32_t crc;
  uint64_t bytes;
  double grid_radius;
  long step;
} state_ctx;

/* A wall's displacement worth keeping: any bits but +0's (an open contact holds +0). */
static int holds(float xi)
{
  static const float plus_zero = 0.0f;
  return memcmp(&xi, &plus_zero, sizeof xi) != 0;
}

static void pairs(FILE *out, const char *kind, const ms_history_entry *e, size_t n)
{
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%s,%d,%d,%.9g\n", kind, e[i].a, e[i].b, (double)e[i].xi);
}

static void walls(FILE *out, const char *kind, const float *xi, int n)
{
  static const char *const name[4] = {"left", "right", "bottom", "top"};
  for (int i = 0; xi && i < n; i++)
    for (int w = 0; w < 4; w++)
      if (holds(xi[4 * i + w]))
        fprintf(out, "%s,%d,%s,%.9g\n", kind, i, name[w], (double)xi[4 * i + w]);
}

static int write_state(FILE *out, void *arg)
{
  const state_ctx *c = arg;
  /* The first line binds the file to its dump (scene/dump_state.c checks it). */
  fprintf(out, "# mixsim dump state: dump CRC-32 %08x, %llu bytes; grid radius %.9g m; step "
               "%ld; rows (with friction): a contact's particles by the dump's kind and index "
               "(walls: left right bottom top) and its tangential displacement xi (m)\n",
          c->crc, (unsigned long long)c->bytes, c->grid_radius, c->step);
  fputs("pair,a,b,xi\n", out);
  const ms_friction_state *f = c->f;
  if (f) {
    pairs(out, "small-small", f->ss, f->n_ss);
    pairs(out, "large-small", f->ls, f->n_ls);
    pairs(out, "large-large", f->ll, f->n_ll);
    walls(out, "small-wall", f->small_wall_xi, f->n_small);
    walls(out, "large-wall", f->large_wall_xi, f->n_large);
  }
  return 0;
}

/* The same for the large particles (a kind = large inflow's empty slots). */
static int rows_of_large(const ms_sim *s, ms_friction_state *f)
{
  int n = s->p.n_large, rows = 0;
  int *row = malloc(((size_t)n + 1) * sizeof *row);
  if (!row)
    return 0;
  for (int i = 0; i < n; i++)
    row[i] = !ms_body_empty(&s->wk.large[i]) ? rows++ : -1;
  for (size_t e = 0; e < f->n_ls; e++)
    f->ls[e].a = row[f->ls[e].a];
  for (size_t e = 0; e < f->n_ll; e++) {
    f->ll[e].a = row[f->ll[e].a];
    f->ll[e].b = row[f->ll[e].b];
  }
  for (int i = 0; f->large_wall_xi && i < n; i++)
    if (row[i] >= 0)
      memmove(&f->large_wall_xi[4 * row[i]], &f->large_wall_xi[4 * i], 4 * sizeof(float));
  f->n_large = rows;
  free(row);
  return 1;
}

/* An open system's dump holds its particles, not its empty slots (io/report.c): the
 * small particles' indices become their rows. 0: no memory. */
static int rows_of_dump(const ms_sim *s, ms_friction_state *f)
{
  int n = s->p.n_small, rows = 0;
  int *row = malloc(((size_t)n + 1) * sizeof *row);
  if (!row)
    return 0;
  for (int i = 0; i < n; i++)
    row[i] = s->p.shape[2 * i + 1] != 0.0f ? rows++ : -1;
  for (size_t e = 0; e < f->n_ss; e++) {
    f->ss[e].a = row[f->ss[e].a];
    f->ss[e].b = row[f->ss[e].b];
  }
  for (size_t e = 0; e < f->n_ls; e++)
    f->ls[e].b = row[f->ls[e].b];
  for (int i = 0; f->small_wall_xi && i < n; i++)
    if (row[i] >= 0)
      memmove(&f->small_wall_xi[4 * row[i]], &f->small_wall_xi[4 * i], 4 * sizeof(float));
  f->n_small = rows;
  free(row);
  return rows_of_large(s, f);
}

ms_status ms_dump_state(const char *dump_path, ms_sim *s)
{
  ms_output_id id;
  char path[4096];
  if (!ms_output_identify(dump_path, &id) || !ms_dump_state_path(dump_path, path, sizeof path)) {
    if (ms_sim_friction_on(s))
      ms_warn("--dump %s: the state its rows do not hold is not written (it goes beside a dump "
              "file, as NAME.state.csv): a scene reading this dump sizes its grid by the "
              "largest radius and starts with every contact's tangential spring unstretched",
              dump_path);
    return MS_OK;
  }
  state_ctx c = {.grid_radius = s->p.r_small_max, .step = ms_sim_step(s)};
  if (ms_file_crc32(dump_path, &c.crc, &c.bytes) != 0)
    return ms_fail(MS_ERR_RUNTIME, "cannot read the dump '%s' back for its state: %s", dump_path,
                   strerror(errno));
  ms_friction_state f;
  memset(&f, 0, sizeof f);
  ms_status st = ms_sim_friction_on(s) ? ms_sim_friction_export(s, &f) : MS_OK;
  if (!st && ms_sim_friction_on(s) && !rows_of_dump(s, &f))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory writing the dump's state");
  if (st) {
    ms_friction_state_free(&f);
    return st;
  }
  c.f = ms_sim_friction_on(s) ? &f : NULL;
  st = ms_write_atomic(path, write_state, &c);
  ms_friction_state_free(&f);
  return st;
}
