/* The small particles' slots (docs/open-systems.md): the arrays hold a particle or are
 * empty (shape (0, 0), far outside the box, at rest: kernels/shared/grid.h). The exchanges
 * with the outside (collision/open.c) read the positions back, empty and fill slots on the
 * host and send those slots down; the arrays grow (doubling up to 65536 slots, then by a
 * 64th), never shrink. Between
 * advances only. */
#ifndef MS_COLLISION_SLOTS_H
#define MS_COLLISION_SLOTS_H

#include <stdint.h>

#include "collision/open_state.h"
#include "mixsim/status.h"

struct ms_sim;


/* Makes v's host arrays the slots' size (kept from one exchange to the next) and clears
 * its marks; reads nothing back: the exchange fills pos for the slots it looks at
 * (collision/open_scan.h), and a growth reads every slot. */
ms_status ms_slots_prepare(struct ms_sim *s, ms_slots_view *v);
int ms_slots_empty(const struct ms_sim *s, int i);
/* Empties slot i (its id is gone for good). */
void ms_slots_clear(struct ms_sim *s, ms_slots_view *v, int i);
/* Puts a new particle, with the next id, into empty slot i. */
void ms_slots_fill(struct ms_sim *s, ms_slots_view *v, int i, double x, double y, double vx,
                   double vy, float r, float m, double spin);
/* At least `need` slots: the arrays grow (the device's rebuilt around the state). */
ms_status ms_slots_grow(struct ms_sim *s, ms_slots_view *v, int need);
/* Exactly n slots, every one empty, for a checkpoint or a snapshot to fill. */
ms_status ms_slots_resize(struct ms_sim *s, int n);
/* Sends the changed slots down; the grid, the lists and the histories follow at the next
 * step. */
ms_status ms_slots_write(struct ms_sim *s, const ms_slots_view *v);
void ms_slots_view_free(ms_slots_view *v);

#endif
