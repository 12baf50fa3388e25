/* Drawing a frame: the scene view, the timing bar with its legend, and the figures. */
#include "preview/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preview/text.h"

#define PANEL_WIDTH 370
#define MARGIN 12
#define FONT_PX 13
#define FRAME_S (1.0 / 60.0) /* the bar's full height, as in the case study */

struct ms_render {
  SDL_Renderer *r;
  ms_text *text;
  SDL_Texture *disc; /* a small particle at its drawn size, so no blit is scaled */
  int disc_px;
  SDL_Texture *glow; /* a gravity body, scaled */
  int *order;        /* gravity bodies, far to near */
  float *depth;
  int cap_order;
  SDL_Vertex *vert; /* the large particles' triangle fans */
  int *index;
  int cap_vert, cap_index;
};

static const SDL_Color text_fg = {228, 230, 236, 255};
static const SDL_Color text_dim = {160, 165, 176, 255};
static const SDL_Color text_warn = {255, 210, 90, 255};
static const SDL_Color panel_bg = {28, 30, 38, 255};
static const SDL_Color wall_color = {200, 202, 210, 255};
static const SDL_Color idle_color = {44, 46, 56, 255};
static const SDL_Color sync_color = {255, 255, 255, 210};

/* Blue shades: the device's work as the GPU manager sees it; green: the CPU worker's
 * own work; orange: moving data between the two memories; grey: waiting at a sync. */
static SDL_Color phase_color(ms_phase p)
{
  switch (p) {
  case MS_PHASE_GRID: return (SDL_Color){45, 95, 215, 255};
  case MS_PHASE_COLLIDE: return (SDL_Color){80, 135, 245, 255};
  case MS_PHASE_INTEGRATE: return (SDL_Color){125, 170, 255, 255};
  case MS_PHASE_HOST_IN: return (SDL_Color){235, 150, 40, 255};
  case MS_PHASE_HOST_OUT: return (SDL_Color){250, 200, 95, 255};
  case MS_PHASE_LARGE_SMALL: return (SDL_Color){40, 160, 70, 255};
  case MS_PHASE_LARGE_LARGE: return (SDL_Color){80, 200, 100, 255};
  case MS_PHASE_LARGE_INTEGRATE: return (SDL_Color){135, 228, 140, 255};
  case MS_PHASE_WAIT_SYNC1: return (SDL_Color){100, 103, 112, 255};
  case MS_PHASE_WAIT_SYNC2: return (SDL_Color){135, 138, 148, 255};
  default: return (SDL_Color){255, 0, 255, 255};
  }
}

static int is_wait(ms_phase p) { return p == MS_PHASE_WAIT_SYNC1 || p == MS_PHASE_WAIT_SYNC2; }

static void set_color(SDL_Renderer *r, SDL_Color c)
{
  SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
}

static void fill(SDL_Renderer *r, SDL_Color c, int x, int y, int w, int h)
{
  SDL_Rect rect = {x, y, w, h};
  set_color(r, c);
  SDL_RenderFillRect(r, &rect);
}

static SDL_Color darker(SDL_Color c)
{
  return (SDL_Color){(Uint8)(c.r * 3 / 5), (Uint8)(c.g * 3 / 5), (Uint8)(c.b * 3 / 5), c.a};
}

void ms_layout_compute(ms_layout *l, int w, int h, const float box[4])
{
  int panel_w = w >= 3 * PANEL_WIDTH ? PANEL_WIDTH : w / 3;
  l->panel = (SDL_Rect){w - panel_w, 0, panel_w, h};
  l->scene = (SDL_Rect){MARGIN, MARGIN, w - panel_w - 2 * MARGIN, h - 2 * MARGIN};
  if (l->scene.w < 1)
    l->scene.w = 1;
  if (l->scene.h < 1)
    l->scene.h = 1;
  float bw = box[2] - box[0], bh = box[3] - box[1];
  float sx = (float)l->scene.w / bw, sy = (float)l->scene.h / bh;
  l->scale = sx < sy ? sx : sy;
  float left = (float)l->scene.x + 0.5f * ((float)l->scene.w - bw * l->scale);
  float top = (float)l->scene.y + 0.5f * ((float)l->scene.h - bh * l->scale);
  l->ox = left - box[0] * l->scale;
  l->oy = top + box[3] * l->scale;
}

void ms_layout_to_pixel(const ms_layout *l, float x, float y, float *px, float *py)
{
  *px = l->ox + x * l->scale;
  *py = l->oy - y * l->scale;
}

void ms_layout_to_world(const ms_layout *l, float px, float py, float *x, float *y)
{
  *x = (px - l->ox) / l->scale;
  *y = (l->oy - py) / l->scale;
}

ms_status ms_render_create(SDL_Renderer *r, ms_render **out)
{
  *out = NULL;
  char font[1024];
  ms_status st = ms_text_find_font(font, sizeof font);
  if (st)
    return st;
  ms_render *rc = calloc(1, sizeof *rc);
  if (!rc)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  rc->r = r;
  st = ms_text_create(r, font, FONT_PX, &rc->text);
  if (st) {
    ms_render_destroy(rc);
    return st;
  }
  SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
  *out = rc;
  return MS_OK;
}

void ms_render_destroy(ms_render *rc)
{
  if (!rc)
    return;
  ms_text_destroy(rc->text);
  if (rc->disc)
    SDL_DestroyTexture(rc->disc);
  if (rc->glow)
    SDL_DestroyTexture(rc->glow);
  free(rc->order);
  free(rc->depth);
  free(rc->vert);
  free(rc->index);
  free(rc);
}

/* ---- the collision scene view ---------------------------------------------------- */

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

static void draw_small(ms_render *rc, const ms_frame *f, const ms_layout *l)
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
  float half = 0.5f * (float)px;
  for (int i = 0; i < f->n_small; i++) {
    float x, y;
    ms_layout_to_pixel(l, f->small_pos[2 * i], f->small_pos[2 * i + 1], &x, &y);
    SDL_Rect dst = {(int)lroundf(x - half), (int)lroundf(y - half), px, px};
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

/* All large discs in one call: each a fan of its colour, a band shading to a darker rim
 * and a one-pixel band fading out, which keeps the edge smooth without multisampling. */
static void draw_large(ms_render *rc, const ms_frame *f, const ms_layout *l, int grabbed)
{
  int n_vert = 0, n_index = 0;
  for (int i = 0; i < f->n_large; i++) {
    int n = fan_segments(f->large_radius[i] * l->scale);
    n_vert += 3 * n + 1;
    n_index += 15 * n;
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

static void draw_collision_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                                const ms_render_ui *ui)
{
  SDL_RenderSetClipRect(rc->r, NULL);
  draw_walls(rc->r, f, l);
  draw_small(rc, f, l);
  draw_large(rc, f, l, ui ? ui->grabbed : -1);
}

/* ---- the gravity scene view ------------------------------------------------------- */

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

static void draw_gravity_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
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

/* ---- the timing bar ---------------------------------------------------------------- */

typedef struct bar_geom {
  SDL_Rect col[MS_THREAD_COUNT];
  int top, height;
} bar_geom;

static int time_to_y(const bar_geom *g, double rel_s)
{
  double u = rel_s / FRAME_S;
  u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
  return g->top + (int)lround(u * g->height);
}

static void draw_bar(ms_render *rc, const ms_frame *f, const bar_geom *g)
{
  SDL_Renderer *r = rc->r;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    fill(r, idle_color, g->col[th].x, g->top, g->col[th].w, g->height);
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    double a = e->t0 - f->advance_t0, b = e->t1 - f->advance_t0;
    if (b <= 0.0 || a >= FRAME_S)
      continue;
    int y0 = time_to_y(g, a), y1 = time_to_y(g, b);
    if (y1 <= y0)
      y1 = y0 + 1;
    if (y1 > g->top + g->height)
      y1 = g->top + g->height;
    const SDL_Rect *c = &g->col[e->thread];
    SDL_Color color = phase_color(e->phase);
    fill(r, color, c->x, y0, c->w, y1 - y0);
    if (y1 - y0 >= 4) /* a darker first row keeps neighbouring blocks apart */
      fill(r, darker(color), c->x, y0, c->w, 1);
  }
  /* The threads leave a sync together: draw each release across both columns. */
  int x0 = g->col[0].x - 3, x1 = g->col[MS_THREAD_COUNT - 1].x + g->col[MS_THREAD_COUNT - 1].w + 3;
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if (e->thread != MS_THREAD_GPU || !is_wait(e->phase) || e->t1 - f->advance_t0 >= FRAME_S)
      continue;
    fill(r, sync_color, x0, time_to_y(g, e->t1 - f->advance_t0), x1 - x0, 1);
  }
  /* Ticks every millisecond, labelled every four; the bottom is 1/60 s. */
  int lh = ms_text_line_height(rc->text);
  for (int ms = 0; ms <= 16; ms++) {
    int y = time_to_y(g, ms * 1e-3);
    int len = ms % 4 == 0 ? 6 : 3;
    fill(r, text_dim, g->col[0].x - 4 - len, y, len, 1);
    if (ms % 4 == 0 && ms < 16) {
      char label[16];
      snprintf(label, sizeof label, ms == 0 ? "0 ms" : "%d", ms);
      ms_text_draw(rc->text, g->col[0].x - 12 - ms_text_width(rc->text, label), y - lh / 2,
                   text_dim, label);
    }
  }
  int yb = g->top + g->height;
  fill(r, text_fg, g->col[0].x - 10, yb, x1 - g->col[0].x + 10, 1);
  ms_text_draw(rc->text, g->col[0].x - 12 - ms_text_width(rc->text, "1/60 s"), yb - lh / 2,
               text_fg, "1/60 s");
  if (f->n_events == 0)
    ms_text_draw(rc->text, g->col[0].x, g->top + 6, text_dim, "no iterations yet");
}

/* One swatch per phase, grouped as the colours are. */
static int draw_legend(ms_render *rc, const ms_frame *f, int x, int y)
{
  static const struct {
    const char *title;
    ms_phase phase[3];
    int n;
  } groups[] = {
    {"device work (GPU)", {MS_PHASE_GRID, MS_PHASE_COLLIDE, MS_PHASE_INTEGRATE}, 3},
    {"CPU work", {MS_PHASE_LARGE_SMALL, MS_PHASE_LARGE_LARGE, MS_PHASE_LARGE_INTEGRATE}, 3},
    {"map / copy", {MS_PHASE_HOST_IN, MS_PHASE_HOST_OUT, 0}, 2},
    {"waiting", {MS_PHASE_WAIT_SYNC1, MS_PHASE_WAIT_SYNC2, 0}, 2},
  };
  int lh = ms_text_line_height(rc->text), copied = f->buffers == MS_BUFFERS_COPIED;
  for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
    ms_text_draw(rc->text, x, y, text_fg, groups[gi].title);
    y += lh;
    for (int i = 0; i < groups[gi].n; i++) {
      ms_phase p = groups[gi].phase[i];
      fill(rc->r, phase_color(p), x + 2, y + 3, 12, lh - 6);
      ms_text_draw(rc->text, x + 20, y, text_dim, ms_phase_name(p, copied));
      y += lh;
    }
    y += 3;
  }
  fill(rc->r, sync_color, x + 2, y + lh / 2, 12, 1);
  ms_text_draw(rc->text, x + 20, y, text_dim, "sync point");
  y += lh;
  fill(rc->r, idle_color, x + 2, y + 3, 12, lh - 6);
  ms_text_draw(rc->text, x + 20, y, text_dim, "no phase running");
  return y + lh;
}

/* ---- the figures --------------------------------------------------------------------- */

/* Draws `s`, cut with "..." to fit `max_w` pixels. */
static void draw_fit(ms_text *t, int x, int y, int max_w, SDL_Color c, const char *s)
{
  char buf[200];
  snprintf(buf, sizeof buf, "%s", s);
  size_t n = strlen(buf);
  while (n > 3 && ms_text_width(t, buf) > max_w) {
    n--;
    memcpy(buf + n - 3, "...", 4);
  }
  ms_text_draw(t, x, y, c, buf);
}

static void row(ms_text *t, int x, int *y, int w, const char *label, const char *value)
{
  ms_text_draw(t, x, *y, text_dim, label);
  draw_fit(t, x + 118, *y, w - 118, text_fg, value);
  *y += ms_text_line_height(t);
}

static void draw_figures(ms_render *rc, const ms_frame *f, int x, int y, int w, int window)
{
  ms_text *t = rc->text;
  char v[200];
  double busy[MS_THREAD_COUNT] = {0}, end = f->advance_t0;
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if (!is_wait(e->phase))
      busy[e->thread] += e->t1 - e->t0;
    if (e->t1 > end)
      end = e->t1;
  }
  double per_it = f->iterations > 0 ? 1e3 / f->iterations : 0.0;

  snprintf(v, sizeof v, "%d", f->n_small);
  row(t, x, &y, w, "small particles", v);
  snprintf(v, sizeof v, "%d  (%d dynamic, %d static)", f->n_large, f->n_large - f->n_static,
           f->n_static);
  row(t, x, &y, w, "large particles", v);
  snprintf(v, sizeof v, "%ld", f->step);
  row(t, x, &y, w, "step", v);
  if (f->iterations_per_frame > 0) {
    snprintf(v, sizeof v, "%d", f->iterations_per_frame);
    row(t, x, &y, w, "iterations/frame", v);
  }
  if (f->shown_rate > 0)
    snprintf(v, sizeof v, "%.0f  (sim alone %.0f)", f->shown_rate, f->sim_rate);
  else
    snprintf(v, sizeof v, "%.0f  (sim alone)", f->sim_rate);
  row(t, x, &y, w, "iterations/s", v);
  snprintf(v, sizeof v, "%d iterations in %.2f ms", f->iterations, 1e3 * (end - f->advance_t0));
  row(t, x, &y, w, "last frame", v);
  snprintf(v, sizeof v, "GPU mgr %.3f, CPU %.3f (busy)", busy[MS_THREAD_GPU] * per_it,
           busy[MS_THREAD_CPU] * per_it);
  row(t, x, &y, w, "ms/iteration", v);
  row(t, x, &y, w, "buffers  [B]", ms_buffer_mode_name(f->buffers));
  row(t, x, &y, w, "pipeline [P]", ms_pipeline_name(f->pipeline));
  row(t, x, &y, w, "device", f->device);
  if (window)
    row(t, x, &y, w, "keys", "H help, Space pause, B / P switch");
  if (end - f->advance_t0 > FRAME_S) {
    snprintf(v, sizeof v, "the frame took %.1f ms; the bar shows 1/60 s",
             1e3 * (end - f->advance_t0));
    draw_fit(t, x, y, w, text_warn, v);
  }
}

static void draw_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, int window)
{
  SDL_Renderer *r = rc->r;
  const SDL_Rect *p = &l->panel;
  fill(r, panel_bg, p->x, p->y, p->w, p->h);
  ms_text *t = rc->text;
  int lh = ms_text_line_height(t);
  int x = p->x + MARGIN, y = p->y + MARGIN, w = p->w - 2 * MARGIN;
  ms_text_draw(t, x, y, text_fg, "Time per thread, last frame");
  y += lh + 6;

  int figures_h = 13 * lh;
  bar_geom g;
  int col_w = (w - 50) / 2 < 56 ? (w - 50) / 2 : 56;
  if (col_w < 8)
    col_w = 8;
  g.col[MS_THREAD_GPU] = (SDL_Rect){x + 44, 0, col_w, 0};
  g.col[MS_THREAD_CPU] = (SDL_Rect){x + 44 + col_w + 8, 0, col_w, 0};
  const char *head[MS_THREAD_COUNT][2] = {{"GPU", "manager"}, {"CPU", "worker"}};
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    for (int k = 0; k < 2; k++) {
      int tw = ms_text_width(t, head[th][k]);
      ms_text_draw(t, g.col[th].x + (col_w - tw) / 2, y + k * lh, text_fg, head[th][k]);
    }
  g.top = y + 2 * lh + 6;
  g.height = p->y + p->h - MARGIN - figures_h - g.top;
  if (g.height < 60)
    g.height = 60;
  draw_bar(rc, f, &g);
  draw_legend(rc, f, g.col[MS_THREAD_CPU].x + col_w + 14, g.top);
  draw_figures(rc, f, x, g.top + g.height + lh, w, window);
}

/* Gravity scenes: the figures only; the device runs whole bursts, with no host phases
 * between its steps for a timing bar to show. */
static void draw_gravity_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, int window)
{
  const SDL_Rect *p = &l->panel;
  fill(rc->r, panel_bg, p->x, p->y, p->w, p->h);
  ms_text *t = rc->text;
  int lh = ms_text_line_height(t);
  int x = p->x + MARGIN, y = p->y + MARGIN, w = p->w - 2 * MARGIN;
  char v[200];
  ms_text_draw(t, x, y, text_fg, "Gravity: all-pairs N-body");
  y += lh + 8;
  snprintf(v, sizeof v, "%d", f->n_bodies);
  row(t, x, &y, w, "bodies", v);
  snprintf(v, sizeof v, "%ld", f->step);
  row(t, x, &y, w, "step", v);
  snprintf(v, sizeof v, "%.6g", f->sim_time);
  row(t, x, &y, w, "time", v);
  snprintf(v, sizeof v, "%d", f->iterations_per_frame);
  row(t, x, &y, w, "steps/frame", v);
  snprintf(v, sizeof v, "%.1f  (device alone %.1f)", f->shown_rate, f->sim_rate);
  row(t, x, &y, w, "steps/s", v);
  snprintf(v, sizeof v, "%d", f->n_devices);
  row(t, x, &y, w, "devices", v);
  row(t, x, &y, w, "device", f->device);
  row(t, x, &y, w, "force kernel", f->kernel);
  if (window)
    row(t, x, &y, w, "keys", "H help, drag turns, wheel zooms");
}

/* ---- overlays on the scene --------------------------------------------------------- */

static void draw_help(ms_render *rc, const ms_layout *l, ms_mode mode)
{
  static const char *const gravity_lines[][2] = {
    {"Space", "pause / run"},
    {"N", "one step (while paused)"},
    {"R", "reset the view"},
    {"+ / -", "steps per frame"},
    {"F12", "screenshot (PNG, current folder)"},
    {"H", "this help"},
    {"Esc, Q", "quit"},
    {"drag", "turn the view"},
    {"wheel", "zoom"},
  };
  static const char *const lines[][2] = {
    {"B", "shared / copied buffers, live"},
    {"P", "naive / reordered pipeline, live"},
    {"Space", "pause / run"},
    {"N", "one iteration (while paused)"},
    {"R", "reset: the scene from its start"},
    {"+ / -", "iterations per frame"},
    {"F12", "screenshot (PNG, current folder)"},
    {"H", "this help"},
    {"Esc, Q", "quit"},
    {"mouse", "drag a large particle"},
  };
  const char *const(*text)[2] = mode == MS_MODE_GRAVITY ? gravity_lines : lines;
  int n = mode == MS_MODE_GRAVITY ? (int)(sizeof gravity_lines / sizeof gravity_lines[0])
                                  : (int)(sizeof lines / sizeof lines[0]);
  int lh = ms_text_line_height(rc->text);
  int w = 330, h = (n + 2) * lh + 16;
  int x = l->scene.x + (l->scene.w - w) / 2, y = l->scene.y + (l->scene.h - h) / 2;
  fill(rc->r, (SDL_Color){10, 12, 16, 225}, x, y, w, h);
  ms_text_draw(rc->text, x + 12, y + 8, text_fg, "Keys");
  for (int i = 0; i < n; i++) {
    ms_text_draw(rc->text, x + 12, y + 8 + (i + 2) * lh, text_warn, text[i][0]);
    ms_text_draw(rc->text, x + 80, y + 8 + (i + 2) * lh, text_fg, text[i][1]);
  }
}

static void draw_badge(ms_render *rc, int x, int y, SDL_Color c, const char *s)
{
  int lh = ms_text_line_height(rc->text);
  fill(rc->r, (SDL_Color){10, 12, 16, 200}, x, y, ms_text_width(rc->text, s) + 12, lh + 6);
  ms_text_draw(rc->text, x + 6, y + 3, c, s);
}

void ms_render_frame(ms_render *rc, const ms_frame *f, const ms_render_ui *ui)
{
  int w = 0, h = 0;
  SDL_GetRendererOutputSize(rc->r, &w, &h);
  ms_layout l;
  static const float unit_box[4] = {0, 0, 1, 1};
  int gravity = f->mode == MS_MODE_GRAVITY;
  ms_layout_compute(&l, w, h, gravity ? unit_box : f->box);
  set_color(rc->r, MS_COLOR_BACKGROUND);
  SDL_RenderClear(rc->r);
  /* One scene view per simulation mode, with its panel. */
  if (gravity) {
    draw_gravity_view(rc, f, &l, ui);
    draw_gravity_panel(rc, f, &l, ui != NULL);
  } else {
    draw_collision_view(rc, f, &l, ui);
    draw_panel(rc, f, &l, ui != NULL);
  }
  int lh = ms_text_line_height(rc->text);
  if (f->paused)
    draw_badge(rc, l.scene.x + 8, l.scene.y + 8, text_warn,
               gravity ? "PAUSED  (N: one step, Space: run)"
                       : "PAUSED  (N: one iteration, Space: run)");
  if (ui && ui->note)
    draw_badge(rc, l.scene.x + 8, l.scene.y + l.scene.h - lh - 14, text_fg, ui->note);
  if (ui && ui->help)
    draw_help(rc, &l, f->mode);
}
