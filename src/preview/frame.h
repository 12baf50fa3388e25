/* A frame: what one picture of the preview shows, captured from the simulation between
 * advances (positions, the last advance's phase events, modes). The renderer draws
 * frames and never touches the simulation, so drawing can overlap the next advance. */
#ifndef MS_FRAME_H
#define MS_FRAME_H

#include "mixsim/gravity.h"
#include "mixsim/sim.h"
#include "collision/base/trace.h"

/* A wall of the scene ([wall.NAME]) where it is at the frame's step. */
typedef struct ms_frame_wall {
  int circle;       /* 1: a circle (cx, cy, r); 0: a polyline */
  int closed;       /* polyline: the segment from the last point back to the first too */
  int first, n;     /* polyline: its n points, wall_pts[2 * first ...] */
  float cx, cy, r;  /* circle: centre and radius (m, simulation frame) */
} ms_frame_wall;

typedef struct ms_frame {
  ms_mode mode; /* which scene view draws it */
  float box[4]; /* 0, 0, width, height (m): the box's sides, in the simulation frame */
  float small_radius;         /* the largest small radius (m) */
  int n_small, n_large, n_static;
  float *small_pos;           /* x,y pairs (m, simulation frame: from the box's corner) */
  float *small_r;             /* radius of each (m) */
  float *large_pos;           /* x,y pairs (m, simulation frame) */
  float *large_radius;        /* m */
  unsigned char *large_static;
  int cap_small, cap_large;   /* allocated */
  /* Rotation, when the scene has friction (else `rotation` is 0 and these are unset):
   * the spin of each small particle, with the frame's largest |spin|, and the angle of
   * each large one (anticlockwise from +x). */
  int rotation;
  float *small_spin;    /* rad/s, anticlockwise positive */
  float small_spin_max; /* rad/s */
  float *large_theta;   /* rad */
  /* The scene's walls ([wall.NAME]) at `step`: the frame's own copies, which outlive
   * the advance. */
  int n_walls, cap_walls, cap_wall_pts;
  ms_frame_wall *walls;
  float *wall_pts; /* x,y pairs (m, simulation frame) of every polyline, one after another */

  long step;
  int iterations;                       /* in the last advance */
  double advance_t0;                    /* when it began (ms_now seconds) */
  double sim_rate;                      /* iterations/s of the simulation alone, whole run */
  ms_trace_event events[2 * MS_TRACE_RING]; /* the last advance's phases */
  int n_events;

  char device[256];
  ms_pipeline pipeline;
  ms_buffer_mode buffers;

  /* mode = gravity: bodies in 3D; no phase events (the device runs whole bursts) */
  int n_bodies, cap_bodies;
  float *bodies;      /* x, y, z, m per body */
  float centre[3];    /* centre of mass */
  double sim_time;    /* in the scene's units */
  int n_devices;
  char kernel[32];

  /* Set by the loop that owns the simulation. */
  int iterations_per_frame;
  double shown_rate; /* iterations/s as displayed (0: not paced, offscreen) */
  int paused;
} ms_frame;

/* Fills `f` from `sim`, reusing its arrays. Call between advances. */
ms_status ms_frame_capture(ms_frame *f, ms_sim *sim);
ms_status ms_frame_capture_gravity(ms_frame *f, ms_gravity *g);
void ms_frame_free(ms_frame *f);

/* The large particle whose disc contains (x, y) m, the smallest if several; -1: none. */
int ms_frame_large_at(const ms_frame *f, float x, float y);

#endif
