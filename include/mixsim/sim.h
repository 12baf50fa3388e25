/* A running collision-mode simulation: small particles on the OpenCL device, large
 * particles on a CPU worker thread, stepped by a GPU manager thread and the worker (or,
 * with large_on = device, everything on the device, stepped by the manager alone). */
#ifndef MIXSIM_SIM_H
#define MIXSIM_SIM_H

#include <stdint.h>

#include "mixsim/scene.h"
#include "mixsim/status.h"

typedef struct ms_sim ms_sim;

typedef struct ms_sim_options {
  const char *device;     /* "gpu", "cpu", "P:D"; NULL: $MIXSIM_DEVICE, then first GPU, else CPU */
  const char *kernel_dir; /* NULL: $MIXSIM_KERNEL_DIR, then the kernels built into the binary */
  int diagnostics;        /* accumulate the dissipated energy (ms_sim_dissipated), on every
                             path: CPU worker or large_on = device, friction on or off */
} ms_sim_options;

/* Counters of everything the grid had to handle; nothing is dropped silently. */
typedef struct ms_sim_stats {
  long iterations;
  long grid_builds;
  long overflow_builds;  /* builds that found a full cell and were redone */
  long capacity_growths;
  int grid_capacity;     /* slots per cell now */
  int max_cell_count;    /* most particles an overflowing cell held (0: never overflowed) */
  long outside_events;   /* particle-iterations with a centre outside the grid */
  long span_misses;      /* builds that found a particle outside the grid's span a domain
                            asked (docs/domains.md), made again over the whole grid */
  int grid_nx, grid_ny;

  /* The CPU worker's exchange with the device (mixsim/scene.h, ms_exchange). */
  long zone_iterations;  /* iterations that exchanged through the contact zone */
  long zone_cells_total; /* cells in the zone, summed over those iterations */
  long zone_cells_max;   /* most cells one iteration's zone held */
  long zone_particles_total; /* small particles in them, summed likewise */
  long zone_particles_max;   /* most small particles one iteration's zone held */
  long zone_rows;        /* rows of rectangles the zone's span buffer holds now */
  long zone_room;        /* small particles the zone buffers hold now */
  long zone_growths;     /* times the zone buffers were remade larger */
  double exchange_bytes; /* mapped or read, then written back, by the worker: all iterations */

  /* large_on = device: the large-particle cell list (collision/device_only/device_large.h). */
  int large_list_capacity;  /* slots per cell now (0: never built) */
  long large_list_builds;
  long large_list_growths;  /* times a cell's list overflowed and the list grew */

  /* Friction on: the small particles' neighbour list (collision/device/nlist.h). */
  int nlist_capacity;         /* slots per particle now (0: friction off) */
  long nlist_builds;          /* builds, overflowing ones included */
  long nlist_overflow_builds; /* builds that found a particle with more partners than slots */
  long nlist_growths;         /* times the slots grew */

  /* The CPU worker's large-small list (exchange = full; collision/worker/ls_list.h). */
  int worker_list;             /* worker_list = on */
  long worker_list_iterations; /* iterations that used it */
  long worker_list_builds;
  double worker_list_entries;  /* entries summed over the builds */
} ms_sim_stats;

/* The state in particle order; arrays hold x,y pairs, positions in the simulation frame
 * (metres from the box's min corner, see mixsim/scene.h). */
typedef struct ms_state {
  long step;
  int n_small, n_large;
  double *small_pos, *small_vel;
  double *large_pos, *large_vel;
  double *small_rot, *large_rot; /* (theta, w) per particle; NULL when friction is off */
  /* (fx, fy) per particle, N: the contact and wall forces of the step that produced the
   * state (gravity not included); NaN where no step of this run did. NULL unless asked
   * for with ms_sim_state_want_forces: only --output reads them. */
  float *small_force, *large_force;
  /* Periodic box: the periods each particle crossed, (ix, iy) per particle; its unwrapped
   * position is x + ix * width, y + iy * height. NULL when no side is periodic. Not part of
   * the state hash (the wrapped positions are the state). */
  int *small_img, *large_img;
  /* (radius, mass) per small particle. An open system's arrays have empty slots (mass 0,
   * far outside the box, docs/open-systems.md): `slots` entries, of which ms_state_compact
   * keeps the particles, in slot order, in the first n_small. */
  float *small_shape;
  int slots;
  /* (radius, mass) and whether static, per large particle: an empty large slot (a kind =
   * large inflow's, docs/open-systems.md) has mass 0 and is static; ms_state_compact drops
   * those too. */
  float *large_shape;
  unsigned char *large_static;
  /* The particles' persistent ids (ms_sim_small_ids), as they were at `step`. Not part of
   * the state's hash. */
  int64_t *small_id, *large_id;
} ms_state;

/* Open systems (docs/open-systems.md): a flow's totals since the run started. An inflow
 * counts the particles it placed and those it skipped for want of room; an outflow and
 * an open side the particles they removed. Mass in kg (per unit depth, as all masses). */
typedef struct ms_flow_total {
  long count;
  double mass;
  long skipped;
} ms_flow_total;

typedef enum ms_flow_kind { MS_FLOW_INFLOW, MS_FLOW_OUTFLOW, MS_FLOW_OPEN_SIDE } ms_flow_kind;

typedef struct ms_flow_info {
  char name[96]; /* "inflow.pour", "outflow.orifice", "open.left" */
  ms_flow_kind kind;
  ms_flow_total total;
} ms_flow_info;

ms_status ms_sim_create(const ms_scene *scene, const ms_sim_options *opt, ms_sim **out);

/* The flows of the scene: its inflows, outflows and open sides, in that order. */
int ms_sim_flow_count(const ms_sim *sim);
void ms_sim_flow(const ms_sim *sim, int k, ms_flow_info *out);
/* Small particles in the simulation now (the arrays' slots less the empty ones). */
int ms_sim_small_count(const ms_sim *sim);
void ms_sim_destroy(ms_sim *sim);

/* Runs `iterations` iterations on the two threads and returns when both are done, or
 * earlier, at an iteration boundary, once ms_sim_request_stop was called (the step
 * count says how far it got). */
ms_status ms_sim_advance(ms_sim *sim, long iterations);

/* Asks a running or future advance to stop after the current iteration. Safe to call
 * from a signal handler. */
void ms_sim_request_stop(ms_sim *sim);
int ms_sim_stop_requested(const ms_sim *sim);

/* Switch between advances; neither changes the trajectory. */
void ms_sim_set_pipeline(ms_sim *sim, ms_pipeline pipeline);
ms_status ms_sim_set_buffers(ms_sim *sim, ms_buffer_mode mode);
ms_pipeline ms_sim_pipeline(const ms_sim *sim);
ms_buffer_mode ms_sim_buffers(const ms_sim *sim);
/* The worker's exchange (zone or full); switching between advances keeps the trajectory. */
void ms_sim_set_exchange(ms_sim *sim, ms_exchange exchange);
ms_exchange ms_sim_exchange(const ms_sim *sim);
/* Where the large particles are stepped: the CPU worker, or kernels on the device (the
 * device-only baseline); switching between advances keeps the trajectory. The first
 * switch to the device builds its kernels, which can fail (the mode is then unchanged). */
ms_status ms_sim_set_large_on(ms_sim *sim, ms_large_on where);
ms_large_on ms_sim_large_on(const ms_sim *sim);

long ms_sim_step(const ms_sim *sim);
/* Whether the sim steps friction and rotation (ms_scene_friction_on of its scene). */
int ms_sim_friction_on(const ms_sim *sim);

/* A wall ([wall.NAME]) as it is at the current step: where (its pose from its motion at
 * t = step dt, or a force-driven wall's own state) and what the contacts of the last
 * iteration gave it. `points` stays valid until the next advance or call. */
typedef struct ms_wall_info {
  const char *section;    /* "wall.NAME" */
  ms_wall_kind kind;
  int n_points, closed;   /* polyline */
  const double *points;   /* polyline: x,y pairs now, simulation frame */
  double center[2];       /* circle: its centre now */
  double radius;
  double ref[2];          /* the point the torque is about: the rotation centre now when it
                             turns, else its first point (polyline) or centre (circle) */
  double seam[2];         /* the period along an axis where it meets discs through their image
                             nearest `anchor` across a periodic seam, else 0 (ms_wall_image) */
  double anchor[2];       /* the middle of its points' bounds now (a circle's centre) */
  double fx, fy, torque;  /* the reaction of the last iteration's contacts (N/m, N m/m) */
  int contacts;           /* its contacts in the last iteration */
  double work;            /* --diagnostics, since the start: the work it did on the particles */
  double lost;            /* --diagnostics, since the start: what its contacts with small
                             particles dissipated (large particles' count as theirs) */
} ms_wall_info;
int ms_sim_wall_count(const ms_sim *sim);
void ms_sim_wall(ms_sim *sim, int k, ms_wall_info *out);
const ms_sim_stats *ms_sim_get_stats(const ms_sim *sim);
const char *ms_sim_device_name(const ms_sim *sim);
const char *ms_sim_platform_name(const ms_sim *sim);
int ms_sim_device_is_gpu(const ms_sim *sim);

/* The box's min corner in scene coordinates: a frame position p is origin + p there. */
void ms_sim_origin(const ms_sim *sim, double origin[2]);

/* Radius (m) and mass (kg) of small particle i. */
float ms_sim_small_radius(const ms_sim *sim, int i);
float ms_sim_small_mass(const ms_sim *sim, int i);

/* Persistent particle ids: every particle keeps the id it was created with, one id space
 * for small and large particles, so a particle can be followed from frame to frame while
 * others come and go. Small particle i's id is ms_sim_small_ids(sim)[i], large particle
 * i's ms_sim_large_ids(sim)[i] (n_small and n_large entries); from a scene, small 0 .. Ns-1
 * and large Ns .. Ns+Nl-1 unless its particle files give an id column (ms_scene.small_id).
 * ms_sim_next_id is the id the next particle created will get: more than every id held.
 * Valid until the next advance or restore, which may change them; not part of the state
 * hash (docs/output.md, "Particle ids"). */
const int64_t *ms_sim_small_ids(const ms_sim *sim);
const int64_t *ms_sim_large_ids(const ms_sim *sim);
int64_t ms_sim_next_id(const ms_sim *sim);

/* Puts large particle `index` (scene order) at (x, y) m (simulation frame) with zero velocity (and spin), between
 * advances: the preview's mouse drag. MS_ERR_INPUT for a bad index or position. */
ms_status ms_sim_move_large(ms_sim *sim, int index, double x, double y);

ms_status ms_sim_read_state(ms_sim *sim, ms_state *state);
/* The same in two halves, for a caller that reads the state again and again (the output
 * writer's buffers): arrays of this sim's sizes (rotation only with friction on), then a
 * copy of the current state into them, between advances. Free with ms_state_free. */
ms_status ms_sim_state_alloc(const ms_sim *sim, ms_state *state);
/* Drops the empty slots: the small arrays then hold n_small particles (their hash is no
 * longer the sim's, which covers every slot). */
void ms_state_compact(ms_state *state);
ms_status ms_sim_snapshot(ms_sim *sim, ms_state *state);
/* Adds the force arrays to a state of ms_sim_state_alloc, which ms_sim_snapshot then
 * fills (one more blocking read), and has every advance keep its last iteration's forces
 * on the device (a copy there; the state does not change). */
ms_status ms_sim_state_want_forces(ms_sim *sim, ms_state *state);
void ms_state_free(ms_state *state);

/* Closed contacts by kind, and the kinetic energy, of the current state. */
typedef struct ms_state_summary {
  long contacts_small_small, contacts_large_small, contacts_large_large;
  long contacts_wall;    /* particles a box wall pushes, and contacts with [wall.NAME]s */
  double kinetic_energy; /* J (per metre of disc thickness: masses are areal) */
} ms_state_summary;
ms_status ms_sim_summarise(ms_sim *sim, ms_state_summary *out);

/* The energy (J per metre) the contact dashpots dissipated since the sim was created or
 * restored, summed over every step: only with ms_sim_options.diagnostics (else 0).
 * Between advances. */
ms_status ms_sim_dissipated(ms_sim *sim, double *out);

/* The energy (J per metre) the tangential springs of the contact histories hold now,
 * 1/2 k_t xi^2 summed over every closed contact and wall contact; 0 without friction. */
ms_status ms_sim_spring_energy(ms_sim *sim, double *out);

/* CRC-32 (zlib) over positions then velocities (doubles, simulation frame), small
 * particles then large; with friction on, then (theta, w) of the small particles and
 * of the large ones (absent when off, so frictionless hashes are as they were). */
uint32_t ms_state_hash(const ms_state *state);
ms_status ms_sim_hash(ms_sim *sim, uint32_t *hash);

#endif
