/* The grid cells within reach of a wall: a band along its segments, or a ring inside a
 * circle, as runs of cells row by row. The worker walks a wall's band to find the small
 * particles that may touch it (not the wall's whole bounding rectangle: a drum's would be
 * the whole drum). Rows ascending, runs ascending and disjoint in a row, so the walk's
 * order is a function of the band alone, whatever the order of the segments. */
#ifndef MS_WALL_BAND_H
#define MS_WALL_BAND_H

#include <stddef.h>

#include "collision/base/params.h"

/* Columns x0..x1 of grid row y. */
typedef struct ms_band_span {
  int y, x0, x1;
} ms_band_span;

typedef struct ms_band {
  ms_band_span *span;
  size_t n, cap;
} ms_band;

/* The cells holding any point within `reach` of the polyline's segments (points: x,y
 * pairs; the closing segment too when `closed`), clamped to the grid like ms_grid_axis
 * clamps particles, or wrapped round the grid along an axis where seam[a] > 0 (the wall
 * meets discs through images there: ms_wall_def.seam). Conservative: a cell of the band
 * may be out of reach, never the other way round. Returns 0 when out of memory (the band is
 * then empty). */
int ms_band_polyline(ms_band *b, const double *points, int n_points, int closed, double reach,
                     const ms_grid *g, const double seam[2]);

/* The cells holding any point of the ring R - reach <= |p - c| <= R + reach. */
int ms_band_circle(ms_band *b, double cx, double cy, double radius, double reach,
                   const ms_grid *g, const double seam[2]);

void ms_band_free(ms_band *b);

#endif
