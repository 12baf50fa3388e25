/* What crosses between the domains of a split run and the whole (docs/domains.md): the
 * gathered state in global slots, each domain's share of it laid into its simulation
 * (its own particles and its halo, keyed by global slot, with the histories of the pairs
 * it holds), and its own particles' results taken back. Between advances only. */
#ifndef MS_DOMAINS_CARRY_H
#define MS_DOMAINS_CARRY_H

#include "collision/base/friction_state.h"
#include "collision/worker/walls_state.h"
#include "domains/layout.h"
#include "mixsim/sim.h"

/* The whole state, in global slots: what one device would hold. */
typedef struct ms_global {
  ms_state st;         /* positions, velocities, images, shapes, ids; the large particles */
  ms_friction_state f; /* with friction: rotations, wall springs, histories */
  int friction;
  ms_walls_state w;    /* the [wall.NAME]s' histories */
  double *large4;      /* x, y, vx, vy per large particle: as ms_sim_restore takes them */
  int open;            /* an open system: slots empty and fill, large ones too */
  int32_t *large_static; /* (open) per large particle, as ms_sim_set_large_shapes takes it */
  double *wall4;       /* per [wall.NAME]: fx, fy, torque, contacts of the last iteration,
                          from domain 0, which holds every wall's band */
  /* --diagnostics: the dissipation's accumulators (collision/dissipation.h): the device's
   * (global slots, then the device-only path's large particles, then its own), the
   * worker's per large particle and its own, lost and work per wall. */
  int diag;
  double *diss_dev, *diss_large, *diss_walls, diss_worker;
  /* --output: the forces of the step that produced the state (collision/forces.h), (fx,
   * fy) per small slot and per large particle, each from its owner */
  int forces;
  float *force_small, *force_large;
  int forces_stale;    /* an exchange with the outside changed the state since its step, as
                          it leaves one device's forces unknown (collision/open.c) */
} ms_global;

/* One domain's scratch: the arrays laid into its simulation, and what it gave back. */
typedef struct ms_carry {
  int slots;           /* its simulation's slots (at least what it holds; the rest empty) */
  int roomy;           /* keep a quarter more slots free: particles arrive in them between
                          lays (the incremental meeting, live.h) */
  double *pos, *vel;
  float *shape;
  int *img, *key;
  int *local;          /* per global slot: its slot here, or -1 */
  int n_local;         /* global slots `local` has room for */
  ms_state out;        /* its state after the step */
  ms_friction_state fout;
  ms_walls_state wout;
  double *wall4;       /* its walls' fx, fy, torque, contacts after the step */
  double *diss_dev, *diss_large, *diss_walls, diss_worker; /* --diagnostics (ms_global) */
  float *force_small, *force_large; /* --output: its step's forces */
} ms_carry;

ms_status ms_global_take(ms_sim *view, ms_global *g);
/* Puts the whole state into the view, which outputs, checkpoints and the report read. */
ms_status ms_global_put(ms_sim *view, const ms_global *g);
void ms_global_free(ms_global *g);
/* large4 from the large particles' positions and velocities. */
void ms_global_large4(ms_global *g);

/* Lays domain d's share of g into its simulation `ds`, keyed by global slot. */
ms_status ms_carry_lay(ms_sim *ds, ms_carry *c, const ms_global *g, const ms_layout *l, int d);
/* Reads ds's state after its step into c (no change to g). */
ms_status ms_carry_read(ms_sim *ds, ms_carry *c);
void ms_carry_free(ms_carry *c);

/* The orders of the histories' arrays: by (a, b), and walls' by (a, b, feature). */
int ms_history_cmp(const void *x, const void *y);
int ms_wall_history_cmp(const void *x, const void *y);

#endif
