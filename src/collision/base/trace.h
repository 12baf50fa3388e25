/* Where the time goes: each thread records its phases by wall clock, and the GPU
 * manager adds the kernels' own times from OpenCL profiling events. The latest phases
 * are also kept as events, one ring per thread, for the preview's timing bar. */
#ifndef MS_TRACE_H
#define MS_TRACE_H

#include "collision/base/kernels.h"
#include "cl/trace_events.h"
#include "core/clock.h"

typedef enum ms_thread_id { MS_THREAD_GPU, MS_THREAD_CPU, MS_THREAD_COUNT } ms_thread_id;

typedef enum ms_phase {
  MS_PHASE_GRID,            /* manager: clear, insert, sort, read the counters */
  MS_PHASE_COLLIDE,         /* manager: enqueue small-small */
  MS_PHASE_INTEGRATE,       /* manager: enqueue small integration */
  MS_PHASE_HOST_IN,         /* worker: map, or read copies */
  MS_PHASE_LARGE_SMALL,     /* worker */
  MS_PHASE_HOST_OUT,        /* worker: unmap, or write F_ls */
  MS_PHASE_LARGE_LARGE,     /* worker: large-large and large-wall */
  MS_PHASE_LARGE_INTEGRATE, /* worker */
  MS_PHASE_WAIT_SYNC1,
  MS_PHASE_WAIT_SYNC2,
  MS_PHASE_WAIT_DEVICE, /* manager: for the kernels queued before the grid build */
  MS_PHASE_COUNT
} ms_phase;

typedef struct ms_thread_trace {
  double total_s[MS_PHASE_COUNT];
  long count[MS_PHASE_COUNT];
} ms_thread_trace;

/* One phase of one thread, by wall clock (ms_now seconds). */
typedef struct ms_trace_event {
  double t0, t1;
  ms_thread_id thread;
  ms_phase phase;
} ms_trace_event;

/* Events per thread kept: a frame of up to about 290 iterations (7 events each). */
#define MS_TRACE_RING 2048

/* Each thread writes only its own ring, so recording takes no lock; the rings are read
 * between advances, after the stepping threads have been joined. */
typedef struct ms_trace_ring {
  ms_trace_event event[MS_TRACE_RING];
  unsigned long written;       /* events ever recorded; the latest is at (written-1) % RING */
  unsigned long advance_start; /* `written` when the last advance began */
} ms_trace_ring;

typedef struct ms_trace {
  ms_thread_trace thread[MS_THREAD_COUNT];
  ms_trace_ring ring[MS_THREAD_COUNT];
  double advance_t0;           /* when the last advance began */
  long advance_first_iteration; /* `iterations` then */
  double kernel_s[MS_KERNEL_COUNT];
  long kernel_count[MS_KERNEL_COUNT];
  long iterations;
  double wall_s; /* wall time of the iterations, both threads running */
  int copied;    /* the worker's phases are named for the copied buffers (--trace) */
  int profiled;  /* the queues time their commands: kernel_s holds their times (--profile) */
} ms_trace;

/* Adds one phase of `thread` that started at `t0`; returns the current time. */
double ms_trace_phase(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0);
/* Adds one phase of `thread` from t0 to t1 (<= now); returns t1. */
double ms_trace_phase_to(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0, double t1);
/* Books a blocking call that began at t0 and ended now: 'wait device' for the commands
 * queued before its own, then `phase` for the last own_s seconds (all of it if longer). */
double ms_trace_wait_then(ms_trace *t, ms_thread_id thread, ms_phase phase, double t0,
                          double own_s);

/* Marks the start of an advance: the events recorded from now on form its "frame".
 * Call before the stepping threads start. */
void ms_trace_begin_advance(ms_trace *t);

/* Copies the events of the last advance still in the rings (both threads, each thread's
 * oldest first) into `out`, at most `max`; returns how many. Call between advances. */
int ms_trace_last_advance(const ms_trace *t, ms_trace_event *out, int max);

/* Adds a finished kernel's profiled time and releases the event. */
void ms_trace_kernel(ms_trace *t, int kernel, cl_event ev);

/* Where a command's event goes when it is kept only to be timed: nowhere unless the queues
 * are profiled, since making and releasing events costs NVIDIA's runtime time too. */
static inline cl_event *ms_trace_timed(const ms_trace *t, cl_event *ev)
{
  return t->profiled ? ev : NULL;
}

const char *ms_phase_name(ms_phase p, int copied);

/* --trace (cl/trace_events.h): kernel `kernel`'s command `ev` (NULL: none) on the queue
 * track `queue`, for the calling thread's iteration. A branch when not tracing. */
void ms_trace_device_on(const char *queue, int kernel, cl_event ev);
static inline void ms_trace_device(const char *queue, int kernel, cl_event ev)
{
  if (ms_tev_on && ev)
    ms_trace_device_on(queue, kernel, ev);
}

/* Transfers of the exchange on queue `q`, each (while --trace records) an event named
 * "map WHAT", "read WHAT", "write WHAT" or "unmap WHAT" on the queue track `track`; off,
 * they enqueue exactly as without the hook. Errors name the call and `what`. */
ms_status ms_xfer_map(cl_command_queue q, const char *track, cl_mem m, cl_map_flags flags,
                      size_t from, size_t bytes, const char *what, cl_bool block, void **out);
ms_status ms_xfer_read(cl_command_queue q, const char *track, cl_mem m, size_t from, size_t bytes,
                       void *dst, const char *what, cl_bool block);
ms_status ms_xfer_write(cl_command_queue q, const char *track, cl_mem m, size_t bytes,
                        const void *src, const char *what);
ms_status ms_xfer_unmap(cl_command_queue q, const char *track, cl_mem m, const void *view,
                        const char *what);

/* --trace: a chunk of the worker's pool run by helper `chunk` (1..) for `iteration`. */
void ms_trace_pool_span(int chunk, long iteration, double t0, double t1);

/* --trace: chunk's time in the walls' items of large-small, within its chunk's span (chunk
 * 0 is the worker's own thread). */
void ms_trace_walls_span(int chunk, long iteration, double t0, double t1);

#endif
