"""Checkpoints from Python (tsmech.Checkpoint, examples/python/model_from_python.py and
fpu_chain.py): one written from Python restarts in the tsmech program and the reverse, bit for
bit against the uninterrupted run, on 3 ranks; a Python-defined model restarts in Python."""
import h5py
import numpy as np
from conftest import EXACT, PROGRAM, PYTHON, example, run

CHAIN = [*EXACT, "-model", "chain", "-chain_n", "20", "-ts_dt", "0.01"]


def checkpoint_state(path):
    """Every dataset of /checkpoint and its step, time and dt."""
    with h5py.File(path, "r") as f:
        g = f["checkpoint"]
        data = {k: g[k][()] for k in g if isinstance(g[k], h5py.Dataset)}
        return data, {k: g.attrs[k] for k in ("step", "time", "dt")}


def assert_bitwise(a, b):
    da, aa = checkpoint_state(a)
    db, ab = checkpoint_state(b)
    assert sorted(da) == sorted(db)
    assert {"q", "v", "v_previous", "q_previous"} <= set(da)
    for k in da:
        assert np.array_equal(da[k], db[k]), f"/checkpoint/{k} differs: {np.max(np.abs(da[k] - db[k]))}"
    assert aa == ab


def test_python_and_program_restart_each_other(work):
    run([PROGRAM, *CHAIN, "-ts_max_steps", "20", "-checkpoint", work / "full.h5", "-quiet"], ranks=3)
    # Python writes at step 10, the program continues to 20
    run([PYTHON, example("model_from_python.py"), *CHAIN, "-ts_max_steps", "10", "-checkpoint", work / "py.h5"], ranks=3)
    run([PROGRAM, *CHAIN, "-ts_max_steps", "20", "-restart", work / "py.h5", "-checkpoint", work / "py.h5", "-quiet"], ranks=3)
    assert_bitwise(work / "py.h5", work / "full.h5")
    # the program writes at step 10, Python continues to 20
    run([PROGRAM, *CHAIN, "-ts_max_steps", "10", "-checkpoint", work / "c.h5", "-quiet"], ranks=3)
    out = run([PYTHON, example("model_from_python.py"), *CHAIN, "-ts_max_steps", "20", "-restart", work / "c.h5", "-checkpoint", work / "c.h5"], ranks=3)
    assert "20 steps to t = 0.2" in out.stdout
    assert_bitwise(work / "c.h5", work / "full.h5")
    # the control: a restart with another scheme (options given on restart win) is not the same run
    run([PROGRAM, *CHAIN, "-ts_max_steps", "10", "-checkpoint", work / "c.h5", "-quiet"], ranks=3)
    run([PYTHON, example("model_from_python.py"), *CHAIN, "-ts_max_steps", "20", "-ts_type", "cn2", "-restart", work / "c.h5", "-checkpoint", work / "c.h5"], ranks=3)
    try:
        assert_bitwise(work / "c.h5", work / "full.h5")
    except AssertionError:
        pass
    else:
        raise AssertionError("a run with another scheme compares equal: the comparison proves nothing")


def test_python_model_restart_with_output(work):
    """The Python FPU chain checkpointed at step 20 and restarted to 40 gives the uninterrupted
    run's checkpoint and output bit for bit; a checkpoint of other parameters is refused."""
    fpu = [PYTHON, example("fpu_chain.py"), *EXACT, "-fpu_n", "30", "-quiet", "-output_every", "5"]
    run([*fpu, "-ts_max_steps", "40", "-checkpoint", work / "full.h5", "-output", work / "full_out.h5"], ranks=3)
    run([*fpu, "-ts_max_steps", "20", "-checkpoint", work / "ck.h5", "-checkpoint_every", "10", "-output", work / "out.h5"], ranks=3)
    run([*fpu, "-ts_max_steps", "40", "-checkpoint", work / "ck.h5", "-restart", work / "ck.h5", "-output", work / "out.h5"], ranks=3)
    assert_bitwise(work / "ck.h5", work / "full.h5")
    with h5py.File(work / "out.h5", "r") as a, h5py.File(work / "full_out.h5", "r") as b:
        for k in ("fields/q", "fields/v", "monitor/energy", "monitor/step"):
            assert np.array_equal(a[k][()], b[k][()]), k
    bad = run([*fpu, "-fpu_beta", "2", "-ts_max_steps", "50", "-restart", work / "ck.h5"], ranks=1, expect=2)
    assert "-restart" in bad.stdout and "beta" in bad.stdout
