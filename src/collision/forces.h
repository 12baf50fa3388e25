/* The forces of the step that produced a state, for --output (docs/output.md): the
 * manager copies them on the device in the iteration that ends an advance, and the
 * snapshot reads them back with one blocking read. */
#ifndef MS_COLLISION_FORCES_H
#define MS_COLLISION_FORCES_H

#include "collision/device/device.h"

struct ms_sim;

/* On the manager's queue, in iteration `step` once F_ss and F_ls (and, large_on = device,
 * the large forces) are complete and before the integration clears F_ls: copies them
 * into the kept buffer. Does nothing unless asked for. */
ms_status ms_forces_keep(struct ms_sim *s, long step);

/* Whether iteration `step` of an advance is to keep its forces: the advance's last, or
 * one after which a requested stop ends the advance. */
int ms_forces_due(struct ms_sim *s, int more);

/* (fx, fy) per particle of the current state into small (2 per small particle) and large
 * (2 per large one); NaN where no step of this run produced the state. */
ms_status ms_forces_read(struct ms_sim *s, float *small, float *large);

/* For a run over domains (domains/carry.c), between advances: the forces that produced the
 * current state, as ms_forces_read gives them, made the kept ones. */
ms_status ms_forces_put(struct ms_sim *s, const float *small, const float *large);

void ms_forces_release(ms_kept_forces *k);

#endif
