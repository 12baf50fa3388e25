/* Output files: checked before a run, written whole or not at all (temporary file,
 * fsync, rename) where the path is a regular file or new, written straight through
 * where it is a device or a FIFO, "-" on standard output, in waits a stop ends; stale
 * temporary files of killed runs; JSON string literals. */
#include "io/output_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io_wait.h"

/* What mkstemp makes of the last six characters of "<name>.tmpXXXXXX". */
#define TMP_SUFFIX ".tmp"
#define TMP_RANDOM 6

/* ---- paths ------------------------------------------------------------------------- */

static char *dup_string(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

/* The folder part of `path` ("." for a bare name, "/" for "/name"). */
static char *folder_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  if (!slash)
    return dup_string(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

/* The target of the symlink `path` (relative targets are taken from the link's folder),
 * or NULL when it is none or cannot be read. */
static char *link_target(const char *path)
{
  for (size_t cap = 256; cap <= 65536; cap *= 2) {
    char *buf = malloc(cap);
    if (!buf)
      return NULL;
    ssize_t n = readlink(path, buf, cap);
    if (n < 0) {
      free(buf);
      return NULL;
    }
    if ((size_t)n < cap) {
      buf[n] = '\0';
      if (buf[0] == '/' || !strchr(path, '/'))
        return buf;
      char *dir = folder_of(path);
      size_t len = (dir ? strlen(dir) : 0) + strlen(buf) + 2;
      char *joined = dir ? malloc(len) : NULL;
      if (joined)
        snprintf(joined, len, "%s/%s", dir, buf);
      free(dir);
      free(buf);
      return joined;
    }
    free(buf);
  }
  return NULL;
}

/* Where a write to `path` really lands: symlinks in its last component followed, to a
 * target that may not exist yet (a dangling link is written through). The folders on the
 * way are the kernel's business. NULL, with errno set, for a loop of links, a link that
 * cannot be read, or no memory: a link itself is never what gets replaced. */
static char *final_target(const char *path)
{
  char *p = dup_string(path);
  for (int hops = 0; p && hops < 40; hops++) {
    struct stat st;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
      return p;
    char *next = link_target(p);
    free(p);
    p = next;
  }
  if (p) {
    free(p);
    errno = ELOOP;
  }
  return NULL;
}

/* ---- writing ----------------------------------------------------------------------- */

typedef int (*writer)(FILE *f, void *ctx);

/* The output composed in memory, so that it can be written through in waits a stop can
 * end (core/io_wait.h); stdio would block in write(2). Returns 0, or -1 with errno. */
static int compose(writer write, void *ctx, char **buf, size_t *size)
{
  *buf = NULL;
  *size = 0;
  FILE *m = open_memstream(buf, size);
  if (!m)
    return -1;
  int bad = write(m, ctx) != 0 || fflush(m) != 0 || ferror(m);
  int err = errno;
  if (fclose(m) != 0)
    bad = 1;
  if (bad) {
    free(*buf);
    *buf = NULL;
    errno = err ? err : EIO;
  }
  return bad ? -1 : 0;
}

/* Why a write through `fd` failed, and its status: a stop (SIGINT/SIGTERM) that ended a
 * wait for the reader is MS_ERR_STOPPED, the rest MS_ERR_RUNTIME. `name` is quoted. */
static ms_status through_failed(const char *name, int err, size_t done, size_t size)
{
  if (err == ECANCELED)
    return ms_fail(MS_ERR_STOPPED, "cannot write %s: stopped (SIGINT/SIGTERM) after %zu of "
                   "%zu bytes: its reader took no more", name, done, size);
  return ms_fail(MS_ERR_RUNTIME, "cannot write %s: %s", name, strerror(err));
}

/* Composes the output and writes it through `fd` (a device, a FIFO, a pipe). */
static ms_status put_through(int fd, const char *name, const char *path, writer write, void *ctx)
{
  char *buf;
  size_t size, done = 0;
  if (compose(write, ctx, &buf, &size) != 0)
    return ms_fail(MS_ERR_RUNTIME, "cannot write %s: %s", name, strerror(errno));
  int rc = ms_io_test_full(path, (long long)size) ? (errno = ENOSPC, -1)
                                                  : ms_io_write_all(fd, buf, size, &done);
  int err = errno;
  free(buf);
  return rc ? through_failed(name, err, done, size) : MS_OK;
}

ms_status ms_write_stream(FILE *stream, int (*write)(FILE *f, void *ctx), void *ctx)
{
  const char *name = stream == stdout ? "to standard output" : "to standard error";
  if (fflush(stream) != 0) /* what stdio held goes first */
    return ms_fail(MS_ERR_RUNTIME, "cannot write %s: %s", name, strerror(errno));
  return put_through(fileno(stream), name, "-", write, ctx);
}

/* A device node, a FIFO: opened (never created, never truncated) and written through;
 * a FIFO's open waits for a reader until a stop. */
static ms_status write_through(const char *path, writer write, void *ctx)
{
  size_t n = strlen(path) + 3;
  char *name = malloc(n);
  if (!name)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  snprintf(name, n, "'%s'", path);
  ms_status st;
  int fd = ms_io_open(path, O_WRONLY, 0);
  if (fd < 0 && errno == ECANCELED)
    st = ms_fail(MS_ERR_STOPPED, "cannot write %s: stopped (SIGINT/SIGTERM) while waiting "
                 "for a reader to open it", name);
  else if (fd < 0)
    st = ms_fail(MS_ERR_RUNTIME, "cannot write %s: %s", name, strerror(errno));
  else
    st = put_through(fd, name, path, write, ctx);
  if (fd >= 0 && close(fd) != 0 && !st)
    st = ms_fail(MS_ERR_RUNTIME, "cannot write %s: %s", name, strerror(errno));
  free(name);
  return st;
}

/* A regular file or a new one: a temporary file beside `target`, renamed over it.
 * `mode`: the permissions the file gets (an old file's, else 0644). */
static ms_status write_replacing(const char *path, const char *target, mode_t mode,
                                 writer write, void *ctx)
{
  size_t n = strlen(target) + sizeof TMP_SUFFIX + TMP_RANDOM;
  char *tmp = malloc(n);
  if (!tmp)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  snprintf(tmp, n, "%s" TMP_SUFFIX "XXXXXX", target);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int err = errno;
    char *dir = folder_of(target);
    ms_status st = ms_fail(MS_ERR_RUNTIME, "cannot write '%s': no temporary file in '%s': %s",
                           path, dir ? dir : target, strerror(err));
    free(dir);
    free(tmp);
    return st;
  }
  fchmod(fd, mode); /* mkstemp's 0600 is for secrets; these are results */
  FILE *f = fdopen(fd, "w");
  int bad = !f || write(f, ctx) != 0 || fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
  int err = errno;
  if (!bad && ms_io_test_full(target, (long long)ftell(f))) {
    bad = 1;
    err = ENOSPC;
  }
  if (f ? fclose(f) != 0 : close(fd) != 0)
    bad = 1;
  if (!bad && rename(tmp, target) != 0) {
    bad = 1;
    err = errno;
  }
  if (bad)
    unlink(tmp);
  free(tmp);
  if (bad)
    return ms_fail(MS_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(err));
  return MS_OK;
}

ms_status ms_write_atomic(const char *path, int (*write)(FILE *f, void *ctx), void *ctx)
{
  if (strcmp(path, "-") == 0)
    return ms_write_stream(stdout, write, ctx);
  struct stat st;
  int exists = stat(path, &st) == 0; /* follows every link, /proc's included */
  if (exists && S_ISDIR(st.st_mode))
    return ms_fail(MS_ERR_RUNTIME, "cannot write '%s': it is a folder", path);
  if (exists && !S_ISREG(st.st_mode))
    return write_through(path, write, ctx);
  char *target = final_target(path);
  if (!target)
    return ms_fail(MS_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(errno));
  ms_status rc = write_replacing(path, target, exists ? (st.st_mode & 0777) : 0644, write, ctx);
  free(target);
  return rc;
}

int ms_output_failed(ms_status st, const char *opt)
{
  if (!st)
    return 0;
  fprintf(stderr, "mixsim: %s not written: %s\n", opt, ms_error_message());
  ms_error_clear();
  return 1;
}

int ms_lost_has(const ms_lost_outputs *l, const char *opt)
{
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->opt[i], opt) == 0)
      return 1;
  return 0;
}

int ms_lost_failed(const ms_lost_outputs *l)
{
  int n = 0;
  for (int i = 0; i < l->n; i++)
    n += l->why[i] != MS_ERR_STOPPED;
  return n;
}

void ms_lost_note(ms_lost_outputs *l, ms_status st, const char *opt)
{
  if (st != MS_OK && ms_lost_has(l, opt)) {
    ms_error_clear();
  } else if (ms_output_failed(st, opt) && l->n < (int)(sizeof l->opt / sizeof l->opt[0])) {
    l->why[l->n] = st;
    l->opt[l->n++] = opt;
  }
}

int ms_lost_say(const ms_lost_outputs *l)
{
  if (!l->n)
    return 0;
  fprintf(stderr, "mixsim: the run ended and its report is complete, but");
  for (int i = 0; i < l->n; i++)
    fprintf(stderr, "%s %s", i ? "," : "", l->opt[i]);
  fprintf(stderr, " %s not written\n", l->n > 1 ? "were" : "was");
  return l->n;
}

/* ---- checks before a run ----------------------------------------------------------- */

/* The folder `dir`, where `path` of option `opt` would be made, exists and is writable. */
static ms_status check_folder(const char *opt, const char *path, const char *dir)
{
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT)
      return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': folder '%s' does not exist", opt,
                     path, dir);
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': folder '%s': %s", opt, path, dir,
                   strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': '%s' is not a folder", opt, path, dir);
  if (access(dir, W_OK | X_OK) != 0)
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': cannot write in folder '%s': %s", opt,
                   path, dir, strerror(errno));
  return MS_OK;
}

/* `path` exists (stat `st`): a regular file is replaced, so its folder must be writable;
 * a device or FIFO is written through, so it must be writable itself. */
static ms_status check_existing(const char *opt, const char *path, const struct stat *st)
{
  if (S_ISDIR(st->st_mode))
    return ms_fail(MS_ERR_INPUT, "%s: '%s' is a folder; name a file", opt, path);
  if (S_ISSOCK(st->st_mode))
    return ms_fail(MS_ERR_INPUT, "%s: '%s' is a socket; name a file", opt, path);
  if (!S_ISREG(st->st_mode) && access(path, W_OK) != 0)
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': %s", opt, path, strerror(errno));
  return MS_OK;
}

ms_status ms_output_check(const char *opt, const char *path, int allow_stdout)
{
  if (strcmp(path, "-") == 0)
    return allow_stdout ? MS_OK
                        : ms_fail(MS_ERR_INPUT, "%s: '-' (standard output) is for --stats or "
                                                "--dump only; name a file", opt);
  size_t len = strlen(path);
  if (len == 0 || path[len - 1] == '/')
    return ms_fail(MS_ERR_INPUT, "%s: '%s' names a folder, not a file", opt, path);
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) /* those two: the folder says why */
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': %s", opt, path, strerror(errno));
  ms_status rc = exists ? check_existing(opt, path, &st) : MS_OK;
  if (rc || (exists && !S_ISREG(st.st_mode)))
    return rc;
  char *target = final_target(path);
  if (!target)
    return ms_fail(MS_ERR_INPUT, "%s: cannot write '%s': %s", opt, path, strerror(errno));
  char *dir = folder_of(target);
  rc = dir ? check_folder(opt, path, dir) : ms_fail(MS_ERR_RUNTIME, "out of memory");
  free(dir);
  free(target);
  return rc;
}

ms_status ms_output_check_dir(const char *opt, const char *dir)
{
  if (!*dir)
    return ms_fail(MS_ERR_INPUT, "%s: an empty name is no folder", opt);
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return ms_fail(MS_ERR_INPUT, "%s: '%s' is not a folder", opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
      return ms_fail(MS_ERR_INPUT, "%s: cannot write in folder '%s': %s", opt, dir,
                     strerror(errno));
    return MS_OK;
  }
  if (errno != ENOENT)
    return ms_fail(MS_ERR_INPUT, "%s: folder '%s': %s", opt, dir, strerror(errno));
  /* Made at the start of the run, one level only: a typo further up is not created. */
  char *trimmed = dup_string(dir);
  if (!trimmed)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
    trimmed[n - 1] = '\0';
  char *parent = folder_of(trimmed);
  ms_status rc = parent ? check_folder(opt, dir, parent) : ms_fail(MS_ERR_RUNTIME, "out of memory");
  free(parent);
  free(trimmed);
  return rc;
}

int ms_output_identify(const char *path, ms_output_id *id)
{
  memset(id, 0, sizeof *id);
  struct stat st;
  if (strcmp(path, "-") == 0)
    return 0;
  id->exists = stat(path, &st) == 0;
  if (id->exists && !S_ISREG(st.st_mode))
    return 0; /* written through, or refused by ms_output_check */
  char *target = final_target(path);
  char *dir = target ? folder_of(target) : NULL;
  const char *slash = target ? strrchr(target, '/') : NULL;
  const char *name = slash ? slash + 1 : target;
  struct stat ds;
  int ok = dir && *name && strlen(name) < sizeof id->name && stat(dir, &ds) == 0;
  if (ok) {
    id->replaced = 1;
    id->dir_dev = ds.st_dev;
    id->dir_ino = ds.st_ino;
    snprintf(id->name, sizeof id->name, "%s", name);
    if (id->exists) {
      id->dev = st.st_dev;
      id->ino = st.st_ino;
      id->links = st.st_nlink;
    }
  }
  free(dir);
  free(target);
  return id->replaced;
}

int ms_output_id_same(const ms_output_id *a, const ms_output_id *b)
{
  if (!a->replaced || !b->replaced || a->exists != b->exists)
    return 0;
  if (a->exists)
    return a->dev == b->dev && a->ino == b->ino;
  return a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino && strcmp(a->name, b->name) == 0;
}

int ms_output_same_file(const char *a, const char *b)
{
  ms_output_id ia, ib;
  return ms_output_identify(a, &ia) && ms_output_identify(b, &ib) && ms_output_id_same(&ia, &ib);
}

ms_status ms_output_make_dir(const char *dir)
{
  if (mkdir(dir, 0755) == 0)
    return MS_OK;
  int err = errno;
  struct stat st;
  if (err == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
    return MS_OK;
  return ms_fail(MS_ERR_RUNTIME, "cannot make folder '%s': %s", dir, strerror(err));
}

/* ---- stale temporary files --------------------------------------------------------- */

static int is_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* `name` is `base` (NULL: a frame's name, "frame_" then 6 or more digits, then ".png")
 * followed by ".tmp" and exactly TMP_RANDOM letters or digits. */
static int temp_name_of(const char *name, const char *base)
{
  const char *p = name;
  if (base) {
    size_t n = strlen(base);
    if (strncmp(p, base, n) != 0)
      return 0;
    p += n;
  } else {
    if (strncmp(p, "frame_", 6) != 0)
      return 0;
    p += 6;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
      p++;
    if (p - digits < 6 || strncmp(p, ".png", 4) != 0)
      return 0;
    p += 4;
  }
  if (strncmp(p, TMP_SUFFIX, strlen(TMP_SUFFIX)) != 0)
    return 0;
  p += strlen(TMP_SUFFIX);
  for (int i = 0; i < TMP_RANDOM; i++)
    if (!is_alnum(p[i]))
      return 0;
  return p[TMP_RANDOM] == '\0';
}

/* Removes what temp_name_of(·, base) matches in `dir`: our own regular files, older
 * than `before`. */
static int clean_in(const char *dir, const char *base, time_t before)
{
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!temp_name_of(e->d_name, base))
      continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(n);
    if (!p)
      break;
    snprintf(p, n, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        st.st_mtime < before && unlink(p) == 0)
      removed++;
    free(p);
  }
  closedir(d);
  return removed;
}

int ms_output_clean_stale(const char *path, time_t before)
{
  struct stat st;
  if (strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
    return 0; /* written through: no temporary files */
  char *target = final_target(path);
  char *dir = target ? folder_of(target) : NULL;
  const char *slash = target ? strrchr(target, '/') : NULL;
  int removed = dir ? clean_in(dir, slash ? slash + 1 : target, before) : 0;
  free(dir);
  free(target);
  return removed;
}

int ms_output_clean_stale_frames(const char *dir, time_t before)
{
  return clean_in(dir, NULL, before);
}

/* ---- JSON -------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at `p` (1 to 4 bytes), or 0 where there is none:
 * a stray continuation byte, a truncated or overlong sequence, a surrogate, or a code
 * point above U+10FFFF. Stops at the terminating NUL, which is no continuation byte. */
static int utf8_length(const unsigned char *p)
{
  unsigned c = p[0];
  int n;
  unsigned long least;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, least = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, least = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, least = 0x10000;
  else
    return 0;
  unsigned long cp = c & (0x7Fu >> n);
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (p[i] & 0x3Fu);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void ms_json_string(FILE *f, const char *text)
{
  fputc('"', f);
  const unsigned char *p = (const unsigned char *)text;
  while (*p) {
    int n = utf8_length(p);
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || n == 0)
      fprintf(f, "\\u%04x", *p); /* a control character, or a byte that is not UTF-8 */
    else
      fwrite(p, 1, (size_t)n, f);
    p += n > 0 ? n : 1;
  }
  fputc('"', f);
}
