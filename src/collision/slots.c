/* The small particles' slots: read back, emptied, filled, grown and sent down between
 * advances (collision/slots.h). */
#include "collision/slots.h"

#include <stdlib.h>
#include <string.h>

#include "collision/device/gpu_manager.h"
#include "collision/device/nlist.h"
#include "collision/dissipation.h"
#include "collision/exchange/zone.h"
#include "collision/forces.h"
#include "collision/sim_internal.h"
#include "shared/grid.h"

void ms_slots_view_free(ms_slots_view *v)
{
  free(v->pos);
  free(v->vel);
  free(v->rot);
  free(v->img);
  free(v->freed);
  free(v->changed);
  memset(v, 0, sizeof *v);
}

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the small particles' slots");
}

/* Host arrays for n slots (what `from` held kept); 0: no memory. */
static int host_arrays(ms_slots_view *v, int friction, size_t n)
{
  double *pos = realloc(v->pos, (2 * n + 1) * sizeof *pos);
  v->pos = pos ? pos : v->pos;
  double *vel = realloc(v->vel, (2 * n + 1) * sizeof *vel);
  v->vel = vel ? vel : v->vel;
  int *img = realloc(v->img, (2 * n + 1) * sizeof *img);
  v->img = img ? img : v->img;
  uint8_t *freed = realloc(v->freed, n + 1);
  v->freed = freed ? freed : v->freed;
  uint8_t *changed = realloc(v->changed, n + 1);
  v->changed = changed ? changed : v->changed;
  double *rot = friction ? realloc(v->rot, (2 * n + 1) * sizeof *rot) : NULL;
  v->rot = rot ? rot : v->rot;
  return pos && vel && img && freed && changed && (!friction || rot);
}

ms_status ms_slots_prepare(ms_sim *s, ms_slots_view *v)
{
  size_t n = (size_t)s->p.n_small;
  if (v->n != s->p.n_small || !v->pos) {
    if (!host_arrays(v, s->p.friction_on, n)) {
      ms_slots_view_free(v);
      return no_memory();
    }
    v->n = s->p.n_small;
  }
  memset(v->freed, 0, n + 1);
  memset(v->changed, 0, n + 1);
  return MS_OK;
}

int ms_slots_empty(const ms_sim *s, int i) { return s->p.shape[2 * i + 1] == 0.0f; }

static void set_slot(ms_sim *s, ms_slots_view *v, int i, const double pv[4], float r, float m,
                     double w)
{
  v->changed[i] = 1;
  memcpy(&v->pos[2 * i], pv, 2 * sizeof(double));
  memcpy(&v->vel[2 * i], pv + 2, 2 * sizeof(double));
  v->img[2 * i] = v->img[2 * i + 1] = 0;
  if (v->rot) {
    v->rot[2 * i] = 0.0;
    v->rot[2 * i + 1] = w;
  }
  s->p.shape[2 * i] = r;
  s->p.shape[2 * i + 1] = m;
}

void ms_slots_clear(ms_sim *s, ms_slots_view *v, int i)
{
  const double pv[4] = {MS_SLOT_EMPTY_AT, MS_SLOT_EMPTY_AT, 0.0, 0.0};
  set_slot(s, v, i, pv, 0.0f, 0.0f, 0.0);
  s->ids.small[i] = -1;
  v->freed[i] = 1;
}

void ms_slots_fill(ms_sim *s, ms_slots_view *v, int i, double x, double y, double vx, double vy,
                   float r, float m, double spin)
{
  const double pv[4] = {x, y, vx, vy};
  set_slot(s, v, i, pv, r, m, s->p.friction_on ? spin : 0.0);
  s->ids.small[i] = s->ids.next++;
}

/* ---- growing ------------------------------------------------------------------------ */

/* Every host array of the slots at n2, the new slots empty. */
static int grow_host(ms_sim *s, ms_slots_view *v, int n2)
{
  size_t n = (size_t)n2;
  float *shape = realloc(s->p.shape, (2 * n + 1) * sizeof *shape);
  s->p.shape = shape ? shape : s->p.shape;
  int64_t *ids = realloc(s->ids.small, (n + 1) * sizeof *ids);
  s->ids.small = ids ? ids : s->ids.small;
  if (!host_arrays(v, s->p.friction_on, n) || !shape || !ids)
    return 0;
  for (int i = v->n; i < n2; i++) {
    ms_slots_clear(s, v, i);
    v->freed[i] = 0;
  }
  s->ids.n_small = n2;
  return 1;
}

/* The whole state of the slots on the host, the changed slots sent down first. */
static ms_status read_all(ms_sim *s, ms_slots_view *v)
{
  ms_status st = ms_slots_write(s, v);
  size_t n = (size_t)v->n;
  ms_buffers *b = &s->x.buf;
  if (!st)
    st = ms_buffers_download(&s->cl, b->pos, v->pos, 2 * n * sizeof(double));
  if (!st)
    st = ms_buffers_download(&s->cl, b->vel, v->vel, 2 * n * sizeof(double));
  if (!st)
    st = ms_buffers_download(&s->cl, b->img, v->img, 2 * n * sizeof(int));
  if (!st && v->rot)
    st = ms_buffers_download(&s->cl, b->rot, v->rot, 2 * n * sizeof(double));
  return st;
}

/* The friction state at n2 slots: the small particles' rotation and box-wall histories
 * lengthened, the new slots' empty. */
static int pad_friction(ms_friction_state *f, const ms_slots_view *v, int n2)
{
  float *wxi = calloc(4 * (size_t)n2 + 1, sizeof *wxi);
  double *rot = malloc((2 * (size_t)n2 + 1) * sizeof *rot);
  if (!wxi || !rot) {
    free(wxi);
    free(rot);
    return 0;
  }
  if (f->small_wall_xi)
    memcpy(wxi, f->small_wall_xi, 4 * (size_t)f->n_small * sizeof *wxi);
  memcpy(rot, v->rot, 2 * (size_t)n2 * sizeof *rot);
  free(f->small_wall_xi);
  free(f->small_rot);
  f->small_wall_xi = wxi;
  f->small_rot = rot;
  f->n_small = n2;
  return 1;
}

/* Releases what is sized by the slots on the device; each part is made again at its size
 * (the zone, the kept forces, the worker list's check and the device-only buffers when
 * next used). */
static void release_device(ms_sim *s)
{
  ms_zone_release(&s->x.zone, &s->cl);
  ms_forces_release(&s->dev.forces);
  ms_list_check_release(&s->dev.wlc);
  ms_dl_release(&s->dl);
  if (s->p.friction_on)
    ms_nlist_release(&s->dev.nl);
  ms_gpu_release_keys(&s->dev); /* sized by the slots: the keys go with them */
}

/* The device made again around n slots whose state is pos, vel, rot on the host: the
 * growth's and the restore's one path, so both leave the same device behind. `diss` is
 * the small particles' dissipation taken before (ms_diss_take_small). */
static ms_status rebuild_device(ms_sim *s, int n, const double *diss, const double *pos,
                                const double *vel, const double *rot)
{
  int n0 = s->p.n_small;
  size_t cap = s->x.buf.cap;
  ms_buffer_mode mode = s->x.buf.mode;
  release_device(s);
  ms_buffers_release(&s->x.buf, &s->cl);
  s->p.n_small = s->ids.n_small = n;
  ms_status st = ms_diss_resize_small(s, diss, n0);
  if (!st && s->p.friction_on)
    st = ms_nlist_create(&s->ctx, &s->dev);
  if (!st)
    st = ms_sim_load_buffers(s, mode, cap, pos, vel, rot);
  return st;
}

static ms_status grow_to(ms_sim *s, ms_slots_view *v, int n2);

ms_status ms_slots_grow(ms_sim *s, ms_slots_view *v, int need)
{
  /* Doubling while small (each growth rebuilds the device); a 64th more beyond 65536
   * slots, so that the kernels, which run over every slot, run over few empty ones (a
   * growth every 16 s of a 1000/s inflow at a million: its rebuild is nothing beside). */
  int n = v->n, more = n < 65536 ? n : n / 64;
  int n2 = n + more > need ? n + more : need;
  return grow_to(s, v, n2 < 64 ? 64 : n2);
}

ms_status ms_slots_resize(ms_sim *s, int n)
{
  if (n == s->p.n_small)
    return MS_OK;
  /* Every slot empty: the caller (a checkpoint's or a snapshot's restore) puts the whole
   * state back next, friction, walls and ids included. */
  ms_slots_view v = {0};
  float *shape = realloc(s->p.shape, (2 * (size_t)n + 1) * sizeof *shape);
  s->p.shape = shape ? shape : s->p.shape;
  int64_t *ids = realloc(s->ids.small, ((size_t)n + 1) * sizeof *ids);
  s->ids.small = ids ? ids : s->ids.small;
  ms_status st = shape && ids && host_arrays(&v, s->p.friction_on, (size_t)n) ? MS_OK : no_memory();
  for (int i = 0; !st && i < n; i++)
    ms_slots_clear(s, &v, i);
  double *diss = NULL;
  if (!st)
    st = ms_diss_take_small(s, &diss);
  if (!st)
    st = rebuild_device(s, n, diss, v.pos, v.vel, v.rot);
  free(diss);
  ms_slots_view_free(&v);
  return st;
}

static ms_status grow_to(ms_sim *s, ms_slots_view *v, int n2)
{
  ms_friction_state f = {0};
  ms_walls_state w = {0};
  ms_status st = read_all(s, v);
  if (!st && s->p.friction_on)
    st = ms_sim_friction_export(s, &f);
  if (!st)
    st = ms_sim_walls_export(s, &w);
  double *diss = NULL;
  if (!st)
    st = ms_diss_take_small(s, &diss);
  if (!st && !grow_host(s, v, n2))
    st = no_memory();
  if (!st && s->p.friction_on && !pad_friction(&f, v, n2))
    st = no_memory();
  if (!st)
    st = rebuild_device(s, n2, diss, v->pos, v->vel, v->rot);
  if (!st)
    st = ms_buffers_upload(&s->cl, s->x.buf.img, v->img, 2 * (size_t)n2 * sizeof(int));
  if (!st && s->p.friction_on)
    st = ms_sim_friction_import(s, &f);
  if (!st)
    st = ms_sim_walls_import(s, &w);
  ms_friction_state_free(&f);
  ms_walls_state_free(&w);
  free(diss);
  v->n = s->p.n_small;
  memset(v->changed, 0, (size_t)v->n); /* every slot went down whole */
  return st;
}

/* Slots [a, b) of each array, without waiting. */
static ms_status write_run(ms_sim *s, const ms_slots_view *v, size_t a, size_t b)
{
  ms_buffers *b_ = &s->x.buf;
  struct {
    cl_mem m;
    const void *host;
    size_t each;
  } arrays[] = {{b_->pos, v->pos, 2 * sizeof(double)},  {b_->vel, v->vel, 2 * sizeof(double)},
                {b_->shape, s->p.shape, 2 * sizeof(float)}, {b_->img, v->img, 2 * sizeof(int)},
                {b_->rot, v->rot, 2 * sizeof(double)}};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
    if (!arrays[k].host)
      continue;
    size_t at = a * arrays[k].each, bytes = (b - a) * arrays[k].each;
    cl_int err = clEnqueueWriteBuffer(s->cl.gpu_queue, arrays[k].m, CL_FALSE, at, bytes,
                                      (const char *)arrays[k].host + at, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clEnqueueWriteBuffer", "the slots of an exchange");
  }
  return MS_OK;
}

ms_status ms_slots_write(ms_sim *s, const ms_slots_view *v)
{
  ms_status st = MS_OK;
  int any = 0;
  for (size_t i = 0; !st && i < (size_t)v->n; i++) {
    if (!v->changed[i])
      continue;
    size_t j = i;
    while (j < (size_t)v->n && v->changed[j])
      j++;
    st = write_run(s, v, i, j);
    any = 1;
    i = j;
  }
  if (!st && any)
    st = ms_cl_check(clFinish(s->cl.gpu_queue), "clFinish", "the slots of an exchange");
  if (any)
    ms_sim_state_changed(s);
  return st;
}
