/* Names of the scene's enumerations, for messages, reports and the command line. */
#include "mixsim/scene.h"

#include <string.h>

const char *ms_pipeline_name(ms_pipeline p)
{
  switch (p) {
  case MS_PIPELINE_NAIVE: return "naive";
  case MS_PIPELINE_REORDERED: return "reordered";
  }
  return "unknown";
}

const char *ms_buffer_mode_name(ms_buffer_mode b)
{
  switch (b) {
  case MS_BUFFERS_SHARED: return "shared";
  case MS_BUFFERS_COPIED: return "copied";
  }
  return "unknown";
}

int ms_pipeline_parse(const char *s, ms_pipeline *out)
{
  if (strcmp(s, "naive") == 0)
    *out = MS_PIPELINE_NAIVE;
  else if (strcmp(s, "reordered") == 0)
    *out = MS_PIPELINE_REORDERED;
  else
    return 0;
  return 1;
}

int ms_buffer_mode_parse(const char *s, ms_buffer_mode *out)
{
  if (strcmp(s, "shared") == 0)
    *out = MS_BUFFERS_SHARED;
  else if (strcmp(s, "copied") == 0)
    *out = MS_BUFFERS_COPIED;
  else
    return 0;
  return 1;
}

const char *ms_exchange_name(ms_exchange e)
{
  switch (e) {
  case MS_EXCHANGE_ZONE: return "zone";
  case MS_EXCHANGE_FULL: return "full";
  }
  return "unknown";
}

int ms_exchange_parse(const char *s, ms_exchange *out)
{
  if (strcmp(s, "zone") == 0)
    *out = MS_EXCHANGE_ZONE;
  else if (strcmp(s, "full") == 0)
    *out = MS_EXCHANGE_FULL;
  else
    return 0;
  return 1;
}

const char *ms_large_on_name(ms_large_on l)
{
  switch (l) {
  case MS_LARGE_ON_CPU: return "cpu";
  case MS_LARGE_ON_DEVICE: return "device";
  }
  return "unknown";
}

int ms_large_on_parse(const char *s, ms_large_on *out)
{
  if (strcmp(s, "cpu") == 0)
    *out = MS_LARGE_ON_CPU;
  else if (strcmp(s, "device") == 0)
    *out = MS_LARGE_ON_DEVICE;
  else
    return 0;
  return 1;
}

int ms_worker_list_parse(const char *s, int *off)
{
  if (strcmp(s, "on") == 0)
    *off = 0;
  else if (strcmp(s, "off") == 0)
    *off = 1;
  else
    return 0;
  return 1;
}

const char *ms_bodies_name(ms_bodies b)
{
  switch (b) {
  case MS_BODIES_PLUMMER: return "plummer";
  case MS_BODIES_UNIFORM: return "uniform";
  case MS_BODIES_KEPLER: return "kepler";
  case MS_BODIES_DISK: return "disk";
  case MS_BODIES_FILE: return "file";
  }
  return "unknown";
}

const char *ms_integrator_name(ms_integrator i)
{
  return i == MS_INTEGRATOR_TAYLOR ? "taylor" : "leapfrog";
}

const char *ms_energy_mode_name(ms_energy_mode e)
{
  switch (e) {
  case MS_ENERGY_AUTO: return "auto";
  case MS_ENERGY_EXACT: return "exact";
  case MS_ENERGY_SAMPLED: return "sampled";
  case MS_ENERGY_OFF: return "off";
  }
  return "unknown";
}

int ms_integrator_parse(const char *s, ms_integrator *out)
{
  if (strcmp(s, "leapfrog") == 0)
    *out = MS_INTEGRATOR_LEAPFROG;
  else if (strcmp(s, "taylor") == 0)
    *out = MS_INTEGRATOR_TAYLOR;
  else
    return 0;
  return 1;
}
