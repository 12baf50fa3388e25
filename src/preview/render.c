/* Drawing a frame: layout, the renderer's life, and the overlays; the views and the
 * panel are in render_collision.c, render_gravity.c and render_panel.c. */
#include "preview/render.h"
#include "preview/render_internal.h"

#include <stdlib.h>

void ms_layout_compute(ms_layout *l, int w, int h, const float box[4])
{
  int panel_w = w >= 3 * PANEL_WIDTH ? PANEL_WIDTH : w / 3;
  if (panel_w < PANEL_MIN_WIDTH) /* but never more than half */
    panel_w = PANEL_MIN_WIDTH < w / 2 ? PANEL_MIN_WIDTH : w / 2;
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
  free(rc->wall_px);
  free(rc);
}

int ms_render_boxes(const ms_render *rc, const ms_render_box **boxes)
{
  *boxes = rc->box;
  return rc->n_box;
}

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
    {"W", "small particles coloured by spin"},
    {"A", "bar: last frame / average of 1 s"},
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
  rc->n_box = 0;
  /* One scene view per simulation mode, with its panel. */
  if (gravity) {
    ms_draw_gravity_view(rc, f, &l, ui);
    ms_draw_gravity_panel(rc, f, &l, ui != NULL);
  } else {
    ms_draw_collision_view(rc, f, &l, ui);
    ms_draw_panel(rc, f, &l, ui);
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

