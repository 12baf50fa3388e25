/* The CPU worker's thread pool (worker_pool.h). One job at a time: the caller publishes
 * it under the lock and bumps a generation; each helper runs its chunk and counts down;
 * the caller runs chunk 0 and waits for the count to reach zero. With a spin budget,
 * helpers and caller first poll the generation and the count for that long before they
 * sleep on the condition variables: waking fifteen sleeping threads through one lock
 * costs tens of microseconds per job, and an iteration has four jobs. */
#include "collision/worker/worker_pool.h"

#include "collision/base/trace.h"
#include "core/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct chunk_result {
  double busy_s; /* this thread's time in chunks since the pool was made */
  ms_status status;
  char message[2048]; /* the chunk's own message, when status is a failure */
} chunk_result;

typedef struct helper {
  ms_pool *pool;
  int chunk;
  pthread_t thread;
} helper;

struct ms_pool {
  int threads;
  pthread_mutex_t lock;
  pthread_cond_t start, done;
  atomic_ulong generation; /* bumped for each job (under the lock, after its fields) */
  atomic_int pending;       /* helpers still running the current job */
  double spin_s;            /* how long to poll before sleeping; 0: never poll */
  int quit;
  ms_pool_fn fn;
  void *ctx;
  int n;
  int threads_now; /* chunks of the current job (not set for a job run inline) */
  long iteration;  /* the caller's, for --trace */
  helper *helpers;      /* threads - 1 */
  chunk_result *result; /* threads */
  int started;          /* helpers actually created */
};

void ms_pool_chunk(int n, int threads, int chunk, int *begin, int *end)
{
  int base = n / threads, extra = n % threads;
  *begin = chunk * base + (chunk < extra ? chunk : extra);
  *end = *begin + base + (chunk < extra ? 1 : 0);
}

/* Runs chunk `chunk` of `chunks` over [0, n), keeping its status and reason in its own
 * slot (written by its own thread only). */
static void run_chunk(ms_pool *p, ms_pool_fn fn, void *ctx, int n, int chunks, int chunk)
{
  int begin, end;
  ms_pool_chunk(n, chunks, chunk, &begin, &end);
  chunk_result *r = &p->result[chunk];
  r->message[0] = '\0';
  double t0 = ms_now();
  r->status = begin < end ? fn(ctx, begin, end, chunk, r->message, sizeof r->message) : MS_OK;
  double t1 = ms_now();
  r->busy_s += t1 - t0;
  if (ms_tev_on && chunk > 0)
    ms_trace_pool_span(chunk, p->iteration, t0, t1);
}

/* Polls `*word` while it equals `than`, for at most `spin_s`. Returns whether it changed. */
static int spin_ulong(const atomic_ulong *word, unsigned long than, double spin_s)
{
  if (spin_s <= 0.0)
    return 0;
  double until = ms_now() + spin_s;
  do {
    for (int i = 0; i < 64; i++)
      if (atomic_load_explicit(word, memory_order_acquire) != than)
        return 1;
  } while (ms_now() < until);
  return 0;
}

static int spin_int_zero(const atomic_int *word, double spin_s)
{
  if (spin_s <= 0.0)
    return 0;
  double until = ms_now() + spin_s;
  do {
    for (int i = 0; i < 64; i++)
      if (atomic_load_explicit(word, memory_order_acquire) == 0)
        return 1;
  } while (ms_now() < until);
  return 0;
}

static void *helper_main(void *arg)
{
  helper *h = arg;
  ms_pool *p = h->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    if (atomic_load(&p->generation) == seen && !p->quit) {
      double spin_s = p->spin_s;
      pthread_mutex_unlock(&p->lock);
      spin_ulong(&p->generation, seen, spin_s);
      pthread_mutex_lock(&p->lock);
    }
    while (atomic_load(&p->generation) == seen && !p->quit)
      pthread_cond_wait(&p->start, &p->lock);
    if (p->quit)
      break;
    seen = p->generation;
    if (h->chunk >= p->threads_now)
      continue; /* a small job: not counted in `pending` */
    /* The job's fields change only under the lock, after every counted helper is done. */
    ms_pool_fn fn = p->fn;
    void *ctx = p->ctx;
    int n = p->n, chunks = p->threads_now;
    pthread_mutex_unlock(&p->lock);
    run_chunk(p, fn, ctx, n, chunks, h->chunk);
    pthread_mutex_lock(&p->lock);
    if (atomic_fetch_sub(&p->pending, 1) == 1)
      pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static int clamp_threads(long n)
{
  return n < 1 ? 1 : n > MS_CPU_THREADS_DEFAULT_MAX ? MS_CPU_THREADS_DEFAULT_MAX : (int)n;
}

int ms_pool_default_threads(long cores, int gpu)
{
  return clamp_threads(gpu ? cores - 1 : cores / 2 - 1);
}

int ms_pool_shared_threads(long cores, long sharing)
{
  return clamp_threads(cores / (sharing > 0 ? sharing : 1) / 2 - 2);
}

ms_status ms_pool_create(int threads, ms_pool **out)
{
  *out = NULL;
  if (threads < 1 || threads > MS_CPU_THREADS_MAX)
    return ms_fail(MS_ERR_INPUT, "cpu_threads must be 1 to %d (got %d)", MS_CPU_THREADS_MAX,
                   threads);
  ms_pool *p = calloc(1, sizeof *p);
  if (!p)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the CPU worker pool");
  p->threads = threads;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->start, NULL);
  pthread_cond_init(&p->done, NULL);
  p->helpers = calloc((size_t)threads, sizeof *p->helpers);
  p->result = calloc((size_t)threads, sizeof *p->result);
  if (!p->helpers || !p->result) {
    ms_pool_destroy(p);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the CPU worker pool");
  }
  for (int i = 1; i < threads; i++) {
    helper *h = &p->helpers[i - 1];
    h->pool = p;
    h->chunk = i;
    if (pthread_create(&h->thread, NULL, helper_main, h)) {
      ms_pool_destroy(p);
      return ms_fail(MS_ERR_RUNTIME, "cannot start CPU worker pool thread %d of %d", i + 1,
                     threads);
    }
    p->started++;
  }
  *out = p;
  return MS_OK;
}

void ms_pool_destroy(ms_pool *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  p->quit = 1;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->started; i++)
    pthread_join(p->helpers[i].thread, NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->start);
  pthread_mutex_destroy(&p->lock);
  free(p->helpers);
  free(p->result);
  free(p);
}

int ms_pool_threads(const ms_pool *p) { return p->threads; }

void ms_pool_set_spin(ms_pool *p, double seconds)
{
  pthread_mutex_lock(&p->lock);
  p->spin_s = seconds > 0.0 ? seconds : 0.0;
  pthread_mutex_unlock(&p->lock);
}

int ms_pool_chunks(const ms_pool *p, int n, int grain)
{
  if (grain < 1)
    grain = 1;
  long want = ((long)n + grain - 1) / grain;
  return want <= 1 ? 1 : want < p->threads ? (int)want : p->threads;
}

double ms_pool_busy_s(const ms_pool *p, int thread)
{
  return thread >= 0 && thread < p->threads ? p->result[thread].busy_s : 0.0;
}

ms_status ms_pool_run(ms_pool *p, ms_pool_fn fn, void *ctx, int n, int grain)
{
  int chunks = ms_pool_chunks(p, n, grain);
  if (chunks == 1) { /* nothing to share: no handshake, and no shared field touched */
    run_chunk(p, fn, ctx, n, 1, 0);
    return p->result[0].status ? ms_fail(p->result[0].status, "%s", p->result[0].message)
                               : MS_OK;
  }
  pthread_mutex_lock(&p->lock);
  p->fn = fn;
  p->ctx = ctx;
  p->iteration = ms_tev_on ? ms_tev_current() : -1;
  p->n = n;
  p->threads_now = chunks;
  atomic_store(&p->pending, chunks - 1);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
  pthread_cond_broadcast(&p->start);
  double spin_s = p->spin_s;
  pthread_mutex_unlock(&p->lock);
  run_chunk(p, fn, ctx, n, chunks, 0);
  if (!spin_int_zero(&p->pending, spin_s)) {
    pthread_mutex_lock(&p->lock);
    while (atomic_load(&p->pending) > 0)
      pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
  }
  for (int i = 0; i < chunks; i++) {
    const chunk_result *r = &p->result[i];
    if (!r->status)
      continue;
    return ms_fail(r->status, "%s", r->message);
  }
  return MS_OK;
}
