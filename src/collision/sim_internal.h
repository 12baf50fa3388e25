/* The simulation's private state, shared by the modules that step it. */
#ifndef MS_SIM_INTERNAL_H
#define MS_SIM_INTERNAL_H

#include <stdatomic.h>

#include "collision/buffers.h"
#include "cl/runtime.h"
#include "collision/device_large.h"
#include "collision/forces.h"
#include "collision/history.h"
#include "collision/kernels.h"
#include "collision/ls_list.h"
#include "collision/nlist.h"
#include "mixsim/sim.h"
#include "collision/sync.h"
#include "collision/trace.h"
#include "collision/zone.h"

/* A large particle as the CPU worker keeps it (simulation frame). */
typedef struct ms_body {
  double x, y, vx, vy;
  float fx, fy; /* force accumulated this iteration */
  float r, m;
  int is_static;
  double theta, w; /* angle and spin (anticlockwise), stepped only with friction on */
  float torque;    /* accumulated this iteration like fx, fy */
} ms_body;

/* Grid geometry: cells of one largest small diameter covering the box from the
 * frame's origin. */
typedef struct ms_grid {
  double inv_cell;
  int nx, ny;
  size_t n_cells;
} ms_grid;

/* Testing only: a fault planted at one point of one iteration of one thread, so tests
 * can fail a run there (tests/test_failure.c sets it; nothing else does). */
typedef enum ms_fault_point {
  MS_FAULT_BEFORE_SYNC1,
  MS_FAULT_BETWEEN_SYNCS,
  MS_FAULT_AFTER_SYNC2
} ms_fault_point;

typedef struct ms_fault {
  int armed;
  long step;           /* the iteration that fails (every time it runs: replays too) */
  ms_thread_id thread; /* MS_THREAD_GPU or MS_THREAD_CPU */
  ms_fault_point point;
  int stop_too; /* also request a stop when it fires, as a signal arriving then would */
} ms_fault;

/* A force the CPU worker found on small particle j, added to F_ls after the pool's
 * job, in the one-thread order. */
typedef struct ms_ls_contact {
  int j;
  float fx, fy;
  float t; /* friction on: the torque on it */
} ms_ls_contact;

/* A touching large pair (a left of b in the sweep) and the force of b on a. */
typedef struct ms_ll_pair {
  int a, b;
  float fx, fy;
  float ta, tb, xi; /* friction on: the torques on a and b, the new history */
  double lost;      /* --diagnostics: the energy it dissipated this step (with friction:
                       spring storage not taken off, see worker_friction.c) */
} ms_ll_pair;

/* What one pool thread found in its chunk this iteration. */
typedef struct ms_worker_chunk {
  ms_ls_contact *ls;
  size_t n_ls, ls_cap;
  ms_ll_pair *ll;
  size_t n_ll, ll_cap;
  int begin, end;    /* integration: the chunk's particles */
  int failed;        /* ... its first failing particle, -1: none */
  int failed_finite; /* ... and whether its state was finite (too fast) */
  uint64_t *key;     /* large-small with the list: one large particle's candidates */
  size_t key_cap;
} ms_worker_chunk;

struct ms_pool; /* collision/worker_pool.h */

/* One history entry: the pair (a, b) and its stored tangential displacement. */
typedef struct ms_history_entry {
  int a, b;
  float xi;
} ms_history_entry;

/* The friction state beyond positions and velocities, for checkpoints and tests. */
typedef struct ms_friction_state {
  int n_small, n_large;
  double *small_rot, *large_rot;        /* (theta, w) per particle */
  float *small_wall_xi, *large_wall_xi; /* 4 per particle: left, right, bottom, top */
  ms_history_entry *ss, *ls, *ll;       /* small-small (a < b: one entry per live pair),
                                           large-small (a = large, b = small),
                                           large-large (a < b), each sorted by (a, b) */
  size_t n_ss, n_ls, n_ll;
} ms_friction_state;

struct ms_sim {
  /* Parameters as the kernels take them. */
  double dt, gx, gy;
  float k, two_zeta;  /* stiffness; 2 zeta from the restitution (dashpots per pair) */
  double box[2];      /* width and height: the walls are x = 0, w and y = 0, h */
  double origin[2];   /* the box's min corner in scene coordinates */
  float r_small_max;  /* the largest small radius (the grid cell is twice it) */
  float *shape;       /* (radius, mass) of each small particle, as on the device */
  int n_small, n_large;
  double max_speed2;  /* squared speed limit, 0: none */
  /* Friction (docs/friction.md): on when mu, mu_r or mu_wall > 0; off, every path is the
   * frictionless program's. kt is absolute (the scene's ratio times k); c_t of a pair is
   * ms_tangential_dashpot(two_zeta, kt, m_eff). */
  int friction_on;
  float mu, mu_r, mu_wall, kt;
  double small_spin0; /* the scene's initial spin of every small particle */

  ms_grid grid;
  ms_body *large;
  ms_large_origin *large_origin; /* the scene's sections, to name a particle in messages */
  int n_large_origin;
  int *sweep_order; /* large particles sorted by left edge, for large-large */
  struct ms_sweep_item *sweep; /* their extents in that order (cpu_worker.c) */
  ms_body *large_prev; /* the large particles before this iteration's integration */

  int cpu_threads;         /* the CPU worker and its pool's helpers */
  int cpu_grain;           /* MIXSIM_CPU_GRAIN; 0: each phase's own */
  struct ms_pool *pool;
  ms_worker_chunk *chunk;  /* cpu_threads */
  ms_worker_history hist;  /* friction on: the worker's contact histories */

  ms_cl cl;
  ms_kernels kern; /* the program the manager enqueues */
  ms_buffers buf;
  ms_pipeline pipeline;
  ms_exchange exchange; /* what the worker maps or reads: the zone or the full arrays */
  ms_zone zone;         /* the worker's: touched only on its thread during an advance */
  ms_large_on large_on; /* where the large particles are stepped: CPU worker or device */
  ms_dlarge dl;         /* large_on = device: their buffers and cell list */
  ms_nlist nl;          /* friction on: the small particles' neighbour list */
  ms_ls_list wl;        /* the worker's large-small list (exchange = full) */
  int grid_current; /* the device grid matches the current small positions */
  ms_kept_forces forces; /* --output: the forces of an advance's last iteration */

  /* Kernel events not yet booked: read once a blocking call shows them complete. */
  cl_event pending_event[16];
  int pending_kernel[16];
  int n_pending;

  /* --diagnostics (ms_sim_options.diagnostics): the energy the contacts dissipated since
   * the start (or the resume) of the run, per small particle on the device (the program
   * built with MS_DIAG), per large particle on the worker, or after the small ones on the
   * device when the large particles are there (dissipation.c); side outputs only. */
  int diag;
  cl_mem diss;        /* double per small particle, per large one, and one more slot */
  double *diss_large; /* per large particle (its large-small, large-large, wall contacts) */
  double diss_worker; /* friction: what the large-large springs stored, taken off */

  long step;
  atomic_int stop_requested; /* set from a signal handler: stop at the next iteration */
  int halted;                /* the manager stopped early; published by ms_sync_abort */
  ms_sync sync;
  ms_trace trace;
  ms_sim_stats stats;
  int outside_warned;
  ms_fault fault; /* testing only; see above */
};

/* zlib's crc32 of n bytes, continued from `crc`: crc32 takes a 32-bit length, so large
 * arrays go in pieces (the CRC is the same). For the state hash and checkpoints. */
unsigned long ms_crc32_update(unsigned long crc, const void *p, size_t n);

ms_status ms_sim_friction_export(ms_sim *s, ms_friction_state *out); /* sim.c */
/* After ms_sim_restore: puts the rotation and the histories back. */
ms_status ms_sim_friction_import(ms_sim *s, const ms_friction_state *in);
void ms_friction_state_free(ms_friction_state *f);
/* The worker's part (collision/history.c): ls, ll, large_rot, large_wall_xi. */
ms_status ms_worker_history_export(const ms_sim *s, ms_friction_state *out);
ms_status ms_worker_history_import(ms_sim *s, const ms_friction_state *in);

/* Puts the sim into a saved state (checkpoint.c): small particles uploaded, large ones
 * set (x y vx vy each), grid capacity as saved, grid rebuilt before next use. */
ms_status ms_sim_restore(ms_sim *s, long step, size_t capacity, const double *small_pos,
                         const double *small_vel, const double *large_state);

#endif
