/* The scene's walls in the --output time series (io/walls_out.h): each frame's walls drawn
 * as lines in scene coordinates (a polyline through its points, closed by its first point
 * again; a circle through MS_WALL_CIRCLE_POINTS points), written as a .vtp or a CSV of
 * points; and DIR/walls.csv, opened and appended as diagnostics.csv is. */
#include "io/walls_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io_wait.h"
#include "io/output_file.h"

/* ---- the drawing ------------------------------------------------------------------ */

static int points_of(const ms_wall_shot *w)
{
  return w->kind == MS_WALL_CIRCLE ? MS_WALL_CIRCLE_POINTS : w->n_points;
}

static int closed_of(const ms_wall_shot *w) { return w->kind == MS_WALL_CIRCLE || w->closed; }

ms_status ms_walls_drawing_alloc(const ms_wall_frame *f, ms_walls_drawing *d)
{
  memset(d, 0, sizeof *d);
  size_t np = 1, nc = 1, nl = (size_t)f->n + 1;
  for (int k = 0; k < f->n; k++) {
    np += (size_t)points_of(&f->w[k]);
    nc += (size_t)points_of(&f->w[k]) + (size_t)closed_of(&f->w[k]);
  }
  d->pos = malloc(3 * np * sizeof *d->pos);
  d->conn = malloc(nc * sizeof *d->conn);
  d->offsets = malloc(nl * sizeof *d->offsets);
  d->wall = malloc(nl * sizeof *d->wall);
  d->force = malloc(3 * nl * sizeof *d->force);
  d->torque = malloc(nl * sizeof *d->torque);
  d->contacts = malloc(nl * sizeof *d->contacts);
  if (!d->pos || !d->conn || !d->offsets || !d->wall || !d->force || !d->torque || !d->contacts) {
    ms_walls_drawing_free(d);
    return ms_fail(MS_ERR_RUNTIME, "--output: out of memory for the walls");
  }
  return MS_OK;
}

void ms_walls_drawing_free(ms_walls_drawing *d)
{
  free(d->pos), free(d->conn), free(d->offsets), free(d->wall);
  free(d->force), free(d->torque), free(d->contacts);
  memset(d, 0, sizeof *d);
}

void ms_walls_draw(const ms_wall_frame *f, const double origin[2], long step, double time,
                   ms_walls_drawing *d)
{
  int np = 0, nc = 0;
  for (int k = 0; k < f->n; k++) {
    const ms_wall_shot *w = &f->w[k];
    int first = np;
    for (int i = 0; i < points_of(w); i++, np++) {
      double x, y;
      if (w->kind == MS_WALL_CIRCLE) {
        double a = 6.28318530717958647692 * (double)i / MS_WALL_CIRCLE_POINTS;
        x = w->center[0] + w->radius * cos(a);
        y = w->center[1] + w->radius * sin(a);
      } else {
        x = w->points[2 * i];
        y = w->points[2 * i + 1];
      }
      d->pos[3 * np] = origin[0] + x;
      d->pos[3 * np + 1] = origin[1] + y;
      d->pos[3 * np + 2] = 0.0;
      d->conn[nc++] = np;
    }
    if (closed_of(w))
      d->conn[nc++] = first;
    d->offsets[k] = nc;
    d->wall[k] = k;
    d->force[3 * k] = w->fx;
    d->force[3 * k + 1] = w->fy;
    d->force[3 * k + 2] = 0.0;
    d->torque[k] = w->torque;
    d->contacts[k] = w->contacts;
  }
  d->l = (ms_wall_lines){step, time, np, f->n, nc, d->pos, d->conn, d->offsets, d->wall,
                         d->force, d->torque, d->contacts};
}

ms_status ms_walls_write_vtp(const char *path, const ms_walls_drawing *d)
{
  return ms_vtk_write_wall_lines(path, &d->l);
}

typedef struct points_csv {
  const ms_wall_frame *f;
  const ms_walls_drawing *d;
} points_csv;

/* wall,point,x,y: each wall's line in order, a closed one ending on its first point again. */
static int write_points(FILE *out, void *arg)
{
  const points_csv *c = arg;
  const ms_wall_lines *l = &c->d->l;
  fputs("wall,point,x,y\n", out);
  for (int k = 0, at = 0; k < l->n_lines; k++)
    for (int i = 0; at < l->offsets[k]; at++, i++) {
      const double *p = &l->pos[3 * l->conn[at]];
      fprintf(out, "%s,%d,%.17g,%.17g\n", c->f->w[k].name, i, p[0], p[1]);
    }
  return 0;
}

ms_status ms_walls_write_csv(const char *path, const ms_wall_frame *f, const ms_walls_drawing *d)
{
  points_csv c = {f, d};
  return ms_write_atomic(path, write_points, &c);
}

/* ---- DIR/walls.csv ---------------------------------------------------------------- */

struct ms_walls_csv {
  int fd;
  long long bytes; /* written so far */
  char path[4352];
  char *row;       /* one frame's rows */
  size_t size;
};

static const char header[] = "step,time,wall,fx,fy,torque,contacts\n";

/* Writes all of `text` in one call where the system allows (as diagnostics.csv's rows). */
static ms_status put(ms_walls_csv *c, const char *text, size_t n)
{
  size_t done = 0;
  int rc = ms_io_test_full(c->path, c->bytes + (long long)n)
               ? (errno = ENOSPC, -1)
               : ms_io_write_all(c->fd, text, n, &done);
  c->bytes += (long long)done;
  if (rc && errno == ECANCELED)
    return ms_fail(MS_ERR_STOPPED, "--diagnostics: cannot write '%s': stopped (SIGINT/SIGTERM) "
                   "while waiting for its reader", c->path);
  if (rc)
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: cannot write '%s': %s", c->path,
                   strerror(errno));
  return MS_OK;
}

ms_status ms_walls_csv_open(const char *dir, int n_walls, ms_walls_csv **out)
{
  *out = NULL;
  ms_walls_csv *c = calloc(1, sizeof *c);
  if (!c)
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  c->size = (size_t)n_walls * 256 + 1;
  c->row = malloc(c->size);
  snprintf(c->path, sizeof c->path, "%s/walls.csv", dir);
  c->fd = -1;
  if (!c->row) {
    ms_walls_csv_close(c);
    return ms_fail(MS_ERR_RUNTIME, "--diagnostics: out of memory");
  }
  c->fd = ms_io_open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (c->fd < 0) {
    ms_status st = ms_fail(errno == ECANCELED ? MS_ERR_STOPPED : MS_ERR_RUNTIME,
                           "--diagnostics: cannot create '%s': %s", c->path,
                           errno == ECANCELED ? "stopped (SIGINT/SIGTERM) while waiting for a "
                                                "reader" : strerror(errno));
    ms_walls_csv_close(c);
    return st;
  }
  ms_status st = put(c, header, strlen(header));
  if (st) {
    ms_walls_csv_close(c);
    return st;
  }
  *out = c;
  return MS_OK;
}

ms_status ms_walls_csv_rows(ms_walls_csv *c, long step, double time, const ms_wall_frame *f)
{
  size_t len = 0;
  for (int k = 0; k < f->n; k++) {
    const ms_wall_shot *w = &f->w[k];
    int n = snprintf(c->row + len, c->size - len, "%ld,%.17g,%s,%.17g,%.17g,%.17g,%d\n", step,
                     time, w->name, w->fx, w->fy, w->torque, w->contacts);
    if (n < 0 || (size_t)n >= c->size - len)
      return ms_fail(MS_ERR_RUNTIME, "--diagnostics: a row of '%s' is too long", c->path);
    len += (size_t)n;
  }
  return put(c, c->row, len);
}

void ms_walls_csv_close(ms_walls_csv *c)
{
  if (!c)
    return;
  if (c->fd >= 0)
    close(c->fd);
  free(c->row);
  free(c);
}
