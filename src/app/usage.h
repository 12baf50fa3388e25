/* The command line's help text. */
#ifndef MS_APP_USAGE_H
#define MS_APP_USAGE_H

#include <stdio.h>

void ms_app_usage(FILE *out);

#endif
