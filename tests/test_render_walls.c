/* The scene's walls in offscreen frames and in the frame they are drawn from: the drum
 * and baffle of tests/scenes/walls_drum.ini in the walls' colour on their lines and
 * nowhere inside the drum; the polyline of tests/scenes/walls_moving.ini, which
 * translates, where it is in each frame and no longer where it was; and a captured frame
 * that keeps the walls of its own step through the next advance.
 * usage: test_render_walls MIXSIM SOURCE_ROOT [filter] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "image.h"
#include "mixsim/mixsim.h"
#include "preview/frame.h"
#include "preview/render.h"

static const char *filter;
static const char *mixsim;
static char scenes[1024];
static char tmp_dir[] = "/tmp/mixsim_render_walls_XXXXXX";

static int run(const char *args, const char *scene)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' -q %s '%s/%s' >/dev/null", mixsim, args, scenes, scene);
  return system(cmd);
}

/* The wall's colour on a pixel within `rad` of (x, y): lines are 3 pixels wide. */
static int wall_near(const image *img, float x, float y, int rad)
{
  for (int dy = -rad; dy <= rad; dy++)
    for (int dx = -rad; dx <= rad; dx++)
      if (near_color(pixel(img, x + (float)dx, y + (float)dy), MS_COLOR_WALL))
        return 1;
  return 0;
}

/* The scene's layout: pictures are drawn in the simulation frame, from the box's corner. */
static void scene_layout(const ms_scene *sc, const image *img, ms_layout *l)
{
  float box[4] = {0.0f, 0.0f, (float)(sc->box_max[0] - sc->box_min[0]),
                  (float)(sc->box_max[1] - sc->box_min[1])};
  ms_layout_compute(l, img->w, img->h, box);
}

/* Pixels of polyline `w` moved by (dx, dy) m: out[2 * i], out[2 * i + 1]. */
static void polyline_px(const ms_layout *l, const ms_wall *w, double dx, double dy, float *out)
{
  for (int i = 0; i < w->n_points; i++)
    ms_layout_to_pixel(l, (float)(w->points[2 * i] + dx), (float)(w->points[2 * i + 1] + dy),
                       &out[2 * i], &out[2 * i + 1]);
}

/* Distance (pixels) from (x, y) to the open polyline of n pixel points. */
static float polyline_dist(const float *p, int n, float x, float y)
{
  float best = INFINITY;
  for (int s = 0; s + 1 < n; s++) {
    float ax = p[2 * s], ay = p[2 * s + 1], dx = p[2 * s + 2] - ax, dy = p[2 * s + 3] - ay;
    float t = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    float ex = ax + t * dx - x, ey = ay + t * dy - y, d = sqrtf(ex * ex + ey * ey);
    best = d < best ? d : best;
  }
  return best;
}

/* Along the open polyline p (n points, pixels), `per` points a segment: how many show the
 * wall's colour (want 1) or, with want 0, do not, skipping those within 6 pixels of the
 * polyline `other` (m points; NULL: none). */
static int along(const image *img, const float *p, int n, int per, int want, const float *other,
                 int m, int *checked)
{
  int good = 0;
  for (int s = 0; s + 1 < n; s++)
    for (int i = 0; i < per; i++) {
      float t = ((float)i + 0.5f) / (float)per;
      float x = p[2 * s] + t * (p[2 * s + 2] - p[2 * s]);
      float y = p[2 * s + 1] + t * (p[2 * s + 3] - p[2 * s + 1]);
      if (other && polyline_dist(other, m, x, y) < 6.0f)
        continue;
      (*checked)++;
      good += wall_near(img, x, y, want ? 1 : 2) == want;
    }
  return good;
}

static void test_screenshot_drum_rim_and_baffle_in_the_wall_colour(void)
{
  char path[1200], args[1400];
  snprintf(path, sizeof path, "%s/drum.png", tmp_dir);
  snprintf(args, sizeof args, "--steps 200 --screenshot '%s'", path);
  ENSURE(run(args, "walls_drum.ini") == 0);
  image img;
  ENSURE(read_png(path, &img) == 0);
  char scene[1100];
  snprintf(scene, sizeof scene, "%s/walls_drum.ini", scenes);
  ms_scene sc;
  ENSURE(ms_scene_load(scene, &sc) == MS_OK);
  ENSURE(sc.wall_count == 2 && sc.walls[0].kind == MS_WALL_CIRCLE &&
         sc.walls[1].kind == MS_WALL_POLYLINE && sc.walls[1].n_points == 3);
  ms_layout l;
  scene_layout(&sc, &img, &l);
  float cx, cy, r = (float)sc.walls[0].radius * l.scale, baffle[6];
  ms_layout_to_pixel(&l, (float)sc.walls[0].center[0], (float)sc.walls[0].center[1], &cx, &cy);
  polyline_px(&l, &sc.walls[1], 0, 0, baffle);
  /* The rim, all round (the drum turns about its centre, so the circle stays put), and
   * 6 pixels outside it. */
  int rim = 0, outside = 0, n_rim = 96;
  for (int i = 0; i < n_rim; i++) {
    float a = 6.2831853f * (float)i / (float)n_rim, c = cosf(a), s = sinf(a);
    rim += wall_near(&img, cx + r * c, cy + r * s, 1);
    outside += wall_near(&img, cx + (r + 6.0f) * c, cy + (r + 6.0f) * s, 0);
  }
  /* Inside the drum: the walls' colour only on the baffle. */
  int inside = 0, scanned = 0;
  for (int y = (int)(cy - r); y <= (int)(cy + r); y++)
    for (int x = (int)(cx - r); x <= (int)(cx + r); x++) {
      float px = (float)x + 0.5f, py = (float)y + 0.5f;
      if (hypotf(px - cx, py - cy) > 0.9f * r || polyline_dist(baffle, 3, px, py) < 6.0f)
        continue;
      scanned++;
      inside += near_color(pixel(&img, px, py), MS_COLOR_WALL);
    }
  int on = 0, n_on = 0;
  on = along(&img, baffle, 3, 8, 1, NULL, 0, &n_on);
  printf("    rim %d/%d in the wall colour, %d just outside; inside %d of %d pixels; baffle "
         "%d/%d\n", rim, n_rim, outside, inside, scanned, on, n_on);
  ms_scene_free(&sc);
  free(img.rgba);
  ENSURE(rim == n_rim && outside == 0);
  ENSURE(scanned > 100000 && inside == 0);
  ENSURE(on == n_on && n_on == 16);
}

static void test_frames_moving_polyline_drawn_where_it_is(void)
{
  char dir[1200], args[1400], path[1300];
  snprintf(dir, sizeof dir, "%s/moving", tmp_dir);
  ENSURE(mkdir(dir, 0755) == 0);
  snprintf(args, sizeof args, "--frames '%s'", dir);
  ENSURE(run(args, "walls_moving.ini") == 0);
  char scene[1100];
  snprintf(scene, sizeof scene, "%s/walls_moving.ini", scenes);
  ms_scene sc;
  ENSURE(ms_scene_load(scene, &sc) == MS_OK);
  const ms_wall *w = &sc.walls[0];
  int ok = sc.wall_count == 1 && w->kind == MS_WALL_POLYLINE && w->n_points == 3 &&
           sc.steps == 400 && sc.iterations_per_frame == 100;
  /* The last frame, at step 400: moved by 400 dt v (2 cm, some 48 pixels). */
  double t = (double)sc.steps * sc.dt_s, vx = w->velocity[0], vy = w->velocity[1];
  int bad = 0;
  for (int frame = 0; ok && frame < 2; frame++) {
    snprintf(path, sizeof path, "%s/frame_%06d.png", dir, frame ? 4 : 0);
    image img;
    ENSURE(read_png(path, &img) == 0);
    ms_layout l;
    scene_layout(&sc, &img, &l);
    float first[6], last[6], *here = frame ? last : first, *there = frame ? first : last;
    polyline_px(&l, w, 0, 0, first);
    polyline_px(&l, w, vx * t, vy * t, last);
    int n_here = 0, n_there = 0;
    int drawn = along(&img, here, 3, 10, 1, NULL, 0, &n_here);
    int gone = along(&img, there, 3, 10, 0, here, 3, &n_there);
    printf("    frame %d (step %d): %d/%d where the wall is, %d/%d clear where it is not\n",
           frame ? 4 : 0, frame ? 400 : 0, drawn, n_here, gone, n_there);
    bad += drawn != n_here || gone != n_there || n_there < 10;
    free(img.rgba);
  }
  ms_scene_free(&sc);
  ENSURE(ok);
  ENSURE(fabs(vx * t - 0.02) < 1e-12 && vy == 0.0);
  ENSURE(bad == 0);
}

/* The frame's walls are its own: the sim's points move on with the next advance. */
static void test_frame_keeps_the_walls_of_its_step(void)
{
  char scene[1100];
  snprintf(scene, sizeof scene, "%s/walls_moving.ini", scenes);
  ms_scene sc;
  ENSURE(ms_scene_load(scene, &sc) == MS_OK);
  ms_sim *sim = NULL;
  ms_frame f = {0};
  ms_wall_info now;
  int ok = ms_sim_create(&sc, NULL, &sim) == MS_OK && ms_frame_capture(&f, sim) == MS_OK &&
           ms_sim_advance(sim, 100) == MS_OK;
  double moved = 0.0, kept = 0.0, shown = 0.0;
  if (ok) {
    ms_sim_wall(sim, 0, &now);
    ok = f.n_walls == 1 && !f.walls[0].circle && !f.walls[0].closed && f.walls[0].n == 3 &&
         now.n_points == 3;
    for (int i = 0; ok && i < 6; i++) {
      double x0 = sc.walls[0].points[i] + (i % 2 ? 0.0 : 100 * sc.dt_s * sc.walls[0].velocity[0]);
      kept = fmax(kept, fabs(f.wall_pts[2 * f.walls[0].first + i] - sc.walls[0].points[i]));
      moved = fmax(moved, fabs(now.points[i] - x0));
    }
    ok = ok && ms_frame_capture(&f, sim) == MS_OK;
    for (int i = 0; ok && i < 6; i++)
      shown = fmax(shown, fabs(f.wall_pts[2 * f.walls[0].first + i] - now.points[i]));
  }
  printf("    step 0 frame off by %.2g m after the advance; sim off by %.2g m; step 100 frame "
         "off by %.2g m\n", kept, moved, shown);
  ms_frame_free(&f);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
  ENSURE(kept < 1e-7 && moved < 1e-12 && shown < 1e-7);
}

/* A circle's frame: its centre and radius. */
static void test_frame_has_the_drum(void)
{
  char scene[1100];
  snprintf(scene, sizeof scene, "%s/walls_drum.ini", scenes);
  ms_scene sc;
  ENSURE(ms_scene_load(scene, &sc) == MS_OK);
  ms_sim *sim = NULL;
  ms_frame f = {0};
  int ok = ms_sim_create(&sc, NULL, &sim) == MS_OK && ms_sim_advance(sim, 10) == MS_OK &&
           ms_frame_capture(&f, sim) == MS_OK;
  ok = ok && f.n_walls == 2 && f.walls[0].circle && !f.walls[1].circle && f.walls[1].n == 3;
  ok = ok && f.walls[0].cx == (float)sc.walls[0].center[0] &&
       f.walls[0].cy == (float)sc.walls[0].center[1] &&
       f.walls[0].r == (float)sc.walls[0].radius;
  for (int i = 0; ok && i < 6; i++)
    ok = f.wall_pts[2 * f.walls[1].first + i] == (float)sc.walls[1].points[i];
  ms_frame_free(&f);
  ms_sim_destroy(sim);
  ms_scene_free(&sc);
  ENSURE(ok);
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: test_render_walls MIXSIM SOURCE_ROOT [filter]\n");
    return 2;
  }
  mixsim = argv[1];
  snprintf(scenes, sizeof scenes, "%s/tests/scenes", argv[2]);
  filter = argc > 3 && argv[3][0] ? argv[3] : NULL;
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_screenshot_drum_rim_and_baffle_in_the_wall_colour, filter);
  RUN_TEST(test_frames_moving_polyline_drawn_where_it_is, filter);
  RUN_TEST(test_frame_keeps_the_walls_of_its_step, filter);
  RUN_TEST(test_frame_has_the_drum, filter);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmp_dir);
  return TEST_EXIT();
}
