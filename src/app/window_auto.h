/* What the preview window refuses before it opens. */
#ifndef MS_APP_WINDOW_AUTO_H
#define MS_APP_WINDOW_AUTO_H

#include "mixsim/scene.h"
#include "mixsim/status.h"

/* A scene or option with `auto` (buffers, exchange, large_on): the window has no first
 * iterations to time, so it refuses, naming the option or the scene's line. */
ms_status ms_app_refuse_auto_in_window(const ms_scene *sc);

#endif
