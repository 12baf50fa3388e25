/* The mixsim command line: load a scene, run it in the preview window or headless (or
 * draw offscreen frames), report where the time went. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cl/runtime.h"
#include "app/gravity_cli.h"
#include "app/run.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"
#include "preview/preview.h"
#include "io/report.h"
#include "collision/trace.h"

typedef struct cli {
  const char *scene;
  long steps; /* 0: the scene's */
  const char *pipeline, *buffers, *device;
  const char *stats_path, *dump_path;
  int list_devices, quiet;
  const char *gravity_kernel, *devices; /* gravity mode */
  long burst;
  int headless;
  const char *frames_dir, *screenshot, *script;
  long every; /* 0: not given */
  const char *checkpoint, *resume;
  long checkpoint_every; /* 0: only at the end or on a signal */
} cli;

/* SIGINT/SIGTERM: the running simulation stops after its current iteration. */
static volatile sig_atomic_t g_signal;
static ms_sim *volatile g_running;

static void on_signal(int sig)
{
  g_signal = sig;
  ms_sim *s = g_running;
  if (s)
    ms_sim_request_stop(s);
}

static void catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static void usage(FILE *out)
{
  fputs("usage: mixsim [options] SCENE.ini\n"
        "Runs a mixed-particle scene: small particles on the OpenCL device, large ones on a\n"
        "CPU worker thread. Prints a per-phase time breakdown and the final state hash.\n"
        "A scene with mode = gravity runs an all-pairs N-body simulation instead\n"
        "(docs/gravity.md).\n"
        "\n"
        "  -n, --steps N            iterations to run (default: the scene's 'steps')\n"
        "  -p, --pipeline MODE      naive | reordered (default: the scene's)\n"
        "  -b, --buffers MODE       shared | copied (default: the scene's)\n"
        "  -d, --device DEV         gpu | cpu | P:D (default: $MIXSIM_DEVICE, else first GPU,\n"
        "                           else first CPU device)\n"
        "  -l, --list-devices       list OpenCL devices as P:D and exit\n"
        "  -s, --stats FILE         write the figures as JSON\n"
        "  -o, --dump FILE          write the final particle state as CSV\n"
        "      --gravity-kernel K   gravity: force kernel, one of simple, tiled, tiled2, tiled4,\n"
        "                           jsplit4, soa8, soa16 (default: by device type)\n"
        "      --devices LIST       gravity: all, or comma-separated gpu | cpu | P:D | P:D/K\n"
        "                           (K equal sub-devices); the bodies are split among them\n"
        "      --burst N            gravity: steps on the device between read-backs\n"
        "  -q, --quiet              no progress line, no warnings\n"
        "      --headless           no window even where a display is available\n"
        "      --frames DIR         draw frames offscreen to DIR/frame_000000.png ...\n"
        "      --every K            ... every K-th frame (default 1; a frame is the\n"
        "                           scene's iterations_per_frame iterations)\n"
        "      --screenshot FILE    draw the final state offscreen to FILE (PNG)\n"
        "      --script KEYS        (testing) key presses for the window, FRAME:KEY,...\n"
        "  -h, --help               this text\n"
        "  -V, --version            print the version\n"
        "\n"
        "With a display (and SDL2 at build time) the scene runs in a window: H there lists\n"
        "the keys. Without one, or with --headless, it runs headless.\n"
        "\n"
        "Environment: MIXSIM_DEVICE (as --device), MIXSIM_KERNEL_DIR (load kernels/*.cl\n"
        "from there instead of the copy built into the program), MIXSIM_FONT (the\n"
        "preview's .ttf font; default DejaVuSans.ttf).\n"
        "\n"
        "Checkpoints (headless and --frames/--screenshot runs, both modes):\n"
        "      --checkpoint FILE      write the complete state to FILE at the end, on\n"
        "                             SIGINT/SIGTERM, and every K steps if asked\n"
        "      --checkpoint-every K   ... every K steps\n"
        "      --resume FILE          continue from a checkpoint of the same scene; the run\n"
        "                             ends at step --steps (or the scene's steps) as before\n"
        "\n"
        "Exit codes: 0 ok, 1 runtime error, 2 bad input, 3 no OpenCL platform/device,\n"
        "4 numerical failure (NaN/Inf), 130/143 stopped by SIGINT/SIGTERM.\n",
        out);
}

static int bad_option(const char *opt, const char *want, const char *got)
{
  fprintf(stderr, "mixsim: %s: expected %s, got '%s'\n", opt, want, got);
  return MS_ERR_INPUT;
}

/* `dir` must be a folder we can create files in. */
static int check_dir(const char *opt, const char *dir)
{
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "mixsim: %s: '%s' is not a folder\n", opt, dir);
    return MS_ERR_INPUT;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "mixsim: %s: cannot write in '%s'\n", opt, dir);
    return MS_ERR_INPUT;
  }
  return -1;
}

/* Offscreen options are checked before anything runs. Returns -1 to go on, or an exit code. */
static int check_offscreen(cli *c)
{
  if (c->every && !c->frames_dir) {
    fprintf(stderr, "mixsim: --every needs --frames\n");
    return MS_ERR_INPUT;
  }
  if (!c->every)
    c->every = 1;
  if ((c->frames_dir || c->screenshot) && !ms_preview_built()) {
    fprintf(stderr, "mixsim: --frames/--screenshot: mixsim was built without SDL2 (install "
                    "libsdl2-dev, libsdl2-ttf-dev and libpng-dev, then meson setup -Dsdl=enabled)\n");
    return MS_ERR_INPUT;
  }
  int rc = c->frames_dir ? check_dir("--frames", c->frames_dir) : -1;
  if (rc < 0 && c->screenshot) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", c->screenshot);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
      dir[1] = '\0';
    else if (slash)
      *slash = '\0';
    else
      snprintf(dir, sizeof dir, ".");
    rc = check_dir("--screenshot", dir);
  }
  return rc;
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
    {"headless", no_argument, 0, 'H'},      {"frames", required_argument, 0, 'F'},
    {"every", required_argument, 0, 'E'},   {"screenshot", required_argument, 0, 'S'},
    {"script", required_argument, 0, 'K'},
    {"gravity-kernel", required_argument, 0, 1001}, {"devices", required_argument, 0, 1002},
    {"burst", required_argument, 0, 1003},  {"checkpoint", required_argument, 0, 1004},
    {"checkpoint-every", required_argument, 0, 1005}, {"resume", required_argument, 0, 1006},
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
    case 'H': c->headless = 1; break;
    case 'F': c->frames_dir = optarg; break;
    case 'E':
      c->every = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || c->every < 1)
        return bad_option("--every", "a positive integer", optarg);
      break;
    case 'S': c->screenshot = optarg; break;
    case 'K': c->script = optarg; break;
    case 1001: c->gravity_kernel = optarg; break;
    case 1002: c->devices = optarg; break;
    case 1003:
      c->burst = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || c->burst <= 0)
        return bad_option("--burst", "a positive integer", optarg);
      break;
    case 1004: c->checkpoint = optarg; break;
    case 1005:
      c->checkpoint_every = strtol(optarg, &end, 10);
      if (*optarg == '\0' || *end != '\0' || c->checkpoint_every <= 0)
        return bad_option("--checkpoint-every", "a positive integer", optarg);
      break;
    case 1006: c->resume = optarg; break;
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
  if (c->checkpoint_every && !c->checkpoint) {
    fprintf(stderr, "mixsim: --checkpoint-every needs --checkpoint FILE\n");
    return MS_ERR_INPUT;
  }
  /* Checkpointed runs are headless runs. */
  if (c->checkpoint || c->resume)
    c->headless = 1;
  return check_offscreen(c);
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

static void say_headless(const cli *c, const char *why)
{
  if (!c->quiet && c->headless)
    fprintf(stderr, "mixsim: running headless (--headless)\n");
  else if (!c->quiet)
    fprintf(stderr, "mixsim: %s; running headless\n", why);
}

/* The window where a display is available, else the run loop (app/run.c): offscreen
 * frames when asked for, or headless. The window runs until the user quits (or a
 * signal) and may replace *sim (reset); the run loop resumes and checkpoints. */
static ms_status run_chosen(const cli *c, ms_sim **sim, const ms_scene *scene,
                            const ms_sim_options *opt, long steps, double *wall)
{
  ms_preview_options po = {scene->iterations_per_frame, c->frames_dir, c->every,
                           c->screenshot, c->script, c->quiet, &g_signal};
  int offscreen = c->frames_dir || c->screenshot;
  char why[256];
  if (!offscreen && !c->headless && ms_preview_open_display(why, sizeof why)) {
    double t0 = ms_now();
    ms_status st = ms_preview_window(sim, scene, opt, &po);
    *wall = ms_now() - t0;
    return st;
  }
  if (!offscreen)
    say_headless(c, why);
  ms_run_plan plan = {steps, !c->quiet && isatty(fileno(stderr)), c->checkpoint,
                      c->checkpoint_every, 0, c->checkpoint ? c->checkpoint : "mixsim-lastgood.ckpt",
                      offscreen ? &po : NULL};
  ms_status st = ms_scene_identity(c->scene, &plan.scene_id);
  if (!st && c->resume)
    st = ms_checkpoint_load(c->resume, *sim, plan.scene_id);
  if (st)
    return st;
  /* A signal from here on stops the run at the next iteration. */
  g_running = *sim;
  if (g_signal)
    ms_sim_request_stop(*sim);
  st = ms_app_run(*sim, &plan, wall);
  g_running = NULL;
  /* The state at the end or where a signal stopped the run. */
  if (!st && c->checkpoint)
    st = ms_checkpoint_save(c->checkpoint, *sim, plan.scene_id);
  return st;
}

static int fail(ms_status st)
{
  fprintf(stderr, "mixsim: %s\n", ms_error_message());
  return (int)st;
}

/* Gravity scenes: the 3D window where a display is available, else the headless run.
 * Offscreen frames are drawn for collision scenes only. */
static int run_gravity_chosen(const cli *c, const ms_gravity_cli *g, const ms_scene *scene)
{
  if (c->frames_dir || c->screenshot) {
    fprintf(stderr, "mixsim: --frames/--screenshot: offscreen frames are drawn for collision "
                    "scenes only\n");
    return MS_ERR_INPUT;
  }
  char why[256];
  if (c->headless || !ms_preview_open_display(why, sizeof why)) {
    say_headless(c, why);
    return ms_gravity_cli_run(g, scene);
  }
  if (c->stats_path || c->dump_path)
    ms_warn("--stats/--dump: the gravity window writes neither; use --headless");
  ms_gravity_options opt = {g->devices, g->kernel, g->burst, NULL};
  ms_gravity *grav = NULL;
  ms_status st = ms_gravity_create(scene, &opt, &grav);
  ms_preview_options po = {scene->iterations_per_frame, NULL, 1, NULL, c->script, c->quiet,
                           &g_signal};
  if (!st) {
    ms_gravity_set_stop_flag(grav, &g_signal); /* a signal ends the advance under way */
    st = ms_preview_gravity_window(grav, scene, &po);
  }
  uint32_t hash = 0;
  if (!st)
    st = ms_gravity_hash(grav, &hash);
  if (!st)
    printf("state hash %08x (step %ld)\n", hash, ms_gravity_step(grav));
  ms_gravity_destroy(grav);
  return st ? fail(st) : 0;
}

int main(int argc, char **argv)
{
  cli c = {0};
  int rc = parse_args(argc, argv, &c);
  if (rc >= 0)
    return rc;
  ms_set_quiet(c.quiet);
  catch_signals();
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
  if (scene.mode == MS_MODE_GRAVITY) {
    ms_gravity_cli g = {c.scene,      c.devices ? c.devices : c.device,
                        c.gravity_kernel, c.burst,
                        c.stats_path, c.dump_path,
                        c.quiet,      c.checkpoint,
                        c.resume,     c.checkpoint_every,
                        &g_signal};
    rc = run_gravity_chosen(&c, &g, &scene);
    ms_scene_free(&scene);
    if (!rc && g_signal) {
      fprintf(stderr, "mixsim: stopped by signal %d%s\n", (int)g_signal,
              c.checkpoint ? "; checkpoint written" : "");
      rc = 128 + (int)g_signal;
    }
    return rc;
  }
  if (c.gravity_kernel || c.devices || c.burst) {
    ms_scene_free(&scene);
    return bad_option(c.gravity_kernel ? "--gravity-kernel" : c.devices ? "--devices" : "--burst",
                      "a scene with mode = gravity", c.scene);
  }
  ms_sim_options opt = {c.device, NULL};
  ms_sim *sim = NULL;
  st = ms_sim_create(&scene, &opt, &sim);
  long steps = scene.steps;
  if (st) {
    ms_scene_free(&scene);
    return fail(st);
  }

  ms_run_info info = {c.scene, 0, 0.0};
  st = run_chosen(&c, &sim, &scene, &opt, steps, &info.wall_s);
  ms_scene_free(&scene); /* the window's reset needed it until now */
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
  long stopped_at = ms_sim_step(sim);
  ms_sim_destroy(sim);
  if (!rc && g_signal) {
    fprintf(stderr, "mixsim: stopped by signal %d at step %ld%s\n", (int)g_signal, stopped_at,
            c.checkpoint ? "; checkpoint written" : "");
    rc = 128 + (int)g_signal;
  }
  return rc;
}
