/* A scene's identity (mixsim/checkpoint.h): CRC-32s of the scene file and of each file it
 * reads, and their record in a checkpoint (io/scene_identity.h). */
#include "io/scene_identity.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "collision/sim_internal.h"
#include "core/file.h"
#include "core/io_wait.h"

/* More files than any scene reads: a larger count is a damaged record. */
#define MAX_FILES (1 << 20)

/* ---- computing ----------------------------------------------------------------------- */

static ms_status crc_of(const char *path, const char *what, uint32_t *crc, uint64_t *bytes)
{
  if (ms_file_crc32(path, crc, bytes) != 0)
    return ms_fail(MS_ERR_INPUT, "cannot read %s '%s': %s", what, path, strerror(errno));
  return MS_OK;
}

ms_status ms_scene_identity(const ms_scene *scene, ms_scene_id *id)
{
  memset(id, 0, sizeof *id);
  uint64_t bytes = 0;
  ms_status st = crc_of(scene->path, "scene", &id->crc, &bytes);
  if (st || scene->input_count == 0)
    return st;
  id->file = calloc((size_t)scene->input_count, sizeof *id->file);
  if (!id->file)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (int i = 0; i < scene->input_count && !st; i++) {
    ms_scene_file_id *f = &id->file[id->n_files++];
    const ms_scene_input *in = &scene->inputs[i];
    snprintf(f->key, sizeof f->key, "%s", in->key);
    snprintf(f->path, sizeof f->path, "%s", in->path);
    st = crc_of(in->path, in->key, &f->crc, &f->bytes);
  }
  if (st)
    ms_scene_id_free(id);
  return st;
}

void ms_scene_id_free(ms_scene_id *id)
{
  free(id->file);
  memset(id, 0, sizeof *id);
}

/* ---- the record in a checkpoint -------------------------------------------------------- */

typedef struct entry_head {
  uint32_t crc, key_len;
  uint64_t bytes;
} entry_head;

static int n_files(const ms_scene_id *id) { return id ? id->n_files : 0; }

uint64_t ms_sid_record_size(const ms_scene_id *id)
{
  uint64_t n = 2 * sizeof(uint32_t);
  for (int i = 0; i < n_files(id); i++)
    n += sizeof(entry_head) + strlen(id->file[i].key);
  return n;
}

/* Writes n bytes (f NULL: none), and runs both CRCs over them. */
static int put(FILE *f, const void *p, size_t n, uLong *record, unsigned long *payload)
{
  *record = crc32(*record, p, (uInt)n);
  *payload = ms_crc32_update(*payload, p, n);
  return !f || fwrite(p, 1, n, f) == n ? 0 : -1;
}

int ms_sid_record_write(FILE *f, const ms_scene_id *id, unsigned long *crc)
{
  uLong rec = crc32(0L, Z_NULL, 0);
  uint32_t n = (uint32_t)n_files(id);
  int bad = put(f, &n, sizeof n, &rec, crc);
  for (uint32_t i = 0; i < n && !bad; i++) {
    const ms_scene_file_id *e = &id->file[i];
    entry_head h = {e->crc, (uint32_t)strlen(e->key), e->bytes};
    bad = put(f, &h, sizeof h, &rec, crc) || put(f, e->key, h.key_len, &rec, crc);
  }
  uint32_t own = (uint32_t)rec;
  return bad || put(f, &own, sizeof own, &rec, crc);
}

static ms_status damaged(const char *path, const char *why)
{
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: its record of the scene's files %s "
                 "(truncated or corrupted)", path, why);
}

/* Reads n bytes of at most *room left, running both CRCs. */
static int take(int fd, void *p, size_t n, uint64_t *room, uLong *record, unsigned long *payload)
{
  if (n > *room || ms_io_read_full(fd, p, n) != (ssize_t)n)
    return -1;
  *room -= n;
  *record = crc32(*record, p, (uInt)n);
  *payload = ms_crc32_update(*payload, p, n);
  return 0;
}

ms_status ms_sid_record_read(int fd, const char *path, uint64_t room, ms_scene_id *saved,
                             unsigned long *crc, uint64_t *bytes)
{
  memset(saved, 0, sizeof *saved);
  uint64_t start = room;
  uLong rec = crc32(0L, Z_NULL, 0);
  uint32_t n = 0;
  if (take(fd, &n, sizeof n, &room, &rec, crc))
    return damaged(path, "is cut short");
  if (n > MAX_FILES || (uint64_t)n * sizeof(entry_head) > room)
    return damaged(path, "counts more files than it holds");
  saved->file = calloc(n + 1, sizeof *saved->file);
  if (!saved->file)
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading checkpoint '%s'", path);
  for (uint32_t i = 0; i < n; i++) {
    ms_scene_file_id *e = &saved->file[saved->n_files++];
    entry_head h;
    if (take(fd, &h, sizeof h, &room, &rec, crc) || h.key_len >= sizeof e->key ||
        take(fd, e->key, h.key_len, &room, &rec, crc)) {
      ms_scene_id_free(saved);
      return damaged(path, "is cut short or names a file by too long a key");
    }
    e->crc = h.crc;
    e->bytes = h.bytes;
  }
  uint32_t own = 0, want = (uint32_t)rec;
  if (take(fd, &own, sizeof own, &room, &rec, crc) || own != want) {
    ms_scene_id_free(saved);
    return damaged(path, "does not match its checksum");
  }
  *bytes = start - room;
  return MS_OK;
}

static const ms_scene_file_id *find(const ms_scene_id *id, const char *key)
{
  for (int i = 0; i < n_files(id); i++)
    if (strcmp(id->file[i].key, key) == 0)
      return &id->file[i];
  return NULL;
}

static ms_status other_scene(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static ms_status other_scene(const char *path, const char *fmt, ...)
{
  char why[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: written from another scene: %s", path,
                 why);
}

ms_status ms_sid_compare(const char *path, const ms_scene_id *saved, const ms_scene_id *now)
{
  for (int i = 0; i < n_files(now); i++) {
    const ms_scene_file_id *e = &now->file[i], *was = find(saved, e->key);
    if (!was)
      return other_scene(path, "this scene reads '%s' (%s), which the checkpoint's scene did "
                         "not", e->path, e->key);
    if (was->crc != e->crc || was->bytes != e->bytes)
      return other_scene(path, "'%s' (%s) has changed since the checkpoint was written (%llu "
                         "bytes of CRC-32 %08x then, %llu bytes of CRC-32 %08x now)", e->path,
                         e->key, (unsigned long long)was->bytes, was->crc,
                         (unsigned long long)e->bytes, e->crc);
  }
  for (int i = 0; i < n_files(saved); i++)
    if (!find(now, saved->file[i].key))
      return other_scene(path, "the checkpoint's scene read a %s, which this scene does not",
                         saved->file[i].key);
  return MS_OK;
}

ms_status ms_sid_without_record(const char *path, uint32_t version, const ms_scene_id *now)
{
  if (n_files(now) == 0)
    return MS_OK;
  return ms_fail(MS_ERR_INPUT, "checkpoint '%s' refused: format version %u records only the "
                 "scene file's identity, not that of the files the scene reads ('%s', its %s%s), "
                 "so whether they changed since cannot be told; rerun the scene from the start "
                 "(mixsim writes version %u, which records them)", path, version,
                 now->file[0].path, now->file[0].key, now->n_files > 1 ? ", and more" : "",
                 MS_CHECKPOINT_VERSION);
}
