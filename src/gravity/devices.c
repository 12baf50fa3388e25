/* Gravity mode's device list (--devices): "all", "P:D", "gpu"/"cpu", a device named
 * twice (two contexts), and "P:D/K" for K sub-devices of equal compute units. */
#include "gravity/split.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"

static ms_status add_device(ms_gset *set, const ms_cl_device *d, const char *spec)
{
  if (set->n_dev == MS_GRAVITY_MAX_DEVICES)
    return ms_fail(MS_ERR_INPUT, "--devices: at most %d devices", MS_GRAVITY_MAX_DEVICES);
  ms_gdev *g = &set->dev[set->n_dev++];
  g->cl = *d;
  g->slow = 1.0;
  snprintf(g->spec, sizeof g->spec, "%s", spec);
  return MS_OK;
}

/* Sub-devices are made once per parent and count, and kept until the process ends:
 * pocl 3.1 frees a released sub-device while its worker thread may still be releasing
 * the last event of a finished queue, which crashed about one run in seven here. */
typedef struct sub_devices {
  cl_device_id parent;
  int k;
  cl_uint made;
  cl_device_id dev[MS_GRAVITY_MAX_DEVICES];
} sub_devices;

static pthread_mutex_t g_subs_lock = PTHREAD_MUTEX_INITIALIZER;
static sub_devices g_subs[8];
static int g_subs_count;

static ms_status partition(cl_device_id parent, int k, cl_uint units, const sub_devices **out)
{
  pthread_mutex_lock(&g_subs_lock);
  ms_status st = MS_OK;
  sub_devices *found = NULL;
  for (int i = 0; i < g_subs_count && !found; i++)
    if (g_subs[i].parent == parent && g_subs[i].k == k)
      found = &g_subs[i];
  if (!found && g_subs_count == (int)(sizeof g_subs / sizeof g_subs[0]))
    st = ms_fail(MS_ERR_INPUT, "--devices: too many different sub-device splits");
  if (!found && !st) {
    sub_devices *s = &g_subs[g_subs_count];
    /* k < 0: one sub-device of -k compute units (reserve_host_cores) */
    cl_uint each = k > 0 ? units / (cl_uint)k : 1;
    cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY,
                                              (cl_device_partition_property)each, 0};
    cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS,
                                             (cl_device_partition_property)-k,
                                             CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    const cl_device_partition_property *props = k > 0 ? equally : counts;
    cl_int err = clCreateSubDevices(parent, props, 0, NULL, &s->made);
    if (err == CL_SUCCESS && s->made > MS_GRAVITY_MAX_DEVICES)
      err = CL_DEVICE_PARTITION_FAILED;
    if (err == CL_SUCCESS)
      err = clCreateSubDevices(parent, props, s->made, s->dev, NULL);
    st = ms_cl_check(err, "clCreateSubDevices", NULL);
    if (!st) {
      s->parent = parent;
      s->k = k;
      found = &g_subs[g_subs_count++];
    }
  }
  pthread_mutex_unlock(&g_subs_lock);
  *out = found;
  return st;
}

/* "P:D/K": K sub-devices of equal size, each then used like a device of its own. */
static ms_status add_sub_devices(ms_gset *set, const char *base, int k)
{
  ms_cl_device parent;
  ms_status st = ms_cl_find_device(base, &parent);
  if (st)
    return st;
  cl_uint units = 0;
  MS_CL_TRY(clGetDeviceInfo(parent.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                            NULL),
            "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)");
  if (k < 1 || units / (cl_uint)k == 0)
    return ms_fail(MS_ERR_INPUT, "--devices %s/%d: the device has %u compute units", base, k,
                   units);
  const sub_devices *subs;
  st = partition(parent.device, k, units, &subs);
  for (int s = 0; !st && s < k && s < (int)subs->made; s++) {
    char spec[64];
    ms_cl_device sub = parent;
    sub.device = subs->dev[s];
    snprintf(sub.name, sizeof sub.name, "%.200s (sub-device %d/%d)", parent.name, s + 1, k);
    snprintf(spec, sizeof spec, "%.20s/%d#%d", parent.spec, k, s);
    st = add_device(set, &sub, spec);
  }
  return st;
}

/* One item of the list: gpu, cpu, P:D or P:D/K. Returns 1 with *k (0: no /K), 0 for
 * bad syntax, -1 for an index or K out of range. */
static int parse_item(const char *s, long *k)
{
  *k = 0;
  if (!strcmp(s, "gpu") || !strcmp(s, "cpu"))
    return 1;
  unsigned p, d;
  int in_range = 0;
  const char *end;
  if (!ms_cl_parse_pd(s, &p, &d, &in_range, &end))
    return 0;
  if (*end == '/') {
    ms_number_error err = ms_number_digits(end + 1, 1, MS_GRAVITY_MAX_DEVICES, k, &end);
    if (err == MS_NUMBER_SYNTAX)
      return 0;
    in_range = in_range && err == MS_NUMBER_OK;
  }
  if (*end)
    return 0;
  return in_range ? 1 : -1;
}

/* A whole CPU device that shares the split with GPUs runs on a sub-device that leaves
 * one core to each GPU's driver thread and one to the host thread: pocl starts a thread
 * per compute unit, and a driver thread that waits for its GPU (NVIDIA's spins) on a
 * core that pocl also uses makes every step wait for the slower of the two. Where the
 * CPU cannot be partitioned it is used whole, with a warning. */
static ms_status reserve_host_cores(ms_gset *set)
{
  int gpus = 0;
  for (int i = 0; i < set->n_dev; i++)
    gpus += !(set->dev[i].cl.type & CL_DEVICE_TYPE_CPU);
  for (int i = 0; gpus > 0 && i < set->n_dev; i++) {
    ms_gdev *d = &set->dev[i];
    cl_uint units = 0;
    if (!(d->cl.type & CL_DEVICE_TYPE_CPU) || strchr(d->spec, '/') ||
        clGetDeviceInfo(d->cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL) !=
            CL_SUCCESS ||
        (int)units - gpus - 1 < 1)
      continue;
    int keep = (int)units - gpus - 1;
    const sub_devices *subs;
    ms_status st = partition(d->cl.device, -keep, units, &subs);
    if (st) {
      ms_warn("--devices: %s (%s) cannot be partitioned (%s): it shares its %u cores with the "
              "host thread that drives the GPUs", d->spec, d->cl.name, ms_error_message(), units);
      ms_error_clear();
      continue;
    }
    d->cl.device = subs->dev[0];
    d->cores_kept = 1;
    char name[sizeof d->cl.name];
    snprintf(name, sizeof name, "%.200s (%d of %u compute units)", d->cl.name, keep, units);
    snprintf(d->cl.name, sizeof d->cl.name, "%s", name);
  }
  return MS_OK;
}

static ms_status parse_list(ms_gset *set, const char *list);

ms_status ms_gset_parse_devices(ms_gset *set, const char *list)
{
  ms_status st = parse_list(set, list);
  return st ? st : reserve_host_cores(set);
}

static ms_status parse_list(ms_gset *set, const char *list)
{
  int from_env = !list; /* an empty MIXSIM_DEVICE is unset; an empty --devices a mistake */
  const char *what = from_env ? "MIXSIM_DEVICE" : "--devices";
  if (from_env)
    list = getenv("MIXSIM_DEVICE");
  if (!list || (from_env && !*list)) { /* the first GPU, else a CPU */
    ms_cl_device d;
    ms_status st = ms_cl_find_device(NULL, &d);
    return st ? st : add_device(set, &d, d.spec);
  }
  if (!strcmp(list, "all")) {
    ms_cl_device *all = NULL;
    int n = 0;
    ms_status st = ms_cl_all_devices(&all, &n);
    for (int i = 0; !st && i < n; i++)
      st = add_device(set, &all[i], all[i].spec);
    free(all);
    return st;
  }
  char buf[512];
  if (strlen(list) >= sizeof buf)
    return ms_fail(MS_ERR_INPUT, "%s: list too long", what);
  strcpy(buf, list);
  /* Items split at every comma: an empty one ("", "cpu,", ",cpu", "cpu,,cpu") is a
   * mistake, not a device to skip. */
  char *item = buf;
  for (int position = 1;; position++) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    if (!*item)
      return ms_fail(MS_ERR_INPUT, "%s: item %d of '%s' is empty (expected all, or a "
                                   "comma-separated list of gpu, cpu, P:D or P:D/K)",
                     what, position, list);
    long k = 0;
    int ok = parse_item(item, &k);
    if (ok < 0)
      return ms_fail(MS_ERR_INPUT, "%s: in '%s', P and D must be between 0 and %d and K "
                                   "between 1 and %d (see --list-devices)",
                     what, item, MS_CL_MAX_INDEX, MS_GRAVITY_MAX_DEVICES);
    if (!ok)
      return ms_fail(MS_ERR_INPUT,
                     "%s: expected all, or a comma-separated list of gpu, cpu, P:D or "
                     "P:D/K (see --list-devices), got '%s'",
                     what, item);
    char *slash = strchr(item, '/');
    ms_status st;
    if (slash) {
      *slash = '\0';
      st = add_sub_devices(set, item, (int)k);
    } else {
      ms_cl_device d;
      st = ms_cl_find_device(item, &d);
      if (!st)
        st = add_device(set, &d, d.spec);
    }
    if (st || !comma)
      return st;
    item = comma + 1;
  }
}
