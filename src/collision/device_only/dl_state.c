/* The device-only baseline's buffers: made one at a time under the device's
 * allocation limit, and released (collision/device_only/dl_state.h). */
#include "collision/device_only/dl_state.h"

#include <stdlib.h>
#include <string.h>

#include "collision/device/events.h"

ms_status ms_dl_make(const ms_cl *cl, size_t bytes, const char *what, cl_mem *out)
{
  cl_int err;
  if (bytes > cl->max_alloc)
    return ms_fail(MS_ERR_RUNTIME, "large_on = device: buffer '%s' needs %zu bytes, more than "
                                   "the device's largest allocation "
                                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                   what, bytes, (unsigned long long)cl->max_alloc);
  *out = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &err);
  return ms_cl_check(err, "clCreateBuffer", what);
}

ms_status ms_dl_enqueue(const ms_ctx *c, ms_device *dev, int kernel, size_t n)
{
  cl_event ev = 0;
  ms_status st = ms_kernels_run_1d(c->kern, c->cl, kernel, n, &ev);
  ms_status kept = ms_gpu_keep_event(c, dev, kernel, ev);
  return st ? st : kept;
}

void ms_dl_release_mem(cl_mem *m)
{
  if (*m)
    clReleaseMemObject(*m);
  *m = NULL;
}

void ms_dl_release_lists(ms_dl_lists *l)
{
  for (int g = 0; g < 2; g++) {
    ms_dl_release_mem(&l->n[g]);
    ms_dl_release_mem(&l->key[g]);
    ms_dl_release_mem(&l->xi[g]);
  }
}

void ms_dlf_release(ms_dl_friction *f)
{
  ms_dl_release_mem(&f->rot);
  ms_dl_release_mem(&f->prev_rot);
  ms_dl_release_mem(&f->torque);
  ms_dl_release_mem(&f->wall_xi);
  ms_dl_release_lists(&f->ls);
  ms_dl_release_lists(&f->ll);
  ms_dl_release_lists(&f->ws);
  ms_dl_release_lists(&f->wl);
  memset(f, 0, sizeof *f);
}

void ms_dlw_release(ms_dl_walls *r)
{
  cl_mem *mems[] = {&r->small_n, &r->small_key, &r->small_f, &r->small_t, &r->large_n,
                    &r->large_key, &r->large_f, &r->large_t, &r->spans, &r->first,
                    &r->partial, &r->out, &r->small_lw, &r->large_lw, &r->partial_lw,
                    &r->acc, &r->taken, &r->drop};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
    ms_dl_release_mem(mems[i]);
  free(r->h_spans);
  free(r->h_first);
  free(r->h_out);
  free(r->h_acc);
  memset(r, 0, sizeof *r);
}

void ms_dl_release(ms_dlarge *d)
{
  cl_mem *mems[] = {&d->pos,   &d->vel,      &d->shape,    &d->stat,  &d->f,
                    &d->prev_pos, &d->prev_vel, &d->count, &d->idx, &d->flags, &d->wall,
                    &d->img,   &d->prev_img, &d->rect,  &d->owner, &d->chead, &d->cnext,
                    &d->ccell};
  for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
    ms_dl_release_mem(mems[i]);
  free(d->h_pos);
  free(d->h_img);
  free(d->h_vel);
  free(d->h_shape);
  free(d->h_stat);
  free(d->h_wall);
  ms_dlf_release(&d->fr);
  ms_dlw_release(&d->wr);
  memset(d, 0, sizeof *d);
}
