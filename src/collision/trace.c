/* Phase timing by wall clock and by OpenCL profiling. */
#include "collision/trace.h"

#include "core/clock.h"

double ms_trace_phase(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0)
{
  double now = ms_now();
  t->thread[thread].total_s[phase] += now - t0;
  t->thread[thread].count[phase]++;
  ms_trace_ring *r = &t->ring[thread];
  r->event[r->written % MS_TRACE_RING] = (ms_trace_event){t0, now, thread, phase};
  r->written++;
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
  case MS_PHASE_GRID: return "grid build+wait";
  case MS_PHASE_COLLIDE: return "small-small";
  case MS_PHASE_INTEGRATE: return "integrate small";
  case MS_PHASE_HOST_IN: return copied ? "read copies" : "map";
  case MS_PHASE_LARGE_SMALL: return "large-small";
  case MS_PHASE_HOST_OUT: return copied ? "write F_ls" : "unmap";
  case MS_PHASE_LARGE_LARGE: return "large-large";
  case MS_PHASE_LARGE_INTEGRATE: return "integrate large";
  case MS_PHASE_WAIT_SYNC1: return "wait sync1";
  case MS_PHASE_WAIT_SYNC2: return "wait sync2";
  default: return "?";
  }
}
