/* The MPI ranks' split of the bodies without MPI (gravity/ranks.h): the pure planner gives
 * equal ranks equal shares, a faster rank a proportional one, every rank at least one
 * granule while there are enough, all granules and no more, and reports whether the plan
 * changed; outside an MPI launch the process is one rank and the collectives pass through. */
#include <stdio.h>
#include <string.h>

#include "gravity/ranks.h"
#include "harness.h"

static const char *filter;

static int sum(const int *c, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += c[i];
  return s;
}

static void test_equal_rates_split_evenly(void)
{
  double rate[4] = {5, 5, 5, 5};
  int count[4];
  ENSURE(ms_ranks_plan(rate, 4, 64, NULL, count) == 1);
  for (int i = 0; i < 4; i++)
    ENSURE(count[i] == 16);
  ENSURE(ms_ranks_plan(rate, 4, 64, count, count) == 0); /* unchanged */
}

static void test_faster_rank_gets_proportionally_more(void)
{
  double rate[2] = {7e9, 1e9};
  int old[2] = {50, 50}, count[2];
  ENSURE(ms_ranks_plan(rate, 2, 100, old, count) == 1);
  ENSURE(count[0] == 88 && count[1] == 12); /* 87.5 and 12.5: the tie to the first */
  ENSURE(sum(count, 2) == 100);
}

static void test_remainders_and_minimum(void)
{
  double rate[3] = {1000, 1, 1};
  int count[3];
  ms_ranks_plan(rate, 3, 10, NULL, count);
  ENSURE(count[1] == 1 && count[2] == 1 && count[0] == 8); /* at least one granule each */
  ms_ranks_plan(rate, 3, 2, NULL, count); /* fewer granules than ranks: all of them given */
  ENSURE(sum(count, 3) == 2 && count[0] == 2);
  double odd[3] = {1, 1, 1};
  ms_ranks_plan(odd, 3, 10, NULL, count);
  ENSURE(sum(count, 3) == 10 && count[0] >= 3 && count[1] >= 3 && count[2] >= 3);
}

static void test_one_rank_outside_mpi(void)
{
  ENSURE(ms_ranks_size() == 1 && ms_ranks_rank() == 0);
  volatile sig_atomic_t flag = 0;
  ENSURE(ms_ranks_stop_flag(&flag) == &flag); /* the signal's own flag */
  ENSURE(ms_ranks_agree(MS_OK) == MS_OK);
  ENSURE(ms_ranks_agree(ms_fail(MS_ERR_NUMERIC, "boom")) == MS_ERR_NUMERIC);
  ENSURE(strcmp(ms_error_message(), "boom") == 0);
  uint32_t theirs = 0;
  ENSURE(ms_ranks_differs(0x1234u, &theirs) == -1 && theirs == 0x1234u);
  long granule = 64, pad = 256;
  ENSURE(ms_ranks_units(MS_OK, &granule, &pad) == MS_OK && granule == 64 && pad == 256);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_equal_rates_split_evenly, filter);
  RUN_TEST(test_faster_rank_gets_proportionally_more, filter);
  RUN_TEST(test_remainders_and_minimum, filter);
  RUN_TEST(test_one_rank_outside_mpi, filter);
  return TEST_EXIT();
}
