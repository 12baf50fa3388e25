/* The incremental meeting of a split run (docs/domains.md, "The incremental meeting"): the
 * domains keep their particles on their devices from one iteration to the next, and meet
 * by records of the particles that cross into another domain's window (collision/split.h)
 * and the large particles' states from their owners. The whole state is gathered into the
 * view only when something reads it (ms_domains_settle). Scenes it does not cover yet take
 * the whole state's meeting (domains.c). */
#ifndef MS_DOMAINS_LIVE_H
#define MS_DOMAINS_LIVE_H

#include <stddef.h>

#include "domains/live_state.h"

typedef struct ms_domains ms_domains;


/* Whether the run's scene and choices are the incremental meeting's: no friction, no
 * [wall.NAME], a closed system, large particles on the CPU, no --diagnostics (--output's
 * forces are gathered with the state).
 * (With exchange = full the worker's large-small list orders a cell's particles by their
 * keys, the global slots, as the grid does: a domain's slots are in no global order.) */
int ms_live_fits(const ms_domains *D);
ms_status ms_live_advance(ms_domains *D, long iterations);
/* The domains' state into the view, if it is behind (collective under MPI). */
ms_status ms_live_settle(ms_domains *D);
/* The domains no longer hold the state (after a failure, or for the other meeting). */
ms_status ms_live_drop(ms_domains *D);
void ms_live_free(ms_live *v, int P);
/* The large particles in a domain (live_large.c): every one's owner for the next block (the
 * domain of its centre); domain d's for its next block, those near it first in its worker's
 * slots, in global order, the others parked after them; each back in its own slot (when the
 * domains no longer hold the state); large particle j's state in domain d (held, or as last
 * given), and its slot there; domain d's held list. */
void ms_live_large_owners(ms_domains *D);
void ms_live_place_large(ms_domains *D, int d);
void ms_live_unplace_large(ms_domains *D, int d);
void ms_live_large_get(const ms_domains *D, int d, int j, double xv[4], int img[2]);
/* Large particle j's slot in domain d's worker, -1 where d does not step it. */
int ms_live_large_slot(const ms_domains *D, int d, int j);
const int *ms_live_held(const ms_live *v, int d, int n_large);
/* --output's forces (live_forces.c): domain d's own particles' forces kept after the block
 * that made the state, before its meeting moves the slots (a domain job); those kept (or
 * none: NaN) appended to a gathering's give o; give g's forces (domain e's) into the whole
 * state's. */
ms_status ms_live_keep_forces(ms_domains *D, int d);
ms_status ms_live_give_forces(ms_domains *D, int d, ms_bytes *o);
ms_status ms_live_settle_forces(ms_domains *D, int e, const give_view *g);
/* Between meetings, where the balance decides: the next cut (live_balance.c). */
ms_status ms_live_rebalance(ms_domains *D);
/* The report's line on the meeting, if it ran; what snprintf returns. */
int ms_live_describe(const ms_domains *D, char *out, size_t size);

#endif
