/* OpenCL runtime: device discovery and choice, context and queues, program build,
 * and error names. Every cl* call in mixsim goes through MS_CL_TRY or ms_cl_check. */
#ifndef MS_CL_RUNTIME_H
#define MS_CL_RUNTIME_H

#include <CL/cl.h>
#include <stdio.h>

#include "mixsim/status.h"

typedef struct ms_cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue gpu_queue; /* the GPU manager's */
  cl_command_queue cpu_queue; /* the CPU worker's maps and copies */
  cl_command_queue zone_queue; /* the same worker's, for the contact zone */
  int profiled; /* the manager's and the zone's queues time their commands (ms_cl_open) */
  cl_device_type device_type;
  cl_ulong max_alloc;
  char device_name[256];
  char platform_name[256];
  char driver_version[128]; /* CL_DRIVER_VERSION: benchmarks report it with the device */
  char spec[32]; /* "P:D" */
} ms_cl;

const char *ms_cl_error_string(cl_int err);

/* Returns MS_OK, or records "call failed: CL_ERROR_NAME (detail)" and returns MS_ERR_RUNTIME. */
ms_status ms_cl_check(cl_int err, const char *call, const char *detail);

#define MS_CL_TRY(call_expr, name)                                                   \
  do {                                                                               \
    cl_int ms_e_ = (call_expr);                                                      \
    if (ms_e_ != CL_SUCCESS)                                                         \
      return ms_cl_check(ms_e_, name, NULL);                                         \
  } while (0)

/* "P:D" at the start of `text`: platform and device indices, each 0..MS_CL_MAX_INDEX,
 * digits only (no sign, no wrap-around); *end points after D. Returns 1 when the
 * syntax is right, then *in_range says whether both indices are. */
#define MS_CL_MAX_INDEX 63 /* devices are listed up to 64 per platform */
int ms_cl_parse_pd(const char *text, unsigned *p, unsigned *d, int *in_range, const char **end);

/* Prints every platform and device as "P:D  type  name  [platform]". */
ms_status ms_cl_list_devices(FILE *out);

/* Whether the queues time their commands: on a CPU device and off on a GPU unless said. */
typedef enum ms_cl_profile { MS_CL_PROFILE_AUTO, MS_CL_PROFILE_ON, MS_CL_PROFILE_OFF } ms_cl_profile;

/* Opens the device named by `spec` ("gpu", "cpu", "P:D"; NULL or "" picks the first
 * GPU, else the first CPU device) and creates the context and the queues, profiled as
 * `profile` says (and always while --trace records). */
ms_status ms_cl_open(const char *spec, ms_cl_profile profile, ms_cl *cl);

/* MS_ERR_RUNTIME naming the device unless it computes in double precision
 * (cl_khr_fp64, or OpenCL 1.2's double FP config), which collision mode needs. */
ms_status ms_cl_require_fp64(const ms_cl *cl);
void ms_cl_close(ms_cl *cl);

/* A read-write buffer of `bytes` (at least 64: never of none) into *out; the call's error,
 * naming `what`, otherwise. */
ms_status ms_cl_buffer(const ms_cl *cl, size_t bytes, const char *what, cl_mem *out);
/* Releases *m where there is one, and clears it. */
void ms_cl_release_buffer(cl_mem *m);

/* Kernel time (s) of a finished event, from the profiling counters. */
double ms_cl_event_seconds(cl_event ev);

/* A device found by spec, before anything is opened on it (gravity mode opens its own
 * contexts, one per device, and builds its own program). */
typedef struct ms_cl_device {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  char name[256];
  char platform_name[256];
  char spec[32]; /* "P:D" */
} ms_cl_device;

/* Finds the device `spec` names, with the rules and messages of ms_cl_open. */
ms_status ms_cl_find_device(const char *spec, ms_cl_device *out);

/* Every device of every platform, in P:D order; free(*out) when done. */
ms_status ms_cl_all_devices(ms_cl_device **out, int *count);

/* "gpu", "cpu", "accelerator" or "other". */
const char *ms_cl_type_name(cl_device_type type);

/* Builds `source` for one device. On failure the message carries the options and the
 * build log; *out is set either way (release it). */
ms_status ms_cl_build(cl_context context, cl_device_id device, const char *source,
                      const char *options, cl_program *out);

#endif
