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

/* Waits until both threads have arrived. Returns 0, or -1 once aborted. */
int ms_sync_meet(ms_sync *s);
void ms_sync_abort(ms_sync *s);

#endif
