/* The output writer thread (io/writer.h) without a simulation: every slot handed over
 * is written once, in order, never while the simulation side fills it; a failing write
 * stops the writer, later slots are refused, and finishing returns the failure with its
 * message (naming the file). In the determinism suite, so tools/dev/sanitize.sh runs it under
 * ThreadSanitizer. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "io/writer.h"

static const char *filter;

typedef struct job {
  long seq;
  double data[256]; /* every entry = seq while filled completely */
} job;

typedef struct sink {
  long written[200];
  long n;
  long fail_at; /* the seq whose write fails (-1: none) */
  int torn;     /* a slot seen half filled */
} sink;

static ms_status write_job(void *slot, void *ctx)
{
  job *j = slot;
  sink *s = ctx;
  for (int i = 0; i < 256; i++)
    s->torn |= j->data[i] != (double)j->seq;
  if (j->seq == s->fail_at)
    return ms_fail(MS_ERR_RUNTIME, "cannot write 'frame_%06ld.vtp': No space left on device", j->seq);
  s->written[s->n++] = j->seq;
  return MS_OK;
}

static void fill(job *j, long seq)
{
  j->seq = seq;
  for (int i = 0; i < 256; i++)
    j->data[i] = (double)seq;
}

static void test_every_slot_written_in_order(void)
{
  job a, b;
  void *slots[2] = {&a, &b};
  sink s = {.fail_at = -1};
  ms_writer *w = NULL;
  ENSURE(ms_writer_start(slots, write_job, &s, &w) == MS_OK);
  for (long k = 0; k < 150; k++) {
    job *j = ms_writer_acquire(w);
    ENSURE(j == &a || j == &b);
    fill(j, k);
    ms_writer_submit(w, j);
  }
  ms_writer_stats st;
  ENSURE(ms_writer_finish(w, &st) == MS_OK);
  ENSURE(s.n == 150 && st.jobs == 150 && !s.torn);
  for (long k = 0; k < 150; k++)
    ENSURE(s.written[k] == k);
  ENSURE(st.waits >= 0 && st.wait_s >= 0.0 && st.busy_s >= 0.0);
}

static void test_failure_stops_the_writer(void)
{
  job a, b;
  void *slots[2] = {&a, &b};
  sink s = {.fail_at = 3};
  ms_writer *w = NULL;
  ms_error_clear();
  ENSURE(ms_writer_start(slots, write_job, &s, &w) == MS_OK);
  long handed = 0;
  /* The writer refuses slots once it has failed: within a few hand-overs of the
   * failing one, however the threads interleave (acquire waits for it to finish). */
  for (long k = 0; k < 100; k++) {
    job *j = ms_writer_acquire(w);
    if (!j)
      break;
    fill(j, k);
    ms_writer_submit(w, j);
    handed++;
  }
  ENSURE(handed >= 4 && handed <= 6);
  ENSURE(ms_writer_failed(w));
  ms_status st = ms_writer_finish(w, NULL);
  ENSURE(st == MS_ERR_RUNTIME);
  ENSURE(strstr(ms_error_message(), "frame_000003.vtp") != NULL);
  ENSURE(s.n == 3 && s.written[2] == 2); /* nothing after the failure */
  ms_error_clear();
}

static void test_released_slot_is_free_again(void)
{
  job a, b;
  void *slots[2] = {&a, &b};
  sink s = {.fail_at = -1};
  ms_writer *w = NULL;
  ENSURE(ms_writer_start(slots, write_job, &s, &w) == MS_OK);
  for (int k = 0; k < 10; k++) /* a copy that failed: the slot goes back unwritten */
    ms_writer_release(w, ms_writer_acquire(w));
  ENSURE(ms_writer_finish(w, NULL) == MS_OK);
  ENSURE(s.n == 0);
}

int main(int argc, char **argv)
{
  filter = argc > 1 && argv[1][0] ? argv[1] : NULL;
  RUN_TEST(test_every_slot_written_in_order, filter);
  RUN_TEST(test_failure_stops_the_writer, filter);
  RUN_TEST(test_released_slot_is_free_again, filter);
  return TEST_EXIT();
}
