/* Two-party rendezvous with abort. */
#include "collision/sync.h"

void ms_sync_init(ms_sync *s)
{
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->cond, NULL);
  s->arrived = 0;
  s->generation = 0;
  s->aborted = 0;
}

void ms_sync_destroy(ms_sync *s)
{
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->lock);
}

void ms_sync_reset(ms_sync *s)
{
  pthread_mutex_lock(&s->lock);
  s->arrived = 0;
  s->generation = 0;
  s->aborted = 0;
  pthread_mutex_unlock(&s->lock);
}

int ms_sync_meet(ms_sync *s)
{
  pthread_mutex_lock(&s->lock);
  if (s->aborted) {
    pthread_mutex_unlock(&s->lock);
    return -1;
  }
  unsigned long gen = s->generation;
  if (++s->arrived == 2) {
    s->arrived = 0;
    s->generation++;
    pthread_cond_broadcast(&s->cond);
  } else {
    pthread_cond_broadcast(&s->cond); /* (a leading partner waits for this arrival) */
    while (gen == s->generation && !s->aborted)
      pthread_cond_wait(&s->cond, &s->lock);
  }
  int rc = (gen == s->generation) ? -1 : 0;
  /* Released by the abort, not by the partner: take the arrival back, so the count
   * never outlives the meeting it belonged to. */
  if (rc)
    s->arrived--;
  pthread_mutex_unlock(&s->lock);
  return rc;
}

int ms_sync_meet_leading(ms_sync *s, int (*lead)(void *), void *arg)
{
  pthread_mutex_lock(&s->lock);
  while (s->arrived == 0 && !s->aborted)
    pthread_cond_wait(&s->cond, &s->lock);
  int aborted = s->aborted;
  pthread_mutex_unlock(&s->lock);
  if (aborted)
    return -1;
  /* The partner waits at the meeting meanwhile: what it did before arriving is done. */
  if (lead(arg)) {
    ms_sync_abort(s);
    return -1;
  }
  return ms_sync_meet(s);
}

void ms_sync_abort(ms_sync *s)
{
  pthread_mutex_lock(&s->lock);
  s->aborted = 1;
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
}
