/* The exchange's device-side filter (kernels/open.cl): instead of every position, the
 * slots whose particle is leaving and those within reach of an inflow, with their
 * positions, sorted by slot. Between advances, on the manager's queue. */
#ifndef MS_COLLISION_OPEN_SCAN_H
#define MS_COLLISION_OPEN_SCAN_H

#include "cl/runtime.h"
#include "mixsim/status.h"

struct ms_sim;

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

/* Runs the filter over the slots: o->scan.leave and o->scan.near. */
ms_status ms_open_scan_run(struct ms_sim *s);
void ms_open_scan_release(ms_open_scan *sc);

#endif
