/* The window session's account by pipeline and buffer mode (io/session.h). */
#include "io/session.h"

#include <string.h>

#include "collision/sim_internal.h"

static void totals(const ms_sim *s, ms_mode_account *a)
{
  memset(a, 0, sizeof *a);
  a->iterations = s->run.trace.iterations;
  a->wall_s = s->run.trace.wall_s;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    for (int p = 0; p < MS_PHASE_COUNT; p++)
      if (p != MS_PHASE_WAIT_SYNC1 && p != MS_PHASE_WAIT_SYNC2)
        a->busy_s[th] += s->run.trace.thread[th].total_s[p];
}

void ms_session_begin(ms_session *ss, const ms_sim *sim) { totals(sim, &ss->mark); }

void ms_session_end(ms_session *ss, const ms_sim *sim)
{
  ms_mode_account now;
  totals(sim, &now);
  int p = sim->p.pipeline == MS_PIPELINE_NAIVE ? 0 : 1;
  int b = sim->x.buf.mode == MS_BUFFERS_SHARED ? 0 : 1;
  ms_mode_account *a = &ss->mode[p][b];
  long done = now.iterations - ss->mark.iterations;
  if (done <= 0)
    return;
  if (a->iterations == 0)
    ss->used[ss->n_used++] = 2 * p + b;
  a->iterations += done;
  a->wall_s += now.wall_s - ss->mark.wall_s;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    a->busy_s[th] += now.busy_s[th] - ss->mark.busy_s[th];
}

void ms_session_leave(ms_session *ss, const ms_sim *old)
{
  const ms_trace *t = &old->run.trace;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    ss->carried.thread[th] = t->thread[th];
  memcpy(ss->carried.kernel_s, t->kernel_s, sizeof ss->carried.kernel_s);
  memcpy(ss->carried.kernel_count, t->kernel_count, sizeof ss->carried.kernel_count);
  ss->carried.iterations = t->iterations;
  ss->carried.wall_s = t->wall_s;
  ss->carried.stats = old->run.stats;
  ss->resets++;
}

void ms_session_enter(const ms_session *ss, ms_sim *s)
{
  ms_trace *t = &s->run.trace;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    for (int p = 0; p < MS_PHASE_COUNT; p++) {
      t->thread[th].total_s[p] += ss->carried.thread[th].total_s[p];
      t->thread[th].count[p] += ss->carried.thread[th].count[p];
    }
  for (int k = 0; k < MS_KERNEL_COUNT; k++) {
    t->kernel_s[k] += ss->carried.kernel_s[k];
    t->kernel_count[k] += ss->carried.kernel_count[k];
  }
  t->iterations += ss->carried.iterations;
  t->advance_first_iteration = t->iterations;
  t->wall_s += ss->carried.wall_s;
  /* The counters, not the state: capacity and grid size are the new simulation's. */
  const ms_sim_stats *o = &ss->carried.stats;
  ms_sim_stats *n = &s->run.stats;
  n->iterations += o->iterations;
  n->grid_builds += o->grid_builds;
  n->overflow_builds += o->overflow_builds;
  n->capacity_growths += o->capacity_growths;
  n->outside_events += o->outside_events;
  n->max_cell_count = o->max_cell_count > n->max_cell_count ? o->max_cell_count
                                                            : n->max_cell_count;
}

static double per_it_ms(double s, long it) { return it > 0 ? 1e3 * s / (double)it : 0.0; }

void ms_session_report(FILE *out, const ms_session *ss)
{
  static const ms_pipeline pipe[2] = {MS_PIPELINE_NAIVE, MS_PIPELINE_REORDERED};
  static const ms_buffer_mode buf[2] = {MS_BUFFERS_SHARED, MS_BUFFERS_COPIED};
  ms_mode_account all = {0};
  fprintf(out, "session   the whole window session by pipeline and buffers (%d reset%s)\n",
          ss->resets, ss->resets == 1 ? "" : "s");
  fprintf(out, "  %-10s %-8s %10s %13s %13s %13s %13s\n", "pipeline", "buffers", "iterations",
          "iterations/s", "ms/iteration", "GPU mgr busy", "CPU busy");
  for (int i = 0; i < ss->n_used; i++) {
    int p = ss->used[i] / 2, b = ss->used[i] % 2;
    const ms_mode_account *a = &ss->mode[p][b];
    fprintf(out, "  %-10s %-8s %10ld %13.1f %13.4f %13.4f %13.4f\n", ms_pipeline_name(pipe[p]),
            ms_buffer_mode_name(buf[b]), a->iterations,
            a->wall_s > 0 ? (double)a->iterations / a->wall_s : 0.0,
            per_it_ms(a->wall_s, a->iterations), per_it_ms(a->busy_s[MS_THREAD_GPU], a->iterations),
            per_it_ms(a->busy_s[MS_THREAD_CPU], a->iterations));
    all.iterations += a->iterations;
    all.wall_s += a->wall_s;
    for (int th = 0; th < MS_THREAD_COUNT; th++)
      all.busy_s[th] += a->busy_s[th];
  }
  fprintf(out, "  %-19s %10ld %13.1f %13.4f %13.4f %13.4f\n", "all", all.iterations,
          all.wall_s > 0 ? (double)all.iterations / all.wall_s : 0.0,
          per_it_ms(all.wall_s, all.iterations), per_it_ms(all.busy_s[MS_THREAD_GPU], all.iterations),
          per_it_ms(all.busy_s[MS_THREAD_CPU], all.iterations));
  fprintf(out, "  (the report below covers the whole session too; the pipeline and buffers it "
               "names are those at the end)\n");
}
