/* Per-phase breakdown, stats JSON and CSV dump; the scene's walls' last reactions. */
#include "io/report.h"

#include <stdlib.h>
#include <string.h>

#include "collision/worker/ls_list.h"
#include "collision/sim_internal.h"
#include "collision/worker/worker_pool.h"
#include "io/dump_state_out.h"
#include "io/output_file.h"

static const ms_phase gpu_phases[] = {MS_PHASE_WAIT_DEVICE, MS_PHASE_GRID,
                                      MS_PHASE_WAIT_SYNC1, MS_PHASE_COLLIDE,
                                      MS_PHASE_WAIT_SYNC2, MS_PHASE_INTEGRATE};
static const ms_phase cpu_phases[] = {MS_PHASE_WAIT_SYNC1, MS_PHASE_HOST_IN,
                                      MS_PHASE_LARGE_SMALL, MS_PHASE_HOST_OUT,
                                      MS_PHASE_LARGE_LARGE, MS_PHASE_WAIT_SYNC2,
                                      MS_PHASE_LARGE_INTEGRATE};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *phase_key(ms_phase p)
{
  static const char *const keys[MS_PHASE_COUNT] = {
    "grid_build", "small_small", "integrate_small", "host_in", "large_small", "host_out",
    "large_large", "integrate_large", "wait_sync1", "wait_sync2", "wait_device"};
  return keys[p];
}

static double per_iter_ms(double total_s, long iterations)
{
  return iterations > 0 ? 1e3 * total_s / (double)iterations : 0.0;
}

/* Share of the run a thread spent waiting at the two sync points: what the reordered
 * pipeline exists to reduce. */
static double idle_fraction(const ms_sim *s, ms_thread_id th)
{
  const ms_thread_trace *t = &s->run.trace.thread[th];
  double idle = t->total_s[MS_PHASE_WAIT_SYNC1] + t->total_s[MS_PHASE_WAIT_SYNC2];
  return s->run.trace.wall_s > 0 ? idle / s->run.trace.wall_s : 0.0;
}

static void print_thread(FILE *out, const ms_sim *s, ms_thread_id th, const char *title,
                         const ms_phase *phases, int n)
{
  const ms_thread_trace *t = &s->run.trace.thread[th];
  long it = s->run.trace.iterations;
  int copied = s->x.buf.mode == MS_BUFFERS_COPIED;
  double sum = 0.0;
  fprintf(out, "  %s\n", title);
  for (int i = 0; i < n; i++) {
    double tot = t->total_s[phases[i]];
    sum += tot;
    fprintf(out, "    %-18s %9.4f ms/it  %6.1f%%\n", ms_phase_name(phases[i], copied),
            per_iter_ms(tot, it), s->run.trace.wall_s > 0 ? 100.0 * tot / s->run.trace.wall_s : 0.0);
  }
  fprintf(out, "    %-18s %9.4f ms/it\n", "(sum)", per_iter_ms(sum, it));
  fprintf(out, "    %-18s %9.1f %% of the run waiting at sync 1 and sync 2\n", "idle",
          100.0 * idle_fraction(s, th));
}

/* The kernels that ran (launched at least once in the run), their times lined up after the
 * longest name shown, and no narrower than the phase tables above. */
static void print_kernels(FILE *out, const ms_trace *t, long it)
{
  int width = 18, ran = 0;
  for (int k = 0; k < MS_KERNEL_COUNT; k++)
    if (t->kernel_count[k] > 0) {
      int n = (int)strlen(ms_kernel_name(k));
      width = n > width ? n : width;
      ran++;
    }
  if (!t->profiled) { /* what the grid's wait was is then booked as 'grid build' too */
    fputs("  kernels: not timed (--profile on times them, at a cost per command on a GPU)\n",
          out);
    return;
  }
  fprintf(out, "  kernels (OpenCL profiling)%s\n", ran ? "" : ": none ran");
  for (int k = 0; k < MS_KERNEL_COUNT; k++)
    if (t->kernel_count[k] > 0)
      fprintf(out, "    %-*s %9.4f ms/it\n", width, ms_kernel_name(k),
              per_iter_ms(t->kernel_s[k], it));
}

/* What the worker moved: the zone's size and growth, and bytes per iteration. */
static void print_exchange(FILE *out, const ms_sim_stats *st, long it)
{
  fprintf(out, "exchange  %.0f bytes/iteration mapped or read and written back",
          it > 0 ? st->exchange_bytes / (double)it : 0.0);
  if (st->zone_iterations > 0)
    fprintf(out, "; zone %.1f cells, %.1f small particles/iteration (most %ld, %ld), "
                 "room %ld rows, %ld particles, %ld growths",
            (double)st->zone_cells_total / (double)st->zone_iterations,
            (double)st->zone_particles_total / (double)st->zone_iterations, st->zone_cells_max,
            st->zone_particles_max, st->zone_rows, st->zone_room, st->zone_growths);
  fputc('\n', out);
}

/* The names of the axes given as auto, or of candidate c's values on them (c < 0: the
 * simulation's values now), joined by '/'. */
static void print_auto_axes(FILE *out, const ms_tuner *t, const ms_sim *s, int c, int names)
{
  const char *sep = "";
  for (int a = 0; a < t->n_axes; a++) {
    if (!t->is_auto[a])
      continue;
    const ms_tune_axis *x = &t->axes[a];
    fprintf(out, "%s%s", sep, names ? x->name : c >= 0 ? ms_tuner_value_name(t, c, a)
                                                      : x->value_name(x->get(s)));
    sep = "/";
  }
}

/* What was auto and the timings behind the choice (median and range over the rounds,
 * ms per iteration), or why there was no choice and what the run used instead. */
static void print_auto(FILE *out, const ms_sim *s, const ms_tuner *t)
{
  fputs("auto      ", out);
  print_auto_axes(out, t, s, 0, 1);
  if (t->outcome == MS_TUNE_CHOSEN) {
    for (int c = 0; c < t->n_cand; c++) {
      const ms_tune_candidate *k = &t->cand[c];
      fputs(c ? ", " : " ", out);
      print_auto_axes(out, t, s, c, 0);
      if (k->dropped < 0) { /* its warm-up's figure, as far as it ran */
        fprintf(out, " %.3g%s (cut in its warm-up)", k->warm_ms, c ? "" : " ms/it");
        continue;
      }
      fprintf(out, " %.3g%s (%.3g-%.3g", k->median, c ? "" : " ms/it", k->min, k->max);
      if (k->dropped)
        fprintf(out, ", dropped after round %d", k->dropped);
      fputc(')', out);
    }
    fputs(" -> ", out);
    print_auto_axes(out, t, s, t->chosen, 0);
    fprintf(out, " (medians of %d rounds of %ld iterations after a warm-up batch each; "
                 "%ld iterations in all)\n",
            t->rounds, t->batch, t->spent);
    return;
  }
  if (t->outcome == MS_TUNE_TOO_SHORT)
    fprintf(out, " not tuned: the run's %ld iterations are fewer than the %ld it takes to time "
                 "%d candidates in a tenth of it (a warm-up and %d rounds of %d iterations "
                 "each); kept ", t->total, t->shortest, t->n_cand, t->rounds, MS_TUNE_BATCH_MIN);
  else
    fprintf(out, " not tuned: the run ended after %d of the schedule's %d batches, before a "
                 "choice; it ran ", t->slot, t->n_cand * (t->rounds + 1));
  print_auto_axes(out, t, s, -1, 0);
  fputs(t->outcome == MS_TUNE_TOO_SHORT ? "\n" : " last\n", out);
}

/* The name of [wall.NAME], and whether an iteration of this run left its reaction (the
 * worker's sums are the last iteration's). */
static const char *wall_name(const ms_sim *s, int k)
{
  const char *n = s->p.walls[k].section;
  return strncmp(n, "wall.", 5) == 0 ? n + 5 : n;
}

static int walls_known(const ms_sim *s) { return s->run.trace.iterations > 0; }

/* A line per [wall.NAME]: what the last iteration's contacts gave it (torque about its
 * reference point: the rotation centre when it turns, else its first point or centre),
 * and with --diagnostics the work it did on the particles since the start. */
static void print_walls(FILE *out, const ms_sim *s)
{
  for (int k = 0; k < s->p.n_walls; k++) {
    const ms_wall_now *w = &s->wk.wall[k];
    fprintf(out, "wall      %s: ", wall_name(s, k));
    if (!walls_known(s)) {
      fputs("no iteration ran, no contacts yet\n", out);
      continue;
    }
    fprintf(out, "%d contact%s, force (%.9g, %.9g) N/m, torque %.9g N m/m", w->contacts,
            w->contacts == 1 ? "" : "s", w->fx, w->fy, w->torque);
    if (s->p.diag)
      fprintf(out, "; work done %.9g J/m", w->work);
    fputc('\n', out);
  }
}

/* A line per flow of an open system: what it placed (and skipped) or removed so far. */
static void print_flows(FILE *out, const ms_sim *s)
{
  for (int k = 0; k < ms_sim_flow_count(s); k++) {
    ms_flow_info f;
    ms_sim_flow(s, k, &f);
    fprintf(out, "flow      %s: %s %ld particle%s, %.9g kg/m", f.name,
            f.kind == MS_FLOW_INFLOW ? "placed" : "removed", f.total.count,
            f.total.count == 1 ? "" : "s", f.total.mass);
    if (f.kind == MS_FLOW_INFLOW)
      fprintf(out, "; %ld skipped (no room)", f.total.skipped);
    fputc('\n', out);
  }
}

/* --stats: each flow's totals, by its name. */
static void json_flows(FILE *f, const ms_sim *s)
{
  fputs(",\n  \"flows\": {", f);
  for (int k = 0; k < ms_sim_flow_count(s); k++) {
    ms_flow_info fl;
    ms_sim_flow(s, k, &fl);
    fputs(k ? ",\n    " : "\n    ", f);
    ms_json_string(f, fl.name);
    fprintf(f, ": {\"count\": %ld, \"mass\": %.17g", fl.total.count, fl.total.mass);
    if (fl.kind == MS_FLOW_INFLOW)
      fprintf(f, ", \"skipped\": %ld", fl.total.skipped);
    fputc('}', f);
  }
  fputs("\n  }", f);
}

void ms_report_breakdown(FILE *out, const ms_sim *s, const ms_run_info *info)
{
  const ms_trace *t = &s->run.trace;
  const ms_sim_stats *st = &s->run.stats;
  long it = t->iterations;
  fprintf(out, "device    %s [%s]\n", s->cl.device_name, s->cl.platform_name);
  fprintf(out, "run       %ld iterations, %d small + %d large, large on %s, pipeline %s, "
               "buffers %s, exchange %s, %d CPU worker thread%s\n", it, ms_sim_small_count(s), s->p.n_large,
          ms_large_on_name(s->p.large_on), ms_pipeline_name(s->p.pipeline), ms_buffer_mode_name(s->x.buf.mode),
          ms_exchange_name(s->p.exchange), s->wk.cpu_threads, s->wk.cpu_threads == 1 ? "" : "s");
  print_flows(out, s);
  if (info->tuner)
    print_auto(out, s, info->tuner);
  fprintf(out, "speed     %.1f iterations/s, %.4f ms/iteration\n",
          t->wall_s > 0 ? (double)it / t->wall_s : 0.0, per_iter_ms(t->wall_s, it));
  fputs(info->domains, out);
  fprintf(out, "time per phase (wall clock, %% of run time)\n");
  print_thread(out, s, MS_THREAD_GPU, "GPU manager thread", gpu_phases, COUNT(gpu_phases));
  print_thread(out, s, MS_THREAD_CPU, "CPU worker thread", cpu_phases, COUNT(cpu_phases));
  fprintf(out, "  CPU worker's threads, busy in large-small, large-large and integrate large\n   ");
  for (int i = 0; i < s->wk.cpu_threads; i++)
    fprintf(out, " %s%.4f", i ? "/ " : "", per_iter_ms(ms_pool_busy_s(s->wk.pool, i), it));
  fprintf(out, " ms/it\n");
  if (s->p.n_walls > 0 && s->p.large_on == MS_LARGE_ON_CPU) { /* the walls' share of it */
    double walls = 0.0, busy = 0.0;
    for (int i = 0; i < s->wk.cpu_threads; i++) {
      walls += s->wk.chunk[i].wall_s;
      busy += ms_pool_busy_s(s->wk.pool, i);
    }
    fprintf(out, "    of which the walls' items (large-small): %.4f ms/it, %.1f%% of the threads' "
                 "busy time\n", per_iter_ms(walls, it), busy > 0.0 ? 100.0 * walls / busy : 0.0);
  }
  if (info->writer_used) /* --output: the writer thread, and the simulation's waits for it */
    fprintf(out, "  writer thread (--output)\n    %-18s %9.4f ms/it  %ld frames\n    %-18s %9.4f "
                 "ms/it  %ld waits for a free buffer\n", "writing", per_iter_ms(info->writer.busy_s, it),
            info->writer.jobs, "simulation waited", per_iter_ms(info->writer.wait_s, it),
            info->writer.waits);
  print_kernels(out, t, it);
  fprintf(out, "grid      %dx%d cells, capacity %d, largest overflow %d, %ld builds, %ld overflowed "
               "(%ld growths), %ld outside-box events\n",
          st->grid_nx, st->grid_ny, st->grid_capacity, st->max_cell_count, st->grid_builds,
          st->overflow_builds, st->capacity_growths, st->outside_events);
  print_exchange(out, st, it);
  if (st->large_list_builds > 0) /* large_on = device at some point of the run */
    fprintf(out, "large list capacity %d, %ld builds, %ld growths (large particles per cell)\n",
            st->large_list_capacity, st->large_list_builds, st->large_list_growths);
  if (st->nlist_capacity > 0) /* friction on: the small particles' neighbour list */
    fprintf(out, "nlist     %d slots per particle, %ld builds, %ld overflowed (%ld growths)\n",
            st->nlist_capacity, st->nlist_builds, st->nlist_overflow_builds, st->nlist_growths);
  if (s->p.n_large > 0 && s->p.n_small > 0) /* the CPU worker's large-small list */
    fprintf(out, "wlist     %s, %ld builds in the %ld iterations that used it, %.1f entries per "
                 "large particle\n",
            st->worker_list ? "on" : "off", st->worker_list_builds, st->worker_list_iterations,
            ms_ls_list_mean(&s->run.stats, s->p.n_large));
  const ms_state_summary *sm = &info->summary;
  fprintf(out, "contacts  %ld small-small, %ld large-small, %ld large-large, %ld at walls; "
               "kinetic energy %.9g J/m\n",
          sm->contacts_small_small, sm->contacts_large_small, sm->contacts_large_large,
          sm->contacts_wall, sm->kinetic_energy);
  print_walls(out, s);
  fprintf(out, "state hash %08x (step %ld)\n", info->hash, s->run.step);
}

typedef struct json_ctx {
  const ms_sim *s;
  const ms_run_info *info;
} json_ctx;

static void json_phases(FILE *f, const ms_sim *s, ms_thread_id th, const ms_phase *phases, int n)
{
  const ms_thread_trace *t = &s->run.trace.thread[th];
  fputs("{", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s\n      \"%s\": {\"total_s\": %.9g, \"ms_per_iteration\": %.9g}",
            i ? "," : "", phase_key(phases[i]), t->total_s[phases[i]],
            per_iter_ms(t->total_s[phases[i]], s->run.trace.iterations));
  fputs("\n    }", f);
}

static double zone_mean(long total, const ms_sim_stats *st)
{
  return st->zone_iterations > 0 ? (double)total / (double)st->zone_iterations : 0.0;
}

/* "walls": each [wall.NAME]'s name and last reaction (null before any iteration; the
 * torque about its reference point, docs/output.md), and the work it did (null without
 * --diagnostics). */
static void json_walls(FILE *f, const ms_sim *s)
{
  fputs(",\n  \"walls\": [", f);
  for (int k = 0; k < s->p.n_walls; k++) {
    const ms_wall_now *w = &s->wk.wall[k];
    fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
    ms_json_string(f, wall_name(s, k));
    if (walls_known(s))
      fprintf(f, ", \"fx\": %.17g, \"fy\": %.17g, \"torque\": %.17g, \"contacts\": %d", w->fx,
              w->fy, w->torque, w->contacts);
    else
      fputs(", \"fx\": null, \"fy\": null, \"torque\": null, \"contacts\": null", f);
    if (s->p.diag)
      fprintf(f, ", \"work\": %.17g}", w->work);
    else
      fputs(", \"work\": null}", f);
  }
  fputs("\n  ]", f);
}

static void json_values(FILE *f, const ms_tuner *t, int c)
{
  for (int a = 0; a < t->n_axes; a++)
    fprintf(f, "%s\"%s\": \"%s\"", a ? ", " : "", t->axes[a].name, ms_tuner_value_name(t, c, a));
}

/* "auto": the axes, the schedule, every candidate with its ms/iteration per timed round
 * and their median (null until every round ran), and the one chosen (null when none
 * was: a run that ended before; one too short keeps the simulation's own values). */
static void json_auto(FILE *f, const ms_tuner *t)
{
  static const char *const outcome[] = {"stopped", "chosen", "too_short"};
  fputs(",\n  \"auto\": {\"axes\": [", f);
  const char *sep = "";
  for (int a = 0; a < t->n_axes; a++)
    if (t->is_auto[a]) {
      fprintf(f, "%s\"%s\"", sep, t->axes[a].name);
      sep = ", ";
    }
  fprintf(f, "], \"outcome\": \"%s\", \"tuned\": %s, \"rounds\": %d, \"batch\": %ld, "
             "\"iterations\": %ld, \"planned_iterations\": %ld, \"run_iterations\": %ld, "
             "\"shortest_run\": %ld,\n    "
             "\"candidates\": [",
          outcome[t->outcome], t->outcome == MS_TUNE_CHOSEN ? "true" : "false", t->rounds,
          t->batch, t->spent, t->needed, t->total, t->shortest);
  for (int c = 0; c < t->n_cand; c++) {
    const ms_tune_candidate *k = &t->cand[c];
    fprintf(f, "%s\n      {", c ? "," : "");
    json_values(f, t, c);
    fputs(", \"ms_per_iteration\": [", f);
    for (int r = 0; r < k->timed; r++)
      fprintf(f, "%s%.9g", r ? ", " : "", k->ms_per_it[r]);
    if (t->outcome == MS_TUNE_CHOSEN && k->timed > 0)
      fprintf(f, "], \"median\": %.9g", k->median);
    else
      fputs("], \"median\": null", f);
    fprintf(f, ", \"warm_up_ms_per_iteration\": %.9g", k->warm_ms);
    if (k->dropped)
      fprintf(f, ", \"dropped_after\": %d}", k->dropped < 0 ? 0 : k->dropped);
    else
      fputs(", \"dropped_after\": null}", f);
  }
  fputs("\n    ],\n    \"chosen\": ", f);
  if (t->chosen >= 0) {
    fputc('{', f);
    json_values(f, t, t->chosen);
    fputs("}}", f);
  } else {
    fputs("null}", f);
  }
}

static int write_json(FILE *f, void *arg)
{
  const json_ctx *c = arg;
  const ms_sim *s = c->s;
  const ms_trace *t = &s->run.trace;
  const ms_sim_stats *st = &s->run.stats;
  long it = t->iterations;
  fputs("{\n  \"scene\": ", f);
  ms_json_string(f, c->info->scene_path);
  fputs(",\n  \"device\": ", f);
  ms_json_string(f, s->cl.device_name);
  fputs(",\n  \"platform\": ", f);
  ms_json_string(f, s->cl.platform_name);
  fputs(",\n  \"driver_version\": ", f);
  ms_json_string(f, s->cl.driver_version);
  fprintf(f, ",\n  \"device_is_gpu\": %s", (s->cl.device_type & CL_DEVICE_TYPE_GPU) ? "true" : "false");
  fprintf(f, ",\n  \"pipeline\": \"%s\",\n  \"buffers\": \"%s\",\n  \"exchange\": \"%s\"",
          ms_pipeline_name(s->p.pipeline), ms_buffer_mode_name(s->x.buf.mode),
          ms_exchange_name(s->p.exchange));
  fprintf(f, ",\n  \"large_on\": \"%s\"", ms_large_on_name(s->p.large_on));
  if (c->info->tuner)
    json_auto(f, c->info->tuner);
  fprintf(f, ",\n  \"cpu_threads\": %d,\n  \"cpu_threads_busy_ms_per_iteration\": [",
          s->wk.cpu_threads);
  for (int i = 0; i < s->wk.cpu_threads; i++)
    fprintf(f, "%s%.9g", i ? ", " : "", per_iter_ms(ms_pool_busy_s(s->wk.pool, i), it));
  fputs("]", f);
  if (s->p.n_walls > 0) { /* the walls' items' share of it, per thread */
    fputs(",\n  \"walls_busy_ms_per_iteration\": [", f);
    for (int i = 0; i < s->wk.cpu_threads; i++)
      fprintf(f, "%s%.9g", i ? ", " : "", per_iter_ms(s->wk.chunk[i].wall_s, it));
    fputs("]", f);
  }
  fprintf(f, ",\n  \"small_particles\": %d,\n  \"large_particles\": %d", ms_sim_small_count(s),
          s->p.n_large);
  if (ms_sim_flow_count(s) > 0)
    json_flows(f, s);
  fprintf(f, ",\n  \"iterations\": %ld,\n  \"step\": %ld", it, s->run.step);
  fprintf(f, ",\n  \"wall_s\": %.9g,\n  \"iterations_per_s\": %.9g,\n  \"ms_per_iteration\": %.9g",
          t->wall_s, t->wall_s > 0 ? (double)it / t->wall_s : 0.0, per_iter_ms(t->wall_s, it));
  fprintf(f, ",\n  \"state_hash\": \"%08x\"", c->info->hash);
  const ms_state_summary *sm = &c->info->summary;
  fprintf(f, ",\n  \"contacts\": {\"small_small\": %ld, \"large_small\": %ld, \"large_large\": %ld, "
             "\"wall\": %ld},\n  \"kinetic_energy\": %.17g",
          sm->contacts_small_small, sm->contacts_large_small, sm->contacts_large_large,
          sm->contacts_wall, sm->kinetic_energy);
  if (s->p.n_walls > 0)
    json_walls(f, s);
  fputs(",\n  \"threads\": {\n    \"gpu_manager\": ", f);
  json_phases(f, s, MS_THREAD_GPU, gpu_phases, COUNT(gpu_phases));
  fputs(",\n    \"cpu_worker\": ", f);
  json_phases(f, s, MS_THREAD_CPU, cpu_phases, COUNT(cpu_phases));
  fprintf(f, "\n  },\n  \"idle_fraction\": {\"gpu_manager\": %.6f, \"cpu_worker\": %.6f}",
          idle_fraction(s, MS_THREAD_GPU), idle_fraction(s, MS_THREAD_CPU));
  const ms_writer_stats *w = &c->info->writer;
  if (c->info->writer_used)
    fprintf(f, ",\n  \"writer\": {\"frames\": %ld, \"busy_s\": %.9g, \"wait_s\": %.9g, "
               "\"waits\": %ld}", w->jobs, w->busy_s, w->wait_s, w->waits);
  fprintf(f, ",\n  \"kernels_profiled\": %s", t->profiled ? "true" : "false");
  fputs(",\n  \"kernels\": {", f);
  for (int k = 0; k < MS_KERNEL_COUNT; k++)
    fprintf(f, "%s\n    \"%s\": {\"total_s\": %.9g, \"ms_per_iteration\": %.9g}", k ? "," : "",
            ms_kernel_name(k), t->kernel_s[k], per_iter_ms(t->kernel_s[k], it));
  fprintf(f, "\n  },\n  \"grid\": {\"nx\": %d, \"ny\": %d, \"capacity\": %d, \"max_overflow_count\": %d, "
             "\"builds\": %ld, \"overflow_builds\": %ld, \"capacity_growths\": %ld, "
             "\"outside_events\": %ld}",
          st->grid_nx, st->grid_ny, st->grid_capacity, st->max_cell_count, st->grid_builds,
          st->overflow_builds, st->capacity_growths, st->outside_events);
  fprintf(f, ",\n  \"large_list\": {\"capacity\": %d, \"builds\": %ld, \"growths\": %ld}",
          st->large_list_capacity, st->large_list_builds, st->large_list_growths);
  fprintf(f, ",\n  \"nlist\": {\"capacity\": %d, \"builds\": %ld, \"overflow_builds\": %ld, "
             "\"growths\": %ld}",
          st->nlist_capacity, st->nlist_builds, st->nlist_overflow_builds, st->nlist_growths);
  fprintf(f, ",\n  \"worker_list\": {\"on\": %s, \"iterations\": %ld, \"builds\": %ld, "
             "\"entries_per_large\": %.9g}",
          st->worker_list ? "true" : "false", st->worker_list_iterations,
          st->worker_list_builds, ms_ls_list_mean(&s->run.stats, s->p.n_large));
  fprintf(f, ",\n  \"exchange_stats\": {\"bytes_per_iteration\": %.9g, \"zone_iterations\": %ld, "
             "\"zone_cells_per_iteration\": %.9g, \"zone_cells_max\": %ld, "
             "\"zone_particles_per_iteration\": %.9g, \"zone_particles_max\": %ld, "
             "\"zone_room_rows\": %ld, \"zone_room_particles\": %ld, \"zone_growths\": %ld}\n}\n",
          it > 0 ? st->exchange_bytes / (double)it : 0.0, st->zone_iterations,
          zone_mean(st->zone_cells_total, st), st->zone_cells_max,
          zone_mean(st->zone_particles_total, st), st->zone_particles_max, st->zone_rows,
          st->zone_room, st->zone_growths);
  return 0;
}

ms_status ms_report_stats_json(const char *path, const ms_sim *s, const ms_run_info *info)
{
  json_ctx c = {s, info};
  return ms_write_atomic(path, write_json, &c);
}

typedef struct csv_ctx {
  const ms_sim *s;
  const ms_state *st;
} csv_ctx;

/* Positions in scene coordinates (origin + frame) and velocities, to 17 significant
 * digits: a dump read back as a scene's particles is the state it was taken from, up to
 * the one rounding of the origin's addition. With friction the particle's angle and spin
 * (theta, omega) follow, as exactly; each row ends with its persistent id. */
static void write_rot_id(FILE *f, const double *rot, int i, int64_t id)
{
  if (rot)
    fprintf(f, ",%.17g,%.17g", rot[2 * i], rot[2 * i + 1]);
  fprintf(f, ",%lld\n", (long long)id);
}

static int write_csv(FILE *f, void *arg)
{
  const csv_ctx *c = arg;
  const ms_state *st = c->st;
  double o[2];
  ms_sim_origin(c->s, o);
  fputs(st->small_rot ? "kind,index,x,y,vx,vy,radius,mass,static,theta,omega,id\n"
                      : "kind,index,x,y,vx,vy,radius,mass,static,id\n", f);
  for (int i = 0; i < st->n_small; i++) { /* (compacted: an open system's empty slots out) */
    fprintf(f, "small,%d,%.17g,%.17g,%.17g,%.17g,%.9g,%.9g,0", i, o[0] + st->small_pos[2 * i],
            o[1] + st->small_pos[2 * i + 1], st->small_vel[2 * i], st->small_vel[2 * i + 1],
            (double)st->small_shape[2 * i], (double)st->small_shape[2 * i + 1]);
    write_rot_id(f, st->small_rot, i, st->small_id[i]);
  }
  for (int i = 0; i < st->n_large; i++) {
    fprintf(f, "large,%d,%.17g,%.17g,%.17g,%.17g,%.9g,%.9g,%d", i, o[0] + st->large_pos[2 * i],
            o[1] + st->large_pos[2 * i + 1], st->large_vel[2 * i], st->large_vel[2 * i + 1],
            (double)st->large_shape[2 * i], (double)st->large_shape[2 * i + 1],
            st->large_static[i]);
    write_rot_id(f, st->large_rot, i, st->large_id[i]);
  }
  return 0;
}

ms_status ms_report_dump_csv(const char *path, ms_sim *s)
{
  ms_state st;
  ms_status rc = ms_sim_read_state(s, &st);
  if (rc)
    return rc;
  ms_state_compact(&st);
  csv_ctx c = {s, &st};
  rc = ms_write_atomic(path, write_csv, &c);
  ms_state_free(&st);
  return rc ? rc : ms_dump_state(path, s); /* beside the dump: what its rows do not hold */
}
