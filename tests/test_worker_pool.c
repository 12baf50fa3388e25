/* The CPU worker's pool without a device: its chunks cover [0, n) once, contiguous and
 * ascending, one per `grain` items at most one per thread; jobs run again and again on
 * the same threads; a failing chunk's status and
 * reason come back as a value, the lowest-numbered failing chunk's whichever fails
 * first in time; bad thread counts are refused; the default sizes follow the host. */
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/worker/worker_pool.h"
#include "harness.h"

static const char *filter;

static void test_chunks_cover_the_range_in_order(void)
{
  for (int threads = 1; threads <= 9; threads++) {
    for (int n = 0; n <= 50; n++) {
      int next = 0;
      for (int c = 0; c < threads; c++) {
        int begin, end;
        ms_pool_chunk(n, threads, c, &begin, &end);
        ENSURE(begin == next && end >= begin);
        ENSURE(end - begin <= n / threads + 1 && end - begin >= n / threads);
        next = end;
      }
      ENSURE(next == n);
    }
  }
}

typedef struct visit_ctx {
  int *owner;     /* the chunk that did each item */
  atomic_int calls;
} visit_ctx;

static ms_status visit(void *ctx, int begin, int end, int chunk, char *why, size_t why_size)
{
  visit_ctx *v = ctx;
  (void)why;
  (void)why_size;
  for (int i = begin; i < end; i++)
    v->owner[i] = v->owner[i] < 0 ? chunk : -2; /* -2: done twice */
  atomic_fetch_add(&v->calls, 1);
  return MS_OK;
}

/* Many jobs of every size on pools of 1, 2, 3 and 8 threads; with a spin budget, every
 * seventh job comes after a pause longer than it, so helpers are found both polling and
 * asleep. */
static void every_item_once(double spin_s)
{
  int counts[] = {1, 2, 3, 8};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    ms_pool *p = NULL;
    ENSURE(ms_pool_create(counts[k], &p) == MS_OK && ms_pool_threads(p) == counts[k]);
    ms_pool_set_spin(p, spin_s);
    int ok = 1;
    for (int job = 0; job < 300 && ok; job++) {
      if (spin_s > 0.0 && job % 7 == 0) {
        struct timespec pause = {0, (long)(3 * spin_s * 1e9)};
        nanosleep(&pause, NULL);
      }
      int n = job % 37;
      int owner[40];
      for (int i = 0; i < n; i++)
        owner[i] = -1;
      visit_ctx v = {owner, 0};
      int grain = 1 + job % 5;
      int chunks = ms_pool_chunks(p, n, grain);
      ok = ms_pool_run(p, visit, &v, n, grain) == MS_OK &&
           atomic_load(&v.calls) == (n ? chunks : 0);
      /* One chunk per `grain` items, at most one per thread. */
      ok = ok && chunks == (n <= grain ? 1 : (n + grain - 1) / grain < counts[k]
                                                   ? (n + grain - 1) / grain : counts[k]);
      for (int i = 0; i < n && ok; i++) {
        int begin, end;
        ok = owner[i] >= 0 && owner[i] < chunks;
        ms_pool_chunk(n, chunks, ok ? owner[i] : 0, &begin, &end);
        ok = ok && i >= begin && i < end;
      }
    }
    ms_pool_destroy(p);
    ENSURE(ok);
  }
}

static void test_every_item_once_over_many_jobs(void) { every_item_once(0.0); }

/* The same with helpers and caller polling 200 us before they sleep. */
static void test_every_item_once_polling(void) { every_item_once(200e-6); }

/* Chunks 1 and 2 fail, 2 at once and 1 only after a while, so 2 is first in time. */
static ms_status fail_late(void *ctx, int begin, int end, int chunk, char *why,
                           size_t why_size)
{
  atomic_int *two_failed = ctx;
  (void)begin;
  (void)end;
  if (chunk == 2) {
    atomic_store(two_failed, 1);
    snprintf(why, why_size, "chunk two");
    return MS_ERR_RUNTIME;
  }
  if (chunk == 1) {
    while (!atomic_load(two_failed))
      ; /* bounded: chunk 2 runs on its own thread and sets it at once */
    snprintf(why, why_size, "chunk one at item %d", begin);
    return MS_ERR_NUMERIC;
  }
  return MS_OK;
}

static void test_lowest_failing_chunk_reported(void)
{
  ms_pool *p = NULL;
  ENSURE(ms_pool_create(4, &p) == MS_OK);
  int ok = 1;
  for (int round = 0; round < 20 && ok; round++) {
    atomic_int two_failed = 0;
    ms_error_clear();
    ms_error_thread_clear();
    ms_status st = ms_pool_run(p, fail_late, &two_failed, 8, 1);
    const char *m = ms_error_thread_message();
    ok = st == MS_ERR_NUMERIC && m && strcmp(m, "chunk one at item 2") == 0 &&
         strcmp(ms_error_message(), "chunk one at item 2") == 0;
    if (!ok)
      fprintf(stderr, "round %d: status %d, message '%s'\n", round, st, m ? m : "(none)");
  }
  /* The pool goes on working after a failed job. */
  int owner[5] = {-1, -1, -1, -1, -1};
  visit_ctx v = {owner, 0};
  ok = ok && ms_pool_run(p, visit, &v, 5, 1) == MS_OK && atomic_load(&v.calls) == 4;
  ms_pool_destroy(p);
  ENSURE(ok);
}

static void test_bad_thread_counts_refused(void)
{
  ms_pool *p = (ms_pool *)&p;
  ENSURE(ms_pool_create(0, &p) == MS_ERR_INPUT && p == NULL);
  ENSURE(ms_pool_create(MS_CPU_THREADS_MAX + 1, &p) == MS_ERR_INPUT && p == NULL);
  ENSURE(ms_pool_create(MS_CPU_THREADS_MAX, &p) == MS_OK && p != NULL);
  ms_pool_destroy(p);
}

/* The default sizes: the cores less the manager's with a GPU, half less one with a CPU
 * device, half a share less two for each of several simulations; never 0, never past 16. */
static void test_default_sizes(void)
{
  ENSURE(ms_pool_default_threads(16, 1) == 15); /* the H200's 16-core host */
  ENSURE(ms_pool_default_threads(17, 1) == 16);
  ENSURE(ms_pool_default_threads(32, 1) == 16 && ms_pool_default_threads(64, 1) == 16);
  ENSURE(ms_pool_default_threads(1, 1) == 1 && ms_pool_default_threads(0, 1) == 1);
  ENSURE(ms_pool_default_threads(2, 0) == 1 && ms_pool_default_threads(4, 0) == 1);
  ENSURE(ms_pool_default_threads(16, 0) == 7 && ms_pool_default_threads(64, 0) == 16);
  ENSURE(ms_pool_shared_threads(32, 2) == 6 && ms_pool_shared_threads(64, 4) == 6);
  ENSURE(ms_pool_shared_threads(64, 2) == 14 && ms_pool_shared_threads(256, 1) == 16);
  ENSURE(ms_pool_shared_threads(2, 2) == 1 && ms_pool_shared_threads(2, 0) == 1);
  ENSURE(MS_CPU_THREADS_DEFAULT_MAX == 16);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_chunks_cover_the_range_in_order, filter);
  RUN_TEST(test_every_item_once_over_many_jobs, filter);
  RUN_TEST(test_every_item_once_polling, filter);
  RUN_TEST(test_lowest_failing_chunk_reported, filter);
  RUN_TEST(test_bad_thread_counts_refused, filter);
  RUN_TEST(test_default_sizes, filter);
  return TEST_EXIT();
}
