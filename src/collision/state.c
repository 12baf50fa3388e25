/* Reading the state between advances: the particles' arrays (ms_state), the forces
 * --output keeps, and the state hash. */
#include "collision/sim_internal.h"

#include "collision/forces.h"
#include "core/file.h"
#include "core/number.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Friction on: (theta, w) of every particle, small then large, into arrays of the right size. */
static ms_status read_rotation(ms_sim *s, ms_state *out)
{
  size_t ns = (size_t)s->p.n_small * 2;
  ms_status st = ms_buffers_download(&s->cl, s->x.buf.rot, out->small_rot, ns * sizeof(double));
  if (st)
    return st;
  for (int i = 0; i < s->p.n_large; i++) {
    out->large_rot[2 * i] = s->wk.large[i].theta;
    out->large_rot[2 * i + 1] = s->wk.large[i].w;
  }
  return MS_OK;
}

ms_status ms_sim_state_alloc(const ms_sim *s, ms_state *out)
{
  memset(out, 0, sizeof *out);
  size_t ns = (size_t)s->p.n_small * 2, nl = (size_t)s->p.n_large * 2;
  out->n_small = out->slots = s->p.n_small;
  out->n_large = s->p.n_large;
  out->small_pos = malloc((ns + 1) * sizeof(double));
  out->small_vel = malloc((ns + 1) * sizeof(double));
  out->large_pos = malloc((nl + 1) * sizeof(double));
  out->large_vel = malloc((nl + 1) * sizeof(double));
  out->small_shape = malloc((ns + 1) * sizeof(float));
  out->large_shape = malloc((nl + 1) * sizeof(float));
  out->large_static = malloc((size_t)s->p.n_large + 1);
  int ok = out->small_pos && out->small_vel && out->large_pos && out->large_vel &&
           out->small_shape && out->large_shape && out->large_static && ms_ids_state_alloc(&s->ids, &out->small_id, &out->large_id);
  if (ok && (s->p.period[0] > 0.0 || s->p.period[1] > 0.0)) {
    out->small_img = calloc(ns + 1, sizeof(int));
    out->large_img = calloc(nl + 1, sizeof(int));
    ok = out->small_img && out->large_img;
  }
  if (ok && s->p.friction_on) {
    out->small_rot = malloc((ns + 1) * sizeof(double));
    out->large_rot = malloc((nl + 1) * sizeof(double));
    ok = out->small_rot && out->large_rot;
  }
  if (!ok) {
    ms_state_free(out);
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading the state");
  }
  return MS_OK;
}

/* A state allocated before the slots grew (or compacted since) is made again at the
 * current size, keeping whether it carries the forces. */
static ms_status fit_state(ms_sim *s, ms_state *out)
{
  if (out->slots == s->p.n_small && out->n_large == s->p.n_large)
    return MS_OK;
  int forces = out->small_force != NULL;
  ms_state_free(out);
  ms_status st = ms_sim_state_alloc(s, out);
  return !st && forces ? ms_sim_state_want_forces(s, out) : st;
}

ms_status ms_sim_snapshot(ms_sim *s, ms_state *out)
{
  ms_status fit = fit_state(s, out);
  if (fit)
    return fit;
  size_t ns = (size_t)s->p.n_small * 2;
  out->n_small = s->p.n_small;
  memcpy(out->small_shape, s->p.shape, ns * sizeof(float));
  out->step = s->run.step;
  ms_status st = ms_buffers_download(&s->cl, s->x.buf.pos, out->small_pos, ns * sizeof(double));
  if (!st)
    st = ms_buffers_download(&s->cl, s->x.buf.vel, out->small_vel, ns * sizeof(double));
  if (st)
    return st;
  for (int i = 0; i < s->p.n_large; i++) {
    out->large_pos[2 * i] = s->wk.large[i].x;
    out->large_pos[2 * i + 1] = s->wk.large[i].y;
    out->large_vel[2 * i] = s->wk.large[i].vx;
    out->large_vel[2 * i + 1] = s->wk.large[i].vy;
    out->large_shape[2 * i] = s->wk.large[i].r;
    out->large_shape[2 * i + 1] = s->wk.large[i].m;
    out->large_static[i] = (unsigned char)(s->wk.large[i].is_static != 0);
    if (out->large_img) {
      out->large_img[2 * i] = s->wk.large[i].img[0];
      out->large_img[2 * i + 1] = s->wk.large[i].img[1];
    }
  }
  if (out->small_img &&
      (st = ms_buffers_download(&s->cl, s->x.buf.img, out->small_img, ns * sizeof(int))))
    return st;
  if (s->p.friction_on && (st = read_rotation(s, out)))
    return st;
  ms_ids_state_copy(&s->ids, out->small_id, out->large_id);
  return out->small_force ? ms_forces_read(s, out->small_force, out->large_force) : MS_OK;
}

ms_status ms_sim_state_want_forces(ms_sim *s, ms_state *out)
{
  out->small_force = malloc(((size_t)s->p.n_small * 2 + 1) * sizeof(float));
  out->large_force = malloc(((size_t)s->p.n_large * 2 + 1) * sizeof(float));
  if (!out->small_force || !out->large_force)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the forces");
  s->dev.forces.on = 1;
  return MS_OK;
}

ms_status ms_sim_read_state(ms_sim *s, ms_state *out)
{
  ms_status st = ms_sim_state_alloc(s, out);
  if (!st && (st = ms_sim_snapshot(s, out)))
    ms_state_free(out);
  return st;
}

void ms_state_free(ms_state *st)
{
  free(st->small_pos);
  free(st->small_vel);
  free(st->large_pos);
  free(st->large_vel);
  free(st->small_rot);
  free(st->large_rot);
  free(st->small_force);
  free(st->large_force);
  free(st->small_img);
  free(st->large_img);
  free(st->small_id);
  free(st->large_id);
  free(st->small_shape);
  free(st->large_shape);
  free(st->large_static);
  memset(st, 0, sizeof *st);
}

uint32_t ms_state_hash(const ms_state *st)
{
  uLong h = crc32(0L, Z_NULL, 0);
  size_t ns = (size_t)st->n_small * 2 * sizeof(double);
  size_t nl = (size_t)st->n_large * 2 * sizeof(double);
  h = ms_crc32_update(h, st->small_pos, ns);
  h = ms_crc32_update(h, st->small_vel, ns);
  h = ms_crc32_update(h, st->large_pos, nl);
  h = ms_crc32_update(h, st->large_vel, nl);
  /* Friction on only, so that frictionless hashes are the ones they always were. */
  if (st->small_rot)
    h = ms_crc32_update(h, st->small_rot, ns);
  if (st->large_rot)
    h = ms_crc32_update(h, st->large_rot, nl);
  return (uint32_t)h;
}

ms_status ms_sim_hash(ms_sim *s, uint32_t *hash)
{
  ms_state st;
  ms_status rc = ms_sim_read_state(s, &st);
  if (rc)
    return rc;
  *hash = ms_state_hash(&st);
  ms_state_free(&st);
  return MS_OK;
}


/* Moves entry i of each per-small array to entry k. */
static void move_small(ms_state *st, int k, int i)
{
  memmove(&st->small_pos[2 * k], &st->small_pos[2 * i], 2 * sizeof(double));
  memmove(&st->small_vel[2 * k], &st->small_vel[2 * i], 2 * sizeof(double));
  memmove(&st->small_shape[2 * k], &st->small_shape[2 * i], 2 * sizeof(float));
  st->small_id[k] = st->small_id[i];
  if (st->small_rot)
    memmove(&st->small_rot[2 * k], &st->small_rot[2 * i], 2 * sizeof(double));
  if (st->small_img)
    memmove(&st->small_img[2 * k], &st->small_img[2 * i], 2 * sizeof(int));
  if (st->small_force)
    memmove(&st->small_force[2 * k], &st->small_force[2 * i], 2 * sizeof(float));
}

/* The same for the large arrays. */
static void move_large(ms_state *st, int k, int i)
{
  memmove(&st->large_pos[2 * k], &st->large_pos[2 * i], 2 * sizeof(double));
  memmove(&st->large_vel[2 * k], &st->large_vel[2 * i], 2 * sizeof(double));
  memmove(&st->large_shape[2 * k], &st->large_shape[2 * i], 2 * sizeof(float));
  st->large_static[k] = st->large_static[i];
  st->large_id[k] = st->large_id[i];
  if (st->large_rot)
    memmove(&st->large_rot[2 * k], &st->large_rot[2 * i], 2 * sizeof(double));
  if (st->large_img)
    memmove(&st->large_img[2 * k], &st->large_img[2 * i], 2 * sizeof(int));
  if (st->large_force)
    memmove(&st->large_force[2 * k], &st->large_force[2 * i], 2 * sizeof(float));
}

void ms_state_compact(ms_state *st)
{
  int k = 0;
  for (int i = 0; i < st->n_small; i++) {
    if (st->small_shape[2 * i + 1] == 0.0f)
      continue;
    if (k != i)
      move_small(st, k, i);
    k++;
  }
  st->n_small = k;
  k = 0;
  for (int i = 0; i < st->n_large; i++) {
    if (st->large_shape[2 * i + 1] == 0.0f)
      continue;
    if (k != i)
      move_large(st, k, i);
    k++;
  }
  st->n_large = k;
}
