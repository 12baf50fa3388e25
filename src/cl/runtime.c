/* OpenCL runtime: devices, context, queues, program build and error reporting. */
#include "cl/runtime.h"
#include "cl/trace_events.h"

#include <stdlib.h>
#include <string.h>

#include "core/number.h"

const char *ms_cl_error_string(cl_int err)
{
  switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY) E(CL_PROFILING_INFO_NOT_AVAILABLE)
    E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) E(CL_COMPILE_PROGRAM_FAILURE)
    E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE)
    E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX)
    E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT)
    E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
  default: return "unknown OpenCL error";
  }
}

ms_status ms_cl_check(cl_int err, const char *call, const char *detail)
{
  if (err == CL_SUCCESS)
    return MS_OK;
  return ms_fail(MS_ERR_RUNTIME, "%s failed: %s (%d)%s%s", call, ms_cl_error_string(err),
                 (int)err, detail ? ": " : "", detail ? detail : "");
}

static const char *type_name(cl_device_type t)
{
  if (t & CL_DEVICE_TYPE_GPU)
    return "gpu";
  if (t & CL_DEVICE_TYPE_CPU)
    return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  return "other";
}

/* Platforms, or MS_ERR_NO_PLATFORM with a hint on what to install. */
static ms_status get_platforms(cl_platform_id **out, cl_uint *n)
{
  cl_int err = clGetPlatformIDs(0, NULL, n);
  if (err == -1001 || (err == CL_SUCCESS && *n == 0))
    return ms_fail(MS_ERR_NO_PLATFORM,
                   "no OpenCL platform found: install an OpenCL driver, for example "
                   "'apt-get install pocl-opencl-icd' for the CPU");
  MS_CL_TRY(err, "clGetPlatformIDs");
  *out = calloc(*n, sizeof **out);
  if (!*out)
    return ms_fail(MS_ERR_RUNTIME, "out of memory listing platforms");
  err = clGetPlatformIDs(*n, *out, NULL);
  if (err != CL_SUCCESS) {
    free(*out);
    return ms_cl_check(err, "clGetPlatformIDs", NULL);
  }
  return MS_OK;
}

static cl_uint get_devices(cl_platform_id p, cl_device_id *devs, cl_uint max)
{
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, max, devs, &n) != CL_SUCCESS)
    return 0;
  return n < max ? n : max;
}

ms_status ms_cl_list_devices(FILE *out)
{
  cl_platform_id *plats;
  cl_uint np;
  ms_status st = get_platforms(&plats, &np);
  if (st)
    return st;
  for (cl_uint p = 0; p < np; p++) {
    char pname[256] = "";
    clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    cl_device_id devs[64];
    cl_uint nd = get_devices(plats[p], devs, 64);
    for (cl_uint d = 0; d < nd; d++) {
      char dname[256] = "";
      cl_device_type t = 0;
      cl_uint units = 0;
      clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
      clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
      clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
      fprintf(out, "%u:%u  %-4s %s (%u compute units)  [%s]\n", p, d, type_name(t), dname,
              units, pname);
    }
  }
  free(plats);
  return MS_OK;
}

int ms_cl_parse_pd(const char *text, unsigned *p, unsigned *d, int *in_range, const char **end)
{
  long lp = 0, ld = 0;
  const char *q;
  ms_number_error ep = ms_number_digits(text, 0, MS_CL_MAX_INDEX, &lp, &q);
  if (ep == MS_NUMBER_SYNTAX || *q != ':')
    return 0;
  ms_number_error ed = ms_number_digits(q + 1, 0, MS_CL_MAX_INDEX, &ld, end);
  if (ed == MS_NUMBER_SYNTAX)
    return 0;
  *in_range = ep == MS_NUMBER_OK && ed == MS_NUMBER_OK;
  *p = (unsigned)lp;
  *d = (unsigned)ld;
  return 1;
}

/* Finds the device `spec` names. want_type 0 means "by index". */
static ms_status choose_device(const char *spec, ms_cl *cl)
{
  cl_platform_id *plats;
  cl_uint np;
  ms_status st = get_platforms(&plats, &np);
  if (st)
    return st;
  unsigned want_p = 0, want_d = 0;
  cl_device_type want = 0;
  int by_index = 0, in_range = 0;
  const char *tail;
  if (!spec || !*spec)
    want = 0;
  else if (!strcmp(spec, "gpu"))
    want = CL_DEVICE_TYPE_GPU;
  else if (!strcmp(spec, "cpu"))
    want = CL_DEVICE_TYPE_CPU;
  else if (ms_cl_parse_pd(spec, &want_p, &want_d, &in_range, &tail) && !*tail) {
    by_index = 1;
    if (!in_range) {
      free(plats);
      return ms_fail(MS_ERR_INPUT, "--device %s: P and D must be between 0 and %d (see "
                                   "--list-devices)", spec, MS_CL_MAX_INDEX);
    }
  } else {
    free(plats);
    return ms_fail(MS_ERR_INPUT, "--device: expected gpu, cpu or P:D (see --list-devices), got '%s'",
                   spec);
  }
  /* Default: first GPU, else first CPU, else anything. */
  cl_device_type order[3] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL};
  int passes = want ? 1 : 3;
  if (want)
    order[0] = want;
  for (int pass = 0; pass < (by_index ? 1 : passes); pass++) {
    for (cl_uint p = 0; p < np; p++) {
      cl_device_id devs[64];
      cl_uint nd = get_devices(plats[p], devs, 64);
      for (cl_uint d = 0; d < nd; d++) {
        cl_device_type t = 0;
        clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        int match = by_index ? (p == want_p && d == want_d) : ((t & order[pass]) != 0);
        if (match) {
          cl->platform = plats[p];
          cl->device = devs[d];
          cl->device_type = t;
          snprintf(cl->spec, sizeof cl->spec, "%u:%u", p, d);
          free(plats);
          return MS_OK;
        }
      }
    }
  }
  free(plats);
  if (by_index)
    return ms_fail(MS_ERR_INPUT, "--device %s: no such device (see --list-devices)", spec);
  return ms_fail(MS_ERR_NO_PLATFORM, "no OpenCL %s device found (see --list-devices)",
                 want == CL_DEVICE_TYPE_GPU ? "GPU" : want == CL_DEVICE_TYPE_CPU ? "CPU" : "");
}

ms_status ms_cl_open(const char *spec, ms_cl_profile profile, ms_cl *cl)
{
  memset(cl, 0, sizeof *cl);
  ms_status st = choose_device(spec, cl);
  if (st)
    return st;
  clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof cl->device_name, cl->device_name, NULL);
  clGetPlatformInfo(cl->platform, CL_PLATFORM_NAME, sizeof cl->platform_name, cl->platform_name,
                    NULL);
  clGetDeviceInfo(cl->device, CL_DRIVER_VERSION, sizeof cl->driver_version, cl->driver_version,
                  NULL);
  MS_CL_TRY(clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof cl->max_alloc,
                            &cl->max_alloc, NULL),
            "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)cl->platform, 0};
  cl->context = clCreateContext(props, 1, &cl->device, NULL, NULL, &err);
  MS_CL_TRY(err, "clCreateContext");
  /* Profiling costs NVIDIA's runtime time on every command: on an H200, 1M small + 1000
   * large discs ran 0.35 ms/iteration unprofiled against 0.47 profiled, 262K + 1000 0.22
   * against 0.36 (docs/scaling.md). So a GPU times its kernels only when asked; pocl's
   * costs no measurable time and keeps the report's kernel table. */
  cl->profiled = profile == MS_CL_PROFILE_ON || ms_tev_on ||
                 (profile == MS_CL_PROFILE_AUTO && !(cl->device_type & CL_DEVICE_TYPE_GPU));
  cl_command_queue_properties timed = cl->profiled ? CL_QUEUE_PROFILING_ENABLE : 0;
  cl->gpu_queue = clCreateCommandQueue(cl->context, cl->device, timed, &err);
  MS_CL_TRY(err, "clCreateCommandQueue(manager)");
  /* Profiled only while --trace records (it starts before the device is opened), so the
   * worker's maps, reads, writes and unmaps appear on "queue: worker": on NVIDIA's runtime
   * profiling makes each map and unmap of the full exchange tens of microseconds slower
   * (0.05 -> 0.08 ms and 0.02 -> 0.05 ms per iteration of scenes/mixed.ini on an H200). */
  cl->cpu_queue = clCreateCommandQueue(cl->context, cl->device,
                                       ms_tev_on ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  MS_CL_TRY(err, "clCreateCommandQueue(worker)");
  /* The worker's queue when it exchanges through the contact zone: profiled with the
   * manager's, so the zone kernels (collision/exchange/zone.h) report their times. */
  cl->zone_queue = clCreateCommandQueue(cl->context, cl->device, timed, &err);
  MS_CL_TRY(err, "clCreateCommandQueue(worker, zone)");
  return MS_OK;
}

ms_status ms_cl_buffer(const ms_cl *cl, size_t bytes, const char *what, cl_mem *out)
{
  cl_int err;
  *out = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes < 64 ? 64 : bytes, NULL, &err);
  return ms_cl_check(err, "clCreateBuffer", what);
}

void ms_cl_release_buffer(cl_mem *m)
{
  if (*m)
    clReleaseMemObject(*m);
  *m = NULL;
}

void ms_cl_close(ms_cl *cl)
{
  if (cl->zone_queue)
    clReleaseCommandQueue(cl->zone_queue);
  if (cl->cpu_queue)
    clReleaseCommandQueue(cl->cpu_queue);
  if (cl->gpu_queue)
    clReleaseCommandQueue(cl->gpu_queue);
  if (cl->context)
    clReleaseContext(cl->context);
  memset(cl, 0, sizeof *cl);
}

double ms_cl_event_seconds(cl_event ev)
{
  cl_ulong t0 = 0, t1 = 0;
  if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
    return 0.0;
  return t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0.0;
}

static void describe_device(ms_cl_device *d)
{
  clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
  clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
  clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof d->platform_name, d->platform_name,
                    NULL);
}

ms_status ms_cl_find_device(const char *spec, ms_cl_device *out)
{
  ms_cl cl;
  memset(&cl, 0, sizeof cl);
  memset(out, 0, sizeof *out);
  ms_status st = choose_device(spec, &cl);
  if (st)
    return st;
  out->platform = cl.platform;
  out->device = cl.device;
  snprintf(out->spec, sizeof out->spec, "%s", cl.spec);
  describe_device(out);
  return MS_OK;
}

ms_status ms_cl_all_devices(ms_cl_device **out, int *count)
{
  cl_platform_id *plats;
  cl_uint np;
  ms_status st = get_platforms(&plats, &np);
  if (st)
    return st;
  ms_cl_device *all = NULL;
  int n = 0;
  for (cl_uint p = 0; p < np; p++) {
    cl_device_id devs[64];
    cl_uint nd = get_devices(plats[p], devs, 64);
    ms_cl_device *grown = nd ? realloc(all, (size_t)(n + (int)nd) * sizeof *all) : all;
    if (!grown) {
      free(all);
      free(plats);
      return ms_fail(MS_ERR_RUNTIME, "out of memory listing devices");
    }
    all = grown;
    for (cl_uint d = 0; d < nd; d++, n++) {
      memset(&all[n], 0, sizeof all[n]);
      all[n].platform = plats[p];
      all[n].device = devs[d];
      snprintf(all[n].spec, sizeof all[n].spec, "%u:%u", p, d);
      describe_device(&all[n]);
    }
  }
  free(plats);
  if (n == 0) {
    free(all);
    return ms_fail(MS_ERR_NO_PLATFORM, "no OpenCL device found (see --list-devices)");
  }
  *out = all;
  *count = n;
  return MS_OK;
}

const char *ms_cl_type_name(cl_device_type type) { return type_name(type); }

ms_status ms_cl_build(cl_context context, cl_device_id device, const char *source,
                      const char *options, cl_program *out)
{
  cl_int err;
  *out = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  MS_CL_TRY(err, "clCreateProgramWithSource");
  err = clBuildProgram(*out, 1, &device, options, NULL, NULL);
  if (err == CL_SUCCESS)
    return MS_OK;
  size_t len = 0;
  clGetProgramBuildInfo(*out, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
  char *log = malloc(len + 1);
  if (log) {
    if (clGetProgramBuildInfo(*out, device, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS)
      len = 0;
    log[len] = '\0';
  }
  ms_status st = ms_fail(MS_ERR_RUNTIME, "clBuildProgram failed: %s (%d), options '%s'; build log:\n%s",
                         ms_cl_error_string(err), (int)err, options, log ? log : "(none)");
  free(log);
  return st;
}

ms_status ms_cl_require_fp64(const ms_cl *cl)
{
  cl_device_fp_config fp = 0;
  cl_int err = clGetDeviceInfo(cl->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
  if (err == CL_SUCCESS && fp != 0)
    return MS_OK;
  return ms_fail(MS_ERR_RUNTIME, "OpenCL device '%s' [%s] has no double precision "
                                 "(cl_khr_fp64), which collision mode keeps positions and "
                                 "velocities in; choose another device with --device (see "
                                 "--list-devices)",
                 cl->device_name, cl->platform_name);
}
