/* Scene loader, time step and contact constants: dt must resolve the shortest contact
 * the scene can produce (t_c / 10; the error suggests a dt that passes), and every
 * damping coefficient the simulation derives must be a usable float. */
#include "scene/loader.h"

#include <float.h>
#include <math.h>

#include "shared/contact.h"

static void consider(double k, double e, double m_eff, const char *kind, double *best,
                     const char **best_kind)
{
  double t = ms_contact_time(k, e, m_eff);
  if (t < *best) {
    *best = t;
    *best_kind = kind;
  }
}

/* The lightest and heaviest small particle (0 and 0 when there are none). */
static void small_mass_range(const ms_scene *s, double *lo, double *hi)
{
  *lo = s->small_count > 0 ? INFINITY : 0.0;
  *hi = 0.0;
  for (int i = 0; i < s->small_count; i++) {
    *lo = fmin(*lo, s->small_m[i]);
    *hi = fmax(*hi, s->small_m[i]);
  }
}

/* The two lightest small particles (t_c grows with m_eff, so they set the shortest). */
static double lightest_small_pair(const ms_scene *s)
{
  double a = INFINITY, b = INFINITY;
  for (int i = 0; i < s->small_count; i++) {
    double m = s->small_m[i];
    if (m < a) {
      b = a;
      a = m;
    } else if (m < b) {
      b = m;
    }
  }
  return ms_effective_mass(a, 0, b, 0);
}

static double min_contact_time(const ms_scene *s, const char **kind)
{
  double k = s->stiffness, e = s->restitution, best = INFINITY;
  double m_s, m_hi;
  small_mass_range(s, &m_s, &m_hi);
  *kind = "none";
  if (s->small_count >= 2)
    consider(k, e, lightest_small_pair(s), "small-small", &best, kind);
  if (s->small_count >= 1)
    consider(k, e, m_s, "small-wall", &best, kind);
  double light1 = INFINITY, light2 = INFINITY; /* the two lightest dynamic large */
  int dynamic = 0, statics = 0;
  for (int i = 0; i < s->large_count; i++) {
    const ms_large *l = &s->large[i];
    if (s->small_count >= 1)
      consider(k, e, ms_effective_mass(m_s, 0, l->mass, l->is_static), "small-large", &best,
               kind);
    if (l->is_static) {
      statics++;
      continue;
    }
    dynamic++;
    if (l->mass < light1) {
      light2 = light1;
      light1 = l->mass;
    } else if (l->mass < light2) {
      light2 = l->mass;
    }
  }
  if (dynamic >= 2)
    consider(k, e, ms_effective_mass(light1, 0, light2, 0), "large-large", &best, kind);
  if (dynamic >= 1 && statics >= 1)
    consider(k, e, light1, "large-large", &best, kind);
  if (dynamic >= 1)
    consider(k, e, light1, "large-wall", &best, kind);
  return best;
}

double ms_scene_min_contact_time(const ms_scene *scene)
{
  const char *kind;
  return min_contact_time(scene, &kind);
}

/* Rounds down to 3 significant digits, so the suggested dt passes when pasted back. */
static double round_down_3(double v)
{
  double unit = pow(10.0, floor(log10(v)) - 2.0);
  return floor(v / unit) * unit;
}

/* c = 2 zeta sqrt(k m_eff) is a float in the force law: it must be 0 (e = 1) or a
 * normal float, or the dashpot would silently vanish or turn every force infinite. */
static int check_damping(loader *ld, double m_eff, const char *kind)
{
  const ms_scene *s = ld->scene;
  float c = (float)ms_damping_coeff(s->stiffness, s->restitution, m_eff);
  if (c == 0.0f || (c >= FLT_MIN && c <= FLT_MAX))
    return 1;
  const section *mat = ms_ld_find_kind(ld, SEC_MATERIAL);
  return ms_ld_fail_key(ld, mat, "stiffness",
                        "the damping coefficient of %s contacts, c = 2 zeta sqrt(k m) = %g N s/m "
                        "(k = %g N/m, m = %g kg), is not a normal single-precision number",
                        kind, (double)c, (double)s->stiffness, m_eff);
}

/* c grows with m_eff, so the lightest and the heaviest pair of each kind bound it. */
static int check_all_damping(loader *ld)
{
  const ms_scene *s = ld->scene;
  double m_s, m_hi, light1 = INFINITY, light2 = INFINITY;
  small_mass_range(s, &m_s, &m_hi);
  if (s->small_count >= 1 &&
      !(check_damping(ld, 0.5 * m_s, "small-small") && check_damping(ld, 0.5 * m_hi, "small-small") &&
        check_damping(ld, m_s, "small-wall") && check_damping(ld, m_hi, "small-wall")))
    return 0;
  for (int i = 0; i < s->large_count; i++) {
    const ms_large *l = &s->large[i];
    if (s->small_count >= 1 &&
        !(check_damping(ld, ms_effective_mass(m_s, 0, l->mass, l->is_static), "small-large") &&
          check_damping(ld, ms_effective_mass(m_hi, 0, l->mass, l->is_static), "small-large")))
      return 0;
    if (!check_damping(ld, l->mass, "large-wall"))
      return 0;
    if (!l->is_static && l->mass < light1) {
      light2 = light1;
      light1 = l->mass;
    } else if (!l->is_static && l->mass < light2) {
      light2 = l->mass;
    }
  }
  return !isfinite(light2) || check_damping(ld, ms_effective_mass(light1, 0, light2, 0),
                                            "large-large");
}

int ms_ld_check_dt(loader *ld)
{
  const ms_scene *s = ld->scene;
  if (!check_all_damping(ld))
    return 0;
  const char *kind;
  double t_c = min_contact_time(s, &kind);
  if (!strcmp(kind, "none") || (t_c > 0.0 && isfinite(t_c) && s->dt_s <= t_c / 10.0))
    return 1;
  if (!(t_c > 0.0 && isfinite(t_c))) /* never skip the check on a NaN */
    return ms_ld_fail_at(ld, s->dt_line, "simulation", "dt",
                         "the %s contact time t_c is %g s, so no dt can be checked against it",
                         kind, t_c);
  return ms_ld_fail_at(ld, s->dt_line, "simulation", "dt",
                 "dt = %g s is too large: the stiffest contact (%s) lasts t_c = %.3g s; "
                 "use dt <= %.3g",
                 s->dt_s, kind, t_c, round_down_3(t_c / 10.0));
}
