/* Gravity mode's devices, after the OpenCL tutorial's two-GPU scheme: every device has
 * its own context, queue, program and a full copy of the positions, updates its own
 * range of bodies, and the ranges cross the host after every position update. The
 * ranges follow the controller of gravity/balance.h. With one device nothing is
 * exchanged and steps queue up without the host. Under MPI (gravity/ranks.h) the devices
 * share their rank's range, and every step exchanges with the other ranks. */
#ifndef MS_GRAVITY_SPLIT_H
#define MS_GRAVITY_SPLIT_H

#include "cl/runtime.h"
#include "gravity/balance.h"
#include "gravity/ranks.h"
#include "gravity/variants.h"
#include "mixsim/gravity.h"
#include "shared/gravity.h" /* MS_GRAV_MODE_* */

typedef struct ms_gdev {
  ms_cl_device cl;
  char spec[64];  /* as reported: "P:D", or "P:D/K#k" for sub-device k of K */
  cl_context context;
  cl_command_queue queue;
  cl_program program;
  cl_kernel force, drift, pack;
  const ms_gravity_variant *variant;
  ms_gravity_launch launch;
  cl_mem pos[2], vel, acc, soa; /* float4 x n_pad each; soa: 4 n_pad floats (soa variants) */
  int first, count;             /* its bodies [first, first + count) of [0, n_pad) */
  cl_event *events;             /* kernels enqueued since the last finish */
  int *event_is_force;
  int n_events, cap_events;
  double force_s, other_s;      /* profiled kernel time */
  double last_force_s;          /* of the most recent force kernel */
  double bodies_per_s;          /* count / last_force_s, when measured */
  double slow;                  /* test hook MIXSIM_GRAVITY_SLOW: measured force time x slow */
  double slow_hook;             /* ... the hook's factor (0: none), from step slow_from on,
                                   up to slow_until (0: to the end) */
  long slow_from, slow_until;
  double seen_force_s, seen_other_s; /* force_s, other_s at the last sample */
  int noted;                    /* its drop was reported */
  int compute_units;
  int cores_kept;               /* a CPU given a sub-device that leaves the GPUs' host
                                   threads their cores (devices.c) */
} ms_gdev;

typedef struct ms_gset {
  ms_gdev dev[MS_GRAVITY_MAX_DEVICES];
  int n_dev;
  int n_body, n_pad;
  int granule;      /* range boundaries are multiples of it */
  int range_first, range_units; /* the devices' bodies: [range_first, + range_units granules);
                                   all of them, or under MPI this rank's range */
  int cur;          /* pos[cur] holds the current positions */
  float *stage[2];  /* host side of the exchange, alternating so that a slow write of the
                       last step never reads what this step's reads overwrite */
  long exchanges;
  long steps;       /* enqueued by ms_gset_step (the balance log's clock) */
  long sampled_steps; /* steps when the controller was last given a sample */
  double exchange_s;
  int rebalances;
  /* the split's controller (gravity/balance.h) and its per-step measurements */
  ms_balance balance;
  int active;          /* devices with bodies */
  int quiet_waits;     /* wait on events without spinning (a CPU device in a split) */
  double reads_done_t; /* when the last exchange's reads were all done; 0: none */
  double idle_from;    /* when the queues were last drained by the host; 0: not since */
  double idle_s;       /* host time with drained queues since the last sample */
  int seeded;          /* the first split was made from the first kernels' speed */
  int pending;         /* the controller decided on the split in `next` */
  int next[MS_GRAVITY_MAX_DEVICES];
  ms_rank_split *ranks; /* several MPI ranks (gravity/ranks.h): the devices cover this
                           rank's range, the exchange crosses ranks; NULL: one */
} ms_gset;

/* Float parameters of a step, as the kernels take them. */
typedef struct ms_gparams {
  float eps2, g, dt;
} ms_gparams;

/* Opens the devices `devices` lists (see ms_gravity_options), builds `kernel` (NULL:
 * each device's default) for n_body bodies and sizes the buffers; sets n_pad. */
ms_status ms_gset_open(ms_gset *set, const char *devices, const char *kernel, int n_body,
                       const char *kernel_dir);
void ms_gset_close(ms_gset *set);

/* Adds the devices `list` names to `set` (devices.c); nothing is opened yet. */
ms_status ms_gset_parse_devices(ms_gset *set, const char *list);

/* Writes all n_pad bodies (float4 each) to every device, both position buffers. */
ms_status ms_gset_upload(ms_gset *set, const float *pos, const float *vel, const float *acc);

/* Enqueues the force kernel on pos[cur] for every device's range. */
ms_status ms_gset_force(ms_gset *set, int mode, const ms_gparams *p);

/* Enqueues one step (with the exchange when there are several devices). */
ms_status ms_gset_step(ms_gset *set, ms_integrator integrator, const ms_gparams *p);

/* Waits for every queue and adds up the kernels' profiled times. */
ms_status ms_gset_finish(ms_gset *set);

/* Reads every device's range of pos[cur], vel and (when not NULL) acc into full
 * float4 host arrays. */
ms_status ms_gset_read(ms_gset *set, float *pos, float *vel, float *acc);

/* Lets the split's controller decide when it has a full window of measurements;
 * whether it wants another split (then ms_gset_finish and ms_gset_rebalance). */
int ms_gset_wants_rebalance(ms_gset *set);

/* After ms_gset_finish: moves the range boundaries where the controller decided
 * (velocities and accelerations move with their bodies; a device given bodies again
 * gets the positions). vel and acc are host scratch arrays of n_pad float4. */
ms_status ms_gset_rebalance(ms_gset *set, float *vel, float *acc);

/* split_balance.c, for split.c: the controller started on the even split; one step's
 * measurement (after the exchange's reads; step_s 0: after a step alone on one device;
 * below 0: none, the kernels so far are not counted). */
ms_status ms_gset_balance_start(ms_gset *set);
ms_status ms_gset_sample(ms_gset *set, double step_s);
ms_status ms_gset_watch(ms_gset *set);
ms_status ms_gset_seed(ms_gset *set);
/* The split before anything is measured (balance.h: ms_balance_first_split). */
void ms_gset_first_split(const ms_gset *set, int units_total, int *units);
/* Gives the devices the bodies [first, + units_total granules), `units` granules each in
 * order (under MPI, a rank's new range), and starts the controller again from there. */
void ms_gset_set_range(ms_gset *set, int first, int units_total, const int *units);

/* split.c, for split_balance.c */
ms_status ms_gset_settle_all(ms_gdev *d);
ms_status ms_gset_read_range(ms_gdev *d, cl_mem buf, float *host, const char *name);
ms_status ms_gset_quiet_finish(ms_gset *set, ms_gdev *d);

#endif
