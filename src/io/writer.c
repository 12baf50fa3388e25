/* The writer thread of io/writer.h: two slots, each free, filling, queued or writing,
 * behind one mutex; the thread takes queued slots in the order they were handed over. */
#include "io/writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/trace_events.h"
#include "core/clock.h"

enum { FREE, FILLING, QUEUED, WRITING };

struct ms_writer {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* a slot changed state, or the writer is to stop */
  void *slot[2];
  int state[2];
  long order[2]; /* hand-over number of a queued slot */
  long handed;
  int stopping, failed;
  ms_status failure;
  char message[2048];
  ms_writer_fn write;
  void *ctx;
  ms_writer_stats stats;
};

static int next_queued(const ms_writer *w)
{
  int k = -1;
  for (int i = 0; i < 2; i++)
    if (w->state[i] == QUEUED && (k < 0 || w->order[i] < w->order[k]))
      k = i;
  return k;
}

static void *writer_main(void *arg)
{
  ms_writer *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    int k = next_queued(w);
    if (k < 0) {
      if (w->stopping)
        break;
      pthread_cond_wait(&w->changed, &w->lock);
      continue;
    }
    w->state[k] = WRITING;
    int skip = w->failed; /* after a failure nothing more is written */
    pthread_mutex_unlock(&w->lock);
    double t0 = ms_now();
    ms_status st = skip ? MS_OK : w->write(w->slot[k], w->ctx);
    double t1 = ms_now(), t = t1 - t0;
    if (ms_tev_on && !skip) /* the writer's track of --trace */
      ms_tev_span_free("writer", "write frame", t0, t1);
    char message[sizeof w->message] = "";
    if (st) { /* this thread's own message: the simulation threads may fail too */
      const char *m = ms_error_thread_message();
      snprintf(message, sizeof message, "%s", m ? m : ms_error_message());
    }
    pthread_mutex_lock(&w->lock);
    w->stats.busy_s += t;
    w->stats.jobs += !skip;
    if (st && !w->failed) {
      w->failed = 1;
      w->failure = st;
      memcpy(w->message, message, sizeof message);
    }
    w->state[k] = FREE;
    pthread_cond_broadcast(&w->changed);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

ms_status ms_writer_start(void *slots[2], ms_writer_fn write, void *ctx, ms_writer **out)
{
  *out = NULL;
  ms_writer *w = calloc(1, sizeof *w);
  if (!w)
    return ms_fail(MS_ERR_RUNTIME, "out of memory starting the output writer");
  w->slot[0] = slots[0];
  w->slot[1] = slots[1];
  w->write = write;
  w->ctx = ctx;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->changed, NULL);
  if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return ms_fail(MS_ERR_RUNTIME, "could not start the output writer thread");
  }
  *out = w;
  return MS_OK;
}

void *ms_writer_acquire(ms_writer *w)
{
  pthread_mutex_lock(&w->lock);
  int waited = 0;
  double t0 = 0.0;
  while (!w->failed && w->state[0] != FREE && w->state[1] != FREE) {
    if (!waited)
      t0 = ms_now();
    waited = 1;
    pthread_cond_wait(&w->changed, &w->lock);
  }
  if (waited) {
    double t1 = ms_now();
    w->stats.waits++;
    w->stats.wait_s += t1 - t0;
    if (ms_tev_on) /* a track of its own: it overlaps the writer's spans */
      ms_tev_span_free("writer: waits for a buffer", "wait", t0, t1);
  }
  void *slot = NULL;
  if (!w->failed) {
    int k = w->state[0] == FREE ? 0 : 1;
    w->state[k] = FILLING;
    slot = w->slot[k];
  }
  pthread_mutex_unlock(&w->lock);
  return slot;
}

static void set_state(ms_writer *w, void *slot, int state)
{
  pthread_mutex_lock(&w->lock);
  int k = slot == w->slot[0] ? 0 : 1;
  w->state[k] = state;
  w->order[k] = w->handed++;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
}

void ms_writer_submit(ms_writer *w, void *slot) { set_state(w, slot, QUEUED); }

void ms_writer_release(ms_writer *w, void *slot) { set_state(w, slot, FREE); }

int ms_writer_failed(ms_writer *w)
{
  pthread_mutex_lock(&w->lock);
  int failed = w->failed;
  pthread_mutex_unlock(&w->lock);
  return failed;
}

ms_status ms_writer_finish(ms_writer *w, ms_writer_stats *stats)
{
  if (!w)
    return MS_OK;
  pthread_mutex_lock(&w->lock);
  w->stopping = 1;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  if (stats)
    *stats = w->stats;
  ms_status st = w->failed ? ms_fail(w->failure, "%s", w->message) : MS_OK;
  pthread_cond_destroy(&w->changed);
  pthread_mutex_destroy(&w->lock);
  free(w);
  return st;
}
