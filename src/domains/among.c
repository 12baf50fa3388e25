/* The domains among MPI ranks (among.h), over gravity/ranks.c's collectives, where every
 * MPI call of the program is. */
#include "domains/among.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gravity/ranks.h"

ms_status ms_among_count(int mine, int *total, int *first, int **per_rank)
{
  int size = ms_ranks_size(), rank = ms_ranks_rank();
  size_t *sizes = malloc((size_t)size * sizeof *sizes);
  *per_rank = malloc((size_t)size * sizeof **per_rank);
  unsigned char *all = NULL;
  ms_status st = sizes && *per_rank ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
  int32_t m = mine;
  if (!st)
    st = ms_ranks_allgather_bytes(&m, sizeof m, &all, sizes);
  *total = *first = 0;
  for (int r = 0; !st && r < size; r++) {
    memcpy(&m, all + (size_t)r * sizeof m, sizeof m);
    (*per_rank)[r] = m;
    *first += r < rank ? m : 0;
    *total += m;
  }
  free(all);
  free(sizes);
  return st;
}

/* Whether every rank steps one domain. */
int ms_among_one_each(const int *per_rank, int size)
{
  int one_each = 1;
  for (int r = 0; r < size; r++)
    one_each &= per_rank[r] == 1;
  return one_each;
}

/* Rank `peer`'s pieces of a give of `size` bytes at `at` beyond its `head`: `needs`'
 * parts, checked to lie inside it. */
static ms_status add_parts(ms_ranks_piece *piece, int *m, int peer, int out, unsigned char *at,
                           size_t size, size_t head, int domain, int to, ms_among_needs needs)
{
  size_t part[MS_AMONG_PARTS][2];
  int k = needs(at, size, to, part);
  for (int i = 0; i < k; i++) {
    if (part[i][0] < head || part[i][0] > size || part[i][1] > size - part[i][0])
      return ms_fail(MS_ERR_RUNTIME, "domain %d's give of %zu bytes names %zu bytes at %zu",
                     domain, size, part[i][1], part[i][0]);
    piece[(*m)++] = (ms_ranks_piece){peer, out, at + part[i][0], part[i][1]};
  }
  return MS_OK;
}

/* A domain a rank: every give's head (with its length) to every rank, then each rank's
 * parts of each give point to point, straight from the giver's bytes into the others'
 * copies. (At 16M small discs on two H200s an all-gather through one packed buffer and back
 * out of another cost some 12 ms a meeting beside the transfer.) */
static ms_status share_each_needed(ms_bytes *gives, int first, int size, size_t head,
                                   ms_among_needs needs)
{
  const ms_bytes *own = &gives[first];
  size_t blob = sizeof(uint64_t) + head;
  unsigned char *mine = malloc(blob), *all = NULL;
  size_t *sizes = malloc((size_t)size * sizeof *sizes);
  ms_ranks_piece *piece = malloc(2 * (size_t)size * MS_AMONG_PARTS * sizeof *piece);
  ms_status st = mine && sizes && piece ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st && own->n < head)
    st = ms_fail(MS_ERR_RUNTIME, "domain %d gave %zu bytes, no head", first, own->n);
  if (!st) {
    uint64_t n = own->n;
    memcpy(mine, &n, sizeof n);
    if (head > 0)
      memcpy(mine + sizeof n, own->b, head);
    st = ms_ranks_allgather_bytes(mine, blob, &all, sizes);
  }
  int m = 0;
  for (int r = 0; !st && r < size; r++) {
    if (r == first)
      continue;
    uint64_t n = 0;
    if (sizes[r] != blob || (memcpy(&n, all + (size_t)r * blob, sizeof n), n < head)) {
      st = ms_fail(MS_ERR_RUNTIME, "rank %d's head is cut short", r);
      break;
    }
    gives[r].n = 0;
    unsigned char *into = ms_bytes_room(&gives[r], (size_t)n);
    if (!into) {
      st = ms_fail(MS_ERR_RUNTIME, "out of memory for domain %d's results", r);
      break;
    }
    if (head > 0)
      memcpy(into, all + (size_t)r * blob + sizeof n, head);
    st = add_parts(piece, &m, r, 0, into, (size_t)n, head, r, first, needs);
    if (!st)
      st = add_parts(piece, &m, r, 1, own->b, own->n, head, first, r, needs);
  }
  if (!st)
    st = ms_ranks_exchange_pieces(piece, m);
  free(mine);
  free(all);
  free(sizes);
  free(piece);
  if (st) /* (a rank that cannot take its part would leave the others waiting for its bytes) */
    ms_ranks_abort(st);
  return st;
}

/* The whole give (ms_among_needs, without a head): every rank reads all of it. */
static int whole_give(const unsigned char *head, size_t size, int to,
                      size_t part[MS_AMONG_PARTS][2])
{
  (void)head, (void)to;
  part[0][0] = 0;
  part[0][1] = size;
  return size > 0;
}

ms_status ms_among_share_needed(ms_bytes *gives, int first, int mine, const int *per_rank,
                                size_t head, ms_among_needs needs)
{
  int size = ms_ranks_size();
  if (size == 1)
    return MS_OK;
  if (ms_among_one_each(per_rank, size))
    return share_each_needed(gives, first, size, head, needs);
  return ms_among_share(gives, first, mine, per_rank);
}

ms_status ms_among_share(ms_bytes *gives, int first, int mine, const int *per_rank)
{
  int size = ms_ranks_size();
  if (size == 1)
    return MS_OK;
  if (ms_among_one_each(per_rank, size))
    return share_each_needed(gives, first, size, 0, whole_give);
  ms_bytes out = {0};
  int ok = 1;
  for (int d = first; ok && d < first + mine; d++) {
    uint64_t n = gives[d].n;
    ok = ms_bytes_put(&out, &n, sizeof n) && ms_bytes_put(&out, gives[d].b, gives[d].n);
  }
  size_t *sizes = malloc((size_t)size * sizeof *sizes);
  unsigned char *all = NULL;
  ms_status st = ok && sizes ? ms_ranks_allgather_bytes(out.b, out.n, &all, sizes)
                             : ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' results");
  size_t at = 0;
  for (int r = 0, d = 0; !st && r < size; r++) {
    size_t end = at + sizes[r];
    for (int k = 0; !st && k < per_rank[r]; k++, d++) {
      uint64_t n = 0;
      if (end - at < sizeof n || (memcpy(&n, all + at, sizeof n), end - at - sizeof n < n))
        st = ms_fail(MS_ERR_RUNTIME, "rank %d's results are cut short", r);
      else if (d < first || d >= first + mine) {
        gives[d].n = 0;
        if (!ms_bytes_put(&gives[d], all + at + sizeof n, (size_t)n))
          st = ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' results");
      }
      at += sizeof n + (size_t)n;
    }
    at = end;
  }
  free(all);
  free(sizes);
  ms_bytes_free(&out);
  return st;
}
