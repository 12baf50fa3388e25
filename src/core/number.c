/* Numbers from text, shared by the command line and the scene loader (see number.h). */
#include "core/number.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The one rule for a number written out, on the command line or in a scene: the text is
 * the number alone, with no blanks around it (strtol and strtod would skip leading ones,
 * trailing ones are text after it) and no '+' sign (a count or an index has none, so
 * neither has any other number). */
static int starts_number(const char *text)
{
  return *text && !isspace((unsigned char)*text) && *text != '+';
}

ms_number_error ms_number_long(const char *text, long lo, long hi, long *out)
{
  if (!starts_number(text))
    return MS_NUMBER_SYNTAX;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end)
    return MS_NUMBER_SYNTAX;
  if (errno == ERANGE || v < lo || v > hi)
    return MS_NUMBER_RANGE;
  *out = v;
  return MS_NUMBER_OK;
}

ms_number_error ms_number_u64(const char *text, uint64_t *out)
{
  /* strtoull would quietly wrap "-1" around, hence the digit check. */
  if (!isdigit((unsigned char)*text))
    return MS_NUMBER_SYNTAX;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end)
    return MS_NUMBER_SYNTAX;
  if (errno == ERANGE)
    return MS_NUMBER_RANGE;
  *out = (uint64_t)v;
  return MS_NUMBER_OK;
}

ms_number_error ms_number_double(const char *text, double *out)
{
  if (!starts_number(text))
    return MS_NUMBER_SYNTAX;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end)
    return MS_NUMBER_SYNTAX;
  if (isinf(v) && errno == ERANGE)
    return MS_NUMBER_RANGE;
  if (!isfinite(v))
    return MS_NUMBER_NOT_FINITE;
  *out = v;
  return MS_NUMBER_OK;
}

ms_number_error ms_number_float(double v, float *out)
{
  float f = (float)v;
  if (!isfinite(v) || !(fabsf(f) <= FLT_MAX))
    return MS_NUMBER_RANGE;
  if (v != 0.0 && !(fabsf(f) >= FLT_MIN))
    return MS_NUMBER_NOT_NORMAL;
  *out = f;
  return MS_NUMBER_OK;
}

ms_number_error ms_number_digits(const char *text, long lo, long hi, long *out,
                                 const char **end)
{
  const char *p = text;
  long v = 0;
  int too_big = 0;
  for (; isdigit((unsigned char)*p); p++) {
    int d = *p - '0';
    if (v > (LONG_MAX - d) / 10)
      too_big = 1; /* keep scanning, so *end is right */
    else
      v = v * 10 + d;
  }
  *end = p;
  if (p == text)
    return MS_NUMBER_SYNTAX;
  if (too_big || v < lo || v > hi)
    return MS_NUMBER_RANGE;
  *out = v;
  return MS_NUMBER_OK;
}

const char *ms_number_explain(ms_number_error err, const char *text, long lo, long hi, char *buf,
                              size_t size)
{
  char range[64];
  if (hi == LONG_MAX)
    snprintf(range, sizeof range, ">= %ld", lo);
  else
    snprintf(range, sizeof range, "between %ld and %ld", lo, hi);
  if (err != MS_NUMBER_RANGE)
    snprintf(buf, size, "expected an integer %s, got '%s'", range, text);
  else
    snprintf(buf, size, "must be %s (got %s)", range, text);
  return buf;
}

long ms_number_lcm(long a, long b)
{
  long x = a, y = b;
  while (y) {
    long t = x % y;
    x = y;
    y = t;
  }
  return a / x * b;
}

ms_status ms_number_env(const char *name, long lo, long hi, long *out)
{
  const char *env = getenv(name);
  char why[256];
  if (!env || !*env)
    return MS_OK;
  ms_number_error err = ms_number_long(env, lo, hi, out);
  if (err != MS_NUMBER_OK)
    return ms_fail(MS_ERR_INPUT, "%s: %s", name,
                   ms_number_explain(err, env, lo, hi, why, sizeof why));
  return MS_OK;
}
