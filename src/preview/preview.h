/* The SDL2 preview: a window where the user watches and steers a run, and offscreen
 * frames written as PNG files. Built only with SDL2, SDL2_ttf and libpng; without them
 * the same functions exist and say so (preview_none.c). */
#ifndef MS_PREVIEW_H
#define MS_PREVIEW_H

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

/* Runs `steps` iterations, iterations_per_frame at a time, drawing with SDL's software
 * renderer: every `every`-th frame to frames_dir (numbered from 0, starting with the
 * initial state), and the final frame to `screenshot`. `*wall_s` is the loop's time. */
ms_status ms_preview_offscreen(ms_sim *sim, long steps, const ms_preview_options *po,
                               double *wall_s);

#endif
