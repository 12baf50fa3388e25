/* A window session's account: iterations and time per (pipeline, buffers) combination
 * across live switches (B, P) and resets (R), for the breakdown the window prints when
 * it closes. A reset replaces the simulation; what the old one counted (phase times,
 * kernel times, iterations, grid counters) is carried into the new one, so the usual
 * report of the final simulation (io/report.h) covers the whole session too. */
#ifndef MS_SESSION_H
#define MS_SESSION_H

#include <stdio.h>

#include "collision/base/trace.h"
#include "mixsim/sim.h"

typedef struct ms_mode_account {
  long iterations;
  double wall_s;                  /* both threads running */
  double busy_s[MS_THREAD_COUNT]; /* each thread's phases, the sync waits left out */
} ms_mode_account;

typedef struct ms_session {
  ms_mode_account mode[2][2]; /* [pipeline][buffers] */
  int used[4], n_used;        /* pipeline * 2 + buffers, in the order first run */
  int resets;
  ms_mode_account mark; /* the simulation's totals when the current advance began */
  /* What the simulations replaced by resets had counted. */
  struct {
    ms_thread_trace thread[MS_THREAD_COUNT];
    double kernel_s[MS_KERNEL_COUNT];
    long kernel_count[MS_KERNEL_COUNT];
    long iterations;
    double wall_s;
    ms_sim_stats stats;
  } carried;
} ms_session;

/* Around each advance: `begin` notes the totals, `end` books the difference to the
 * combination the simulation ran in (switches happen only between advances). */
void ms_session_begin(ms_session *ss, const ms_sim *sim);
void ms_session_end(ms_session *ss, const ms_sim *sim);

/* Around a reset: `leave` keeps what the old simulation counted (call it before the
 * simulation is destroyed), `enter` adds it to its replacement. */
void ms_session_leave(ms_session *ss, const ms_sim *old);
void ms_session_enter(const ms_session *ss, ms_sim *replacement);

/* The breakdown by combination, in the order first run, and the total. */
void ms_session_report(FILE *out, const ms_session *ss);

#endif
