/* Writing output files whole or not at all, and JSON string literals. */
#include "io/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ms_status ms_write_atomic(const char *path, int (*write)(FILE *f, void *ctx), void *ctx)
{
  size_t n = strlen(path) + 16;
  char *tmp = malloc(n);
  if (!tmp)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  snprintf(tmp, n, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    ms_status st = ms_fail(MS_ERR_RUNTIME, "cannot create '%s': %s", tmp, strerror(errno));
    free(tmp);
    return st;
  }
  fchmod(fd, 0644); /* mkstemp's 0600 is for secrets; these are results */
  FILE *f = fdopen(fd, "w");
  int bad = !f || write(f, ctx) != 0 || fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
  int err = errno;
  if (f ? fclose(f) != 0 : close(fd) != 0)
    bad = 1;
  if (!bad && rename(tmp, path) != 0) {
    bad = 1;
    err = errno;
  }
  if (bad) {
    unlink(tmp);
    free(tmp);
    return ms_fail(MS_ERR_RUNTIME, "cannot write '%s': %s", path, strerror(err));
  }
  free(tmp);
  return MS_OK;
}

void ms_json_string(FILE *f, const char *text)
{
  fputc('"', f);
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if ((unsigned char)*p < 0x20)
      fprintf(f, "\\u%04x", (unsigned char)*p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}
