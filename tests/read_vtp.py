#!/usr/bin/env python3
"""Reads the --output time series back with VTK's own XML readers (python3-vtk9), for
tests/output_vtk.sh:
  read_vtp.py frame FRAME.vtp DUMP.csv   the frame equals --dump of the same step (the id
                                         array, Int64, is the dump's id column)
  read_vtp.py gravity FRAME.vtp DUMP.csv the same for a gravity run's dump
  read_vtp.py series DIR N               DIR/frames.pvd lists N frames, each in DIR and
                                         readable, timesteps increasing
  read_vtp.py rest FRAME.vtp G           every particle is at rest on the floor: its force
                                         is (0, m G) within 1e-3 m G
  read_vtp.py cancel FRAME.vtp           the forces sum to zero (no walls, no gravity)
  read_vtp.py unknown FRAME.vtp          the forces are NaN (no step made the state)
  read_vtp.py pushed FRAME.vtp           the forces are finite, and some small and some
                                         large particles are pushed
  read_vtp.py csvforce FRAME.vtp FRAME.csv  the CSV frame's fx, fy are the .vtp's floats
  read_vtp.py kepler FRAME.vtp           gravity, two bodies, G = 1: the forces are equal
                                         and opposite, of size m1 m2 / r^2
  read_vtp.py annotations FRAME.vtp DUMP.csv DOC.md  the categorical colour map of DOC
                                         (its `Annotations = [...]`) names each kind value as
                                         what its particles are in the dump (all three)
  read_vtp.py walls WALLS.vtp X0 Y0 X1 Y1 FRAME.vtp  the box's outline: 4 points
                                         (X0, Y0, 0), (X1, Y0, 0), (X1, Y1, 0), (X0, Y1, 0),
                                         exactly, in one closed line, around the frame's
                                         particles (the same coordinates)
  read_vtp.py circle WALLS.vtp WALL CX CY R  a frame's [wall.NAME]s (walls_SSSSSS.vtp):
                                         line WALL (its index) is closed, through 128
                                         points at R from (CX, CY)
  read_vtp.py polyline WALLS.vtp WALL X1,Y1,X2,Y2,...  line WALL runs through exactly these
                                         points, open
  read_vtp.py wallcells WALLS.vtp WALLS.csv  the walls' cell data (wall, force, torque,
                                         contacts) are walls.csv's rows of the frame's step,
                                         to the bit (NaN and -1 alike)
Exits 1 with a message on the first difference."""
import csv
import os
import re
import sys
import xml.etree.ElementTree as ET

# vtkmodules: python3-vtk9 and python3-paraview (which conflict on Debian) both ship it.
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkIdList
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader


def fail(msg):
    print("read_vtp.py: " + msg)
    sys.exit(1)


def load(path):
    """The polydata of a .vtp, read by VTK's own reader."""
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail(f"{path}: VTK could not read it")
    return r.GetOutput()


def read(path):
    pd = load(path)
    if pd.GetNumberOfPoints() == 0:
        fail(f"{path}: no points")
    if pd.GetNumberOfVerts() != pd.GetNumberOfPoints():
        fail(f"{path}: {pd.GetNumberOfVerts()} verts for {pd.GetNumberOfPoints()} points")
    arrays = {}
    d = pd.GetPointData()
    for i in range(d.GetNumberOfArrays()):
        arrays[d.GetArrayName(i)] = vtk_to_numpy(d.GetArray(i))
    arrays["Points"] = vtk_to_numpy(pd.GetPoints().GetData())
    return arrays


def same(what, i, got, want):
    if got != want:
        fail(f"particle {i}: {what} is {got!r} in the frame, {want!r} in the dump")


def frame(vtp, dump):
    a = read(vtp)
    rows = list(csv.DictReader(open(dump)))
    if len(rows) != len(a["id"]):
        fail(f"{len(a['id'])} points, {len(rows)} dump rows")
    rot = "omega" in rows[0]
    if a["id"].dtype.name != "int64":
        fail(f"{vtp}: id is {a['id'].dtype.name}, not Int64")
    if rot != ("angular_velocity" in a):
        fail("angular_velocity present in the frame iff the dump has omega")
    for i, row in enumerate(rows):
        same("id", i, int(a["id"][i]), int(row["id"]))
        kind = 0 if row["kind"] == "small" else 2 if row["static"] == "1" else 1
        same("kind", i, int(a["kind"][i]), kind)
        # positions and velocities: doubles, printed to 17 digits: exact
        same("x", i, float(a["Points"][i][0]), float(row["x"]))
        same("y", i, float(a["Points"][i][1]), float(row["y"]))
        same("z", i, float(a["Points"][i][2]), 0.0)
        same("vx", i, float(a["velocity"][i][0]), float(row["vx"]))
        same("vy", i, float(a["velocity"][i][1]), float(row["vy"]))
        # radius and mass: floats, printed to 9 digits: exact as floats
        same("radius", i, "%.9g" % a["radius"][i], "%.9g" % float(row["radius"]))
        same("mass", i, "%.9g" % a["mass"][i], "%.9g" % float(row["mass"]))
        if rot:
            same("angular_velocity", i, float(a["angular_velocity"][i]), float(row["omega"]))
            same("angle", i, float(a["angle"][i]), float(row["theta"]))
        if not 0 <= int(a["contacts"][i]) <= 12:
            fail(f"particle {i}: {a['contacts'][i]} contacts")
    if sum(int(c) for c in a["contacts"]) == 0:
        fail("no particle touches anything: contacts not counted")
    print(f"{vtp}: {len(rows)} particles equal the dump")


def gravity(vtp, dump):
    a = read(vtp)
    rows = list(csv.DictReader(open(dump)))
    if len(rows) != len(a["id"]):
        fail(f"{len(a['id'])} points, {len(rows)} dump rows")
    for i, row in enumerate(rows):
        same("id", i, int(a["id"][i]), i)
        same("kind", i, int(a["kind"][i]), 0)
        for c, k in enumerate("xyz"):
            same(k, i, "%.9g" % a["Points"][i][c], "%.9g" % float(row[k]))
            same("v" + k, i, "%.9g" % a["velocity"][i][c], "%.9g" % float(row["v" + k]))
        same("m", i, "%.9g" % a["mass"][i], "%.9g" % float(row["m"]))
    print(f"{vtp}: {len(rows)} bodies equal the dump")


def series(folder, n):
    pvd = os.path.join(folder, "frames.pvd")
    root = ET.parse(pvd).getroot()
    sets = root.findall("./Collection/DataSet")
    files = sorted(f for f in os.listdir(folder) if f.startswith("frame_") and f.endswith(".vtp"))
    if len(sets) != n or [s.get("file") for s in sets] != files:
        fail(f"frames.pvd lists {[s.get('file') for s in sets]}, the folder holds {files} "
             f"({n} expected)")
    times = [float(s.get("timestep")) for s in sets]
    if any(b <= a for a, b in zip(times, times[1:])):
        fail(f"timesteps not increasing: {times}")
    for s in sets:
        read(os.path.join(folder, s.get("file")))
    print(f"{pvd}: {n} frames, timesteps {times[0]} .. {times[-1]}")


def forces(vtp):
    a = read(vtp)
    if "force" not in a:
        fail(f"{vtp}: no force array")
    f = a["force"]
    if f.dtype.name != "float32" or f.shape != (len(a["id"]), 3):
        fail(f"{vtp}: force is {f.dtype.name} x {f.shape}, not Float32 x 3 per point")
    if any(float(z) != 0.0 for z in f[:, 2]):
        fail(f"{vtp}: a force has z != 0")
    return a, [(float(x), float(y)) for x, y, _ in f]


def rest(vtp, g):
    a, f = forces(vtp)
    for i, (fx, fy) in enumerate(f):
        mg = float(a["mass"][i]) * g
        if not (abs(fy - mg) < 1e-3 * mg and abs(fx) < 1e-3 * mg):
            fail(f"particle {i}: force ({fx!r}, {fy!r}), m g = {mg!r}: not resting on the floor")
    print(f"{vtp}: {len(f)} particles at rest, each pushed up by m g")


def cancel(vtp):
    _, f = forces(vtp)
    sx = sum(x for x, _ in f)
    sy = sum(y for _, y in f)
    big = max(max(abs(x), abs(y)) for x, y in f)
    if not big > 0:
        fail(f"{vtp}: no force at all: nothing to cancel")
    if not (abs(sx) <= 1e-5 * big and abs(sy) <= 1e-5 * big):
        fail(f"{vtp}: the forces sum to ({sx!r}, {sy!r}), the largest is {big!r}")
    print(f"{vtp}: the forces sum to ({sx:.3g}, {sy:.3g}), the largest {big:.3g}")


def unknown(vtp):
    _, f = forces(vtp)
    if not all(x != x and y != y for x, y in f):
        fail(f"{vtp}: a force is not NaN in a state no step made")
    print(f"{vtp}: forces NaN")


def pushed(vtp):
    a, f = forces(vtp)
    if not all(abs(x) < float("inf") and abs(y) < float("inf") for x, y in f):
        fail(f"{vtp}: a force is not finite")
    for kind, what in ((0, "small"), (1, "dynamic large")):
        if not any((x or y) and int(a["kind"][i]) == kind for i, (x, y) in enumerate(f)):
            fail(f"{vtp}: no {what} particle is pushed")
    print(f"{vtp}: forces finite, small and large particles pushed")


def csvforce(vtp, frame_csv):
    _, f = forces(vtp)
    rows = list(csv.DictReader(open(frame_csv)))
    if len(rows) != len(f):
        fail(f"{len(f)} points, {len(rows)} CSV rows")
    for i, row in enumerate(rows):
        same("fx", i, "%.9g" % f[i][0], "%.9g" % float(row["fx"]))
        same("fy", i, "%.9g" % f[i][1], "%.9g" % float(row["fy"]))
    print(f"{frame_csv}: fx, fy equal the .vtp's")


def kepler(vtp):
    a = read(vtp)
    if "force" not in a or a["force"].shape != (2, 3):
        fail(f"{vtp}: no force array of two bodies")
    f0, f1 = ([float(c) for c in f] for f in a["force"])
    p0, p1 = ([float(c) for c in p] for p in a["Points"])
    r2 = sum((x - y) ** 2 for x, y in zip(p0, p1))
    want = float(a["mass"][0]) * float(a["mass"][1]) / r2
    size = sum(c * c for c in f0) ** 0.5
    if any(abs(x + y) > 1e-5 * size for x, y in zip(f0, f1)):
        fail(f"{vtp}: forces {f0} and {f1} are not opposite")
    if abs(size - want) > 1e-4 * want:
        fail(f"{vtp}: |F| = {size!r}, m1 m2 / r^2 = {want!r}")
    # towards the other body
    if sum(c * (y - x) for c, x, y in zip(f0, p0, p1)) <= 0:
        fail(f"{vtp}: the force on body 0 points away from body 1")
    print(f"{vtp}: |F| = {size:.6g} = m1 m2 / r^2, equal and opposite")


def annotations(vtp, dump, doc):
    """The categorical colour map of docs/output.md (its Python's `Annotations = [...]`)
    names each kind value the frame holds as what the particles of that value are in the
    dump of the same step: small, or large and static or not."""
    m = re.search(r"Annotations = \[([^]]*)\]", open(doc).read())
    if not m:
        fail(f"{doc}: no 'Annotations = [...]' for kind")
    items = [t.strip().strip("'\"") for t in m.group(1).split(",")]
    named = dict(zip(items[0::2], items[1::2]))
    a = read(vtp)
    rows = list(csv.DictReader(open(dump)))
    if len(rows) != len(a["kind"]):
        fail(f"{len(a['kind'])} points, {len(rows)} dump rows")
    seen = {}
    for i, row in enumerate(rows):
        what = ("small" if row["kind"] == "small" else
                "static large" if row["static"] == "1" else "dynamic large")
        k = str(int(a["kind"][i]))
        if named.get(k) != what:
            fail(f"{doc} annotates kind {k} as {named.get(k)!r}; particle {i} of that kind "
                 f"is {what} in the dump")
        seen[k] = what
    if sorted(seen) != ["0", "1", "2"] or sorted(named) != ["0", "1", "2"]:
        fail(f"the frame holds kinds {sorted(seen)}, {doc} annotates {sorted(named)}: "
             "all three expected in both")
    print(f"{doc}: the annotations {named} are what the frame's kinds are")


def walls(vtp, corners, frame):
    pd = load(vtp)
    x0, y0, x1, y1 = corners
    want = [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    got = [tuple(pd.GetPoint(i)) for i in range(pd.GetNumberOfPoints())]
    if got != want:
        fail(f"{vtp}: points {got}, the box's corners are {want}")
    if pd.GetNumberOfLines() != 1 or pd.GetNumberOfVerts() or pd.GetNumberOfPolys():
        fail(f"{vtp}: {pd.GetNumberOfLines()} lines, {pd.GetNumberOfVerts()} verts, "
             f"{pd.GetNumberOfPolys()} polys: one closed line expected")
    ids = vtkIdList()
    pd.GetLines().InitTraversal()
    pd.GetLines().GetNextCell(ids)
    line = [ids.GetId(i) for i in range(ids.GetNumberOfIds())]
    if line != [0, 1, 2, 3, 0]:
        fail(f"{vtp}: the line runs through {line}, not around the box")
    a = read(frame)
    out = [i for i, (x, y, z) in enumerate(a["Points"]) if not (x0 < x < x1 and y0 < y < y1)]
    if out:
        fail(f"{frame}: particle {out[0]} at {a['Points'][out[0]]} lies outside the walls")
    print(f"{vtp}: the box from ({x0}, {y0}) to ({x1}, {y1}), around {frame}'s particles")


def wall_line(vtp, k):
    """The points of line k of a walls_SSSSSS.vtp, as (x, y, z) tuples, and its cell data."""
    pd = load(vtp)
    if pd.GetNumberOfVerts() or pd.GetNumberOfPolys() or pd.GetNumberOfLines() <= k:
        fail(f"{vtp}: {pd.GetNumberOfLines()} lines, {pd.GetNumberOfVerts()} verts, "
             f"{pd.GetNumberOfPolys()} polys: no line {k}")
    ids = vtkIdList()
    pd.GetLines().InitTraversal()
    for _ in range(k + 1):
        pd.GetLines().GetNextCell(ids)
    line = [ids.GetId(i) for i in range(ids.GetNumberOfIds())]
    cells = {}
    d = pd.GetCellData()
    for i in range(d.GetNumberOfArrays()):
        cells[d.GetArrayName(i)] = vtk_to_numpy(d.GetArray(i))
    if int(cells["wall"][k]) != k:
        fail(f"{vtp}: line {k} has wall {cells['wall'][k]}")
    return line, [tuple(pd.GetPoint(i)) for i in line], cells


def circle(vtp, k, cx, cy, r):
    line, pts, _ = wall_line(vtp, k)
    if len(line) != 129 or line[0] != line[-1] or len(set(line)) != 128:
        fail(f"{vtp}: line {k} is {len(line)} indices, not 128 points closed")
    for x, y, z in pts:
        d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
        if abs(d - r) > 1e-12 * r or z != 0.0:
            fail(f"{vtp}: ({x!r}, {y!r}, {z!r}) is {d!r} from ({cx}, {cy}), not {r}")
    print(f"{vtp}: line {k} is a circle of radius {r} around ({cx}, {cy})")


def polyline(vtp, k, coords):
    line, pts, _ = wall_line(vtp, k)
    want = [(coords[i], coords[i + 1], 0.0) for i in range(0, len(coords), 2)]
    if pts != want or len(set(line)) != len(line):
        fail(f"{vtp}: line {k} runs through {pts}, not {want}")
    print(f"{vtp}: line {k} through {len(want)} points")


def wallcells(vtp, walls_csv):
    pd = load(vtp)
    step = int(pd.GetFieldData().GetArray("step").GetValue(0))
    rows = [r for r in csv.DictReader(open(walls_csv)) if int(r["step"]) == step]
    _, _, cells = wall_line(vtp, 0)
    if len(rows) != pd.GetNumberOfLines() or len(rows) != len(cells["contacts"]):
        fail(f"{vtp}: {pd.GetNumberOfLines()} lines, {len(rows)} rows of step {step}")
    for k, row in enumerate(rows):
        got = [float(cells["force"][k][0]), float(cells["force"][k][1]), float(cells["torque"][k])]
        want = [float(row["fx"]), float(row["fy"]), float(row["torque"])]
        if repr(got) != repr(want) or cells["force"][k][2] != 0.0:
            fail(f"{vtp}: wall {k} has force, torque {got}, {walls_csv} {want} at step {step}")
        if int(cells["contacts"][k]) != int(row["contacts"]):
            fail(f"{vtp}: wall {k} has {cells['contacts'][k]} contacts, {walls_csv} "
                 f"{row['contacts']}")
    print(f"{vtp}: the walls' cells are {walls_csv}'s rows of step {step}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "frame":
        frame(sys.argv[2], sys.argv[3])
    elif mode == "gravity":
        gravity(sys.argv[2], sys.argv[3])
    elif mode == "series":
        series(sys.argv[2], int(sys.argv[3]))
    elif mode == "rest":
        rest(sys.argv[2], float(sys.argv[3]))
    elif mode == "cancel":
        cancel(sys.argv[2])
    elif mode == "unknown":
        unknown(sys.argv[2])
    elif mode == "pushed":
        pushed(sys.argv[2])
    elif mode == "kepler":
        kepler(sys.argv[2])
    elif mode == "csvforce":
        csvforce(sys.argv[2], sys.argv[3])
    elif mode == "annotations":
        annotations(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "walls":
        walls(sys.argv[2], [float(v) for v in sys.argv[3:7]], sys.argv[7])
    elif mode == "circle":
        circle(sys.argv[2], int(sys.argv[3]), *[float(v) for v in sys.argv[4:7]])
    elif mode == "polyline":
        polyline(sys.argv[2], int(sys.argv[3]), [float(v) for v in sys.argv[4].split(",")])
    elif mode == "wallcells":
        wallcells(sys.argv[2], sys.argv[3])
    else:
        fail("unknown mode " + mode)
