/* The simulation: its parts by owner (docs/architecture.md has the table). Each part's
 * header says who touches it when; only the pipeline, the sim object and the tuner at
 * the top of collision/ see the whole. */
#ifndef MS_SIM_INTERNAL_H
#define MS_SIM_INTERNAL_H

#include <stdatomic.h>

#include "cl/runtime.h"
#include "collision/exchange/crossing.h"
#include "collision/ids.h"
#include "collision/open_state.h"
#include "collision/device/device.h"
#include "collision/device_only/dl_state.h"
#include "collision/base/friction_state.h"
#include "collision/base/kernels.h"
#include "collision/base/params.h"
#include "collision/sync.h"
#include "collision/base/trace.h"
#include "collision/worker/walls_state.h"
#include "collision/worker/worker.h"
#include "mixsim/sim.h"

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

/* The run's bookkeeping: where it is, how it stops, where the time went. */
typedef struct ms_run {
  long step;
  atomic_int stop_requested; /* set from a signal handler: stop at the next iteration */
  int halted;                /* the manager stopped early; published by ms_sync_abort */
  ms_sync sync;
  ms_trace trace;   /* each thread books its own phases and ring */
  ms_sim_stats stats; /* each counter written by one thread: the one its comment names */
  ms_fault fault;   /* testing only; see above */
  int end_unchecked; /* set between advances by a split run (domains/live.c), which changes
                        the state after this advance: its final grid is not built, and the
                        next advance's first build checks the state */
  unsigned long changes; /* restores and moves from outside the run: a split run's view
                            tells by it that its state is no longer the domains' */
  /* A split run's domains handing their large particles over every iteration
   * (domains/lockstep.h), set between advances: the worker calls `large_take` as it starts
   * an iteration, `large_give` once it has integrated them, and `large_leave` when it leaves
   * an advance short of its end, so that no other domain waits for it. */
  ms_status (*large_take)(void *ctx, ms_sim *s, long step);
  ms_status (*large_give)(void *ctx, ms_sim *s, long step);
  void (*large_leave)(void *ctx);
  void *large_ctx;
} ms_run;

/* Each thread's part starts a cache line of its own, so that what one thread writes never
 * shares a line with what only the other reads (ms_sim_create allocates aligned). */
#define MS_LINE 64

struct ms_sim {
  ms_params p; /* read-only during an advance */
  /* The OpenCL context and program, made at creation and read-only during an advance:
   * the manager enqueues on gpu_queue, the worker on cpu_queue and zone_queue, and each
   * sets the arguments of its own kernels only (collision/base/kernels.h). */
  ms_cl cl;
  ms_kernels kern;
  _Alignas(MS_LINE) ms_device dev; /* the GPU manager's */
  _Alignas(MS_LINE) ms_worker wk;   /* the CPU worker's */
  _Alignas(MS_LINE) ms_crossing x;  /* what crosses the syncs */
  _Alignas(MS_LINE) ms_dlarge dl;   /* large_on = device: the manager's, the worker idle */
  _Alignas(MS_LINE) ms_run run;
  ms_ctx ctx;      /* what each thread's code is handed beside its own part: p, x, cl, kern,
                      run.stats and run.trace (collision/exchange/crossing.h) */
  ms_open open;    /* inflows, outflows, open sides: changed between advances only */
  ms_ids ids;      /* the particles' persistent ids, host-side; between advances only */
};

/* The state changed between advances (slots filled or emptied, a restore): the grid,
 * the neighbour list and the worker's list are made again at the next step. */
void ms_sim_state_changed(ms_sim *s);
/* Creates the small particles' buffers for p.n_small slots and sends the state down. */
ms_status ms_sim_load_buffers(ms_sim *s, ms_buffer_mode mode, size_t cap, const double *pos,
                              const double *vel, const double *rot);

/* Periodic box: each particle's periods crossed, (ix, iy) pairs, NULL for zeros
 * (checkpoint.c, after ms_sim_restore, which leaves them as they were). */
ms_status ms_sim_set_images(ms_sim *s, const int *small_img, const int *large_img);
/* Every slot's (radius, mass), 2 per slot (checkpoint.c: an open system's). */
ms_status ms_sim_set_shapes(ms_sim *s, const float *shape);
/* The large slots' radius, mass (0, 0: empty) and whether static, as a checkpoint saved
 * them; positions follow with ms_sim_restore. */
ms_status ms_sim_set_large_shapes(ms_sim *s, const float *shape, const int32_t *is_static);
/* Local small particle i stands for global slot key[i] (n_small ints; NULL: i itself):
 * the grid orders each cell by it (collision/device/gpu_manager.h, docs/domains.md). A
 * change of the slots' number drops the keys. */
ms_status ms_sim_set_small_keys(ms_sim *s, const int *key);
/* A flow's totals (ms_sim_flow's order), as a checkpoint saved them. */
void ms_sim_set_flow(ms_sim *s, int k, const ms_flow_total *t);

ms_status ms_sim_friction_export(ms_sim *s, ms_friction_state *out); /* sim.c */
/* After ms_sim_restore: puts the rotation and the histories back. */
ms_status ms_sim_friction_import(ms_sim *s, const ms_friction_state *in);

/* The walls' state ([wall.NAME]: force-driven walls' motion, the histories of the walls'
 * contacts; collision/worker/walls_state.h), between advances. */
ms_status ms_sim_walls_export(const ms_sim *s, ms_walls_state *out); /* sim.c */
/* After ms_sim_restore (which resets the walls to the run's start): puts the state back. */
ms_status ms_sim_walls_import(ms_sim *s, const ms_walls_state *in);

/* Puts the sim into a saved state (checkpoint.c): small particles uploaded, large ones
 * set (x y vx vy each), grid capacity as saved, grid rebuilt before next use; the walls as at
 * the run's start. */
ms_status ms_sim_restore(ms_sim *s, long step, size_t capacity, const double *small_pos,
                         const double *small_vel, const double *large_state);

#endif
