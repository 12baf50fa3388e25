/* The --trace recorder (cl/trace_events.h): a mutex-guarded array of spans, grown on
 * demand, and the device clock's calibration per queue. */
#include "cl/trace_events.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

_Atomic int ms_tev_on;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ms_tev *g_ev;
static int g_n, g_cap;
static long g_dropped, g_clamped;
static long g_first, g_last;
static double g_origin;
static char *g_track[MS_TEV_TRACKS];
static ms_tev_calib g_calib[MS_TEV_TRACKS];
static int g_tracks;

static _Thread_local long tl_iter = -1;
static _Thread_local double tl_iter_t0;

void ms_tev_start(long first, long last)
{
  g_first = first;
  g_last = last;
  g_origin = ms_now();
  ms_tev_on = 1;
}

long ms_tev_current(void) { return tl_iter; }

void ms_tev_iteration(long n)
{
  tl_iter = n;
  tl_iter_t0 = ms_now();
}

/* The track named `name`, made on first use; -1 when all are taken. Under g_lock. */
static int track_of(const char *name)
{
  for (int i = 0; i < g_tracks; i++)
    if (strcmp(g_track[i], name) == 0)
      return i;
  if (g_tracks == MS_TEV_TRACKS || !(g_track[g_tracks] = strdup(name)))
    return -1; /* (a copy: a device's name may go before the trace is written) */
  return g_tracks++;
}

/* Appends `e` (its track given by name); counts what does not fit. */
static void add(const char *track, ms_tev e)
{
  pthread_mutex_lock(&g_lock);
  if (!ms_tev_on) { /* stopped since the caller looked: the events are being written */
    pthread_mutex_unlock(&g_lock);
    if (e.ev)
      clReleaseEvent(e.ev);
    return;
  }
  e.track = track_of(track);
  if (e.track < 0 || g_n == MS_TEV_MAX) {
    g_dropped++;
  } else {
    if (g_n == g_cap) {
      int cap = g_cap ? 2 * g_cap : 4096;
      ms_tev *grown = realloc(g_ev, (size_t)cap * sizeof *grown);
      if (grown) {
        g_ev = grown;
        g_cap = cap;
      }
    }
    if (g_n < g_cap) {
      g_ev[g_n++] = e;
      e.ev = 0; /* kept */
    } else {
      g_dropped++;
    }
  }
  pthread_mutex_unlock(&g_lock);
  if (e.ev)
    clReleaseEvent(e.ev);
}

static int in_window(long it) { return it >= g_first && it < g_last; }

void ms_tev_span(const char *track, const char *name, double t0, double t1)
{
  if (!ms_tev_on || !in_window(tl_iter))
    return;
  add(track, (ms_tev){.t0 = t0, .t1 = t1, .name = name, .iteration = tl_iter});
}

void ms_tev_span_free(const char *track, const char *name, double t0, double t1)
{
  if (!ms_tev_on)
    return;
  add(track, (ms_tev){.t0 = t0, .t1 = t1, .name = name, .iteration = -1});
}

void ms_tev_device(const char *track, const char *name, cl_event ev)
{
  if (!ms_tev_on || !ev || !in_window(tl_iter))
    return;
  clRetainEvent(ev);
  add(track, (ms_tev){.name = name, .iteration = tl_iter, .device = 1, .ev = ev,
                      .lo = tl_iter_t0});
}

/* One bracket: a marker between two host clock reads. Returns 0 when it has no times. */
static int bracket(cl_command_queue q, double *offset, double *half)
{
  cl_event ev = 0;
  clFinish(q);
  double h0 = ms_now();
  if (clEnqueueMarkerWithWaitList(q, 0, NULL, &ev) != CL_SUCCESS)
    return 0;
  clFinish(q);
  double h1 = ms_now();
  cl_ulong d0 = 0, d1 = 0;
  int ok = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof d0, &d0, NULL) ==
               CL_SUCCESS &&
           clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof d1, &d1, NULL) ==
               CL_SUCCESS &&
           d0 > 0;
  clReleaseEvent(ev);
  if (!ok)
    return 0;
  *offset = 0.5 * (h0 + h1) - 0.5e-9 * ((double)d0 + (double)d1);
  *half = 0.5 * (h1 - h0);
  return 1;
}

void ms_tev_calibrate(const char *track, cl_command_queue q)
{
  if (!ms_tev_on)
    return;
  pthread_mutex_lock(&g_lock);
  int t = track_of(track);
  pthread_mutex_unlock(&g_lock);
  if (t < 0)
    return;
  ms_tev_calib *c = &g_calib[t];
  for (int i = 0; i < 5; i++) {
    double off, half;
    if (!bracket(q, &off, &half))
      continue;
    if (!c->tries) {
      c->min_s = c->max_s = off;
    } else {
      c->min_s = off < c->min_s ? off : c->min_s;
      c->max_s = off > c->max_s ? off : c->max_s;
    }
    if (c->tries < MS_TEV_TRIES) {
      c->try_offset[c->tries] = off;
      c->try_half[c->tries] = half;
    }
    c->tries++;
    if (!c->done || half < c->uncertainty_s) {
      c->offset_s = off;
      c->uncertainty_s = half;
      c->done = 1;
    }
    c->spread_s = c->max_s - c->min_s;
  }
}

/* A try whose bracket does not overlap the tightest's saw the device clock somewhere
 * else: how far, at worst. */
static void residual(ms_tev_calib *c)
{
  int n = c->tries < MS_TEV_TRIES ? c->tries : MS_TEV_TRIES;
  c->residual_s = 0.0;
  for (int i = 0; i < n; i++) {
    double d = c->try_offset[i] - c->offset_s;
    double miss = (d < 0 ? -d : d) - c->try_half[i] - c->uncertainty_s;
    if (miss > c->residual_s)
      c->residual_s = miss;
  }
}

void ms_tev_stop(void)
{
  if (!ms_tev_on)
    return;
  ms_tev_on = 0;
  pthread_mutex_lock(&g_lock); /* a span being added as recording stopped */
  pthread_mutex_unlock(&g_lock);
  for (int t = 0; t < g_tracks; t++)
    residual(&g_calib[t]);
  for (int i = 0; i < g_n; i++) {
    ms_tev *e = &g_ev[i];
    if (!e->device || !e->ev)
      continue;
    cl_ulong d0 = 0, d1 = 0;
    clWaitForEvents(1, &e->ev);
    clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_START, sizeof d0, &d0, NULL);
    clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_END, sizeof d1, &d1, NULL);
    clReleaseEvent(e->ev);
    e->ev = 0;
    const ms_tev_calib *c = &g_calib[e->track];
    e->t0 = (double)d0 * 1e-9 + c->offset_s;
    e->t1 = (double)d1 * 1e-9 + c->offset_s;
    if (!c->done || d1 < d0) { /* no usable clock: drop it, counted */
      e->name = NULL;
      g_dropped++;
      continue;
    }
    /* Started before its iteration did on the host: the clock's error. Its start is
     * clamped to the iteration's (the end kept, so it cannot reach into the next
     * command), and counted. */
    if (e->t0 < e->lo - c->uncertainty_s) {
      e->t0 = e->lo;
      e->t1 = e->t1 > e->t0 ? e->t1 : e->t0;
      g_clamped++;
    }
  }
}

void ms_tev_release(void)
{
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < g_n; i++)
    if (g_ev[i].ev)
      clReleaseEvent(g_ev[i].ev);
  free(g_ev);
  g_ev = NULL;
  g_n = g_cap = 0;
  for (int t = 0; t < g_tracks; t++)
    free(g_track[t]);
  g_tracks = 0;
  memset(g_calib, 0, sizeof g_calib);
  pthread_mutex_unlock(&g_lock);
}

int ms_tev_count(void) { return g_n; }
const ms_tev *ms_tev_events(void) { return g_ev; }
int ms_tev_track_count(void) { return g_tracks; }
const char *ms_tev_track_name(int track) { return g_track[track]; }
const ms_tev_calib *ms_tev_track_calib(int track) { return &g_calib[track]; }
long ms_tev_dropped(void) { return g_dropped; }
long ms_tev_clamped(void) { return g_clamped; }
void ms_tev_window(long *first, long *last)
{
  *first = g_first;
  *last = g_last;
}
double ms_tev_origin(void) { return g_origin; }
