/* The doubling append shared by the growing arrays (core/grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *ms_grow(void *items, size_t n, size_t *cap, size_t size, size_t first)
{
  if (n < *cap)
    return items;
  size_t c = *cap ? 2 * *cap : first;
  if (c > SIZE_MAX / size)
    return NULL;
  void *p = realloc(items, c * size);
  if (p)
    *cap = c;
  return p;
}
