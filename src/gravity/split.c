/* Gravity mode on one or several OpenCL devices: opening them (the list is read in
 * devices.c), building the variant each runs, the per-step kernels, the exchange of positions
 * through the host, and the split of the bodies by measured speed. */
#include "gravity/split.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "cl/trace_events.h"
#include "core/file.h"
#include "core/io_wait.h"
#include "core/number.h"
#include "gravity/ranks.h"

extern const char ms_gravity_kernel_source[];

#define F4 (4 * sizeof(float))

/* MIXSIM_DUMP_BINARY=FILE saves the built program (PTX on NVIDIA), to read what the
 * compiler made of a kernel. Best effort: a tuning aid, not part of a run. */
static void dump_binary(cl_program program, const char *path)
{
  size_t size = 0;
  if (!path || !*path ||
      clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return;
  unsigned char *bin = malloc(size);
  /* (a FIFO nobody reads waits only until a stop: core/io_wait.h) */
  int fd = bin ? ms_io_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
  if (fd >= 0 &&
      clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS)
    ms_io_write_all(fd, bin, size, NULL);
  if (fd >= 0)
    close(fd);
  free(bin);
}

static ms_status create_kernel(ms_gdev *d, const char *name, cl_kernel *out)
{
  cl_int err;
  *out = clCreateKernel(d->program, name, &err);
  return ms_cl_check(err, "clCreateKernel", name);
}

/* Builds the variant for this device; a work-group size the compiled kernel cannot
 * take is halved until it can. */
static ms_status build(ms_gdev *d, const char *kernel_dir)
{
  char *from_disk = NULL;
  const char *source = ms_gravity_kernel_source;
  char include[600] = "";
  if (kernel_dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/gravity.cl", kernel_dir);
    if (!(from_disk = ms_read_file(path, NULL)))
      return ms_fail(MS_ERR_RUNTIME, "MIXSIM_KERNEL_DIR: cannot read '%s'", path);
    source = from_disk;
    snprintf(include, sizeof include, " -I %.500s", kernel_dir);
  }
  ms_status st = MS_OK;
  for (int wg = 0;;) {
    char options[900];
    st = ms_gravity_launch_for(d->variant, d->cl.device, wg, &d->launch);
    if (st)
      break;
    /* MIXSIM_GRAVITY_OPTIONS appends build options, for tuning a device by hand. */
    const char *extra = getenv("MIXSIM_GRAVITY_OPTIONS");
    snprintf(options, sizeof options, "%s%s%s%s", d->launch.options, include,
             extra && *extra ? " " : "", extra ? extra : "");
    st = ms_cl_build(d->context, d->cl.device, source, options, &d->program);
    if (!st)
      dump_binary(d->program, getenv("MIXSIM_DUMP_BINARY"));
    if (!st)
      st = create_kernel(d, d->variant->kernel, &d->force);
    size_t fits = 0;
    if (!st)
      st = ms_cl_check(clGetKernelWorkGroupInfo(d->force, d->cl.device, CL_KERNEL_WORK_GROUP_SIZE,
                                                sizeof fits, &fits, NULL),
                       "clGetKernelWorkGroupInfo", d->variant->kernel);
    if (st || fits >= (size_t)d->launch.wg)
      break;
    if (d->launch.wg <= 2 * (d->variant->slices > 0 ? d->variant->slices : 1)) {
      st = ms_fail(MS_ERR_RUNTIME, "%s: kernel %s fits no work-group size (device allows %zu)",
                   d->cl.name, d->variant->name, fits);
      break;
    }
    wg = d->launch.wg / 2;
    clReleaseKernel(d->force);
    clReleaseProgram(d->program);
    d->force = NULL;
    d->program = NULL;
  }
  free(from_disk);
  if (!st)
    st = create_kernel(d, "ms_grav_drift", &d->drift);
  if (!st)
    st = create_kernel(d, "ms_grav_pack", &d->pack);
  return st;
}

static ms_status open_device(ms_gdev *d, const char *kernel, int n_body, const char *kernel_dir)
{
  d->variant = kernel ? ms_gravity_variant_find(kernel)
                      : ms_gravity_variant_default(d->cl.device, n_body);
  if (!d->variant) {
    char known[200] = "";
    for (int i = 0; i < ms_gravity_variant_count(); i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
               ms_gravity_variant_at(i)->name);
    return ms_fail(MS_ERR_INPUT, "--gravity-kernel: unknown kernel '%s' (expected one of %s)",
                   kernel, known);
  }
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->cl.platform, 0};
  d->context = clCreateContext(props, 1, &d->cl.device, NULL, NULL, &err);
  MS_CL_TRY(err, "clCreateContext");
  d->queue = clCreateCommandQueue(d->context, d->cl.device, CL_QUEUE_PROFILING_ENABLE, &err);
  MS_CL_TRY(err, "clCreateCommandQueue");
  cl_uint units = 1;
  MS_CL_TRY(clGetDeviceInfo(d->cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL),
            "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
  d->compute_units = (int)units;
  return build(d, kernel_dir);
}

static ms_status create_buffers(ms_gdev *d, int n_pad)
{
  cl_ulong max_alloc = 0;
  MS_CL_TRY(clGetDeviceInfo(d->cl.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                            &max_alloc, NULL),
            "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
  size_t bytes = (size_t)n_pad * F4;
  if (bytes > max_alloc)
    return ms_fail(MS_ERR_RUNTIME, "%s: %d bodies need buffers of %zu bytes, the device allows %llu",
                   d->cl.name, n_pad, bytes, (unsigned long long)max_alloc);
  cl_mem *bufs[] = {&d->pos[0], &d->pos[1], &d->vel, &d->acc, &d->soa};
  int n = d->variant->soa ? 5 : 4;
  for (int i = 0; i < n; i++) {
    cl_int err;
    *bufs[i] = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    MS_CL_TRY(err, "clCreateBuffer");
  }
  return MS_OK;
}

/* The split before anything is measured, in whole granules. */
static void split_first(ms_gset *set)
{
  int units[MS_GRAVITY_MAX_DEVICES], first = 0;
  ms_gset_first_split(set, set->n_pad / set->granule, units);
  for (int i = 0; i < set->n_dev; i++) {
    set->dev[i].first = first;
    set->dev[i].count = units[i] * set->granule;
    first += set->dev[i].count;
  }
}

ms_status ms_gset_open(ms_gset *set, const char *devices, const char *kernel, int n_body,
                       const char *kernel_dir)
{
  memset(set, 0, sizeof *set);
  if (!kernel_dir || !*kernel_dir)
    kernel_dir = getenv("MIXSIM_KERNEL_DIR");
  if (kernel_dir && !*kernel_dir)
    kernel_dir = NULL;
  ms_status st = ms_gset_parse_devices(set, devices);
  long granule = 1, pad = 1;
  for (int i = 0; !st && i < set->n_dev; i++) {
    st = open_device(&set->dev[i], kernel, n_body, kernel_dir);
    if (!st) {
      granule = ms_number_lcm(granule, set->dev[i].launch.granule);
      pad = ms_number_lcm(pad, set->dev[i].launch.pad);
    }
  }
  st = ms_ranks_units(st, &granule, &pad); /* several ranks: agreed, common units */
  if (st)
    return st;
  long unit = ms_number_lcm(granule, pad);
  long n_pad = (n_body + unit - 1) / unit * unit;
  if (n_pad > INT_MAX / 4)
    return ms_fail(MS_ERR_INPUT, "%d bodies: too many", n_body);
  set->n_body = n_body;
  set->n_pad = (int)n_pad;
  set->granule = (int)granule;
  set->range_units = set->n_pad / set->granule; /* all of them (a rank's: ranks.c) */
  for (int i = 0; !st && i < set->n_dev; i++)
    st = create_buffers(&set->dev[i], set->n_pad);
  for (int i = 0; !st && i < 2 && set->n_dev > 1; i++)
    if (!(set->stage[i] = malloc((size_t)set->n_pad * F4)))
      st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  split_first(set);
  /* Sleeping waits only where a whole CPU device shares the split with GPUs (its threads
   * need every core, the driver's waits spin on one). A CPU given a sub-device
   * (devices.c) leaves the host thread a core, and the driver's waits are then the
   * better choice: NVIDIA's completion callbacks arrived up to 10 ms after the GPU had
   * finished on the H200 machine, which made a burst's finish 2x its kernels. */
  int gpus = 0;
  for (int i = 0; i < set->n_dev; i++)
    gpus += !(set->dev[i].cl.type & CL_DEVICE_TYPE_CPU);
  for (int i = 0; gpus > 0 && i < set->n_dev; i++)
    set->quiet_waits |= (set->dev[i].cl.type & CL_DEVICE_TYPE_CPU) && !set->dev[i].cores_kept;
  if (!st && set->n_dev > 1)
    st = ms_gset_balance_start(set);
  return st;
}

void ms_gset_close(ms_gset *set)
{
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    if (d->queue)
      clFinish(d->queue);
    for (int e = 0; e < d->n_events; e++)
      clReleaseEvent(d->events[e]);
    free(d->events);
    free(d->event_is_force);
    cl_mem bufs[] = {d->pos[0], d->pos[1], d->vel, d->acc, d->soa};
    for (int b = 0; b < 5; b++)
      if (bufs[b])
        clReleaseMemObject(bufs[b]);
    cl_kernel kernels[] = {d->force, d->drift, d->pack};
    for (int k = 0; k < 3; k++)
      if (kernels[k])
        clReleaseKernel(kernels[k]);
    if (d->program)
      clReleaseProgram(d->program);
    if (d->queue)
      clReleaseCommandQueue(d->queue);
    if (d->context)
      clReleaseContext(d->context);
  }
  free(set->stage[0]);
  free(set->stage[1]);
  memset(set, 0, sizeof *set);
}

/* ---- kernels ----------------------------------------------------------------------- */

#define MAX_PENDING_EVENTS 1024

/* Adds the profiled times of the first k kernel events (waiting for them) and releases
 * them. */
static ms_status settle(ms_gdev *d, int k)
{
  if (k <= 0)
    return MS_OK;
  MS_CL_TRY(clWaitForEvents((cl_uint)k, d->events), "clWaitForEvents");
  for (int e = 0; e < k; e++) {
    double s = ms_cl_event_seconds(d->events[e]);
    if (d->event_is_force[e]) {
      d->force_s += s;
      d->last_force_s = s;
    } else {
      d->other_s += s;
    }
    clReleaseEvent(d->events[e]);
  }
  d->n_events -= k;
  memmove(d->events, d->events + k, (size_t)d->n_events * sizeof *d->events);
  memmove(d->event_is_force, d->event_is_force + k, (size_t)d->n_events * sizeof(int));
  return MS_OK;
}

ms_status ms_gset_settle_all(ms_gdev *d) { return settle(d, d->n_events); }

/* Keeps a kernel's event for its profiled time; a long burst settles the older half
 * now and then, so that events do not pile up. */
static ms_status keep_event(ms_gdev *d, cl_event ev, int is_force)
{
  if (d->n_events == MAX_PENDING_EVENTS) {
    ms_status st = settle(d, MAX_PENDING_EVENTS / 2);
    if (st) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
      return st;
    }
  }
  if (d->n_events == d->cap_events) {
    int cap = d->cap_events ? 2 * d->cap_events : 64;
    cl_event *events = realloc(d->events, (size_t)cap * sizeof *events);
    if (events)
      d->events = events;
    int *kinds = events ? realloc(d->event_is_force, (size_t)cap * sizeof *kinds) : NULL;
    if (!kinds) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
      return ms_fail(MS_ERR_RUNTIME, "out of memory");
    }
    d->event_is_force = kinds;
    d->cap_events = cap;
  }
  d->events[d->n_events] = ev;
  d->event_is_force[d->n_events++] = is_force;
  return MS_OK;
}

/* --trace: an event slot for a transfer while recording (NULL otherwise: enqueued as
 * without the hook), then the event on the device's track, as its kernels. */
static cl_event *tev_slot(cl_event *ev)
{
  *ev = 0;
  return ms_tev_on ? ev : NULL;
}

static void tev_note(const ms_gdev *d, const char *name, cl_event ev)
{
  if (!ev)
    return;
  ms_tev_device(d->spec, name, ev);
  clReleaseEvent(ev);
}

static ms_status run(ms_gdev *d, cl_kernel k, const char *name, size_t global, size_t local,
                     int is_force)
{
  cl_event ev;
  cl_int err = clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &global, &local, 0, NULL, &ev);
  if (err != CL_SUCCESS)
    return ms_cl_check(err, "clEnqueueNDRangeKernel", name);
  if (ms_tev_on) /* --trace: one track per device */
    ms_tev_device(d->spec, name, ev);
  return keep_event(d, ev, is_force);
}

#define SET_ARG(k, i, v) MS_CL_TRY(clSetKernelArg(k, i, sizeof(v), &(v)), "clSetKernelArg")

static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

static ms_status enqueue_pack(ms_gset *set, ms_gdev *d, int buffer)
{
  SET_ARG(d->pack, 0, d->pos[buffer]);
  SET_ARG(d->pack, 1, d->soa);
  SET_ARG(d->pack, 2, set->n_pad);
  return run(d, d->pack, "ms_grav_pack", round_up((size_t)set->n_pad, 64), 64, 0);
}

/* The force kernel on pos[in] for the device's range; Taylor writes pos[1 - in]. */
static ms_status enqueue_force(ms_gset *set, ms_gdev *d, int in, int mode, const ms_gparams *p)
{
  if (d->count == 0)
    return MS_OK;
  if (d->variant->soa) {
    ms_status st = enqueue_pack(set, d, in);
    if (st)
      return st;
  }
  cl_kernel k = d->force;
  int end = d->first + d->count < set->n_body ? d->first + d->count : set->n_body;
  cl_mem none = NULL;
  SET_ARG(k, 0, d->pos[in]);
  SET_ARG(k, 1, d->pos[1 - in]);
  SET_ARG(k, 2, d->vel);
  SET_ARG(k, 3, d->acc);
  if (d->variant->soa)
    SET_ARG(k, 4, d->soa);
  else
    SET_ARG(k, 4, none);
  SET_ARG(k, 5, d->first);
  SET_ARG(k, 6, end);
  SET_ARG(k, 7, set->n_pad);
  SET_ARG(k, 8, p->eps2);
  SET_ARG(k, 9, p->g);
  SET_ARG(k, 10, p->dt);
  SET_ARG(k, 11, mode);
  size_t items = (size_t)d->count;
  if (d->variant->slices > 0)
    items *= (size_t)d->variant->slices;
  else
    items /= (size_t)d->variant->per_item;
  return run(d, k, d->variant->kernel, items, (size_t)d->launch.wg, 1);
}

static ms_status enqueue_drift(ms_gset *set, ms_gdev *d, int in, const ms_gparams *p)
{
  if (d->count == 0)
    return MS_OK;
  int end = d->first + d->count < set->n_body ? d->first + d->count : set->n_body;
  SET_ARG(d->drift, 0, d->pos[in]);
  SET_ARG(d->drift, 1, d->pos[1 - in]);
  SET_ARG(d->drift, 2, d->vel);
  SET_ARG(d->drift, 3, d->acc);
  SET_ARG(d->drift, 4, d->first);
  SET_ARG(d->drift, 5, end);
  SET_ARG(d->drift, 6, p->dt);
  return run(d, d->drift, "ms_grav_drift", round_up((size_t)d->count, 64), 64, 0);
}

/* A wait that sleeps: NVIDIA's clFinish and clWaitForEvents spin on a core, which
 * pocl's threads need when a CPU device shares the split (set->quiet_waits). The
 * event's completion callback wakes the host thread; clWaitForEvents afterwards returns
 * at once, with the command's error if it failed. */
typedef struct waiter {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
} waiter;

static void CL_CALLBACK wake(cl_event ev, cl_int status, void *arg)
{
  (void)ev;
  (void)status;
  waiter *w = arg;
  pthread_mutex_lock(&w->lock);
  w->done = 1;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
}

static ms_status wait_event(const ms_gset *set, cl_event ev)
{
  if (set->quiet_waits) {
    waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    if (clSetEventCallback(ev, CL_COMPLETE, wake, &w) == CL_SUCCESS) {
      pthread_mutex_lock(&w.lock);
      while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
      pthread_mutex_unlock(&w.lock);
    }
  }
  return ms_cl_check(clWaitForEvents(1, &ev), "clWaitForEvents", NULL);
}

/* clFinish, waiting quietly first (on a marker after everything queued). */
ms_status ms_gset_quiet_finish(ms_gset *set, ms_gdev *d)
{
  if (set->quiet_waits) {
    cl_event marker;
    MS_CL_TRY(clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &marker), "clEnqueueMarker");
    MS_CL_TRY(clFlush(d->queue), "clFlush");
    ms_status st = wait_event(set, marker);
    clReleaseEvent(marker);
    if (st)
      return st;
  }
  return ms_cl_check(clFinish(d->queue), "clFinish", NULL);
}

/* Several ranks, once every read of this rank is done (its range is whole in `stage`):
 * the other ranks' ranges are gathered around it and written to each device with bodies,
 * before and after this rank's range. */
static ms_status exchange_ranks(ms_gset *set, int buffer, float *stage)
{
  ms_status st = ms_ranks_gather(set->ranks, stage);
  size_t head = (size_t)set->range_first;
  size_t tail = head + (size_t)set->range_units * (size_t)set->granule;
  size_t from[2] = {0, tail}, to[2] = {head, (size_t)set->n_pad};
  for (int i = 0; !st && i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    if (d->count == 0)
      continue;
    for (int k = 0; !st && k < 2; k++) {
      if (to[k] <= from[k])
        continue;
      cl_event ev;
      cl_int err = clEnqueueWriteBuffer(d->queue, d->pos[buffer], CL_FALSE, from[k] * F4,
                                        (to[k] - from[k]) * F4, stage + 4 * from[k], 0, NULL,
                                        tev_slot(&ev));
      st = ms_cl_check(err, "clEnqueueWriteBuffer", "exchange");
      if (!st)
        tev_note(d, "write exchange", ev);
    }
    if (!st)
      st = ms_cl_check(clFlush(d->queue), "clFlush", NULL);
  }
  return st;
}

/* Range i of pos[buffer], read from device i into the host copy, to every other device
 * with bodies, queued as soon as that read is done: each write waits only for the read
 * of its own range, the next kernels on a queue only for that queue's writes, and no
 * queue is drained. A device without bodies takes no part. With several ranks the other
 * ranks' ranges follow (exchange_ranks). The time counted is the host's, from the first
 * range read to the last write queued. */
static ms_status exchange(ms_gset *set, int buffer)
{
  float *stage = set->stage[set->exchanges++ & 1];
  cl_event read[MS_GRAVITY_MAX_DEVICES] = {0};
  ms_status st = MS_OK;
  for (int i = 0; !st && i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    if (d->count == 0)
      continue;
    cl_int err = clEnqueueReadBuffer(d->queue, d->pos[buffer], CL_FALSE, (size_t)d->first * F4,
                                     (size_t)d->count * F4, stage + 4 * (size_t)d->first, 0, NULL,
                                     &read[i]);
    st = ms_cl_check(err, "clEnqueueReadBuffer", "exchange");
    if (!st && ms_tev_on)
      ms_tev_device(d->spec, "read exchange", read[i]);
    if (!st)
      st = ms_cl_check(clFlush(d->queue), "clFlush", NULL);
  }
  double t0 = 0.0;
  for (int i = 0; !st && i < set->n_dev; i++) {
    const ms_gdev *src = &set->dev[i];
    if (!read[i])
      continue;
    st = wait_event(set, read[i]);
    if (t0 == 0.0)
      t0 = ms_now();
    for (int j = 0; !st && j < set->n_dev; j++) {
      ms_gdev *d = &set->dev[j];
      if (j == i || d->count == 0)
        continue;
      cl_event ev;
      cl_int err = clEnqueueWriteBuffer(d->queue, d->pos[buffer], CL_FALSE, (size_t)src->first * F4,
                                        (size_t)src->count * F4, stage + 4 * (size_t)src->first,
                                        0, NULL, tev_slot(&ev));
      st = ms_cl_check(err, "clEnqueueWriteBuffer", "exchange");
      if (!st)
        tev_note(d, "write exchange", ev);
      if (!st)
        st = ms_cl_check(clFlush(d->queue), "clFlush", NULL);
    }
  }
  double reads_done = ms_now();
  for (int i = 0; i < set->n_dev; i++)
    if (read[i])
      clReleaseEvent(read[i]);
  if (!st && t0 == 0.0) /* (a rank without bodies reads nothing) */
    t0 = reads_done;
  if (!st && set->ranks)
    st = exchange_ranks(set, buffer, stage);
  if (st)
    return st;
  double end = set->ranks ? ms_now() : reads_done;
  set->exchange_s += end - t0;
  if (ms_tev_on)
    ms_tev_span("exchange", "exchange", t0, end);
  /* Every kernel before the reads is done: the step just measured. The wait for the other
   * ranks is not this rank's step: it counts as idle in the next one. */
  double step_s = set->reads_done_t > 0.0 ? reads_done - set->reads_done_t - set->idle_s : 0.0;
  set->reads_done_t = reads_done;
  set->idle_s = end - reads_done;
  return set->n_dev > 1 ? ms_gset_sample(set, step_s > 0.0 ? step_s : -1.0) : MS_OK;
}

ms_status ms_gset_force(ms_gset *set, int mode, const ms_gparams *p)
{
  for (int i = 0; i < set->n_dev; i++) {
    ms_status st = enqueue_force(set, &set->dev[i], set->cur, mode, p);
    if (st)
      return st;
  }
  return MS_OK;
}

/* The host time with drained queues (a read-back, diagnostics) is not the step's. */
static void note_idle(ms_gset *set)
{
  if (set->n_dev > 1 && set->idle_from == 0.0)
    set->idle_from = ms_now();
}

ms_status ms_gset_step(ms_gset *set, ms_integrator integrator, const ms_gparams *p)
{
  int in = set->cur, out = 1 - set->cur;
  ms_status st = MS_OK;
  if (set->idle_from > 0.0) {
    set->idle_s += ms_now() - set->idle_from;
    set->idle_from = 0.0;
  }
  if (integrator == MS_INTEGRATOR_LEAPFROG) {
    for (int i = 0; !st && i < set->n_dev; i++)
      st = enqueue_drift(set, &set->dev[i], in, p);
    if (!st && (set->active > 1 || set->ranks))
      st = exchange(set, out);
    for (int i = 0; !st && i < set->n_dev; i++)
      st = enqueue_force(set, &set->dev[i], out, MS_GRAV_MODE_KICK, p);
  } else {
    for (int i = 0; !st && i < set->n_dev; i++)
      st = enqueue_force(set, &set->dev[i], in, MS_GRAV_MODE_TAYLOR, p);
    if (!st && (set->active > 1 || set->ranks))
      st = exchange(set, out);
  }
  for (int i = 0; !st && i < set->n_dev; i++)
    st = ms_cl_check(clFlush(set->dev[i].queue), "clFlush", NULL);
  set->cur = out;
  set->steps++;
  /* One device with bodies: steps queue without the host, except while the controller
   * still measures (a step at a time, from its kernels' profiled times). Several ranks:
   * every step exchanges with the other ranks and is measured there. */
  if (!st && set->n_dev > 1 && set->active == 1 && !set->ranks &&
      ms_balance_wants_samples(&set->balance))
    st = ms_gset_sample(set, 0.0);
  return st;
}

ms_status ms_gset_finish(ms_gset *set)
{
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    ms_status st = ms_gset_quiet_finish(set, d);
    if (st)
      return st;
    st = settle(d, d->n_events);
    if (st)
      return st;
    if (d->count > 0 && d->last_force_s > 0.0)
      d->bodies_per_s = d->count / (d->last_force_s * d->slow);
  }
  note_idle(set);
  ms_status st = ms_gset_watch(set);
  return st ? st : ms_gset_seed(set);
}

ms_status ms_gset_read_range(ms_gdev *d, cl_mem buf, float *host, const char *name)
{
  if (d->count == 0)
    return MS_OK;
  cl_event ev;
  cl_int err = clEnqueueReadBuffer(d->queue, buf, CL_FALSE, (size_t)d->first * F4,
                                   (size_t)d->count * F4, host + 4 * (size_t)d->first, 0, NULL,
                                   tev_slot(&ev));
  if (err == CL_SUCCESS)
    tev_note(d, name, ev);
  return ms_cl_check(err, "clEnqueueReadBuffer", NULL);
}

ms_status ms_gset_read(ms_gset *set, float *pos, float *vel, float *acc)
{
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    ms_status st = ms_gset_read_range(d, d->pos[set->cur], pos, "read pos");
    if (!st && vel)
      st = ms_gset_read_range(d, d->vel, vel, "read vel");
    if (!st && acc)
      st = ms_gset_read_range(d, d->acc, acc, "read acc");
    if (st)
      return st;
  }
  for (int i = 0; i < set->n_dev; i++) {
    ms_status st = ms_gset_quiet_finish(set, &set->dev[i]);
    if (st)
      return st;
  }
  note_idle(set);
  return MS_OK;
}

ms_status ms_gset_upload(ms_gset *set, const float *pos, const float *vel, const float *acc)
{
  size_t bytes = (size_t)set->n_pad * F4;
  for (int i = 0; i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    cl_mem dst[] = {d->pos[0], d->pos[1], d->vel, d->acc};
    const float *src[] = {pos, pos, vel, acc};
    for (int b = 0; b < 4; b++)
      MS_CL_TRY(clEnqueueWriteBuffer(d->queue, dst[b], CL_TRUE, 0, bytes, src[b], 0, NULL, NULL),
                "clEnqueueWriteBuffer");
  }
  return MS_OK;
}
