/* Particles from files ([small] file, [large_file.NAME]): values land in the frame as
 * written, columns are found by name, section keys stand in for missing columns, the
 * kind column splits a whole dump, touching and compressed discs load and deeper
 * overlaps do not; the id column gives the scene's ids; every file in tests/bad/particles/ fails at its line with its words;
 * densities with units.
 * Usage: test_particle_files [FILTER|""] [BAD_DIR] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "mixsim/scene.h"
#include "shared/contact.h"

static const char *g_bad_dir = "tests/bad/particles";
static char g_dir[64]; /* a temporary folder for the files */

/* A scene in g_dir: box (x0, y0) .. (x0 + 0.4, y0 + 0.4), then `sections`. */
#define SCENE                                                                        \
  "[simulation]\ndt = 1e-5\n[box]\nmin = %.17g, %.17g\nmax = %.17g, %.17g\n"          \
  "[material]\nstiffness = 1e5\nrestitution = 0.5\n%s"

static void write_file(const char *name, const char *text)
{
  char path[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static ms_status load_at(double x0, double y0, const char *sections, ms_scene *s)
{
  char text[4096], name[128];
  snprintf(text, sizeof text, SCENE, x0, y0, x0 + 0.4, y0 + 0.4, sections);
  snprintf(name, sizeof name, "%s/scene.ini", g_dir);
  ms_error_clear();
  ms_status st = ms_scene_load_string(text, name, s);
  if (st != MS_OK)
    fprintf(stderr, "    (%s)\n", ms_error_message());
  return st;
}

static ms_status load(const char *sections, ms_scene *s) { return load_at(0.0, 0.0, sections, s); }

/* Positions become X - box_min exactly as the scene's own would; radii and masses are
 * the file's, as floats; the largest and smallest radius size the grid. */
static void test_values_in_the_frame(void)
{
  write_file("bed.csv", "y,x,vx,vy,radius,mass\n"
                        "-4.8,1000.1,0.5,-0.25,0.004,0.01\n"
                        "-4.7,1000.2,0,0,0.006,0.02\n");
  write_file("rocks.csv", "x,y,radius,static\n1000.3,-4.7,0.02,1\n1000.3,-4.65,0.02,0\n");
  ms_scene s;
  ENSURE(load_at(1000.0, -5.0, "[small]\nfile = bed.csv\n[large_file.rocks]\nfile = rocks.csv\n"
                                "density = 500 kg/m^2\n", &s) == MS_OK);
  ENSURE(s.small_count == 2 && s.large_count == 2);
  ENSURE(s.small_pos[0] == 1000.1 - 1000.0 && s.small_pos[1] == -4.8 - -5.0);
  ENSURE(s.small_pos[2] == 1000.2 - 1000.0 && s.small_pos[3] == -4.7 - -5.0);
  ENSURE(s.small_vel[0] == 0.5 && s.small_vel[1] == -0.25 && s.small_vel[2] == 0.0);
  ENSURE(s.small_r[0] == 0.004f && s.small_r[1] == 0.006f);
  ENSURE(s.small_m[0] == 0.01f && s.small_m[1] == 0.02f);
  ENSURE(s.small_radius == 0.006f && s.small_radius_min == 0.004f);
  ENSURE(s.large[0].x == 1000.3 - 1000.0 && s.large[0].y == -4.7 - -5.0 && s.large[0].is_static);
  ENSURE(!s.large[1].is_static && s.large[1].radius == 0.02f);
  ENSURE(s.large[1].mass == (float)(500.0 * MS_PI * (double)0.02f * (double)0.02f));
  char label[128];
  ms_large_label(s.large_origin, s.large_origin_count, 1, label, sizeof label);
  ENSURE(strcmp(label, "[large_file.rocks] #1") == 0);
  ms_scene_free(&s);
}

/* A whole dump to both sections: each takes its kind; index is ignored. */
static void test_kind_column_splits_a_dump(void)
{
  write_file("dump.csv", "kind,index,x,y,vx,vy,radius,mass,static\n"
                         "small,0,0.1,0.1,0,0,0.005,0.07,0\n"
                         "small,1,0.2,0.1,0,0,0.005,0.07,0\n"
                         "large,0,0.2,0.3,1,0,0.03,2,0\n"
                         "small,2,0.3,0.1,0,0,0.005,0.07,0\n"
                         "large,1,0.1,0.3,0,0,0.03,2,1\n");
  ms_scene s;
  ENSURE(load("[small]\nfile = dump.csv\n[large_file.d]\nfile = dump.csv\n", &s) == MS_OK);
  ENSURE(s.small_count == 3 && s.large_count == 2);
  ENSURE(s.small_pos[4] == 0.3 && s.large[0].vx == 1.0 && s.large[1].is_static);
  ms_scene_free(&s);
}

/* The id column: a dump's ids land on the scene in its order, each kind from its rows;
 * particles no file gives an id count up from the largest + 1, small ones first; a file
 * without the column leaves the scene's ids NULL; an id given twice across two files is
 * refused at its line, naming the other. */
static void test_id_column(void)
{
  write_file("ids.csv", "kind,x,y,radius,id\n"
                        "small,0.1,0.1,0.005,40\n"
                        "large,0.2,0.3,0.03,7\n"
                        "small,0.2,0.1,0.005,3\n");
  ms_scene s;
  ENSURE(load("[small]\nfile = ids.csv\n[large_file.d]\nfile = ids.csv\n"
              "[large.peg]\nposition = 0.3, 0.3\nradius = 0.02\n", &s) == MS_OK);
  ENSURE(s.small_id && s.large_id && s.large_count == 2);
  ENSURE(s.small_id[0] == 40 && s.small_id[1] == 3);
  /* [large.peg] is placed before the file's particles: scene order peg, then id 7 */
  ENSURE(s.large_id[0] == 41 && s.large_id[1] == 7);
  ms_scene_free(&s);
  write_file("plain.csv", "x,y,radius\n0.1,0.1,0.005\n");
  ENSURE(load("[small]\nfile = plain.csv\n", &s) == MS_OK);
  ENSURE(!s.small_id && !s.large_id);
  ms_scene_free(&s);
  write_file("rocks.csv", "x,y,radius,id\n0.2,0.3,0.03,5\n0.1,0.3,0.03,40\n");
  ENSURE(load("[small]\nfile = ids.csv\n[large_file.r]\nfile = rocks.csv\n", &s) ==
         MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "rocks.csv:3: column id: id 40 is given twice (also at "));
  ENSURE(strstr(ms_error_message(), "ids.csv:2)"));
}

/* Missing columns come from the section: radius, velocity, density (here bulk with a
 * thickness: 2500 kg/m^3 x 0.01 m = 25 kg/m^2). */
static void test_section_keys_stand_in_for_columns(void)
{
  write_file("xy.csv", "x,y\n0.1,0.1\n0.2,0.1\n");
  ms_scene s;
  ENSURE(load("[small]\nfile = xy.csv\nradius = 0.005\nvelocity = 0.5, 1\n"
              "density = 2500 kg/m^3\nthickness = 0.01\n", &s) == MS_OK);
  ENSURE(s.small_count == 2 && s.small_r[1] == 0.005f && s.small_vel[2] == 0.5 &&
         s.small_vel[3] == 1.0);
  ENSURE(s.small_m[0] == (float)(25.0 * MS_PI * (double)0.005f * (double)0.005f));
  ms_scene_free(&s);
}

/* A settled or moving bed: discs that touch, and discs pressed into each other and into
 * a wall by less than half a radius, load; a small disc on a large one too. */
static void test_touching_and_compressed_discs_load(void)
{
  write_file("bed.csv", "x,y,radius\n"
                        "0.005,0.005,0.005\n0.015,0.005,0.005\n"  /* touching, on the walls */
                        "0.0238,0.005,0.005\n"                    /* 0.12 r into the last */
                        "0.397,0.1,0.005\n"                       /* 0.4 r into the wall */
                        "0.2,0.1449,0.005\n");                    /* 0.02 r into the rock */
  write_file("rocks.csv", "x,y,radius\n0.2,0.2,0.05\n");
  ms_scene s;
  ENSURE(load("[small]\nfile = bed.csv\n[large_file.rocks]\nfile = rocks.csv\n", &s) == MS_OK);
  ENSURE(s.small_count == 5 && s.large_count == 1);
  ms_scene_free(&s);
}

/* Deeper overlaps between a file's discs and others are refused naming both. */
static void test_deep_overlaps_refused(void)
{
  static const struct {
    const char *sections, *words;
  } cases[] = {
      {"[small]\nfile = s.csv\n[large_file.rocks]\nfile = r.csv\n",
       "scene.ini:10: [small] file: "},
      {"[small]\nfile = s.csv\n[large_file.rocks]\nfile = r.csv\n",
       "s.csv:2: disc of radius 0.005 at (0.20000000000000001, 0.16) overlaps "
       "[large_file.rocks] #0 by more than half the smaller radius"},
      {"[large.peg]\nposition = 0.2, 0.14\nradius = 0.03\n[large_file.rocks]\nfile = r.csv\n",
       "r.csv:2: disc of radius 0.05 at (0.20000000000000001, 0.20000000000000001) overlaps "
       "[large.peg]"},
      {"[large_file.a]\nfile = r.csv\n[large_file.b]\nfile = r.csv\n",
       "scene.ini:12: [large_file.b] file: "},
      {"[large_file.a]\nfile = r.csv\n[large_file.b]\nfile = r.csv\n",
       "overlaps [large_file.a] #0"},
  };
  write_file("s.csv", "x,y,radius\n0.2,0.16,0.005\n");
  write_file("r.csv", "x,y,radius\n0.2,0.2,0.05\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ms_scene s;
    ENSURE(load(cases[i].sections, &s) == MS_ERR_INPUT);
    if (!strstr(ms_error_message(), cases[i].words))
      fprintf(stderr, "expected \"%s\" in: %s\n", cases[i].words, ms_error_message());
    ENSURE(strstr(ms_error_message(), cases[i].words));
  }
}

/* Rows far outside the box (up to +-1e308) are refused at their line, with a large
 * particle present and in either kind of section, before any arithmetic on them (the
 * placement's hash once overflowed on them: the sanitizer build catches that). */
static void test_far_rows_refused(void)
{
  static const char *const rows[][2] = {
      {"1e17,0.1", "at (1e+17, 0.10000000000000001) lies outside the box"},
      {"1e308,0.1", "at (1e+308, 0.10000000000000001) lies outside the box"},
      {"-1e308,0.1", "at (-1e+308, 0.10000000000000001) lies outside the box"},
      {"0.1,-1e17", "at (0.10000000000000001, -1e+17) lies outside the box"},
  };
  static const char *const sections[] = {
      "[large.peg]\nposition = 0.3, 0.3\nradius = 0.05\n[small]\nfile = far.csv\n",
      "[large.peg]\nposition = 0.3, 0.3\nradius = 0.05\n[large_file.r]\nfile = far.csv\n",
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
      char text[256];
      snprintf(text, sizeof text, "x,y,radius\n0.1,0.1,0.005\n%s,0.005\n", rows[i][0]);
      write_file("far.csv", text);
      ms_scene s;
      ENSURE(load(sections[k], &s) == MS_ERR_INPUT);
      if (!strstr(ms_error_message(), "far.csv:3: disc of radius 0.005 ") ||
          !strstr(ms_error_message(), rows[i][1]))
        fprintf(stderr, "expected far.csv:3 and \"%s\" in: %s\n", rows[i][1], ms_error_message());
      ENSURE(strstr(ms_error_message(), "far.csv:3: disc of radius 0.005 ") &&
             strstr(ms_error_message(), rows[i][1]));
    }
}

/* A box 1e300 m wide places explicit and random large particles (their hash cells would
 * not fit in an integer unsaturated). */
static void test_huge_box_places(void)
{
  ms_scene s;
  ms_error_clear();
  ENSURE(ms_scene_load_string("[simulation]\ndt = 1e-5\n[box]\nmin = 0, 0\nmax = 1e300, 1e300\n"
                              "[material]\nstiffness = 1e5\nrestitution = 0.5\n[large.a]\n"
                              "position = 5e299, 5e299\nradius = 0.05\n[large_random.b]\n"
                              "count = 3\nradius_min = 0.05\nradius_max = 0.05\n"
                              "region = 0, 0, 1e300, 1e300\n",
                              "huge.ini", &s) == MS_OK);
  ENSURE(s.large_count == 4 && s.large[0].x == 5e299);
  ms_scene_free(&s);
}

/* Keys that would place small particles, and keys a column contradicts. */
static void test_keys_refused_with_a_file(void)
{
  static const char *const cases[][2] = {
      {"count = 10\n", "scene.ini:11: [small] count: does not apply with file = (line 10)"},
      {"placement = random\n", "[small] placement: does not apply with file"},
      {"region = 0, 0, 0.1, 0.1\n", "[small] region: does not apply with file"},
      {"radius_min = 0.001\nradius_max = 0.002\n", "[small] radius_min: does not apply"},
      {"velocity_spread = 0.1\n", "[small] velocity_spread: does not apply"},
      {"radius = 0.005\n", "scene.ini:11: [small] radius: "},
      {"radius = 0.005\n", "f.csv has a radius column (line 1), which gives it per particle; give "
                           "one or the other"},
      {"density = 10\n", "[small] density: "},
      {"velocity = 1, 0\n", "[small] velocity: "},
  };
  write_file("f.csv", "x,y,vx,vy,radius,mass\n0.1,0.1,0,0,0.005,1\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char sections[256];
    snprintf(sections, sizeof sections, "[small]\nfile = f.csv\n%s", cases[i][0]);
    ms_scene s;
    ENSURE(load(sections, &s) == MS_ERR_INPUT);
    if (!strstr(ms_error_message(), cases[i][1]))
      fprintf(stderr, "expected \"%s\" in: %s\n", cases[i][1], ms_error_message());
    ENSURE(strstr(ms_error_message(), cases[i][1]));
  }
  ms_scene s;
  write_file("xy.csv", "x,y\n0.1,0.1\n");
  ENSURE(load("[large_file.r]\nfile = xy.csv\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "[large_file.r] file: ") &&
         strstr(ms_error_message(), "xy.csv:1: no radius column: add one or give radius = r"));
  ENSURE(load("[large_file.r]\nradius = 0.01\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "[large_file.r] file: required key is missing"));
  ENSURE(load("[large_file.r]\nfile = nothere.csv\nradius = 0.01\n", &s) == MS_ERR_INPUT);
  ENSURE(strstr(ms_error_message(), "[large_file.r] file: cannot open") &&
         strstr(ms_error_message(), "nothere.csv"));
}

/* Loads NAME (first line "# expect: LINE WORDS") as [small] file; the error is at the
 * scene's file key and names NAME:LINE (NAME alone for LINE 0) and WORDS. */
static int bad_file_fails_as_announced(const char *name)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_bad_dir, name);
  FILE *f = fopen(path, "r");
  int line = 0;
  char words[256] = "";
  if (!f || fscanf(f, "# expect: %d %255[^\n]", &line, words) != 2) {
    fprintf(stderr, "%s: first line must be '# expect: LINE WORDS'\n", path);
    if (f)
      fclose(f);
    return 0;
  }
  fclose(f);
  char sections[1024], where[600];
  snprintf(sections, sizeof sections, "[small]\nfile = %s\n", path);
  if (line > 0)
    snprintf(where, sizeof where, "scene.ini:10: [small] file: %s:%d: ", path, line);
  else
    snprintf(where, sizeof where, "scene.ini:10: [small] file: %s: ", path);
  ms_scene s;
  ms_status st = load(sections, &s);
  const char *msg = ms_error_message();
  if (st == MS_ERR_INPUT && strstr(msg, where) && strstr(msg, words))
    return 1;
  fprintf(stderr, "%s: expected \"%s ... %s\", got status %d: %s\n", name, where, words, st, msg);
  return 0;
}

static void test_bad_particle_files(void)
{
  DIR *dir = opendir(g_bad_dir);
  ENSURE(dir);
  int checked = 0, passed = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".csv") != 0)
      continue;
    checked++;
    passed += bad_file_fails_as_announced(e->d_name);
  }
  closedir(dir);
  ENSURE(checked >= 20);
  ENSURE(passed == checked);
}

/* density = N (areal), N kg/m^2 (areal), N kg/m^3 with thickness T (areal N x T), in
 * every particle section. */
static void test_density_units(void)
{
  static const struct {
    const char *keys;
    double areal;
  } cases[] = {{"density = 6.5\n", 6.5},
               {"density = 6.5 kg/m^2\n", 6.5},
               {"density = 6.5 kg/m2\n", 6.5},
               {"density = 2500 kg/m^3\nthickness = 0.01\n", 25.0},
               {"thickness = 0.002\ndensity = 3000 kg/m3\n", 6.0},
               {"density = 3000kg/m^3\nthickness = 0.002\n", 6.0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char sections[1024];
    snprintf(sections, sizeof sections,
             "[small]\ncount = 1\nradius = 0.01\n%s[large.a]\nposition = 0.2, 0.2\n"
             "radius = 0.05\n%s[large_random.b]\ncount = 1\nradius_min = 0.02\nradius_max = "
             "0.02\nregion = 0, 0.3, 0.4, 0.4\n%s",
             cases[i].keys, cases[i].keys, cases[i].keys);
    ms_scene s;
    ENSURE(load(sections, &s) == MS_OK);
    float want = (float)cases[i].areal;
    ENSURE(s.small_density == want);
    ENSURE(s.small_m[0] == (float)(want * MS_PI * (double)0.01f * (double)0.01f));
    ENSURE(s.large[0].mass == (float)(cases[i].areal * MS_PI * (double)0.05f * (double)0.05f));
    ENSURE(s.large[1].mass == (float)(cases[i].areal * MS_PI * (double)0.02f * (double)0.02f));
    ms_scene_free(&s);
  }
}

int main(int argc, char **argv)
{
  const char *filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  static char bad_dir[4096], cwd[2048];
  if (argc > 2)
    g_bad_dir = argv[2];
  if (g_bad_dir[0] != '/' && getcwd(cwd, sizeof cwd)) { /* the scene is in another folder */
    snprintf(bad_dir, sizeof bad_dir, "%s/%s", cwd, g_bad_dir);
    g_bad_dir = bad_dir;
  }
  snprintf(g_dir, sizeof g_dir, "/tmp/mixsim_particles_XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_values_in_the_frame, filter);
  RUN_TEST(test_kind_column_splits_a_dump, filter);
  RUN_TEST(test_section_keys_stand_in_for_columns, filter);
  RUN_TEST(test_id_column, filter);
  RUN_TEST(test_touching_and_compressed_discs_load, filter);
  RUN_TEST(test_deep_overlaps_refused, filter);
  RUN_TEST(test_far_rows_refused, filter);
  RUN_TEST(test_huge_box_places, filter);
  RUN_TEST(test_keys_refused_with_a_file, filter);
  RUN_TEST(test_bad_particle_files, filter);
  RUN_TEST(test_density_units, filter);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", g_dir);
  return TEST_EXIT();
}
