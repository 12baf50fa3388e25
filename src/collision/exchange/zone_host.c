/* The contact zone's round trip to the host, in both buffer modes (zone_host.h). */
#include "collision/exchange/zone_host.h"

#include "collision/base/trace.h"

/* Maps and reads are enqueued without blocking but for the last (one round trip for
 * all: the worker's queue is in order). */
static ms_status map(ms_cl *cl, cl_mem m, cl_map_flags flags, size_t from, size_t bytes,
                     const char *what, cl_bool block, void **out)
{
  return ms_xfer_map(cl->zone_queue, "queue: zone", m, flags, from, bytes, what, block, out);
}

static ms_status read_into(ms_cl *cl, cl_mem m, size_t from, size_t bytes, void *dst,
                           const char *what, cl_bool block)
{
  return ms_xfer_read(cl->zone_queue, "queue: zone", m, from, bytes, (char *)dst + from, what,
                      block);
}

ms_status ms_zone_unmap(ms_cl *cl, cl_mem m, const void *view, const char *what)
{
  if (!view)
    return MS_OK;
  return ms_xfer_unmap(cl->zone_queue, "queue: zone", m, view, what);
}

/* Shared mode: gives the slots' views back (to map a longer range or after growing). */
ms_status ms_zone_unmap_slots(ms_zone *z, ms_cl *cl)
{
  ms_status st;
  if ((st = ms_zone_unmap(cl, z->m_rec, z->h_rec, "zone records")) ||
      (st = ms_zone_unmap(cl, z->m_up, z->h_up, "zone forces")))
    return st;
  z->h_rec = NULL;
  z->h_up = NULL;
  return MS_OK;
}

/* Slots [from, to) of the records to the host, blocking when `block`. Shared mode maps
 * [0, to) (the forces' view with them) and ignores `from`. */
ms_status ms_zone_slots_down(ms_zone *z, ms_cl *cl, size_t from, size_t to, cl_bool block)
{
  size_t rb = z->rec * sizeof(double);
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    void *r, *u;
    if ((st = map(cl, z->m_rec, CL_MAP_READ, 0, to * rb, "zone records", CL_FALSE, &r)) ||
        (st = map(cl, z->m_up, CL_MAP_WRITE_INVALIDATE_REGION, 0, to * z->up * sizeof(float),
                  "zone forces", block, &u)))
      return st;
    z->h_rec = r;
    z->h_up = u;
    return MS_OK;
  }
  if ((st = read_into(cl, z->m_rec, from * rb, (to - from) * rb, z->c_rec.ptr, "zone records",
                      block)))
    return st;
  z->h_rec = z->c_rec.ptr;
  z->h_up = z->c_up.ptr;
  return MS_OK;
}

/* The totals with the spans, then the first `expect` slots' records, in one round trip. */
ms_status ms_zone_all_down(ms_zone *z, ms_cl *cl)
{
  size_t sb = (z->n_spans + 1) * 2 * sizeof(int);
  ms_status st;
  if (z->mode == MS_BUFFERS_SHARED) {
    void *sp;
    if ((st = map(cl, z->m_span, CL_MAP_READ, 0, sb, "zone spans", CL_FALSE, &sp)))
      return st;
    z->h_totals = sp;
  } else {
    if ((st = read_into(cl, z->m_span, 0, sb, z->c_span.ptr, "zone spans", CL_FALSE)))
      return st;
    z->h_totals = z->c_span.ptr;
  }
  z->h_span = z->h_totals + 2;
  return ms_zone_slots_down(z, cl, 0, z->expect, CL_TRUE);
}
