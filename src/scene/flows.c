/* Scene loader, open systems: the [box] keys periodic and walls, and the sections
 * [inflow.NAME] and [outflow.NAME] (docs/scenes.md), their keys and the checks that need
 * several of them or the box. What a periodic box asks of the rest: flows_periodic.c. */
#include "scene/loader.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "core/strtrim.h"

static const char *const g_sides[4] = {"left", "right", "bottom", "top"};

/* periodic = none | x | y | xy */
static int read_periodic(loader *ld, const char *v)
{
  static const char *const names[] = {"none", "x", "y", "xy"};
  int p = 0;
  if (!ms_ld_read_choice(ld, v, names, 4, &p))
    return 0;
  ld->scene->periodic[0] = p == 1 || p == 3;
  ld->scene->periodic[1] = p == 2 || p == 3;
  return 1;
}

/* walls = all | none | a list of sides: left, right, bottom, top. */
static int read_walls(loader *ld, const char *v)
{
  if (ms_ld_is(v, "all") || ms_ld_is(v, "none")) {
    ld->box_walls = ms_ld_is(v, "all") ? -1 : 0;
    return 1;
  }
  char list[256];
  if (strlen(v) >= sizeof list)
    return ms_ld_bad_value(ld, "too long");
  strcpy(list, v);
  int mask = 0;
  for (char *item = list, *next; item; item = next) {
    next = strchr(item, ',');
    if (next)
      *next++ = '\0';
    const char *name = ms_trim(item);
    int k = 0;
    while (k < 4 && !ms_ld_is(name, g_sides[k]))
      k++;
    if (k == 4)
      return ms_ld_bad_value(ld, "expected all, none or a list of left, right, bottom, top; "
                                 "got '%s'", name);
    if (mask & (1 << k))
      return ms_ld_bad_value(ld, "%s is listed twice", name);
    mask |= 1 << k;
  }
  ld->box_walls = mask;
  return 1;
}

int ms_ld_set_box_sides(loader *ld, const char *key, const char *v)
{
  return ms_ld_is(key, "periodic") ? read_periodic(ld, v) : read_walls(ld, v);
}

/* A side listed in walls may not be periodic; the non-periodic sides not listed are open. */
int ms_ld_check_box_sides(loader *ld)
{
  ms_scene *s = ld->scene;
  const section *box = ms_ld_find_kind(ld, SEC_BOX);
  for (int k = 0; k < 4; k++) {
    int periodic = s->periodic[k / 2], listed = ld->box_walls < 0 || (ld->box_walls >> k & 1);
    if (periodic && ld->box_walls >= 0 && listed)
      return ms_ld_fail_key(ld, box, "walls", "%s is periodic: a periodic side has no wall "
                            "(periodic at line %d)", g_sides[k], ms_ld_line_of(box, "periodic"));
    s->box_open[k] = !periodic && !listed;
  }
  return 1;
}

/* Grows `*array` (of `*count` items of `size` bytes, room for `*cap`) by one zeroed item. */
static void *add_item(loader *ld, void **array, int *count, int *cap, size_t size)
{
  if (*count == *cap) {
    int n = *cap ? 2 * *cap : 4;
    void *grown = realloc(*array, (size_t)n * size);
    if (!grown) {
      ms_ld_fail_memory(ld);
      return NULL;
    }
    *array = grown;
    *cap = n;
  }
  char *item = (char *)*array + (size_t)*count * size;
  memset(item, 0, size);
  (*count)++;
  return item;
}

int ms_ld_add_flow(loader *ld, section *sec)
{
  ms_scene *s = ld->scene;
  if (sec->kind == SEC_INFLOW) {
    ms_inflow *in = add_item(ld, (void **)&s->inflows, &s->inflow_count, &ld->inflow_cap,
                             sizeof *in);
    if (!in)
      return 0;
    sec->item = s->inflow_count - 1;
    *in = (ms_inflow){.line = sec->line, .kind = MS_INFLOW_SMALL, .stop = HUGE_VAL,
                      .radius_law = MS_RADIUS_UNIFORM, .density = 1000.0f};
    snprintf(in->section, sizeof in->section, "%s", sec->name);
    return 1;
  }
  ms_outflow *out = add_item(ld, (void **)&s->outflows, &s->outflow_count, &ld->outflow_cap,
                             sizeof *out);
  if (!out)
    return 0;
  sec->item = s->outflow_count - 1;
  out->line = sec->line;
  snprintf(out->section, sizeof out->section, "%s", sec->name);
  return 1;
}

int ms_ld_set_inflow(loader *ld, ms_inflow *in, const char *key, const char *v)
{
  int choice = 0;
  if (ms_ld_is(key, "kind")) {
    static const char *const names[] = {"small", "large"};
    if (!ms_ld_read_choice(ld, v, names, 2, &choice))
      return 0;
    in->kind = choice ? MS_INFLOW_LARGE : MS_INFLOW_SMALL;
    return 1;
  }
  if (ms_ld_is(key, "region"))
    return ms_ld_read_region(ld, v, in->region);
  if (ms_ld_is(key, "rate"))
    return ms_ld_read_positive(ld, v, &in->rate);
  if (ms_ld_is(key, "start"))
    return ms_ld_parse_number(ld, v, &in->start) && ms_ld_at_least(ld, in->start, 0.0);
  if (ms_ld_is(key, "stop"))
    return ms_ld_parse_number(ld, v, &in->stop);
  if (ms_ld_is(key, "max_count"))
    return ms_ld_read_long(ld, v, 1, MS_STEPS_MAX, &in->max_count);
  if (ms_ld_is(key, "radius")) {
    if (!ms_ld_read_positive_float(ld, v, &in->radius_max))
      return 0;
    in->radius_min = in->radius_max;
    return 1;
  }
  if (ms_ld_is(key, "radius_min"))
    return ms_ld_read_positive_float(ld, v, &in->radius_min);
  if (ms_ld_is(key, "radius_max"))
    return ms_ld_read_positive_float(ld, v, &in->radius_max);
  if (ms_ld_is(key, "radius_distribution")) {
    static const char *const names[] = {"uniform", "area"};
    if (!ms_ld_read_choice(ld, v, names, 2, &choice))
      return 0;
    in->radius_law = choice ? MS_RADIUS_AREA : MS_RADIUS_UNIFORM;
    return 1;
  }
  if (ms_ld_is(key, "velocity"))
    return ms_ld_read_vec2(ld, v, in->velocity);
  if (ms_ld_is(key, "spin"))
    return ms_ld_parse_number(ld, v, &in->spin);
  return ms_ld_read_spread(ld, v, &in->velocity_spread); /* velocity_spread */
}

int ms_ld_set_outflow(loader *ld, ms_outflow *out, const char *key, const char *v)
{
  (void)key; /* region */
  return ms_ld_read_region(ld, v, out->region);
}

/* A region inside the box, moved into the simulation frame (the subtraction placement
 * uses for [small] region). */
static int region_to_frame(loader *ld, const section *sec, double r[4])
{
  const ms_scene *s = ld->scene;
  if (!ms_ld_check_region(ld, sec, r))
    return 0;
  r[0] -= s->box_min[0];
  r[1] -= s->box_min[1];
  r[2] -= s->box_min[0];
  r[3] -= s->box_min[1];
  return 1;
}

/* radius, or radius_min and radius_max, as [small] takes them (required here). */
static int check_inflow_sizes(loader *ld, const section *sec, const ms_inflow *in)
{
  int mono = ms_ld_line_of(sec, "radius"), lo = ms_ld_line_of(sec, "radius_min"),
      hi = ms_ld_line_of(sec, "radius_max");
  if (mono && (lo || hi))
    return ms_ld_fail_key(ld, sec, lo ? "radius_min" : "radius_max",
                          "give either radius (one size) or radius_min and radius_max, not both");
  if (!mono && !lo && !hi)
    return ms_ld_fail_key(ld, sec, "radius", "required key is missing (or give radius_min and "
                          "radius_max)");
  if (!mono && !(lo && hi))
    return ms_ld_fail_key(ld, sec, lo ? "radius_min" : "radius_max",
                          "needs %s as well", lo ? "radius_max" : "radius_min");
  if (ms_ld_line_of(sec, "radius_distribution") && !lo)
    return ms_ld_fail_key(ld, sec, "radius_distribution",
                          "only applies with radius_min and radius_max");
  if (in->radius_min > in->radius_max)
    return ms_ld_fail_key(ld, sec, "radius_max", "must be >= radius_min (%g < %g)",
                          (double)in->radius_max, (double)in->radius_min);
  return 1;
}

int ms_ld_check_inflow(loader *ld, const section *sec)
{
  ms_inflow *in = &ld->scene->inflows[sec->item];
  if (!check_inflow_sizes(ld, sec, in))
    return 0;
  if (ms_ld_line_of(sec, "stop") && !(in->stop > in->start))
    return ms_ld_fail_key(ld, sec, "stop", "must be after start (%g s), got %g s", in->start,
                          in->stop);
  double areal = 0.0;
  const char *hi_key = ms_ld_line_of(sec, "radius") ? "radius" : "radius_max";
  if (!ms_ld_areal_density(ld, sec, in->radius_min, &areal) ||
      !ms_ld_check_mass(ld, sec, areal, in->radius_min,
                        ms_ld_line_of(sec, "radius") ? "radius" : "radius_min") ||
      !ms_ld_check_mass(ld, sec, areal, in->radius_max, hi_key))
    return 0;
  in->density = (float)areal;
  if (!region_to_frame(ld, sec, in->region))
    return 0;
  double d = 2.0 * in->radius_max;
  if (in->region[2] - in->region[0] < d || in->region[3] - in->region[1] < d)
    return ms_ld_fail_key(ld, sec, "region", "too small for a disc of radius %g: the particles "
                          "poured in must fit in it (%g x %g m)", (double)in->radius_max,
                          in->region[2] - in->region[0], in->region[3] - in->region[1]);
  if (in->kind == MS_INFLOW_LARGE && !(in->max_count > 0) && !isfinite(in->stop))
    return ms_ld_fail_key(ld, sec, "kind", "a large inflow needs max_count or stop: the large "
                          "particles' slots are made when the scene loads, one per particle "
                          "it can pour (docs/open-systems.md)");
  if (in->kind == MS_INFLOW_LARGE && ms_inflow_total(in) > MS_LARGE_INFLOW_MAX)
    return ms_ld_fail_key(ld, sec, in->max_count > 0 ? "max_count" : "stop",
                          "pours %ld large particles, more than %d: give a smaller max_count "
                          "or an earlier stop", ms_inflow_total(in), MS_LARGE_INFLOW_MAX);
  return 1;
}

long ms_inflow_due(const ms_inflow *in, double t)
{
  if (t < in->start)
    return 0;
  double until = t < in->stop ? t : in->stop;
  long due = (long)floor(in->rate * (until - in->start) + 1e-9);
  return in->max_count > 0 && due > in->max_count ? in->max_count : due;
}

long ms_inflow_total(const ms_inflow *in)
{
  if (isfinite(in->stop)) {
    double n = floor(in->rate * (in->stop - in->start) + 1e-9);
    if (in->max_count > 0 && n > (double)in->max_count)
      return in->max_count;
    return n > (double)MS_LARGE_INFLOW_MAX * 1024.0 ? LONG_MAX : (long)n;
  }
  return in->max_count > 0 ? in->max_count : -1;
}

int ms_ld_check_outflow(loader *ld, const section *sec)
{
  return region_to_frame(ld, sec, ld->scene->outflows[sec->item].region);
}
