/* The forces of the step that produced a state, for --output (collision/forces.h).
 *
 * F_ss (the collide kernel's small-small and wall forces) stays valid on the device until
 * the next collide, but the integration kernel zeroes F_ls for the next iteration, and a
 * switch of buffers remakes both. So the manager copies them, device to device, into a
 * buffer of its own in the iteration that ends an advance, once they are complete (after
 * the collide, after the worker's write or the zone's scatter, before the integration):
 * an output step always ends an advance. No host read happens in an iteration; the
 * snapshot reads the copy with one blocking read. The large particles' forces are the
 * worker's fx, fy, zeroed only when the next iteration's large-small starts; the
 * device-only path keeps them in its own buffer, copied with the others. */
#include "collision/forces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"

int ms_forces_due(struct ms_sim *s, int more)
{
  return s->dev.forces.on && (!more || atomic_load(&s->run.stop_requested));
}

static ms_status copy(ms_sim *s, cl_mem from, size_t at, size_t bytes, cl_event after)
{
  if (!bytes)
    return MS_OK;
  cl_int err = clEnqueueCopyBuffer(s->cl.gpu_queue, from, s->dev.forces.buf, 0, at, bytes,
                                   after ? 1 : 0, after ? &after : NULL, NULL);
  return ms_cl_check(err, "clEnqueueCopyBuffer", "the forces for --output");
}

ms_status ms_forces_keep(ms_sim *s, long step)
{
  ms_kept_forces *k = &s->dev.forces;
  size_t small = (size_t)s->p.n_small * 2 * sizeof(float);
  size_t large = (size_t)s->p.n_large * 2 * sizeof(float);
  if (!k->buf) {
    cl_int err;
    k->buf = clCreateBuffer(s->cl.context, CL_MEM_READ_WRITE, 2 * small + large + 8, NULL, &err);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clCreateBuffer", "the forces for --output");
  }
  int device = s->p.large_on == MS_LARGE_ON_DEVICE;
  /* The worker's writes of F_ls run on its queue: wait for them, as the integration does
   * (gpu_manager.c). */
  cl_event scattered = ms_crossing_forces_done(&s->x, &s->p);
  ms_status st = copy(s, s->x.buf.f_ss, 0, small, NULL);
  if (!st)
    st = copy(s, s->x.buf.f_ls, small, small, scattered);
  if (!st && device)
    st = copy(s, s->dl.f, 2 * small, large, NULL);
  k->step = st ? -1 : step + 1;
  k->large_device = device;
  return st;
}

ms_status ms_forces_read(ms_sim *s, float *small, float *large)
{
  ms_kept_forces *k = &s->dev.forces;
  size_t ns = (size_t)s->p.n_small * 2, nl = (size_t)s->p.n_large * 2;
  if (!k->buf || k->step != s->run.step) { /* no step of this run behind this state */
    for (size_t i = 0; i < ns; i++)
      small[i] = NAN;
    for (size_t i = 0; i < nl; i++)
      large[i] = NAN;
    return MS_OK;
  }
  float *h = malloc((2 * ns + nl + 2) * sizeof(float));
  if (!h)
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading the forces");
  ms_status st = ms_buffers_download(&s->cl, k->buf, h, (2 * ns + nl) * sizeof(float));
  /* The sum the integration kernel makes: fs + fl, in float. */
  for (size_t i = 0; !st && i < ns; i++)
    small[i] = h[i] + h[ns + i];
  for (size_t i = 0; !st && i < (size_t)s->p.n_large; i++) {
    const ms_body *L = &s->wk.large[i];
    large[2 * i] = k->large_device ? h[2 * ns + 2 * i] : L->fx;
    large[2 * i + 1] = k->large_device ? h[2 * ns + 2 * i + 1] : L->fy;
  }
  free(h);
  return st;
}

ms_status ms_forces_put(ms_sim *s, const float *small, const float *large)
{
  ms_kept_forces *k = &s->dev.forces;
  size_t ns = (size_t)s->p.n_small * 2, nl = (size_t)s->p.n_large * 2;
  float *h = malloc((2 * ns + nl + 2) * sizeof(float));
  if (!h)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the forces");
  memcpy(h, small, ns * sizeof *h);
  for (size_t i = 0; i < ns; i++) /* F_ls: -0, which ms_forces_read's sum keeps every bit of */
    h[ns + i] = -0.0f;
  memcpy(h + 2 * ns, large, nl * sizeof *h);
  cl_int err = CL_SUCCESS;
  if (!k->buf)
    k->buf = clCreateBuffer(s->cl.context, CL_MEM_READ_WRITE, (2 * ns + nl) * sizeof(float) + 8,
                            NULL, &err);
  ms_status st = ms_cl_check(err, "clCreateBuffer", "the forces for --output");
  if (!st)
    st = ms_buffers_upload(&s->cl, k->buf, h, (2 * ns + nl) * sizeof(float));
  free(h);
  k->step = st ? -1 : s->run.step;
  k->large_device = 1;
  return st;
}

void ms_forces_release(ms_kept_forces *k)
{
  if (k->buf)
    clReleaseMemObject(k->buf);
  k->buf = NULL;
  k->step = -1;
}
