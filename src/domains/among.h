/* The domains among MPI ranks (docs/domains.md, "Processes and devices"): each rank
 * steps the domains of its own devices, numbered after the lower ranks' ones; every rank
 * holds the whole state and computes the same layout, so what crosses is each domain's
 * share after its step (domains/give.h), gathered by every rank. In one process these
 * are the identity. */
#ifndef MS_DOMAINS_AMONG_H
#define MS_DOMAINS_AMONG_H

#include "domains/give.h"

/* Collective: this rank's `mine` domains among all; *total of them, *first: this rank's
 * first (its global index); per_rank[r]: rank r's count (ms_ranks_size() of them,
 * malloc'd). */
ms_status ms_among_count(int mine, int *total, int *first, int **per_rank);
/* Whether every one of `size` ranks steps one domain. */
int ms_among_one_each(const int *per_rank, int size);

/* Collective: domains [first, first + mine) of gives[] sent, every other rank's received
 * into their gives[], per_rank as ms_among_count gave it: point to point from give to give
 * where every rank has one domain, else through an all-gather of every rank's gives
 * packed. */
ms_status ms_among_share(ms_bytes *gives, int first, int mine, const int *per_rank);

/* What domain `to` reads of a give beyond its first bytes (its head), found from the head
 * alone: up to MS_AMONG_PARTS [offset, length) parts of the give's `size` bytes, ascending;
 * returns how many. */
#define MS_AMONG_PARTS 2
typedef int (*ms_among_needs)(const unsigned char *head, size_t size, int to,
                              size_t part[MS_AMONG_PARTS][2]);

/* As ms_among_share, but where every rank has one domain each give reaches the others as
 * its first `head` bytes (all-gathered) and the parts `needs` names for each of them, sent
 * to it alone: the records a domain gives go to their domain, not to every rank. The rest
 * of a copy keeps whatever bytes it held: only its head and this rank's parts are read. */
ms_status ms_among_share_needed(ms_bytes *gives, int first, int mine, const int *per_rank,
                                size_t head, ms_among_needs needs);

#endif
