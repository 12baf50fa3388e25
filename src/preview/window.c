/* The preview windows' shared parts; see window.h. */
#include "preview/window.h"

#include <SDL_ttf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"
#include "io/png_out.h"
#include "collision/base/trace.h"

/* The largest size with the picture's aspect that fits the usable area `u` of a display
 * (less task bars and docks) less the window's decorations, but not below the minimum
 * size; centred in that area. */
static SDL_Rect fit_in(const SDL_Rect *u, int top, int left, int bottom, int right)
{
  int aw = u->w - left - right, ah = u->h - top - bottom;
  double sx = (double)aw / MS_RENDER_WIDTH, sy = (double)ah / MS_RENDER_HEIGHT;
  double scale = sx < sy ? sx : sy;
  scale = scale > 1.0 ? 1.0 : scale;
  int ww = (int)(MS_RENDER_WIDTH * scale), wh = (int)(MS_RENDER_HEIGHT * scale);
  ww = ww < MS_RENDER_MIN_WIDTH ? MS_RENDER_MIN_WIDTH : ww;
  wh = wh < MS_RENDER_MIN_HEIGHT ? MS_RENDER_MIN_HEIGHT : wh;
  int x = u->x + left + (aw - ww) / 2, y = u->y + top + (ah - wh) / 2;
  return (SDL_Rect){x > u->x + left ? x : u->x + left, y > u->y + top ? y : u->y + top, ww, wh};
}

/* Opens the window at the size and place that fit the first display. Decorations are
 * known only once the window is shown (and only where the window manager says): should
 * they leave it too big, it is made smaller and moved. */
static ms_status open_fitted(ms_window *w, const char *title)
{
  SDL_Rect u, g = {SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, MS_RENDER_WIDTH,
                   MS_RENDER_HEIGHT};
  int have = SDL_GetDisplayUsableBounds(0, &u) == 0;
  if (have)
    g = fit_in(&u, 0, 0, 0, 0);
  w->win = SDL_CreateWindow(title, g.x, g.y, g.w, g.h, SDL_WINDOW_RESIZABLE);
  if (!w->win)
    return ms_fail(MS_ERR_RUNTIME, "cannot open a window: %s", SDL_GetError());
  SDL_SetWindowMinimumSize(w->win, MS_RENDER_MIN_WIDTH, MS_RENDER_MIN_HEIGHT);
  int top = 0, left = 0, bottom = 0, right = 0;
  if (have && SDL_GetWindowBordersSize(w->win, &top, &left, &bottom, &right) == 0 &&
      top + left + bottom + right > 0) {
    SDL_Rect f = fit_in(&u, top, left, bottom, right);
    if (f.w != g.w || f.h != g.h) {
      SDL_SetWindowSize(w->win, f.w, f.h);
      SDL_SetWindowPosition(w->win, f.x, f.y);
      g = f;
    }
  }
  if (have)
    snprintf(w->geometry, sizeof w->geometry,
             "window %dx%d at (%d, %d) in the display's usable %dx%d at (%d, %d), decorations "
             "%d %d %d %d", g.w, g.h, g.x, g.y, u.w, u.h, u.x, u.y, top, left, bottom, right);
  else
    snprintf(w->geometry, sizeof w->geometry, "window %dx%d (usable area unknown: %s)", g.w,
             g.h, SDL_GetError());
  return MS_OK;
}

void ms_window_log_geometry(const ms_window *w)
{
  int x = 0, y = 0, ww = 0, wh = 0;
  SDL_PumpEvents(); /* the window manager's answer to the move and resize */
  SDL_GetWindowPosition(w->win, &x, &y);
  SDL_GetWindowSize(w->win, &ww, &wh);
  fprintf(stderr, "mixsim: preview: asked for %s; SDL reports window %dx%d at (%d, %d)\n",
          w->geometry, ww, wh, x, y);
}

ms_status ms_window_open(ms_window *w, const char *title)
{
  memset(w, 0, sizeof *w);
  if (TTF_Init() != 0)
    return ms_fail(MS_ERR_RUNTIME, "SDL2_ttf: %s", TTF_GetError());
  ms_status st = open_fitted(w, title);
  if (st)
    return st;
  w->r = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
  if (!w->r)
    w->r = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
  if (!w->r)
    return ms_fail(MS_ERR_RUNTIME, "cannot draw in the window: %s", SDL_GetError());
  return ms_render_create(w->r, &w->rc);
}

void ms_window_close(ms_window *w)
{
  ms_render_destroy(w->rc);
  if (w->r)
    SDL_DestroyRenderer(w->r);
  if (w->win)
    SDL_DestroyWindow(w->win);
  memset(w, 0, sizeof *w);
  TTF_Quit();
  SDL_Quit();
}

void ms_window_screenshot(ms_window *w, long step)
{
  int ow = 0, oh = 0;
  SDL_GetRendererOutputSize(w->r, &ow, &oh);
  Uint8 *px = malloc((size_t)ow * (size_t)oh * 4);
  char path[64];
  snprintf(path, sizeof path, "mixsim-%06ld.png", step);
  ms_status st = MS_ERR_RUNTIME;
  if (px && SDL_RenderReadPixels(w->r, NULL, SDL_PIXELFORMAT_RGBA32, px, ow * 4) == 0)
    st = ms_png_write(path, ow, oh, px, ow * 4);
  else
    ms_fail(MS_ERR_RUNTIME, "cannot read the window's pixels: %s", SDL_GetError());
  free(px);
  if (st)
    snprintf(w->note, sizeof w->note, "screenshot failed: %s", ms_error_message());
  else
    snprintf(w->note, sizeof w->note, "saved %s", path);
  fprintf(stderr, "mixsim: %s\n", w->note);
  ms_error_clear();
  w->note_until = ms_now() + 2.5;
}

void ms_window_to_output(const ms_window *w, int x, int y, float *ox, float *oy)
{
  int ww = 1, wh = 1, rw = 1, rh = 1;
  SDL_GetWindowSize(w->win, &ww, &wh);
  SDL_GetRendererOutputSize(w->r, &rw, &rh);
  *ox = (float)x * (float)rw / (float)(ww > 0 ? ww : 1);
  *oy = (float)y * (float)rh / (float)(wh > 0 ? wh : 1);
}

void ms_window_pace(double t0)
{
  double left = 1.0 / 60.0 - (ms_now() - t0);
  if (left > 0.001)
    SDL_Delay((Uint32)(left * 1e3));
}

ms_status ms_script_parse(const char *text, ms_script *s)
{
  memset(s, 0, sizeof *s);
  if (!text)
    return MS_OK;
  int cap = 1;
  for (const char *p = text; *p; p++)
    cap += *p == ',';
  s->frame = calloc((size_t)cap, sizeof *s->frame);
  s->key = calloc((size_t)cap, sizeof *s->key);
  char *copy = strdup(text);
  ms_status st = MS_OK;
  if (!s->frame || !s->key || !copy)
    st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  /* Split at every comma: an empty item is refused with the rest (as in --devices). */
  for (char *item = copy, *next = NULL; item && !st; item = next) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    next = comma ? comma + 1 : NULL;
    char *colon = strchr(item, ':');
    const char *end = NULL;
    long frame = -1; /* by the one number parser: digits only */
    int number = ms_number_digits(item, 0, LONG_MAX, &frame, &end) == MS_NUMBER_OK;
    SDL_Keycode key = colon ? SDL_GetKeyFromName(colon + 1) : SDLK_UNKNOWN;
    if (!colon || !number || end != colon || key == SDLK_UNKNOWN)
      st = ms_fail(MS_ERR_INPUT, "--script: expected FRAME:KEY (an SDL key name), got '%s'",
                   item);
    else {
      s->frame[s->n] = frame;
      s->key[s->n++] = key;
    }
  }
  free(copy);
  if (st)
    ms_script_free(s);
  return st;
}

void ms_script_inject(const ms_script *s, long frame)
{
  for (int i = 0; i < s->n; i++) {
    if (s->frame[i] != frame)
      continue;
    SDL_Event e = {0};
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = s->key[i];
    e.key.keysym.scancode = SDL_GetScancodeFromKey(s->key[i]);
    SDL_PushEvent(&e);
  }
}

void ms_script_free(ms_script *s)
{
  free(s->frame);
  free(s->key);
  memset(s, 0, sizeof *s);
}
