/* The collision grid's cell on a periodic box: a whole number of cells must span each
 * periodic side, so that the 3x3 search wraps onto the neighbours across the seam. */
#include <math.h>

#include "mixsim/scene.h"

/* Whether p / cell is a whole number m >= 3 (to rounding). */
static int whole_cells(double p, double cell, double *m)
{
  double q = p / cell, r = nearbyint(q);
  *m = r;
  return r >= 3.0 && fabs(q - r) <= 1e-9 * r;
}

double ms_box_cell(double w, double h, const int periodic[2], double min_cell)
{
  if (!(min_cell > 0.0))
    return 0.0;
  if (!periodic[0] && !periodic[1])
    return min_cell;
  double p = periodic[0] ? w : h, other = periodic[0] ? h : w;
  /* The most cells (smallest cell) along the first periodic side that the other one,
   * when periodic too, also holds a whole number of. */
  for (double m = floor(p / min_cell); m >= 3.0; m -= 1.0) {
    double cell = p / m, n;
    if (!(periodic[0] && periodic[1]) || whole_cells(other, cell, &n))
      return cell;
  }
  return 0.0;
}
