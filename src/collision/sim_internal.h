/* The simulation's private state, shared by the modules that step it. */
#ifndef MS_SIM_INTERNAL_H
#define MS_SIM_INTERNAL_H

#include <stdatomic.h>

#include "collision/buffers.h"
#include "cl/runtime.h"
#include "collision/kernels.h"
#include "mixsim/sim.h"
#include "collision/sync.h"
#include "collision/trace.h"

/* A large particle as the CPU worker keeps it. */
typedef struct ms_body {
  float x, y, vx, vy;
  float fx, fy;    /* force accumulated this iteration */
  float r, m;
  float c_small;   /* damping coefficient against a small particle */
  float c_wall;    /* damping coefficient against a wall */
  int is_static;
} ms_body;

/* Grid geometry: cells of one small diameter covering the box. */
typedef struct ms_grid {
  float min_x, min_y, inv_cell;
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

struct ms_sim {
  /* Parameters, as floats shared with the kernels. */
  float dt, gx, gy, k;
  float box[4]; /* min_x, min_y, max_x, max_y */
  float r_small, m_small;
  float c_ss, c_sw; /* damping: small-small, small-wall */
  int n_small, n_large;
  double e;         /* restitution, for pair damping of large-large */
  float max_speed2; /* squared speed limit, 0: none */

  ms_grid grid;
  ms_body *large;
  ms_large_origin *large_origin; /* the scene's sections, to name a particle in messages */
  int n_large_origin;
  int *sweep_order; /* large particles sorted by left edge, for large-large */

  ms_cl cl;
  ms_kernels kern; /* the program the manager enqueues */
  ms_buffers buf;
  ms_pipeline pipeline;
  int grid_current; /* the device grid matches the current small positions */

  /* Kernel events not yet booked: read once a blocking call shows them complete. */
  cl_event pending_event[16];
  int pending_kernel[16];
  int n_pending;

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

/* Puts the sim into a saved state (checkpoint.c): small particles uploaded, large ones
 * set (x y vx vy each), grid capacity as saved, grid rebuilt before next use. */
ms_status ms_sim_restore(ms_sim *s, long step, size_t capacity, const float *small_pos,
                         const float *small_vel, const float *large_state);

#endif
