/* Gravity mode: an all-pairs gravitational N-body simulation in 3D on one or several
 * OpenCL devices, as in the OpenCL N-body tutorial and the CUDA Handbook's chapter.
 *
 * One step, leapfrog (kick-drift-kick, one force evaluation per step):
 *
 *     every device, its bodies        host                 every device, its bodies
 *     v += a dt/2; x += v dt   -->  exchange x   -->  a = G sum_j m_j r_ij / (r^2+eps^2)^3/2
 *     (ms_grav_drift)               (several           v += a dt/2
 *                                    devices only)     (the force kernel, mode KICK)
 *
 * Taylor (the tutorial's): the force kernel computes a from x and writes
 * x + v dt + a dt^2/2 into the other position buffer, then v += a dt; positions are
 * exchanged after it. On one device, `burst` steps run without the host; on several,
 * positions cross the host every step (each device needs all of them), and the split
 * of the bodies follows the devices' measured speed over the first steps. */
#ifndef MIXSIM_GRAVITY_H
#define MIXSIM_GRAVITY_H

#include <signal.h>
#include <stdint.h>

#include "mixsim/scene.h"
#include "mixsim/status.h"

#define MS_GRAVITY_MAX_DEVICES 16
#define MS_GRAVITY_FLOPS_PER_INTERACTION 20 /* the customary count, for GFLOP/s */

typedef struct ms_gravity ms_gravity;

typedef struct ms_gravity_options {
  /* Devices: "all", or a comma-separated list of gpu | cpu | P:D | P:D/K (device P:D
   * split into K equal sub-devices). A device may be listed twice: it is then opened
   * twice, in two contexts. NULL: $MIXSIM_DEVICE, else the first GPU, else a CPU. */
  const char *devices;
  const char *kernel;     /* force-kernel variant for every device; NULL: by device type */
  long burst;             /* steps per read-back; 0: the scene's */
  const char *kernel_dir; /* NULL: $MIXSIM_KERNEL_DIR, then the kernels built in */
} ms_gravity_options;

/* Energy, momentum and virial ratio of the current state, in double precision. */
typedef struct ms_gravity_diag {
  long step;
  double time;
  double kinetic, potential, energy; /* potential with the same softening as the force */
  double energy_error;               /* (E - E0) / |E0|, E0 at step 0 */
  double momentum[3], angular_momentum[3];
  double virial_ratio; /* 2K / |W|: 1 in virial equilibrium */
  int has_energy;      /* 0 with energy = off */
  int sampled;         /* the potential is an estimate from a subset of bodies */
} ms_gravity_diag;

typedef struct ms_gravity_device_stats {
  char name[256], platform[256], spec[64];
  int is_gpu;
  const char *kernel; /* variant */
  int work_group;
  int first, count;   /* bodies [first, first + count) at the end of the run */
  double force_s;     /* force kernels, OpenCL profiling */
  double other_s;     /* drift and pack kernels */
  double bodies_per_s; /* last measured force speed, what the split follows */
} ms_gravity_device_stats;

typedef struct ms_gravity_stats {
  long steps;         /* advanced so far */
  long steps_run;     /* advanced by this process (a resumed run: since the checkpoint) */
  int bodies;         /* n */
  int padded;         /* n rounded up for the kernels (zero-mass padding) */
  int device_count;
  ms_gravity_device_stats device[MS_GRAVITY_MAX_DEVICES];
  double advance_s;   /* wall time inside ms_gravity_advance */
  double exchange_s;  /* host part of the position exchange (several devices) */
  double readback_s;  /* reading the state back at burst ends */
  double diagnostics_s; /* energy and momentum on the host */
  int rebalances;     /* times the split was changed */
  double initial_energy; /* E0, step 0's (a resumed run's from its checkpoint) */
  int ranks;          /* MPI ranks sharing the bodies (1: this process alone) */
  double mpi_s;       /* of exchange_s, the time in the ranks' collective */
} ms_gravity_stats;

/* The state in body order: pos 4 per body (x, y, z, m), vel 3 per body. */
typedef struct ms_gravity_state {
  long step;
  double time;
  int n;
  float *pos, *vel;
} ms_gravity_state;

ms_status ms_gravity_create(const ms_scene *scene, const ms_gravity_options *opt,
                            ms_gravity **out);
void ms_gravity_destroy(ms_gravity *g);

/* Runs `steps` steps; reads the state back every burst and fails with MS_ERR_NUMERIC
 * when a position or velocity is no longer finite, naming the step where the first one
 * turned (a burst that ends non-finite runs again from its start one step at a time);
 * the state is then that step's. */
ms_status ms_gravity_advance(ms_gravity *g, long steps);

/* Diagnostics of the current state (energy as the scene's `energy` key says). */
ms_status ms_gravity_diagnose(ms_gravity *g, ms_gravity_diag *out);

ms_status ms_gravity_read_state(ms_gravity *g, ms_gravity_state *state);
void ms_gravity_state_free(ms_gravity_state *state);

/* CRC-32 (zlib) over the positions (x, y, z) then the velocities, as floats. */
uint32_t ms_gravity_state_hash(const ms_gravity_state *state);
ms_status ms_gravity_hash(ms_gravity *g, uint32_t *hash);

/* The accelerations (3 per body) the force kernels compute for the current positions;
 * does not change the run. */
ms_status ms_gravity_accelerations(ms_gravity *g, float *acc);
/* The accelerations (3 per body) the last step's force kernels left, read back without
 * computing them again (leapfrog: a(x) at the current positions; Taylor: a at the
 * positions the step started from); before any step, a(x) of the start. */
ms_status ms_gravity_step_accelerations(ms_gravity *g, float *acc);

const ms_gravity_stats *ms_gravity_get_stats(const ms_gravity *g);

/* Checkpoints: the state is the step, positions (x y z m, 4 per body), velocities
 * (3 per body) and the initial energy the drift is measured against. Accelerations are
 * recomputed from the positions by the same kernel, so a restored run continues bit
 * for bit as the uninterrupted one. */
ms_status ms_gravity_restore(ms_gravity *g, long step, const float *pos, const float *vel,
                             double e0);
double ms_gravity_initial_energy(const ms_gravity *g);
/* Several MPI ranks: after rank 0 alone restored a checkpoint (its status `st`), every rank
 * takes rank 0's state (collective; the state is then whole on every rank). Returns `st`
 * in one process. */
ms_status ms_gravity_share(ms_gravity *g, ms_status st);
int ms_gravity_body_count(const ms_gravity *g);

/* A flag (set by a signal handler) that makes ms_gravity_advance stop after the
 * current step; the step count says how far it got. NULL: none. */
void ms_gravity_set_stop_flag(ms_gravity *g, const volatile sig_atomic_t *flag);
long ms_gravity_step(const ms_gravity *g);
long ms_gravity_burst(const ms_gravity *g);

/* The force-kernel variants, by index; NULL past the end. */
int ms_gravity_kernel_count(void);
const char *ms_gravity_kernel_name(int i);
const char *ms_gravity_kernel_summary(int i);

/* Double-precision references on the host, O(n^2). pos: 4 floats per body, vel: 3. */
void ms_gravity_reference_accel(const float *pos, int n, double g, double softening,
                                double *acc);
/* `sample` > 0 estimates the potential from `sample` bodies (evenly spaced in index)
 * against all; 0 sums every pair; < 0 skips it (has_energy = 0). */
void ms_gravity_measure(const float *pos, const float *vel, int n, double g, double softening,
                        int sample, ms_gravity_diag *out);

#endif
