/* The single place where error messages are formatted and kept. */
#include "mixsim/status.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_message[2048];
static int g_has_message;
static int g_quiet;

/* Each thread's own first message, so that when two threads fail at once the caller
 * can choose between them by a rule rather than by which one got here first. */
static _Thread_local char t_message[2048];
static _Thread_local int t_has_message;

ms_status ms_fail(ms_status status, const char *fmt, ...)
{
  char text[sizeof g_message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (!t_has_message) {
    snprintf(t_message, sizeof t_message, "%s", text);
    t_has_message = 1;
  }
  pthread_mutex_lock(&g_lock);
  if (!g_has_message) {
    snprintf(g_message, sizeof g_message, "%s", text);
    g_has_message = 1;
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

const char *ms_error_thread_message(void) { return t_has_message ? t_message : NULL; }

void ms_error_thread_clear(void)
{
  t_has_message = 0;
  t_message[0] = '\0';
}

void ms_error_replace(const char *text)
{
  pthread_mutex_lock(&g_lock);
  snprintf(g_message, sizeof g_message, "%s", text);
  g_has_message = 1;
  pthread_mutex_unlock(&g_lock);
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
