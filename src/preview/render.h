/* Drawing one frame of the preview onto any SDL_Renderer: the window's, or a software
 * renderer on a surface for PNG output. The picture follows the case study's Fig 10.1:
 * the scene at the left (small particles blue, dynamic large green, static large red,
 * the walls; with friction a radius line on each large particle at its angle, and on W
 * the small particles coloured by their spin), and at the right the timing bar, one column per thread, full height
 * 1/60 s, with a legend and the figures of the run. Gravity scenes get a 3D view of
 * their bodies and the figures, without the bar. */
#ifndef MS_RENDER_H
#define MS_RENDER_H

#include <SDL.h>

#include "preview/bar_history.h"
#include "preview/frame.h"

/* Window and offscreen frame size, pixels; the window shrinks to the screen, keeping
 * the aspect, down to the minimum size, where the panel still has room for everything
 * it must show. */
#define MS_RENDER_WIDTH 1120
#define MS_RENDER_HEIGHT 800
#define MS_RENDER_MIN_WIDTH 700
#define MS_RENDER_MIN_HEIGHT 500

/* Colours of the particles, which the render test looks for. */
#define MS_COLOR_SMALL ((SDL_Color){70, 130, 240, 255})
#define MS_COLOR_DYNAMIC ((SDL_Color){60, 200, 80, 255})
#define MS_COLOR_STATIC ((SDL_Color){220, 60, 50, 255})
#define MS_COLOR_BACKGROUND ((SDL_Color){16, 18, 24, 255})
/* With friction: the radius line drawn on each large particle at its angle, and the
 * ends of the small particles' spin colours (W), through MS_COLOR_SPIN_ZERO at rest: the
 * diverging purple-orange map of ColorBrewer (PuOr), clear of the particles' colours. */
#define MS_COLOR_RADIUS ((SDL_Color){240, 240, 240, 255})
#define MS_COLOR_SPIN_CCW ((SDL_Color){230, 97, 1, 255}) /* anticlockwise, the largest |w| */
#define MS_COLOR_SPIN_ZERO ((SDL_Color){247, 247, 247, 255})
#define MS_COLOR_SPIN_CW ((SDL_Color){94, 60, 153, 255}) /* clockwise */

/* Where things go in a w x h picture, and how the scene's metres map to pixels. */
typedef struct ms_layout {
  SDL_Rect scene; /* the scene view's area */
  SDL_Rect panel; /* the timing bar, legend and figures, at the right */
  float scale;    /* pixels per metre */
  float ox, oy;   /* pixel of the world origin: px = ox + x*scale, py = oy - y*scale */
} ms_layout;

void ms_layout_compute(ms_layout *l, int w, int h, const float box[4]);
void ms_layout_to_pixel(const ms_layout *l, float x, float y, float *px, float *py);
void ms_layout_to_world(const ms_layout *l, float px, float py, float *x, float *y);

/* What the window adds to a frame; all zero for offscreen frames. */
typedef struct ms_render_ui {
  int help;          /* show the keys */
  int spin;          /* colour small particles by their spin (frames with rotation) */
  int grabbed;       /* large particle held by the mouse, -1: none */
  const char *note;  /* a short message at the bottom of the scene, or NULL */
  /* A: the timing bar shows this average of the last second, stacked; NULL: the last
   * frame's phases where they happened. */
  const ms_bar_average *average;
  /* The gravity view's camera: turned by yaw about the vertical axis, then tilted by
   * pitch; zoom 1 fits a sphere of view_radius (scene units) into the scene area. */
  float yaw, pitch, zoom, view_radius;
} ms_render_ui;

/* A radius holding a gravity frame's bodies, for ms_render_ui.view_radius. */
float ms_render_gravity_extent(const ms_frame *f);

typedef struct ms_render ms_render;

/* Loads the font (see ms_text_find_font) for `r`. Needs TTF_Init. */
ms_status ms_render_create(SDL_Renderer *r, ms_render **out);
void ms_render_destroy(ms_render *rc);

/* Clears the renderer's output and draws `f` on all of it. */
void ms_render_frame(ms_render *rc, const ms_frame *f, const ms_render_ui *ui);

/* What the panel put where in the last frame drawn, for the layout test: each text (a
 * legend entry with its swatch) and the timing bar. Boxes are lines of text, so two
 * that intersect overlap on screen. */
typedef struct ms_render_box {
  SDL_Rect r;
  int bar;     /* 1: the timing bar itself */
  int in_bar;  /* text drawn over the bar on purpose ("no iterations yet") */
  char what[64];
} ms_render_box;
#define MS_RENDER_MAX_BOXES 96
int ms_render_boxes(const ms_render *rc, const ms_render_box **boxes);

#endif
