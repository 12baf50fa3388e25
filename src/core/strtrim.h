/* Trimming white space in place, for the line-based readers (scene INI, body CSV). */
#ifndef MS_STRTRIM_H
#define MS_STRTRIM_H

#include <ctype.h>
#include <string.h>

/* Returns `s` without leading white space, with trailing white space cut off. */
static inline char *ms_trim(char *s)
{
  while (isspace((unsigned char)*s))
    s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1]))
    s[--n] = '\0';
  return s;
}

#endif
