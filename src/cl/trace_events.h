/* The --trace recorder: host spans by track (one per thread or queue), each with its
 * iteration, and the device's profiled commands, mapped onto the host clock (ms_now) by
 * a calibrated offset per queue. One recorder per process; off, every hook is a branch
 * on ms_tev_on. Only iterations of the window [first, last) are kept (spans without an
 * iteration, such as the writer's, are kept up to MS_TEV_MAX events); what the caps drop
 * is counted, never silently. io/trace_json.c writes it. */
#ifndef MS_TRACE_EVENTS_H
#define MS_TRACE_EVENTS_H

#include <CL/cl.h>

/* Non-zero while recording (set by ms_tev_start, cleared by ms_tev_stop); atomic, since
 * a thread of its own (the writer's) may be recording when the run ends. */
extern _Atomic int ms_tev_on;

#define MS_TEV_MAX 1000000 /* events kept at most */
#define MS_TEV_TRACKS 64
#define MS_TEV_TRIES 256 /* calibration tries kept per queue for the residual */

typedef struct ms_tev {
  double t0, t1;    /* host seconds (ms_now) */
  const char *name; /* static string */
  long iteration;   /* -1: none */
  int track;
  int device;       /* 1: a device command (t0/t1 mapped from the device clock) */
  cl_event ev;      /* device commands until ms_tev_resolve */
  double lo;        /* device commands: host time their iteration began on the enqueuer */
} ms_tev;

typedef struct ms_tev_calib {
  int done;
  double offset_s;      /* host = device_ns * 1e-9 + offset_s */
  double uncertainty_s; /* half the tightest bracket */
  double spread_s;      /* max - min offset over all tries: drift plus noise */
  double min_s, max_s;  /* offsets seen */
  double residual_s;    /* how far the worst try misses the tightest beyond both brackets
                         * (0: every try agrees with it), set by ms_tev_stop */
  int tries;
  double try_offset[MS_TEV_TRIES], try_half[MS_TEV_TRIES]; /* the first MS_TEV_TRIES */
} ms_tev_calib;

/* Starts recording iterations [first, last). */
void ms_tev_start(long first, long last);

/* Maps the device events, releases them and stops recording. */
void ms_tev_stop(void);

/* The calling thread's current iteration (thread-local); spans recorded after this
 * carry it. */
void ms_tev_iteration(long n);
long ms_tev_current(void);

/* A span on `track` (a name, "writer" say; the track is made on first use) carrying the
 * calling thread's current iteration. */
void ms_tev_span(const char *track, const char *name, double t0, double t1);

/* A span outside the iteration window (no iteration), as the writer's: call from any
 * thread, with t0 and t1 from ms_now(). */
void ms_tev_span_free(const char *track, const char *name, double t0, double t1);

/* A finished-or-pending device command `ev` on queue track `track` (retained until
 * ms_tev_stop maps it with that track's calibration). */
void ms_tev_device(const char *track, const char *name, cl_event ev);

/* Brackets markers on `q` between host clock reads (several tries, the tightest kept)
 * to calibrate `track`'s device clock. Blocks on `q`. */
void ms_tev_calibrate(const char *track, cl_command_queue q);

/* Frees what was recorded (after writing it). */
void ms_tev_release(void);

/* For the writer, after ms_tev_stop. */
int ms_tev_count(void);
const ms_tev *ms_tev_events(void);
int ms_tev_track_count(void);
const char *ms_tev_track_name(int track);
const ms_tev_calib *ms_tev_track_calib(int track);
long ms_tev_dropped(void);   /* events over MS_TEV_MAX */
long ms_tev_clamped(void);   /* device events moved to start no earlier than their iteration */
void ms_tev_window(long *first, long *last);
double ms_tev_origin(void);  /* ms_now() at ms_tev_start: the trace's zero */

#endif
