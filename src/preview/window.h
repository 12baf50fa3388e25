/* What both preview windows (collision, gravity) share: opening the window with a
 * renderer and the drawing context, screenshots, keeping to 60 Hz, and the scripted key
 * presses that tests drive a window with. */
#ifndef MS_WINDOW_H
#define MS_WINDOW_H

#include <SDL.h>
#include <stddef.h>

#include "preview/render.h"

typedef struct ms_window {
  SDL_Window *win;
  SDL_Renderer *r;
  ms_render *rc;
  char note[160]; /* shown at the bottom of the scene until note_until */
  double note_until;
  char geometry[200]; /* what ms_window_open asked for, for the log */
} ms_window;

/* Needs ms_preview_open_display to have succeeded; ms_window_close ends SDL. The window
 * fits the display's usable area (MS_RENDER_WIDTH x HEIGHT at most, the picture's
 * aspect, MS_RENDER_MIN_WIDTH x HEIGHT at least), centred in it. */
ms_status ms_window_open(ms_window *w, const char *title);

/* Says on stderr where the window was asked to go and where SDL reports it (the
 * scripted windows' log, which the window test reads). */
void ms_window_log_geometry(const ms_window *w);
void ms_window_close(ms_window *w);

/* Saves what the renderer has drawn (before present) to mixsim-STEP.png in the current
 * folder, and says so on stderr and in the window. */
void ms_window_screenshot(ms_window *w, long step);

/* Window coordinates to render output pixels (they differ on high-DPI screens). */
void ms_window_to_output(const ms_window *w, int x, int y, float *ox, float *oy);

/* Sleeps out the rest of a 1/60 s frame that began at `t0` (ms_now), for drivers
 * without vsync. */
void ms_window_pace(double t0);

/* "FRAME:KEY,FRAME:KEY,..." with SDL key names ("B", "Space", "Escape", "F12", "+"). */
typedef struct ms_script {
  long *frame;
  SDL_Keycode *key;
  int n;
} ms_script;

ms_status ms_script_parse(const char *text, ms_script *s);
/* Pushes the key presses due at `frame` into SDL's event queue. */
void ms_script_inject(const ms_script *s, long frame);
void ms_script_free(ms_script *s);

#endif
