/* A glyph atlas: each printable ASCII character rendered once by SDL2_ttf. Kerning is
 * lost, which a status panel does not miss; every frame draws from one texture. */
#include "preview/text.h"

#include <SDL_ttf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FIRST_GLYPH 32
#define LAST_GLYPH 126
#define N_GLYPHS (LAST_GLYPH - FIRST_GLYPH + 1)

struct ms_text {
  SDL_Renderer *r;
  SDL_Texture *atlas;
  SDL_Rect glyph[N_GLYPHS]; /* where each glyph lies in the atlas */
  int advance[N_GLYPHS];
  int xoff[N_GLYPHS];       /* a glyph reaching left of the pen starts its bitmap there */
  int line_height;
};

static const char *const font_dirs[] = {
  "/usr/share/fonts/truetype/dejavu", /* Debian, Ubuntu: fonts-dejavu-core */
  "/usr/share/fonts/TTF",             /* Arch */
  "/usr/share/fonts/dejavu-sans-fonts", /* Fedora */
  "/usr/share/fonts/dejavu",
  "/usr/local/share/fonts",
  "/usr/local/share/fonts/dejavu",
};

ms_status ms_text_find_font(char *path, size_t size)
{
  const char *env = getenv("MIXSIM_FONT");
  if (env && *env) {
    if (access(env, R_OK) == 0) {
      snprintf(path, size, "%s", env);
      return MS_OK;
    }
    return ms_fail(MS_ERR_RUNTIME, "MIXSIM_FONT: cannot read '%s'", env);
  }
  for (size_t i = 0; i < sizeof font_dirs / sizeof font_dirs[0]; i++) {
    snprintf(path, size, "%s/DejaVuSans.ttf", font_dirs[i]);
    if (access(path, R_OK) == 0)
      return MS_OK;
  }
  return ms_fail(MS_ERR_RUNTIME,
                 "the preview needs the font DejaVuSans.ttf, not found in "
                 "/usr/share/fonts/truetype/dejavu and the other usual folders; install "
                 "fonts-dejavu-core (Debian, Ubuntu) or set MIXSIM_FONT to a .ttf file");
}

/* Renders every glyph, then packs them in one row of an RGBA surface. */
static ms_status build_atlas(ms_text *t, TTF_Font *font)
{
  SDL_Surface *glyph[N_GLYPHS] = {0};
  SDL_Color white = {255, 255, 255, 255};
  int width = 0, height = 1;
  ms_status st = MS_OK;
  for (int i = 0; i < N_GLYPHS && !st; i++) {
    char s[2] = {(char)(FIRST_GLYPH + i), 0};
    int minx, maxx, miny, maxy, advance;
    if (TTF_GlyphMetrics(font, (Uint16)s[0], &minx, &maxx, &miny, &maxy, &advance) != 0)
      advance = 0;
    t->advance[i] = advance;
    t->xoff[i] = minx < 0 ? minx : 0;
    if (s[0] == ' ')
      continue;
    glyph[i] = TTF_RenderUTF8_Blended(font, s, white);
    if (!glyph[i]) {
      st = ms_fail(MS_ERR_RUNTIME, "SDL2_ttf cannot render '%s': %s", s, TTF_GetError());
      break;
    }
    t->glyph[i] = (SDL_Rect){width, 0, glyph[i]->w, glyph[i]->h};
    width += glyph[i]->w + 1;
    if (glyph[i]->h > height)
      height = glyph[i]->h;
  }
  SDL_Surface *atlas = NULL;
  if (!st) {
    atlas = SDL_CreateRGBSurfaceWithFormat(0, width > 0 ? width : 1, height, 32,
                                           SDL_PIXELFORMAT_RGBA32);
    if (!atlas)
      st = ms_fail(MS_ERR_RUNTIME, "cannot make the glyph atlas: %s", SDL_GetError());
  }
  for (int i = 0; i < N_GLYPHS && !st; i++) {
    if (!glyph[i])
      continue;
    SDL_SetSurfaceBlendMode(glyph[i], SDL_BLENDMODE_NONE); /* copy the coverage as alpha */
    SDL_Rect dst = t->glyph[i];
    SDL_BlitSurface(glyph[i], NULL, atlas, &dst);
  }
  if (!st) {
    t->atlas = SDL_CreateTextureFromSurface(t->r, atlas);
    if (!t->atlas)
      st = ms_fail(MS_ERR_RUNTIME, "cannot make the glyph texture: %s", SDL_GetError());
    else
      SDL_SetTextureBlendMode(t->atlas, SDL_BLENDMODE_BLEND);
  }
  SDL_FreeSurface(atlas);
  for (int i = 0; i < N_GLYPHS; i++)
    SDL_FreeSurface(glyph[i]);
  return st;
}

ms_status ms_text_create(SDL_Renderer *r, const char *font_path, int px, ms_text **out)
{
  *out = NULL;
  TTF_Font *font = TTF_OpenFont(font_path, px);
  if (!font)
    return ms_fail(MS_ERR_RUNTIME, "cannot load the font '%s': %s", font_path, TTF_GetError());
  ms_text *t = calloc(1, sizeof *t);
  if (!t) {
    TTF_CloseFont(font);
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  }
  t->r = r;
  t->line_height = TTF_FontLineSkip(font);
  ms_status st = build_atlas(t, font);
  TTF_CloseFont(font);
  if (st) {
    ms_text_destroy(t);
    return st;
  }
  *out = t;
  return MS_OK;
}

void ms_text_destroy(ms_text *t)
{
  if (!t)
    return;
  if (t->atlas)
    SDL_DestroyTexture(t->atlas);
  free(t);
}

static int glyph_index(char c)
{
  unsigned char u = (unsigned char)c;
  return u >= FIRST_GLYPH && u <= LAST_GLYPH ? u - FIRST_GLYPH : '?' - FIRST_GLYPH;
}

int ms_text_draw(ms_text *t, int x, int y, SDL_Color color, const char *s)
{
  SDL_SetTextureColorMod(t->atlas, color.r, color.g, color.b);
  SDL_SetTextureAlphaMod(t->atlas, color.a);
  int x0 = x;
  for (; *s; s++) {
    int i = glyph_index(*s);
    if (t->glyph[i].w > 0) {
      SDL_Rect dst = {x + t->xoff[i], y, t->glyph[i].w, t->glyph[i].h};
      SDL_RenderCopy(t->r, t->atlas, &t->glyph[i], &dst);
    }
    x += t->advance[i];
  }
  return x - x0;
}

int ms_text_drawf(ms_text *t, int x, int y, SDL_Color color, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return ms_text_draw(t, x, y, color, buf);
}

int ms_text_width(const ms_text *t, const char *s)
{
  int w = 0;
  for (; *s; s++)
    w += t->advance[glyph_index(*s)];
  return w;
}

int ms_text_line_height(const ms_text *t) { return t->line_height; }
