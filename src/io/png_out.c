/* PNG output through libpng's simplified API, written by ms_write_atomic (a temporary
 * file renamed over a regular file; a device or FIFO written through). */
#include "io/png_out.h"

#include <png.h>
#include <stdio.h>

#include "io/output_file.h"

typedef struct png_job {
  png_image image;
  const uint8_t *rgba;
  int stride;
} png_job;

static int write_png(FILE *f, void *arg)
{
  png_job *job = arg;
  int ok = png_image_write_to_stdio(&job->image, f, 0, job->rgba, job->stride, NULL);
  if (!ok)
    ms_warn("libpng: %s", job->image.message);
  png_image_free(&job->image);
  return ok ? 0 : -1;
}

ms_status ms_png_write(const char *path, int w, int h, const uint8_t *rgba, int stride)
{
  png_job job = {.rgba = rgba, .stride = stride};
  job.image.version = PNG_IMAGE_VERSION;
  job.image.width = (png_uint_32)w;
  job.image.height = (png_uint_32)h;
  job.image.format = PNG_FORMAT_RGBA;
  return ms_write_atomic(path, write_png, &job);
}
