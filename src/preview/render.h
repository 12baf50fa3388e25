/* Drawing one frame of the preview onto any SDL_Renderer: the window's, or a software
 * renderer on a surface for PNG output. The picture follows the case study's Fig 10.1:
 * the scene at the left (small particles blue, dynamic large green, static large red,
 * the box's sides grey, the scene's walls amber; with friction a radius line on each
 * large particle at its angle, and on W the small particles coloured by their spin), and
 * at the right the timing bar, one column per thread, full height 1/60 s, with a legend
 * and the figures of the run. Gravity scenes get a 3D view of their bodies and the
 * figures, without the bar. */
#ifndef MS_RENDER_H
#define MS_RENDER_H

#include <SDL.h>

#include "preview/frame.h"
#include "preview/render_types.h"

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
/* The scene's walls ([wall.NAME]), lines as thick as the box's sides, in a colour of their
 * own (the box's sides are grey). */
#define MS_COLOR_WALL ((SDL_Color){232, 184, 56, 255})
/* With friction: the radius line drawn on each large particle at its angle, and the
 * ends of the small particles' spin colours (W), through MS_COLOR_SPIN_ZERO at rest: the
 * diverging purple-orange map of ColorBrewer (PuOr), clear of the particles' colours. */
#define MS_COLOR_RADIUS ((SDL_Color){240, 240, 240, 255})
#define MS_COLOR_SPIN_CCW ((SDL_Color){230, 97, 1, 255}) /* anticlockwise, the largest |w| */
#define MS_COLOR_SPIN_ZERO ((SDL_Color){247, 247, 247, 255})
#define MS_COLOR_SPIN_CW ((SDL_Color){94, 60, 153, 255}) /* clockwise */

/* The layout of a w x h picture (render_types.h), and the scene's metres to pixels and
 * back. */
void ms_layout_compute(ms_layout *l, int w, int h, const float box[4]);
void ms_layout_to_pixel(const ms_layout *l, float x, float y, float *px, float *py);
void ms_layout_to_world(const ms_layout *l, float px, float py, float *x, float *y);

/* A radius holding a gravity frame's bodies, for ms_render_ui.view_radius. */
float ms_render_gravity_extent(const ms_frame *f);

/* Loads the font (see ms_text_find_font) for `r`. Needs TTF_Init. */
ms_status ms_render_create(SDL_Renderer *r, ms_render **out);
void ms_render_destroy(ms_render *rc);

/* Clears the renderer's output and draws `f` on all of it. */
void ms_render_frame(ms_render *rc, const ms_frame *f, const ms_render_ui *ui);

/* The panel's boxes in the last frame drawn (ms_render_box), for the layout test. */
int ms_render_boxes(const ms_render *rc, const ms_render_box **boxes);

#endif
