/* Creating, stepping and reading a collision-mode simulation. */
#include "collision/sim_internal.h"

#include "collision/base/wall_def.h"
#include "collision/worker/walls.h"
#include "collision/worker/walls_state.h"

#include "collision/device/nlist.h"
#include "collision/exchange/zone.h"
#include "collision/forces.h"
#include "collision/worker/ls_list.h"
#include "core/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "collision/dissipation.h"
#include "collision/device/gpu_manager.h"
#include "collision/open.h"
#include "collision/pipeline.h"
#include "collision/worker/worker_pool.h"
#include "core/number.h"
#include "shared/contact.h"
#include "shared/grid.h"

/* The state changed outside stepping (restore, import, a move, a switch of exchange or
 * large_on): the worker's large-small list is rebuilt at its next use, and the manager's
 * check of it forgets its reference positions. Between advances only. */
static void invalidate_worker_list(ms_sim *s)
{
  s->wk.wl.stale = 1;
  s->dev.wlc.ref_valid = 0;
  s->x.list.ref_due = 0;
}

void ms_sim_state_changed(ms_sim *s)
{
  s->dev.grid_current = 0;
  s->dev.nl.stale = 1;
  s->dev.forces.step = -1;
  invalidate_worker_list(s);
}

/* Cells of one largest small diameter cover the box; refuse absurd grids early. */
static ms_status setup_grid(ms_sim *s, const ms_scene *sc)
{
  double w = sc->box_max[0] - sc->box_min[0], h = sc->box_max[1] - sc->box_min[1];
  /* With friction the cell also spans the neighbour list's skin (collision/device/nlist.h). */
  double cell = sc->small_count > 0 ? 2.0 * sc->small_radius + s->dev.nl.skin : (w > h ? w : h);
  if (sc->small_count > 0 && (sc->periodic[0] || sc->periodic[1])) {
    /* A whole number of cells along each periodic side (the loader checked there is one). */
    cell = ms_box_cell(w, h, sc->periodic, cell);
    if (!(cell > 0.0))
      return ms_fail(MS_ERR_INPUT, "%s: [box] periodic: no grid cell of at least one small "
                                   "diameter fits a whole number of times along the periodic "
                                   "sides", sc->path);
  }
  double nx = ceil(w / cell), ny = ceil(h / cell);
  if (sc->periodic[0])
    nx = nearbyint(w / cell);
  if (sc->periodic[1])
    ny = nearbyint(h / cell);
  if (nx < 1)
    nx = 1;
  if (ny < 1)
    ny = 1;
  if (nx * ny > MS_GRID_MAX_CELLS)
    return ms_fail(MS_ERR_INPUT, "%s: the grid would need %.0f x %.0f cells (cell = small "
                                 "diameter); use larger small particles or a smaller box",
                   sc->path, nx, ny);
  s->p.grid.inv_cell = 1.0 / cell;
  s->p.grid.nx = (int)nx;
  s->p.grid.ny = (int)ny;
  s->p.grid.n_cells = (size_t)nx * (size_t)ny;
  s->run.stats.grid_nx = s->p.grid.nx;
  s->run.stats.grid_ny = s->p.grid.ny;
  return MS_OK;
}

/* The slots the kind = large inflows need, one per particle they can pour (the loader
 * bounds them); the largest radius they pour. */
static int inflow_large_slots(const ms_scene *sc, float *r_max)
{
  long n = 0;
  for (int k = 0; k < sc->inflow_count; k++) {
    const ms_inflow *in = &sc->inflows[k];
    if (in->kind != MS_INFLOW_LARGE)
      continue;
    n += ms_inflow_total(in);
    *r_max = in->radius_max > *r_max ? in->radius_max : *r_max;
  }
  return (int)n;
}

static ms_status setup_large(ms_sim *s, const ms_scene *sc)
{
  float r_in = 0.0f;
  int extra = inflow_large_slots(sc, &r_in);
  if ((long)sc->large_count + extra > INT32_MAX / 8)
    return ms_fail(MS_ERR_INPUT, "%d large particles and %d inflow slots: too many",
                   sc->large_count, extra);
  s->p.n_large_scene = sc->large_count;
  s->p.n_large = sc->large_count + extra;
  s->p.n_stepped = s->wk.sweep_n = s->p.n_large;
  s->p.r_large_max = r_in;
  s->wk.large = calloc((size_t)s->p.n_large + 1, sizeof *s->wk.large);
  s->wk.sweep_order = calloc((size_t)s->p.n_large + 1, sizeof *s->wk.sweep_order);
  s->wk.large_prev = calloc((size_t)s->p.n_large + 1, sizeof *s->wk.large_prev);
  s->p.n_large_origin = sc->large_origin ? sc->large_origin_count : 0;
  s->p.large_origin = calloc((size_t)s->p.n_large_origin + 1, sizeof *s->p.large_origin);
  if (!s->wk.large || !s->wk.sweep_order || !s->wk.large_prev || !s->p.large_origin)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d large particles", s->p.n_large);
  if (s->p.n_large_origin)
    memcpy(s->p.large_origin, sc->large_origin,
           (size_t)s->p.n_large_origin * sizeof *s->p.large_origin);
  for (int i = 0; i < sc->large_count; i++) {
    const ms_large *in = &sc->large[i];
    ms_body *L = &s->wk.large[i];
    L->x = in->x;
    L->y = in->y;
    L->vx = in->is_static ? 0.0 : in->vx;
    L->vy = in->is_static ? 0.0 : in->vy;
    L->r = in->radius;
    L->m = in->mass;
    L->is_static = in->is_static;
    L->w = in->is_static || !s->p.friction_on ? 0.0 : in->spin;
    L->theta = s->p.friction_on ? in->theta : 0.0;
    if (L->r > s->p.r_large_max)
      s->p.r_large_max = L->r;
    s->wk.sweep_order[i] = i;
  }
  for (int i = sc->large_count; i < s->p.n_large; i++) {
    ms_body_park(&s->wk.large[i]);
    s->wk.sweep_order[i] = i;
  }
  return MS_OK;
}

/* Each side a wall, periodic (no wall, the axis wraps) or open (no wall). */
static void setup_sides(ms_params *p, const ms_scene *sc)
{
  for (int a = 0; a < 2; a++) {
    p->period[a] = sc->periodic[a] ? p->box[a] : 0.0;
    int low = 2 * a, high = 2 * a + 1;
    p->side[low] = sc->periodic[a] || sc->box_open[low] ? -HUGE_VAL : 0.0;
    p->side[high] = sc->periodic[a] || sc->box_open[high] ? HUGE_VAL : p->box[a];
  }
}

static void setup_params(ms_sim *s, const ms_scene *sc)
{
  s->p.dt = sc->dt_s;
  s->p.gx = sc->gravity[0];
  s->p.gy = sc->gravity[1];
  s->p.k = sc->stiffness;
  s->p.two_zeta = (float)(2.0 * ms_damping_ratio(sc->restitution));
  s->p.origin[0] = sc->box_min[0];
  s->p.origin[1] = sc->box_min[1];
  s->p.box[0] = sc->box_max[0] - sc->box_min[0];
  s->p.box[1] = sc->box_max[1] - sc->box_min[1];
  setup_sides(&s->p, sc);
  s->p.n_small = sc->small_count;
  s->p.r_small_max = sc->small_radius;
  s->p.pipeline = sc->pipeline;
  s->p.exchange = sc->exchange;
  s->p.large_on = sc->large_on;
  s->p.max_speed2 = sc->max_speed > 0.0f ? (double)sc->max_speed * sc->max_speed : 0.0;
  s->p.friction_on = ms_scene_friction_on(sc);
  s->p.mu = sc->friction;
  s->p.mu_r = sc->rolling_friction;
  s->p.mu_wall = sc->wall_friction;
  s->p.kt = sc->tangential_stiffness * sc->stiffness;
  s->p.small_spin0 = s->p.friction_on ? sc->small_spin : 0.0;
  s->dev.nl.skin = s->p.friction_on ? (float)(MS_NLIST_SKIN_RATIO * sc->small_radius) : 0.0f;
  /* The worker's list takes the small list's skin (collision/worker/ls_list.h: measured in
   * docs/friction.md) and is built at its first use. */
  s->p.worker_list = !sc->worker_list_off;
  s->p.list_skin = (float)(MS_NLIST_SKIN_RATIO * sc->small_radius);
  s->wk.wl.stale = 1;
  s->run.stats.worker_list = s->p.worker_list;
}

/* The small particles' (radius, mass) pairs, kept on the host for the CPU worker and
 * uploaded once for the kernels. */
static ms_status setup_shape(ms_sim *s, const ms_scene *sc)
{
  s->p.shape = malloc(((size_t)s->p.n_small + 1) * 2 * sizeof *s->p.shape);
  if (!s->p.shape)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d small particles", s->p.n_small);
  for (int i = 0; i < s->p.n_small; i++) {
    s->p.shape[2 * i] = sc->small_r[i];
    s->p.shape[2 * i + 1] = sc->small_m[i];
  }
  return MS_OK;
}

/* The default thread count of the CPU worker (worker_pool.h): the host's cores less the
 * manager's on a GPU, half less one on a CPU device, at most 16. */
static int default_cpu_threads(const ms_sim *s)
{
  return ms_pool_default_threads(sysconf(_SC_NPROCESSORS_ONLN),
                                 (s->cl.device_type & CL_DEVICE_TYPE_GPU) != 0);
}

/* MIXSIM_CPU_GRAIN: the large particles per thread below which a phase of the CPU worker
 * takes fewer threads (cpu_worker.c has the defaults); 1 splits every phase over all of
 * them, which the tests use to run the split paths on small scenes. Unset: 0, defaults. */
static ms_status read_grain(ms_sim *s)
{
  long grain = 0;
  ms_status st = ms_number_env("MIXSIM_CPU_GRAIN", 1, 1000000000L, &grain);
  s->wk.cpu_grain = (int)grain;
  return st;
}

/* How long the pool's threads poll between jobs: on a GPU, whose runtime leaves the
 * host's cores to the worker, while the pool fits beside the manager; never on a CPU
 * device, whose kernels need every core the pool would poll on. 3 ms spans a whole
 * iteration, the gap before sync 1 included, so a helper is awake when work arrives: on the
 * H200's host, 1M small + 1000 large ran 1.183 ms/iteration polling 0 or 200 us, 1.107 at
 * 1 ms and 1.078 at 3 ms (3 interleaved runs each, docs/collision.md). */
static double pool_spin_s(const ms_sim *s)
{
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (!(s->cl.device_type & CL_DEVICE_TYPE_GPU) || s->wk.cpu_threads >= cores)
    return 0.0;
  return 3e-3;
}

/* MIXSIM_POOL_SPIN_US: the polling above, in microseconds (0..10^6), for measuring it; it
 * never changes the state, only the time. Unset: the default. */
static ms_status read_spin(ms_sim *s, double *spin_s)
{
  long us = -1;
  ms_status st = ms_number_env("MIXSIM_POOL_SPIN_US", 0, 1000000L, &us);
  *spin_s = us >= 0 ? 1e-6 * (double)us : pool_spin_s(s);
  return st;
}

/* The CPU worker's pool: the scene's (or --cpu-threads') count, else the default. */
static ms_status setup_pool(ms_sim *s, const ms_scene *sc)
{
  ms_status st = read_grain(s);
  if (st)
    return st;
  s->wk.cpu_threads = sc->cpu_threads > 0 ? sc->cpu_threads : default_cpu_threads(s);
  s->wk.chunk = calloc((size_t)s->wk.cpu_threads, sizeof *s->wk.chunk);
  if (!s->wk.chunk)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the CPU worker pool");
  double spin_s = 0.0;
  st = read_spin(s, &spin_s);
  if (!st)
    st = ms_pool_create(s->wk.cpu_threads, &s->wk.pool);
  if (!st)
    ms_pool_set_spin(s->wk.pool, spin_s);
  return st;
}

/* Friction on: the rotation buffers, from `rot` ((theta, w) per particle) or, when NULL,
 * at angle 0 with the scene's initial spin. */
static ms_status load_rotation(ms_sim *s, const double *rot)
{
  double *start = NULL;
  if (!rot) {
    start = calloc(2 * (size_t)s->p.n_small + 2, sizeof *start);
    if (!start)
      return ms_fail(MS_ERR_RUNTIME, "out of memory for %d small particles", s->p.n_small);
    for (int i = 0; i < s->p.n_small; i++)
      start[2 * i + 1] = s->p.small_spin0;
  }
  ms_status st = ms_buffers_add_rotation(&s->x.buf, &s->cl, rot ? rot : start);
  free(start);
  return st;
}

/* Creates the device buffers in `mode` and fills them with the given state (`rot`:
 * friction on only, NULL for the scene's initial spins). */
ms_status ms_sim_load_buffers(ms_sim *s, ms_buffer_mode mode, size_t cap, const double *pos,
                              const double *vel, const double *rot)
{
  size_t bytes = (size_t)s->p.n_small * 2 * sizeof(double);
  ms_status st = ms_buffers_create(&s->x.buf, &s->cl, mode, (size_t)s->p.n_small, s->p.grid.n_cells,
                                   cap);
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.pos, pos, bytes);
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.vel, vel, bytes);
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.shape, s->p.shape,
                           (size_t)s->p.n_small * 2 * sizeof(float));
  if (!st && s->p.friction_on)
    st = load_rotation(s, rot);
  if (!st)
    st = ms_gpu_bind(&s->ctx, &s->dev);
  s->dev.grid_current = 0;
  invalidate_worker_list(s);
  s->run.stats.grid_capacity = (int)s->x.buf.cap;
  return st;
}

/* Without the scene or --exchange saying: the zone on a GPU when the full exchange would
 * move more than 6 MB an iteration (the state, F_ls and the grid), the full arrays
 * otherwise and on a CPU device. On the H200 (docs/scaling.md; copied buffers) the zone's
 * fixed cost, its layout kernels and one round trip, lost where the full arrays are
 * small (scenes/mixed.ini, 1 MB: 0.24 ms zone against 0.14 full; 8K small + 10 large:
 * 0.30 against 0.17), broke even at 7 MB (65K + 10: 0.31 both) and won above (65K + 1000
 * large, whose box makes a 16 MB grid: 0.39 against 0.85; 1M + 1000: 0.65 against 2.8;
 * 1M + 20,000: 2.1 against 4.7). pocl maps without copying, and full is never slower
 * there (2-core machine, 65K + 1000: 2.5 ms full-shared, 3.6 zone). exchange = auto
 * measures instead. */
static ms_exchange default_exchange(const ms_sim *s, size_t cap)
{
  if (!(s->cl.device_type & CL_DEVICE_TYPE_GPU) || s->p.n_small == 0)
    return MS_EXCHANGE_FULL;
  double n = (double)s->p.n_small;
  double bytes = n * (4 * sizeof(double) + 2 * sizeof(float)) +
                 (double)s->p.grid.n_cells * (double)(cap + 1) * sizeof(int);
  return bytes > 6e6 ? MS_EXCHANGE_ZONE : MS_EXCHANGE_FULL;
}

/* Buffers unless the scene or --buffers says: copied on a GPU, whose transfers of the
 * few bytes the worker needs beat mapping host memory (on the H200, 1M small + 1000 large
 * 0.74 ms/iteration copied against 1.06 shared, scenes/mixed.ini 0.231 against 0.263:
 * docs/collision.md); shared on a CPU device, where a map costs no copy. */
static ms_buffer_mode default_buffers(const ms_sim *s)
{
  return (s->cl.device_type & CL_DEVICE_TYPE_GPU) ? MS_BUFFERS_COPIED : MS_BUFFERS_SHARED;
}

/* Scene entries as history entries (the same pair and displacement); NULL: no memory. */
static ms_history_entry *entries_of(const ms_scene_contact *c, long n)
{
  ms_history_entry *e = malloc(((size_t)n + 1) * sizeof *e);
  for (long i = 0; e && i < n; i++)
    e[i] = (ms_history_entry){c[i].a, c[i].b, c[i].xi};
  return e;
}

/* The contact histories a scene read beside a dump (ms_scene.hist): the friction state as
 * loaded, exported, its (empty) histories replaced by the scene's, and imported back, as a
 * checkpoint's are. */
static ms_status import_scene_histories(ms_sim *s, const ms_scene_histories *h)
{
  ms_friction_state f;
  ms_status st = ms_sim_friction_export(s, &f);
  if (st)
    return st;
  free(f.ss);
  free(f.ls);
  free(f.ll);
  f.ss = entries_of(h->ss, h->n_ss);
  f.ls = entries_of(h->ls, h->n_ls);
  f.ll = entries_of(h->ll, h->n_ll);
  f.n_ss = (size_t)h->n_ss;
  f.n_ls = (size_t)h->n_ls;
  f.n_ll = (size_t)h->n_ll;
  if (h->small_wall_xi)
    memcpy(f.small_wall_xi, h->small_wall_xi, 4 * (size_t)s->p.n_small * sizeof(float));
  if (h->large_wall_xi)
    memcpy(f.large_wall_xi, h->large_wall_xi, 4 * (size_t)s->p.n_large * sizeof(float));
  st = f.ss && f.ls && f.ll ? ms_sim_friction_import(s, &f)
                            : ms_fail(MS_ERR_RUNTIME, "out of memory for the contact histories");
  ms_friction_state_free(&f);
  return st;
}

/* The device-only path's kernels, with the box's periods and the largest large radius as
 * constants (their seams: kernels/large.cl), exact in hexadecimal. */
static ms_status build_seams(ms_sim *s)
{
  char defines[256];
  snprintf(defines, sizeof defines, "-D MS_PERIOD_X=%a -D MS_PERIOD_Y=%a -D MS_R_LARGE_MAX=%a",
           s->p.period[0], s->p.period[1], (double)s->p.r_large_max);
  return ms_kernels_build_seams(&s->kern, &s->cl, defines);
}

/* The program every scene shares; the device-only path's if the run starts on it. */
static ms_status build_kernels(ms_sim *s, const char *kdir)
{
  ms_status st = ms_kernels_build(&s->kern, &s->cl, kdir, s->p.diag);
  return !st && s->p.large_on == MS_LARGE_ON_DEVICE ? build_seams(s) : st;
}

ms_status ms_sim_create(const ms_scene *sc, const ms_sim_options *opt, ms_sim **out)
{
  *out = NULL;
  if (sc->mode != MS_MODE_COLLISION)
    return ms_fail(MS_ERR_INPUT, "%s: not a collision-mode scene", sc->path);
  ms_sim *s = aligned_alloc(MS_LINE, sizeof *s); /* sizeof is a multiple of MS_LINE */
  if (!s)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  memset(s, 0, sizeof *s);
  s->ctx = (ms_ctx){&s->p, &s->x, &s->cl, &s->kern, &s->run.stats, &s->run.trace};
  ms_sync_init(&s->run.sync);
  setup_params(s, sc);
  s->p.diag = opt && opt->diagnostics;
  const char *device = opt && opt->device ? opt->device : getenv("MIXSIM_DEVICE");
  const char *kdir = opt && opt->kernel_dir ? opt->kernel_dir : getenv("MIXSIM_KERNEL_DIR");
  if (kdir && !*kdir)
    kdir = NULL;
  ms_status st = setup_grid(s, sc);
  if (!st)
    st = setup_large(s, sc);
  if (!st)
    st = ms_wall_defs_make(&s->p, sc);
  if (!st)
    st = ms_walls_init(&s->p, &s->wk);
  if (!st)
    st = setup_shape(s, sc);
  if (!st)
    st = ms_cl_open(device, (ms_cl_profile)sc->profile, &s->cl);
  s->run.trace.profiled = s->cl.profiled;
  if (!st)
    st = ms_cl_require_fp64(&s->cl);
  if (!st)
    st = setup_pool(s, sc);
  if (!st)
    st = build_kernels(s, kdir);
  if (!st)
    st = ms_diss_create(s); /* before the first binding, which passes it */
  if (!st && s->p.friction_on)
    st = ms_nlist_create(&s->ctx, &s->dev);
  if (!st && !sc->exchange_given)
    s->p.exchange = default_exchange(s, (size_t)sc->grid_capacity);
  if (!st)
    st = ms_sim_load_buffers(s, sc->buffers_given ? sc->buffers : default_buffers(s),
                             (size_t)sc->grid_capacity, sc->small_pos, sc->small_vel,
                      sc->small_rot); /* (NULL: angle 0 and the scene's spin) */
  if (!st && s->p.friction_on && sc->hist.present)
    st = import_scene_histories(s, &sc->hist);
  if (!st)
    st = ms_ids_init(&s->ids, sc, s->p.n_large);
  if (!st)
    st = ms_open_init(&s->open, sc);
  if (st) {
    ms_sim_destroy(s);
    return st;
  }
  *out = s;
  return MS_OK;
}

void ms_sim_destroy(ms_sim *s)
{
  if (!s)
    return;
  ms_gpu_release_keys(&s->dev);
  ms_zone_release(&s->x.zone, &s->cl);
  ms_diss_release(s);
  ms_dl_release(&s->dl);
  ms_forces_release(&s->dev.forces);
  ms_nlist_release(&s->dev.nl);
  ms_ls_list_release(&s->wk.wl);
  ms_list_check_release(&s->dev.wlc);
  ms_buffers_release(&s->x.buf, &s->cl);
  ms_open_free(&s->open); /* its device filter's buffers before the context */
  ms_kernels_release(&s->kern);
  ms_cl_close(&s->cl);
  ms_sync_destroy(&s->run.sync);
  ms_pool_destroy(s->wk.pool);
  for (int t = 0; s->wk.chunk && t < s->wk.cpu_threads; t++) {
    free(s->wk.chunk[t].ls);
    free(s->wk.chunk[t].ll);
    free(s->wk.chunk[t].cand);
    free(s->wk.chunk[t].wr);
    free(s->wk.chunk[t].hit);
    free(s->wk.chunk[t].feature);
    free(s->wk.chunk[t].wxi);
  }
  free(s->wk.chunk);
  ms_history_free(&s->wk.hist);
  ms_walls_free(&s->p, &s->wk);
  ms_wall_defs_free(&s->p);
  free(s->wk.large_prev);
  free(s->wk.large);
  free(s->p.large_origin);
  free(s->wk.sweep_order);
  free(s->wk.sweep);
  free(s->p.shape);
  ms_ids_free(&s->ids);
  free(s);
}

ms_status ms_sim_advance(ms_sim *s, long iterations)
{
  if (iterations <= 0)
    return MS_OK;
  return s->open.on ? ms_open_advance(s, iterations) : ms_pipeline_run(s, iterations);
}

int ms_sim_small_count(const ms_sim *s)
{
  int n = 0;
  for (int i = 0; i < s->p.n_small; i++)
    n += s->p.shape[2 * i + 1] != 0.0f;
  return n;
}

void ms_sim_set_pipeline(ms_sim *s, ms_pipeline p) { s->p.pipeline = p; }
/* A switch of the exchange or of large_on may start or stop the worker's list (its
 * flags were not kept meanwhile): it is rebuilt at its next use. */
void ms_sim_set_exchange(ms_sim *s, ms_exchange e)
{
  s->p.exchange = e;
  invalidate_worker_list(s);
}
ms_exchange ms_sim_exchange(const ms_sim *s) { return s->p.exchange; }
/* Either path starts each advance from the host's large particles (device_large.h). The
 * device-only path's kernels are built at the first switch to it, between advances. */
ms_status ms_sim_set_large_on(ms_sim *s, ms_large_on where)
{
  ms_status st = where == MS_LARGE_ON_DEVICE ? build_seams(s) : MS_OK;
  if (st)
    return st;
  s->p.large_on = where;
  invalidate_worker_list(s);
  return MS_OK;
}
ms_large_on ms_sim_large_on(const ms_sim *s) { return s->p.large_on; }
void ms_sim_request_stop(ms_sim *s) { atomic_store(&s->run.stop_requested, 1); }
int ms_sim_stop_requested(const ms_sim *s) { return atomic_load(&s->run.stop_requested); }
ms_pipeline ms_sim_pipeline(const ms_sim *s) { return s->p.pipeline; }
ms_buffer_mode ms_sim_buffers(const ms_sim *s) { return s->x.buf.mode; }
long ms_sim_step(const ms_sim *s) { return s->run.step; }
int ms_sim_friction_on(const ms_sim *s) { return s->p.friction_on; }
int ms_sim_wall_count(const ms_sim *s) { return s->p.n_walls; }
void ms_sim_wall(ms_sim *s, int k, ms_wall_info *out)
{
  ms_walls_info(&s->p, &s->wk, k, s->run.step, out);
}
const ms_sim_stats *ms_sim_get_stats(const ms_sim *s) { return &s->run.stats; }
const char *ms_sim_device_name(const ms_sim *s) { return s->cl.device_name; }
const char *ms_sim_platform_name(const ms_sim *s) { return s->cl.platform_name; }
int ms_sim_device_is_gpu(const ms_sim *s) { return (s->cl.device_type & CL_DEVICE_TYPE_GPU) != 0; }

void ms_sim_origin(const ms_sim *s, double origin[2])
{
  origin[0] = s->p.origin[0];
  origin[1] = s->p.origin[1];
}

float ms_sim_small_radius(const ms_sim *s, int i) { return s->p.shape[2 * i]; }
float ms_sim_small_mass(const ms_sim *s, int i) { return s->p.shape[2 * i + 1]; }
const int64_t *ms_sim_small_ids(const ms_sim *s) { return s->ids.small; }
const int64_t *ms_sim_large_ids(const ms_sim *s) { return s->ids.large; }
int64_t ms_sim_next_id(const ms_sim *s) { return s->ids.next; }

ms_status ms_sim_set_buffers(ms_sim *s, ms_buffer_mode mode)
{
  if (mode == s->x.buf.mode)
    return MS_OK;
  ms_state st;
  ms_status rc = ms_sim_read_state(s, &st);
  if (rc)
    return rc;
  size_t cap = s->x.buf.cap;
  ms_buffers_release(&s->x.buf, &s->cl);
  /* F_ls is all zero between iterations, and the grid is rebuilt from the positions. */
  rc = ms_sim_load_buffers(s, mode, cap, st.small_pos, st.small_vel, st.small_rot);
  if (!rc && st.small_img)
    rc = ms_sim_set_images(s, st.small_img, st.large_img);
  ms_state_free(&st);
  if (!rc) /* here, not in the next advance's first zone (an automatic choice times that) */
    rc = ms_zone_follow_buffers(&s->ctx);
  return rc;
}

ms_status ms_sim_move_large(ms_sim *s, int index, double x, double y)
{
  if (index < 0 || index >= s->p.n_large)
    return ms_fail(MS_ERR_INPUT, "no large particle %d (there are %d)", index, s->p.n_large);
  if (!isfinite(x) || !isfinite(y))
    return ms_fail(MS_ERR_INPUT, "large particle %d: position is not finite", index);
  ms_body *L = &s->wk.large[index];
  L->x = x;
  L->y = y;
  L->vx = 0.0;
  L->vy = 0.0;
  L->w = 0.0; /* put down at rest: no spin either (friction on) */
  s->dev.forces.step = -1; /* no step made this state */
  s->dev.nl.stale = 1; /* friction on: the neighbour list is rebuilt with the grid, as after any
                      change from outside the run */
  /* The case study rebuilds the grid after a user moves a particle. Our grid holds only
   * small particles, so a moved large one leaves it valid; the rebuild keeps to the
   * prescription and costs one grid build. */
  s->run.changes++;
  s->dev.grid_current = 0;
  invalidate_worker_list(s);
  return MS_OK;
}

ms_status ms_sim_set_images(ms_sim *s, const int *small_img, const int *large_img)
{
  for (int i = 0; i < s->p.n_large; i++) {
    s->wk.large[i].img[0] = large_img ? large_img[2 * i] : 0;
    s->wk.large[i].img[1] = large_img ? large_img[2 * i + 1] : 0;
  }
  size_t bytes = (size_t)s->p.n_small * 2 * sizeof(int);
  int *zero = small_img ? NULL : calloc(bytes + 1, 1);
  if (!small_img && !zero)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the images");
  ms_status st = ms_buffers_upload(&s->cl, s->x.buf.img, small_img ? small_img : zero, bytes);
  free(zero);
  return st;
}

ms_status ms_sim_set_shapes(ms_sim *s, const float *shape)
{
  s->open.low_empty = 0; /* any slot may be empty now */
  size_t bytes = (size_t)s->p.n_small * 2 * sizeof(float);
  memcpy(s->p.shape, shape, bytes);
  ms_sim_state_changed(s);
  return ms_buffers_upload(&s->cl, s->x.buf.shape, s->p.shape, bytes);
}

ms_status ms_sim_set_small_keys(ms_sim *s, const int *key)
{
  ms_sim_state_changed(s);
  if (!s->p.friction_on)
    return ms_gpu_set_keys(&s->ctx, &s->dev, key);
  /* The lists hold their partners in the order of the keys: out and back in by them. */
  ms_friction_state f;
  ms_status st = ms_sim_friction_export(s, &f);
  if (!st)
    st = ms_gpu_set_keys(&s->ctx, &s->dev, key);
  if (!st)
    st = ms_sim_friction_import(s, &f);
  ms_friction_state_free(&f);
  return st;
}

ms_status ms_sim_set_large_shapes(ms_sim *s, const float *shape, const int32_t *is_static)
{
  for (int i = 0; i < s->p.n_large; i++) {
    ms_body *L = &s->wk.large[i];
    if (shape[2 * i + 1] == 0.0f) {
      ms_body_park(L);
      continue;
    }
    L->r = shape[2 * i];
    L->m = shape[2 * i + 1];
    L->is_static = is_static[i] != 0;
  }
  s->dl.shapes_stale = 1;
  ms_sim_state_changed(s);
  return MS_OK;
}

ms_status ms_sim_restore(ms_sim *s, long step, size_t capacity, const double *small_pos,
                         const double *small_vel, const double *large_state)
{
  size_t bytes = (size_t)s->p.n_small * 2 * sizeof(double);
  ms_status st = MS_OK;
  if (capacity != s->x.buf.cap) {
    st = ms_buffers_set_capacity(&s->x.buf, &s->cl, capacity);
    if (!st)
      st = ms_gpu_bind(&s->ctx, &s->dev);
    s->run.stats.grid_capacity = (int)s->x.buf.cap;
  }
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.pos, small_pos, bytes);
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.vel, small_vel, bytes);
  if (!st)
    st = ms_buffers_clear_forces(&s->x.buf, &s->cl);
  if (st)
    return st;
  for (int i = 0; i < s->p.n_large; i++) {
    ms_body *L = &s->wk.large[i];
    L->x = large_state[4 * i];
    L->y = large_state[4 * i + 1];
    L->vx = L->is_static ? 0.0 : large_state[4 * i + 2];
    L->vy = L->is_static ? 0.0 : large_state[4 * i + 3];
  }
  s->run.step = step;
  s->run.changes++;
  ms_walls_reset(&s->p, &s->wk); /* ms_sim_walls_import puts the saved state back */
  s->dev.forces.step = -1; /* no step of this run made this state */
  s->dev.grid_current = 0;
  invalidate_worker_list(s);
  if ((st = ms_diss_reset(s)))
    return st;
  /* The histories belonged to the state left behind: ms_sim_friction_import puts the
   * saved ones back. */
  return s->p.friction_on ? ms_nlist_reset(&s->ctx, &s->dev) : MS_OK;
}

ms_status ms_sim_friction_export(ms_sim *s, ms_friction_state *out)
{
  memset(out, 0, sizeof *out);
  if (!s->p.friction_on)
    return ms_fail(MS_ERR_INPUT, "the simulation has no friction state (friction is off)");
  size_t n = (size_t)s->p.n_small;
  out->n_small = s->p.n_small;
  out->n_large = s->p.n_large;
  out->small_rot = malloc((2 * n + 1) * sizeof *out->small_rot);
  if (!out->small_rot) {
    ms_friction_state_free(out);
    return ms_fail(MS_ERR_RUNTIME, "out of memory exporting the friction state");
  }
  ms_status st = ms_buffers_download(&s->cl, s->x.buf.rot, out->small_rot, 2 * n * sizeof(double));
  if (!st)
    st = ms_nlist_export(&s->ctx, &s->dev, out);
  if (!st)
    st = ms_worker_history_export(&s->wk.hist, s->wk.large, s->p.n_large, out);
  if (st)
    ms_friction_state_free(out);
  return st;
}

ms_status ms_sim_friction_import(ms_sim *s, const ms_friction_state *in)
{
  if (!s->p.friction_on)
    return ms_fail(MS_ERR_INPUT, "the simulation has no friction state (friction is off)");
  if ((s->p.n_small > 0 && !in->small_rot) || (s->p.n_large > 0 && !in->large_rot))
    return ms_fail(MS_ERR_INPUT, "friction state without the particles' rotation");
  if (in->n_small != s->p.n_small || in->n_large != s->p.n_large)
    return ms_fail(MS_ERR_INPUT, "friction state of %d small and %d large particles, the "
                                 "simulation has %d and %d",
                   in->n_small, in->n_large, s->p.n_small, s->p.n_large);
  ms_status st = ms_buffers_upload(&s->cl, s->x.buf.rot, in->small_rot,
                                   (size_t)s->p.n_small * 2 * sizeof(double));
  if (!st)
    st = ms_nlist_import(&s->ctx, &s->dev, in);
  if (!st)
    st = ms_worker_history_import(&s->wk.hist, s->wk.large, s->p.n_large, s->p.n_small, in);
  s->dev.grid_current = 0;
  invalidate_worker_list(s);
  return st;
}

ms_status ms_sim_walls_export(const ms_sim *s, ms_walls_state *out)
{
  return ms_walls_export(&s->p, &s->wk, out);
}

ms_status ms_sim_walls_import(ms_sim *s, const ms_walls_state *in)
{
  return ms_walls_import(&s->p, &s->wk, in);
}
