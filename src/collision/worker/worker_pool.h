/* The CPU worker's pool: the worker thread itself plus N-1 helper threads, created with
 * the simulation and joined when it is destroyed. A job splits [0, n) into up to N
 * contiguous chunks in index order, one per thread; the worker runs chunk 0. Callers that need a
 * result independent of N combine the chunks' outputs in chunk order afterwards. */
#ifndef MS_WORKER_POOL_H
#define MS_WORKER_POOL_H

#include <stddef.h>

#include "mixsim/scene.h" /* MS_CPU_THREADS_MAX */
#include "mixsim/status.h"

typedef struct ms_pool ms_pool;

/* One chunk's work: items [begin, end), chunk number `chunk` (0 .. threads-1). It does
 * not call ms_fail (its thread is not the caller's, and which chunk fails first in time
 * must not decide the message): on failure it writes its reason to `why` and returns the
 * status. */
typedef ms_status (*ms_pool_fn)(void *ctx, int begin, int end, int chunk, char *why,
                                size_t why_size);

/* The pool's size unless set (docs/collision.md#cpu-worker-pool): with a GPU the host's
 * cores less the manager's; with a CPU device, whose kernels run on the cores too, half of
 * them less one. At least 1, at most MS_CPU_THREADS_DEFAULT_MAX: past 16 the phases gain
 * nothing and the polling helpers crowd out the manager and the device's runtime (on a
 * 64-core H200 host at 16M small + 16K large, 63 threads ran 15-17 ms an iteration, 31
 * 3.6-5.0 and 15 3.35). */
int ms_pool_default_threads(long cores, int gpu);

/* The same where `sharing` simulations share the host (collision mode's domains, every
 * rank's on a node): half an equal share of the cores, less two, each: beside its manager,
 * its worker, its driving thread and its OpenCL runtime, pools that filled their shares
 * polled over one another (four domains on 64 cores, 12 threads each: 2.7-6.8 ms an
 * iteration, 6 threads: 2.7-2.9, docs/scaling.md); at least 1, at most
 * MS_CPU_THREADS_DEFAULT_MAX. */
int ms_pool_shared_threads(long cores, long sharing);

/* Starts threads - 1 helpers (1 <= threads <= MS_CPU_THREADS_MAX). */
ms_status ms_pool_create(int threads, ms_pool **out);
void ms_pool_destroy(ms_pool *p);
int ms_pool_threads(const ms_pool *p);

/* How long helpers poll for the next job, and the caller for the helpers to finish,
 * before sleeping (0, the default: sleep at once). Polling takes the cores it runs on:
 * only where nothing else needs them. */
void ms_pool_set_spin(ms_pool *p, double seconds);

/* Seconds thread `thread` (0: the worker) spent running chunks since the pool was made:
 * how evenly the jobs split. Read only between jobs. */
double ms_pool_busy_s(const ms_pool *p, int thread);

/* The chunks a job of n items gets: one per `grain` items (at least one), at most one
 * per thread. Waking a thread costs microseconds, so a job of a few cheap items runs on
 * fewer threads, or inline on the caller's. */
int ms_pool_chunks(const ms_pool *p, int n, int grain);

/* Runs fn over [0, n) in ms_pool_chunks(p, n, grain) chunks and returns when all are done
 * (a stop request does not cut a job short: stops are taken between iterations). Returns
 * MS_OK, or the status of the lowest-numbered failing chunk, recorded with ms_fail in the
 * calling thread with that chunk's reason. Call from one thread at a time. */
ms_status ms_pool_run(ms_pool *p, ms_pool_fn fn, void *ctx, int n, int grain);

/* Chunk `chunk` of [0, n) split in `threads` chunks: contiguous, ascending, sizes
 * differing by at most one. */
void ms_pool_chunk(int n, int threads, int chunk, int *begin, int *end);

#endif
