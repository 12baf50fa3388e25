/* A three-macro test harness: RUN_TEST, ENSURE, ENSURE_SMALL. One binary per file;
 * an optional argument filters tests by substring. Exit 77 means "skipped". */
#ifndef MS_TEST_HARNESS_H
#define MS_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int ms_test_failures;
static int ms_test_run_count;

#define ENSURE(cond)                                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__, #cond);      \
      ms_test_failures++;                                                            \
      return;                                                                        \
    }                                                                                \
  } while (0)

#define ENSURE_SMALL(x, tol)                                                         \
  do {                                                                               \
    double ms_v_ = (double)(x);                                                      \
    if (!(fabs(ms_v_) <= (tol))) {                                                   \
      fprintf(stderr, "%s:%d: ENSURE_SMALL failed: |%s| = %g > %g\n", __FILE__,      \
              __LINE__, #x, ms_v_, (double)(tol));                                   \
      ms_test_failures++;                                                            \
      return;                                                                        \
    }                                                                                \
  } while (0)

#define RUN_TEST(fn, filter)                                                         \
  do {                                                                               \
    if (!(filter) || strstr(#fn, (filter))) {                                        \
      int ms_before_ = ms_test_failures;                                             \
      fn();                                                                          \
      ms_test_run_count++;                                                           \
      printf("%s %s\n", ms_test_failures == ms_before_ ? "ok  " : "FAIL", #fn);      \
      fflush(stdout);                                                                \
    }                                                                                \
  } while (0)

#define TEST_EXIT() (ms_test_run_count == 0 ? 77 : (ms_test_failures ? 1 : 0))

#endif
