/* The incremental meeting of a split run (docs/domains.md, "The incremental meeting"): the
 * domains keep their particles on their devices from one iteration to the next, and meet
 * by records of the particles that cross into another domain's window (collision/split.h)
 * and the large particles' states from their owners. The whole state is gathered into the
 * view only when something reads it (ms_domains_settle). Scenes it does not cover yet take
 * the whole state's meeting (domains.c). */
#ifndef MS_DOMAINS_LIVE_H
#define MS_DOMAINS_LIVE_H

#include "collision/split.h"

typedef struct ms_domains ms_domains;

typedef struct ms_live {
  int on;               /* the domains hold the state, laid from the view */
  int behind;           /* the view is behind the domains */
  long step;            /* the domains' step */
  long view_step;       /* the view's step and changes as the last lay or settle left them */
  unsigned long view_changes;
  int last;             /* this iteration ends the advance: its state is checked there */
  long lays;            /* lays from the whole state (the first, and where slots ran short) */
  long settles;         /* the view brought up to the domains' state */
  double lay_s, settle_s;
  ms_split *split;      /* per domain of this rank */
  ms_split_cut cut;      /* the cut the domains' holdings were made by */
  ms_split_cut cut_next; /* the cut the next records are made by (the balance moves it) */
  int *large_owner;     /* per large particle: the domain of its centre at the step's start */
  /* Per large particle: its state as the owners gave it (x, y, vx, vy; periods crossed),
   * and its shape (r, m, static), which a domain's copy keeps only where it is near: one
   * far from a domain's window is parked there, so each domain's worker steps its own
   * large particles and their neighbours, not every one (their results come from the
   * owners). The mark's copies too. */
  double *large_xv, *keep_xv;
  int *large_img, *keep_img;
  float *large_r, *large_m;
  int *large_static;
  int w_large;          /* columns each side of a domain's own within which it keeps them */
  ms_split_record **inbox; /* per domain: the records given to it */
  size_t *inbox_cap;
  double *column;       /* per column: own particles (the balance's cut) */
} ms_live;

/* Whether the run's scene and choices are the incremental meeting's: no friction, no
 * [wall.NAME], a closed system, large particles on the CPU, no --diagnostics or forces. */
int ms_live_fits(const ms_domains *D);
ms_status ms_live_advance(ms_domains *D, long iterations);
/* The domains' state into the view, if it is behind (collective under MPI). */
ms_status ms_live_settle(ms_domains *D);
/* The domains no longer hold the state (after a failure, or for the other meeting). */
void ms_live_drop(ms_domains *D);
void ms_live_free(ms_live *v, int P);
/* The report's line on the meeting, if it ran; what snprintf returns. */
int ms_live_describe(const ms_domains *D, char *out, size_t size);

#endif
