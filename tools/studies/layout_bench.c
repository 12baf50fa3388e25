/* layout_bench: what the small discs' state layout costs and what precision it buys.
 * Runs the collision iteration of mixsim (grid clear, atomic insert, per-cell sort,
 * 3x3 collide with the walls, integrate; kernels in tools/studies/layout_bench.cl, built into the
 * program) for N small discs in three layouts on one OpenCL device:
 *   A  pos float2, vel float2 (the old layout, scene coordinates)
 *   B  pos double2, vel double2 (mixsim's layout, measured from the box's min corner)
 *   C  pos int2 cell + float2 offset inside the cell, vel double2
 * and prints, as Markdown, the kernel times per iteration (OpenCL profiling; median and
 * range over --repeat runs interleaving the layouts), the bytes per particle, a check
 * that the layouts agree to float tolerance, and the drift error of one free slow disc
 * (issue 10's criterion: |moved / (v t) - 1| < 1e-6). docs/precision.md has the figures;
 * layout_bench --help lists the options. */
#include <CL/cl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "core/number.h"
#include "mixsim/status.h"
#include "shared/contact.h"

extern const char ms_layout_bench_source[];

#define LB_WG 64        /* work-group size of every kernel, every layout */
#define LB_CAP 8        /* grid cell capacity, as mixsim's default */
#define LB_FLAGS 3      /* overflow, outside, non-finite (layout_bench.cl) */
#define LB_LAYOUTS 3
#define LB_KERNELS 5
#define LB_MAX_REPEAT 100

static const char *const layout_name[LB_LAYOUTS] = {"A float", "B double", "C cell-relative"};
static const char *const kernel_name[LB_KERNELS] = {"clear", "insert", "sort", "collide",
                                                     "integrate"};

typedef struct lb_opts {
  const char *device;
  long n, steps, repeat, warmup, check;
  int help, list; /* --help, --list-devices: print and stop */
} lb_opts;

/* The scene: a square lattice of equal discs in a box of nx x ny whole grid cells whose
 * min corner is the origin (so scene and frame coordinates coincide). Positions are
 * rounded to float once, so the three layouts start from the very same state. */
typedef struct lb_scene {
  int n, nx, ny;
  double h;             /* cell size: the disc diameter, a float (exact in every layout) */
  double w, ht;         /* box = [0, w] x [0, ht] = nx x ny cells */
  float r, m, k, two_zeta;
  double gx, gy, dt;
  double *x, *y;        /* initial positions */
  float *vx, *vy;       /* initial velocities */
} lb_scene;

/* Device buffers: the state of each layout, and the grid, shapes and forces they share
 * (the layouts run one after the other). */
typedef struct lb_dev {
  ms_cl cl;
  cl_program prog;
  cl_mem pos_a, vel_a, pos_b, vel_b, cell_c, off_c, vel_c;
  cl_mem shape, force, count, idx, flags;
  cl_kernel clear, sort, insert[LB_LAYOUTS], collide[LB_LAYOUTS], integrate[LB_LAYOUTS];
} lb_dev;

static uint64_t rng_next(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Uniform in [-a, a], rounded to float. */
static float rng_spread(uint64_t *s, double a)
{
  return (float)(((double)(rng_next(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0) * a);
}

/* Lattice of pitch `pitch` diameters, bottom-left, in a box with a quarter of its height
 * free above the bed; velocities uniform in +-0.01 m/s. */
static ms_status scene_make(lb_scene *s, int n, double pitch)
{
  memset(s, 0, sizeof *s);
  s->n = n;
  s->r = 0.005f;
  s->h = 2.0 * (double)s->r; /* exactly a float: twice a float */
  s->m = (float)(1000.0 * MS_PI * s->r * s->r); /* density 1000 kg/m^2 */
  s->k = 1e5f;
  s->two_zeta = (float)(2.0 * ms_damping_ratio(0.5));
  s->gx = 0.0;
  s->gy = -9.81;
  s->dt = 1e-4;
  int per_row = (int)ceil(sqrt((double)n));
  int rows = (n + per_row - 1) / per_row;
  double p = pitch * s->h;
  s->nx = (int)ceil((per_row * p + 0.001) / s->h);
  s->ny = (int)ceil((rows * p * 1.25 + 0.001) / s->h);
  s->w = s->nx * s->h;
  s->ht = s->ny * s->h;
  s->x = malloc((size_t)n * sizeof *s->x);
  s->y = malloc((size_t)n * sizeof *s->y);
  s->vx = malloc((size_t)n * sizeof *s->vx);
  s->vy = malloc((size_t)n * sizeof *s->vy);
  if (!s->x || !s->y || !s->vx || !s->vy)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %d discs", n);
  double x0 = (s->w - per_row * p) / 2.0;
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < n; i++) {
    s->x[i] = (float)(x0 + (i % per_row + 0.5) * p);
    s->y[i] = (float)(0.0002 + (i / per_row + 0.5) * p);
    s->vx[i] = rng_spread(&seed, 0.01);
    s->vy[i] = rng_spread(&seed, 0.01);
  }
  return MS_OK;
}

static void scene_free(lb_scene *s)
{
  free(s->x), free(s->y), free(s->vx), free(s->vy);
}

/* Cell index and float offset of a frame coordinate, the offset in [0, h). */
static void split_c(double x, double h, int *c, float *o)
{
  double s = floor(x / h);
  double r = x - s * h;
  if (r < 0.0) {
    s -= 1.0;
    r += h;
  } else if (r >= h) {
    s += 1.0;
    r -= h;
  }
  float of = (float)r;
  if (of >= (float)h) {
    s += 1.0;
    of = 0.0f;
  }
  *c = (int)s;
  *o = of;
}

static ms_status make_buffer(lb_dev *d, size_t bytes, cl_mem *out)
{
  cl_int err;
  *out = clCreateBuffer(d->cl.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  return ms_cl_check(err, "clCreateBuffer", NULL);
}

static ms_status make_kernel(lb_dev *d, const char *name, cl_kernel *out)
{
  cl_int err;
  *out = clCreateKernel(d->prog, name, &err);
  return ms_cl_check(err, "clCreateKernel", name);
}

/* Sets kernel arguments from a list of (size, pointer) pairs; stops at size 0. */
static ms_status set_args(cl_kernel k, const char *name, size_t size, const void *value, ...)
{
  va_list ap;
  va_start(ap, value);
  cl_uint i = 0;
  cl_int err = CL_SUCCESS;
  while (size != 0 && err == CL_SUCCESS) {
    err = clSetKernelArg(k, i++, size, value);
    size = va_arg(ap, size_t);
    if (size != 0)
      value = va_arg(ap, const void *);
  }
  va_end(ap);
  return ms_cl_check(err, "clSetKernelArg", name);
}

#define ARG(v) sizeof(v), (const void *)&(v)
#define LB_END ((size_t)0) /* a size_t, as set_args reads it */

/* Program, buffers and kernels with their arguments, for the scene's sizes. */
static ms_status dev_setup(lb_dev *d, const lb_scene *s)
{
  /* mixsim's build options: correctly rounded / and sqrt where the device has them. */
  cl_device_fp_config fp = 0;
  clGetDeviceInfo(d->cl.device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
  const char *opt = fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
                        ? "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
                        : "-cl-std=CL1.2";
  ms_status st = ms_cl_build(d->cl.context, d->cl.device, ms_layout_bench_source, opt, &d->prog);
  size_t n = (size_t)s->n, cells = (size_t)s->nx * (size_t)s->ny;
  cl_mem *bufs[] = {&d->pos_a, &d->vel_a, &d->pos_b, &d->vel_b, &d->cell_c, &d->off_c,
                    &d->vel_c, &d->shape, &d->force, &d->count, &d->idx, &d->flags};
  size_t sizes[] = {n * 8, n * 8, n * 16, n * 16, n * 8, n * 8, n * 16, n * 8, n * 8, cells * 4,
                    cells * LB_CAP * 4, LB_FLAGS * 4};
  for (int i = 0; i < 12 && !st; i++)
    st = make_buffer(d, sizes[i], bufs[i]);
  const char *names[] = {"lb_clear", "lb_sort", "lb_insert_a", "lb_insert_b", "lb_insert_c",
                         "lb_collide_a", "lb_collide_b", "lb_collide_c", "lb_integrate_a",
                         "lb_integrate_b", "lb_integrate_c_k"};
  cl_kernel *ks[] = {&d->clear, &d->sort, &d->insert[0], &d->insert[1], &d->insert[2],
                     &d->collide[0], &d->collide[1], &d->collide[2], &d->integrate[0],
                     &d->integrate[1], &d->integrate[2]};
  for (int i = 0; i < 11 && !st; i++)
    st = make_kernel(d, names[i], ks[i]);
  if (st)
    return st;
  int ni = s->n, nc = (int)cells, cap = LB_CAP, nx = s->nx, ny = s->ny;
  float inv_f = (float)(1.0 / s->h), hf = (float)s->h, gxf = (float)s->gx, gyf = (float)s->gy;
  float dtf = (float)s->dt;
  double inv_d = 1.0 / s->h;
  cl_float2 box_f = {{(float)s->w, (float)s->ht}};
  cl_double2 box_d = {{s->w, s->ht}};
  if ((st = set_args(d->clear, "lb_clear", ARG(d->count), ARG(nc), ARG(d->flags), LB_END)) ||
      (st = set_args(d->sort, "lb_sort", ARG(d->count), ARG(d->idx), ARG(cap), ARG(nc), LB_END)) ||
      (st = set_args(d->insert[0], "lb_insert_a", ARG(d->pos_a), ARG(ni), ARG(d->count),
                     ARG(d->idx), ARG(cap), ARG(inv_f), ARG(nx), ARG(ny), ARG(d->flags), LB_END)) ||
      (st = set_args(d->insert[1], "lb_insert_b", ARG(d->pos_b), ARG(ni), ARG(d->count),
                     ARG(d->idx), ARG(cap), ARG(inv_d), ARG(nx), ARG(ny), ARG(d->flags),
                     LB_END)) ||
      (st = set_args(d->insert[2], "lb_insert_c", ARG(d->cell_c), ARG(d->off_c), ARG(ni),
                     ARG(d->count), ARG(d->idx), ARG(cap), ARG(nx), ARG(ny), ARG(d->flags),
                     LB_END)))
    return st;
  if ((st = set_args(d->collide[0], "lb_collide_a", ARG(d->pos_a), ARG(d->vel_a), ARG(d->shape),
                     ARG(d->count), ARG(d->idx), ARG(cap), ARG(ni), ARG(inv_f), ARG(nx),
                     ARG(ny), ARG(s->k), ARG(s->two_zeta), ARG(box_f), ARG(d->force), LB_END)) ||
      (st = set_args(d->collide[1], "lb_collide_b", ARG(d->pos_b), ARG(d->vel_b), ARG(d->shape),
                     ARG(d->count), ARG(d->idx), ARG(cap), ARG(ni), ARG(inv_d), ARG(nx),
                     ARG(ny), ARG(s->k), ARG(s->two_zeta), ARG(box_d), ARG(d->force), LB_END)) ||
      (st = set_args(d->collide[2], "lb_collide_c", ARG(d->cell_c), ARG(d->off_c), ARG(d->vel_c),
                     ARG(d->shape), ARG(d->count), ARG(d->idx), ARG(cap), ARG(ni), ARG(hf),
                     ARG(nx), ARG(ny), ARG(s->k), ARG(s->two_zeta), ARG(d->force), LB_END)))
    return st;
  if ((st = set_args(d->integrate[0], "lb_integrate_a", ARG(d->pos_a), ARG(d->vel_a),
                     ARG(d->shape), ARG(d->force), ARG(ni), ARG(gxf), ARG(gyf), ARG(dtf),
                     LB_END)) ||
      (st = set_args(d->integrate[1], "lb_integrate_b", ARG(d->pos_b), ARG(d->vel_b),
                     ARG(d->shape), ARG(d->force), ARG(ni), ARG(s->gx), ARG(s->gy), ARG(s->dt),
                     LB_END)))
    return st;
  return set_args(d->integrate[2], "lb_integrate_c_k", ARG(d->cell_c), ARG(d->off_c),
                  ARG(d->vel_c), ARG(d->shape), ARG(d->force), ARG(ni), ARG(s->gx), ARG(s->gy),
                  ARG(s->dt), ARG(s->h), LB_END);
}

static void dev_release(lb_dev *d)
{
  cl_kernel ks[] = {d->clear, d->sort, d->insert[0], d->insert[1], d->insert[2], d->collide[0],
                    d->collide[1], d->collide[2], d->integrate[0], d->integrate[1],
                    d->integrate[2]};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (ks[i])
      clReleaseKernel(ks[i]);
  cl_mem bufs[] = {d->pos_a, d->vel_a, d->pos_b, d->vel_b, d->cell_c, d->off_c, d->vel_c,
                   d->shape, d->force, d->count, d->idx, d->flags};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i])
      clReleaseMemObject(bufs[i]);
  if (d->prog)
    clReleaseProgram(d->prog);
  ms_cl_close(&d->cl);
}

static ms_status buf_write(lb_dev *d, cl_mem b, size_t bytes, const void *src)
{
  return ms_cl_check(clEnqueueWriteBuffer(d->cl.gpu_queue, b, CL_TRUE, 0, bytes, src, 0, NULL,
                                          NULL),
                     "clEnqueueWriteBuffer", NULL);
}

static ms_status buf_read(lb_dev *d, cl_mem b, size_t bytes, void *dst)
{
  return ms_cl_check(clEnqueueReadBuffer(d->cl.gpu_queue, b, CL_TRUE, 0, bytes, dst, 0, NULL,
                                         NULL),
                     "clEnqueueReadBuffer", NULL);
}

/* Uploads the scene's initial state in `layout`'s form (and the shapes). */
static ms_status upload(lb_dev *d, const lb_scene *s, int layout)
{
  size_t n = (size_t)s->n;
  double *buf = calloc(n * 4, sizeof(double));
  if (!buf)
    return ms_fail(MS_ERR_RUNTIME, "out of memory uploading %zu discs", n);
  float *f = (float *)buf;
  double *v = buf + n * 2;
  for (size_t i = 0; i < n; i++) {
    f[2 * i] = s->r;
    f[2 * i + 1] = s->m;
  }
  ms_status st = buf_write(d, d->shape, n * 8, f);
  for (size_t i = 0; i < n; i++) {
    v[2 * i] = s->vx[i];
    v[2 * i + 1] = s->vy[i];
  }
  if (!st && layout == 0) {
    for (size_t i = 0; i < n; i++) {
      f[2 * i] = (float)s->x[i], f[2 * i + 1] = (float)s->y[i];
      f[2 * n + 2 * i] = s->vx[i], f[2 * n + 2 * i + 1] = s->vy[i];
    }
    st = buf_write(d, d->pos_a, n * 8, f);
    st = st ? st : buf_write(d, d->vel_a, n * 8, f + 2 * n);
  } else if (!st && layout == 1) {
    for (size_t i = 0; i < n; i++)
      buf[2 * i] = s->x[i], buf[2 * i + 1] = s->y[i];
    st = buf_write(d, d->pos_b, n * 16, buf);
    st = st ? st : buf_write(d, d->vel_b, n * 16, v);
  } else if (!st) {
    st = buf_write(d, d->vel_c, n * 16, v);
    cl_int *c = (cl_int *)buf;
    float *o = (float *)(buf + n);
    for (size_t i = 0; i < n && !st; i++) {
      split_c(s->x[i], s->h, &c[2 * i], &o[2 * i]);
      split_c(s->y[i], s->h, &c[2 * i + 1], &o[2 * i + 1]);
    }
    st = st ? st : buf_write(d, d->cell_c, n * 8, c);
    st = st ? st : buf_write(d, d->off_c, n * 8, o);
  }
  free(buf);
  return st;
}

/* Positions of `layout` read back as frame coordinates in double. */
static ms_status download(lb_dev *d, const lb_scene *s, int layout, double *xy)
{
  size_t n = (size_t)s->n;
  if (layout == 1)
    return buf_read(d, d->pos_b, n * 16, xy);
  float *f = malloc(n * 8);
  cl_int *c = malloc(n * 8);
  ms_status st = (f && c) ? MS_OK : ms_fail(MS_ERR_RUNTIME, "out of memory");
  st = st ? st : buf_read(d, layout == 0 ? d->pos_a : d->off_c, n * 8, f);
  if (!st && layout == 2)
    st = buf_read(d, d->cell_c, n * 8, c);
  for (size_t i = 0; i < 2 * n && !st; i++)
    xy[i] = layout == 0 ? (double)f[i] : (double)c[i] * s->h + (double)f[i];
  free(f);
  free(c);
  return st;
}

static size_t round_up(size_t n) { return (n + LB_WG - 1) / LB_WG * LB_WG; }

/* One iteration of `layout`; with `ev`, the five kernels' events go there. */
static ms_status iterate(lb_dev *d, const lb_scene *s, int layout, cl_event *ev)
{
  size_t cells = (size_t)s->nx * (size_t)s->ny, n = (size_t)s->n, local = LB_WG;
  cl_kernel ks[LB_KERNELS] = {d->clear, d->insert[layout], d->sort, d->collide[layout],
                              d->integrate[layout]};
  size_t global[LB_KERNELS] = {round_up(cells > LB_FLAGS ? cells : LB_FLAGS), round_up(n),
                               round_up(cells), round_up(n), round_up(n)};
  for (int k = 0; k < LB_KERNELS; k++)
    MS_CL_TRY(clEnqueueNDRangeKernel(d->cl.gpu_queue, ks[k], 1, NULL, &global[k], &local, 0,
                                     NULL, ev ? &ev[k] : NULL),
              kernel_name[k]);
  return MS_OK;
}

/* Runs `iters` iterations; with `t`, adds each kernel's mean time per iteration (s). */
static ms_status run_iters(lb_dev *d, const lb_scene *s, int layout, long iters, double *t)
{
  cl_event *ev = t ? calloc((size_t)iters * LB_KERNELS, sizeof *ev) : NULL;
  if (t && !ev)
    return ms_fail(MS_ERR_RUNTIME, "out of memory for %ld events", iters * LB_KERNELS);
  ms_status st = MS_OK;
  for (long it = 0; it < iters && !st; it++)
    st = iterate(d, s, layout, ev ? ev + it * LB_KERNELS : NULL);
  if (!st)
    st = ms_cl_check(clFinish(d->cl.gpu_queue), "clFinish", NULL);
  for (long e = 0; ev && e < iters * LB_KERNELS; e++) {
    if (ev[e]) {
      if (!st)
        t[e % LB_KERNELS] += ms_cl_event_seconds(ev[e]) / (double)iters;
      clReleaseEvent(ev[e]);
    }
  }
  free(ev);
  return st;
}

/* Grid overflow is a different amount of work, so it is an error here. */
static ms_status check_flags(lb_dev *d, int layout)
{
  cl_int fl[LB_FLAGS];
  ms_status st = buf_read(d, d->flags, sizeof fl, fl);
  if (!st && (fl[0] || fl[1] || fl[2]))
    return ms_fail(MS_ERR_NUMERIC, "layout %s: %d grid overflows, %d outside, %d non-finite",
                   layout_name[layout], fl[0], fl[1], fl[2]);
  return st;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* "median (min-max)" of k values in microseconds; *med gets the median. */
static void summary(const double *v, int k, char *out, size_t size, double *med)
{
  double s[LB_MAX_REPEAT];
  memcpy(s, v, (size_t)k * sizeof *s);
  qsort(s, (size_t)k, sizeof *s, cmp_double);
  *med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
  snprintf(out, size, "%.1f (%.1f-%.1f)", *med * 1e6, s[0] * 1e6, s[k - 1] * 1e6);
}

/* t[layout][repeat][kernel + total] as the Markdown table. */
static void print_times(double t[LB_LAYOUTS][LB_MAX_REPEAT][LB_KERNELS + 1], int repeat)
{
  printf("| kernel (us/iteration) | %s | %s | B/A | %s | C/A |\n|---|---|---|---|---|---|\n",
         layout_name[0], layout_name[1], layout_name[2]);
  for (int k = 0; k <= LB_KERNELS; k++) {
    char cell[LB_LAYOUTS][64];
    double med[LB_LAYOUTS];
    for (int l = 0; l < LB_LAYOUTS; l++) {
      double v[LB_MAX_REPEAT];
      for (int r = 0; r < repeat; r++)
        v[r] = t[l][r][k];
      summary(v, repeat, cell[l], sizeof cell[l], &med[l]);
    }
    printf("| %s | %s | %s | %.2f | %s | %.2f |\n", k < LB_KERNELS ? kernel_name[k] : "**total**",
           cell[0], cell[1], med[1] / med[0], cell[2], med[2] / med[0]);
  }
}

static void print_bytes(const lb_scene *s)
{
  static const int state[LB_LAYOUTS] = {8 + 8, 16 + 16, 8 + 8 + 16};
  static const char *const what[LB_LAYOUTS] = {"float2 pos + float2 vel",
                                               "double2 pos + double2 vel",
                                               "int2 cell + float2 offset + double2 vel"};
  double grid = (double)s->nx * s->ny * (4.0 + 4.0 * LB_CAP) / s->n;
  printf("\n| layout | state | bytes/particle (state) | with shape, force, grid |\n"
         "|---|---|---|---|\n");
  for (int l = 0; l < LB_LAYOUTS; l++)
    printf("| %s | %s | %d | %.1f |\n", layout_name[l], what[l], state[l], state[l] + 16.0 + grid);
}

/* The three layouts from the same state (the discs packed at pitch 0.99 diameters in the
 * benchmark's box, so every lattice neighbour touches) for `iters` iterations: the largest
 * position difference from B, against float tolerances for a few iterations: one ulp of
 * the box size per iteration for A (its positions are rounded there), two ulps of the cell
 * size per iteration for C (its offsets are rounded there; a 0.1 % error in its pair
 * offsets already exceeds that). */
static ms_status check_agree(lb_dev *d, int n, long iters)
{
  lb_scene s;
  ms_status st = scene_make(&s, n, 0.99);
  double *xy[LB_LAYOUTS] = {malloc((size_t)n * 16), malloc((size_t)n * 16),
                            malloc((size_t)n * 16)};
  if (!st && (!xy[0] || !xy[1] || !xy[2]))
    st = ms_fail(MS_ERR_RUNTIME, "out of memory");
  for (int l = 0; l < LB_LAYOUTS && !st; l++) {
    st = upload(d, &s, l);
    st = st ? st : run_iters(d, &s, l, iters, NULL);
    st = st ? st : check_flags(d, l);
    st = st ? st : download(d, &s, l, xy[l]);
  }
  double big = s.w > s.ht ? s.w : s.ht, hf = s.h;
  double tol[LB_LAYOUTS] = {(double)iters * (nextafterf((float)big, INFINITY) - (float)big), 0,
                            2.0 * (double)iters * (nextafterf((float)hf, INFINITY) - (float)hf)};
  double diff[LB_LAYOUTS] = {0, 0, 0}, moved = 0.0;
  for (size_t i = 0; !st && i < 2 * (size_t)n; i++) {
    double x0 = i % 2 ? s.y[i / 2] : s.x[i / 2];
    moved = fmax(moved, fabs(xy[1][i] - x0));
    for (int l = 0; l < LB_LAYOUTS; l += 2)
      diff[l] = fmax(diff[l], fabs(xy[l][i] - xy[1][i]));
  }
  if (!st) {
    printf("\nAgreement after %ld iterations from one state (lattice at pitch 0.99 d, all "
           "neighbours in contact; B moved up to %.3g m): max |A - B| = %.3g m (tolerance %.3g "
           "m), max |C - B| = %.3g m (tolerance %.3g m)\n",
           iters, moved, diff[0], tol[0], diff[2], tol[2]);
    if (!(diff[0] <= tol[0] && diff[2] <= tol[2]))
      st = ms_fail(MS_ERR_NUMERIC, "the layouts disagree beyond float tolerance");
  }
  for (int l = 0; l < LB_LAYOUTS; l++)
    free(xy[l]);
  scene_free(&s);
  return st;
}

/* One free disc (no force, no gravity) at x in a box starting at box_min, v = 2e-4 m/s,
 * `steps` steps of dt with `layout`'s own integrate arithmetic (the lb_drift_ kernels
 * call the functions the integrate kernels call): moved / (v t) - 1. A keeps x in scene
 * coordinates; B and C in the box's frame, x - box_min, as mixsim places particles. */
static ms_status drift(lb_dev *d, int layout, double x, double box_min, double dt, int steps,
                       double h, float m, double *err)
{
  static const char *const names[LB_LAYOUTS] = {"lb_drift_a", "lb_drift_b", "lb_drift_c"};
  const double v = 2e-4;
  cl_kernel k = NULL;
  cl_mem b[3] = {NULL, NULL, NULL};
  ms_status st = make_kernel(d, names[layout], &k);
  for (int i = 0; i < 3 && !st; i++)
    st = make_buffer(d, 16, &b[i]);
  double frame = x - box_min, start = 0.0, end = 0.0, pd[2];
  cl_int c0[2] = {0, 0}, c[2];
  float o0[2] = {0.0f, 0.0f}, o[2], pf[2];
  if (!st && layout == 0) {
    float p[2] = {(float)x, 0.5f}, vel[2] = {(float)v, 0.0f}, dtf = (float)dt;
    start = p[0];
    st = buf_write(d, b[0], 8, p);
    st = st ? st : buf_write(d, b[1], 8, vel);
    st = st ? st : set_args(k, names[0], ARG(b[0]), ARG(b[1]), ARG(m), ARG(dtf), ARG(steps),
                            LB_END);
  } else if (!st && layout == 1) {
    double p[2] = {frame, 0.5}, vel[2] = {v, 0.0};
    start = frame;
    st = buf_write(d, b[0], 16, p);
    st = st ? st : buf_write(d, b[1], 16, vel);
    st = st ? st : set_args(k, names[1], ARG(b[0]), ARG(b[1]), ARG(m), ARG(dt), ARG(steps),
                            LB_END);
  } else if (!st) {
    double vel[2] = {v, 0.0};
    split_c(frame, h, &c0[0], &o0[0]);
    split_c(0.5, h, &c0[1], &o0[1]);
    st = buf_write(d, b[0], 8, c0);
    st = st ? st : buf_write(d, b[1], 8, o0);
    st = st ? st : buf_write(d, b[2], 16, vel);
    st = st ? st : set_args(k, names[2], ARG(b[0]), ARG(b[1]), ARG(b[2]), ARG(m), ARG(dt),
                            ARG(steps), ARG(h), LB_END);
  }
  size_t one = 1;
  if (!st) /* one work-item runs every step */
    st = ms_cl_check(clEnqueueNDRangeKernel(d->cl.gpu_queue, k, 1, NULL, &one, &one, 0, NULL,
                                            NULL),
                     "clEnqueueNDRangeKernel", names[layout]);
  if (!st && layout == 0) {
    st = buf_read(d, b[0], 8, pf);
    end = pf[0];
  } else if (!st && layout == 1) {
    st = buf_read(d, b[0], 16, pd);
    end = pd[0];
  } else if (!st) { /* C: moved = (c_end - c_start) h + (o_end - o_start) */
    st = buf_read(d, b[0], 8, c);
    st = st ? st : buf_read(d, b[1], 8, o);
    end = (double)(c[0] - c0[0]) * h + ((double)o[0] - (double)o0[0]);
  }
  *err = (end - start) / (v * dt * steps) - 1.0;
  for (int i = 0; i < 3; i++)
    if (b[i])
      clReleaseMemObject(b[i]);
  if (k)
    clReleaseKernel(k);
  return st;
}

/* The drift table: issue 10's two places (x = 0.6 m and 1000 m, box x +- 0.6 m), and
 * the middle of a cell for layout C's coarsest offsets. */
static ms_status precision(lb_dev *d, const lb_scene *s)
{
  static const double xs[3] = {0.6, 1000.0, 0.6};
  static const double mins[3] = {0.0, 999.4, 0.0};
  static const double dts[2] = {1e-4, 1e-5};
  const int steps = 10000;
  printf("\nPrecision: one free disc, v = 2e-4 m/s, %d steps, moved / (v t) - 1 "
         "(issue 10: |error| < 1e-6)\n\n| x (m) | box x (m) | dt (s) | %s | %s | %s |\n"
         "|---|---|---|---|---|---|\n",
         steps, layout_name[0], layout_name[1], layout_name[2]);
  for (int c = 0; c < 3; c++) {
    for (int t = 0; t < 2; t++) {
      double x = c == 2 ? xs[c] + s->h / 2 : xs[c], err[LB_LAYOUTS];
      for (int l = 0; l < LB_LAYOUTS; l++) {
        ms_status st = drift(d, l, x, mins[c], dts[t], steps, s->h, s->m, &err[l]);
        if (st)
          return st;
      }
      printf("| %s%.6g | %.6g to %.6g | %g | %.3g | %.3g | %.3g |\n", c == 2 ? "mid-cell " : "", x,
             mins[c], mins[c] + 1.2, dts[t], err[0], err[1], err[2]);
    }
  }
  return MS_OK;
}

/* The timed runs, interleaving the layouts within each repeat. */
static ms_status timings(lb_dev *d, const lb_scene *s, const lb_opts *o)
{
  static double t[LB_LAYOUTS][LB_MAX_REPEAT][LB_KERNELS + 1];
  memset(t, 0, sizeof t);
  for (int r = 0; r < o->repeat; r++) {
    for (int l = 0; l < LB_LAYOUTS; l++) {
      ms_status st = upload(d, s, l);
      st = st ? st : run_iters(d, s, l, o->warmup, NULL);
      st = st ? st : run_iters(d, s, l, o->steps, t[l][r]);
      st = st ? st : check_flags(d, l);
      if (st)
        return st;
      for (int k = 0; k < LB_KERNELS; k++)
        t[l][r][LB_KERNELS] += t[l][r][k];
    }
  }
  printf("\n");
  print_times(t, (int)o->repeat);
  return MS_OK;
}

static const char usage[] =
    "usage: layout_bench [--device gpu|cpu|P:D] [--small N] [--steps R] [--repeat K]\n"
    "                    [--warmup W] [--check I] | --list-devices\n"
    "  --device   OpenCL device, as mixsim's --device (default: the first GPU, else CPU)\n"
    "  --small    number of small discs (default 1000000)\n"
    "  --steps    timed iterations per run (default 200)\n"
    "  --repeat   runs of each layout, interleaved (default 5)\n"
    "  --warmup   untimed iterations before each run (default 20)\n"
    "  --check    iterations of the agreement check (default 10)\n";

/* One numeric option; refusals name it and say what it takes. */
static ms_status option_long(const char *opt, const char *text, long lo, long hi, long *out)
{
  char why[128];
  if (!text)
    return ms_fail(MS_ERR_INPUT, "%s needs a value", opt);
  ms_number_error e = ms_number_long(text, lo, hi, out);
  if (e)
    return ms_fail(MS_ERR_INPUT, "%s: %s", opt,
                   ms_number_explain(e, text, lo, hi, why, sizeof why));
  return MS_OK;
}

static ms_status parse(int argc, char **argv, lb_opts *o)
{
  *o = (lb_opts){.device = NULL, .n = 1000000, .steps = 200, .repeat = 5, .warmup = 20,
                 .check = 10};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    ms_status st = MS_OK;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      o->help = 1;
      return MS_OK;
    } else if (!strcmp(a, "--list-devices")) {
      o->list = 1;
      continue;
    } else if (!strcmp(a, "--device") || !strcmp(a, "-d")) {
      if (!v)
        return ms_fail(MS_ERR_INPUT, "%s needs a value", a);
      o->device = v;
    } else if (!strcmp(a, "--small")) {
      st = option_long(a, v, 2, 50000000, &o->n);
    } else if (!strcmp(a, "--steps")) {
      st = option_long(a, v, 1, 1000000, &o->steps);
    } else if (!strcmp(a, "--repeat")) {
      st = option_long(a, v, 1, LB_MAX_REPEAT, &o->repeat);
    } else if (!strcmp(a, "--warmup")) {
      st = option_long(a, v, 0, 1000000, &o->warmup);
    } else if (!strcmp(a, "--check")) {
      st = option_long(a, v, 1, 100000, &o->check);
    } else {
      return ms_fail(MS_ERR_INPUT, "unknown option '%s'\n%s", a, usage);
    }
    if (st)
      return st;
    i++;
  }
  return MS_OK;
}

static ms_status run(const lb_opts *o)
{
  lb_dev d;
  lb_scene s;
  memset(&d, 0, sizeof d);
  ms_status st = scene_make(&s, (int)o->n, 1.05);
  st = st ? st : ms_cl_open(o->device, MS_CL_PROFILE_ON, &d.cl); /* it times kernels */
  st = st ? st : ms_cl_require_fp64(&d.cl);
  if (!st) {
    printf("# layout_bench: %d small discs (r = %.3g m, lattice pitch 1.05 d, k = %g, e = 0.5, "
           "dt = %g), grid %d x %d cells of %.9g m, cap %d, work-group %d\n"
           "# device %s [%s] (%s); %ld warm-up + %ld timed iterations, %ld repeats\n",
           s.n, s.r, s.k, s.dt, s.nx, s.ny, s.h, LB_CAP, LB_WG, d.cl.device_name,
           d.cl.platform_name, d.cl.spec, o->warmup, o->steps, o->repeat);
    fflush(stdout);
    st = dev_setup(&d, &s);
  }
  st = st ? st : check_agree(&d, s.n, o->check);
  st = st ? st : timings(&d, &s, o);
  if (!st)
    print_bytes(&s);
  st = st ? st : precision(&d, &s);
  dev_release(&d);
  scene_free(&s);
  return st;
}

int main(int argc, char **argv)
{
  lb_opts o;
  ms_status st = parse(argc, argv, &o);
  if (!st && o.help)
    fputs(usage, stdout);
  else if (!st && o.list)
    st = ms_cl_list_devices(stdout);
  else if (!st)
    st = run(&o);
  if (st)
    fprintf(stderr, "layout_bench: %s\n", ms_error_message());
  return (int)st;
}
