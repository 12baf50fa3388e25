/* A split run's slots between iterations (collision/split.h, kernels/domains.cl). */
#include "collision/split.h"

#include <stdlib.h>
#include <string.h>

#include "collision/device/gpu_manager.h"
#include "collision/sim_internal.h"
#include "collision/worker/worker_pool.h"
#include "core/number.h"

#define FIRST_ROOM 4096 /* records; grown when a pack's count finds more */
/* Slots per chunk of the host's loops over the records given and the slots left: each slot
 * is a few cache misses (its shape, its key, anywhere in the arrays), so the domain's pool,
 * idle between advances, takes them (16M small discs on two H200s: 189,000 records a
 * meeting, 0.9 + 1.2 ms on one thread). */
#define SLOT_GRAIN 16384

/* A buffer made afresh (the old one, if any, released). */
static ms_status make(const ms_cl *cl, size_t bytes, const char *what, cl_mem *out)
{
  ms_cl_release_buffer(out);
  return ms_cl_buffer(cl, bytes, what, out);
}

/* A write the host does not wait for: `src` stays as it is until the queue's next blocking
 * read (every pack ends in one) or ms_split_finish. */
static ms_status write_async(ms_sim *s, cl_mem m, size_t at, const void *src, size_t bytes)
{
  if (bytes == 0)
    return MS_OK;
  cl_int err = clEnqueueWriteBuffer(s->cl.gpu_queue, m, CL_FALSE, at, bytes, src, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueWriteBuffer", "a domain's meeting");
}

static ms_status zero_async(ms_sim *s, cl_mem m, size_t bytes)
{
  const cl_int zero = 0;
  cl_int err = clEnqueueFillBuffer(s->cl.gpu_queue, m, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueFillBuffer", "a domain's counters");
}

static ms_status no_memory(void)
{
  return ms_fail(MS_ERR_RUNTIME, "out of memory for a domain's meeting");
}

static void unpin(ms_split *x, int k)
{
  if (x->pin_at[k])
    clEnqueueUnmapMemObject(x->pin_queue, x->pin[k], x->pin_at[k], 0, NULL, NULL);
  if (x->pin[k])
    clFinish(x->pin_queue);
  ms_cl_release_buffer(&x->pin[k]);
  x->pin_at[k] = NULL;
  x->pin_room[k] = 0;
}

void ms_split_free(ms_split *x)
{
  cl_mem *m[] = {&x->role, &x->role_next, &x->count, &x->to_mem, &x->at_mem, &x->out,
                 &x->left_mem, &x->start, &x->in, &x->in_slot, &x->column_mem};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    ms_cl_release_buffer(m[k]);
  for (int k = 0; k < 6; k++)
    ms_cl_release_buffer(&x->keep[k]);
  for (int k = 0; k < 2; k++)
    unpin(x, k);
  free(x->keep_large);
  free(x->left);
  free(x->free_slot);
  free(x->column);
  free(x->slot_scratch);
  memset(x, 0, sizeof *x);
}

/* Room for `room` records on the device. */
static ms_status set_room(ms_sim *s, ms_split *x, int room)
{
  x->room = room;
  return make(&s->cl, (size_t)room * sizeof(ms_split_record), "a domain's records", &x->out);
}

static ms_status make_all(ms_sim *s, ms_split *x, int n)
{
  x->slots = n;
  x->left = malloc(((size_t)n + 1) * sizeof *x->left);
  x->free_slot = malloc(((size_t)n + 1) * sizeof *x->free_slot);
  x->slot_scratch = malloc(((size_t)n + 1) * sizeof *x->slot_scratch);
  if (!x->left || !x->free_slot || !x->slot_scratch)
    return no_memory();
  size_t b = (size_t)n + 1;
  ms_status st;
  if ((st = make(&s->cl, b, "a domain's roles", &x->role)) ||
      (st = make(&s->cl, b, "a domain's roles", &x->role_next)) ||
      (st = make(&s->cl, 2 * sizeof(cl_int), "a domain's counters", &x->count)) ||
      (st = make(&s->cl, MS_SPLIT_MAX * sizeof(cl_int), "a domain's counters", &x->to_mem)) ||
      (st = make(&s->cl, MS_SPLIT_MAX * sizeof(cl_int), "a domain's counters", &x->at_mem)) ||
      (st = make(&s->cl, b * sizeof(cl_int), "a domain's left slots", &x->left_mem)) ||
      (st = make(&s->cl, (MS_SPLIT_MAX + 1) * sizeof(cl_int), "the cut", &x->start)))
    return st;
  return set_room(s, x, FIRST_ROOM);
}

/* MIXSIM_SPLIT_SHUFFLE=SEED (a test hook): the records land in the free slots in a shuffled
 * order, so that the tests see every sum ordered by global slot, never by where a record
 * landed (on pocl the slots otherwise come back nearly in order). */
static ms_status shuffle_hook(ms_split *x)
{
  const char *v = getenv("MIXSIM_SPLIT_SHUFFLE");
  x->shuffle = 0;
  if (!v || !*v)
    return MS_OK;
  char *end = NULL;
  unsigned long seed = strtoul(v, &end, 10);
  if (*end || *v == '-' || seed == 0 || seed > 1000000000ul)
    return ms_fail(MS_ERR_INPUT, "MIXSIM_SPLIT_SHUFFLE '%s': expected a seed 1..1e9", v);
  x->shuffle = seed;
  return MS_OK;
}

/* The free slots in a shuffled order (the hook's), by a linear congruential generator. */
static void shuffle_free(ms_split *x)
{
  for (int a = x->n_free - 1; a > 0; a--) {
    x->shuffle = x->shuffle * 6364136223846793005ull + 1442695040888963407ull;
    int b = (int)((x->shuffle >> 33) % (unsigned long long)(a + 1));
    int t = x->free_slot[a];
    x->free_slot[a] = x->free_slot[b];
    x->free_slot[b] = t;
  }
}

ms_status ms_split_begin(ms_sim *s, ms_split *x, const unsigned char *role, int g_slots)
{
  int n = s->p.n_small;
  ms_status st = MS_OK;
  if (x->slots != n || !x->role) {
    ms_split_free(x);
    if ((st = make_all(s, x, n)))
      return st;
  }
  x->g_slots = g_slots;
  x->n_free = x->n_left = x->n_rec = 0;
  long grain = SLOT_GRAIN; /* (MIXSIM_SPLIT_GRAIN: a test's few records over several threads) */
  ms_status hook = shuffle_hook(x);
  if (!hook)
    hook = ms_number_env("MIXSIM_SPLIT_GRAIN", 1, 1000000, &grain);
  if (hook)
    return hook;
  x->grain = (int)grain;
  for (int i = n - 1; i >= 0; i--) /* (a stack: the lowest slot on top) */
    if (role[i] == MS_ROLE_EMPTY)
      x->free_slot[x->n_free++] = i;
  return ms_buffers_upload(&s->cl, x->role, role, (size_t)n);
}

/* ---- the pack ----------------------------------------------------------------------- */

/* The cut's arguments 0..8, which the count and the pack share. */
static cl_int cut_args(cl_kernel k, ms_sim *s, ms_split *x, const ms_split_cut *c, int d)
{
  cl_int n = s->p.n_small;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof d, &d);
  err |= clSetKernelArg(k, 2, sizeof c->P, &c->P);
  err |= clSetKernelArg(k, 3, sizeof c->axis, &c->axis);
  err |= clSetKernelArg(k, 4, sizeof c->w, &c->w);
  err |= clSetKernelArg(k, 5, sizeof c->ncol, &c->ncol);
  err |= clSetKernelArg(k, 6, sizeof c->periodic, &c->periodic);
  err |= clSetKernelArg(k, 7, sizeof c->inv_cell, &c->inv_cell);
  err |= clSetKernelArg(k, 8, sizeof(cl_mem), &x->start);
  return err;
}

/* How many records each domain is given, into x->to[], and their sum. */
static ms_status count_records(ms_sim *s, ms_split *x, const ms_split_cut *c, int d, int *total)
{
  cl_kernel k = s->kern.kernel[MS_K_SPLIT_COUNT];
  cl_int err = cut_args(k, s, x, c, d);
  err |= clSetKernelArg(k, 9, sizeof(cl_mem), &s->x.buf.pos);
  err |= clSetKernelArg(k, 10, sizeof(cl_mem), &x->role);
  err |= clSetKernelArg(k, 11, sizeof(cl_mem), &x->to_mem);
  ms_status st = ms_cl_check(err, "clSetKernelArg", "ms_split_count");
  if (!st)
    st = zero_async(s, x->to_mem, (size_t)c->P * sizeof(cl_int));
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_SPLIT_COUNT, (size_t)s->p.n_small, NULL);
  memset(x->to, 0, sizeof x->to);
  if (!st)
    st = ms_buffers_download(&s->cl, x->to_mem, x->to, (size_t)c->P * sizeof(cl_int));
  long sum = 0;
  for (int e = 0; e < c->P; e++)
    sum += x->to[e];
  if (!st && sum > 0x7fffffff)
    st = ms_fail(MS_ERR_RUNTIME, "domain %d gives %ld records", d, sum);
  *total = (int)sum;
  return st;
}

static ms_status pack_args(ms_sim *s, ms_split *x, const ms_split_cut *c, int d)
{
  cl_kernel k = s->kern.kernel[MS_K_SPLIT_PACK];
  cl_int room = x->room;
  const ms_buffers *b = &s->x.buf;
  cl_int err = cut_args(k, s, x, c, d);
  err |= clSetKernelArg(k, 9, sizeof(cl_mem), &b->pos);
  err |= clSetKernelArg(k, 10, sizeof(cl_mem), &b->vel);
  err |= clSetKernelArg(k, 11, sizeof(cl_mem), &b->shape);
  err |= clSetKernelArg(k, 12, sizeof(cl_mem), &b->img);
  err |= clSetKernelArg(k, 13, sizeof(cl_mem), &s->dev.key);
  err |= clSetKernelArg(k, 14, sizeof(cl_mem), &x->role);
  err |= clSetKernelArg(k, 15, sizeof(cl_mem), &x->role_next);
  err |= clSetKernelArg(k, 16, sizeof room, &room);
  err |= clSetKernelArg(k, 17, sizeof(cl_mem), &x->count);
  err |= clSetKernelArg(k, 18, sizeof(cl_mem), &x->at_mem);
  err |= clSetKernelArg(k, 19, sizeof(cl_mem), &x->out);
  err |= clSetKernelArg(k, 20, sizeof(cl_mem), &x->left_mem);
  return ms_cl_check(err, "clSetKernelArg", "ms_split_pack");
}

ms_status ms_split_pack(ms_sim *s, ms_split *x, const ms_split_cut *c, int d)
{
  if (!s->dev.key)
    return ms_fail(MS_ERR_RUNTIME, "domain %d: a split simulation without keys", d);
  ms_status st = write_async(s, x->start, 0, c->start, ((size_t)c->P + 1) * sizeof(int));
  int total = 0;
  if (!st)
    st = count_records(s, x, c, d, &total);
  if (!st && total > x->room)
    st = set_room(s, x, total + total / 2);
  cl_int at[MS_SPLIT_MAX], left = 0;
  for (int e = 0, sum = 0; e < c->P; sum += x->to[e], e++)
    at[e] = sum;
  if (!st) /* (at stays until the blocking read below) */
    st = write_async(s, x->at_mem, 0, at, (size_t)c->P * sizeof(cl_int));
  if (!st)
    st = zero_async(s, x->count, sizeof(cl_int));
  if (!st)
    st = pack_args(s, x, c, d);
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_SPLIT_PACK, (size_t)s->p.n_small, NULL);
  if (!st)
    st = ms_buffers_download(&s->cl, x->count, &left, sizeof left);
  x->n_rec = st ? 0 : total;
  x->n_left = st ? 0 : left;
  if (!st)
    st = ms_buffers_download(&s->cl, x->left_mem, x->left, (size_t)left * sizeof(int));
  return st;
}

/* A pool job over slots (collision/worker/worker_pool.h): the slots left or the records
 * given, each item's slot the one the stack of free slots gives it in turn. */
typedef struct slot_job {
  ms_sim *s;
  ms_split *x;
  const ms_split_part *part; /* (the records given; their sum covers the job) */
} slot_job;

/* Slots left [begin, end): item k is left[n_left - 1 - k], pushed k-th on the free stack. */
static ms_status free_chunk(void *ctx, int begin, int end, int chunk, char *why, size_t size)
{
  (void)chunk, (void)why, (void)size;
  const slot_job *j = ctx;
  ms_split *x = j->x;
  float *shape = j->s->p.shape;
  int *key = j->s->dev.key_host;
  for (int k = begin; k < end; k++) {
    int i = x->left[x->n_left - 1 - k];
    shape[2 * i] = shape[2 * i + 1] = 0.0f;
    if (key)
      key[i] = x->g_slots + i;
    x->free_slot[x->n_free + k] = i;
  }
  return MS_OK;
}

ms_status ms_split_commit(ms_sim *s, ms_split *x)
{
  cl_kernel k = s->kern.kernel[MS_K_SPLIT_COMMIT];
  cl_int n = s->p.n_small, g = x->g_slots;
  const ms_buffers *b = &s->x.buf;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof g, &g);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &x->role);
  err |= clSetKernelArg(k, 3, sizeof(cl_mem), &x->role_next);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &b->pos);
  err |= clSetKernelArg(k, 5, sizeof(cl_mem), &b->vel);
  err |= clSetKernelArg(k, 6, sizeof(cl_mem), &b->shape);
  err |= clSetKernelArg(k, 7, sizeof(cl_mem), &b->img);
  err |= clSetKernelArg(k, 8, sizeof(cl_mem), &s->dev.key);
  ms_status st = ms_cl_check(err, "clSetKernelArg", "ms_split_commit");
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_SPLIT_COMMIT, (size_t)n, NULL);
  /* The slots left, free again (in the kernel's order: where a record lands does not
   * change the state, every order on the device being by key). */
  ms_status freed =
      ms_pool_run(s->wk.pool, free_chunk, &(slot_job){s, x, NULL}, x->n_left, x->grain);
  st = st ? st : freed;
  x->n_free += x->n_left;
  x->n_left = 0;
  ms_sim_state_changed(s);
  return st;
}

/* ---- the records given ---------------------------------------------------------------- */

static ms_status in_room(ms_sim *s, ms_split *x, int n)
{
  if (n <= x->in_room)
    return MS_OK;
  int room = n + n / 2;
  ms_status st = make(&s->cl, (size_t)room * sizeof(ms_split_record), "a domain's records", &x->in);
  if (!st)
    st = make(&s->cl, (size_t)room * sizeof(cl_int), "a domain's records", &x->in_slot);
  x->in_room = st ? 0 : room;
  return st;
}

/* Records given [begin, end) of the parts in turn: record `at` takes the free stack's
 * at-th slot from the top. */
static ms_status lay_chunk(void *ctx, int begin, int end, int chunk, char *why, size_t size)
{
  (void)chunk, (void)why, (void)size;
  const slot_job *j = ctx;
  ms_split *x = j->x;
  float *shape = j->s->p.shape;
  int *key = j->s->dev.key_host;
  int p = 0, first = 0; /* (the part holding `begin`, and its first record's number) */
  while (first + j->part[p].n <= begin)
    first += j->part[p++].n;
  for (int at = begin; at < end; at++) {
    while (at - first == j->part[p].n)
      first += j->part[p++].n;
    const ms_split_record *r = &j->part[p].r[at - first];
    int i = x->free_slot[x->n_free - 1 - at];
    x->slot_scratch[at] = i;
    shape[2 * i] = r->shape[0];
    shape[2 * i + 1] = r->shape[1];
    if (key)
      key[i] = r->key;
  }
  return MS_OK;
}

ms_status ms_split_unpack(ms_sim *s, ms_split *x, const ms_split_part *part, int parts)
{
  long n = 0;
  for (int p = 0; p < parts; p++)
    n += part[p].n;
  if (n == 0)
    return MS_OK;
  if (n > x->n_free)
    return ms_fail(MS_ERR_RUNTIME, "a domain given %ld particles has %d free slots", n, x->n_free);
  ms_status st = in_room(s, x, (int)n);
  if (x->shuffle)
    shuffle_free(x);
  if (!st)
    st = ms_pool_run(s->wk.pool, lay_chunk, &(slot_job){s, x, part}, (int)n, x->grain);
  if (!st)
    x->n_free -= (int)n;
  /* (straight from the parts, which stay until the next pack's reads: see write_async) */
  for (size_t p = 0, at = 0; !st && p < (size_t)parts; at += (size_t)part[p].n, p++)
    st = write_async(s, x->in, at * sizeof *part[p].r, part[p].r,
                     (size_t)part[p].n * sizeof *part[p].r);
  if (!st)
    st = write_async(s, x->in_slot, 0, x->slot_scratch, (size_t)n * sizeof(int));
  cl_kernel k = s->kern.kernel[MS_K_SPLIT_UNPACK];
  const ms_buffers *b = &s->x.buf;
  cl_int m = (cl_int)n;
  cl_int err = clSetKernelArg(k, 0, sizeof m, &m);
  err |= clSetKernelArg(k, 1, sizeof(cl_mem), &x->in);
  err |= clSetKernelArg(k, 2, sizeof(cl_mem), &x->in_slot);
  err |= clSetKernelArg(k, 3, sizeof(cl_mem), &x->role);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &b->pos);
  err |= clSetKernelArg(k, 5, sizeof(cl_mem), &b->vel);
  err |= clSetKernelArg(k, 6, sizeof(cl_mem), &b->shape);
  err |= clSetKernelArg(k, 7, sizeof(cl_mem), &b->img);
  err |= clSetKernelArg(k, 8, sizeof(cl_mem), &s->dev.key);
  if (!st)
    st = ms_cl_check(err, "clSetKernelArg", "ms_split_unpack");
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_SPLIT_UNPACK, (size_t)n, NULL);
  ms_sim_state_changed(s);
  return st;
}

/* ---- the own particles ---------------------------------------------------------------- */

static ms_status own_once(ms_sim *s, ms_split *x, const ms_split_cut *c, int room, cl_int *count)
{
  *count = 0;
  ms_status st = zero_async(s, x->count, sizeof(cl_int));
  if (!st)
    st = zero_async(s, x->column_mem, (size_t)c->ncol * sizeof(int));
  cl_kernel k = s->kern.kernel[MS_K_SPLIT_OWN];
  const ms_buffers *b = &s->x.buf;
  cl_int n = s->p.n_small;
  cl_int err = clSetKernelArg(k, 0, sizeof n, &n);
  err |= clSetKernelArg(k, 1, sizeof c->axis, &c->axis);
  err |= clSetKernelArg(k, 2, sizeof c->ncol, &c->ncol);
  err |= clSetKernelArg(k, 3, sizeof c->inv_cell, &c->inv_cell);
  err |= clSetKernelArg(k, 4, sizeof(cl_mem), &b->pos);
  err |= clSetKernelArg(k, 5, sizeof(cl_mem), &b->vel);
  err |= clSetKernelArg(k, 6, sizeof(cl_mem), &b->shape);
  err |= clSetKernelArg(k, 7, sizeof(cl_mem), &b->img);
  err |= clSetKernelArg(k, 8, sizeof(cl_mem), &s->dev.key);
  err |= clSetKernelArg(k, 9, sizeof(cl_mem), &x->role);
  err |= clSetKernelArg(k, 10, sizeof room, &room);
  err |= clSetKernelArg(k, 11, sizeof(cl_mem), &x->count);
  err |= clSetKernelArg(k, 12, sizeof(cl_mem), &x->out);
  err |= clSetKernelArg(k, 13, sizeof(cl_mem), &x->column_mem);
  if (!st)
    st = ms_cl_check(err, "clSetKernelArg", "ms_split_own");
  if (!st)
    st = ms_kernels_run_1d(&s->kern, &s->cl, MS_K_SPLIT_OWN, (size_t)n, NULL);
  if (!st)
    st = ms_buffers_download(&s->cl, x->count, count, sizeof(cl_int));
  return st;
}

ms_status ms_split_own(ms_sim *s, ms_split *x, const ms_split_cut *c, int records)
{
  ms_status st = MS_OK;
  if (x->ncol != c->ncol) {
    free(x->column);
    x->ncol = 0;
    if (!(x->column = malloc(((size_t)c->ncol + 1) * sizeof *x->column)))
      return no_memory();
    if ((st = make(&s->cl, ((size_t)c->ncol + 1) * sizeof(cl_int), "the columns", &x->column_mem)))
      return st;
    x->ncol = c->ncol;
  }
  cl_int count = 0;
  st = own_once(s, x, c, records ? x->room : 0, &count);
  if (!st && records && count > x->room) {
    st = set_room(s, x, count + count / 8 + 16);
    if (!st)
      st = own_once(s, x, c, x->room, &count);
  }
  x->n_rec = records ? count : 0;
  memset(x->to, 0, sizeof x->to);
  x->to[0] = x->n_rec; /* (a gathering's records, for no domain in particular) */
  if (!st)
    st = ms_buffers_download(&s->cl, x->column_mem, x->column, (size_t)c->ncol * sizeof(int));
  return st;
}

ms_status ms_split_records(ms_sim *s, const ms_split *x, ms_split_record *to)
{
  return x->n_rec ? ms_buffers_download(&s->cl, x->out, to, (size_t)x->n_rec * sizeof *to) : MS_OK;
}

/* Page-locked buffer k with room for `bytes` of records (and half as many more). */
static ms_status pin_room(ms_sim *s, ms_split *x, int k, size_t bytes)
{
  if (x->pin_at[k] && x->pin_room[k] >= bytes)
    return MS_OK;
  unpin(x, k);
  size_t room = bytes + bytes / 2 + 4096 * sizeof(ms_split_record);
  ms_staging st = {0};
  ms_status rc = ms_buffers_staging_alloc(&s->cl, s->cl.gpu_queue, room, "a domain's records", &st);
  x->pin[k] = st.mem;
  x->pin_at[k] = st.ptr;
  x->pin_queue = s->cl.gpu_queue;
  if (!rc)
    x->pin_room[k] = room;
  return rc;
}

ms_status ms_split_records_pinned(ms_sim *s, ms_split *x, const ms_split_record **out)
{
  int k = x->pin_next;
  x->pin_next ^= 1;
  ms_status st = pin_room(s, x, k, (size_t)x->n_rec * sizeof(ms_split_record));
  *out = x->pin_at[k];
  return st ? st : ms_split_records(s, x, x->pin_at[k]);
}

ms_status ms_split_reserve(ms_sim *s, ms_split *x, int records, int pinned)
{
  ms_status st = records > x->room ? set_room(s, x, records) : MS_OK;
  if (!st)
    st = in_room(s, x, records);
  for (int k = 0; !st && pinned && k < 2; k++)
    st = pin_room(s, x, k, (size_t)records * sizeof(ms_split_record));
  return st;
}

/* ---- the large particles -------------------------------------------------------------- */

void ms_split_large_get(const ms_sim *s, int j, double xv[4], int img[2])
{
  const ms_body *L = &s->wk.large[j];
  xv[0] = L->x, xv[1] = L->y, xv[2] = L->vx, xv[3] = L->vy;
  img[0] = L->img[0], img[1] = L->img[1];
}

void ms_split_large_hook(ms_sim *s, const ms_split_large_hooks *h)
{
  int on = h && h->take;
  s->run.large_take = on ? h->take : NULL;
  s->run.large_give = on ? h->give : NULL;
  s->run.large_leave = on ? h->leave : NULL;
  s->run.large_ctx = on ? h->ctx : NULL;
}

void ms_split_grid_span(ms_sim *s, int axis, long lo, long hi)
{
  ms_grid *g = &s->p.grid;
  long n = axis ? g->ny : g->nx;
  int periodic = s->p.period[axis] > 0.0;
  if (!periodic) {
    lo = lo < 0 ? 0 : lo;
    hi = hi > n ? n : hi;
  }
  if (hi - lo >= n) {
    g->asked = (ms_grid_span){0, 0, 0, 0};
    return;
  }
  int first = (int)(((lo % n) + n) % n), width = (int)(hi - lo);
  g->asked = axis ? (ms_grid_span){0, g->nx, first, width} : (ms_grid_span){first, width, 0, g->ny};
}

void ms_split_large_set(ms_sim *s, int j, const double xv[4], const int img[2])
{
  ms_body *L = &s->wk.large[j];
  L->x = xv[0], L->y = xv[1], L->vx = xv[2], L->vy = xv[3];
  L->img[0] = img[0], L->img[1] = img[1];
}

ms_status ms_split_speed_limit(ms_sim *s, double max_speed2)
{
  if (s->p.max_speed2 == max_speed2)
    return MS_OK;
  s->p.max_speed2 = max_speed2;
  return ms_gpu_bind(&s->ctx, &s->dev); /* (the grid's insert checks it) */
}

/* ---- a kept state ------------------------------------------------------------------------ */

/* The arrays a rewind puts back, and their sizes. */
static void kept_arrays(ms_sim *s, ms_split *x, cl_mem m[6], size_t bytes[6])
{
  size_t n = (size_t)s->p.n_small;
  const ms_buffers *b = &s->x.buf;
  cl_mem a[6] = {b->pos, b->vel, b->shape, b->img, s->dev.key, x->role};
  size_t z[6] = {16 * n, 16 * n, 8 * n, 8 * n, 4 * n, n};
  memcpy(m, a, sizeof a);
  memcpy(bytes, z, sizeof z);
}

static ms_status copy(ms_sim *s, cl_mem from, cl_mem to, size_t bytes)
{
  if (bytes == 0)
    return MS_OK;
  cl_int err = clEnqueueCopyBuffer(s->cl.gpu_queue, from, to, 0, 0, bytes, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueCopyBuffer", "a domain's kept state");
}

ms_status ms_split_mark(ms_sim *s, ms_split *x)
{
  cl_mem m[6];
  size_t bytes[6];
  kept_arrays(s, x, m, bytes);
  ms_status st = MS_OK;
  for (int k = 0; !st && k < 6; k++) {
    if (!x->keep[k] || x->keep_bytes[k] != bytes[k]) {
      st = make(&s->cl, bytes[k], "a domain's kept state", &x->keep[k]);
      x->keep_bytes[k] = st ? 0 : bytes[k];
    }
    if (!st)
      st = copy(s, m[k], x->keep[k], bytes[k]);
  }
  size_t lb = ((size_t)s->p.n_large + 1) * sizeof(ms_body);
  free(x->keep_large);
  if (!st && !(x->keep_large = malloc(lb)))
    st = no_memory();
  if (!st)
    memcpy(x->keep_large, s->wk.large, (size_t)s->p.n_large * sizeof(ms_body));
  if (!st)
    st = ms_cl_check(clFinish(s->cl.gpu_queue), "clFinish", "a domain's kept state");
  x->keep_step = s->run.step;
  x->kept = !st;
  return st;
}

ms_status ms_split_rewind(ms_sim *s, ms_split *x)
{
  cl_mem m[6];
  size_t bytes[6];
  kept_arrays(s, x, m, bytes);
  if (!x->kept || x->keep_bytes[0] != bytes[0])
    return ms_fail(MS_ERR_RUNTIME, "a domain's kept state is not its slots'");
  ms_status st = MS_OK;
  for (int k = 0; !st && k < 6; k++)
    st = copy(s, x->keep[k], m[k], bytes[k]);
  unsigned char *role = malloc((size_t)s->p.n_small + 1);
  if (!st && !role)
    st = no_memory();
  /* the host's copies of what the device holds: shapes, keys, the free slots */
  if (!st)
    st = ms_buffers_download(&s->cl, s->x.buf.shape, s->p.shape, bytes[2]);
  if (!st && s->dev.key_host)
    st = ms_buffers_download(&s->cl, s->dev.key, s->dev.key_host, bytes[4]);
  if (!st)
    st = ms_buffers_download(&s->cl, x->role, role, bytes[5]);
  x->n_free = x->n_left = x->n_rec = 0;
  for (int i = s->p.n_small - 1; !st && i >= 0; i--)
    if (role[i] == MS_ROLE_EMPTY)
      x->free_slot[x->n_free++] = i;
  free(role);
  if (!st) {
    memcpy(s->wk.large, x->keep_large, (size_t)s->p.n_large * sizeof(ms_body));
    s->run.step = x->keep_step;
    st = ms_buffers_clear_forces(&s->x.buf, &s->cl);
  }
  ms_sim_state_changed(s);
  return st;
}

ms_status ms_split_finish(ms_sim *s)
{
  return ms_cl_check(clFinish(s->cl.gpu_queue), "clFinish", "a domain's meeting");
}
