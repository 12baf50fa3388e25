/* The manager's book of kernel events (collision/device/events.h). */
#include "collision/device/events.h"

ms_status ms_gpu_keep_event(const ms_ctx *c, ms_device *d, int kernel, cl_event ev)
{
  ms_trace_device("queue: main", kernel, ev);
  if (!ev)
    return MS_OK;
  if (d->n_pending == (int)(sizeof d->pending_event / sizeof d->pending_event[0])) {
    ms_status st = ms_gpu_finish(c, d);
    if (st) {
      clReleaseEvent(ev);
      return st;
    }
  }
  d->pending_event[d->n_pending] = ev;
  d->pending_kernel[d->n_pending++] = kernel;
  return MS_OK;
}

void ms_gpu_settle(const ms_ctx *c, ms_device *d)
{
  for (int i = 0; i < d->n_pending; i++)
    ms_trace_kernel(c->trace, d->pending_kernel[i], d->pending_event[i]);
  d->n_pending = 0;
}

ms_status ms_gpu_finish(const ms_ctx *c, ms_device *d)
{
  ms_status st = ms_cl_check(clFinish(c->cl->gpu_queue), "clFinish", "manager queue");
  ms_gpu_settle(c, d);
  return st;
}
