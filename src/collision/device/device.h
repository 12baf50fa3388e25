/* The GPU manager's state beside the buffers: the small particles' neighbour list, the
 * grid's currency, the kernel events not yet booked, the dissipation accumulators and
 * the kept forces. Touched only by the manager's thread during an advance (the device-
 * only path runs on that thread too); by the caller's thread between advances. */
#ifndef MS_COLLISION_DEVICE_H
#define MS_COLLISION_DEVICE_H

#include "cl/runtime.h"
#include "collision/base/params.h"

/* The skin as a fraction of the largest small radius (docs/friction.md: measured). */
#define MS_NLIST_SKIN_RATIO 0.3
/* Slots per particle of a new list; grows on overflow. */
#define MS_NLIST_K0 8

typedef struct ms_nlist {
  int k[2];                      /* slots per particle of each list */
  cl_mem j[2], xi[2], count[2];  /* partner, displacement per slot; partners per particle */
  int live;                      /* the list the collide kernel reads */
  int k_want;                    /* slots the next build gets */
  cl_mem ref;                    /* double2: positions at the live list's build */
  cl_mem wall_xi;                /* float: 4 per particle (left, right, bottom, top) */
  cl_mem flags;                  /* int: moved, overflowing particles, most partners */
  int moved;                     /* flags[0], read with the grid's flags */
  int stale;                     /* rebuild at the next grid build */
  float skin;                    /* m */
} ms_nlist;

#define MS_PENDING_MAX 16

/* Without friction, the manager's check of the small particles against the worker's
 * large-small list (collision/worker/ls_list.h): their positions at the list's build and
 * the moved-too-far flag, whose result crosses sync 1 (ms_list_signal). */
typedef struct ms_list_check {
  int ref_valid;     /* ref holds the positions of the list's build */
  int checked;       /* this grid build ran the check */
  int moved_read;    /* the check's flag, read with the grid's flags */
  cl_mem ref, flags; /* double2 per small particle; int */
} ms_list_check;

/* --output: the forces of the step that produced a state, kept on the device
 * (collision/forces.h). */
typedef struct ms_kept_forces {
  int on;            /* --output asked for them (ms_sim_state_want_forces) */
  cl_mem buf;        /* float2: F_ss then F_ls of the small particles, then the large
                        particles' forces when the device stepped them */
  long step;         /* the step those forces produced; -1: none */
  int large_device;  /* the large particles' are in `buf` (else in large[].fx, fy) */
} ms_kept_forces;

typedef struct ms_device {
  ms_nlist nl;           /* friction on: the small particles' neighbour list */
  cl_mem key;            /* int per small particle: the global slot it stands for, by which
                            the grid sorts each cell (docs/domains.md); NULL: its index */
  int *key_host;         /* the same on the host (the list's import orders by it) */
  ms_list_check wlc;     /* friction off: the check for the worker's list */
  int grid_current;      /* the device grid matches the current small positions */
  /* The grid's span (collision/device/grid.c): the one the last build filled, whether every
   * cell outside it is known empty, and the last request a particle fell outside of (the
   * whole grid is used while it stands; all zero: none). */
  ms_grid_span span_built, span_missed;
  int span_clean;
  ms_kept_forces forces; /* --output: the forces of an advance's last iteration */
  /* Kernel events not yet booked: read once a blocking call shows them complete. */
  cl_event pending_event[MS_PENDING_MAX];
  int pending_kernel[MS_PENDING_MAX];
  int n_pending;
  /* --diagnostics: double per small particle, per large one (large_on = device), and one
   * more slot: the energy the device's contacts dissipated (dissipation.c). */
  cl_mem diss;
  int outside_warned; /* a centre outside the grid was reported once */
} ms_device;

#endif
