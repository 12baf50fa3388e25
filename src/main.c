/* The mixsim command line: load a scene, run it headless, report where the time went. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cl_runtime.h"
#include "mixsim/mixsim.h"
#include "report.h"
#include "trace.h"

typedef struct cli {
  const char *scene;
  long steps; /* 0: the scene's */
  const char *pipeline, *buffers, *device;
  const char *stats_path, *dump_path;
  int list_devices, quiet;
} cli;

static void usage(FILE *out)
{
  fputs("usage: mixsim [options] SCENE.ini\n"
        "Runs a mixed-particle scene: small particles on the OpenCL device, large ones on a\n"
        "CPU worker thread. Prints a per-phase time breakdown and the final state hash.\n"
        "\n"
        "  -n, --steps N            iterations to run (default: the scene's 'steps')\n"
        "  -p, --pipeline MODE      naive | reordered (default: the scene's)\n"
        "  -b, --buffers MODE       shared | copied (default: the scene's)\n"
        "  -d, --device DEV         gpu | cpu | P:D (default: $MIXSIM_DEVICE, else first GPU,\n"
        "                           else first CPU device)\n"
        "  -l, --list-devices       list OpenCL devices as P:D and exit\n"
        "  -s, --stats FILE         write the figures as JSON\n"
        "  -o, --dump FILE          write the final particle state as CSV\n"
        "  -q, --quiet              no progress line, no warnings\n"
        "  -h, --help               this text\n"
        "  -V, --version            print the version\n"
        "\n"
        "Environment: MIXSIM_DEVICE (as --device), MIXSIM_KERNEL_DIR (load kernels/*.cl\n"
        "from there instead of the copy built into the program).\n"
        "Exit codes: 0 ok, 1 runtime error, 2 bad input, 3 no OpenCL platform/device,\n"
        "4 numerical failure (NaN/Inf).\n",
        out);
}

static int bad_option(const char *opt, const char *want, const char *got)
{
  fprintf(stderr, "mixsim: %s: expected %s, got '%s'\n", opt, want, got);
  return MS_ERR_INPUT;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, cli *c)
{
  static const struct option opts[] = {
    {"steps", required_argument, 0, 'n'},   {"pipeline", required_argument, 0, 'p'},
    {"buffers", required_argument, 0, 'b'}, {"device", required_argument, 0, 'd'},
    {"list-devices", no_argument, 0, 'l'},  {"stats", required_argument, 0, 's'},
    {"dump", required_argument, 0, 'o'},    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
    {0, 0, 0, 0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "n:p:b:d:ls:o:qhV", opts, NULL)) != -1) {
    char *end;
    switch (ch) {
    case 'n':
      c->steps = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || c->steps <= 0)
        return bad_option("--steps", "a positive integer", optarg);
      break;
    case 'p': c->pipeline = optarg; break;
    case 'b': c->buffers = optarg; break;
    case 'd': c->device = optarg; break;
    case 'l': c->list_devices = 1; break;
    case 's': c->stats_path = optarg; break;
    case 'o': c->dump_path = optarg; break;
    case 'q': c->quiet = 1; break;
    case 'h': usage(stdout); return 0;
    case 'V': printf("mixsim %s\n", MIXSIM_VERSION); return 0;
    default: usage(stderr); return MS_ERR_INPUT;
    }
  }
  if (c->list_devices)
    return -1;
  if (optind != argc - 1) {
    fprintf(stderr, "mixsim: expected one scene file (see --help)\n");
    return MS_ERR_INPUT;
  }
  c->scene = argv[optind];
  return -1;
}

static int apply_overrides(const cli *c, ms_scene *sc)
{
  if (c->pipeline && !ms_pipeline_parse(c->pipeline, &sc->pipeline))
    return bad_option("--pipeline", "naive or reordered", c->pipeline);
  if (c->buffers && !ms_buffer_mode_parse(c->buffers, &sc->buffers))
    return bad_option("--buffers", "shared or copied", c->buffers);
  if (c->steps)
    sc->steps = c->steps;
  return -1;
}

static void progress(long done, long total, double elapsed)
{
  double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
  double eta = rate > 0 ? (double)(total - done) / rate : 0.0;
  fprintf(stderr, "\rmixsim: step %ld/%ld  %.0f it/s  ETA %.1f s   ", done, total, rate, eta);
}

/* Advances in chunks of about a quarter second, to show progress. */
static ms_status run(ms_sim *sim, long total, int show, double *wall)
{
  long done = 0, chunk = 1;
  double t0 = ms_now();
  while (done < total) {
    long n = chunk < total - done ? chunk : total - done;
    double c0 = ms_now();
    ms_status st = ms_sim_advance(sim, n);
    if (st)
      return st;
    done += n;
    double dt = ms_now() - c0;
    if (dt < 0.125 && chunk < (1L << 20))
      chunk *= 2;
    else if (dt > 0.5 && chunk > 1)
      chunk /= 2;
    if (show)
      progress(done, total, ms_now() - t0);
  }
  *wall = ms_now() - t0;
  if (show)
    fputc('\n', stderr);
  return MS_OK;
}

static int fail(ms_status st)
{
  fprintf(stderr, "mixsim: %s\n", ms_error_message());
  return (int)st;
}

int main(int argc, char **argv)
{
  cli c = {0};
  int rc = parse_args(argc, argv, &c);
  if (rc >= 0)
    return rc;
  ms_set_quiet(c.quiet);
  if (c.list_devices) {
    ms_status st = ms_cl_list_devices(stdout);
    return st ? fail(st) : 0;
  }

  ms_scene scene;
  ms_status st = ms_scene_load(c.scene, &scene);
  if (st)
    return fail(st);
  if ((rc = apply_overrides(&c, &scene)) >= 0) {
    ms_scene_free(&scene);
    return rc;
  }
  ms_sim_options opt = {c.device, NULL};
  ms_sim *sim = NULL;
  st = ms_sim_create(&scene, &opt, &sim);
  long steps = scene.steps;
  ms_scene_free(&scene);
  if (st)
    return fail(st);

  ms_run_info info = {c.scene, 0, 0.0};
  int show = !c.quiet && isatty(fileno(stderr));
  st = run(sim, steps, show, &info.wall_s);
  if (!st)
    st = ms_sim_hash(sim, &info.hash);
  if (!st) {
    ms_report_breakdown(stdout, sim, &info);
    if (c.stats_path)
      st = ms_report_stats_json(c.stats_path, sim, &info);
  }
  if (!st && c.dump_path)
    st = ms_report_dump_csv(c.dump_path, sim);
  rc = st ? fail(st) : 0;
  ms_sim_destroy(sim);
  return rc;
}
