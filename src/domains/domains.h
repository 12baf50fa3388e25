/* Collision mode over several devices (docs/domains.md): the run split into domains, one
 * per device, each a simulation of its own that steps its own small particles and every
 * large particle, meeting the others once an iteration, so that the whole state is bit
 * for bit the one device's. The caller's simulation (the view) holds the whole state
 * once settled (ms_domains_settle): outputs, checkpoints, the report and a resume read and
 * write it as they would a run on one device. */
#ifndef MS_DOMAINS_DOMAINS_H
#define MS_DOMAINS_DOMAINS_H

#include <signal.h>
#include <stddef.h>

#include "mixsim/sim.h"

typedef struct ms_domains ms_domains;

/* One domain per device of `devices` (comma-separated gpu | cpu | P:D, or all: every GPU),
 * for the scene `view` was created from; each follows the view's choices (pipeline,
 * buffers, exchange, large_on: the scene's, or the tuner's). Under MPI (collective) each rank gives its own devices,
 * every rank holds the whole state in its view, and `agreed_stop` is the stop flag the
 * ranks agree on (gravity/ranks.h, ms_ranks_stop_flag); NULL in one process, where a stop
 * request on the view stops the run. */
ms_status ms_domains_create(const ms_scene *sc, const ms_sim_options *opt, const char *devices,
                            ms_sim *view, const volatile sig_atomic_t *agreed_stop,
                            ms_domains **out);
/* The refusals of ms_domains_create that need no device: the list's. */
ms_status ms_domains_check(const char *devices);
/* Advances the view by `iterations` over the domains; a stop request on the view ends it
 * at the next iteration. The view's step moves on, its state may stay behind until
 * ms_domains_settle. On a failure the view keeps the state of its last settle. */
ms_status ms_domains_advance(ms_domains *d, long iterations);
/* Whether the view's forces (--output's) are read after the next advance: only then do the
 * domains of the incremental meeting keep them at its end (and where a stop ends it). */
void ms_domains_forces_read(ms_domains *d, int read);
/* The domains' state into the view, before anything reads it (collective under MPI). */
ms_status ms_domains_settle(ms_domains *d);
int ms_domains_count(const ms_domains *d);
/* The report's lines on the domains: each one's device, own particles and time per
 * iteration, and the meeting's. Returns what snprintf would. */
int ms_domains_describe(const ms_domains *d, char *out, size_t size);
void ms_domains_destroy(ms_domains *d);

#endif
