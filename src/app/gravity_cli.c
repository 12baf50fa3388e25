/* Gravity mode on the command line: progress and diagnostics every
 * `diagnostics_every` steps, then the per-phase breakdown, the stats JSON and the CSV
 * dump (x,y,z,vx,vy,vz,m, which bodies = file reads back). */
#include "app/gravity_cli.h"
#include "app/ranks_launch.h"

#include "mixsim/checkpoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mixsim/gravity.h"
#include "io/gravity_report.h"
#include "io/output_file.h"
#include "core/clock.h"
#include "gravity/ranks.h"

typedef struct run_log {
  ms_gravity_diag *diag; /* one per report line */
  int count, cap;
  double max_error;      /* largest |dE/E| seen */
  double bound;          /* [gravity] max_energy_error; 0: none */
  ms_gravity_state good; /* the last diagnosed state within it (step -1: none yet) */
  double good_error;     /* its dE/E */
} run_log;

/* The report and the progress lines go to stdout, unless an output file does ('-'). */
static FILE *report_stream(const ms_gravity_cli *c)
{
  int taken = (c->stats_path && strcmp(c->stats_path, "-") == 0) ||
              (c->dump_path && strcmp(c->dump_path, "-") == 0);
  return taken ? stderr : stdout;
}

static int fail(ms_status st)
{
  fprintf(stderr, "mixsim: %s\n", ms_error_message());
  return (int)st;
}

static double interactions(const ms_gravity_stats *s, long steps)
{
  return (double)s->bodies * (double)s->bodies * (double)steps;
}

typedef struct diag_line {
  const ms_gravity_diag *d;
  double rate;
} diag_line;

static int write_diag(FILE *out, void *arg)
{
  const diag_line *l = arg;
  const ms_gravity_diag *d = l->d;
  fprintf(out, "step %8ld  t %-10.4g", d->step, d->time);
  if (d->has_energy)
    fprintf(out, "  E %-13.7g dE/E %+.2e  2K/|W| %.4f%s", d->energy, d->energy_error,
            d->virial_ratio, d->sampled ? " (sampled)" : "");
  fprintf(out, "  |P| %.3g", sqrt(d->momentum[0] * d->momentum[0] +
                                   d->momentum[1] * d->momentum[1] +
                                   d->momentum[2] * d->momentum[2]));
  if (l->rate > 0.0)
    fprintf(out, "  %.3g interactions/s", l->rate);
  fputc('\n', out);
  return 0;
}

/* A progress line, in waits a stop ends (a pipe nobody reads); one not taken is no
 * output lost. */
static void print_diag(FILE *out, const ms_gravity_diag *d, double rate)
{
  diag_line l = {d, rate};
  if (ms_write_stream(out, write_diag, &l))
    ms_error_clear();
}

static int log_diag(run_log *log, const ms_gravity_diag *d)
{
  if (log->count == log->cap) {
    int cap = log->cap ? 2 * log->cap : 64;
    ms_gravity_diag *grown = realloc(log->diag, (size_t)cap * sizeof *grown);
    if (!grown)
      return 0;
    log->diag = grown;
    log->cap = cap;
  }
  log->diag[log->count++] = *d;
  if (d->has_energy && fabs(d->energy_error) > log->max_error)
    log->max_error = fabs(d->energy_error);
  return 1;
}

/* A diagnosed state that is not a result: a non-finite energy, or an energy error past
 * the bound (a finite runaway reaches |dE/E| of 1e16 without a NaN anywhere). */
static ms_status check_energy(const run_log *log, const ms_gravity_diag *d)
{
  if (!d->has_energy)
    return MS_OK;
  if (!isfinite(d->energy) || !isfinite(d->energy_error))
    return ms_fail(MS_ERR_NUMERIC, "the energy is no longer finite at step %ld (E = %g, kinetic "
                   "%g, potential %g): dt is too large or the softening too small for this "
                   "scene", d->step, d->energy, d->kinetic, d->potential);
  if (log->bound > 0.0 && fabs(d->energy_error) > log->bound)
    return ms_fail(MS_ERR_NUMERIC, "the energy error at step %ld, |dE/E| = %.3g, exceeds "
                   "[gravity] max_energy_error = %g: dt is too large or the softening too small "
                   "for this scene (or set max_energy_error = off)",
                   d->step, fabs(d->energy_error), log->bound);
  return MS_OK;
}

static ms_status diagnose(ms_gravity *g, run_log *log, const ms_gravity_cli *c, double rate)
{
  ms_gravity_diag d;
  ms_status st = ms_gravity_diagnose(g, &d);
  if (st)
    return st;
  if (!log_diag(log, &d))
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!c->quiet)
    print_diag(report_stream(c), &d, rate);
  if ((st = check_energy(log, &d)))
    return st;
  ms_gravity_state_free(&log->good);
  st = ms_gravity_read_state(g, &log->good);
  log->good_error = d.energy_error;
  return st;
}

/* After the energy check failed: the last diagnosed state within the bound, as a
 * checkpoint where a non-finite state's last good one goes. */
static void write_last_within(ms_gravity *g, run_log *log, const ms_gravity_cli *c,
                              const ms_scene_id *scene_id)
{
  const char *path = c->checkpoint ? c->checkpoint : "mixsim-lastgood.ckpt";
  ms_gravity_state *good = &log->good;
  if (!good->pos)
    return; /* the first state failed: there is none */
  if (ms_gravity_restore(g, good->step, good->pos, good->vel, ms_gravity_initial_energy(g)) ||
      ms_checkpoint_save_gravity(path, g, scene_id)) {
    fprintf(stderr, "mixsim: the last good state (step %ld) could not be written to '%s'\n",
            good->step, path);
    return;
  }
  fprintf(stderr, "mixsim: the last good state (step %ld, dE/E %+.3g) is in '%s' (--resume it)\n",
          good->step, log->good_error, path);
}

/* After a numerical failure in the chunk from `good` (the state before it) to step
 * `end`: replays it one step at a time, which fails at the same step since runs are
 * deterministic, and writes the last state before it as a checkpoint. A signal cuts the
 * replay short: the good state reached so far is written instead, and said to be earlier. */
static void write_last_good(ms_gravity *g, ms_gravity_state *good, long end,
                            const ms_gravity_cli *c, const ms_scene_id *scene_id)
{
  const char *path = c->checkpoint ? c->checkpoint : "mixsim-lastgood.ckpt";
  double e0 = ms_gravity_initial_energy(g);
  if (ms_ranks_agree(ms_gravity_restore(g, good->step, good->pos, good->vel, e0)))
    return; /* (several ranks: all replay the steps together; rank 0 writes) */
  int failed = 0, stopped = 0;
  while (!failed && !stopped && ms_gravity_step(g) < end) {
    ms_gravity_state next;
    if (ms_gravity_read_state(g, &next))
      return;
    ms_gravity_state_free(good);
    *good = next;
    stopped = c->stop && *c->stop;
    failed = !stopped && ms_gravity_advance(g, 1) != MS_OK;
    stopped |= !failed && ms_gravity_step(g) == good->step;
  }
  if (!failed && !stopped) {
    ms_warn("the replay did not fail again before step %ld; no last good state written", end);
    return;
  }
  if (ms_app_is_root() && ms_gravity_restore(g, good->step, good->pos, good->vel, e0) == MS_OK &&
      ms_checkpoint_save_gravity(path, g, scene_id) == MS_OK) {
    if (failed)
      fprintf(stderr, "mixsim: the last good state (step %ld) is in '%s' (--resume it)\n",
              good->step, path);
    else
      fprintf(stderr, "mixsim: stopped while replaying for the last good state; the good state "
                      "of step %ld (before the failure) is in '%s'\n", good->step, path);
  }
}

/* A lost output of the way (RUNTIME: it failed; STOPPED: a signal ended its wait for a
 * reader) goes to output_lost and the run goes on; anything else is the run's failure. */
static ms_status lost(const ms_gravity_cli *c, ms_status st, const char *opt)
{
  if (st != MS_ERR_RUNTIME && st != MS_ERR_STOPPED)
    return st;
  c->output_lost(st, opt);
  return MS_OK;
}

/* --output: the frame due at this step (rank 0's series; NULL elsewhere). A write that
 * failed is lost and stops the run: *halt, agreed by every rank (collective). */
static ms_status series_frame(const ms_gravity_cli *c, ms_series *out, ms_gravity *g, int force,
                              ms_status st, int *halt)
{
  int lost_now = 0;
  if (!st && (st = ms_series_frame_gravity(out, g, force)) && ms_series_failed(out)) {
    int stopped = st == MS_ERR_STOPPED;
    if (!(st = lost(c, st, "--output")) && !stopped)
      fprintf(stderr, "mixsim: --output failed: the run stops at step %ld; its checkpoint, "
                      "report and other outputs are still written\n", ms_gravity_step(g));
    lost_now = !st;
  }
  st = ms_ranks_agree(st); /* several ranks: rank 0's outputs failing stop all */
  char none[1];
  int from = 0;
  *halt |= ms_ranks_agree_code(lost_now, "", none, 0, &from) != 0;
  return st;
}

/* Runs up to step `total` (a resumed run starts past 0), in chunks that end at
 * diagnostics and checkpoint boundaries, and stops early on a signal or a lost frame. */
static ms_status run(ms_gravity *g, long total, long every, run_log *log, const ms_gravity_cli *c,
                     const ms_scene_id *scene_id, ms_series *out)
{
  ms_status st = diagnose(g, log, c, 0.0);
  int energy_failed = st == MS_ERR_NUMERIC, halt = 0;
  /* --output: the first state, every K steps, the last */
  st = series_frame(c, out, g, 1, st, &halt);
  long ck = c->checkpoint ? c->checkpoint_every : 0;
  while (!st && !halt && ms_gravity_step(g) < total && !(c->stop && *c->stop)) {
    long step = ms_gravity_step(g), chunk = total - step;
    if (every > 0 && every - step % every < chunk)
      chunk = every - step % every;
    if (ck > 0 && ck - step % ck < chunk)
      chunk = ck - step % ck;
    if (out && ms_series_room(out, step) < chunk)
      chunk = ms_series_room(out, step);
    ms_gravity_state good = {0};
    if ((st = ms_gravity_read_state(g, &good)))
      break;
    double t0 = ms_now();
    st = ms_gravity_advance(g, chunk);
    double wall = ms_now() - t0;
    if (st == MS_ERR_NUMERIC)
      write_last_good(g, &good, step + chunk, c, scene_id);
    ms_gravity_state_free(&good);
    if (st)
      break;
    long done = ms_gravity_step(g) - step;
    if (!st && ck > 0 && ms_gravity_step(g) % ck == 0 && ms_app_is_root())
      st = lost(c, ms_checkpoint_save_gravity(c->checkpoint, g, scene_id), "--checkpoint-every");
    if (!st && done > 0) {
      st = diagnose(g, log, c, wall > 0 ? interactions(ms_gravity_get_stats(g), done) / wall : 0);
      energy_failed = st == MS_ERR_NUMERIC;
    }
    st = series_frame(c, out, g, 0, st, &halt);
  }
  if (energy_failed)
    write_last_within(g, log, c, scene_id);
  return st ? st : series_frame(c, out, g, 1, st, &halt);
}

/* ---- files ------------------------------------------------------------------------- */

typedef struct json_ctx {
  const ms_gravity_cli *cli;
  const ms_scene *scene;
  const ms_gravity_stats *s;
  const run_log *log;
  long burst;
  uint32_t hash;
  double e0; /* step 0's energy, which the errors are relative to */
} json_ctx;

static void json_vec(FILE *f, const double v[3])
{
  fprintf(f, "[%.9g, %.9g, %.9g]", v[0], v[1], v[2]);
}

static void json_diag(FILE *f, const ms_gravity_diag *d)
{
  fprintf(f, "{\"step\": %ld, \"time\": %.9g", d->step, d->time);
  if (d->has_energy)
    fprintf(f, ", \"energy\": %.17g, \"kinetic\": %.17g, \"potential\": %.17g, "
               "\"relative_error\": %.9g, \"virial_ratio\": %.9g, \"sampled\": %s",
            d->energy, d->kinetic, d->potential, d->energy_error, d->virial_ratio,
            d->sampled ? "true" : "false");
  fputs(", \"momentum\": ", f);
  json_vec(f, d->momentum);
  fputs(", \"angular_momentum\": ", f);
  json_vec(f, d->angular_momentum);
  fputc('}', f);
}

static int write_json(FILE *f, void *arg)
{
  const json_ctx *c = arg;
  const ms_gravity_stats *s = c->s;
  const ms_gravity_scene *gs = &c->scene->grav;
  long steps = s->steps, run = s->steps_run; /* rates: this run's steps only */
  double rate = s->advance_s > 0 ? interactions(s, run) / s->advance_s : 0.0;
  fputs("{\n  \"mode\": \"gravity\",\n  \"scene\": ", f);
  ms_json_string(f, c->cli->scene_path);
  fprintf(f, ",\n  \"bodies\": %d,\n  \"padded_bodies\": %d,\n  \"generator\": \"%s\"", s->bodies,
          s->padded, ms_bodies_name(gs->bodies));
  fprintf(f, ",\n  \"integrator\": \"%s\",\n  \"dt\": %.17g,\n  \"softening\": %.17g,\n  \"G\": %.17g",
          ms_integrator_name(gs->integrator), c->scene->dt_s, gs->softening, gs->g);
  fprintf(f, ",\n  \"steps\": %ld,\n  \"step\": %ld,\n  \"steps_run\": %ld,\n  \"time\": %.17g,"
             "\n  \"burst\": %ld", steps, steps, run, steps * c->scene->dt_s, c->burst);
  fprintf(f, ",\n  \"wall_s\": %.9g,\n  \"steps_per_s\": %.9g,\n  \"interactions_per_s\": %.9g,"
             "\n  \"gflops\": %.9g,\n  \"flops_per_interaction\": %d",
          s->advance_s, s->advance_s > 0 ? run / s->advance_s : 0.0, rate,
          rate * MS_GRAVITY_FLOPS_PER_INTERACTION * 1e-9, MS_GRAVITY_FLOPS_PER_INTERACTION);
  fputs(",\n  \"devices\": [", f);
  double slowest_force = 0.0;
  for (int i = 0; i < s->device_count; i++) {
    const ms_gravity_device_stats *d = &s->device[i];
    slowest_force = d->force_s > slowest_force ? d->force_s : slowest_force;
    fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
    ms_json_string(f, d->name);
    fputs(", \"platform\": ", f);
    ms_json_string(f, d->platform);
    fprintf(f, ", \"spec\": \"%s\", \"is_gpu\": %s, \"kernel\": \"%s\", \"work_group\": %d, "
               "\"first\": %d, \"count\": %d, \"force_s\": %.9g, \"drift_pack_s\": %.9g, "
               "\"bodies_per_s\": %.9g}",
            d->spec, d->is_gpu ? "true" : "false", d->kernel, d->work_group, d->first, d->count,
            d->force_s, d->other_s, d->bodies_per_s);
  }
  fprintf(f, "\n  ],\n  \"kernel_interactions_per_s\": %.9g",
          slowest_force > 0 ? interactions(s, run) / slowest_force : 0.0);
  fprintf(f, ",\n  \"phases\": {\"exchange_s\": %.9g, \"readback_s\": %.9g, \"diagnostics_s\": "
             "%.9g, \"rebalances\": %d, \"mpi_s\": %.9g}",
          s->exchange_s, s->readback_s, s->diagnostics_s, s->rebalances, s->mpi_s);
  fprintf(f, ",\n  \"ranks\": %d", s->ranks); /* MPI ranks; devices: rank 0's */
  const ms_gravity_diag *last = &c->log->diag[c->log->count - 1];
  fprintf(f, ",\n  \"energy\": {\"mode\": \"%s\"", ms_energy_mode_name(gs->energy));
  if (last->has_energy)
    fprintf(f, ", \"initial\": %.17g, \"final\": %.17g, \"relative_error\": %.9g, "
               "\"max_abs_relative_error\": %.9g, \"sampled\": %s",
            c->e0, last->energy, last->energy_error, c->log->max_error,
            last->sampled ? "true" : "false");
  fputs("},\n  \"momentum\": ", f);
  json_vec(f, last->momentum);
  fprintf(f, ",\n  \"virial_ratio\": %.9g", last->has_energy ? last->virial_ratio : 0.0);
  fputs(",\n  \"diagnostics\": [", f);
  for (int i = 0; i < c->log->count; i++) {
    fputs(i ? ",\n    " : "\n    ", f);
    json_diag(f, &c->log->diag[i]);
  }
  fprintf(f, "\n  ],\n  \"state_hash\": \"%08x\"\n}\n", c->hash);
  return 0;
}

static int write_csv(FILE *f, void *arg)
{
  const ms_gravity_state *st = arg;
  fputs("x,y,z,vx,vy,vz,m\n", f);
  for (int i = 0; i < st->n; i++) {
    const float *p = &st->pos[4 * i], *v = &st->vel[3 * i];
    fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", p[0], p[1], p[2], v[0], v[1], v[2], p[3]);
  }
  return 0;
}

static int print_report(FILE *f, void *arg)
{
  ms_report_gravity(f, arg);
  return 0;
}

/* The end of a run: the checkpoint (the state at the end, or where a signal or a lost
 * frame stopped the run), the report with the state hash, the stats and the dump, each
 * on its own so that one that cannot be written costs nothing else (c->output_lost). */
static void write_outputs(const ms_gravity_cli *c, ms_gravity *g, const ms_scene *scene,
                          const run_log *log, ms_gravity_state *state,
                          const ms_scene_id *scene_id)
{
  if (c->checkpoint)
    c->output_lost(ms_checkpoint_save_gravity(c->checkpoint, g, scene_id), "--checkpoint");
  json_ctx ctx = {c, scene, ms_gravity_get_stats(g), log, ms_gravity_burst(g),
                  ms_gravity_state_hash(state), ms_gravity_initial_energy(g)};
  ms_gravity_summary sum = {scene, ctx.s, &log->diag[0], &log->diag[log->count - 1],
                            log->max_error, ctx.burst, ctx.hash};
  c->output_lost(ms_write_stream(report_stream(c), print_report, &sum), "the report");
  if (c->stats_path)
    c->output_lost(ms_write_atomic(c->stats_path, write_json, &ctx), "--stats");
  if (c->dump_path)
    c->output_lost(ms_write_atomic(c->dump_path, write_csv, state), "--dump");
}

int ms_gravity_cli_run(const ms_gravity_cli *c, const ms_scene *scene, long *step)
{
  char devices[64]; /* --devices local-rank: this rank's device */
  ms_gravity_options opt = {ms_app_rank_devices(c->devices, devices, sizeof devices), c->kernel,
                            c->burst, NULL};
  ms_gravity *g = NULL;
  ms_status st = ms_gravity_create(scene, &opt, &g);
  if (st)
    return fail(st);
  ms_gravity_set_stop_flag(g, c->stop);
  ms_scene_id id;
  const ms_scene_id *scene_id = &id;
  st = ms_scene_identity(scene, &id);
  int root = ms_app_is_root(); /* several ranks: rank 0 reads the checkpoint, all take it */
  if (!st && c->resume && root)
    st = ms_checkpoint_load_gravity(c->resume, g, scene_id);
  st = c->resume ? ms_gravity_share(g, st) : ms_ranks_agree(st);
  if (!st && c->resume && ms_gravity_step(g) > scene->steps)
    st = ms_fail(MS_ERR_INPUT, "--resume: checkpoint '%s' is at step %ld, past this run's end "
                 "at step %ld (--steps or the scene's steps): nothing to run",
                 c->resume, ms_gravity_step(g), scene->steps);
  if (st) {
    ms_scene_id_free(&id);
    ms_gravity_destroy(g);
    return fail(st);
  }
  run_log log = {.bound = scene->grav.max_energy_error};
  ms_series *out = NULL;
  st = ms_ranks_agree(c->output && root ? ms_series_open_gravity(c->output, g, &out) : MS_OK);
  if (!st)
    st = run(g, scene->steps, scene->grav.diagnostics_every, &log, c, scene_id, out);
  ms_writer_stats ws = {0};
  ms_status written = ms_series_close(out, &ws); /* every frame handed over */
  c->output_lost(written, "--output");
  if (!st && !written && c->output && !c->quiet)
    fprintf(stderr, "mixsim: --output: %ld frames in %s (writer %.3f s, waited %.3f s)\n",
            ws.jobs, c->output->dir, ws.busy_s, ws.wait_s);
  ms_gravity_state state = {0};
  if (!st)
    st = ms_gravity_read_state(g, &state);
  if (!st && root)
    write_outputs(c, g, scene, &log, &state, scene_id);
  int rc = st ? fail(st) : 0;
  ms_gravity_state_free(&state);
  ms_gravity_state_free(&log.good);
  free(log.diag);
  *step = ms_gravity_step(g);
  ms_scene_id_free(&id);
  ms_gravity_destroy(g);
  return rc;
}
