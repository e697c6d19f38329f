#!/usr/bin/python3
"""The cost per step of a model written in Python against the same model in C: the FPU chain of
examples/python/fpu_chain.py (tsmech.System) and tests/python/fpu_chain.c, midpoint2 on one rank,
Newton with a direct solve. A benchmark, not a test (not run by meson):

    /usr/bin/python3 tests/python/bench_overhead.py [build directory, default build] [n, default 64]

The per-step time is the difference of a long and a short run divided by the extra steps, so
that start-up (MPI, Python, imports) cancels; the best of three of each.
"""
import os
import subprocess
import sys
import time

src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(src, "build"))
n = sys.argv[2] if len(sys.argv) > 2 else "64"
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", PYTHONPATH=os.path.join(build, "python"))
common = ["-fpu_n", n, "-ksp_type", "preonly", "-pc_type", "lu", "-ts_dt", "0.01"]
programs = {"C": [os.path.join(build, "tests", "python", "fpu_chain")],
            "Python": ["/usr/bin/python3", os.path.join(src, "examples", "python", "fpu_chain.py"), "-quiet"]}


def wall(cmd, steps):
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(cmd + common + ["-ts_max_steps", str(steps)], env=env, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


short, long_ = 10, 2010
per = {}
for name, cmd in programs.items():
    per[name] = (wall(cmd, long_) - wall(cmd, short)) / (long_ - short)
    print(f"{name:>6}: {per[name] * 1e6:8.1f} us per step (n = {n}, midpoint2, 1 rank)")
print(f"Python model / C model: {per['Python'] / per['C']:.1f}x, {(per['Python'] - per['C']) * 1e6:.1f} us more per step")
