/* Capturing a frame from the simulation (with the particles' rotation when the scene has
 * friction, and the walls where they are), and finding a large particle under a point. */
#include "preview/frame.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"

static int grow(void **p, size_t elem, int n)
{
  void *q = realloc(*p, elem * (size_t)(n + 1));
  if (!q)
    return -1;
  *p = q;
  return 0;
}

static ms_status reserve(ms_frame *f, int n_small, int n_large)
{
  if (n_small > f->cap_small) {
    if (grow((void **)&f->small_pos, 2 * sizeof(float), n_small) ||
        grow((void **)&f->small_r, sizeof(float), n_small) ||
        grow((void **)&f->small_spin, sizeof(float), n_small))
      return ms_fail(MS_ERR_RUNTIME, "out of memory for a frame");
    f->cap_small = n_small;
  }
  if (n_large > f->cap_large) {
    if (grow((void **)&f->large_pos, 2 * sizeof(float), n_large) ||
        grow((void **)&f->large_radius, sizeof(float), n_large) ||
        grow((void **)&f->large_static, 1, n_large) ||
        grow((void **)&f->large_theta, sizeof(float), n_large))
      return ms_fail(MS_ERR_RUNTIME, "out of memory for a frame");
    f->cap_large = n_large;
  }
  return MS_OK;
}

/* theta, omega pairs of the state (friction on) to the frame's spins and angles. */
static void capture_rotation(ms_frame *f, const ms_state *st)
{
  f->rotation = st->small_rot != NULL && st->large_rot != NULL;
  f->small_spin_max = 0.0f;
  if (!f->rotation)
    return;
  for (int i = 0; i < st->n_small; i++) {
    float w = (float)st->small_rot[2 * i + 1];
    f->small_spin[i] = w;
    if (fabsf(w) > f->small_spin_max)
      f->small_spin_max = fabsf(w);
  }
  for (int i = 0; i < st->n_large; i++)
    f->large_theta[i] = (float)fmod(st->large_rot[2 * i], 6.283185307179586);
}

/* The walls ([wall.NAME]) at the current step, copied: the sim's points change with the
 * next advance. */
static ms_status capture_walls(ms_frame *f, ms_sim *s)
{
  int n = ms_sim_wall_count(s), n_pts = 0;
  ms_wall_info w;
  for (int k = 0; k < n; k++) {
    ms_sim_wall(s, k, &w);
    n_pts += w.kind == MS_WALL_POLYLINE ? w.n_points : 0;
  }
  if ((n > f->cap_walls && grow((void **)&f->walls, sizeof *f->walls, n)) ||
      (n_pts > f->cap_wall_pts && grow((void **)&f->wall_pts, 2 * sizeof(float), n_pts)))
    return ms_fail(MS_ERR_RUNTIME, "out of memory for a frame");
  f->cap_walls = n > f->cap_walls ? n : f->cap_walls;
  f->cap_wall_pts = n_pts > f->cap_wall_pts ? n_pts : f->cap_wall_pts;
  int at = 0;
  for (int k = 0; k < n; k++) {
    ms_sim_wall(s, k, &w);
    ms_frame_wall *fw = &f->walls[k];
    *fw = (ms_frame_wall){.circle = w.kind == MS_WALL_CIRCLE, .first = at};
    if (fw->circle) {
      fw->cx = (float)w.center[0];
      fw->cy = (float)w.center[1];
      fw->r = (float)w.radius;
      continue;
    }
    fw->closed = w.closed;
    fw->n = w.n_points;
    for (int i = 0; i < 2 * w.n_points; i++)
      f->wall_pts[2 * at + i] = (float)w.points[i];
    at += w.n_points;
  }
  f->n_walls = n;
  return MS_OK;
}

ms_status ms_frame_capture(ms_frame *f, ms_sim *s)
{
  ms_state st;
  ms_status rc = ms_sim_read_state(s, &st);
  if (!rc) {
    ms_state_compact(&st); /* an open system's empty slots are not drawn */
    rc = reserve(f, st.n_small, st.n_large);
  }
  if (!rc)
    rc = capture_walls(f, s);
  if (rc) {
    if (st.small_pos)
      ms_state_free(&st);
    return rc;
  }
  f->mode = MS_MODE_COLLISION;
  /* Floats are plenty for pixels, measured from the box's corner as the state is. */
  f->box[0] = 0.0f;
  f->box[1] = 0.0f;
  f->box[2] = (float)s->p.box[0];
  f->box[3] = (float)s->p.box[1];
  f->small_radius = s->p.r_small_max;
  f->n_small = st.n_small;
  f->n_large = st.n_large;
  f->n_static = 0;
  for (size_t i = 0; i < (size_t)st.n_small * 2; i++)
    f->small_pos[i] = (float)st.small_pos[i];
  for (int i = 0; i < st.n_small; i++)
    f->small_r[i] = st.small_shape[2 * i];
  for (size_t i = 0; i < (size_t)st.n_large * 2; i++)
    f->large_pos[i] = (float)st.large_pos[i];
  for (int i = 0; i < st.n_large; i++) {
    f->large_radius[i] = st.large_shape[2 * i];
    f->large_static[i] = st.large_static[i];
    f->n_static += f->large_static[i];
  }
  capture_rotation(f, &st);
  f->step = st.step;
  ms_state_free(&st);

  const ms_trace *t = &s->run.trace;
  f->advance_t0 = t->advance_t0;
  f->n_events = ms_trace_last_advance(t, f->events, 2 * MS_TRACE_RING);
  f->iterations = (int)(t->iterations - t->advance_first_iteration);
  f->sim_rate = t->wall_s > 0 ? (double)t->iterations / t->wall_s : 0.0;
  snprintf(f->device, sizeof f->device, "%s", s->cl.device_name);
  f->pipeline = s->p.pipeline;
  f->buffers = s->x.buf.mode;
  return MS_OK;
}

ms_status ms_frame_capture_gravity(ms_frame *f, ms_gravity *g)
{
  ms_gravity_state st = {0};
  ms_status rc = ms_gravity_read_state(g, &st);
  if (rc)
    return rc;
  if (st.n > f->cap_bodies) {
    if (grow((void **)&f->bodies, 4 * sizeof(float), st.n)) {
      ms_gravity_state_free(&st);
      return ms_fail(MS_ERR_RUNTIME, "out of memory for a frame");
    }
    f->cap_bodies = st.n;
  }
  f->mode = MS_MODE_GRAVITY;
  f->n_walls = 0;
  f->n_bodies = st.n;
  memcpy(f->bodies, st.pos, (size_t)st.n * 4 * sizeof(float));
  double c[3] = {0, 0, 0}, m = 0;
  for (int i = 0; i < st.n; i++) {
    const float *b = &st.pos[4 * i];
    for (int k = 0; k < 3; k++)
      c[k] += (double)b[3] * b[k];
    m += b[3];
  }
  for (int k = 0; k < 3; k++)
    f->centre[k] = m > 0 ? (float)(c[k] / m) : 0.0f;
  f->step = st.step;
  f->sim_time = st.time;
  ms_gravity_state_free(&st);
  const ms_gravity_stats *gs = ms_gravity_get_stats(g);
  f->n_devices = gs->device_count;
  snprintf(f->device, sizeof f->device, "%s", gs->device_count > 0 ? gs->device[0].name : "?");
  snprintf(f->kernel, sizeof f->kernel, "%s",
           gs->device_count > 0 && gs->device[0].kernel ? gs->device[0].kernel : "?");
  f->sim_rate = gs->advance_s > 0 ? (double)gs->steps / gs->advance_s : 0.0;
  f->n_events = 0;
  f->iterations = 0;
  return MS_OK;
}

void ms_frame_free(ms_frame *f)
{
  free(f->bodies);
  f->bodies = NULL;
  f->cap_bodies = 0;
  free(f->small_pos);
  free(f->small_r);
  free(f->large_pos);
  free(f->large_radius);
  free(f->large_static);
  free(f->small_spin);
  free(f->large_theta);
  free(f->walls);
  free(f->wall_pts);
  f->walls = NULL;
  f->wall_pts = NULL;
  f->n_walls = f->cap_walls = f->cap_wall_pts = 0;
  f->small_spin = f->large_theta = NULL;
  f->rotation = 0;
  f->small_pos = f->small_r = f->large_pos = f->large_radius = NULL;
  f->large_static = NULL;
  f->cap_small = f->cap_large = 0;
}

int ms_frame_large_at(const ms_frame *f, float x, float y)
{
  int best = -1;
  for (int i = 0; i < f->n_large; i++) {
    float dx = x - f->large_pos[2 * i], dy = y - f->large_pos[2 * i + 1], r = f->large_radius[i];
    if (dx * dx + dy * dy <= r * r && (best < 0 || r < f->large_radius[best]))
      best = i;
  }
  return best;
}
