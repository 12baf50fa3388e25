/* Contacts per particle (io/contacts.h): the small particles binned over a host grid of
 * cells one largest small diameter wide, each small particle against its 3 x 3 cells,
 * each large one against the cells its reach covers, and large pairs by a sweep along x. */
#include "io/contacts.h"

#include <math.h>
#include <stdlib.h>

#include "shared/contact.h"
#include "shared/grid.h"

typedef struct bins {
  double inv_cell;
  int nx, ny;
  float r_max; /* the largest small radius */
  size_t *first; /* small particles of cell c: order[first[c] .. first[c + 1]] */
  int *order;
} bins;

static int touching(const double *a, const double *b, float r_sum)
{
  return ms_touching((float)(b[0] - a[0]), (float)(b[1] - a[1]), r_sum);
}

static int cell_of(const bins *b, const double *p)
{
  return ms_grid_axis(p[1], b->inv_cell, b->ny) * b->nx + ms_grid_axis(p[0], b->inv_cell, b->nx);
}

static int bin_small(const ms_contact_input *in, bins *b)
{
  b->r_max = 0.0f;
  for (int i = 0; i < in->n_small; i++)
    b->r_max = in->radius[i] > b->r_max ? in->radius[i] : b->r_max;
  double cell = b->r_max > 0.0f ? 2.0 * (double)b->r_max : 1.0;
  /* no finer than the box / 4096 per side: a bounded grid whatever the sizes */
  double w = in->box[0] > in->box[1] ? in->box[0] : in->box[1];
  cell = cell > w / 4096.0 ? cell : w / 4096.0;
  b->inv_cell = 1.0 / cell;
  b->nx = (int)ceil(in->box[0] * b->inv_cell) + 1;
  b->ny = (int)ceil(in->box[1] * b->inv_cell) + 1;
  size_t cells = (size_t)b->nx * (size_t)b->ny;
  b->first = calloc(cells + 2, sizeof *b->first);
  b->order = malloc(((size_t)in->n_small + 1) * sizeof *b->order);
  if (!b->first || !b->order)
    return 0;
  for (int i = 0; i < in->n_small; i++)
    b->first[cell_of(b, &in->pos[2 * i]) + 2]++;
  for (size_t k = 2; k < cells + 2; k++)
    b->first[k] += b->first[k - 1];
  for (int i = 0; i < in->n_small; i++)
    b->order[b->first[cell_of(b, &in->pos[2 * i]) + 1]++] = i;
  return 1;
}

/* Particle i (small or large) against the small particles within its reach; a small
 * pair is counted from both sides, so each small particle counts only itself. */
static void against_small(const ms_contact_input *in, const bins *b, int i, int32_t *count)
{
  const double *p = &in->pos[2 * i];
  float r = in->radius[i];
  ms_cell_rect q = ms_grid_rect(p[0], p[1], (double)r + (double)b->r_max, b->inv_cell, b->nx, b->ny);
  for (int y = q.y0; y <= q.y1; y++)
    for (int x = q.x0; x <= q.x1; x++) {
      size_t cell = (size_t)y * (size_t)b->nx + (size_t)x;
      for (size_t k = b->first[cell]; k < b->first[cell + 1]; k++) {
        int j = b->order[k];
        if (j == i || !touching(p, &in->pos[2 * j], r + in->radius[j]))
          continue;
        count[i]++;
        if (i >= in->n_small) /* a large-small pair: the small side is counted here */
          count[j]++;
      }
    }
}

static const ms_contact_input *g_sort_in; /* for the comparison below (writer thread only) */

static int by_left_edge(const void *a, const void *b)
{
  const ms_contact_input *in = g_sort_in;
  int i = *(const int *)a, j = *(const int *)b;
  double li = in->pos[2 * i] - in->radius[i], lj = in->pos[2 * j] - in->radius[j];
  return li < lj ? -1 : li > lj ? 1 : (i > j) - (i < j);
}

static int large_pairs(const ms_contact_input *in, int32_t *count)
{
  int nl = in->n - in->n_small;
  int *o = malloc(((size_t)nl + 1) * sizeof *o);
  if (!o)
    return 0;
  for (int a = 0; a < nl; a++)
    o[a] = in->n_small + a;
  g_sort_in = in;
  qsort(o, (size_t)nl, sizeof *o, by_left_edge);
  for (int a = 0; a < nl; a++) {
    int i = o[a];
    double right = in->pos[2 * i] + in->radius[i];
    for (int c = a + 1; c < nl; c++) {
      int j = o[c];
      if (in->pos[2 * j] - in->radius[j] > right)
        break;
      if ((in->kind[i] == 2 && in->kind[j] == 2) ||
          !touching(&in->pos[2 * i], &in->pos[2 * j], in->radius[i] + in->radius[j]))
        continue;
      count[i]++;
      count[j]++;
    }
  }
  free(o);
  return 1;
}

/* The walls that push a particle (ms_walls_force's gaps, and the scene's walls' own
 * tests); static ones feel none. */
static int walls(const ms_contact_input *in, int i)
{
  const double *p = &in->pos[2 * i];
  float r = in->radius[i];
  if (in->kind[i] == 2)
    return 0;
  return ((float)p[0] < r) + ((float)(in->box[0] - p[0]) < r) + ((float)p[1] < r) +
         ((float)(in->box[1] - p[1]) < r) +
         (in->scene ? ms_wall_frame_touch(in->scene, p, r, NULL, NULL) : 0);
}

ms_status ms_count_contacts(const ms_contact_input *in, int32_t *count)
{
  bins b = {0};
  int ok = bin_small(in, &b);
  for (int i = 0; ok && i < in->n; i++)
    count[i] = walls(in, i);
  for (int i = 0; ok && i < in->n; i++)
    against_small(in, &b, i, count);
  ok = ok && large_pairs(in, count);
  free(b.first);
  free(b.order);
  return ok ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory counting contacts for --output");
}
