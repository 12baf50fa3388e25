/* The contact zone: the part of the small particles' state the CPU worker's
 * large-small search needs. The worker lists the grid cells under the reach of every
 * large particle (the same rectangle large-small walks); a kernel counts their
 * particles, the worker reads the counts and lays the zone out without gaps, a second
 * kernel gathers the particles (index, position, velocity) there, and the worker maps or
 * reads only those. It adds the large-small forces per zone slot, and a third kernel
 * stores them into F_ls. The full arrays never cross to the host (exchange = zone); the
 * exchange = full path of collision/buffers.h moves them all. */
#ifndef MS_ZONE_H
#define MS_ZONE_H

#include "collision/buffers.h"

typedef struct ms_zone {
  ms_buffer_mode mode; /* of the buffers below: follows the sim's buffer mode */
  size_t rows;         /* cells the per-cell buffers hold (capacity) */
  size_t room;         /* particles the per-slot buffers hold (capacity) */
  size_t n;            /* cells listed this iteration */
  size_t n_slots;      /* particles in them */
  size_t n_cells;      /* of the grid */
  int *cells;          /* the listed grid cells, in first-visit order (`rows` of room) */
  int *row_of;         /* per grid cell: its row in the zone, -1 when not listed */
  int *count, *start;  /* per row: particles, first slot (host arrays, `rows` of room) */
  cl_mem m_cells, m_count, m_start;     /* per row */
  cl_mem m_idx, m_pos, m_vel, m_f;      /* per slot */
  ms_staging c_count, c_idx, c_pos, c_vel, c_f; /* copied mode's host arrays */

  /* Host views of the slots, valid between ms_zone_begin and ms_zone_end: the small
   * particle's index, position, velocity, and the large-small force on it (zeroed by
   * begin). Row r's particles are slots start[r] .. start[r] + count[r] - 1. */
  const int *h_idx;
  const double *h_pos, *h_vel;
  float *h_f;
} ms_zone;

struct ms_sim;

/* The worker's side, between sync 1 and sync 2, on its own queue: list the cells, count
 * and lay out the zone, grow the buffers when it outgrew them (never truncating),
 * gather, then map or read the zone; end publishes the zone's forces (unmap or write)
 * and stores them into F_ls, returning once the device is done. */
ms_status ms_zone_begin(struct ms_sim *s);
ms_status ms_zone_end(struct ms_sim *s);

/* Remakes the buffers with room for about `rows` cells and as many particles as they can
 * hold (at least a minimum, at most the grid's cells and the small particles), now:
 * for tests, a zone with ample room from the start, or with almost none. */
ms_status ms_zone_reserve(struct ms_sim *s, size_t rows);

/* Bytes the exchange = full path moves between device and host per iteration. */
double ms_zone_full_bytes(const struct ms_sim *s);

void ms_zone_release(ms_zone *z, ms_cl *cl);

#endif
