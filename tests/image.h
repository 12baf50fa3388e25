/* PNG pictures for the render tests: read whole as RGBA, a pixel at a point (clamped to
 * the picture), and whether it shows a colour. */
#ifndef MS_TEST_IMAGE_H
#define MS_TEST_IMAGE_H

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

typedef struct image {
  int w, h;
  unsigned char *rgba;
} image;

static int read_png(const char *path, image *img)
{
  png_image p;
  memset(&p, 0, sizeof p);
  p.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&p, path)) {
    fprintf(stderr, "%s: %s\n", path, p.message);
    return -1;
  }
  p.format = PNG_FORMAT_RGBA;
  img->w = (int)p.width;
  img->h = (int)p.height;
  img->rgba = malloc(PNG_IMAGE_SIZE(p));
  if (!img->rgba || !png_image_finish_read(&p, NULL, img->rgba, 0, NULL)) {
    fprintf(stderr, "%s: %s\n", path, p.message);
    free(img->rgba);
    png_image_free(&p);
    return -1;
  }
  return 0;
}

static const unsigned char *pixel(const image *img, float x, float y)
{
  int ix = (int)x, iy = (int)y;
  ix = ix < 0 ? 0 : ix >= img->w ? img->w - 1 : ix;
  iy = iy < 0 ? 0 : iy >= img->h ? img->h - 1 : iy;
  return img->rgba + 4 * ((size_t)iy * (size_t)img->w + (size_t)ix);
}

static int near_color(const unsigned char *p, SDL_Color c)
{
  return abs(p[0] - c.r) <= 8 && abs(p[1] - c.g) <= 8 && abs(p[2] - c.b) <= 8;
}

#endif
