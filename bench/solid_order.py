#!/usr/bin/python3
"""Linear against quadratic elements of the solid model (issue 32), side by side in one run.

  /usr/bin/python3 bench/solid_order.py [--build build] [--parts freq,action,petsc,hypre,gamg] [--full]

freq    The cantilever's first bending frequency (1 x 0.1 x 0.1, nu = 0, inverse iteration with a
        Cholesky factorization: tests/solid/test_elements -bending_one) on the boxes 8k x k x k,
        k = 1, 2, 4, ... for P1 tetrahedra, P2 tetrahedra, Q1 and Q2 hexahedra: the first mesh within
        1 % and within 0.1 % of the converged frequency (Richardson's extrapolation of Q2 hexahedra
        on 16 x 2 x 2 and 32 x 4 x 4 boxes), its unknowns, time to solution (the whole program:
        mesh, assembly, factorization, iteration) and peak memory (the child's maximum resident
        set), and the time of one step of the dynamic problem on it (config/solid.opts: midpoint2,
        matrix-free, CG + GAMG). P1 tetrahedra stop at 64 x 8 x 8 (--full: 128 x 16 x 16); beyond,
        the mesh and error are extrapolated with the observed rate and marked so.
action  Per unknown: the force, the assembly of the tangent, the linearization of the matrix-free
        action, the action and the product with the assembled tangent, and the matrix-free operator
        M + K of a step (the action plus the product with the assembled consistent mass), for every material and element at equal unknowns
        (tests/solid/test_elements -bench_action; CPU time, so that other jobs on the machine weigh
        less): 15 795 unknowns, or with --action-size large 111 843 (P1 tetrahedra and Q1 hexahedra
        on 128 x 16 x 16 boxes, P2 tetrahedra and Q2 hexahedra on 64 x 8 x 8: the size of the
        DOLFINx comparison, bench/dolfinx_solid.py, where the matrices no longer fit in a cache);
        --action-materials chooses the materials.
petsc   PETSc's own DMPlexSNESComputeResidualFEM / DMPlexSNESComputeJacobianFEM /
        DMSNESComputeJacobianAction with pointwise functions (bench/solid_petscfem.c) against the
        model's kernels on the same Q1 and Q2 hexahedra.
hypre   One configuration of config/solid.opts (P1 tetrahedra, neo-Hookean, 128 x 16 x 16 boxes: 111 843 unknowns)
        with GAMG, plain BoomerAMG and BoomerAMG with HMIS coarsening (the README's options).
gamg    GAMG's growth for order 2: config/solid.opts with -solid_order 2 on 8n x n x n boxes of P2
        tetrahedra and Q2 hexahedra, n = 4, 8 (--full: 16): KSP iterations per Newton iteration,
        time of a step per unknown, peak memory (not in the default --parts).

Times on a shared machine vary; each figure is the best of --repeat runs.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--parts", default="freq,action,petsc,hypre")
ap.add_argument("--full", action="store_true")
ap.add_argument("--repeat", type=int, default=1)
ap.add_argument("--action-size", choices=("small", "large"), default="small")
ap.add_argument("--action-materials", default="linear,svk,neohookean,neohookean_split,mooney_rivlin")
a = ap.parse_args()
parts = a.parts.split(",")
elements = os.path.join(a.build, "tests/solid/test_elements")
petscfem = os.path.join(a.build, "tests/solid/bench_petscfem")
tsmech = os.path.join(a.build, "tsmech")
KINDS = {0: "P1 tet", 1: "P2 tet", 2: "Q1 hex", 3: "Q2 hex"}
KINDOPT = {0: "-solid_cell tet -solid_order 1", 1: "-solid_cell tet -solid_order 2", 2: "-solid_cell hex -solid_order 1", 3: "-solid_cell hex -solid_order 2"}


def run(cmd):
    """stdout of cmd, its wall time and peak resident memory (MB); the best time of --repeat runs"""
    best = None
    for _ in range(a.repeat):
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.read().decode()
        _, status, ru = os.wait4(p.pid, 0)
        t = time.time() - t0
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{out}")
        if best is None or t < best[1]:
            best = (out, t, ru.ru_maxrss / 1024)
    return best


def frequency(kind, k):
    out, t, mem = run([elements, "-bending_one", "-bending_kind", str(kind), "-bending_nx", str(8 * k), "-bending_nyz", str(k), "-bend_pc_factor_mat_ordering_type", "nd"])
    m = re.search(r"f1 (\S+) unknowns (\d+)", out)
    return float(m.group(1)), int(m.group(2)), t, mem


def step_time(kind, k):
    cmd = [tsmech, "-options_file", "config/solid.opts"] + KINDOPT[kind].split() + ["-solid_beam_cells", f"{8 * k},{k},{k}", "-ts_max_steps", "3", "-quiet", "-solid_output_stress", "false"]
    out, t, mem = run(cmd)
    m = re.search(r"([0-9.]+) s wall", out)
    return float(m.group(1)) / 3


if "freq" in parts:
    f16, _, _, _ = frequency(3, 2)
    f32, _, _, _ = frequency(3, 4)
    fconv = f32 - (f16 - f32) / 15
    print(f"converged frequency (Q2 hexahedra 16 x 2 x 2 and 32 x 4 x 4, Richardson h^4): {fconv:.8f}")
    print(f"{'element':8s} {'boxes':>12s} {'unknowns':>9s} {'f1':>11s} {'error':>10s} {'rate':>5s} {'time s':>8s} {'memory MB':>9s} {'step s':>8s}")
    summary = {}
    for kind in (0, 1, 2, 3):
        kmax = {0: 16 if a.full else 8, 1: 4, 2: 8, 3: 4}[kind]
        prev, k, rows = None, 1, []
        while k <= kmax:
            f, n, t, mem = frequency(kind, k)
            err = f / fconv - 1
            rate = math.log2(prev / err) if prev and err > 0 and prev > 0 else float("nan")
            st = step_time(kind, k) if n <= 200000 else float("nan")
            print(f"{KINDS[kind]:8s} {8 * k:5d} x {k:2d} x {k:2d} {n:9d} {f:11.8f} {err:+10.3e} {rate:5.2f} {t:8.2f} {mem:9.0f} {st:8.4f}")
            rows.append((k, n, err, t, mem, st))
            prev, k = err, 2 * k
        for tol in (1e-2, 1e-3):
            hit = next((r for r in rows if abs(r[2]) <= tol), None)
            if hit:
                summary[(kind, tol)] = hit
            else:
                # extrapolated: the error falls by 2^rate per halving
                k, n, err, t, mem, st = rows[-1]
                rate = math.log2(rows[-2][2] / rows[-1][2])
                halvings = math.ceil(math.log2(abs(err) / tol) / rate)
                summary[(kind, tol)] = (k * 2**halvings, n * 8**halvings, None, None, None, None)
    for tol in (1e-2, 1e-3):
        print(f"within {tol * 100:g} %:")
        for kind in (0, 1, 2, 3):
            k, n, err, t, mem, st = summary[(kind, tol)]
            if err is None:
                print(f"  {KINDS[kind]:8s} {8 * k} x {k} x {k} boxes, about {n} unknowns (extrapolated, not run)")
            else:
                print(f"  {KINDS[kind]:8s} {8 * k} x {k} x {k} boxes, {n} unknowns, error {err:+.2e}, time to solution {t:.2f} s, peak memory {mem:.0f} MB, one step {st:.4f} s")

if "action" in parts:
    print("per unknown (ns): force, assembly of the tangent, matrix-free action, assembled product; nonzeros per row")
    if a.action_size == "small":
        cells = {0: "64,8,8", 1: "32,4,4", 2: "64,8,8", 3: "32,4,4"}
    else:
        cells = {0: "128,16,16", 1: "64,8,8", 2: "128,16,16", 3: "64,8,8"}
    for kind in (0, 1, 2, 3):
        for mat in a.action_materials.split(","):
            out, _, _ = run([elements, "-bench_action", "-bench_kind", str(kind), "-bench_material", mat, "-bench_cells", cells[kind], "-bench_reps", "10"])
            m = re.search(r"unknowns (\d+) force_ns (\S+) assembly_ns (\S+) linearize_ns (\S+) action_ns (\S+) matmult_ns (\S+) nnz \S+ nnz_per_row (\S+) operator_ns (\S+)", out)
            n, fo, asm, lin, act, mm, nzr, op = m.groups()
            print(f"  {KINDS[kind]:8s} {mat:16s} {n:>7s} unknowns  force {float(fo):8.1f}  assembly {float(asm):9.1f}  linearize {float(lin):7.1f}  action {float(act):8.1f}  product {float(mm):8.1f}  action/product {float(act) / float(mm):5.2f}  M+K matrix-free {float(op):8.1f} (/product {float(op) / float(mm):4.2f})  nnz/row {nzr}")

if "petsc" in parts:
    print("PETSc's FEM (DMPlexSNESComputeResidualFEM, ...JacobianFEM, DMSNESComputeJacobianAction) against the model, per unknown (ns)")
    for order, cells in ((1, "16,4,4"), (2, "8,2,2")):
        for mat in ("linear", "neohookean"):
            out, _, _ = run([petscfem, "-order", str(order), "-material", mat, "-cells", cells, "-reps", "2"])
            p = re.search(r"unknowns (\d+) residual_ns (\S+) assembly_ns (\S+) action_ns (\S+) matmult_ns (\S+)", out).groups()
            out, _, _ = run([elements, "-bench_action", "-bench_kind", str(order + 1), "-bench_material", mat, "-bench_cells", cells, "-bench_reps", "10"])
            m = re.search(r"unknowns (\d+) force_ns (\S+) assembly_ns (\S+) linearize_ns (\S+) action_ns (\S+)", out).groups()
            print(f"  Q{order} hex {mat:10s} {p[0]:>6s} unknowns  residual PETSc {float(p[1]):9.1f} model {float(m[1]):7.1f}  assembly PETSc {float(p[2]):11.1f} model {float(m[2]):9.1f}  action PETSc {float(p[3]):7.1f} model {float(m[4]):7.1f}")

if "hypre" in parts:
    common = ["-options_file", "config/solid.opts", "-solid_beam_cells", "128,16,16", "-ts_max_steps", "3", "-quiet", "-solid_output_stress", "false"]
    pcs = {
        "gamg": [],
        "hypre (plain)": ["-pc_type", "hypre"],
        "hypre HMIS": ["-pc_type", "hypre", "-pc_hypre_boomeramg_coarsen_type", "HMIS", "-pc_hypre_boomeramg_interp_type", "ext+i", "-pc_hypre_boomeramg_P_max", "4", "-pc_hypre_boomeramg_strong_threshold", "0.5"],
    }
    for name, extra in pcs.items():
        out, t, mem = run([tsmech] + common + extra)
        m = re.search(r"(\d+) Newton / (\d+) KSP iterations, ([0-9.]+) s wall", out)
        print(f"  {name:14s} {float(m.group(3)) / 3:7.3f} s/step  {m.group(1)} Newton / {m.group(2)} KSP  peak {mem:.0f} MB")

if "gamg" in parts:
    # GAMG's growth for order 2 (issue 32): config/solid.opts plus -solid_order 2 on the beam
    # 8n x n x n (P2 tetrahedra, Q2 hexahedra), 3 steps; KSP iterations per Newton iteration and
    # the time of a step per unknown. n = 4, 8 (--full: 16, 8.4e5 unknowns)
    print("GAMG, order 2 (config/solid.opts -solid_order 2, 3 steps): KSP per Newton, time per step and unknown")
    for kind in (1, 3):
        for k in (4, 8, 16) if a.full else (4, 8):
            cmd = [tsmech, "-options_file", "config/solid.opts"] + KINDOPT[kind].split() + ["-solid_beam_cells", f"{8 * k},{k},{k}", "-ts_max_steps", "3", "-quiet", "-solid_output_stress", "false"]
            out, t, mem = run(cmd)
            m = re.search(r"(\d+) Newton / (\d+) KSP iterations, ([0-9.]+) s wall", out)
            nn, nk, wall = int(m.group(1)), int(m.group(2)), float(m.group(3))
            unknowns = 3 * (16 * k + 1) * (2 * k + 1) ** 2
            print(f"  {KINDS[kind]:8s} {8 * k}x{k}x{k} {unknowns:>8d} unknowns  {nn} Newton / {nk} KSP  KSP/Newton {nk / nn:5.1f}  {wall / 3:8.3f} s/step  {wall / 3 / unknowns * 1e6:6.2f} us/step/unknown  peak {mem:.0f} MB")
