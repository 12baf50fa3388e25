/* Offscreen frames: the preview's picture drawn by SDL's software renderer on a surface
 * and written as PNG files. Needs no display. The run loop that decides when to draw is
 * the program's (app/run.c), shared with headless runs. */
#include <SDL.h>
#include <SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preview/frame.h"
#include "io/png_out.h"
#include "preview/preview.h"
#include "preview/render.h"

struct ms_offscreen {
  SDL_Surface *surface;
  SDL_Renderer *r;
  ms_render *rc;
  ms_frame *frame;
};

void ms_offscreen_close(ms_offscreen *c)
{
  if (!c)
    return;
  ms_render_destroy(c->rc);
  if (c->r)
    SDL_DestroyRenderer(c->r);
  SDL_FreeSurface(c->surface);
  if (c->frame)
    ms_frame_free(c->frame);
  free(c->frame);
  free(c);
  TTF_Quit();
}

ms_status ms_offscreen_open(ms_offscreen **out)
{
  *out = NULL;
  if (TTF_Init() != 0)
    return ms_fail(MS_ERR_RUNTIME, "SDL2_ttf: %s", TTF_GetError());
  ms_offscreen *c = calloc(1, sizeof *c);
  if (!c) {
    TTF_Quit();
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  }
  c->frame = calloc(1, sizeof *c->frame);
  c->surface = SDL_CreateRGBSurfaceWithFormat(0, MS_RENDER_WIDTH, MS_RENDER_HEIGHT, 32,
                                              SDL_PIXELFORMAT_RGBA32);
  ms_status st = MS_OK;
  if (!c->frame || !c->surface)
    st = ms_fail(MS_ERR_RUNTIME, "cannot make a %dx%d picture: %s", MS_RENDER_WIDTH,
                 MS_RENDER_HEIGHT, SDL_GetError());
  if (!st && !(c->r = SDL_CreateSoftwareRenderer(c->surface)))
    st = ms_fail(MS_ERR_RUNTIME, "SDL software renderer: %s", SDL_GetError());
  if (!st)
    st = ms_render_create(c->r, &c->rc);
  if (st)
    ms_offscreen_close(c);
  else
    *out = c;
  return st;
}

ms_status ms_offscreen_draw(ms_offscreen *c, ms_sim *sim, int ipf, const char *path)
{
  ms_status st = ms_frame_capture(c->frame, sim);
  if (st)
    return st;
  c->frame->iterations_per_frame = ipf;
  ms_render_frame(c->rc, c->frame, NULL);
  SDL_RenderFlush(c->r);
  return ms_png_write(path, c->surface->w, c->surface->h, c->surface->pixels,
                      c->surface->pitch);
}
