/* The --output time series (io/series.h): the folder's checks, the two slots the
 * simulation thread copies the state (and the scene's walls) into, and the writer thread's
 * job, which turns a slot into points (scene coordinates, 3 components), counts the
 * contacts, writes the frame and its walls and rewrites the collections, each file whole
 * or not at all. */
#include "io/series.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collision/sim_internal.h"
#include "io/contacts.h"
#include "io/diagnostics.h"
#include "io/vtk_out.h"
#include "io/walls_out.h"

typedef struct slot {
  ms_state st;        /* collision mode */
  ms_gravity_state g; /* gravity mode */
  float *acc;         /* gravity mode: the bodies' accelerations, 3 each */
  ms_diag_sample diag; /* --diagnostics */
  ms_wall_frame walls; /* collision mode: the scene's walls ([wall.NAME]), if any */
} slot;

/* The files a collection lists. */
typedef struct entry_list {
  ms_frame_entry *e;
  long n, cap;
} entry_list;

struct ms_series {
  ms_series_options o;
  int gravity, rot;
  int n, n_small;
  int n_large, room; /* collision mode: large slots; particles the arrays hold */
  double origin[2], box[2], dt;
  double side[4], period[2]; /* the box's walls and periods (collision/base/params.h) */
  float *radius, *mass; /* per particle of the frame (collision mode) */
  uint8_t *kind;
  int64_t *id; /* the writer thread's: a frame's persistent ids (gravity: the body's index) */
  int32_t *image; /* the writer thread's: a frame's images, 2 per particle (periodic box) */
  slot slots[2];
  ms_writer *w;      /* NULL once stopped by a failed write */
  ms_status failure; /* that write's status */
  ms_diag *diag;     /* --diagnostics: DIR/diagnostics.csv, else NULL */
  ms_walls_csv *wcsv; /* --diagnostics with [wall.NAME]s: DIR/walls.csv, else NULL */
  ms_writer_stats stats;
  long last_step; /* the last step handed over (-1: none) */
  /* the writer thread's own */
  double *pos3, *vel3, *theta, *omega, *pos2;
  float *gmass, *force3;
  int32_t *contacts;
  entry_list frames, walls; /* frames.pvd (frames.csv) and walls.pvd */
  ms_walls_drawing drawing;  /* the scene's walls of a frame */
};

/* ---- the folder --------------------------------------------------------------------- */

static int digits(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return 0;
  return n > 0;
}

/* PREFIX, six digits or more, .vtp or .csv (the first n characters of name). */
static int numbered(const char *name, size_t n, const char *prefix)
{
  size_t p = strlen(prefix);
  return n >= p + 10 && strncmp(name, prefix, p) == 0 && digits(name + p, n - p - 4) &&
         (strncmp(name + n - 4, ".vtp", 4) == 0 || strncmp(name + n - 4, ".csv", 4) == 0);
}

/* The names this writer gives (and their temporary files, "NAME.tmpXXXXXX"):
 * frame_NNNNNN.vtp and frame_NNNNNN.csv (six digits or more), frames.pvd, frames.csv,
 * diagnostics.csv, walls.vtp; the scene's walls' walls_NNNNNN.vtp and .csv, walls.pvd,
 * walls.csv. */
static int our_name(const char *name)
{
  static const char *const fixed[] = {"frames.pvd", "frames.csv", "diagnostics.csv",
                                      "walls.vtp", "walls.pvd", "walls.csv"};
  size_t n = strlen(name);
  if (n > 10 && strncmp(name + n - 10, ".tmp", 4) == 0)
    n -= 10;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (n == strlen(fixed[i]) && strncmp(name, fixed[i], n) == 0)
      return 1;
  return numbered(name, n, "frame_") || numbered(name, n, "walls_");
}

static int ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

static ms_status make_dirs(const char *opt, const char *dir)
{
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path || !*path)
    return ms_fail(MS_ERR_INPUT, "%s: '%s': not a usable folder name", opt, dir);
  for (char *p = path + 1;; p++) {
    int end = *p == '\0';
    if (*p == '/' || end) {
      *p = '\0';
      if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return ms_fail(MS_ERR_INPUT, "%s: cannot make the folder '%s': %s", opt, path,
                       strerror(errno));
      if (end)
        break;
      *p = '/';
    }
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return ms_fail(MS_ERR_INPUT, "%s: '%s' is not a folder", opt, dir);
  return MS_OK;
}

/* Removes our files (with `clear`), then names the first file left that an older run's
 * frames would be mixed with; `ours` says whether it is one of ours. */
static ms_status scan(const char *opt, const char *dir, int clear, char *left, size_t size,
                      int *ours)
{
  DIR *d = opendir(dir);
  if (!d)
    return ms_fail(MS_ERR_INPUT, "%s: cannot read the folder '%s': %s", opt, dir, strerror(errno));
  *left = '\0';
  struct dirent *e;
  while ((e = readdir(d))) {
    int mine = our_name(e->d_name);
    if (mine && clear) {
      char path[4352];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (unlink(path) != 0 && errno != ENOENT) {
        ms_status st = ms_fail(MS_ERR_INPUT, "%s --output-clear: cannot remove '%s': %s", opt,
                               path, strerror(errno));
        closedir(d);
        return st;
      }
    } else if (!*left && (mine || ends_with(e->d_name, ".vtp") || ends_with(e->d_name, ".pvd"))) {
      snprintf(left, size, "%s", e->d_name);
      *ours = mine;
    }
  }
  closedir(d);
  return MS_OK;
}

ms_status ms_series_prepare(const char *opt, const ms_series_options *o)
{
  ms_status st = make_dirs(opt, o->dir);
  char left[256];
  int ours = 0;
  if (!st)
    st = scan(opt, o->dir, o->clear, left, sizeof left, &ours);
  if (st || !*left)
    return st;
  if (ours)
    return ms_fail(MS_ERR_INPUT, "%s: the folder '%s' holds frames of an earlier run ('%s'); "
                   "give --output-clear to remove them, or choose another folder", opt, o->dir,
                   left);
  return ms_fail(MS_ERR_INPUT, "%s: the folder '%s' holds '%s', which ParaView would list with "
                 "this run's frames and --output-clear does not remove; choose another folder",
                 opt, o->dir, left);
}

int ms_series_claims(const ms_series_options *o, const ms_output_id *id)
{
  struct stat d;
  return o->dir && id->replaced && our_name(id->name) && stat(o->dir, &d) == 0 &&
         id->dir_dev == d.st_dev && id->dir_ino == d.st_ino;
}

/* ---- the writer thread's job -------------------------------------------------------- */

/* Room for n particles in the writer's per-particle arrays (an open system's count grows). */
static int fit(ms_series *s, int n)
{
  if (n <= s->room)
    return 1;
  size_t m = (size_t)n + (size_t)n / 2 + 1;
  void **arrays[] = {(void **)&s->radius, (void **)&s->mass,    (void **)&s->kind,
                     (void **)&s->id,     (void **)&s->image,   (void **)&s->pos3,
                     (void **)&s->vel3,   (void **)&s->force3,  (void **)&s->pos2,
                     (void **)&s->contacts, (void **)&s->theta, (void **)&s->omega};
  size_t each[] = {sizeof *s->radius, sizeof *s->mass,  1,     sizeof *s->id,
                   2 * sizeof *s->image, 3 * sizeof *s->pos3, 3 * sizeof *s->vel3,
                   3 * sizeof *s->force3, 2 * sizeof *s->pos2, sizeof *s->contacts,
                   sizeof *s->theta, sizeof *s->omega};
  for (size_t a = 0; a < sizeof each / sizeof each[0]; a++) {
    if (a >= 10 && !s->rot)
      continue;
    void *q = realloc(*arrays[a], m * each[a]);
    if (!q)
      return 0;
    *arrays[a] = q;
  }
  s->room = (int)m;
  return 1;
}

/* The frame's particles: the small ones the state holds (its empty slots dropped), then
 * the large ones, each with its radius, mass and kind. */
static int collision_particles(ms_series *s, const ms_state *st)
{
  s->n_small = st->n_small;
  s->n = st->n_small + st->n_large;
  if (!fit(s, s->n))
    return 0;
  for (int i = 0; i < s->n_small; i++) {
    s->radius[i] = st->small_shape[2 * i];
    s->mass[i] = st->small_shape[2 * i + 1];
    s->kind[i] = 0;
  }
  for (int i = 0; i < st->n_large; i++) { /* (compacted: empty large slots out) */
    s->radius[s->n_small + i] = st->large_shape[2 * i];
    s->mass[s->n_small + i] = st->large_shape[2 * i + 1];
    s->kind[s->n_small + i] = st->large_static[i] ? 2 : 1;
  }
  if (s->diag)
    ms_diag_particles(s->diag, s->n, s->n_small, s->radius, s->mass, s->kind);
  return 1;
}

static void collision_points(ms_series *s, const slot *k, ms_points *p)
{
  const ms_state *st = &k->st;
  for (int i = 0; i < s->n; i++) {
    int sm = i < s->n_small, j = sm ? i : i - s->n_small;
    const double *x = sm ? &st->small_pos[2 * j] : &st->large_pos[2 * j];
    const double *v = sm ? &st->small_vel[2 * j] : &st->large_vel[2 * j];
    s->pos2[2 * i] = x[0];
    s->pos2[2 * i + 1] = x[1];
    s->pos3[3 * i] = s->origin[0] + x[0];
    s->pos3[3 * i + 1] = s->origin[1] + x[1];
    s->pos3[3 * i + 2] = 0.0;
    s->vel3[3 * i] = v[0];
    s->vel3[3 * i + 1] = v[1];
    s->vel3[3 * i + 2] = 0.0;
    const float *f = sm ? &st->small_force[2 * j] : &st->large_force[2 * j];
    s->force3[3 * i] = f[0];
    s->force3[3 * i + 1] = f[1];
    s->force3[3 * i + 2] = 0.0f;
    s->id[i] = sm ? st->small_id[j] : st->large_id[j];
    if (st->small_img) {
      const int *m = sm ? &st->small_img[2 * j] : &st->large_img[2 * j];
      s->image[2 * i] = m[0];
      s->image[2 * i + 1] = m[1];
    }
    if (s->rot) {
      const double *r = sm ? &st->small_rot[2 * j] : &st->large_rot[2 * j];
      s->theta[i] = r[0];
      s->omega[i] = r[1];
    }
  }
  *p = (ms_points){st->step, (double)st->step * s->dt, s->n, s->n_small, 0, s->pos3, s->vel3,
                   s->rot ? s->theta : NULL, s->rot ? s->omega : NULL, s->radius, s->mass,
                   s->id, s->kind, s->contacts, s->force3, st->small_img ? s->image : NULL};
}

static void gravity_points(ms_series *s, const slot *k, ms_points *p)
{
  const ms_gravity_state *g = &k->g;
  for (int i = 0; i < s->n; i++) {
    for (int c = 0; c < 3; c++) {
      s->pos3[3 * i + c] = g->pos[4 * i + c];
      s->vel3[3 * i + c] = g->vel[3 * i + c];
    }
    s->gmass[i] = g->pos[4 * i + 3];
    for (int c = 0; c < 3; c++) /* F = m a, in float as the bodies are */
      s->force3[3 * i + c] = s->gmass[i] * k->acc[3 * i + c];
  }
  *p = (ms_points){g->step, g->time, s->n, 0, 1, s->pos3, s->vel3, NULL, NULL, NULL, s->gmass,
                   s->id, s->kind, NULL, s->force3, NULL};
}

static ms_status add_entry(entry_list *l, const ms_points *p, const char *file)
{
  if (l->n == l->cap) {
    long cap = l->cap ? 2 * l->cap : 64;
    ms_frame_entry *e = realloc(l->e, (size_t)cap * sizeof *e);
    if (!e)
      return ms_fail(MS_ERR_RUNTIME, "--output: out of memory listing the frames");
    l->e = e;
    l->cap = cap;
  }
  ms_frame_entry *e = &l->e[l->n++];
  e->step = p->step;
  e->time = p->time;
  snprintf(e->file, sizeof e->file, "%s", file);
  return MS_OK;
}

/* The scene's walls of the frame: walls_SSSSSS.vtp (listed in walls.pvd) or .csv. */
static ms_status write_scene_walls(ms_series *s, const slot *k, const ms_points *p)
{
  char file[48], path[4352];
  snprintf(file, sizeof file, "walls_%06ld.%s", p->step, s->o.csv ? "csv" : "vtp");
  snprintf(path, sizeof path, "%s/%s", s->o.dir, file);
  ms_walls_draw(&k->walls, s->origin, p->step, p->time, &s->drawing);
  ms_status st = s->o.csv ? ms_walls_write_csv(path, &k->walls, &s->drawing)
                          : ms_walls_write_vtp(path, &s->drawing);
  return st ? st : s->o.csv ? MS_OK : add_entry(&s->walls, p, file);
}

static ms_status write_slot(void *arg, void *ctx)
{
  ms_series *s = ctx;
  const slot *k = arg;
  const ms_wall_frame *walls = !s->gravity && k->walls.n ? &k->walls : NULL;
  ms_points p;
  if (s->gravity) {
    gravity_points(s, arg, &p);
  } else {
    if (!collision_particles(s, &k->st))
      return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
    collision_points(s, arg, &p);
    ms_contact_input in = {s->n,
                           s->n_small,
                           s->pos2,
                           s->radius,
                           s->kind,
                           {s->box[0], s->box[1]},
                           {s->side[0], s->side[1], s->side[2], s->side[3]},
                           {s->period[0], s->period[1]},
                           walls};
    ms_status st = ms_count_contacts(&in, s->contacts);
    if (st)
      return st;
  }
  char file[48], path[4352];
  snprintf(file, sizeof file, "frame_%06ld.%s", p.step, s->o.csv ? "csv" : "vtp");
  snprintf(path, sizeof path, "%s/%s", s->o.dir, file);
  ms_status st = s->o.csv ? ms_vtk_write_csv(path, &p) : ms_vtk_write_vtp(path, &p);
  if (!st)
    st = add_entry(&s->frames, &p, file);
  if (!st && walls)
    st = write_scene_walls(s, k, &p);
  if (st)
    return st;
  if (s->diag && (st = s->gravity ? ms_diag_row_gravity(s->diag, &k->diag)
                                  : ms_diag_row(s->diag, &k->st, &k->diag, walls)))
    return st;
  if (s->wcsv && (st = ms_walls_csv_rows(s->wcsv, p.step, p.time, walls)))
    return st;
  snprintf(path, sizeof path, "%s/%s", s->o.dir, s->o.csv ? "frames.csv" : "frames.pvd");
  st = s->o.csv ? ms_vtk_write_index(path, s->frames.e, s->frames.n)
                : ms_vtk_write_pvd(path, s->frames.e, s->frames.n);
  if (st || !walls || s->o.csv)
    return st;
  snprintf(path, sizeof path, "%s/walls.pvd", s->o.dir);
  return ms_vtk_write_pvd(path, s->walls.e, s->walls.n);
}

/* ---- the simulation thread's side --------------------------------------------------- */

static void series_free(ms_series *s)
{
  for (int i = 0; i < 2; i++) {
    ms_state_free(&s->slots[i].st);
    ms_gravity_state_free(&s->slots[i].g);
    free(s->slots[i].acc);
    ms_wall_frame_free(&s->slots[i].walls);
  }
  free(s->radius), free(s->mass), free(s->kind), free(s->id), free(s->image);
  for (int i = 0; i < 2; i++)
    ms_diag_sample_free(&s->slots[i].diag);
  free(s->pos3), free(s->vel3), free(s->theta), free(s->omega), free(s->pos2);
  free(s->gmass), free(s->contacts), free(s->frames.e), free(s->walls.e), free(s->force3);
  ms_walls_drawing_free(&s->drawing);
  ms_diag_close(s->diag);
  ms_walls_csv_close(s->wcsv);
  free(s);
}

/* The arrays every mode has, n per particle; then the writer thread. */
static ms_status alloc_common(ms_series *s)
{
  size_t n = (size_t)s->n + 1;
  s->kind = calloc(n, 1);
  s->id = malloc(n * sizeof *s->id);
  s->image = calloc(2 * n + 2, sizeof *s->image);
  s->pos3 = malloc(3 * n * sizeof *s->pos3);
  s->vel3 = malloc(3 * n * sizeof *s->vel3);
  s->force3 = malloc(3 * n * sizeof *s->force3);
  if (!s->kind || !s->id || !s->image || !s->pos3 || !s->vel3 || !s->force3)
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  for (int i = 0; i < s->n; i++)
    s->id[i] = i;
  return MS_OK;
}

static ms_status start(ms_series *s, ms_series **out)
{
  void *slots[2] = {&s->slots[0], &s->slots[1]};
  ms_status st = ms_writer_start(slots, write_slot, s, &s->w);
  if (st) {
    series_free(s);
    return st;
  }
  *out = s;
  return MS_OK;
}

static ms_status collision_fixed(ms_series *s, ms_sim *sim)
{
  size_t n = (size_t)s->n + 1;
  s->radius = malloc(n * sizeof *s->radius);
  s->mass = malloc(n * sizeof *s->mass);
  s->pos2 = malloc(2 * n * sizeof *s->pos2);
  s->contacts = malloc(n * sizeof *s->contacts);
  s->theta = s->rot ? malloc(n * sizeof *s->theta) : NULL;
  s->omega = s->rot ? malloc(n * sizeof *s->omega) : NULL;
  if (!s->radius || !s->mass || !s->pos2 || !s->contacts || (s->rot && (!s->theta || !s->omega)))
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  s->n_large = sim->p.n_large;
  s->room = s->n;
  for (int i = 0; i < s->n_small; i++) {
    s->radius[i] = ms_sim_small_radius(sim, i);
    s->mass[i] = ms_sim_small_mass(sim, i);
  }
  for (int i = 0; i < s->n_large; i++) {
    const ms_body *L = &sim->wk.large[i];
    s->radius[s->n_small + i] = L->r;
    s->mass[s->n_small + i] = L->m;
    s->kind[s->n_small + i] = L->is_static ? 2 : 1;
  }
  int n_flows = ms_sim_flow_count(sim);
  ms_flow_info *flows = calloc((size_t)n_flows + 1, sizeof *flows);
  if (!flows)
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  for (int k = 0; k < n_flows; k++)
    ms_sim_flow(sim, k, &flows[k]);
  ms_status st = MS_OK;
  for (int i = 0; !st && i < 2; i++)
    if (!(st = ms_sim_state_alloc(sim, &s->slots[i].st)))
      st = ms_sim_state_want_forces(sim, &s->slots[i].st);
  ms_diag_setup ds = {s->n,
                      s->n_small,
                      s->radius,
                      s->mass,
                      s->kind,
                      {s->box[0], s->box[1]},
                      {s->side[0], s->side[1], s->side[2], s->side[3]},
                      {s->period[0], s->period[1]},
                      {sim->p.gx, sim->p.gy},
                      s->dt,
                      sim->p.k,
                      sim->p.r_small_max,
                      sim->p.r_large_max,
                      n_flows,
                      flows};
  if (!st && s->o.diagnostics)
    st = ms_diag_open(s->o.dir, &ds, &s->diag);
  free(flows);
  for (int i = 0; !st && i < 2; i++)
    st = ms_wall_frame_alloc(sim, &s->slots[i].walls);
  int n_walls = ms_sim_wall_count(sim);
  if (!st && n_walls)
    st = ms_walls_drawing_alloc(&s->slots[0].walls, &s->drawing);
  if (!st && n_walls && s->o.diagnostics)
    st = ms_walls_csv_open(s->o.dir, n_walls, &s->wcsv);
  return st;
}

/* DIR/walls.vtp, once per run, in either format: the box's outline where the frames put
 * it (the origin plus the simulation frame's 0 and box). */
static ms_status write_walls(const ms_series *s)
{
  char path[4352];
  snprintf(path, sizeof path, "%s/walls.vtp", s->o.dir);
  const double lo[2] = {s->origin[0], s->origin[1]};
  const double hi[2] = {s->origin[0] + s->box[0], s->origin[1] + s->box[1]};
  return ms_vtk_write_walls(path, lo, hi);
}

ms_status ms_series_open(const ms_series_options *o, ms_sim *sim, ms_series **out)
{
  *out = NULL;
  ms_series *s = calloc(1, sizeof *s);
  if (!s)
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  s->o = *o;
  s->last_step = -1;
  s->n_small = sim->p.n_small;
  s->n = sim->p.n_small + sim->p.n_large;
  s->rot = ms_sim_friction_on(sim);
  s->dt = sim->p.dt;
  s->box[0] = sim->p.box[0];
  s->box[1] = sim->p.box[1];
  memcpy(s->side, sim->p.side, sizeof s->side);
  memcpy(s->period, sim->p.period, sizeof s->period);
  ms_sim_origin(sim, s->origin);
  ms_status st = alloc_common(s);
  if (!st)
    st = collision_fixed(s, sim);
  if (!st)
    st = write_walls(s);
  if (st) {
    series_free(s);
    return st;
  }
  return start(s, out);
}

ms_status ms_series_open_gravity(const ms_series_options *o, ms_gravity *g, ms_series **out)
{
  *out = NULL;
  ms_series *s = calloc(1, sizeof *s);
  if (!s)
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  s->o = *o;
  s->gravity = 1;
  s->last_step = -1;
  s->n = ms_gravity_body_count(g);
  ms_status st = alloc_common(s);
  size_t n3 = 3 * (size_t)s->n + 1;
  if (!st && (!(s->gmass = malloc(((size_t)s->n + 1) * sizeof *s->gmass)) ||
              !(s->slots[0].acc = malloc(n3 * sizeof(float))) ||
              !(s->slots[1].acc = malloc(n3 * sizeof(float)))))
    st = ms_fail(MS_ERR_RUNTIME, "--output: out of memory");
  if (!st && o->diagnostics)
    st = ms_diag_open_gravity(o->dir, &s->diag);
  if (st) {
    series_free(s);
    return st;
  }
  return start(s, out);
}

long ms_series_room(const ms_series *s, long step)
{
  return s ? s->o.every - step % s->o.every : -1;
}

int ms_series_due(const ms_series *s, long step) { return s && step % s->o.every == 0; }

/* A free slot for the frame of `step`, or NULL when none is due; *st says why not. A
 * writer that failed (and said so once) takes no more frames. */
static slot *frame_slot(ms_series *s, long step, int force, ms_status *st)
{
  *st = MS_OK;
  if (!s || !s->w || step == s->last_step || (!force && !ms_series_due(s, step)))
    return NULL;
  slot *k = ms_writer_acquire(s->w);
  if (!k) { /* a write failed: its message names the file */
    *st = s->failure = ms_writer_finish(s->w, &s->stats);
    s->w = NULL;
  }
  return k;
}

int ms_series_failed(const ms_series *s) { return s && s->failure; }

ms_status ms_series_frame(ms_series *s, ms_sim *sim, int force)
{
  ms_status st;
  slot *k = frame_slot(s, s ? ms_sim_step(sim) : 0, force, &st);
  if (!k)
    return st;
  if ((st = ms_sim_snapshot(sim, &k->st)) || (s->diag && (st = ms_diag_take(sim, &k->diag)))) {
    ms_writer_release(s->w, k);
    return st;
  }
  ms_state_compact(&k->st); /* an open system's empty slots: not particles */
  ms_wall_frame_take(sim, &k->walls);
  s->last_step = k->st.step;
  ms_writer_submit(s->w, k);
  return MS_OK;
}

ms_status ms_series_frame_gravity(ms_series *s, ms_gravity *g, int force)
{
  ms_status st;
  slot *k = frame_slot(s, s ? ms_gravity_step(g) : 0, force, &st);
  if (!k)
    return st;
  ms_gravity_state_free(&k->g); /* the read allocates: the slot takes its arrays */
  if ((st = ms_gravity_read_state(g, &k->g)) || (st = ms_gravity_step_accelerations(g, k->acc)) ||
      (s->diag && (st = ms_diag_take_gravity(g, &k->diag)))) {
    ms_writer_release(s->w, k);
    return st;
  }
  s->last_step = k->g.step;
  ms_writer_submit(s->w, k);
  return MS_OK;
}

ms_status ms_series_close(ms_series *s, ms_writer_stats *stats)
{
  if (!s)
    return MS_OK;
  ms_status st = s->w ? ms_writer_finish(s->w, &s->stats) : MS_OK;
  if (stats)
    *stats = s->stats;
  series_free(s);
  return st;
}
