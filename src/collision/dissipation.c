/* The dissipated-energy accumulators of --diagnostics: per small particle on the device
 * (kernels/collide.cl built with MS_DIAG adds each step's dashpot work), per large
 * particle on the CPU worker (cpu_worker.c) or after them on the device (kernels/large.cl
 * and large_friction.cl with --large-on device), and per [wall.NAME] for its contacts with
 * small particles (worker/walls.c, or device_only/device_walls.c), read back and summed
 * only when asked. */
#include "collision/dissipation.h"

#include <stdlib.h>
#include <string.h>

#include "shared/contact.h"

/* n_small entries, then n_large for the device-only path's kernels (kernels/large.cl,
 * large_friction.cl), then one slot: with friction, what the large-large springs stored
 * there (ms_large_walls_fric), the device's diss_worker. */
static size_t device_entries(const ms_sim *s)
{
  return (size_t)s->p.n_small + (size_t)s->p.n_large + 1;
}

static ms_status zero_device(ms_sim *s)
{
  size_t n = device_entries(s);
  double *zero = calloc(n, sizeof *zero);
  if (!zero)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the dissipation accumulators");
  ms_status st = ms_buffers_upload(&s->cl, s->dev.diss, zero, n * sizeof *zero);
  free(zero);
  return st;
}

ms_status ms_diss_create(ms_sim *s)
{
  if (!s->p.diag)
    return MS_OK;
  s->wk.diss_large = calloc((size_t)s->p.n_large + 1, sizeof *s->wk.diss_large);
  if (!s->wk.diss_large)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the dissipation accumulators");
  cl_int err;
  size_t bytes = device_entries(s) * sizeof(double);
  s->dev.diss = clCreateBuffer(s->cl.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS)
    return ms_cl_check(err, "clCreateBuffer", "dissipation accumulators");
  return zero_device(s);
}

ms_status ms_diss_reset(ms_sim *s)
{
  if (!s->p.diag)
    return MS_OK;
  for (int i = 0; i < s->p.n_large; i++)
    s->wk.diss_large[i] = 0.0;
  s->wk.diss_worker = 0.0;
  for (int k = 0; s->wk.wall && k < s->p.n_walls; k++)
    s->wk.wall[k].lost = s->wk.wall[k].work = 0.0; /* since the start, as the rest */
  return zero_device(s);
}

ms_status ms_diss_take_small(ms_sim *s, double **out)
{
  *out = NULL;
  if (!s->p.diag)
    return MS_OK;
  size_t n = device_entries(s);
  if (!(*out = malloc(n * sizeof **out)))
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the dissipation accumulators");
  return ms_buffers_download(&s->cl, s->dev.diss, *out, n * sizeof **out);
}

ms_status ms_diss_resize_small(ms_sim *s, const double *old, int n_old)
{
  if (!s->p.diag)
    return MS_OK;
  if (s->dev.diss)
    clReleaseMemObject(s->dev.diss);
  s->dev.diss = NULL;
  size_t n = device_entries(s), ns = (size_t)s->p.n_small, nl = (size_t)s->p.n_large;
  double *now = calloc(n, sizeof *now);
  if (!now)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the dissipation accumulators");
  /* small slots, then the large particles, then the device's own slot (device_entries) */
  memcpy(now, old, (size_t)(n_old < (int)ns ? n_old : (int)ns) * sizeof *now);
  memcpy(now + ns, old + n_old, (nl + 1) * sizeof *now);
  cl_int err;
  s->dev.diss = clCreateBuffer(s->cl.context, CL_MEM_READ_WRITE, n * sizeof(double), NULL, &err);
  ms_status st = ms_cl_check(err, "clCreateBuffer", "dissipation accumulators");
  if (!st)
    st = ms_buffers_upload(&s->cl, s->dev.diss, now, n * sizeof *now);
  free(now);
  return st;
}

size_t ms_diss_entries(const ms_sim *s) { return device_entries(s); }

ms_status ms_diss_export(ms_sim *s, double *dev, double *large, double *worker, double *walls)
{
  memcpy(large, s->wk.diss_large, (size_t)s->p.n_large * sizeof *large);
  *worker = s->wk.diss_worker;
  for (int k = 0; k < s->p.n_walls; k++) {
    walls[2 * k] = s->wk.wall[k].lost;
    walls[2 * k + 1] = s->wk.wall[k].work;
  }
  return ms_buffers_download(&s->cl, s->dev.diss, dev, device_entries(s) * sizeof *dev);
}

ms_status ms_diss_import(ms_sim *s, const double *dev, const double *large, double worker,
                         const double *walls)
{
  memcpy(s->wk.diss_large, large, (size_t)s->p.n_large * sizeof *large);
  s->wk.diss_worker = worker;
  for (int k = 0; k < s->p.n_walls; k++) {
    s->wk.wall[k].lost = walls[2 * k];
    s->wk.wall[k].work = walls[2 * k + 1];
  }
  return ms_buffers_upload(&s->cl, s->dev.diss, dev, device_entries(s) * sizeof *dev);
}

void ms_diss_release(ms_sim *s)
{
  if (s->dev.diss)
    clReleaseMemObject(s->dev.diss);
  s->dev.diss = NULL;
  free(s->wk.diss_large);
  s->wk.diss_large = NULL;
}

static double xi_energy(float kt, const ms_wall_xi_list *l)
{
  double e = 0.0;
  for (int k = 0; k < l->n; k++)
    e += ms_spring_energy(kt, l->e[k].xi);
  return e;
}

/* Every history the friction state holds (one entry per closed pair, four per particle
 * against the walls), in its export order; then those of the [wall.NAME] contacts, the
 * worker's own lists (each wall's small contacts, then each large particle's). */
ms_status ms_sim_spring_energy(ms_sim *s, double *out)
{
  *out = 0.0;
  if (!s->p.friction_on)
    return MS_OK;
  ms_friction_state f;
  ms_status st = ms_sim_friction_export(s, &f);
  if (st)
    return st;
  double e = 0.0;
  for (size_t k = 0; k < f.n_ss; k++)
    e += ms_spring_energy(s->p.kt, f.ss[k].xi);
  for (size_t k = 0; k < f.n_ls; k++)
    e += ms_spring_energy(s->p.kt, f.ls[k].xi);
  for (size_t k = 0; k < f.n_ll; k++)
    e += ms_spring_energy(s->p.kt, f.ll[k].xi);
  for (size_t k = 0; k < 4 * (size_t)f.n_small; k++)
    e += ms_spring_energy(s->p.kt, f.small_wall_xi[k]);
  for (size_t k = 0; k < 4 * (size_t)f.n_large; k++)
    e += ms_spring_energy(s->p.kt, f.large_wall_xi[k]);
  ms_friction_state_free(&f);
  for (int k = 0; s->wk.wall && k < s->p.n_walls; k++)
    e += xi_energy(s->p.kt, &s->wk.wall[k].small_cur);
  for (int i = 0; s->wk.wall_xi_cur && i < s->p.n_large; i++)
    e += xi_energy(s->p.kt, &s->wk.wall_xi_cur[i]);
  *out = e;
  return MS_OK;
}

/* Small particles in index order, then large ones (on the device, then on the worker),
 * then the large-large springs' share (the worker's, then the device's): of each pair one
 * is all zeros unless `auto` ran both paths, and adding zeros changes no sum, so the
 * device-only path's total is the worker's bit for bit. Then the [wall.NAME]s' small
 * contacts, in the scene's order (summed by the worker, or on the device-only path by
 * collision/device_only/device_walls.c in the worker's order; their large contacts are in
 * the large particles' sums). */
ms_status ms_sim_dissipated(ms_sim *s, double *out)
{
  *out = 0.0;
  if (!s->p.diag)
    return MS_OK;
  size_t n = device_entries(s);
  double *d = malloc(n * sizeof *d);
  if (!d)
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading the dissipation accumulators");
  ms_status st = ms_buffers_download(&s->cl, s->dev.diss, d, n * sizeof *d);
  double sum = 0.0;
  for (size_t i = 0; !st && i + 1 < n; i++)
    sum += d[i];
  for (int i = 0; i < s->p.n_large; i++)
    sum += s->wk.diss_large[i];
  sum += s->wk.diss_worker;
  if (!st)
    sum += d[n - 1];
  for (int k = 0; s->wk.wall && k < s->p.n_walls; k++)
    sum += s->wk.wall[k].lost;
  free(d);
  *out = sum;
  return st;
}
