/* Building the uniform grid on the device and handling what the build reports. */
#include "collision/device/gpu_manager.h"

#include "collision/device/nlist.h"

#include <math.h>

#include "shared/grid.h"

/* On a CPU device the counts are cleared by a fill (booked with the flags' reset as
 * grid_clear): on pocl the clearing kernel storing a zero per cell cost 2.6 ms of a 5.3 ms
 * iteration at 65K small particles on 397K cells, the fill 0.15 ms. On a GPU the kernel
 * does both in one launch (a fill and a launch cost the H200 0.01 ms more on mixed.ini). */
int ms_gpu_fill_clears(const ms_ctx *c) { return !(c->cl->device_type & CL_DEVICE_TYPE_GPU); }

/* Keeps a grid command's event for the kernel table, and the first one's for the split
 * of the build's wait (build_once). */
static ms_status keep_grid_event(const ms_ctx *c, ms_device *d, int kernel, cl_event ev,
                                 cl_event *first)
{
  if (ev && !*first && clRetainEvent(ev) == CL_SUCCESS)
    *first = ev;
  return ms_gpu_keep_event(c, d, kernel, ev);
}

/* The span this build fills: the one asked, unless a particle was found outside it since it
 * was asked (then the whole grid). */
static ms_grid_span build_span(const ms_ctx *c, const ms_device *d)
{
  const ms_grid *g = &c->p->grid;
  ms_grid_span a = g->asked;
  if (a.wx <= 0 || ms_grid_span_same(a, d->span_missed))
    return ms_grid_whole(g);
  return a;
}

/* Clears the counts of `span`'s cells, or of the whole grid where cells outside the span
 * may hold counts (a first build, new buffers, another span, a particle outside it): on a
 * CPU device the whole grid by a fill, the kernel clearing only the flags (grid.c's top
 * says why); else by the kernel, whose arguments this sets. */
static ms_status clear_counts(const ms_ctx *c, ms_device *d, ms_grid_span span, size_t *items,
                              cl_event *first)
{
  const ms_grid *g = &c->p->grid;
  if (!d->span_clean || !ms_grid_span_same(span, d->span_built))
    span = ms_grid_whole(g);
  int fill = ms_gpu_fill_clears(c) && ms_grid_span_same(span, ms_grid_whole(g));
  int n = fill ? 0 : span.wx * span.wy;
  *items = n < MS_FLAG_COUNT ? MS_FLAG_COUNT : (size_t)n;
  MS_KERNEL_ARG(c->kern, MS_K_GRID_CLEAR, 1, n);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_CLEAR, 3, span.x0);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_CLEAR, 4, span.wx);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_CLEAR, 5, span.y0);
  if (!fill)
    return MS_OK;
  static const int zero = 0;
  cl_event ev = 0;
  ms_status st = ms_cl_check(clEnqueueFillBuffer(c->cl->gpu_queue, c->x->buf.count, &zero,
                                                 sizeof zero, 0, g->n_cells * sizeof(int),
                                                 0, NULL, ms_trace_timed(c->trace, &ev)),
                             "clEnqueueFillBuffer", "grid count");
  ms_status kept = keep_grid_event(c, d, MS_K_GRID_CLEAR, ev, first);
  return st ? st : kept;
}

/* The insert's and the sort's view of `span` (the sort visits its cells only). */
static ms_status bind_span(const ms_ctx *c, ms_grid_span span, size_t *sort_items)
{
  MS_KERNEL_ARG(c->kern, MS_K_GRID_INSERT, 12, span.x0);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_INSERT, 13, span.wx);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_INSERT, 14, span.y0);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_INSERT, 15, span.wy);
  int n = span.wx * span.wy;
  MS_KERNEL_ARG(c->kern, MS_K_GRID_SORT, 3, n);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_SORT, 6, span.x0);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_SORT, 7, span.wx);
  MS_KERNEL_ARG(c->kern, MS_K_GRID_SORT, 8, span.y0);
  *sort_items = (size_t)n;
  return MS_OK;
}

/* The device's time from the grid's first command to the flags' read, in seconds; INFINITY
 * where the profile cannot say (the whole wait is then booked as the grid's). */
static double grid_device_s(cl_event first, cl_event read)
{
  cl_ulong a = 0, b = 0;
  if (!first || !read ||
      clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(read, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS ||
      b < a)
    return INFINITY;
  return (double)(b - a) * 1e-9;
}

/* Enqueues clear, insert and sort, then reads the flags back: the one blocking call of
 * the manager's iteration, which also waits for the kernels queued before it. The profile
 * splits that wait after the fact, adding no wait: the device's time from the grid's first
 * command to the read is the grid's own, the rest is 'wait device' (with large_on = device,
 * the iteration's whole work). */
static ms_status build_once(const ms_ctx *c, ms_device *d, ms_grid_span span,
                            int flags[MS_FLAG_COUNT])
{
  ms_cl *cl = c->cl;
  static const int kernels[3] = {MS_K_GRID_CLEAR, MS_K_GRID_INSERT, MS_K_GRID_SORT};
  size_t sizes[3] = {0, (size_t)c->p->n_small, 0};
  double t0 = ms_now();
  cl_event first = 0, read = 0;
  ms_status st = clear_counts(c, d, span, &sizes[0], &first);
  if (!st)
    st = bind_span(c, span, &sizes[2]);
  d->span_clean = 0; /* (until this build's flags say where the particles went) */
  for (int k = 0; k < 3 && !st; k++) {
    cl_event ev = 0;
    st = ms_kernels_run_1d(c->kern, cl, kernels[k], sizes[k], ms_trace_timed(c->trace, &ev));
    ms_status kept = keep_grid_event(c, d, kernels[k], ev, &first);
    if (!st)
      st = kept;
  }
  if (!st)
    st = ms_nlist_enqueue_check(c, d); /* its flag comes back with the grid's */
  t0 = ms_trace_phase(c->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0);
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(cl->gpu_queue, c->x->buf.flags, CL_TRUE, 0,
                                         MS_FLAG_COUNT * sizeof(int), flags, 0, NULL,
                                         ms_trace_timed(c->trace, &read)),
                     "clEnqueueReadBuffer", "grid flags");
  ms_trace_wait_then(c->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0,
                     st ? INFINITY : grid_device_s(first, read));
  if (!st)
    ms_gpu_settle(c, d);
  if (first)
    clReleaseEvent(first);
  if (read)
    clReleaseEvent(read);
  return st;
}

static ms_status grow_capacity(const ms_ctx *c, ms_device *d, int needed, long step)
{
  size_t old = c->x->buf.cap;
  size_t cap = ((size_t)needed + 3) / 4 * 4; /* a little headroom saves regrowing */
  ms_status st = ms_buffers_set_capacity(&c->x->buf, c->cl, cap);
  if (st) {
    /* The first message recorded wins: put the context in front of the buffer's. */
    char why[1024];
    snprintf(why, sizeof why, "%s", ms_error_message());
    ms_error_clear();
    return ms_fail(st, "grid cells overflowed at step %ld (up to %d particles in one cell, "
                       "capacity %zu) and the grid cannot grow to %zu: %s",
                   step, needed, old, cap, why);
  }
  c->stats->capacity_growths++;
  c->stats->grid_capacity = (int)cap;
  return ms_gpu_bind(c, d);
}

static void note_outside(const ms_ctx *c, ms_device *d, const int flags[MS_FLAG_COUNT], long step)
{
  c->stats->outside_events += flags[MS_FLAG_OUTSIDE];
  /* Past an open side a particle is on its way out (collision/open.c removes it): no
   * warning then, only the count. */
  const double *sd = c->p->side;
  int open = sd[0] < -1e300 || sd[1] > 1e300 || sd[2] < -1e300 || sd[3] > 1e300;
  if (!d->outside_warned && !open) {
    d->outside_warned = 1;
    ms_warn("step %ld: %d small particle(s) outside the box (first: #%d); they stay in the "
            "border cells and the walls push them back; counted in the stats",
            step, flags[MS_FLAG_OUTSIDE], flags[MS_FLAG_FIRST_OUT]);
  }
}

/* After a build over `span`: whether a particle fell outside it (then the build is made
 * again over the whole grid, until the span is asked anew); else the span the worker's
 * zone sweeps. */
static int span_missed(const ms_ctx *c, ms_device *d, ms_grid_span span,
                       const int flags[MS_FLAG_COUNT])
{
  if (flags[MS_FLAG_OFF_SPAN] > 0 && !ms_grid_span_same(span, ms_grid_whole(&c->p->grid))) {
    d->span_missed = c->p->grid.asked;
    c->stats->span_misses++;
    return 1;
  }
  d->span_built = span;
  d->span_clean = 1;
  c->x->span = span;
  return 0;
}

ms_status ms_gpu_build_grid(const ms_ctx *c, ms_device *d, long step)
{
  int flags[MS_FLAG_COUNT];
  for (;;) {
    ms_grid_span span = build_span(c, d);
    ms_status st = build_once(c, d, span, flags);
    if (st)
      return st;
    c->stats->grid_builds++;
    if (flags[MS_FLAG_MAX_COUNT] > c->stats->max_cell_count)
      c->stats->max_cell_count = flags[MS_FLAG_MAX_COUNT];
    if (flags[MS_FLAG_NONFINITE])
      return ms_fail(MS_ERR_NUMERIC, "step %ld: small particle #%d has a non-finite position "
                                     "(%d particle(s) affected); dt may be too large",
                     step, flags[MS_FLAG_FIRST_BAD], flags[MS_FLAG_NONFINITE]);
    if (flags[MS_FLAG_FAST])
      return ms_fail(MS_ERR_NUMERIC, "step %ld: small particle #%d moves faster than max_speed = "
                                     "%g m/s (%d particle(s)): the system is exploding; dt may "
                                     "be too large",
                     step, flags[MS_FLAG_FIRST_FAST], sqrt(c->p->max_speed2), flags[MS_FLAG_FAST]);
    if (span_missed(c, d, span, flags)) /* (counted once, in the build made again) */
      continue;
    if (flags[MS_FLAG_OUTSIDE])
      note_outside(c, d, flags, step);
    if (!flags[MS_FLAG_OVERFLOW])
      break;
    c->stats->overflow_builds++;
    if ((st = grow_capacity(c, d, flags[MS_FLAG_MAX_COUNT], step)))
      return st;
  }
  ms_status st = ms_nlist_update(c, d, step);
  if (st)
    return st;
  d->grid_current = 1;
  return MS_OK;
}
