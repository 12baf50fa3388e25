/* The exchange's device-side filter (kernels/open.cl): instead of every position, the
 * slots whose particle is leaving and those within reach of an inflow, with their
 * positions, sorted by slot. Between advances, on the manager's queue. */
#ifndef MS_COLLISION_OPEN_SCAN_H
#define MS_COLLISION_OPEN_SCAN_H

#include "collision/open_state.h"
#include "mixsim/status.h"

struct ms_sim;

/* Runs the filter over the slots: o->scan.leave and o->scan.near. */
ms_status ms_open_scan_run(struct ms_sim *s);
void ms_open_scan_release(ms_open_scan *sc);

#endif
