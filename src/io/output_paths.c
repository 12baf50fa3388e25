/* One file for two uses, refused before the run (io/output_paths.h): every pair of paths
 * compared by where a write would land, and each against the folders' own names. */
#include "io/output_paths.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is_option(const char *what) { return strncmp(what, "--", 2) == 0; }

static int writes(const ms_path_use *u)
{
  return u->role == MS_PATH_OUTPUT || u->role == MS_PATH_IMPLIED;
}

/* "the --stats file", "the scene's [small] file", or what the use says it is. */
static const char *describe(const ms_path_use *u, char *buf, size_t size)
{
  if (u->what[0] == '[') {
    snprintf(buf, size, "the scene's %s", u->what);
    return buf;
  }
  if (!is_option(u->what))
    return u->what;
  snprintf(buf, size, "the %s %s", u->what, u->role == MS_PATH_RESUME ? "checkpoint" : "file");
  return buf;
}

/* " ('PATH')" when `other` spells the path otherwise, else "". */
static const char *spelled(const char *path, const char *other, char *buf, size_t size)
{
  if (strcmp(path, other) == 0)
    return "";
  snprintf(buf, size, " ('%s')", other);
  return buf;
}

/* `out` (an output) lands where `other` is. */
static ms_status clash(const ms_path_use *out, const ms_path_use *other)
{
  char d[160], s[600];
  const char *as = spelled(out->path, other->path, s, sizeof s);
  const char *is = describe(other, d, sizeof d);
  if (writes(other))
    return ms_fail(MS_ERR_INPUT, "%s: '%s' is also %s%s; give each output its own", out->what,
                   out->path, is, as);
  if (other->role == MS_PATH_RESUME)
    return ms_fail(MS_ERR_INPUT, "%s: '%s' is %s%s, which this run starts from; only "
                   "--checkpoint may replace it", out->what, out->path, is, as);
  return ms_fail(MS_ERR_INPUT, "%s: '%s' is %s%s, which this run reads; an output must not "
                 "replace it", out->what, out->path, is, as);
}

/* frame_NNNNNN.png (six digits or more), the --frames folder's names. */
static int frame_name(const char *name)
{
  if (strncmp(name, "frame_", 6) != 0)
    return 0;
  size_t n = strspn(name + 6, "0123456789");
  return n >= 6 && strcmp(name + 6 + n, ".png") == 0;
}

static int in_folder(const ms_output_id *id, const char *dir)
{
  struct stat d;
  return dir && id->replaced && stat(dir, &d) == 0 && id->dir_dev == d.st_dev &&
         id->dir_ino == d.st_ino;
}

/* A use on a name one of the folders writes. */
static ms_status folder_clash(const ms_path_use *u, const char *folder_opt, const char *dir,
                              const char *kind)
{
  const char *sep = is_option(u->what) ? ":" : "";
  if (writes(u))
    return ms_fail(MS_ERR_INPUT, "%s%s '%s' is %s of the %s folder '%s'; give each output its own",
                   u->what, sep, u->path, kind, folder_opt, dir);
  return ms_fail(MS_ERR_INPUT, "%s%s '%s' is %s of the %s folder '%s', which this run writes "
                 "(--output-clear removes it first); move it out of the folder", u->what, sep,
                 u->path, kind, folder_opt, dir);
}

ms_status ms_paths_distinct(const ms_path_use *use, int n, const ms_series_options *series,
                            const char *frames_dir)
{
  for (int i = 0; i < n; i++) {
    ms_output_id a;
    if (!use[i].path || !ms_output_identify(use[i].path, &a))
      continue;
    if (series && ms_series_claims(series, &a))
      return folder_clash(&use[i], "--output", series->dir, "a file");
    if (in_folder(&a, frames_dir) && frame_name(a.name))
      return folder_clash(&use[i], "--frames", frames_dir, "a frame");
    for (int j = 0; j < i; j++) {
      ms_output_id b;
      const ms_path_use *x = &use[j], *y = &use[i];
      if (!writes(x) && !writes(y))
        continue; /* two things read: no harm */
      if (!x->path || !ms_output_identify(x->path, &b) || !ms_output_id_same(&a, &b))
        continue;
      /* an option's own file is named first, then what its run writes besides */
      const ms_path_use *out = y->role == MS_PATH_OUTPUT   ? y
                               : x->role == MS_PATH_OUTPUT ? x
                               : writes(y)                 ? y
                                                           : x;
      const ms_path_use *other = out == y ? x : y;
      if (other->role == MS_PATH_RESUME && strcmp(out->what, "--checkpoint") == 0)
        continue; /* a resumed run goes on writing its checkpoint */
      return clash(out, other);
    }
  }
  return MS_OK;
}
