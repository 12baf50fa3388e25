/* What the preview window refuses before it opens: automatic choices, which only the run
 * loop times (app/run.c). */
#include "app/window_auto.h"

/* The window runs until the user quits, with no first iterations to time and keys
 * that switch the buffers live: it refuses auto rather than pick something silently. */
ms_status ms_app_refuse_auto_in_window(const ms_scene *sc)
{
  const char *opt = sc->buffers_auto ? "buffers" : sc->exchange_auto ? "exchange" : "large-on";
  const char *key = sc->buffers_auto ? "buffers" : sc->exchange_auto ? "exchange" : "large_on";
  int line = sc->buffers_auto ? sc->buffers_auto
             : sc->exchange_auto ? sc->exchange_auto : sc->large_on_auto;
  const char *values = sc->buffers_auto ? "shared or copied"
                       : sc->exchange_auto ? "zone or full" : "cpu or device";
  if (line < 0)
    return ms_fail(MS_ERR_INPUT, "--%s auto: the window does not time the choices; give %s, "
                   "or run with --headless", opt, values);
  return ms_fail(MS_ERR_INPUT, "%s:%d: [simulation] %s = auto: the window does not time the "
                 "choices; give --%s %s, or run with --headless", sc->path, line, key, opt,
                 values);
}

