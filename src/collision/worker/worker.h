/* The CPU worker's state: the large particles and everything it keeps to step them.
 * Touched only by the worker's thread (and its pool's helpers, each in its own chunk)
 * during an advance; by the caller's thread between advances. The large particles'
 * positions reach the manager only through what the exchange publishes at sync 2
 * (collision/exchange/crossing.h); nothing here is read by the manager during an advance. */
#ifndef MS_COLLISION_WORKER_H
#define MS_COLLISION_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "collision/worker/history.h"
#include "collision/base/params.h"
#include "collision/exchange/crossing.h"
#include "collision/worker/wall_band.h"

/* One large particle's list: small indices in the order of the build's walk, and where
 * the large particle was then. */
typedef struct ms_ls_row {
  int *j;
  int n;
  size_t cap;
  double x, y;
} ms_ls_row;

typedef struct ms_ls_list {
  ms_ls_row *row;    /* n_rows, made at the first build */
  int n_rows;
  int stale;         /* rebuild at the next use (set between advances, cleared by the worker) */
  long entries;      /* in all rows at the last build */
  double margin;     /* the reach beyond r_L + r_j of the last build */
} ms_ls_list;

/* A force the CPU worker found on small particle j, added to F_ls after the pool's
 * job, in the one-thread order. */
typedef struct ms_ls_contact {
  int j;
  float fx, fy;
  float t; /* friction on: the torque on it */
} ms_ls_contact;

/* A touching large pair (a left of b in the sweep) and the force of b on a. */
typedef struct ms_ll_pair {
  int a, b;
  float fx, fy;
  float ta, tb, xi; /* friction on: the torques on a and b, the new history */
  double lost;      /* --diagnostics: the energy it dissipated this step (with friction:
                       spring storage not taken off, see worker_friction.c) */
} ms_ll_pair;

/* A large particle's wall contact reaction, summed into the wall after the job in the
 * one-thread order. */
typedef struct ms_wall_reaction {
  int wall;
  double fx, fy, torque, lost, work;
} ms_wall_reaction;

/* What one pool thread found in its chunk this iteration. */
/* One run of a wall's band: what its contacts with the small particles give the wall
 * (walls.c sums the runs in the band's order after the job). */
typedef struct ms_wall_run {
  double fx, fy, torque, lost, work;
  int contacts;
} ms_wall_run;

struct ms_wall_xi_at; /* walls.c: a wall's new history entry, kept by the chunk */

/* A large particle's candidate from its list, with the walk's order: (cell, the slot's
 * key), the key being the global slot in a split run and the slot itself otherwise. */
typedef struct ms_ls_cand {
  uint64_t order;
  int j;
} ms_ls_cand;

typedef struct ms_worker_chunk {
  ms_ls_contact *ls;
  size_t n_ls, ls_cap;
  ms_ll_pair *ll;
  size_t n_ll, ll_cap;
  int begin, end;    /* integration: the chunk's particles */
  int failed;        /* ... its first failing particle, -1: none */
  int failed_finite; /* ... and whether its state was finite (too fast) */
  ms_ls_cand *cand;  /* large-small with the list: one large particle's candidates */
  size_t cand_cap;
  ms_wall_reaction *wr; /* the walls' reactions to its large particles' contacts */
  size_t n_wr, wr_cap;
  ms_wall_hit *hit;     /* one disc's contacts with one wall, gathered before their forces */
  int *feature;
  size_t hit_cap;
  struct ms_wall_xi_at *wxi; /* friction: the walls' small contacts' new histories */
  size_t n_wxi, wxi_cap;
  double wall_s;             /* its thread's time in the walls' items since the start */
} ms_worker_chunk;

/* A wall contact's stored tangential displacement: the partner (a small particle's index,
 * or a wall's for a large particle's list), the feature touched (shared/wall.h,
 * ms_polyline_feature) and xi. Lists sorted by (j, feature). */
typedef struct ms_wall_xi {
  int j, feature;
  float xi;
} ms_wall_xi;

typedef struct ms_wall_xi_list {
  ms_wall_xi *e;
  int n;
  size_t cap;
} ms_wall_xi_list;

/* Where a wall is this iteration and what it received (collision/worker/walls.h). */
typedef struct ms_wall_now {
  double *at;            /* polyline: its points now (x,y pairs) */
  double *shown;         /* polyline: its points at the step ms_walls_info was asked for */
  double center[2];      /* circle: its centre now */
  double t, tx, ty, angle; /* the pose of time t (force-driven: tx, ty = s dir, angle 0) */
  double vtx, vty;       /* force-driven: its velocity, s_dot dir */
  double anchor[2];      /* the middle of its points' bounds now (a circle's centre): discs
                            meet it through their image nearest this (ms_wall_image) */
  double s, s_dot;       /* force-driven: displacement along its line and its rate */
  ms_band band;          /* the cells within reach of the small particles now */
  int placed;            /* placed once: `at` and `band` belong to the last pose */
  int band_new;          /* the last placing changed the band (the device-only path's copy
                            is then stale) */
  int first_span;        /* exchange = zone: its band's first run among the zone's owners */
  int first_item;        /* its first pool item of large-small after the large particles' */
  int *item_run;         /* item i walks the runs item_run[i] .. item_run[i + 1] - 1 */
  int n_items;
  size_t items_cap;
  ms_wall_run *run;      /* each run's sums this iteration (band.n) */
  size_t run_cap;
  double fx, fy, torque; /* the reaction of its contacts this iteration (torque about the
                            rotation centre now, or its first point / centre) */
  int contacts;
  double lost, work;     /* --diagnostics, since the run's start: the energy its small
                            contacts dissipated (its large ones': diss_large), the work it did */
  ms_wall_xi_list small_cur, small_next; /* friction: its small contacts' histories */
} ms_wall_now;


struct ms_pool;       /* collision/worker/worker_pool.h */
struct ms_sweep_item; /* collision/worker/cpu_worker.c */

typedef struct ms_worker {
  ms_body *large;
  ms_body *large_prev;         /* the large particles before this iteration's integration */
  int *sweep_order;            /* large particles sorted by left edge, for large-large */
  int sweep_n;                 /* how many sweep_order orders (a permutation of them) */
  struct ms_sweep_item *sweep; /* their extents in that order */
  int cpu_threads;             /* the CPU worker and its pool's helpers */
  int cpu_grain;               /* MIXSIM_CPU_GRAIN; 0: each phase's own */
  struct ms_pool *pool;
  ms_worker_chunk *chunk;      /* cpu_threads */
  ms_worker_history hist;      /* friction on: the contact histories */
  ms_ls_list wl;               /* the large-small list (exchange = full) */
  const int *slot_key;         /* per slot, the grid's order (the device's host copy of its
                                  keys, set each advance); NULL: the slot's own */
  /* --diagnostics: the energy dissipated per large particle (its large-small,
   * large-large and wall contacts), and what the large-large springs stored, taken off
   * (friction; dissipation.c). */
  double *diss_large;
  double diss_worker;
  ms_wall_now *wall;            /* [wall.NAME]: n_walls */
  int n_wall_items;             /* their items in large-small's pool job */
  long trace_iteration;         /* --trace: the iteration large-small's job belongs to */
  int *wall_rects;              /* exchange = zone: every wall's runs of cells, one-row
                                   rectangles (x0, x1, y, y) in wall order */
  size_t n_wall_rects, wall_rects_cap;
  ms_wall_xi_list *wall_xi_cur, *wall_xi_next; /* friction: per large particle, its wall
                                                  contacts' histories */
} ms_worker;

/* Where large-small reads the small particles and adds their forces and torques (see
 * cpu_worker.c, source_of): exchange = full, per particle index; zone, per zone slot. */
typedef struct ms_ls_source {
  const int *count, *idx; /* full: the grid's */
  int cap;                /* full: slots per grid cell */
  const int *base, *span; /* zone: large particle i's runs, base[i] .. base[i + 1] - 1 */
  /* The small particle at `at`: its position pos[pv * at], pos[pv * at + 1], velocity
   * likewise (full: its own arrays, pv 2; zone: fields of its slot's record, pv the
   * record's length, and its index zidx[pv * at]); the force on it goes to
   * f[fs * at], f[fs * at + 1] */
  const double *pos, *vel, *zidx;
  int pv;
  float *f;
  int fs;
  /* friction on: the spin of the small particle at `at` is w[w_stride * at]; its torque
   * from the large particles goes to t[ts * at] */
  const double *w;
  int w_stride;
  float *t;
  int ts;
} ms_ls_source;

/* Zone: the index of the small particle in slot `slot`. */
static inline int ms_ls_zone_index(const ms_ls_source *src, int slot)
{
  return (int)src->zidx[(size_t)src->pv * (size_t)slot];
}

/* A pool job's context (collision/worker/worker_pool.h): the parameters, the worker's own
 * part, and what the phase reads beside them: large-small its source, the list's build
 * the grid's host views. */
typedef struct ms_worker_job {
  const ms_params *p;
  ms_worker *w;
  const ms_ls_source *src;
  const ms_buffers *buf;
  int from; /* the first item a job's [0, n) stands for (large-large: past the empty) */
} ms_worker_job;

#endif
