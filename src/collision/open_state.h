/* The open systems' state (collision/open.h): the scene's flows and their totals, kept by
 * the sim and changed between advances only. */
#ifndef MS_COLLISION_OPEN_STATE_H
#define MS_COLLISION_OPEN_STATE_H

#include <stdint.h>

#include "cl/runtime.h"
#include "mixsim/scene.h"
#include "mixsim/sim.h"

/* The small particles' slots as an exchange sees them on the host (collision/slots.h). */
typedef struct ms_slots_view {
  int n;                /* slots */
  double *pos;          /* 2 per slot, simulation frame: read back */
  double *vel;          /* 2 per slot; like rot and img, what the changed slots get */
  double *rot;          /* 2 per slot (theta, w); NULL when friction is off */
  int *img;             /* 2 per slot: the periods crossed */
  uint8_t *freed;       /* emptied by this exchange: not filled again before the next */
  uint8_t *changed;     /* emptied or filled by this exchange: sent down */
} ms_slots_view;

/* The exchange's device-side filter and its last result (collision/open_scan.h). */
typedef struct ms_scan_list {
  int n;
  int *slot;  /* ascending */
  double *xy; /* 2 per entry: the position */
} ms_scan_list;

typedef struct ms_open_scan {
  int made, room;                                  /* room: records each list holds */
  cl_mem out_rect, in_rect, in_reach, count;       /* the regions, as the kernel takes them */
  cl_mem leave_idx, leave_pos, near_idx, near_pos; /* `room` records each */
  ms_scan_list leave, near;                        /* the last scan's, on the host */
} ms_open_scan;

typedef struct ms_open {
  int on;        /* any inflow, outflow or open side */
  long every;    /* steps between two exchanges with the outside */
  int started;   /* the exchange at step 0 was made */
  int large_filled; /* this exchange filled a large slot */
  uint64_t seed; /* the scene's */
  int n_in, n_out;
  ms_inflow *in;   /* the scene's, copied */
  ms_outflow *out;
  int open[4];     /* the open sides: left, right, bottom, top */
  ms_flow_total *in_total, *out_total, side_total[4]; /* since the run's start */
  ms_open_scan scan;  /* the device's filter of the slots (collision/open_scan.h) */
  ms_slots_view view; /* the host's arrays of the slots, kept from one exchange to the next */
  int low_empty;      /* every small slot below this holds a particle (a search's start) */
} ms_open;

#endif
