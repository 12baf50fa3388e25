/* Sizes beyond 2^31 and orders of many large particles, without a device: the grid's
 * slot addressing (kernels/shared/grid.h, compiled here as host C), the check that
 * refuses buffers a device cannot hold, and the sweep order of the large particles
 * (a full sort must give exactly the order the insertion sort gives, tie for tie,
 * because the large-large sums follow it). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/exchange/buffers.h"
#include "collision/worker/cpu_worker.h"
#include "harness.h"
#include "shared/grid.h"

static const char *filter;

#define GIB (1024ull * 1024ull * 1024ull)

static void test_grid_slot_beyond_2_31(void)
{
  /* The largest grid the loader allows, at a capacity a big device can hold. */
  int cells = 1 << 28, cap = 4096;
  ENSURE(ms_grid_slot(cells - 1, cap, cap - 1) == (uint64_t)cells * (uint64_t)cap - 1);
  ENSURE(ms_grid_slot(cells - 1, cap, cap - 1) > (uint64_t)INT_MAX);
  ENSURE(ms_grid_slot(INT_MAX, INT_MAX, INT_MAX) ==
         (uint64_t)INT_MAX * (uint64_t)INT_MAX + (uint64_t)INT_MAX);
  /* Just past 2^31 slots: 2^28 cells of 8 slots, the last slot of the last cell. */
  ENSURE(ms_grid_slot((1 << 28) - 1, 9, 8) == (1ull << 28) * 9 - 1);
  ENSURE(ms_grid_slot(0, 8, 3) == 3 && ms_grid_slot(5, 8, 0) == 40);
}

/* pocl's figures on the CI machine, and an H200's. */
static const ms_device_limits small_dev = {1 * GIB, 3 * GIB};
static const ms_device_limits big_dev = {36 * GIB, 140 * GIB};

static void test_fit_grid_index_beyond_max_alloc_is_refused(void)
{
  char why[512] = "";
  /* 2^28 cells x 9 slots: past 2^31 slots, 9 GiB of grid index. */
  ENSURE(!ms_buffers_fit(&small_dev, MS_BUFFERS_SHARED, 1000, 1u << 28, 9, why, sizeof why));
  ENSURE(strstr(why, "buffer 'grid index' needs 9663676416 bytes"));
  ENSURE(strstr(why, "268435456 cells x 9 slots"));
  ENSURE(strstr(why, "CL_DEVICE_MAX_MEM_ALLOC_SIZE = 1073741824 bytes"));
  /* The same on a device that holds it: accepted, the size computed without wrapping. */
  ENSURE(ms_buffers_fit(&big_dev, MS_BUFFERS_SHARED, 1000, 1u << 28, 9, why, sizeof why));
  /* 2^28 cells x 4096 slots x 4 bytes = 2^42: no 32-bit (or int) product survives it. */
  ENSURE(!ms_buffers_fit(&big_dev, MS_BUFFERS_COPIED, 1000, 1u << 28, 4096, why, sizeof why));
  ENSURE(strstr(why, "needs 4398046511104 bytes"));
}

static void test_fit_total_beyond_global_mem_is_refused(void)
{
  char why[512] = "";
  /* Each buffer under 1 GiB, together over 3 GiB: four of 512 MiB for 2^26 small
   * particles, 1 GiB each of grid count and index. */
  ENSURE(!ms_buffers_fit(&small_dev, MS_BUFFERS_SHARED, 1u << 26, (1u << 28) - 1, 1, why,
                         sizeof why));
  ENSURE(strstr(why, "CL_DEVICE_GLOBAL_MEM_SIZE = 3221225472 bytes"));
  ENSURE(strstr(why, "the device buffers need"));
  ENSURE(ms_buffers_fit(&small_dev, MS_BUFFERS_SHARED, 1u << 20, (1u << 28) - 1, 1, why,
                        sizeof why));
}

static void test_fit_counts_beyond_int_are_refused(void)
{
  char why[512] = "";
  ENSURE(!ms_buffers_fit(&big_dev, MS_BUFFERS_SHARED, 1000, 1000, 1ull << 31, why, sizeof why));
  ENSURE(strstr(why, "as int"));
  ENSURE(!ms_buffers_fit(&big_dev, MS_BUFFERS_SHARED, 1ull << 31, 1000, 8, why, sizeof why));
}

/* The order the sweep kept before it had a full sort: insertion sort by (left edge,
 * index), from whatever order it is given. */
static void reference_order(int *o, const ms_body *B, int n)
{
  for (int a = 1; a < n; a++) {
    int v = o[a];
    float key = B[v].x - B[v].r;
    int b = a - 1;
    while (b >= 0) {
      float kb = B[o[b]].x - B[o[b]].r;
      if (kb < key || (kb == key && o[b] < v))
        break;
      o[b + 1] = o[b];
      b--;
    }
    o[b + 1] = v;
  }
}

static uint64_t rng_state = 88172645463325252ull;
static uint32_t next_rand(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 32);
}

/* Bodies whose left edges tie often (a few radii on a coarse lattice of x), with
 * negative, zero and positive edges, in a shuffled starting order. */
static ms_body *make_bodies(int n)
{
  ms_body *B = calloc((size_t)n, sizeof *B);
  if (!B)
    return NULL;
  static const float radii[] = {0.25f, 0.5f, 1.0f, 0.125f};
  for (int i = 0; i < n; i++) {
    B[i].r = radii[next_rand() % 4];
    B[i].x = (float)((int)(next_rand() % 64) - 32) * 0.125f;
    if (next_rand() % 7 == 0)
      B[i].x = B[i].r; /* left edge exactly 0 */
    if (next_rand() % 11 == 0)
      B[i].x = (float)(next_rand() % 100000) * 1e-3f - 50.0f; /* few ties here */
  }
  return B;
}

static void shuffle(int *o, int n)
{
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next_rand() % (uint32_t)(i + 1)), t = o[i];
    o[i] = o[j];
    o[j] = t;
  }
}

/* From a shuffled order (full sort), from the sorted order after small moves
 * (insertion sort) and after large ones (insertion sort that gives up): every time
 * the reference order. */
static void test_sweep_order_matches_insertion_sort(void)
{
  for (int round = 0; round < 3; round++) {
    int n = round == 0 ? 7 : round == 1 ? 1000 : 20000;
    ms_worker wk = {0}, *w = &wk;
    w->large = make_bodies(n);
    w->sweep_order = malloc((size_t)n * sizeof(int));
    int *ref = malloc((size_t)n * sizeof(int));
    int ok = w->large && w->sweep_order && ref;
    for (int i = 0; ok && i < n; i++)
      w->sweep_order[i] = i;
    for (int move = 0; ok && move < 4; move++) {
      if (move == 0)
        shuffle(w->sweep_order, n);
      for (int i = 0; move > 0 && i < n; i++) /* a few bodies jump, or all shift a bit */
        if (move == 3 || next_rand() % 50 == 0)
          w->large[i].x += (float)((int)(next_rand() % 9) - 4) * (move == 3 ? 4.0f : 0.125f);
      memcpy(ref, w->sweep_order, (size_t)n * sizeof(int));
      reference_order(ref, w->large, n);
      ms_cpu_sort_sweep(w, n);
      ok = memcmp(ref, w->sweep_order, (size_t)n * sizeof(int)) == 0;
      if (!ok)
        fprintf(stderr, "n = %d, move %d: the order differs\n", n, move);
    }
    free(ref);
    free(w->large);
    free(w->sweep_order);
    ENSURE(ok);
  }
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_grid_slot_beyond_2_31, filter);
  RUN_TEST(test_fit_grid_index_beyond_max_alloc_is_refused, filter);
  RUN_TEST(test_fit_total_beyond_global_mem_is_refused, filter);
  RUN_TEST(test_fit_counts_beyond_int_are_refused, filter);
  RUN_TEST(test_sweep_order_matches_insertion_sort, filter);
  return TEST_EXIT();
}
