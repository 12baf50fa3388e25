/* The incremental meeting's balance (live.h): at the balance's decisions, every domain's own
 * particles per column counted on its device and shared, and the next cut made from them under
 * the measured weights; the records then move the particles it moves. */
#include "domains/live.h"

#include <string.h>

#include "collision/split.h"
#include "domains/domains_internal.h"
#include "gravity/ranks.h"

/* Domain d's own particles per column, as its give. */
static ms_status own_columns(ms_domains *D, int d)
{
  ms_split *x = &D->live.split[d];
  ms_status st = ms_split_own(D->sim[d], x, &D->live.cut, 0);
  D->gives[d].n = 0;
  if (!st && !ms_bytes_put(&D->gives[d], x->column, (size_t)D->cut.ncol * sizeof(int)))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory for the domains' meeting");
  return st;
}

/* cut_balance.h's decision every window; where it is made, the next cut from every
 * column's own particles under the new weights (the records then move what it moves). */
ms_status ms_live_rebalance(ms_domains *D)
{
  ms_live *v = &D->live;
  ms_cutbal_count(&D->balance, &D->layout);
  ms_status st = ms_cutbal_after(&D->balance, &D->layout, v->step);
  if (st || D->P < 2 || D->balance.seen != 0) /* (no decision this iteration) */
    return st;
  st = ms_domains_each(D, own_columns);
  if (D->ranks)
    st = ms_ranks_agree(st);
  if (!st)
    st = ms_domains_share(D);
  int n = D->cut.ncol;
  for (int c = 0; !st && c < n; c++)
    v->column[c] = 0.0;
  for (int e = 0; !st && e < D->P; e++) {
    if (D->gives[e].n != (size_t)n * sizeof(int))
      return ms_fail(MS_ERR_RUNTIME, "domain %d gave %zu bytes of columns", e, D->gives[e].n);
    for (int c = 0; c < n; c++) {
      int k;
      memcpy(&k, D->gives[e].b + (size_t)c * sizeof k, sizeof k);
      v->column[c] += k;
    }
  }
  if (!st) {
    ms_layout_cut_counts(&D->layout, &D->cut, v->column);
    memcpy(v->cut_next.start, D->layout.start, ((size_t)D->P + 1) * sizeof(int));
  }
  return st;
}

