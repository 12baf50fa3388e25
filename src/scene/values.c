/* Scene loader, values: numbers, integers, vectors, regions, booleans and choices,
 * each refused with the key's line when it is not what the key needs. */
#include "scene/loader.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/number.h"
#include "core/strtrim.h"

/* One whole number: no trailing text, no NaN/Inf. */
int ms_ld_parse_number(loader *ld, const char *text, double *out)
{
  switch (ms_number_double(text, out)) {
  case MS_NUMBER_OK: return 1;
  case MS_NUMBER_RANGE: return ms_ld_bad_value(ld, "number out of range: '%s'", text);
  case MS_NUMBER_NOT_FINITE: return ms_ld_bad_value(ld, "NaN/Inf not allowed (got '%s')", text);
  case MS_NUMBER_SYNTAX:
  case MS_NUMBER_NOT_NORMAL: break; /* (not from ms_number_double) */
  }
  char *end;
  strtod(text, &end);
  if (*text == '+')
    return ms_ld_bad_value(ld, "expected a number without a '+' sign, got '%s'", text);
  if (end == text || isspace((unsigned char)*text))
    return ms_ld_bad_value(ld, "expected a number, got '%s'", text);
  return ms_ld_bad_value(ld, "expected a number, got '%s' (trailing '%s')", text, end);
}

/* Every key whose value the simulation keeps as a float goes through here: one that is
 * not 0 must stay a normal float (0 or a denormal would silently switch off or weaken
 * what it sets: a friction of 1e-300 is 0 there, one of 1e-40 a denormal). */
int ms_ld_float(loader *ld, double v, float *out)
{
  switch (ms_number_float(v, out)) {
  case MS_NUMBER_OK: return 1;
  case MS_NUMBER_NOT_NORMAL:
    return ms_ld_bad_value(ld, "%g is too small for single precision, which the simulation "
                               "computes in (it would be %g; the smallest normal float is %g)",
                           v, (double)(float)v, (double)FLT_MIN);
  default: return ms_ld_bad_value(ld, "%g does not fit in a float", v);
  }
}

static int positive(loader *ld, double v)
{
  return v > 0.0 ? 1 : ms_ld_bad_value(ld, "must be > 0 (got %g)", v);
}

int ms_ld_at_least(loader *ld, double v, double lo)
{
  return v >= lo ? 1 : ms_ld_bad_value(ld, "must be >= %g (got %g)", lo, v);
}

int ms_ld_read_positive(loader *ld, const char *text, double *out)
{
  return ms_ld_parse_number(ld, text, out) && positive(ld, *out);
}

/* A radius, a stiffness...: > 0 and a normal float. */
int ms_ld_positive_float(loader *ld, double v, float *out)
{
  return positive(ld, v) && ms_ld_float(ld, v, out);
}

int ms_ld_read_positive_float(loader *ld, const char *text, float *out)
{
  double v = 0.0;
  return ms_ld_parse_number(ld, text, &v) && ms_ld_positive_float(ld, v, out);
}

int ms_ld_read_long(loader *ld, const char *text, long lo, long hi, long *out)
{
  char why[256];
  ms_number_error err = ms_number_long(text, lo, hi, out);
  return err == MS_NUMBER_OK ||
         ms_ld_bad_value(ld, "%s", ms_number_explain(err, text, lo, hi, why, sizeof why));
}

int ms_ld_read_int(loader *ld, const char *text, int lo, int hi, int *out)
{
  long v = 0;
  if (!ms_ld_read_long(ld, text, lo, hi, &v))
    return 0;
  *out = (int)v;
  return 1;
}

int ms_ld_read_seed(loader *ld, const char *text, uint64_t *out)
{
  switch (ms_number_u64(text, out)) {
  case MS_NUMBER_OK: return 1;
  case MS_NUMBER_RANGE:
    return ms_ld_bad_value(ld, "does not fit in an unsigned 64-bit integer (got %s)", text);
  default: return ms_ld_bad_value(ld, "expected an unsigned 64-bit integer, got '%s'", text);
  }
}

/* Exactly n comma-separated finite numbers; rounded to float when `as_float` (values the
 * simulation keeps as floats, so comparisons agree with them), kept in double otherwise
 * (positions, velocities and regions: the state is double). */
static int read_vector(loader *ld, const char *text, int n, int as_float, double *out)
{
  char buf[512];
  if (strlen(text) >= sizeof buf)
    return ms_ld_bad_value(ld, "value too long");
  strcpy(buf, text);
  int parts = 1;
  for (const char *p = buf; *p; p++)
    parts += *p == ',';
  if (parts != n)
    return ms_ld_bad_value(ld, "expected %d comma-separated numbers, got %d ('%s')", n, parts, text);
  char *p = buf;
  for (int i = 0; i < n; i++) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    float f = 0.0f;
    if (!ms_ld_parse_number(ld, ms_trim(p), &out[i]) || (as_float && !ms_ld_float(ld, out[i], &f)))
      return 0;
    if (as_float)
      out[i] = f;
    if (comma)
      p = comma + 1;
  }
  return 1;
}

int ms_ld_read_numbers(loader *ld, const char *text, int n, double *out)
{
  return read_vector(ld, text, n, 0, out);
}

int ms_ld_read_list(loader *ld, const char *text, double **out, int *count)
{
  int n = 1;
  for (const char *p = text; *p; p++)
    n += *p == ',';
  *out = malloc((size_t)n * sizeof **out);
  if (!*out)
    return ms_ld_fail_memory(ld);
  *count = n;
  return read_vector(ld, text, n, 0, *out);
}

int ms_ld_read_vec2f(loader *ld, const char *text, float out[2])
{
  double v[2] = {0.0, 0.0};
  if (!read_vector(ld, text, 2, 1, v))
    return 0;
  out[0] = (float)v[0];
  out[1] = (float)v[1];
  return 1;
}

int ms_ld_read_vec2(loader *ld, const char *text, double out[2])
{
  return read_vector(ld, text, 2, 0, out);
}

int ms_ld_read_region(loader *ld, const char *text, double out[4])
{
  if (!read_vector(ld, text, 4, 0, out))
    return 0;
  if (!(out[2] > out[0] && out[3] > out[1]))
    return ms_ld_bad_value(ld, "needs x1 > x0 and y1 > y0 (got '%s')", text);
  return 1;
}

int ms_ld_read_bool(loader *ld, const char *text, int *out)
{
  static const char *const yes[] = {"true", "yes", "1"}, *const no[] = {"false", "no", "0"};
  for (int i = 0; i < 3; i++) {
    if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
      *out = strcasecmp(text, yes[i]) == 0;
      return 1;
    }
  }
  return ms_ld_bad_value(ld, "expected true/false/yes/no/1/0, got '%s'", text);
}

int ms_ld_read_spread(loader *ld, const char *v, double *out)
{
  return ms_ld_parse_number(ld, v, out) && ms_ld_at_least(ld, *out, 0.0);
}

int ms_ld_read_choice(loader *ld, const char *v, const char *const *names, int n, int *out)
{
  char list[200] = "";
  for (int i = 0; i < n; i++) {
    if (ms_ld_is(v, names[i])) {
      *out = i;
      return 1;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " | " : "", names[i]);
  }
  return ms_ld_bad_value(ld, "expected %s, got '%s'", list, v);
}

/* `density = 6.5`, `6.5 kg/m^2` (areal: the discs' mass per area) or `2500 kg/m^3`
 * (bulk: needs `thickness`, checked with the section's other keys). */
int ms_ld_read_density(loader *ld, const char *text, section *sec)
{
  char number[128], unit[128];
  char *end = NULL;
  strtod(text, &end); /* the unit follows the number, with or without a space */
  sec->density_unit = DENSITY_BARE;
  if (end == text || !*end || strlen(text) >= sizeof number) /* the number's own errors */
    return ms_ld_read_positive(ld, text, &sec->density);
  snprintf(number, sizeof number, "%.*s", (int)(end - text), text);
  snprintf(unit, sizeof unit, "%s", end);
  const char *u = ms_trim(unit);
  static const char *const areal[] = {"kg/m^2", "kg/m2", "kg/m\xC2\xB2"};
  static const char *const bulk[] = {"kg/m^3", "kg/m3", "kg/m\xC2\xB3"};
  for (int i = 0; i < 3; i++) {
    if (strcmp(u, areal[i]) == 0)
      sec->density_unit = DENSITY_AREAL;
    if (strcmp(u, bulk[i]) == 0)
      sec->density_unit = DENSITY_BULK;
  }
  if (sec->density_unit == DENSITY_BARE)
    return ms_ld_bad_value(ld, "unknown unit '%s' in '%s' (expected kg/m^2, areal, or kg/m^3, "
                               "bulk, with thickness; a bare number is kg/m^2)", u, text);
  return ms_ld_read_positive(ld, number, &sec->density);
}
