/* Offscreen frames: `mixsim --screenshot` and `--frames` write PNG files in which the
 * particles of tests/scenes/render.ini (which do not move) are drawn where they are, in
 * their colours, beside a timing bar that shows the last frame's phases. The panel's
 * layout, at every size from the window's full size down to its minimum: no text over
 * other text or the bar, everything inside the picture, the figures that matter shown
 * whole (the device name included), with the bar's average of the last second (key A) as
 * well; that average: the frames of the last second only, each once, drawn stacked.
 * usage: test_render MIXSIM SOURCE_ROOT [filter] */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <SDL_ttf.h>

#include "harness.h"
#include "image.h"
#include "mixsim/mixsim.h"
#include "preview/render.h"
#include "preview/window.h"

static const char *filter;
static const char *mixsim;
static char scene_path[1024];
static char tmp_dir[] = "/tmp/mixsim_render_XXXXXX";

/* Blocks of the bar are saturated colours; text, ticks and the idle column are grey. */
static int saturated(const unsigned char *p)
{
  int hi = p[0] > p[1] ? p[0] : p[1], lo = p[0] < p[1] ? p[0] : p[1];
  hi = p[2] > hi ? p[2] : hi;
  lo = p[2] < lo ? p[2] : lo;
  return hi - lo > 60;
}

/* Saturated pixels in the panel left of the legend: the bar's blocks. */
static int bar_pixels(const image *img, const ms_layout *l)
{
  int n = 0;
  for (int y = 0; y < img->h * 3 / 4; y++)
    for (int x = l->panel.x; x < l->panel.x + 180; x++)
      n += saturated(pixel(img, (float)x, (float)y));
  return n;
}

static int run(const char *args)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' -q %s '%s' >/dev/null", mixsim, args, scene_path);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int count_files(const char *dir, const char *prefix)
{
  DIR *d = opendir(dir);
  int n = 0;
  if (!d)
    return -1;
  for (struct dirent *e; (e = readdir(d));)
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  closedir(d);
  return n;
}

static void test_screenshot_particles_in_their_colours(void)
{
  char path[1200], args[1400];
  snprintf(path, sizeof path, "%s/shot.png", tmp_dir);
  snprintf(args, sizeof args, "--screenshot '%s'", path);
  ENSURE(run(args) == 0);
  image img;
  ENSURE(read_png(path, &img) == 0);
  ms_scene sc;
  ENSURE(ms_scene_load(scene_path, &sc) == MS_OK);
  ENSURE(img.w == MS_RENDER_WIDTH && img.h == MS_RENDER_HEIGHT);
  ms_layout l;
  /* The picture is drawn in the simulation frame, from the box's corner. */
  float box[4] = {0.0f, 0.0f, (float)(sc.box_max[0] - sc.box_min[0]),
                  (float)(sc.box_max[1] - sc.box_min[1])};
  ms_layout_compute(&l, img.w, img.h, box);
  int bad = 0;
  float px, py;
  for (int i = 0; i < sc.small_count; i++) {
    ms_layout_to_pixel(&l, sc.small_pos[2 * i], sc.small_pos[2 * i + 1], &px, &py);
    bad += !near_color(pixel(&img, px, py), MS_COLOR_SMALL);
  }
  for (int i = 0; i < sc.large_count; i++) {
    ms_layout_to_pixel(&l, sc.large[i].x, sc.large[i].y, &px, &py);
    SDL_Color want = sc.large[i].is_static ? MS_COLOR_STATIC : MS_COLOR_DYNAMIC;
    const unsigned char *p = pixel(&img, px, py);
    printf("    large %d at (%.0f, %.0f): %d %d %d\n", i, px, py, p[0], p[1], p[2]);
    bad += !near_color(p, want);
    /* just outside the disc: background */
    ms_layout_to_pixel(&l, sc.large[i].x + 1.2f * sc.large[i].radius, sc.large[i].y, &px, &py);
    bad += !near_color(pixel(&img, px, py), MS_COLOR_BACKGROUND);
  }
  /* between two small particles of the lattice: background */
  ms_layout_to_pixel(&l, 0.5f * (sc.small_pos[0] + sc.small_pos[2]), sc.small_pos[1], &px, &py);
  bad += !near_color(pixel(&img, px, py), MS_COLOR_BACKGROUND);
  int bar = bar_pixels(&img, &l);
  printf("    %d pixels off colour; %d pixels in the bar\n", bad, bar);
  ms_scene_free(&sc);
  free(img.rgba);
  ENSURE(bad == 0);
  /* Block heights follow measured time, so only emptiness is machine-independent;
   * every phase event is drawn at least one row tall. */
  ENSURE(bar > 0);
}

/* With friction, a radius line on each large particle at its angle: tests/scenes/
 * render_spin.ini turns one disc by 1 rad (the simulation's own angle is the reference)
 * and keeps a static peg at 0. Along the angle the disc shows the line's colour, a
 * quarter and a half turn away its own. */
static int line_at(const image *img, const ms_layout *l, const ms_large *d, double theta,
                   SDL_Color disc, const char *what)
{
  float cx, cy, r = d->radius * l->scale;
  ms_layout_to_pixel(l, (float)d->x, (float)d->y, &cx, &cy);
  int bad = 0;
  for (int k = 0; k < 4; k++) {
    double a = theta + k * 1.5707963267948966;
    for (float f = 0.25f; f < 0.9f; f += 0.2f) {
      float x = cx + f * r * (float)cos(a), y = cy - f * r * (float)sin(a);
      const unsigned char *p = pixel(img, x, y);
      int ok = near_color(p, k == 0 ? MS_COLOR_RADIUS : disc);
      /* the line is 3 pixels wide: its colour within a pixel of the point will do */
      for (int dy = -1; k == 0 && dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          ok |= near_color(pixel(img, x + (float)dx, y + (float)dy), MS_COLOR_RADIUS);
      if (!ok)
        printf("    %s: %.2f rad, %.2f r out: %d %d %d\n", what, a, (double)f, p[0], p[1], p[2]);
      bad += !ok;
    }
  }
  return bad;
}

static void test_screenshot_radius_lines_at_the_angles(void)
{
  char path[1200], args[2400], spin_scene[1100];
  snprintf(spin_scene, sizeof spin_scene, "%s", scene_path);
  char *slash = strrchr(spin_scene, '/');
  ENSURE(slash);
  snprintf(slash + 1, sizeof spin_scene - (size_t)(slash + 1 - spin_scene), "render_spin.ini");
  snprintf(path, sizeof path, "%s/spin.png", tmp_dir);
  snprintf(args, sizeof args, "--screenshot '%s' '%s'", path, spin_scene);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' -q %s >/dev/null", mixsim, args);
  ENSURE(system(cmd) == 0);
  image img;
  ENSURE(read_png(path, &img) == 0);
  ms_scene sc;
  ENSURE(ms_scene_load(spin_scene, &sc) == MS_OK);
  /* The angle the run ended with, from the simulation itself. */
  ms_sim *sim = NULL;
  ms_state st = {0};
  int ran = ms_sim_create(&sc, NULL, &sim) == MS_OK && ms_sim_advance(sim, sc.steps) == MS_OK &&
            ms_sim_read_state(sim, &st) == MS_OK && st.large_rot;
  ms_sim_destroy(sim);
  ENSURE(ran);
  double wheel = st.large_rot[0], peg = st.large_rot[2];
  ms_state_free(&st);
  printf("    wheel at %.4f rad, peg at %.4f rad\n", wheel, peg);
  ms_layout l;
  float box[4] = {0.0f, 0.0f, (float)(sc.box_max[0] - sc.box_min[0]),
                  (float)(sc.box_max[1] - sc.box_min[1])};
  ms_layout_compute(&l, img.w, img.h, box);
  int bad = line_at(&img, &l, &sc.large[0], wheel, MS_COLOR_DYNAMIC, "wheel") +
            line_at(&img, &l, &sc.large[1], peg, MS_COLOR_STATIC, "peg");
  ms_scene_free(&sc);
  free(img.rgba);
  ENSURE(fabs(wheel - 1.0) < 1e-6 && peg == 0.0);
  ENSURE(bad == 0);
}

static void test_frames_numbered_every_k(void)
{
  char dir[1200], args[1400], path[1300];
  snprintf(dir, sizeof dir, "%s/frames", tmp_dir);
  ENSURE(mkdir(dir, 0755) == 0);
  /* 12 iterations, 4 a frame: frames 0..3; every 2nd: frames 0 and 2 */
  snprintf(args, sizeof args, "--frames '%s' --every 2", dir);
  ENSURE(run(args) == 0);
  ENSURE(count_files(dir, "frame_") == 2);
  ENSURE(count_files(dir, "") == 2 + 2); /* and "." and "..": nothing left over */
  snprintf(path, sizeof path, "%s/frame_000001.png", dir);
  image img;
  ENSURE(read_png(path, &img) == 0);
  float box[4] = {0.0f, 0.0f, 0.3f, 0.2f};
  ms_layout l;
  ms_layout_compute(&l, img.w, img.h, box);
  int bar1 = bar_pixels(&img, &l);
  free(img.rgba);
  snprintf(path, sizeof path, "%s/frame_000000.png", dir);
  ENSURE(read_png(path, &img) == 0);
  int bar0 = bar_pixels(&img, &l);
  free(img.rgba);
  printf("    bar pixels: initial frame %d, frame 2 %d\n", bar0, bar1);
  ENSURE(bar0 == 0); /* the initial state has no iterations to show */
  ENSURE(bar1 > 0);
}

/* ---- the panel's layout ---------------------------------------------------------------- */

static const char long_device[] =
  "pthread-skylake-avx512-AMD EPYC 7B13 64-Core Processor [Portable Computing Language]";

/* A frame with everything the panel can show: a long device name, the keys row (window),
 * and a frame slower than 1/60 s (the warning row). */
static ms_frame *busy_frame(ms_mode mode)
{
  ms_frame *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  f->mode = mode;
  f->box[2] = 1.2f;
  f->box[3] = 1.5f;
  f->small_radius = 0.005f;
  f->n_small = 8200;
  f->n_large = 150;
  f->n_static = 30;
  f->small_pos = calloc(2 * 8200, sizeof(float));
  f->small_r = calloc(8200, sizeof(float));
  for (int i = 0; f->small_r && i < 8200; i++)
    f->small_r[i] = 0.005f;
  f->large_pos = calloc(2 * 150, sizeof(float));
  f->large_radius = calloc(150, sizeof(float));
  f->large_static = calloc(150, 1);
  f->bodies = calloc(4 * 4096, sizeof(float));
  if (!f->bodies || !f->small_pos || !f->small_r || !f->large_pos || !f->large_radius || !f->large_static) {
    ms_frame_free(f);
    free(f);
    return NULL;
  }
  f->step = 1234567;
  f->iterations = 40;
  f->advance_t0 = 100.0;
  f->sim_rate = 2345.0;
  f->shown_rate = 1234.0;
  f->iterations_per_frame = 40;
  f->buffers = MS_BUFFERS_COPIED;
  f->pipeline = MS_PIPELINE_REORDERED;
  snprintf(f->device, sizeof f->device, "%s", long_device);
  snprintf(f->kernel, sizeof f->kernel, "soa16");
  f->n_bodies = 4096;
  f->n_devices = 2;
  /* 40 iterations of 7 phases on the worker and 5 on the manager, over 25 ms */
  for (int it = 0; it < 40; it++)
    for (int k = 0; k < 12; k++) {
      ms_trace_event *e = &f->events[f->n_events++];
      double t0 = 100.0 + 25e-3 * (it + k / 12.0) / 40.0;
      *e = (ms_trace_event){t0, t0 + 25e-3 / 480.0, k < 5 ? MS_THREAD_GPU : MS_THREAD_CPU,
                            (ms_phase)(k % MS_PHASE_COUNT)};
    }
  return f;
}

static int inside(const SDL_Rect *r, const SDL_Rect *in)
{
  return r->x >= in->x && r->y >= in->y && r->x + r->w <= in->x + in->w &&
         r->y + r->h <= in->y + in->h;
}

static int has_box(const ms_render_box *b, int n, const char *what)
{
  for (int i = 0; i < n; i++)
    if (strcmp(b[i].what, what) == 0)
      return 1;
  return 0;
}

/* The window's A: the layout is checked with the bar's average too. */
static const ms_bar_average *layout_average;

/* Draws `f` on a w x h picture and checks the panel's boxes; returns the problems found.
 * With `spin` the frame has rotation and the window colours spins (the W row). */
static int check_layout(ms_frame *f, int w, int h, int spin)
{
  SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
  SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
  ms_render *rc = NULL;
  if (!r || ms_render_create(r, &rc)) {
    fprintf(stderr, "cannot draw offscreen: %s %s\n", SDL_GetError(), ms_error_message());
    return 1;
  }
  ms_render_ui ui = {.grabbed = -1, .spin = spin, .average = layout_average};
  ms_render_frame(rc, f, &ui);
  const ms_render_box *b;
  int n = ms_render_boxes(rc, &b), bad = 0;
  ms_layout l;
  static const float unit_box[4] = {0, 0, 1, 1};
  ms_layout_compute(&l, w, h, f->mode == MS_MODE_GRAVITY ? unit_box : f->box);
  SDL_Rect picture = {0, 0, w, h};
  for (int i = 0; i < n; i++) {
    if (!inside(&b[i].r, &picture) || !inside(&b[i].r, &l.panel)) {
      printf("    %dx%d: '%s' at %d,%d %dx%d is outside the panel\n", w, h, b[i].what,
             b[i].r.x, b[i].r.y, b[i].r.w, b[i].r.h);
      bad++;
    }
    if (strstr(b[i].what, "...")) {
      printf("    %dx%d: '%s' is cut\n", w, h, b[i].what);
      bad++;
    }
    for (int j = i + 1; j < n; j++) {
      int over_bar = (b[i].bar && b[j].in_bar) || (b[j].bar && b[i].in_bar);
      if (!over_bar && SDL_HasIntersection(&b[i].r, &b[j].r)) {
        printf("    %dx%d: '%s' (%d,%d %dx%d) overlaps '%s' (%d,%d %dx%d)\n", w, h, b[i].what,
               b[i].r.x, b[i].r.y, b[i].r.w, b[i].r.h, b[j].what, b[j].r.x, b[j].r.y, b[j].r.w,
               b[j].r.h);
        bad++;
      }
    }
  }
  /* What the panel must always show; the device name whole, on as many lines as needed. */
  const char *must[] = {"step", "device", f->mode == MS_MODE_GRAVITY ? "bodies" : "pipeline [P]",
                        f->mode == MS_MODE_GRAVITY ? "force kernel" : "buffers  [B]"};
  for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
    if (!has_box(b, n, must[i])) {
      printf("    %dx%d: no '%s' row\n", w, h, must[i]);
      bad++;
    }
  char joined[512] = "";
  int after_device = 0;
  for (int i = 0; i < n; i++) {
    if (after_device && strstr(long_device, b[i].what) && strlen(b[i].what) > 2) {
      if (joined[0])
        strncat(joined, " ", sizeof joined - strlen(joined) - 1);
      strncat(joined, b[i].what, sizeof joined - strlen(joined) - 1);
    }
    after_device |= strcmp(b[i].what, "device") == 0;
  }
  if (strcmp(joined, long_device) != 0) {
    printf("    %dx%d: the device name reads '%s'\n", w, h, joined);
    bad++;
  }
  printf("    %dx%d %s: %d boxes, %d problems\n", w, h,
         f->mode == MS_MODE_GRAVITY ? "gravity" : "collision", n, bad);
  ms_render_destroy(rc);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(surf);
  return bad;
}

static void test_panel_layout_no_overlaps_down_to_minimum_size(void)
{
  /* The full size; 1366x768 less its usable area's nothing and less a title bar (the
   * window keeps the aspect); the minimum; and sizes between. */
  static const int sizes[][2] = {{MS_RENDER_WIDTH, MS_RENDER_HEIGHT}, {1075, 768}, {1036, 740},
                                 {900, 643}, {800, 571}, {MS_RENDER_MIN_WIDTH, MS_RENDER_MIN_HEIGHT},
                                 {MS_RENDER_MIN_WIDTH, 620}, {950, MS_RENDER_MIN_HEIGHT}};
  ENSURE(TTF_Init() == 0);
  int bad = 0;
  for (int mode = 0; mode < 2; mode++) {
    ms_frame *f = busy_frame(mode ? MS_MODE_GRAVITY : MS_MODE_COLLISION);
    for (size_t i = 0; f && i < sizeof sizes / sizeof sizes[0]; i++)
      bad += check_layout(f, sizes[i][0], sizes[i][1], 0);
    /* with friction: the spin row (W) as well */
    float *spin = calloc(8200, sizeof(float)), *theta = calloc(150, sizeof(float));
    if (f && !mode && spin && theta) {
      f->rotation = 1;
      f->small_spin = spin;
      f->large_theta = theta;
      f->small_spin_max = 12.5f;
      spin = theta = NULL; /* the frame's now */
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bad += check_layout(f, sizes[i][0], sizes[i][1], 1);
    }
    free(spin);
    free(theta);
    /* the bar's average of the last second (A), with its own heading and row */
    ms_bar_history *h = calloc(1, sizeof *h);
    ms_bar_average avg;
    if (f && !mode && h) {
      ms_bar_history_add(h, f);
      ms_bar_history_average(h, &avg);
      layout_average = &avg;
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bad += check_layout(f, sizes[i][0], sizes[i][1], 1);
      layout_average = NULL;
    }
    free(h);
    /* the initial frame: no iterations yet */
    if (f && !mode) {
      f->n_events = 0;
      f->iterations = 0;
      bad += check_layout(f, MS_RENDER_MIN_WIDTH, MS_RENDER_MIN_HEIGHT, 1);
    }
    ENSURE(f);
    ms_frame_free(f);
    free(f);
  }
  TTF_Quit();
  ENSURE(bad == 0);
}

/* ---- the bar's average of the last second (key A) ------------------------------------ */

/* The colour at `ms` milliseconds down the bar, in the middle of column `th`. */
static const unsigned char *bar_pixel_at(const image *img, const ms_render_box *bar, int col_x,
                                         int col_w, double ms)
{
  double u = ms * 1e-3 * 60.0;
  return pixel(img, (float)(col_x + col_w / 2), (float)(bar->r.y + u * (bar->r.h - 1)));
}

static void test_bar_average_of_the_last_second(void)
{
  ENSURE(TTF_Init() == 0);
  ms_frame *f = busy_frame(MS_MODE_COLLISION);
  ms_bar_history *h = calloc(1, sizeof *h);
  ENSURE(f && h);
  /* An old frame, 1.5 s before the rest, where grid building took 15 ms: outside the
   * second averaged, so it must not count. */
  double t0 = f->advance_t0;
  int n = f->n_events;
  f->advance_t0 = t0 - 1.5;
  f->events[0] = (ms_trace_event){0.0, 15e-3, MS_THREAD_GPU, MS_PHASE_GRID};
  f->n_events = 1;
  ms_bar_history_add(h, f);
  /* Then five frames of busy_frame's phases (2.08 ms of each per frame), one of them
   * published twice (as while paused): counted once. */
  f->n_events = n;
  f->events[0] = (ms_trace_event){t0, t0 + 25e-3 / 480.0, MS_THREAD_GPU, MS_PHASE_GRID};
  for (int k = 0; k < 5; k++) {
    for (int i = 0; i < n; i++) {
      f->events[i].t0 += 0.1 * (k > 0);
      f->events[i].t1 += 0.1 * (k > 0);
    }
    f->advance_t0 = t0 + 0.1 * k;
    ms_bar_history_add(h, f);
  }
  ms_bar_history_add(h, f);
  ms_bar_average avg;
  ms_bar_history_average(h, &avg);
  printf("    %d frames, %.1f iterations each, grid %.3f ms, host_in %.3f ms\n", avg.frames,
         avg.iterations, 1e3 * avg.s[MS_THREAD_GPU][MS_PHASE_GRID],
         1e3 * avg.s[MS_THREAD_GPU][MS_PHASE_HOST_IN]);
  ENSURE(avg.frames == 5);
  ENSURE_SMALL(avg.iterations - 40.0, 1e-9);
  ENSURE_SMALL(avg.s[MS_THREAD_GPU][MS_PHASE_GRID] - 40 * 25e-3 / 480.0, 1e-9);
  ENSURE_SMALL(avg.s[MS_THREAD_CPU][MS_PHASE_WAIT_SYNC1] - 40 * 25e-3 / 480.0, 1e-9);

  /* Drawn: the heading says so, and the GPU manager's column shows its phases stacked in
   * an iteration's order, each a solid block of its mean time: grid building first,
   * then the copy in (0 to 2.08 ms, 2.08 to 4.17 ms), then nothing past 10.4 ms. */
  int w = MS_RENDER_WIDTH, hh = MS_RENDER_HEIGHT;
  SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, w, hh, 32, SDL_PIXELFORMAT_RGBA32);
  SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
  ms_render *rc = NULL;
  ENSURE(r && ms_render_create(r, &rc) == MS_OK);
  for (int mode = 0; mode < 2; mode++) {
    ms_render_ui ui = {.grabbed = -1, .average = mode ? &avg : NULL};
    ms_render_frame(rc, f, &ui);
    image img = {w, hh, malloc((size_t)w * hh * 4)};
    ENSURE(img.rgba);
    ENSURE(SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGBA32, img.rgba, w * 4) == 0);
    const ms_render_box *b;
    int nb = ms_render_boxes(rc, &b), bar = -1;
    for (int i = 0; i < nb; i++)
      bar = b[i].bar ? i : bar;
    ENSURE(bar >= 0);
    ENSURE(has_box(b, nb, mode ? "Time per thread, average of last 1 s"
                               : "Time per thread, last frame"));
    ENSURE(has_box(b, nb, mode ? "last 1 s  [A]" : "last frame"));
    /* the column: from the bar's box (10 px left of it) to the first idle pixel right */
    int col_x = b[bar].r.x + 10, col_w = 8;
    int solid = 0;
    for (double ms = 0.2; ms < 1.9; ms += 0.1)
      solid += near_color(bar_pixel_at(&img, &b[bar], col_x, col_w, ms),
                          (SDL_Color){45, 95, 215, 255});
    int host_in = 0;
    for (double ms = 2.3; ms < 3.9; ms += 0.1)
      host_in += near_color(bar_pixel_at(&img, &b[bar], col_x, col_w, ms),
                            (SDL_Color){235, 150, 40, 255});
    int idle = near_color(bar_pixel_at(&img, &b[bar], col_x, col_w, 12.0),
                          (SDL_Color){44, 46, 56, 255});
    printf("    %s: %d/17 grid rows, %d/16 copy-in rows, idle at 12 ms: %d\n",
           mode ? "average" : "last frame", solid, host_in, idle);
    if (mode) {
      ENSURE(solid == 17 && host_in == 16 && idle);
    } else { /* the last frame interleaves the phases row by row */
      ENSURE(solid < 17);
    }
    free(img.rgba);
  }
  ms_render_destroy(rc);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(surf);
  free(h);
  ms_frame_free(f);
  free(f);
  TTF_Quit();
}

/* A frame whose threads all began after the bar's 1/60 s (a loaded machine woke them
 * late): the bar still shows their work, in its last row, not an empty column. */
static void test_bar_shows_a_frame_that_began_late(void)
{
  ENSURE(TTF_Init() == 0);
  ms_frame *f = busy_frame(MS_MODE_COLLISION);
  ENSURE(f != NULL);
  for (int i = 0; i < f->n_events; i++) { /* busy_frame's 25 ms, 30 ms late */
    f->events[i].t0 += 30e-3;
    f->events[i].t1 += 30e-3;
  }
  int w = MS_RENDER_WIDTH, hh = MS_RENDER_HEIGHT;
  SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, w, hh, 32, SDL_PIXELFORMAT_RGBA32);
  SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
  ms_render *rc = NULL;
  ENSURE(r && ms_render_create(r, &rc) == MS_OK);
  ms_render_frame(rc, f, NULL);
  image img = {w, hh, malloc((size_t)w * hh * 4)};
  ENSURE(img.rgba);
  ENSURE(SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGBA32, img.rgba, w * 4) == 0);
  ms_layout l;
  ms_layout_compute(&l, w, hh, f->box);
  int bar = bar_pixels(&img, &l);
  printf("    %d pixels in the bar\n", bar);
  ENSURE(bar > 0);
  free(img.rgba);
  ms_render_destroy(rc);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(surf);
  ms_frame_free(f);
  free(f);
  TTF_Quit();
}

/* --script's frame numbers follow the rule of every number on the command line: digits
 * alone, no sign, no blanks. */
static void test_script_frames_by_the_one_number_rule(void)
{
  ms_script s;
  ENSURE(ms_script_parse("0:Q,12:Space", &s) == MS_OK && s.n == 2 && s.frame[1] == 12);
  ms_script_free(&s);
  static const char *const bad[] = {" 1:Q", "+1:Q", "1 :Q", "-1:Q", "1x:Q", ":Q", "1:Q,"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ms_error_clear();
    ENSURE(ms_script_parse(bad[i], &s) == MS_ERR_INPUT);
    ENSURE(strstr(ms_error_message(), "--script: expected FRAME:KEY"));
  }
  ms_error_clear();
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: test_render MIXSIM SOURCE_ROOT [filter]\n");
    return 2;
  }
  mixsim = argv[1];
  snprintf(scene_path, sizeof scene_path, "%s/tests/scenes/render.ini", argv[2]);
  filter = argc > 3 && argv[3][0] ? argv[3] : NULL;
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_screenshot_particles_in_their_colours, filter);
  RUN_TEST(test_screenshot_radius_lines_at_the_angles, filter);
  RUN_TEST(test_frames_numbered_every_k, filter);
  RUN_TEST(test_panel_layout_no_overlaps_down_to_minimum_size, filter);
  RUN_TEST(test_bar_average_of_the_last_second, filter);
  RUN_TEST(test_bar_shows_a_frame_that_began_late, filter);
  RUN_TEST(test_script_frames_by_the_one_number_rule, filter);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmp_dir);
  return TEST_EXIT();
}
