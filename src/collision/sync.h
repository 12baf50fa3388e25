/* The rendezvous where the GPU manager and the CPU worker meet, twice an iteration.
 * Either side may abort it, so a failure in one thread never leaves the other waiting. */
#ifndef MS_SYNC_H
#define MS_SYNC_H

#include <pthread.h>

typedef struct ms_sync {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int arrived;
  unsigned long generation;
  int aborted;
} ms_sync;

void ms_sync_init(ms_sync *s);
void ms_sync_destroy(ms_sync *s);

/* Waits until both threads have arrived. Returns 0, or -1 once aborted: an abort
 * releases a waiting thread and every later meeting, until the next reset. */
int ms_sync_meet(ms_sync *s);
/* The meeting where this thread leads: it waits for its partner's arrival, runs
 * lead(arg) while the partner still waits, then completes the meeting, so that the partner
 * leaves it after what lead did (sync 1: the worker lays out the contact zone on the
 * device, and the manager's small-small waits for that there). A lead returning non-zero
 * aborts the rendezvous. Only one of the two threads may lead a meeting. */
int ms_sync_meet_leading(ms_sync *s, int (*lead)(void *), void *arg);
void ms_sync_abort(ms_sync *s);

/* Back to the state of a fresh rendezvous (nobody arrived, not aborted). Call only
 * while no thread uses it: between advances, with both threads joined. */
void ms_sync_reset(ms_sync *s);

#endif
