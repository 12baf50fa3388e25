/* The device-only baseline's state (collision/device_only/device_large.h says what the
 * path is): the large particles' device buffers and cell list, and with friction their
 * rotation and contact histories. The manager's thread owns it during an advance (the
 * worker idle); between advances the caller's thread. */
#ifndef MS_DL_STATE_H
#define MS_DL_STATE_H

#include <stddef.h>

#include "cl/runtime.h"
#include "collision/device/device.h"
#include "collision/exchange/crossing.h"

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
  ms_dl_lists ws, wl;   /* walls of any shape, per small and per large particle (key: wall
                           << 20 | feature; kernels/large_friction.cl) */
  long growths;         /* times a list was made longer during an advance */
  int test_regrow;      /* tests only: make both lists one slot longer every iteration */
} ms_dl_friction;

/* The walls' reactions (device_walls.c): each disc's reaction records, kr slots of (wall,
 * force on the disc, torque the wall receives), per small and per large particle; the
 * walls' band runs, each wall's first run, the runs' sums and each wall's total. */
typedef struct ms_dl_walls {
  int made;
  size_t kr;
  cl_mem small_n, small_key, small_f, small_t;
  cl_mem large_n, large_key, large_f, large_t;
  cl_mem spans, first, partial, out;
  /* --diagnostics: each record's (lost, work), each run's, the walls' running (lost, work),
   * with friction which old histories a small contact took and the ended ones' springs per
   * wall and block of particles */
  cl_mem small_lw, large_lw, partial_lw, acc, taken, drop;
  int n_blocks;
  double *h_acc;
  size_t spans_cap;   /* runs the spans and partial buffers hold */
  int n_spans;
  int *h_spans;       /* host staging of the runs (wall, row, x0, x1) and firsts */
  size_t h_spans_cap;
  int *h_first;
  double *h_out;      /* 4 per wall, read without waiting */
  int stale;          /* the device's runs are not the bands' (an advance's start) */
  int summed;         /* this iteration's reactions are summed and read */
} ms_dl_walls;

/* The large cell list's first slots per cell; it grows when a cell's list overflows. */
#define MS_DL_FIRST_CAPACITY 4

typedef struct ms_dlarge {
  int made;              /* buffers exist (made on the first device advance) */
  size_t n_cells, cap;   /* cells of the grid; slots per cell of the list */
  double margin;         /* widening of a rectangle that bounds large-large's partners */
  int shapes_stale;      /* an exchange filled or emptied large slots: upload the shapes */
  cl_mem pos, vel;       /* double2: x y, vx vy per large particle */
  cl_mem shape, stat, f; /* float2 (radius, mass), int static, float2 force */
  cl_mem prev_pos, prev_vel; /* the state before this iteration's integration */
  cl_mem img, prev_img;      /* int2: the periods crossed (periodic box), now and before */
  int *h_img;                /* host staging of img */
  cl_mem count, idx, flags;  /* the cell list: per-cell counts, cap slots per cell */
  cl_mem rect, owner;        /* int4 per large particle: its cells at the last build; per
                                cell, the particle that sorts it (kernels/large.cl) */
  int width;                 /* the list kernels' work-items per large particle */
  cl_mem chead, cnext, ccell; /* large-large's cells: the first particle of each, the next
                                 of each particle, each one's cell at the last build */
  cl_double2 cinv;           /* their number per metre along x and y */
  int cnx, cny;
  double *h_pos, *h_vel;     /* host staging for uploads and read-backs */
  float *h_shape;
  int *h_stat;
  int h_flags[5]; /* the list's and the integration's flags, read without waiting */
  int host_current; /* a failure already read the state back this advance */
  cl_mem wall;       /* the walls placed this iteration (device_large.c), one record or more */
  double *h_wall;    /* its host staging */
  size_t wall_doubles;
  ms_dl_friction fr; /* friction on: rotation and histories (device_friction.h) */
  ms_dl_walls wr;    /* walls of any shape: their reactions (device_walls.h) */
} ms_dlarge;

/* One device buffer of the baseline (refused with the device's limit named when it is
 * larger than one allocation), and its release. */
ms_status ms_dl_make(const ms_cl *cl, size_t bytes, const char *what, cl_mem *out);
void ms_dl_release_mem(cl_mem *m);

void ms_dl_release_lists(ms_dl_lists *l); /* both generations */

/* Enqueues `kernel` over n work-items on the manager's queue, its event kept for the
 * trace and the kernel times. */
ms_status ms_dl_enqueue(const ms_ctx *c, ms_device *dev, int kernel, size_t n);
void ms_dl_release(ms_dlarge *d);
void ms_dlf_release(ms_dl_friction *f);
void ms_dlw_release(ms_dl_walls *r);

#endif
