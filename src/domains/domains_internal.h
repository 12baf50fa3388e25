/* The split run's state, shared by its two meetings: the whole state's (domains.c) and
 * the incremental one (live.c). Private to src/domains/. */
#ifndef MS_DOMAINS_INTERNAL_H
#define MS_DOMAINS_INTERNAL_H

#include <signal.h>

#include "collision/split.h"
#include "domains/among.h"
#include "domains/carry.h"
#include "domains/cut_balance.h"
#include "domains/give.h"
#include "domains/layout.h"
#include "domains/live_state.h"

/* Where a domain's iterations went (seconds, summed): laying its share in, its step,
 * reading its results back; and its own particles, summed over the iterations. */
typedef struct domain_time {
  double lay_s, step_s, read_s;
  double own;
} domain_time;

struct ms_domains {
  int P;                /* domains on every rank together */
  int first, mine;      /* this rank's: [first, first + mine) */
  int *per_rank;        /* each rank's count */
  int ranks;            /* several MPI ranks */
  const volatile sig_atomic_t *agreed_stop; /* ranks: the stop every rank agreed on */
  domain_time *time;
  double merge_s, exchange_s, wall_s; /* the driver's share, and the advances' wall */
  double share_s;       /* ranks: the gives' sharing among them (ms_domains_share) */
  long iterations;
  ms_sim *view;
  ms_sim **sim;
  ms_carry *carry;
  ms_bytes *gives; /* per domain: what it gave back after its step (domains/give.h) */
  ms_layout layout;
  ms_grid_cut cut;
  ms_global g;
  ms_cutbal balance;
  ms_live live; /* the incremental meeting (live.c) */
  int in_turn; /* two domains share a device: they step in turn (pocl's CPU device is not
                  safe to drive from two contexts at once, and one device gains nothing) */
  int forces_read; /* --output reads the view's forces after this advance (the run loop's) */
};


#define MAX_DOMAINS MS_SPLIT_MAX

/* Every domain of this rank through fn(D, d), each on a thread (in turn where two share a
 * device); the lowest failing domain's error is the run's. */
ms_status ms_domains_each(ms_domains *D, ms_status (*fn)(ms_domains *D, int d));
/* The same where fn's domains wait for each other (the large particles' hand-over,
 * lockstep.h): each on a thread, and where one cannot have one, their barrier breaks. */
ms_status ms_domains_each_together(ms_domains *D, ms_status (*fn)(ms_domains *D, int d));

ms_status ms_domains_follow(ms_domains *D);
/* Collective: every domain's give shared among the ranks (domains/among.h), timed. */
ms_status ms_domains_share(ms_domains *D);
/* The same, each give's parts to the domains that read them (ms_among_share_needed). */
ms_status ms_domains_share_needed(ms_domains *D, size_t head, ms_among_needs needs);
int ms_domains_stop_agreed(ms_domains *D);
void ms_domains_report_on_view(ms_domains *D);

#endif
