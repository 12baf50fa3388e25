/* Gravity force-kernel variants: the table, the per-device launch geometry and build
 * options, and the default choice. Measured figures are in docs/gravity.md. */
#include "gravity/variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mixsim/gravity.h"

static const ms_gravity_variant g_variants[] = {
  {"simple", "ms_grav_simple", "the tutorial's kernel: local-memory tiles, one body per work-item",
   0, 1, 0, 0},
  {"tiled", "ms_grav_tiled", "GPU: tiles, inner loop unrolled by 8, one body per work-item",
   0, 1, 0, 0},
  {"tiled2", "ms_grav_tiled", "GPU: as tiled, two bodies per work-item", 0, 2, 0, 0},
  {"tiled4", "ms_grav_tiled", "GPU: as tiled, four bodies per work-item", 0, 4, 0, 0},
  {"jsplit4", "ms_grav_jsplit", "GPU, few bodies: four work-items per body, each a quarter of j",
   0, 1, 4, 0},
  {"soa8", "ms_grav_soa", "CPU (AVX2): float8 over j from SoA arrays, 4 bodies per work-item",
   1, 4, 0, 8},
  {"soa16", "ms_grav_soa", "CPU (AVX-512): float16 over j from SoA arrays, 4 bodies per work-item",
   1, 4, 0, 16},
};
#define VARIANT_COUNT ((int)(sizeof g_variants / sizeof g_variants[0]))

int ms_gravity_variant_count(void) { return VARIANT_COUNT; }

const ms_gravity_variant *ms_gravity_variant_at(int i)
{
  return i >= 0 && i < VARIANT_COUNT ? &g_variants[i] : NULL;
}

const ms_gravity_variant *ms_gravity_variant_find(const char *name)
{
  for (int i = 0; i < VARIANT_COUNT; i++)
    if (strcmp(g_variants[i].name, name) == 0)
      return &g_variants[i];
  return NULL;
}

int ms_gravity_kernel_count(void) { return VARIANT_COUNT; }

const char *ms_gravity_kernel_name(int i)
{
  return i >= 0 && i < VARIANT_COUNT ? g_variants[i].name : NULL;
}

const char *ms_gravity_kernel_summary(int i)
{
  return i >= 0 && i < VARIANT_COUNT ? g_variants[i].summary : NULL;
}

/* CPUs: the widest float vector the device prefers. GPUs: tiles with two bodies per
 * work-item while there are enough bodies to give every compute unit 1024 work-items,
 * else four work-items per body, which multiplies the work-items by four. */
const ms_gravity_variant *ms_gravity_variant_default(cl_device_id device, int n)
{
  cl_device_type type = 0;
  clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  if (type & CL_DEVICE_TYPE_GPU) {
    cl_uint units = 1;
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    return ms_gravity_variant_find((long)n >= 2048L * units ? "tiled2" : "jsplit4");
  }
  cl_uint width = 0;
  clGetDeviceInfo(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof width, &width, NULL);
  return ms_gravity_variant_find(width >= 16 ? "soa16" : "soa8");
}

static int floor_pow2(size_t v)
{
  int p = 1;
  while ((size_t)p * 2 <= v && p < (1 << 20))
    p *= 2;
  return p;
}

ms_status ms_gravity_launch_for(const ms_gravity_variant *v, cl_device_id device, int wg,
                                ms_gravity_launch *out)
{
  memset(out, 0, sizeof *out);
  if (v->soa) {
    /* One work-item per group: pocl then runs the kernel body as written, without a
     * work-item loop around it. 64-body ranges keep split points well aligned. */
    out->wg = 1;
    out->granule = 64;
    out->pad = 64;
    snprintf(out->options, sizeof out->options, "-cl-std=CL1.2 -D MS_VW=%d -D MS_BPI=%d",
             v->vector_width, v->per_item);
    return MS_OK;
  }
  size_t max_wg = 1;
  cl_int err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  if (err != CL_SUCCESS)
    return ms_fail(MS_ERR_RUNTIME, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE) failed (%d)",
                   (int)err);
  if (wg <= 0) {
    const char *env = getenv("MIXSIM_GRAVITY_WG");
    wg = env && *env ? atoi(env) : 256;
    if (wg <= 0 || (wg & (wg - 1)) != 0)
      return ms_fail(MS_ERR_INPUT, "MIXSIM_GRAVITY_WG: expected a power of two, got '%s'", env);
  }
  if ((size_t)wg > max_wg)
    wg = floor_pow2(max_wg);
  int slices = v->slices > 0 ? v->slices : 1;
  if (wg < 2 * slices)
    wg = 2 * slices;
  out->wg = wg;
  out->granule = v->slices > 0 ? wg / slices : wg * v->per_item;
  out->pad = wg > out->granule ? wg : out->granule;
  /* Flushing subnormals lets NVIDIA's compiler issue rsqrt as one instruction, without
   * the test and two rescaling multiplies that subnormal inputs need; r^2 >= eps^2 >=
   * 1e-24 is never subnormal, so only negligible terms can be affected. */
  int n = snprintf(out->options, sizeof out->options,
                   "-cl-std=CL1.2 -cl-denorms-are-zero -D MS_WG=%d -D MS_IPT=%d", wg,
                   v->per_item);
  if (v->slices > 0)
    snprintf(out->options + n, sizeof out->options - (size_t)n, " -D MS_SLICES=%d", v->slices);
  return MS_OK;
}
