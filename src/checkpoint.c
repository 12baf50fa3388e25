/* Checkpoint files. Layout (host byte order, marked by a byte-order word):
 *
 *   header   magic "MIXSIMCK", version, mode, scene id, byte-order word,
 *            payload size, payload CRC-32, header CRC-32
 *   payload  the fields of `fields[]` below, in order
 *
 * One table describes the payload, so saving and loading cannot drift apart. */
#include "mixsim/checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report.h"
#include "sim_internal.h"

#define MAGIC "MIXSIMCK"
#define BYTE_ORDER_WORD 0x01020304u
#define MODE_COLLISION 0u

typedef struct header {
  char magic[8];
  uint32_t version, mode, scene_id, byte_order;
  uint64_t payload_size;
  uint32_t payload_crc, header_crc;
} header;

/* The state being saved or restored, flattened into plain arrays. */
typedef struct image {
  int64_t step, grid_builds, overflow_builds, capacity_growths, outside_events;
  int32_t n_small, n_large, capacity, max_overflow;
  float *small_pos, *small_vel; /* 2 n_small each */
  float *large_state;           /* 4 n_large: x y vx vy */
} image;

typedef struct field {
  const char *name;
  size_t (*size)(const image *im);
  void *(*at)(image *im);
} field;

static size_t sz8(const image *im) { (void)im; return 8; }
static size_t sz4(const image *im) { (void)im; return 4; }
static size_t sz_small(const image *im) { return (size_t)im->n_small * 2 * sizeof(float); }
static size_t sz_large(const image *im) { return (size_t)im->n_large * 4 * sizeof(float); }
#define AT(member) static void *at_##member(image *im) { return &im->member; }
AT(step) AT(grid_builds) AT(overflow_builds) AT(capacity_growths) AT(outside_events)
AT(n_small) AT(n_large) AT(capacity) AT(max_overflow)
static void *at_small_pos(image *im) { return im->small_pos; }
static void *at_small_vel(image *im) { return im->small_vel; }
static void *at_large_state(image *im) { return im->large_state; }

/* Counts come first: the array sizes depend on them. */
static const field fields[] = {
  {"n_small", sz4, at_n_small},
  {"n_large", sz4, at_n_large},
  {"step", sz8, at_step},
  {"grid capacity", sz4, at_capacity},
  {"largest overflow", sz4, at_max_overflow},
  {"grid builds", sz8, at_grid_builds},
  {"overflowed builds", sz8, at_overflow_builds},
  {"capacity growths", sz8, at_capacity_growths},
  {"outside-box events", sz8, at_outside_events},
  {"small positions", sz_small, at_small_pos},
  {"small velocities", sz_small, at_small_vel},
  {"large state", sz_large, at_large_state},
};
#define N_FIELDS ((int)(sizeof fields / sizeof fields[0]))

static void image_free(image *im)
{
  free(im->small_pos);
  free(im->small_vel);
  free(im->large_state);
  im->small_pos = im->small_vel = im->large_state = NULL;
}

static ms_status image_alloc(image *im)
{
  im->small_pos = malloc(sz_small(im) + 1);
  im->small_vel = malloc(sz_small(im) + 1);
  im->large_state = malloc(sz_large(im) + 1);
  if (!im->small_pos || !im->small_vel || !im->large_state) {
    image_free(im);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a checkpoint of %d + %d particles",
                   im->n_small, im->n_large);
  }
  return MS_OK;
}

static size_t payload_size(const image *im)
{
  size_t n = 0;
  for (int i = 0; i < N_FIELDS; i++)
    n += fields[i].size(im);
  return n;
}

static uint32_t header_crc(const header *h)
{
  return (uint32_t)crc32(0L, (const Bytef *)h, (uInt)offsetof(header, header_crc));
}

static ms_status capture(ms_sim *s, image *im)
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
  ms_status st = image_alloc(im);
  if (st)
    return st;
  if ((st = ms_buffers_download(&s->cl, s->buf.pos, im->small_pos, sz_small(im))) ||
      (st = ms_buffers_download(&s->cl, s->buf.vel, im->small_vel, sz_small(im)))) {
    image_free(im);
    return st;
  }
  for (int i = 0; i < s->n_large; i++) {
    float *L = &im->large_state[4 * i];
    L[0] = s->large[i].x;
    L[1] = s->large[i].y;
    L[2] = s->large[i].vx;
    L[3] = s->large[i].vy;
  }
  return MS_OK;
}

struct ms_snapshot {
  image im;
};

typedef struct save_ctx {
  header h;
  const image *im;
} save_ctx;

static int write_checkpoint(FILE *f, void *arg)
{
  save_ctx *c = arg;
  if (fwrite(&c->h, sizeof c->h, 1, f) != 1)
    return -1;
  for (int i = 0; i < N_FIELDS; i++) {
    size_t n = fields[i].size(c->im);
    if (n && fwrite(fields[i].at((image *)c->im), 1, n, f) != n)
      return -1;
  }
  return 0;
}

static ms_status save_image(const char *path, const image *im_in, uint32_t scene_id)
{
  image im = *im_in; /* the field table takes a mutable image; nothing is changed */
  save_ctx c = {{{0}, 0, 0, 0, 0, 0, 0, 0}, &im};
  memcpy(c.h.magic, MAGIC, 8);
  c.h.version = MS_CHECKPOINT_VERSION;
  c.h.mode = MODE_COLLISION;
  c.h.scene_id = scene_id;
  c.h.byte_order = BYTE_ORDER_WORD;
  c.h.payload_size = payload_size(&im);
  uLong crc = crc32(0L, Z_NULL, 0);
  for (int i = 0; i < N_FIELDS; i++)
    crc = crc32(crc, (const Bytef *)fields[i].at(&im), (uInt)fields[i].size(&im));
  c.h.payload_crc = (uint32_t)crc;
  c.h.header_crc = header_crc(&c.h);
  return ms_write_atomic(path, write_checkpoint, &c);
}

ms_status ms_checkpoint_save(const char *path, ms_sim *s, uint32_t scene_id)
{
  image im;
  ms_status st = capture(s, &im);
  if (st)
    return st;
  st = save_image(path, &im, scene_id);
  image_free(&im);
  return st;
}

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

static ms_status restore_image(ms_sim *s, const image *im)
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

ms_status ms_snapshot_restore(ms_sim *s, const ms_snapshot *snap)
{
  return restore_image(s, &snap->im);
}

ms_status ms_snapshot_save(const char *path, const ms_snapshot *snap, uint32_t scene_id)
{
  return save_image(path, &snap->im, scene_id);
}

long ms_snapshot_step(const ms_snapshot *snap) { return (long)snap->im.step; }

void ms_snapshot_free(ms_snapshot *snap)
{
  if (!snap)
    return;
  image_free(&snap->im);
  free(snap);
}

static ms_status refuse(const char *path, const char *why)
{
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: %s", path, why);
}

static ms_status check_header(const char *path, const header *h, uint32_t scene_id)
{
  if (memcmp(h->magic, MAGIC, 8) != 0)
    return refuse(path, "not a mixsim checkpoint");
  if (h->header_crc != header_crc(h))
    return refuse(path, "header checksum mismatch (corrupted)");
  if (h->byte_order != BYTE_ORDER_WORD)
    return refuse(path, "written on a machine of another byte order");
  if (h->version != MS_CHECKPOINT_VERSION)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version %u, this mixsim reads %u",
                   path, h->version, MS_CHECKPOINT_VERSION);
  if (h->mode != MODE_COLLISION)
    return refuse(path, "written by another simulation mode");
  if (h->scene_id != scene_id)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: written from another scene (scene id "
                   "%08x, this scene %08x)", path, h->scene_id, scene_id);
  return MS_OK;
}

static int finite_array(const float *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return 0;
  return 1;
}

static int all_finite(const image *im)
{
  size_t ns = (size_t)im->n_small * 2, nl = (size_t)im->n_large * 4;
  return finite_array(im->small_pos, ns) && finite_array(im->small_vel, ns) &&
         finite_array(im->large_state, nl);
}

/* Reads and checks the whole file into `im`; the sizes must match `s`. */
static ms_status read_image(const char *path, ms_sim *s, uint32_t scene_id, image *im)
{
  memset(im, 0, sizeof *im);
  FILE *f = fopen(path, "rb");
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot open checkpoint '%s': %s", path, strerror(errno));
  header h;
  ms_status st = MS_OK;
  if (fread(&h, sizeof h, 1, f) != 1)
    st = refuse(path, "truncated header");
  if (!st)
    st = check_header(path, &h, scene_id);
  uLong crc = crc32(0L, Z_NULL, 0);
  for (int i = 0; !st && i < N_FIELDS; i++) {
    size_t n = fields[i].size(im);
    if (i == 2) { /* the counts are in: check them, then make room for the arrays */
      if (im->n_small != s->n_small || im->n_large != s->n_large)
        st = refuse(path, "particle counts differ from the scene");
      else
        st = image_alloc(im);
      if (st)
        break;
    }
    if (n && fread(fields[i].at(im), 1, n, f) != n) {
      char why[128];
      snprintf(why, sizeof why, "truncated in field '%s'", fields[i].name);
      st = refuse(path, why);
      break;
    }
    crc = crc32(crc, (const Bytef *)fields[i].at(im), (uInt)n);
  }
  if (!st && fgetc(f) != EOF)
    st = refuse(path, "trailing bytes after the payload");
  if (!st && (uint64_t)payload_size(im) != h.payload_size)
    st = refuse(path, "payload size mismatch");
  if (!st && (uint32_t)crc != h.payload_crc)
    st = refuse(path, "payload checksum mismatch (corrupted)");
  if (!st && (im->capacity < 1 || im->step < 0))
    st = refuse(path, "impossible values");
  if (!st && !all_finite(im))
    st = refuse(path, "non-finite positions or velocities");
  fclose(f);
  if (st)
    image_free(im);
  return st;
}

ms_status ms_checkpoint_load(const char *path, ms_sim *s, uint32_t scene_id)
{
  image im;
  ms_status st = read_image(path, s, scene_id, &im);
  if (st)
    return st;
  st = restore_image(s, &im);
  image_free(&im);
  return st;
}

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
