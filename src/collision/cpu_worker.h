/* The CPU worker's work on the large particles. Contacts go through the same force law
 * as the kernels (kernels/shared/contact.h); large-small contacts are found through the
 * grid the GPU built, via the host views of ms_buffers. */
#ifndef MS_CPU_WORKER_H
#define MS_CPU_WORKER_H

#include "collision/sim_internal.h"

/* Large-small: forces on small particles go to F_ls, reactions onto the large ones.
 * Starts the large particles' force accumulation for this iteration. */
void ms_cpu_large_small(ms_sim *s);

/* Puts s->sweep_order into (left edge, index) order: insertion sort when nearly
 * sorted, a linear-time radix sort when far off. Called by ms_cpu_large_large. */
void ms_cpu_sort_sweep(ms_sim *s);

/* Large-large (sweep and prune along x) and large-wall contacts. */
void ms_cpu_large_large(ms_sim *s);

/* Integrates dynamic large particles; a NaN/Inf stops the run. */
ms_status ms_cpu_integrate(ms_sim *s, long step);

#endif
