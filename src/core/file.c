/* Reading files: whole files, bounded line-by-line input, CRC-32s (see file.h). */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

char *ms_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
      fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = '\0';
    if (len)
      *len = (size_t)n;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

static const char *kind_of(mode_t mode)
{
  if (S_ISDIR(mode))
    return "a folder";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a plain file";
}

/* Regular and small enough; otherwise the reason in `why`. */
static int acceptable(const struct stat *st, long max_bytes, char *why, size_t size)
{
  if (!S_ISREG(st->st_mode)) {
    snprintf(why, size, "%s, not a regular file", kind_of(st->st_mode));
    return 0;
  }
  if (st->st_size > (off_t)max_bytes) {
    snprintf(why, size, "%lld bytes, more than the %ld allowed", (long long)st->st_size,
             max_bytes);
    return 0;
  }
  return 1;
}

FILE *ms_open_regular(const char *path, long max_bytes, char *why, size_t size)
{
  /* stat first, so a device is not even opened; then fstat what was opened, in case
   * the path changed in between. O_NONBLOCK keeps a FIFO from waiting for a writer. */
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(why, size, "%s", strerror(errno));
    return NULL;
  }
  if (!acceptable(&st, max_bytes, why, size))
    return NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    snprintf(why, size, "%s", strerror(errno));
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  FILE *f = NULL;
  if (fstat(fd, &st) != 0)
    snprintf(why, size, "%s", strerror(errno));
  else if (acceptable(&st, max_bytes, why, size) &&
           (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "r"))))
    snprintf(why, size, "%s", strerror(errno));
  if (!f)
    close(fd);
  return f;
}

int ms_read_line(FILE *f, char *buf, size_t size, ms_line *line)
{
  *line = (ms_line){0, 1, 0};
  size_t n = 0;
  int c = EOF;
  while (n + 1 < size && (c = getc_unlocked(f)) != EOF) { /* one reader per file */
    buf[n++] = (char)c;
    line->has_nul |= c == '\0';
    if (c == '\n')
      break;
  }
  buf[n] = '\0';
  line->len = n;
  if (n + 1 == size && c != '\n') { /* full: complete only if the file ends here */
    int next = getc(f);
    line->complete = next == EOF;
    if (next != EOF)
      ungetc(next, f);
  }
  return n > 0;
}

int ms_file_crc32(const char *path, uint32_t *crc, uint64_t *bytes)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  uLong c = crc32(0L, Z_NULL, 0);
  unsigned char buf[65536];
  size_t n;
  *bytes = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    c = crc32(c, buf, (uInt)n);
    *bytes += n;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    errno = EIO;
    return -1;
  }
  *crc = (uint32_t)c;
  return 0;
}

unsigned long ms_crc32_update(unsigned long crc, const void *p, size_t n)
{
  const Bytef *b = p;
  while (n > 0) {
    uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
    crc = crc32(crc, b, chunk);
    b += chunk;
    n -= chunk;
  }
  return crc;
}
