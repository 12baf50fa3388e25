/* The cut moved by measured time (docs/domains.md, "Balance"): over each window of
 * iterations every domain's time (its step, its lay and its read) per own particle is
 * measured, and its columns' weight moves halfway to that cost over the domains' mean, so
 * that the next cuts (by weighted count, layout.h) give each domain an equal share of the
 * measured cost. Under MPI every domain's time is shared first, so that every rank weighs
 * alike and computes the same layout. MIXSIM_BALANCE_LOG=1 prints each decision;
 * MIXSIM_DOMAINS_SLOW=D:F (testing) counts domain D's time F times. */
#ifndef MS_DOMAINS_CUT_BALANCE_H
#define MS_DOMAINS_CUT_BALANCE_H

#include "domains/layout.h"

#define MS_CUTBAL_WINDOW 50 /* iterations a decision is measured over */

typedef struct ms_cutbal {
  int P, log;
  long seen;       /* iterations of the window so far */
  double *time_s;  /* per domain: its time in the window (this rank's domains; others 0) */
  double *own;     /* per domain: its own particles, summed over the window */
  int slow_domain; /* MIXSIM_DOMAINS_SLOW: this domain (-1: none) ... */
  double slow;     /* ... counted this many times */
} ms_cutbal;

/* MS_ERR_INPUT for a malformed MIXSIM_DOMAINS_SLOW. */
ms_status ms_cutbal_init(ms_cutbal *b, int P);
void ms_cutbal_free(ms_cutbal *b);
/* Domain d's share of one iteration took time_s (this rank's domains). */
void ms_cutbal_note(ms_cutbal *b, int d, double time_s);
/* Every domain's own particles of the iteration's layout (the same on every rank). */
void ms_cutbal_count(ms_cutbal *b, const ms_layout *l);
/* After each iteration (collective under MPI at a window's end): at a window's end, the
 * columns' weights from the measured costs. */
ms_status ms_cutbal_after(ms_cutbal *b, ms_layout *l, long step);

#endif
