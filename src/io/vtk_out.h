/* The files of the --output time series (docs/output.md): a VTK XML PolyData file per
 * frame (.vtp, binary appended raw data with UInt64 headers) or a CSV per frame, the
 * collection that lists the frames (a .pvd for ParaView, or frames.csv), and the walls. */
#ifndef MS_IO_VTK_OUT_H
#define MS_IO_VTK_OUT_H

#include <stdint.h>

#include "mixsim/status.h"

/* One frame, ready to write: every array has one entry (or 3: x, y, z) per point. */
typedef struct ms_points {
  long step;
  double time;
  int n, n_small;          /* points; small particles first (collision mode) */
  int gravity;             /* gravity mode: 3D bodies, mass and velocity (no radius) */
  const double *pos, *vel; /* 3 per point, scene coordinates (z = 0 in collision mode) */
  const double *theta, *omega; /* angle and spin; NULL without rotation (friction off) */
  const float *radius, *mass;  /* radius NULL in gravity mode */
  const int64_t *id;       /* collision mode: the persistent ids (--dump's id column);
                              gravity mode: 0 .. n-1 */
  const uint8_t *kind;     /* 0 small, 1 dynamic large, 2 static large */
  const int32_t *contacts; /* NULL: not counted (gravity mode) */
  const float *force;      /* 3 per point (z = 0 in collision mode); NULL: none */
  const int32_t *image;    /* 2 per point: the periods crossed in a periodic box (the
                              unwrapped position is x + image_x w, y + image_y h); NULL
                              when no side is periodic */
} ms_points;

/* A frame written, for the collection. */
typedef struct ms_frame_entry {
  long step;
  double time;
  char file[48]; /* the name in the folder */
} ms_frame_entry;

/* Each writes `path` whole or not at all (io/output_file.h's ms_write_atomic). */
ms_status ms_vtk_write_vtp(const char *path, const ms_points *p);
/* The box's walls (collision mode): its outline from `lo` to `hi` (scene coordinates, as
 * the frames' points; z = 0) as one closed line, in VTK XML PolyData. */
ms_status ms_vtk_write_walls(const char *path, const double lo[2], const double hi[2]);
/* The scene's walls ([wall.NAME]) at a frame: one VTK line per wall through its points (a
 * circle drawn as a closed polyline), with each wall's index and reaction as cell data. */
typedef struct ms_wall_lines {
  long step;
  double time;
  int n_points, n_lines, n_conn;
  const double *pos;        /* 3 per point, scene coordinates, z = 0 */
  const int64_t *conn;      /* n_conn point indices, line after line (a closed one ends on
                               its first point again) */
  const int64_t *offsets;   /* per line: the end of its indices in conn */
  const int32_t *wall;      /* per line: the wall's index, the scene's order */
  const double *force;      /* per line: 3 (z = 0); NaN where no step of this run made it */
  const double *torque;     /* per line; NaN likewise */
  const int32_t *contacts;  /* per line; -1 likewise */
} ms_wall_lines;
ms_status ms_vtk_write_wall_lines(const char *path, const ms_wall_lines *l);
ms_status ms_vtk_write_csv(const char *path, const ms_points *p);
ms_status ms_vtk_write_pvd(const char *path, const ms_frame_entry *e, long n);
ms_status ms_vtk_write_index(const char *path, const ms_frame_entry *e, long n);

#endif
