/* Building the collision program and enqueueing its kernels. */
#include "collision/base/kernels.h"

#include <stdlib.h>
#include <string.h>

#include "core/file.h"

/* Generated at build time by tools/dev/embed_kernels.py. */
extern const char ms_kernel_source[];
extern const char *const ms_kernel_files[];

static const char *const kernel_functions[MS_KERNEL_COUNT] = {
    [MS_K_GRID_CLEAR] = "ms_grid_clear",
    [MS_K_GRID_INSERT] = "ms_grid_insert",
    [MS_K_GRID_SORT] = "ms_grid_sort",
    [MS_K_COLLIDE_SMALL] = "ms_collide_small",
    [MS_K_INTEGRATE_SMALL] = "ms_integrate_small",
    [MS_K_ZONE_MARK] = "ms_zone_mark",
    [MS_K_ZONE_BLOCKS] = "ms_zone_blocks",
    [MS_K_ZONE_SCAN] = "ms_zone_scan",
    [MS_K_ZONE_GATHER] = "ms_zone_gather",
    [MS_K_ZONE_SPANS] = "ms_zone_spans",
    [MS_K_ZONE_SCATTER] = "ms_zone_scatter",
    [MS_K_LARGE_LIST_CLEAR] = "ms_large_list_clear",
    [MS_K_LARGE_LIST_INSERT] = "ms_large_list_insert",
    [MS_K_LARGE_LIST_SORT] = "ms_large_list_sort",
    [MS_K_LARGE_SMALL_REACT] = "ms_large_small_react",
    [MS_K_LARGE_SMALL_APPLY] = "ms_large_small_apply",
    [MS_K_LARGE_LARGE] = "ms_large_large",
    [MS_K_LARGE_WALLS] = "ms_large_walls",
    [MS_K_INTEGRATE_LARGE] = "ms_integrate_large",
    [MS_K_WALLS_SMALL_APPLY] = "ms_walls_small_apply",
    [MS_K_WALLS_SMALL_APPLY_FRIC] = "ms_walls_small_apply_fric",
    [MS_K_INTEGRATE_FRIC] = "ms_integrate_small_fric",
    [MS_K_NLIST_CHECK] = "ms_nlist_check",
    [MS_K_NLIST_BUILD] = "ms_nlist_build",
    [MS_K_COLLIDE_FRIC] = "ms_collide_small_fric",
    [MS_K_LARGE_SMALL_REACT_FRIC] = "ms_large_small_react_fric",
    [MS_K_LARGE_SMALL_APPLY_FRIC] = "ms_large_small_apply_fric",
    [MS_K_LARGE_LARGE_FRIC] = "ms_large_large_fric",
    [MS_K_LARGE_WALLS_FRIC] = "ms_large_walls_fric",
    [MS_K_WALLS_SPAN_SUM] = "ms_walls_span_sum",
    [MS_K_WALLS_TOTAL] = "ms_walls_total",
    [MS_K_WALLS_DROPPED] = "ms_walls_dropped",
    [MS_K_OPEN_SCAN] = "ms_open_scan",
    [MS_K_INTEGRATE_LARGE_FRIC] = "ms_integrate_large_fric",
    [MS_K_SPLIT_COUNT] = "ms_split_count",
    [MS_K_SPLIT_PACK] = "ms_split_pack",
    [MS_K_SPLIT_COMMIT] = "ms_split_commit",
    [MS_K_SPLIT_UNPACK] = "ms_split_unpack",
    [MS_K_SPLIT_OWN] = "ms_split_own",
};

/* Concatenates the kernel files from `dir`; their includes resolve through -I dir. */
static ms_status load_kernel_dir(const char *dir, char **out)
{
  size_t total = 0;
  char *all = calloc(1, 1);
  for (int i = 0; all && ms_kernel_files[i]; i++) {
    char path[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, ms_kernel_files[i]);
    char *text = ms_read_file(path, &len);
    if (!text) {
      free(all);
      return ms_fail(MS_ERR_RUNTIME, "MIXSIM_KERNEL_DIR: cannot read '%s'", path);
    }
    /* A #line marker makes the build log name the file. */
    char marker[1100];
    int mlen = snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", path);
    char *grown = realloc(all, total + (size_t)mlen + len + 2);
    if (!grown) {
      free(text);
      break;
    }
    all = grown;
    memcpy(all + total, marker, (size_t)mlen);
    total += (size_t)mlen;
    memcpy(all + total, text, len);
    total += len;
    all[total++] = '\n';
    all[total] = '\0';
    free(text);
  }
  if (!all)
    return ms_fail(MS_ERR_RUNTIME, "out of memory reading kernels");
  *out = all;
  return MS_OK;
}

/* The kernels of kernels/large.cl and large_friction.cl: the device-only path's, whose
 * constants are the run's (ms_kernels_build_seams). */
static const unsigned char in_seams[MS_KERNEL_COUNT] = {
    [MS_K_LARGE_LIST_CLEAR] = 1,       [MS_K_LARGE_LIST_INSERT] = 1,
    [MS_K_LARGE_LIST_SORT] = 1,        [MS_K_LARGE_SMALL_REACT] = 1,
    [MS_K_LARGE_SMALL_APPLY] = 1,      [MS_K_LARGE_LARGE] = 1,
    [MS_K_LARGE_WALLS] = 1,            [MS_K_INTEGRATE_LARGE] = 1,
    [MS_K_WALLS_SMALL_APPLY] = 1,      [MS_K_WALLS_SMALL_APPLY_FRIC] = 1,
    [MS_K_LARGE_SMALL_REACT_FRIC] = 1, [MS_K_LARGE_SMALL_APPLY_FRIC] = 1,
    [MS_K_LARGE_LARGE_FRIC] = 1,       [MS_K_LARGE_WALLS_FRIC] = 1,
    [MS_K_INTEGRATE_LARGE_FRIC] = 1,
};

/* Creates the kernels of `program` that `seams` selects (1: the seams', 0: the others). */
static ms_status create_kernels(ms_kernels *k, const ms_cl *cl, cl_program program, int seams)
{
  for (int i = 0; i < MS_KERNEL_COUNT; i++) {
    if (in_seams[i] != seams)
      continue;
    cl_int err;
    k->kernel[i] = clCreateKernel(program, kernel_functions[i], &err);
    if (err != CL_SUCCESS)
      return ms_cl_check(err, "clCreateKernel", kernel_functions[i]);
    size_t wg = 64;
    MS_CL_TRY(clGetKernelWorkGroupInfo(k->kernel[i], cl->device, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof wg, &wg, NULL),
              "clGetKernelWorkGroupInfo");
    k->local_size[i] = wg < 64 ? wg : 64;
    k->max_group[i] = wg;
  }
  return MS_OK;
}

ms_status ms_kernels_build(ms_kernels *k, const ms_cl *cl, const char *kernel_dir,
                           int diagnostics)
{
  memset(k, 0, sizeof *k);
  char *options = k->options;
  strcpy(options, "-cl-std=CL1.2");
  if (diagnostics)
    strcat(options, " -D MS_DIAG");
  if (kernel_dir) {
    ms_status st = load_kernel_dir(kernel_dir, &k->source);
    if (st)
      return st;
    snprintf(options + strlen(options), sizeof k->options - strlen(options), " -I %s",
             kernel_dir);
  }
  /* Correctly rounded / and sqrt make the kernels' contacts match the host's bit for bit. */
  cl_device_fp_config fp = 0;
  clGetDeviceInfo(cl->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
  if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
    strcat(options, " -cl-fp32-correctly-rounded-divide-sqrt");
  const char *src = k->source ? k->source : ms_kernel_source;
  ms_status st = ms_cl_build(cl->context, cl->device, src, options, &k->program);
  return st ? st : create_kernels(k, cl, k->program, 0);
}

static void release_seams(ms_kernels *k)
{
  for (int i = 0; i < MS_KERNEL_COUNT; i++)
    if (in_seams[i] && k->kernel[i]) {
      clReleaseKernel(k->kernel[i]);
      k->kernel[i] = NULL;
    }
  if (k->seams)
    clReleaseProgram(k->seams);
  k->seams = NULL;
}

ms_status ms_kernels_build_seams(ms_kernels *k, const ms_cl *cl, const char *defines)
{
  if (k->seams)
    return MS_OK;
  char options[sizeof k->options + 400];
  snprintf(options, sizeof options, "%s %s", k->options, defines);
  const char *src = k->source ? k->source : ms_kernel_source;
  ms_status st = ms_cl_build(cl->context, cl->device, src, options, &k->seams);
  if (!st)
    st = create_kernels(k, cl, k->seams, 1);
  if (st) /* (a failed build leaves a program behind: none kept, so a later call tries again) */
    release_seams(k);
  return st;
}

void ms_kernels_release(ms_kernels *k)
{
  for (int i = 0; i < MS_KERNEL_COUNT; i++)
    if (k->kernel[i])
      clReleaseKernel(k->kernel[i]);
  if (k->program)
    clReleaseProgram(k->program);
  if (k->seams)
    clReleaseProgram(k->seams);
  free(k->source);
  memset(k, 0, sizeof *k);
}

ms_status ms_kernels_run_1d(const ms_kernels *k, const ms_cl *cl, int kernel, size_t n,
                            cl_event *ev)
{
  return ms_kernels_run_1d_on(k, cl->gpu_queue, kernel, n, ev);
}

static ms_status run_1d(const ms_kernels *k, cl_command_queue queue, int kernel, size_t n,
                        cl_event after, cl_event *ev)
{
  size_t local = k->local_size[kernel];
  size_t global = (n + local - 1) / local * local;
  if (global == 0)
    global = local;
  cl_int err = clEnqueueNDRangeKernel(queue, k->kernel[kernel], 1, NULL, &global, &local,
                                      after ? 1 : 0, after ? &after : NULL, ev);
  return ms_cl_check(err, "clEnqueueNDRangeKernel", kernel_functions[kernel]);
}

ms_status ms_kernels_run_1d_on(const ms_kernels *k, cl_command_queue queue, int kernel, size_t n,
                               cl_event *ev)
{
  return run_1d(k, queue, kernel, n, NULL, ev);
}

ms_status ms_kernels_run_1d_after(const ms_kernels *k, const ms_cl *cl, int kernel, size_t n,
                                  cl_event after, cl_event *ev)
{
  return run_1d(k, cl->gpu_queue, kernel, n, after, ev);
}

ms_status ms_kernels_run_groups_on(const ms_kernels *k, cl_command_queue queue, int kernel,
                                   size_t groups, size_t lanes, cl_event *ev)
{
  size_t global = (groups ? groups : 1) * lanes;
  cl_int err = clEnqueueNDRangeKernel(queue, k->kernel[kernel], 1, NULL, &global, &lanes, 0,
                                      NULL, ev);
  return ms_cl_check(err, "clEnqueueNDRangeKernel", kernel_functions[kernel]);
}

const char *ms_kernel_name(int kernel)
{
  /* The function's name without its "ms_" prefix. */
  return kernel >= 0 && kernel < MS_KERNEL_COUNT ? kernel_functions[kernel] + 3 : "?";
}
