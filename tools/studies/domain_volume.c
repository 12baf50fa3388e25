/* domain_volume: what slabs of a scene would exchange (docs/domains.md, docs/scaling.md).
 * Runs the scene on one device and, every --every iterations, cuts its small particles into
 * P slabs of whole cell columns along the grid's longer axis, by count as a balancer would
 * (the cuts are set at the first sample and then kept, as between two moves of a balancer),
 * and counts per slab:
 *   own      the particles it owns;
 *   halo     those in the cell column on each side of it, which it reads every iteration
 *            (round the seam where that axis is periodic);
 *   migrants those that changed slab since the previous sample, per iteration.
 * Prints, per P, the columns per slab and the means (and the largest halo) over the slabs and
 * samples, with the bytes a halo particle and a migrant carry (docs/domains.md).
 * Usage: domain_volume [--device SPEC] [--steps N] [--every K] [--slabs P,P,...] SCENE.ini */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "mixsim/mixsim.h"

#define MAX_P 32

typedef struct options {
  const char *device, *scene;
  long steps, every;
  int n_p, p[MAX_P];
} options;

typedef struct tally {
  int P;
  int *lo;           /* P + 1 cut cells along the axis */
  int *last;         /* each particle's slab at the previous sample; -1: none yet */
  double own, halo, halo_max, migrants;
  long samples, moved_samples;
} tally;

static int usage(void)
{
  fprintf(stderr, "usage: domain_volume [--device SPEC] [--steps N] [--every K] "
                  "[--slabs P,P,...] SCENE.ini\n");
  return 2;
}

static int parse(int argc, char **argv, options *o)
{
  static const struct option longs[] = {{"device", required_argument, 0, 'd'},
                                        {"steps", required_argument, 0, 'n'},
                                        {"every", required_argument, 0, 'e'},
                                        {"slabs", required_argument, 0, 's'},
                                        {0, 0, 0, 0}};
  *o = (options){NULL, NULL, 200, 20, 4, {2, 4, 8, 16}};
  int c;
  while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    char *end = NULL;
    switch (c) {
    case 'd': o->device = optarg; break;
    case 'n': o->steps = strtol(optarg, &end, 10); break;
    case 'e': o->every = strtol(optarg, &end, 10); break;
    case 's':
      o->n_p = 0;
      for (char *t = strtok(optarg, ","); t && o->n_p < MAX_P; t = strtok(NULL, ","))
        o->p[o->n_p++] = (int)strtol(t, &end, 10);
      break;
    default: return -1;
    }
    if (end && *end)
      return -1;
  }
  for (int k = 0; k < o->n_p; k++)
    if (o->p[k] < 2)
      return -1;
  if (optind != argc - 1 || o->steps < 1 || o->every < 1 || o->every > o->steps)
    return -1;
  o->scene = argv[optind];
  return 0;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Each particle's cell along the axis (-1: an empty slot of an open system). */
static void cells_of(const ms_sim *s, const ms_state *st, int axis, int *cell)
{
  const ms_grid *g = &s->p.grid;
  for (int i = 0; i < st->n_small; i++)
    cell[i] = st->small_shape[2 * i + 1] == 0.0f
                  ? -1
                  : ms_grid_axis(st->small_pos[2 * i + axis], g->inv_cell, axis ? g->ny : g->nx);
}

/* Cuts by count: slab d starts at the cell of the (d n / P)-th particle along the axis. */
static void cut(tally *t, const int *cell, int n, int n_axis)
{
  int *c = malloc((size_t)n * sizeof *c + 1), m = 0;
  for (int i = 0; i < n; i++)
    if (cell[i] >= 0)
      c[m++] = cell[i];
  qsort(c, (size_t)m, sizeof *c, cmp_int);
  t->lo[0] = 0;
  for (int d = 1; d < t->P; d++) {
    int at = m ? c[(long)m * d / t->P] : 0;
    t->lo[d] = at > t->lo[d - 1] ? at : t->lo[d - 1] + 1; /* at least a column each */
  }
  t->lo[t->P] = n_axis;
  free(c);
}

static int slab_of(const tally *t, int c)
{
  int d = 0;
  while (d + 1 < t->P && c >= t->lo[d + 1])
    d++;
  return d;
}

/* One sample: own and halo per slab, and the migrants since the last sample. */
static void count(tally *t, const int *cell, int n, int n_axis, int periodic, long since)
{
  long *own = calloc((size_t)t->P, sizeof *own), *halo = calloc((size_t)t->P, sizeof *halo);
  long moved = 0;
  for (int i = 0; i < n; i++) {
    if (cell[i] < 0)
      continue;
    int d = slab_of(t, cell[i]);
    own[d]++;
    /* the neighbour slab whose edge column this is reads it as halo */
    if (cell[i] == t->lo[d] && (d > 0 || periodic))
      halo[(d + t->P - 1) % t->P]++;
    if (cell[i] == t->lo[d + 1] - 1 && (d + 1 < t->P || periodic))
      halo[(d + 1) % t->P]++;
    if (t->last[i] >= 0 && t->last[i] != d)
      moved++;
    t->last[i] = d;
  }
  (void)n_axis;
  for (int d = 0; d < t->P; d++) {
    t->own += (double)own[d] / t->P;
    t->halo += (double)halo[d] / t->P;
    if ((double)halo[d] > t->halo_max)
      t->halo_max = (double)halo[d];
  }
  if (since > 0) {
    t->migrants += (double)moved / t->P / (double)since;
    t->moved_samples++;
  }
  t->samples++;
  free(own);
  free(halo);
}

int main(int argc, char **argv)
{
  options o;
  if (parse(argc, argv, &o))
    return usage();
  ms_scene sc;
  ms_sim *s = NULL;
  if (ms_scene_load(o.scene, &sc) ||
      ms_sim_create(&sc, &(ms_sim_options){.device = o.device}, &s)) {
    fprintf(stderr, "domain_volume: %s\n", ms_error_message());
    return 1;
  }
  const ms_grid *g = &s->p.grid;
  int axis = g->ny > g->nx, n_axis = axis ? g->ny : g->nx;
  int periodic = s->p.period[axis] > 0.0, friction = s->p.friction_on;
  tally t[MAX_P];
  int n = s->p.n_small, *cell = malloc((size_t)n * sizeof *cell + 1);
  for (int k = 0; k < o.n_p; k++) {
    t[k] = (tally){.P = o.p[k]};
    t[k].lo = malloc(((size_t)o.p[k] + 1) * sizeof(int));
    t[k].last = malloc((size_t)n * sizeof(int) + 1);
    for (int i = 0; i < n; i++)
      t[k].last[i] = -1;
  }
  int rc = 0;
  for (long done = 0, first = 1; done < o.steps; first = 0) {
    if (ms_sim_advance(s, o.every)) {
      fprintf(stderr, "domain_volume: %s\n", ms_error_message());
      rc = 1;
      break;
    }
    done += o.every;
    ms_state st;
    if (ms_sim_read_state(s, &st)) {
      fprintf(stderr, "domain_volume: %s\n", ms_error_message());
      rc = 1;
      break;
    }
    cells_of(s, &st, axis, cell);
    for (int k = 0; k < o.n_p; k++) {
      if (first)
        cut(&t[k], cell, st.n_small, n_axis);
      count(&t[k], cell, st.n_small, n_axis, periodic, first ? 0 : o.every);
    }
    ms_state_free(&st);
  }
  /* What crosses: a halo particle its position, velocity (doubles), shape and global slot;
   * with friction its rotation too. A migrant also its image, id and, with friction, its
   * list of partners and their histories (counted apart: they vary). */
  int halo_bytes = 16 + 16 + 8 + 4 + (friction ? 16 : 0), move_bytes = halo_bytes + 8 + 8;
  printf("%s: %d small particles, %d columns along %c%s, %ld iterations sampled every %ld\n",
         o.scene, n, n_axis, axis ? 'y' : 'x', periodic ? " (periodic)" : "", o.steps, o.every);
  printf("| slabs | columns a slab | own a slab | halo a slab (largest) | halo / own | "
         "migrants a slab per iteration | halo bytes a slab per iteration |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (int k = 0; !rc && k < o.n_p; k++) {
    const tally *q = &t[k];
    double own = q->own / (double)q->samples, halo = q->halo / (double)q->samples;
    double mig = q->moved_samples ? q->migrants / (double)q->moved_samples : 0.0;
    printf("| %d | %.1f | %.0f | %.0f (%.0f) | %.3f | %.2f | %.0f |\n", q->P,
           (double)n_axis / q->P, own, halo, q->halo_max, own > 0 ? halo / own : 0.0, mig,
           halo * halo_bytes);
  }
  if (!rc)
    printf("(a halo particle carries %d bytes, a migrant %d plus its friction lists)\n",
           halo_bytes, move_bytes);
  for (int k = 0; k < o.n_p; k++) {
    free(t[k].lo);
    free(t[k].last);
  }
  free(cell);
  ms_sim_destroy(s);
  ms_scene_free(&sc);
  return rc;
}
