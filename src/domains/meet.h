/* The incremental meeting's windows and how often the domains meet (docs/domains.md#the-
 * incremental-meeting): a domain that holds everything within k contacts of its columns,
 * and as far as anything moves in k steps at a bounded speed, steps its own particles k
 * iterations exactly as one device does. Arithmetic on the gathered state and the cut. */
#ifndef MS_DOMAINS_MEET_H
#define MS_DOMAINS_MEET_H

#include "mixsim/sim.h"

typedef struct ms_domains ms_domains;

/* The speed a domain's step may not pass meeting every k > 1 iterations (m/s). */
double ms_meet_speed(const ms_domains *D, int k);
/* Columns a domain holds each side of its own, meeting every k iterations. */
int ms_meet_window(const ms_domains *D, int k);
/* Columns each side of its own within which a domain keeps a large particle. */
int ms_meet_window_large(const ms_domains *D, int k);
/* Columns each side of its own that a domain's grid's span covers (MIXSIM_GRID_SPAN, a
 * test hook, or enough for everything it holds). */
ms_status ms_meet_span(const ms_domains *D, int k, int *span);
/* Iterations between meetings: MIXSIM_MEET_EVERY, or the largest up to 8 (16 with the
 * large particles handed over) whose windows stay within an eighth of a domain; 1 where
 * `one_by_one`. */
ms_status ms_meet_every(const ms_domains *D, int one_by_one, int *k);

#endif
