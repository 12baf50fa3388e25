/* Numbers from text, one parser for the command line and the scene loader: the whole
 * text must be the number (no blanks around it, no '+' sign, no trailing text), integers are
 * range-checked without wrapping around, reals must be finite. The same words explain
 * a refusal everywhere ("must be between 1 and 4096 (got 0)"). Also the least common
 * multiple of two counts. */
#ifndef MS_NUMBER_H
#define MS_NUMBER_H

#include <stddef.h>
#include <stdint.h>

#include "mixsim/status.h"

typedef enum ms_number_error {
  MS_NUMBER_OK = 0,
  MS_NUMBER_SYNTAX,    /* not a number, or text after it */
  MS_NUMBER_RANGE,     /* an integer outside [lo, hi], or too large to represent */
  MS_NUMBER_NOT_FINITE, /* NaN or Inf written out */
  MS_NUMBER_NOT_NORMAL  /* a value other than 0 that is 0 or denormal as a float */
} ms_number_error;

/* A decimal integer in [lo, hi] ("-3"; not "+5" nor " 5"). */
ms_number_error ms_number_long(const char *text, long lo, long hi, long *out);

/* An unsigned decimal integer of at most 64 bits; no sign. */
ms_number_error ms_number_u64(const char *text, uint64_t *out);

/* A finite real number as strtod reads it, but without a leading '+' or blanks;
 * MS_NUMBER_RANGE when it overflows a double. */
ms_number_error ms_number_double(const char *text, double *out);

/* `v` as the float the simulation computes with: MS_NUMBER_RANGE when it does not fit,
 * MS_NUMBER_NOT_NORMAL when a value other than 0 becomes 0 or a denormal there (which
 * would silently switch off or weaken what it sets). The one rule for every value that
 * ends up a float. */
ms_number_error ms_number_float(double v, float *out);

/* The digits at the start of `text` as an integer in [lo, hi], for compound values
 * such as "P:D/K"; *end points after them. At least one digit, no sign. */
ms_number_error ms_number_digits(const char *text, long lo, long hi, long *out,
                                 const char **end);

/* Explains a refusal of ms_number_long/ms_number_digits for `text`: "expected an
 * integer between LO and HI, got 'x'" or "must be between LO and HI (got x)" (">= LO"
 * when hi is LONG_MAX). Returns buf. */
const char *ms_number_explain(ms_number_error err, const char *text, long lo, long hi, char *buf,
                              size_t size);

/* The environment variable `name` as a whole number in [lo, hi] into *out; *out is left as
 * it is when `name` is unset or empty. Anything else is refused naming the variable
 * (MS_ERR_INPUT), never ignored. */
ms_status ms_number_env(const char *name, long lo, long hi, long *out);

/* The least common multiple of two positive counts: the granule and padding that suit
 * every device (gravity/split.c) and every rank (gravity/ranks.c). */
long ms_number_lcm(long a, long b);

#endif
