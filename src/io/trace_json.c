/* Writes the --trace recorder as Chrome trace-event JSON: one "X" event per span with
 * ts/dur in microseconds since the recording began, one tid per track named by "M"
 * events, the iteration as an arg, and each sync point as a flow from the thread that
 * arrived last to the one that waited for it, plus an instant where the waiter left. */
#include "io/trace_json.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/trace_events.h"
#include "core/number.h"
#include "io/output_file.h"

static double us(double t) { return (t - ms_tev_origin()) * 1e6; }

static int track_named(const char *name)
{
  for (int i = 0; i < ms_tev_track_count(); i++)
    if (strcmp(ms_tev_track_name(i), name) == 0)
      return i;
  return -1;
}

static void write_tracks(FILE *f)
{
  fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
             "\"args\":{\"name\":\"mixsim\"}}");
  for (int i = 0; i < ms_tev_track_count(); i++) {
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
               "\"args\":{\"name\":\"%s\"}}", i + 1, ms_tev_track_name(i));
    fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
               "\"args\":{\"sort_index\":%d}}", i + 1, i);
  }
}

static void write_spans(FILE *f)
{
  const ms_tev *e = ms_tev_events();
  for (int i = 0; i < ms_tev_count(); i++) {
    if (!e[i].name)
      continue;
    fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
               "\"pid\":1,\"tid\":%d",
            e[i].name, e[i].device ? "device" : "host", us(e[i].t0),
            (e[i].t1 - e[i].t0) * 1e6, e[i].track + 1);
    if (e[i].iteration >= 0)
      fprintf(f, ",\"args\":{\"iteration\":%ld}", e[i].iteration);
    fputs("}", f);
  }
}

/* The wait for sync `which` ("wait sync1") of iteration `it` on `track`, or NULL. */
static const ms_tev *wait_of(int track, const char *which, long it)
{
  const ms_tev *e = ms_tev_events();
  for (int i = 0; i < ms_tev_count(); i++)
    if (e[i].track == track && e[i].iteration == it && e[i].name &&
        strcmp(e[i].name, which) == 0)
      return &e[i];
  return NULL;
}

/* Each sync point: a flow from the last to arrive (the shorter wait) to the waiter,
 * ending where the waiter's wait ends, and an instant there. Searched per wait of the
 * manager: quadratic, but the window bounds it. */
static void write_syncs(FILE *f)
{
  int gpu = track_named("GPU manager"), cpu = track_named("CPU worker");
  if (gpu < 0 || cpu < 0)
    return;
  const ms_tev *e = ms_tev_events();
  long id = 1;
  for (int i = 0; i < ms_tev_count(); i++) {
    if (e[i].track != gpu || !e[i].name || strncmp(e[i].name, "wait sync", 9) != 0)
      continue;
    const ms_tev *w = wait_of(cpu, e[i].name, e[i].iteration);
    if (!w)
      continue;
    const ms_tev *last = e[i].t0 >= w->t0 ? &e[i] : w, *waiter = last == w ? &e[i] : w;
    const char *sync = e[i].name + 5; /* "sync1" */
    fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"sync\",\"ph\":\"s\",\"id\":%ld,\"ts\":%.3f,"
               "\"pid\":1,\"tid\":%d,\"args\":{\"iteration\":%ld}}",
            sync, id, us(last->t0), last->track + 1, e[i].iteration);
    fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"sync\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%ld,"
               "\"ts\":%.3f,\"pid\":1,\"tid\":%d,\"args\":{\"iteration\":%ld}}",
            sync, id, us(waiter->t1), waiter->track + 1, e[i].iteration);
    fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"sync\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.3f,"
               "\"pid\":1,\"tid\":%d,\"args\":{\"iteration\":%ld}}",
            sync, us(waiter->t1), waiter->track + 1, e[i].iteration);
    id++;
  }
}

static void write_other(FILE *f)
{
  long first, last;
  ms_tev_window(&first, &last);
  fprintf(f, "\"otherData\":{\"iterations\":\"%ld:%ld\",\"dropped_events\":%ld,"
             "\"clamped_device_events\":%ld,\"clock\":\"host monotonic, us since the "
             "recording began\",\"calibration\":{",
          first, last, ms_tev_dropped(), ms_tev_clamped());
  int n = 0;
  for (int i = 0; i < ms_tev_track_count(); i++) {
    const ms_tev_calib *c = ms_tev_track_calib(i);
    if (!c->done)
      continue;
    fprintf(f, "%s\"%s\":{\"offset_s\":%.9f,\"uncertainty_us\":%.3f,\"spread_us\":%.3f,"
               "\"residual_us\":%.3f,\"tries\":%d}",
            n++ ? "," : "", ms_tev_track_name(i), c->offset_s, c->uncertainty_s * 1e6,
            c->spread_s * 1e6, c->residual_s * 1e6, c->tries);
  }
  fputs("}}", f);
}

static int write_all(FILE *f, void *ctx)
{
  (void)ctx;
  fputs("{\"displayTimeUnit\":\"ms\",\n", f);
  write_other(f);
  fputs(",\n\"traceEvents\":[\n", f);
  write_tracks(f);
  write_spans(f);
  write_syncs(f);
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}

ms_status ms_trace_json_write(const char *path)
{
  ms_tev_stop();
  ms_status st = ms_write_atomic(path, write_all, NULL);
  ms_tev_release();
  return st;
}

ms_status ms_trace_parse_window(const char *text, long *first, long *last)
{
  /* Two numbers by the one parser: digits only, no sign or blanks. */
  const char *end;
  long a = 0, b = 0;
  if (ms_number_digits(text, 0, LONG_MAX, &a, &end) == MS_NUMBER_OK && *end == ':' &&
      ms_number_digits(end + 1, 0, LONG_MAX, &b, &end) == MS_NUMBER_OK && !*end && b > a) {
    *first = a;
    *last = b;
    return MS_OK;
  }
  return ms_fail(MS_ERR_INPUT, "--trace-steps: expected A:B with 0 <= A < B (iterations A "
                               "to B-1), got '%s'", text);
}
