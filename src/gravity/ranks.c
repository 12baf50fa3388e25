/* Gravity mode over several MPI ranks: joining the job, agreeing on failures and on the
 * stop flag, the plan of the ranks' ranges of the bodies (from their measured speeds), the
 * position exchange between ranks and the collectives of the rebalance that moves bodies
 * between them (gravity/rank_ranges.c sets the ranges over the devices). Every MPI call of
 * the program is here, under MS_HAVE_MPI; without it, or outside an MPI launch, the
 * process is one rank and the collectives return at once. */
#include "gravity/ranks.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/number.h"

#ifdef MS_HAVE_MPI
#include <mpi.h>
#endif

#define TEXT_MAX 1024

static struct {
  int on; /* inside an MPI job of more than one rank */
  int size, rank, local_rank, local_size;
  int err_fd;
  const volatile sig_atomic_t *signal_flag;
  volatile sig_atomic_t agreed_stop;
  int serialized; /* MPI may be called from any thread, one at a time */
} world = {0, 1, 0, 0, 1, 2, NULL, 0, 1};

int ms_ranks_size(void) { return world.size; }
int ms_ranks_rank(void) { return world.rank; }
int ms_ranks_local_rank(void) { return world.local_rank; }
int ms_ranks_local_size(void) { return world.local_size; }
int ms_ranks_serialized(void) { return world.serialized; }
void ms_ranks_set_error_fd(int fd) { world.err_fd = fd; }

const volatile sig_atomic_t *ms_ranks_stop_flag(const volatile sig_atomic_t *signal_flag)
{
  if (!world.on)
    return signal_flag;
  world.signal_flag = signal_flag;
  return &world.agreed_stop;
}

static void copy_text(char *out, size_t cap, const char *text)
{
  if (cap)
    snprintf(out, cap, "%s", text ? text : "");
}

ms_status ms_ranks_agree(ms_status st)
{
  char text[TEXT_MAX];
  int from = 0;
  int code = ms_ranks_agree_code((int)st, st ? ms_error_message() : "", text, sizeof text, &from);
  if (!code || !world.on)
    return (ms_status)code;
  char kept[TEXT_MAX + 32];
  if (from > 0)
    snprintf(kept, sizeof kept, "rank %d: %s", from, text);
  else
    snprintf(kept, sizeof kept, "%s", text);
  ms_error_replace(kept);
  return (ms_status)code;
}

/* ---- the plan (pure) ------------------------------------------------------------------- */

int ms_ranks_plan(const double *rate, int n, int units, const int *old, int *count)
{
  double total = 0.0;
  for (int i = 0; i < n; i++)
    total += rate[i];
  int given = 0;
  double *frac = malloc((size_t)n * sizeof *frac);
  if (!frac) { /* keep the old plan (or equal shares) rather than fail a run over it */
    for (int i = 0; i < n; i++)
      count[i] = old ? old[i] : units * (i + 1) / n - units * i / n;
    return 0;
  }
  for (int i = 0; i < n; i++) {
    double ideal = total > 0.0 ? units * rate[i] / total : (double)units / n;
    int u = (int)ideal;
    if (u < 1 && units >= n)
      u = 1;
    frac[i] = ideal - u;
    count[i] = u;
    given += u;
  }
  while (given > units) { /* the minimum of one granule overshot: take from the largest */
    int big = 0;
    for (int i = 1; i < n; i++)
      big = count[i] > count[big] ? i : big;
    count[big]--;
    given--;
  }
  while (given < units) { /* largest remainders first; ties to the lowest index */
    int best = 0;
    for (int i = 1; i < n; i++)
      best = frac[i] > frac[best] ? i : best;
    count[best]++;
    frac[best] -= 1.0;
    given++;
  }
  free(frac);
  int changed = old == NULL;
  for (int i = 0; old && i < n; i++)
    changed |= count[i] != old[i];
  return changed;
}

#ifndef MS_HAVE_MPI

/* ---- one rank: no MPI in the build -------------------------------------------------- */

int ms_ranks_built(void) { return 0; }
ms_status ms_ranks_start(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  return MS_OK;
}
void ms_ranks_end(void) {}
int ms_ranks_agree_code(int code, const char *text, char *text_out, size_t cap, int *from)
{
  copy_text(text_out, cap, text);
  *from = 0;
  return code;
}
void ms_ranks_agree_stop(void) {}
int ms_ranks_differs(uint32_t value, uint32_t *theirs)
{
  *theirs = value;
  return -1;
}
ms_status ms_ranks_bcast(void *buf, size_t bytes)
{
  (void)buf;
  (void)bytes;
  return MS_OK;
}
void ms_ranks_abort(ms_status st) { (void)st; } /* one rank always meets itself */
ms_status ms_ranks_units(ms_status st, long *granule, long *pad)
{
  (void)granule;
  (void)pad;
  return st;
}
ms_status ms_ranks_gather(ms_rank_split *r, float *buf)
{
  (void)r;
  (void)buf;
  return MS_OK;
}
ms_status ms_ranks_gather_state(ms_rank_split *r, ms_status st, float *pos, float *vel,
                                float *acc)
{
  (void)r;
  (void)pos;
  (void)vel;
  (void)acc;
  return st;
}
void ms_ranks_share_rate(double mine, double *all) { all[0] = mine; }
ms_status ms_ranks_allgather_bytes(const void *mine, size_t n, unsigned char **all, size_t *sizes)
{
  *all = malloc(n + 1);
  if (!*all)
    return ms_fail(MS_ERR_RUNTIME, "out of memory gathering %zu bytes", n);
  if (n)
    memcpy(*all, mine, n);
  sizes[0] = n;
  return MS_OK;
}

ms_status ms_ranks_exchange_pieces(const ms_ranks_piece *piece, int n)
{
  (void)piece, (void)n; /* one rank: nobody else to send to */
  return MS_OK;
}

#else

/* ---- MPI ------------------------------------------------------------------------------ */

int ms_ranks_built(void) { return 1; }

/* Started by mpirun/mpiexec (Open MPI, MPICH, Intel MPI) or srun: then, and only then, the
 * program joins a job; a plain start stays a plain process, as without MPI. */
static int launched(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                        "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i]))
      return 1;
  return 0;
}

static int stop_wanted(void) { return world.signal_flag && *world.signal_flag; }

static ms_status mpi_check(int err, const char *what)
{
  if (err == MPI_SUCCESS)
    return MS_OK;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  return ms_fail(MS_ERR_RUNTIME, "%s: %.*s", what, len, text);
}

static int joined; /* MPI_Init done, MPI_Finalize due */

ms_status ms_ranks_start(int *argc, char ***argv)
{
  if (!launched())
    return MS_OK;
  int provided = 0;
  /* (serialized: a collision domain's CPU worker hands its large particles over between the
   * driving thread's calls, domains/lockstep.c) */
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return ms_fail(MS_ERR_RUNTIME, "MPI_Init_thread failed");
  joined = 1;
  world.serialized = provided >= MPI_THREAD_SERIALIZED;
  /* Errors come back as values: the run reports them (or aborts, as the last resort). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm local;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
      MPI_SUCCESS) {
    MPI_Comm_size(local, &world.local_size);
    MPI_Comm_rank(local, &world.local_rank);
    MPI_Comm_free(&local);
  }
  world.on = world.size > 1;
  return MS_OK;
}

void ms_ranks_end(void)
{
  if (joined)
    MPI_Finalize();
  joined = 0;
}

int ms_ranks_agree_code(int code, const char *text, char *text_out, size_t cap, int *from)
{
  *from = 0;
  if (!world.on) {
    copy_text(text_out, cap, text);
    return code;
  }
  /* One allreduce: the lowest failing rank, and whether any rank was asked to stop. */
  int mine[2] = {code ? world.rank : world.size, stop_wanted() ? 0 : 1}, all[2];
  if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "MPI_Allreduce failed"));
  if (!all[1])
    world.agreed_stop = 1;
  if (all[0] == world.size) {
    copy_text(text_out, cap, "");
    return 0;
  }
  struct {
    int code;
    char text[TEXT_MAX];
  } msg = {code, ""};
  if (world.rank == all[0])
    snprintf(msg.text, sizeof msg.text, "%s", text ? text : "");
  if (MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, all[0], MPI_COMM_WORLD) != MPI_SUCCESS)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "MPI_Bcast failed"));
  copy_text(text_out, cap, msg.text);
  *from = all[0];
  return msg.code;
}

void ms_ranks_agree_stop(void)
{
  if (!world.on)
    return;
  int mine = stop_wanted(), any = 0;
  if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "MPI_Allreduce failed"));
  if (any)
    world.agreed_stop = 1;
}

int ms_ranks_differs(uint32_t value, uint32_t *theirs)
{
  *theirs = value;
  if (!world.on)
    return -1;
  uint32_t *all = malloc((size_t)world.size * sizeof *all);
  if (!all)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "out of memory"));
  if (MPI_Allgather(&value, 1, MPI_UINT32_T, all, 1, MPI_UINT32_T, MPI_COMM_WORLD) != MPI_SUCCESS)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "MPI_Allgather failed"));
  int first = -1;
  for (int i = 1; first < 0 && i < world.size; i++)
    if (all[i] != all[0]) {
      first = i;
      *theirs = all[i];
    }
  free(all);
  return first;
}

ms_status ms_ranks_bcast(void *buf, size_t bytes)
{
  if (!world.on)
    return MS_OK;
  char *p = buf;
  while (bytes > 0) { /* counts are ints: large states go in pieces */
    int piece = bytes > (1u << 30) ? 1 << 30 : (int)bytes;
    ms_status st = mpi_check(MPI_Bcast(p, piece, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    if (st)
      return st;
    p += piece;
    bytes -= (size_t)piece;
  }
  return MS_OK;
}

void ms_ranks_abort(ms_status st)
{
  char line[TEXT_MAX + 64];
  int n = snprintf(line, sizeof line, "mixsim: rank %d: %s (aborting the MPI job)\n", world.rank,
                   ms_error_message());
  if (n > 0 && write(world.err_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
    n = 0;
  if (joined)
    MPI_Abort(MPI_COMM_WORLD, (int)st);
  exit((int)st);
}

ms_status ms_ranks_units(ms_status st, long *granule, long *pad)
{
  if (!world.on)
    return st;
  st = ms_ranks_agree(st);
  if (st)
    return st;
  long mine[2] = {*granule, *pad};
  long *all = malloc((size_t)world.size * sizeof mine);
  if (!all)
    ms_ranks_abort(ms_fail(MS_ERR_RUNTIME, "out of memory"));
  st = mpi_check(MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD),
                 "MPI_Allgather");
  for (int i = 0; !st && i < world.size; i++) {
    *granule = ms_number_lcm(*granule, all[2 * i]);
    *pad = ms_number_lcm(*pad, all[2 * i + 1]);
  }
  free(all);
  return st;
}

static ms_status gather(ms_rank_split *r, float *buf)
{
  return mpi_check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, r->counts, r->displs,
                                  MPI_FLOAT, MPI_COMM_WORLD),
                   "MPI_Allgatherv");
}

/* The same result passed around a ring (MIXSIM_MPI_EXCHANGE=ring, for measuring against
 * MPI_Allgatherv): in round k each rank sends the block it received in round k - 1 (its
 * own first) to the next rank and receives the previous rank's, P - 1 rounds. */
static ms_status ring(ms_rank_split *r, float *buf)
{
  int next = (r->rank + 1) % r->size, prev = (r->rank + r->size - 1) % r->size;
  ms_status st = MS_OK;
  for (int k = 0; !st && k < r->size - 1; k++) {
    int out = (r->rank - k + r->size) % r->size, in = (r->rank - k - 1 + 2 * r->size) % r->size;
    MPI_Request req[2];
    st = mpi_check(MPI_Irecv(buf + r->displs[in], r->counts[in], MPI_FLOAT, prev, k,
                             MPI_COMM_WORLD, &req[0]), "MPI_Irecv");
    if (!st)
      st = mpi_check(MPI_Isend(buf + r->displs[out], r->counts[out], MPI_FLOAT, next, k,
                               MPI_COMM_WORLD, &req[1]), "MPI_Isend");
    if (!st)
      st = mpi_check(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  return st;
}

ms_status ms_ranks_gather(ms_rank_split *r, float *buf)
{
  if (!r || r->size < 2)
    return MS_OK;
  if (r->ring & 2) /* "-timed": the ranks meet first, so that the time is the transfer's alone */
    MPI_Barrier(MPI_COMM_WORLD);
  double t0 = ms_now();
  ms_status st = r->ring & 1 ? ring(r, buf) : gather(r, buf);
  r->mpi_s += ms_now() - t0;
  r->gathers++;
  return st;
}

ms_status ms_ranks_gather_state(ms_rank_split *r, ms_status st, float *pos, float *vel,
                                float *acc)
{
  st = ms_ranks_agree(st);
  float *arrays[] = {pos, vel, acc};
  for (int a = 0; r && r->size > 1 && !st && a < 3; a++)
    st = gather(r, arrays[a]);
  return st;
}

void ms_ranks_share_rate(double mine, double *all)
{
  ms_status st = mpi_check(MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE,
                                         MPI_COMM_WORLD), "MPI_Allgather");
  if (st)
    ms_ranks_abort(st);
}


/* Collective: every rank's length n, in sizes[rank] (world.size of them). */
static ms_status allgather_sizes(size_t n, size_t *sizes)
{
  if (!world.on) {
    sizes[0] = n;
    return MS_OK;
  }
  unsigned long long own = n, *each = malloc((size_t)world.size * sizeof *each);
  ms_status st = each ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st)
    st = mpi_check(MPI_Allgather(&own, 1, MPI_UNSIGNED_LONG_LONG, each, 1,
                                 MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
  for (int r = 0; !st && r < world.size; r++)
    sizes[r] = (size_t)each[r];
  free(each);
  return st;
}

ms_status ms_ranks_allgather_bytes(const void *mine, size_t n, unsigned char **all, size_t *sizes)
{
  *all = NULL;
  if (!world.on) {
    *all = malloc(n + 1);
    if (*all && n)
      memcpy(*all, mine, n);
    sizes[0] = n;
    return *all ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory gathering %zu bytes", n);
  }
  int *count = malloc((size_t)world.size * sizeof *count);
  int *displ = malloc((size_t)world.size * sizeof *displ);
  ms_status st = count && displ ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st)
    st = allgather_sizes(n, sizes);
  unsigned long long total = 0;
  for (int r = 0; !st && r < world.size; r++) {
    count[r] = (int)sizes[r];
    displ[r] = (int)total;
    total += sizes[r];
  }
  if (!st && total > INT_MAX) /* (int counts: the ranks' shares are far smaller) */
    st = ms_fail(MS_ERR_RUNTIME, "%llu bytes to gather among the ranks: more than MPI_Allgatherv "
                                 "takes at once", total);
  if (!st && !(*all = malloc((size_t)total + 1)))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory gathering %llu bytes", total);
  if (!st)
    st = mpi_check(MPI_Allgatherv(mine, (int)n, MPI_BYTE, *all, count, displ, MPI_BYTE,
                                  MPI_COMM_WORLD), "MPI_Allgatherv");
  free(count);
  free(displ);
  return st;
}

#define EXCHANGE_TAG 7101 /* (the only point-to-point bytes of collision mode) */

ms_status ms_ranks_exchange_pieces(const ms_ranks_piece *piece, int n)
{
  if (!world.on)
    return MS_OK;
  for (int k = 0; k < n; k++) /* (int counts: the ranks' shares are far smaller) */
    if (piece[k].n > INT_MAX)
      return ms_fail(MS_ERR_RUNTIME, "%zu bytes %s rank %d: more than one message takes",
                     piece[k].n, piece[k].out ? "to" : "from", piece[k].peer);
  MPI_Request *req = malloc(((size_t)n + 1) * sizeof *req);
  if (!req)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  int m = 0, err = MPI_SUCCESS;
  for (int out = 0; out < 2; out++) /* (the receives first: a send finds its receive posted) */
    for (int k = 0; err == MPI_SUCCESS && k < n; k++) {
      const ms_ranks_piece *p = &piece[k];
      if (p->out != out || p->n == 0)
        continue;
      err = out ? MPI_Isend(p->at, (int)p->n, MPI_BYTE, p->peer, EXCHANGE_TAG, MPI_COMM_WORLD,
                            &req[m++])
                : MPI_Irecv(p->at, (int)p->n, MPI_BYTE, p->peer, EXCHANGE_TAG, MPI_COMM_WORLD,
                            &req[m++]);
    }
  /* (what was posted completes either way: the buffers are the caller's) */
  int done = m > 0 ? MPI_Waitall(m, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
  free(req);
  ms_status st = mpi_check(err, "MPI_Isend/MPI_Irecv");
  return st ? st : mpi_check(done, "MPI_Waitall");
}

#endif
