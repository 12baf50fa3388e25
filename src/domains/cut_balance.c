/* The cut moved by measured time (cut_balance.h). */
#include "domains/cut_balance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gravity/ranks.h"

ms_status ms_cutbal_init(ms_cutbal *b, int P)
{
  memset(b, 0, sizeof *b);
  b->P = P;
  b->slow_domain = -1;
  const char *log = getenv("MIXSIM_BALANCE_LOG"), *slow = getenv("MIXSIM_DOMAINS_SLOW");
  b->log = log && !strcmp(log, "1");
  if (slow && *slow) {
    char *end = NULL;
    long d = strtol(slow, &end, 10);
    double f = *end == ':' ? strtod(end + 1, &end) : 0.0;
    if (*end || d < 0 || d >= P || !(f >= 1.0 && f <= 1e6))
      return ms_fail(MS_ERR_INPUT, "MIXSIM_DOMAINS_SLOW '%s': expected D:F, a domain 0..%d and "
                                   "a factor 1..1e6", slow, P - 1);
    b->slow_domain = (int)d;
    b->slow = f;
  }
  b->time_s = calloc((size_t)P, sizeof *b->time_s);
  b->own = calloc((size_t)P, sizeof *b->own);
  return b->time_s && b->own ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
}

void ms_cutbal_free(ms_cutbal *b)
{
  free(b->time_s);
  free(b->own);
  memset(b, 0, sizeof *b);
}

void ms_cutbal_note(ms_cutbal *b, int d, double time_s)
{
  b->time_s[d] += d == b->slow_domain ? time_s * b->slow : time_s;
}

void ms_cutbal_count(ms_cutbal *b, const ms_layout *l)
{
  for (int d = 0; d < b->P; d++)
    b->own[d] += l->own[d];
}

/* Every rank's measurements to every rank: each domain's are its own rank's, the others 0. */
static ms_status share(ms_cutbal *b)
{
  int size = ms_ranks_size();
  if (size == 1)
    return MS_OK;
  size_t n = (size_t)b->P * sizeof(double), *sizes = malloc((size_t)size * sizeof *sizes);
  unsigned char *all = NULL;
  ms_status st = sizes ? ms_ranks_allgather_bytes(b->time_s, n, &all, sizes)
                       : ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (int r = 0; !st && r < size; r++)
    for (int d = 0; d < b->P; d++) {
      double t;
      memcpy(&t, all + (size_t)r * n + (size_t)d * sizeof t, sizeof t);
      if (t > 0.0)
        b->time_s[d] = t;
    }
  free(all);
  free(sizes);
  return st;
}

ms_status ms_cutbal_after(ms_cutbal *b, ms_layout *l, long step)
{
  if (b->P < 2 || ++b->seen < MS_CUTBAL_WINDOW)
    return MS_OK;
  ms_status st = share(b);
  if (st)
    return st;
  double cost[64], mean = 0.0; /* seconds per own particle (P <= 64: domains.c) */
  int measured = 0;
  for (int d = 0; d < b->P; d++) {
    cost[d] = b->own[d] > 0.0 ? b->time_s[d] / b->own[d] : 0.0;
    mean += cost[d];
    measured += cost[d] > 0.0;
  }
  mean = measured ? mean / measured : 0.0;
  for (int c = 0, d = 0; mean > 0.0 && c < l->start[b->P]; c++) {
    while (c >= l->start[d + 1])
      d++;
    if (cost[d] > 0.0) /* halfway: a domain's overheads must not swing the cut to and fro */
      l->weight[c] = 0.5 * l->weight[c] + 0.5 * cost[d] / mean;
  }
  if (b->log) {
    fprintf(stderr, "mixsim: domains balance at step %ld:", step);
    for (int d = 0; d < b->P; d++)
      fprintf(stderr, " %d: %.3f ms/it, %.0f own, %.1f ns each, columns %d..%d;", d,
              1e3 * b->time_s[d] / (double)b->seen, b->own[d] / (double)b->seen, 1e9 * cost[d],
              l->start[d], l->start[d + 1] - 1);
    fputc('\n', stderr);
  }
  b->seen = 0;
  memset(b->time_s, 0, (size_t)b->P * sizeof *b->time_s);
  memset(b->own, 0, (size_t)b->P * sizeof *b->own);
  return MS_OK;
}
