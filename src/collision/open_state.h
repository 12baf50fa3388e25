/* The open systems' state (collision/open.h): the scene's flows and their totals, kept by
 * the sim and changed between advances only. */
#ifndef MS_COLLISION_OPEN_STATE_H
#define MS_COLLISION_OPEN_STATE_H

#include <stdint.h>

#include "collision/open_scan.h"
#include "collision/slots.h"
#include "mixsim/scene.h"
#include "mixsim/sim.h"

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
