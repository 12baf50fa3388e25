/* What a domain gives back after its step, as bytes (docs/domains.md): its own small
 * particles' state in the layout's order, its large particles', and the histories it owns
 * in global slots. Every rank computes the same layout, so the bytes need no slots; in one
 * process they go from the domain to the merge, across ranks through an all-gather. The
 * merge takes every domain's in order, so every rank ends with the same whole state. */
#ifndef MS_DOMAINS_GIVE_H
#define MS_DOMAINS_GIVE_H

#include <stddef.h>

#include "domains/carry.h"

typedef struct ms_bytes {
  unsigned char *b;
  size_t n, cap;
} ms_bytes;

/* Appends domain d's share, read into c (ms_carry_read), to out. */
ms_status ms_give(const ms_carry *c, const ms_global *g, const ms_layout *l, int d, ms_bytes *out);

/* The histories gathered from the domains, before they replace g's. */
typedef struct ms_gathered {
  ms_bytes ss, ls, ll, ws, wl;
} ms_gathered;

/* Takes domain d's share at in[0..n) into g and h; *used: its length. */
ms_status ms_take(ms_global *g, ms_gathered *h, const ms_layout *l, int d, const unsigned char *in,
                  size_t n, size_t *used);
/* Every domain taken: the histories replace g's, sorted. Frees h's arrays either way. */
ms_status ms_take_end(ms_global *g, ms_gathered *h);
void ms_bytes_free(ms_bytes *b);
/* Appends `size` bytes; 0 when out of memory. */
int ms_bytes_put(ms_bytes *o, const void *p, size_t size);
/* `size` more bytes at o's end, to be written there (NULL: out of memory). */
void *ms_bytes_room(ms_bytes *o, size_t size);

#endif
