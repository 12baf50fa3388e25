/* The CPU worker's contact histories (issue 12, docs/friction.md): the tangential
 * displacement xi of every closed large-small and large-large contact and of every large
 * particle against the four walls, kept in structures whose order is a pure function of
 * the state, so that friction gives the same bits on any thread count:
 *   - per large particle, its small partners' (j, xi) sorted by j from the last iteration
 *     (looked up by binary search, a missing one is a new contact: xi = 0) and the array
 *     this iteration writes in its loop's order, sorted by j after the phase (double
 *     buffered; only the pool thread that owns the large particle touches its arrays);
 *   - one array of (a, b, xi), a < b, sorted by (a, b), rebuilt each iteration from the
 *     pairs found, in the serial order, then sorted (double buffered too);
 *   - four floats per large particle: xi against the left, right, bottom and top wall. */
#ifndef MS_HISTORY_H
#define MS_HISTORY_H

#include <stddef.h>

#include "collision/base/friction_state.h"
#include "collision/base/params.h"
#include "mixsim/status.h"

/* One contact of a large particle with small particle j. */
typedef struct ms_xi_entry {
  int j;
  float xi;
} ms_xi_entry;

/* A large particle's small contacts, sorted by j once ms_xi_sort has run. */
typedef struct ms_xi_list {
  ms_xi_entry *e;
  int n;
  size_t cap;
} ms_xi_list;

/* xi of partner j in a sorted list, 0 when it is not there (a new contact). */
float ms_xi_find(const ms_xi_list *l, int j);
/* Appends (j, xi). Returns 0 when out of memory (the list is unchanged). */
int ms_xi_push(ms_xi_list *l, int j, float xi);
/* Sorts by j (the partners of one large particle are distinct, so the order is unique). */
void ms_xi_sort(ms_xi_list *l);

/* One large-large contact, a < b. */
typedef struct ms_xi_pair {
  int a, b;
  float xi;
} ms_xi_pair;

typedef struct ms_xi_pairs {
  ms_xi_pair *e;
  size_t n, cap;
} ms_xi_pairs;

/* xi of the pair (a, b) in either order in a sorted array, 0 when it is not there. */
float ms_xi_pair_find(const ms_xi_pairs *p, int a, int b);
/* Appends the pair as (min, max). Returns 0 when out of memory. */
int ms_xi_pair_push(ms_xi_pairs *p, int a, int b, float xi);
/* Sorts by (a, b) (each pair is there once, so the order is unique). */
void ms_xi_pairs_sort(ms_xi_pairs *p);

/* Everything the worker keeps for friction. */
typedef struct ms_worker_history {
  int n_large;
  ms_xi_list *ls_cur, *ls_next; /* per large particle */
  ms_xi_pairs ll_cur, ll_next;
  float *wall_xi; /* 4 per large particle: left, right, bottom, top */
} ms_worker_history;

/* Empty histories for n_large particles (NULL arrays for 0). */
ms_status ms_history_init(ms_worker_history *h, int n_large);
void ms_history_free(ms_worker_history *h);
/* Forgets every contact (a restore, a fresh start): all xi 0. */
void ms_history_clear(ms_worker_history *h);

/* Large particle i's phase: its new list emptied before the contacts are visited, then
 * sorted and made current once they all are. */
void ms_history_ls_start(ms_worker_history *h, int i);
void ms_history_ls_finish(ms_worker_history *h, int i);

/* Large-large: the new array emptied, then sorted and made current. */
void ms_history_ll_start(ms_worker_history *h);
void ms_history_ll_finish(ms_worker_history *h);

/* The worker's share of the friction state (collision/base/friction_state.h), between
 * advances: ls, ll, large_rot and large_wall_xi from the histories and the large
 * particles' rotation, and back (checked against n_large and n_small first). */
ms_status ms_worker_history_export(const ms_worker_history *h, const ms_body *large, int n_large,
                                   ms_friction_state *out);
ms_status ms_worker_history_import(ms_worker_history *h, ms_body *large, int n_large, int n_small,
                                   const ms_friction_state *in);
#endif
