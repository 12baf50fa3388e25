/* VTK XML PolyData frames, their .pvd collection, and the CSV variant (io/vtk_out.h).
 * A .vtp holds its arrays as raw appended data: each block is a UInt64 byte count, then
 * the values, little-endian, as this host writes them (the header says LittleEndian, so
 * a big-endian host is refused rather than written wrongly). */
#include "io/vtk_out.h"

#include <stdio.h>
#include <string.h>

#include "io/output_file.h"

enum { T_F64, T_F32, T_I64, T_I32, T_U8 };
static const char *const type_name[] = {"Float64", "Float32", "Int64", "Int32", "UInt8"};
static const size_t type_size[] = {8, 4, 8, 4, 1};

/* One array of the file; seq > 0: generated Int64 values i + seq - 1 (Verts'
 * connectivity: 0, 1, ...; offsets: 1, 2, ...) instead of `data`. */
typedef struct array {
  const char *name;
  int type, comps, seq;
  const void *data;
} array;

static uint64_t array_bytes(const array *a, int n)
{
  return (uint64_t)n * (uint64_t)a->comps * type_size[a->type];
}

static void array_tag(FILE *f, const array *a, uint64_t offset)
{
  fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\"", type_name[a->type], a->name);
  if (a->comps > 1)
    fprintf(f, " NumberOfComponents=\"%d\"", a->comps);
  fprintf(f, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

static int array_data(FILE *f, const array *a, int n)
{
  uint64_t bytes = array_bytes(a, n);
  if (fwrite(&bytes, sizeof bytes, 1, f) != 1)
    return -1;
  if (!a->seq)
    return n && fwrite(a->data, (size_t)bytes, 1, f) != 1 ? -1 : 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = i + a->seq - 1;
    if (fwrite(&v, sizeof v, 1, f) != 1)
      return -1;
  }
  return 0;
}

typedef struct layout {
  array points, verts[2], data[10];
  int n_data;
} layout;

static void make_layout(const ms_points *p, layout *l)
{
  memset(l, 0, sizeof *l);
  l->points = (array){"Points", T_F64, 3, 0, p->pos};
  l->verts[0] = (array){"connectivity", T_I64, 1, 1, NULL};
  l->verts[1] = (array){"offsets", T_I64, 1, 2, NULL};
  array *d = l->data;
  int k = 0;
  d[k++] = (array){"id", T_I64, 1, 0, p->id};
  d[k++] = (array){"kind", T_U8, 1, 0, p->kind};
  if (p->radius)
    d[k++] = (array){"radius", T_F32, 1, 0, p->radius};
  d[k++] = (array){"mass", T_F32, 1, 0, p->mass};
  d[k++] = (array){"velocity", T_F64, 3, 0, p->vel};
  if (p->omega)
    d[k++] = (array){"angular_velocity", T_F64, 1, 0, p->omega};
  if (p->theta)
    d[k++] = (array){"angle", T_F64, 1, 0, p->theta};
  if (p->contacts)
    d[k++] = (array){"contacts", T_I32, 1, 0, p->contacts};
  if (p->force)
    d[k++] = (array){"force", T_F32, 3, 0, p->force};
  if (p->image)
    d[k++] = (array){"image", T_I32, 2, 0, p->image};
  l->n_data = k;
}

static int write_vtp(FILE *f, void *arg)
{
  const ms_points *p = arg;
  layout l;
  make_layout(p, &l);
  uint64_t off = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n"
             "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" "
             "NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n"
             "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%ld</DataArray>\n    </FieldData>\n"
             "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" "
             "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <PointData Scalars=\"kind\">\n",
          p->time, p->step, p->n, p->n);
  for (int i = 0; i < l.n_data; off += 8 + array_bytes(&l.data[i], p->n), i++)
    array_tag(f, &l.data[i], off);
  fputs("      </PointData>\n      <Points>\n", f);
  array_tag(f, &l.points, off);
  off += 8 + array_bytes(&l.points, p->n);
  fputs("      </Points>\n      <Verts>\n", f);
  for (int i = 0; i < 2; off += 8 + array_bytes(&l.verts[i], p->n), i++)
    array_tag(f, &l.verts[i], off);
  fputs("      </Verts>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", f);
  int rc = 0;
  for (int i = 0; !rc && i < l.n_data; i++)
    rc = array_data(f, &l.data[i], p->n);
  rc = rc ? rc : array_data(f, &l.points, p->n);
  for (int i = 0; !rc && i < 2; i++)
    rc = array_data(f, &l.verts[i], p->n);
  fputs("\n  </AppendedData>\n</VTKFile>\n", f);
  return rc;
}

static int little_endian(void)
{
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

ms_status ms_vtk_write_vtp(const char *path, const ms_points *p)
{
  if (!little_endian())
    return ms_fail(MS_ERR_RUNTIME, "--output: '%s': .vtp frames are written on little-endian "
                   "hosts only; use --output-format csv", path);
  return ms_write_atomic(path, write_vtp, (void *)p);
}

typedef struct box {
  double lo[2], hi[2];
} box;

/* The box outline: 4 points at z = 0, one closed polyline (0 1 2 3 0). ASCII, as 17 digits
 * read back to the same doubles: four points need no binary, and so no byte order. */
static int write_walls(FILE *f, void *arg)
{
  const box *b = arg;
  fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
        "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n"
        "    <Piece NumberOfPoints=\"4\" NumberOfVerts=\"0\" NumberOfLines=\"1\" "
        "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <Points>\n        <DataArray "
        "type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n", f);
  const double x[4] = {b->lo[0], b->hi[0], b->hi[0], b->lo[0]};
  const double y[4] = {b->lo[1], b->lo[1], b->hi[1], b->hi[1]};
  for (int i = 0; i < 4; i++)
    fprintf(f, "          %.17g %.17g 0\n", x[i], y[i]);
  fputs("        </DataArray>\n      </Points>\n      <Lines>\n        <DataArray type=\"Int64\" "
        "Name=\"connectivity\" format=\"ascii\">0 1 2 3 0</DataArray>\n        <DataArray "
        "type=\"Int64\" Name=\"offsets\" format=\"ascii\">5</DataArray>\n      </Lines>\n"
        "    </Piece>\n  </PolyData>\n</VTKFile>\n", f);
  return 0;
}

ms_status ms_vtk_write_walls(const char *path, const double lo[2], const double hi[2])
{
  box b = {{lo[0], lo[1]}, {hi[0], hi[1]}};
  return ms_write_atomic(path, write_walls, &b);
}

/* The scene's walls at a frame: points, one line per wall, the walls' cell data; appended
 * raw, as a frame (NaN kept to the bit). */
static int write_wall_lines(FILE *f, void *arg)
{
  const ms_wall_lines *l = arg;
  const array cell[4] = {{"wall", T_I32, 1, 0, l->wall},
                         {"force", T_F64, 3, 0, l->force},
                         {"torque", T_F64, 1, 0, l->torque},
                         {"contacts", T_I32, 1, 0, l->contacts}};
  const array points = {"Points", T_F64, 3, 0, l->pos};
  const array lines[2] = {{"connectivity", T_I64, 1, 0, l->conn},
                          {"offsets", T_I64, 1, 0, l->offsets}};
  const int n_lines[2] = {l->n_conn, l->n_lines};
  uint64_t off = 0;
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
             "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PolyData>\n"
             "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" "
             "NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n"
             "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" "
             "format=\"ascii\">%ld</DataArray>\n    </FieldData>\n"
             "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\" "
             "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <CellData Scalars=\"wall\">\n",
          l->time, l->step, l->n_points, l->n_lines);
  for (int i = 0; i < 4; off += 8 + array_bytes(&cell[i], l->n_lines), i++)
    array_tag(f, &cell[i], off);
  fputs("      </CellData>\n      <Points>\n", f);
  array_tag(f, &points, off);
  off += 8 + array_bytes(&points, l->n_points);
  fputs("      </Points>\n      <Lines>\n", f);
  for (int i = 0; i < 2; off += 8 + array_bytes(&lines[i], n_lines[i]), i++)
    array_tag(f, &lines[i], off);
  fputs("      </Lines>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", f);
  int rc = 0;
  for (int i = 0; !rc && i < 4; i++)
    rc = array_data(f, &cell[i], l->n_lines);
  rc = rc ? rc : array_data(f, &points, l->n_points);
  for (int i = 0; !rc && i < 2; i++)
    rc = array_data(f, &lines[i], n_lines[i]);
  fputs("\n  </AppendedData>\n</VTKFile>\n", f);
  return rc;
}

ms_status ms_vtk_write_wall_lines(const char *path, const ms_wall_lines *l)
{
  if (!little_endian())
    return ms_fail(MS_ERR_RUNTIME, "--output: '%s': .vtp frames are written on little-endian "
                   "hosts only; use --output-format csv", path);
  return ms_write_atomic(path, write_wall_lines, (void *)l);
}

/* Collision mode: the --dump columns (id last), then contacts, fx, fy; gravity mode: the gravity
 * dump's columns (x,y,z,vx,vy,vz,m), then id (and fx,fy,fz when there are forces). Forces
 * with 9 digits: floats, read back exactly. */
static int write_frame_csv(FILE *f, void *arg)
{
  const ms_points *p = arg;
  const float *F = p->force;
  if (p->gravity) {
    fputs(F ? "x,y,z,vx,vy,vz,m,id,fx,fy,fz\n" : "x,y,z,vx,vy,vz,m,id\n", f);
    for (int i = 0; i < p->n; i++) {
      const double *x = &p->pos[3 * i], *v = &p->vel[3 * i];
      fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%lld", x[0], x[1], x[2], v[0], v[1], v[2],
              (double)p->mass[i], (long long)p->id[i]);
      if (F)
        fprintf(f, ",%.9g,%.9g,%.9g", (double)F[3 * i], (double)F[3 * i + 1],
                (double)F[3 * i + 2]);
      fputc('\n', f);
    }
    return 0;
  }
  fputs(p->omega ? "kind,index,x,y,vx,vy,radius,mass,static,theta,omega,id,contacts"
                 : "kind,index,x,y,vx,vy,radius,mass,static,id,contacts", f);
  fputs(F ? ",fx,fy" : "", f);
  fputs(p->image ? ",image_x,image_y\n" : "\n", f);
  for (int i = 0; i < p->n; i++) {
    const double *x = &p->pos[3 * i], *v = &p->vel[3 * i];
    int small = i < p->n_small;
    fprintf(f, "%s,%d,%.17g,%.17g,%.17g,%.17g,%.9g,%.9g,%d", small ? "small" : "large",
            small ? i : i - p->n_small, x[0], x[1], v[0], v[1], (double)p->radius[i],
            (double)p->mass[i], p->kind[i] == 2);
    if (p->omega)
      fprintf(f, ",%.17g,%.17g", p->theta[i], p->omega[i]);
    fprintf(f, ",%lld,%d", (long long)p->id[i], p->contacts ? p->contacts[i] : 0);
    if (F)
      fprintf(f, ",%.9g,%.9g", (double)F[3 * i], (double)F[3 * i + 1]);
    if (p->image)
      fprintf(f, ",%d,%d", (int)p->image[2 * i], (int)p->image[2 * i + 1]);
    fputc('\n', f);
  }
  return 0;
}

ms_status ms_vtk_write_csv(const char *path, const ms_points *p)
{
  return ms_write_atomic(path, write_frame_csv, (void *)p);
}

typedef struct entries {
  const ms_frame_entry *e;
  long n;
} entries;

static int write_pvd(FILE *f, void *arg)
{
  const entries *c = arg;
  fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
        "byte_order=\"LittleEndian\">\n  <Collection>\n", f);
  for (long i = 0; i < c->n; i++)
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n",
            c->e[i].time, c->e[i].file);
  fputs("  </Collection>\n</VTKFile>\n", f);
  return 0;
}

static int write_index(FILE *f, void *arg)
{
  const entries *c = arg;
  fputs("step,time,file\n", f);
  for (long i = 0; i < c->n; i++)
    fprintf(f, "%ld,%.17g,%s\n", c->e[i].step, c->e[i].time, c->e[i].file);
  return 0;
}

ms_status ms_vtk_write_pvd(const char *path, const ms_frame_entry *e, long n)
{
  entries c = {e, n};
  return ms_write_atomic(path, write_pvd, &c);
}

ms_status ms_vtk_write_index(const char *path, const ms_frame_entry *e, long n)
{
  entries c = {e, n};
  return ms_write_atomic(path, write_index, &c);
}
