#!/usr/bin/python3
"""Reactions and the energy balance through the tsmech program (src/ts/balance.c, docs/balance.md).

  run_balance.py TSMECH MPIEXEC COOK_MESHER WORKDIR PART

PART reactions (reactions1, reactions2, reactions3: on that many ranks only): Cook's membrane at
  equilibrium (tests/solid/run_cook.py's setup, N = 4): the clamp's reaction is -1 N in y (the
  traction's total) and zero in x to 1e-8 of it, on 1, 2 and 3 ranks, with P1 and P2 tetrahedra
  and Q1 and Q2 hexahedra; on 1 rank the chain hanging at rest carries its weight at its pinned end
  (a model's unnamed fixed dofs, the group "fixed").
PART momentum: a beam clamped at x = 0 and loaded at x = 1 by a total force F sin(30 t), linear
  material, Newton to round-off: over every step (P1 - P0)/tau = F phi(step's times) + R to 1e-12 of
  |F| under midpoint2, cn2, beuler2, discgrad2, gauss2 (2 stages, its direct mode), midpoint2
  linearized, and PETSc's theta, cn, beuler and alpha2 at radius 1 (each phi at the type's own
  evaluation times); alpha2 at radius 0.5 does not balance (its gamma is not alpha_m: an estimate).
PART energy: a neo-Hookean beam clamped at x = 0 and driven by a prescribed motion 0.02 sin(40 t)
  of its face x = 1, no damping: discgrad2's leftover stays below 1e-9 of the energy over 10^4
  steps (energy ratio 1 to 1e-9); midpoint2's leftover falls as tau^2 (three step sizes, ratios
  4 +- 0.3); with Rayleigh damping alpha M the dissipated energy equals the integral of v.Dv = 2 alpha K
  (trapezoidal rule on the steps) to the scheme's order: the difference falls as tau^2.
PART restart: a damped, driven, loaded run with reactions, the energy balance and probes, stopped
  at step 20 and restarted to step 40: every /monitor history bitwise that of the uninterrupted run;
  tools/tsmech_plot.py history of it: a plot, and a CSV whose columns are the datasets' values;
  a restart without the balance, with other probes, other regions or another initial state is
  refused by name (exit status 2).
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np
from program import Program

TSMECH, MPIEXEC, COOK, WORK, PART = sys.argv[1:6]
prog = Program(TSMECH, MPIEXEC, WORK)
check, run = prog.check, prog.run


def fresh(*names):
    for n in names:
        for f in (n, n.replace(".h5", ".xmf")):
            if os.path.exists(f):
                os.remove(f)


if PART.startswith("reactions"):
    RANKS = (int(PART[len("reactions"):]),) if PART != "reactions" else (1, 2, 3)
    BASE = ("-model solid -solid_material neohookean_split -solid_E 1.0985 -solid_nu 0.3 -solid_density 1e-9 -solid_g 0,0,0 "
            "-solid_bc clamp,plane -solid_bc_clamp_group clamp -solid_bc_plane_where all -solid_bc_plane_components z "
            "-solid_load tip -solid_load_tip_group load -solid_load_tip_traction 0,0.0625,0 -solid_load_tip_time ramp:5 "
            "-ts_type beuler2 -ts_dt 1 -ts_max_time 7 -ksp_type preonly -pc_type lu -quiet -monitor_reactions -output_every 1000")
    for kind, order in (("tet", 1), ("tet10", 2), ("hex", 1), ("hex27", 2)):
        subprocess.run(["/usr/bin/python3", COOK, "4", f"cook_{kind}.msh", kind], check=True)
        for ranks in RANKS:
            fresh(f"r_{kind}_{ranks}.h5")
            # the hexahedra with free z faces (run_cook.py): the clamp alone
            args = BASE if kind.startswith("tet") else BASE.replace("-solid_bc clamp,plane", "-solid_bc clamp").replace("-solid_bc_plane_where all -solid_bc_plane_components z ", "")
            out = run(f"{args} -solid_order {order} -solid_mesh cook_{kind}.msh -output r_{kind}_{ranks}.h5", ranks)
            with h5py.File(f"r_{kind}_{ranks}.h5", "r") as f:
                R = f["monitor/reaction/clamp/force"][-1]
            print(f"Cook {kind:5s} on {ranks} ranks: clamp reaction ({R[0]:.3e}, {R[1]:.15f}, {R[2]:.3e}) N")
            check(abs(R[1] + 1) <= 1e-9, f"Cook {kind} {ranks} ranks: reaction y {R[1]!r}, expected -1")
            check(abs(R[0]) <= 1e-8, f"Cook {kind} {ranks} ranks: reaction x {R[0]!r}, expected 0 to 1e-8 of 1 N")
            check(re.search(r"reactions at t = 7: clamp force \([-0-9.e]+, -1, ", out), f"Cook {kind}: the summary line\n{out}")
    # another model's fixed dofs: the chain (mass 1) hanging at rest from its pinned end
    if 1 not in RANKS:
        prog.finish(f"balance {PART}")
    fresh("chain.h5")
    run("-model chain -ts_type beuler2 -ts_dt 0.1 -ts_max_steps 400 -ts_max_time 1e9 -quiet -monitor_reactions -output chain.h5 -output_every 1000")
    with h5py.File("chain.h5", "r") as f:
        R = f["monitor/reaction/fixed/force"][-1]
    print(f"chain at rest: reaction of its pinned end {R}")
    check(abs(R[2] - 9.81) <= 1e-8 and abs(R[0]) <= 1e-7 and abs(R[1]) <= 1e-7, f"chain: the pinned end carries {R}, expected the weight (0, 0, 9.81)")

elif PART == "momentum":
    W, F = 30.0, np.array([0.3, -0.2, 1.0])
    BASE = (f"-model solid -solid_beam_cells 4,1,1 -solid_material linear -solid_E 1e5 -solid_nu 0.3 -solid_density 100 -solid_g 0,0,0 "
            f"-solid_bc clamp -solid_bc_clamp_where x=0 -solid_load end -solid_load_end_where x=1 -solid_load_end_force {F[0]},{F[1]},{F[2]} "
            f"-solid_load_end_time sin:{W} -ts_dt 2e-3 -ts_max_steps 40 -ksp_type preonly -pc_type lu -snes_rtol 1e-14 -snes_atol 1e-15 -quiet "
            f"-monitor_reactions -output_every 1000")
    phi = np.sin
    c2 = np.array([0.5 - np.sqrt(3) / 6, 0.5 + np.sqrt(3) / 6])
    # each type's load: phi at its own evaluation times; the bound (None: not balanced). alpha2 derives
    # its acceleration from positions (divisions by tau^2): round-off 1e-11
    cases = [("midpoint2", "", lambda t, h: phi(W * (t + h / 2)), 1e-12),
             ("cn2", "", lambda t, h: (phi(W * t) + phi(W * (t + h))) / 2, 1e-12),
             ("beuler2", "", lambda t, h: phi(W * (t + h)), 1e-12),
             ("discgrad2", "", lambda t, h: phi(W * (t + h / 2)), 1e-12),
             ("gauss2", "-ts_gauss2_stages 2 -ts_gauss2_direct_max 1000", lambda t, h: 0.5 * (phi(W * (t + c2[0] * h)) + phi(W * (t + c2[1] * h))), 1e-12),
             ("midpoint2", "-ts_theta_linearized", lambda t, h: phi(W * t), 1e-12),
             ("theta", "-ts_theta_theta 0.5", lambda t, h: phi(W * (t + h / 2)), 1e-12),
             ("cn", "", lambda t, h: (phi(W * t) + phi(W * (t + h))) / 2, 1e-12),
             ("beuler", "", lambda t, h: phi(W * (t + h)), 1e-12),
             ("alpha2", "-ts_alpha_radius 1 -ts_adapt_type none", lambda t, h: phi(W * (t + h / 2)), 1e-10),
             ("alpha2", "-ts_alpha_radius 0.5 -ts_adapt_type none", lambda t, h: phi(W * (t + h / 2)), None)]
    for ts, extra, load, bound in cases:
        fresh("m.h5")
        run(f"{BASE} -ts_type {ts} {extra} -output m.h5")
        with h5py.File("m.h5", "r") as f:
            t = f["monitor/time"][()]
            P = np.stack([f["monitor/momentum_" + c][()] for c in "xyz"], 1)
            R = f["monitor/reaction/clamp/force"][()]
        h = np.diff(t)
        err = np.abs((P[1:] - P[:-1]) / h[:, None] - load(t[:-1], h)[:, None] * F[None, :] - R[1:]).max() / np.abs(F).max()
        print(f"{ts:9s} {extra:45s} max |(P1 - P0)/tau - F - R| = {err:.2e} of |F|")
        if bound:
            check(err <= bound, f"{ts} {extra}: the momentum balance holds to {err:.2e}, expected {bound:.0e}")
        else:
            check(err > 1e-6, f"{ts} {extra}: alpha2 at radius 0.5 balances to {err:.2e}: it is not the midpoint rule")

elif PART == "energy":
    BASE = ("-model solid -solid_beam_cells 2,1,1 -solid_material neohookean -solid_E 1e5 -solid_nu 0.3 -solid_density 100 -solid_g 0,0,0 "
            "-solid_bc clamp,drive -solid_bc_clamp_where x=0 -solid_bc_drive_where x=1 -solid_bc_drive_u 0,0.005,0.02 -solid_bc_drive_time sin:40 "
            "-ksp_type preonly -pc_type lu -snes_rtol 1e-14 -snes_atol 1e-15 -quiet -monitor_energy_balance -output_every 1000000")

    def balance(name):
        with h5py.File(name, "r") as f:
            b = {k: d[()] for k, d in f["monitor/balance"].items()}
            t = f["monitor/time"][()]
        return t, b

    fresh("dg.h5")
    out = run(f"{BASE} -ts_type discgrad2 -ts_dt 5e-4 -ts_max_steps 10000 -ts_max_time 1e9 -report_energy_balance -output dg.h5")
    t, b = balance("dg.h5")
    E = b["kinetic"] + b["stored"]
    left = np.abs(b["numerical"]).max() / E.max()
    print(f"discgrad2, 10^4 steps driven: max |numerical| = {left:.2e} of the largest energy {E.max():.4g}, final ratio {b['ratio'][-1]!r}")
    check(len(t) == 10001 and left <= 1e-9, f"discgrad2: leftover {left:.2e} of the energy, expected <= 1e-9 over 10^4 steps")
    check(abs(b["ratio"][-1] - 1) <= 1e-9, f"discgrad2: energy ratio {b['ratio'][-1]!r}, expected 1 to 1e-9")
    m = re.search(r"energy balance at t = [0-9.e+-]+: .* numerical dissipation ([0-9.e+-]+), energy ratio ([0-9.e+-]+)", out)
    check(m and abs(float(m.group(2)) - 1) <= 1e-9, f"discgrad2: -report_energy_balance's line\n{out}")
    lefts = []
    for dt in (1e-3, 5e-4, 2.5e-4):
        fresh("mp.h5")
        run(f"{BASE} -ts_type midpoint2 -ts_dt {dt} -ts_max_time 0.2 -output mp.h5")
        t, b = balance("mp.h5")
        lefts.append(np.abs(b["numerical"]).max() / (b["kinetic"] + b["stored"]).max())
    print(f"midpoint2 driven to t = 0.2: largest leftover {lefts[0]:.3e}, {lefts[1]:.3e}, {lefts[2]:.3e} of the energy at tau = 1e-3, 5e-4, 2.5e-4: ratios {lefts[0] / lefts[1]:.3f}, {lefts[1] / lefts[2]:.3f}")
    check(all(abs(lefts[k] / lefts[k + 1] - 4) <= 0.3 for k in range(2)), f"midpoint2: the leftover falls as {lefts}: expected tau^2 (ratios 4)")
    # Rayleigh damping alpha M: the dissipation against the integral of v . D v = 2 alpha K
    diffs = []
    for dt in (1e-3, 5e-4):
        fresh("ray.h5")
        run(f"{BASE} -solid_rayleigh 2,0 -ts_type midpoint2 -ts_dt {dt} -ts_max_time 0.2 -output ray.h5")
        t, b = balance("ray.h5")
        integral = np.concatenate([[0], np.cumsum(np.diff(t) * (b["kinetic"][1:] + b["kinetic"][:-1]))]) * 2.0
        diffs.append(np.abs(b["damping"] - integral).max() / b["damping"][-1])
    print(f"Rayleigh alpha = 2: dissipated {b['damping'][-1]:.6g} against the integral of 2 alpha K: differences {diffs[0]:.3e}, {diffs[1]:.3e} of it at tau = 1e-3, 5e-4 (ratio {diffs[0] / diffs[1]:.3f})")
    check(diffs[1] <= 1e-3 and abs(diffs[0] / diffs[1] - 4) <= 0.5, f"Rayleigh damping: the dissipation differs from the integral of v.Dv by {diffs}: expected O(tau^2)")

elif PART == "restart":
    B = ("-model solid -solid_beam_cells 4,1,1 -solid_material neohookean -solid_E 1e5 -solid_nu 0.3 -solid_density 100 -solid_g 0,0,-9.81 "
         "-solid_rayleigh 0.5,1e-4 -solid_bc clamp,drive -solid_bc_clamp_where x=0 -solid_bc_drive_where x=1 -solid_bc_drive_u 0,0,0.02 "
         "-solid_bc_drive_time sin:40 -solid_load side -solid_load_side_where y=0 -solid_load_side_traction 0,1,0 -solid_load_side_time ramp:0.01 "
         "-solid_region tip -solid_region_tip_where x>0.5 -solid_region_tip_E 2e5 "
         "-probe a,b -probe_a_point 0.6,0.05,0.05 -probe_b_where x=1,y=0,z=0 "
         "-ts_dt 1e-3 -ts_type midpoint2 -quiet -monitor_reactions -monitor_energy_balance -output_every 5")
    fresh("a.h5", "b.h5", "ck.h5")
    run(f"{B} -ts_max_steps 40 -output a.h5")
    run(f"{B} -ts_max_steps 20 -output b.h5 -checkpoint ck.h5")
    run(f"{B} -ts_max_steps 40 -output b.h5 -checkpoint ck.h5 -restart ck.h5", 1)

    def walk(g, p=""):
        out = []
        for k, v in g.items():
            out += walk(v, p + k + "/") if isinstance(v, h5py.Group) else [p + k]
        return out

    with h5py.File("a.h5", "r") as a, h5py.File("b.h5", "r") as b:
        names = walk(a["monitor"])
        for k in ("reaction/clamp/force", "reaction/drive/moment", "balance/numerical", "probe/a/stress", "probe/b/u"):
            check(k in names, f"restart: no /monitor/{k}")
        same = [k for k in names if k in b["monitor"] and a["monitor"][k].shape == b["monitor"][k].shape and (a["monitor"][k][()] == b["monitor"][k][()]).all()]
        print(f"restart at step 20 of 40: {len(same)} of {len(names)} /monitor histories bitwise those of the uninterrupted run")
        check(len(same) == len(names), f"restart: differ {sorted(set(names) - set(same))}")
    # tools/tsmech_plot.py history: the plot, and a CSV whose every column is its dataset's values
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "tsmech_plot.py")
    fresh("h.png", "h.csv")
    p = subprocess.run(["/usr/bin/python3", plot, "history", "a.h5", "-o", "h.png"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0 and os.path.exists("h.png") and os.path.getsize("h.png") > 10000, f"tsmech_plot.py history: {p.stdout}")
    if os.path.exists("h.csv"):
        head = open("h.csv").readline().strip().split(",")
        data = np.loadtxt("h.csv", delimiter=",", skiprows=1)
        with h5py.File("a.h5", "r") as a:
            m = a["monitor"]
            want = {"step": m["step"][()], "time": m["time"][()], "reaction_clamp_fz": m["reaction/clamp/force"][:, 2],
                    "reaction_drive_my": m["reaction/drive/moment"][:, 1], "probe_a_uz": m["probe/a/u"][:, 2],
                    "probe_b_sxy": m["probe/b/stress"][:, 5], "probe_a_von_mises": m["probe/a/von_mises"][()],
                    "balance_numerical": m["balance/numerical"][()], "balance_ratio": m["balance/ratio"][()]}
        check(len(head) == 2 + 2 * 6 + 2 * 13 + 7, f"history CSV: {len(head)} columns {head}")
        for k, w in want.items():
            check(k in head and np.array_equal(data[:, head.index(k)], w), f"history CSV: column {k} is not /monitor's")
    else:
        check(False, "tsmech_plot.py history wrote no h.csv")
    run("-model chain -ts_max_steps 3 -quiet -output nobal.h5")
    for src, args, msg in (("a.h5", ["--only", "reactions"], "--only reactions: not one of"), ("nobal.h5", ["--only", "probe"], "no /monitor/{probe} records")):
        p = subprocess.run(["/usr/bin/python3", plot, "history", src, "-o", "x.png"] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(p.returncode == 1 and msg in p.stdout and not os.path.exists("x.png"), f"tsmech_plot.py history {args}: {p.returncode} {p.stdout}")
    run(f"{B} -ts_max_steps 20 -output b.h5 -checkpoint ck.h5")
    for other, what in (("-monitor_energy_balance 0", "the energy balance"), ("-monitor_reactions 0", "the reactions"),
                        ("-probe_a_point 0.7,0.05,0.05", "probe_a_x"), ("-probe a", "probe"),
                        ("-solid_region_tip_E 3e5", "region_tip_checksum"), ("-solid_region_tip_where x>0.6", "region_tip"),
                        ("-solid_initial a.h5 -solid_initial_index 3", "initial_")):
        out = run(f"{B} {other} -ts_max_steps 40 -output c.h5 -checkpoint ck.h5 -restart ck.h5", expect=2)
        check(what in out and "error" in out, f"restart with {other}: refused naming {what}?\n{out}")
        check(not os.path.exists("c.h5"), f"restart with {other}: an output was written")
else:
    sys.exit("run_balance.py: unknown part " + PART)
prog.finish(f"balance {PART}")
