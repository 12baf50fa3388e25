/* The collision scene view: small particles as one texture blitted per disc (coloured by
 * their spin on request), large ones as triangle fans with an outline and, with
 * friction, a radius line at their angle, and the walls. */
#include "preview/render.h"
#include "preview/render_internal.h"

#include <math.h>
#include <stdlib.h>

/* A white disc `px` pixels across with a one-pixel soft edge; colour comes from the
 * texture's colour modulation. */
static SDL_Texture *disc_texture(SDL_Renderer *r, int px)
{
  Uint32 *pixels = malloc(sizeof(Uint32) * (size_t)px * (size_t)px);
  if (!pixels)
    return NULL;
  SDL_PixelFormat *fmt = SDL_AllocFormat(SDL_PIXELFORMAT_RGBA32);
  float c = 0.5f * (float)px;
  for (int j = 0; j < px; j++)
    for (int i = 0; i < px; i++) {
      float dx = (float)i + 0.5f - c, dy = (float)j + 0.5f - c;
      float a = c + 0.5f - sqrtf(dx * dx + dy * dy);
      a = a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a;
      pixels[j * px + i] = SDL_MapRGBA(fmt, 255, 255, 255, (Uint8)lroundf(255.0f * a));
    }
  SDL_FreeFormat(fmt);
  SDL_Texture *t = SDL_CreateTexture(r, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STATIC, px, px);
  if (t) {
    SDL_UpdateTexture(t, NULL, pixels, px * (int)sizeof(Uint32));
    SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
  }
  free(pixels);
  return t;
}

static Uint8 mix(Uint8 a, Uint8 b, float t) { return (Uint8)lroundf((float)a + t * ((float)b - (float)a)); }

/* A diverging colour map: the spin over the frame's largest |spin|, orange
 * anticlockwise, purple clockwise, near white at rest. */
static SDL_Color spin_color(float w, float w_max)
{
  float t = w_max > 0.0f ? w / w_max : 0.0f;
  t = t > 1.0f ? 1.0f : t < -1.0f ? -1.0f : t;
  SDL_Color z = MS_COLOR_SPIN_ZERO, e = t >= 0.0f ? MS_COLOR_SPIN_CCW : MS_COLOR_SPIN_CW;
  float a = fabsf(t);
  return (SDL_Color){mix(z.r, e.r, a), mix(z.g, e.g, a), mix(z.b, e.b, a), 255};
}

static void draw_small(ms_render *rc, const ms_frame *f, const ms_layout *l, int spin)
{
  int px = (int)lroundf(2.0f * f->small_radius * l->scale);
  if (px < 2)
    px = 2;
  if (px != rc->disc_px || !rc->disc) {
    if (rc->disc)
      SDL_DestroyTexture(rc->disc);
    rc->disc = disc_texture(rc->r, px);
    rc->disc_px = px;
  }
  if (!rc->disc)
    return;
  SDL_Color c = MS_COLOR_SMALL;
  SDL_SetTextureColorMod(rc->disc, c.r, c.g, c.b);
  spin = spin && f->rotation;
  /* One texture at the largest size, scaled down for smaller discs. */
  for (int i = 0; i < f->n_small; i++) {
    if (spin) {
      SDL_Color s = spin_color(f->small_spin[i], f->small_spin_max);
      SDL_SetTextureColorMod(rc->disc, s.r, s.g, s.b);
    }
    int pi = (int)lroundf(2.0f * f->small_r[i] * l->scale);
    pi = pi < 2 ? 2 : pi > px ? px : pi;
    float x, y, half = 0.5f * (float)pi;
    ms_layout_to_pixel(l, f->small_pos[2 * i], f->small_pos[2 * i + 1], &x, &y);
    SDL_Rect dst = {(int)lroundf(x - half), (int)lroundf(y - half), pi, pi};
    SDL_RenderCopy(rc->r, rc->disc, NULL, &dst);
  }
}

static int fan_segments(float r_px)
{
  int n = (int)(r_px * 0.8f);
  return n < 12 ? 12 : n > 64 ? 64 : n;
}

static int reserve_fans(ms_render *rc, int n_vert, int n_index)
{
  if (n_vert > rc->cap_vert) {
    SDL_Vertex *v = realloc(rc->vert, sizeof *v * (size_t)n_vert);
    if (!v)
      return -1;
    rc->vert = v;
    rc->cap_vert = n_vert;
  }
  if (n_index > rc->cap_index) {
    int *ix = realloc(rc->index, sizeof *ix * (size_t)n_index);
    if (!ix)
      return -1;
    rc->index = ix;
    rc->cap_index = n_index;
  }
  return 0;
}

static void quad_strip(int *index, int *k, int inner, int outer, int n)
{
  for (int s = 0; s < n; s++) {
    int t = (s + 1) % n;
    int q[6] = {inner + s, outer + s, outer + t, inner + s, outer + t, inner + t};
    for (int i = 0; i < 6; i++)
      index[(*k)++] = q[i];
  }
}

/* The radius line of a large disc at its angle theta (anticlockwise from +x; the
 * picture's y points down): a quad three pixels wide from the centre to the rim. */
static void radius_line(ms_render *rc, int *v, int *k, float cx, float cy, float r, float theta)
{
  float ux = cosf(theta), uy = -sinf(theta), h = 1.5f;
  float ex = cx + (r - 1.0f) * ux, ey = cy + (r - 1.0f) * uy;
  SDL_Color c = MS_COLOR_RADIUS;
  int first = *v;
  float px = -uy * h, py = ux * h; /* across the line */
  rc->vert[(*v)++] = (SDL_Vertex){{cx + px, cy + py}, c, {0, 0}};
  rc->vert[(*v)++] = (SDL_Vertex){{cx - px, cy - py}, c, {0, 0}};
  rc->vert[(*v)++] = (SDL_Vertex){{ex - px, ey - py}, c, {0, 0}};
  rc->vert[(*v)++] = (SDL_Vertex){{ex + px, ey + py}, c, {0, 0}};
  int q[6] = {0, 1, 2, 0, 2, 3};
  for (int i = 0; i < 6; i++)
    rc->index[(*k)++] = first + q[i];
}

/* All large discs in one call: each a fan of its colour, a band shading to a darker rim
 * and a one-pixel band fading out, which keeps the edge smooth without multisampling;
 * with rotation, its radius line on top. */
static void draw_large(ms_render *rc, const ms_frame *f, const ms_layout *l, int grabbed)
{
  int n_vert = 0, n_index = 0;
  for (int i = 0; i < f->n_large; i++) {
    int n = fan_segments(f->large_radius[i] * l->scale);
    n_vert += 3 * n + 1 + 4;
    n_index += 15 * n + 6;
  }
  if (f->n_large == 0 || reserve_fans(rc, n_vert, n_index))
    return;
  int v = 0, k = 0;
  for (int i = 0; i < f->n_large; i++) {
    float cx, cy, r = f->large_radius[i] * l->scale;
    ms_layout_to_pixel(l, f->large_pos[2 * i], f->large_pos[2 * i + 1], &cx, &cy);
    SDL_Color c = f->large_static[i] ? MS_COLOR_STATIC : MS_COLOR_DYNAMIC;
    SDL_Color rim = i == grabbed ? (SDL_Color){255, 255, 255, 255} : darker(c);
    SDL_Color out = rim;
    out.a = 0;
    float ring_r[3] = {r - 1.5f, r - 0.5f, r + 0.7f};
    SDL_Color ring_c[3] = {c, rim, out};
    if (i == grabbed)
      ring_r[0] = r - 2.5f;
    int n = fan_segments(r), centre = v;
    rc->vert[v++] = (SDL_Vertex){{cx, cy}, c, {0, 0}};
    for (int ring = 0; ring < 3; ring++)
      for (int s = 0; s < n; s++) {
        float a = 6.2831853f * (float)s / (float)n, rr = ring_r[ring] > 0 ? ring_r[ring] : 0;
        rc->vert[v++] = (SDL_Vertex){{cx + rr * cosf(a), cy + rr * sinf(a)}, ring_c[ring], {0, 0}};
      }
    for (int s = 0; s < n; s++) {
      rc->index[k++] = centre;
      rc->index[k++] = centre + 1 + s;
      rc->index[k++] = centre + 1 + (s + 1) % n;
    }
    quad_strip(rc->index, &k, centre + 1, centre + 1 + n, n);
    quad_strip(rc->index, &k, centre + 1 + n, centre + 1 + 2 * n, n);
    if (f->rotation)
      radius_line(rc, &v, &k, cx, cy, r, f->large_theta[i]);
  }
  SDL_RenderGeometry(rc->r, NULL, rc->vert, v, rc->index, k);
}

static void draw_walls(SDL_Renderer *r, const ms_frame *f, const ms_layout *l)
{
  float x0, y0, x1, y1;
  ms_layout_to_pixel(l, f->box[0], f->box[3], &x0, &y0);
  ms_layout_to_pixel(l, f->box[2], f->box[1], &x1, &y1);
  int t = 3, ix0 = (int)lroundf(x0), iy0 = (int)lroundf(y0);
  int ix1 = (int)lroundf(x1), iy1 = (int)lroundf(y1);
  fill(r, wall_color, ix0 - t, iy0 - t, ix1 - ix0 + 2 * t, t); /* top */
  fill(r, wall_color, ix0 - t, iy1, ix1 - ix0 + 2 * t, t);     /* bottom */
  fill(r, wall_color, ix0 - t, iy0, t, iy1 - iy0);             /* left */
  fill(r, wall_color, ix1, iy0, t, iy1 - iy0);                 /* right */
}

void ms_draw_collision_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                                const ms_render_ui *ui)
{
  SDL_RenderSetClipRect(rc->r, NULL);
  draw_walls(rc->r, f, l);
  draw_small(rc, f, l, ui && ui->spin);
  draw_large(rc, f, l, ui ? ui->grabbed : -1);
}
