/* The collision scene view: small particles as one texture blitted per disc (coloured by
 * their spin on request), large ones as triangle fans with an outline and, with
 * friction, a radius line at their angle, the box's sides, and the scene's walls as lines
 * where they are (a circle as a polyline fine enough for its size on screen). */
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

static void draw_box(SDL_Renderer *r, const ms_frame *f, const ms_layout *l)
{
  float x0, y0, x1, y1;
  ms_layout_to_pixel(l, f->box[0], f->box[3], &x0, &y0);
  ms_layout_to_pixel(l, f->box[2], f->box[1], &x1, &y1);
  int t = BOX_PX, ix0 = (int)lroundf(x0), iy0 = (int)lroundf(y0);
  int ix1 = (int)lroundf(x1), iy1 = (int)lroundf(y1);
  fill(r, box_color, ix0 - t, iy0 - t, ix1 - ix0 + 2 * t, t); /* top */
  fill(r, box_color, ix0 - t, iy1, ix1 - ix0 + 2 * t, t);     /* bottom */
  fill(r, box_color, ix0 - t, iy0, t, iy1 - iy0);             /* left */
  fill(r, box_color, ix1, iy0, t, iy1 - iy0);                 /* right */
}

/* ---- the scene's walls: lines BOX_PX wide with a soft edge, mitred at their corners --- */

#define WALL_FADE_PX 0.7f /* the soft edge beyond the line's width */
#define WALL_FAR_PX 64.0f /* segments are cut this far outside the view (the software
                             renderer's coordinates are integers) */

/* Liang-Barsky: the part [t0, t1] of p + t d (t in [0, 1]) inside the rectangle; 0: none. */
static int clip_segment(const float p[2], const float d[2], const float box[4], float *t0,
                        float *t1)
{
  float lo = 0.0f, hi = 1.0f;
  for (int k = 0; k < 2; k++) {
    if (d[k] == 0.0f) {
      if (p[k] < box[k] || p[k] > box[k + 2])
        return 0;
      continue;
    }
    float a = (box[k] - p[k]) / d[k], b = (box[k + 2] - p[k]) / d[k];
    if (a > b) {
      float t = a;
      a = b;
      b = t;
    }
    lo = a > lo ? a : lo;
    hi = b < hi ? b : hi;
  }
  *t0 = lo;
  *t1 = hi;
  return lo <= hi;
}

/* The offset, per pixel of half-width, of a line's edge at the corner between segments
 * of normals a and b: the mitre, or, at a corner too sharp for one, 0 (the caller caps). */
static int mitre(const float a[2], const float b[2], float out[2])
{
  float m[2] = {a[0] + b[0], a[1] + b[1]}, len2 = m[0] * m[0] + m[1] * m[1];
  if (len2 < 0.36f) /* a turn of more than about 145 degrees: mitre longer than 3.3 */
    return 0;
  out[0] = 2.0f * m[0] / len2;
  out[1] = 2.0f * m[1] / len2;
  return 1;
}

/* One end of a segment's band: across it, from the left edge's fade to the right's. */
static void band_end(ms_render *rc, int *v, float x, float y, const float o[2], SDL_Color c)
{
  float h = 0.5f * (float)BOX_PX, w[4] = {h + WALL_FADE_PX, h, -h, -h - WALL_FADE_PX};
  SDL_Color out = c;
  out.a = 0;
  for (int i = 0; i < 4; i++)
    rc->vert[(*v)++] =
      (SDL_Vertex){{x + w[i] * o[0], y + w[i] * o[1]}, i == 0 || i == 3 ? out : c, {0, 0}};
}

/* The polyline of rc->wall_px's m points (pixels), closed or not, as a line within `view`:
 * a band per segment, the bands meeting at mitred corners. */
static void stroke(ms_render *rc, int m, int closed, const float view[4], SDL_Color c)
{
  float *p = rc->wall_px, h = 0.5f * (float)BOX_PX;
  int n = 0; /* without repeated points, which have no direction */
  for (int i = 0; i < m; i++)
    if (n == 0 || fabsf(p[2 * i] - p[2 * n - 2]) + fabsf(p[2 * i + 1] - p[2 * n - 1]) > 1e-3f) {
      p[2 * n] = p[2 * i];
      p[2 * n + 1] = p[2 * i + 1];
      n++;
    }
  if (closed && n > 1 && fabsf(p[0] - p[2 * n - 2]) + fabsf(p[1] - p[2 * n - 1]) <= 1e-3f)
    n--;
  closed = closed && n > 2;
  int segs = closed ? n : n - 1;
  if (segs < 1 || reserve_fans(rc, 8 * segs, 18 * segs))
    return;
  int v = 0, k = 0;
  for (int s = 0; s < segs; s++) {
    const float *a = &p[2 * s], *b = &p[2 * ((s + 1) % n)];
    float d[2] = {b[0] - a[0], b[1] - a[1]}, t0, t1;
    float len = sqrtf(d[0] * d[0] + d[1] * d[1]);
    if (!(len > 0.0f) || !clip_segment(a, d, view, &t0, &t1))
      continue;
    float u[2] = {d[0] / len, d[1] / len}, nrm[2] = {-u[1], u[0]};
    for (int end = 0; end < 2; end++) {
      int j = s + end, joined = closed || (j > 0 && j < n - 1); /* a corner at point j */
      float o[2] = {nrm[0], nrm[1]}, t = end ? t1 : t0, cap = 0.0f;
      if (joined && t == (float)end) { /* not cut by the view */
        int other = end ? (s + 1) % segs : (s + segs - 1) % segs;
        const float *q0 = &p[2 * other], *q1 = &p[2 * ((other + 1) % n)];
        float e[2] = {q1[0] - q0[0], q1[1] - q0[1]};
        float el = sqrtf(e[0] * e[0] + e[1] * e[1]);
        float ne[2] = {el > 0.0f ? -e[1] / el : nrm[0], el > 0.0f ? e[0] / el : nrm[1]};
        if (!mitre(nrm, ne, o)) {
          o[0] = nrm[0];
          o[1] = nrm[1];
          cap = end ? h : -h; /* square off the sharp corner */
        }
      }
      band_end(rc, &v, a[0] + t * d[0] + cap * u[0], a[1] + t * d[1] + cap * u[1], o, c);
    }
    int first = v - 8;
    for (int band = 0; band < 3; band++) {
      int q[6] = {band, band + 1, 5 + band, band, 5 + band, 4 + band};
      for (int i = 0; i < 6; i++)
        rc->index[k++] = first + q[i];
    }
  }
  if (k > 0)
    SDL_RenderGeometry(rc->r, NULL, rc->vert, v, rc->index, k);
}

/* Segments for a circle of r_px pixels: the chords stray at most a fifth of a pixel. */
static int circle_segments(float r_px)
{
  float n = 3.1415927f / sqrtf(0.4f / (r_px > 0.4f ? r_px : 0.4f));
  return n < 16.0f ? 16 : n > 2048.0f ? 2048 : (int)ceilf(n);
}

static void draw_walls(ms_render *rc, const ms_frame *f, const ms_layout *l)
{
  /* The view left of the panel, and where segments are cut, far outside it. */
  SDL_Rect clip = {0, 0, l->panel.x, l->scene.y + l->scene.h + MARGIN};
  float far[4] = {-WALL_FAR_PX, -WALL_FAR_PX, (float)clip.w + WALL_FAR_PX,
                  (float)clip.h + WALL_FAR_PX};
  SDL_RenderSetClipRect(rc->r, &clip);
  for (int k = 0; k < f->n_walls; k++) {
    const ms_frame_wall *w = &f->walls[k];
    float r_px = w->r * l->scale;
    int n = w->circle ? circle_segments(r_px) : w->n;
    if (n > rc->cap_wall_px) {
      float *q = realloc(rc->wall_px, 2 * sizeof *q * (size_t)n);
      if (!q)
        return;
      rc->wall_px = q;
      rc->cap_wall_px = n;
    }
    float *q = rc->wall_px, cx, cy;
    if (w->circle) {
      ms_layout_to_pixel(l, w->cx, w->cy, &cx, &cy);
      for (int i = 0; i < n; i++) {
        float a = 6.2831853f * (float)i / (float)n;
        q[2 * i] = cx + r_px * cosf(a);
        q[2 * i + 1] = cy + r_px * sinf(a);
      }
    } else {
      const float *pts = &f->wall_pts[2 * w->first];
      for (int i = 0; i < n; i++)
        ms_layout_to_pixel(l, pts[2 * i], pts[2 * i + 1], &q[2 * i], &q[2 * i + 1]);
    }
    stroke(rc, n, w->circle || w->closed, far, MS_COLOR_WALL);
  }
  SDL_RenderSetClipRect(rc->r, NULL);
}

void ms_draw_collision_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                                const ms_render_ui *ui)
{
  SDL_RenderSetClipRect(rc->r, NULL);
  draw_box(rc->r, f, l);
  draw_small(rc, f, l, ui && ui->spin);
  draw_large(rc, f, l, ui ? ui->grabbed : -1);
  /* over the particles, which press against them */
  draw_walls(rc, f, l);
}
