#!/usr/bin/python3
"""The README's examples as printed (section "Examples": every indented command line that runs
build/tsmech, under mpirun or not, or tools/tsmech_plot.py), in order, from the source root, each
exiting 0, with the build directory and results/ replaced by this test's own (the README assumes
build/ and writes results/). Then what the README says of them:
- dynamics, static, the Gmsh beam and the modal analysis each write their output file;
- the static run ends at rest: the equilibrium line it prints has a residual below 1e-8 of the load;
- the restarted chain continues the first run's output: /monitor/step is 0 ... 1000, each step once;
- the plots are written;
- the C snippet of "Using tsmech from C", put into a main() with PetscInitialize() and the objects'
  clean-up, compiles against this build through pkg-config alone (its uninstalled tsmech.pc) and
  runs 5 steps with -malloc_dump silent.

  run_readme.py SOURCE_ROOT BUILD_DIR WORK_DIR
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np

SOURCE, BUILD, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(os.path.join(WORK, "results"))
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print(f"FAILED: {msg}")


text = open(os.path.join(SOURCE, "README.md"), encoding="utf-8").read()
section = text[text.index("\n## Examples"):]
section = section[: section.index("\n## ", 5)]
cmds = [line.strip() for line in section.splitlines() if re.match(r"^    (mpirun .*build/tsmech|build/tsmech|/usr/bin/python3 tools/)", line)]
check(len(cmds) >= 8, f"the README's Examples hold {len(cmds)} commands, expected the 8 or more of dynamics, static, Gmsh, output/restart, plots, modes")
outputs, printed = {}, []
for cmd in cmds:
    args = shlex.split(cmd)
    args = [os.path.join(BUILD, a[len("build/"):]) if a.startswith("build/") else a for a in args]
    args = [os.path.join(WORK, a) if a.startswith("results/") else a for a in args]
    p = subprocess.run(args, cwd=SOURCE, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    print(f"$ {cmd}\n  exit status {p.returncode}; {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ''}")
    check(p.returncode == 0, f"{cmd}: exit status {p.returncode}\n{p.stdout[-3000:]}")
    printed.append(p.stdout)
    for a in args:
        if a.startswith(WORK) and a.endswith((".h5", ".png")) and "_ck" not in a:
            outputs[a] = p.stdout
for f in outputs:
    check(os.path.exists(f), f"{f} was not written")

static = [o for o in printed if "equilibrium at t" in o]
check(len(static) == 1, "no run printed its equilibrium (-report_equilibrium)")
for o in static:
    m = re.search(r"equilibrium at t = 1: \|f\(t, q, 0\)\| = (\S+), (\S+) of the load", o)
    check(m and float(m.group(2)) < 1e-8, f"the static run is not at rest: {m.group(0) if m else o[-500:]}")

chain = os.path.join(WORK, "results", "chain.h5")
if os.path.exists(chain):
    with h5py.File(chain, "r") as h:
        steps = np.array(h["/monitor/step"])
        check(np.array_equal(steps, np.arange(1001)), f"the continued output's /monitor/step is not 0 ... 1000 once each: {steps[:3]} ... {steps[-3:]} ({len(steps)})")
        check(int(h.attrs.get("restarts", 0)) == 1, "the continued output does not count one restart")
# the C snippet, as printed
snippet = text[text.index("\n## Using tsmech from C"):]
snippet = snippet[snippet.index("```c\n") + 5:]
snippet = snippet[: snippet.index("```")]
lines = snippet.splitlines()
includes = [ln for ln in lines if ln.startswith("#include")]
body = [ln for ln in lines if not ln.startswith("#include")]
check(includes == ["#include <tsmech.h>"] and any("TSSolve" in ln for ln in body), f"the README's C snippet is not the expected one:\n{snippet}")
prog = "\n".join(includes + ["int main(int argc, char **argv)", "{", "  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));", "  {"] + body +
                 ["  PetscCall(VecDestroy(&q));", "  PetscCall(VecDestroy(&v));", "  PetscCall(TSDestroy(&ts));", "  PetscCall(MechSystemDestroy(&sys));", "  }",
                  "  PetscCall(PetscFinalize());", "  return 0;", "}"]) + "\n"
csrc, cexe = os.path.join(WORK, "snippet.c"), os.path.join(WORK, "snippet")
with open(csrc, "w") as fh:
    fh.write(prog)
env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(BUILD, "meson-uninstalled"))
flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tsmech"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
check(flags.returncode == 0, f"pkg-config tsmech (uninstalled) failed: {flags.stdout}")
if flags.returncode == 0:
    cc = subprocess.run(["cc", csrc, "-o", cexe, "-Wl,-rpath," + BUILD] + shlex.split(flags.stdout), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(cc.returncode == 0, f"the README's C snippet does not compile:\n{cc.stdout}")
    if cc.returncode == 0:
        run = subprocess.run([cexe, "-ts_max_steps", "5", "-malloc_dump"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        print(f"$ the README's C snippet, 5 steps: exit status {run.returncode}")
        check(run.returncode == 0 and not run.stdout.strip(), f"the README's C snippet failed or leaked: exit status {run.returncode}\n{run.stdout[-2000:]}")
print(f"{len(cmds)} README commands and the C snippet run, {failures} failures")
sys.exit(1 if failures else 0)
