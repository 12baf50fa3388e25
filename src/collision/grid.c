/* Building the uniform grid on the device and handling what the build reports. */
#include "collision/gpu_manager.h"

#include <math.h>

#include "shared/grid.h"

/* On a CPU device the counts are cleared by a fill (booked with the flags' reset as
 * grid_clear): on pocl the clearing kernel storing a zero per cell cost 2.6 ms of a 5.3 ms
 * iteration at 65K small particles on 397K cells, the fill 0.15 ms. On a GPU the kernel
 * does both in one launch (a fill and a launch cost the H200 0.01 ms more on mixed.ini). */
int ms_gpu_fill_clears(const ms_sim *s) { return !(s->cl.device_type & CL_DEVICE_TYPE_GPU); }

static ms_status clear_counts(ms_sim *s)
{
  if (!ms_gpu_fill_clears(s))
    return MS_OK;
  static const int zero = 0;
  cl_event ev = 0;
  ms_status st = ms_cl_check(clEnqueueFillBuffer(s->cl.gpu_queue, s->buf.count, &zero,
                                                 sizeof zero, 0, s->grid.n_cells * sizeof(int),
                                                 0, NULL, &ev),
                             "clEnqueueFillBuffer", "grid count");
  ms_status kept = ms_gpu_keep_event(s, MS_K_GRID_CLEAR, ev);
  return st ? st : kept;
}

/* Enqueues clear, insert and sort, then reads the flags back: the one blocking wait of
 * the manager's iteration, which also waits for the kernels queued before it. A marker
 * ahead of the grid's commands splits that wait: until it completes the manager waits
 * for the earlier kernels (wait device; with large_on = device, the iteration's whole
 * work), then for the grid's own. Both are queued before either wait, so the device
 * runs the same commands back to back as without the marker. */
static ms_status build_once(ms_sim *s, int flags[MS_FLAG_COUNT])
{
  ms_cl *cl = &s->cl;
  static const int kernels[3] = {MS_K_GRID_CLEAR, MS_K_GRID_INSERT, MS_K_GRID_SORT};
  size_t clear = ms_gpu_fill_clears(s) || s->grid.n_cells < MS_FLAG_COUNT ? MS_FLAG_COUNT
                                                                          : s->grid.n_cells;
  size_t sizes[3] = {clear, (size_t)s->n_small, s->grid.n_cells};
  double t0 = ms_now();
  cl_event before = 0, read = 0;
  ms_status st = ms_cl_check(clEnqueueMarkerWithWaitList(cl->gpu_queue, 0, NULL, &before),
                             "clEnqueueMarkerWithWaitList", "grid build");
  if (!st)
    st = clear_counts(s);
  for (int k = 0; k < 3 && !st; k++) {
    cl_event ev = 0;
    st = ms_kernels_run_1d(&s->kern, cl, kernels[k], sizes[k], &ev);
    ms_status kept = ms_gpu_keep_event(s, kernels[k], ev);
    if (!st)
      st = kept;
  }
  if (!st)
    st = ms_nlist_enqueue_check(s); /* its flag comes back with the grid's */
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(cl->gpu_queue, s->buf.flags, CL_FALSE, 0,
                                         MS_FLAG_COUNT * sizeof(int), flags, 0, NULL, &read),
                     "clEnqueueReadBuffer", "grid flags");
  if (!st)
    st = ms_cl_check(clFlush(cl->gpu_queue), "clFlush", "grid build");
  t0 = ms_trace_phase(&s->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0);
  if (!st)
    st = ms_cl_check(clWaitForEvents(1, &before), "clWaitForEvents", "kernels before the grid");
  t0 = ms_trace_phase(&s->trace, MS_THREAD_GPU, MS_PHASE_WAIT_DEVICE, t0);
  if (!st)
    st = ms_cl_check(clWaitForEvents(1, &read), "clWaitForEvents", "grid flags");
  if (!st)
    ms_gpu_settle(s);
  if (before)
    clReleaseEvent(before);
  if (read)
    clReleaseEvent(read);
  ms_trace_phase(&s->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0);
  return st;
}

static ms_status grow_capacity(ms_sim *s, int needed, long step)
{
  size_t old = s->buf.cap;
  size_t cap = ((size_t)needed + 3) / 4 * 4; /* a little headroom saves regrowing */
  ms_status st = ms_buffers_set_capacity(&s->buf, &s->cl, cap);
  if (st) {
    /* The first message recorded wins: put the context in front of the buffer's. */
    char why[1024];
    snprintf(why, sizeof why, "%s", ms_error_message());
    ms_error_clear();
    return ms_fail(st, "grid cells overflowed at step %ld (up to %d particles in one cell, "
                       "capacity %zu) and the grid cannot grow to %zu: %s",
                   step, needed, old, cap, why);
  }
  s->stats.capacity_growths++;
  s->stats.grid_capacity = (int)cap;
  return ms_gpu_bind(s);
}

static void note_outside(ms_sim *s, const int flags[MS_FLAG_COUNT], long step)
{
  s->stats.outside_events += flags[MS_FLAG_OUTSIDE];
  if (!s->outside_warned) {
    s->outside_warned = 1;
    ms_warn("step %ld: %d small particle(s) outside the box (first: #%d); they stay in the "
            "border cells and the walls push them back; counted in the stats",
            step, flags[MS_FLAG_OUTSIDE], flags[MS_FLAG_FIRST_OUT]);
  }
}

ms_status ms_gpu_build_grid(ms_sim *s, long step)
{
  int flags[MS_FLAG_COUNT];
  for (;;) {
    ms_status st = build_once(s, flags);
    if (st)
      return st;
    s->stats.grid_builds++;
    if (flags[MS_FLAG_MAX_COUNT] > s->stats.max_cell_count)
      s->stats.max_cell_count = flags[MS_FLAG_MAX_COUNT];
    if (flags[MS_FLAG_NONFINITE])
      return ms_fail(MS_ERR_NUMERIC, "step %ld: small particle #%d has a non-finite position "
                                     "(%d particle(s) affected); dt may be too large",
                     step, flags[MS_FLAG_FIRST_BAD], flags[MS_FLAG_NONFINITE]);
    if (flags[MS_FLAG_FAST])
      return ms_fail(MS_ERR_NUMERIC, "step %ld: small particle #%d moves faster than max_speed = "
                                     "%g m/s (%d particle(s)): the system is exploding; dt may "
                                     "be too large",
                     step, flags[MS_FLAG_FIRST_FAST], sqrt(s->max_speed2), flags[MS_FLAG_FAST]);
    if (flags[MS_FLAG_OUTSIDE])
      note_outside(s, flags, step);
    if (!flags[MS_FLAG_OVERFLOW])
      break;
    s->stats.overflow_builds++;
    if ((st = grow_capacity(s, flags[MS_FLAG_MAX_COUNT], step)))
      return st;
  }
  ms_status st = ms_nlist_update(s, step);
  if (st)
    return st;
  s->grid_current = 1;
  return MS_OK;
}
