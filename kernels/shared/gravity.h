/* The gravitational interaction, written once: Plummer-softened point masses,
 *     a_i += m_j r_ij / (|r_ij|^2 + eps^2)^(3/2),   r_ij = x_j - x_i,
 * with G applied once to the finished sum. The self term has r_ij = 0 and adds
 * nothing, which is why eps must be > 0. The kernels instantiate it for float and
 * float8/float16, the CPU reference (src/gravity/reference.c) for double. */
#ifndef MS_SHARED_GRAVITY_H
#define MS_SHARED_GRAVITY_H

#include "compat.h"

/* What a force kernel does with body i once its acceleration a_i is summed. */
#define MS_GRAV_MODE_ACCEL 0  /* store a_i only (start of a leapfrog run, tests) */
#define MS_GRAV_MODE_KICK 1   /* store a_i, v_i += a_i dt/2 (leapfrog: the closing kick) */
#define MS_GRAV_MODE_TAYLOR 2 /* x_i += v_i dt + a_i dt^2/2 into the other buffer, v_i += a_i dt */

#ifdef __OPENCL_C_VERSION__
#define ms_grav_fma(a, b, c) fma(a, b, c)
#define ms_grav_sqrt(x) sqrt(x)
#ifdef MS_NATIVE_RSQRT /* -D MS_NATIVE_RSQRT: the device's fastest form, for tuning */
#define ms_grav_rsqrt(x) native_rsqrt(x)
#else
#define ms_grav_rsqrt(x) rsqrt(x)
#endif
#else
#define ms_grav_fma(a, b, c) fma(a, b, c)
#define ms_grav_sqrt(x) sqrt(x)
#define ms_grav_rsqrt(x) (1.0 / sqrt(x))
#endif

/* Defines  void NAME(T dx, T dy, T dz, T m_j, T eps2, T *ax, T *ay, T *az)  adding the
 * pull of body j on body i, (dx, dy, dz) = x_j - x_i, for a scalar or vector type T.
 *
 * The multiply-adds are explicit fma: compat.h turns contraction off so that results
 * do not depend on the compiler, and an fma is exactly rounded, so every device gives
 * the same bits for it; GPUs and AVX2/AVX-512 CPUs issue one instruction for each.
 *
 * RSQRT_FORM picks how r2^(-3/2) is formed, the same quantity rounded differently:
 *   1: rsqrt(r2) cubed, for GPUs, where rsqrt is one special-function instruction;
 *   0: 1 / (r2 sqrt(r2)), for CPUs, where pocl's rsqrt is itself a square root and a
 *      division, so this form saves two multiplies (measured 15 vs 13.5e9 interactions/s
 *      with float16 on pocl, AVX-512). */
#define MS_GRAVITY_DEFINE(NAME, T, RSQRT_FORM)                                         \
  MS_FN void NAME(T dx, T dy, T dz, T m_j, T eps2, T *ax, T *ay, T *az)                \
  {                                                                                    \
    T r2 = ms_grav_fma(dx, dx, ms_grav_fma(dy, dy, ms_grav_fma(dz, dz, eps2)));        \
    T s;                                                                               \
    if (RSQRT_FORM) {                                                                  \
      T inv = ms_grav_rsqrt(r2);                                                       \
      s = m_j * (inv * inv * inv);                                                     \
    } else {                                                                           \
      s = m_j / (r2 * ms_grav_sqrt(r2));                                               \
    }                                                                                  \
    *ax = ms_grav_fma(dx, s, *ax);                                                     \
    *ay = ms_grav_fma(dy, s, *ay);                                                     \
    *az = ms_grav_fma(dz, s, *az);                                                     \
  }

#ifndef __OPENCL_C_VERSION__
/* Host-only, double precision: the potential whose gradient the force above is,
 *     phi_ij = -G m_i m_j / sqrt(r^2 + eps^2),
 * so that energy diagnostics measure what the integrator conserves. */
static inline double ms_gravity_pair_potential(double dx, double dy, double dz, double m_i,
                                               double m_j, double g, double eps2)
{
  return -g * m_i * m_j / sqrt(dx * dx + dy * dy + dz * dz + eps2);
}
#endif

#endif
