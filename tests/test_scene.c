/* Scene loader tests: valid scenes load with the right values and a legal placement;
 * every file in tests/bad/ fails at the line and with the words it announces.
 * Usage: test_scene [FILTER|""] [BAD_DIR] (BAD_DIR also from MIXSIM_TEST_BAD_DIR). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "mixsim/scene.h"
#include "shared/contact.h"

static const char *g_bad_dir = "tests/bad";

/* A small valid scene; %s slots: [small] extra lines, extra sections. */
#define BASE_SCENE                                                                   \
  "[simulation]\n"                                                                   \
  "dt = 1e-4\n"                                                                      \
  "seed = %s\n"                                                                      \
  "[box]\n"                                                                          \
  "min = 0, 0\n"                                                                     \
  "max = 0.4, 0.4\n"                                                                 \
  "[material]\n"                                                                     \
  "stiffness = 1e5\n"                                                                \
  "restitution = 0.5\n"                                                              \
  "[small]\n"                                                                        \
  "count = %s\n"                                                                     \
  "radius = 0.005\n"                                                                 \
  "%s"                                                                               \
  "%s"

static ms_status load_base(ms_scene *s, const char *seed, const char *count, const char *small,
                           const char *extra)
{
  char text[4096];
  snprintf(text, sizeof text, BASE_SCENE, seed, count, small, extra);
  ms_error_clear();
  return ms_scene_load_string(text, "base.ini", s);
}

static int is_zeroed(const ms_scene *s)
{
  static const ms_scene zero;
  return memcmp(s, &zero, sizeof zero) == 0;
}

static double dist2(double ax, double ay, double bx, double by)
{
  return (ax - bx) * (ax - bx) + (ay - by) * (ay - by);
}

/* No two small discs overlap, and none overlaps a large one (1e-6 slack for floats). */
static int small_overlaps(const ms_scene *s)
{
  for (int i = 0; i < s->small_count; i++) {
    const double *p = &s->small_pos[2 * i];
    double r = s->small_r[i];
    for (int j = i + 1; j < s->small_count; j++) {
      double sum = r + s->small_r[j] - 1e-6;
      if (dist2(p[0], p[1], s->small_pos[2 * j], s->small_pos[2 * j + 1]) < sum * sum)
        return 1;
    }
    for (int j = 0; j < s->large_count; j++) {
      double sum = r + s->large[j].radius - 1e-6;
      if (dist2(p[0], p[1], s->large[j].x, s->large[j].y) < sum * sum)
        return 1;
    }
  }
  return 0;
}

static int large_overlaps(const ms_scene *s)
{
  for (int i = 0; i < s->large_count; i++)
    for (int j = i + 1; j < s->large_count; j++) {
      double sum = s->large[i].radius + s->large[j].radius - 1e-6;
      if (dist2(s->large[i].x, s->large[i].y, s->large[j].x, s->large[j].y) < sum * sum)
        return 1;
    }
  return 0;
}

static int small_inside(const ms_scene *s, double x0, double y0, double x1, double y1)
{
  double eps = 1e-6;
  for (int i = 0; i < s->small_count; i++) {
    double x = s->small_pos[2 * i], y = s->small_pos[2 * i + 1], r = s->small_r[i];
    if (x - r < x0 - eps || y - r < y0 - eps || x + r > x1 + eps || y + r > y1 + eps)
      return 0;
  }
  return 1;
}

static void test_loads_valid_scene(void)
{
  ms_scene s;
  ENSURE(load_base(&s, "7", "100", "density = 2000\n",
                   "[large.a]\nposition = 0.2, 0.3\nradius = 0.05\nstatic = yes\n") == MS_OK);
  ENSURE(s.small_count == 100 && s.large_count == 1);
  ENSURE(strcmp(s.path, "base.ini") == 0);
  ENSURE_SMALL(s.small_m[0] - 2000 * MS_PI * 0.005 * 0.005, 1e-7);
  ENSURE_SMALL(s.large[0].mass - 1000 * MS_PI * 0.05 * 0.05, 1e-5);
  ENSURE(s.large[0].is_static && s.large[0].vx == 0.0f);
  /* defaults */
  ENSURE(s.mode == MS_MODE_COLLISION && s.steps == 1000 && s.iterations_per_frame == 4);
  ENSURE(s.seed == 7 && s.pipeline == MS_PIPELINE_REORDERED && s.buffers == MS_BUFFERS_SHARED);
  ENSURE(s.gravity[0] == 0.0f && s.gravity[1] == -9.81f && s.grid_capacity == 8);
  ENSURE(s.dt_s == 1e-4 && s.dt_line == 2);
  ENSURE(s.stiffness == 1e5f && s.restitution == 0.5f);
  ms_scene_free(&s);
  ENSURE(is_zeroed(&s));
}

static void test_keys_in_any_order_and_options(void)
{
  const char *text = "[material]\nrestitution = 1\nstiffness = 2e4\n"
                     "[simulation]\ngravity = 1.5, -2\nbuffers = copied\npipeline = naive\n"
                     "seed = 18446744073709551615\nsteps = 5\niterations_per_frame = 1000\n"
                     "mode = collision\ndt = 1e-5 ; inline comment\n"
                     "[grid]\ncapacity = 4096\n"
                     "[box]\nmax = 1, 1\nmin = -1, -1\n";
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "order.ini", &s) == MS_OK);
  ENSURE(s.small_count == 0 && s.large_count == 0 && s.small_pos == NULL);
  ENSURE(s.pipeline == MS_PIPELINE_NAIVE && s.buffers == MS_BUFFERS_COPIED);
  ENSURE(s.seed == UINT64_MAX && s.steps == 5 && s.iterations_per_frame == 1000);
  ENSURE(s.gravity[0] == 1.5f && s.gravity[1] == -2.0f && s.grid_capacity == 4096);
  ENSURE(s.box_min[0] == -1.0f && s.box_max[1] == 1.0f && s.dt_line == 12);
  ms_scene_free(&s);
}

/* `auto` marks the choice with its line and leaves the value a run too short to tune
 * keeps: the default buffers, and the exchange to the device type (not given). */
static void test_auto_keys_keep_their_line_and_defaults(void)
{
  const char *text = "[simulation]\ndt = 1e-5\nbuffers = auto\nexchange = auto\n"
                     "[box]\nmin = 0, 0\nmax = 1, 1\n[material]\nstiffness = 2e4\nrestitution = 1\n";
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "auto.ini", &s) == MS_OK);
  ENSURE(s.buffers_auto == 3 && s.exchange_auto == 4);
  ENSURE(s.buffers == MS_BUFFERS_SHARED && !s.exchange_given && !s.buffers_given);
  ms_scene_free(&s);
  ENSURE(ms_scene_load_string("[simulation]\ndt = 1e-5\nbuffers = copied\n[box]\nmin = 0, 0\n"
                              "max = 1, 1\n[material]\nstiffness = 2e4\nrestitution = 1\n",
                              "plain.ini", &s) == MS_OK);
  ENSURE(s.buffers_auto == 0 && s.exchange_auto == 0 && s.buffers == MS_BUFFERS_COPIED &&
         s.buffers_given);
  ms_scene_free(&s);
}

/* radius_min/radius_max: radii drawn in range (uniform in radius, or in area), placed
 * without overlap on the lattice and at random; the largest sets the lattice pitch. */
static void test_size_distribution_placement(void)
{
  const char *sizes[] = {"radius_min = 0.004\nradius_max = 0.006\n",
                         "radius_min = 0.004\nradius_max = 0.006\nradius_distribution = area\n"};
  const char *placements[] = {"spacing = 1\n", "placement = random\n"};
  for (int d = 0; d < 2; d++)
    for (int p = 0; p < 2; p++) {
      char text[4096], small[256];
      snprintf(small, sizeof small, "%s%sregion = 0, 0, 0.4, 0.3\n", sizes[d], placements[p]);
      snprintf(text, sizeof text,
               "[simulation]\ndt = 1e-5\nseed = 5\n[box]\nmin = 0, 0\nmax = 0.4, 0.4\n"
               "[material]\nstiffness = 1e5\nrestitution = 0.5\n[small]\ncount = 450\n%s"
               "[large.a]\nposition = 0.2, 0.15\nradius = 0.04\n", small);
      ms_scene s;
      ms_error_clear();
      ENSURE(ms_scene_load_string(text, "sizes.ini", &s) == MS_OK);
      double sum_r = 0.0, sum_r2 = 0.0, lo = 1.0, hi = 0.0;
      for (int i = 0; i < s.small_count; i++) {
        double r = s.small_r[i];
        sum_r += r;
        sum_r2 += r * r;
        lo = fmin(lo, r);
        hi = fmax(hi, r);
        ENSURE_SMALL(s.small_m[i] / (1000 * MS_PI * r * r) - 1, 1e-6);
      }
      double mean = sum_r / s.small_count, mean2 = sum_r2 / s.small_count;
      printf("    %s, %s: r in [%.5f, %.5f], mean r %.5f, mean r^2 %.4g\n",
             d ? "area" : "uniform", p ? "random" : "lattice", lo, hi, mean, mean2);
      ENSURE(lo >= 0.004f && hi <= 0.006f && hi - lo > 0.0018);
      ENSURE(s.small_radius == 0.006f && s.small_radius_min == 0.004f);
      if (d == 0)
        ENSURE(fabs(mean - 0.005) < 0.0001); /* uniform in r: mean (min + max) / 2 */
      else
        ENSURE(fabs(mean2 - 2.6e-5) < 0.06 * 2.6e-5); /* uniform in r^2 */
      ENSURE(!small_overlaps(&s) && small_inside(&s, 0, 0, 0.4, 0.3));
      if (p == 0) /* lattice pitch: the largest diameter */
        ENSURE_SMALL(s.small_pos[2] - s.small_pos[0] - 0.012, 1e-9);
      ms_scene_free(&s);
    }
}

/* A box 1e7 m from the origin: positions are kept from its corner, so its particles are
 * placed as near the origin (in float, 100 discs landed on 4 positions). */
static void test_box_far_from_origin_places(void)
{
  const char *placements[] = {"placement = random\n", "placement = lattice\n"};
  for (int p = 0; p < 2; p++) {
    char text[1024];
    snprintf(text, sizeof text,
             "[simulation]\ndt = 1e-4\n[box]\nmin = 1e7, 1e7\nmax = 10000001, 10000001\n"
             "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
             "[small]\ncount = 100\nradius = 0.005\n%s"
             "[large_random.rocks]\ncount = 10\nradius_min = 0.01\nradius_max = 0.02\n"
             "region = 1e7, 1e7, 10000001, 10000001\n", placements[p]);
    ms_scene s;
    ms_error_clear();
    ENSURE(ms_scene_load_string(text, "far.ini", &s) == MS_OK);
    ENSURE(s.small_count == 100 && s.large_count == 10);
    ENSURE(!small_overlaps(&s) && !large_overlaps(&s) && small_inside(&s, 0, 0, 1, 1));
    ms_scene_free(&s);
  }
}

static void test_lattice_placement_no_overlap(void)
{
  ms_scene s;
  ENSURE(load_base(&s, "1", "600", "region = 0.05, 0.02, 0.35, 0.3\nspacing = 1\n",
                   "[large.a]\nposition = 0.2, 0.15\nradius = 0.04\n"
                   "[large_random.b]\ncount = 5\nradius_min = 0.01\nradius_max = 0.02\n"
                   "region = 0.05, 0.05, 0.35, 0.3\n") == MS_OK);
  ENSURE(s.small_count == 600 && s.large_count == 6);
  ENSURE(small_inside(&s, 0.05, 0.02, 0.35, 0.3));
  ENSURE(!small_overlaps(&s) && !large_overlaps(&s));
  /* the first site is the region's bottom-left corner */
  ENSURE_SMALL(s.small_pos[0] - 0.055, 1e-6);
  ENSURE_SMALL(s.small_pos[1] - 0.025, 1e-6);
  ms_scene_free(&s);
}

/* A lattice region exactly n discs wide (or tall) holds n discs, although the float
 * radius can make n diameters a unit in the last place wider than the region as
 * written; near the origin and far from it, along x and along y. */
static void test_lattice_region_exactly_n_discs_wide(void)
{
  static const double origins[][2] = {{0.0, 0.0}, {1000.3, -2000.7}, {-7.1e4, 3.3e3}};
  static const char *const radii[] = {"0.005", "0.003", "0.0007"};
  static const int widths[] = {1, 2, 3, 7};
  for (int o = 0; o < 3; o++)
    for (int r = 0; r < 3; r++)
      for (int w = 0; w < 4; w++)
        for (int along_y = 0; along_y < 2; along_y++) {
          double x0 = origins[o][0], y0 = origins[o][1], d = 2.0 * atof(radii[r]);
          int n = widths[w];
          /* one disc across, n along: all n must fit in that single column (row) */
          double nx = along_y ? 1 : n, ny = along_y ? n : 1;
          char text[1024];
          snprintf(text, sizeof text,
                   "[simulation]\ndt = 1e-5\n[box]\nmin = %.10g, %.10g\nmax = %.10g, %.10g\n"
                   "[material]\nstiffness = 1e5\nrestitution = 0.5\n[small]\ncount = %d\n"
                   "radius = %s\nspacing = 1\nregion = %.10g, %.10g, %.10g, %.10g\n",
                   x0, y0, x0 + 0.5, y0 + 0.5, n, radii[r], x0 + 0.1, y0 + 0.1,
                   x0 + 0.1 + nx * d, y0 + 0.1 + ny * d);
          ms_scene s;
          ms_error_clear();
          ms_status st = ms_scene_load_string(text, "narrow.ini", &s);
          if (st != MS_OK)
            fprintf(stderr, "origin %g, %g, radius %s, %d discs along %s: %s\n", x0, y0,
                    radii[r], n, along_y ? "y" : "x", ms_error_message());
          ENSURE(st == MS_OK && s.small_count == n);
          ENSURE(!small_overlaps(&s));
          ms_scene_free(&s);
        }
}

static void test_random_placement_deterministic(void)
{
  const char *small = "placement = random\nregion = 0, 0, 0.3, 0.3\nvelocity = 1, 0\n"
                      "velocity_spread = 0.5\n";
  const char *large = "[large_random.g]\ncount = 10\nradius_min = 0.01\nradius_max = 0.03\n"
                      "region = 0, 0, 0.4, 0.4\nvelocity_spread = 1\n";
  ms_scene a, b, c;
  ENSURE(load_base(&a, "42", "300", small, large) == MS_OK);
  ENSURE(load_base(&b, "42", "300", small, large) == MS_OK);
  ENSURE(load_base(&c, "43", "300", small, large) == MS_OK);
  size_t n = 2 * sizeof(float) * 300;
  ENSURE(memcmp(a.small_pos, b.small_pos, n) == 0 && memcmp(a.small_vel, b.small_vel, n) == 0);
  ENSURE(memcmp(a.large, b.large, 10 * sizeof *a.large) == 0);
  ENSURE(memcmp(a.small_pos, c.small_pos, n) != 0 && memcmp(a.large, c.large, sizeof *a.large));
  ENSURE(!small_overlaps(&a) && small_inside(&a, 0, 0, 0.3, 0.3));
  for (int i = 0; i < 300; i++)
    ENSURE(a.small_vel[2 * i] >= 0.5f && a.small_vel[2 * i] <= 1.5f &&
           a.small_vel[2 * i + 1] >= -0.5f && a.small_vel[2 * i + 1] <= 0.5f);
  ms_scene_free(&a);
  ms_scene_free(&b);
  ms_scene_free(&c);
}

static void test_random_placement_100k(void)
{
  ms_scene s;
  const char *text = "[simulation]\ndt = 1e-6\n[box]\nmin = 0, 0\nmax = 1, 1\n"
                     "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
                     "[small]\ncount = 100000\nradius = 0.0005\nplacement = random\n";
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "big.ini", &s) == MS_OK);
  ENSURE(s.small_count == 100000 && small_inside(&s, 0, 0, 1, 1));
  ms_scene_free(&s);
}

static void test_large_random_no_overlap(void)
{
  const char *text = "[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 1, 1\n"
                     "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
                     "[large.fixed]\nposition = 0.5, 0.5\nradius = 0.1\nstatic = true\n"
                     "[large_random.pegs]\ncount = 60\nradius_min = 0.02\nradius_max = 0.03\n"
                     "region = 0, 0, 1, 1\nstatic = 1\n"
                     "[large_random.rocks]\ncount = 100\nradius_min = 0.015\nradius_max = 0.035\n"
                     "region = 0, 0.2, 1, 1\nvelocity = 0, -1\ndensity = 500\n";
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "groups.ini", &s) == MS_OK);
  ENSURE(s.large_count == 161 && !large_overlaps(&s));
  for (int i = 0; i < s.large_count; i++) {
    const ms_large *l = &s.large[i];
    ENSURE(l->x - l->radius >= -1e-6 && l->x + l->radius <= 1 + 1e-6);
    ENSURE(l->y - l->radius >= -1e-6 && l->y + l->radius <= 1 + 1e-6);
    ENSURE(l->radius >= 0.015f && l->radius <= 0.1f);
    ENSURE(l->is_static == (i <= 60));
    ENSURE(i <= 60 ? l->vy == 0.0f : l->vy == -1.0f);
  }
  ENSURE(s.large[61].y - s.large[61].radius >= 0.2 - 1e-6);
  ms_scene_free(&s);
}

/* Discs written as exactly touching a wall or each other load, although rounding
 * their positions to float makes them overlap by a unit in the last place; an overlap
 * of 1e-4 m is still refused. */
static void test_touching_discs_and_walls_allowed(void)
{
  static const char *const fmt = "[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 1, 0.4\n"
                                 "[material]\nstiffness = 1e5\nrestitution = 0.5\n"
                                 "[large.a]\nposition = %s, 0.2\nradius = 0.1\n"
                                 "[large.b]\nposition = %s, 0.2\nradius = 0.1\n"
                                 "[large.c]\nposition = 0.8, 0.3\nradius = 0.1\n";
  static const struct {
    const char *a, *b, *error;
  } cases[] = {{"0.1", "0.3", NULL}, /* a touches the left wall and b */
               {"0.3", "0.5", NULL}, /* 0.5f - 0.3f < 0.2f: b touches a, c the top wall */
               {"0.3", "0.4999", "t.ini:13: [large.b] position: overlaps [large.a]"},
               {"0.0999", "0.5", "t.ini:10: [large.a] position: disc of radius 0.1 at"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, fmt, cases[i].a, cases[i].b);
    ms_scene s;
    ms_error_clear();
    ms_status st = ms_scene_load_string(text, "t.ini", &s);
    if (cases[i].error ? st != MS_ERR_INPUT || !strstr(ms_error_message(), cases[i].error)
                       : st != MS_OK)
      fprintf(stderr, "a at %s, b at %s: status %d: %s\n", cases[i].a, cases[i].b, st,
              ms_error_message());
    ENSURE(cases[i].error ? st == MS_ERR_INPUT && strstr(ms_error_message(), cases[i].error)
                          : st == MS_OK && s.large_count == 3);
    ms_scene_free(&s);
  }
}

static void test_min_contact_time_uses_lightest_pair(void)
{
  ms_scene s;
  ENSURE(load_base(&s, "1", "10", "", "") == MS_OK);
  ENSURE_SMALL(ms_scene_min_contact_time(&s) / ms_contact_time(1e5, 0.5, s.small_m[0] / 2) - 1,
               1e-12);
  ms_scene_free(&s);
  /* a dynamic large lighter than a small particle sets the pace */
  ENSURE(load_base(&s, "1", "10", "", "[large.light]\nposition = 0.2, 0.3\nradius = 0.005\n"
                                      "density = 500\n") == MS_OK);
  double m_eff = ms_effective_mass(s.small_m[0], 0, s.large[0].mass, 0);
  ENSURE_SMALL(ms_scene_min_contact_time(&s) / ms_contact_time(1e5, 0.5, m_eff) - 1, 1e-12);
  ms_scene_free(&s);
}

static void test_dt_too_large_suggests_dt(void)
{
  const char *fmt = "[simulation]\nsteps = 10\ndt = %s\n[box]\nmin = 0, 0\nmax = 1, 1\n"
                    "[material]\nstiffness = 1e7\nrestitution = 0.9\n"
                    "[small]\ncount = 4\nradius = 0.001\n";
  char text[512], dt[64];
  ms_scene s;
  snprintf(text, sizeof text, fmt, "1e-3");
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "dt.ini", &s) == MS_ERR_INPUT && is_zeroed(&s));
  const char *msg = ms_error_message();
  ENSURE(strstr(msg, "dt.ini:3:") && strstr(msg, "small-small"));
  const char *use = strstr(msg, "use dt <= ");
  ENSURE(use && sscanf(use + strlen("use dt <= "), "%63s", dt) == 1);
  snprintf(text, sizeof text, fmt, dt); /* the suggestion must be accepted */
  ms_error_clear();
  ENSURE(ms_scene_load_string(text, "dt.ini", &s) == MS_OK);
  ms_scene_free(&s);
}

static void test_missing_section_fails(void)
{
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load_string("[simulation]\ndt = 1e-4\n[material]\nstiffness = 1\n"
                              "restitution = 1\n",
                              "nobox.ini", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "nobox.ini: [box] required section is missing"));
  ENSURE(is_zeroed(&s));
}

static void test_missing_file_fails(void)
{
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load("/nonexistent/scene.ini", &s) == MS_ERR_INPUT && is_zeroed(&s));
  ENSURE(strstr(ms_error_message(), "cannot open scene '/nonexistent/scene.ini'"));
}

/* Loads `path` and expects a refusal whose message holds `words`. */
static int refused(const char *path, const char *words)
{
  ms_scene s;
  ms_error_clear();
  ms_status st = ms_scene_load(path, &s);
  if (st == MS_ERR_INPUT && strstr(ms_error_message(), words) && is_zeroed(&s))
    return 1;
  fprintf(stderr, "%s: expected \"%s\", got status %d: %s\n", path, words, st, ms_error_message());
  return 0;
}

/* Only regular files of bounded size are read: a folder, a FIFO nobody writes to, a
 * device that never ends and an over-long file are refused at once, naming the path
 * (alarm() turns a regression that blocks or spins into a failure). */
static void test_scene_must_be_a_bounded_regular_file(void)
{
  char dir[] = "/tmp/mixsim_scene_XXXXXX", fifo[64], big[64], lines[64];
  ENSURE(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/scene.ini", dir);
  snprintf(big, sizeof big, "%s/big.ini", dir);
  snprintf(lines, sizeof lines, "%s/lines.ini", dir);
  ENSURE(mkfifo(fifo, 0600) == 0);
  FILE *f = fopen(big, "w");
  ENSURE(f);
  const char *comment = "; a comment line, repeated until the file is too long\n";
  for (long n = 0; n <= MS_SCENE_MAX_BYTES; n += (long)strlen(comment))
    fputs(comment, f);
  fclose(f);
  ENSURE((f = fopen(lines, "w")));
  for (long i = 0; i < MS_SCENE_MAX_LINES + 1; i++)
    fputc('\n', f);
  fclose(f);
  alarm(60);
  int ok = refused(dir, "a folder, not a regular file") && refused(dir, dir) &&
           refused(fifo, "a FIFO, not a regular file") &&
           refused("/dev/zero", "cannot open scene '/dev/zero': a character device") &&
           refused(big, "bytes, more than the 16777216 allowed") &&
           refused(lines, "lines.ini:1000001: too many lines (at most 1000000)");
  alarm(0);
  remove(fifo);
  remove(big);
  remove(lines);
  rmdir(dir);
  ENSURE(ok);
}

/* A gravity body file must be a regular file too; the error names the key's line. */
static void test_body_file_must_be_a_regular_file(void)
{
  static const char *const files[][2] = {{"/tmp", "a folder, not a regular file"},
                                         {"/dev/zero", "a character device"}};
  for (int i = 0; i < 2; i++) {
    char text[512];
    snprintf(text, sizeof text, "[simulation]\nmode = gravity\ndt = 0.01\n[gravity]\n"
                                "bodies = file\nsoftening = 0.01\nfile = %s\n", files[i][0]);
    ms_scene s;
    ms_error_clear();
    alarm(60);
    ms_status st = ms_scene_load_string(text, "bodies.ini", &s);
    alarm(0);
    const char *msg = ms_error_message();
    if (!(st == MS_ERR_INPUT && strstr(msg, "bodies.ini:7: [gravity] file: cannot open") &&
          strstr(msg, files[i][1])))
      fprintf(stderr, "%s\n", msg);
    ENSURE(st == MS_ERR_INPUT && strstr(msg, "bodies.ini:7: [gravity] file: cannot open") &&
           strstr(msg, files[i][1]));
  }
}

/* A CSV saved with a UTF-8 byte order mark: the mark is skipped, the header known. */
static void test_body_file_with_byte_order_mark(void)
{
  char path[] = "/tmp/mixsim_bom_XXXXXX";
  int fd = mkstemp(path);
  ENSURE(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("\xEF\xBB\xBFx,y,z,vx,vy,vz,m\n1,2,3,0,0,0,1\n-1,0,0,0,0,0,2\n", f);
  fclose(f);
  char text[512];
  snprintf(text, sizeof text, "[simulation]\nmode = gravity\ndt = 0.01\n[gravity]\n"
                              "bodies = file\nsoftening = 0.01\nfile = %s\n", path);
  ms_scene s;
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "bom.ini", &s);
  remove(path);
  if (st != MS_OK)
    fprintf(stderr, "%s\n", ms_error_message());
  ENSURE(st == MS_OK && s.grav.count == 2);
  ENSURE(s.grav.pos[0] == 1.0f && s.grav.pos[3] == 1.0f && s.grav.pos[7] == 2.0f);
  ms_scene_free(&s);
}

static void test_names_round_trip(void)
{
  ms_pipeline p;
  ms_buffer_mode b;
  ENSURE(ms_pipeline_parse(ms_pipeline_name(MS_PIPELINE_NAIVE), &p) && p == MS_PIPELINE_NAIVE);
  ENSURE(ms_pipeline_parse("reordered", &p) && p == MS_PIPELINE_REORDERED);
  ENSURE(ms_buffer_mode_parse(ms_buffer_mode_name(MS_BUFFERS_COPIED), &b) &&
         b == MS_BUFFERS_COPIED);
  ENSURE(strcmp(ms_buffer_mode_name(MS_BUFFERS_SHARED), "shared") == 0);
  ENSURE(!ms_pipeline_parse("fast", &p) && !ms_buffer_mode_parse("", &b));
}

/* Loads `path`, which starts with "; expect: LINE WORDS", and checks the failure. */
static int bad_file_fails_as_announced(const char *path, const char *file_name)
{
  FILE *f = fopen(path, "r");
  int line = 0;
  char words[256] = "";
  if (!f)
    return 0;
  int n = fscanf(f, "; expect: %d %255[^\n]", &line, words);
  fclose(f);
  if (n != 2) {
    fprintf(stderr, "%s: first line must be '; expect: LINE WORDS'\n", path);
    return 0;
  }
  char where[512];
  snprintf(where, sizeof where, "%s:%d:", file_name, line);
  ms_scene s;
  ms_error_clear();
  ms_status st = ms_scene_load(path, &s);
  const char *msg = ms_error_message();
  if (st == MS_ERR_INPUT && strstr(msg, where) && strstr(msg, words) && is_zeroed(&s))
    return 1;
  fprintf(stderr, "%s: expected \"%s ... %s\", got status %d: %s\n", path, where, words, st, msg);
  return 0;
}

static void test_bad_files(void)
{
  DIR *dir = opendir(g_bad_dir);
  ENSURE(dir);
  int checked = 0, passed = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".ini") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_bad_dir, e->d_name);
    checked++;
    passed += bad_file_fails_as_announced(path, e->d_name);
  }
  closedir(dir);
  ENSURE(checked >= 25);
  ENSURE(passed == checked);
}

/* The friction keys: defaults (frictionless, k_t / k_n = 1/3, no spin), values as given,
 * spins on small, explicit and generated large particles, and what turns friction on. */
static void test_friction_keys(void)
{
  ms_scene s;
  ENSURE(load_base(&s, "1", "4", "", "") == MS_OK);
  ENSURE(s.friction == 0.0f && s.rolling_friction == 0.0f && s.wall_friction == 0.0f);
  ENSURE(s.tangential_stiffness == 1.0f / 3.0f && s.small_spin == 0.0);
  ENSURE(!ms_scene_friction_on(&s));
  ms_scene_free(&s);
  static const char *const on[] = {"friction = 0.5\n", "rolling_friction = 0.01\n",
                                   "wall_friction = 0.2\n"};
  for (int i = 0; i < 3; i++) {
    char text[2048];
    snprintf(text, sizeof text,
             "[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 0.4, 0.4\n[material]\n"
             "stiffness = 1e5\nrestitution = 0.5\n%s", on[i]);
    ms_error_clear();
    ENSURE(ms_scene_load_string(text, "fr.ini", &s) == MS_OK);
    ENSURE(ms_scene_friction_on(&s));
    ms_scene_free(&s);
  }
  const char *text =
      "[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 0.4, 0.4\n[material]\n"
      "stiffness = 1e5\nrestitution = 0.5\nfriction = 0.5\nrolling_friction = 0.02\n"
      "wall_friction = 0.3\ntangential_stiffness = 0.25\n"
      "[small]\ncount = 4\nradius = 0.005\nspin = -2.5\n"
      "[large.rock]\nposition = 0.3, 0.3\nradius = 0.02\nspin = 4\n"
      "[large_random.pegs]\ncount = 2\nradius_min = 0.01\nradius_max = 0.01\n"
      "region = 0.2, 0, 0.4, 0.1\nspin = 1.5\n";
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "fr.ini", &s);
  if (st)
    fprintf(stderr, "%s\n", ms_error_message());
  ENSURE(st == MS_OK);
  ENSURE(s.friction == 0.5f && s.rolling_friction == 0.02f && s.wall_friction == 0.3f);
  ENSURE(s.tangential_stiffness == 0.25f && s.small_spin == -2.5);
  ENSURE(s.large_count == 3 && s.large[0].spin == 4.0);
  ENSURE(s.large[1].spin == 1.5 && s.large[2].spin == 1.5);
  ms_scene_free(&s);
}

/* The scene files shipped for the demo and for other tests must load; the granular demos
 * (heap, incline) are frictional, the frozen copy of the old demo is not. */
static void test_shipped_scenes_load(void)
{
  static const struct {
    const char *file;
    int small, large, friction; /* -1: not checked */
  } scenes[] = {{"../../scenes/mixed.ini", 8200, 150, -1},
                {"../../scenes/heap.ini", 0, 159, 1}, /* a pour: its inflow fills it */
                {"../../scenes/silo.ini", 2000, 0, 1},
                {"../../scenes/chute.ini", 900, 45, 1},
                {"../../scenes/incline.ini", 300, 4, 1},
                {"../scenes/mixed_frictionless.ini", 8200, 150, 0},
                {"../scenes/tiny.ini", -1, 5, -1},
                {"../scenes/packed.ini", -1, -1, -1},
                {"../scenes/from_files.ini", 88, 3, -1}};
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
    char path[1024];
    ms_scene s;
    snprintf(path, sizeof path, "%s/%s", g_bad_dir, scenes[i].file);
    ms_error_clear();
    ms_status st = ms_scene_load(path, &s);
    if (st != MS_OK)
      fprintf(stderr, "%s\n", ms_error_message());
    ENSURE(st == MS_OK);
    ENSURE(scenes[i].small < 0 || s.small_count == scenes[i].small);
    ENSURE(scenes[i].large < 0 || s.large_count == scenes[i].large);
    ENSURE(scenes[i].friction < 0 || ms_scene_friction_on(&s) == scenes[i].friction);
    ENSURE(!small_overlaps(&s) && !large_overlaps(&s));
    ms_scene_free(&s);
  }
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  if (argc > 2)
    g_bad_dir = argv[2];
  else if (getenv("MIXSIM_TEST_BAD_DIR"))
    g_bad_dir = getenv("MIXSIM_TEST_BAD_DIR");
  RUN_TEST(test_loads_valid_scene, filter);
  RUN_TEST(test_keys_in_any_order_and_options, filter);
  RUN_TEST(test_auto_keys_keep_their_line_and_defaults, filter);
  RUN_TEST(test_lattice_placement_no_overlap, filter);
  RUN_TEST(test_lattice_region_exactly_n_discs_wide, filter);
  RUN_TEST(test_random_placement_deterministic, filter);
  RUN_TEST(test_random_placement_100k, filter);
  RUN_TEST(test_large_random_no_overlap, filter);
  RUN_TEST(test_touching_discs_and_walls_allowed, filter);
  RUN_TEST(test_min_contact_time_uses_lightest_pair, filter);
  RUN_TEST(test_dt_too_large_suggests_dt, filter);
  RUN_TEST(test_missing_section_fails, filter);
  RUN_TEST(test_missing_file_fails, filter);
  RUN_TEST(test_scene_must_be_a_bounded_regular_file, filter);
  RUN_TEST(test_body_file_must_be_a_regular_file, filter);
  RUN_TEST(test_body_file_with_byte_order_mark, filter);
  RUN_TEST(test_names_round_trip, filter);
  RUN_TEST(test_size_distribution_placement, filter);
  RUN_TEST(test_box_far_from_origin_places, filter);
  RUN_TEST(test_friction_keys, filter);
  RUN_TEST(test_bad_files, filter);
  RUN_TEST(test_shipped_scenes_load, filter);
  return TEST_EXIT();
}
