/* The gravity scene view: the bodies in perspective, far to near, with axes. */
#include "preview/render.h"
#include "preview/render_internal.h"

#include <math.h>
#include <stdlib.h>

float ms_render_gravity_extent(const ms_frame *f)
{
  double sum = 0.0;
  for (int i = 0; i < f->n_bodies; i++) {
    const float *b = &f->bodies[4 * i];
    for (int k = 0; k < 3; k++)
      sum += (double)(b[k] - f->centre[k]) * (b[k] - f->centre[k]);
  }
  double rms = f->n_bodies > 0 ? sqrt(sum / f->n_bodies) : 0.0;
  return rms > 0 ? (float)(1.6 * rms) : 1.0f;
}

typedef struct camera {
  float cy, sy, cp, sp; /* cos and sin of yaw and pitch */
  float dist;           /* from the centre, scene units */
  float scale;          /* pixels per scene unit at the centre's depth */
  float cx, cyp;        /* the centre's pixel */
} camera;

/* Rotates `p` (relative to the centre) into view space; returns the depth toward the
 * viewer and writes the pixel and the perspective factor. */
static float project(const camera *c, const float p[3], float *px, float *py, float *persp)
{
  float x1 = c->cy * p[0] + c->sy * p[2], z1 = -c->sy * p[0] + c->cy * p[2];
  float y1 = c->cp * p[1] - c->sp * z1, z2 = c->sp * p[1] + c->cp * z1;
  float gap = c->dist - z2;
  *persp = gap > 0.05f * c->dist ? c->dist / gap : 0.0f;
  *px = c->cx + x1 * *persp * c->scale;
  *py = c->cyp - y1 * *persp * c->scale;
  return z2;
}

static SDL_Texture *glow_texture(SDL_Renderer *r)
{
  enum { N = 32 };
  Uint32 pixels[N * N];
  SDL_PixelFormat *fmt = SDL_AllocFormat(SDL_PIXELFORMAT_RGBA32);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      float dx = (float)i + 0.5f - 0.5f * N, dy = (float)j + 0.5f - 0.5f * N;
      float d = sqrtf(dx * dx + dy * dy) / (0.5f * N);
      float a = d < 0.5f ? 1.0f : d < 1.0f ? 2.0f * (1.0f - d) : 0.0f;
      pixels[j * N + i] = SDL_MapRGBA(fmt, 255, 255, 255, (Uint8)lroundf(255.0f * a));
    }
  SDL_FreeFormat(fmt);
  SDL_Texture *t = SDL_CreateTexture(r, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STATIC, N, N);
  if (t)
    SDL_UpdateTexture(t, NULL, pixels, N * (int)sizeof(Uint32));
  return t;
}

static const float *depth_key;
static int by_depth(const void *a, const void *b)
{
  float da = depth_key[*(const int *)a], db = depth_key[*(const int *)b];
  return (da > db) - (da < db);
}

/* Three unit axes at the lower left show how the view is turned. */
static void draw_axes(ms_render *rc, const camera *c, const ms_layout *l)
{
  camera g = *c;
  g.dist = 1e30f; /* no perspective */
  g.scale = 32.0f;
  g.cx = (float)l->scene.x + 50.0f;
  g.cyp = (float)(l->scene.y + l->scene.h) - 50.0f;
  static const char *const name[3] = {"x", "y", "z"};
  static const SDL_Color col[3] = {{230, 90, 80, 255}, {90, 210, 100, 255}, {100, 150, 255, 255}};
  for (int k = 0; k < 3; k++) {
    float p[3] = {0, 0, 0}, px, py, persp;
    p[k] = 1.0f;
    project(&g, p, &px, &py, &persp);
    set_color(rc->r, col[k]);
    SDL_RenderDrawLineF(rc->r, g.cx, g.cyp, px, py);
    ms_text_draw(rc->text, (int)px + 2, (int)py - 8, col[k], name[k]);
  }
}

void ms_draw_gravity_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                              const ms_render_ui *ui)
{
  float yaw = ui ? ui->yaw : 0.6f, pitch = ui ? ui->pitch : 0.4f;
  float zoom = ui && ui->zoom > 0 ? ui->zoom : 1.0f;
  float radius = ui && ui->view_radius > 0 ? ui->view_radius : ms_render_gravity_extent(f);
  int side = l->scene.w < l->scene.h ? l->scene.w : l->scene.h;
  camera c = {cosf(yaw), sinf(yaw), cosf(pitch), sinf(pitch), 4.0f * radius,
              zoom * 0.5f * (float)side / radius, (float)l->scene.x + 0.5f * (float)l->scene.w,
              (float)l->scene.y + 0.5f * (float)l->scene.h};
  int n = f->n_bodies;
  if (n > rc->cap_order) {
    int *o = realloc(rc->order, sizeof *o * (size_t)n);
    float *d = o ? realloc(rc->depth, sizeof *d * (size_t)n) : NULL;
    if (o)
      rc->order = o;
    if (d)
      rc->depth = d;
    if (!o || !d)
      return;
    rc->cap_order = n;
  }
  if (!rc->glow && !(rc->glow = glow_texture(rc->r)))
    return;
  double mass = 0.0;
  for (int i = 0; i < n; i++) {
    float p[3] = {f->bodies[4 * i] - f->centre[0], f->bodies[4 * i + 1] - f->centre[1],
                  f->bodies[4 * i + 2] - f->centre[2]};
    float px, py, persp;
    rc->depth[i] = project(&c, p, &px, &py, &persp);
    rc->order[i] = i;
    mass += f->bodies[4 * i + 3];
  }
  /* Many bodies add up their light, so dense regions glow; a few are drawn far to near. */
  int many = n > 2000;
  if (!many) {
    depth_key = rc->depth;
    qsort(rc->order, (size_t)n, sizeof *rc->order, by_depth);
  }
  SDL_SetTextureBlendMode(rc->glow, many ? SDL_BLENDMODE_ADD : SDL_BLENDMODE_BLEND);
  float mean = n > 0 && mass > 0 ? (float)(mass / n) : 1.0f;
  float base = many ? 3.0f : n > 100 ? 6.0f : 14.0f;
  SDL_RenderSetClipRect(rc->r, &l->scene);
  for (int k = 0; k < n; k++) {
    int i = rc->order[k];
    float p[3] = {f->bodies[4 * i] - f->centre[0], f->bodies[4 * i + 1] - f->centre[1],
                  f->bodies[4 * i + 2] - f->centre[2]};
    float px, py, persp;
    float z = project(&c, p, &px, &py, &persp);
    if (persp <= 0.0f)
      continue;
    float m = f->bodies[4 * i + 3] > 0 ? f->bodies[4 * i + 3] : mean;
    float size = base * cbrtf(m / mean) * persp;
    size = size < 2.0f ? 2.0f : size > 48.0f ? 48.0f : size;
    float light = 0.6f + 0.4f * z / radius;
    light = light < 0.25f ? 0.25f : light > 1.0f ? 1.0f : light;
    if (many)
      light *= 0.7f;
    SDL_SetTextureColorMod(rc->glow, (Uint8)(255 * light), (Uint8)(215 * light),
                           (Uint8)(160 * light));
    SDL_FRect dst = {px - 0.5f * size, py - 0.5f * size, size, size};
    SDL_RenderCopyF(rc->r, rc->glow, NULL, &dst);
  }
  SDL_RenderSetClipRect(rc->r, NULL);
  draw_axes(rc, &c, l);
}
