/* The contact zone's views on the host (collision/exchange/zone_state.h's h_*): its
 * records read or mapped down, its forces' view, given back. The worker's, on its zone
 * queue, between sync 1 and sync 2 (collision/exchange/zone.c). */
#ifndef MS_ZONE_HOST_H
#define MS_ZONE_HOST_H

#include "cl/runtime.h"
#include "collision/exchange/zone_state.h"
#include "mixsim/status.h"

/* A mapped view given back (none: nothing to do). */
ms_status ms_zone_unmap(ms_cl *cl, cl_mem m, const void *view, const char *what);
/* Shared mode: the slots' views given back (to map a longer range or after growing). */
ms_status ms_zone_unmap_slots(ms_zone *z, ms_cl *cl);
/* Slots [from, to) of the records to the host, blocking when `block`. Shared mode maps
 * [0, to) (the forces' view with them) and ignores `from`. */
ms_status ms_zone_slots_down(ms_zone *z, ms_cl *cl, size_t from, size_t to, cl_bool block);
/* The totals with the spans, then the first `expect` slots' records, in one round trip. */
ms_status ms_zone_all_down(ms_zone *z, ms_cl *cl);

#endif
