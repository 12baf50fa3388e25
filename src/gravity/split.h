/* Gravity mode's devices, after the OpenCL tutorial's two-GPU scheme: every device has
 * its own context, queue, program and a full copy of the positions, updates its own
 * range of bodies, and the ranges cross the host after every position update. The
 * ranges follow the devices' measured force-kernel speed. With one device nothing is
 * exchanged and steps queue up without the host. */
#ifndef MS_GRAVITY_SPLIT_H
#define MS_GRAVITY_SPLIT_H

#include "cl/runtime.h"
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
} ms_gdev;

struct ms_rank_split;

typedef struct ms_gset {
  ms_gdev dev[MS_GRAVITY_MAX_DEVICES];
  int n_dev;
  int n_body, n_pad;
  int granule;      /* range boundaries are multiples of it */
  int cur;          /* pos[cur] holds the current positions */
  float *stage[2];  /* host side of the exchange, alternating so that a slow write of the
                       last step never reads what this step's reads overwrite */
  long exchanges;
  double exchange_s;
  int rebalances;
  struct ms_rank_split *ranks; /* several MPI ranks (gravity/ranks.h): the devices cover this
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

/* After ms_gset_finish: moves range boundaries towards the measured speeds. vel and
 * acc are host scratch arrays of n_pad float4. */
ms_status ms_gset_rebalance(ms_gset *set, float *vel, float *acc);

#endif
