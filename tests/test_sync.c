/* The manager and worker's rendezvous (collision/sync.h) on its own: every meeting orders
 * what each thread wrote before it before what the other reads after it, and a led meeting
 * runs its lead with the partner there and still waiting; an abort releases a thread
 * waiting for a partner who never comes, plain or leading, and every later meeting until a
 * reset. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "collision/sync.h"
#include "harness.h"

static const char *filter;

enum { MEETINGS = 20000 };

typedef struct pair {
  ms_sync sync;
  int from_a, from_b, from_lead; /* plain ints: only the meetings order them */
  int wrong;                    /* the partner's counts, as each thread saw them */
  int partner_waiting;          /* the lead saw A there */
} pair;

/* Thread A: meeting 2k plain, 2k + 1 led by B. */
static void *thread_a(void *arg)
{
  pair *p = arg;
  for (int k = 0; k < MEETINGS; k++) {
    p->from_a = k;
    if (ms_sync_meet(&p->sync))
      return NULL;
    if (p->from_b != k)
      p->wrong++;
    if (ms_sync_meet(&p->sync)) /* led by B */
      return NULL;
    if (p->from_lead != k)
      p->wrong++;
  }
  return NULL;
}

static int lead(void *arg)
{
  pair *p = arg;
  p->from_lead = p->from_a; /* A wrote it before arriving, and waits until we are done */
  p->partner_waiting++;
  return 0;
}

static void *thread_b(void *arg)
{
  pair *p = arg;
  for (int k = 0; k < MEETINGS; k++) {
    p->from_b = k;
    if (ms_sync_meet(&p->sync))
      return NULL;
    if (p->from_a != k)
      p->wrong++;
    if (ms_sync_meet_leading(&p->sync, lead, p))
      return NULL;
  }
  return NULL;
}

static int meetings_keep_order(void)
{
  pair *p = calloc(1, sizeof *p);
  if (!p)
    return 0;
  ms_sync_init(&p->sync);
  p->from_a = p->from_b = p->from_lead = -1;
  pthread_t a, b;
  pthread_create(&a, NULL, thread_a, p);
  pthread_create(&b, NULL, thread_b, p);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  int ok = p->wrong == 0 && p->partner_waiting == MEETINGS && p->from_lead == MEETINGS - 1;
  if (!ok)
    fprintf(stderr, "%d wrong, %d leads\n", p->wrong, p->partner_waiting);
  ms_sync_destroy(&p->sync);
  free(p);
  return ok;
}

static void test_meetings_order_writes(void) { ENSURE(meetings_keep_order()); }

typedef struct waiter {
  ms_sync *sync;
  int led;
  int rc;
} waiter;

static int never(void *arg)
{
  (void)arg;
  return 1;
}

static void *wait_alone(void *arg)
{
  waiter *w = arg;
  w->rc = w->led ? ms_sync_meet_leading(w->sync, never, NULL) : ms_sync_meet(w->sync);
  return NULL;
}

/* A thread waiting alone, plain and leading: the abort releases it (one it missed would
 * hang here until the test's timeout). After a reset the rendezvous meets again. */
static void test_abort_releases_a_waiting_thread(void)
{
  for (int led = 0; led <= 1; led++) {
    ms_sync s;
    ms_sync_init(&s);
    waiter w = {&s, led, 0};
    pthread_t t;
    pthread_create(&t, NULL, wait_alone, &w);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    ms_sync_abort(&s);
    pthread_join(t, NULL);
    ENSURE(w.rc == -1);
    ENSURE(ms_sync_meet(&s) == -1); /* later meetings too, until the reset */
    ms_sync_reset(&s);
    w = (waiter){&s, 0, -1};
    pthread_create(&t, NULL, wait_alone, &w);
    int rc = ms_sync_meet(&s);
    pthread_join(t, NULL);
    ENSURE(rc == 0 && w.rc == 0);
    ms_sync_destroy(&s);
  }
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_meetings_order_writes, filter);
  RUN_TEST(test_abort_releases_a_waiting_thread, filter);
  return TEST_EXIT();
}
