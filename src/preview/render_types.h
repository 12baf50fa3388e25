/* The renderer's types, which its callers (preview/render.h) and its own parts
 * (preview/render_internal.h) both use: where things go in a picture, what the window adds
 * to a frame, the renderer's handle and the panel's boxes of the last frame. */
#ifndef MS_RENDER_TYPES_H
#define MS_RENDER_TYPES_H

#include <SDL.h>

#include "preview/bar_history.h"

/* Where things go in a w x h picture, and how the scene's metres map to pixels. */
typedef struct ms_layout {
  SDL_Rect scene; /* the scene view's area */
  SDL_Rect panel; /* the timing bar, legend and figures, at the right */
  float scale;    /* pixels per metre */
  float ox, oy;   /* pixel of the world origin: px = ox + x*scale, py = oy - y*scale */
} ms_layout;

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

/* A renderer (its state: preview/render_internal.h). */
typedef struct ms_render ms_render;

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

#endif
