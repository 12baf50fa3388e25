/* Offscreen frames: the preview's picture drawn by SDL's software renderer on a surface
 * and written as PNG files. Needs no display. */
#include <SDL.h>
#include <SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preview/frame.h"
#include "io/output_file.h"
#include "io/png_out.h"
#include "preview/preview.h"
#include "preview/render.h"

typedef struct canvas {
  SDL_Surface *surface;
  SDL_Renderer *r;
  ms_render *rc;
  ms_frame *frame;
} canvas;

static void canvas_close(canvas *c)
{
  ms_render_destroy(c->rc);
  if (c->r)
    SDL_DestroyRenderer(c->r);
  SDL_FreeSurface(c->surface);
  if (c->frame)
    ms_frame_free(c->frame);
  free(c->frame);
  TTF_Quit();
}

static ms_status canvas_open(canvas *c)
{
  if (TTF_Init() != 0)
    return ms_fail(MS_ERR_RUNTIME, "SDL2_ttf: %s", TTF_GetError());
  c->frame = calloc(1, sizeof *c->frame);
  c->surface = SDL_CreateRGBSurfaceWithFormat(0, MS_RENDER_WIDTH, MS_RENDER_HEIGHT, 32,
                                              SDL_PIXELFORMAT_RGBA32);
  if (!c->frame || !c->surface)
    return ms_fail(MS_ERR_RUNTIME, "cannot make a %dx%d picture: %s", MS_RENDER_WIDTH,
                   MS_RENDER_HEIGHT, SDL_GetError());
  c->r = SDL_CreateSoftwareRenderer(c->surface);
  if (!c->r)
    return ms_fail(MS_ERR_RUNTIME, "SDL software renderer: %s", SDL_GetError());
  return ms_render_create(c->r, &c->rc);
}

/* Captures the simulation's state and writes it, drawn, to `path`. */
static ms_status draw_to_png(canvas *c, ms_sim *sim, int ipf, const char *path)
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

ms_status ms_preview_offscreen(ms_sim *sim, long steps, const ms_preview_options *po,
                               double *wall_s)
{
  double t0 = ms_now();
  canvas c = {0};
  ms_status st = canvas_open(&c);
  long ipf = po->iterations_per_frame > 0 ? po->iterations_per_frame : 1;
  long done = 0, written = 0;
  if (!st && po->frames_dir)
    st = ms_output_make_dir(po->frames_dir); /* checked before the run: one level */
  if (!st && po->frames_dir) {
    size_t n = strlen(po->frames_dir) + 32;
    char *path = malloc(n);
    if (!path)
      st = ms_fail(MS_ERR_RUNTIME, "out of memory");
    /* Frame i shows the state after i frames of `ipf` iterations, as the window would. */
    for (long frame = 0; !st; frame++) {
      if (frame % po->every == 0) {
        snprintf(path, n, "%s/frame_%06ld.png", po->frames_dir, written);
        st = draw_to_png(&c, sim, (int)ipf, path);
        written++;
      }
      if (st || done >= steps)
        break;
      long it = ipf < steps - done ? ipf : steps - done;
      st = ms_sim_advance(sim, it);
      done += it;
    }
    free(path);
    if (!st && !po->quiet)
      fprintf(stderr, "mixsim: wrote %ld frames to %s/frame_%06d.png ...\n", written,
              po->frames_dir, 0);
  } else if (!st) {
    /* Only the last frame is drawn: run up to it in one advance, then the frame itself,
     * so its timing bar shows one frame's iterations. */
    long last = ipf < steps ? ipf : steps;
    st = ms_sim_advance(sim, steps - last);
    if (!st)
      st = ms_sim_advance(sim, last);
  }
  if (!st && po->screenshot) {
    st = draw_to_png(&c, sim, (int)ipf, po->screenshot);
    if (!st && !po->quiet)
      fprintf(stderr, "mixsim: wrote %s\n", po->screenshot);
  }
  canvas_close(&c);
  *wall_s = ms_now() - t0;
  return st;
}
