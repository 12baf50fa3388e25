/* Persistent particle ids (collision/ids.h). */
#include "collision/ids.h"

#include <stdlib.h>
#include <string.h>

ms_status ms_ids_init(ms_ids *ids, const ms_scene *sc, int large_slots)
{
  *ids = (ms_ids){.n_small = sc->small_count, .n_large = large_slots};
  if (!ms_ids_state_alloc(ids, &ids->small, &ids->large)) {
    ms_ids_free(ids);
    return ms_fail(MS_ERR_RUNTIME, "out of memory for the particle ids");
  }
  int64_t next = 0;
  for (int i = 0; i < ids->n_small; i++) {
    ids->small[i] = sc->small_id ? sc->small_id[i] : i;
    next = ids->small[i] >= next ? ids->small[i] + 1 : next;
  }
  for (int i = sc->large_count; i < large_slots; i++)
    ids->large[i] = -1; /* the large inflows' slots, empty */
  for (int i = 0; i < sc->large_count; i++) {
    ids->large[i] = sc->large_id ? sc->large_id[i] : (int64_t)ids->n_small + i;
    next = ids->large[i] >= next ? ids->large[i] + 1 : next;
  }
  ids->next = next;
  return MS_OK;
}

void ms_ids_set(ms_ids *ids, const int64_t *small, const int64_t *large, int64_t next)
{
  memcpy(ids->small, small, (size_t)ids->n_small * sizeof *small);
  memcpy(ids->large, large, (size_t)ids->n_large * sizeof *large);
  ids->next = next;
}

void ms_ids_free(ms_ids *ids)
{
  free(ids->small);
  free(ids->large);
  *ids = (ms_ids){0};
}

int ms_ids_state_alloc(const ms_ids *ids, int64_t **small, int64_t **large)
{
  *small = malloc(((size_t)ids->n_small + 1) * sizeof **small);
  *large = malloc(((size_t)ids->n_large + 1) * sizeof **large);
  return *small && *large;
}

void ms_ids_state_copy(const ms_ids *ids, int64_t *small, int64_t *large)
{
  memcpy(small, ids->small, (size_t)ids->n_small * sizeof *small);
  memcpy(large, ids->large, (size_t)ids->n_large * sizeof *large);
}
