/* The program's start and end under mpirun (gravity mode over several ranks; the MPI
 * calls themselves are in gravity/ranks.c). Rank 0 speaks for the job: the other ranks'
 * standard output goes nowhere and their standard error is kept aside until the launch
 * agreement, where a rank that failed on its own (a scene it could not read, an option it
 * was given alone) hands its message to rank 0, which prints it once. Then every rank
 * compares a hash of its parsed scene and options with rank 0's, so that ranks never run
 * different things; at the end they agree on one exit code. */
#include "app/ranks_launch.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cl/runtime.h"
#include "gravity/ranks.h"
#include "io/series.h"

static struct {
  int launched;   /* the launch agreement was made */
  FILE *captured; /* a non-root rank's stderr until then */
} app;

int ms_app_is_root(void) { return ms_ranks_rank() == 0; }

/* Non-root ranks: stdout to /dev/null, stderr into a temporary file; their real stderr
 * stays reachable for the last resort (ms_ranks_abort). */
static void quiet_non_root(void)
{
  int null = open("/dev/null", O_WRONLY);
  int real_err = dup(STDERR_FILENO);
  app.captured = tmpfile();
  fflush(stdout);
  fflush(stderr);
  if (null >= 0)
    dup2(null, STDOUT_FILENO);
  if (app.captured)
    dup2(fileno(app.captured), STDERR_FILENO);
  else if (null >= 0)
    dup2(null, STDERR_FILENO);
  if (null >= 0)
    close(null);
  if (real_err >= 0)
    ms_ranks_set_error_fd(real_err);
}

int ms_app_ranks_start(int *argc, char ***argv)
{
  if (ms_ranks_start(argc, argv)) {
    fprintf(stderr, "mixsim: %s\n", ms_error_message());
    return MS_ERR_RUNTIME;
  }
  if (ms_ranks_size() > 1 && !ms_app_is_root())
    quiet_non_root();
  return -1;
}

/* What this rank wrote to its stderr so far: its first line (the message of a failure). */
static void captured_text(char *out, size_t cap)
{
  out[0] = '\0';
  if (!app.captured)
    return;
  fflush(stderr);
  rewind(app.captured);
  if (!fgets(out, (int)cap, app.captured))
    out[0] = '\0';
  out[strcspn(out, "\n")] = '\0';
}

/* After the launch: a non-root rank's stderr goes nowhere (its failures reach rank 0
 * through the agreements, and the last resort writes to the real stderr). */
static void close_capture(void)
{
  if (!app.captured)
    return;
  int null = open("/dev/null", O_WRONLY);
  fflush(stderr);
  if (null >= 0) {
    dup2(null, STDERR_FILENO);
    close(null);
  }
  fclose(app.captured);
  app.captured = NULL;
}

int ms_app_ranks_launch(int rc, uint32_t hash)
{
  app.launched = 1;
  if (ms_ranks_size() < 2)
    return rc;
  char mine[1024], text[1024];
  captured_text(mine, sizeof mine);
  int from = 0;
  int code = ms_ranks_agree_code(rc > 0 ? rc : 0, mine, text, sizeof text, &from);
  if (code) {
    const char *body = strncmp(text, "mixsim: ", 8) == 0 ? text + 8 : text;
    if (ms_app_is_root() && from != 0) /* rank 0 printed its own already */
      fprintf(stderr, "mixsim: rank %d: %s\n", from, body[0] ? body : "failed to start");
    close_capture();
    return code;
  }
  /* Ranks that ended early without failing (--help) count as a different launch. */
  uint32_t theirs = 0;
  int other = ms_ranks_differs(rc == 0 ? 0u : hash, &theirs);
  close_capture();
  if (other >= 0) {
    if (ms_app_is_root())
      fprintf(stderr, "mixsim: rank %d's scene or options differ from rank 0's (hash %08x, rank 0: "
                      "%08x): every rank must run the same scene with the same options (only "
                      "--devices and the outputs may differ)\n",
              other, (unsigned)theirs, (unsigned)(rc == 0 ? 0u : hash));
    return MS_ERR_INPUT;
  }
  return rc;
}

int ms_app_ranks_end(int rc)
{
  if (ms_ranks_size() > 1) {
    if (!app.launched) /* this rank ended before the launch agreement: it meets it here */
      rc = ms_app_ranks_launch(rc, 0);
    char text[8];
    int from = 0, code = ms_ranks_agree_code(rc, "", text, sizeof text, &from);
    rc = code ? code : rc;
  }
  fflush(stdout);
  fflush(stderr);
  ms_ranks_end();
  return rc;
}

static uint32_t launch_hash(const ms_scene *sc, const char *options)
{
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, (const Bytef *)options, (uInt)strlen(options));
  char head[512];
  int n = snprintf(head, sizeof head, "%d %.17g %ld %" PRIu64, (int)sc->mode, sc->dt_s, sc->steps,
                   sc->seed);
  crc = crc32(crc, (const Bytef *)head, (uInt)n);
  if (sc->mode != MS_MODE_GRAVITY)
    return (uint32_t)crc;
  const ms_gravity_scene *g = &sc->grav;
  n = snprintf(head, sizeof head, "%d %d %.17g %.17g %ld %d %d %ld", (int)g->bodies, g->count, g->g,
               g->softening, g->burst, (int)g->integrator, (int)g->energy, g->diagnostics_every);
  crc = crc32(crc, (const Bytef *)head, (uInt)n);
  if (g->pos && g->vel) { /* the bodies as generated or read: the same seed or file */
    crc = crc32(crc, (const Bytef *)g->pos, (uInt)((size_t)g->count * 4 * sizeof(float)));
    crc = crc32(crc, (const Bytef *)g->vel, (uInt)((size_t)g->count * 3 * sizeof(float)));
  }
  return (uint32_t)crc;
}

int ms_app_launch(const ms_scene *sc, const char *kernel, long burst,
                  long checkpoint_every, int resume, const ms_series_options *so)
{
  if (ms_ranks_size() < 2)
    return -1;
  char text[512]; /* what steers the run's collective steps: the same on every rank */
  snprintf(text, sizeof text, "kernel=%s burst=%ld checkpoint=%ld resume=%d output=%d/%ld/%d/%d",
           kernel ? kernel : "", burst, checkpoint_every, resume, so->dir != NULL, so->every, so->csv,
           so->diagnostics);
  return ms_app_ranks_launch(-1, launch_hash(sc, text));
}

const char *ms_app_rank_devices(const char *devices, char *buf, size_t cap)
{
  if (!devices || strcmp(devices, "local-rank") != 0)
    return devices;
  ms_cl_device *all = NULL;
  int count = 0, gpus = 0;
  if (ms_cl_all_devices(&all, &count)) {
    ms_error_clear();
    return "gpu"; /* and the opening says why there is none */
  }
  for (int i = 0; i < count; i++)
    gpus += (all[i].type & CL_DEVICE_TYPE_GPU) != 0;
  int pick = gpus ? ms_ranks_local_rank() % gpus : 0;
  snprintf(buf, cap, "cpu"); /* no GPU: each rank its CPU device */
  for (int i = 0, k = 0; gpus && i < count; i++)
    if ((all[i].type & CL_DEVICE_TYPE_GPU) && k++ == pick)
      snprintf(buf, cap, "%s", all[i].spec);
  if (gpus && ms_ranks_local_size() > gpus && ms_ranks_local_rank() == 0)
    ms_warn("--devices local-rank: %d ranks on this node share %d GPUs", ms_ranks_local_size(),
            gpus);
  free(all);
  return buf;
}
