/* The one doubling append of the project's growing arrays (lists, contact records,
 * histories): callers keep their own count and capacity, and call ms_grow before
 * storing item n. */
#ifndef MS_CORE_GROW_H
#define MS_CORE_GROW_H

#include <stddef.h>

/* Makes room for item n of `size` bytes: when n has reached *cap, the array doubles
 * (to `first` items when empty) and *cap follows. Returns the array, moved or not, or
 * NULL when out of memory, the old array and *cap then left as they were. */
void *ms_grow(void *items, size_t n, size_t *cap, size_t size, size_t first);

#endif
