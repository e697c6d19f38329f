"""The package tsmech in one process (1 rank): what `import tsmech` registers, a model written in
Python against the same C model under every kind of TS type, a Python exception in a callback,
the reader, and where the package finds its library."""
import os
import subprocess
import sys

import numpy as np
import petsc4py

petsc4py.init([])
from petsc4py import PETSc  # noqa: E402

import tsmech  # noqa: E402

TYPES = list(tsmech.TS_TYPES) + ["alpha2", "theta", "cn", "beuler", "rk", "euler"]


def library_type_names():
    """The library's own answer (TSMechGetTypeNames()), read here without the package's code."""
    import ctypes

    lib = ctypes.CDLL(tsmech.library_path(), mode=ctypes.RTLD_GLOBAL)
    n = ctypes.c_int64() if np.dtype(PETSc.IntType).itemsize == 8 else ctypes.c_int32()
    names = ctypes.POINTER(ctypes.c_char_p)()
    assert lib.TSMechGetTypeNames(ctypes.byref(n), ctypes.byref(names), None) == 0
    return [names[i].decode() for i in range(n.value)]


def test_import_registers_types_and_models():
    # the types come from their registration in the library; tsmech's 8 are a floor
    assert isinstance(tsmech.TS_TYPES, tuple) and all(isinstance(t, str) for t in tsmech.TS_TYPES)
    assert list(tsmech.TS_TYPES) == library_type_names()
    assert {"theta2", "beuler2", "cn2", "midpoint2", "euler2", "symeuler2", "gauss2", "discgrad2"} <= set(tsmech.TS_TYPES)
    assert set(tsmech.TS_TYPE_DESCRIPTIONS) == set(tsmech.TS_TYPES)
    assert all(d and "\n" not in d for d in tsmech.TS_TYPE_DESCRIPTIONS.values())
    assert tsmech.TS_TYPE_DESCRIPTIONS["gauss2"].startswith("Gauss-Legendre")
    for name in tsmech.TS_TYPES:
        ts = PETSc.TS().create(comm=PETSc.COMM_SELF)
        ts.setType(name)  # no -dll_append: the import registered them
        assert ts.getType() == name
        ts.destroy()
    assert {"oscillator", "pair", "chain", "kepler", "cloth", "lattice", "solid"} <= set(tsmech.MODELS)


def oscillator(p, **kw):
    """m q'' + k q + c q' + m g = 0 (src/models/oscillator.c) as a tsmech.System."""

    def force(t, q, v, f):
        f.setArray(p["k"] * q.getArray(readonly=True) + p["c"] * v.getArray(readonly=True) + p["m"] * p["g"])

    def tangent(t, q, v, cK, cD, J):
        J.setValue(0, 0, cK * p["k"] + cD * p["c"], addv=PETSc.InsertMode.ADD_VALUES)

    def potential(t, q, v):
        x = q.getArray(readonly=True)[0]
        return 0.5 * p["k"] * x * x + p["m"] * p["g"] * x

    q0 = PETSc.Vec().createSeq(1)
    q0.set(p["q0"])
    v0 = q0.duplicate()
    v0.set(p["v0"])
    return tsmech.System(PETSc.COMM_SELF, size=1, mass=p["m"], force=force, tangent=tangent, potential=potential,
                         initial=(q0, v0), name="oscillator", parameters=p, linear=True, **kw)


def run(system, tstype, steps=50, dt=0.01):
    ts = PETSc.TS().create(comm=PETSc.COMM_SELF)
    ts.setType(tstype)
    system.attach(ts)
    ts.setTimeStep(dt)
    ts.setMaxSteps(steps)
    ts.setMaxTime(1e9)
    ts.setExactFinalTime(PETSc.TS.ExactFinalTime.MATCHSTEP)
    opts = PETSc.Options()
    opts["ts_adapt_type"] = "none"
    ts.setFromOptions()
    del opts["ts_adapt_type"]
    q, v = system.create_state()
    system.set_solution(q, v)
    assert tsmech.solve(ts) > 0
    assert ts.getStepNumber() == steps
    system.get_solution(q, v)
    return q.getArray().copy(), v.getArray().copy()


def test_python_model_under_every_type_equals_c_model():
    c = tsmech.Model("oscillator", comm=PETSc.COMM_SELF)
    p = c.parameters
    assert set(p) == {"m", "k", "c", "g", "q0", "v0"}
    py = oscillator(p)
    for tstype in TYPES:
        qc, vc = run(c, tstype)
        qp, vp = run(py, tstype)
        assert np.max(np.abs(qc - qp)) <= 1e-12 and np.max(np.abs(vc - vp)) <= 1e-12, tstype
        assert abs(qc[0] - p["q0"]) > 1e-3  # it moved
    # the control: other parameters give another answer
    other = oscillator(dict(p, k=p["k"] * 1.01))
    assert np.max(np.abs(run(other, "midpoint2")[0] - run(c, "midpoint2")[0])) > 1e-6
    # the system's own evaluations: energy and force at the initial state
    q, v = py.create_state()
    assert py.energy(q, v) == c.energy(q, v)
    assert py.force(q, v).getArray()[0] == c.force(q, v).getArray()[0]


def test_exception_in_a_callback_raises_with_its_text():
    calls = []

    def force(t, q, v, f):
        calls.append(t)
        if len(calls) > 3:
            raise ZeroDivisionError("the model divides by zero")
        q.copy(f)

    s = tsmech.System(PETSc.COMM_SELF, size=2, mass=1.0, force=force, tangent=lambda t, q, v, cK, cD, J: J.shift(cK), damping=False)
    ts = PETSc.TS().create(comm=PETSc.COMM_SELF)
    ts.setType("midpoint2")
    s.attach(ts)
    ts.setMaxSteps(10)
    ts.setFromOptions()
    q, v = s.create_state()
    q.set(1.0)
    s.set_solution(q, v)
    try:
        tsmech.solve(ts)
    except tsmech.Error as e:
        assert "Python force callback raised ZeroDivisionError: the model divides by zero" in str(e)
        assert isinstance(e.__cause__, PETSc.Error)
    else:
        raise AssertionError("the callback's exception did not stop the run")
    assert isinstance(s.exception, ZeroDivisionError)
    assert "ZeroDivisionError" in s.traceback


def test_output_and_reader(tmp_path):
    p = tsmech.Model("oscillator", comm=PETSc.COMM_SELF).parameters
    s = oscillator(p)
    ts = PETSc.TS().create(comm=PETSc.COMM_SELF)
    ts.setType("midpoint2")
    s.attach(ts)
    ts.setTimeStep(0.01)
    ts.setMaxSteps(25)
    ts.setFromOptions()
    q, v = s.create_state()
    s.set_solution(q, v)
    guard = tsmech.Guard(ts)
    with tsmech.Output(s, tmp_path / "run.h5", every=10):
        tsmech.solve(ts)
    assert guard.failure[0] == "none"
    assert guard.info["good_step"] == 25
    r = tsmech.read(tmp_path / "run.h5")
    assert r.model == "oscillator"
    assert r.parameters["k"] == p["k"]
    assert r.attrs["ts_type"] == "midpoint2"
    assert list(r.step) == list(range(26))
    assert np.allclose(r.time, 0.01 * np.arange(26))
    assert np.array_equal(r.energy, r.kinetic + r.potential)
    assert list(r.fields["step"]) == [0, 10, 20, 25]
    assert r.q.shape == (4, 1)
    s.get_solution(q, v)
    assert r.q[-1, 0] == q.getArray()[0]
    # a linear, lightly damped oscillator under midpoint2 loses energy only to its damper
    assert r.energy[-1] <= r.energy[0]


def import_in(env, code="import tsmech; print(tsmech.library_path())"):
    return subprocess.run([sys.executable, "-c", "import petsc4py; petsc4py.init([]); " + code], env=env, cwd="/",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_library_path():
    env = dict(os.environ)
    configured = env.pop("TSMECH_LIB", None)
    p = import_in(env)
    assert p.returncode == 0, p.stdout
    assert os.path.exists(p.stdout.split()[-1])
    if configured:
        assert os.path.samefile(p.stdout.split()[-1], configured)
    # TSMECH_LIB overrides it; a missing library is a clear ImportError
    p = import_in(dict(env, TSMECH_LIB="/nonexistent/libtsmech.so"))
    assert p.returncode != 0
    assert "tsmech: libtsmech.so not found at /nonexistent/libtsmech.so (from TSMECH_LIB)" in p.stdout


def test_reactions_and_energy_balance(tmp_path):
    # the chain (mass 1) settled by beuler2 hangs from its pinned end, which carries its weight;
    # the balance's terms through the reader are those of the C API at the last step
    opts = PETSc.Options()
    opts["chain_n"] = 8
    c = tsmech.Model("chain", comm=PETSc.COMM_SELF)
    del opts["chain_n"]
    ts = PETSc.TS().create(comm=PETSc.COMM_SELF)
    ts.setType("beuler2")
    c.attach(ts)
    ts.setTimeStep(0.1)
    ts.setMaxSteps(400)
    ts.setMaxTime(1e9)
    ts.setFromOptions()
    tsmech.set_balance(ts)
    q, v = c.create_state()
    c.set_solution(q, v)
    with tsmech.Output(c, tmp_path / "chain.h5", every=1000):
        tsmech.solve(ts)
    force, moment = tsmech.reaction(ts, "fixed")
    assert np.max(np.abs(force - [0, 0, 9.81])) <= 1e-8, force
    e = tsmech.energy_balance(ts)
    assert set(e) == set(tsmech.ENERGY_NAMES)
    r = tsmech.read(tmp_path / "chain.h5")
    # beuler2 dissipates: what is left is positive, the balance's own closure E0 + W - K - V - D
    e0 = r.energy[0]
    left = e0 + e["external_work"] + e["prescribed_work"] - e["kinetic"] - e["stored"] - e["damping"]
    assert e["numerical"] > 0.1 * abs(e0) and abs(left - e["numerical"]) <= 1e-12 * abs(e0), (e, e0)
    assert set(r.reactions) == {"fixed"} and r.reactions["fixed"]["force"].shape == (401, 3)
    assert np.array_equal(r.reactions["fixed"]["force"][-1], force)
    assert np.array_equal(r.reactions["fixed"]["moment"][-1], moment)
    assert all(r.balance[k][-1] == e[k] or (np.isnan(e[k]) and np.isnan(r.balance[k][-1])) for k in e)
    assert "reaction" not in r.monitor and "balance" not in r.monitor
    try:
        tsmech.reaction(ts, "clamp")
    except tsmech.Error as err:
        assert "clamp" in str(err)
    else:
        raise AssertionError("a constraint the system does not have was answered")
