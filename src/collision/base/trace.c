/* Phase timing by wall clock and by OpenCL profiling. */
#include "collision/base/trace.h"

#include "core/clock.h"
#include "mixsim/scene.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void book(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0, double t1)
{
  t->thread[thread].total_s[phase] += t1 - t0;
  t->thread[thread].count[phase]++;
  ms_trace_ring *r = &t->ring[thread];
  r->event[r->written % MS_TRACE_RING] = (ms_trace_event){t0, t1, thread, phase};
  r->written++;
  if (ms_tev_on)
    ms_tev_span(thread == MS_THREAD_GPU ? "GPU manager" : "CPU worker",
                ms_phase_name(phase, t->copied), t0, t1);
}

double ms_trace_phase(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0)
{
  double now = ms_now();
  book(t, thread, phase, t0, now);
  return now;
}

double ms_trace_phase_to(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0, double t1)
{
  book(t, thread, phase, t0, t1);
  return t1;
}

double ms_trace_wait_then(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0,
                          double own_s)
{
  double now = ms_now();
  double split = now - own_s > t0 ? now - own_s : t0;
  book(t, thread, MS_PHASE_WAIT_DEVICE, t0, split);
  book(t, thread, phase, split, now);
  return now;
}

void ms_trace_begin_advance(ms_trace *t)
{
  t->advance_t0 = ms_now();
  t->advance_first_iteration = t->iterations;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    t->ring[th].advance_start = t->ring[th].written;
}

int ms_trace_last_advance(const ms_trace *t, ms_trace_event *out, int max)
{
  int n = 0;
  for (int th = 0; th < MS_THREAD_COUNT; th++) {
    const ms_trace_ring *r = &t->ring[th];
    unsigned long first = r->advance_start;
    if (r->written - first > MS_TRACE_RING) /* the oldest were overwritten */
      first = r->written - MS_TRACE_RING;
    for (unsigned long i = first; i < r->written && n < max; i++)
      out[n++] = r->event[i % MS_TRACE_RING];
  }
  return n;
}

void ms_trace_kernel(ms_trace *t, int kernel, cl_event ev)
{
  if (!ev)
    return;
  t->kernel_s[kernel] += ms_cl_event_seconds(ev);
  t->kernel_count[kernel]++;
  clReleaseEvent(ev);
}

const char *ms_phase_name(ms_phase p, int copied)
{
  switch (p) {
  case MS_PHASE_GRID: return "grid build";
  case MS_PHASE_COLLIDE: return "small-small";
  case MS_PHASE_INTEGRATE: return "integrate small";
  case MS_PHASE_HOST_IN: return copied ? "read copies" : "map";
  case MS_PHASE_LARGE_SMALL: return "large-small";
  case MS_PHASE_HOST_OUT: return copied ? "write F_ls" : "unmap";
  case MS_PHASE_LARGE_LARGE: return "large-large";
  case MS_PHASE_LARGE_INTEGRATE: return "integrate large";
  case MS_PHASE_WAIT_SYNC1: return "wait sync1";
  case MS_PHASE_WAIT_SYNC2: return "wait sync2";
  case MS_PHASE_WAIT_DEVICE: return "wait device";
  default: return "?";
  }
}

void ms_trace_device_on(const char *queue, int kernel, cl_event ev)
{
  ms_tev_device(queue, ms_kernel_name(kernel), ev);
}

/* "pool thread k" for every helper, made once (tracks keep the pointer). */
static char g_pool_track[MS_CPU_THREADS_MAX][24];
static void name_pool_tracks(void)
{
  for (int k = 0; k < MS_CPU_THREADS_MAX; k++)
    snprintf(g_pool_track[k], sizeof g_pool_track[k], "pool thread %d", k);
}

void ms_trace_pool_span(int chunk, long iteration, double t0, double t1)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (chunk < 1 || chunk >= MS_CPU_THREADS_MAX)
    return;
  pthread_once(&once, name_pool_tracks);
  ms_tev_iteration(iteration);
  ms_tev_span(g_pool_track[chunk], "chunk", t0, t1);
}

void ms_trace_walls_span(int chunk, long iteration, double t0, double t1)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (!ms_tev_on || chunk < 0 || chunk >= MS_CPU_THREADS_MAX)
    return;
  pthread_once(&once, name_pool_tracks);
  ms_tev_iteration(iteration);
  ms_tev_span(chunk == 0 ? "CPU worker" : g_pool_track[chunk], "walls", t0, t1);
}

/* Transfer names ("map zone pos"): interned once each, since a trace event keeps its
 * name's pointer until the file is written. Few and fixed (the exchange's buffers). */
#define XFER_NAMES 64
static char g_xfer_name[XFER_NAMES][48];
static int g_xfer_names;
static pthread_mutex_t g_xfer_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *xfer_name(const char *op, const char *what)
{
  char want[48];
  snprintf(want, sizeof want, "%s %s", op, what);
  const char *name = "transfer"; /* past the table (not expected): still recorded */
  pthread_mutex_lock(&g_xfer_lock);
  for (int k = 0; k < g_xfer_names; k++)
    if (strcmp(g_xfer_name[k], want) == 0)
      name = g_xfer_name[k];
  if (name[0] == 't' && g_xfer_names < XFER_NAMES) {
    memcpy(g_xfer_name[g_xfer_names], want, sizeof want);
    name = g_xfer_name[g_xfer_names++];
  }
  pthread_mutex_unlock(&g_xfer_lock);
  return name;
}

/* The event slot while recording (NULL otherwise: no event is made). */
static cl_event *slot(cl_event *ev)
{
  *ev = 0;
  return ms_tev_on ? ev : NULL;
}

static void note(const char *track, const char *op, const char *what, cl_event ev)
{
  if (!ev)
    return;
  ms_tev_device(track, xfer_name(op, what), ev);
  clReleaseEvent(ev);
}

ms_status ms_xfer_map(cl_command_queue q, const char *track, cl_mem m, cl_map_flags flags,
                      size_t from, size_t bytes, const char *what, cl_bool block, void **out)
{
  cl_int err;
  cl_event ev;
  *out = clEnqueueMapBuffer(q, m, block, flags, from, bytes, 0, NULL, slot(&ev), &err);
  if (err == CL_SUCCESS)
    note(track, "map", what, ev);
  return ms_cl_check(err, "clEnqueueMapBuffer", what);
}

ms_status ms_xfer_read(cl_command_queue q, const char *track, cl_mem m, size_t from, size_t bytes,
                       void *dst, const char *what, cl_bool block)
{
  cl_event ev;
  cl_int err = clEnqueueReadBuffer(q, m, block, from, bytes, dst, 0, NULL, slot(&ev));
  if (err == CL_SUCCESS)
    note(track, "read", what, ev);
  return ms_cl_check(err, "clEnqueueReadBuffer", what);
}

ms_status ms_xfer_write(cl_command_queue q, const char *track, cl_mem m, size_t bytes,
                        const void *src, const char *what)
{
  cl_event ev;
  cl_int err = clEnqueueWriteBuffer(q, m, CL_FALSE, 0, bytes, src, 0, NULL, slot(&ev));
  if (err == CL_SUCCESS)
    note(track, "write", what, ev);
  return ms_cl_check(err, "clEnqueueWriteBuffer", what);
}

ms_status ms_xfer_unmap(cl_command_queue q, const char *track, cl_mem m, const void *view,
                        const char *what)
{
  cl_event ev;
  cl_int err = clEnqueueUnmapMemObject(q, m, (void *)view, 0, NULL, slot(&ev));
  if (err == CL_SUCCESS)
    note(track, "unmap", what, ev);
  return ms_cl_check(err, "clEnqueueUnmapMemObject", what);
}
