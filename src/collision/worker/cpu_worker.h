/* The CPU worker's work on the large particles. Contacts go through the same force law
 * as the kernels (kernels/shared/contact.h); large-small contacts are found through the
 * grid the GPU built, via the host views of ms_buffers. */
#ifndef MS_CPU_WORKER_H
#define MS_CPU_WORKER_H

#include "collision/exchange/crossing.h"
#include "collision/worker/worker.h"

/* Large-small: forces on small particles go to F_ls, reactions onto the large ones.
 * Starts the large particles' force accumulation for this iteration. Split over the
 * pool by large particle; fails only when out of memory. */
ms_status ms_cpu_large_small(const ms_ctx *c, ms_worker *w);

/* Puts w->sweep_order into (left edge, index) order: insertion sort when nearly
 * sorted, a linear-time radix sort when far off. Called by ms_cpu_large_large. */
void ms_cpu_sort_sweep(ms_worker *w, int n_large);

/* Large-large (sweep and prune along x; pairs split over the pool by sweep position)
 * and large-wall contacts. Fails only when out of memory. */
ms_status ms_cpu_large_large(const ms_params *pm, ms_worker *w);

/* Integrates dynamic large particles (split over the pool); a NaN/Inf or a speed over
 * max_speed stops the run, naming the first such particle in index order. */
ms_status ms_cpu_integrate(const ms_params *pm, ms_worker *w, long step);

/* The failure of large particle i at `step` (finite: too fast; else non-finite), as
 * every path that integrates large particles reports it. */
ms_status ms_cpu_large_failure(const ms_params *pm, long step, int i, int finite);

#endif
