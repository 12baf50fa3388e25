/* The preview window for gravity scenes: the bodies in 3D, turned with the mouse.
 *
 * It uses the simplest loop, in one thread: advance a frame's steps, read the state,
 * draw. A gravity advance is one stretch of device work (kernels back to back, read back
 * at burst ends) with no host threads to keep busy, so there is nothing for drawing to
 * overlap with except the device itself. */
#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/gravity_report.h"
#include "io/output_file.h"
#include "preview/frame.h"
#include "preview/preview.h"
#include "preview/render.h"
#include "preview/window.h"

typedef struct gravity_window {
  ms_window w;
  ms_render_ui ui;
  int paused, steps, spf, quit, shot, log, turning;
} gravity_window;

static void note(const gravity_window *gw, long step, const char *what)
{
  if (gw->log)
    fprintf(stderr, "mixsim: preview: step %ld: %s\n", step, what);
}

static void default_view(ms_render_ui *ui)
{
  ui->yaw = 0.6f;
  ui->pitch = 0.4f;
  ui->zoom = 1.0f;
}

static void on_key(gravity_window *gw, const SDL_KeyboardEvent *k, long step)
{
  SDL_Keycode key = k->keysym.sym;
  int spf = gw->spf;
  switch (key) {
  case SDLK_SPACE:
    gw->paused = !gw->paused;
    note(gw, step, gw->paused ? "paused" : "running");
    break;
  case SDLK_n:
    if (gw->paused)
      gw->steps++;
    else
      note(gw, step, "paused");
    gw->paused = 1;
    break;
  case SDLK_r: default_view(&gw->ui); break;
  case SDLK_PLUS:
  case SDLK_EQUALS:
  case SDLK_KP_PLUS: spf += spf / 4 > 1 ? spf / 4 : 1; break;
  case SDLK_MINUS:
  case SDLK_KP_MINUS: spf -= spf / 5 > 1 ? spf / 5 : 1; break;
  case SDLK_F12: gw->shot = 1; break;
  case SDLK_h: gw->ui.help = !gw->ui.help; break;
  case SDLK_ESCAPE:
  case SDLK_q: gw->quit = 1; break;
  default: break;
  }
  spf = spf < 1 ? 1 : spf > 1000 ? 1000 : spf;
  if (spf != gw->spf) {
    char what[48];
    snprintf(what, sizeof what, "%d steps per frame", spf);
    note(gw, step, what);
    gw->spf = spf;
  }
}

static void on_event(gravity_window *gw, const SDL_Event *e, long step)
{
  switch (e->type) {
  case SDL_QUIT: gw->quit = 1; break;
  case SDL_KEYDOWN:
    if (!e->key.repeat || e->key.keysym.sym != SDLK_SPACE)
      on_key(gw, &e->key, step);
    break;
  case SDL_MOUSEBUTTONDOWN: gw->turning |= e->button.button == SDL_BUTTON_LEFT; break;
  case SDL_MOUSEBUTTONUP:
    if (e->button.button == SDL_BUTTON_LEFT)
      gw->turning = 0;
    break;
  case SDL_MOUSEMOTION:
    if (gw->turning) {
      gw->ui.yaw += 0.01f * (float)e->motion.xrel;
      gw->ui.pitch += 0.01f * (float)e->motion.yrel;
      gw->ui.pitch = gw->ui.pitch > 1.55f ? 1.55f : gw->ui.pitch < -1.55f ? -1.55f : gw->ui.pitch;
    }
    break;
  case SDL_MOUSEWHEEL:
    gw->ui.zoom *= powf(1.15f, (float)e->wheel.y);
    gw->ui.zoom = gw->ui.zoom < 0.05f ? 0.05f : gw->ui.zoom > 50.0f ? 50.0f : gw->ui.zoom;
    break;
  default: break;
  }
}

static int print_report(FILE *f, void *sum)
{
  ms_report_gravity(f, sum);
  return 0;
}

/* The report of a headless run, for the state the window ends with: energy and momentum
 * are measured at the start and at the end (the window takes no diagnostics between).
 * Written as outputs are, so that a pipe nobody reads waits only until a signal. */
static ms_status report(ms_gravity *g, const ms_scene *scene, const ms_gravity_diag *first)
{
  ms_gravity_diag last;
  uint32_t hash = 0;
  ms_status st = ms_gravity_diagnose(g, &last);
  if (!st)
    st = ms_gravity_hash(g, &hash);
  if (st)
    return st;
  double err = last.has_energy ? fabs(last.energy_error) : 0.0;
  ms_gravity_summary sum = {scene, ms_gravity_get_stats(g), first, &last, err,
                            ms_gravity_burst(g), hash};
  return ms_write_stream(stdout, print_report, &sum);
}

ms_status ms_preview_gravity_window(ms_gravity *g, const ms_scene *scene,
                                    const ms_preview_options *po)
{
  ms_gravity_diag first;
  ms_script script;
  gravity_window gw = {0};
  ms_frame *f = calloc(1, sizeof *f);
  char title[600];
  snprintf(title, sizeof title, "mixsim: %s", scene->path);
  ms_status st = ms_script_parse(po->script, &script);
  if (!st && !f)
    st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st)
    st = ms_window_open(&gw.w, title);
  if (!st && po->script)
    ms_window_log_geometry(&gw.w);
  if (!st)
    st = ms_gravity_diagnose(g, &first);
  if (!st)
    st = ms_frame_capture_gravity(f, g);
  default_view(&gw.ui);
  gw.ui.grabbed = -1;
  gw.spf = po->iterations_per_frame > 0 ? po->iterations_per_frame : 1;
  gw.log = po->script != NULL;
  if (!st)
    gw.ui.view_radius = ms_render_gravity_extent(f);
  double rate_t0 = ms_now(), rate = 0.0;
  long rate_step0 = f ? f->step : 0;
  /* A signal ends the window like Q (the advance under way stops early on the same
   * flag, set by the program with ms_gravity_set_stop_flag). */
  for (long frame = 0; !st && !gw.quit && !(po->stop && *po->stop); frame++) {
    double t0 = ms_now();
    ms_script_inject(&script, frame);
    SDL_Event e;
    while (SDL_PollEvent(&e))
      on_event(&gw, &e, f->step);
    if (gw.quit)
      break;
    long n = gw.paused ? gw.steps : gw.spf;
    gw.steps = 0;
    if (n > 0) {
      st = ms_gravity_advance(g, n);
      if (!st)
        st = ms_frame_capture_gravity(f, g);
      if (!st && gw.paused)
        note(&gw, f->step, "stepped");
    }
    if (t0 - rate_t0 >= 0.5) {
      rate = (double)(f->step - rate_step0) / (t0 - rate_t0);
      rate_t0 = t0;
      rate_step0 = f->step;
    }
    f->iterations_per_frame = gw.spf;
    f->paused = gw.paused;
    f->shown_rate = rate;
    gw.ui.note = ms_now() < gw.w.note_until ? gw.w.note : NULL;
    if (!st) {
      ms_render_frame(gw.w.rc, f, &gw.ui);
      if (gw.shot) {
        gw.shot = 0;
        ms_window_screenshot(&gw.w, f->step);
      }
      SDL_RenderPresent(gw.w.r);
      ms_window_pace(t0);
    }
  }
  ms_window_close(&gw.w);
  if (!st)
    st = report(g, scene, &first);
  if (f)
    ms_frame_free(f);
  free(f);
  ms_script_free(&script);
  return st;
}
