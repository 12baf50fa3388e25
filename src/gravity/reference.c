/* Double-precision references on the host: the accelerations every kernel variant is
 * checked against (the same interaction, from kernels/shared/gravity.h), and the
 * energy, momentum and virial ratio that gravity mode reports. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mixsim/gravity.h"
#include "shared/gravity.h"

MS_GRAVITY_DEFINE(ms_grav_pull_d, double, 0)

void ms_gravity_reference_accel(const float *pos, int n, double g, double softening, double *acc)
{
  double eps2 = softening * softening;
  for (int i = 0; i < n; i++) {
    double ax = 0.0, ay = 0.0, az = 0.0;
    const float *p = &pos[4 * i];
    for (int j = 0; j < n; j++) {
      const float *q = &pos[4 * j];
      ms_grav_pull_d((double)q[0] - p[0], (double)q[1] - p[1], (double)q[2] - p[2], q[3], eps2,
                     &ax, &ay, &az);
    }
    acc[3 * i] = g * ax;
    acc[3 * i + 1] = g * ay;
    acc[3 * i + 2] = g * az;
  }
}

typedef struct soa {
  double *x, *y, *z, *m;
} soa;

/* sum_{j in [from, to)} m_j / sqrt(|x_j - x_i|^2 + eps^2), in four interleaved partial
 * sums: independent chains pipeline (and pair up into SIMD), the order stays fixed. */
static double inverse_distance_sum(const soa *s, int i, int from, int to, double eps2)
{
  double xi = s->x[i], yi = s->y[i], zi = s->z[i];
  double part[4] = {0.0, 0.0, 0.0, 0.0};
  int j = from;
  for (; j + 4 <= to; j += 4)
    for (int k = 0; k < 4; k++) {
      double dx = s->x[j + k] - xi, dy = s->y[j + k] - yi, dz = s->z[j + k] - zi;
      part[k] += s->m[j + k] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
    }
  for (; j < to; j++) {
    double dx = s->x[j] - xi, dy = s->y[j] - yi, dz = s->z[j] - zi;
    part[0] += s->m[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
  }
  return (part[0] + part[1]) + (part[2] + part[3]);
}

/* The potential energy is sum_i w_i over rows: every pair j > i for the exact sum, or
 * every other body for a sampled row (scaled up at the end). Rows are cut into
 * ROW_BLOCKS blocks of about equal work, fixed by n alone; threads take blocks, and
 * the block sums are added in block order, so the result does not depend on the
 * number of threads. */
#define ROW_BLOCKS 64
#define MAX_THREADS 32

typedef struct potential_job {
  const soa *s;
  int n, sample;
  double eps2;
  int bound[ROW_BLOCKS + 1]; /* rows (or samples) of block b: [bound[b], bound[b + 1]) */
  double block_sum[ROW_BLOCKS];
  int next; /* next block to take */
  pthread_mutex_t lock;
} potential_job;

static int sample_row(const potential_job *job, int k)
{
  return (int)((long)k * job->n / job->sample);
}

static double row_sum(const potential_job *job, int r)
{
  const soa *s = job->s;
  if (job->sample == 0)
    return s->m[r] * inverse_distance_sum(s, r, r + 1, job->n, job->eps2);
  int i = sample_row(job, r);
  return s->m[i] * (inverse_distance_sum(s, i, 0, i, job->eps2) +
                    inverse_distance_sum(s, i, i + 1, job->n, job->eps2));
}

static void *potential_worker(void *arg)
{
  potential_job *job = arg;
  for (;;) {
    pthread_mutex_lock(&job->lock);
    int b = job->next++;
    pthread_mutex_unlock(&job->lock);
    if (b >= ROW_BLOCKS)
      return NULL;
    double sum = 0.0;
    for (int r = job->bound[b]; r < job->bound[b + 1]; r++)
      sum += row_sum(job, r);
    job->block_sum[b] = sum;
  }
}

/* Exact rows shrink (row r has n - 1 - r pairs): cut where the remaining work is
 * an equal share; sampled rows all cost n. */
static void cut_blocks(potential_job *job)
{
  int rows = job->sample ? job->sample : job->n;
  double total = (double)rows * (job->sample ? job->n : (job->n - 1) / 2.0);
  double done = 0.0;
  int r = 0;
  job->bound[0] = 0;
  for (int b = 1; b <= ROW_BLOCKS; b++) {
    double target = total * b / ROW_BLOCKS;
    for (; r < rows && done < target; r++)
      done += job->sample ? job->n : job->n - 1 - r;
    job->bound[b] = b == ROW_BLOCKS ? rows : r;
  }
}

static double potential(const soa *s, int n, double g, double eps2, int sample)
{
  potential_job job = {.s = s, .n = n, .sample = sample > 0 && sample < n ? sample : 0,
                       .eps2 = eps2};
  cut_blocks(&job);
  pthread_mutex_init(&job.lock, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
  pthread_t tid[MAX_THREADS];
  int started = 0;
  while (started < threads - 1 && pthread_create(&tid[started], NULL, potential_worker, &job) == 0)
    started++;
  potential_worker(&job); /* this thread works too, and alone if none could start */
  for (int t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&job.lock);
  double w = 0.0;
  for (int b = 0; b < ROW_BLOCKS; b++)
    w += job.block_sum[b];
  if (job.sample)
    return -g * 0.5 * w * ((double)n / job.sample);
  return -g * w;
}

void ms_gravity_measure(const float *pos, const float *vel, int n, double g, double softening,
                        int sample, ms_gravity_diag *out)
{
  memset(out, 0, sizeof *out);
  double kinetic = 0.0, p[3] = {0, 0, 0}, l[3] = {0, 0, 0};
  soa s = {malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double)),
           malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
  for (int i = 0; i < n; i++) {
    const float *x = &pos[4 * i], *v = &vel[3 * i];
    double m = x[3];
    kinetic += 0.5 * m * ((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    for (int k = 0; k < 3; k++)
      p[k] += m * v[k];
    l[0] += m * ((double)x[1] * v[2] - (double)x[2] * v[1]);
    l[1] += m * ((double)x[2] * v[0] - (double)x[0] * v[2]);
    l[2] += m * ((double)x[0] * v[1] - (double)x[1] * v[0]);
    if (s.x && s.y && s.z && s.m) {
      s.x[i] = x[0];
      s.y[i] = x[1];
      s.z[i] = x[2];
      s.m[i] = m;
    }
  }
  out->kinetic = kinetic;
  memcpy(out->momentum, p, sizeof p);
  memcpy(out->angular_momentum, l, sizeof l);
  out->has_energy = sample >= 0 && s.x && s.y && s.z && s.m;
  out->sampled = sample > 0 && sample < n;
  out->potential = out->has_energy ? potential(&s, n, g, softening * softening, sample) : 0.0;
  out->energy = kinetic + out->potential;
  out->virial_ratio = out->potential != 0.0 ? 2.0 * kinetic / fabs(out->potential) : 0.0;
  free(s.x);
  free(s.y);
  free(s.z);
  free(s.m);
}
