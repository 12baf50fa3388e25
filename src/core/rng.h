/* A small, fast, seedable generator (splitmix64): the same seed gives the same scene
 * on every machine, which the determinism tests rely on. */
#ifndef MS_RNG_H
#define MS_RNG_H

#include <stdint.h>

typedef struct ms_rng {
  uint64_t state;
} ms_rng;

static inline uint64_t ms_rng_next(ms_rng *r)
{
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double ms_rng_uniform(ms_rng *r)
{
  return (double)(ms_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform double in [lo, hi). */
static inline double ms_rng_range(ms_rng *r, double lo, double hi)
{
  return lo + (hi - lo) * ms_rng_uniform(r);
}

#endif
