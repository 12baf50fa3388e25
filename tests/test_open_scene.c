/* Open systems in the scene loader: [box] periodic and walls, [inflow.NAME] and
 * [outflow.NAME] load as written, their regions in the simulation frame, the small radii
 * taken over the inflows, and what a periodic box refuses (each refusal also has a file in
 * tests/bad/). Usage: test_open_scene [FILTER] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mixsim/scene.h"

/* A box from (1, 2) to (1.3, 2.2): box_min is not the origin. */
#define HEAD "[simulation]\ndt = 1e-4\n[material]\nstiffness = 1e5\nrestitution = 0.5\n"
#define BOX "[box]\nmin = 1, 2\nmax = 1.3, 2.2\n"

static ms_status load_text(const char *text, ms_scene *s)
{
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "open.ini", s);
  if (st != MS_OK)
    fprintf(stderr, "    %s\n", ms_error_message());
  return st;
}

/* `text` is refused with a message holding `where` and `words`. */
static int refuses(const char *text, const char *where, const char *words)
{
  ms_scene s;
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, "open.ini", &s);
  const char *msg = ms_error_message();
  if (st == MS_ERR_INPUT && strstr(msg, where) && strstr(msg, words))
    return 1;
  fprintf(stderr, "    expected \"%s ... %s\", got status %d: %s\n", where, words, st,
          st == MS_OK ? "(loaded)" : msg);
  if (st == MS_OK)
    ms_scene_free(&s);
  return 0;
}

/* A scene of one inflow and nothing else loads; every key lands where it should, the
 * region moved into the frame, and the small radii are the inflow's. */
static void test_inflow_only_scene_loads(void)
{
  ms_scene s;
  ENSURE(load_text(HEAD BOX "[inflow.pour]\nregion = 1.05, 2.15, 1.25, 2.2\nrate = 2000\n"
                            "start = 0.5\nstop = 3\nmax_count = 1000\nradius_min = 0.004\n"
                            "radius_max = 0.006\nradius_distribution = area\n"
                            "density = 2500 kg/m^3\nthickness = 0.8\nvelocity = 0.5, -1\n"
                            "velocity_spread = 0.1\nspin = 2\n",
                   &s) == MS_OK);
  ENSURE(s.small_count == 0 && s.large_count == 0 && s.inflow_count == 1);
  const ms_inflow *in = &s.inflows[0];
  ENSURE(strcmp(in->section, "inflow.pour") == 0 && in->line == 9);
  ENSURE(in->kind == MS_INFLOW_SMALL && in->rate == 2000.0);
  ENSURE(in->region[0] == 1.05 - 1.0 && in->region[1] == 2.15 - 2.0);
  ENSURE(in->region[2] == 1.25 - 1.0 && in->region[3] == 2.2 - 2.0);
  ENSURE(in->start == 0.5 && in->stop == 3.0 && in->max_count == 1000);
  ENSURE(in->radius_min == 0.004f && in->radius_max == 0.006f);
  ENSURE(in->radius_law == MS_RADIUS_AREA && in->density == 2000.0f);
  ENSURE(in->velocity[0] == 0.5 && in->velocity[1] == -1.0);
  ENSURE(in->velocity_spread == 0.1 && in->spin == 2.0);
  ENSURE(s.small_radius == 0.006f && s.small_radius_min == 0.004f);
  ms_scene_free(&s);
}

/* An inflow's defaults; [small] count = 0 loads too. */
static void test_inflow_defaults(void)
{
  ms_scene s;
  ENSURE(load_text(HEAD BOX "[small]\ncount = 0\n[inflow.a]\nregion = 1, 2, 1.3, 2.2\n"
                            "rate = 10\nradius = 0.005\n",
                   &s) == MS_OK);
  const ms_inflow *in = &s.inflows[0];
  ENSURE(s.small_count == 0 && s.inflow_count == 1);
  ENSURE(in->kind == MS_INFLOW_SMALL && in->start == 0.0 && in->stop == HUGE_VAL);
  ENSURE(in->max_count == 0 && in->radius_law == MS_RADIUS_UNIFORM && in->density == 1000.0f);
  ENSURE(in->radius_min == 0.005f && in->radius_max == 0.005f);
  ENSURE(in->velocity[0] == 0.0 && in->velocity[1] == 0.0 && in->spin == 0.0);
  ENSURE(s.small_radius == 0.005f && s.small_radius_min == 0.005f);
  ms_scene_free(&s);
}

/* The small radii span [small] and the small inflows; a large inflow does not count, and
 * [small]'s own particles keep their size. */
static void test_small_radii_over_inflows(void)
{
  ms_scene s;
  ENSURE(load_text(HEAD BOX "[small]\ncount = 10\nradius = 0.005\n"
                            "[inflow.big]\nregion = 1, 2.1, 1.3, 2.2\nrate = 5\nradius = 0.008\n"
                            "[inflow.tiny]\nregion = 1, 2.1, 1.3, 2.2\nrate = 5\nradius = 0.003\n"
                            "[inflow.rocks]\nkind = large\nregion = 1, 2.1, 1.3, 2.2\n"
                            "rate = 1\nradius = 0.03\nmax_count = 4\n",
                   &s) == MS_OK);
  ENSURE(s.inflow_count == 3 && s.inflows[2].kind == MS_INFLOW_LARGE);
  ENSURE(s.small_radius == 0.008f && s.small_radius_min == 0.003f);
  for (int i = 0; i < s.small_count; i++)
    ENSURE(s.small_r[i] == 0.005f);
  ms_scene_free(&s);
  /* No small inflow: [small] alone, as before. */
  ENSURE(load_text(HEAD BOX "[small]\ncount = 10\nradius = 0.005\n[inflow.rocks]\nkind = large\n"
                            "region = 1, 2.1, 1.3, 2.2\nrate = 1\nradius = 0.03\nstop = 2\n",
                   &s) == MS_OK);
  ENSURE(s.small_radius == 0.005f && s.small_radius_min == 0.005f);
  ms_scene_free(&s);
}

static void test_outflow_region_in_frame(void)
{
  ms_scene s;
  ENSURE(load_text(HEAD BOX "[outflow.drain]\nregion = 1.1, 2, 1.2, 2.05\n"
                            "[outflow.top]\nregion = 1, 2.15, 1.3, 2.2\n",
                   &s) == MS_OK);
  ENSURE(s.outflow_count == 2 && s.outflows[0].line == 9 && s.outflows[1].line == 11);
  ENSURE(strcmp(s.outflows[0].section, "outflow.drain") == 0);
  ENSURE(s.outflows[0].region[0] == 1.1 - 1.0 && s.outflows[0].region[1] == 0.0);
  ENSURE(s.outflows[0].region[2] == 1.2 - 1.0 && s.outflows[0].region[3] == 2.05 - 2.0);
  ms_scene_free(&s);
}

/* periodic and walls set periodic[] and box_open[] (left, right, bottom, top) as written. */
static void test_box_sides_as_written(void)
{
  static const struct {
    const char *keys;
    int periodic[2], open[4];
  } cases[] = {
      {"", {0, 0}, {0, 0, 0, 0}},
      {"walls = all\n", {0, 0}, {0, 0, 0, 0}},
      {"walls = none\n", {0, 0}, {1, 1, 1, 1}},
      {"walls = left, right, bottom\n", {0, 0}, {0, 0, 0, 1}},
      {"periodic = x\nwalls = bottom\n", {1, 0}, {0, 0, 0, 1}},
      {"periodic = x\n", {1, 0}, {0, 0, 0, 0}},
      {"walls = none\nperiodic = y\n", {0, 1}, {1, 1, 0, 0}},
      {"periodic = xy\nwalls = none\n", {1, 1}, {0, 0, 0, 0}},
      {"periodic = none\nwalls = top\n", {0, 0}, {1, 1, 1, 0}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, HEAD BOX "%s", cases[i].keys);
    ms_scene s;
    ENSURE(load_text(text, &s) == MS_OK);
    ENSURE(memcmp(s.periodic, cases[i].periodic, sizeof s.periodic) == 0);
    ENSURE(memcmp(s.box_open, cases[i].open, sizeof s.box_open) == 0);
    ms_scene_free(&s);
  }
}

/* A periodic chute: an inflow, an outflow, a base spanning the period, friction on. */
static void test_periodic_chute_loads(void)
{
  ms_scene s;
  ENSURE(load_text(HEAD "friction = 0.5\n" BOX "periodic = x\nwalls = bottom\n"
                        "[wall.base]\nsegments = 1, 2.05, 1.3, 2.05\n"
                        "[inflow.pour]\nregion = 1, 2.15, 1.3, 2.2\nrate = 500\nradius = 0.005\n"
                        "[outflow.top]\nregion = 1, 2.19, 1.3, 2.2\n"
                        "[large.rock]\nposition = 1.15, 2.1\nradius = 0.03\n",
                   &s) == MS_OK);
  ENSURE(s.periodic[0] && !s.periodic[1] && s.box_open[3] && !s.box_open[2]);
  ENSURE(s.wall_count == 1 && s.inflow_count == 1 && s.outflow_count == 1);
  double c0 = 2.0 * s.small_radius + (float)(0.3 * s.small_radius);
  double cell = ms_box_cell(1.3 - 1.0, 0.2, s.periodic, c0);
  ENSURE(cell >= c0 && cell < 1.1 * c0);
  ms_scene_free(&s);
}

/* What a periodic box refuses, each at its key's line. */
static void test_periodic_refusals(void)
{
  /* Line 9: periodic; 10: [wall.w] / [large.r], 11: its first key. */
#define PBOX HEAD "[box]\nmin = 1, 2\nmax = 1.3, 2.2\n"
#define SMALL "[inflow.s]\nregion = 1, 2.15, 1.3, 2.2\nrate = 5\nradius = 0.005\n"
  ENSURE(refuses(PBOX "periodic = x\nwalls = left\n", "open.ini:10: [box] walls:",
                 "left is periodic"));
  ENSURE(refuses(PBOX "periodic = y\nwalls = right, top\n", "open.ini:10: [box] walls:",
                 "top is periodic"));
  ENSURE(refuses(PBOX "walls = left, left\n", "open.ini:9: [box] walls:", "listed twice"));
  ENSURE(refuses(PBOX "walls = left, front\n", "open.ini:9: [box] walls:", "'front'"));
  ENSURE(refuses(HEAD "[box]\nmin = 1, 2\nmax = 1.025, 2.2\nperiodic = x\n"
                 "[inflow.s]\nregion = 1, 2.1, 1.025, 2.2\nrate = 5\nradius = 0.005\n",
                 "open.ini:9: [box] periodic:", "at least 3 cells"));
  ENSURE(refuses(HEAD "[box]\nmin = 1, 2\nmax = 1.3, 2.205\nperiodic = xy\n" SMALL,
                 "open.ini:9: [box] periodic:", "a height of 0.2"));
  ENSURE(refuses(HEAD "[box]\nmin = 0, 0\nmax = 0.3, 0.4\nperiodic = x\n[large.r]\n"
                 "position = 0.15, 0.2\nradius = 0.14\n[inflow.s]\nregion = 0, 0.3, 0.3, 0.4\n"
                 "rate = 5\nradius = 0.005\n",
                 "open.ini:12: [large.r] radius:", "half the period (0.15 m)"));
  ENSURE(refuses(HEAD "[box]\nmin = 0, 0\nmax = 0.3, 0.4\nperiodic = x\n[inflow.rocks]\n"
                 "kind = large\nregion = 0, 0, 0.3, 0.4\nrate = 1\nradius_min = 0.01\n"
                 "radius_max = 0.14\nmax_count = 3\n[inflow.s]\nregion = 0, 0.3, 0.3, 0.4\nrate = 5\n"
                 "radius = 0.005\n",
                 "open.ini:15: [inflow.rocks] radius_max:", "half the period"));
  /* A wall narrower than the period less twice the reach (0.005 + 2 x 0.005 m) meets
   * discs across the seam; a wider one is refused, and so is a spanning one that moves. */
  ENSURE(refuses(PBOX "periodic = x\n[wall.w]\nsegments = 1.1, 2.1, 1.2, 2.1\n"
                 "rotate = 1.05, 2.1, 1\n" SMALL, "open.ini:12: [wall.w] rotate:",
                 "0.3 m across along x (the circle it sweeps as it rotates)"));
  ENSURE(refuses(PBOX "periodic = x\n[wall.w]\nsegments = 1, 2.1, 1.3, 2.1\n"
                 "oscillate = 0.01, 0, 5\n" SMALL, "open.ini:12: [wall.w] oscillate:",
                 "spanning the period along x may not move"));
  ENSURE(refuses(PBOX "periodic = y\n[wall.w]\nsegments = 1.1, 2, 1.1, 2.2\n"
                 "force = 1, -1\nmass = 1\n" SMALL, "open.ini:12: [wall.w] force:",
                 "spanning the period along y may not move"));
  ENSURE(refuses(PBOX "periodic = x\n[wall.w]\nsegments = 1.01, 2.1, 1.29, 2.1\n" SMALL,
                 "open.ini:11: [wall.w] segments:", "two images across the seam"));
  ENSURE(refuses(PBOX "periodic = x\n[wall.w]\nsegments = 1, 2.05, 1.3, 2.06\n" SMALL,
                 "open.ini:11: [wall.w] segments:", "two images across the seam"));
  ENSURE(refuses(PBOX "periodic = x\n[wall.w]\nsegments = 1, 2.05, 1.3, 2.05, 1.3, 2.1\n" SMALL,
                 "open.ini:11: [wall.w] segments:", "point 3"));
  ENSURE(refuses(PBOX "periodic = xy\n[wall.w]\ncircle = 1.1, 2.1, 0.095\n" SMALL,
                 "open.ini:11: [wall.w] circle:", "along y (its diameter)"));
  /* Across and along a periodic axis is fine: moving, turning, lying over the seam. */
  const char *fine[] = {
      "segments = 1.1, 2.1, 1.2, 2.1\nvelocity = 0, 0.1\n",
      "segments = 1.1, 2.1, 1.2, 2.1, 1.15, 2.15\nclosed = yes\n",
      "segments = 1.1, 2.1, 1.2, 2.1\noscillate = 0.01, 0, 5\n",
      "segments = 1.25, 2.1, 1.4, 2.1\nvelocity = 3, 0\n",
      "segments = 1.27, 2.1, 1.33, 2.1\nrotate = 1.3, 2.1, 2\n",
      "circle = 1.29, 2.1, 0.09\nrotate = 1.29, 2.1, 2\n",
      "segments = 1, 2.05, 1.3, 2.05\nvelocity = 0, 0.1\n",
  };
  for (int i = 0; i < (int)(sizeof fine / sizeof *fine); i++) {
    char text[1024];
    snprintf(text, sizeof text, PBOX "periodic = x\n[wall.w]\n%s" SMALL, fine[i]);
    ms_scene s;
    ENSURE(load_text(text, &s) == MS_OK);
    ms_scene_free(&s);
  }
#undef PBOX
#undef SMALL
}

/* The inflow's own refusals, at their keys. */
static void test_inflow_refusals(void)
{
#define IN HEAD BOX "[inflow.a]\n"
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.3\nrate = 1\nradius = 0.005\n",
                 "open.ini:10: [inflow.a] region:", "must lie inside the box"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\nradius = 0.005\nstart = 2\nstop = 1\n",
                 "open.ini:14: [inflow.a] stop:", "after start"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\n", "open.ini:9: [inflow.a] radius:",
                 "required key is missing"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nradius = 0.005\n", "open.ini:9: [inflow.a] rate:",
                 "required key is missing"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\nradius = 0.005\nradius_max = 0.006\n",
                 "open.ini:13: [inflow.a] radius_max:", "not both"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\nradius_min = 0.006\n"
                    "radius_max = 0.005\n",
                 "open.ini:13: [inflow.a] radius_max:", "must be >= radius_min"));
  ENSURE(refuses(IN "region = 1, 2, 1.009, 2.2\nrate = 1\nradius = 0.005\n",
                 "open.ini:10: [inflow.a] region:", "too small"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\nradius = 0.005\ncount = 3\n",
                 "open.ini:13: [inflow.a] count:", "unknown key"));
  ENSURE(refuses(IN "region = 1, 2, 1.3, 2.2\nrate = 1\nradius = 0.005\nmax_count = 0\n",
                 "open.ini:13: [inflow.a] max_count:", ""));
  ENSURE(refuses(HEAD BOX "[outflow.a]\n", "open.ini:9: [outflow.a] region:",
                 "required key is missing"));
  ENSURE(refuses(HEAD BOX "[outflow.]\nregion = 1, 2, 1.3, 2.2\n", "open.ini:9: [outflow.]",
                 "NAME must be non-empty"));
#undef IN
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_inflow_only_scene_loads, filter);
  RUN_TEST(test_inflow_defaults, filter);
  RUN_TEST(test_small_radii_over_inflows, filter);
  RUN_TEST(test_outflow_region_in_frame, filter);
  RUN_TEST(test_box_sides_as_written, filter);
  RUN_TEST(test_periodic_chute_loads, filter);
  RUN_TEST(test_periodic_refusals, filter);
  RUN_TEST(test_inflow_refusals, filter);
  return TEST_EXIT();
}
