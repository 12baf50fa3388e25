/* What the parts of the preview's renderer share (render.c and render_*.c): the
 * renderer's state, the palette, and the drawing helpers. */
#ifndef MS_RENDER_INTERNAL_H
#define MS_RENDER_INTERNAL_H

#include "preview/frame.h"
#include "preview/render_types.h"
#include "preview/text.h"

#define PANEL_WIDTH 370
#define PANEL_MIN_WIDTH 300 /* in narrow windows: the legend still fits beside the bar */
#define MARGIN 12
#define FONT_PX 13
#define BOX_PX 3 /* the width of the box's sides, and of the walls' lines */
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
  float *wall_px; /* a wall's points in pixels, while it is drawn */
  int cap_wall_px;
  ms_render_box box[MS_RENDER_MAX_BOXES]; /* the panel's layout in the last frame */
  int n_box;
};

static const SDL_Color text_fg = {228, 230, 236, 255};
static const SDL_Color text_dim = {160, 165, 176, 255};
static const SDL_Color text_warn = {255, 210, 90, 255};
static const SDL_Color panel_bg = {28, 30, 38, 255};
static const SDL_Color box_color = {200, 202, 210, 255}; /* the box's sides */
static const SDL_Color idle_color = {44, 46, 56, 255};
static const SDL_Color sync_color = {255, 255, 255, 210};

static inline void set_color(SDL_Renderer *r, SDL_Color c)
{
  SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
}

static inline void fill(SDL_Renderer *r, SDL_Color c, int x, int y, int w, int h)
{
  SDL_Rect rect = {x, y, w, h};
  set_color(r, c);
  SDL_RenderFillRect(r, &rect);
}

static inline SDL_Color darker(SDL_Color c)
{
  return (SDL_Color){(Uint8)(c.r * 3 / 5), (Uint8)(c.g * 3 / 5), (Uint8)(c.b * 3 / 5), c.a};
}

/* The scene views (render_collision.c, render_gravity.c) and the panels beside them
 * (render_panel.c); `ui` (non-NULL) and `window` say when drawing for the window rather
 * than a file. */
void ms_draw_collision_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                            const ms_render_ui *ui);
void ms_draw_gravity_view(ms_render *rc, const ms_frame *f, const ms_layout *l,
                          const ms_render_ui *ui);
void ms_draw_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, const ms_render_ui *ui);
void ms_draw_gravity_panel(ms_render *rc, const ms_frame *f, const ms_layout *l, int window);

#endif
