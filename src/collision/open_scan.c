/* The exchange's device-side filter (collision/open_scan.h, kernels/open.cl). */
#include "collision/open_scan.h"

#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"

/* Records each list holds at first; a scan that finds more reruns with room for them. */
#define FIRST_ROOM 1024

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the scene's flows");
}

/* The outflows' regions, the inflows' and how far from each a particle can touch a
 * newcomer: its largest radius and the largest small one, widened by a relative 1e-6 so
 * that the device's test keeps every particle the host's exact one would. */
static ms_status upload_regions(ms_sim *s, ms_open_scan *sc)
{
  const ms_open *o = &s->open;
  double *out = calloc(4 * (size_t)o->n_out + 4, sizeof *out);
  double *in = calloc(4 * (size_t)o->n_in + 4, sizeof *in);
  double *reach = calloc((size_t)o->n_in + 1, sizeof *reach);
  ms_status st = out && in && reach ? MS_OK : no_memory();
  for (int k = 0; !st && k < o->n_out; k++)
    memcpy(&out[4 * k], o->out[k].region, 4 * sizeof(double));
  for (int k = 0; !st && k < o->n_in; k++) {
    memcpy(&in[4 * k], o->in[k].region, 4 * sizeof(double));
    reach[k] = ((double)o->in[k].radius_max + (double)s->p.r_small_max) * (1.0 + 1e-6);
  }
  if (!st)
    st = ms_cl_buffer(&s->cl, 4 * (size_t)o->n_out * sizeof(double), "outflow regions",
                      &sc->out_rect);
  if (!st)
    st = ms_cl_buffer(&s->cl, 4 * (size_t)o->n_in * sizeof(double), "inflow regions", &sc->in_rect);
  if (!st)
    st = ms_cl_buffer(&s->cl, (size_t)o->n_in * sizeof(double), "inflow reaches", &sc->in_reach);
  if (!st && o->n_out)
    st = ms_buffers_upload(&s->cl, sc->out_rect, out, 4 * (size_t)o->n_out * sizeof(double));
  if (!st && o->n_in)
    st = ms_buffers_upload(&s->cl, sc->in_rect, in, 4 * (size_t)o->n_in * sizeof(double));
  if (!st && o->n_in)
    st = ms_buffers_upload(&s->cl, sc->in_reach, reach, (size_t)o->n_in * sizeof(double));
  free(out);
  free(in);
  free(reach);
  return st;
}

static int list_room(ms_scan_list *l, int room)
{
  int *slot = realloc(l->slot, ((size_t)room + 1) * sizeof *slot);
  l->slot = slot ? slot : l->slot;
  double *xy = realloc(l->xy, (2 * (size_t)room + 1) * sizeof *xy);
  l->xy = xy ? xy : l->xy;
  return slot && xy;
}

/* Room for `room` records in each list, on the device and the host. */
static ms_status set_room(ms_sim *s, ms_open_scan *sc, int room)
{
  ms_cl_release_buffer(&sc->leave_idx);
  ms_cl_release_buffer(&sc->leave_pos);
  ms_cl_release_buffer(&sc->near_idx);
  ms_cl_release_buffer(&sc->near_pos);
  sc->room = room;
  size_t n = (size_t)room;
  ms_status st = list_room(&sc->leave, room) && list_room(&sc->near, room) ? MS_OK : no_memory();
  if (!st)
    st = ms_cl_buffer(&s->cl, n * sizeof(cl_int), "exchange records", &sc->leave_idx);
  if (!st)
    st = ms_cl_buffer(&s->cl, n * 2 * sizeof(double), "exchange records", &sc->leave_pos);
  if (!st)
    st = ms_cl_buffer(&s->cl, n * sizeof(cl_int), "exchange records", &sc->near_idx);
  if (!st)
    st = ms_cl_buffer(&s->cl, n * 2 * sizeof(double), "exchange records", &sc->near_pos);
  return st;
}

static ms_status make(ms_sim *s, ms_open_scan *sc)
{
  ms_status st = ms_cl_buffer(&s->cl, 2 * sizeof(cl_int), "exchange counters", &sc->count);
  if (!st)
    st = upload_regions(s, sc);
  if (!st)
    st = set_room(s, sc, FIRST_ROOM);
  sc->made = !st;
  return st;
}

static ms_status set_args(ms_sim *s, const ms_open_scan *sc, int n)
{
  const ms_open *o = &s->open;
  cl_kernel k = s->kern.kernel[MS_K_OPEN_SCAN];
  cl_int4 open = {{o->open[0], o->open[1], o->open[2], o->open[3]}};
  cl_double2 box = {{s->p.box[0], s->p.box[1]}}, period = {{s->p.period[0], s->p.period[1]}};
  cl_int n_out = o->n_out, n_in = o->n_in, room = sc->room;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof(cl_mem), &s->x.buf.pos);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &s->x.buf.shape);
  err |= clSetKernelArg(k, 3, sizeof n_out, &n_out);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &sc->out_rect);
  err |= clSetKernelArg(k, 5, sizeof open, &open);
  err |= clSetKernelArg(k, 6, sizeof box, &box);
  err |= clSetKernelArg(k, 7, sizeof n_in, &n_in);
  err |= clSetKernelArg(k, 8, sizeof(cl_mem), &sc->in_rect);
  err |= clSetKernelArg(k, 9, sizeof(cl_mem), &sc->in_reach);
  err |= clSetKernelArg(k, 10, sizeof period, &period);
  err |= clSetKernelArg(k, 11, sizeof room, &room);
  err |= clSetKernelArg(k, 12, sizeof(cl_mem), &sc->count);
  err |= clSetKernelArg(k, 13, sizeof(cl_mem), &sc->leave_idx);
  err |= clSetKernelArg(k, 14, sizeof(cl_mem), &sc->leave_pos);
  err |= clSetKernelArg(k, 15, sizeof(cl_mem), &sc->near_idx);
  err |= clSetKernelArg(k, 16, sizeof(cl_mem), &sc->near_pos);
  return ms_cl_check(err, "clSetKernelArg", "ms_open_scan");
}

/* One pass of the kernel; the counters into count. */
static ms_status scan_once(ms_sim *s, ms_open_scan *sc, int n, cl_int count[2])
{
  count[0] = count[1] = 0;
  ms_status st = ms_buffers_upload(&s->cl, sc->count, count, 2 * sizeof(cl_int));
  if (!st)
    st = set_args(s, sc, n);
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_OPEN_SCAN, (size_t)n, NULL);
  if (!st)
    st = ms_buffers_download(&s->cl, sc->count, count, 2 * sizeof(cl_int));
  return st;
}

typedef struct record {
  int slot;
  double x, y;
} record;

static int by_slot(const void *a, const void *b)
{
  int x = ((const record *)a)->slot, y = ((const record *)b)->slot;
  return (x > y) - (x < y);
}

/* count records from idx and pos into l, sorted by slot (the atomics' order is not). */
static ms_status fetch(ms_sim *s, cl_mem idx, cl_mem pos, int count, ms_scan_list *l)
{
  l->n = count;
  if (count == 0)
    return MS_OK;
  ms_status st = ms_buffers_download(&s->cl, idx, l->slot, (size_t)count * sizeof(int));
  if (!st)
    st = ms_buffers_download(&s->cl, pos, l->xy, (size_t)count * 2 * sizeof(double));
  record *r = st ? NULL : malloc((size_t)count * sizeof *r);
  if (!st && !r)
    st = no_memory();
  if (st)
    return st;
  for (int e = 0; e < count; e++)
    r[e] = (record){l->slot[e], l->xy[2 * e], l->xy[2 * e + 1]};
  qsort(r, (size_t)count, sizeof *r, by_slot);
  for (int e = 0; e < count; e++) {
    l->slot[e] = r[e].slot;
    l->xy[2 * e] = r[e].x;
    l->xy[2 * e + 1] = r[e].y;
  }
  free(r);
  return MS_OK;
}

ms_status ms_open_scan_run(ms_sim *s)
{
  ms_open_scan *sc = &s->open.scan;
  sc->leave.n = sc->near.n = 0;
  int n = s->p.n_small;
  ms_status st = sc->made ? MS_OK : make(s, sc);
  if (st || n == 0)
    return st;
  cl_int count[2];
  st = scan_once(s, sc, n, count);
  if (!st && (count[0] > sc->room || count[1] > sc->room)) {
    int need = count[0] > count[1] ? count[0] : count[1];
    st = set_room(s, sc, need + need / 2);
    if (!st)
      st = scan_once(s, sc, n, count);
  }
  if (!st)
    st = fetch(s, sc->leave_idx, sc->leave_pos, count[0], &sc->leave);
  if (!st)
    st = fetch(s, sc->near_idx, sc->near_pos, count[1], &sc->near);
  return st;
}

void ms_open_scan_release(ms_open_scan *sc)
{
  cl_mem *m[] = {&sc->out_rect, &sc->in_rect,  &sc->in_reach, &sc->count,
                 &sc->leave_idx, &sc->leave_pos, &sc->near_idx, &sc->near_pos};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    ms_cl_release_buffer(m[k]);
  free(sc->leave.slot);
  free(sc->leave.xy);
  free(sc->near.slot);
  free(sc->near.xy);
  memset(sc, 0, sizeof *sc);
}
