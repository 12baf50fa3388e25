/* The multi-device split's planner and controller without a device (gravity/balance.h):
 * equal devices split evenly, a faster one gets its share of the speed, a device that
 * cannot pay for its exchange is dropped (and the note says so), small noise changes
 * nothing, a device that would add under 3 % is left out, shares are whole granules, a
 * measured slower split is given up for the best one measured, a drifting step time makes
 * it plan again (and measure a device left out again), and the first split probes a CPU
 * beside GPUs with a granule per compute unit. Figures are made up: nothing is timed. */
#include <stdio.h>
#include <string.h>

#include "gravity/balance.h"
#include "harness.h"

static const char *filter;

static ms_balance_input input(int n_dev, int units, const double *rate, double exchange_s)
{
  ms_balance_input in;
  memset(&in, 0, sizeof in);
  in.n_dev = n_dev;
  in.units = units;
  for (int i = 0; i < n_dev; i++)
    in.rate[i] = rate[i];
  in.exchange_s = exchange_s;
  return in;
}

static void test_two_equal_devices_split_evenly(void)
{
  double rate[] = {1000.0, 1000.0};
  ms_balance_input in = input(2, 256, rate, 0.001);
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  ENSURE(p.active == 2 && p.units[0] == 128 && p.units[1] == 128);
  ENSURE_SMALL(p.step_s - (0.128 + 0.001), 1e-12);
}

static void test_seven_times_faster_gets_seven_eighths(void)
{
  double rate[] = {7000.0, 1000.0};
  ms_balance_input in = input(2, 800, rate, 0.0);
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  ENSURE(p.units[0] == 700 && p.units[1] == 100);
  in.exchange_s = 0.002; /* an exchange both pay does not move the shares */
  ms_balance_plan_split(&in, &p);
  ENSURE(p.units[0] == 700 && p.units[1] == 100);
}

static void test_device_slower_than_its_exchange_dropped(void)
{
  /* Alone the fast device needs 0.1 s a step; the slow one would take 1 % of it and
   * save 1 ms, but the exchange costs 5 ms. */
  double rate[] = {1000.0, 10.0};
  ms_balance_input in = input(2, 100, rate, 0.005);
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  ENSURE(p.active == 1 && p.units[0] == 100 && p.units[1] == 0);
  ENSURE_SMALL(p.step_s - 0.1, 1e-12);
  ENSURE(p.drop_share[1] > 0.0 && p.drop_share[1] < 0.02);
  ENSURE(p.drop_saves_s[1] > 0.0 && p.drop_saves_s[1] < p.drop_cost_s[1]);
  ENSURE_SMALL(p.drop_cost_s[1] - 0.005, 1e-12);
  /* the controller, from measurements that say the same, settles without it and says why */
  ms_balance b;
  int even[] = {50, 50}, next[2];
  ms_balance_init(&b, 2, 100, even);
  double force[] = {0.05, 5.0}, other[] = {0.0, 0.0};
  for (int k = 0; k < b.want; k++)
    ms_balance_sample(&b, 5.005, force, other);
  ENSURE(ms_balance_decide(&b, next) && next[0] == 100 && next[1] == 0);
  double alone[] = {0.1, 0.0};
  for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++)
    ms_balance_sample(&b, 0.1, alone, other);
  ENSURE(!ms_balance_decide(&b, next) && b.settled && b.cur[1] == 0);
  char line[400];
  ms_balance_drop_reason(&b, 1, "0:1 (pocl, CPU)", 64, line, sizeof line);
  printf("    %s\n", line);
  ENSURE(strstr(line, "0:1 (pocl, CPU) dropped") && strstr(line, "exchange costs 5.00 ms"));
}

/* Equal devices measured with a few per cent of noise, window after window: the changes
 * the controller makes. on_host: both compute on the host's cores (two CPU devices). */
static int noisy_changes(int on_host, ms_balance *out)
{
  ms_balance b;
  int even[] = {128, 128}, next[2];
  ms_balance_init(&b, 2, 256, even);
  b.on_host[0] = b.on_host[1] = on_host;
  /* equal devices measured with a few per cent of noise, window after window */
  double noise[] = {0.0, 0.02, -0.015, 0.01, -0.02, 0.015};
  int changes = 0;
  for (int w = 0; w < 12; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) {
      double e = noise[(w + k) % 6];
      double force[] = {0.128 * (1.0 + e), 0.128 * (1.0 - e)}, other[] = {0.0, 0.0};
      int alone = b.cur[0] == 0 || b.cur[1] == 0;
      /* alone, one device takes twice as long: the split is worth its exchange */
      double t = alone ? 0.256 : 0.129 * (1.0 + 0.5 * e);
      if (alone) {
        force[0] = b.cur[0] ? 0.256 : 0.0;
        force[1] = b.cur[1] ? 0.256 : 0.0;
      }
      ms_balance_sample(&b, t, force, other);
    }
    changes += ms_balance_decide(&b, next);
  }
  *out = b;
  return changes;
}

static void test_small_noise_keeps_the_plan(void)
{
  ms_balance b;
  /* CPU devices: one trial of the fastest alone (sharing cores, its rate alone is
   * unknown), measured slower, then back to even for good */
  ENSURE(noisy_changes(1, &b) == 2);
  ENSURE(b.settled && b.cur[0] == 128 && b.cur[1] == 128);
  /* GPUs: the model's figure for one alone (twice the step) stands; no trial at all, so a
   * short run pays nothing for it */
  ENSURE(noisy_changes(0, &b) == 0);
  ENSURE(b.settled && b.cur[0] == 128 && b.cur[1] == 128);
}

/* Two GPUs (no host cores shared) measured in an even split: each computes its half in
 * `force` s, the step takes `step` s. Alone, one takes `alone` s (a GPU with a small share is
 * slower per body than with all). Returns the changes the controller makes; *out its end. */
static int gpu_pair_changes(double force, double step, double alone, ms_balance *out)
{
  ms_balance b;
  int even[] = {128, 128}, next[2];
  ms_balance_init(&b, 2, 256, even);
  int changes = 0;
  for (int w = 0; w < 8; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) {
      int solo = b.cur[0] == 0 || b.cur[1] == 0;
      double f[] = {b.cur[0] ? (solo ? alone : force) : 0.0, b.cur[1] ? (solo ? alone : force) : 0.0};
      double other[] = {0.0, 0.0};
      ms_balance_sample(&b, solo ? alone : step, f, other);
    }
    changes += ms_balance_decide(&b, next);
  }
  *out = b;
  return changes;
}

/* Where the model puts one GPU alone within MS_BALANCE_SINGLE_TRIAL of the split's step, the
 * fastest is tried alone once, and kept when it is faster (the 16K case); where it puts it at
 * twice the step (1M), nothing is tried and the split stays. */
static void test_gpus_try_one_alone_only_when_close(void)
{
  ms_balance b;
  /* halves of 0.10 ms and a step of 0.19 (the exchange 0.09): the model says 0.20 alone,
   * which does not beat the split by the 3 % a change needs; alone it takes 0.12 */
  ENSURE(gpu_pair_changes(0.10e-3, 0.19e-3, 0.12e-3, &b) == 1);
  ENSURE(b.settled && (b.cur[0] == 256 || b.cur[1] == 256));
  /* the same, but alone it really takes 0.21: tried, then back to the split for good */
  ENSURE(gpu_pair_changes(0.10e-3, 0.19e-3, 0.21e-3, &b) == 2);
  ENSURE(b.settled && b.cur[0] == 128 && b.cur[1] == 128);
  /* a step of 0.12 (the exchange 0.02): alone, at 0.20 by the model, is not close */
  ENSURE(gpu_pair_changes(0.10e-3, 0.12e-3, 0.12e-3, &b) == 0);
  ENSURE(b.settled && b.cur[0] == 128 && b.cur[1] == 128);
}

static void test_granules_respected(void)
{
  double rate[] = {1234.5, 987.6, 155.5}; /* (each adds over 3 %) */
  ms_balance_input in = input(3, 1000, rate, 0.0001);
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  int sum = 0;
  for (int i = 0; i < 3; i++) {
    ENSURE(p.units[i] >= 1); /* worth it: each pays the same small exchange */
    sum += p.units[i];
  }
  ENSURE(sum == 1000);
  /* no move of one granule would shorten the slowest device's time */
  double t = ms_balance_predict(&in, p.units);
  for (int from = 0; from < 3; from++)
    for (int to = 0; to < 3; to++) {
      if (from == to)
        continue;
      int u[3] = {p.units[0], p.units[1], p.units[2]};
      u[from]--;
      u[to]++;
      ENSURE(ms_balance_predict(&in, u) >= t - 1e-12);
    }
}

static void test_drift_plans_again(void)
{
  ms_balance b;
  int even[] = {128, 128}, next[2];
  ms_balance_init(&b, 2, 256, even);
  double force[] = {0.128, 0.128}, other[] = {0.0, 0.0};
  for (int w = 0; w < 4 && !b.settled; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) {
      int alone = b.cur[0] == 0 || b.cur[1] == 0;
      double f[] = {alone ? (b.cur[0] ? 0.256 : 0.0) : 0.128,
                    alone ? (b.cur[1] ? 0.256 : 0.0) : 0.128};
      ms_balance_sample(&b, alone ? 0.256 : 0.13, f, other);
    }
    ms_balance_decide(&b, next);
  }
  ENSURE(b.settled && b.cur[0] == 128);
  /* device 1 becomes three times slower: a window or two are not enough, three are */
  force[1] = 0.384;
  for (int w = 0; w < MS_BALANCE_DRIFT_WINDOWS; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) /* (the first after a change is skipped) */
      ms_balance_sample(&b, 0.386, force, other);
    int changed = ms_balance_decide(&b, next);
    ENSURE(w < MS_BALANCE_DRIFT_WINDOWS - 1 ? !changed && b.settled : changed && !b.settled);
  }
  ENSURE(next[0] == 192 && next[1] == 64); /* 3:1 */
}

static void test_device_adding_under_three_percent_left_out(void)
{
  /* The second device would take 2 % and save 2 % with a free exchange: not worth its
   * uncertain rate (balance.c); at 4 % it is taken. */
  double rate[] = {980.0, 20.0};
  ms_balance_input in = input(2, 1000, rate, 0.0);
  ms_balance_plan p;
  ms_balance_plan_split(&in, &p);
  ENSURE(p.active == 1 && p.units[0] == 1000 && p.units[1] == 0);
  ENSURE(p.drop_share[1] > 0.019 && p.drop_share[1] < 0.021);
  ENSURE(p.drop_saves_s[1] > p.drop_cost_s[1]);
  double rate2[] = {960.0, 40.0};
  in = input(2, 1000, rate2, 0.0);
  ms_balance_plan_split(&in, &p);
  ENSURE(p.active == 2 && p.units[0] == 960 && p.units[1] == 40);
  /* the note says why */
  ms_balance b;
  int cur[] = {990, 10}, next[2];
  ms_balance_init(&b, 2, 1000, cur);
  b.on_host[1] = 1; /* the CPU */
  double force[] = {990.0 / 980.0, 0.5}, other[] = {0.0, 0.0};
  for (int k = 0; k < b.want; k++)
    ms_balance_sample(&b, 990.0 / 980.0, force, other);
  ENSURE(ms_balance_decide(&b, next) && next[0] == 1000 && next[1] == 0);
  char line[400];
  ms_balance_drop_reason(&b, 1, "1:0 (pocl, CPU)", 64, line, sizeof line);
  printf("    %s\n", line);
  ENSURE(strstr(line, "a gain under the 3 % of the step a device must add"));
}

static void test_drift_measures_a_left_out_device_again(void)
{
  /* Settled on device 0 alone: device 1 was 50x slower (it would add 2 %). */
  ms_balance b;
  int start[] = {250, 6}, next[2];
  ms_balance_init(&b, 2, 256, start);
  b.probe[1] = 6;
  double other[] = {0.0, 0.0};
  for (int w = 0; w < 4 && !b.settled; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) {
      double f[] = {b.cur[0] / 1000.0, b.cur[1] / 20.0};
      double t = f[0] > f[1] ? f[0] : f[1];
      ms_balance_sample(&b, t + (b.cur[1] ? 0.01 : 0.0), f, other);
    }
    if (ms_balance_decide(&b, next))
      memcpy(b.cur, next, sizeof next);
  }
  ENSURE(b.settled && b.cur[0] == 256 && b.cur[1] == 0);
  /* device 0 becomes 4x slower: after the drift's windows device 1 gets its probe back,
   * and once measured at its own speed (now 1/12.5 of device 0's) it takes its share */
  int changed = 0;
  for (int w = 0; w < MS_BALANCE_DRIFT_WINDOWS && !changed; w++) {
    for (int k = 0; k < MS_BALANCE_WINDOW; k++) {
      double f[] = {0.256 * 4.0, 0.0};
      ms_balance_sample(&b, 0.256 * 4.0, f, other);
    }
    changed = ms_balance_decide(&b, next);
    ENSURE(w < MS_BALANCE_DRIFT_WINDOWS - 1 ? !changed : changed);
  }
  ENSURE(next[0] == 250 && next[1] == 6);
  for (int k = 0; k < MS_BALANCE_WINDOW + 1; k++) {
    double f[] = {0.250 * 4.0, 0.3};
    ms_balance_sample(&b, 1.01, f, other);
  }
  ENSURE(ms_balance_decide(&b, next) && next[1] > 6);
}

static void test_first_split_probes_a_cpu_beside_gpus(void)
{
  int out[4];
  int cpu_gpu_gpu[] = {1, 0, 0}, probe[] = {14, 132, 132}; /* (a granule per compute unit) */
  ms_balance_first_split(3, cpu_gpu_gpu, probe, 4096, out);
  ENSURE(out[0] == 14 && out[1] == 2041 && out[2] == 2041);
  int gpu_cpu[] = {0, 1}, probe2[] = {132, 1};
  ms_balance_first_split(2, gpu_cpu, probe2, 100, out);
  ENSURE(out[0] == 99 && out[1] == 1);
  int cpus[] = {1, 1}, gpus[] = {0, 0, 0}, probe3[] = {2, 2, 2};
  ms_balance_first_split(2, cpus, probe3, 101, out); /* one kind: even */
  ENSURE(out[0] == 50 && out[1] == 51);
  ms_balance_first_split(3, gpus, probe3, 10, out);
  ENSURE(out[0] == 3 && out[1] == 3 && out[2] == 4);
  ms_balance_first_split(3, cpu_gpu_gpu, probe, 15, out); /* too few for the probe: even */
  ENSURE(out[0] == 5 && out[1] == 5 && out[2] == 5);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_two_equal_devices_split_evenly, filter);
  RUN_TEST(test_seven_times_faster_gets_seven_eighths, filter);
  RUN_TEST(test_device_slower_than_its_exchange_dropped, filter);
  RUN_TEST(test_small_noise_keeps_the_plan, filter);
  RUN_TEST(test_gpus_try_one_alone_only_when_close, filter);
  RUN_TEST(test_granules_respected, filter);
  RUN_TEST(test_drift_plans_again, filter);
  RUN_TEST(test_device_adding_under_three_percent_left_out, filter);
  RUN_TEST(test_drift_measures_a_left_out_device_again, filter);
  RUN_TEST(test_first_split_probes_a_cpu_beside_gpus, filter);
  return TEST_EXIT();
}
