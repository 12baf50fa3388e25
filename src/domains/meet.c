/* How deep a domain's windows are, and how often the domains meet (meet.h). */
#include "domains/meet.h"

#include <math.h>
#include <stdlib.h>

#include "collision/sim_internal.h"
#include "core/number.h"
#include "domains/domains_internal.h"

/* The speed a domain's step may not pass meeting every k > 1 iterations: the scene's
 * max_speed, or where that is higher or unset, half a cell in k steps, which no contact
 * resolved by its dt comes near. A step past it fails, and is made again meeting every
 * iteration (ms_live_advance). */
double ms_meet_speed(const ms_domains *D, int k)
{
  double cell = 0.5 / (D->cut.inv_cell * (double)k * D->view->p.dt);
  double scene = sqrt(D->view->p.max_speed2);
  return scene > 0.0 && scene < cell ? scene : cell;
}

/* The largest large radius (-1: none). */
static double r_large_max(const ms_domains *D)
{
  const ms_state *s = &D->g.st;
  double r = -1.0;
  for (int j = 0; j < s->n_large; j++)
    if (s->large_shape[2 * j + 1] > 0.0f && s->large_shape[2 * j] > r)
      r = s->large_shape[2 * j];
  return r;
}

/* Columns a meeting every k iterations adds to a window of one iteration's: each further
 * iteration, what reaches an own particle comes from one contact further (two of the
 * largest radii, centre to centre), and both ends may have moved k steps at max_speed.
 * Within the window, every particle an own one depends on is held, so the own particles
 * step exactly; the halo's outer columns go wrong, and the meeting gives them afresh. With
 * the large particles handed over every iteration (lockstep.h) a domain's large particles
 * are right at every step whatever it holds, so nothing travels through them: one contact
 * further is two small radii. */
static int deeper(const ms_domains *D, int k)
{
  if (k <= 1)
    return 0;
  double r = D->live.together ? D->cut.r_small_max : fmax(r_large_max(D), D->cut.r_small_max);
  double move = (double)k * D->view->p.dt * ms_meet_speed(D, k);
  return (int)ceil((double)(k - 1) * (2.0 * r + 2.0 * move) * D->cut.inv_cell);
}

static int capped(const ms_domains *D, double w) { return w < D->cut.ncol ? (int)w : D->cut.ncol; }

/* Columns a domain holds each side of its own, meeting every k iterations: for one, the
 * halo's, or as far as its large particles reach (layout.c's mark_large: the reach, one
 * column more, and the centre's column's rounding). */
int ms_meet_window(const ms_domains *D, int k)
{
  if (!D->cut.halo)
    return 0;
  double r = r_large_max(D);
  double w = r < 0.0 ? D->cut.halo : floor((r + D->cut.r_small_max) * D->cut.inv_cell) + 2.0;
  return capped(D, w + deeper(D, k));
}

/* Columns each side of a domain's own within which it keeps a large particle: every one
 * that touches one of its own small or large particles (two large radii and a small one),
 * and, meeting every k iterations, every one those depend on. */
int ms_meet_window_large(const ms_domains *D, int k)
{
  double r = fmax(r_large_max(D), 0.0);
  double w = floor((2.0 * r + D->cut.r_small_max) * D->cut.inv_cell) + 2.0;
  if (D->live.together) /* every one that reaches a particle of its window, whose own
                           large particles' contacts lie in it (ms_meet_window) */
    w = floor((2.0 * r + 2.0 * D->cut.r_small_max) * D->cut.inv_cell) + 3.0;
  return capped(D, w + deeper(D, k));
}

/* Columns each side of a domain's own that its grid's span covers (collision/split.h): its
 * window, the rectangles of the large particles it keeps (their reach, a column more, the
 * centre's rounding), and two columns for what moves in a block (under half a cell at the
 * speed its step checks) and rounding. A particle past them costs a build over the whole
 * grid, never the state: MIXSIM_GRID_SPAN=N (testing) sets N, to show it. */
ms_status ms_meet_span(const ms_domains *D, int k, int *span)
{
  long e = -1;
  ms_status st = ms_number_env("MIXSIM_GRID_SPAN", 0, 1000000, &e);
  if (st || e >= 0) {
    *span = (int)e;
    return st;
  }
  double r = fmax(r_large_max(D), 0.0);
  int reach = (int)floor((r + D->cut.r_small_max) * D->cut.inv_cell) + 2;
  int w = ms_meet_window(D, k), wl = ms_meet_window_large(D, k) + reach;
  *span = (w > wl ? w : wl) + 2;
  return MS_OK;
}

/* Iterations between meetings: MIXSIM_MEET_EVERY, else the most up to 8 (16 with the large
 * particles handed over, whose windows grow five times slower on the beds) whose
 * windows, both sides, are at most an eighth of a domain's own columns (what it steps
 * twice, beside its neighbours). */
ms_status ms_meet_every(const ms_domains *D, int one_by_one, int *k)
{
  const char *env = getenv("MIXSIM_MEET_EVERY");
  if (env && *env && !one_by_one) {
    char *end = NULL;
    long e = strtol(env, &end, 10);
    if (*end || e < 1 || e > 64)
      return ms_fail(MS_ERR_INPUT, "MIXSIM_MEET_EVERY '%s': expected 1..64 iterations", env);
    *k = (int)e;
    return MS_OK;
  }
  *k = 1;
  if (one_by_one)
    return MS_OK;
  int own = D->cut.ncol / D->P;
  for (int e = D->live.together ? 16 : 8; e > 1 && D->cut.halo; e--)
    if (16 * ms_meet_window(D, e) <= own) {
      *k = e;
      break;
    }
  return MS_OK;
}
