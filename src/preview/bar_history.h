/* The timing bar's history option (key A): each thread's time per phase in the frames of
 * the last second, averaged per frame, so that a bar that flickers from frame to frame
 * can be read. The window adds each new frame; the renderer draws the average stacked. */
#ifndef MS_BAR_HISTORY_H
#define MS_BAR_HISTORY_H

#include "preview/frame.h"

#define MS_BAR_HISTORY_FRAMES 256 /* over four seconds at 60 frames/s */
#define MS_BAR_HISTORY_S 1.0      /* the span averaged */

typedef struct ms_bar_sums {
  double advance_t0;                           /* when the frame's advance began */
  int iterations;
  double s[MS_THREAD_COUNT][MS_PHASE_COUNT];   /* seconds per phase in that advance */
} ms_bar_sums;

typedef struct ms_bar_history {
  ms_bar_sums frame[MS_BAR_HISTORY_FRAMES]; /* a ring; the latest at (n_added-1) % FRAMES */
  long n_added;
} ms_bar_history;

/* The mean over the frames of the last MS_BAR_HISTORY_S seconds. */
typedef struct ms_bar_average {
  int frames;
  double iterations;                         /* per frame */
  double s[MS_THREAD_COUNT][MS_PHASE_COUNT]; /* seconds per frame */
} ms_bar_average;

/* Adds `f`'s phases; a frame with no iterations (paused) or seen already is skipped. */
void ms_bar_history_add(ms_bar_history *h, const ms_frame *f);

/* Averages the frames that began within MS_BAR_HISTORY_S of the latest one's start (so a
 * paused run keeps its last second). `out->frames` is 0 when there are none. */
void ms_bar_history_average(const ms_bar_history *h, ms_bar_average *out);

#endif
