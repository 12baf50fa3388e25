/* Gravity mode over several processes (MPI ranks, `mpirun -np P mixsim scene.ini`): each
 * rank owns a contiguous range of the bodies and splits it among its own devices (split.c,
 * through gravity/rank_ranges.h, which sets and moves the ranges);
 * positions cross between ranks after every position update (MPI_Allgatherv of the ranks'
 * ranges), the state is gathered at the end of each burst, and every failure is agreed on
 * (an allreduce of a status flag, then the failing rank's message to all) so that all
 * ranks stop together with one message. Every MPI call of the program is in ranks.c,
 * compiled with MPI only where the build found it (MS_HAVE_MPI); without it, or when the
 * program was not started by an MPI launcher, this is one rank and every call is a no-op.
 *
 * The collective calls (marked so) must be made by every rank at the same point of the
 * run; the driver and the command line make them at points every rank reaches in the
 * same order: start-up, the device opening, each step's exchange, burst ends, rebalances,
 * checkpoint restores and the end. */
#ifndef MS_GRAVITY_RANKS_H
#define MS_GRAVITY_RANKS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mixsim/status.h"

/* ---- the process among the ranks ----------------------------------------------------- */

/* Joins the MPI job (MPI_Init_thread, funneled) when an MPI launcher started the process
 * (its environment says so); otherwise, and without MPI in the build, stays one rank. */
ms_status ms_ranks_start(int *argc, char ***argv);
/* Leaves the job (MPI_Finalize). */
void ms_ranks_end(void);
int ms_ranks_built(void);      /* 1 when MPI was compiled in */
int ms_ranks_size(void);       /* 1 without MPI */
int ms_ranks_rank(void);       /* 0 without MPI */
int ms_ranks_local_rank(void); /* the rank among those on this node (MPI_COMM_TYPE_SHARED) */
int ms_ranks_local_size(void);
/* Whether any thread may call the collectives, one at a time (1 without MPI). */
int ms_ranks_serialized(void);

/* Where a rank's last-resort message goes (a descriptor of the real stderr, when the
 * program silenced a non-root rank's stderr). */
void ms_ranks_set_error_fd(int fd);

/* ---- agreement (collective) ----------------------------------------------------------- */

/* Every rank gives its code (0: fine) and the text that explains it; returns the code of
 * the lowest failing rank (0 if none) on every rank, with its text in `text_out` and its
 * rank in *from. */
int ms_ranks_agree_code(int code, const char *text, char *text_out, size_t cap, int *from);

/* ms_ranks_agree_code over ms_status: the lowest failing rank's status, its message kept
 * on every rank (prefixed "rank R: " when R is not 0). Also agrees on the stop flag. */
ms_status ms_ranks_agree(ms_status st);

/* The stop flag that the run should read: `signal_flag` itself in one rank; with several,
 * a flag that is set on every rank at the same agreement once any rank's `signal_flag` is
 * set, so that all stop after the same step. */
const volatile sig_atomic_t *ms_ranks_stop_flag(const volatile sig_atomic_t *signal_flag);
/* Agrees on the stop flag (collective; a no-op in one rank). */
void ms_ranks_agree_stop(void);

/* Collective: every rank's 32-bit value; returns the first rank whose value differs from
 * rank 0's (and that value in *theirs), or -1 when all agree. */
int ms_ranks_differs(uint32_t value, uint32_t *theirs);

/* Collective: rank 0's `bytes` bytes at `buf` to every rank. */
ms_status ms_ranks_bcast(void *buf, size_t bytes);

/* Collective: every rank's n bytes at `mine`, in rank order, into *all (malloc'd: free it),
 * each rank's length in sizes[rank] (ms_ranks_size() of them). (Collision mode's domains
 * give their results through it: domains/domains.c.) */
ms_status ms_ranks_allgather_bytes(const void *mine, size_t n, unsigned char **all, size_t *sizes);

/* One piece of a point-to-point exchange: n bytes at `at` sent to (out) or received from
 * (!out) rank `peer`. Two ranks' pieces between them pair up in the order each lists them. */
typedef struct ms_ranks_piece {
  int peer, out;
  void *at;
  size_t n;
} ms_ranks_piece;

/* Every receiving piece posted, then every sending one, then all waited for (pieces of 0
 * bytes are skipped, by both ends alike). */
ms_status ms_ranks_exchange_pieces(const ms_ranks_piece *piece, int n);

/* The last resort, where a rank can no longer meet the others at their next collective
 * (an OpenCL error inside a step, whose exchange the others are waiting in): prints the
 * message once, from this rank, and aborts the job (MPI_Abort). Returns only in one rank,
 * where nobody waits. */
void ms_ranks_abort(ms_status st);

/* ---- the bodies among the ranks --------------------------------------------------------- */

typedef struct ms_rank_split {
  int size, rank;
  int n_pad, granule;
  int *first, *count; /* per rank: its bodies [first, first + count) of [0, n_pad) */
  double *rate;       /* per rank: measured bodies/s of its force kernels (0: not yet) */
  int *counts, *displs; /* scratch for MPI_Allgatherv (floats) */
  int ring;           /* MIXSIM_MPI_EXCHANGE: 1 ring of sends (ring), else MPI_Allgatherv;
                         2 "-timed" (allgatherv-timed, ring-timed): a barrier before each
                         exchange, so that mpi_s is the transfer without the waiting */
  double mpi_s;       /* time in the position exchange's collective */
  long gathers;
} ms_rank_split;

/* Collective, inside ms_gset_open: agrees on the devices' opening (`st`), then makes the
 * granule and the padding unit common multiples of every rank's, so that all ranks pad
 * the bodies alike and their range boundaries suit every device. */
ms_status ms_ranks_units(ms_status st, long *granule, long *pad);

/* Collective: every rank's range of the float4 array `buf` (n_pad of them) to every
 * rank, in place (MPI_Allgatherv); its time is added to r->mpi_s. */
ms_status ms_ranks_gather(ms_rank_split *r, float *buf);

/* Collective: `st` agreed, then every rank's range of the whole state (three float4
 * arrays: positions, velocities, accelerations) to every rank, in place. */
ms_status ms_ranks_gather_state(ms_rank_split *r, ms_status st, float *pos, float *vel,
                                float *acc);

/* Collective: every rank's force speed `mine` (bodies/s) into all[rank] for every rank
 * (MPI_Allgather); a failure aborts the job (ms_ranks_abort), since the ranks could no
 * longer meet. For ms_ranks_rebalance (gravity/rank_ranges.h). */
void ms_ranks_share_rate(double mine, double *all);

/* The plan, a pure function: `units` granules shared in proportion to `rate` (n > 0 of
 * them, each > 0), largest remainders first, at least one each while there are enough.
 * Writes count[] (in granules) and returns 1 when it differs from old[] (NULL: always 1). */
int ms_ranks_plan(const double *rate, int n, int units, const int *old, int *count);

#endif
