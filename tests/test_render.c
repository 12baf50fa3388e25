/* Offscreen frames: `mixsim --screenshot` and `--frames` write PNG files in which the
 * particles of tests/scenes/render.ini (which do not move) are drawn where they are, in
 * their colours, beside a timing bar that shows the last frame's phases.
 * usage: test_render MIXSIM SOURCE_ROOT [filter] */
#include <dirent.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "mixsim/mixsim.h"
#include "preview/render.h"

static const char *filter;
static const char *mixsim;
static char scene_path[1024];
static char tmp_dir[] = "/tmp/mixsim_render_XXXXXX";

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
  float box[4] = {sc.box_min[0], sc.box_min[1], sc.box_max[0], sc.box_max[1]};
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
  RUN_TEST(test_frames_numbered_every_k, filter);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmp_dir);
  return TEST_EXIT();
}
