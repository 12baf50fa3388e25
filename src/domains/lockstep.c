/* The large particles handed over every iteration (lockstep.h). Two copies of the owners'
 * states, by the step's parity: a domain writes step t's into one while a slower domain may
 * still read step t - 1's from the other, and none writes step t + 1's before every domain
 * has passed step t's barrier (or, stepping in turn, before every domain has made step t),
 * so one barrier an iteration is all the order needed. A domain takes the others' at the
 * start of its next iteration. */
#include "domains/lockstep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "collision/sim_internal.h"
#include "collision/split.h"
#include "core/clock.h"
#include "gravity/ranks.h"

/* One domain's part: what it hands over, what it takes, where its time goes. Written by
 * its own worker thread during a block, by the driving thread between blocks. */
typedef struct party {
  ms_lockstep *ls;
  int d;
  int *mine, *theirs; /* the slots of the large particles it owns, and of those it takes */
  const int *held;    /* each slot's large particle (global index) */
  int n_mine, n_theirs;
  int turn; /* hand-overs in this block: the copy its parity names */
  double wait_s;
  long handovers;
} party;

/* A large particle's state as a rank hands it to the others. */
typedef struct handed {
  int j, img[2], unused;
  double xv[4];
} handed;

struct ms_lockstep {
  pthread_mutex_t lock;
  pthread_cond_t all_in;
  int parties;
  ms_lockstep_mode mode;
  int block; /* across ranks: the hand-overs every rank makes in this block */
  handed *out; /* across ranks: this rank's, after a flag (whether it left) */
  size_t *sizes;
  double spin_s;
  atomic_int arrived;
  atomic_ulong generation; /* bumped by the last domain to arrive */
  atomic_int broken;
  int n_large;
  double *xv[2]; /* per large particle (x, y, vx, vy), by the step's parity */
  int *img[2];
  party *party;
  int n_party;
};

ms_status ms_lockstep_make(int n_large, int parties, ms_lockstep **out)
{
  ms_lockstep *ls = calloc(1, sizeof *ls);
  size_t n = (size_t)n_large + 1;
  int ok = ls != NULL;
  if (ok) {
    pthread_mutex_init(&ls->lock, NULL);
    pthread_cond_init(&ls->all_in, NULL);
    ls->n_large = n_large;
    ls->n_party = parties;
    ls->party = calloc((size_t)parties, sizeof *ls->party);
    ok = ls->party != NULL;
    ok = ok && (ls->out = malloc((n + 1) * sizeof *ls->out)) &&
         (ls->sizes = malloc((size_t)ms_ranks_size() * sizeof *ls->sizes));
    for (int b = 0; ok && b < 2; b++)
      ok = (ls->xv[b] = malloc(4 * n * sizeof(double))) &&
           (ls->img[b] = malloc(2 * n * sizeof(int)));
    for (int d = 0; ok && d < parties; d++) {
      party *p = &ls->party[d];
      *p = (party){.ls = ls, .d = d};
      ok = (p->mine = malloc(n * sizeof(int))) && (p->theirs = malloc(n * sizeof(int)));
    }
  }
  if (!ok) {
    ms_lockstep_free(ls);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' large particles' hand-over");
  }
  *out = ls;
  return MS_OK;
}

void ms_lockstep_free(ms_lockstep *ls)
{
  if (!ls)
    return;
  for (int d = 0; ls->party && d < ls->n_party; d++)
    free(ls->party[d].mine), free(ls->party[d].theirs);
  for (int b = 0; b < 2; b++)
    free(ls->xv[b]), free(ls->img[b]);
  free(ls->party);
  free(ls->out);
  free(ls->sizes);
  pthread_cond_destroy(&ls->all_in);
  pthread_mutex_destroy(&ls->lock);
  free(ls);
}

void ms_lockstep_begin(ms_lockstep *ls, int parties, double spin_s, ms_lockstep_mode mode,
                       int block)
{
  ls->parties = parties;
  ls->mode = mode;
  ls->block = block;
  for (int d = 0; d < ls->n_party; d++)
    ls->party[d].turn = 0;
  ls->spin_s = spin_s;
  atomic_store(&ls->arrived, 0);
  atomic_store(&ls->broken, 0);
}

void ms_lockstep_break(ms_lockstep *ls)
{
  if (!ls)
    return;
  pthread_mutex_lock(&ls->lock);
  atomic_store(&ls->broken, 1);
  pthread_cond_broadcast(&ls->all_in);
  pthread_mutex_unlock(&ls->lock);
}

/* Every domain here: 1, or 0 where the block's barrier was broken. */
static int wait_for_all(ms_lockstep *ls)
{
  unsigned long seen = atomic_load_explicit(&ls->generation, memory_order_acquire);
  if (atomic_load(&ls->broken))
    return 0;
  if (atomic_fetch_add_explicit(&ls->arrived, 1, memory_order_acq_rel) + 1 == ls->parties) {
    atomic_store(&ls->arrived, 0);
    pthread_mutex_lock(&ls->lock);
    atomic_fetch_add_explicit(&ls->generation, 1, memory_order_release);
    pthread_cond_broadcast(&ls->all_in);
    pthread_mutex_unlock(&ls->lock);
    return 1;
  }
  double until = ls->spin_s > 0.0 ? ms_now() + ls->spin_s : 0.0;
  while (atomic_load_explicit(&ls->generation, memory_order_acquire) == seen &&
         !atomic_load(&ls->broken) && until > 0.0 && ms_now() < until) {
  }
  pthread_mutex_lock(&ls->lock);
  while (atomic_load_explicit(&ls->generation, memory_order_acquire) == seen &&
         !atomic_load(&ls->broken))
    pthread_cond_wait(&ls->all_in, &ls->lock);
  pthread_mutex_unlock(&ls->lock);
  return atomic_load_explicit(&ls->generation, memory_order_acquire) != seen;
}

/* Across ranks (a domain a rank): every rank's owned large particles to every rank, into
 * the turn's copy, `left` flagging a rank that no longer steps; 1 where none did. Every
 * rank makes the block's hand-overs to the end, the ones its domain left made by
 * ms_lockstep_finish, so that no rank waits in a collective the others never make. */
static int among_ranks(party *p, int left)
{
  ms_lockstep *ls = p->ls;
  double *xv = ls->xv[(p->turn - 1) & 1];
  int *img = ls->img[(p->turn - 1) & 1];
  handed *o = ls->out;
  o[0] = (handed){left, {0, 0}, 0, {0, 0, 0, 0}};
  for (int k = 0; k < p->n_mine; k++) {
    int j = p->held[p->mine[k]];
    o[k + 1] = (handed){j, {img[2 * j], img[2 * j + 1]}, 0,
                        {xv[4 * j], xv[4 * j + 1], xv[4 * j + 2], xv[4 * j + 3]}};
  }
  unsigned char *all = NULL;
  ms_status st = ms_ranks_allgather_bytes(o, ((size_t)p->n_mine + 1) * sizeof *o, &all,
                                          ls->sizes);
  if (st) { /* (the other ranks would wait in the next hand-over) */
    ms_ranks_abort(st);
    return 0;
  }
  int none_left = 1;
  size_t at = 0;
  for (int r = 0; r < ms_ranks_size(); at += ls->sizes[r], r++) {
    const handed *h = (const handed *)(all + at);
    size_t n = ls->sizes[r] / sizeof *h;
    none_left &= n > 0 && h[0].j == 0;
    for (size_t k = 1; k < n; k++) {
      int j = h[k].j;
      if (j < 0 || j >= ls->n_large)
        continue;
      memcpy(&xv[4 * j], h[k].xv, sizeof h[k].xv);
      img[2 * j] = h[k].img[0], img[2 * j + 1] = h[k].img[1];
    }
  }
  free(all);
  return none_left;
}

/* The worker's hook once it has integrated: the owned large particles into this turn's
 * copy, then (stepping at once) the wait for every domain's. */
static ms_status give(void *ctx, ms_sim *s, long step)
{
  party *p = ctx;
  ms_lockstep *ls = p->ls;
  double *xv = ls->xv[p->turn & 1];
  int *img = ls->img[p->turn & 1];
  for (int k = 0; k < p->n_mine; k++) {
    int m = p->mine[k], j = p->held[m];
    ms_split_large_get(s, m, &xv[4 * j], &img[2 * j]);
  }
  p->turn++;
  p->handovers++;
  if (ls->mode == MS_LOCKSTEP_IN_TURN) /* (every domain's iteration before any's next) */
    return MS_OK;
  double t0 = ms_now();
  int all = ls->mode == MS_LOCKSTEP_RANKS ? among_ranks(p, 0) : wait_for_all(ls);
  p->wait_s += ms_now() - t0;
  return all ? MS_OK : ms_fail(MS_ERR_ABORTED, "step %ld: another domain left the large "
                               "particles' hand-over", step);
}

/* The worker's hook as it starts an iteration: the others' held large particles as their
 * owners gave them last (the block's first: as the meeting placed them). */
static ms_status take(void *ctx, ms_sim *s, long step)
{
  party *p = ctx;
  (void)step;
  if (p->turn == 0)
    return MS_OK;
  const double *xv = p->ls->xv[(p->turn - 1) & 1];
  const int *img = p->ls->img[(p->turn - 1) & 1];
  for (int k = 0; k < p->n_theirs; k++) {
    int m = p->theirs[k], j = p->held[m];
    ms_split_large_set(s, m, &xv[4 * j], &img[2 * j]);
  }
  return MS_OK;
}

static void left(void *ctx) { ms_lockstep_break(((party *)ctx)->ls); }

ms_status ms_lockstep_join(ms_lockstep *ls, int d, ms_sim *s, const int *owner, const int *held,
                           int n_held)
{
  if (d < 0 || d >= ls->n_party || s->p.n_large != ls->n_large)
    return ms_fail(MS_ERR_RUNTIME, "domain %d joins a hand-over of %d domains, %d large "
                   "particles", d, ls->n_party, ls->n_large);
  party *p = &ls->party[d];
  p->n_mine = p->n_theirs = p->turn = 0;
  p->held = held;
  for (int m = 0; m < n_held; m++) {
    if (owner[held[m]] == d)
      p->mine[p->n_mine++] = m;
    else
      p->theirs[p->n_theirs++] = m;
  }
  ms_split_large_hook(s, &(ms_split_large_hooks){take, give, left, p});
  return MS_OK;
}

void ms_lockstep_leave(ms_sim *s) { ms_split_large_hook(s, NULL); }

void ms_lockstep_finish(ms_lockstep *ls, int d)
{
  if (!ls || ls->mode != MS_LOCKSTEP_RANKS || d < 0 || d >= ls->n_party)
    return;
  party *p = &ls->party[d];
  for (; p->turn < ls->block; p->turn++)
    (void)among_ranks(&(party){.ls = ls, .held = p->held, .turn = p->turn + 1}, 1);
}

double ms_lockstep_wait_s(const ms_lockstep *ls, int d)
{
  return ls && d >= 0 && d < ls->n_party ? ls->party[d].wait_s : 0.0;
}

long ms_lockstep_handovers(const ms_lockstep *ls, int d)
{
  return ls && d >= 0 && d < ls->n_party ? ls->party[d].handovers : 0;
}
