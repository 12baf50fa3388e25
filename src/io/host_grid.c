/* The writer thread's host grid (io/host_grid.h). */
#include "io/host_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mixsim/scene.h"
#include "shared/grid.h"

int ms_host_grid_init(ms_host_grid *g, const double box[2], const double period[2], float r_max,
                      int n_small)
{
  memset(g, 0, sizeof *g);
  double cell = r_max > 0.0f ? 2.0 * (double)r_max : 1.0;
  double w = box[0] > box[1] ? box[0] : box[1];
  cell = cell > w / 4096.0 ? cell : w / 4096.0; /* a bounded grid whatever the sizes */
  int periodic[2] = {period[0] > 0.0, period[1] > 0.0};
  double fit = ms_box_cell(box[0], box[1], periodic, cell);
  if (fit > 0.0)
    cell = fit;
  else
    periodic[0] = periodic[1] = 0; /* no whole number of cells: walk it as a closed box */
  g->inv_cell = 1.0 / cell;
  for (int a = 0; a < 2; a++) {
    g->period[a] = periodic[a] ? period[a] : 0.0;
    int n = periodic[a] ? (int)nearbyint(box[a] / cell) : (int)ceil(box[a] * g->inv_cell) + 1;
    *(a ? &g->ny : &g->nx) = n;
  }
  g->first = calloc((size_t)g->nx * (size_t)g->ny + 2, sizeof *g->first);
  g->order = malloc(((size_t)n_small + 1) * sizeof *g->order);
  g->order_room = n_small;
  return g->first && g->order;
}

void ms_host_grid_free(ms_host_grid *g)
{
  free(g->first);
  free(g->order);
  memset(g, 0, sizeof *g);
}

static int cell_of(const ms_host_grid *g, const double *p)
{
  return ms_grid_axis(p[1], g->inv_cell, g->ny) * g->nx + ms_grid_axis(p[0], g->inv_cell, g->nx);
}

int ms_host_grid_bin(ms_host_grid *g, const double *pos, int n)
{
  if (n > g->order_room) { /* an open system's count grew */
    int *o = realloc(g->order, ((size_t)n + 1) * sizeof *o);
    if (!o)
      return 0;
    g->order = o;
    g->order_room = n;
  }
  size_t cells = (size_t)g->nx * (size_t)g->ny;
  memset(g->first, 0, (cells + 2) * sizeof *g->first);
  for (int i = 0; i < n; i++)
    g->first[cell_of(g, &pos[2 * i]) + 2]++;
  for (size_t k = 2; k < cells + 2; k++)
    g->first[k] += g->first[k - 1];
  for (int i = 0; i < n; i++)
    g->order[g->first[cell_of(g, &pos[2 * i]) + 1]++] = i;
  return 1;
}

int ms_host_grid_cell(const ms_host_grid *g, int cx, int cy)
{
  return ms_grid_cell_wrap(cx, cy, g->nx, g->ny, g->period[0] > 0.0, g->period[1] > 0.0);
}

void ms_host_grid_rect(const ms_host_grid *g, double x, double y, double reach, int q[4])
{
  ms_cell_rect r = ms_grid_rect_wrap(x, y, reach, g->inv_cell, g->nx, g->ny, g->period[0] > 0.0,
                                     g->period[1] > 0.0);
  q[0] = r.x0;
  q[1] = r.x1;
  q[2] = r.y0;
  q[3] = r.y1;
}

void ms_host_grid_offset(const ms_host_grid *g, const double *a, const double *b, double d[2])
{
  d[0] = ms_image(b[0] - a[0], g->period[0]);
  d[1] = ms_image(b[1] - a[1], g->period[1]);
}
