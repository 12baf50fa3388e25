/* The panel at the right: the case study's timing bar (one column per thread, full
 * height 1/60 s), its legend, and the run's figures. */
#include "preview/render_internal.h"

#include <stdio.h>
#include <string.h>

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

void ms_draw_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, int window)
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
void ms_draw_gravity_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, int window)
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
