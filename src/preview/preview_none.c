/* The preview's entry points in a build without SDL2: the window is never available and
 * offscreen frames are refused. */
#include "preview/preview.h"

#include <stdio.h>

int ms_preview_built(void) { return 0; }

int ms_preview_open_display(char *why, size_t size)
{
  snprintf(why, size, "built without SDL2");
  return 0;
}

ms_status ms_preview_window(ms_sim **sim, const ms_scene *scene, const ms_sim_options *opt,
                            const ms_preview_options *po)
{
  (void)sim, (void)scene, (void)opt, (void)po;
  return ms_fail(MS_ERR_INPUT, "built without SDL2: no preview window");
}

ms_status ms_preview_gravity_window(ms_gravity *g, const ms_scene *scene,
                                    const ms_preview_options *po)
{
  (void)g, (void)scene, (void)po;
  return ms_fail(MS_ERR_INPUT, "built without SDL2: no preview window");
}

ms_status ms_offscreen_open(ms_offscreen **out)
{
  *out = NULL;
  return ms_fail(MS_ERR_INPUT, "--frames/--screenshot: mixsim was built without SDL2 "
                               "(install libsdl2-dev, libsdl2-ttf-dev and libpng-dev, then "
                               "meson setup with -Dsdl=enabled)");
}

ms_status ms_offscreen_draw(ms_offscreen *o, ms_sim *sim, int iterations_per_frame,
                            const char *path)
{
  (void)o, (void)sim, (void)iterations_per_frame, (void)path;
  return ms_fail(MS_ERR_INPUT, "built without SDL2: no offscreen frames");
}

void ms_offscreen_close(ms_offscreen *o) { (void)o; }
