"""A model written in Python (examples/python/fpu_chain.py, a tsmech.System) against the same
FPU chain in C (tests/python/fpu_chain.c): equal to 1e-12 under midpoint2 on 1 and 3 ranks, and
the controls that the comparison can fail."""
import pytest
from conftest import EXACT, FPU_C, PYTHON, difference, example, run

STEPS = ["-ts_max_steps", "40", "-output_every", "10", "-fpu_n", "48", "-fpu_beta", "2", "-fpu_c", "0.01"]


@pytest.mark.parametrize("ranks", [1, 3])
def test_python_model_equals_c_model(work, ranks):
    run([FPU_C, *EXACT, *STEPS, "-output", work / "c.h5"], ranks=ranks)
    run([PYTHON, example("fpu_chain.py"), *EXACT, *STEPS, "-output", work / "py.h5", "-quiet"], ranks=ranks)
    d = difference(work / "py.h5", work / "c.h5")
    print(f"{ranks} rank(s): largest relative difference {d:.2e}")
    assert d <= 1e-12
    # the control: another beta must differ (the comparison can fail)
    run([PYTHON, example("fpu_chain.py"), *EXACT, *STEPS, "-fpu_beta", "2.001", "-output", work / "other.h5", "-quiet"], ranks=ranks)
    assert difference(work / "other.h5", work / "c.h5") > 1e-6


def test_matrix_free_action(work):
    """The tangent's action from Python (-fpu_matrix_free with -ts_theta_matrix_free) gives the
    assembled run's answer on 3 ranks."""
    krylov = ["-ksp_type", "cg", "-ksp_rtol", "1e-13", "-snes_rtol", "1e-13", "-snes_atol", "1e-13", "-snes_stol", "0"]
    run([PYTHON, example("fpu_chain.py"), *krylov, *STEPS, "-output", work / "asm.h5", "-quiet"], ranks=3)
    out = run([PYTHON, example("fpu_chain.py"), *krylov, *STEPS, "-output", work / "mf.h5", "-fpu_matrix_free",
               "-ts_theta_matrix_free", "-log_view", ":" + str(work / "log.txt")], ranks=3)
    assert "40 steps" in out.stdout
    assert difference(work / "mf.h5", work / "asm.h5") <= 1e-10
    # the shell operator was used: its MatMult calls go through the Python action
    log = (work / "log.txt").read_text()
    assert "MatMult" in log


@pytest.mark.parametrize("tstype", ["midpoint2", "cn2", "beuler2", "theta2", "symeuler2", "euler2", "gauss2", "alpha2", "theta", "rk"])
def test_every_type(work, tstype):
    """The Python model runs under every tsmech type, TSALPHA2 and PETSc's first-order types
    (implicit ones through the I-form, rk through the RHS form), and C and Python agree (2 ranks)."""
    args = [*EXACT, *STEPS, "-ts_type", tstype, "-ts_adapt_type", "none", "-ts_dt", "0.01"]
    if tstype == "alpha2":  # its residual (of the acceleration) stalls near 1e-12: a looser floor
        args += ["-snes_atol", "1e-10"]
    run([FPU_C, *args, "-output", work / "c.h5"], ranks=2)
    run([PYTHON, example("fpu_chain.py"), *args, "-output", work / "py.h5", "-quiet"], ranks=2)
    assert difference(work / "py.h5", work / "c.h5") <= 1e-12
