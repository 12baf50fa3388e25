/* What both threads read and neither writes during an advance: the physical parameters
 * as the kernels take them, the grid's geometry, the run's choices, and the large
 * particle as the worker and the device-only path keep it. Set at creation, by a restore
 * and by the public setters between advances (mixsim/sim.h). */
#ifndef MS_COLLISION_PARAMS_H
#define MS_COLLISION_PARAMS_H

#include <stddef.h>

#include "cl/runtime.h"
#include "mixsim/scene.h"
#include "shared/grid.h"
#include "shared/wall.h"

/* A span of the grid (kernels/shared/grid.h): columns x0 .. x0 + wx - 1 and rows
 * y0 .. y0 + wy - 1, each round its axis. */
typedef struct ms_grid_span {
  int x0, wx, y0, wy;
} ms_grid_span;

/* Grid geometry: cells of one largest small diameter covering the box from the
 * frame's origin. */
typedef struct ms_grid {
  double inv_cell;
  int nx, ny;
  size_t n_cells;
  ms_grid_span asked; /* the span a domain holds its particles in (ms_split_grid_span);
                         wx = 0: the whole grid */
} ms_grid;

static inline ms_grid_span ms_grid_whole(const ms_grid *g)
{
  return (ms_grid_span){0, g->nx, 0, g->ny};
}

static inline int ms_grid_span_same(ms_grid_span a, ms_grid_span b)
{
  return a.x0 == b.x0 && a.wx == b.wx && a.y0 == b.y0 && a.wy == b.wy;
}

/* A large particle as the CPU worker keeps it (simulation frame). */
typedef struct ms_body {
  double x, y, vx, vy;
  float fx, fy; /* force accumulated this iteration */
  float r, m;
  int is_static;
  double theta, w; /* angle and spin (anticlockwise), stepped only with friction on */
  float torque;    /* accumulated this iteration like fx, fy */
  int img[2];      /* periods crossed along x and y (periodic box) */
} ms_body;

/* An empty large slot (an open system's, docs/open-systems.md): no particle, mass and
 * radius 0, static, parked far outside the box; every loop over the large particles
 * passes it by. */
static inline int ms_body_empty(const ms_body *L) { return L->m == 0.0f; }

static inline void ms_body_park(ms_body *L)
{
  ms_body empty = {0};
  empty.x = empty.y = -1.0e9; /* kernels/shared/grid.h's MS_SLOT_EMPTY_AT */
  empty.is_static = 1;
  *L = empty;
}

/* A wall ([wall.NAME]) as the run keeps it: its shape at t = 0 in the simulation frame,
 * its motion and its own contact coefficients. The worker keeps where it is now
 * (collision/worker/walls.h). */
typedef struct ms_wall_def {
  ms_wall_kind kind;
  int n_points, closed;  /* polyline */
  double *points;        /* polyline: x,y pairs at t = 0 */
  double center[2];      /* circle: its centre at t = 0 */
  double radius;
  ms_wall_motion motion; /* prescribed (all zero: static) */
  int force_driven;      /* moves along dir only, pushed by `push` and its contacts */
  double dir[2];         /* unit, the force's direction */
  double push;           /* the force's magnitude (N) */
  double mass;
  float two_zeta, mu;    /* from the wall's restitution and friction */
  double seam[2];        /* the period along an axis where it meets discs through images
                            (shared/wall.h, ms_wall_image), else 0 */
  char section[80];      /* "wall.NAME", for messages */
} ms_wall_def;

typedef struct ms_params {
  double dt, gx, gy;
  float k, two_zeta;  /* stiffness; 2 zeta from the restitution (dashpots per pair) */
  double box[2];      /* width and height: the sides are x = 0, w and y = 0, h */
  double side[4];     /* x0, x1, y0, y1 of the sides with a wall; +-HUGE_VAL where a side is
                         periodic or open (kernels/shared/contact.h's MS_BOX_GAPS) */
  double period[2];   /* w, h along a periodic axis, else 0 (kernels/shared/grid.h) */
  double origin[2];   /* the box's min corner in scene coordinates */
  float r_small_max;  /* the largest small radius (the grid cell is twice it) */
  float r_large_max;  /* the largest large radius (the large pairs across a seam) */
  float *shape;       /* (radius, mass) of each small particle, as on the device */
  int n_small, n_large;
  /* The large particles the worker steps: slots [0, n_stepped), n_large but in a domain,
   * whose large particles near it come first (in global order) and the far ones after,
   * parked (domains/live_large.c). Set between advances. */
  int n_stepped;
  double max_speed2;  /* squared speed limit, 0: none */
  /* Friction (docs/friction.md): on when mu, mu_r or mu_wall > 0; off, every path is the
   * frictionless program's. kt is absolute (the scene's ratio times k); c_t of a pair is
   * ms_tangential_dashpot(two_zeta, kt, m_eff). */
  int friction_on;
  float mu, mu_r, mu_wall, kt;
  double small_spin0; /* the scene's initial spin of every small particle */
  int diag;           /* --diagnostics: the program and the worker keep dissipation */
  ms_grid grid;
  ms_large_origin *large_origin; /* the scene's sections, to name a particle in messages */
  int n_large_origin;
  int n_large_scene;    /* the scene's large particles; the slots after them are for the
                           kind = large inflows (collision/open.c) */
  /* The run's choices (mixsim/scene.h), changed only between advances. */
  ms_pipeline pipeline;
  ms_exchange exchange; /* what the worker maps or reads: the zone or the full arrays */
  ms_large_on large_on; /* where the large particles are stepped: CPU worker or device */
  int worker_list;      /* worker_list = on (collision/worker/ls_list.h) */
  ms_wall_def *walls;   /* [wall.NAME], in the scene's order */
  int n_walls;
  float list_skin;      /* its skin: MS_NLIST_SKIN_RATIO x the largest small radius */
} ms_params;

/* The box's sides and periods as the kernels take them. */
static inline cl_double4 ms_params_sides(const ms_params *p)
{
  return (cl_double4){{p->side[0], p->side[1], p->side[2], p->side[3]}};
}
static inline cl_double2 ms_params_period(const ms_params *p)
{
  return (cl_double2){{p->period[0], p->period[1]}};
}

/* The cells within `reach` of (x, y): along a periodic axis unclamped, to walk through
 * ms_grid_wrap (kernels/shared/grid.h). */
static inline ms_cell_rect ms_params_rect(const ms_params *p, double x, double y, double reach)
{
  const ms_grid *g = &p->grid;
  return ms_grid_rect_wrap(x, y, reach, g->inv_cell, g->nx, g->ny, p->period[0] > 0.0,
                           p->period[1] > 0.0);
}

/* Cell (cx, cy) of a rectangle walk through the seams; -1 where it lies off the grid. */
static inline int ms_params_cell(const ms_params *p, int cx, int cy)
{
  return ms_grid_cell_wrap(cx, cy, p->grid.nx, p->grid.ny, p->period[0] > 0.0,
                           p->period[1] > 0.0);
}

/* Whether the worker uses its large-small list this advance: on, exchange = full, large
 * particles on the CPU worker, small and large particles present. The zone keeps walking
 * its slots: the device gathered exactly the rectangles' particles, in walk order,
 * already, and a list would need the zone to gather by index instead. */
static inline int ms_worker_list_in_use(const ms_params *p)
{
  return p->worker_list && p->exchange == MS_EXCHANGE_FULL && p->large_on == MS_LARGE_ON_CPU &&
         p->n_small > 0 && p->n_large > 0;
}

#endif
