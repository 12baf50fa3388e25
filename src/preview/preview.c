/* The preview window. Two loops run side by side:
 *
 *   main thread (window)                 driver thread (owns the simulation)
 *   --------------------                 -----------------------------------
 *   events -> commands, tick  ------->   wait for a tick; apply the commands
 *   draw the latest frame                advance one frame: ms_sim_advance runs the
 *   present, pace to 60 Hz               GPU manager and CPU worker threads and joins
 *                             <-------   capture a frame (read the positions), swap
 *
 * The hand-over is a pointer swap under a mutex, so drawing never holds up the
 * simulation: while the window draws frame N, the threads already compute frame N+1.
 * Every command (buffer and pipeline switches, reset, moving a large particle) is
 * applied by the driver between advances, where the API allows it and where the
 * switches leave the trajectory unchanged. The simulation is only ever touched by one
 * thread at a time: main before the driver starts and after it is joined.
 *
 * Also the checks every window starts with: the build has the preview, a display is there. */
#include <SDL.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "io/output_file.h"
#include "io/session.h"
#include "preview/frame.h"
#include "preview/preview.h"
#include "preview/render.h"
#include "preview/window.h"

/* The keys that change the simulation, as orders the driver applies in the order they
 * were pressed: a slow advance may span several frames, and pause, two steps and resume
 * pressed meanwhile must still run as pause, step, step, resume. */
typedef enum order { ORDER_BUFFERS, ORDER_PIPELINE, ORDER_RESET, ORDER_PAUSE, ORDER_STEP,
                     ORDER_RESUME } order;
#define ORDERS_MAX 64

typedef struct orders {
  order o[ORDERS_MAX];
  int n;
} orders;

/* What the window asks of the driver: the orders, and the state it reads each tick. */
typedef struct commands {
  orders queue; /* consumed by the driver */
  int ipf;
  int drag; /* large particle held by the mouse, -1: none */
  float drag_x, drag_y;
} commands;

/* Q quits after the orders pressed before it; a signal at once. */
enum quit_how { QUIT_NO, QUIT_AFTER_ORDERS, QUIT_NOW };

typedef struct handoff {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  long ticks; /* frames the window has asked for */
  int quit; /* a quit_how */
  commands cmd;
  ms_frame *ready; /* the latest captured frame ... */
  int fresh;       /* ... not yet taken by the window */
  int stopped;     /* the driver has ended, with `status` */
  ms_status status;
  ms_sim *live;    /* the driver's simulation; NULL while a reset replaces it */
} handoff;

typedef struct driver {
  handoff *k;
  ms_sim *sim;
  const ms_scene *scene;
  ms_sim_options opt;
  ms_frame *work;
  int paused, ipf, log;
  double rate, rate_t0; /* displayed iterations/s, measured over half a second */
  long rate_step0;
  ms_session session; /* by pipeline and buffers, across switches and resets */
  const volatile sig_atomic_t *stop; /* the run's signal flag (NULL: none) */
} driver;

/* The window's report by pipeline and buffers, written as outputs are (a pipe nobody reads
 * waits only until a signal). */
static int print_session(FILE *f, void *session)
{
  ms_session_report(f, session);
  return 0;
}

static void note(const driver *d, const char *what)
{
  if (d->log)
    fprintf(stderr, "mixsim: preview: step %ld: %s\n", ms_sim_step(d->sim), what);
}

static ms_status publish(driver *d, const commands *c)
{
  ms_status st = ms_frame_capture(d->work, d->sim);
  if (st)
    return st;
  d->work->iterations_per_frame = c->ipf;
  d->work->paused = d->paused;
  d->work->shown_rate = d->rate;
  pthread_mutex_lock(&d->k->lock);
  ms_frame *t = d->k->ready;
  d->k->ready = d->work;
  d->work = t;
  d->k->fresh = 1;
  pthread_mutex_unlock(&d->k->lock);
  return MS_OK;
}

/* The window may ask the live simulation to stop (a signal) at any time: the pointer
 * changes only under the lock, and a simulation born after the quit stops at once. */
static void set_live(handoff *k, ms_sim *sim)
{
  pthread_mutex_lock(&k->lock);
  k->live = sim;
  if (sim && k->quit == QUIT_NOW)
    ms_sim_request_stop(sim);
  pthread_mutex_unlock(&k->lock);
}

/* Recreates the simulation from the scene, keeping the live buffer and pipeline modes. */
static ms_status reset(driver *d)
{
  ms_scene sc = *d->scene; /* shallow: ms_sim_create only reads it */
  sc.pipeline = ms_sim_pipeline(d->sim);
  sc.buffers = ms_sim_buffers(d->sim);
  sc.buffers_given = 1;
  ms_session_leave(&d->session, d->sim);
  set_live(d->k, NULL);
  ms_sim_destroy(d->sim);
  d->sim = NULL;
  ms_status st = ms_sim_create(&sc, &d->opt, &d->sim);
  set_live(d->k, d->sim);
  if (!st)
    ms_session_enter(&d->session, d->sim);
  d->rate_t0 = ms_now();
  d->rate_step0 = 0;
  return st;
}

/* Every advance is booked to the pipeline and buffers it ran in. */
static ms_status advance(driver *d, long iterations)
{
  ms_session_begin(&d->session, d->sim);
  ms_status st = ms_sim_advance(d->sim, iterations);
  ms_session_end(&d->session, d->sim);
  return st;
}

/* One order; sets *changed when the picture or its labels change. */
static ms_status obey(driver *d, order o, int *changed)
{
  ms_status st = MS_OK;
  *changed = 1;
  switch (o) {
  case ORDER_RESET:
    st = reset(d);
    if (!st)
      note(d, "reset");
    break;
  case ORDER_BUFFERS: {
    ms_buffer_mode b = ms_sim_buffers(d->sim) == MS_BUFFERS_SHARED ? MS_BUFFERS_COPIED
                                                                  : MS_BUFFERS_SHARED;
    st = ms_sim_set_buffers(d->sim, b);
    note(d, b == MS_BUFFERS_SHARED ? "buffers shared" : "buffers copied");
    break;
  }
  case ORDER_PIPELINE: {
    ms_pipeline p = ms_sim_pipeline(d->sim) == MS_PIPELINE_NAIVE ? MS_PIPELINE_REORDERED
                                                                 : MS_PIPELINE_NAIVE;
    ms_sim_set_pipeline(d->sim, p);
    note(d, p == MS_PIPELINE_NAIVE ? "pipeline naive" : "pipeline reordered");
    break;
  }
  case ORDER_PAUSE:
    *changed = !d->paused;
    if (!d->paused)
      note(d, "paused");
    d->paused = 1;
    break;
  case ORDER_STEP:
    st = advance(d, 1);
    note(d, "stepped");
    break;
  case ORDER_RESUME:
    *changed = d->paused;
    if (d->paused)
      note(d, "running");
    d->paused = 0;
    break;
  }
  return st;
}

/* Applies the orders, then advances a frame's iterations unless told not to (quitting). */
static ms_status apply(driver *d, const commands *c, int frame)
{
  ms_status st = MS_OK;
  int changed = 0;
  for (int i = 0; i < c->queue.n && !st; i++) {
    if (d->stop && *d->stop) /* a signal: no further order (Q's drain included) */
      return MS_OK;
    int one = 0;
    st = obey(d, c->queue.o[i], &one);
    changed |= one;
  }
  if (!st && c->drag >= 0) {
    st = ms_sim_move_large(d->sim, c->drag, c->drag_x, c->drag_y);
    changed = 1;
  }
  if (!st && frame && !d->paused && c->ipf > 0) {
    st = advance(d, c->ipf);
    changed = 1;
  }
  changed |= c->ipf != d->ipf;
  d->ipf = c->ipf;
  double now = ms_now();
  if (now - d->rate_t0 >= 0.5) {
    d->rate = (double)(ms_sim_step(d->sim) - d->rate_step0) / (now - d->rate_t0);
    d->rate_t0 = now;
    d->rate_step0 = ms_sim_step(d->sim);
  }
  if (!st && changed)
    st = publish(d, c);
  return st;
}

static void *driver_main(void *arg)
{
  driver *d = arg;
  handoff *k = d->k;
  long served = 0;
  ms_status st = MS_OK;
  for (;;) {
    pthread_mutex_lock(&k->lock);
    while (!k->quit && k->ticks == served)
      pthread_cond_wait(&k->wake, &k->lock);
    if (k->quit == QUIT_NOW) {
      pthread_mutex_unlock(&k->lock);
      break;
    }
    served = k->ticks; /* a slow frame absorbs the ticks that came meanwhile */
    commands c = k->cmd;
    k->cmd.queue.n = 0;
    int quit = k->quit;
    pthread_mutex_unlock(&k->lock);
    st = apply(d, &c, !quit);
    if (st || quit)
      break;
  }
  pthread_mutex_lock(&k->lock);
  k->stopped = 1;
  k->status = st;
  pthread_mutex_unlock(&k->lock);
  return NULL;
}

/* ---- the window --------------------------------------------------------------------- */

typedef struct window {
  ms_window w;
  ms_frame *shown;
  commands cmd; /* the window's copy; sent with each tick */
  int paused;   /* as the window last asked */
  int help, quit, shot, log;
  int spin; /* W: small particles coloured by their spin */
  int average; /* A: the timing bar shows the average of the last second */
  ms_bar_history history; /* the frames shown, for that average */
  float grab_dx, grab_dy; /* from the mouse to the held particle's centre (m) */
} window;

static void mouse_to_world(const window *w, int mx, int my, float *x, float *y)
{
  int ow = 0, oh = 0;
  float px, py;
  SDL_GetRendererOutputSize(w->w.r, &ow, &oh);
  ms_window_to_output(&w->w, mx, my, &px, &py);
  ms_layout l;
  ms_layout_compute(&l, ow, oh, w->shown->box);
  ms_layout_to_world(&l, px, py, x, y);
}

/* Keeps a held particle inside the walls. */
static void drag_to(window *w, int mx, int my)
{
  const ms_frame *f = w->shown;
  int i = w->cmd.drag;
  float x, y, r = f->large_radius[i];
  mouse_to_world(w, mx, my, &x, &y);
  x += w->grab_dx;
  y += w->grab_dy;
  float lo_x = f->box[0] + r, hi_x = f->box[2] - r, lo_y = f->box[1] + r, hi_y = f->box[3] - r;
  w->cmd.drag_x = x < lo_x ? lo_x : x > hi_x ? hi_x : x;
  w->cmd.drag_y = y < lo_y ? lo_y : y > hi_y ? hi_y : y;
}

static void change_ipf(window *w, int up)
{
  int ipf = w->cmd.ipf;
  ipf = up ? ipf + (ipf / 4 > 1 ? ipf / 4 : 1) : ipf - (ipf / 5 > 1 ? ipf / 5 : 1);
  ipf = ipf < 1 ? 1 : ipf > 1000 ? 1000 : ipf;
  if (w->log && ipf != w->cmd.ipf)
    fprintf(stderr, "mixsim: preview: step %ld: %d iterations per frame\n", w->shown->step, ipf);
  w->cmd.ipf = ipf;
}

/* W: spin colours, where the scene has rotation (friction); otherwise a note says why
 * nothing changes. */
static void toggle_spin(window *w)
{
  if (!w->shown->rotation) {
    snprintf(w->w.note, sizeof w->w.note, "W: no spin to colour (the scene has no friction)");
    w->w.note_until = ms_now() + 2.5;
    if (w->log)
      fprintf(stderr, "mixsim: preview: step %ld: %s\n", w->shown->step, w->w.note);
    return;
  }
  w->spin = !w->spin;
  if (w->log)
    fprintf(stderr, "mixsim: preview: step %ld: spin colours %s\n", w->shown->step,
            w->spin ? "on" : "off");
}

/* A: the timing bar between the last frame and the average of the last second. */
static void toggle_average(window *w)
{
  w->average = !w->average;
  if (w->log)
    fprintf(stderr, "mixsim: preview: step %ld: timing bar: %s\n", w->shown->step,
            w->average ? "average of the last second" : "last frame");
}

/* Queues an order for the driver. A key pressed while ORDERS_MAX orders wait for a
 * busy simulation is refused with a note, never dropped unseen. Returns 1 if queued. */
static int give(window *w, order o)
{
  orders *q = &w->cmd.queue;
  if (q->n < ORDERS_MAX) {
    q->o[q->n++] = o;
    return 1;
  }
  snprintf(w->w.note, sizeof w->w.note, "busy: %d keys wait for the simulation", ORDERS_MAX);
  w->w.note_until = ms_now() + 2.5;
  if (w->log)
    fprintf(stderr, "mixsim: preview: step %ld: %s\n", w->shown->step, w->w.note);
  return 0;
}

static void on_key(window *w, const SDL_KeyboardEvent *k)
{
  SDL_Keycode key = k->keysym.sym;
  if (k->repeat && key != SDLK_PLUS && key != SDLK_EQUALS && key != SDLK_KP_PLUS &&
      key != SDLK_MINUS && key != SDLK_KP_MINUS)
    return;
  switch (key) {
  case SDLK_b: give(w, ORDER_BUFFERS); break;
  case SDLK_p: give(w, ORDER_PIPELINE); break;
  case SDLK_SPACE:
    if (give(w, w->paused ? ORDER_RESUME : ORDER_PAUSE))
      w->paused = !w->paused;
    break;
  case SDLK_n: /* pauses first when running */
    if (give(w, w->paused ? ORDER_STEP : ORDER_PAUSE))
      w->paused = 1;
    break;
  case SDLK_r: give(w, ORDER_RESET); break;
  case SDLK_PLUS:
  case SDLK_EQUALS:
  case SDLK_KP_PLUS: change_ipf(w, 1); break;
  case SDLK_MINUS:
  case SDLK_KP_MINUS: change_ipf(w, 0); break;
  case SDLK_F12: w->shot = 1; break;
  case SDLK_h: w->help = !w->help; break;
  case SDLK_w: toggle_spin(w); break;
  case SDLK_a: toggle_average(w); break;
  case SDLK_ESCAPE:
  case SDLK_q: w->quit = 1; break;
  default: break;
  }
}

static void on_event(window *w, const SDL_Event *e)
{
  switch (e->type) {
  case SDL_QUIT: w->quit = 1; break;
  case SDL_KEYDOWN: on_key(w, &e->key); break;
  case SDL_MOUSEBUTTONDOWN:
    if (e->button.button == SDL_BUTTON_LEFT) {
      float x, y;
      mouse_to_world(w, e->button.x, e->button.y, &x, &y);
      int i = ms_frame_large_at(w->shown, x, y);
      if (i >= 0) {
        w->cmd.drag = i;
        w->grab_dx = w->shown->large_pos[2 * i] - x;
        w->grab_dy = w->shown->large_pos[2 * i + 1] - y;
        drag_to(w, e->button.x, e->button.y);
      }
    }
    break;
  case SDL_MOUSEMOTION:
    if (w->cmd.drag >= 0)
      drag_to(w, e->motion.x, e->motion.y);
    break;
  case SDL_MOUSEBUTTONUP:
    if (e->button.button == SDL_BUTTON_LEFT)
      w->cmd.drag = -1;
    break;
  default: break;
  }
}

/* Takes the driver's latest frame, if there is a new one. Call with k->lock held. */
static void take_fresh(window *w, handoff *k)
{
  if (!k->fresh)
    return;
  ms_frame *t = w->shown;
  w->shown = k->ready;
  k->ready = t;
  k->fresh = 0;
  ms_bar_history_add(&w->history, w->shown);
}

/* Moves the window's orders to the driver's queue, as many as it has room for; the rest
 * wait for the next frame, in order. */
static void send_orders(orders *from, orders *to)
{
  int n = ORDERS_MAX - to->n < from->n ? ORDERS_MAX - to->n : from->n;
  for (int i = 0; i < n; i++)
    to->o[to->n++] = from->o[i];
  for (int i = n; i < from->n; i++)
    from->o[i - n] = from->o[i];
  from->n -= n;
}

/* One window frame: events, a tick for the driver, the latest picture. Returns 0 to go
 * on, 1 when the user quit or the driver stopped. */
static int window_frame(window *w, handoff *k, ms_status *status)
{
  SDL_Event e;
  while (SDL_PollEvent(&e))
    on_event(w, &e);
  pthread_mutex_lock(&k->lock);
  commands *c = &k->cmd;
  send_orders(&w->cmd.queue, &c->queue);
  c->ipf = w->cmd.ipf;
  c->drag = w->cmd.drag;
  c->drag_x = w->cmd.drag_x;
  c->drag_y = w->cmd.drag_y;
  k->ticks++;
  pthread_cond_signal(&k->wake);
  take_fresh(w, k);
  int stopped = k->stopped;
  *status = k->status;
  pthread_mutex_unlock(&k->lock);
  if (stopped || w->quit)
    return 1;
  /* A particle index from an older frame stays valid: reset keeps the particle count. */
  ms_bar_average avg;
  if (w->average)
    ms_bar_history_average(&w->history, &avg);
  ms_render_ui ui = {.help = w->help, .spin = w->spin, .grabbed = w->cmd.drag,
                     .note = ms_now() < w->w.note_until ? w->w.note : NULL,
                     .average = w->average ? &avg : NULL};
  ms_render_frame(w->w.rc, w->shown, &ui);
  if (w->shot) {
    w->shot = 0;
    ms_window_screenshot(&w->w, w->shown->step);
  }
  SDL_RenderPresent(w->w.r);
  return 0;
}

int ms_preview_built(void) { return 1; }

int ms_preview_open_display(char *why, size_t size)
{
  const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
  if ((!x11 || !*x11) && (!wl || !*wl)) {
    snprintf(why, size, "no display (DISPLAY and WAYLAND_DISPLAY are not set)");
    return 0;
  }
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    snprintf(why, size, "cannot open the display (SDL: %s)", SDL_GetError());
    SDL_Quit();
    return 0;
  }
  const char *driver = SDL_GetCurrentVideoDriver();
  if (!driver || !strcasecmp(driver, "dummy") || !strcasecmp(driver, "offscreen")) {
    snprintf(why, size, "no display (SDL video driver '%s')", driver ? driver : "none");
    SDL_Quit();
    return 0;
  }
  return 1;
}

ms_status ms_preview_window(ms_sim **sim, const ms_scene *scene, const ms_sim_options *opt,
                            const ms_preview_options *po)
{
  ms_script script;
  window w = {0};
  handoff k = {0};
  driver d = {0};
  ms_frame *frames = calloc(3, sizeof *frames);
  char title[600];
  snprintf(title, sizeof title, "mixsim: %s", scene->path);
  ms_status st = ms_script_parse(po->script, &script);
  if (!st && !frames)
    st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st)
    st = ms_window_open(&w.w, title);
  if (!st && po->script)
    ms_window_log_geometry(&w.w);
  pthread_mutex_init(&k.lock, NULL);
  pthread_cond_init(&k.wake, NULL);
  w.log = po->script != NULL;
  w.cmd = (commands){.ipf = po->iterations_per_frame > 0 ? po->iterations_per_frame : 1,
                     .drag = -1};
  k.live = *sim;
  d = (driver){.k = &k, .sim = *sim, .scene = scene, .opt = *opt, .ipf = w.cmd.ipf,
               .log = po->script != NULL, .rate_t0 = ms_now(), .rate_step0 = ms_sim_step(*sim),
               .stop = po->stop};
  int running = 0;
  pthread_t thread;
  if (!st) {
    w.shown = &frames[0];
    k.ready = &frames[1];
    d.work = &frames[2];
    st = publish(&d, &w.cmd); /* the first frame, before the driver starts */
    take_fresh(&w, &k);
  }
  if (!st) {
    if (pthread_create(&thread, NULL, driver_main, &d))
      st = ms_fail(MS_ERR_RUNTIME, "cannot start the preview's driver thread");
    else
      running = 1;
  }
  /* A signal ends the window like Q, and stops the advance under way at its next
   * iteration rather than letting it finish its frame. */
  int signalled = 0;
  for (long frame = 0; running; frame++) {
    double t0 = ms_now();
    ms_script_inject(&script, frame);
    if ((signalled = po->stop && *po->stop) || window_frame(&w, &k, &st))
      break;
    ms_window_pace(t0); /* without vsync, keep to 60 Hz */
  }
  if (running) {
    pthread_mutex_lock(&k.lock);
    k.quit = signalled ? QUIT_NOW : QUIT_AFTER_ORDERS;
    if (signalled && k.live)
      ms_sim_request_stop(k.live);
    pthread_cond_signal(&k.wake);
    pthread_mutex_unlock(&k.lock);
    pthread_join(thread, NULL);
    if (!st)
      st = k.status;
    *sim = d.sim;
    if (d.sim && !st) /* before the report main prints for the final simulation */
      ms_output_failed(ms_write_stream(stdout, print_session, &d.session),
                       "the window's report");
  }
  ms_window_close(&w.w);
  pthread_cond_destroy(&k.wake);
  pthread_mutex_destroy(&k.lock);
  for (int i = 0; frames && i < 3; i++)
    ms_frame_free(&frames[i]);
  free(frames);
  ms_script_free(&script);
  return st;
}
