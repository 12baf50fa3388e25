/* Text for the preview: one TrueType font (DejaVu Sans, through SDL2_ttf) rendered once
 * into a texture of its printable ASCII glyphs, then drawn glyph by glyph. */
#ifndef MS_TEXT_H
#define MS_TEXT_H

#include <SDL.h>
#include <stddef.h>

#include "mixsim/status.h"

typedef struct ms_text ms_text;

/* Finds DejaVuSans.ttf: $MIXSIM_FONT if set, else the usual font folders. On failure
 * records a message naming the folders and the package to install. */
ms_status ms_text_find_font(char *path, size_t size);

/* Loads the font at `px` pixels for drawing on `r`. Needs TTF_Init. */
ms_status ms_text_create(SDL_Renderer *r, const char *font_path, int px, ms_text **out);
void ms_text_destroy(ms_text *t);

/* Draws `s` with its top-left corner at (x, y); returns its width in pixels. */
int ms_text_draw(ms_text *t, int x, int y, SDL_Color color, const char *s);
int ms_text_drawf(ms_text *t, int x, int y, SDL_Color color, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));
int ms_text_width(const ms_text *t, const char *s);
int ms_text_line_height(const ms_text *t);

#endif
