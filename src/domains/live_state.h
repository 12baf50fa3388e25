/* The incremental meeting's state (live.h), kept in the split run's (domains_internal.h). */
#ifndef MS_DOMAINS_LIVE_STATE_H
#define MS_DOMAINS_LIVE_STATE_H

#include "collision/split.h"
#include "domains/give.h"

/* A large particle's state in a give. */
typedef struct large_rec {
  int j, img[2], unused;
  double xv[4];
} large_rec;

/* A particle's force in a gathering's give (--output's): a small one's global slot, or a
 * large one's index. */
typedef struct force_rec {
  int j;
  float f[2];
} force_rec;

/* A give: this header, then n_rec records (to[0] of them for domain 0, then domain 1's...)
 * where `inline_rec` (across ranks; in one process they stay in the domain's page-locked
 * buffer, ms_live.rec_at), then n_large large_recs; a gathering for --output's forces then
 * n_force small and n_force_large large force_recs, those of the step that made the
 * domain's state where `forces` (else none were kept: NaN). */
typedef struct give_head {
  int n_rec, room, n_large, inline_rec;
  int forces, n_force, n_force_large;
  int unused; /* (the records after it are doubles) */
  int to[MS_SPLIT_MAX];
} give_head;
_Static_assert(sizeof(give_head) % sizeof(double) == 0, "a give's records follow its head");

typedef struct give_view {
  give_head h;
  const ms_split_record *rec;
  const large_rec *large;
  const force_rec *force; /* n_force small, then n_force_large large */
} give_view;

typedef struct ms_live {
  int on;               /* the domains hold the state, laid from the view */
  int behind;           /* the view is behind the domains */
  long step;            /* the domains' step */
  long view_step;       /* the view's step and changes as the last lay or settle left them */
  unsigned long view_changes;
  int k;                /* iterations between meetings (the windows are deep enough) */
  int one_by_one;       /* meeting every iteration: the advance again after a failure */
  int block;            /* iterations the domains step before this meeting: k or fewer */
  int last;             /* this meeting ends the advance: its state is checked there */
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
  /* Per domain (n_large + 1 each): the large particles it keeps, first in its worker's slots
   * in global order (held[m]: the global index in slot m), and each one's slot there (slot[j],
   * -1 where parked): its worker passes over those it steps only (live_large.c). */
  int *held, *slot;
  /* In one process, the large particles a domain holds are handed over from their owners
   * every iteration (lockstep.h), and the windows grow by a small contact an iteration. */
  int together;
  struct ms_lockstep *lockstep;
  int w_span;           /* columns each side of its own that a domain's grid visits */
  /* The gives of the meeting before (per domain): the records laid from a meeting's gives
   * are written from where they are while the domains go on, so the next meeting gives
   * into these, and the two swap. */
  ms_bytes *spare;
  /* --output's forces, per domain (live_forces.c): kept from the block that made the
   * domains' state (forces_kept), before its meeting moved their slots: an advance's last
   * block where the run loop reads them after it (ms_domains_forces_read), or one that a
   * stop seen there ends (stop_seen). */
  ms_bytes *forces;                    /* force_recs: small, then large */
  int kept_small[MS_SPLIT_MAX], kept_large[MS_SPLIT_MAX];
  int forces_kept, stop_seen;
  double *column;       /* per column: own particles (the balance's cut) */
  give_view gv[MS_SPLIT_MAX]; /* the shared gives, read (live.c) */
  const ms_split_record *rec_at[MS_SPLIT_MAX]; /* one process: each domain's last records */
  /* Where a meeting's time goes, per domain (s): the pack's kernel, its records read out;
   * the roles taken, the records given laid (straight from the gives); and their counts. */
  double pack_s[MS_SPLIT_MAX], out_s[MS_SPLIT_MAX], commit_s[MS_SPLIT_MAX];
  double in_s[MS_SPLIT_MAX];
  long rec_out[MS_SPLIT_MAX], rec_in[MS_SPLIT_MAX];
  double check_s, balance_s; /* the rank's: the gives read and checked, the balance */
  long meetings;
} ms_live;

#endif
