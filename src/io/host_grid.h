/* The host grid the writer thread's walkers (contacts.c, diagnostics.c) bin a frame's
 * small particles over: cells of one largest small diameter (at most 4096 a side), a
 * whole number of them along a periodic side, walked round the seams as the
 * simulation walks its own (kernels/shared/grid.h). */
#ifndef MS_IO_HOST_GRID_H
#define MS_IO_HOST_GRID_H

#include <stddef.h>

typedef struct ms_host_grid {
  double inv_cell;
  int nx, ny;
  double period[2]; /* 0 along an axis that does not wrap */
  size_t *first;    /* small particles of cell c: order[first[c] .. first[c + 1]] */
  int *order;
  int order_room;
} ms_host_grid;

/* Sizes the grid for a box w x h (`period`: the periodic sides' lengths, else 0) and
 * particles of largest small radius r_max; allocates room for n_small. 0: no memory. */
int ms_host_grid_init(ms_host_grid *g, const double box[2], const double period[2], float r_max,
                      int n_small);
void ms_host_grid_free(ms_host_grid *g);

/* Bins n small particles (x, y pairs, simulation frame) by cell. 0: no memory. */
int ms_host_grid_bin(ms_host_grid *g, const double *pos, int n);

/* Cell (cx, cy) of a walk, round the seams; -1 off a non-periodic grid. */
int ms_host_grid_cell(const ms_host_grid *g, int cx, int cy);

/* The walk's rectangle around (x, y) within `reach`. */
void ms_host_grid_rect(const ms_host_grid *g, double x, double y, double reach, int q[4]);

/* b - a through the nearest image, per axis. */
void ms_host_grid_offset(const ms_host_grid *g, const double *a, const double *b, double d[2]);

#endif
