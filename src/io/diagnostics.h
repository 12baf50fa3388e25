/* The diagnostics time series DIR/diagnostics.csv of --output ... --diagnostics
 * (docs/output.md): one row per frame, the energies (kinetic, potential, elastic,
 * dissipated, the walls' work), momentum, contacts by kind, overlap, coordination and the
 * grid counters in collision mode; gravity mode's energy, drift and momenta. The simulation thread
 * takes a sample with the frame's copy of the state; the writer thread computes the rest
 * and appends the row, whole, in one write. */
#ifndef MS_IO_DIAGNOSTICS_H
#define MS_IO_DIAGNOSTICS_H

#include "io/wall_frame.h"
#include "mixsim/gravity.h"
#include "mixsim/sim.h"

/* What only the simulation thread can read, taken with the frame's snapshot. */
typedef struct ms_diag_sample {
  double dissipated;   /* J/m since the run (or the resume) started: ms_sim_dissipated */
  double spring;       /* J/m in the tangential springs: ms_sim_spring_energy */
  ms_sim_stats stats;  /* the grid and zone counters at that step */
  ms_gravity_diag grav; /* gravity mode */
  ms_flow_total *flows; /* the scene's flows' totals (ms_sim_flow), n_flows of them */
  int n_flows, small_count;
} ms_diag_sample;

/* The constants of a collision run the rows need (simulation frame). */
typedef struct ms_diag_setup {
  int n, n_small;       /* particles, small ones first */
  const float *radius, *mass;
  const uint8_t *kind;  /* 0 small, 1 dynamic large, 2 static large */
  double box[2];
  double side[4];   /* x0, x1, y0, y1 of the sides with a wall (+-HUGE_VAL: none) */
  double period[2]; /* a periodic side's length, else 0 */
  double g[2], dt;
  float k;              /* normal stiffness */
  float r_small_max;    /* the largest small radius of the run (an open system may start
                           empty) */
  float r_large_max;    /* the largest large radius, the large inflows' included */
  int n_flows;          /* open systems: the flows' columns (ms_sim_flow), in this order */
  const ms_flow_info *flows;
} ms_diag_setup;

typedef struct ms_diag ms_diag;

/* Creates DIR/diagnostics.csv afresh (a resumed run starts its own) with its header. */
ms_status ms_diag_open(const char *dir, const ms_diag_setup *setup, ms_diag **out);
ms_status ms_diag_open_gravity(const char *dir, ms_diag **out);

/* Writer thread, before a row: the particles of the row's state (an open system's count
 * changes): n of them, n_small small ones first, each one's radius, mass and kind. */
void ms_diag_particles(ms_diag *d, int n, int n_small, const float *radius, const float *mass,
                       const uint8_t *kind);
void ms_diag_sample_free(ms_diag_sample *smp);

/* Simulation thread: the sample for the state just copied. */
ms_status ms_diag_take(ms_sim *sim, ms_diag_sample *out);
ms_status ms_diag_take_gravity(ms_gravity *g, ms_diag_sample *out);

/* Writer thread: the row of the state `st` (a snapshot: simulation frame), with the
 * scene's walls at its step (NULL: none): their contacts, and the work they did. */
ms_status ms_diag_row(ms_diag *d, const ms_state *st, const ms_diag_sample *smp,
                      const ms_wall_frame *scene);
ms_status ms_diag_row_gravity(ms_diag *d, const ms_diag_sample *smp);

void ms_diag_close(ms_diag *d);

#endif
