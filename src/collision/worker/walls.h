/* The CPU worker's walls ([wall.NAME], docs/walls.md): where each wall is this iteration,
 * its contacts with the small particles (pool items of large-small of their own, each
 * walking some runs of the grid cells of its band) and with the large ones (in the walls
 * phase, after the box walls), the histories of those contacts with friction on, the
 * reaction each wall receives, and the motion of a force-driven wall. The law is
 * kernels/shared/wall.h, the same for every contact. Every sum runs in one order whatever
 * the thread count: a wall's small contacts per run of its band in the walk order, the runs
 * in the band's order after the job (kernels/walls.cl sums the same on the device-only
 * path); its large contacts' reactions after the walls phase, in large particle order. */
#ifndef MS_WORKER_WALLS_H
#define MS_WORKER_WALLS_H

#include "collision/worker/worker.h"

/* Makes the walls' state (their points now, histories) for pm->n_walls walls. */
ms_status ms_walls_init(const ms_params *pm, ms_worker *w);
void ms_walls_free(const ms_params *pm, ms_worker *w);

/* Start of an iteration, before the exchange: each wall's pose at t = step dt (prescribed)
 * or from its state (force-driven), its points now, its band of cells, its sums cleared. */
ms_status ms_walls_place(const ms_params *pm, ms_worker *w, long step);

/* After the exchange, before large-small: the walls' bands cut into pool items by the
 * particles the source holds there; returns how many (w->n_wall_items). */
int ms_walls_split(const ms_params *pm, ms_worker *w, const ms_ls_source *src);

/* Wall item `item` (0 .. w->n_wall_items - 1, after large-small's large particles): some
 * runs of one wall's band walked for its contacts with the small particles of the source.
 * The forces (and torques) on them go to the chunk's list like large-small's, each run's
 * reaction to the run's sums, new histories to the chunk. Returns 0 when out of memory. */
int ms_walls_small(const ms_params *pm, ms_worker *w, int item, const ms_ls_source *src,
                   ms_worker_chunk *out);

/* After large-small's job: each wall's runs summed in its band's order into its reaction,
 * and with friction the chunks' new histories become its list. Returns 0 when out of
 * memory. */
int ms_walls_small_finish(const ms_params *pm, ms_worker *w);

/* Large particle i (dynamic) against every wall: the force and torque onto it, each
 * wall's reaction into the chunk's list. Returns 0 when out of memory. */
int ms_walls_large(const ms_params *pm, ms_worker *w, int i, ms_worker_chunk *out);

/* After the walls phase: the chunks' reactions into the walls, in chunk order. */
void ms_walls_apply_large(const ms_params *pm, ms_worker *w);
/* Large slot i was emptied: its wall histories go (an empty slot is static, and a static
 * particle's list is otherwise kept as it is). */
void ms_walls_forget_large(ms_worker *w, int i);

/* Wall k as it is at `step` (its pose then; the last iteration's reaction), its points into
 * its own display copy. */
void ms_walls_info(const ms_params *pm, ms_worker *w, int k, long step, ms_wall_info *out);

/* After the integration: force-driven walls take their step (the bodies' symplectic
 * Euler step, along their line). */
void ms_walls_advance(const ms_params *pm, ms_worker *w);

#endif
