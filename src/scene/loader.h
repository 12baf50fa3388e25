/* The scene loader's private state, shared by its parts (src/scene/): reading lines
 * (ini_reader.c), values (values.c), the schema of sections and keys (schema.c), the
 * gravity keys (gravity_keys.c), the walls (walls.c), the open sides, inflows and outflows
 * (flows.c, flows_periodic.c), placement (placement.c), the dt check (contact_time.c), and
 * the entry points (load.c). Every ms_ld_* function that can
 * fail records the first error in the loader and returns 0, so checks chain with &&. */
#ifndef MS_SCENE_LOADER_H
#define MS_SCENE_LOADER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mixsim/scene.h"

#define NAME_MAX_LEN 64
#define MAX_KEYS 20
#define MS_LD_MAX_SMALL 50000000L       /* small particles */
#define MS_LD_MAX_LARGE 10000000L       /* large particles, all sections together */

/* How a section's `density` was written (values.c): a bare number and kg/m^2 are
 * areal, kg/m^3 is bulk and needs `thickness` (schema.c converts). */
typedef enum density_unit { DENSITY_BARE, DENSITY_AREAL, DENSITY_BULK } density_unit;

typedef enum section_kind {
  SEC_SIMULATION,
  SEC_BOX,
  SEC_MATERIAL,
  SEC_GRID,
  SEC_SMALL,
  SEC_GRAVITY,
  SEC_LARGE,
  SEC_LARGE_RANDOM,
  SEC_LARGE_FILE,
  SEC_OUTPUT, /* the --output time series: dir, every, format */
  SEC_WALL,   /* [wall.NAME]: a wall of any shape (walls.c) */
  SEC_INFLOW, /* [inflow.NAME]: particles poured in (flows.c) */
  SEC_OUTFLOW, /* [outflow.NAME]: particles removed (flows.c) */
  SEC_KIND_COUNT
} section_kind;

typedef struct section {
  char name[NAME_MAX_LEN];
  int line;
  section_kind kind;
  int item;               /* index into the loader's large or group specs, scene->walls */
  int key_line[MAX_KEYS]; /* line of each key of g_keys[kind]; 0 = not given */
  double density;         /* the density key's number, in density_unit */
  density_unit density_unit;
  double thickness;       /* m, for a bulk density */
} section;

/* One particle read from a CSV file, in the simulation frame. */
typedef struct file_disc {
  double x, y, vx, vy;
  double theta, w; /* angle and spin (the theta, omega columns; else 0 and the spin key) */
  float r, m;
  int is_static;
  long line;  /* its line in the file, for messages */
  long index; /* the index column (a dump's row within its kind), -1: none or not a count */
  int64_t id; /* the id column (a persistent id, >= 0), -1: none */
} file_disc;

/* [small] file or [large_file.NAME]: the file's particles and the section's keys that
 * stand in for missing columns. */
typedef struct particle_file {
  int section;        /* -1: none */
  char name[512];     /* the file key as written */
  char path[512];     /* resolved against the scene's folder */
  float radius;       /* the section's radius; 0: from the radius column */
  double density;     /* areal, kg/m^2: the mass of rows without one */
  double velocity[2]; /* of rows without vx, vy */
  int is_static;      /* of rows without static */
  int has_rot;        /* the file has a theta or an omega column */
  file_disc *disc;
  long count;
  long other_kind;    /* rows of the other kind (kind column), not taken */
  int has_index;      /* the file has an index column (as a dump has) */
  int has_id;         /* the file has an id column (dump_state.c gathers the ids) */
  long first;         /* [large_file.NAME]: the scene's index of its first particle */
} particle_file;

/* How [small] radii are drawn between radius_min and radius_max. */
typedef enum small_sizes {
  SIZES_UNIFORM, /* uniform in radius */
  SIZES_AREA     /* uniform in area (r^2): as many discs of each size per unit mass */
} small_sizes;

/* Radii hold float-rounded values (the simulation's radii are floats); positions,
 * regions and velocities are doubles in the scene's coordinates, as written. */
typedef struct small_spec {
  int section; /* -1 when there is no [small] */
  long count;
  int random;
  double region[4];
  double spacing;
  double velocity[2];
  double spread;
  small_sizes sizes;
  particle_file file; /* file.section >= 0: the particles come from `file` */
} small_spec;

typedef struct large_spec {
  int section;
  double position[2];
  float radius;
  double density;
  double velocity[2];
  double spin; /* rad/s, anticlockwise */
  int is_static;
} large_spec;

typedef struct group_spec {
  int section;
  long count;
  float radius_min, radius_max;
  double region[4];
  double density;
  double velocity[2];
  double spread;
  double spin; /* rad/s, anticlockwise, every particle of the group */
  int is_static;
} group_spec;

typedef struct loader {
  const char *path;
  ms_scene *scene;
  FILE *file;       /* input: a file ... */
  const char *text; /* ... or the rest of a string */
  int line;         /* line inih is working on */
  int line_limit;   /* longest line inih accepts */
  long bytes;       /* read so far from `file` */
  section *sections;
  int section_count, section_cap;
  int *name_slots; /* section index by name hash, -1 = free (ini_reader.c) */
  int name_cap;
  int current;     /* section of the current line, -1 before the first header */
  const char *key; /* key being read, for messages */
  small_spec small;
  large_spec *large;
  int large_count, large_cap;
  group_spec *groups;
  int group_count, group_cap;
  particle_file *files; /* [large_file.NAME], in file order */
  int file_count, file_cap;
  char body_file[512]; /* [gravity] file as written */
  int input_cap;       /* room in scene->inputs */
  int wall_cap;        /* room in scene->walls */
  int inflow_cap, outflow_cap; /* room in scene->inflows, scene->outflows */
  int box_walls;       /* [box] walls: bit k for side k (left, right, bottom, top) listed;
                          -1: all (the default) */
  ms_status status; /* MS_OK until the first error */
  int error_line;
  char message[1024];
} loader;

static inline int ms_ld_is(const char *key, const char *name) { return strcmp(key, name) == 0; }

/* Errors (ini_reader.c). Each returns 0. */
__attribute__((format(printf, 5, 6))) int
ms_ld_fail_at(loader *ld, int line, const char *section, const char *key, const char *fmt, ...);
/* An error about the value being read, at its line and key. */
__attribute__((format(printf, 2, 3))) int ms_ld_bad_value(loader *ld, const char *fmt, ...);
/* An error found after parsing, at the line of `key` (or the section header). */
__attribute__((format(printf, 4, 5))) int
ms_ld_fail_key(loader *ld, const section *sec, const char *key, const char *fmt, ...);
int ms_ld_fail_memory(loader *ld);
struct ms_csv;
/* A data file's failure: the CSV reader's message becomes the loader's error at the
 * section's `file` key; a runtime failure (memory) is kept as it is. */
int ms_ld_fail_csv(loader *ld, const section *sec, const struct ms_csv *c, ms_status st);
/* A warning in the same form, kept on the scene; load.c prints them once it loaded. */
__attribute__((format(printf, 5, 6))) void
ms_ld_warn_at(loader *ld, int line, const char *section, const char *key, const char *fmt, ...);

/* Line readers for inih's ini_parse_stream (ini_reader.c): `stream` is the loader. */
char *ms_ld_read_file_line(char *buf, int size, void *stream);
char *ms_ld_read_text_line(char *buf, int size, void *stream);

/* Values (values.c): each parses `text` for the key being read. */
int ms_ld_parse_number(loader *ld, const char *text, double *out);
int ms_ld_at_least(loader *ld, double v, double lo);
int ms_ld_read_positive(loader *ld, const char *text, double *out);
int ms_ld_read_positive_float(loader *ld, const char *text, float *out);
int ms_ld_positive_float(loader *ld, double v, float *out); /* a normal float */
int ms_ld_float(loader *ld, double v, float *out); /* fits, and normal unless 0 */
int ms_ld_read_long(loader *ld, const char *text, long lo, long hi, long *out);
int ms_ld_read_int(loader *ld, const char *text, int lo, int hi, int *out);
int ms_ld_read_seed(loader *ld, const char *text, uint64_t *out);
int ms_ld_read_vec2f(loader *ld, const char *text, float out[2]);
int ms_ld_read_vec2(loader *ld, const char *text, double out[2]); /* not rounded to float */
int ms_ld_read_region(loader *ld, const char *text, double out[4]);
int ms_ld_read_bool(loader *ld, const char *text, int *out);
int ms_ld_read_spread(loader *ld, const char *v, double *out);
int ms_ld_read_choice(loader *ld, const char *v, const char *const *names, int n, int *out);
int ms_ld_read_numbers(loader *ld, const char *text, int n, double *out); /* exactly n */
/* One or more comma-separated numbers into a new array (*out, freed by the caller). */
int ms_ld_read_list(loader *ld, const char *text, double **out, int *count);

/* Schema (schema.c). */
int ms_ld_kind_of(const char *name, section_kind *kind);
int ms_ld_line_of(const section *sec, const char *key); /* 0: not given */
const section *ms_ld_find_kind(const loader *ld, section_kind kind);
int ms_ld_on_key(void *user, const char *inih_section, const char *key, const char *value);
int ms_ld_check_mode(loader *ld);
int ms_ld_check_required(loader *ld);
int ms_ld_check_sections(loader *ld);
int ms_ld_check_grid(loader *ld); /* after the small particles' sizes are known */
/* A region of `sec` inside the box, at its region key's line; a disc's mass (density * pi
 * r^2) a normal float, at the line of density, or else of radius_key. */
int ms_ld_check_region(loader *ld, const section *sec, const double r[4]);
int ms_ld_check_mass(loader *ld, const section *sec, double density, double r,
                     const char *radius_key);
/* Coefficients that [material] and [wall.NAME] share: a friction coefficient (>= 0, 0 or
 * a normal float) and a restitution (in (0, 1], a normal float). */
int ms_ld_read_coefficient(loader *ld, const char *v, float *out);
int ms_ld_read_restitution(loader *ld, const char *v, float *out);

/* [wall.NAME] (walls.c): a new wall in scene->walls for the section just begun, its keys,
 * and the checks once every section is read (the box checked): the wall's keys together,
 * its coefficients resolved from [material], its coordinates moved into the simulation
 * frame, its shape inside the box and not crossing itself. */
int ms_ld_add_wall(loader *ld, section *sec);
int ms_ld_set_wall(loader *ld, ms_wall *w, const char *key, const char *v);
int ms_ld_check_wall(loader *ld, const section *sec);

/* [box] periodic and walls, [inflow.NAME], [outflow.NAME] (flows.c): the keys, then the
 * checks once every section is read: the sides (periodic ones listed in walls, box_open),
 * and each flow's keys together, its region in the box and moved into the frame. */
int ms_ld_set_box_sides(loader *ld, const char *key, const char *v);
int ms_ld_check_box_sides(loader *ld);
int ms_ld_add_flow(loader *ld, section *sec);
int ms_ld_set_inflow(loader *ld, ms_inflow *in, const char *key, const char *v);
int ms_ld_set_outflow(loader *ld, ms_outflow *out, const char *key, const char *v);
int ms_ld_check_inflow(loader *ld, const section *sec);
int ms_ld_check_outflow(loader *ld, const section *sec);
/* The largest and smallest small radius over [small] and the kind = small inflows (0, 0
 * when no small particle can exist); after placement (flows_periodic.c). */
void ms_ld_small_radius_range(const loader *ld, float *r_min, float *r_max);
/* After placement: the small radii take in the inflows', then the grid and, on a periodic
 * box, its cell, the large particles and the walls are checked (flows_periodic.c). */
int ms_ld_check_open(loader *ld);

/* mode = gravity (gravity_keys.c). */
int ms_ld_set_gravity(loader *ld, const char *key, const char *v);
int ms_ld_build_gravity(loader *ld);
/* dt against the initial bodies' shortest two-body time (gravity_dt.c). */
int ms_ld_check_gravity_dt(loader *ld);

/* Warnings about a key, "path:line: [section] key: ..." (ini_reader.c). */
__attribute__((format(printf, 4, 5))) void
ms_ld_warn_key(const loader *ld, const section *sec, const char *key, const char *fmt, ...);

/* Densities with units (values.c) and their conversion to areal ones (schema.c). */
int ms_ld_read_density(loader *ld, const char *text, section *sec);
int ms_ld_areal_density(loader *ld, const section *sec, double r_min, double *areal);

/* Particle files (particles_csv.c): reads every [small] file and [large_file.*] into
 * its particle_file; placement.c checks and places them. */
int ms_ld_read_particle_files(loader *ld);
void ms_ld_free_particle_files(loader *ld);

/* A dump's state (dump_state.c): beside each particle file, the dumped run's grid radius
 * (for a [small] file) and with friction its contact histories, matched to the placed
 * particles (after ms_ld_place_all) into scene->hist. */
int ms_ld_read_dump_states(loader *ld);

/* A file read for section `section_name` ("small", "large_file.rocks"), recorded in
 * scene->inputs as "[NAME] WHAT" ("[small] file") (load.c). */
int ms_ld_note_input(loader *ld, const char *section_name, const char *what, const char *path);

/* Placement (placement.c) and the dt check (contact_time.c). */
double ms_ld_disc_mass(double density, double r);
int ms_ld_place_all(loader *ld);
int ms_ld_check_dt(loader *ld);

#endif
