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
 *   - a map and unmap of 8 bytes of a host-allocated buffer (the shared buffers' way);
 *   - a blocking read of `--bytes` into page-locked memory (a domain's records read).
 * --profile on|off|auto profiles the queue or not, auto as mixsim does (on a CPU device
 * only): on NVIDIA's runtime profiling adds to every command.
 * --device A,B,...: a context and a thread for each device of the list (a device may come
 * twice), every thread timing the same kind of command at once, as the domains of one
 * process drive their devices (docs/scaling.md: whether one process's threads slow each
 * other's commands); a column each.
 * Usage: command_cost [--device LIST] [--repeat N] [--batch N] [--items N] [--bytes N]
 *                     [--profile P] */
#include <CL/cl.h>
#include <getopt.h>
#include <pthread.h>
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

#define MAX_THREADS 16

typedef struct options {
  char *devices[MAX_THREADS];
  int n_devices;
  int repeat, batch, items, bytes;
  ms_cl_profile profile;
} options;

typedef struct bench {
  ms_cl cl;
  cl_program prog;
  cl_kernel k;
  cl_mem buf, host_buf, big, pinned;
  void *pinned_at;
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

static ms_status time_big(bench *b, const options *o, double *us)
{
  double t0 = ms_now();
  cl_int err = clEnqueueReadBuffer(b->cl.gpu_queue, b->big, CL_TRUE, 0, (size_t)o->bytes,
                                   b->pinned_at, 0, NULL, NULL);
  *us = 1e6 * (ms_now() - t0);
  return ms_cl_check(err, "clEnqueueReadBuffer", "--bytes");
}

/* A device buffer of --bytes and a page-locked one (mapped, as mixsim's staging). */
static ms_status setup_big(bench *b, const options *o)
{
  cl_int err;
  size_t n = (size_t)o->bytes;
  b->big = clCreateBuffer(b->cl.context, CL_MEM_READ_WRITE, n, NULL, &err);
  ms_status st = ms_cl_check(err, "clCreateBuffer", "--bytes");
  if (!st) {
    b->pinned = clCreateBuffer(b->cl.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL,
                               &err);
    st = ms_cl_check(err, "clCreateBuffer", "page-locked");
  }
  if (!st) {
    b->pinned_at = clEnqueueMapBuffer(b->cl.gpu_queue, b->pinned, CL_TRUE,
                                      CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    st = ms_cl_check(err, "clEnqueueMapBuffer", "page-locked");
  }
  if (!st) {
    memset(b->pinned_at, 1, n);
    err = clEnqueueWriteBuffer(b->cl.gpu_queue, b->big, CL_TRUE, 0, n, b->pinned_at, 0, NULL,
                               NULL);
    st = ms_cl_check(err, "clEnqueueWriteBuffer", "--bytes");
  }
  return st;
}

static ms_status setup(bench *b, const options *o, const char *device)
{
  ms_status st = ms_cl_open(device, o->profile, &b->cl);
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
  return st ? st : setup_big(b, o);
}

static void teardown(bench *b)
{
  if (b->pinned_at)
    clEnqueueUnmapMemObject(b->cl.gpu_queue, b->pinned, b->pinned_at, 0, NULL, NULL);
  if (b->pinned_at)
    clFinish(b->cl.gpu_queue);
  if (b->pinned)
    clReleaseMemObject(b->pinned);
  if (b->big)
    clReleaseMemObject(b->big);
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

enum { ROUND_TRIP, BATCHED, BATCHED_ITEMS, READ, WRITE, MAP, READ_BIG, N_KINDS };
static const char *const kind_name[N_KINDS] = {
    "kernel (1 item) + clFinish", "kernel (1 item), batched", "kernel (--items), batched",
    "blocking read, 8 bytes",      "blocking write, 8 bytes", "map + unmap, 8 bytes (host memory)",
    "blocking read of --bytes into page-locked memory"};

/* One thread's bench: every thread starts each kind together (`gate`), so that the
 * devices' commands overlap as the domains' do. */
typedef struct worker {
  bench b;
  const options *o;
  const char *device;
  pthread_barrier_t *gate;
  double us[N_KINDS];
  ms_status st;
  char msg[512];
} worker;

static ms_status measure(worker *w)
{
  bench *b = &w->b;
  const options *o = w->o;
  double *v = malloc((size_t)o->repeat * sizeof *v);
  ms_status st = v ? time_launches(b, 10, o->items, &v[0]) /* warm: the first launches build */
                   : ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (int kind = 0; kind < N_KINDS; kind++) {
    pthread_barrier_wait(w->gate); /* (a failed thread still meets the others) */
    for (int r = 0; !st && r < o->repeat; r++) {
      if (kind == ROUND_TRIP)
        st = time_launches(b, 1, 1, &v[r]);
      else if (kind == BATCHED)
        st = time_launches(b, o->batch, 1, &v[r]);
      else if (kind == BATCHED_ITEMS)
        st = time_launches(b, o->batch, o->items, &v[r]);
      else if (kind == MAP)
        st = time_map(b, &v[r]);
      else if (kind == READ_BIG)
        st = time_big(b, o, &v[r]);
      else
        st = time_read(b, kind == WRITE, &v[r]);
    }
    if (!st)
      w->us[kind] = median(v, o->repeat);
  }
  free(v);
  return st;
}

static void *worker_main(void *arg)
{
  worker *w = arg;
  w->st = measure(w);
  if (w->st)
    snprintf(w->msg, sizeof w->msg, "%s", ms_error_message());
  return NULL;
}

/* The comma-separated --device list into o->devices (NULL: the default device). */
static int parse_devices(char *list, options *o)
{
  o->n_devices = 0;
  for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->n_devices == MAX_THREADS) {
      fprintf(stderr, "command_cost: --device: at most %d devices\n", MAX_THREADS);
      return 0;
    }
    o->devices[o->n_devices++] = t;
  }
  if (o->n_devices == 0) {
    fprintf(stderr, "command_cost: --device: no device named\n");
    return 0;
  }
  return 1;
}

static int parse(int argc, char **argv, options *o)
{
  static const struct option longs[] = {{"device", required_argument, NULL, 'd'},
                                         {"repeat", required_argument, NULL, 'r'},
                                         {"batch", required_argument, NULL, 'b'},
                                         {"items", required_argument, NULL, 'i'},
                                         {"profile", required_argument, NULL, 'p'},
                                         {"bytes", required_argument, NULL, 'y'},
                                         {NULL, 0, NULL, 0}};
  *o = (options){{NULL}, 1, 200, 50, 8192, 8 << 20, MS_CL_PROFILE_AUTO};
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
    if (c == 'd') {
      if (!parse_devices(optarg, o))
        return 0;
      continue;
    }
    long v = strtol(optarg, &end, 10);
    long top = c == 'y' ? 1L << 30 : 10000000;
    if (!end || *end || v < 1 || v > top) {
      fprintf(stderr, "command_cost: %s: expected a whole number in [1, %ld]\n", optarg, top);
      return 0;
    }
    if (c == 'y')
      o->bytes = (int)v;
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

static void print_table(const options *o, const worker *w)
{
  printf("device: %s (%s); median of %d, batches of %d, --items %d, --bytes %d, queue %sprofiled",
         w[0].b.cl.device_name, w[0].b.cl.platform_name, o->repeat, o->batch, o->items, o->bytes,
         w[0].b.cl.profiled ? "" : "not ");
  if (o->n_devices > 1)
    printf("; %d contexts of one process at once", o->n_devices);
  printf("\n\n| command |");
  for (int t = 0; t < o->n_devices; t++)
    printf(" us, %s |", o->devices[t] ? o->devices[t] : "default");
  printf("\n|---|");
  for (int t = 0; t < o->n_devices; t++)
    printf("---|");
  printf("\n");
  for (int k = 0; k < N_KINDS; k++) {
    printf("| %s |", kind_name[k]);
    for (int t = 0; t < o->n_devices; t++)
      printf(" %.1f |", w[t].us[k]);
    printf("\n");
  }
  printf("\n(the last row as GB/s:");
  for (int t = 0; t < o->n_devices; t++)
    printf(" %.1f", w[t].us[READ_BIG] > 0 ? 1e-3 * o->bytes / w[t].us[READ_BIG] : 0.0);
  printf(")\n");
}

int main(int argc, char **argv)
{
  options o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: command_cost [--device LIST] [--repeat N] [--batch N] [--items N] "
                    "[--bytes N] [--profile P]\n");
    return 2;
  }
  worker w[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  pthread_barrier_t gate;
  memset(w, 0, sizeof w);
  if (pthread_barrier_init(&gate, NULL, (unsigned)o.n_devices)) {
    fprintf(stderr, "command_cost: pthread_barrier_init failed\n");
    return 1;
  }
  ms_status st = MS_OK; /* (the contexts made one after another, as mixsim's domains') */
  int made = 0, started = 1;
  for (; !st && made < o.n_devices; made++) {
    w[made] = (worker){.o = &o, .device = o.devices[made], .gate = &gate};
    st = setup(&w[made].b, &o, o.devices[made]);
  }
  if (st)
    fprintf(stderr, "command_cost: %s: %s\n", o.devices[made - 1] ? o.devices[made - 1]
                                                                   : "default", ms_error_message());
  for (; !st && started < o.n_devices; started++)
    if (pthread_create(&tid[started], NULL, worker_main, &w[started])) {
      fprintf(stderr, "command_cost: could not start thread %d\n", started);
      return 1; /* (the others wait at the gate for it: the process ends them) */
    }
  if (!st)
    worker_main(&w[0]);
  for (int t = 1; !st && t < o.n_devices; t++)
    pthread_join(tid[t], NULL);
  pthread_barrier_destroy(&gate);
  for (int t = 0; !st && t < o.n_devices; t++)
    if (w[t].st) {
      fprintf(stderr, "command_cost: %s: %s\n", o.devices[t] ? o.devices[t] : "default",
              w[t].msg);
      st = w[t].st;
    }
  if (!st)
    print_table(&o, w);
  for (int t = 0; t < made; t++)
    teardown(&w[t].b);
  return st ? 1 : 0;
}
