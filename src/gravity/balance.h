/* The split of gravity mode's bodies over several devices, without OpenCL: a planner
 * that turns measured per-device speeds and the exchange's cost into ranges (in
 * granules), and a small controller that feeds it with the measurements of the real
 * steps (all devices running at once), tries what the model cannot predict (a device's
 * speed alone when devices share cores), keeps the fastest split it has measured, and
 * re-plans when the step time drifts. Nothing here is timed: the caller passes figures. */
#ifndef MS_GRAVITY_BALANCE_H
#define MS_GRAVITY_BALANCE_H

#define MS_BALANCE_MAX 16
#define MS_BALANCE_WINDOW 3    /* samples per decision (median) */
#define MS_BALANCE_HYSTERESIS 0.03 /* a change must promise at least this gain */
#define MS_BALANCE_DRIFT 0.25  /* settled: re-plan when the step time moves this much */
#define MS_BALANCE_DRIFT_WINDOWS 3 /* ... in this many windows in a row */
#define MS_BALANCE_MAX_CHANGES 12 /* per planning round, then the best measured is kept */
/* A GPU's kernel time is far from proportional to a small share (16K bodies on four H200s:
 * 0.07 ms a step for a quarter, 0.18 for all), so the model overrates one alone there: the
 * fastest is tried alone when the model puts it within this factor of the measured step (a
 * window at most a quarter slower); at 1M, where one alone is 2-4 times the split's step,
 * never, so short runs pay nothing for it. */
#define MS_BALANCE_SINGLE_TRIAL 1.25

/* What the planner knows of each device. The model of a step: every device in the
 * split computes its units (u / rate) plus a fixed part (drift, pack), and when two or
 * more take part each also pays the exchange; the step lasts as long as the slowest. */
typedef struct ms_balance_input {
  int n_dev;
  int units;                   /* bodies / granule, to be shared out */
  double rate[MS_BALANCE_MAX]; /* units per second of the force kernel; <= 0: unusable */
  double fixed_s[MS_BALANCE_MAX]; /* per-step time not proportional to the share */
  double exchange_s;           /* per-step exchange cost of a split of two or more */
} ms_balance_input;

typedef struct ms_balance_plan {
  int units[MS_BALANCE_MAX]; /* shares in granules; sum = input units */
  int active;                /* devices with a share */
  double step_s;             /* predicted step time */
  /* For a device left out: its best share (fraction) in a split with it, the compute
   * time a step would save by it, and the exchange time the split with it would add. */
  double drop_share[MS_BALANCE_MAX], drop_saves_s[MS_BALANCE_MAX], drop_cost_s[MS_BALANCE_MAX];
} ms_balance_plan;

/* The split with the shortest predicted step over every subset of the devices (fewer
 * devices on a tie); every device in it gets at least one granule. */
void ms_balance_plan_split(const ms_balance_input *in, ms_balance_plan *out);

/* The first split of `units` granules, before anything is measured: a CPU device beside
 * other kinds gets its probe (probe[i] >= 1 granules), the others share the rest evenly;
 * devices all of one kind share evenly. */
void ms_balance_first_split(int n_dev, const int *is_cpu, const int *probe, int units, int *out);

/* Predicted step time of a given split (units per device). */
double ms_balance_predict(const ms_balance_input *in, const int *units);

/* The controller. */
typedef struct ms_balance {
  int n_dev, units;
  int cur[MS_BALANCE_MAX];       /* the split in use, in granules */
  ms_balance_input model;        /* latest estimates (stale for devices left out) */
  int measured[MS_BALANCE_MAX];  /* the device's rate has been measured */
  int exchange_measured;
  /* the window of samples since the last change */
  int skip, n;
  double step[MS_BALANCE_WINDOW], force[MS_BALANCE_MAX][MS_BALANCE_WINDOW],
      other[MS_BALANCE_MAX][MS_BALANCE_WINDOW];
  /* what was measured: the best split and, per set of devices, its best step time */
  int best[MS_BALANCE_MAX];
  double best_s;
  unsigned tried_mask[64];
  double tried_s[64];
  int n_tried;
  int single_tried, changes;
  int settled, drift_windows;
  double settled_s;
  int probe[MS_BALANCE_MAX]; /* granules to measure a device left out with (default 1) */
  int on_host[MS_BALANCE_MAX]; /* the device computes on the host's cores (a CPU device):
                                  its rate alone is not its rate beside the others */
  int want;      /* samples the current window needs */
  double window_s; /* the last window's step time (median) */
  int decisions; /* windows decided, for the tests */
  ms_balance_plan plan; /* the planner's last answer (the drop notes use it) */
} ms_balance;

/* Starts from the split `units` (granules per device, as in use). */
void ms_balance_init(ms_balance *b, int n_dev, int units_total, const int *units);

/* One step as it ran with the current split: its wall time, and per device its force
 * kernel time and its other kernels' time (0 for a device without a share). */
void ms_balance_sample(ms_balance *b, double step_s, const double *force_s,
                       const double *other_s);

/* Whether samples are still wanted every step (not settled, or settled on a split of
 * several devices, whose steps are measured for free). */
int ms_balance_wants_samples(const ms_balance *b);

/* After a full window: 1 and the next split in `next` (granules per device) when the
 * split should change; the caller applies it and nothing else changes `cur`. */
int ms_balance_decide(ms_balance *b, int *next);

/* Set bits: devices with a share in `units`. */
unsigned ms_balance_mask(int n_dev, const int *units);

/* Why device i has no share, one line into `buf`: the model's figures when it says so,
 * else the measured step times with and without it. `name` names the device; granule:
 * bodies per unit, for its rate in bodies/s. */
void ms_balance_drop_reason(const ms_balance *b, int i, const char *name, int granule, char *buf,
                            int size);

/* Best measured step time of the splits over the devices in `mask` (0: not tried). */
double ms_balance_tried(const ms_balance *b, unsigned mask);

#endif
