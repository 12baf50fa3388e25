/* The mixsim command line: load a scene, run it in the preview window or headless (or
 * draw offscreen frames), report where the time went. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cl/runtime.h"
#include "core/io_wait.h"
#include "core/number.h"
#include "app/gravity_cli.h"
#include "app/ranks_launch.h"
#include "app/run.h"
#include "app/usage.h"
#include "app/signals.h"
#include "app/window_auto.h"
#include "mixsim/checkpoint.h"
#include "mixsim/mixsim.h"
#include "preview/preview.h"
#include "io/output_file.h"
#include "io/output_paths.h"
#include "io/report.h"
#include "io/trace_json.h"
#include "collision/base/trace.h"
#include "gravity/ranks.h"

typedef struct cli {
  const char *scene;
  long steps; /* -1: the scene's */
  const char *pipeline, *buffers, *device;
  const char *exchange;
  const char *large_on;
  const char *stats_path, *dump_path;
  int list_devices, quiet;
  const char *gravity_kernel, *devices; /* gravity mode */
  long burst;
  int headless; /* 1: --headless (or --output); 2: --steps 0, which the window would not honour */
  const char *frames_dir, *screenshot, *script;
  long every; /* 0: not given */
  const char *checkpoint, *resume;
  long checkpoint_every; /* 0: only at the end or on a signal */
  long cpu_threads;      /* 0: the scene's */
  const char *trace_path; /* --trace; its window [trace_first, trace_last) */
  long trace_first, trace_last;
  const char *worker_list;
  const char *profile; /* --profile on|off|auto */
  const char *output, *output_format; /* --output DIR, --output-format vtk|csv */
  long output_every;                  /* 0: not given */
  int output_clear, diagnostics; /* --output-clear, --diagnostics */
  const char *domains; /* collision mode's domains' devices (domain_list); NULL: one device */
} cli;


static int bad_option(const char *opt, const char *want, const char *got)
{
  fprintf(stderr, "mixsim: %s: expected %s, got '%s'\n", opt, want, got);
  return MS_ERR_INPUT;
}

static int fail(ms_status st);

/* A whole number in [lo, hi] for `opt`, by the scene loader's own parser and limits.
 * Returns -1 to go on, or an exit code. */
static int option_long(const char *opt, const char *text, long lo, long hi, long *out)
{
  char why[256];
  ms_number_error err = ms_number_long(text, lo, hi, out);
  if (err == MS_NUMBER_OK)
    return -1;
  fprintf(stderr, "mixsim: %s: %s\n", opt, ms_number_explain(err, text, lo, hi, why, sizeof why));
  return MS_ERR_INPUT;
}

/* A screenshot is PNG data, so its name says so (a .jpg would hold PNG bytes). */
static int png_name(const char *path)
{
  size_t n = strlen(path);
  return n > 4 && strcasecmp(path + n - 4, ".png") == 0;
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
  if (c->screenshot && !png_name(c->screenshot)) {
    fprintf(stderr, "mixsim: --screenshot: '%s': screenshots are PNG files; name it *.png\n",
            c->screenshot);
    return MS_ERR_INPUT;
  }
  if ((c->frames_dir || c->screenshot) && !ms_preview_built()) {
    fprintf(stderr, "mixsim: --frames/--screenshot: mixsim was built without SDL2 (install "
                    "libsdl2-dev, libsdl2-ttf-dev and libpng-dev, then meson setup -Dsdl=enabled)\n");
    return MS_ERR_INPUT;
  }
  /* The frames folder may be new: the run makes it (one level). */
  ms_status st = c->frames_dir ? ms_output_check_dir("--frames", c->frames_dir) : MS_OK;
  if (!st && c->screenshot)
    st = ms_output_check("--screenshot", c->screenshot, 0);
  return st ? fail(st) : -1;
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
    {"exchange", required_argument, 0, 1021},
    {"large-on", required_argument, 0, 1022},
    {"cpu-threads", required_argument, 0, 1007},
    {"trace", required_argument, 0, 1031}, {"trace-steps", required_argument, 0, 1032},
    {"worker-list", required_argument, 0, 1023}, {"profile", required_argument, 0, 1024},
    {"output", required_argument, 0, 1040}, {"output-every", required_argument, 0, 1041},
    {"output-format", required_argument, 0, 1042}, {"output-clear", no_argument, 0, 1043},
    {"diagnostics", no_argument, 0, 1044},
    {0, 0, 0, 0}};
  int ch, rc = -1;
  while (rc < 0 && (ch = getopt_long(argc, argv, "n:p:b:d:ls:o:qhV", opts, NULL)) != -1) {
    switch (ch) {
    case 'n': rc = option_long("--steps", optarg, 0, MS_STEPS_MAX, &c->steps); break;
    case 'p': c->pipeline = optarg; break;
    case 'b': c->buffers = optarg; break;
    case 'd': c->device = optarg; break;
    case 'l': c->list_devices = 1; break;
    case 's': c->stats_path = optarg; break;
    case 'o': c->dump_path = optarg; break;
    case 'q': c->quiet = 1; break;
    case 'H': c->headless = 1; break;
    case 'F': c->frames_dir = optarg; break;
    case 'E': rc = option_long("--every", optarg, 1, MS_STEPS_MAX, &c->every); break;
    case 'S': c->screenshot = optarg; break;
    case 'K': c->script = optarg; break;
    case 1001: c->gravity_kernel = optarg; break;
    case 1002: c->devices = optarg; break;
    case 1021: c->exchange = optarg; break;
    case 1022: c->large_on = optarg; break;
    case 1023: c->worker_list = optarg; break;
    case 1024: c->profile = optarg; break;
    case 1003: rc = option_long("--burst", optarg, 1, MS_BURST_MAX, &c->burst); break;
    case 1004: c->checkpoint = optarg; break;
    case 1005:
      rc = option_long("--checkpoint-every", optarg, 1, MS_STEPS_MAX, &c->checkpoint_every);
      break;
    case 1006: c->resume = optarg; break;
    case 1007:
      rc = option_long("--cpu-threads", optarg, 1, MS_CPU_THREADS_MAX, &c->cpu_threads);
      break;
    case 1031: c->trace_path = optarg; break;
    case 1032:
      if (ms_trace_parse_window(optarg, &c->trace_first, &c->trace_last))
        rc = fail(MS_ERR_INPUT);
      break;
    case 1040: c->output = optarg; break;
    case 1041: rc = option_long("--output-every", optarg, 1, MS_STEPS_MAX, &c->output_every); break;
    case 1042: c->output_format = optarg; break;
    case 1043: c->output_clear = 1; break;
    case 1044: c->diagnostics = 1; break;
    case 'h': ms_app_usage(stdout); return 0;
    case 'V': printf("mixsim %s\n", MIXSIM_VERSION); return 0;
    default: ms_app_usage(stderr); return MS_ERR_INPUT;
    }
  }
  if (rc >= 0)
    return rc;
  if (c->list_devices)
    return -1;
  if (optind != argc - 1) {
    fprintf(stderr, "mixsim: expected one scene file (see --help)\n");
    return MS_ERR_INPUT;
  }
  c->scene = argv[optind];
  if (c->trace_last && !c->trace_path) {
    fprintf(stderr, "mixsim: --trace-steps needs --trace FILE.json\n");
    return MS_ERR_INPUT;
  }
  if (c->checkpoint_every && !c->checkpoint) {
    fprintf(stderr, "mixsim: --checkpoint-every needs --checkpoint FILE\n");
    return MS_ERR_INPUT;
  }
  /* Checkpointed runs are headless runs. */
  if (c->checkpoint || c->resume)
    c->headless = 1;
  return check_offscreen(c);
}

/* ---- outputs: checked before the run, each written on its own at the end ---------- */

/* The outputs this run could not write (the run loop reports lost ones through
 * note_output, whose shape it takes). */
static ms_lost_outputs g_lost;

static void note_output(ms_status st, const char *opt) { ms_lost_note(&g_lost, st, opt); }

/* Every output path is checked before anything runs, so that a typo costs no run, and
 * the temporary files that killed runs left beside them are removed (output_options
 * compares them with each other once the scene is read). Returns -1 to go on, or an
 * exit code. */
static int check_outputs(const cli *c)
{
  if (c->stats_path && c->dump_path && strcmp(c->stats_path, "-") == 0 &&
      strcmp(c->dump_path, "-") == 0) {
    fprintf(stderr, "mixsim: --dump: standard output ('-') already has --stats\n");
    return MS_ERR_INPUT;
  }
  /* (check_offscreen checked the screenshot's path) */
  const char *opts[] = {"--stats", "--dump", "--checkpoint", "--screenshot"};
  const char *paths[] = {c->stats_path, c->dump_path, c->checkpoint, c->screenshot};
  for (int i = 0; i < 3; i++) {
    ms_status st = paths[i] ? ms_output_check(opts[i], paths[i], i < 2) : MS_OK;
    if (st)
      return fail(st);
  }
  time_t now = time(NULL);
  for (int i = 0; i < 4; i++)
    if (paths[i])
      ms_output_clean_stale(paths[i], now);
  if (c->frames_dir)
    ms_output_clean_stale_frames(c->frames_dir, now);
  if (!c->checkpoint) /* where a numerical failure leaves the last good state */
    ms_output_clean_stale("mixsim-lastgood.ckpt", now);
  return -1;
}

/* The report goes to stdout, unless an output file does ('-'). */
static FILE *report_stream(const cli *c)
{
  int taken = (c->stats_path && strcmp(c->stats_path, "-") == 0) ||
              (c->dump_path && strcmp(c->dump_path, "-") == 0);
  return taken ? stderr : stdout;
}

typedef struct report_job {
  const ms_sim *sim;
  const ms_run_info *info;
} report_job;

static int print_report(FILE *f, void *arg)
{
  const report_job *j = arg;
  ms_report_breakdown(f, j->sim, j->info);
  return 0;
}

/* The end of a run: the report with the state hash, then each output file on its own,
 * so that one that cannot be written costs nothing else (the report too: a pipe nobody
 * reads waits only until a stop). */
static ms_status write_outputs(const cli *c, ms_sim *sim, ms_run_info *info)
{
  ms_status st = ms_sim_hash(sim, &info->hash);
  if (!st)
    st = ms_sim_summarise(sim, &info->summary);
  if (st)
    return st;
  report_job job = {sim, info};
  note_output(ms_write_stream(report_stream(c), print_report, &job), "the report");
  if (c->stats_path)
    note_output(ms_report_stats_json(c->stats_path, sim, info), "--stats");
  if (c->dump_path)
    note_output(ms_report_dump_csv(c->dump_path, sim), "--dump");
  return MS_OK;
}

/* An output that was not written makes the run fail (1), whatever stopped it; one whose
 * wait for a reader a signal ended leaves the signal's code. */
static int outputs_exit_code(int rc)
{
  if (!g_lost.n || (rc != 0 && rc < 128))
    return rc;
  ms_lost_say(&g_lost);
  return ms_lost_failed(&g_lost) || !rc ? MS_ERR_RUNTIME : rc;
}

/* A signal's exit code, 128 + its number, once it stopped the run or ended a wait of
 * one of its files (MS_ERR_STOPPED), said in the run's last line in either mode and with
 * any number of ranks (rank 0's is seen); otherwise `rc`. */
static int signal_exit_code(int rc, long step, int checkpoint_written)
{
  if ((rc && rc != MS_ERR_STOPPED) || !ms_app_signal)
    return rc;
  fprintf(stderr, "mixsim: stopped by signal %d at step %ld%s\n", (int)ms_app_signal, step,
          checkpoint_written ? "; checkpoint written" : "");
  return 128 + (int)ms_app_signal;
}

/* A checkpoint from past the run's end would run nothing: say so rather than report. */
static ms_status resume_from(const char *path, ms_sim *sim, const ms_scene_id *scene_id,
                             long steps)
{
  ms_status st = ms_checkpoint_load(path, sim, scene_id);
  if (!st && ms_sim_step(sim) > steps)
    st = ms_fail(MS_ERR_INPUT, "--resume: checkpoint '%s' is at step %ld, past this run's end "
                 "at step %ld (--steps or the scene's steps): nothing to run",
                 path, ms_sim_step(sim), steps);
  return st;
}

/* An option given as auto marks its choice for the tuner (-1: from the command line) and
 * leaves the scene's value as the one a run too short to tune keeps; a value clears a
 * scene's auto. Returns whether `v` was auto. */
static int option_auto(const char *v, int *given_auto)
{
  int is_auto = strcmp(v, "auto") == 0;
  *given_auto = is_auto ? -1 : 0;
  return is_auto;
}

/* --profile: auto, on or off as ms_scene.profile holds them; 0 for anything else. */
static int option_profile(const char *v, int *out)
{
  static const char *const modes[3] = {"auto", "on", "off"};
  for (int m = 0; m < 3; m++)
    if (strcmp(v, modes[m]) == 0)
      return *out = m, 1;
  return 0;
}

static int apply_overrides(const cli *c, ms_scene *sc)
{
  if (c->pipeline && !ms_pipeline_parse(c->pipeline, &sc->pipeline))
    return bad_option("--pipeline", "naive or reordered", c->pipeline);
  if (c->buffers && !option_auto(c->buffers, &sc->buffers_auto)) {
    if (!ms_buffer_mode_parse(c->buffers, &sc->buffers))
      return bad_option("--buffers", "shared, copied or auto", c->buffers);
    sc->buffers_given = 1;
  }
  if (c->exchange && !option_auto(c->exchange, &sc->exchange_auto)) {
    if (!ms_exchange_parse(c->exchange, &sc->exchange))
      return bad_option("--exchange", "zone, full or auto", c->exchange);
    sc->exchange_given = 1;
  }
  if (c->large_on && !option_auto(c->large_on, &sc->large_on_auto) &&
      !ms_large_on_parse(c->large_on, &sc->large_on))
    return bad_option("--large-on", "cpu, device or auto", c->large_on);
  if (c->worker_list && !ms_worker_list_parse(c->worker_list, &sc->worker_list_off))
    return bad_option("--worker-list", "on or off", c->worker_list);
  if (c->profile && !option_profile(c->profile, &sc->profile))
    return bad_option("--profile", "on, off or auto", c->profile);
  if (c->cpu_threads > 0)
    sc->cpu_threads = (int)c->cpu_threads;
  if (c->steps >= 0) /* 0: the initial state's outputs, no step */
    sc->steps = c->steps;
  return -1;
}

/* Options that only one mode reads are refused in the other, rather than ignored; so is
 * naming the device twice. Returns -1 to go on, or an exit code. */
static int check_mode_options(const cli *c, const ms_scene *sc)
{
  if (c->device && c->devices) {
    fprintf(stderr, "mixsim: --device and --devices: give one (gravity scenes take either; "
                    "--devices also takes a list)\n");
    return MS_ERR_INPUT;
  }
  if (sc->mode == MS_MODE_GRAVITY && (c->pipeline || c->buffers || c->exchange || c->cpu_threads ||
                                      c->large_on || c->worker_list || c->profile))
    return bad_option(c->pipeline ? "--pipeline" : c->buffers ? "--buffers" : c->exchange ? "--exchange" :
                      c->large_on ? "--large-on" : c->worker_list ? "--worker-list" :
                      c->profile ? "--profile" : "--cpu-threads",
                      "a scene with mode = collision", c->scene);
  return -1;
}

/* Every file the run writes, and those it reads, on a file of its own. */
static ms_status distinct_paths(const cli *c, const ms_scene *sc, const ms_series_options *o)
{
  char state[4096]; /* a dump file's state goes beside it (collision mode) */
  ms_output_id dump;
  int beside = c->dump_path && ms_output_identify(c->dump_path, &dump) &&
               sc->mode == MS_MODE_COLLISION &&
               ms_dump_state_path(c->dump_path, state, sizeof state);
  const ms_path_use fixed[] = {
      {"the scene file", c->scene, MS_PATH_INPUT},
      {"--resume", c->resume, MS_PATH_RESUME},
      {"--stats", c->stats_path, MS_PATH_OUTPUT},
      {"--dump", c->dump_path, MS_PATH_OUTPUT},
      {"--checkpoint", c->checkpoint, MS_PATH_OUTPUT},
      {"--screenshot", c->screenshot, MS_PATH_OUTPUT},
      {"--trace", c->trace_path, MS_PATH_OUTPUT},
      {"where a numerical failure leaves the last good state (no --checkpoint given)",
       c->checkpoint ? NULL : "mixsim-lastgood.ckpt", MS_PATH_IMPLIED},
      {"--dump's state", beside ? state : NULL, MS_PATH_IMPLIED},
  };
  int n_fixed = (int)(sizeof fixed / sizeof fixed[0]), n = n_fixed + sc->input_count;
  ms_path_use *use = malloc((size_t)n * sizeof *use);
  if (!use)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  /* the scene's files first: inputs, like the scene */
  for (int i = 0; i < sc->input_count; i++)
    use[i] = (ms_path_use){sc->inputs[i].key, sc->inputs[i].path, MS_PATH_INPUT};
  memcpy(use + sc->input_count, fixed, sizeof fixed);
  ms_status st = ms_paths_distinct(use, n, o, c->frames_dir);
  free(use);
  return st;
}

/* The time series: the options over the scene's [output] keys; the folder is made and
 * checked for an earlier run's frames before anything runs. Returns -1 to go on, or an
 * exit code. */
static int output_options(const cli *c, const ms_scene *sc, ms_series_options *o)
{
  *o = (ms_series_options){c->output ? c->output : sc->output_dir[0] ? sc->output_dir : NULL,
                           c->output_every ? c->output_every : sc->output_every ? sc->output_every : 100,
                           sc->output_csv, c->output_clear, c->diagnostics || sc->output_diagnostics};
  if (!o->dir && (c->output_every || c->output_format || c->output_clear || c->diagnostics))
    return bad_option(c->output_every ? "--output-every" : c->output_format ? "--output-format"
                      : c->output_clear ? "--output-clear" : "--diagnostics",
                      "--output DIR (or [output] dir) with it", "nothing");
  if (c->output_format && strcmp(c->output_format, "vtk") && strcmp(c->output_format, "csv"))
    return bad_option("--output-format", "vtk or csv", c->output_format);
  if (c->output_format)
    o->csv = strcmp(c->output_format, "csv") == 0;
  /* One file for two uses, checked before --output-clear removes anything
   * (check_outputs made sure the outputs' folders exist). Rank 0 writes every output. */
  ms_status st = ms_app_is_root() ? distinct_paths(c, sc, o) : MS_OK;
  if (!st && o->dir && ms_app_is_root())
    st = ms_series_prepare("--output", o);
  return st ? fail(st) : -1;
}

static void say_headless(const cli *c, const char *why)
{
  if (c->quiet)
    return;
  if (c->checkpoint || c->resume) /* parse_args made these headless */
    fprintf(stderr, "mixsim: running headless (%s: checkpointed runs are headless)\n",
            c->checkpoint ? "--checkpoint" : "--resume");
  else if (c->headless)
    fprintf(stderr, "mixsim: running headless (%s)\n",
            c->headless == 2 ? "--steps 0: the initial state's outputs" : "--headless");
  else
    fprintf(stderr, "mixsim: %s; running headless\n", why);
}

/* The devices of a collision run's domains: --devices (local-rank: this rank's GPU); under
 * several ranks without it, --device, $MIXSIM_DEVICE or this rank's GPU. NULL: one device. */
static const char *domain_list(const cli *c, char *buf, size_t cap)
{
  if (c->devices)
    return ms_app_rank_devices(c->devices, buf, cap);
  if (ms_ranks_size() < 2)
    return NULL;
  const char *env = getenv("MIXSIM_DEVICE");
  return c->device ? c->device : env && *env ? env : ms_app_rank_devices("local-rank", buf, cap);
}

/* The window where a display is available, else the run loop (app/run.c): offscreen
 * frames when asked for, or headless. The window runs until the user quits (or a
 * signal) and may replace *sim (reset); the run loop resumes, checkpoints and tunes
 * what is auto (info->tuner, for the report). */
static ms_status run_chosen(const cli *c, ms_sim **sim, const ms_scene *scene,
                            const ms_sim_options *opt, long steps, ms_run_info *info,
                            ms_series *series)
{
  ms_preview_options po = {scene->iterations_per_frame, c->frames_dir, c->every,
                           c->screenshot, c->script, c->quiet, &ms_app_signal};
  int offscreen = c->frames_dir || c->screenshot;
  char why[256] = "--devices: the window shows a run on one device";
  if (!offscreen && !c->headless && !c->domains && ms_preview_open_display(why, sizeof why)) {
    if (scene->buffers_auto || scene->exchange_auto || scene->large_on_auto)
      return ms_app_refuse_auto_in_window(scene);
    double t0 = ms_now();
    ms_status st = ms_preview_window(sim, scene, opt, &po);
    info->wall_s = ms_now() - t0;
    return st;
  }
  if (!offscreen)
    say_headless(c, why);
  ms_run_plan plan = {steps, !c->quiet && isatty(fileno(stderr)), c->checkpoint,
                      c->checkpoint_every, 0, c->checkpoint ? c->checkpoint : "mixsim-lastgood.ckpt",
                      offscreen ? &po : NULL, note_output, NULL, series, NULL};
  ms_scene_id id;
  ms_status st = ms_scene_identity(scene, &id);
  plan.scene_id = &id;
  if (!st && c->resume)
    st = resume_from(c->resume, *sim, &id, steps);
  int ranks = ms_ranks_size() > 1, root = ms_app_is_root();
  if (ranks) { /* several ranks: every one takes part, rank 0 alone writes */
    st = ms_ranks_agree(st);
    plan.checkpoint = root ? plan.checkpoint : NULL;
    plan.last_good = root ? plan.last_good : NULL;
  }
  if (!st && c->domains) /* collision mode over several devices (domains/domains.h) */
    st = ms_domains_create(scene, opt, c->domains, *sim,
                           ranks ? ms_ranks_stop_flag(&ms_app_signal) : NULL, &plan.domains);
  if (!st) /* a resumed run tunes again, over what is left of it */
    st = ms_tuner_create(scene, *sim, steps - ms_sim_step(*sim), &plan.tuner);
  if (st) {
    ms_domains_destroy(plan.domains);
    ms_scene_id_free(&id);
    return st;
  }
  info->tuner = plan.tuner;
  /* A signal from here on stops the run at the next iteration (several ranks: the one
   * they agree on, domains/domains.h). */
  ms_app_set_running(ranks ? NULL : *sim);
  st = ms_app_run(*sim, &plan, &info->wall_s);
  ms_app_set_running(NULL);
  /* The state at the end or where a signal stopped the run. */
  if (!st && c->checkpoint && root)
    note_output(ms_checkpoint_save(c->checkpoint, *sim, &id), "--checkpoint");
  if (plan.domains)
    ms_domains_describe(plan.domains, info->domains, sizeof info->domains);
  ms_domains_destroy(plan.domains);
  ms_scene_id_free(&id);
  return st;
}

static int fail(ms_status st)
{
  fprintf(stderr, "mixsim: %s\n", ms_error_message());
  return (int)st;
}

/* --trace: its path checked, and the recorder started (cl/trace_events.h). Returns -1
 * to go on, or an exit code. */
static int start_trace(const cli *c)
{
  if (!c->trace_path)
    return -1;
  ms_status st = ms_output_check("--trace", c->trace_path, 0);
  if (st)
    return fail(st);
  ms_output_clean_stale(c->trace_path, time(NULL));
  ms_tev_start(c->trace_first, c->trace_last ? c->trace_last : MS_TRACE_DEFAULT_STEPS);
  return -1;
}

/* --trace: what was recorded, at the end of any run (finished, stopped by a signal, or
 * failed: then what it reached). */
static void write_trace(const cli *c)
{
  if (c->trace_path && ms_app_is_root()) /* (several ranks: rank 0's process) */
    note_output(ms_trace_json_write(c->trace_path), "--trace");
}

/* Gravity scenes: the 3D window where a display is available, else the headless run.
 * Offscreen frames are drawn for collision scenes only. *step: where the run ended. */
static int run_gravity_chosen(const cli *c, const ms_gravity_cli *g, const ms_scene *scene,
                              long *step)
{
  if (c->frames_dir || c->screenshot) {
    fprintf(stderr, "mixsim: --frames/--screenshot: offscreen frames are drawn for collision "
                    "scenes only\n");
    return MS_ERR_INPUT;
  }
  char why[256];
  if (c->headless || !ms_preview_open_display(why, sizeof why)) {
    say_headless(c, why);
    return ms_gravity_cli_run(g, scene, step);
  }
  if (c->stats_path || c->dump_path)
    ms_warn("--stats/--dump: the gravity window writes neither; use --headless");
  ms_gravity_options opt = {g->devices, g->kernel, g->burst, NULL};
  ms_gravity *grav = NULL;
  ms_status st = ms_gravity_create(scene, &opt, &grav);
  ms_preview_options po = {scene->iterations_per_frame, NULL, 1, NULL, c->script, c->quiet,
                           &ms_app_signal};
  if (!st) {
    ms_gravity_set_stop_flag(grav, &ms_app_signal); /* a signal ends the advance under way */
    st = ms_preview_gravity_window(grav, scene, &po);
    *step = ms_gravity_step(grav);
  }
  ms_gravity_destroy(grav);
  return st ? fail(st) : 0;
}

static int run_main(int argc, char **argv)
{
  cli c = {.steps = -1};
  int rc = parse_args(argc, argv, &c);
  if (rc >= 0)
    return rc;
  ms_status hook = ms_io_test_full_check();
  if (hook)
    return fail(hook);
  ms_set_quiet(c.quiet);
  if (c.list_devices) {
    ms_status st = ms_cl_list_devices(stdout);
    return st ? fail(st) : 0;
  }
  /* Several ranks: rank 0 writes every output, so it alone checks them. */
  if (ms_app_is_root() && ((rc = check_outputs(&c)) >= 0 || (rc = start_trace(&c)) >= 0))
    return rc;

  ms_scene scene;
  ms_status st = ms_scene_load(c.scene, &scene);
  if (st)
    return fail(st);
  ms_series_options so;
  if ((rc = apply_overrides(&c, &scene)) >= 0 || (rc = check_mode_options(&c, &scene)) >= 0 ||
      (rc = output_options(&c, &scene, &so)) >= 0 ||
      (rc = ms_app_launch(&scene, c.gravity_kernel, c.burst, c.checkpoint ?
                          c.checkpoint_every : -1, c.resume != NULL, &so)) >= 0) { /* MPI */
    ms_scene_free(&scene);
    return rc;
  }
  if (so.dir || ms_ranks_size() > 1) /* the series: headless (and offscreen) runs; MPI too */
    c.headless = 1;
  else if (scene.steps == 0 && !c.headless) /* 0: the window would step */
    c.headless = 2;
  if (scene.mode == MS_MODE_GRAVITY) {
    ms_gravity_cli g = {c.scene,      c.devices ? c.devices : c.device,
                        c.gravity_kernel, c.burst,
                        c.stats_path, c.dump_path,
                        c.quiet,      c.checkpoint,
                        c.resume,     c.checkpoint_every,
                        ms_ranks_stop_flag(&ms_app_signal), so.dir ? &so : NULL, note_output};
    long stopped_at = 0;
    rc = run_gravity_chosen(&c, &g, &scene, &stopped_at);
    write_trace(&c);
    ms_scene_free(&scene);
    rc = signal_exit_code(rc, stopped_at,
                          !rc && c.checkpoint && !ms_lost_has(&g_lost, "--checkpoint"));
    return outputs_exit_code(rc);
  }
  if (c.gravity_kernel || c.burst) {
    ms_scene_free(&scene);
    return bad_option(c.gravity_kernel ? "--gravity-kernel" : "--burst",
                      "a scene with mode = gravity", c.scene);
  }
  char mine[64], first[32]; /* domains: the whole state lives on the first device too */
  c.domains = domain_list(&c, mine, sizeof mine);
  snprintf(first, sizeof first, "%.*s", c.domains ? (int)strcspn(c.domains, ",") : 0,
           c.domains ? c.domains : "");
  ms_sim_options opt = {c.domains ? (strcmp(first, "all") ? first : "gpu") : c.device, NULL,
                        so.dir && so.diagnostics};
  ms_sim *sim = NULL;
  st = c.domains ? ms_domains_check(c.domains) : MS_OK;
  if (!st)
    st = ms_sim_create(&scene, &opt, &sim);
  st = ms_ranks_agree(st); /* (several ranks: all fail with the lowest failing one's message) */
  long steps = scene.steps;
  if (st) {
    ms_scene_free(&scene);
    return fail(st);
  }

  ms_run_info info = {.scene_path = c.scene, .writer_used = so.dir != NULL};
  ms_series *series = NULL;
  st = so.dir && ms_app_is_root() ? ms_series_open(&so, sim, &series) : MS_OK;
  if (!st)
    st = run_chosen(&c, &sim, &scene, &opt, steps, &info, series);
  /* every frame handed over; a failure here is a lost frame */
  note_output(ms_series_close(series, &info.writer), "--output");
  ms_scene_free(&scene); /* the window's reset needed it until now */
  if (!st && ms_app_is_root())
    st = write_outputs(&c, sim, &info);
  ms_tuner_destroy(info.tuner);
  rc = st ? fail(st) : 0;
  write_trace(&c);
  long stopped_at = ms_sim_step(sim);
  int checkpoint_written = !rc && c.checkpoint && !ms_lost_has(&g_lost, "--checkpoint");
  ms_sim_destroy(sim);
  return outputs_exit_code(signal_exit_code(rc, stopped_at, checkpoint_written));
}

/* Signals are blocked before MPI starts its threads, which inherit the mask (app/ranks_launch.h). */
int main(int argc, char **argv)
{
  ms_app_catch_signals();
  ms_io_set_stop_flag(&ms_app_signal); /* a wait for a FIFO's reader, a full pipe, ends on a signal */
  int rc = ms_app_ranks_start(&argc, &argv);
  if (rc < 0)
    rc = run_main(argc, argv);
  return ms_app_ranks_end(rc);
}
