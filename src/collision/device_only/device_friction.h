/* Friction on the device-only path (large_on = device, issue 12): the large particles'
 * rotation, torques and wall displacements in device buffers during an advance, and
 * their contact histories as per-large-particle lists of (partner, xi) sorted by
 * partner (double buffered), run by kernels/large_friction.cl. The host's
 * ms_worker_history (collision/history.h) stays the one state between advances: it is
 * uploaded at the advance's start and read back at its end, so switching large_on,
 * checkpoints and resume see the same histories the CPU worker keeps. */
#ifndef MS_DEVICE_FRICTION_H
#define MS_DEVICE_FRICTION_H

#include "cl/runtime.h"

/* Lists of (partner, xi), k slots per large particle, two generations. */
typedef struct ms_dl_lists {
  cl_mem n[2], key[2], xi[2];
  int cur;  /* the generation the kernels read; they write the other */
  size_t k; /* slots per large particle */
} ms_dl_lists;

typedef struct ms_dl_friction {
  int made;
  cl_mem rot, prev_rot; /* double2 (theta, w) per large particle, and before integration */
  cl_mem torque;        /* float per large particle */
  cl_mem wall_xi;       /* 4 floats per large particle: left, right, bottom, top */
  ms_dl_lists ls, ll;   /* large-small (partner: small index), large-large (large index) */
  long growths;         /* times a list was made longer during an advance */
  int test_regrow;      /* tests only: make both lists one slot longer every iteration */
} ms_dl_friction;

struct ms_sim;

/* The advance's start: makes the buffers, uploads the rotation and the histories. */
ms_status ms_dlf_begin(struct ms_sim *s);

/* Enqueues large-small, large-large and the walls with friction (the lists grown first
 * when the grid or the large cell list has grown). */
ms_status ms_dlf_forces(struct ms_sim *s);

/* Enqueues the large integration with rotation. */
ms_status ms_dlf_integrate(struct ms_sim *s);

/* Reads the rotation back (with `failed` >= 0, those after it from before the
 * integration) and the histories into the host's ms_worker_history. */
ms_status ms_dlf_read_back(struct ms_sim *s, int failed);

void ms_dlf_release(ms_dl_friction *f);

#endif
