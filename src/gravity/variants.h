/* The force-kernel variants of gravity mode (kernels/gravity.cl): what each one needs
 * from the host, how it is built and launched on a device, and which one a device gets
 * when none is named. */
#ifndef MS_GRAVITY_KERNELS_H
#define MS_GRAVITY_KERNELS_H

#include <CL/cl.h>

#include "mixsim/status.h"

typedef struct ms_gravity_variant {
  const char *name;
  const char *kernel;  /* function in kernels/gravity.cl */
  const char *summary; /* one line for --help and docs */
  int soa;             /* streams the structure-of-arrays copy, made by ms_grav_pack */
  int per_item;        /* bodies per work-item: MS_IPT (tiled) or MS_BPI (soa) */
  int slices;          /* work-items per body (jsplit), else 0 */
  int vector_width;    /* MS_VW (soa), else 0 */
} ms_gravity_variant;

/* How a variant runs on one device. */
typedef struct ms_gravity_launch {
  int wg;            /* MS_WG: work-group size of the tiled kernels; 1 for soa */
  int granule;       /* bodies per work-group: device ranges are multiples of it */
  int pad;           /* the body count is padded to a multiple of it */
  char options[256]; /* build options */
} ms_gravity_launch;

int ms_gravity_variant_count(void);
const ms_gravity_variant *ms_gravity_variant_at(int i);
const ms_gravity_variant *ms_gravity_variant_find(const char *name);

/* The variant a device gets by default for n bodies. */
const ms_gravity_variant *ms_gravity_variant_default(cl_device_id device, int n);

/* Fills `out` for `v` on `device`, with work-group size `wg` (0: from the device, or
 * $MIXSIM_GRAVITY_WG). */
ms_status ms_gravity_launch_for(const ms_gravity_variant *v, cl_device_id device, int wg,
                                ms_gravity_launch *out);

#endif
