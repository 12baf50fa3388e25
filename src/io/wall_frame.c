/* The walls of a frame (io/wall_frame.h): the copy taken with the state, and a disc's
 * contacts with them, searched as the CPU worker searches (collision/worker/walls.c): a
 * circle gives one contact at most, a polyline one per segment at most, by the feature
 * rule of kernels/shared/wall.h. */
#include "io/wall_frame.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "shared/wall.h"

ms_status ms_wall_frame_alloc(ms_sim *sim, ms_wall_frame *f)
{
  memset(f, 0, sizeof *f);
  int n = ms_sim_wall_count(sim);
  if (n == 0)
    return MS_OK;
  f->w = calloc((size_t)n, sizeof *f->w);
  if (!f->w)
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory for the walls");
  f->n = n;
  for (int k = 0; k < n; k++) {
    ms_wall_info in;
    ms_sim_wall(sim, k, &in);
    ms_wall_shot *w = &f->w[k];
    const char *name = strncmp(in.section, "wall.", 5) == 0 ? in.section + 5 : in.section;
    snprintf(w->name, sizeof w->name, "%s", name);
    w->kind = in.kind;
    w->n_points = in.kind == MS_WALL_POLYLINE ? in.n_points : 0;
    w->closed = in.closed;
    if (w->n_points && !(w->points = malloc((size_t)w->n_points * 2 * sizeof *w->points))) {
      ms_wall_frame_free(f);
      return ms_fail(MS_ERR_RUNTIME, "--output: out of memory for the walls");
    }
  }
  return MS_OK;
}

void ms_wall_frame_free(ms_wall_frame *f)
{
  for (int k = 0; k < f->n; k++)
    free(f->w[k].points);
  free(f->w);
  memset(f, 0, sizeof *f);
}

void ms_wall_frame_take(ms_sim *sim, ms_wall_frame *f)
{
  /* The worker's sums are the last iteration's; that iteration made this state when the
   * forces kept for --output are this step's (collision/forces.c). */
  int known = sim->dev.forces.buf && sim->dev.forces.step == sim->run.step;
  for (int k = 0; k < f->n; k++) {
    ms_wall_info in;
    ms_sim_wall(sim, k, &in);
    ms_wall_shot *w = &f->w[k];
    if (w->n_points) {
      memcpy(w->points, in.points, (size_t)w->n_points * 2 * sizeof *w->points);
      w->box[0] = w->box[2] = w->points[0];
      w->box[1] = w->box[3] = w->points[1];
      for (int i = 1; i < w->n_points; i++) {
        const double *q = &w->points[2 * i];
        w->box[0] = q[0] < w->box[0] ? q[0] : w->box[0];
        w->box[2] = q[0] > w->box[2] ? q[0] : w->box[2];
        w->box[1] = q[1] < w->box[1] ? q[1] : w->box[1];
        w->box[3] = q[1] > w->box[3] ? q[1] : w->box[3];
      }
    }
    for (int a = 0; a < 2; a++) {
      w->seam[a] = in.seam[a];
      w->anchor[a] = in.anchor[a];
    }
    w->center[0] = in.center[0];
    w->center[1] = in.center[1];
    w->radius = in.radius;
    w->fx = known ? in.fx : NAN;
    w->fy = known ? in.fy : NAN;
    w->torque = known ? in.torque : NAN;
    w->contacts = known ? in.contacts : -1;
    w->work = in.work;
    w->lost = in.lost;
  }
}

static void add(const ms_wall_hit *hit, double *overlap2, double *max_overlap)
{
  double d = (double)hit->overlap;
  if (overlap2)
    *overlap2 += d * d;
  if (max_overlap && d > *max_overlap)
    *max_overlap = d;
}

int ms_wall_frame_touch(const ms_wall_frame *f, const double *centre, float r,
                        double *overlap2, double *max_overlap)
{
  int n = 0;
  ms_wall_hit hit;
  for (int k = 0; k < f->n; k++) {
    const ms_wall_shot *w = &f->w[k];
    double p[2] = {ms_wall_image(centre[0], w->anchor[0], w->seam[0]),
                   ms_wall_image(centre[1], w->anchor[1], w->seam[1])};
    if (w->kind == MS_WALL_CIRCLE) {
      if (ms_circle_contact(p[0], p[1], r, w->center[0], w->center[1], w->radius, &hit)) {
        add(&hit, overlap2, max_overlap);
        n++;
      }
      continue;
    }
    double reach = 2.0 * (double)r; /* a contact is within r of the points' bounds */
    if (p[0] < w->box[0] - reach || p[0] > w->box[2] + reach || p[1] < w->box[1] - reach ||
        p[1] > w->box[3] + reach)
      continue;
    int nv = w->n_points;
    for (int i = 0; i < ms_polyline_segments(nv, w->closed); i++) {
      ms_wall_segment g = ms_polyline_segment(i, nv, w->closed);
      const double *a = &w->points[2 * g.a], *b = &w->points[2 * g.b], *c = &w->points[2 * g.c];
      if (ms_segment_contact(p[0], p[1], r, a[0], a[1], b[0], b[1], g.start_free, g.end_free,
                             c[0], c[1], &hit)) {
        add(&hit, overlap2, max_overlap);
        n++;
      }
    }
  }
  return n;
}

double ms_wall_frame_work(const ms_wall_frame *f)
{
  double sum = 0.0;
  for (int k = 0; k < f->n; k++)
    sum += f->w[k].work;
  return sum;
}
