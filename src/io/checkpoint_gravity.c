/* Checkpoints of gravity mode: the bodies' state as an image (plain arrays), its field
 * table (the file's header and reading are in checkpoint_file.c) and the checks of what
 * was read. */
#include "mixsim/checkpoint.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/checkpoint_file.h"
#include "mixsim/gravity.h"

/* Gravity mode. */
typedef struct gimage {
  int32_t n;
  int64_t step;
  double e0;
  float *pos; /* 4 n: x y z m */
  float *vel; /* 3 n */
} gimage;

SCALAR(gimage, n) SCALAR(gimage, step) SCALAR(gimage, e0)
ARRAY(gimage, pos, (size_t)im->n * 4) ARRAY(gimage, vel, (size_t)im->n * 3)

static const field gravity_fields[] = {
  F(gimage, n, "bodies"), F(gimage, step, "step"), F(gimage, e0, "initial energy"),
  F(gimage, pos, "positions"), F(gimage, vel, "velocities"),
};

static int g_alloc(void *v)
{
  gimage *im = v;
  im->pos = malloc(sz_gimage_pos(im) + 1);
  im->vel = malloc(sz_gimage_vel(im) + 1);
  return im->pos && im->vel;
}

static void g_release(void *v)
{
  gimage *im = v;
  free(im->pos);
  free(im->vel);
  im->pos = im->vel = NULL;
}

static const layout gravity_layout = {1, 1, gravity_fields,
                                      (int)(sizeof gravity_fields / sizeof(field)), 1,
                                      {{0, 1, g_alloc, 0}}, g_release};

/* ---- gravity mode ------------------------------------------------------------------ */

static ms_status gravity_counts(const char *path, const void *v, const void *ctx, int section)
{
  (void)section;
  const gimage *im = v;
  int n = ms_gravity_body_count(ctx);
  if (im->n != n)
    return ms_ck_refuse_field(path, "bodies", "= %ld: the body count differs from the scene (%d)",
                        (long)im->n, n);
  return MS_OK;
}

static ms_status gravity_fields_ok(const char *path, const void *v, const void *ctx)
{
  const gimage *im = v;
  (void)ctx;
  ms_status st;
  if ((st = ms_ck_counter(path, "step", im->step, MS_STEPS_MAX,
                          "the most steps a run takes (10^15)")))
    return st;
  if (!isfinite(im->e0))
    return ms_ck_refuse_field(path, "initial energy", "is not finite");
  if ((st = ms_ck_finite_floats(path, "positions", im->pos, (size_t)im->n * 4)) ||
      (st = ms_ck_finite_floats(path, "velocities", im->vel, (size_t)im->n * 3)))
    return st;
  /* Masses as the scene's are: 0 (a tracer) or a normal float, some of them positive. */
  float total = 0.0f;
  for (int i = 0; i < im->n; i++) {
    float m = im->pos[4 * i + 3];
    if (m < 0.0f)
      return ms_ck_refuse_field(path, "positions", "has a negative mass (body %d)", i);
    if (m != 0.0f && m < FLT_MIN)
      return ms_ck_refuse_field(path, "positions", "has a mass of %g (body %d), a denormal float, "
                                "which no scene gives (0 or at least %g)", (double)m, i,
                                (double)FLT_MIN);
    total += m;
  }
  if (!(total > 0.0f))
    return ms_ck_refuse_field(path, "positions", "has no body with a mass (all %d are 0)", im->n);
  return MS_OK;
}

static const checks gravity_checks = {gravity_counts, gravity_fields_ok};

ms_status ms_checkpoint_save_gravity(const char *path, ms_gravity *g, const ms_scene_id *scene_id)
{
  ms_gravity_state state;
  ms_status st = ms_gravity_read_state(g, &state);
  if (st)
    return st;
  gimage im = {state.n, state.step, ms_gravity_initial_energy(g), state.pos, state.vel};
  st = ms_ck_save(path, &gravity_layout, &im, scene_id);
  ms_gravity_state_free(&state);
  return st;
}

ms_status ms_checkpoint_load_gravity(const char *path, ms_gravity *g, const ms_scene_id *scene_id)
{
  gimage im;
  memset(&im, 0, sizeof im);
  ms_status st = ms_ck_read(path, &gravity_layout, &im, scene_id, &gravity_checks, g);
  if (st)
    return st;
  st = ms_gravity_restore(g, (long)im.step, im.pos, im.vel, im.e0);
  g_release(&im);
  return st;
}
