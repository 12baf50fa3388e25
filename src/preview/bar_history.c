/* The timing bar's history: per-frame phase sums in a ring, and their mean over the last
 * second (see bar_history.h). */
#include "preview/bar_history.h"

#include <string.h>

void ms_bar_history_add(ms_bar_history *h, const ms_frame *f)
{
  if (f->iterations <= 0 || f->n_events == 0)
    return;
  if (h->n_added > 0 &&
      h->frame[(h->n_added - 1) % MS_BAR_HISTORY_FRAMES].advance_t0 == f->advance_t0)
    return; /* the same advance again: a frame published while paused */
  ms_bar_sums *b = &h->frame[h->n_added % MS_BAR_HISTORY_FRAMES];
  memset(b, 0, sizeof *b);
  b->advance_t0 = f->advance_t0;
  b->iterations = f->iterations;
  for (int i = 0; i < f->n_events; i++) {
    const ms_trace_event *e = &f->events[i];
    if ((unsigned)e->thread < MS_THREAD_COUNT && (unsigned)e->phase < MS_PHASE_COUNT &&
        e->t1 > e->t0)
      b->s[e->thread][e->phase] += e->t1 - e->t0;
  }
  h->n_added++;
}

void ms_bar_history_average(const ms_bar_history *h, ms_bar_average *out)
{
  memset(out, 0, sizeof *out);
  if (h->n_added == 0)
    return;
  long kept = h->n_added < MS_BAR_HISTORY_FRAMES ? h->n_added : MS_BAR_HISTORY_FRAMES;
  double latest = h->frame[(h->n_added - 1) % MS_BAR_HISTORY_FRAMES].advance_t0;
  for (long k = 0; k < kept; k++) {
    const ms_bar_sums *b = &h->frame[(h->n_added - 1 - k) % MS_BAR_HISTORY_FRAMES];
    if (latest - b->advance_t0 >= MS_BAR_HISTORY_S)
      break; /* older frames only from here */
    out->frames++;
    out->iterations += b->iterations;
    for (int t = 0; t < MS_THREAD_COUNT; t++)
      for (int p = 0; p < MS_PHASE_COUNT; p++)
        out->s[t][p] += b->s[t][p];
  }
  out->iterations /= out->frames;
  for (int t = 0; t < MS_THREAD_COUNT; t++)
    for (int p = 0; p < MS_PHASE_COUNT; p++)
      out->s[t][p] /= out->frames;
}
