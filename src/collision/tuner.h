/* Automatic choices (`buffers = auto`, `exchange = auto`): the candidates are timed over
 * the first iterations of a run and the fastest is kept for the rest.
 *
 * The run loop (app/run.c) asks the tuner before each advance which configuration to set
 * (ms_tuner_before, which sets it on the simulation, outside the timed advance) and how
 * many iterations the advance may take, and tells it afterwards how many ran in how long
 * (ms_tuner_after). The schedule: one warm-up batch per candidate, discarded, then R
 * rounds of one batch per candidate, interleaved, each round starting one candidate later
 * than the last, so that none is always the first after a switch; a candidate far slower
 * in its warm-up (MS_TUNE_WARM_CUT) or clearly slower than the fastest after a round
 * (MS_TUNE_DROP) runs no more; then the
 * candidate with the lowest median ms/iteration over its rounds (among those kept to the
 * end) is set for the rest of the run. Every
 * candidate gives the same state bit for bit, so the tuning iterations are iterations of
 * the run. The simulation never sees `auto`: it runs only the concrete values set here.
 *
 * The choices are a table of axes (tuner.c); the candidates are the product of the axes
 * given as auto, each other axis at the value the simulation was made with. A rule
 * "when axis A has value X, axis B does not matter" sets B to that value in every
 * candidate with A = X, and the duplicates this makes are dropped. */
#ifndef MS_COLLISION_TUNER_H
#define MS_COLLISION_TUNER_H

#include "mixsim/scene.h"
#include "mixsim/sim.h"

#define MS_TUNE_AXES_MAX 4
#define MS_TUNE_VALUES_MAX 4
#define MS_TUNE_CANDIDATES_MAX 64 /* MS_TUNE_VALUES_MAX ^ 3 */
#define MS_TUNE_ROUNDS 3          /* timed rounds of a run */
#define MS_TUNE_ROUNDS_MAX 9
/* Iterations per batch. At least 10: on the H200, batches of 5 at 1M small particles
 * spread the cost of a switch and of an advance's start over too few iterations and kept
 * the device-only candidate (0.80 ms/it) over the zone (0.65). */
#define MS_TUNE_BATCH_MIN 10
#define MS_TUNE_BATCH_MAX 200
#define MS_TUNE_SHARE 10          /* tuning aims at 1/10 of the run's iterations at most */
/* After each timed round but the last a candidate whose fastest round is slower than this
 * times the fastest round of any candidate runs no more batches: on the H200 the slow
 * candidates of mixed.ini (0.19-0.28 ms/it against 0.16) cost most of the tuning's share.
 * After the first round, with one figure each, only one twice as slow: a round can be
 * inflated by what a switch leaves behind (1M small particles on the H200: the default's
 * rounds 0.36, 0.37 and 0.66 ms/it). */
#define MS_TUNE_DROP 1.25
#define MS_TUNE_DROP_FIRST 2.0
/* The warm-up runs the simulation's own configuration first, then each other candidate in
 * MS_TUNE_WARM_PIECES advances; one whose second or later piece is MS_TUNE_WARM_CUT times
 * slower per iteration than the fastest whole warm-up is cut there (the first piece bears
 * a switch's and a first use's costs: pocl compiles a kernel at its first launch). At 1M
 * small particles on the H200 the full exchange's candidates (2.5 and 5.4 ms/it against
 * 0.37) cost more in their warm-up and first round than the whole rest of the tuning. */
#define MS_TUNE_WARM_PIECES 8
#define MS_TUNE_WARM_CUT 3.0

/* One choice the tuner can make: its name (the scene key and the option's word), its
 * values, whether the scene (with the command line applied) gave it as auto, and how to
 * read, set and name a value on the simulation. */
typedef struct ms_tune_axis {
  const char *name;
  int n_values;
  int values[MS_TUNE_VALUES_MAX];
  int (*given_auto)(const ms_scene *sc);
  int (*get)(const ms_sim *sim);
  ms_status (*set)(ms_sim *sim, int value);
  const char *(*value_name)(int value);
} ms_tune_axis;

/* When axis `when` has value `value`, axis `moot` does not change the time (e.g. with the
 * large particles on the device the worker exchanges nothing, so buffers and exchange do
 * not matter): such candidates keep `moot` at the simulation's own value. */
typedef struct ms_tune_moot {
  const char *when;
  int value;
  const char *moot;
} ms_tune_moot;

typedef struct ms_tune_candidate {
  int value[MS_TUNE_AXES_MAX];          /* one per axis of the table */
  double ms_per_it[MS_TUNE_ROUNDS_MAX]; /* one per timed round */
  int timed;                            /* rounds timed so far */
  int dropped;                          /* the timed round after which it ran no more, -1:
                                           cut in its warm-up; 0: kept */
  double warm_ms;                       /* ms/iteration of its warm-up (as far as it ran) */
  double median, min, max;              /* over its timed rounds, once tuned */
} ms_tune_candidate;

typedef enum ms_tune_outcome {
  MS_TUNE_PENDING,   /* batches still to run (or the run stopped before the last) */
  MS_TUNE_CHOSEN,    /* every batch ran; `chosen` is the fastest */
  MS_TUNE_TOO_SHORT  /* the run is shorter than `shortest`: the simulation's own
                        values were kept */
} ms_tune_outcome;

/* Read by io/report.c; changed only by the functions below. */
typedef struct ms_tuner {
  const ms_tune_axis *axes;
  int n_axes;
  int is_auto[MS_TUNE_AXES_MAX];
  int base[MS_TUNE_AXES_MAX]; /* the simulation's values when the tuner was made */
  ms_tune_candidate cand[MS_TUNE_CANDIDATES_MAX];
  int n_cand;
  int rounds;
  long batch;   /* iterations per batch */
  long total;   /* iterations of the run */
  long needed;  /* iterations the schedule takes with no candidate dropped:
                   n_cand * (rounds + 1) * batch */
  long spent;   /* iterations of the batches run so far, warm-up included */
  long shortest; /* the shortest run it tunes: one whose tenth holds batches of the
                    minimum length, MS_TUNE_SHARE * n_cand * (rounds + 1) * BATCH_MIN */
  ms_tune_outcome outcome;
  int chosen;   /* candidate kept (MS_TUNE_CHOSEN); the defaults' otherwise, when one is */
  int slot;     /* batches done, warm-up included */
  int first;    /* the candidate the warm-up starts with: the simulation's own, else 0 */
  double warm_best; /* the fastest whole warm-up, ms/iteration (0: none yet) */
  long batch_it; /* iterations and seconds of the batch under way */
  double batch_s;
  int applied;  /* the final configuration has been set */
} ms_tuner;

/* The table of axes that ms_tuner_create uses. */
const ms_tune_axis *ms_tune_axes(int *n_axes);

/* Iterations per batch for a run of `total` iterations and `n_cand` candidates:
 * total / (MS_TUNE_SHARE * n_cand * (rounds + 1)), clamped to the batch limits, so that
 * tuning takes at most a tenth of a run long enough to tune. */
long ms_tune_batch(long total, int n_cand, int rounds);

/* The candidates: every combination of the values of the axes with is_auto set, the
 * others at base; the moot rules applied, duplicates dropped, first occurrence kept, in
 * the table's order (the first axis varying slowest). Returns how many (at most max). */
int ms_tune_candidates(const ms_tune_axis *axes, int n_axes, const ms_tune_moot *moot,
                       int n_moot, const int *is_auto, const int *base,
                       ms_tune_candidate *out, int max);

/* The schedule and its bookkeeping, without a simulation (the tests drive it). */
void ms_tuner_plan(ms_tuner *t, const ms_tune_axis *axes, int n_axes, const ms_tune_moot *moot,
                   int n_moot, const int *is_auto, const int *base, long total, int rounds);
/* The candidate the next batch runs and the iterations it still wants; -1 when no
 * batch is due (tuned, or too short). */
int ms_tuner_next(const ms_tuner *t, long *iterations);
/* Books `iterations` run in `seconds` to the batch under way. */
void ms_tuner_record(ms_tuner *t, long iterations, double seconds);

/* A tuner for `sim` over a run of `total` iterations with the axes that `sc` gives as
 * auto; *out is NULL when none is. */
ms_status ms_tuner_create(const ms_scene *sc, ms_sim *sim, long total, ms_tuner **out);
void ms_tuner_destroy(ms_tuner *t);
/* Before an advance: sets the configuration due on `sim` and the most iterations the
 * advance may take (*iterations; LONG_MAX once tuning is over). */
ms_status ms_tuner_before(ms_tuner *t, ms_sim *sim, long *iterations);
/* After it: the iterations it ran and its wall time. */
void ms_tuner_after(ms_tuner *t, long iterations, double seconds);
/* Whether the tuner still times batches (the run loop leaves its chunk length alone). */
int ms_tuner_busy(const ms_tuner *t);

/* The name of candidate `c`'s value on axis `a`. */
const char *ms_tuner_value_name(const ms_tuner *t, int c, int a);

#endif
