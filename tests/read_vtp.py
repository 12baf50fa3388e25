#!/usr/bin/env python3
"""Reads the --output time series back with VTK's own XML readers (python3-vtk9), for
tests/output_vtk.sh:
  read_vtp.py frame FRAME.vtp DUMP.csv   the frame equals --dump of the same step
  read_vtp.py gravity FRAME.vtp DUMP.csv the same for a gravity run's dump
  read_vtp.py series DIR N               DIR/frames.pvd lists N frames, each in DIR and
                                         readable, timesteps increasing
Exits 1 with a message on the first difference."""
import csv
import os
import sys
import xml.etree.ElementTree as ET

import vtk
from vtk.util.numpy_support import vtk_to_numpy


def fail(msg):
    print("read_vtp.py: " + msg)
    sys.exit(1)


def read(path):
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail(f"{path}: VTK could not read it")
    pd = r.GetOutput()
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
    if rot != ("angular_velocity" in a):
        fail("angular_velocity present in the frame iff the dump has omega")
    for i, row in enumerate(rows):
        same("id", i, int(a["id"][i]), i)
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
    files = sorted(f for f in os.listdir(folder) if f.endswith(".vtp"))
    if len(sets) != n or [s.get("file") for s in sets] != files:
        fail(f"frames.pvd lists {[s.get('file') for s in sets]}, the folder holds {files} "
             f"({n} expected)")
    times = [float(s.get("timestep")) for s in sets]
    if any(b <= a for a, b in zip(times, times[1:])):
        fail(f"timesteps not increasing: {times}")
    for s in sets:
        read(os.path.join(folder, s.get("file")))
    print(f"{pvd}: {n} frames, timesteps {times[0]} .. {times[-1]}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "frame":
        frame(sys.argv[2], sys.argv[3])
    elif mode == "gravity":
        gravity(sys.argv[2], sys.argv[3])
    elif mode == "series":
        series(sys.argv[2], int(sys.argv[3]))
    else:
        fail("unknown mode " + mode)
