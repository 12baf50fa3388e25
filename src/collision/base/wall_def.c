/* The run's walls from the scene (collision/base/wall_def.h). */
#include "collision/base/wall_def.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/contact.h"

static void motion_of(const ms_wall *src, ms_wall_def *d)
{
  ms_wall_motion *m = &d->motion;
  m->vx = src->velocity[0];
  m->vy = src->velocity[1];
  if (src->rotates) {
    m->cx = src->rot_center[0];
    m->cy = src->rot_center[1];
    m->omega = src->omega;
  }
  m->ax = src->osc_amp[0];
  m->ay = src->osc_amp[1];
  m->f = src->osc_freq;
  if (src->force_driven) {
    double len = hypot(src->force[0], src->force[1]);
    d->force_driven = 1;
    d->dir[0] = src->force[0] / len;
    d->dir[1] = src->force[1] / len;
    d->push = len;
    d->mass = src->mass;
  }
}

ms_status ms_wall_defs_make(ms_params *p, const ms_scene *sc)
{
  p->n_walls = sc->wall_count;
  if (p->n_walls == 0)
    return MS_OK;
  p->walls = calloc((size_t)p->n_walls, sizeof *p->walls);
  if (!p->walls)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d walls", p->n_walls);
  for (int k = 0; k < p->n_walls; k++) {
    const ms_wall *src = &sc->walls[k];
    ms_wall_def *d = &p->walls[k];
    snprintf(d->section, sizeof d->section, "%s", src->section);
    d->kind = src->kind;
    d->closed = src->closed;
    d->n_points = src->kind == MS_WALL_POLYLINE ? src->n_points : 0;
    d->center[0] = src->center[0];
    d->center[1] = src->center[1];
    d->radius = src->radius;
    motion_of(src, d);
    d->two_zeta = (float)(2.0 * ms_damping_ratio(src->restitution));
    d->mu = src->friction;
    for (int a = 0; a < 2; a++) /* a segment spanning the period takes no image */
      d->seam[a] = p->period[a] > 0.0 && ms_wall_extent(src, a) < p->period[a] ? p->period[a]
                                                                              : 0.0;
    if (d->n_points > 0) {
      d->points = malloc((size_t)d->n_points * 2 * sizeof(double));
      if (!d->points)
        return ms_fail(MS_ERR_RUNTIME, "out of memory for the points of [%s]", d->section);
      memcpy(d->points, src->points, (size_t)d->n_points * 2 * sizeof(double));
    }
  }
  return MS_OK;
}

void ms_wall_defs_free(ms_params *p)
{
  for (int k = 0; p->walls && k < p->n_walls; k++)
    free(p->walls[k].points);
  free(p->walls);
  p->walls = NULL;
  p->n_walls = 0;
}
