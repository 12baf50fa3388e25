/* The single place where error messages are formatted and kept. */
#include "mixsim/status.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_message[2048];
static int g_has_message;
static int g_quiet;

ms_status ms_fail(ms_status status, const char *fmt, ...)
{
  pthread_mutex_lock(&g_lock);
  if (!g_has_message) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    g_has_message = 1;
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

const char *ms_error_message(void)
{
  return g_has_message ? g_message : "unknown error";
}

void ms_error_clear(void)
{
  pthread_mutex_lock(&g_lock);
  g_has_message = 0;
  g_message[0] = '\0';
  pthread_mutex_unlock(&g_lock);
}

void ms_set_quiet(int quiet) { g_quiet = quiet; }

void ms_warn(const char *fmt, ...)
{
  if (g_quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("mixsim: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
