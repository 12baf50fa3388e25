/* Scene loader, time step and contact constants: dt must resolve the shortest contact
 * the scene can produce (t_c / 10; the error suggests a dt that passes), a dt at which
 * that contact's restitution is off by more than a few percent gets a warning with a dt
 * that avoids it (docs/time-step.md), and every damping coefficient the simulation
 * derives must be a usable float. */
#include "scene/loader.h"

#include <float.h>
#include <math.h>

#include "shared/contact.h"

/* The stiffest contact: its kind, the wall of a [wall.NAME] contact (its own restitution,
 * the mass of a force-driven one), its effective mass and restitution. */
typedef struct stiffest {
  const char *kind;
  const char *wall; /* "wall.NAME", or NULL */
  double m_eff, e;
} stiffest;

static void consider_wall(double k, double e, double m_eff, const char *kind, const char *wall,
                          double *best, stiffest *st)
{
  double t = ms_contact_time(k, e, m_eff);
  if (t < *best) {
    *best = t;
    *st = (stiffest){kind, wall, m_eff, e};
  }
}

static void consider(double k, double e, double m_eff, const char *kind, double *best,
                     stiffest *st)
{
  consider_wall(k, e, m_eff, kind, NULL, best, st);
}

/* "small-wall" or "small-wall, [wall.piston]", for messages. */
static const char *label(const stiffest *st, char *buf, size_t size)
{
  if (!st->wall)
    return st->kind;
  snprintf(buf, size, "%s, [%s]", st->kind, st->wall);
  return buf;
}

/* The lightest and heaviest particle the inflows of `kind` can pour (INFINITY and 0 when
 * none does), as the simulation will weigh them: in float. */
static void inflow_mass_range(const ms_scene *s, ms_inflow_kind kind, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = 0.0;
  for (int i = 0; i < s->inflow_count; i++) {
    const ms_inflow *in = &s->inflows[i];
    if (in->kind != kind)
      continue;
    *lo = fmin(*lo, (float)ms_ld_disc_mass(in->density, in->radius_min));
    *hi = fmax(*hi, (float)ms_ld_disc_mass(in->density, in->radius_max));
  }
}

/* Whether an inflow pours in particles of `kind`. */
static int pours(const ms_scene *s, ms_inflow_kind kind)
{
  for (int i = 0; i < s->inflow_count; i++)
    if (s->inflows[i].kind == kind)
      return 1;
  return 0;
}

/* Whether the scene has or pours in small particles. */
static int has_small(const ms_scene *s)
{
  return s->small_count >= 1 || pours(s, MS_INFLOW_SMALL);
}

/* The lightest and heaviest small particle, the inflows' included (0 and 0 when there are
 * none). */
static void small_mass_range(const ms_scene *s, double *lo, double *hi)
{
  inflow_mass_range(s, MS_INFLOW_SMALL, lo, hi);
  for (int i = 0; i < s->small_count; i++) {
    *lo = fmin(*lo, s->small_m[i]);
    *hi = fmax(*hi, s->small_m[i]);
  }
  if (!isfinite(*lo))
    *lo = 0.0;
}

/* Puts mass m among the two lightest, a <= b. */
static void keep_lightest(double m, double *a, double *b)
{
  if (m < *a) {
    *b = *a;
    *a = m;
  } else if (m < *b) {
    *b = m;
  }
}

/* The two lightest small particles (t_c grows with m_eff, so they set the shortest); an
 * inflow may pour two of its lightest. */
static double lightest_small_pair(const ms_scene *s)
{
  double a = INFINITY, b = INFINITY, in_lo, in_hi;
  inflow_mass_range(s, MS_INFLOW_SMALL, &in_lo, &in_hi);
  keep_lightest(in_lo, &a, &b);
  keep_lightest(in_lo, &a, &b);
  for (int i = 0; i < s->small_count; i++)
    keep_lightest(s->small_m[i], &a, &b);
  return ms_effective_mass(a, 0, b, 0);
}

static double min_contact_time(const ms_scene *s, stiffest *kind)
{
  double k = s->stiffness, e = s->restitution, best = INFINITY;
  double m_s, m_hi;
  small_mass_range(s, &m_s, &m_hi);
  *kind = (stiffest){"none", NULL, 0.0, e};
  int small = has_small(s);
  if (s->small_count >= 2 || pours(s, MS_INFLOW_SMALL))
    consider(k, e, lightest_small_pair(s), "small-small", &best, kind);
  if (small)
    consider(k, e, m_s, "small-wall", &best, kind);
  double light1 = INFINITY, light2 = INFINITY; /* the two lightest dynamic large */
  int dynamic = 0, statics = 0;
  double in_lo, in_hi; /* the large inflows': two of the lightest may meet */
  inflow_mass_range(s, MS_INFLOW_LARGE, &in_lo, &in_hi);
  if (isfinite(in_lo)) {
    if (small)
      consider(k, e, ms_effective_mass(m_s, 0, in_lo, 0), "small-large", &best, kind);
    keep_lightest(in_lo, &light1, &light2);
    keep_lightest(in_lo, &light1, &light2);
    dynamic += 2;
  }
  for (int i = 0; i < s->large_count; i++) {
    const ms_large *l = &s->large[i];
    if (small)
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
  /* [wall.NAME]: a prescribed motion is an infinite mass, as the box's sides are. */
  for (int i = 0; i < s->wall_count; i++) {
    const ms_wall *w = &s->walls[i];
    int fixed = !w->force_driven;
    double e_w = w->restitution;
    if (small)
      consider_wall(k, e_w, ms_effective_mass(m_s, 0, w->mass, fixed), "small-wall", w->section,
                    &best, kind);
    if (dynamic >= 1)
      consider_wall(k, e_w, ms_effective_mass(light1, 0, w->mass, fixed), "large-wall",
                    w->section, &best, kind);
    if (statics >= 1 && !fixed)
      consider_wall(k, e_w, w->mass, "large-wall", w->section, &best, kind);
  }
  return best;
}

double ms_scene_min_contact_time(const ms_scene *scene)
{
  stiffest kind;
  return min_contact_time(scene, &kind);
}

/* One step of the integrator on a body moving along x. The one call of ms_integrate
 * here, so a change of its signature changes only this function. */
static void step_body(double *x, double *v, float f, double m, double dt)
{
  double y = 0.0, vy = 0.0;
  ms_integrate(x, &y, v, &vy, f, 0.0f, (float)m, 0.0, 0.0, dt);
}

/* Contacts resolved in more steps than this are not stepped (it would cost too much):
 * the restitution error there is under 1 % for any e >= 0.001 (docs/time-step.md). */
#define MAX_STEPS_PER_CONTACT 20000.0

double ms_restitution_at(double k, double e, double m_eff, double dt, double phase)
{
  /* A body closing at v0 on a fixed partner centred at x = -r_sum: they touch with the
   * body at x = 0, where floats are finest. v0 makes the deepest overlap about 5 % of
   * r_sum; the law is linear, so e does not depend on v0. */
  const float r_sum = 1.0f, kf = (float)k, two_zeta = (float)(2.0 * ms_damping_ratio(e));
  double v0 = 0.05 * sqrt(k / m_eff), x = -phase * v0 * dt, v = -v0;
  long limit = (long)(4.0 * ms_contact_time(k, e, m_eff) / dt) + 16;
  for (long i = 0; i < limit; i++) {
    /* dx is partner minus body, dv body minus partner (ms_contact_force). */
    ms_v2 f = ms_contact_force((float)(-(double)r_sum - x), 0.0f, (float)v, 0.0f, r_sum, kf,
                               two_zeta, (float)m_eff);
    if (f.x == 0.0f && v > 0.0) /* apart again */
      break;
    step_body(&x, &v, f.x, m_eff, dt);
  }
  return v / v0;
}

ms_restitution_range ms_restitution_sweep(double k, double e, double m_eff, double dt,
                                          int phases)
{
  ms_restitution_range r = {INFINITY, -INFINITY, 0.0};
  for (int i = 0; i < phases; i++) {
    double got = ms_restitution_at(k, e, m_eff, dt, (i + 0.5) / phases);
    r.min = fmin(r.min, got);
    r.max = fmax(r.max, got);
    r.mean += got / phases;
  }
  return r;
}

/* Rounds down to 3 significant digits, so the suggested dt passes when pasted back. */
static double round_down_3(double v)
{
  double unit = pow(10.0, floor(log10(v)) - 2.0);
  return floor(v / unit) * unit;
}

/* c = 2 zeta sqrt(k m_eff) is a float in the force law: it must be 0 (e = 1) or a
 * normal float, or the dashpot would silently vanish or turn every force infinite. */
static int check_damping_e(loader *ld, double e, double m_eff, const char *kind,
                           const char *wall)
{
  const ms_scene *s = ld->scene;
  /* As the force law computes it: in float, from the pair's mass (k m_eff can underflow). */
  float two_zeta = (float)(2.0 * ms_damping_ratio(e));
  float c = ms_dashpot(two_zeta, s->stiffness, (float)m_eff);
  if ((two_zeta == 0.0f && c == 0.0f) || (c >= FLT_MIN && c <= FLT_MAX))
    return 1;
  const section *mat = ms_ld_find_kind(ld, SEC_MATERIAL);
  char buf[128];
  const stiffest st = {kind, wall, m_eff, e};
  return ms_ld_fail_key(ld, mat, "stiffness",
                        "the damping coefficient of %s contacts, c = 2 zeta sqrt(k m) = %g N s/m "
                        "(k = %g N/m, m = %g kg), is not a normal single-precision number",
                        label(&st, buf, sizeof buf), (double)c, (double)s->stiffness, m_eff);
}

static int check_damping(loader *ld, double m_eff, const char *kind)
{
  return check_damping_e(ld, ld->scene->restitution, m_eff, kind, NULL);
}

/* The contacts with each [wall.NAME], at its own restitution (and mass, when force-driven). */
static int check_wall_damping(loader *ld, double m_s, double m_hi)
{
  const ms_scene *s = ld->scene;
  for (int i = 0; i < s->wall_count; i++) {
    const ms_wall *w = &s->walls[i];
    int fixed = !w->force_driven;
    double e = w->restitution;
    if (has_small(s) &&
        !(check_damping_e(ld, e, ms_effective_mass(m_s, 0, w->mass, fixed), "small-wall",
                          w->section) &&
          check_damping_e(ld, e, ms_effective_mass(m_hi, 0, w->mass, fixed), "small-wall",
                          w->section)))
      return 0;
    for (int j = 0; j < s->large_count; j++) {
      const ms_large *l = &s->large[j];
      if (l->is_static && fixed)
        continue; /* neither moves under the contact */
      if (!check_damping_e(ld, e, ms_effective_mass(l->mass, l->is_static, w->mass, fixed),
                           "large-wall", w->section))
        return 0;
    }
    double in_lo, in_hi;
    inflow_mass_range(s, MS_INFLOW_LARGE, &in_lo, &in_hi);
    if (isfinite(in_lo) &&
        !(check_damping_e(ld, e, ms_effective_mass(in_lo, 0, w->mass, fixed), "large-wall",
                          w->section) &&
          check_damping_e(ld, e, ms_effective_mass(in_hi, 0, w->mass, fixed), "large-wall",
                          w->section)))
      return 0;
  }
  return 1;
}

/* c grows with m_eff, so the lightest and the heaviest pair of each kind bound it. */
static int check_all_damping(loader *ld)
{
  const ms_scene *s = ld->scene;
  double m_s, m_hi, light1 = INFINITY, light2 = INFINITY;
  small_mass_range(s, &m_s, &m_hi);
  int small = has_small(s);
  if (small &&
      !(check_damping(ld, 0.5 * m_s, "small-small") && check_damping(ld, 0.5 * m_hi, "small-small") &&
        check_damping(ld, m_s, "small-wall") && check_damping(ld, m_hi, "small-wall")))
    return 0;
  double in_lo, in_hi; /* the large inflows' lightest and heaviest, dynamic */
  inflow_mass_range(s, MS_INFLOW_LARGE, &in_lo, &in_hi);
  if (isfinite(in_lo)) {
    double m[2] = {in_lo, in_hi};
    for (int j = 0; j < 2; j++)
      if ((small && !(check_damping(ld, ms_effective_mass(m_s, 0, m[j], 0), "small-large") &&
                      check_damping(ld, ms_effective_mass(m_hi, 0, m[j], 0), "small-large"))) ||
          !check_damping(ld, m[j], "large-wall"))
        return 0;
    keep_lightest(in_lo, &light1, &light2);
    keep_lightest(in_lo, &light1, &light2);
  }
  for (int i = 0; i < s->large_count; i++) {
    const ms_large *l = &s->large[i];
    if (small &&
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
  return (!isfinite(light2) || check_damping(ld, ms_effective_mass(light1, 0, light2, 0),
                                             "large-large")) &&
         check_wall_damping(ld, m_s, m_hi);
}

/* Largest relative error |e_dt - e| / e over the phases of one step. */
static double worst_error(double k, double e, double m_eff, double dt,
                          ms_restitution_range *r)
{
  *r = ms_restitution_sweep(k, e, m_eff, dt, MS_RESTITUTION_PHASES);
  return fmax(fabs(r->min - e), fabs(r->max - e)) / e;
}

/* The largest dt, rounded down to 3 digits, whose error is within the threshold:
 * bisection from t_c / MAX_STEPS_PER_CONTACT (within it) to dt (not), then checked
 * as it will be pasted back, since the error need not grow monotonically with dt. */
static double suggest_dt(double k, double e, double m_eff, double t_c, double dt)
{
  ms_restitution_range r;
  double lo = t_c / MAX_STEPS_PER_CONTACT, hi = dt;
  for (int i = 0; i < 30; i++) {
    double mid = 0.5 * (lo + hi);
    if (worst_error(k, e, m_eff, mid, &r) <= MS_RESTITUTION_WARN)
      lo = mid;
    else
      hi = mid;
  }
  double s = round_down_3(lo);
  while (s > t_c / MAX_STEPS_PER_CONTACT &&
         worst_error(k, e, m_eff, s, &r) > MS_RESTITUTION_WARN)
    s = round_down_3(0.99 * s);
  return s;
}

/* Steps the stiffest contact at the scene's dt over a step's phases and warns, with
 * the range it found and a dt that keeps it within MS_RESTITUTION_WARN. */
static void check_restitution(loader *ld, const stiffest *st, double t_c)
{
  const ms_scene *s = ld->scene;
  double k = s->stiffness, e = st->e, dt = (float)s->dt_s;
  char buf[128];
  if (t_c / dt > MAX_STEPS_PER_CONTACT)
    return;
  ms_restitution_range r;
  if (worst_error(k, e, st->m_eff, dt, &r) <= MS_RESTITUTION_WARN)
    return;
  ms_ld_warn_at(ld, s->dt_line, "simulation", "dt",
                "dt = %g s is t_c/%.3g of the stiffest contact (%s, t_c = %.3g s): an "
                "isolated contact restitutes e = %g as %.3f..%.3f (%+.1f..%+.1f %%), "
                "depending on where in a step it starts; use dt <= %.3g to keep the "
                "error within %g %%",
                s->dt_s, t_c / dt, label(st, buf, sizeof buf), t_c, e, r.min, r.max, 100.0 * (r.min / e - 1.0),
                100.0 * (r.max / e - 1.0), suggest_dt(k, e, st->m_eff, t_c, dt),
                100.0 * MS_RESTITUTION_WARN);
}

int ms_ld_check_dt(loader *ld)
{
  const ms_scene *s = ld->scene;
  if (!check_all_damping(ld))
    return 0;
  stiffest kind;
  double t_c = min_contact_time(s, &kind);
  if (!strcmp(kind.kind, "none"))
    return 1;
  if (t_c > 0.0 && isfinite(t_c) && s->dt_s <= t_c / 10.0) {
    check_restitution(ld, &kind, t_c);
    return 1;
  }
  char buf[128];
  if (!(t_c > 0.0 && isfinite(t_c))) /* never skip the check on a NaN */
    return ms_ld_fail_at(ld, s->dt_line, "simulation", "dt",
                         "the %s contact time t_c is %g s, so no dt can be checked against it",
                         label(&kind, buf, sizeof buf), t_c);
  return ms_ld_fail_at(ld, s->dt_line, "simulation", "dt",
                 "dt = %g s is too large: the stiffest contact (%s) lasts t_c = %.3g s; "
                 "use dt <= %.3g",
                 s->dt_s, label(&kind, buf, sizeof buf), t_c, round_down_3(t_c / 10.0));
}
