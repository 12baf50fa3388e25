/* The scene's walls ([wall.NAME]) in the --output time series (docs/output.md): each
 * frame's walls as lines (DIR/walls_SSSSSS.vtp, listed in DIR/walls.pvd; with CSV frames
 * DIR/walls_SSSSSS.csv, their points), and with --diagnostics DIR/walls.csv, a row per wall
 * and frame of the force, torque and contacts it received, each frame's rows appended
 * whole in one write. Written by the writer thread from the frame's copy (io/wall_frame.h). */
#ifndef MS_IO_WALLS_OUT_H
#define MS_IO_WALLS_OUT_H

#include "io/vtk_out.h"
#include "io/wall_frame.h"

/* The drawing of one frame's walls: arrays sized once for the walls of `f`. */
typedef struct ms_walls_drawing {
  ms_wall_lines l;
  double *pos, *force, *torque;
  int64_t *conn, *offsets;
  int32_t *wall, *contacts;
} ms_walls_drawing;

/* Points a circle is drawn with (a closed polyline). */
#define MS_WALL_CIRCLE_POINTS 128

ms_status ms_walls_drawing_alloc(const ms_wall_frame *f, ms_walls_drawing *d);
void ms_walls_drawing_free(ms_walls_drawing *d);

/* The walls of `f` at `step` (time `time`) in scene coordinates (origin + the simulation
 * frame), then written as DIR/walls_SSSSSS.vtp or .csv. */
void ms_walls_draw(const ms_wall_frame *f, const double origin[2], long step, double time,
                   ms_walls_drawing *d);
ms_status ms_walls_write_vtp(const char *path, const ms_walls_drawing *d);
ms_status ms_walls_write_csv(const char *path, const ms_wall_frame *f, const ms_walls_drawing *d);

typedef struct ms_walls_csv ms_walls_csv;

/* Creates DIR/walls.csv afresh with its header, for rows of n_walls walls. */
ms_status ms_walls_csv_open(const char *dir, int n_walls, ms_walls_csv **out);
/* Appends the rows of one frame (one per wall), whole, in one write. */
ms_status ms_walls_csv_rows(ms_walls_csv *c, long step, double time, const ms_wall_frame *f);
void ms_walls_csv_close(ms_walls_csv *c);

#endif
