/* The contact zone's buffers and this iteration's views (collision/exchange/zone.h says
 * what the zone is): part of what crosses the syncs (collision/exchange/crossing.h). */
#ifndef MS_ZONE_STATE_H
#define MS_ZONE_STATE_H

#include "collision/base/kernels.h"
#include "collision/base/params.h"
#include "collision/exchange/buffers.h"

/* The zone's kernels' events, kept only to be timed until a blocking call has passed them. */
typedef struct ms_zone_events {
  cl_event ev[MS_KERNEL_COUNT];
} ms_zone_events;

typedef struct ms_zone {
  ms_buffer_mode mode; /* of the per-slot and read-back buffers: the sim's buffer mode */
  size_t room;         /* particles the per-slot buffers hold (capacity) */
  size_t span_room;    /* rectangle rows the span buffer holds */
  size_t large_room;   /* rectangles the rectangle buffers hold (large particles, walls' runs) */
  size_t n_owners;     /* this iteration's rectangles: the large particles', then the walls' */
  size_t n_cells;      /* of the grid: the mark and first-slot buffers */
  size_t lanes;        /* work-items per work-group of the block kernels */
  size_t per_lane;     /* cells per work-item there */
  size_t n_blocks;     /* blocks of lanes x per_lane cells: the whole grid's */
  ms_grid_span sweep;  /* the cells this iteration's sweeps visit (zone.c: choose_sweep) */
  size_t n_sweep, n_sweep_blocks; /* its cells, and the blocks that cover them */
  int prepared;        /* ms_zone_prepare made this iteration's rectangles (sent in sync 1) */
  /* The layout's last kernel: set in sync 1's hand-over (ms_zone_lay), where the manager
   * reads it for its small-small to wait for on the device; put aside by the next prepare
   * (after sync 2, when the manager has enqueued that kernel) as `laid_spent`, released
   * by the next layout. NULL: no zone. */
  cl_event laid;
  cl_event laid_spent;
  ms_zone_events timed; /* the layout's, from ms_zone_lay to ms_zone_begin's round trip */
  int stamp;           /* this iteration's mark; cells marked earlier hold older ones */
  size_t n_spans;      /* rows of all rectangles this iteration */
  size_t n_slots;      /* particles in the zone this iteration */
  size_t n_marked;     /* cells in it */
  size_t expect;       /* slots read before the total is known (the last total + margin) */

  size_t rec; /* doubles per slot going down: x, y, vx, vy, index (and spin, friction on) */
  size_t up;  /* floats per slot coming up: the force (and the torque, friction on) */

  /* Packed so that each direction is one transfer (kernels/zone.cl): */
  cl_mem m_own;                      /* the owners' first rows, then their rectangles */
  cl_mem m_mark, m_first;            /* per grid cell */
  cl_mem m_block, m_block_start;     /* per block */
  cl_mem m_span;                     /* the totals, then per rectangle row */
  cl_mem m_rec, m_up;                /* per slot: its record down, its forces up */
  ms_staging up_own;                 /* pinned host copy sent up */
  ms_staging c_span, c_rec, c_up;    /* copied mode's host arrays */

  /* Host views, valid between ms_zone_begin and ms_zone_end. Owner i's rows are spans
   * base[i] .. base[i + 1] - 1 (host array); span r covers slots h_span[2r] ..
   * h_span[2r + 1] - 1; slot k's record is h_rec[rec k ..], its forces h_up[up k ..]
   * (zeroed by begin). */
  int *base;
  const int *h_span, *h_totals;
  /* The last scatter (or marker) of the worker's queue: F_ls is complete once it is.
   * Set by ms_zone_end before sync 2; the manager's integration waits for it. */
  cl_event scattered;
  const double *h_rec;
  float *h_up;
} ms_zone;

#endif
