/* The SDL2 preview: a window where the user watches and steers a run, and offscreen
 * frames written as PNG files. Built only with SDL2, SDL2_ttf and libpng; without them
 * the same functions exist and say so (preview_none.c). */
#ifndef MS_PREVIEW_H
#define MS_PREVIEW_H

#include <signal.h>
#include <stddef.h>

#include "mixsim/gravity.h"
#include "mixsim/sim.h"

typedef struct ms_preview_options {
  int iterations_per_frame;
  const char *frames_dir;   /* offscreen: write DIR/frame_NNNNNN.png ... */
  long every;               /* ... every `every` frames */
  const char *screenshot;   /* offscreen: write the final frame here */
  const char *script;       /* window: "FRAME:KEY,..." key presses to inject (testing) */
  int quiet;
  /* Set (by a SIGINT/SIGTERM handler) to end a window as if the user quit: the
   * running advance stops after its current iteration. NULL: none. */
  const volatile sig_atomic_t *stop;
} ms_preview_options;

/* 1 when the program was built with the preview. */
int ms_preview_built(void);

/* Opens the video subsystem if a display is there: DISPLAY or WAYLAND_DISPLAY set and
 * SDL_Init(SDL_INIT_VIDEO) succeeding with a real driver. Returns 1, or 0 with the
 * reason in `why`. After 1, ms_preview_window must follow (it closes SDL). */
int ms_preview_open_display(char *why, size_t size);

/* Runs the window until the user quits. `*sim` may be replaced (R recreates it from
 * `scene`); on return it is the simulation the window ended with, joined and idle, and
 * its trace and counters cover the whole session (io/session.h), whose breakdown by
 * pipeline and buffers is printed on stdout. */
ms_status ms_preview_window(ms_sim **sim, const ms_scene *scene, const ms_sim_options *opt,
                            const ms_preview_options *po);

/* The same for a gravity scene: its bodies in 3D (drag turns, the wheel zooms). On
 * return `g` holds the state the window ended with, and the report a headless run
 * prints (io/gravity_report.h) is on stdout. */
ms_status ms_preview_gravity_window(ms_gravity *g, const ms_scene *scene,
                                    const ms_preview_options *po);

/* Offscreen drawing with SDL's software renderer, no display needed: the picture the
 * window would show of the simulation's current state (its timing bar: the last
 * advance), written to a PNG file. */
typedef struct ms_offscreen ms_offscreen;
ms_status ms_offscreen_open(ms_offscreen **out);
ms_status ms_offscreen_draw(ms_offscreen *o, ms_sim *sim, int iterations_per_frame,
                            const char *path);
void ms_offscreen_close(ms_offscreen *o);

#endif
