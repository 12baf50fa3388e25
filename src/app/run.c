/* The collision-mode run loop shared by headless and offscreen (--frames, --screenshot)
 * runs, so both resume, checkpoint, stop on a signal and leave the last good state in
 * the same way. It advances in chunks that end where something is due: a progress
 * update (chunks of about a quarter second), a periodic checkpoint, an offscreen frame;
 * at the start, for choices given as auto, the tuner's timed batches. */
#include "app/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "gravity/ranks.h"
#include "io/output_file.h"
#include "mixsim/checkpoint.h"

/* An output write that failed on the way (or was cut short by a stop) goes to the plan's
 * output_lost, if any, and the run goes on; without one it ends the run. */
static ms_status lost(const ms_run_plan *p, ms_status st, const char *opt)
{
  if (st == MS_OK || !p->output_lost || (st != MS_ERR_RUNTIME && st != MS_ERR_STOPPED))
    return st;
  p->output_lost(st, opt);
  return MS_OK;
}

/* A frame of the time series. A write of it that failed is a lost output that stops the
 * run (*halt): the state it stopped at is still checkpointed and reported. */
static ms_status series_frame(const ms_run_plan *p, ms_sim *sim, int force, int *halt)
{
  ms_status st = ms_series_frame(p->series, sim, force);
  if (!st || !ms_series_failed(p->series))
    return st;
  int stopped = st == MS_ERR_STOPPED; /* (a signal: its own message follows) */
  if ((st = lost(p, st, "--output")))
    return st;
  *halt = 1;
  if (!stopped)
    fprintf(stderr, "mixsim: --output failed: the run stops at step %ld; its checkpoint, report "
                    "and other outputs are still written\n", ms_sim_step(sim));
  return MS_OK;
}

/* Offscreen drawing: frame f shows the state after f frames of `ipf` iterations from
 * where the run began (frame 0: that state), as the window would; only every
 * `every`-th is written, numbered without gaps. */
typedef struct frames {
  const ms_preview_options *po;
  ms_offscreen *canvas;
  long ipf, start, written, drawn_at; /* drawn_at: the step of the last frame drawn */
  int broken;                         /* a frame could not be written */
  char *path;
} frames;

static ms_status frames_draw_due(frames *f, ms_sim *sim, long total)
{
  long step = ms_sim_step(sim), done = step - f->start;
  if (!f->po || !f->po->frames_dir || f->broken || step == f->drawn_at)
    return MS_OK;
  if (done % f->ipf != 0 && step != total)
    return MS_OK; /* stopped inside a frame: no picture of half a frame */
  long index = (done + f->ipf - 1) / f->ipf;
  f->drawn_at = step;
  if (index % f->po->every != 0)
    return MS_OK;
  size_t n = strlen(f->po->frames_dir) + 32;
  char *path = realloc(f->path, n);
  if (!path)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  f->path = path;
  snprintf(path, n, "%s/frame_%06ld.png", f->po->frames_dir, f->written);
  ms_status st = ms_offscreen_draw(f->canvas, sim, (int)f->ipf, path);
  if (!st)
    f->written++;
  else
    f->broken = 1; /* no later frame: the files stay numbered without gaps */
  return st;
}

static ms_status frames_open(frames *f, const ms_preview_options *po, ms_sim *sim, long total)
{
  memset(f, 0, sizeof *f);
  f->po = po;
  f->start = ms_sim_step(sim);
  f->drawn_at = -1;
  if (!po)
    return MS_OK;
  f->ipf = po->iterations_per_frame > 0 ? po->iterations_per_frame : 1;
  ms_status st = ms_offscreen_open(&f->canvas);
  if (!st && po->frames_dir)
    st = ms_output_make_dir(po->frames_dir); /* checked before the run: one level */
  return st ? st : frames_draw_due(f, sim, total);
}

/* How far the next chunk may go from `step` before a frame is due. The screenshot is
 * drawn after a last chunk of one frame, so its timing bar shows one frame's work. */
static long frames_room(const frames *f, long step, long total)
{
  if (!f->po)
    return total - step;
  if (f->po->frames_dir)
    return f->ipf - (step - f->start) % f->ipf;
  long last = f->ipf < total - f->start ? f->ipf : total - f->start;
  return step < total - last ? total - last - step : total - step;
}

static ms_status frames_close(frames *f, ms_sim *sim, ms_status st, const ms_run_plan *p)
{
  if (!f->po)
    return st;
  if (!st && f->po->screenshot) {
    ms_status shot = ms_offscreen_draw(f->canvas, sim, (int)f->ipf, f->po->screenshot);
    if (!shot && !f->po->quiet)
      fprintf(stderr, "mixsim: wrote %s\n", f->po->screenshot);
    st = lost(p, shot, "--screenshot");
  }
  if (f->po->frames_dir && f->written && !f->po->quiet)
    fprintf(stderr, "mixsim: wrote %ld frames to %s/frame_%06d.png ...\n", f->written,
            f->po->frames_dir, 0);
  ms_offscreen_close(f->canvas);
  free(f->path);
  return st;
}

static void progress(long done, long total, double elapsed)
{
  double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
  double eta = rate > 0 ? (double)(total - done) / rate : 0.0;
  fprintf(stderr, "\rmixsim: step %ld/%ld  %.0f it/s  ETA %.1f s   ", done, total, rate, eta);
}

/* Writes the last good state. The failure's own message must stay the one the run
 * reports, so a write error is said here and then forgotten. */
static ms_status save_last_good(ms_snapshot *good, const ms_run_plan *p)
{
  char failure[2048];
  snprintf(failure, sizeof failure, "%s", ms_error_message());
  ms_error_clear();
  ms_status st = ms_snapshot_save(p->last_good, good, p->scene_id);
  if (st)
    fprintf(stderr, "mixsim: the last good state (step %ld) could not be written: %s\n",
            ms_snapshot_step(good), ms_error_message());
  ms_error_clear();
  ms_fail(MS_ERR_NUMERIC, "%s", failure);
  return st;
}

/* After a numerical failure in the chunk that began at `snap` and was to end at step
 * `end`: replays it one iteration at a time (runs are deterministic, so it fails at the
 * same step; every advance checks the state it makes, so the state before the failing
 * one is good) and writes that state as a checkpoint. A stop request cuts the replay
 * short: the good state reached so far is written instead, and said to be earlier. */
static void write_last_good(ms_sim *sim, ms_snapshot *snap, long end, const ms_run_plan *p)
{
  ms_snapshot *good = NULL;
  if (!snap || ms_snapshot_restore(sim, snap)) {
    ms_warn("the snapshot before the failure could not be restored; no last good state written");
    return;
  }
  /* The replay's own message names the failure: a run over domains (domains/domains.h)
   * failed on one of them, which numbers its particles its own way; the replay is the one
   * device's. */
  char first[2048];
  snprintf(first, sizeof first, "%s", ms_error_message());
  ms_error_clear();
  int stopped = 0, failed = 0;
  while (!stopped && !failed && ms_sim_step(sim) < end) {
    ms_snapshot *next = NULL;
    if (ms_snapshot_take(sim, &next))
      break;
    ms_snapshot_free(good);
    good = next;
    long before = ms_sim_step(sim);
    stopped = ms_sim_stop_requested(sim);
    failed = !stopped && ms_sim_advance(sim, 1) != MS_OK;
    stopped |= !failed && ms_sim_step(sim) == before;
  }
  ms_status saved = good && (failed || stopped) ? save_last_good(good, p) : MS_ERR_RUNTIME;
  if (good && (failed || stopped) && !saved) {
    if (failed)
      fprintf(stderr, "mixsim: the last good state (step %ld) is in '%s' (--resume it)\n",
              ms_snapshot_step(good), p->last_good);
    else
      fprintf(stderr, "mixsim: stopped while replaying for the last good state; the good state "
                      "of step %ld (before the failure) is in '%s'\n",
              ms_snapshot_step(good), p->last_good);
  } else if (!failed && !stopped) {
    ms_warn("the replay did not fail again before step %ld; no last good state written", end);
  }
  if (!failed) /* (the failure's message stays the run's) */
    ms_fail(MS_ERR_NUMERIC, "%s", first);
  ms_snapshot_free(good);
}

/* The length of the next chunk from `step`: the adaptive `chunk`, cut where a periodic
 * checkpoint or a frame is due. */
static long next_chunk(const ms_run_plan *p, const frames *f, long step, long chunk)
{
  long n = chunk < p->total - step ? chunk : p->total - step;
  if (p->checkpoint && p->checkpoint_every) {
    long room = p->checkpoint_every - step % p->checkpoint_every;
    n = n < room ? n : room;
  }
  long room = frames_room(f, step, p->total);
  n = n < room ? n : room;
  room = p->series ? ms_series_room(p->series, step) : n;
  return n < room ? n : room;
}

/* The next chunk's length: one batch while the tuner times them, else `chunk`. The tuner
 * sets the configuration here, before the timed advance (a switch of buffers remakes
 * them), and once more when it has chosen. */
static ms_status tuned_chunk(const ms_run_plan *p, ms_sim *sim, long chunk, long *n)
{
  *n = chunk;
  if (!p->tuner)
    return MS_OK;
  long batch = 0;
  ms_status st = ms_tuner_before(p->tuner, sim, &batch);
  if (ms_tuner_busy(p->tuner))
    *n = batch;
  return st;
}

/* Over MPI ranks, a run over domains advances together: every rank takes rank 0's chunk
 * length and configuration (each rank's chunk grows by its own clock, and each rank's
 * tuner times its own batches), and what reads the view after it (rank 0 writes the
 * outputs; the domains' settle is collective), so that every collective meets its peers. */
static ms_status agree_chunk(const ms_run_plan *p, ms_sim *sim, long *n, int read[2])
{
  if (!p->domains || ms_ranks_size() < 2)
    return MS_OK;
  long v[7] = {*n, (long)ms_sim_pipeline(sim), (long)ms_sim_buffers(sim),
               (long)ms_sim_exchange(sim), (long)ms_sim_large_on(sim), read[0], read[1]};
  ms_status st = ms_ranks_bcast(v, sizeof v);
  if (st)
    return st;
  *n = v[0];
  read[0] = (int)v[5];
  read[1] = (int)v[6];
  if (v[1] != (long)ms_sim_pipeline(sim))
    ms_sim_set_pipeline(sim, (ms_pipeline)v[1]);
  if (v[3] != (long)ms_sim_exchange(sim))
    ms_sim_set_exchange(sim, (ms_exchange)v[3]);
  if (v[4] != (long)ms_sim_large_on(sim))
    st = ms_sim_set_large_on(sim, (ms_large_on)v[4]);
  if (st)
    return st;
  return v[2] != (long)ms_sim_buffers(sim) ? ms_sim_set_buffers(sim, (ms_buffer_mode)v[2]) : MS_OK;
}

/* After a run over domains failed: the snapshot of the view, which holds the chunk's
 * start (domains/domains.h), for the replay; the failure's status (and message) kept. */
static ms_status domains_last_good(ms_sim *sim, ms_snapshot **snap, ms_status failed)
{
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", ms_error_message());
  ms_snapshot_free(*snap);
  *snap = NULL;
  if (ms_snapshot_take(sim, snap))
    *snap = NULL; /* (no last good state to write: the failure's message stands) */
  return ms_fail(failed, "%s", msg);
}

/* What reads the view after a chunk that ends at `end`: read[0] the state (a checkpoint or
 * a frame due there), read[1] its forces too (--output's frame). A run over domains brings
 * the view up to the domains' state then (domains/domains.h), else only at the end. */
static void view_read_at(const ms_run_plan *p, long end, int read[2])
{
  int ckpt = p->checkpoint && p->checkpoint_every && end % p->checkpoint_every == 0;
  read[1] = p->series && (ms_series_due(p->series, end) || end >= p->total);
  read[0] = ckpt || p->offscreen || read[1];
}

ms_status ms_app_run(ms_sim *sim, const ms_run_plan *p, double *wall)
{
  long chunk = 1, start = ms_sim_step(sim);
  double t0 = ms_now();
  frames f;
  int halt = 0; /* a lost frame of the time series */
  ms_status st = frames_open(&f, p->offscreen, sim, p->total);
  if (!st)
    st = series_frame(p, sim, 1, &halt);
  ms_snapshot *snap = NULL;
  while (!st && !halt && ms_sim_step(sim) < p->total && !ms_sim_stop_requested(sim)) {
    long step = ms_sim_step(sim), want = chunk;
    int tuning = ms_tuner_busy(p->tuner);
    if ((st = tuned_chunk(p, sim, chunk, &want)))
      break;
    long n = next_chunk(p, &f, step, want);
    int read[2]; /* (rank 0's outputs: every rank settles the view with it) */
    view_read_at(p, step + n, read);
    if ((st = agree_chunk(p, sim, &n, read)))
      break;
    if (p->domains)
      ms_domains_forces_read(p->domains, read[1]);
    if (p->last_good && !p->domains) { /* (domains: the view is the chunk's start after a
                                           failure, domains/domains.h) */
      ms_snapshot_free(snap);
      if ((st = ms_snapshot_take(sim, &snap)))
        break;
    }
    double c0 = ms_now();
    st = p->domains ? ms_domains_advance(p->domains, n) : ms_sim_advance(sim, n);
    double dt = ms_now() - c0;
    if (!st && p->domains && read[0]) /* (the view is read before the next chunk) */
      st = ms_domains_settle(p->domains);
    if (!st && p->tuner)
      ms_tuner_after(p->tuner, ms_sim_step(sim) - step, dt);
    if (st == MS_ERR_NUMERIC && p->last_good && p->domains)
      st = domains_last_good(sim, &snap, st);
    if (st == MS_ERR_NUMERIC && p->last_good)
      write_last_good(sim, snap, step + n, p);
    if (!st && p->checkpoint && p->checkpoint_every &&
        ms_sim_step(sim) % p->checkpoint_every == 0)
      st = lost(p, ms_checkpoint_save(p->checkpoint, sim, p->scene_id), "--checkpoint-every");
    if (!st)
      st = lost(p, frames_draw_due(&f, sim, p->total), "--frames");
    if (!st)
      st = series_frame(p, sim, 0, &halt);
    /* (a batch's time says nothing of the chunk's) */
    if (!tuning && dt < 0.125 && chunk < (1L << 20))
      chunk *= 2;
    else if (!tuning && dt > 0.5 && chunk > 1)
      chunk /= 2;
    if (p->progress)
      progress(ms_sim_step(sim) - start, p->total - start, ms_now() - t0);
  }
  ms_snapshot_free(snap);
  if (!st && p->domains)
    st = ms_domains_settle(p->domains);
  if (!st) /* the last state, also where a signal stopped the run */
    st = series_frame(p, sim, 1, &halt);
  st = frames_close(&f, sim, st, p);
  *wall = ms_now() - t0;
  if (p->progress)
    fputc('\n', stderr);
  return st;
}
