/* command_cost: what one OpenCL command costs on a device, apart from its work (issue 27:
 * where an iteration's time goes when its kernels are short). On the queue mixsim's
 * manager uses, median microseconds over many repetitions of:
 *   - a kernel of one work-item, enqueued and waited for (clFinish): the round trip;
 *   - the same kernel enqueued `--batch` times, then one wait: the cost per command when
 *     nothing waits in between (what a chain of kernels pays);
 *   - a kernel over `--items` work-items that do almost nothing (one add), batched: the
 *     per-command cost of a real-sized launch (pocl splits it over its threads);
 *   - a blocking read of 8 bytes, and a blocking write of 8 bytes: a flag read back, a
 *     count sent down;
 *   - a map and unmap of 8 bytes of a host-allocated buffer (the shared buffers' way).
 * --profile on|off|auto profiles the queue or not, auto as mixsim does (on a CPU device
 * only): on NVIDIA's runtime profiling adds to every command.
 * Usage: command_cost [--device SPEC] [--repeat N] [--batch N] [--items N] [--profile P] */
#include <CL/cl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "core/clock.h"
#include "mixsim/status.h"

static const char source[] =
    "__kernel void tiny(__global int *a, int n)\n"
    "{\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n)\n"
    "    a[i] += 1;\n"
    "}\n";

typedef struct options {
  const char *device;
  int repeat, batch, items;
  ms_cl_profile profile;
} options;

typedef struct bench {
  ms_cl cl;
  cl_program prog;
  cl_kernel k;
  cl_mem buf, host_buf;
  int *host;
} bench;

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static ms_status launch(bench *b, int items)
{
  size_t global = (size_t)items;
  cl_int n = items, err = clSetKernelArg(b->k, 1, sizeof n, &n);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(b->cl.gpu_queue, b->k, 1, NULL, &global, NULL, 0, NULL, NULL);
  return ms_cl_check(err, "clEnqueueNDRangeKernel", "tiny");
}

static ms_status finish(bench *b)
{
  return ms_cl_check(clFinish(b->cl.gpu_queue), "clFinish", NULL);
}

/* `count` launches of `items` work-items then one wait, timed; per launch in us. */
static ms_status time_launches(bench *b, int count, int items, double *us)
{
  double t0 = ms_now();
  ms_status st = MS_OK;
  for (int c = 0; !st && c < count; c++)
    st = launch(b, items);
  if (!st)
    st = finish(b);
  *us = 1e6 * (ms_now() - t0) / count;
  return st;
}

static ms_status time_read(bench *b, int write, double *us)
{
  int v = 0;
  double t0 = ms_now();
  cl_int err = write ? clEnqueueWriteBuffer(b->cl.gpu_queue, b->buf, CL_TRUE, 0, sizeof v, &v, 0,
                                            NULL, NULL)
                     : clEnqueueReadBuffer(b->cl.gpu_queue, b->buf, CL_TRUE, 0, sizeof v, &v, 0,
                                           NULL, NULL);
  *us = 1e6 * (ms_now() - t0);
  return ms_cl_check(err, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", NULL);
}

static ms_status time_map(bench *b, double *us)
{
  cl_int err;
  double t0 = ms_now();
  void *p = clEnqueueMapBuffer(b->cl.gpu_queue, b->host_buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                               0, 8, 0, NULL, NULL, &err);
  if (err == CL_SUCCESS)
    err = clEnqueueUnmapMemObject(b->cl.gpu_queue, b->host_buf, p, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clFinish(b->cl.gpu_queue);
  *us = 1e6 * (ms_now() - t0);
  return ms_cl_check(err, "clEnqueueMapBuffer", NULL);
}

static ms_status setup(bench *b, const options *o)
{
  ms_status st = ms_cl_open(o->device, o->profile, &b->cl);
  if (!st)
    st = ms_cl_build(b->cl.context, b->cl.device, source, "-cl-std=CL1.2", &b->prog);
  cl_int err = CL_SUCCESS;
  if (!st) {
    b->k = clCreateKernel(b->prog, "tiny", &err);
    st = ms_cl_check(err, "clCreateKernel", "tiny");
  }
  size_t bytes = (size_t)o->items * sizeof(int);
  if (!st) {
    b->buf = clCreateBuffer(b->cl.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    st = ms_cl_check(err, "clCreateBuffer", NULL);
  }
  if (!st && !(b->host = calloc((size_t)o->items, sizeof(int))))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  if (!st) {
    b->host_buf = clCreateBuffer(b->cl.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes,
                                 b->host, &err);
    st = ms_cl_check(err, "clCreateBuffer", "host");
  }
  if (!st)
    st = ms_cl_check(clSetKernelArg(b->k, 0, sizeof b->buf, &b->buf), "clSetKernelArg", "tiny");
  if (!st)
    st = ms_cl_check(clEnqueueWriteBuffer(b->cl.gpu_queue, b->buf, CL_TRUE, 0, bytes, b->host, 0,
                                          NULL, NULL),
                     "clEnqueueWriteBuffer", NULL);
  return st;
}

static void teardown(bench *b)
{
  if (b->buf)
    clReleaseMemObject(b->buf);
  if (b->host_buf)
    clReleaseMemObject(b->host_buf);
  if (b->k)
    clReleaseKernel(b->k);
  if (b->prog)
    clReleaseProgram(b->prog);
  ms_cl_close(&b->cl);
  free(b->host);
}

enum { ROUND_TRIP, BATCHED, BATCHED_ITEMS, READ, WRITE, MAP, N_KINDS };
static const char *const kind_name[N_KINDS] = {
    "kernel (1 item) + clFinish", "kernel (1 item), batched", "kernel (--items), batched",
    "blocking read, 8 bytes",      "blocking write, 8 bytes", "map + unmap, 8 bytes (host memory)"};

static ms_status measure(bench *b, const options *o, double *out)
{
  double *v = malloc((size_t)o->repeat * sizeof *v);
  if (!v)
    return ms_fail(MS_ERR_RUNTIME, "out of memory");
  ms_status st = time_launches(b, 10, o->items, &v[0]); /* warm: the first launches build */
  for (int kind = 0; !st && kind < N_KINDS; kind++) {
    for (int r = 0; !st && r < o->repeat; r++) {
      if (kind == ROUND_TRIP)
        st = time_launches(b, 1, 1, &v[r]);
      else if (kind == BATCHED)
        st = time_launches(b, o->batch, 1, &v[r]);
      else if (kind == BATCHED_ITEMS)
        st = time_launches(b, o->batch, o->items, &v[r]);
      else if (kind == MAP)
        st = time_map(b, &v[r]);
      else
        st = time_read(b, kind == WRITE, &v[r]);
    }
    if (!st)
      out[kind] = median(v, o->repeat);
  }
  free(v);
  return st;
}

static int parse(int argc, char **argv, options *o)
{
  static const struct option longs[] = {{"device", required_argument, NULL, 'd'},
                                         {"repeat", required_argument, NULL, 'r'},
                                         {"batch", required_argument, NULL, 'b'},
                                         {"items", required_argument, NULL, 'i'},
                                         {"profile", required_argument, NULL, 'p'},
                                         {NULL, 0, NULL, 0}};
  *o = (options){NULL, 200, 50, 8192, MS_CL_PROFILE_AUTO};
  int c;
  while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    char *end = NULL;
    if (c == 'p') {
      static const char *const modes[3] = {"auto", "on", "off"};
      int m = 0;
      while (m < 3 && strcmp(optarg, modes[m]))
        m++;
      if (m == 3) {
        fprintf(stderr, "command_cost: --profile %s: expected on, off or auto\n", optarg);
        return 0;
      }
      o->profile = (ms_cl_profile)m;
      continue;
    }
    long v = c == 'd' ? 1 : strtol(optarg, &end, 10);
    if (c != 'd' && (!end || *end || v < 1 || v > 10000000)) {
      fprintf(stderr, "command_cost: %s: expected a whole number in [1, 10^7]\n", optarg);
      return 0;
    }
    if (c == 'd')
      o->device = optarg;
    else if (c == 'r')
      o->repeat = (int)v;
    else if (c == 'b')
      o->batch = (int)v;
    else if (c == 'i')
      o->items = (int)v;
    else
      return 0;
  }
  return optind == argc;
}

int main(int argc, char **argv)
{
  options o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: command_cost [--device SPEC] [--repeat N] [--batch N] [--items N]\n");
    return 2;
  }
  bench b;
  memset(&b, 0, sizeof b);
  double us[N_KINDS];
  ms_status st = setup(&b, &o);
  if (!st)
    st = measure(&b, &o, us);
  if (!st) {
    printf("device: %s (%s); median of %d, batches of %d, --items %d, queue %sprofiled\n\n",
           b.cl.device_name, b.cl.platform_name, o.repeat, o.batch, o.items,
           b.cl.profiled ? "" : "not ");
    printf("| command | us |\n|---|---|\n");
    for (int k = 0; k < N_KINDS; k++)
      printf("| %s | %.1f |\n", kind_name[k], us[k]);
  }
  teardown(&b);
  if (st) {
    fprintf(stderr, "command_cost: %s\n", ms_error_message());
    return 1;
  }
  return 0;
}
