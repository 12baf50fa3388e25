/* One iteration, as the GPU manager thread and the CPU worker thread run it.
 *
 *  naive (one iteration)                      reordered (one iteration)
 *  GPU manager         CPU worker             GPU manager          CPU worker
 *  -----------         ----------             -----------          ----------
 *  build grid          (waits)                (grid built at the end of the last
 *                                              iteration; a prologue builds the first)
 *  ======================== sync 1 ==========================================
 *  collide small-small map/read               collide small-small  map/read
 *                      large-small                                 large-small
 *                      unmap/write F_ls                            unmap/write F_ls
 *                      large-large
 *  ======================== sync 2 ==========================================
 *  integrate small     integrate large        integrate small      large-large
 *                                             build grid (next)    integrate large
 *
 * Why the reordering is legal: sync 2 exists only so that F_ls, written by the CPU,
 * is complete before the small integration reads it. Large-large touches large
 * particles alone, so it can run after sync 2. The grid depends only on the small
 * positions, which do not change between the end of one iteration and the start of
 * the next (unless the user moves a particle, which clears grid_current). Both orders
 * do the same arithmetic in the same order, so they give the same state bit for bit.
 *
 * map/read and unmap/write are the worker's exchange with the device. exchange = full
 * maps (shared) or reads (copied) the small particles' whole state and the grid, and
 * unmaps or writes all of F_ls, then a marker. exchange = zone (collision/exchange/zone.h)
 * sends the large particles' cell rectangles, has kernels on the worker's queue lay out and
 * gather the small particles there (enqueued in sync 1, which the worker then leads, and
 * waited for by the manager's small-small on the device), maps or reads only that zone (one
 * round trip), and after large-small unmaps or writes the zone's forces and enqueues their
 * scatter into F_ls. Either way the manager's small integration waits for the worker's last command
 * (the marker, the scatter) on the device, not the worker on the host: F_ls is complete
 * before the small integration reads it, and each small particle's F_ls sums the same
 * forces in the same order: the same state bit for bit.
 *
 * Every advance ends with the grid of its final state built, because building it is
 * what checks the small particles (NaN/Inf, max_speed): reordered builds it in its last
 * iteration anyway; naive builds it once more after its last iteration, and its first
 * iteration of the next advance uses that grid instead of building the same one again.
 * So a state an advance returns has been checked in both orders, and a failure found in
 * an advance belongs to a state that advance made: the last-good-state replay and the
 * checkpoints never take an unchecked state for a good one.
 *
 * large_on = device, the device-only baseline the case study argues against: the CPU
 * worker has no work, so the manager runs alone on the calling thread, with no worker
 * thread and no syncs (the baseline is not charged their latency), and enqueues the whole
 * iteration on its queue:
 *
 *  GPU manager (one iteration; the large state stays on the device for the advance)
 *  -----------
 *  (grid and large cell list from the end of the last iteration; the advance's start
 *   uploads the large particles and builds both)
 *  collide small-small
 *  large-small: one work-item per large particle walks its cells (its reaction),
 *               one per small particle walks its cell's large list (F_ls)
 *  large-large (sweep order), walls
 *  integrate small, integrate large
 *  build large cell list (next), build grid (next; the one blocking read)
 *
 * Every sum is the CPU worker's, term for term (collision/device_only/device_large.h), so the state
 * is the same bit for bit; the advance reads the large particles back when it returns.
 */
#include "collision/pipeline.h"

#include "collision/device/gpu_manager.h"
#include "collision/device_only/device_large.h"
#include "collision/exchange/zone.h"
#include "collision/forces.h"
#include "collision/worker/cpu_worker.h"
#include "collision/worker/walls.h"

#include <pthread.h>

typedef struct thread_job {
  ms_sim *s;
  long iterations;
  ms_status status;
  long done; /* iterations completed */
  char message[2048]; /* this thread's own reason, when status is a failure */
} thread_job;

/* Keeps the calling thread's own message with its job, for ms_pipeline_run to choose. */
static void keep_message(thread_job *job)
{
  const char *m = ms_error_thread_message();
  snprintf(job->message, sizeof job->message, "%s", m ? m : "");
  ms_error_thread_clear();
}

static ms_status meet(ms_sim *s, ms_thread_id thread, ms_phase wait_phase)
{
  double t0 = ms_now();
  int rc = ms_sync_meet(&s->run.sync);
  ms_trace_phase(&s->run.trace, thread, wait_phase, t0);
  return rc ? MS_ERR_ABORTED : MS_OK;
}

/* Sync 1 led by the worker with the contact zone: once the manager is there with the grid
 * built, the zone's layout goes on the device ahead of the small-small the manager enqueues
 * after it (collision/exchange/zone.h). */
typedef struct lay_job {
  ms_sim *s;
  ms_status st;
  double t0; /* when the layout began: the wait ends there */
} lay_job;

static int lay_zone(void *arg)
{
  lay_job *j = arg;
  j->t0 = ms_now();
  j->st = ms_zone_lay(&j->s->ctx);
  return j->st != MS_OK;
}

/* Returns the status; *t_lay: when the wait ended and the layout began. */
static ms_status meet_laying(ms_sim *s, double *t_lay)
{
  double t0 = ms_now();
  lay_job j = {s, MS_OK, 0.0};
  int rc = ms_sync_meet_leading(&s->run.sync, lay_zone, &j);
  *t_lay = j.t0 > 0.0 ? j.t0 : ms_now();
  ms_trace_phase_to(&s->run.trace, MS_THREAD_CPU, MS_PHASE_WAIT_SYNC1, t0, *t_lay);
  return j.st ? j.st : rc ? MS_ERR_ABORTED : MS_OK;
}

/* --trace: the calling thread's phases from here on belong to iteration `step`. */
static void mark(long step)
{
  if (ms_tev_on)
    ms_tev_iteration(step);
}

/* --trace: the device clocks against the host's, before and after each advance. */
static void calibrate(ms_sim *s)
{
  if (!ms_tev_on)
    return;
  ms_tev_calibrate("queue: main", s->cl.gpu_queue);
  ms_tev_calibrate("queue: worker", s->cl.cpu_queue);
  if (s->cl.zone_queue)
    ms_tev_calibrate("queue: zone", s->cl.zone_queue);
}

#define TRY(expr)                                                                    \
  do {                                                                               \
    ms_status st_ = (expr);                                                          \
    if (st_)                                                                         \
      return st_;                                                                    \
  } while (0)

/* The test-only planted fault (sim_internal.h): fails here if this is its point. */
static ms_status fault(ms_sim *s, ms_thread_id thread, ms_fault_point point, long step)
{
  const ms_fault *f = &s->run.fault;
  if (!f->armed || f->step != step || f->thread != thread || f->point != point)
    return MS_OK;
  if (f->stop_too)
    ms_sim_request_stop(s);
  return ms_fail(MS_ERR_NUMERIC, "step %ld: planted fault (%s thread, point %d)", step,
                 thread == MS_THREAD_GPU ? "GPU manager" : "CPU worker", (int)point);
}

/* With exchange = full, the worker's maps or reads of the iteration about to start go on
 * its queue as soon as the grid they read is built and checked, before the manager's
 * small-small: a device that runs commands in arrival order (pocl) would otherwise make
 * the worker wait for that kernel before its map returns (65K small + 1000 large on a
 * 2-core pocl: 3.1 ms/iteration, map 1.07 ms of it, behind the 1.16 ms kernel). The
 * worker waits for them after sync 1, as for its own; only the enqueueing moves. */
static ms_status request_exchange(ms_sim *s)
{
  if (s->p.exchange != MS_EXCHANGE_FULL || s->p.large_on != MS_LARGE_ON_CPU)
    return MS_OK;
  return ms_buffers_host_request(&s->x.buf, &s->cl);
}

/* `more`: another iteration of this advance follows this one. */
static ms_status gpu_iteration(ms_sim *s, ms_pipeline p, long step, int more)
{
  /* Naive builds here every iteration (the integration made the grid stale) but the
   * first of an advance, whose grid the previous advance built to check its end. */
  mark(step);
  if (!s->dev.grid_current) {
    TRY(ms_gpu_build_grid(&s->ctx, &s->dev, step));
    TRY(request_exchange(s));
  }
  TRY(fault(s, MS_THREAD_GPU, MS_FAULT_BEFORE_SYNC1, step));
  TRY(meet(s, MS_THREAD_GPU, MS_PHASE_WAIT_SYNC1));
  TRY(ms_gpu_collide(&s->ctx, &s->dev));
  TRY(fault(s, MS_THREAD_GPU, MS_FAULT_BETWEEN_SYNCS, step));
  TRY(meet(s, MS_THREAD_GPU, MS_PHASE_WAIT_SYNC2));
  if (ms_forces_due(s, more)) /* --output: before the integration clears F_ls */
    TRY(ms_forces_keep(s, step));
  TRY(ms_gpu_integrate(&s->ctx, &s->dev));
  if (p == MS_PIPELINE_REORDERED && (more || !s->run.end_unchecked)) {
    mark(step + 1); /* the next iteration's grid */
    TRY(ms_gpu_build_grid(&s->ctx, &s->dev, step + 1));
    if (more)
      TRY(request_exchange(s));
  }
  return fault(s, MS_THREAD_GPU, MS_FAULT_AFTER_SYNC2, step);
}

static ms_status cpu_iteration(ms_sim *s, ms_pipeline p, long step)
{
  ms_trace *t = &s->run.trace;
  mark(step);
  TRY(fault(s, MS_THREAD_CPU, MS_FAULT_BEFORE_SYNC1, step));
  if (s->run.large_take) /* a domain's: the owners' large particles in place of its own */
    TRY(s->run.large_take(s->run.large_ctx, s, step));
  double t0 = ms_now();
  int zone = s->p.exchange == MS_EXCHANGE_ZONE;
  if (s->p.n_walls > 0) /* where the walls are this iteration: before the zone, which walks
                           their bands too */
    TRY(ms_walls_place(&s->p, &s->wk, step));
  if (zone) /* (the rectangles are the worker's own: made while the grid builds) */
    TRY(ms_zone_prepare(&s->ctx, s->wk.large, s->wk.wall_rects, s->wk.n_wall_rects));
  if (zone || s->p.n_walls > 0) /* (a phase only where there was something to do) */
    ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_HOST_IN, t0);
  if (zone) {
    TRY(meet_laying(s, &t0));
  } else {
    TRY(meet(s, MS_THREAD_CPU, MS_PHASE_WAIT_SYNC1));
    t0 = ms_now();
  }
  TRY(zone ? ms_zone_begin(&s->ctx) : ms_buffers_host_begin(&s->x.buf, &s->cl));
  t0 = ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_HOST_IN, t0);
  ms_status ls = ms_cpu_large_small(&s->ctx, &s->wk); /* fails only out of memory */
  t0 = ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_LARGE_SMALL, t0);
  ms_status end =
      zone ? ms_zone_end(&s->ctx) : ms_buffers_host_end(&s->x.buf, &s->cl); /* even then */
  TRY(ls);
  TRY(end);
  if (!zone)
    s->run.stats.exchange_bytes += ms_buffers_full_bytes(&s->x.buf);
  t0 = ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_HOST_OUT, t0);
  if (p == MS_PIPELINE_NAIVE) {
    TRY(ms_cpu_large_large(&s->p, &s->wk));
    ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_LARGE_LARGE, t0);
  }
  TRY(fault(s, MS_THREAD_CPU, MS_FAULT_BETWEEN_SYNCS, step));
  TRY(meet(s, MS_THREAD_CPU, MS_PHASE_WAIT_SYNC2));
  t0 = ms_now();
  if (p == MS_PIPELINE_REORDERED) {
    TRY(ms_cpu_large_large(&s->p, &s->wk));
    t0 = ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_LARGE_LARGE, t0);
  }
  TRY(ms_cpu_integrate(&s->p, &s->wk, step));
  ms_trace_phase(t, MS_THREAD_CPU, MS_PHASE_LARGE_INTEGRATE, t0);
  if (s->run.large_give) /* a domain's: its own large particles to the others */
    TRY(s->run.large_give(s->run.large_ctx, s, step));
  return fault(s, MS_THREAD_CPU, MS_FAULT_AFTER_SYNC2, step);
}

static void *gpu_manager_main(void *arg)
{
  thread_job *job = arg;
  ms_sim *s = job->s;
  ms_error_thread_clear();
  /* A requested stop is taken only here, between iterations: the worker, waiting at
   * sync 1, has finished the previous iteration too, so both stop at the same step. */
  for (job->done = 0; job->done < job->iterations && !job->status; job->done++) {
    if (atomic_load(&s->run.stop_requested)) {
      s->run.halted = 1;
      break;
    }
    job->status = gpu_iteration(s, s->p.pipeline, s->run.step + job->done,
                                job->done + 1 < job->iterations);
  }
  /* Naive: check the final state now (see the top of this file). */
  if (!job->status && job->done > 0 && !s->dev.grid_current && !s->run.end_unchecked) {
    mark(s->run.step + job->done);
    job->status = ms_gpu_build_grid(&s->ctx, &s->dev, s->run.step + job->done);
  }
  ms_status fin = ms_gpu_finish(&s->ctx, &s->dev);
  if (!job->status)
    job->status = fin;
  if (job->status || s->run.halted)
    ms_sync_abort(&s->run.sync);
  keep_message(job);
  return NULL;
}

static void *cpu_worker_main(void *arg)
{
  thread_job *job = arg;
  ms_sim *s = job->s;
  ms_error_thread_clear();
  for (job->done = 0; job->done < job->iterations && !job->status; job->done++)
    job->status = cpu_iteration(s, s->p.pipeline, s->run.step + job->done);
  /* The abort that released us may be the manager's clean stop (see above); the
   * sync's lock makes its `halted` visible here. */
  if (job->status == MS_ERR_ABORTED && s->run.halted)
    job->status = MS_OK;
  if (job->status)
    ms_sync_abort(&s->run.sync);
  if (s->run.large_leave && (job->status || s->run.halted)) /* (short of the advance's end) */
    s->run.large_leave(s->run.large_ctx);
  keep_message(job);
  return NULL;
}

/* Whether the device-only path sums the walls' reactions this iteration: every iteration
 * when a force-driven wall moves with them or --diagnostics adds up their energy, else at
 * an advance's last, whose sums ms_sim_wall reports. */
static int walls_summed(const ms_sim *s, int more)
{
  if (!more || s->p.diag) /* --diagnostics: their energy adds up every iteration */
    return 1;
  for (int k = 0; k < s->p.n_walls; k++)
    if (s->p.walls[k].force_driven)
      return 1;
  return 0;
}

/* One iteration of the device-only baseline (see the top of this file). The test-only
 * faults fire at the manager's points of the two-thread iteration. */
static ms_status device_iteration(ms_sim *s, long step, int more)
{
  mark(step);
  if (!s->dev.grid_current)
    TRY(ms_gpu_build_grid(&s->ctx, &s->dev, step));
  TRY(fault(s, MS_THREAD_GPU, MS_FAULT_BEFORE_SYNC1, step));
  TRY(ms_gpu_collide(&s->ctx, &s->dev));
  if (s->p.n_walls > 0) /* where the walls are this iteration, as the worker places them */
    TRY(ms_walls_place(&s->p, &s->wk, step));
  TRY(ms_dl_forces(&s->ctx, &s->dev, &s->dl, &s->wk, walls_summed(s, more)));
  TRY(fault(s, MS_THREAD_GPU, MS_FAULT_BETWEEN_SYNCS, step));
  if (ms_forces_due(s, more))
    TRY(ms_forces_keep(s, step));
  TRY(ms_gpu_integrate(&s->ctx, &s->dev));
  TRY(ms_dl_integrate(&s->ctx, &s->dev, &s->dl));
  /* The grid's blocking read completes the large particles' flags too. */
  mark(step + 1);
  TRY(ms_dl_check(&s->ctx, &s->dev, &s->dl, &s->wk, step,
                  ms_gpu_build_grid(&s->ctx, &s->dev, step + 1)));
  return fault(s, MS_THREAD_GPU, MS_FAULT_AFTER_SYNC2, step);
}

/* The manager alone, on this thread: no worker, no syncs. */
static ms_status run_device(ms_sim *s, long iterations)
{
  s->run.halted = 0;
  ms_trace_begin_advance(&s->run.trace);
  calibrate(s);
  double t0 = ms_now();
  ms_status st = ms_dl_begin(&s->ctx, &s->dev, &s->dl, &s->wk);
  long done = 0;
  for (; !st && done < iterations; done++) {
    if (atomic_load(&s->run.stop_requested)) {
      s->run.halted = 1;
      break;
    }
    st = device_iteration(s, s->run.step + done, done + 1 < iterations);
  }
  ms_status fin = ms_gpu_finish(&s->ctx, &s->dev);
  ms_status end =
      ms_dl_end(&s->ctx, &s->dl, &s->wk); /* the host's large particles are current again */
  s->run.trace.wall_s += ms_now() - t0;
  calibrate(s);
  if (!st)
    st = fin ? fin : end;
  if (!st) {
    s->run.step += done;
    s->run.trace.iterations += done;
    s->run.stats.iterations += done;
  }
  return st;
}

ms_status ms_pipeline_run(ms_sim *s, long iterations)
{
  s->wk.slot_key = s->dev.key_host; /* (the list's order: the grid's) */
  if (s->p.large_on == MS_LARGE_ON_DEVICE)
    return run_device(s, iterations);

  thread_job gpu = {.s = s, .iterations = iterations}, cpu = {.s = s, .iterations = iterations};
  pthread_t gpu_thread, cpu_thread;
  /* Nothing of an earlier advance may linger in the rendezvous: an aborted one leaves
   * it aborted, and without this a replay would start from its leftovers. */
  ms_sync_reset(&s->run.sync);
  s->run.halted = 0;
  ms_trace_begin_advance(&s->run.trace);
  /* The phase names (map or read copies) follow the buffer mode, which changes only
   * between advances: set here, before the threads that read it start. */
  s->run.trace.copied = s->x.buf.mode == MS_BUFFERS_COPIED;
  calibrate(s);
  double t0 = ms_now();
  if (pthread_create(&gpu_thread, NULL, gpu_manager_main, &gpu))
    return ms_fail(MS_ERR_RUNTIME, "cannot start the GPU manager thread");
  if (pthread_create(&cpu_thread, NULL, cpu_worker_main, &cpu)) {
    ms_sync_abort(&s->run.sync);
    pthread_join(gpu_thread, NULL);
    return ms_fail(MS_ERR_RUNTIME, "cannot start the CPU worker thread");
  }
  pthread_join(gpu_thread, NULL);
  pthread_join(cpu_thread, NULL);
  ms_buffers_host_cancel(&s->x.buf, &s->cl); /* requested for an iteration that never ran */
  s->run.trace.wall_s += ms_now() - t0;
  calibrate(s);
  /* The thread that failed first holds the real reason; the other only saw the abort.
   * Both can find the same state bad (the worker checks the large particles after
   * integrating them while the manager builds the grid of the small ones): then the
   * worker's reason is the one reported, whichever thread got there first, so the
   * message is the same on every run. */
  if (gpu.status == MS_ERR_NUMERIC && cpu.status == MS_ERR_NUMERIC)
    ms_error_replace(cpu.message);
  ms_status st = gpu.status && gpu.status != MS_ERR_ABORTED ? gpu.status : cpu.status;
  if (!st)
    st = gpu.status;
  if (!st) {
    long done = s->run.halted ? gpu.done : iterations;
    s->run.step += done;
    s->run.trace.iterations += done;
    s->run.stats.iterations += done;
  }
  return st;
}
