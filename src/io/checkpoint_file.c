/* Checkpoint files, whatever the mode: the header (magic "MIXSIMCK", version, mode,
 * scene id, byte-order word, payload size, payload CRC-32, header CRC-32), then the
 * payload: the record of the files the scene reads (io/scene_identity.h), then what its
 * field table (io/checkpoint_file.h) describes. Writing is atomic; reading
 * checks every byte before anything is used, and the helpers here name the file and the
 * field in each refusal. checkpoint.c has the modes' tables. */
#include "io/checkpoint_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/io_wait.h"
#include "core/file.h"
#include "io/output_file.h"
#include "io/scene_identity.h"
#include "mixsim/checkpoint.h"
#include "collision/sim_internal.h"

#define MAGIC "MIXSIMCK"
#define BYTE_ORDER_WORD 0x01020304u
#define RECORD_SINCE 4 /* the version that added the record of the scene's files */

typedef struct header {
  char magic[8];
  uint32_t version, mode, scene_id, byte_order;
  uint64_t payload_size;
  uint32_t payload_crc, header_crc;
} header;

/* The fields a file of `version` holds: up to the first section added after it. */
static int fields_of_version(const layout *l, uint32_t version)
{
  for (int k = 0; k < l->n_sections; k++)
    if (l->section[k].since > version)
      return l->section[k].first;
  return l->n_fields;
}

/* The section whose counts end at field i, -1: none. */
static int section_counted_at(const layout *l, int i)
{
  for (int k = 0; k < l->n_sections; k++)
    if (l->section[k].counts == i)
      return k;
  return -1;
}

/* ---- writing ----------------------------------------------------------------------- */

static uint32_t header_crc(const header *h)
{
  return (uint32_t)crc32(0L, (const Bytef *)h, (uInt)offsetof(header, header_crc));
}

typedef struct save_ctx {
  header h;
  const layout *l;
  void *im;
  const ms_scene_id *id;
} save_ctx;

static int write_payload(FILE *f, void *arg)
{
  save_ctx *c = arg;
  unsigned long unused = 0;
  if (fwrite(&c->h, sizeof c->h, 1, f) != 1 || ms_sid_record_write(f, c->id, &unused))
    return -1;
  for (int i = 0; i < c->l->n_fields; i++) {
    size_t n = c->l->fields[i].size(c->im);
    if (n && fwrite(c->l->fields[i].at(c->im), 1, n, f) != n)
      return -1;
  }
  return 0;
}

ms_status ms_ck_save(const char *path, const layout *l, void *im, const ms_scene_id *scene_id)
{
  save_ctx c;
  memset(&c, 0, sizeof c);
  memcpy(c.h.magic, MAGIC, 8);
  c.h.version = MS_CHECKPOINT_VERSION;
  c.h.mode = l->mode;
  c.h.scene_id = scene_id ? scene_id->crc : 0;
  c.h.byte_order = BYTE_ORDER_WORD;
  /* The record first (its size and CRC count in the payload's), then the fields. */
  uLong crc = crc32(0L, Z_NULL, 0);
  ms_sid_record_write(NULL, scene_id, &crc);
  c.h.payload_size = ms_sid_record_size(scene_id);
  for (int i = 0; i < l->n_fields; i++) {
    size_t n = l->fields[i].size(im);
    c.h.payload_size += n;
    crc = ms_crc32_update(crc, l->fields[i].at(im), n);
  }
  c.h.payload_crc = (uint32_t)crc;
  c.h.header_crc = header_crc(&c.h);
  c.l = l;
  c.im = im;
  c.id = scene_id;
  return ms_write_atomic(path, write_payload, &c);
}

/* ---- reading ----------------------------------------------------------------------- */

static ms_status refuse(const char *path, const char *why)
{
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: %s", path, why);
}

/* "collision checkpoints of version 5 only", "gravity checkpoints of versions 1 to 5". */
static void versions_read(const layout *l, char *out, size_t n)
{
  const char *mode = l->mode == 0 ? "collision" : "gravity";
  if (l->oldest == MS_CHECKPOINT_VERSION)
    snprintf(out, n, "%s checkpoints of version %u only", mode, l->oldest);
  else
    snprintf(out, n, "%s checkpoints of versions %u to %u", mode, l->oldest,
             MS_CHECKPOINT_VERSION);
}

/* A format this layout no longer reads (collision mode: its payload grew), or never did:
 * what it lacks, and what to do. */
static ms_status other_version(const char *path, uint32_t version, const layout *l)
{
  char reads[96];
  versions_read(l, reads, sizeof reads);
  if (version > MS_CHECKPOINT_VERSION || version == 0)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version %u, this mixsim reads "
                   "%s", path, version, reads);
  const char *lacks =
      version == 1 ? "holds single-precision positions, which this mixsim no longer runs from"
      : version == 2 ? "was written by an older mixsim, without the rotation and contact "
                       "histories that version 3 added"
                     : "was written by an older mixsim, without the walls' state ([wall.NAME]: a "
                       "force-driven wall's displacement and rate, the histories of the walls' "
                       "contacts) that version 5 added";
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version %u %s; this mixsim reads "
                 "%s: rerun the scene from the start (or finish the run with the mixsim that "
                 "wrote it)", path, version, lacks, reads);
}

static ms_status check_header(const char *path, const header *h, const layout *l,
                              const ms_scene_id *now)
{
  uint32_t scene_id = now ? now->crc : 0;
  if (memcmp(h->magic, MAGIC, 8) != 0)
    return refuse(path, "not a mixsim checkpoint");
  if (h->header_crc != header_crc(h))
    return refuse(path, "header checksum mismatch (corrupted)");
  if (h->byte_order != BYTE_ORDER_WORD)
    return refuse(path, "written on a machine of another byte order");
  if (h->mode != l->mode)
    return refuse(path, "written by the other simulation mode");
  if (h->version < l->oldest || h->version > MS_CHECKPOINT_VERSION)
    return other_version(path, h->version, l);
  if (h->scene_id != scene_id)
    return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: written from another scene (scene id "
                   "%08x, this scene %08x)", path, h->scene_id, scene_id);
  return h->version < RECORD_SINCE ? ms_sid_without_record(path, h->version, now) : MS_OK;
}


/* At the end of a section's counts: checks them, then makes room for its arrays. */
static ms_status open_section(const char *path, const layout *l, int k, void *im,
                              const header *h, uint64_t total, const checks *chk,
                              const void *ctx)
{
  ms_status st = chk->counts(path, im, ctx, k);
  if (st)
    return st;
  int end = k + 1 < l->n_sections ? l->section[k + 1].first : l->n_fields;
  uint64_t need = 0;
  for (int i = l->section[k].counts; i < end; i++)
    need += l->fields[i].size(im);
  if (total + need > h->payload_size)
    return refuse(path, "its counts call for more bytes than the payload holds (truncated "
                        "or corrupted)");
  if (!l->section[k].alloc(im))
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading checkpoint '%s'", path);
  return MS_OK;
}

/* Reads exactly `n` bytes: 1, 0 at the end of the file (or short of it), -1 on an error
 * with its status kept. */
static int read_exactly(int fd, const char *path, void *buf, size_t n, ms_status *st)
{
  ssize_t got = ms_io_read_full(fd, buf, n);
  if (got < 0) {
    *st = ms_fail(MS_ERR_INPUT, "cannot read checkpoint '%s': %s", path, strerror(errno));
    return -1;
  }
  return (size_t)got == n;
}

/* Reads and checks the whole file into `im`. */
ms_status ms_ck_read(const char *path, const layout *l, void *im, const ms_scene_id *scene_id,
                     const checks *chk, const void *ctx)
{
  /* A regular file only: a folder would read as a truncated header, a FIFO block. */
  char why[256];
  FILE *f = ms_open_regular(path, LONG_MAX, why, sizeof why);
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot open checkpoint '%s': %s", path, why);
  int fd = fileno(f);
  header h;
  ms_status st = MS_OK;
  int allocated = 0, r;
  uint64_t total = 0;
  if ((r = read_exactly(fd, path, &h, sizeof h, &st)) == 0)
    st = refuse(path, "truncated header");
  if (!st)
    st = check_header(path, &h, l, scene_id);
  /* The scene's files before any field: a changed file is named, not its counts. */
  uLong crc = crc32(0L, Z_NULL, 0);
  if (!st && h.version >= RECORD_SINCE) {
    ms_scene_id saved;
    unsigned long c = crc;
    st = ms_sid_record_read(fd, path, h.payload_size, &saved, &c, &total);
    if (!st)
      st = ms_sid_compare(path, &saved, scene_id);
    crc = c;
    ms_scene_id_free(&saved);
  }
  int n_fields = st ? 0 : fields_of_version(l, h.version);
  for (int i = 0; !st && i < n_fields; i++) {
    int k = section_counted_at(l, i);
    if (k >= 0) {
      allocated = 1; /* (release frees what a failed allocation left) */
      if ((st = open_section(path, l, k, im, &h, total, chk, ctx)))
        break;
    }
    size_t n = l->fields[i].size(im);
    if (n && (r = read_exactly(fd, path, l->fields[i].at(im), n, &st)) == 0) {
      char why[128];
      snprintf(why, sizeof why, "truncated in field '%s'", l->fields[i].name);
      st = refuse(path, why);
    }
    if (st)
      break;
    total += n;
    crc = ms_crc32_update(crc, l->fields[i].at(im), n);
  }
  char extra;
  if (!st && (r = read_exactly(fd, path, &extra, 1, &st)) == 1)
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
ms_status ms_ck_refuse_field(const char *path, const char *field, const char *fmt, ...)
{
  char why[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: field '%s' %s", path, field, why);
}

ms_status ms_ck_non_finite(const char *path, const char *field, size_t i)
{
  return ms_ck_refuse_field(path, field, "has a non-finite value (entry %zu)", i);
}

ms_status ms_ck_finite_doubles(const char *path, const char *field, const double *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return ms_ck_non_finite(path, field, i);
  return MS_OK;
}

ms_status ms_ck_finite_floats(const char *path, const char *field, const float *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return ms_ck_non_finite(path, field, i);
  return MS_OK;
}

/* A counter of the run: at least 0, at most `max` (another counter it cannot exceed),
 * and never past MS_CK_COUNTER_MAX, so that a run adding to it cannot overflow. */
ms_status ms_ck_counter(const char *path, const char *field, int64_t v, int64_t max,
                               const char *max_name)
{
  if (v < 0)
    return ms_ck_refuse_field(path, field, "= %lld is negative", (long long)v);
  if (max_name && v > max)
    return ms_ck_refuse_field(path, field, "= %lld is more than %s (%lld)", (long long)v, max_name,
                        (long long)max);
  if (v > MS_CK_COUNTER_MAX)
    return ms_ck_refuse_field(path, field, "= %lld is more than 2^53 (%lld), which no run counts "
                              "to (a run takes at most 10^15 steps)", (long long)v,
                              (long long)MS_CK_COUNTER_MAX);
  return MS_OK;
}
