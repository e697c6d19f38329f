"""The package applies the tsmech program's rules to Python values (issue 37, item 7), in one
process on 1 rank: a NaN potential or model parameter is refused, tsmech.Output and
tsmech.Checkpoint write only files of the kind they replace and no file another run or another
writer of this program holds (MechIOPlanFiles(), as the program's -output and -checkpoint), and
every/keep take the program's values only; each refusal names the argument. The library lists its
models itself (MechModelGetNames())."""
import ctypes
import math
import os
import subprocess
import sys

import h5py
import numpy as np
import petsc4py
import pytest

petsc4py.init([])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402
from scene import started  # noqa: E402

TEXT = "precious notes\n"


def system(potential=None, parameters=None, n=3):
    def force(t, q, v, f):
        q.copy(f)

    q0 = PETSc.Vec().createSeq(n)
    q0.set(1.0)
    v0 = q0.duplicate()
    v0.set(0.0)
    return tsmech.System(PETSc.COMM_SELF, size=n, mass=1.0, force=force, tangent=lambda t, q, v, cK, cD, J: J.shift(cK), damping=False,
                         potential=potential, initial=(q0, v0), name="spring", parameters=parameters or {"k": 1.0})


def text_file(path):
    with open(path, "w") as f:
        f.write(TEXT)
    return path


def unchanged(path):
    with open(path) as f:
        return f.read() == TEXT


def nothing_left(where, keep=()):
    """No temporary or lock file beside the files kept."""
    return sorted(f for f in os.listdir(where) if f not in keep) == []


def test_nan_potential_is_refused(tmp_path):
    s = system(potential=lambda t, q, v: float("nan") if t > 0.015 else 0.5 * q.dot(q))
    ts = started(s, 4)
    with pytest.raises(tsmech.Error, match="the potential is NaN at t = 0.02"):
        with tsmech.Output(s, tmp_path / "run.h5", every=1):
            tsmech.solve(ts)
    assert isinstance(s.exception, ValueError)
    # the steps before it were recorded, with finite energies
    r = tsmech.read(tmp_path / "run.h5")
    assert len(r.energy) >= 2 and np.all(np.isfinite(r.energy))
    # an infinite potential is a value (the run guard judges it), not refused
    s = system(potential=lambda t, q, v: math.inf if t > 0.015 else 0.5 * q.dot(q))
    ts = started(s, 4)
    guard = tsmech.Guard(ts)
    tsmech.solve(ts)
    assert guard.failure[0] in ("none", "blowup")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_parameter_is_refused(value):
    with pytest.raises(ValueError, match=r"tsmech.System\(parameters\['k'\]\)=.*: not a finite number"):
        system(parameters={"k": value, "m": 1.0})
    with pytest.raises(TypeError, match=r"parameters\['k'\]"):
        system(parameters={"k": "1.0"})
    # the library refuses NaN too, for every program: a checkpoint of it could never restart
    s = system()
    ierr = tsmech._lib.lib.MechSystemAddParameter(s._sys, b"c", ctypes.c_double(value))
    if math.isnan(value):
        assert ierr != 0 and "parameter c is NaN: no checkpoint of the run could be restarted" in tsmech._lib.error_message(ierr)
    else:
        assert ierr == 0


@pytest.mark.parametrize("mass", [0.0, -1.0, math.nan, [1.0, 0.0, 1.0]])
def test_mass_must_be_positive(mass):
    with pytest.raises(ValueError, match=r"tsmech.System\(mass\)"):
        tsmech.System(PETSc.COMM_SELF, size=3, mass=mass, force=lambda *a: None, tangent=lambda *a: None)


def test_output_replaces_only_an_output(tmp_path):
    s = system()
    ts = started(s, 4)
    text = text_file(tmp_path / "notes.txt")
    with pytest.raises(tsmech.FileError, match="tsmech.Output: filename .*notes.txt: the file exists and is not an HDF5 file; it is not overwritten"):
        tsmech.Output(s, text)
    assert unchanged(text)
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["x"] = [1.0]
    with pytest.raises(tsmech.FileError, match="an HDF5 file but not a tsmech output"):
        tsmech.Output(s, tmp_path / "other.h5")
    ck = tsmech.Checkpoint(s, ts)
    ck.write(tmp_path / "ck.h5")
    ck.destroy()
    with pytest.raises(tsmech.FileError, match="it is a tsmech checkpoint, which the output would overwrite"):
        tsmech.Output(s, tmp_path / "ck.h5")
    assert isinstance(tsmech.FileError("x"), OSError)
    assert nothing_left(tmp_path, keep=("notes.txt", "other.h5", "ck.h5"))
    # an earlier output is replaced
    with tsmech.Output(s, tmp_path / "run.h5"):
        tsmech.solve(ts)
    with tsmech.Output(s, tmp_path / "run.h5"):
        pass
    assert nothing_left(tmp_path, keep=("notes.txt", "other.h5", "ck.h5", "run.h5"))


def test_checkpoint_replaces_only_a_checkpoint(tmp_path):
    s = system()
    ts = started(s, 4)
    with tsmech.Output(s, tmp_path / "run.h5"):
        tsmech.solve(ts)
    text = text_file(tmp_path / "notes.txt")
    ck = tsmech.Checkpoint(s, ts)
    with pytest.raises(tsmech.FileError, match="tsmech.Checkpoint.write: path .*notes.txt: the file exists and is not an HDF5 file"):
        ck.write(text)
    assert unchanged(text)
    with pytest.raises(tsmech.FileError, match="it is a tsmech output file, which a checkpoint would replace"):
        ck.write(tmp_path / "run.h5")
    assert tsmech.read(tmp_path / "run.h5").checkpoint is None
    with pytest.raises(tsmech.FileError, match="tsmech.Checkpoint.write_every: path .*notes.txt"):
        ck.write_every(text, 2, tsmech.Guard(ts))
    assert unchanged(text)
    # the rotation slots too (keep): one that is not a checkpoint is not replaced
    ck3 = tsmech.Checkpoint(s, ts, keep=3)
    text_file(tmp_path / "ck.h5.2")
    with pytest.raises(tsmech.FileError, match=r"path .*ck.h5: its rotation slot .*ck.h5.2 \(keep 3\) is a file that is not HDF5"):
        ck3.write(tmp_path / "ck.h5")
    assert unchanged(tmp_path / "ck.h5.2")
    ck.write(tmp_path / "good.h5")
    ck.write(tmp_path / "good.h5")  # its own, again
    ck.destroy()
    ck3.destroy()
    assert nothing_left(tmp_path, keep=("notes.txt", "run.h5", "ck.h5.2", "good.h5"))


def test_one_writer_per_file(tmp_path):
    s = system()
    ts = started(s, 4)
    ck = tsmech.Checkpoint(s, ts)
    out = tsmech.Output(s, tmp_path / "a.h5")
    for attempt in (lambda: ck.write(tmp_path / "a.h5"), lambda: tsmech.Output(s, tmp_path / "a.h5")):
        with pytest.raises(tsmech.FileError, match="is written by this program already"):
            attempt()
    ck.write(tmp_path / "b.h5")
    with pytest.raises(tsmech.FileError, match="is written by this program already"):
        tsmech.Output(s, tmp_path / "b.h5")
    # reading the program's own checkpoint is no second writer; closing frees the name
    ck2 = tsmech.Checkpoint(s, ts)
    ck2.load(tmp_path / "b.h5")
    out.close()
    with tsmech.Output(s, tmp_path / "a.h5"):  # free again, and an output's to replace
        pass
    ck.destroy()
    ck2.destroy()


def test_file_of_another_run(tmp_path):
    """A file another process writes is refused, naming it (the lock of MechIOPlanFiles())."""
    holder = ("import sys, petsc4py; petsc4py.init([]); from petsc4py import PETSc; import tsmech\n"
              "ts = PETSc.TS().create(comm=PETSc.COMM_SELF); m = tsmech.Model('oscillator', comm=PETSc.COMM_SELF).attach(ts)\n"
              "ts.setType('midpoint2'); ts.setFromOptions(); q, v = m.create_state(); m.set_solution(q, v)\n"
              f"out = tsmech.Output(m, {str(tmp_path / 'x.h5')!r}); print('holding', flush=True); sys.stdin.read(); out.close()\n")
    p = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "holding"
        s = system()
        started(s, 4)
        with pytest.raises(tsmech.FileError, match=rf"tsmech.Output: filename .*x.h5 is in use by another run \(process {p.pid}\)"):
            tsmech.Output(s, tmp_path / "x.h5")
    finally:
        p.communicate("")
    assert p.returncode == 0


def test_every_and_keep_take_the_program_values(tmp_path):
    s = system()
    ts = started(s, 4)
    for every in (0, -1):
        with pytest.raises(ValueError, match=rf"tsmech.Output\(every\)={every}: must be at least 1"):
            tsmech.Output(s, tmp_path / "run.h5", every=every)
    for every in (2.5, True, "10"):
        with pytest.raises(TypeError, match=r"tsmech.Output\(every\)"):
            tsmech.Output(s, tmp_path / "run.h5", every=every)
    ck = tsmech.Checkpoint(s, ts)
    with pytest.raises(ValueError, match=r"tsmech.Checkpoint.write_every\(every\)=-1: must be at least 0"):
        ck.write_every(tmp_path / "ck.h5", -1, tsmech.Guard(ts))
    for keep, match in ((0, r"tsmech.Checkpoint\(keep\)=0: must be at least 1"), (101, "keep 101: must be between 1 and 100")):
        with pytest.raises(ValueError, match=match):
            tsmech.Checkpoint(s, ts, keep=keep)
    for path in ("", "a\0b", 3):
        with pytest.raises((ValueError, TypeError), match=r"tsmech.Output\(filename\)"):
            tsmech.Output(s, path)
    ck.destroy()
    assert nothing_left(tmp_path)


def test_models_listed_by_the_library():
    lib = ctypes.CDLL(tsmech.library_path(), mode=ctypes.RTLD_GLOBAL)
    n = ctypes.c_int64() if np.dtype(PETSc.IntType).itemsize == 8 else ctypes.c_int32()
    names = ctypes.POINTER(ctypes.c_char_p)()
    assert lib.MechModelGetNames(ctypes.byref(n), ctypes.byref(names)) == 0
    listed = [names[i].decode() for i in range(n.value)]
    assert names[n.value] is None
    assert listed[:7] == ["oscillator", "pair", "chain", "kepler", "cloth", "lattice", "solid"]
    assert list(tsmech.MODELS) == listed
    # the package reads no private structure of PETSc's any more
    source = open(os.path.join(os.path.dirname(tsmech.__file__), "__init__.py")).read()
    assert "MechModelList" not in source and "_FunctionList" not in source
