#!/usr/bin/python3
"""Constraints of the solid model (src/models/solid/constraints.c) through the tsmech program.

  run_constraints.py TSMECH MPIEXEC WORKDIR

  prescribed   the beam clamped at x = 0, its end x = 1 moved along z by u sin(50 t): at every
               step's end the end's positions and velocities equal u sin(50 t) and 50 u cos(50 t)
               (<= 1e-14 relative to u), under midpoint2, cn2, beuler2, TSALPHA2 and PETSc's
               beuler, cn, theta (the trapezoidal rule's oscillating velocity is not kept);
               midpoint2 = TSALPHA2 (radius 1) = PETSc's theta 0.5 on the whole state (<= 1e-8)
  rigid        both ends moved by u t / T (ramp) and the body started at the ramp's velocity
               (-solid_v0): every vertex at X + u t / T, the strain energy zero (<= 1e-12 of the
               kinetic energy), under midpoint2 and TSALPHA2
  components   plane strain: z held on every vertex (-solid_bc_NAME_where all, _components z), the
               beam bends in y under gravity: every z stays where it was (bitwise), y moves
  ranks        the prescribed run on 1, 2 and 3 ranks: the same outputs to 1e-10
  restart      20 steps against 10 + a restart of 10 (checkpoint): bitwise equal on the same rank,
               to 1e-10 continued on 2 and 3 ranks; a restart with another prescribed u is refused
               naming the parameter (exit 2)
  refused      bad constraints: one line, exit 2, no file
  static       where the beam comes to rest (docs/solid.md): beuler2 with long steps, the linear beam
               in 10 steps of 1 s (-report_equilibrium: |f(q, 0)| <= 1e-9 of the load), the
               neo-Hookean one (a 15 % sag) with its gravity ramped over 4 s in steps of 0.25 s
               (<= 1e-6); without the ramp its first step fails
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np

TSMECH, MPIEXEC, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
failures = 0
U = 0.01
W = 50.0
BEAM = "-model solid -solid_material linear -solid_g 0,0,0 -solid_beam_cells 10,2,2 -ts_dt 1e-3 -quiet -output_every 1"
TIGHT = "-snes_rtol 1e-12 -ksp_rtol 1e-13 -ksp_atol 1e-30"
MOVE = "-solid_bc clamp,tip -solid_bc_clamp_where x=0 -solid_bc_tip_where x=1 -solid_bc_tip_u 0,0,%g -solid_bc_tip_time sin:%g" % (U, W)


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + msg, flush=True)


def run(args, ranks=1, expect=0):
    cmd = [TSMECH] + args.split()
    if ranks > 1:
        cmd = [MPIEXEC, "-q", "-n", str(ranks)] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    check(p.returncode == expect, f"tsmech {args} on {ranks}: exit {p.returncode}, expected {expect}\n{out}")
    return out


def load(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in ("fields/q", "fields/v", "fields/time", "mesh/vertices", "monitor/energy")}


def clean(*names):
    for n in names:
        if os.path.exists(n):
            os.remove(n)


# prescribed: the end follows u sin(50 t) exactly at every step, under every type
finals = {}
for ty in ("midpoint2", "cn2", "beuler2", "alpha2", "beuler", "cn", "theta"):
    clean("p.h5", "p.xmf")
    run(f"{BEAM} {MOVE} {TIGHT} -ts_type {ty} -ts_max_steps 30 -output p.h5")
    d = load("p.h5")
    X, q, v, t = d["mesh/vertices"], d["fields/q"], d["fields/v"], d["fields/time"]
    tip = np.abs(X[:, 0] - 1) < 1e-12
    eq = max(np.abs(q[k][tip, 2] - X[tip, 2] - U * np.sin(W * t[k])).max() for k in range(len(t)))
    ev = max(np.abs(v[k][tip, 2] - U * W * np.cos(W * t[k])).max() for k in range(len(t)))
    others = max(np.abs(q[k][tip, :2] - X[tip, :2]).max() for k in range(len(t)))
    print(f"prescribed {ty:10s}: 30 steps, |q_end - u sin| / u = {eq / U:.2e}, |v_end - u w cos| / (u w) = {ev / (U * W):.2e}, x, y of the end {others:.1e}")
    check(eq <= 1e-14 * U and ev <= 1e-14 * U * W and others == 0, f"{ty}: the prescribed motion is not met ({eq:.2e}, {ev:.2e}, {others:.2e})")
    finals[ty] = np.concatenate([q[-1].ravel(), v[-1].ravel()])
for a, b in (("midpoint2", "alpha2"), ("midpoint2", "theta")):
    rel = np.abs(finals[a] - finals[b]).max() / np.abs(finals[b]).max()
    print(f"prescribed {a} vs {b}: {rel:.2e}")
    check(rel <= 1e-8, f"{a} and {b} differ by {rel:.2e} with a prescribed motion")

# rigid: both ends moved at the ramp's velocity, the body started at it: a rigid translation
T = 0.05
u = np.array([0.002, -0.001, 0.003])
RIGID = f"-solid_bc a,b -solid_bc_a_where x=0 -solid_bc_b_where x=1 -solid_bc_a_u {u[0]},{u[1]},{u[2]} -solid_bc_b_u {u[0]},{u[1]},{u[2]} -solid_bc_a_time ramp:{T} -solid_bc_b_time ramp:{T} -solid_v0 {u[0]/T},{u[1]/T},{u[2]/T}"
for ty in ("midpoint2", "alpha2"):
    clean("r.h5", "r.xmf")
    run(f"{BEAM} {RIGID} -ts_type {ty} -ts_max_steps 20 -output r.h5 {TIGHT}")
    d = load("r.h5")
    X, q, t = d["mesh/vertices"], d["fields/q"], d["fields/time"]
    err = max(np.abs(q[k] - X - np.outer(np.ones(len(X)), u) * t[k] / T).max() for k in range(len(t)))
    # the energy is all kinetic: (1/2) m |u/T|^2 with the beam's mass 1000 * 0.1 * 0.1
    kin = 0.5 * 1000 * 0.01 * np.dot(u, u) / T**2
    strain = np.abs(d["monitor/energy"] - kin).max()
    print(f"rigid      {ty:10s}: |q - X - u t/T| {err:.2e}, strain energy {strain:.2e} of the kinetic {kin:.3g}")
    check(err <= 1e-12 and strain <= 1e-12 * kin, f"{ty}: a prescribed translation did not move the body rigidly ({err:.2e}, {strain:.2e})")

# the stresses in the output, and -solid_output_stress false without them
with h5py.File("p.h5", "r") as f:
    has = all(k in f for k in ("fields/stress", "fields/von_mises", "fields/J"))
clean("ns.h5", "ns.xmf")
run(f"{BEAM} {MOVE} -ts_max_steps 2 -output ns.h5 -solid_output_stress false")
with h5py.File("ns.h5", "r") as f:
    hasnot = not any(k in f for k in ("fields/stress", "fields/von_mises", "fields/J")) and "fields/q" in f
print(f"output     stresses written by default: {has}; none with -solid_output_stress false: {hasnot}")
check(has and hasnot, "-solid_output_stress does not decide whether the stresses are written")
# an output and a checkpoint are continued only by runs that write what they hold
clean("so.h5", "so.xmf", "sock.h5")
run(f"{BEAM} -ts_max_steps 3 -output so.h5 -checkpoint sock.h5")
out = run(f"{BEAM} -ts_max_steps 6 -output so.h5 -checkpoint sock.h5 -restart sock.h5 -solid_output_stress false", expect=2)
print(f"output     a restart without the stresses of its output: {out.strip()}")
check("output_stress" in out, "a restart that stops writing the stresses is not refused by name")

# components: z held everywhere (plane strain), gravity along -y
clean("c.h5", "c.xmf")
run(f"-model solid -solid_beam_cells 10,2,2 -ts_dt 1e-3 -quiet -output_every 5 -solid_g 0,-9.81,0 -solid_bc clamp,plane -solid_bc_clamp_where x=0 -solid_bc_plane_where all -solid_bc_plane_components z -ts_max_steps 20 -output c.h5")
d = load("c.h5")
dz = np.abs(d["fields/q"][:, :, 2] - d["mesh/vertices"][:, 2]).max()
dy = np.abs(d["fields/q"][-1][:, 1] - d["mesh/vertices"][:, 1]).max()
print(f"components plane strain: max |z - Z| = {dz:.1e}, the end moved {dy:.2e} in y")
check(dz == 0 and dy > 1e-6, f"plane strain: z moved by {dz:.2e} or y by only {dy:.2e}")

# ranks: the prescribed run on 1, 2 and 3 ranks
ref = None
for n in (1, 2, 3):
    clean(f"n{n}.h5", f"n{n}.xmf")
    run(f"{BEAM} {MOVE} -ts_type midpoint2 -ts_max_steps 10 -output n{n}.h5 {TIGHT}", ranks=n)
    d = load(f"n{n}.h5")
    s = np.concatenate([d["fields/q"].ravel(), d["fields/v"].ravel()])
    if ref is None:
        ref = s
    rel = np.abs(s - ref).max() / np.abs(ref).max()
    print(f"ranks      {n} against 1: {rel:.2e}")
    check(rel <= 1e-10, f"{n} ranks differ from 1 by {rel:.2e}")

# restart: 20 steps against 10 and a restart of 10 more
clean("full.h5", "full.xmf", "half.h5", "half.xmf", "ck.h5")
run(f"{BEAM} {MOVE} -ts_type cn2 -ts_max_steps 20 -output full.h5")
run(f"{BEAM} {MOVE} -ts_type cn2 -ts_max_steps 10 -output half.h5 -checkpoint ck.h5")
run(f"{BEAM} {MOVE} -ts_type cn2 -ts_max_steps 20 -output half.h5 -checkpoint ck.h5 -restart ck.h5")
a, b = load("full.h5"), load("half.h5")
same = all(np.array_equal(a[k], b[k]) for k in ("fields/q", "fields/v", "fields/time"))
print(f"restart    20 steps against 10 + 10: {'bitwise equal' if same else 'different'}")
check(same, "a restart with a prescribed motion does not reproduce the run")
# the same checkpoint continued on 2 and 3 ranks: the run to 1e-10
for n in (2, 3):
    clean(f"half{n}.h5", f"half{n}.xmf", f"ck{n}.h5")
    run(f"{BEAM} {MOVE} {TIGHT} -ts_type cn2 -ts_max_steps 10 -output half{n}.h5 -checkpoint ck{n}.h5")
    run(f"{BEAM} {MOVE} {TIGHT} -ts_type cn2 -ts_max_steps 20 -output half{n}.h5 -checkpoint ck{n}.h5 -restart ck{n}.h5", ranks=n)
    if n == 2:
        clean("fullt.h5", "fullt.xmf")
        run(f"{BEAM} {MOVE} {TIGHT} -ts_type cn2 -ts_max_steps 20 -output fullt.h5")
    a, b = load("fullt.h5"), load(f"half{n}.h5")
    rel = max(np.abs(a[k] - b[k]).max() / np.abs(a[k]).max() for k in ("fields/q", "fields/v"))
    print(f"restart    10 steps on 1 rank, 10 more on {n}: {rel:.2e} from the uninterrupted run")
    check(rel <= 1e-10, f"a restart on {n} ranks differs by {rel:.2e}")
other = MOVE.replace(f"-solid_bc_tip_u 0,0,{U:g}", "-solid_bc_tip_u 0,0,0.02")
out = run(f"{BEAM} {other} -ts_type cn2 -ts_max_steps 30 -checkpoint ck.h5 -restart ck.h5", expect=2)
print(f"restart    with another u: {out.strip()}")
check("bc_tip_uz" in out, "the restart with another prescribed displacement is not refused by name")

# many: the 16 named constraints a run may have, with long names, recorded in the output and the
# checkpoint (5 parameters each: the system's table once held 32 and refused the third constraint)
names = [f"constraint_with_a_long_name_{i}" for i in range(1, 17)]
MANY = "-solid_bc " + ",".join(names) + "".join(f" -solid_bc_{n}_where x=0 -solid_bc_{n}_components {'xyz'[i % 3]}" for i, n in enumerate(names))
clean("many.h5", "many.xmf", "manyck.h5", "manyfull.h5", "manyfull.xmf")
run(f"{BEAM} {MANY} -ts_type midpoint2 -ts_max_steps 4 -output manyfull.h5")
run(f"{BEAM} {MANY} -ts_type midpoint2 -ts_max_steps 2 -output many.h5 -checkpoint manyck.h5")
run(f"{BEAM} {MANY} -ts_type midpoint2 -ts_max_steps 4 -output many.h5 -checkpoint manyck.h5 -restart manyck.h5")
a, b = load("manyfull.h5"), load("many.h5")
same = all(np.array_equal(a[k], b[k]) for k in ("fields/q", "fields/v", "fields/time"))
with h5py.File("manyck.h5", "r") as f:
    recorded = [n for n in names if f"bc_{n}_components" in f["checkpoint/model_parameters"].attrs]
print(f"many       16 named constraints: {len(recorded)} recorded in the checkpoint, restart {'bitwise equal' if same else 'different'}")
check(same and len(recorded) == 16, f"16 named constraints: {len(recorded)} recorded, restart equal {same}")
other = MANY.replace(f"-solid_bc_{names[-1]}_components {'xyz'[15 % 3]}", f"-solid_bc_{names[-1]}_components xyz")
out = run(f"{BEAM} {other} -ts_type midpoint2 -ts_max_steps 6 -checkpoint manyck.h5 -restart manyck.h5", expect=2)
print(f"many       with the last constraint changed: {out.strip()}")
check(f"bc_{names[-1]}_components" in out, "a restart with a changed 16th constraint is not refused by name")

# refused: bad constraints
for args, expect in (
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_components q", "-solid_bc_a_components q: give the components held"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_components xx", "-solid_bc_a_components xx"),
    ("-solid_bc a -solid_bc_a_where x=7", "-solid_bc_a_where x=7: no vertex"),
    ("-solid_bc a -solid_bc_a_where middle", "-solid_bc_a_where middle: expected a coordinate plane"),
    ("-solid_bc a -solid_bc_a_label bogus", "-solid_bc_a_label bogus: the built-in beam has no such label"),
    ("-solid_bc a -solid_bc_a_group clamp", "-solid_bc_a_group clamp: the built-in beam has no Gmsh physical group"),
    ("-solid_bc a", "give exactly one of -solid_bc_a_label, -solid_bc_a_group and -solid_bc_a_where"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_label x", "give exactly one of"),
    ("-solid_bc a,b -solid_bc_a_where x=0 -solid_bc_b_where x=0 -solid_bc_b_u 0,0,1", "the constraint b prescribes 9 components that an earlier constraint prescribes differently"),
    ("-solid_bc a,b -solid_bc_a_where x=0 -solid_bc_b_where x=0 -solid_bc_a_u 0,0,1 -solid_bc_b_u 0,0,1 -solid_bc_b_time ramp:1", "prescribes 9 components"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_time ramp:-1", "-solid_bc_a_time ramp:-1: ramp:T needs a positive time T"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_time hat:2,1", "hat:T1,T2 needs times 0 < T1 < T2"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_time table:nofile.txt", "table:nofile.txt: the file does not exist"),
    ("-solid_bc a -solid_bc_a_where x=0 -solid_bc_a_u 1,2", "-solid_bc_a_u 1,2: needs 3 comma-separated values"),
    ("-solid_bc a,,b -solid_bc_a_where x=0", "an element of the list is empty"),
    ("-solid_bc a-b -solid_bc_a-b_where x=0", "a constraint's name may hold letters, digits and _ only"),
    ("-solid_bc fix -solid_bc_fix_where x=0 -solid_fix x=1", "the constraint fix is named twice"),
):
    clean("bad.h5")
    out = run(f"{BEAM} {args} -ts_max_steps 2 -output bad.h5", expect=2)
    lines = [l for l in out.splitlines() if l.strip()]
    ok = len(lines) == 1 and expect in lines[0] and lines[0].startswith("tsmech: error:") and not os.path.exists("bad.h5")
    print(f"refused    {lines[0] if lines else '(nothing)'}")
    check(ok, f"{args}: expected one line with '{expect}' and no file, got {lines}")

# static: beuler2 with long steps damps the motion out; -report_equilibrium says how far from rest
SOLVER = "-ksp_type cg -pc_type gamg -ksp_norm_type unpreconditioned -ksp_rtol 1e-12 -snes_rtol 1e-10 -snes_atol 1e-12"
for name, args, bound in (
    ("linear, 10 steps of 1 s", "-solid_material linear -ts_dt 1 -ts_max_time 10", 1e-9),
    ("neohookean, gravity ramped over 4 s", "-solid_g_time ramp:4 -ts_dt 0.25 -ts_max_time 6", 1e-6),
):
    out = run(f"-model solid -ts_type beuler2 {args} {SOLVER} -report_equilibrium -quiet")
    line = [l for l in out.splitlines() if "equilibrium at" in l]
    m = re.search(r", ([0-9.e+-]+) of the load", line[0]) if line else None
    rel = float(m.group(1)) if m else 1.0
    print(f"static     {name}: {line[0] if line else out.strip()}")
    check(rel <= bound, f"static {name}: {rel:.2e} of the load from equilibrium, more than {bound:g}")
# without the ramp the whole load in one step of 1 s: it failed with PETSc's bt line search and fixed
# steps (exit 3); the line search on the incremental potential and automatic incrementation (the
# defaults, docs/solvers.md §8) carry it to equilibrium
out = run(f"-model solid -ts_type beuler2 -ts_dt 1 -ts_max_time 6 {SOLVER} -report_equilibrium -quiet")
line = [l for l in out.splitlines() if "equilibrium at" in l]
m = re.search(r", ([0-9.e+-]+) of the load", line[0]) if line else None
print(f"static     the neo-Hookean beam without the ramp: {line[0] if line else out.strip()}")
check(m is not None and float(m.group(1)) <= 1e-6, "static: the neo-Hookean beam without the ramp does not reach equilibrium with the defaults")

print(f"constraints: {failures} failures")
sys.exit(1 if failures else 0)
