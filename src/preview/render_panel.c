/* The panel at the right: the case study's timing bar (one column per thread, full
 * height 1/60 s), its legend, and the run's figures. */
#include "preview/render.h"
#include "preview/render_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Blue shades: the device's work as the GPU manager sees it; green: the CPU worker's
 * own work; orange: moving data between the two memories; grey: waiting at a sync, or
 * (lighter) the manager waiting for the kernels queued before its grid build. */
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
  case MS_PHASE_WAIT_DEVICE: return (SDL_Color){170, 174, 190, 255};
  default: return (SDL_Color){255, 0, 255, 255};
  }
}

static int is_wait(ms_phase p) { return p == MS_PHASE_WAIT_SYNC1 || p == MS_PHASE_WAIT_SYNC2; }

/* ---- recording what goes where ------------------------------------------------------ */

static void record(ms_render *rc, SDL_Rect r, int bar, int in_bar, const char *what)
{
  if (rc->n_box >= MS_RENDER_MAX_BOXES)
    return;
  ms_render_box *b = &rc->box[rc->n_box++];
  *b = (ms_render_box){r, bar, in_bar, ""};
  size_t n = strnlen(what, sizeof b->what - 1); /* a label for messages: cut is fine */
  memcpy(b->what, what, n);
  b->what[n] = '\0';
}

/* Draws one line of text and records its box. */
static int put_text(ms_render *rc, int x, int y, SDL_Color c, const char *s)
{
  int w = ms_text_draw(rc->text, x, y, c, s);
  record(rc, (SDL_Rect){x, y, w, ms_text_line_height(rc->text)}, 0, 0, s);
  return w;
}

/* Cuts `s` into `buf` with "..." so that it fits `max_w` pixels. */
static void fit(const ms_text *t, char *buf, size_t size, const char *s, int max_w)
{
  snprintf(buf, size, "%s", s);
  size_t n = strlen(buf);
  while (n > 3 && ms_text_width(t, buf) > max_w) {
    n--;
    memcpy(buf + n - 3, "...", 4);
  }
}

static int put_fit(ms_render *rc, int x, int y, int max_w, SDL_Color c, const char *s)
{
  char buf[256];
  fit(rc->text, buf, sizeof buf, s, max_w);
  return put_text(rc, x, y, c, buf);
}

static int wrap_lines(const ms_text *t, const char *s, int w, char out[][200], int max);

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

/* Waits first, work over them: where several phases share a row (iterations far shorter
 * than a row), the row shows work, not waiting. */
static void draw_blocks(ms_render *rc, const ms_frame *f, const bar_geom *g, int waits)
{
  SDL_Renderer *r = rc->r;
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if (is_wait(e->phase) != waits)
      continue;
    double a = e->t0 - f->advance_t0, b = e->t1 - f->advance_t0;
    if (b <= 0.0)
      continue;
    /* A phase that began after the bar's 1/60 s (the frame overran: the panel says by
     * how much) goes in the bar's last row, so the bar still shows who worked past it
     * (a loaded machine can start the threads themselves that late). */
    int y0 = a >= FRAME_S ? g->top + g->height - 1 : time_to_y(g, a), y1 = time_to_y(g, b);
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
}

/* The last frame: each phase where it happened. */
static void draw_timeline(ms_render *rc, const ms_frame *f, const bar_geom *g, int x0, int x1)
{
  /* The threads leave a sync together: draw each release across both columns. The lines
   * go under the blocks: iterations far shorter than a row would otherwise put a line over
   * every block; the lines still show in the margins and between the columns. */
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if (e->thread != MS_THREAD_GPU || !is_wait(e->phase) || e->t1 - f->advance_t0 >= FRAME_S)
      continue;
    fill(rc->r, sync_color, x0, time_to_y(g, e->t1 - f->advance_t0), x1 - x0, 1);
  }
  draw_blocks(rc, f, g, 1);
  draw_blocks(rc, f, g, 0);
}

/* The average of the last second (key A): each thread's phases stacked from the top in
 * the order an iteration runs them, a frame's mean time each; no sync lines, since the
 * averaged blocks are not where the phases happened. */
static void draw_average(ms_render *rc, const ms_bar_average *a, const bar_geom *g)
{
  static const ms_phase order[] = {MS_PHASE_WAIT_DEVICE, MS_PHASE_GRID, MS_PHASE_WAIT_SYNC1,
                                   MS_PHASE_HOST_IN, MS_PHASE_COLLIDE, MS_PHASE_LARGE_SMALL,
                                   MS_PHASE_HOST_OUT, MS_PHASE_LARGE_LARGE, MS_PHASE_WAIT_SYNC2,
                                   MS_PHASE_INTEGRATE, MS_PHASE_LARGE_INTEGRATE};
  for (int th = 0; th < MS_THREAD_COUNT; th++) {
    double at = 0.0;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
      double d = a->s[th][order[k]];
      if (d <= 0.0 || at >= FRAME_S)
        continue;
      int y0 = time_to_y(g, at), y1 = time_to_y(g, at + d);
      at += d;
      if (y1 <= y0)
        y1 = y0 + 1;
      SDL_Color color = phase_color(order[k]);
      fill(rc->r, color, g->col[th].x, y0, g->col[th].w, y1 - y0);
      if (y1 - y0 >= 4)
        fill(rc->r, darker(color), g->col[th].x, y0, g->col[th].w, 1);
    }
  }
}

static void draw_bar(ms_render *rc, const ms_frame *f, const bar_geom *g,
                     const ms_bar_average *avg)
{
  SDL_Renderer *r = rc->r;
  for (int th = 0; th < MS_THREAD_COUNT; th++)
    fill(r, idle_color, g->col[th].x, g->top, g->col[th].w, g->height);
  int x0 = g->col[0].x - 3, x1 = g->col[MS_THREAD_COUNT - 1].x + g->col[MS_THREAD_COUNT - 1].w + 3;
  if (avg)
    draw_average(rc, avg, g);
  else
    draw_timeline(rc, f, g, x0, x1);
  int yb = g->top + g->height;
  record(rc, (SDL_Rect){g->col[0].x - 10, g->top, x1 - (g->col[0].x - 10), g->height + 1}, 1, 0,
         "timing bar");
  /* Ticks every millisecond, labelled every four (every eight in a short bar) where the
   * labels keep clear of each other and of the "1/60 s" at the bottom. */
  int lh = ms_text_line_height(rc->text);
  int every = time_to_y(g, 4e-3) - g->top >= lh ? 4 : 8;
  for (int ms = 0; ms <= 16; ms++) {
    int y = time_to_y(g, ms * 1e-3);
    int len = ms % 4 == 0 ? 6 : 3;
    fill(r, text_dim, g->col[0].x - 4 - len, y, len, 1);
    if (ms % every == 0 && y + lh / 2 + lh <= yb - lh / 2 + 1) {
      char label[16];
      snprintf(label, sizeof label, ms == 0 ? "0 ms" : "%d", ms);
      put_text(rc, g->col[0].x - 12 - ms_text_width(rc->text, label), y - lh / 2, text_dim, label);
    }
  }
  fill(r, text_fg, g->col[0].x - 10, yb, x1 - g->col[0].x + 10, 1);
  put_text(rc, g->col[0].x - 12 - ms_text_width(rc->text, "1/60 s"), yb - lh / 2, text_fg,
           "1/60 s");
  if (avg ? avg->frames == 0 : f->n_events == 0) { /* over the columns, on two lines where they are narrow */
    char lines[2][200];
    int n = wrap_lines(rc->text, "no iterations yet", x1 - 3 - g->col[0].x, lines, 2);
    for (int k = 0; k < n; k++) {
      int y = g->top + 6 + k * lh, w = ms_text_draw(rc->text, g->col[0].x, y, text_dim, lines[k]);
      record(rc, (SDL_Rect){g->col[0].x, y, w, lh}, 0, 1, lines[k]);
    }
  }
}

/* ---- the legend ---------------------------------------------------------------------- */

static const struct {
  const char *title;
  ms_phase phase[3];
  int n;
} legend_groups[] = {
  {"device work (GPU)", {MS_PHASE_GRID, MS_PHASE_COLLIDE, MS_PHASE_INTEGRATE}, 3},
  {"CPU work", {MS_PHASE_LARGE_SMALL, MS_PHASE_LARGE_LARGE, MS_PHASE_LARGE_INTEGRATE}, 3},
  {"map / copy", {MS_PHASE_HOST_IN, MS_PHASE_HOST_OUT, 0}, 2},
  {"waiting", {MS_PHASE_WAIT_SYNC1, MS_PHASE_WAIT_SYNC2, MS_PHASE_WAIT_DEVICE}, 3},
};
#define LEGEND_GROUPS ((int)(sizeof legend_groups / sizeof legend_groups[0]))

/* Height of the legend; `titled` 0 leaves out the group titles (the colours still group). */
static int legend_height(const ms_text *t, int titled)
{
  int lh = ms_text_line_height(t), h = 2 * lh; /* sync point, no phase running */
  for (int gi = 0; gi < LEGEND_GROUPS; gi++)
    h += (titled ? lh : 0) + legend_groups[gi].n * lh + 3;
  return h;
}

static int legend_width(const ms_text *t, int copied)
{
  int w = ms_text_width(t, "no phase running") + 20;
  for (int gi = 0; gi < LEGEND_GROUPS; gi++) {
    int tw = ms_text_width(t, legend_groups[gi].title);
    w = tw > w ? tw : w;
    for (int i = 0; i < legend_groups[gi].n; i++) {
      int ew = 20 + ms_text_width(t, ms_phase_name(legend_groups[gi].phase[i], copied));
      w = ew > w ? ew : w;
    }
  }
  return w;
}

/* A swatch and its name, recorded as one box. */
static void legend_entry(ms_render *rc, int x, int y, SDL_Color c, int line, const char *name)
{
  int lh = ms_text_line_height(rc->text);
  if (line)
    fill(rc->r, c, x + 2, y + lh / 2, 12, 1);
  else
    fill(rc->r, c, x + 2, y + 3, 12, lh - 6);
  int w = ms_text_draw(rc->text, x + 20, y, text_dim, name);
  record(rc, (SDL_Rect){x, y, 20 + w, lh}, 0, 0, name);
}

/* One swatch per phase, grouped as the colours are. */
static void draw_legend(ms_render *rc, const ms_frame *f, int x, int y, int titled)
{
  int lh = ms_text_line_height(rc->text), copied = f->buffers == MS_BUFFERS_COPIED;
  for (int gi = 0; gi < LEGEND_GROUPS; gi++) {
    if (titled) {
      put_text(rc, x, y, text_fg, legend_groups[gi].title);
      y += lh;
    }
    for (int i = 0; i < legend_groups[gi].n; i++) {
      ms_phase p = legend_groups[gi].phase[i];
      legend_entry(rc, x, y, phase_color(p), 0, ms_phase_name(p, copied));
      y += lh;
    }
    y += 3;
  }
  legend_entry(rc, x, y, sync_color, 1, "sync point");
  legend_entry(rc, x, y + lh, idle_color, 0, "no phase running");
}

/* ---- the figures --------------------------------------------------------------------- */

#define LABEL_W 118
#define MAX_ROWS 16
#define WRAP_LINES 3

/* A row of figures: a label and its value. Rows of a lower `keep` go first when the
 * panel is short; a value too long for the value column (the device name, in a narrow
 * panel any) goes on lines of its own under the label, so it is read whole. */
typedef struct fig_row {
  const char *label; /* NULL: the value alone, across the panel (a warning) */
  char value[200];
  int keep;
  SDL_Color color;
} fig_row;

typedef struct fig_rows {
  fig_row row[MAX_ROWS];
  int n;
} fig_rows;

static void add_row(fig_rows *rows, const char *label, int keep, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

static void add_row(fig_rows *rows, const char *label, int keep, const char *fmt, ...)
{
  if (rows->n >= MAX_ROWS)
    return;
  fig_row *r = &rows->row[rows->n++];
  r->label = label;
  r->keep = keep;
  r->color = label ? text_fg : text_warn;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->value, sizeof r->value, fmt, ap);
  va_end(ap);
}

/* Splits `s` into lines of at most `w` pixels, at spaces where it can; the last of
 * `max` lines is cut with "...". Returns the number of lines. */
static int wrap_lines(const ms_text *t, const char *s, int w, char out[][200], int max)
{
  int n = 0;
  while (*s && n < max) {
    while (*s == ' ')
      s++;
    size_t len = strlen(s), take = len, space = 0;
    char buf[200];
    for (take = 0; take < len && take < sizeof buf - 1; take++) {
      memcpy(buf, s, take + 1);
      buf[take + 1] = '\0';
      if (ms_text_width(t, buf) > w)
        break;
      if (s[take] == ' ')
        space = take;
    }
    if (take < len && space > 0)
      take = space; /* break at the last space that fits */
    if (take == 0)
      take = 1;
    if (n == max - 1 && take < len) {
      fit(t, out[n++], sizeof out[0], s, w);
      break;
    }
    snprintf(out[n++], sizeof out[0], "%.*s", (int)take, s);
    s += take;
  }
  return n;
}

static int row_lines(const ms_text *t, const fig_row *r, int w)
{
  char lines[WRAP_LINES][200];
  if (!r->label)
    return wrap_lines(t, r->value, w, lines, WRAP_LINES);
  if (ms_text_width(t, r->value) <= w - LABEL_W)
    return 1;
  return 1 + wrap_lines(t, r->value, w - 8, lines, WRAP_LINES);
}

/* Height of the rows kept at level `cut` (rows with keep <= cut are left out). */
static int rows_height(const ms_text *t, const fig_rows *rows, int w, int cut)
{
  int h = 0;
  for (int i = 0; i < rows->n; i++)
    if (rows->row[i].keep > cut)
      h += row_lines(t, &rows->row[i], w) * ms_text_line_height(t);
  return h;
}

static void draw_rows(ms_render *rc, const fig_rows *rows, int x, int y, int w, int cut)
{
  int lh = ms_text_line_height(rc->text);
  for (int i = 0; i < rows->n; i++) {
    const fig_row *r = &rows->row[i];
    if (r->keep <= cut)
      continue;
    char lines[WRAP_LINES][200];
    if (!r->label) {
      int n = wrap_lines(rc->text, r->value, w, lines, WRAP_LINES);
      for (int k = 0; k < n; k++, y += lh)
        put_text(rc, x, y, r->color, lines[k]);
      continue;
    }
    put_text(rc, x, y, text_dim, r->label);
    if (row_lines(rc->text, r, w) == 1) {
      put_fit(rc, x + LABEL_W, y, w - LABEL_W, r->color, r->value);
      y += lh;
      continue;
    }
    int n = wrap_lines(rc->text, r->value, w - 8, lines, WRAP_LINES);
    for (int k = 0; k < n; k++)
      put_text(rc, x + 8, y + (k + 1) * lh, r->color, lines[k]);
    y += (n + 1) * lh;
  }
}

/* What to leave out, least wanted first, when the panel is short. */
enum { KEEP_KEYS = 1, KEEP_LAST_FRAME = 2, KEEP_WARNING = 3, KEEP_IPF = 4, KEEP_COUNTS = 5,
       KEEP_ALWAYS = 9 };

static void collision_rows(const ms_frame *f, const ms_render_ui *ui, fig_rows *rows)
{
  int window = ui != NULL;
  double busy[MS_THREAD_COUNT] = {0}, end = f->advance_t0;
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if (!is_wait(e->phase))
      busy[e->thread] += e->t1 - e->t0;
    if (e->t1 > end)
      end = e->t1;
  }
  double per_it = f->iterations > 0 ? 1e3 / f->iterations : 0.0;
  rows->n = 0;
  add_row(rows, "small particles", KEEP_COUNTS, "%d", f->n_small);
  add_row(rows, "large particles", KEEP_COUNTS, "%d  (%d dynamic, %d static)", f->n_large,
          f->n_large - f->n_static, f->n_static);
  add_row(rows, "step", KEEP_ALWAYS, "%ld", f->step);
  if (f->iterations_per_frame > 0)
    add_row(rows, "iterations/frame", KEEP_IPF, "%d", f->iterations_per_frame);
  if (f->shown_rate > 0)
    add_row(rows, "iterations/s", KEEP_ALWAYS, "%.0f  (sim alone %.0f)", f->shown_rate,
            f->sim_rate);
  else
    add_row(rows, "iterations/s", KEEP_ALWAYS, "%.0f  (sim alone)", f->sim_rate);
  if (window && ui->average)
    add_row(rows, "last 1 s  [A]", KEEP_LAST_FRAME, "%d frames, %.1f iterations each",
            ui->average->frames, ui->average->iterations);
  else
    add_row(rows, "last frame", KEEP_LAST_FRAME, "%d iterations in %.2f ms", f->iterations,
            1e3 * (end - f->advance_t0));
  add_row(rows, "ms/iteration", KEEP_ALWAYS, "GPU mgr %.3f, CPU %.3f (busy)",
          busy[MS_THREAD_GPU] * per_it, busy[MS_THREAD_CPU] * per_it);
  add_row(rows, "buffers  [B]", KEEP_ALWAYS, "%s", ms_buffer_mode_name(f->buffers));
  add_row(rows, "pipeline [P]", KEEP_ALWAYS, "%s", ms_pipeline_name(f->pipeline));
  add_row(rows, "device", KEEP_ALWAYS, "%s", f->device);
  /* The spin colours' legend: orange anticlockwise, purple clockwise, full at the largest. */
  if (window && f->rotation && ui->spin)
    add_row(rows, "spin  [W]", KEEP_COUNTS, "orange ccw, purple cw, full %.3g rad/s",
            (double)f->small_spin_max);
  else if (window && f->rotation)
    add_row(rows, "spin  [W]", KEEP_COUNTS, "off");
  if (window)
    add_row(rows, "keys", KEEP_KEYS, "H help, Space pause, B / P switch%s",
            f->rotation ? ", W spin" : "");
  if (end - f->advance_t0 > FRAME_S)
    add_row(rows, NULL, KEEP_WARNING, "the frame took %.1f ms; the bar shows 1/60 s",
            1e3 * (end - f->advance_t0));
}

/* The panel's geometry: the bar's columns, where the legend goes, which rows fit. */
typedef struct panel_plan {
  bar_geom g;
  int legend_x, legend_y, titled; /* the legend beside the bar, or under it */
  int cut;                        /* rows with keep <= cut are left out */
  int figures_y;
} panel_plan;

static void plan_panel(const ms_text *t, const ms_frame *f, const fig_rows *rows, int x, int top,
                       int w, int bottom, panel_plan *pl)
{
  int lh = ms_text_line_height(t), lw = legend_width(t, f->buffers == MS_BUFFERS_COPIED);
  int col_w = (w - 44 - 8 - 14 - lw) / 2, beside = col_w >= 16;
  if (!beside)
    col_w = (w - 52) / 2;
  col_w = col_w > 56 ? 56 : col_w < 8 ? 8 : col_w;
  pl->g.col[MS_THREAD_GPU] = (SDL_Rect){x + 44, 0, col_w, 0};
  pl->g.col[MS_THREAD_CPU] = (SDL_Rect){x + 44 + col_w + 8, 0, col_w, 0};
  pl->g.top = top;
  /* The bar is at least this tall, so that its tick labels can be read. */
  int bar_min = 3 * lh + lh / 2 > 60 ? 3 * lh + lh / 2 : 60;
  /* Give way step by step: the keys row, the legend's titles, then rows by `keep`. */
  static const int steps[][2] = {{0, 1}, {KEEP_KEYS, 1}, {KEEP_KEYS, 0}, {KEEP_LAST_FRAME, 0},
                                 {KEEP_WARNING, 0}, {KEEP_IPF, 0}, {KEEP_COUNTS, 0}};
  int n_steps = (int)(sizeof steps / sizeof steps[0]), region = 0;
  for (int i = 0; i < n_steps; i++) {
    pl->cut = steps[i][0];
    pl->titled = steps[i][1];
    int legend_h = legend_height(t, pl->titled);
    region = beside ? (legend_h > bar_min ? legend_h : bar_min) : bar_min + lh + legend_h;
    if (top + region + lh + rows_height(t, rows, w, pl->cut) <= bottom)
      break;
  }
  int legend_h = legend_height(t, pl->titled);
  int spare = bottom - (top + region + lh + rows_height(t, rows, w, pl->cut));
  spare = spare > 0 ? spare : 0;
  pl->g.height = beside ? region + spare : bar_min + spare;
  pl->legend_x = beside ? pl->g.col[MS_THREAD_CPU].x + col_w + 14 : x;
  pl->legend_y = beside ? top : top + pl->g.height + lh;
  pl->figures_y = beside ? top + pl->g.height + lh : pl->legend_y + legend_h + lh;
}

void ms_draw_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, const ms_render_ui *ui)
{
  const SDL_Rect *p = &l->panel;
  fill(rc->r, panel_bg, p->x, p->y, p->w, p->h);
  ms_text *t = rc->text;
  int lh = ms_text_line_height(t);
  int x = p->x + MARGIN, y = p->y + MARGIN, w = p->w - 2 * MARGIN;
  const ms_bar_average *avg = ui ? ui->average : NULL;
  put_fit(rc, x, y, w, text_fg,
          avg ? "Time per thread, average of last 1 s" : "Time per thread, last frame");
  y += lh + 6;

  fig_rows rows;
  collision_rows(f, ui, &rows);
  panel_plan pl;
  /* The bar starts half a line under the heads: its "0 ms" label sits beside its top. */
  plan_panel(t, f, &rows, x, y + 2 * lh + lh / 2 + 2, w, p->y + p->h - MARGIN, &pl);
  /* The column heads, each centred on its column, moved apart should they meet. */
  const char *head[MS_THREAD_COUNT][2] = {{"GPU", "manager"}, {"CPU", "worker"}};
  for (int k = 0; k < 2; k++) {
    int w0 = ms_text_width(t, head[0][k]), w1 = ms_text_width(t, head[1][k]);
    int x0 = pl.g.col[0].x + (pl.g.col[0].w - w0) / 2, x1 = pl.g.col[1].x + (pl.g.col[1].w - w1) / 2;
    if (x0 + w0 + 4 > x1) {
      int d = x0 + w0 + 4 - x1;
      x0 -= d / 2 + 1;
      x1 += d - d / 2;
    }
    put_text(rc, x0, y + k * lh, text_fg, head[0][k]);
    put_text(rc, x1, y + k * lh, text_fg, head[1][k]);
  }
  draw_bar(rc, f, &pl.g, avg);
  draw_legend(rc, f, pl.legend_x, pl.legend_y, pl.titled);
  draw_rows(rc, &rows, x, pl.figures_y, w, pl.cut);
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
  put_fit(rc, x, y, w, text_fg, "Gravity: all-pairs N-body");
  y += lh + 8;
  fig_rows rows = {.n = 0};
  add_row(&rows, "bodies", KEEP_ALWAYS, "%d", f->n_bodies);
  add_row(&rows, "step", KEEP_ALWAYS, "%ld", f->step);
  add_row(&rows, "time", KEEP_ALWAYS, "%.6g", f->sim_time);
  add_row(&rows, "steps/frame", KEEP_IPF, "%d", f->iterations_per_frame);
  add_row(&rows, "steps/s", KEEP_ALWAYS, "%.1f  (device alone %.1f)", f->shown_rate,
          f->sim_rate);
  add_row(&rows, "devices", KEEP_ALWAYS, "%d", f->n_devices);
  add_row(&rows, "device", KEEP_ALWAYS, "%s", f->device);
  add_row(&rows, "force kernel", KEEP_ALWAYS, "%s", f->kernel);
  if (window)
    add_row(&rows, "keys", KEEP_KEYS, "H help, drag turns, wheel zooms");
  int cut = 0;
  while (cut < KEEP_IPF && y + rows_height(t, &rows, w, cut) > p->y + p->h - MARGIN)
    cut++;
  draw_rows(rc, &rows, x, y, w, cut);
}
