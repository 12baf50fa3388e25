/* A scene: everything one run needs, loaded from an INI file and fully validated.
 * Placement (lattice / random / generated large particles) happens at load time, so a
 * loaded scene is a concrete list of particles. */
#ifndef MIXSIM_SCENE_H
#define MIXSIM_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "mixsim/status.h"

/* Limits shared by the scene loader, the command line and the simulation. */
#define MS_STEPS_MAX 1000000000000000L /* 10^15: step counts stay exact in a double (JSON, t) */
#define MS_BURST_MAX 1000000L          /* gravity steps between read-backs */
#define MS_CPU_THREADS_MAX 256         /* the CPU worker's threads, pool included */
#define MS_CPU_THREADS_DEFAULT_MAX 16  /* ... unless set: more poll for nothing (sim.c) */
#define MS_GRID_MAX_CELLS (1L << 28)   /* collision grid cells (box / small diameter) */
#define MS_SCENE_MAX_BYTES (16L << 20) /* a scene file, 16 MiB */
#define MS_SCENE_MAX_LINES 1000000L
#define MS_SCENE_WARNINGS_MAX 4        /* kept on the scene; all are printed */

typedef enum ms_mode { MS_MODE_COLLISION, MS_MODE_GRAVITY } ms_mode;
typedef enum ms_pipeline { MS_PIPELINE_NAIVE, MS_PIPELINE_REORDERED } ms_pipeline;
typedef enum ms_buffer_mode { MS_BUFFERS_SHARED, MS_BUFFERS_COPIED } ms_buffer_mode;
/* What the CPU worker maps or reads each iteration: the contact zone (the cells under
 * the large particles, gathered on the device) or the full small-particle and grid
 * arrays. Both give the same state bit for bit. Not given: by device type (see
 * ms_sim_create). `auto` (timing both) is no value here: ms_scene.exchange_auto. */
typedef enum ms_exchange { MS_EXCHANGE_ZONE, MS_EXCHANGE_FULL } ms_exchange;
/* Where the large particles' contacts and integration run: on the CPU worker (the case
 * study's design, the default) or as kernels on the small particles' device (the
 * device-only baseline). Both give the same state bit for bit. (An automatic choice
 * would be a further value here.) */
typedef enum ms_large_on { MS_LARGE_ON_CPU, MS_LARGE_ON_DEVICE } ms_large_on;

/* Positions of a collision scene, and of the simulation's state, are in the simulation
 * frame: metres from the box's lower-left corner `box_min`, in double precision. The
 * precision is then the same everywhere in the box, wherever the box lies (a scene
 * shifted by 100 m runs as the unshifted one does); files and messages use the scene's
 * own coordinates, box_min + frame. */

/* One large particle. Static ones never move and act with infinite mass. */
typedef struct ms_large {
  double x, y;   /* m, simulation frame */
  double vx, vy; /* m/s */
  float radius;  /* m */
  float mass;   /* kg (density * pi r^2) */
  int is_static;
  double spin;  /* rad/s, anticlockwise (0 when static); used only with friction on */
  double theta; /* rad, the initial angle (a file's theta column; else 0); friction on */
} ms_large;

/* The section that placed a run of large particles, for messages that name a particle
 * as the scene does: [large.NAME] places one, [large_random.NAME] `count` in a row. */
typedef struct ms_large_origin {
  char section[64]; /* "large.rock", "large_random.rocks" */
  int first, count; /* particles [first, first + count) in scene order */
  int generated;    /* from [large_random.NAME]: a particle is named by its number in it */
} ms_large_origin;

/* A wall of any shape ([wall.NAME], docs/scenes.md): a polyline, two-sided, or the inside
 * of a circle (a drum). It moves as prescribed, a point X0 of it being at
 * c + T(t) + R(omega t)(X0 - c) with T(t) = velocity t + osc_amp sin(2 pi osc_freq t) and c
 * the rotation's centre, or, force-driven, only along its force's line, pushed by the force
 * and its contacts. */
typedef enum ms_wall_kind { MS_WALL_POLYLINE, MS_WALL_CIRCLE } ms_wall_kind;
/* One wall ([wall.NAME]); coordinates in the simulation frame, like ms_large.x/y (the
 * loader converts from the scene frame exactly as it does for particles). */
typedef struct ms_wall {
  char section[80];          /* "wall.NAME", for messages */
  int line;                  /* the section header's line in the scene file */
  ms_wall_kind kind;
  double *points;            /* polyline: x,y pairs (n_points of them), simulation frame */
  int n_points;
  int closed;                /* polyline: the segment from the last point back to the first too */
  double center[2], radius;  /* circle: the inside is the particles' side */
  double velocity[2];        /* prescribed motion, each 0 when absent */
  int rotates;               /* rotate given */
  double rot_center[2];      /* simulation frame */
  double omega;              /* rad/s, anticlockwise positive */
  double osc_amp[2];         /* oscillate: displacement amplitude (m) */
  double osc_freq;           /* Hz; 0: no oscillation */
  int force_driven;          /* force given: moves only along the force's line */
  double force[2];           /* N (per unit depth, like the rest of the 2D model) */
  double mass;               /* kg, force-driven walls only */
  float friction;            /* resolved: the wall's own, else [material] wall_friction */
  float restitution;         /* resolved: the wall's own, else [material] restitution */
} ms_wall;

/* [inflow.NAME]: particles poured into `region` at `rate` per second from `start` until
 * `stop` or `max_count`, placed without overlap (positions and sizes from the scene's
 * seed and the step); a particle with no room is skipped and counted. */
typedef enum ms_inflow_kind { MS_INFLOW_SMALL, MS_INFLOW_LARGE } ms_inflow_kind;
typedef enum ms_radius_law { MS_RADIUS_UNIFORM, MS_RADIUS_AREA } ms_radius_law;
typedef struct ms_inflow {
  char section[80];   /* "inflow.NAME", for messages */
  int line;           /* the section header's line */
  ms_inflow_kind kind;
  double region[4];   /* x0, y0, x1, y1, simulation frame */
  double rate;        /* particles per second (> 0) */
  double start, stop; /* s; stop = HUGE_VAL when not given */
  long max_count;     /* 0: no limit */
  float radius_min, radius_max; /* m; equal when `radius` is given */
  ms_radius_law radius_law;     /* radius_distribution, as [small]'s */
  float density;      /* kg/m^2, areal like [small]'s */
  double velocity[2]; /* m/s */
  double velocity_spread; /* each component + uniform(-s, s) */
  double spin;        /* rad/s */
} ms_inflow;

/* The particles an inflow owes by time t: rate (t - start) while it runs, at most
 * max_count; and all it can ever pour (max_count, or at stop; -1 when unbounded). */
long ms_inflow_due(const ms_inflow *in, double t);
long ms_inflow_total(const ms_inflow *in);
/* A kind = large inflow pours at most this many: its slots are made at load. */
#define MS_LARGE_INFLOW_MAX (1 << 20)

/* [outflow.NAME]: a particle whose centre enters `region` is removed at the step's end. */
typedef struct ms_outflow {
  char section[80];
  int line;
  double region[4]; /* x0, y0, x1, y1, simulation frame */
} ms_outflow;

/* mode = gravity: where the bodies come from, how they are integrated. */
typedef enum ms_bodies {
  MS_BODIES_PLUMMER, /* virialised Plummer sphere (Aarseth, Henon & Wielen 1974) */
  MS_BODIES_UNIFORM, /* uniform sphere at rest (cold collapse) */
  MS_BODIES_KEPLER,  /* two bodies on a Kepler orbit, starting at pericentre */
  MS_BODIES_DISK,    /* disk on circular orbits, optionally around a central mass */
  MS_BODIES_FILE     /* CSV: x,y,z,vx,vy,vz,m */
} ms_bodies;
typedef enum ms_integrator {
  MS_INTEGRATOR_LEAPFROG, /* kick-drift-kick, symplectic, second order */
  MS_INTEGRATOR_TAYLOR    /* the tutorial's x += v dt + a dt^2/2, v += a dt */
} ms_integrator;
typedef enum ms_energy_mode {
  MS_ENERGY_AUTO,    /* exact up to MS_ENERGY_EXACT_MAX bodies, sampled above */
  MS_ENERGY_EXACT,   /* all pairs, double precision, O(N^2) on the host */
  MS_ENERGY_SAMPLED, /* a fixed subset of bodies against all: an estimate */
  MS_ENERGY_OFF
} ms_energy_mode;
#define MS_ENERGY_EXACT_MAX 20000

/* [gravity]: parameters as given (defaults filled in), and the bodies they produced. */
typedef struct ms_gravity_scene {
  ms_bodies bodies;
  int count;                /* number of bodies */
  double g;                 /* gravitational constant G, in the scene's units */
  double softening;         /* eps, length */
  long burst;               /* steps run on the device between read-backs */
  ms_integrator integrator;
  ms_energy_mode energy;
  long diagnostics_every;   /* steps; 0: only at the start and the end */
  int dt_check;             /* dt checked against the bodies' shortest time (1) */
  double max_energy_error;  /* |dE/E0| that stops the run (exit 4); 0: no bound */
  /* generator parameters (those that apply to `bodies`) */
  double mass;              /* total mass (disk: of the disk) */
  double radius;            /* plummer: virial radius; uniform: sphere; disk: outer radius */
  double eccentricity, semi_major_axis, mass_ratio; /* kepler; mass_ratio = m2/m1 */
  double central_mass, thickness;                   /* disk */
  char file[512];           /* bodies = file: the path as resolved (scene folder) */
  float *pos;               /* 4 per body: x, y, z, m */
  float *vel;               /* 3 per body: vx, vy, vz */
} ms_gravity_scene;

/* A file the scene reads besides its own ([small] file, [large_file.NAME] file,
 * [gravity] file): part of the scene's identity, which a checkpoint records. */
typedef struct ms_scene_input {
  char key[96];   /* "[small] file", "[large_file.rocks] file" */
  char path[512]; /* as read: resolved against the scene's folder */
} ms_scene_input;

/* A contact's stored tangential displacement (friction's history), between particles of
 * the scene: a, b as their kinds' indices say. */
typedef struct ms_scene_contact {
  int a, b;
  float xi; /* m */
} ms_scene_contact;

/* The contact histories a frictional scene starts with, read beside its particle files
 * (a --dump's FILE.state.csv, docs/output.md); present 0: none, every contact starts
 * unstretched. */
typedef struct ms_scene_histories {
  int present;
  ms_scene_contact *ss, *ls, *ll; /* small-small (a < b), large-small (a large, b small),
                                     large-large (a < b), each sorted by (a, b) */
  long n_ss, n_ls, n_ll;
  float *small_wall_xi, *large_wall_xi; /* 4 per particle (left, right, bottom, top), or NULL */
} ms_scene_histories;

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
  int buffers_given;  /* set by the key or --buffers; else the device type decides */
  ms_exchange exchange;
  int exchange_given; /* set by the key or --exchange; else the device type decides */
  ms_large_on large_on; /* cpu unless the key or --large-on says */
  /* Given as `auto`: the key's line, or -1 for the option; 0: not auto. The run then
   * times the values over its first iterations and keeps the fastest (collision/tuner.h);
   * `buffers`/`exchange`/`large_on` hold what it uses when it is too short to tune. The simulation
   * itself only ever runs concrete values. */
  int buffers_auto, exchange_auto, large_on_auto;
  int cpu_threads;  /* the CPU worker's threads; 0: by the host (mixsim/sim.h) */
  int worker_list_off; /* worker_list = off: the CPU worker walks the cells every iteration */
  int profile;         /* --profile: 0 auto (on a CPU device), 1 on, 2 off (cl/runtime.h) */
  float gravity[2]; /* m/s^2 */

  /* [box]: the four sides, each a wall, periodic (`periodic`) or open (`walls` leaves it
   * out: a particle crossing it leaves the simulation) */
  double box_min[2], box_max[2]; /* m, scene coordinates; box_min is the frame's origin */
  int periodic[2];  /* x, y: the box wraps along that axis, its two sides have no wall */
  int box_open[4];  /* left, right, bottom, top: 1 where `walls` leaves a non-periodic side
                       open (zero-filled, as a scene built by hand is: four walls) */

  /* [inflow.NAME] and [outflow.NAME], in file order (docs/scenes.md) */
  int inflow_count;
  struct ms_inflow *inflows;
  int outflow_count;
  struct ms_outflow *outflows;

  /* [material] */
  float stiffness;   /* N/m */
  float restitution; /* (0, 1] */
  /* Friction (docs/friction.md). All three 0: frictionless, the program as it was (no
   * rotation, no history, the same kernels and hashes); see ms_scene_friction_on. */
  float friction;             /* mu, pairs (>= 0) */
  float rolling_friction;     /* mu_r, pairs and walls (>= 0) */
  float wall_friction;        /* mu against the four walls (>= 0) */
  float tangential_stiffness; /* k_t / k_n, in (0, 1]; default 1/3 (MS_DISC_KT_RATIO) */

  /* [grid] */
  int grid_capacity; /* initial slots per cell; grows on overflow */

  /* [small] */
  int small_count;
  float small_radius;     /* m: the largest small radius (the grid cell is 2 of it) */
  float small_radius_min; /* m: the smallest (= small_radius when monodisperse) */
  float small_density;    /* kg/m^2, areal: particles are discs */
  float *small_r;         /* small_count radii, m */
  float *small_m;         /* small_count masses, kg (density * pi r^2) */
  double *small_pos;      /* 2 * small_count, simulation frame: x0 y0 x1 y1 ... */
  double *small_vel;      /* 2 * small_count, m/s */
  double small_spin;      /* [small] spin: rad/s, anticlockwise, every small particle */
  double *small_rot;      /* 2 * small_count, (theta, omega) of each from a [small] file
                             with a theta or omega column; NULL: angle 0, small_spin */

  /* [large.NAME] and [large_random.NAME] */
  int large_count;
  ms_large *large;
  ms_large_origin *large_origin; /* in placement order; NULL for a scene built by hand */
  int large_origin_count;

  /* [wall.NAME], in file order */
  int wall_count;
  ms_wall *walls;

  /* Line of the dt key (0 when defaulted), for messages about dt found later. */
  int dt_line;

  /* [gravity], mode = gravity only */
  ms_gravity_scene grav;

  /* [output]: the --output time series (docs/output.md); output_dir "" : none. The
   * lines are for messages (0: not given). */
  char output_dir[512];
  long output_every; /* 0: not given */
  int output_csv;    /* format = csv (else vtk) */
  int output_diagnostics; /* diagnostics = true: DIR/diagnostics.csv too */
  int output_line;

  /* [simulation] max_speed: a particle faster than this (m/s) stops the run as
   * exploding; 0 means no limit (NaN/Inf always stop it). */
  float max_speed;

  /* The files read besides the scene's own, in the order read. */
  ms_scene_input *inputs;
  int input_count;

  /* Friction on: the contact histories read beside its particle files. */
  ms_scene_histories hist;

  /* Warnings found while loading, "path:line: [section] key: text"; the loader prints
   * each with ms_warn (silenced by --quiet) and keeps the first MS_SCENE_WARNINGS_MAX. */
  int warning_count;
  char warnings[MS_SCENE_WARNINGS_MAX][1024];

  /* Persistent particle ids (mixsim/sim.h, ms_sim_small_ids), one per particle in scene
   * order, when a particle file gives an id column: that file's ids, and the particles no
   * such file gives counting up from the largest + 1 (small first, then large); all unique
   * and >= 0. Both NULL when no file gives ids: the sim then numbers them itself. */
  int64_t *small_id, *large_id;
} ms_scene;

/* Loads and validates `path`. On failure returns MS_ERR_INPUT (MS_ERR_RUNTIME for a
 * read error or lack of memory) with a message "path:line: [section] key: what is
 * wrong", and leaves *scene empty. */
ms_status ms_scene_load(const char *path, ms_scene *scene);

/* The same from a string; `name` stands for the file name in messages. */
ms_status ms_scene_load_string(const char *text, const char *name, ms_scene *scene);

void ms_scene_free(ms_scene *scene);

/* Where a --dump of `path` keeps the state its rows do not hold (the grid's radius, the
 * contact histories), and a scene reading the particle file `path` finds it: the path
 * without a final ".csv", then ".state.csv". Returns 0 when that does not fit in `size`. */
int ms_dump_state_path(const char *path, char *out, size_t size);

/* Whether the scene has friction: friction, rolling_friction or wall_friction > 0, or a
 * [wall.NAME] friction > 0. Off, the simulation runs exactly the frictionless program. */
int ms_scene_friction_on(const ms_scene *scene);

/* The collision grid's cell for a box w x h: min_cell (the largest small diameter, plus the
 * neighbour list's skin with friction) when no side is periodic; else the smallest cell
 * >= min_cell of which each periodic side holds a whole number, at least 3. 0 when there is
 * none (a periodic side shorter than 3 cells, or with periodic = xy, sides whose ratio no
 * such cell divides). */
double ms_box_cell(double w, double h, const int periodic[2], double min_cell);

/* A wall's extent along `axis` (0: x, 1: y) over its whole motion: its points' (a circle's
 * diameter), or when it rotates the diameter of the circle it sweeps about its rotation
 * centre. A translation does not change it. On a periodic box a wall narrower than the
 * period meets discs through images across the seam (docs/walls.md). */
double ms_wall_extent(const ms_wall *w, int axis);

/* Names large particle `index` as the scene does: "[large.rock]" or
 * "[large_random.rocks] #17" (17: its number in the group, from 0); "#index" when
 * `origin` does not cover it. */
void ms_large_label(const ms_large_origin *origin, int n_origin, int index, char *out,
                    size_t size);

/* Shortest contact duration over every pair kind the scene can produce (s). */
double ms_scene_min_contact_time(const ms_scene *scene);
/* The shortest softened two-body time of the scene's bodies, the minimum over pairs of
 * sqrt((r^2 + eps^2)^(3/2) / (G (m_i + m_j))) (what the loader checks dt against:
 * docs/gravity.md); infinite with fewer than two massive bodies, NaN out of memory. */
double ms_gravity_shortest_time(const ms_gravity_scene *g);

/* The time-step error of the restitution (docs/time-step.md). An isolated head-on
 * contact (stiffness k, restitution e, effective mass m_eff) is stepped with the
 * simulation's own force law and integrator at time step dt; `phase` in (0, 1] is
 * where in a step the contact starts (the first overlap is phase * one step's travel).
 * Returns the restitution it gives, -(speed after) / (speed before). */
double ms_restitution_at(double k, double e, double m_eff, double dt, double phase);

/* The same over `phases` phases spread evenly over one step. */
typedef struct ms_restitution_range {
  double min, max, mean;
} ms_restitution_range;
ms_restitution_range ms_restitution_sweep(double k, double e, double m_eff, double dt,
                                          int phases);

/* The loader warns when the restitution of the stiffest contact may be off by more than
 * this fraction of e at the scene's dt (and refuses dt > t_c / 10 outright). */
#define MS_RESTITUTION_WARN 0.03
#define MS_RESTITUTION_PHASES 32

const char *ms_pipeline_name(ms_pipeline p);
const char *ms_buffer_mode_name(ms_buffer_mode b);
int ms_pipeline_parse(const char *s, ms_pipeline *out);
int ms_buffer_mode_parse(const char *s, ms_buffer_mode *out);
const char *ms_exchange_name(ms_exchange e);
int ms_exchange_parse(const char *s, ms_exchange *out);
const char *ms_large_on_name(ms_large_on l);
int ms_large_on_parse(const char *s, ms_large_on *out);
/* worker_list: "on" or "off" into *off (ms_scene.worker_list_off); 0 for anything else. */
int ms_worker_list_parse(const char *s, int *off);

const char *ms_bodies_name(ms_bodies b);
const char *ms_integrator_name(ms_integrator i);
const char *ms_energy_mode_name(ms_energy_mode e);
int ms_integrator_parse(const char *s, ms_integrator *out);

#endif
