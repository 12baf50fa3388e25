/* The GPU manager's kernels: argument binding, small-small collisions, integration. */
#include "collision/device/gpu_manager.h"

#include "collision/device/nlist.h"

#include <stdlib.h>
#include <string.h>

/* Binds kernel arguments of the program of the context `c` in scope (collision/base/kernels.h). */
#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)

/* The friction variants' arguments (kernels/friction.cl). */
static ms_status bind_friction(const ms_ctx *c, ms_device *d)
{
  ms_buffers *b = &c->x->buf;
  ARG(MS_K_INTEGRATE_FRIC, 0, b->pos);
  ARG(MS_K_INTEGRATE_FRIC, 1, b->vel);
  ARG(MS_K_INTEGRATE_FRIC, 2, b->shape);
  ARG(MS_K_INTEGRATE_FRIC, 3, b->f_ss);
  ARG(MS_K_INTEGRATE_FRIC, 4, b->f_ls);
  ARG(MS_K_INTEGRATE_FRIC, 5, c->p->n_small);
  ARG(MS_K_INTEGRATE_FRIC, 6, c->p->gx);
  ARG(MS_K_INTEGRATE_FRIC, 7, c->p->gy);
  ARG(MS_K_INTEGRATE_FRIC, 8, c->p->dt);
  ARG(MS_K_INTEGRATE_FRIC, 9, b->rot);
  ARG(MS_K_INTEGRATE_FRIC, 10, b->t_ss);
  ARG(MS_K_INTEGRATE_FRIC, 11, b->t_ls);
  cl_double2 period = ms_params_period(c->p);
  ARG(MS_K_INTEGRATE_FRIC, 12, period);
  ARG(MS_K_INTEGRATE_FRIC, 13, b->img);
  return ms_nlist_bind(c, d);
}

ms_status ms_gpu_bind(const ms_ctx *c, ms_device *d)
{
  ms_buffers *b = &c->x->buf;
  const ms_grid *g = &c->p->grid;
  int cap = (int)b->cap;
  cl_double4 box = ms_params_sides(c->p);
  cl_double2 period = ms_params_period(c->p);

  /* (the cells each build clears and sorts, its span's, are set by the build: grid.c) */
  d->span_clean = 0; /* new buffers: the whole grid's counts are cleared at the next build */
  ARG(MS_K_GRID_CLEAR, 0, b->count);
  ARG(MS_K_GRID_CLEAR, 2, b->flags);
  ARG(MS_K_GRID_CLEAR, 6, g->nx);
  ARG(MS_K_GRID_CLEAR, 7, g->ny);

  ARG(MS_K_GRID_INSERT, 0, b->pos);
  ARG(MS_K_GRID_INSERT, 1, c->p->n_small);
  ARG(MS_K_GRID_INSERT, 2, b->count);
  ARG(MS_K_GRID_INSERT, 3, b->idx);
  ARG(MS_K_GRID_INSERT, 4, cap);
  ARG(MS_K_GRID_INSERT, 5, g->inv_cell);
  ARG(MS_K_GRID_INSERT, 6, g->nx);
  ARG(MS_K_GRID_INSERT, 7, g->ny);
  ARG(MS_K_GRID_INSERT, 8, b->flags);
  ARG(MS_K_GRID_INSERT, 9, b->vel);
  ARG(MS_K_GRID_INSERT, 10, c->p->max_speed2);
  ARG(MS_K_GRID_INSERT, 11, b->shape);

  ARG(MS_K_GRID_SORT, 0, b->count);
  ARG(MS_K_GRID_SORT, 1, b->idx);
  ARG(MS_K_GRID_SORT, 2, cap);
  int keyed = d->key != NULL;
  cl_mem key = keyed ? d->key : b->idx; /* (unread without keys) */
  ARG(MS_K_GRID_SORT, 4, key);
  ARG(MS_K_GRID_SORT, 5, keyed);
  ARG(MS_K_GRID_SORT, 9, g->nx);
  ARG(MS_K_GRID_SORT, 10, g->ny);

  ARG(MS_K_COLLIDE_SMALL, 0, b->pos);
  ARG(MS_K_COLLIDE_SMALL, 1, b->vel);
  ARG(MS_K_COLLIDE_SMALL, 2, b->shape);
  ARG(MS_K_COLLIDE_SMALL, 3, b->count);
  ARG(MS_K_COLLIDE_SMALL, 4, b->idx);
  ARG(MS_K_COLLIDE_SMALL, 5, cap);
  ARG(MS_K_COLLIDE_SMALL, 6, c->p->n_small);
  ARG(MS_K_COLLIDE_SMALL, 7, g->inv_cell);
  ARG(MS_K_COLLIDE_SMALL, 8, g->nx);
  ARG(MS_K_COLLIDE_SMALL, 9, g->ny);
  ARG(MS_K_COLLIDE_SMALL, 10, c->p->k);
  ARG(MS_K_COLLIDE_SMALL, 11, c->p->two_zeta);
  ARG(MS_K_COLLIDE_SMALL, 12, box);
  ARG(MS_K_COLLIDE_SMALL, 13, b->f_ss);
  ARG(MS_K_COLLIDE_SMALL, 14, period);
  if (c->p->diag) { /* the program was built with MS_DIAG (collision/dissipation.h) */
    ARG(MS_K_COLLIDE_SMALL, 15, d->diss);
    ARG(MS_K_COLLIDE_SMALL, 16, c->p->dt);
  }

  ARG(MS_K_INTEGRATE_SMALL, 0, b->pos);
  ARG(MS_K_INTEGRATE_SMALL, 1, b->vel);
  ARG(MS_K_INTEGRATE_SMALL, 2, b->shape);
  ARG(MS_K_INTEGRATE_SMALL, 3, b->f_ss);
  ARG(MS_K_INTEGRATE_SMALL, 4, b->f_ls);
  ARG(MS_K_INTEGRATE_SMALL, 5, c->p->n_small);
  ARG(MS_K_INTEGRATE_SMALL, 6, c->p->gx);
  ARG(MS_K_INTEGRATE_SMALL, 7, c->p->gy);
  ARG(MS_K_INTEGRATE_SMALL, 8, c->p->dt);
  ARG(MS_K_INTEGRATE_SMALL, 9, period);
  ARG(MS_K_INTEGRATE_SMALL, 10, b->img);
  return c->p->friction_on ? bind_friction(c, d) : MS_OK;
}

/* Enqueues one kernel over the small particles, after `after` when not NULL, and books
 * the enqueue as `phase`. */
static ms_status run_phase(const ms_ctx *c, ms_device *d, int kernel, ms_phase phase,
                           cl_event after)
{
  cl_event ev = 0;
  double t0 = ms_now();
  ms_status st = ms_kernels_run_1d_after(c->kern, c->cl, kernel, (size_t)c->p->n_small, after,
                                         ms_trace_timed(c->trace, &ev));
  if (!st)
    st = ms_cl_check(clFlush(c->cl->gpu_queue), "clFlush", ms_kernel_name(kernel));
  ms_status kept = ms_gpu_keep_event(c, d, kernel, ev);
  ms_trace_phase(c->trace, MS_THREAD_GPU, phase, t0);
  return st ? st : kept;
}

ms_status ms_gpu_collide(const ms_ctx *c, ms_device *d)
{
  int kernel = c->p->friction_on ? MS_K_COLLIDE_FRIC : MS_K_COLLIDE_SMALL;
  /* After the zone's layout on the device: the worker's transfer of the zone then overlaps
   * this kernel instead of its layout waiting behind it (crossing.h). */
  return run_phase(c, d, kernel, MS_PHASE_COLLIDE, ms_crossing_zone_laid(c->x, c->p));
}

ms_status ms_gpu_integrate(const ms_ctx *c, ms_device *d)
{
  /* The worker's writes of F_ls, on its queue, may still be running: the integration
   * waits for them on the device, not the worker on the host (crossing.h). */
  cl_event after = ms_crossing_forces_done(c->x, c->p);
  int kernel = c->p->friction_on ? MS_K_INTEGRATE_FRIC : MS_K_INTEGRATE_SMALL;
  /* The worker built its list on this state: its reference positions, before they move. */
  ms_status st = ms_nlist_worker_ref(c, d);
  if (!st)
    st = run_phase(c, d, kernel, MS_PHASE_INTEGRATE, after);
  d->grid_current = 0;
  return st;
}

void ms_gpu_release_keys(ms_device *d)
{
  if (d->key)
    clReleaseMemObject(d->key);
  free(d->key_host);
  d->key = NULL;
  d->key_host = NULL;
}

ms_status ms_gpu_set_keys(const ms_ctx *c, ms_device *d, const int *key)
{
  ms_gpu_release_keys(d);
  d->grid_current = 0;
  size_t bytes = (size_t)c->p->n_small * sizeof(int);
  if (key && c->p->n_small > 0) {
    cl_int err;
    d->key_host = malloc(bytes);
    if (!d->key_host)
      return ms_fail(MS_ERR_RUNTIME, "out of memory for the grid keys");
    memcpy(d->key_host, key, bytes);
    d->key = clCreateBuffer(c->cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                            d->key_host, &err);
    ms_status st = ms_cl_check(err, "clCreateBuffer", "grid keys");
    if (st) {
      ms_gpu_release_keys(d);
      return st;
    }
  }
  return ms_gpu_bind(c, d);
}
