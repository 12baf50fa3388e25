/* The contact zone's buffers and this iteration's views (collision/exchange/zone.h says
 * what the zone is): part of what crosses the syncs (collision/exchange/crossing.h). */
#ifndef MS_ZONE_STATE_H
#define MS_ZONE_STATE_H

#include "collision/exchange/buffers.h"

typedef struct ms_zone {
  ms_buffer_mode mode; /* of the per-slot and read-back buffers: the sim's buffer mode */
  size_t room;         /* particles the per-slot buffers hold (capacity) */
  size_t span_room;    /* rectangle rows the span buffer holds */
  size_t large_room;   /* rectangles the rectangle buffers hold (large particles, walls' runs) */
  size_t n_owners;     /* this iteration's rectangles: the large particles', then the walls' */
  size_t n_cells;      /* of the grid: the mark and first-slot buffers */
  size_t lanes;        /* work-items per work-group of the block kernels */
  size_t per_lane;     /* cells per work-item there */
  size_t n_blocks;     /* blocks of lanes x per_lane cells */
  int stamp;           /* this iteration's mark; cells marked earlier hold older ones */
  size_t n_spans;      /* rows of all rectangles this iteration */
  size_t n_slots;      /* particles in the zone this iteration */
  size_t n_marked;     /* cells in it */
  size_t expect;       /* slots read before the total is known (the last total + margin) */

  cl_mem m_rect, m_base;                        /* per large: rectangle, first row */
  cl_mem m_mark, m_first;                       /* per grid cell */
  cl_mem m_block, m_block_start, m_totals;      /* per block; the zone's totals */
  cl_mem m_span;                                /* per rectangle row */
  cl_mem m_idx, m_pos, m_vel, m_f;              /* per slot */
  cl_mem m_w, m_t;                              /* per slot, friction on: spin, torque */
  ms_staging up_rect, up_base;                  /* pinned host copies sent up */
  ms_staging c_totals, c_span, c_idx, c_pos, c_vel, c_f; /* copied mode's host arrays */
  ms_staging c_w, c_t;                                   /* ... friction on */

  /* Host views, valid between ms_zone_begin and ms_zone_end. Large particle i's rows are
   * spans base[i] .. base[i + 1] - 1 (host array); span r covers slots h_span[2r] ..
   * h_span[2r + 1] - 1: the small particle's index, position, velocity, and the
   * large-small force on it (zeroed by begin). */
  int *base;
  const int *h_span, *h_totals;
  /* The last scatter (or marker) of the worker's queue: F_ls is complete once it is.
   * Set by ms_zone_end before sync 2; the manager's integration waits for it. */
  cl_event scattered;
  cl_event torqued; /* friction on: the torques' scatter, enqueued before the forces' */
  const int *h_idx;
  const double *h_pos, *h_vel;
  float *h_f;
  const double *h_w; /* friction on: each slot's spin, and the torque on it (zeroed) */
  float *h_t;
} ms_zone;

#endif
