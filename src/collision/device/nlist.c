/* The small particles' neighbour list with contact history (collision/device/nlist.h): its
 * buffers, the rebuild when a particle has moved half the skin, the growth of its slots,
 * and the export and import of the small side of the friction state. */
#include "collision/device/nlist.h"

#include "collision/base/friction_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/device/events.h"

#define ARG(id, i, value) MS_KERNEL_ARG(c->kern, id, i, value)

static ms_status new_buffer(ms_cl *cl, size_t bytes, const char *what, cl_mem *out)
{
  cl_int err;
  if (bytes > cl->max_alloc)
    return ms_fail(MS_ERR_RUNTIME, "buffer '%s' needs %zu bytes, more than the device's largest "
                                   "allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                   what, bytes, (unsigned long long)cl->max_alloc);
  *out = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes ? bytes : 8, NULL, &err);
  return ms_cl_check(err, "clCreateBuffer", what);
}

static ms_status fill_zero(ms_cl *cl, cl_mem m, size_t bytes)
{
  static const int zero = 0;
  if (bytes == 0)
    return MS_OK;
  return ms_cl_check(clEnqueueFillBuffer(cl->gpu_queue, m, &zero, sizeof zero, 0, bytes, 0, NULL,
                                         NULL),
                     "clEnqueueFillBuffer", "neighbour list");
}

static void release(cl_mem *m)
{
  if (*m)
    clReleaseMemObject(*m);
  *m = NULL;
}

/* (Re)makes list `which` with `k` slots per particle, empty. */
static ms_status make_list(const ms_ctx *c, ms_device *d, int which, int k)
{
  ms_nlist *nl = &d->nl;
  size_t n = (size_t)c->p->n_small, slots = n * (size_t)k;
  release(&nl->j[which]);
  release(&nl->xi[which]);
  release(&nl->count[which]);
  ms_status st = new_buffer(c->cl, slots * sizeof(int), "neighbour list", &nl->j[which]);
  if (!st)
    st = new_buffer(c->cl, slots * sizeof(float), "neighbour list history", &nl->xi[which]);
  if (!st)
    st = new_buffer(c->cl, n * sizeof(int), "neighbour list counts", &nl->count[which]);
  if (!st)
    st = fill_zero(c->cl, nl->count[which], n * sizeof(int));
  nl->k[which] = k;
  return st;
}

ms_status ms_nlist_create(const ms_ctx *c, ms_device *d)
{
  ms_nlist *nl = &d->nl;
  size_t n = (size_t)c->p->n_small;
  nl->k_want = MS_NLIST_K0;
  nl->stale = 1;
  ms_status st = make_list(c, d, 0, MS_NLIST_K0);
  if (!st)
    st = make_list(c, d, 1, MS_NLIST_K0);
  if (!st)
    st = new_buffer(c->cl, n * 2 * sizeof(double), "neighbour list positions", &nl->ref);
  if (!st)
    st = new_buffer(c->cl, n * 4 * sizeof(float), "wall history", &nl->wall_xi);
  if (!st)
    st = new_buffer(c->cl, 4 * sizeof(int), "neighbour list flags", &nl->flags);
  if (!st)
    st = fill_zero(c->cl, nl->wall_xi, n * 4 * sizeof(float));
  if (!st)
    st = fill_zero(c->cl, nl->flags, 4 * sizeof(int));
  if (!st)
    st = ms_cl_check(clFinish(c->cl->gpu_queue), "clFinish", "neighbour list");
  c->stats->nlist_capacity = MS_NLIST_K0;
  return st;
}

void ms_nlist_release(ms_nlist *nl)
{
  for (int w = 0; w < 2; w++) {
    release(&nl->j[w]);
    release(&nl->xi[w]);
    release(&nl->count[w]);
  }
  release(&nl->ref);
  release(&nl->wall_xi);
  release(&nl->flags);
}

/* The friction collide kernel reads the live list. */
static ms_status bind_live(const ms_ctx *c, ms_device *d)
{
  ms_nlist *nl = &d->nl;
  int w = nl->live;
  ARG(MS_K_COLLIDE_FRIC, 4, nl->j[w]);
  ARG(MS_K_COLLIDE_FRIC, 5, nl->xi[w]);
  ARG(MS_K_COLLIDE_FRIC, 6, nl->count[w]);
  ARG(MS_K_COLLIDE_FRIC, 7, nl->k[w]);
  return MS_OK;
}

ms_status ms_nlist_bind(const ms_ctx *c, ms_device *d)
{
  ms_buffers *b = &c->x->buf;
  ms_nlist *nl = &d->nl;
  const ms_grid *g = &c->p->grid;
  int cap = (int)b->cap;
  /* Half the skin, less 2 % so that float rounding of the distances never lets a pair
   * close that the build (at r_i + r_j + skin) left out. */
  double half = 0.49 * (double)nl->skin, limit2 = half * half;
  float dt = (float)c->p->dt;
  cl_double4 box = ms_params_sides(c->p);
  cl_double2 period = ms_params_period(c->p);
  ARG(MS_K_NLIST_CHECK, 0, b->pos);
  ARG(MS_K_NLIST_CHECK, 1, nl->ref);
  ARG(MS_K_NLIST_CHECK, 2, c->p->n_small);
  ARG(MS_K_NLIST_CHECK, 3, limit2);
  ARG(MS_K_NLIST_CHECK, 4, nl->flags);
  ARG(MS_K_NLIST_CHECK, 5, period);

  ARG(MS_K_NLIST_BUILD, 0, b->pos);
  ARG(MS_K_NLIST_BUILD, 1, b->shape);
  ARG(MS_K_NLIST_BUILD, 2, b->count);
  ARG(MS_K_NLIST_BUILD, 3, b->idx);
  ARG(MS_K_NLIST_BUILD, 4, cap);
  ARG(MS_K_NLIST_BUILD, 5, c->p->n_small);
  ARG(MS_K_NLIST_BUILD, 6, g->inv_cell);
  ARG(MS_K_NLIST_BUILD, 7, g->nx);
  ARG(MS_K_NLIST_BUILD, 8, g->ny);
  ARG(MS_K_NLIST_BUILD, 9, nl->skin);
  ARG(MS_K_NLIST_BUILD, 18, nl->flags);
  ARG(MS_K_NLIST_BUILD, 19, period);
  int keyed = d->key != NULL;
  cl_mem key = keyed ? d->key : nl->flags; /* (unread without keys) */
  ARG(MS_K_NLIST_BUILD, 20, key);
  ARG(MS_K_NLIST_BUILD, 21, keyed);

  ARG(MS_K_COLLIDE_FRIC, 0, b->pos);
  ARG(MS_K_COLLIDE_FRIC, 1, b->vel);
  ARG(MS_K_COLLIDE_FRIC, 2, b->shape);
  ARG(MS_K_COLLIDE_FRIC, 3, b->rot);
  ARG(MS_K_COLLIDE_FRIC, 8, c->p->n_small);
  ARG(MS_K_COLLIDE_FRIC, 9, c->p->k);
  ARG(MS_K_COLLIDE_FRIC, 10, c->p->two_zeta);
  ARG(MS_K_COLLIDE_FRIC, 11, c->p->kt);
  ARG(MS_K_COLLIDE_FRIC, 12, c->p->mu);
  ARG(MS_K_COLLIDE_FRIC, 13, c->p->mu_r);
  ARG(MS_K_COLLIDE_FRIC, 14, c->p->mu_wall);
  ARG(MS_K_COLLIDE_FRIC, 15, dt);
  ARG(MS_K_COLLIDE_FRIC, 16, box);
  ARG(MS_K_COLLIDE_FRIC, 17, nl->wall_xi);
  ARG(MS_K_COLLIDE_FRIC, 18, b->f_ss);
  ARG(MS_K_COLLIDE_FRIC, 19, b->t_ss);
  ARG(MS_K_COLLIDE_FRIC, 20, period);
  if (c->p->diag) /* built with MS_DIAG (collision/dissipation.h) */
    ARG(MS_K_COLLIDE_FRIC, 21, d->diss);
  return bind_live(c, d);
}

static ms_status run(const ms_ctx *c, ms_device *d, int kernel)
{
  cl_event ev = 0;
  ms_status st = ms_kernels_run_1d(c->kern, c->cl, kernel, (size_t)c->p->n_small,
                                   ms_trace_timed(c->trace, &ev));
  ms_status kept = ms_gpu_keep_event(c, d, kernel, ev);
  return st ? st : kept;
}

/* Without friction the worker's list (collision/worker/ls_list.h) has no small list to follow:
 * the same check against its own reference positions, while it is in use and they are
 * taken. The kernel is free for it then (the small list exists only with friction). */
static ms_status enqueue_worker_check(const ms_ctx *c, ms_device *d)
{
  ms_list_check *wl = &d->wlc;
  wl->checked = 0;
  if (!ms_worker_list_in_use(c->p) || !wl->ref_valid)
    return MS_OK;
  double half = 0.49 * (double)c->p->list_skin, limit2 = half * half; /* as bind's, below */
  ARG(MS_K_NLIST_CHECK, 0, c->x->buf.pos);
  ARG(MS_K_NLIST_CHECK, 1, wl->ref);
  ARG(MS_K_NLIST_CHECK, 2, c->p->n_small);
  ARG(MS_K_NLIST_CHECK, 3, limit2);
  ARG(MS_K_NLIST_CHECK, 4, wl->flags);
  cl_double2 period = ms_params_period(c->p);
  ARG(MS_K_NLIST_CHECK, 5, period);
  ms_status st = run(c, d, MS_K_NLIST_CHECK);
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, wl->flags, CL_FALSE, 0, sizeof(int),
                                         &wl->moved_read, 0, NULL, NULL),
                     "clEnqueueReadBuffer", "worker list flags");
  wl->checked = !st;
  return st;
}

ms_status ms_nlist_worker_ref(const ms_ctx *c, ms_device *d)
{
  ms_list_check *wl = &d->wlc;
  if (!c->x->list.ref_due)
    return MS_OK;
  c->x->list.ref_due = 0;
  size_t bytes = (size_t)c->p->n_small * 2 * sizeof(double);
  ms_status st = MS_OK;
  if (!wl->ref && !(st = new_buffer(c->cl, bytes, "worker list positions", &wl->ref)))
    st = new_buffer(c->cl, sizeof(int), "worker list flags", &wl->flags);
  if (!st)
    st = ms_cl_check(clEnqueueCopyBuffer(c->cl->gpu_queue, c->x->buf.pos, wl->ref, 0, 0, bytes, 0,
                                         NULL, NULL),
                     "clEnqueueCopyBuffer", "worker list positions");
  if (!st)
    st = fill_zero(c->cl, wl->flags, sizeof(int));
  wl->ref_valid = !st;
  return st;
}

ms_status ms_nlist_enqueue_check(const ms_ctx *c, ms_device *d)
{
  if (!c->p->friction_on)
    return enqueue_worker_check(c, d);
  ms_nlist *nl = &d->nl;
  nl->moved = 0;
  if (nl->stale || c->p->n_small == 0)
    return MS_OK; /* rebuilt anyway */
  ms_status st = run(c, d, MS_K_NLIST_CHECK);
  if (st)
    return st;
  return ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, nl->flags, CL_FALSE, 0, sizeof(int),
                                         &nl->moved, 0, NULL, NULL),
                     "clEnqueueReadBuffer", "neighbour list flags");
}

/* One build into list `to` from the live one; flags come back (a blocking read). */
static ms_status build_into(const ms_ctx *c, ms_device *d, int to, int flags[4])
{
  ms_nlist *nl = &d->nl;
  int from = nl->live;
  ARG(MS_K_NLIST_BUILD, 10, nl->j[from]);
  ARG(MS_K_NLIST_BUILD, 11, nl->xi[from]);
  ARG(MS_K_NLIST_BUILD, 12, nl->count[from]);
  ARG(MS_K_NLIST_BUILD, 13, nl->k[from]);
  ARG(MS_K_NLIST_BUILD, 14, nl->j[to]);
  ARG(MS_K_NLIST_BUILD, 15, nl->xi[to]);
  ARG(MS_K_NLIST_BUILD, 16, nl->count[to]);
  ARG(MS_K_NLIST_BUILD, 17, nl->k[to]);
  ms_status st = fill_zero(c->cl, nl->flags, 4 * sizeof(int));
  if (!st)
    st = run(c, d, MS_K_NLIST_BUILD);
  if (!st)
    st = ms_cl_check(clEnqueueReadBuffer(c->cl->gpu_queue, nl->flags, CL_TRUE, 0, 4 * sizeof(int),
                                         flags, 0, NULL, NULL),
                     "clEnqueueReadBuffer", "neighbour list flags");
  if (!st)
    ms_gpu_settle(c, d);
  return st;
}

/* Makes list `to` the size the next build needs; a failure names the step and why. */
static ms_status size_target(const ms_ctx *c, ms_device *d, int to, long step)
{
  ms_nlist *nl = &d->nl;
  if (nl->k[to] == nl->k_want)
    return MS_OK;
  ms_status st = make_list(c, d, to, nl->k_want);
  if (!st)
    return MS_OK;
  char why[1024]; /* the first message recorded wins: put the context in front */
  snprintf(why, sizeof why, "%s", ms_error_message());
  ms_error_clear();
  return ms_fail(st, "step %ld: the neighbour list needs %d slots for each of %d small "
                     "particles and cannot have them: %s",
                 step, nl->k_want, c->p->n_small, why);
}

ms_status ms_nlist_update(const ms_ctx *c, ms_device *d, long step)
{
  ms_nlist *nl = &d->nl;
  /* The worker's list follows this one's rebuilds, or its own check without friction:
   * the flag goes to the worker through sync 1 (collision/worker/ls_list.h). */
  if (!c->p->friction_on) {
    c->x->list.small_moved = !d->wlc.checked || d->wlc.moved_read;
    return MS_OK;
  }
  c->x->list.small_moved = 0;
  if (c->p->n_small == 0 || (!nl->stale && !nl->moved))
    return MS_OK;
  double t0 = ms_now();
  int to = 1 - nl->live, flags[4];
  ms_status st = MS_OK;
  for (;;) {
    if ((st = size_target(c, d, to, step)) || (st = build_into(c, d, to, flags)))
      break;
    c->stats->nlist_builds++;
    if (!flags[1])
      break;
    c->stats->nlist_overflow_builds++;
    c->stats->nlist_growths++;
    nl->k_want = (flags[2] + 3) / 4 * 4; /* a little headroom saves regrowing */
  }
  if (!st)
    st = ms_cl_check(clEnqueueCopyBuffer(c->cl->gpu_queue, c->x->buf.pos, nl->ref, 0, 0,
                                         (size_t)c->p->n_small * 2 * sizeof(double), 0, NULL, NULL),
                     "clEnqueueCopyBuffer", "neighbour list positions");
  if (!st) {
    nl->live = to;
    c->stats->nlist_capacity = nl->k[to];
    nl->stale = 0;
    nl->moved = 0;
    c->x->list.small_moved = 1;
    st = bind_live(c, d);
  }
  ms_trace_phase(c->trace, MS_THREAD_GPU, MS_PHASE_GRID, t0);
  return st;
}

ms_status ms_nlist_reset(const ms_ctx *c, ms_device *d)
{
  ms_nlist *nl = &d->nl;
  size_t n = (size_t)c->p->n_small;
  nl->stale = 1;
  ms_status st = fill_zero(c->cl, nl->count[nl->live], n * sizeof(int));
  if (!st)
    st = fill_zero(c->cl, nl->wall_xi, n * 4 * sizeof(float));
  if (!st)
    st = ms_cl_check(clFinish(c->cl->gpu_queue), "clFinish", "neighbour list");
  return st;
}

/* The live list's slots on the host: partners, displacements, counts. */
typedef struct host_list {
  int k;
  int *j, *count;
  float *xi;
} host_list;

static void host_list_free(host_list *h)
{
  free(h->j);
  free(h->count);
  free(h->xi);
}

static ms_status host_list_alloc(host_list *h, size_t n, int k)
{
  h->k = k;
  h->j = malloc((n * (size_t)k + 1) * sizeof *h->j);
  h->xi = malloc((n * (size_t)k + 1) * sizeof *h->xi);
  h->count = calloc(n + 1, sizeof *h->count);
  if (h->j && h->xi && h->count)
    return MS_OK;
  host_list_free(h);
  return ms_fail(MS_ERR_RUNTIME, "out of memory for the neighbour list of %zu particles", n);
}

/* A displacement worth keeping: any bits but +0's (an open pair's slot holds +0). */
static int holds_history(float xi)
{
  static const float plus_zero = 0.0f;
  return memcmp(&xi, &plus_zero, sizeof xi) != 0;
}

ms_status ms_nlist_export(const ms_ctx *c, ms_device *d, ms_friction_state *out)
{
  ms_nlist *nl = &d->nl;
  size_t n = (size_t)c->p->n_small;
  int w = nl->live, k = nl->k[w];
  host_list h = {0};
  out->small_wall_xi = malloc((4 * n + 1) * sizeof *out->small_wall_xi);
  ms_status st = out->small_wall_xi ? host_list_alloc(&h, n, k)
                                    : ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st)
    st = ms_buffers_download(c->cl, nl->wall_xi, out->small_wall_xi, 4 * n * sizeof(float));
  if (!st)
    st = ms_buffers_download(c->cl, nl->j[w], h.j, n * (size_t)k * sizeof(int));
  if (!st)
    st = ms_buffers_download(c->cl, nl->xi[w], h.xi, n * (size_t)k * sizeof(float));
  if (!st)
    st = ms_buffers_download(c->cl, nl->count[w], h.count, n * sizeof(int));
  for (int pass = 0; pass < 2 && !st; pass++) { /* count, then fill */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      size_t c = (size_t)(h.count[i] < k ? h.count[i] : k);
      for (size_t e = 0; e < c; e++) {
        size_t slot = i * (size_t)k + e;
        if ((size_t)h.j[slot] <= i || !holds_history(h.xi[slot]))
          continue;
        if (pass)
          out->ss[m] = (ms_history_entry){(int)i, h.j[slot], h.xi[slot]};
        m++;
      }
    }
    out->n_ss = m;
    if (!pass && !(out->ss = malloc((m + 1) * sizeof *out->ss)))
      st = ms_fail(MS_ERR_RUNTIME, "out of memory exporting %zu contacts", m);
  }
  host_list_free(&h);
  return st;
}

typedef struct slot {
  int j;
  float xi;
} slot;

/* Checks the entries and counts each particle's; returns the most any has, or -1. */
static int count_entries(const ms_ctx *c, const ms_friction_state *in, int *count)
{
  int most = 0;
  for (size_t e = 0; e < in->n_ss; e++) {
    const ms_history_entry *h = &in->ss[e];
    if (h->a < 0 || h->b < 0 || h->a >= c->p->n_small || h->b >= c->p->n_small || h->a == h->b) {
      ms_fail(MS_ERR_INPUT, "small-small history entry %zu names the pair (%d, %d): there are "
                            "%d small particles",
              e, h->a, h->b, c->p->n_small);
      return -1;
    }
    int ca = ++count[h->a], cb = ++count[h->b];
    most = ca > most ? ca : most;
    most = cb > most ? cb : most;
  }
  return most;
}

/* Lays the entries out as per-particle slots sorted by partner (both copies of a pair). */
/* A row's entries in the list's order: by partner index, or by key (the global slot each
 * local particle stands for, collision/device/gpu_manager.h), as the build lays them out.
 * Rows are short: insertion. */
static void sort_row(slot *row, int c, const int *key)
{
  for (int a = 1; a < c; a++) {
    slot v = row[a];
    int kv = key ? key[v.j] : v.j, b = a - 1;
    while (b >= 0 && (key ? key[row[b].j] : row[b].j) > kv) {
      row[b + 1] = row[b];
      b--;
    }
    row[b + 1] = v;
  }
}

static ms_status lay_out(const ms_friction_state *in, host_list *h, size_t n, const int *key)
{
  memset(h->count, 0, n * sizeof *h->count);
  slot *row = malloc(((size_t)h->k + 1) * sizeof *row);
  if (!row)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (size_t e = 0; e < in->n_ss; e++) {
    const ms_history_entry *p = &in->ss[e];
    size_t a = (size_t)p->a * (size_t)h->k + (size_t)h->count[p->a]++;
    size_t b = (size_t)p->b * (size_t)h->k + (size_t)h->count[p->b]++;
    h->j[a] = p->b;
    h->xi[a] = p->xi;
    h->j[b] = p->a;
    h->xi[b] = p->xi;
  }
  ms_status st = MS_OK;
  for (size_t i = 0; i < n && !st; i++) {
    int c = h->count[i];
    for (int e = 0; e < c; e++)
      row[e] = (slot){h->j[i * (size_t)h->k + (size_t)e], h->xi[i * (size_t)h->k + (size_t)e]};
    sort_row(row, c, key);
    for (int e = 0; e < c; e++) {
      if (e > 0 && row[e].j == row[e - 1].j)
        st = ms_fail(MS_ERR_INPUT, "small-small history: the pair (%zu, %d) is given twice", i,
                     row[e].j);
      h->j[i * (size_t)h->k + (size_t)e] = row[e].j;
      h->xi[i * (size_t)h->k + (size_t)e] = row[e].xi;
    }
  }
  free(row);
  return st;
}

ms_status ms_nlist_import(const ms_ctx *c, ms_device *d, const ms_friction_state *in)
{
  ms_nlist *nl = &d->nl;
  size_t n = (size_t)c->p->n_small;
  host_list h = {0};
  ms_status st = host_list_alloc(&h, n, 1);
  if (st)
    return st;
  int most = count_entries(c, in, h.count);
  int k = most > nl->k[nl->live] ? most : nl->k[nl->live];
  host_list_free(&h);
  if (most < 0)
    return MS_ERR_INPUT;
  if ((st = host_list_alloc(&h, n, k)) || (st = lay_out(in, &h, n, d->key_host)))
    goto done;
  int w = nl->live;
  if (k != nl->k[w] && (st = make_list(c, d, w, k)))
    goto done;
  if (k > nl->k_want)
    nl->k_want = k;
  if (!(st = ms_buffers_upload(c->cl, nl->j[w], h.j, n * (size_t)k * sizeof(int))) &&
      !(st = ms_buffers_upload(c->cl, nl->xi[w], h.xi, n * (size_t)k * sizeof(float))) &&
      !(st = ms_buffers_upload(c->cl, nl->count[w], h.count, n * sizeof(int))))
    st = in->small_wall_xi ? ms_buffers_upload(c->cl, nl->wall_xi, in->small_wall_xi,
                                               4 * n * sizeof(float))
                           : fill_zero(c->cl, nl->wall_xi, 4 * n * sizeof(float));
  nl->stale = 1; /* the next grid build lays the list out at the current positions */
  if (!st)
    st = bind_live(c, d);
done:
  host_list_free(&h);
  return st;
}

void ms_list_check_release(ms_list_check *k)
{
  if (k->ref)
    clReleaseMemObject(k->ref);
  if (k->flags)
    clReleaseMemObject(k->flags);
  k->ref = k->flags = NULL;
}
