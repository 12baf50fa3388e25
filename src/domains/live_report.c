/* The report's lines on the incremental meeting (live.h): how often the domains meet, how
 * deep their windows are, where a meeting's time goes, and the large particles' hand-over. */
#include "domains/live.h"

#include <stdio.h>

#include "collision/sim_internal.h"
#include "domains/domains_internal.h"
#include "domains/lockstep.h"

int ms_live_describe(const ms_domains *D, char *out, size_t size)
{
  const ms_live *v = &D->live;
  if (v->lays == 0)
    return 0;
  double beside = D->iterations > 0 ? 1e3 * (D->wall_s - v->lay_s) / (double)D->iterations : 0.0;
  long missed = 0;
  for (int e = D->first; e < D->first + D->mine; e++)
    missed += D->sim[e]->run.stats.span_misses;
  int k = snprintf(out, size, "  incremental meeting: every %d iteration(s), a window of %d "
                   "columns each side, grids over %d (%ld build(s) over the whole grid); "
                   "%ld lay(s) from the whole state (%.1f ms), %ld settle(s) "
                   "of the view (%.1f ms); %.4f ms/iteration beside the lays; per domain, lay is "
                   "the records taken in, read the step's records out\n",
                   v->k, v->cut.w, v->w_span, missed, v->lays, 1e3 * v->lay_s, v->settles,
                   1e3 * v->settle_s, beside);
  int d = D->first;
  long h = ms_lockstep_handovers(v->lockstep, d);
  if (h > 0 && k >= 0 && (size_t)k < size)
    k += snprintf(out + k, size - (size_t)k, "  large particles handed over every iteration "
                  "(the windows grow by a small contact an iteration): domain %d waited "
                  "%.4f ms per hand-over for the others, %ld hand-overs\n", d,
                  1e3 * ms_lockstep_wait_s(v->lockstep, d) / (double)h, h);
  double n = v->meetings > 0 ? (double)v->meetings : 1.0;
  if (v->meetings > 0 && D->mine > 0 && k >= 0 && (size_t)k < size)
    k += snprintf(out + k, size - (size_t)k, "  a meeting, domain %d: %ld of them; pack %.3f ms, "
                  "%.0f records out %.3f ms; roles %.3f ms, %.0f records in, laid %.3f ms; "
                  "this rank's checks of the gives %.3f ms, balance %.3f ms\n",
                  d, v->meetings, 1e3 * v->pack_s[d] / n, (double)v->rec_out[d] / n,
                  1e3 * v->out_s[d] / n, 1e3 * v->commit_s[d] / n, (double)v->rec_in[d] / n,
                  1e3 * v->in_s[d] / n, 1e3 * v->check_s / n, 1e3 * v->balance_s / n);
  return k;
}
