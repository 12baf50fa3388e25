/* The CPU worker's Verlet list for large-small (exchange = full): per large particle the
 * small particles within r_L + r_j + margin of it at the list's build, found by the
 * grid walk over the rectangle of that reach, kept until a particle may have closed the
 * margin. Each iteration the worker takes from a large particle's list the entries whose
 * current cell lies in the rectangle its walk would visit, sorted by (cell, index): the
 * order the walk visits them, so every sum is the walk's bit for bit (docs/friction.md,
 * "The CPU worker's list").
 *
 * When it is rebuilt: at its first use and after anything changed the state outside
 * stepping (ms_ls_list_invalidate), when a large particle has moved more than the
 * rebuild distance since the build (checked on the host), and when a small one may have:
 * with friction on, exactly when the small particles' own list (collision/nlist.h) is
 * rebuilt; without, by the same check kernel against a copy of the positions taken on the
 * device at each build of this list. The manager writes the flag before sync 1 and the
 * worker reads it after (small_moved); the worker asks for the copy before sync 2 and the
 * manager takes it after (ref_due): the syncs order both. */
#ifndef MS_LS_LIST_H
#define MS_LS_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "cl/runtime.h"

/* One large particle's list: small indices in the order of the build's walk, and where
 * the large particle was then. */
typedef struct ms_ls_row {
  int *j;
  int n;
  size_t cap;
  double x, y;
} ms_ls_row;

typedef struct ms_ls_list {
  int on;            /* worker_list = on: used wherever it applies (ms_ls_list_in_use) */
  float skin;        /* MS_NLIST_SKIN_RATIO x the largest small radius */
  ms_ls_row *row;    /* n_rows, made at the first build */
  int n_rows;
  int stale;         /* rebuild at the next use (set between advances, cleared by the worker) */
  long entries;      /* in all rows at the last build */
  double margin;     /* the reach beyond r_L + r_j of the last build */
  /* Written by the manager with each grid build, read by the worker after sync 1: a small
   * particle may have moved more than the rebuild distance since the list's build. */
  int small_moved;
  /* Without friction: the worker asks (before sync 2) for the reference positions, the
   * manager copies them (after sync 2, before the integration moves them). */
  int ref_due;
  int ref_valid;     /* the manager's: ref holds the positions of the list's build */
  int checked;       /* the manager's: this grid build ran the check */
  int moved_read;    /* the check's flag, read with the grid's flags */
  cl_mem ref, flags; /* double2 per small particle; int */
} ms_ls_list;

struct ms_sim;
struct ms_worker_chunk;

/* Whether the worker uses the list this advance: on, exchange = full, large particles on
 * the CPU worker, small and large particles present. The zone keeps walking its slots:
 * the device gathered exactly the rectangles' particles, in walk order, already, and a
 * list would need the zone to gather by index instead. */
int ms_ls_list_in_use(const struct ms_sim *s);

/* The state changed outside stepping (restore, import, a move, a switch of exchange or
 * large_on): rebuild at the next use. Between advances only. */
void ms_ls_list_invalidate(struct ms_sim *s);

/* The worker, after sync 1 and before large-small: rebuilds the lists when due (over
 * the pool in chunks of `grain` large particles, each thread its own). */
ms_status ms_ls_list_prepare(struct ms_sim *s, int grain);

/* The candidates of large particle i this iteration into the chunk's keys, sorted:
 * (cell << 32 | j) for each listed j whose current cell lies in i's walk rectangle and
 * which is within i's reach of the largest small particle (visit's own first test, which
 * has no side effect when it fails). Returns the count, or -1 out of memory. */
long ms_ls_list_candidates(const struct ms_sim *s, int i, const double *pos,
                           struct ms_worker_chunk *c);

/* Mean entries per large particle at the last build (0: never built). */
double ms_ls_list_mean(const struct ms_sim *s);

void ms_ls_list_release(ms_ls_list *wl);

#endif
