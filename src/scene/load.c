/* Scene loader: reads the INI format below, validates every value against the line it
 * came from, places the particles (deterministically from the seed) and checks dt
 * against the shortest contact the scene can produce. */

/* Format. ';' starts a comment (after white space when inline). Vectors are
 * comma-separated: "0, -9.81". Keys may come in any order; a key or a section given
 * twice, an unknown key or section, and an indented line are errors. Defaults in ().
 *
 *   [simulation]
 *   mode = collision          ; collision | gravity                       (collision)
 *   dt = 1e-4                 ; s, >= 1.1e-19, required; must be <= t_c / 10
 *                             ; (a warning if e would come out > 3 % off: contact_time.c)
 *   steps = 2000              ; 0..10^15 (0: the initial state only)      (1000)
 *   iterations_per_frame = 4  ; 1..1000                                   (4)
 *   seed = 42                 ; unsigned 64-bit                           (1)
 *   pipeline = reordered      ; naive | reordered                         (reordered)
 *   buffers = shared          ; shared | copied | auto                    (shared)
 *   exchange = zone           ; zone | full | auto: what the CPU worker maps/reads
 *                             ; (zone on a GPU, full on a CPU device); auto: timed
 *   large_on = cpu            ; cpu | device | auto: the large particles' contacts (cpu)
 *   gravity = 0, -9.81        ; m/s^2                                     (0, -9.81)
 *   max_speed = 50            ; m/s, 1.1e-19..1.8e19: faster ones stop the run (no limit)
 *   [box]        min = x, y; max = x, y          ; both required, max > min
 *                periodic = none | x | y | xy (none); walls = all | none | left, right,
 *                bottom, top: the non-periodic sides that are walls, the rest open (all)
 *   [material]   stiffness = 1e5 (N/m, > 0); restitution = 0.5 (0 < e <= 1); required
 *   [material]   friction = 0.5 (mu, >= 0); rolling_friction = 0.01 (mu_r, >= 0);
 *                wall_friction = 0.5 (mu against the walls, >= 0): all 0 (frictionless)
 *                by default; tangential_stiffness = k_t / k_n in (0, 1] (1/3; used only
 *                with friction on: docs/friction.md)
 *   [grid]       capacity = 8                    ; 1..4096                (8)
 *   [small]                   ; optional; absent means no small particles
 *   count = 8200              ; >= 0, required
 *   radius = 0.005            ; m, > 0, required when count > 0
 *   density = 1000            ; > 0: N or N kg/m^2 (areal: discs), or N kg/m^3 (bulk)
 *                             ; with thickness = T (m): areal = N T       (1000)
 *   placement = lattice       ; lattice | random                          (lattice)
 *   region = x0, y0, x1, y1   ; inside the box                            (the box)
 *   spacing = 1.05            ; lattice pitch in diameters, >= 1; lattice only (1.05)
 *   velocity = 0, 0           ; m/s                                       (0, 0)
 *   velocity_spread = 0       ; >= 0, each component + uniform(-s, s)     (0)
 *   spin = 0                  ; rad/s, anticlockwise, every small particle (0)
 *   file = bed.csv            ; particles from a CSV instead (particles_csv.c): then
 *                             ; count, placement, region, spacing, radius_min/max,
 *                             ; radius_distribution, velocity_spread are errors
 *   [large.NAME]              ; one large particle; NAME: letters, digits, _ -
 *   position = x, y; radius = r   ; required; the disc must lie in the box
 *   density (1000); velocity (0, 0); static = false (true/false/yes/no/1/0;
 *   a static particle never moves and must have velocity 0); spin (0, rad/s,
 *   anticlockwise; 0 on a static particle)
 *   [large_random.NAME]       ; a generated group of large particles
 *   count (>= 1), radius_min (> 0), radius_max (>= radius_min), region: required
 *   density (1000); velocity (0, 0); velocity_spread (0); static (false); spin (0)
 *   [large_file.NAME]         ; large particles from a CSV (particles_csv.c)
 *   file = rocks.csv          ; required; relative to the scene's folder
 *   radius, density, velocity, static: for rows whose columns lack them
 *   thickness (every particle section): converts density = N kg/m^3
 *   [wall.NAME]               ; a wall of any shape (walls.c), in scene coordinates:
 *   segments = x1, y1, x2, y2, ...  ; a polyline, 2 points or more, inside the box,
 *                             ; not crossing or touching itself
 *   closed = no               ; yes: and the segment from the last point to the first
 *   circle = cx, cy, R        ; instead of segments: the inside of a circle in the box
 *   velocity = vx, vy; rotate = cx, cy, omega; oscillate = ax, ay, f (f > 0): together
 *   the motion c + v t + a sin(2 pi f t) + R(omega t)(X0 - c)   (still)
 *   force = fx, fy; mass = M  ; instead: moves along the force's line under it and its
 *                             ; contacts
 *   friction = mu; restitution = e    ; ([material] wall_friction, restitution)
 *   [inflow.NAME]             ; particles poured in (flows.c)
 *   region, rate (> 0): required; kind = small | large (small); start (0), stop (never),
 *   max_count (no limit); radius or radius_min/max, radius_distribution, density,
 *   thickness, velocity, velocity_spread, spin: as [small]'s
 *   [outflow.NAME]            ; region = x0, y0, x1, y1, required: removes the particles
 *                             ; whose centre enters it
 *
 * mode = gravity uses [simulation] dt, steps and seed, and one more section (the
 * collision sections and keys are then errors):
 *   [gravity]
 *   bodies = plummer          ; plummer | uniform | kepler | disk | file, required
 *   softening = 0.01          ; eps, length, 1e-12 .. 1e18, required
 *   G = 1                     ; > 0                                       (1)
 *   integrator = leapfrog     ; leapfrog | taylor                         (leapfrog)
 *   burst = 10                ; steps on the device between read-backs    (10)
 *   energy = auto             ; auto | exact | sampled | off              (auto)
 *   diagnostics_every = 100   ; steps, >= 0 (0: start and end only)       (100)
 *   dt_check = on             ; dt against the bodies' shortest time      (on)
 *   max_energy_error = 1      ; |dE/E0| that stops the run, > 0 or off     (1)
 *   count = 16384             ; bodies: plummer, uniform, disk (required there)
 *   mass = 1                  ; total (disk: of the disk), > 0: all but file (1)
 *   radius = 1                ; > 0: plummer virial radius, uniform sphere, disk (1)
 *   eccentricity = 0.5        ; kepler, 0 <= e < 1                        (0)
 *   semi_major_axis = 1       ; kepler, > 0                               (1)
 *   mass_ratio = 1            ; kepler, m2 / m1 > 0                       (1)
 *   central_mass = 0          ; disk, >= 0; > 0 adds body 0 at the centre (0)
 *   thickness = 0             ; disk, >= 0                                (0)
 *   file = bodies.csv         ; file, required there; relative to the scene's folder
 * A key that does not apply to the chosen bodies is an error. Generated bodies come
 * from one splitmix64 stream seeded with `seed` (src/scene/bodies.c).
 *
 * Placement, all from one splitmix64 stream seeded with `seed`: [large.*] in file
 * order, then [large_file.*] (no draws), then [large_random.*] groups in file order
 * (radius drawn once, then up to 10000 centres), then small particles (lattice: row by row from the region's
 * bottom-left corner, skipping sites on large particles; random: up to 1000 tries
 * each), then small velocities. Discs may touch but never overlap, also after rounding
 * to float (an overlap of a few units in the last place is touching).
 *
 * Every positive value, mass and damping coefficient must be a normal float, as the
 * simulation computes in single precision. A file must be a regular file of at most
 * MS_SCENE_MAX_BYTES and MS_SCENE_MAX_LINES (include/mixsim/scene.h); a NUL byte in a
 * line is an error. */
#include "mixsim/scene.h"

#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/grow.h"
#include "scene/loader.h"
#include "shared/contact.h"

static void loader_init(loader *ld, const char *path, ms_scene *scene)
{
  *ld = (loader){.path = path, .scene = scene, .current = -1, .box_walls = -1};
  ld->small = (small_spec){.section = -1, .spacing = 1.05, .file = {.section = -1}};
  *scene = (ms_scene){
      .mode = MS_MODE_COLLISION,
      .steps = 1000,
      .iterations_per_frame = 4,
      .seed = 1,
      .pipeline = MS_PIPELINE_REORDERED,
      .buffers = MS_BUFFERS_SHARED,
      .exchange = MS_EXCHANGE_ZONE,
      .gravity = {0.0f, -9.81f},
      .grid_capacity = 8,
      .small_density = 1000.0f,
      .tangential_stiffness = MS_DISC_KT_RATIO,
      .grav = {.g = 1.0, .burst = 10, .diagnostics_every = 100, .dt_check = 1,
               .max_energy_error = 1.0, .mass = 1.0, .radius = 1.0,
               .semi_major_axis = 1.0, .mass_ratio = 1.0},
  };
  snprintf(scene->path, sizeof scene->path, "%s", path);
}

/* Everything after parsing: checks that need several keys, then placement and dt. */
static int build(loader *ld)
{
  ms_scene *s = ld->scene;
  if (!ms_ld_check_mode(ld))
    return 0;
  if (s->mode == MS_MODE_GRAVITY)
    return ms_ld_build_gravity(ld);
  if (!ms_ld_check_required(ld) || !ms_ld_check_sections(ld))
    return 0;
  small_spec *sm = &ld->small;
  if (sm->section < 0 || !ms_ld_line_of(&ld->sections[sm->section], "region")) {
    const double box[4] = {s->box_min[0], s->box_min[1], s->box_max[0], s->box_max[1]};
    memcpy(sm->region, box, sizeof box);
  }
  if (!ms_ld_read_particle_files(ld))
    return 0;
  s->small_count = (int)sm->count;
  return ms_ld_place_all(ld) && ms_ld_read_dump_states(ld) && ms_ld_check_open(ld) &&
         ms_ld_check_dt(ld);
}

static void print_warnings(const ms_scene *s)
{
  for (int i = 0; i < s->warning_count && i < MS_SCENE_WARNINGS_MAX; i++)
    ms_warn("%s", s->warnings[i]);
  if (s->warning_count > MS_SCENE_WARNINGS_MAX)
    ms_warn("%s: %d more warnings", s->path, s->warning_count - MS_SCENE_WARNINGS_MAX);
}

int ms_ld_note_input(loader *ld, const char *section_name, const char *what, const char *path)
{
  ms_scene *s = ld->scene;
  size_t cap = (size_t)ld->input_cap;
  ms_scene_input *grown = ms_grow(s->inputs, (size_t)s->input_count, &cap, sizeof *grown, 4);
  if (!grown)
    return ms_ld_fail_memory(ld);
  s->inputs = grown;
  ld->input_cap = (int)cap;
  ms_scene_input *in = &s->inputs[s->input_count++];
  snprintf(in->key, sizeof in->key, "[%s] %s", section_name, what);
  snprintf(in->path, sizeof in->path, "%s", path);
  return 1;
}

static ms_status finish(loader *ld, int inih_result)
{
  /* inih's own syntax errors: our reader catches the ones we know of first. */
  if (inih_result > 0 && (ld->status == MS_OK || inih_result < ld->error_line)) {
    ld->status = MS_OK;
    ms_ld_fail_at(ld, inih_result, NULL, NULL, "syntax error");
  } else if (inih_result == -2) {
    ms_ld_fail_memory(ld);
  }
  if (ld->status == MS_OK)
    build(ld);
  free(ld->sections);
  free(ld->name_slots);
  free(ld->large);
  free(ld->groups);
  ms_ld_free_particle_files(ld);
  if (ld->status == MS_OK) {
    print_warnings(ld->scene);
    return MS_OK;
  }
  ms_scene_free(ld->scene);
  return ms_fail(ld->status, "%s", ld->message);
}

ms_status ms_scene_load(const char *path, ms_scene *scene)
{
  *scene = (ms_scene){0};
  char why[256];
  FILE *f = ms_open_regular(path, MS_SCENE_MAX_BYTES, why, sizeof why);
  if (!f)
    return ms_fail(MS_ERR_INPUT, "cannot open scene '%s': %s", path, why);
  loader ld;
  loader_init(&ld, path, scene);
  ld.file = f;
  int rc = ini_parse_stream(ms_ld_read_file_line, &ld, ms_ld_on_key, &ld);
  if (ferror(f) && ld.status == MS_OK) {
    snprintf(ld.message, sizeof ld.message, "cannot read scene '%s'", path);
    ld.status = MS_ERR_RUNTIME;
  }
  fclose(f);
  return finish(&ld, rc);
}

ms_status ms_scene_load_string(const char *text, const char *name, ms_scene *scene)
{
  loader ld;
  loader_init(&ld, name, scene);
  ld.text = text;
  int rc = ini_parse_stream(ms_ld_read_text_line, &ld, ms_ld_on_key, &ld);
  return finish(&ld, rc);
}

int ms_scene_friction_on(const ms_scene *s)
{
  for (int i = 0; i < s->wall_count; i++)
    if (s->walls[i].friction > 0.0f)
      return 1;
  return s->friction > 0.0f || s->rolling_friction > 0.0f || s->wall_friction > 0.0f;
}

void ms_scene_free(ms_scene *scene)
{
  if (!scene)
    return;
  free(scene->small_pos);
  free(scene->small_vel);
  free(scene->small_r);
  free(scene->small_m);
  free(scene->small_rot);
  free(scene->large);
  free(scene->large_origin);
  free(scene->small_id);
  free(scene->large_id);
  free(scene->grav.pos);
  free(scene->grav.vel);
  free(scene->inputs);
  free(scene->hist.ss);
  free(scene->hist.ls);
  free(scene->hist.ll);
  free(scene->hist.small_wall_xi);
  free(scene->hist.large_wall_xi);
  for (int i = 0; i < scene->wall_count; i++)
    free(scene->walls[i].points);
  free(scene->walls);
  free(scene->inflows);
  free(scene->outflows);
  *scene = (ms_scene){0};
}
