/* The scene's walls ([wall.NAME]) as a frame of the --output time series sees them: a copy
 * the simulation thread takes with the frame's state (each wall where it is at that step,
 * and what the last iteration's contacts gave it), and the contacts of a disc with them,
 * by the walls' own tests (kernels/shared/wall.h), for the writer thread's counts and
 * energies (docs/output.md). */
#ifndef MS_IO_WALL_FRAME_H
#define MS_IO_WALL_FRAME_H

#include "mixsim/sim.h"

typedef struct ms_wall_shot {
  char name[80];          /* NAME of [wall.NAME] */
  ms_wall_kind kind;
  int n_points, closed;   /* polyline */
  double *points;         /* polyline: x,y pairs at the step, simulation frame */
  double center[2];       /* circle: its centre at the step */
  double radius;
  double box[4];          /* polyline: its points' bounds (x0, y0, x1, y1) */
  double seam[2], anchor[2]; /* discs meet it through their image nearest anchor (ms_wall_info) */
  double fx, fy, torque;  /* the last iteration's reaction; NaN where none made the state */
  int contacts;           /* its contacts in that iteration; -1 where none made the state */
  double work, lost;      /* --diagnostics: since the start (ms_wall_info) */
} ms_wall_shot;

typedef struct ms_wall_frame {
  int n;                  /* walls; 0: the scene has none */
  ms_wall_shot *w;
} ms_wall_frame;

/* Room for the sim's walls (nothing for a scene without). MS_ERR_RUNTIME out of memory. */
ms_status ms_wall_frame_alloc(ms_sim *sim, ms_wall_frame *f);
void ms_wall_frame_free(ms_wall_frame *f);

/* Simulation thread, between advances: the walls at the current step. The reaction is
 * known when the state is the last iteration's of this run (as the frames' forces are). */
void ms_wall_frame_take(ms_sim *sim, ms_wall_frame *f);

/* The contacts of a disc (centre p, radius r; simulation frame) with the walls: their
 * count; adds each contact's overlap squared to *overlap2 and raises *max_overlap to the
 * largest overlap (either may be NULL). */
int ms_wall_frame_touch(const ms_wall_frame *f, const double *p, float r, double *overlap2,
                        double *max_overlap);

/* Σ work over the walls: what they did on the particles since the start (J/m). */
double ms_wall_frame_work(const ms_wall_frame *f);

#endif
