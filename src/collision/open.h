/* Open systems (docs/open-systems.md): particles poured in by [inflow.NAME]s, removed by
 * [outflow.NAME]s and where they cross an open side of the box. Every `every` steps,
 * between two advances of the pipeline, the sim reads the small particles back, empties
 * the slots of those that left, fills slots with the inflows' new particles and sends the
 * arrays down again: the two threads never see a count change during an iteration. */
#ifndef MS_COLLISION_OPEN_H
#define MS_COLLISION_OPEN_H

#include <stdint.h>

#include "collision/open_state.h"
#include "mixsim/scene.h"


struct ms_sim;

/* Copies the scene's flows; off when it has none. */
ms_status ms_open_init(ms_open *o, const ms_scene *sc);
void ms_open_free(ms_open *o);

/* Advances `iterations`, stopping at each multiple of o->every for an exchange. */
ms_status ms_open_advance(struct ms_sim *s, long iterations);

/* For a run whose iterations are stepped elsewhere (domains/: s holds the whole state
 * between them): the exchange ms_open_advance would make now, if one is due: with
 * `starting`, the one at step 0 before the first iteration; else the one at a multiple of
 * o->every. *made: whether it made one. */
ms_status ms_open_exchange_due(struct ms_sim *s, int starting, int *made);

#endif
