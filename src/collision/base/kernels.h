/* The collision mode's OpenCL program: kernels/grid.cl, collide.cl, integrate.cl, zone.cl,
 * large.cl, friction.cl, large_friction.cl, walls.cl, open.cl and domains.cl,
 * built from the copy embedded at build time or from MIXSIM_KERNEL_DIR, and the
 * kernels the GPU manager enqueues. */
#ifndef MS_KERNELS_H
#define MS_KERNELS_H

#include "cl/runtime.h"

enum ms_kernel_id {
  MS_K_GRID_CLEAR,
  MS_K_GRID_INSERT,
  MS_K_GRID_SORT,
  MS_K_COLLIDE_SMALL,
  MS_K_INTEGRATE_SMALL,
  MS_K_ZONE_MARK,    /* on the worker's queue (collision/exchange/zone.h) */
  MS_K_ZONE_BLOCKS,  /* on the worker's queue */
  MS_K_ZONE_SCAN,    /* on the worker's queue, one work-group */
  MS_K_ZONE_GATHER,  /* on the worker's queue */
  MS_K_ZONE_SPANS,   /* on the worker's queue */
  MS_K_ZONE_SCATTER, /* on the worker's queue (the torques too, friction on) */
  /* large_on = device (collision/device_only/device_large.h), on the manager's queue */
  MS_K_LARGE_LIST_CLEAR,
  MS_K_LARGE_LIST_INSERT,
  MS_K_LARGE_LIST_SORT,
  MS_K_LARGE_SMALL_REACT,
  MS_K_LARGE_SMALL_APPLY,
  MS_K_LARGE_LARGE,
  MS_K_LARGE_WALLS,
  MS_K_INTEGRATE_LARGE,
  MS_K_WALLS_SMALL_APPLY, /* walls of any shape, frictionless */
  /* friction on (kernels/friction.cl), on the manager's queue */
  MS_K_INTEGRATE_FRIC,
  MS_K_NLIST_CHECK,
  MS_K_NLIST_BUILD,
  MS_K_COLLIDE_FRIC,
  /* large_on = device with friction (kernels/large_friction.cl), on the manager's queue */
  MS_K_LARGE_SMALL_REACT_FRIC,
  MS_K_LARGE_SMALL_APPLY_FRIC,
  MS_K_LARGE_LARGE_FRIC,
  MS_K_LARGE_WALLS_FRIC,
  MS_K_INTEGRATE_LARGE_FRIC,
  MS_K_WALLS_SMALL_APPLY_FRIC, /* walls of any shape with friction */
  MS_K_WALLS_SPAN_SUM,         /* the walls' reactions on the device-only path */
  MS_K_WALLS_TOTAL,
  MS_K_WALLS_DROPPED,          /* --diagnostics with friction: the walls' ended contacts */
  MS_K_OPEN_SCAN,              /* an open system's exchange (kernels/open.cl), manager's queue */
  /* a split run's meeting (kernels/domains.cl, collision/split.h), manager's queue */
  MS_K_SPLIT_COUNT,
  MS_K_SPLIT_PACK,
  MS_K_SPLIT_COMMIT,
  MS_K_SPLIT_UNPACK,
  MS_K_SPLIT_OWN,
  MS_KERNEL_COUNT
};

typedef struct ms_kernels {
  cl_program program; /* every kernel but the seams' (the same for every scene) */
  cl_program seams;   /* the device-only path's, with the run's constants; NULL until built */
  cl_kernel kernel[MS_KERNEL_COUNT];
  size_t local_size[MS_KERNEL_COUNT];
  size_t max_group[MS_KERNEL_COUNT]; /* the device's largest work-group for the kernel */
  char options[1200];                /* the build's, for the seams' program */
  char *source;                      /* kernel_dir's, for the same (else the embedded one) */
} ms_kernels;

/* Builds the program for cl's device (from `kernel_dir` when not NULL) and creates
 * every kernel but the device-only path's (kernels/large.cl, large_friction.cl), which
 * take the run's constants. `diagnostics` defines MS_DIAG: the kernels that have one get
 * their dissipation accumulator (collide.cl); without it the program is the usual one.
 * The program depends on neither the scene nor the run, so a kernel cache compiled for
 * one scene serves them all. On failure the message carries the build log; release
 * either way. */
ms_status ms_kernels_build(ms_kernels *k, const ms_cl *cl, const char *kernel_dir,
                           int diagnostics);

/* Builds the device-only path's kernels (once; again is a no-op) with `defines` added to
 * the options: the run's constants they take so (kernels/large.cl's MS_PERIOD_X,
 * MS_PERIOD_Y, MS_R_LARGE_MAX), a program of their own per scene. */
ms_status ms_kernels_build_seams(ms_kernels *k, const ms_cl *cl, const char *defines);
void ms_kernels_release(ms_kernels *k);

/* Enqueues `kernel` on the manager's queue over `n` items (rounded up to the
 * work-group size). */
ms_status ms_kernels_run_1d(const ms_kernels *k, const ms_cl *cl, int kernel, size_t n,
                            cl_event *ev);

/* The same, starting once `after` (an event of another queue, or NULL) is complete. */
ms_status ms_kernels_run_1d_after(const ms_kernels *k, const ms_cl *cl, int kernel, size_t n,
                                  cl_event after, cl_event *ev);

/* The same on `queue` (the worker's own kernels run on its queue). */
ms_status ms_kernels_run_1d_on(const ms_kernels *k, cl_command_queue queue, int kernel, size_t n,
                               cl_event *ev);

/* Enqueues `kernel` as `groups` work-groups of `lanes` work-items each on `queue` (for
 * kernels that share local memory; lanes at most max_group[kernel]). */
ms_status ms_kernels_run_groups_on(const ms_kernels *k, cl_command_queue queue, int kernel,
                                   size_t groups, size_t lanes, cl_event *ev);

/* Sets argument `i` of kernel `id` of the program `k` to `value` (an lvalue), returning
 * the failure, named with the kernel and the argument, from the calling function. */
#define MS_KERNEL_ARG(k, id, i, value)                                                     \
  MS_CL_TRY(clSetKernelArg((k)->kernel[id], (i), sizeof(value), &(value)),                \
            "clSetKernelArg(" #id ", " #value ")")

/* Short name for reports ("grid_insert"). */
const char *ms_kernel_name(int kernel);

#endif
