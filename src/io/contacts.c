/* Contacts per particle (io/contacts.h): the small particles binned over a host grid of
 * cells one largest small diameter wide, each small particle against its 3 x 3 cells,
 * each large one against the cells its reach covers, and large pairs by a sweep along x. */
#include "io/contacts.h"

#include "io/host_grid.h"

#include <math.h>
#include <stdlib.h>

#include "shared/contact.h"
#include "shared/grid.h"

typedef struct bins {
  ms_host_grid g;
  float r_max; /* the largest small radius */
} bins;

/* The force law's overlap test, through the seams of a periodic box. */
static int touching(const ms_host_grid *g, const double *a, const double *b, float r_sum)
{
  double d[2];
  ms_host_grid_offset(g, a, b, d);
  return ms_touching((float)d[0], (float)d[1], r_sum);
}

static int bin_small(const ms_contact_input *in, bins *b)
{
  b->r_max = 0.0f;
  for (int i = 0; i < in->n_small; i++)
    b->r_max = in->radius[i] > b->r_max ? in->radius[i] : b->r_max;
  if (!ms_host_grid_init(&b->g, in->box, in->period, b->r_max, in->n_small))
    return 0;
  return ms_host_grid_bin(&b->g, in->pos, in->n_small);
}

/* Particle i (small or large) against the small particles within its reach; a small
 * pair is counted from both sides, so each small particle counts only itself. */
static void against_small(const ms_contact_input *in, const bins *b, int i, int32_t *count)
{
  const double *p = &in->pos[2 * i];
  float r = in->radius[i];
  int q[4];
  ms_host_grid_rect(&b->g, p[0], p[1], (double)r + (double)b->r_max, q);
  for (int y = q[2]; y <= q[3]; y++)
    for (int x = q[0]; x <= q[1]; x++) {
      int cell = ms_host_grid_cell(&b->g, x, y);
      if (cell < 0)
        continue;
      for (size_t k = b->g.first[cell]; k < b->g.first[cell + 1]; k++) {
        int j = b->g.order[k];
        if (j == i || !touching(&b->g, p, &in->pos[2 * j], r + in->radius[j]))
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

static int large_pairs(const ms_contact_input *in, const ms_host_grid *g, int32_t *count)
{
  int nl = in->n - in->n_small;
  int *o = malloc(((size_t)nl + 1) * sizeof *o);
  if (!o)
    return 0;
  for (int a = 0; a < nl; a++)
    o[a] = in->n_small + a;
  g_sort_in = in;
  qsort(o, (size_t)nl, sizeof *o, by_left_edge);
  float r_large = 0.0f;
  for (int a = 0; a < nl; a++)
    r_large = in->radius[o[a]] > r_large ? in->radius[o[a]] : r_large;
  for (int a = 0; a < nl; a++) {
    int i = o[a];
    double left_i = in->pos[2 * i] - in->radius[i], right = in->pos[2 * i] + in->radius[i];
    for (int c = a + 1; c < nl; c++) {
      int j = o[c];
      double left = in->pos[2 * j] - in->radius[j];
      int looked = ms_sweep_pair(left_i, right, left, g->period[0], (double)r_large);
      if (!looked && !(g->period[0] > 0.0))
        break; /* past i's right edge; without a seam no later j comes back */
      if (!looked || (in->kind[i] == 2 && in->kind[j] == 2) ||
          !touching(g, &in->pos[2 * i], &in->pos[2 * j], in->radius[i] + in->radius[j]))
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
  MS_BOX_GAPS(p[0], p[1], in->side[0], in->side[1], in->side[2], in->side[3]);
  return (gl < r) + (gr < r) + (gb < r) + (gt < r) +
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
  ok = ok && large_pairs(in, &b.g, count);
  ms_host_grid_free(&b.g);
  return ok ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory counting contacts for --output");
}
