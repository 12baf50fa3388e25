/* A scene: everything one run needs, loaded from an INI file and fully validated.
 * Placement (lattice / random / generated large particles) happens at load time, so a
 * loaded scene is a concrete list of particles. */
#ifndef MIXSIM_SCENE_H
#define MIXSIM_SCENE_H

#include <stdint.h>

#include "mixsim/status.h"

typedef enum ms_mode { MS_MODE_COLLISION, MS_MODE_GRAVITY } ms_mode;
typedef enum ms_pipeline { MS_PIPELINE_NAIVE, MS_PIPELINE_REORDERED } ms_pipeline;
typedef enum ms_buffer_mode { MS_BUFFERS_SHARED, MS_BUFFERS_COPIED } ms_buffer_mode;

/* One large particle. Static ones never move and act with infinite mass. */
typedef struct ms_large {
  float x, y;   /* m */
  float vx, vy; /* m/s */
  float radius; /* m */
  float mass;   /* kg (density * pi r^2) */
  int is_static;
} ms_large;

typedef struct ms_scene {
  char path[512]; /* file name used in messages */
  ms_mode mode;

  /* [simulation] */
  double dt_s;
  long steps; /* default iteration count of a headless run */
  int iterations_per_frame;
  uint64_t seed;
  ms_pipeline pipeline;
  ms_buffer_mode buffers;
  float gravity[2]; /* m/s^2 */

  /* [box]: walls are the four sides */
  float box_min[2], box_max[2]; /* m */

  /* [material] */
  float stiffness;   /* N/m */
  float restitution; /* (0, 1] */

  /* [grid] */
  int grid_capacity; /* initial slots per cell; grows on overflow */

  /* [small] */
  int small_count;
  float small_radius;  /* m */
  float small_density; /* kg/m^2, areal: particles are discs */
  float small_mass;    /* derived: density * pi r^2 */
  float *small_pos;    /* 2 * small_count floats: x0 y0 x1 y1 ... */
  float *small_vel;    /* 2 * small_count floats */

  /* [large.NAME] and [large_random.NAME] */
  int large_count;
  ms_large *large;

  /* Line of the dt key (0 when defaulted), for messages about dt found later. */
  int dt_line;
} ms_scene;

/* Loads and validates `path`. On failure returns MS_ERR_INPUT (MS_ERR_RUNTIME for a
 * read error or lack of memory) with a message "path:line: [section] key: what is
 * wrong", and leaves *scene empty. */
ms_status ms_scene_load(const char *path, ms_scene *scene);

/* The same from a string; `name` stands for the file name in messages. */
ms_status ms_scene_load_string(const char *text, const char *name, ms_scene *scene);

void ms_scene_free(ms_scene *scene);

/* Shortest contact duration over every pair kind the scene can produce (s). */
double ms_scene_min_contact_time(const ms_scene *scene);

const char *ms_pipeline_name(ms_pipeline p);
const char *ms_buffer_mode_name(ms_buffer_mode b);
int ms_pipeline_parse(const char *s, ms_pipeline *out);
int ms_buffer_mode_parse(const char *s, ms_buffer_mode *out);

#endif
