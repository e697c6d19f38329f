"""Opens an XDMF output in ParaView's own reader (pvpython) and checks, at every time step, that
the points, `velocity` and `displacement` it reads are /fields/q[k], /fields/v[k] and
/fields/q[k] - /fields/q[0] of the .h5 (read with h5py), exactly; for a mesh (/mesh, the solid)
also that its cells are the tetrahedra of /mesh/tetrahedra and that its cell arrays are the
per-cell fields of /fields (the solid's stress_xx ... stress_xy, von_mises and J) of snapshot k.

  pvpython paraview_check.py RUN.xmf RUN.h5
"""
import sys

import h5py
import numpy as np
from paraview.simple import XDMFReader, servermanager
from vtk.numpy_interface import dataset_adapter as dsa


def main():
    xmf, h5 = sys.argv[1], sys.argv[2]
    reader = XDMFReader(FileNames=[xmf])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    with h5py.File(h5, "r") as f:
        q, v, t = f["fields/q"][()], f["fields/v"][()], f["fields/time"][()]
        tets = f["mesh/tetrahedra"][()] if "mesh/tetrahedra" in f else None
        # the per-cell fields, as the XDMF names them: a 6-component field as six scalars
        cellfields = {}
        for name in f["fields"]:
            if name in ("q", "v", "time", "step"):
                continue
            d = f["fields"][name][()]
            if d.ndim == 3 and d.shape[2] == 6:
                for j, c in enumerate(("xx", "yy", "zz", "yz", "xz", "xy")):
                    cellfields[f"{name}_{c}"] = d[:, :, j]
            else:
                cellfields[name] = d
    if len(times) != len(t) or not np.allclose(times, t, rtol=1e-15, atol=0):
        print(f"FAILED: ParaView sees the times {times}, the file has {list(t)}", file=sys.stderr)
        return 1
    arrays = sorted(reader.PointData.keys())
    if arrays != ["displacement", "velocity"]:
        print(f"FAILED: ParaView sees the point arrays {arrays}", file=sys.stderr)
        return 1
    cellarrays = sorted(reader.CellData.keys())
    if cellarrays != sorted(cellfields):
        print(f"FAILED: ParaView sees the cell arrays {cellarrays}, the file has the per-cell fields {sorted(cellfields)}", file=sys.stderr)
        return 1
    worst = 0.0
    for k, tk in enumerate(times):
        reader.UpdatePipeline(tk)
        data = servermanager.Fetch(reader)
        if data.IsA("vtkMultiBlockDataSet"):
            data = data.GetBlock(0)
        w = dsa.WrapDataObject(data)
        if tets is not None:
            cells = [[data.GetCell(c).GetPointId(j) for j in range(data.GetCell(c).GetNumberOfPoints())] for c in range(data.GetNumberOfCells())]
            if data.GetNumberOfCells() != len(tets) or not np.array_equal(np.array(cells), tets) or any(data.GetCellType(c) != 10 for c in range(data.GetNumberOfCells())):
                print(f"FAILED: time {tk}: ParaView's {data.GetNumberOfCells()} cells are not the {len(tets)} tetrahedra of /mesh/tetrahedra", file=sys.stderr)
                return 1
        for name, got, want in (("points", w.Points, q[k]), ("velocity", w.PointData["velocity"], v[k]), ("displacement", w.PointData["displacement"], q[k] - q[0])):
            got, want = np.asarray(got), want.reshape(-1, 3)
            if got.shape != want.shape:
                print(f"FAILED: time {tk}: {name} has shape {got.shape}, expected {want.shape}", file=sys.stderr)
                return 1
            worst = max(worst, float(np.abs(got - want).max()))
        for name, values in cellfields.items():
            got = np.asarray(w.CellData[name]).reshape(-1)
            if got.shape != values[k].shape or not np.array_equal(got, values[k]):
                print(f"FAILED: time {tk}: ParaView's cell array {name} is not /fields of snapshot {k}", file=sys.stderr)
                return 1
    umax = float(np.abs(q[-1] - q[0]).max())
    if worst != 0.0 or umax == 0.0:
        print(f"FAILED: ParaView's values differ from the file by {worst:g} (largest displacement {umax:g})", file=sys.stderr)
        return 1
    print(f"{xmf}: ParaView reads {len(times)} time steps, points, velocity and displacement" + (f", the cell arrays {sorted(cellfields)}" if cellfields else "") + f" equal to the file (largest displacement {umax:.4g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
