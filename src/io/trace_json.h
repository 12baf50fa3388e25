/* --trace FILE.json: the recorder's events (cl/trace_events.h) in the Chrome
 * trace-event format that ui.perfetto.dev and chrome://tracing open (docs/trace.md). */
#ifndef MS_TRACE_JSON_H
#define MS_TRACE_JSON_H

#include "mixsim/status.h"

/* Stops the recorder (mapping the device events) and writes its events to `path`
 * atomically (io/output_file.h). Safe to call when nothing was recorded. */
ms_status ms_trace_json_write(const char *path);

/* The iterations kept when --trace-steps is not given: 0 to 199. */
#define MS_TRACE_DEFAULT_STEPS 200

/* Parses "A:B" (0 <= A < B) for --trace-steps; MS_ERR_INPUT naming the option
 * otherwise. */
ms_status ms_trace_parse_window(const char *text, long *first, long *last);

#endif
