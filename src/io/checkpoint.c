/* Checkpoint files. Layout (host byte order, marked by a byte-order word):
 *
 *   header   magic "MIXSIMCK", version, mode, scene id, byte-order word,
 *            payload size, payload CRC-32, header CRC-32
 *   payload  the fields of the mode's table below, in order
 *
 * One table per mode describes the payload, so saving and loading cannot drift apart.
 * Each table starts with the count fields the array sizes depend on. */
#include "mixsim/checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mixsim/gravity.h"
#include "io/output_file.h"
#include "collision/sim_internal.h"

#define MAGIC "MIXSIMCK"
#define BYTE_ORDER_WORD 0x01020304u

typedef struct header {
  char magic[8];
  uint32_t version, mode, scene_id, byte_order;
  uint64_t payload_size;
  uint32_t payload_crc, header_crc;
} header;

/* ---- the images: a run's state flattened into plain arrays ------------------------ */

/* Collision mode. */
typedef struct cimage {
  int32_t n_small, n_large;
  int64_t step, grid_builds, overflow_builds, capacity_growths, outside_events;
  int32_t capacity, max_overflow;
  double *small_pos, *small_vel; /* 2 n_small each, simulation frame */
  double *large_state;           /* 4 n_large: x y vx vy */
} cimage;

/* Gravity mode. */
typedef struct gimage {
  int32_t n;
  int64_t step;
  double e0;
  float *pos; /* 4 n: x y z m */
  float *vel; /* 3 n */
} gimage;

typedef struct field {
  const char *name;
  size_t (*size)(const void *im);
  void *(*at)(void *im);
} field;

#define SCALAR(T, member)                                                            \
  static size_t sz_##T##_##member(const void *im) { (void)im; return sizeof(((T *)0)->member); } \
  static void *at_##T##_##member(void *im) { return &((T *)im)->member; }
#define ARRAY(T, member, count_expr)                                                 \
  static size_t sz_##T##_##member(const void *v) { const T *im = v; return (size_t)(count_expr) * sizeof(*im->member); } \
  static void *at_##T##_##member(void *im) { return ((T *)im)->member; }
#define F(T, member, name) {name, sz_##T##_##member, at_##T##_##member}

SCALAR(cimage, n_small) SCALAR(cimage, n_large) SCALAR(cimage, step)
SCALAR(cimage, capacity) SCALAR(cimage, max_overflow) SCALAR(cimage, grid_builds)
SCALAR(cimage, overflow_builds) SCALAR(cimage, capacity_growths) SCALAR(cimage, outside_events)
ARRAY(cimage, small_pos, (size_t)im->n_small * 2) ARRAY(cimage, small_vel, (size_t)im->n_small * 2)
ARRAY(cimage, large_state, (size_t)im->n_large * 4)
SCALAR(gimage, n) SCALAR(gimage, step) SCALAR(gimage, e0)
ARRAY(gimage, pos, (size_t)im->n * 4) ARRAY(gimage, vel, (size_t)im->n * 3)

static const field collision_fields[] = {
  F(cimage, n_small, "n_small"), F(cimage, n_large, "n_large"), F(cimage, step, "step"),
  F(cimage, capacity, "grid capacity"), F(cimage, max_overflow, "largest overflow"),
  F(cimage, grid_builds, "grid builds"), F(cimage, overflow_builds, "overflowed builds"),
  F(cimage, capacity_growths, "capacity growths"),
  F(cimage, outside_events, "outside-box events"), F(cimage, small_pos, "small positions"),
  F(cimage, small_vel, "small velocities"), F(cimage, large_state, "large state"),
};

static const field gravity_fields[] = {
  F(gimage, n, "bodies"), F(gimage, step, "step"), F(gimage, e0, "initial energy"),
  F(gimage, pos, "positions"), F(gimage, vel, "velocities"),
};

/* A mode's payload: its table, how many leading fields are counts, and how to make
 * room for and free the arrays. */
typedef struct layout {
  uint32_t mode;
  uint32_t oldest; /* the oldest format version whose payload this layout still reads */
  const field *fields;
  int n_fields, n_counts;
  int (*alloc)(void *im);
  void (*release)(void *im);
} layout;

static int c_alloc(void *v)
{
  cimage *im = v;
  im->small_pos = malloc(sz_cimage_small_pos(im) + 1);
  im->small_vel = malloc(sz_cimage_small_vel(im) + 1);
  im->large_state = malloc(sz_cimage_large_state(im) + 1);
  return im->small_pos && im->small_vel && im->large_state;
}

static void c_release(void *v)
{
  cimage *im = v;
  free(im->small_pos);
  free(im->small_vel);
  free(im->large_state);
  im->small_pos = im->small_vel = im->large_state = NULL;
}

static int g_alloc(void *v)
{
  gimage *im = v;
  im->pos = malloc(sz_gimage_pos(im) + 1);
  im->vel = malloc(sz_gimage_vel(im) + 1);
  return im->pos && im->vel;
}

static void g_release(void *v)
{
  gimage *im = v;
  free(im->pos);
  free(im->vel);
  im->pos = im->vel = NULL;
}

/* Version 2 made the collision state double precision (version 1 held floats); the
 * gravity payload did not change. */
static const layout collision_layout = {0, 2, collision_fields,
                                        (int)(sizeof collision_fields / sizeof(field)), 2,
                                        c_alloc, c_release};
static const layout gravity_layout = {1, 1, gravity_fields,
                                      (int)(sizeof gravity_fields / sizeof(field)), 1, g_alloc,
                                      g_release};

/* ---- writing ----------------------------------------------------------------------- */

static uint32_t header_crc(const header *h)
{
  return (uint32_t)crc32(0L, (const Bytef *)h, (uInt)offsetof(header, header_crc));
}

typedef struct save_ctx {
  header h;
  const layout *l;
  void *im;
} save_ctx;

static int write_payload(FILE *f, void *arg)
{
  save_ctx *c = arg;
  if (fwrite(&c->h, sizeof c->h, 1, f) != 1)
    return -1;
  for (int i = 0; i < c->l->n_fields; i++) {
    size_t n = c->l->fields[i].size(c->im);
    if (n && fwrite(c->l->fields[i].at(c->im), 1, n, f) != n)
      return -1;
  }
  return 0;
}

static ms_status save_image(const char *path, const layout *l, void *im, uint32_t scene_id)
{
  save_ctx c;
  memset(&c, 0, sizeof c);
  memcpy(c.h.magic, MAGIC, 8);
  c.h.version = MS_CHECKPOINT_VERSION;
  c.h.mode = l->mode;
  c.h.scene_id = scene_id;
  c.h.byte_order = BYTE_ORDER_WORD;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (int i = 0; i < l->n_fields; i++) {
    size_t n = l->fields[i].size(im);
    c.h.payload_size += n;
    crc = ms_crc32_update(crc, l->fields[i].at(im), n);
  }
  c.h.payload_crc = (uint32_t)crc;
  c.h.header_crc = header_crc(&c.h);
  c.l = l;
  c.im = im;
  return ms_write_atomic(path, write_payload, &c);
}

/* ---- reading ----------------------------------------------------------------------- */

static ms_status refuse(const char *path, const char *why)
{
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: %s", path, why);
}

static ms_status check_header(const char *path, const header *h, const layout *l,
                              uint32_t scene_id)
{
  if (memcmp(h->magic, MAGIC, 8) != 0)
    return refuse(path, "not a mixsim checkpoint");
  if (h->header_crc != header_crc(h))
    return refuse(path, "header checksum mismatch (corrupted)");
  if (h->byte_order != BYTE_ORDER_WORD)
    return refuse(path, "written on a machine of another byte order");
  if (h->mode != l->mode)
    return refuse(path, "written by the other simulation mode");
  if (h->version == 1 && l->oldest == 2)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version 1 holds single-precision "
                   "positions, which this mixsim no longer runs from (it reads version %u); "
                   "rerun the scene from the start",
                   path, MS_CHECKPOINT_VERSION);
  if (h->version < l->oldest || h->version > MS_CHECKPOINT_VERSION)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version %u, this mixsim reads %u",
                   path, h->version, MS_CHECKPOINT_VERSION);
  if (h->scene_id != scene_id)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: written from another scene (scene id "
                   "%08x, this scene %08x)", path, h->scene_id, scene_id);
  return MS_OK;
}

/* What a mode checks of a file's fields against the running simulation (ctx): the
 * counts before any array is allocated, every field once the checksums hold. Each
 * returns MS_OK or a refusal naming the file and the field. */
typedef struct checks {
  ms_status (*counts)(const char *path, const void *im, const void *ctx);
  ms_status (*fields)(const char *path, const void *im, const void *ctx);
} checks;

/* Reads and checks the whole file into `im`. */
static ms_status read_image(const char *path, const layout *l, void *im, uint32_t scene_id,
                            const checks *chk, const void *ctx)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot open checkpoint '%s': %s", path, strerror(errno));
  header h;
  ms_status st = MS_OK;
  int allocated = 0;
  uint64_t total = 0;
  if (fread(&h, sizeof h, 1, f) != 1)
    st = refuse(path, "truncated header");
  if (!st)
    st = check_header(path, &h, l, scene_id);
  uLong crc = crc32(0L, Z_NULL, 0);
  for (int i = 0; !st && i < l->n_fields; i++) {
    if (i == l->n_counts) {
      if ((st = chk->counts(path, im, ctx)))
        break;
      allocated = 1;
      if (!l->alloc(im)) {
        st = ms_fail(MS_ERR_RUNTIME, "out of memory reading checkpoint '%s'", path);
        break;
      }
    }
    size_t n = l->fields[i].size(im);
    if (n && fread(l->fields[i].at(im), 1, n, f) != n) {
      char why[128];
      snprintf(why, sizeof why, "truncated in field '%s'", l->fields[i].name);
      st = refuse(path, why);
      break;
    }
    total += n;
    crc = ms_crc32_update(crc, l->fields[i].at(im), n);
  }
  if (!st && fgetc(f) != EOF)
    st = refuse(path, "trailing bytes after the payload");
  if (!st && total != h.payload_size)
    st = refuse(path, "payload size mismatch");
  if (!st && (uint32_t)crc != h.payload_crc)
    st = refuse(path, "payload checksum mismatch (corrupted)");
  if (!st)
    st = chk->fields(path, im, ctx);
  fclose(f);
  if (st && allocated)
    l->release(im);
  return st;
}

/* ---- validating what was read ------------------------------------------------------ */

/* "checkpoint 'PATH' refused: field 'NAME' ...": the file and the field, exit code 2. */
static ms_status refuse_field(const char *path, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ms_status refuse_field(const char *path, const char *field, const char *fmt, ...)
{
  char why[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: field '%s' %s", path, field, why);
}

static ms_status non_finite(const char *path, const char *field, size_t i)
{
  return refuse_field(path, field, "has a non-finite value (entry %zu)", i);
}

static ms_status finite_field(const char *path, const char *field, const double *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return non_finite(path, field, i);
  return MS_OK;
}

static ms_status finite_floats(const char *path, const char *field, const float *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return non_finite(path, field, i);
  return MS_OK;
}

/* A counter of the run: at least 0, at most `max` (another counter it cannot exceed). */
static ms_status counter_field(const char *path, const char *field, int64_t v, int64_t max,
                               const char *max_name)
{
  if (v < 0)
    return refuse_field(path, field, "= %lld is negative", (long long)v);
  if (max_name && v > max)
    return refuse_field(path, field, "= %lld is more than %s (%lld)", (long long)v, max_name,
                        (long long)max);
  return MS_OK;
}

/* The grid's capacity starts at the scene's [grid] capacity (at most
 * MS_GRID_MAX_CAPACITY) and grows to the fullest cell's count rounded up to 4, which
 * is at most every small particle: beyond both, no run wrote it. It must also fit
 * the device this run has. */
static ms_status capacity_field(const char *path, const cimage *im, const ms_sim *s)
{
  int64_t grown = ((int64_t)s->n_small + 3) / 4 * 4;
  int64_t max = grown > MS_GRID_MAX_CAPACITY ? grown : MS_GRID_MAX_CAPACITY;
  if (im->capacity < 1 || im->capacity > max)
    return refuse_field(path, "grid capacity",
                        "= %ld is outside [1, %lld] (the [grid] capacity limit %d, or the %d "
                        "small particles rounded up to 4, which the grid can grow to)",
                        (long)im->capacity, (long long)max, MS_GRID_MAX_CAPACITY, s->n_small);
  ms_device_limits lim;
  ms_status st = ms_buffers_limits(&s->cl, &lim);
  if (st)
    return st;
  char why[512];
  if (!ms_buffers_fit(&lim, s->buf.mode, (uint64_t)s->n_small, s->grid.n_cells,
                      (uint64_t)im->capacity, why, sizeof why))
    return refuse_field(path, "grid capacity", "= %ld does not fit the device: %s",
                        (long)im->capacity, why);
  return MS_OK;
}

static ms_status sim_counts(const char *path, const void *v, const void *ctx)
{
  const cimage *im = v;
  const ms_sim *s = ctx;
  if (im->n_small != s->n_small)
    return refuse_field(path, "n_small", "= %ld: particle counts differ from the scene (%d)",
                        (long)im->n_small, s->n_small);
  if (im->n_large != s->n_large)
    return refuse_field(path, "n_large", "= %ld: particle counts differ from the scene (%d)",
                        (long)im->n_large, s->n_large);
  return MS_OK;
}

static ms_status sim_fields(const char *path, const void *v, const void *ctx)
{
  const cimage *im = v;
  const ms_sim *s = ctx;
  ms_status st;
  if ((st = counter_field(path, "step", im->step, 0, NULL)) ||
      (st = capacity_field(path, im, s)) ||
      (st = counter_field(path, "largest overflow", im->max_overflow, s->n_small,
                          "the number of small particles")) ||
      (st = counter_field(path, "grid builds", im->grid_builds, 0, NULL)) ||
      (st = counter_field(path, "overflowed builds", im->overflow_builds, im->grid_builds,
                          "the grid builds")) ||
      (st = counter_field(path, "capacity growths", im->capacity_growths, im->overflow_builds,
                          "the overflowed builds")) ||
      (st = counter_field(path, "outside-box events", im->outside_events, 0, NULL)) ||
      (st = finite_field(path, "small positions", im->small_pos, (size_t)im->n_small * 2)) ||
      (st = finite_field(path, "small velocities", im->small_vel, (size_t)im->n_small * 2)) ||
      (st = finite_field(path, "large state", im->large_state, (size_t)im->n_large * 4)))
    return st;
  return MS_OK;
}

static const checks sim_checks = {sim_counts, sim_fields};

/* ---- collision mode ---------------------------------------------------------------- */

static ms_status capture(ms_sim *s, cimage *im)
{
  memset(im, 0, sizeof *im);
  im->n_small = s->n_small;
  im->n_large = s->n_large;
  im->step = s->step;
  im->capacity = (int32_t)s->buf.cap;
  im->max_overflow = s->stats.max_cell_count;
  im->grid_builds = s->stats.grid_builds;
  im->overflow_builds = s->stats.overflow_builds;
  im->capacity_growths = s->stats.capacity_growths;
  im->outside_events = s->stats.outside_events;
  if (!c_alloc(im)) {
    c_release(im);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a checkpoint of %d + %d particles",
                   im->n_small, im->n_large);
  }
  ms_status st;
  if ((st = ms_buffers_download(&s->cl, s->buf.pos, im->small_pos, sz_cimage_small_pos(im))) ||
      (st = ms_buffers_download(&s->cl, s->buf.vel, im->small_vel, sz_cimage_small_vel(im)))) {
    c_release(im);
    return st;
  }
  for (int i = 0; i < s->n_large; i++) {
    double *L = &im->large_state[4 * i];
    L[0] = s->large[i].x;
    L[1] = s->large[i].y;
    L[2] = s->large[i].vx;
    L[3] = s->large[i].vy;
  }
  return MS_OK;
}

static ms_status restore(ms_sim *s, const cimage *im)
{
  ms_status st = ms_sim_restore(s, im->step, (size_t)im->capacity, im->small_pos, im->small_vel,
                                im->large_state);
  if (!st) {
    s->stats.grid_builds = im->grid_builds;
    s->stats.overflow_builds = im->overflow_builds;
    s->stats.capacity_growths = im->capacity_growths;
    s->stats.outside_events = im->outside_events;
    s->stats.max_cell_count = im->max_overflow;
  }
  return st;
}

ms_status ms_checkpoint_save(const char *path, ms_sim *s, uint32_t scene_id)
{
  cimage im;
  ms_status st = capture(s, &im);
  if (st)
    return st;
  st = save_image(path, &collision_layout, &im, scene_id);
  c_release(&im);
  return st;
}

ms_status ms_checkpoint_load(const char *path, ms_sim *s, uint32_t scene_id)
{
  cimage im;
  memset(&im, 0, sizeof im);
  ms_status st = read_image(path, &collision_layout, &im, scene_id, &sim_checks, s);
  if (st)
    return st;
  st = restore(s, &im);
  c_release(&im);
  return st;
}

struct ms_snapshot {
  cimage im;
};

ms_status ms_snapshot_take(ms_sim *s, ms_snapshot **out)
{
  *out = calloc(1, sizeof **out);
  if (!*out)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a snapshot");
  ms_status st = capture(s, &(*out)->im);
  if (st) {
    free(*out);
    *out = NULL;
  }
  return st;
}

ms_status ms_snapshot_restore(ms_sim *s, const ms_snapshot *snap)
{
  return restore(s, &snap->im);
}

ms_status ms_snapshot_save(const char *path, const ms_snapshot *snap, uint32_t scene_id)
{
  cimage im = snap->im; /* the field table takes a mutable image; nothing is changed */
  return save_image(path, &collision_layout, &im, scene_id);
}

long ms_snapshot_step(const ms_snapshot *snap) { return (long)snap->im.step; }

void ms_snapshot_free(ms_snapshot *snap)
{
  if (!snap)
    return;
  c_release(&snap->im);
  free(snap);
}

/* ---- gravity mode ------------------------------------------------------------------ */

static ms_status gravity_counts(const char *path, const void *v, const void *ctx)
{
  const gimage *im = v;
  int n = ms_gravity_body_count(ctx);
  if (im->n != n)
    return refuse_field(path, "bodies", "= %ld: the body count differs from the scene (%d)",
                        (long)im->n, n);
  return MS_OK;
}

static ms_status gravity_fields_ok(const char *path, const void *v, const void *ctx)
{
  const gimage *im = v;
  (void)ctx;
  ms_status st;
  if ((st = counter_field(path, "step", im->step, 0, NULL)))
    return st;
  if (!isfinite(im->e0))
    return refuse_field(path, "initial energy", "is not finite");
  if ((st = finite_floats(path, "positions", im->pos, (size_t)im->n * 4)) ||
      (st = finite_floats(path, "velocities", im->vel, (size_t)im->n * 3)))
    return st;
  for (int i = 0; i < im->n; i++)
    if (im->pos[4 * i + 3] < 0.0f)
      return refuse_field(path, "positions", "has a negative mass (body %d)", i);
  return MS_OK;
}

static const checks gravity_checks = {gravity_counts, gravity_fields_ok};

ms_status ms_checkpoint_save_gravity(const char *path, ms_gravity *g, uint32_t scene_id)
{
  ms_gravity_state state;
  ms_status st = ms_gravity_read_state(g, &state);
  if (st)
    return st;
  gimage im = {state.n, state.step, ms_gravity_initial_energy(g), state.pos, state.vel};
  st = save_image(path, &gravity_layout, &im, scene_id);
  ms_gravity_state_free(&state);
  return st;
}

ms_status ms_checkpoint_load_gravity(const char *path, ms_gravity *g, uint32_t scene_id)
{
  gimage im;
  memset(&im, 0, sizeof im);
  ms_status st = read_image(path, &gravity_layout, &im, scene_id, &gravity_checks, g);
  if (st)
    return st;
  st = ms_gravity_restore(g, (long)im.step, im.pos, im.vel, im.e0);
  g_release(&im);
  return st;
}

/* ---- scene identity ---------------------------------------------------------------- */

ms_status ms_scene_identity(const char *path, uint32_t *id)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot read scene '%s': %s", path, strerror(errno));
  uLong crc = crc32(0L, Z_NULL, 0);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    crc = crc32(crc, buf, (uInt)n);
  int bad = ferror(f);
  fclose(f);
  if (bad)
    return ms_fail(MS_ERR_INPUT, "cannot read scene '%s'", path);
  *id = (uint32_t)crc;
  return MS_OK;
}
