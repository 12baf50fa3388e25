/* The CPU worker's contact histories without a device (collision/worker/history.h): lookups by
 * binary search find exactly the stored contacts and give 0 for new ones, the arrays
 * written in any order come out sorted, and the double buffers swap without losing or
 * mixing entries. */
#include <stdlib.h>

#include "collision/worker/history.h"
#include "harness.h"

static const char *filter;

/* A deterministic shuffle (no libc rand: the same on every machine). */
static unsigned next_rand(unsigned *s)
{
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static void test_list_lookup_and_sort(void)
{
  for (int n = 0; n <= 200; n += 7) {
    ms_xi_list l = {0};
    int *keys = malloc((size_t)(n + 1) * sizeof *keys);
    for (int k = 0; k < n; k++)
      keys[k] = 3 * k + 1; /* gaps at 0, 2, 3, 5, ... */
    unsigned seed = (unsigned)n + 1;
    for (int k = n - 1; k > 0; k--) {
      int o = (int)(next_rand(&seed) % (unsigned)(k + 1)), t = keys[k];
      keys[k] = keys[o];
      keys[o] = t;
    }
    for (int k = 0; k < n; k++)
      ENSURE(ms_xi_push(&l, keys[k], (float)keys[k] * 0.5f));
    ms_xi_sort(&l);
    ENSURE(l.n == n);
    for (int k = 0; k < n; k++)
      ENSURE(l.e[k].j == 3 * k + 1 && l.e[k].xi == (float)(3 * k + 1) * 0.5f);
    for (int j = -2; j < 3 * n + 4; j++)
      ENSURE(ms_xi_find(&l, j) == (j % 3 == 1 && j > 0 && j < 3 * n ? (float)j * 0.5f : 0.0f));
    free(keys);
    free(l.e);
  }
}

static void test_pairs_lookup_either_order(void)
{
  ms_xi_pairs p = {0};
  unsigned seed = 7;
  /* Pairs (a, b) with a < b over 40 particles, every third one, pushed shuffled and in
   * either order. */
  int want[40][40] = {{0}};
  for (int round = 0; round < 2000; round++) {
    int a = (int)(next_rand(&seed) % 40), b = (int)(next_rand(&seed) % 40);
    if (a == b || want[a < b ? a : b][a < b ? b : a] || (a + b) % 3)
      continue;
    want[a < b ? a : b][a < b ? b : a] = 1;
    ENSURE(ms_xi_pair_push(&p, a, b, (float)(a < b ? 100 * a + b : 100 * b + a)));
  }
  ms_xi_pairs_sort(&p);
  for (size_t e = 0; e < p.n; e++) {
    ENSURE(p.e[e].a < p.e[e].b);
    if (e > 0)
      ENSURE(p.e[e - 1].a < p.e[e].a || (p.e[e - 1].a == p.e[e].a && p.e[e - 1].b < p.e[e].b));
  }
  for (int a = 0; a < 40; a++)
    for (int b = 0; b < 40; b++) {
      int lo = a < b ? a : b, hi = a < b ? b : a;
      float xi = a != b && want[lo][hi] ? (float)(100 * lo + hi) : 0.0f;
      ENSURE(ms_xi_pair_find(&p, a, b) == xi);
    }
  free(p.e);
}

/* A large particle's contacts over three iterations: each iteration finds what the last
 * one stored and nothing else; the lists swap, and clear forgets everything. */
static void test_double_buffers(void)
{
  ms_worker_history h;
  ENSURE(ms_history_init(&h, 3) == MS_OK);
  ENSURE(h.wall_xi && h.wall_xi[11] == 0.0f);
  for (int it = 0; it < 3; it++) {
    for (int i = 0; i < 3; i++) {
      ms_history_ls_start(&h, i);
      for (int j = 20; j >= 0; j--) { /* written in descending order */
        if ((j + it + i) % 2)
          continue;
        float before = ms_xi_find(&h.ls_cur[i], j);
        /* Contacts alternate: last iteration's were the other parity: all new. */
        ENSURE(before == 0.0f || it == 0);
        ENSURE(ms_xi_push(&h.ls_next[i], j, (float)(1000 * it + 10 * j + i)));
      }
      ms_history_ls_finish(&h, i);
      for (int j = 0; j <= 20; j++)
        ENSURE(ms_xi_find(&h.ls_cur[i], j) ==
               ((j + it + i) % 2 ? 0.0f : (float)(1000 * it + 10 * j + i)));
    }
    ms_history_ll_start(&h);
    ENSURE(ms_xi_pair_push(&h.ll_next, 2, 0, (float)it + 0.25f));
    ENSURE(ms_xi_pair_push(&h.ll_next, 1, 0, (float)it));
    ENSURE(ms_xi_pair_find(&h.ll_cur, 0, 2) == (it ? (float)(it - 1) + 0.25f : 0.0f));
    ms_history_ll_finish(&h);
    ENSURE(h.ll_cur.n == 2 && h.ll_cur.e[0].b == 1 && h.ll_cur.e[1].b == 2);
  }
  ms_history_clear(&h);
  ENSURE(ms_xi_find(&h.ls_cur[0], 0) == 0.0f && h.ll_cur.n == 0);
  ms_history_free(&h);
  ENSURE(h.ls_cur == NULL && h.n_large == 0);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_list_lookup_and_sort, filter);
  RUN_TEST(test_pairs_lookup_either_order, filter);
  RUN_TEST(test_double_buffers, filter);
  return TEST_EXIT();
}
