/* Lets the headers in kernels/shared/ compile both as OpenCL C and as host C11, so
 * the host and the kernels share one definition of every formula. */
#ifndef MS_SHARED_COMPAT_H
#define MS_SHARED_COMPAT_H

#ifdef __OPENCL_C_VERSION__
#pragma OPENCL FP_CONTRACT OFF
/* Positions and velocities are double (mixsim/scene.h says why); the host refuses a
 * device without cl_khr_fp64 before building. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define MS_FN static inline
#define ms_sqrtf(x) sqrt(x)
#define ms_floorf(x) floor(x)
#define ms_isfinitef(x) isfinite(x)
/* in double, for positions (kernels/shared/wall.h) */
#define ms_sqrt(x) sqrt(x)
#define ms_floor(x) floor(x)
#else
#include <math.h>
#define MS_FN static inline
#define ms_sqrtf(x) sqrtf(x)
#define ms_floorf(x) floorf(x)
#define ms_isfinitef(x) isfinite(x)
/* in double, for positions (kernels/shared/wall.h) */
#define ms_sqrt(x) sqrt(x)
#define ms_floor(x) floor(x)
#endif

/* A 2D vector both sides agree on (OpenCL float2 has no host twin in C). */
typedef struct ms_v2 {
  float x, y;
} ms_v2;

#endif
