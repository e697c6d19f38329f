#!/usr/bin/python3
"""tsmech benchmark: tsmech's velocity-form steppers against PETSc's TSALPHA2 and first-order
TSCN/TSTHETA, on the same model, step and tolerances.

Run with Debian's interpreter (h5py, numpy, matplotlib):

    /usr/bin/python3 bench/run_bench.py            # the full benchmark (see bench/README.md)
    /usr/bin/python3 bench/run_bench.py --quick    # 128^2 cloth and a small lattice only
    /usr/bin/python3 bench/run_bench.py --cases solid --ranks 1,2   # the FEM neo-Hookean beam (issue 14)

Every run is a separate `mpiexec -n P build/tsmech ...` process, wrapped per rank in
`/usr/bin/time` (peak resident memory of every rank). Seconds per step are the TSStep time of the
run's own -log_view (max over ranks) divided by the number of steps: model creation, output and
the start-up outside TSStep are excluded; a stepper's own start-up (TSALPHA2's initial
acceleration, preconditioner set-up) is inside TSStep and counted. The final state is read from
the run's HDF5 output (-output FILE.h5 -output_every 1000000: first and last snapshot) and
compared with a reference run of the same scheme at tight tolerances.

Solver configurations are chosen per peer by a ladder: at the smallest size of a case every
standard configuration is run; each larger size runs only the best --keep of the previous size
(--keep-last at the largest), falling back to the next one when a configuration fails.
"""
import argparse
import csv
import datetime
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------------------------------------
# Solver configurations. "P" in a tuple is replaced by the rank count at run time (ICC/ILU need
# block Jacobi in parallel).
# ---------------------------------------------------------------------------------------------


def solver_args(name, ranks, mf=False):
    """The options of configuration `name`; mf: for a matrix-free (-ts_theta_matrix_free) peer."""
    ksp, pc = name.split("+")
    if pc.endswith("ne"):
        # nonlinear elimination near the pinned corners (tsmech types only; docs/solvers.md §3), its
        # patch 8 decay lengths of the step around them (n/16 graph steps of the cloth at 1 ms)
        return solver_args(ksp + "+" + pc[:-2], ranks, mf) + ["-ts_theta_ne"]
    if pc in ("mgb", "mgewb", "iccb", "iccewb"):
        # the same with point-block (BAIJ, 3 x 3) matrices (grid models): MatMult 1.7x and assembly
        # 2.2x faster than AIJ at 1024². With mg only for the tsmech types, which form the Galerkin
        # products themselves; PCMG's own, which TSALPHA2 would use, have no BAIJ version
        return solver_args(ksp + "+" + pc[:-1], ranks, mf) + ["-dm_mat_type", "baij"]
    # cgu: CG that tests the unpreconditioned residual. With GAMG, -ksp_rtol 1e-8 on the default
    # preconditioned norm can leave the true residual of the solid's Newton step a few times too
    # large, and one more Newton iteration follows
    a = ["-ksp_type", "cg", "-ksp_norm_type", "unpreconditioned"] if ksp == "cgu" else ["-ksp_type", ksp]
    if pc == "jacobi":
        a += ["-pc_type", "jacobi"]
    elif pc == "gamg":
        a += ["-pc_type", "gamg"]
        if mf:
            # PCMG smooths the finest level with the operator Amat by default: for a matrix-free
            # peer that is the matrix-free product (4x an assembled MatMult for P1 tetrahedra);
            # -pc_use_amat 0 smooths with the (lagged) assembled preconditioning matrix. Only for
            # the cases that ask for it (gamg_pmat): the springs' product is the cheaper one (linear
            # cloth 512²: 1.05 s/step with the matrix-free smoothing, 2.06 with -pc_use_amat 0)
            a += ["-pc_use_amat", "0"]
    elif pc == "hypre-classic":
        a += ["-pc_type", "hypre", "-pc_hypre_type", "boomeramg"]
    elif pc == "hypre":
        # BoomerAMG with HMIS coarsening, ext+i interpolation and one level of aggressive coarsening
        # (faster than the classical defaults on every case measured)
        a += ["-pc_type", "hypre", "-pc_hypre_type", "boomeramg", "-pc_hypre_boomeramg_coarsen_type", "HMIS",
              "-pc_hypre_boomeramg_interp_type", "ext+i", "-pc_hypre_boomeramg_P_max", "4",
              "-pc_hypre_boomeramg_agg_nl", "1"]
    elif pc == "mg":
        # geometric multigrid on the grid models' DMDA (docs/solvers.md §4): tsmech sets the levels,
        # the interpolation, Galerkin coarse operators and -pc_use_amat 0; Chebyshev on point-block
        # Jacobi, two steps per level (one is 10 % faster at 512² but its iterations grow faster)
        a += ["-pc_type", "mg", "-mg_levels_ksp_type", "chebyshev", "-mg_levels_pc_type", "pbjacobi",
              "-mg_levels_ksp_max_it", "2"]
    elif pc == "mgew":
        # with Eisenstat-Walker linear tolerances (one to four V-cycles per Newton iteration) one
        # Chebyshev step per level, its bounds from 5 CG iterations instead of 10 GMRES ones (the
        # estimates are paid at every rebuild): 1.98 -> 1.34 s/step on the 512² cloth (bench/README.md)
        a += ["-pc_type", "mg", "-mg_levels_ksp_type", "chebyshev", "-mg_levels_pc_type", "pbjacobi",
              "-mg_levels_ksp_max_it", "1", "-mg_levels_esteig_ksp_type", "cg", "-mg_levels_ksp_chebyshev_esteig_steps", "5",
              "-snes_ksp_ew"]
    elif pc in ("ilu", "icc", "iccew"):
        sub = pc[:3]
        a += ["-pc_type", sub] if ranks == 1 else ["-pc_type", "bjacobi", "-sub_pc_type", sub]
        if pc == "iccew":
            # Eisenstat-Walker linear tolerances for Newton (the cloth demo's configuration); CG then
            # tests the unpreconditioned residual (tsmech sets it for every second-order type,
            # TSALPHA2 included; docs/solvers.md §3)
            a += ["-snes_ksp_ew"]
    else:
        raise ValueError(name)
    return a


# configurations screened for the symmetric positive definite velocity-form / I2 Jacobian and
# for the non-symmetric 2N first-order Jacobian
SECOND_ORDER_SOLVERS = ["cg+jacobi", "cg+icc", "cg+gamg", "cg+hypre", "cg+mg", "gmres+ilu"]
# gmres+gamg on the 2N first-order form: 8.4 s/step at 128^2 linear (ILU 0.26), diverged on the
# nonlinear cloth; left out by default (--first-order-solvers to add it)
FIRST_ORDER_SOLVERS = ["gmres+ilu", "gmres+jacobi", "gmres+hypre"]
# the reference runs' configurations (the next one if a run fails), unless a case has its own
REF_SOLVERS = ["cg+icc", "gmres+ilu"]
OTHER_SOLVERS = ["gmres+gamg", "cg+hypre-classic", "gmres+hypre-classic", "gmres+jacobi", "cg+ilu", "gmres+icc"]

# ---------------------------------------------------------------------------------------------
# Peers. family: the discrete scheme, whose reference run the final state is compared with.
# trapezoidal = cn2 = TSCN on [q; v] (identical schemes); midpoint = midpoint2 = TSTHETA(1/2) on
# [q; v] = TSALPHA2 at radius 1 (Newmark average acceleration is the implicit midpoint rule in
# (q, v) for any f). For a linear f the two families coincide.
# ---------------------------------------------------------------------------------------------
PEERS = [
    # the Newton peers start from the extrapolated velocity (docs/solvers.md §3: a good guess converges in one iteration)
    dict(key="cn2", label="tsmech cn2 (Newton, MF)", ts=["-ts_type", "cn2", "-ts_theta_matrix_free", "-ts_theta_initial_guess_extrapolate"], family="trapezoidal", second=True, tsmech=True),
    dict(key="cn2-lin", label="tsmech cn2 linearized MF", ts=["-ts_type", "cn2", "-ts_theta_linearized", "-ts_theta_matrix_free"], family="trapezoidal", second=True, tsmech=True, follows="cn2"),
    dict(key="midpoint2", label="tsmech midpoint2 (Newton, MF)", ts=["-ts_type", "midpoint2", "-ts_theta_matrix_free", "-ts_theta_initial_guess_extrapolate"], family="midpoint", second=True, tsmech=True, follows="cn2"),
    dict(key="midpoint2-lin", label="tsmech midpoint2 linearized MF", ts=["-ts_type", "midpoint2", "-ts_theta_linearized", "-ts_theta_matrix_free"], family="midpoint", second=True, tsmech=True, follows="cn2"),
    dict(key="cn2-asm", label="tsmech cn2 (Newton, assembled J)", ts=["-ts_type", "cn2"], family="trapezoidal", second=True, tsmech=True, follows="cn2"),
    # opt-in peers (--peers): the preconditioning matrix from the semidefinite (clamped) tangent,
    # -ts_theta_pc_definite, with the matrix-free J or beside the assembled J (bench/README.md)
    dict(key="cn2-defpc", label="tsmech cn2 MF, semidefinite PC", ts=["-ts_type", "cn2", "-ts_theta_matrix_free", "-ts_theta_pc_definite"], family="trapezoidal", second=True, tsmech=True, follows="cn2", optin=True),
    dict(key="midpoint2-defpc", label="tsmech midpoint2 MF, semidefinite PC", ts=["-ts_type", "midpoint2", "-ts_theta_matrix_free", "-ts_theta_pc_definite"], family="midpoint", second=True, tsmech=True, follows="cn2", optin=True),
    # opt-in: the matrix-free peer with the reduced preconditioning matrix (-ts_theta_pc_reduced,
    # nearest-neighbour couplings only): the memory target
    dict(key="cn2-red", label="tsmech cn2 MF, reduced PC", ts=["-ts_type", "cn2", "-ts_theta_matrix_free", "-ts_theta_pc_reduced", "-ts_theta_initial_guess_extrapolate"], family="trapezoidal", second=True, tsmech=True, follows="cn2", optin=True),
    dict(key="cn2-asm-defpc", label="tsmech cn2 assembled J, semidefinite PC", ts=["-ts_type", "cn2", "-ts_theta_pc_definite"], family="trapezoidal", second=True, tsmech=True, follows="cn2", optin=True),
    dict(key="alpha2", label="PETSc TSALPHA2 (radius 1)", ts=["-ts_type", "alpha2", "-ts_alpha_radius", "1"], family="midpoint", second=True, tsmech=False),
    dict(key="cn", label="PETSc TSCN [q;v]", ts=["-ts_type", "cn"], family="trapezoidal", second=False, tsmech=False),
    dict(key="theta", label="PETSc TSTHETA(1/2) [q;v]", ts=["-ts_type", "theta", "-ts_theta_theta", "0.5"], family="midpoint", second=False, tsmech=False, follows="cn"),
]
PEER = {p["key"]: p for p in PEERS}
DEFAULT_PEERS = [p["key"] for p in PEERS if not p.get("optin")]


def is_mf(peer):
    return "-ts_theta_matrix_free" in PEER[peer]["ts"]


# ---------------------------------------------------------------------------------------------
# Cases, in the order of the report. Adding a case is one entry:
#   key, label; size(n): how size n is printed ("512²", "256×32×32"); model(n): the driver's model
#   options; dofs(n): unknowns N of q; linear: f linear in (q, v) (one reference scheme, no
#   equal-accuracy runs); sizes(a, ranks): the sizes run on `ranks` ranks; skip_big: --skip-big
#   applies; eq_ranks: the rank counts of the equal-accuracy runs (default all); peers / second_solvers / ref_solvers: defaults when --peers / --second-order-solvers /
#   --ref-solver are not given (None: the global defaults); always: a configuration every second-order
#   peer runs at every size besides its ladder (the configuration a target is about).
#   Targets: base (the tsmech peer the ratios are against), at (the size of the targets, else the
#   largest measured), speed {peer: goal} (peer / base per step), eq_only (the speed goals hold at
#   equal accuracy only), agree (peers whose final state is checked against --agree), scaling
#   {peer: goal} (1 rank / 2 ranks), rank_peers (the 1/2-rank ratios printed), ksp_growth (goal
#   for the growth of KSP iterations per Newton iteration of the `always` configuration from the
#   smallest to the largest size).
# ---------------------------------------------------------------------------------------------
CASES = [
    dict(key="linear", label="linear cloth", size=lambda n: "%d²" % n, model=lambda n: ["-model", "cloth", "-cloth_n", str(n), "-cloth_linear"],
         dofs=lambda n: 3 * n * n, linear=True, sizes=lambda a, ranks: a.sizes, skip_big=True,
         base="cn2", at=512, speed={"alpha2": 3.0, "cn": 5.0}, agree=("cn2", "alpha2", "cn"), scaling={"cn2": 1.7},
         rank_peers=("cn2", "midpoint2")),
    dict(key="nonlinear", label="nonlinear cloth", size=lambda n: "%d²" % n, model=lambda n: ["-model", "cloth", "-cloth_n", str(n)],
         dofs=lambda n: 3 * n * n, linear=False, sizes=lambda a, ranks: a.sizes if ranks == 1 else a.sizes2, skip_big=True,
         base="cn2", at=512, speed={"alpha2": 2.5, "cn": 5.0}, eq_only=True, agree=("cn2", "alpha2", "cn"), scaling={"cn2": 1.8},
         rank_peers=("cn2", "midpoint2"), always="cg+mg", ksp_growth=1.5, eq_ranks=(1,)),
    dict(key="lattice", label="lattice", size=lambda n: "%d³" % n, model=lambda n: ["-model", "lattice", "-lattice_n", str(n)],
         dofs=lambda n: 3 * n ** 3, linear=False, sizes=lambda a, ranks: a.lattice_sizes if ranks == 1 else a.lattice_sizes[-1:],
         base="cn2", rank_peers=("cn2", "midpoint2")),
    # the FEM solid (issue 14): the built-in beam 1 x 0.1 x 0.1 of 8n x n x n boxes of 6 P1
    # tetrahedra, clamped at x = 0, neo-Hookean, under gravity; GAMG gets the rigid-body near-null
    # space from the model itself
    dict(key="solid", label="neo-Hookean beam", size=lambda n: "%d×%d×%d" % (8 * n, n, n),
         model=lambda n: ["-model", "solid", "-solid_beam_cells", "%d,%d,%d" % (8 * n, n, n), "-solid_beam_size", "1,0.1,0.1",
                          "-solid_material", "neohookean", "-solid_E", "1e7", "-solid_nu", "0.3", "-solid_density", "1000",
                          "-solid_g", "0,0,-9.81"],
         dofs=lambda n: 3 * (8 * n + 1) * (n + 1) ** 2, linear=False,
         sizes=lambda a, ranks: a.solid_sizes if ranks == 1 else a.solid_sizes[-1:],
         peers=["cn2", "midpoint2", "alpha2"], second_solvers=["cgu+gamg", "cg+gamg", "cg+hypre", "cg+icc"], ref_solvers=["cg+gamg", "cg+icc"],
         always="cgu+gamg", gamg_pmat=True, base="midpoint2", speed={"alpha2": 1.5}, eq_only=True, agree=("midpoint2", "cn2", "alpha2"),
         scaling={"midpoint2": 1.7}, rank_peers=("midpoint2", "cn2"), ksp_growth=1.5, eq_ranks=(1,)),
]
CASE = {c["key"]: c for c in CASES}
CASE_ORDER = {c["key"]: i for i, c in enumerate(CASES)}


def size_label(case, n):
    return "%s %s" % (CASE[case]["label"], CASE[case]["size"](n))

EVENTS = ["TSStep", "KSPSolve", "PCSetUp", "PCApply", "MatMult", "MechForce", "MechOperator", "MechLinearize", "MechOpApply", "SNESJacobianEval",
          "SNESFunctionEval", "MatAssemblyEnd", "MatZeroEntries", "KSPGMRESOrthog", "MatILUFactorNum",
          "MatICCFactorNum", "MatPtAP", "MatConvert"]

CSV_FIELDS = ["case", "model", "n", "unknowns", "solver_unknowns", "ranks", "peer", "label", "family", "config", "role",
              "selected", "status", "steps", "s_per_step", "tsstep_s", "wall_s", "elapsed_s", "newton", "ksp", "rss_max_mb",
              "rss_sum_mb", "rel_dq", "rel_v", "rel_q", "rel", "ref", "ratio_vs_cn2", "ratio_vs_midpoint2", "load1", "other_load",
              "attempts", "s_per_step_all", "spread", "snes_rtol", "eq_variant", "eq_selected"] + \
             ["ev_" + e for e in EVENTS] + ["cmd"]


def cpu_times():
    """(busy, total) jiffies summed over all cores, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def other_load(before, after, ranks):
    """Cores kept busy by other processes between two cpu_times() samples, given that this run
    keeps `ranks` cores busy (0 if the interval is too short to say)."""
    busy, total = after[0] - before[0], after[1] - before[1]
    if total <= 0:
        return 0.0
    ncpu = os.cpu_count() or 1
    return max(0.0, busy / total * ncpu - ranks)


def log(msg=""):
    print(msg, flush=True)


class Bench:
    def __init__(self, a):
        self.a = a
        self.rows = []  # every run (csv)
        self.refs = {}  # (case, n, family) -> (q, v, q0, tag)
        self.ranking = {}  # (case, leader) -> dict(order, time, ranks)
        self.waited = 0.0  # seconds spent waiting for a quiet machine
        os.makedirs(a.out, exist_ok=True)
        self.logdir = os.path.join(a.out, "logs")
        os.makedirs(self.logdir, exist_ok=True)
        self.h5dir = a.workdir
        os.makedirs(self.h5dir, exist_ok=True)
        self.t0 = time.time()
        self.snapshot()

    def snapshot(self):
        """Copies build/tsmech and its libtsmech.so.0 beside each other (the driver's RUNPATH starts
        with $ORIGIN), so that a rebuild during the benchmark does not change what is measured."""
        a = self.a
        src = a.tsmech
        a.tsmech_src = src
        if a.dry_run:
            return
        bindir = os.path.join(self.h5dir, "bin")
        os.makedirs(bindir, exist_ok=True)
        dst = os.path.join(bindir, "tsmech")
        shutil.copy2(src, dst)
        lib = os.path.join(os.path.dirname(src), "libtsmech.so.0")
        if os.path.exists(lib):
            shutil.copy2(os.path.realpath(lib), os.path.join(bindir, "libtsmech.so.0"))
        a.tsmech = dst
        a.binary_info = "%s (built %s)" % (src, time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(src))))

    # -----------------------------------------------------------------------------------------
    def command(self, ranks, args, h5):
        mpi = ["mpiexec", "-n", str(ranks)] + self.a.mpiexec_args.split()
        if ranks > (os.cpu_count() or 1):
            mpi.append("--oversubscribe")
        return mpi + ["/usr/bin/time", "-f", "TSMECH_BENCH_RSS_KB %M", self.a.tsmech, "-quiet", "-log_view",
                      "-output", h5, "-output_every", "1000000"] + args

    def common(self, case, n):
        c = CASE[case]
        return c["model"](n) + ["-ts_dt", repr(self.a.dt), "-ts_max_steps", str(self.a.steps), "-ts_max_time", "1e30"]

    def run(self, case, n, ranks, peer, config, role, extra, tag):
        """One configuration: waits for a quiet machine, runs, and runs again (keeping the fastest)
        when other processes took more than --busy cores during the run."""
        a = self.a
        best = None
        times = []
        # a machine that stayed busy through the whole --wait-budget is busy for good: no retries
        retries = a.retries if role == "timing" and self.waited < a.wait_budget else 0
        runs = a.repeat if role in ("timing", "accuracy") else 1
        done = 0
        while done < runs:
            self.wait_quiet(ranks)
            r = self.run_once(case, n, ranks, peer, config, role, extra, tag)
            if r.get("s_per_step") is not None and r["status"] == "ok":
                times.append(r["s_per_step"])
            if best is None or (r["status"] == "ok" and (best["status"] != "ok" or r.get("s_per_step", 1e99) < best.get("s_per_step", 1e99))):
                best = r
            if a.dry_run or r["status"] != "ok":
                break
            if r.get("other_load", 0) > a.busy and retries > 0:
                retries -= 1
                log("    (other processes used %.1f cores during the run: once more)" % r["other_load"])
                continue
            done += 1
        best["attempts"] = len(times) or 1
        if len(times) > 1:
            best["s_per_step_all"] = " ".join("%.4g" % t for t in times)
            best["spread"] = max(times) / min(times)
        self.rows.append(best)
        return best

    def wait_quiet(self, ranks):
        """Waits (at most --max-wait seconds) until other processes use less than --busy cores."""
        a = self.a
        if a.dry_run or a.max_wait <= 0 or self.waited >= a.wait_budget:
            return
        t = time.time()
        said = False
        while time.time() - t < min(a.max_wait, a.wait_budget - self.waited):
            b = cpu_times()
            time.sleep(1.0)
            o = other_load(b, cpu_times(), 0)
            if o <= a.busy:
                self.waited += 1.0 if said else 0.0
                return
            if not said:
                log("    (waiting for a quiet machine: other processes use %.1f cores)" % o)
                said = True
            time.sleep(4.0)
            self.waited += 5.0
        log("    (still busy after %.0f s: running anyway; %.0f s of the --wait-budget used)" % (time.time() - t, self.waited))

    def run_once(self, case, n, ranks, peer, config, role, extra, tag):
        a = self.a
        h5 = os.path.join(self.h5dir, tag + ".h5")
        if os.path.exists(h5):
            os.remove(h5)
        args = self.common(case, n) + PEER[peer]["ts"] + solver_args(config, ranks, is_mf(peer) and CASE[case].get("gamg_pmat", False)) + extra + a.extra.split()
        cmd = self.command(ranks, args, h5)
        row = dict(case=case, model=CASE[case]["model"](n)[1], n=n, unknowns=CASE[case]["dofs"](n),
                   solver_unknowns=CASE[case]["dofs"](n) * (1 if PEER[peer]["second"] else 2), ranks=ranks, peer=peer,
                   label=PEER[peer]["label"], family=PEER[peer]["family"], config=config, role=role, selected=0,
                   cmd=" ".join(cmd), load1=float(open("/proc/loadavg").read().split()[0]))
        if a.dry_run:
            log("  [dry] " + row["cmd"])
            row["status"] = "dry"
            return row
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        t = time.time()
        c0 = cpu_times()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, start_new_session=True,
                             text=True)
        try:
            out, err = p.communicate(timeout=a.timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)  # the process group of this run only
            try:
                out, err = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
            rc = "timeout"
        row["elapsed_s"] = round(time.time() - t, 2)
        row["other_load"] = round(other_load(c0, cpu_times(), ranks), 2)
        with open(os.path.join(self.logdir, tag + ".log"), "w") as f:
            f.write(row["cmd"] + "\n\n" + out + "\n---- stderr ----\n" + err)
        self.parse(row, out, err)
        if rc != 0:
            row["status"] = "timeout" if rc == "timeout" else "failed(rc=%s)" % rc
            reason = re.findall(r"(DIVERGED_\w+|not converged|CONVERGED_\w+)", out + err)
            if reason:
                row["status"] += " " + reason[-1]
        else:
            row["status"] = "ok"
            try:
                row["_state"] = self.read_state(h5)
            except Exception as e:  # noqa: BLE001
                row["status"] = "no-output (%s)" % e
        if os.path.exists(h5) and not a.keep_h5:
            os.remove(h5)
        return row

    def parse(self, row, out, err):
        m = re.search(r"^tsmech: (\S+), (\d+) steps \((\d+) rejected\) to t = \S+, (\d+) Newton / (\d+) KSP iterations, "
                      r"([\d.]+) s wall", out, re.M)
        if m:
            row["steps"] = int(m.group(2))
            row["newton"] = int(m.group(4))
            row["ksp"] = int(m.group(5))
            row["wall_s"] = float(m.group(6))
        for e in EVENTS:
            m = re.search(r"^%s\s+(\d+)\s+[\d.]+\s+([\d.eE+-]+)\s" % re.escape(e), out, re.M)
            if m:
                row["ev_" + e] = float(m.group(2))
        if "ev_TSStep" in row and row.get("steps"):
            row["tsstep_s"] = row["ev_TSStep"]
            row["s_per_step"] = row["ev_TSStep"] / row["steps"]
        rss = [int(x) for x in re.findall(r"TSMECH_BENCH_RSS_KB (\d+)", err)]
        if rss:
            row["rss_max_mb"] = round(max(rss) / 1024, 1)
            row["rss_sum_mb"] = round(sum(rss) / 1024, 1)

    @staticmethod
    def read_state(h5):
        import h5py
        # /fields/q, /fields/v: [nsnap, ...] in the model's global order whatever the ranks (the
        # cloth's particle grid, the solid's [nsnap, nv, 3] in the mesh's vertex order)
        with h5py.File(h5, "r") as f:
            q = np.asarray(f["fields/q"], dtype=float)
            v = np.asarray(f["fields/v"], dtype=float)
        q, v = q.reshape(q.shape[0], -1), v.reshape(v.shape[0], -1)
        return q[-1].copy(), v[-1].copy(), q[0].copy()

    # -----------------------------------------------------------------------------------------
    def reference(self, case, n, family):
        """The most accurate run of a scheme: tsmech at tight tolerances (rank-independent, so it is
        computed once per case and size, with the most ranks asked for)."""
        a = self.a
        fam = "trapezoidal" if CASE[case]["linear"] else family  # one scheme for a linear f
        key = (case, n, fam)
        if key in self.refs:
            return self.refs[key]
        peer = "cn2" if fam == "trapezoidal" else "midpoint2"
        ranks = max(a.ranks)
        tag = "%s_n%d_ref_%s" % (case, n, fam)
        extra = ["-ksp_rtol", repr(a.ref_ksp_rtol), "-ksp_atol", "0", "-ksp_max_it", "20000"]
        if not CASE[case]["linear"]:
            # plain Newton (no line search to fail at round-off); the residual floor is ~1e-11 relative
            extra += ["-snes_rtol", repr(a.ref_snes_rtol), "-snes_atol", "0", "-snes_linesearch_type", "basic", "-snes_max_it", "50"]
        for cfg in self.ref_solvers(case):
            log("  reference (%s): %s %s, ksp_rtol %g, %d rank(s)" % (fam, peer, cfg, a.ref_ksp_rtol, ranks))
            row = self.run(case, n, ranks, peer, cfg, "reference", extra, tag)
            log("    %s" % self.brief(row))
            if row["status"] in ("ok", "dry"):
                break
        if row["status"] != "ok" and not a.dry_run:
            log("    reference failed: accuracy columns stay empty for this case")
            self.refs[key] = None
        else:
            self.refs[key] = (row.get("_state"), tag)
        return self.refs[key]

    def ref_solvers(self, case):
        return self.a.ref_solvers or CASE[case].get("ref_solvers") or REF_SOLVERS

    def second_solvers(self, case):
        return self.a.second_solvers or CASE[case].get("second_solvers") or SECOND_ORDER_SOLVERS

    def compare(self, row, case, n):
        if row["status"] != "ok":
            return
        ref = self.reference(case, n, row["family"])
        if not ref or ref[0] is None:
            return
        (qr, vr, q0r), tag = ref
        q, v, _ = row["_state"]
        row["rel_q"] = float(np.linalg.norm(q - qr) / max(np.linalg.norm(qr), 1e-300))
        row["rel_dq"] = float(np.linalg.norm(q - qr) / max(np.linalg.norm(qr - q0r), 1e-300))
        row["rel_v"] = float(np.linalg.norm(v - vr) / max(np.linalg.norm(vr), 1e-300))
        row["rel"] = max(row["rel_dq"], row["rel_v"])
        row["ref"] = tag

    def brief(self, row):
        if row.get("status") == "dry":
            return "dry run"
        s = "%-8s" % row["status"]
        if row.get("s_per_step") is not None:
            s += " %8.3f s/step" % row["s_per_step"]
        if row.get("newton") is not None:
            s += "  newton %4d  ksp %6d" % (row["newton"], row["ksp"])
        if row.get("rss_max_mb") is not None:
            s += "  rss %7.0f MB" % row["rss_sum_mb"]
        if row.get("rel") is not None:
            s += "  rel %.1e" % row["rel"]
        s += "  (%.0f s, others %.1f cores%s)" % (row.get("elapsed_s", 0), row.get("other_load", 0),
                                                ", best of %d, spread %.2f" % (row["attempts"], row.get("spread", 1))
                                                if row.get("attempts", 1) > 1 else "")
        return s

    # -----------------------------------------------------------------------------------------
    def case_ladder(self, case, sizes, ranks, peers, skip):
        """Runs the peers of one case over its sizes (ascending) on one rank count.

        Configuration ladder: the first time a case is met, a leader (tsmech cn2 for the tsmech
        types, TSALPHA2, TSCN for the first-order types) runs every configuration; afterwards it
        runs only the configurations of its latest ranking that were within --keep-within of the
        best (at most --keep; at least 2 on the first size of a new rank count). A follower
        (the other tsmech types: the same matrix; TSTHETA: the same form as TSCN) runs the best
        configuration of its leader's ranking at the same size. A failed run hands over to the
        next configuration of the ranking."""
        a = self.a
        for i, n in enumerate(sorted(sizes)):
            log("\n== %s (%d unknowns), %d rank%s  [%.0f s so far]" % (
                size_label(case, n), CASE[case]["dofs"](n), ranks, "s" if ranks > 1 else "",
                time.time() - self.t0))
            here = [p for p in peers if p not in skip.get(n, ())]
            for p in peers:
                if p not in here:
                    log("  %-28s skipped at this size (--skip-big)" % PEER[p]["label"])
            for fam in (["trapezoidal"] if CASE[case]["linear"] else ["trapezoidal", "midpoint"]):
                if any(PEER[p]["family"] == fam or CASE[case]["linear"] for p in here):
                    self.reference(case, n, fam)
            for p in sorted(here, key=lambda p: (PEER[p].get("follows") is not None, [q["key"] for q in PEERS].index(p))):
                allc = list(self.second_solvers(case) if PEER[p]["second"] else a.first_solvers)
                leader = PEER[p].get("follows") or p
                key = (case, leader)
                if leader not in here:
                    key = (case, p)
                    leader = p
                rk = self.ranking.get(key)
                forced = a.config.get(p)
                if forced:
                    cands, want = [forced], 1
                elif a.screen_all or (rk is None and leader == p):
                    cands, want = allc, len(allc)
                elif leader != p:
                    cands, want = (rk["order"] if rk else allc), 1
                else:
                    best = min(rk["time"].values()) if rk["time"] else None
                    close = [c for c in rk["order"] if best and c in rk["time"] and rk["time"][c] <= a.keep_within * best]
                    want = max(1, min(a.keep, len(close)))
                    if i == 0 and rk["ranks"] != ranks:
                        want = max(want, min(2, len(rk["order"])))
                    cands = rk["order"]
                results = []
                for cfg in cands:
                    if sum(1 for r in results if r["status"] == "ok") >= want:
                        break
                    tag = "%s_n%d_np%d_%s_%s" % (case, n, ranks, p, cfg)
                    extra = ["-ksp_rtol", repr(a.ksp_rtol), "-ksp_max_it", str(a.ksp_max_it)] + a.timing_snes
                    r = self.run(case, n, ranks, p, cfg, "timing", extra, tag)
                    self.compare(r, case, n)
                    results.append(r)
                    log("  %-28s %-16s %s" % (PEER[p]["label"], cfg, self.brief(r)))
                # the configuration a target is about (the solid's GAMG), at every size
                alw = CASE[case].get("always")
                if alw and PEER[p]["second"] and not forced and alw not in [r["config"] for r in results]:
                    tag = "%s_n%d_np%d_%s_%s" % (case, n, ranks, p, alw)
                    extra = ["-ksp_rtol", repr(a.ksp_rtol), "-ksp_max_it", str(a.ksp_max_it)] + a.timing_snes
                    r = self.run(case, n, ranks, p, alw, "timing", extra, tag)
                    self.compare(r, case, n)
                    results.append(r)
                    log("  %-28s %-16s %s" % (PEER[p]["label"], alw + " (always)", self.brief(r)))
                ok = [r for r in results if r["status"] == "ok" and r.get("s_per_step") is not None]
                # best: the fastest run that converged and agrees with the reference; else the fastest
                acc = [r for r in ok if r.get("rel") is not None and r["rel"] <= a.agree]
                pool = acc if acc else ok
                if pool:
                    min(pool, key=lambda r: r["s_per_step"])["selected"] = 1
                elif not a.dry_run:
                    log("  %-28s no configuration converged" % PEER[p]["label"])
                if leader == p and not forced and (ok or rk is None):
                    ranked = sorted(ok, key=lambda r: (r not in acc, r["s_per_step"]))
                    order = [r["config"] for r in ranked]
                    tried = [r["config"] for r in results]
                    order += [c for c in (rk["order"] if rk else cands) if c not in order and c not in tried]
                    order += [c for c in tried if c not in order]  # failures last
                    self.ranking[key] = dict(order=order, time={r["config"]: r["s_per_step"] for r in ok}, ranks=ranks)
            if not CASE[case]["linear"] and a.snes_rtols and n == max(sizes) and ranks in CASE[case].get("eq_ranks", (ranks,)):
                self.equal_accuracy(case, n, ranks, here)
            self.ratios(case, n, ranks)
            self.write_csv()

    def equal_accuracy(self, case, n, ranks, here):
        """Nonlinear cases: the Newton peers again with looser -snes_rtol, in every configuration
        that converged in the timing runs (the fastest at 1e-8 need not be the fastest at a looser
        tolerance); PETSc's peers also with each --eq-variants (their Newton stops on the step
        length, -snes_stol, before -snes_rtol matters). The fastest run of a peer whose final state
        agrees with the reference to --agree is its time 'at equal accuracy' (eq_selected)."""
        a = self.a
        log("  -- at equal accuracy: the Newton peers with -snes_rtol %s%s" % (
            ", ".join("%g" % x for x in a.snes_rtols),
            "; PETSc's peers also with %s" % " | ".join(repr(v) for v in a.eq_variants) if a.eq_variants else ""))
        for p in here:
            if p.endswith("-lin"):
                continue
            base = self.best(case, n, ranks, p)
            if not base:
                continue
            timed = [r for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == p
                     and r["role"] == "timing" and r["status"] == "ok" and r.get("s_per_step") is not None]
            cfgs = [base["config"]] + sorted({r["config"] for r in timed} - {base["config"]})
            variants = [""] + ([] if PEER[p]["tsmech"] else a.eq_variants)
            cands = list(timed)
            for cfg in cfgs:
                for var in variants:
                    for rt in a.snes_rtols:
                        vtag = ("_" + "".join(ch for ch in var if ch.isalnum())) if var else ""
                        tag = "%s_n%d_np%d_%s_%s_snesrtol%g%s" % (case, n, ranks, p, cfg, rt, vtag)
                        extra = ["-ksp_rtol", repr(a.ksp_rtol), "-ksp_max_it", str(a.ksp_max_it), "-snes_rtol", repr(rt)] + var.split()
                        r = self.run(case, n, ranks, p, cfg, "accuracy", extra, tag)
                        r["snes_rtol"] = rt
                        r["eq_variant"] = var
                        self.compare(r, case, n)
                        log("  %-28s %-16s %s" % (PEER[p]["label"], "%s rtol %g%s" % (cfg, rt, (" " + var) if var else ""), self.brief(r)))
                        cands.append(r)
            good = [r for r in cands if r["status"] == "ok" and r.get("rel") is not None and r["rel"] <= a.agree
                    and r.get("s_per_step") is not None]
            if good:
                min(good, key=lambda r: r["s_per_step"])["eq_selected"] = 1

    def ratios(self, case, n, ranks):
        sel = [r for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["selected"]]
        base = {r["peer"]: r["s_per_step"] for r in sel}
        for r in self.rows:
            if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r.get("s_per_step"):
                if base.get("cn2"):
                    r["ratio_vs_cn2"] = r["s_per_step"] / base["cn2"]
                if base.get("midpoint2"):
                    r["ratio_vs_midpoint2"] = r["s_per_step"] / base["midpoint2"]

    # -----------------------------------------------------------------------------------------
    def write_csv(self):
        path = os.path.join(self.a.out, self.a.name + ".csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
            w.writeheader()
            for r in self.rows:
                w.writerow({k: (("%.6g" % v) if isinstance(v, float) else v) for k, v in r.items() if not k.startswith("_")})
        return path

    def table(self):
        a = self.a
        lines = []
        P = lines.append
        P("tsmech benchmark  %s  (%s; %s)" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), git_describe(),
                                                getattr(a, "binary_info", a.tsmech)))
        used = [c["key"] for c in CASES if any(r["case"] == c["key"] for r in self.rows)]
        refc = sorted({self.ref_solvers(c)[0] for c in used}) if a.ref_solvers or len(used) < 2 else \
            ["%s %s" % (c, self.ref_solvers(c)[0]) for c in used]
        P("%d steps of %g s; timing runs -ksp_rtol %g (-ksp_max_it %d)%s; reference: %s %s -ksp_rtol %g%s" % (
            a.steps, a.dt, a.ksp_rtol, a.ksp_max_it, (" -snes_rtol %g" % a.snes_rtol) if a.snes_rtol is not None else "", "cn2/midpoint2", ", ".join(refc), a.ref_ksp_rtol,
            ", -snes_rtol %g" % a.ref_snes_rtol))
        P("s/step: TSStep time of -log_view (max over ranks) / steps%s.  RSS: peak resident memory, sum over ranks." % (
            ", fastest of %d runs" % a.repeat if a.repeat > 1 else ""))
        P("rel: max(|q-q_ref|/|q_ref-q_0|, |v-v_ref|/|v_ref|) against the reference of the same scheme.")
        P("KSP/N: KSP iterations per Newton iteration (per linear solve).  gamg for the matrix-free tsmech peers: with -pc_use_amat 0.")
        P("x cn2 / x mid2: seconds per step of the row divided by those of tsmech cn2 / midpoint2 (each in its best configuration).")
        keys = []
        for r in self.rows:
            k = (r["case"], r["ranks"], r["n"])
            if k not in keys and r["role"] == "timing":
                keys.append(k)
        keys.sort(key=lambda k: (CASE_ORDER[k[0]], k[1], k[2]))
        for case, ranks, n in keys:
            c = CASE[case]
            P("")
            P("%s: %d unknowns (first-order form %d), %d rank%s" % (size_label(case, n), c["dofs"](n), 2 * c["dofs"](n),
                                                                   ranks, "s" if ranks > 1 else ""))
            P("  %-28s %-16s %9s %7s %7s %7s %9s %9s %8s %8s  %s" % ("peer", "config", "s/step", "Newton", "KSP", "KSP/N", "RSS MB", "rel",
                                                                 "x cn2", "x mid2", "others tried"))
            for p in PEERS:
                rs = [r for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == p["key"]
                      and r["role"] == "timing"]
                if not rs:
                    continue
                sel = [r for r in rs if r["selected"]]
                others = ", ".join("%s %s" % (r["config"], ("%.3g" % r["s_per_step"]) if r["status"] == "ok" and r.get("s_per_step") is not None else r["status"].split()[0])
                                   for r in rs if not r["selected"])
                if not sel:
                    P("  %-28s %-16s %9s %7s %7s %7s %9s %9s %8s %8s  %s" % (p["label"], "-", "failed", "", "", "", "", "", "", "", others))
                    continue
                r = sel[0]
                P("  %-28s %-16s %9.3f %7d %7d %7s %9.0f %9s %8s %8s  %s" % (
                    p["label"], r["config"], r["s_per_step"], r.get("newton", 0), r.get("ksp", 0), ksp_per_newton(r),
                    r.get("rss_sum_mb", float("nan")),
                    ("%.1e" % r["rel"]) if r.get("rel") is not None else "-",
                    ("%.2f" % r["ratio_vs_cn2"]) if r.get("ratio_vs_cn2") else "-",
                    ("%.2f" % r["ratio_vs_midpoint2"]) if r.get("ratio_vs_midpoint2") else "-", others))
        sc = self.scaling_table()
        if sc:
            P("")
            P(sc)
        eq = self.equal_table()
        if eq:
            P("")
            P(eq)
        P("")
        P(self.breakdown())
        P("")
        P(self.targets())
        P("")
        if not a.from_csv:
            P("total benchmark time %.0f s (%.0f s of it waiting for a quiet machine)" % (time.time() - self.t0, self.waited))
        busy = [r for r in self.rows if r.get("other_load", 0) > a.busy and r["role"] == "timing"]
        if busy:
            P("%d timing run(s) ran while other processes used more than %.1f cores (other_load in the CSV)" % (len(busy), a.busy))
        return "\n".join(lines)

    def config_row(self, case, n, ranks, peer, config):
        """The timing run of a peer in one configuration (the selected one if it is that)."""
        rs = [r for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == peer
              and r["config"] == config and r["role"] == "timing"]
        rs.sort(key=lambda r: (not r["selected"], r["status"] != "ok"))
        return rs[0] if rs else None

    def ksp_growth(self, case, peer, config):
        """(KSP/N at the smallest size, at the largest, their ratio) of one configuration, 1 rank."""
        ns = sorted({r["n"] for r in self.rows if r["case"] == case and r["ranks"] == 1 and r["role"] == "timing"})
        if len(ns) < 2:
            return None
        lo, hi = self.config_row(case, ns[0], 1, peer, config), self.config_row(case, ns[-1], 1, peer, config)
        if not lo or not hi or lo["status"] != "ok" or hi["status"] != "ok" or not lo.get("newton") or not hi.get("newton"):
            return None
        a, b = lo["ksp"] / lo["newton"], hi["ksp"] / hi["newton"]
        return a, b, b / a if a else float("inf"), ns[0], ns[-1]

    def scaling_table(self):
        """Per case with more than one size on 1 rank: each peer's selected run per size (s/step,
        Newton, KSP, KSP per Newton iteration) and, for a case with an `always` configuration, that
        configuration's KSP iterations per solve as the mesh is refined."""
        out = []
        for c in CASES:
            case = c["key"]
            ns = sorted({r["n"] for r in self.rows if r["case"] == case and r["ranks"] == 1 and r["role"] == "timing"})
            if len(ns) < 2:
                continue
            if not out:
                out.append("Refinement, 1 rank: s/step, Newton / KSP iterations, KSP per Newton iteration (= per linear solve)")
            out.append("  %s (sizes %s; unknowns %s)" % (c["label"], ", ".join(c["size"](n) for n in ns),
                                                          ", ".join("%d" % c["dofs"](n) for n in ns)))
            out.append("    %-36s" % "peer (config)" + "".join(" %26s" % c["size"](n) for n in ns) + "  KSP/N growth")
            for p in PEERS:
                variants = [(None, "selected")] + ([(c["always"], c["always"])] if c.get("always") and PEER[p["key"]]["second"] else [])
                for cfg, what in variants:
                    cells, kpn = [], []
                    for n in ns:
                        r = self.best(case, n, 1, p["key"]) if cfg is None else self.config_row(case, n, 1, p["key"], cfg)
                        if r and r["status"] == "ok" and r.get("s_per_step") is not None and r.get("newton"):
                            kpn.append(r["ksp"] / r["newton"])
                            cells.append("%7.3f %4d/%-5d %5.1f %s" % (r["s_per_step"], r["newton"], r["ksp"], kpn[-1],
                                                                     " " if cfg else r["config"].split("+")[1][:1]))
                        else:
                            kpn.append(None)
                            cells.append("-" if not r else r["status"].split()[0][:20])
                    if all(x == "-" for x in cells):
                        continue
                    g = "%.2f" % (kpn[-1] / kpn[0]) if kpn[0] and kpn[-1] else "-"
                    out.append("    %-36s" % ("%s (%s)" % (p["key"], what)) + "".join(" %26s" % x for x in cells) + "  %s" % g)
            out.append("    (cells: s/step Newton/KSP KSP/N; the letter after a selected cell: its preconditioner's initial)")
        return "\n".join(out)

    def eq_best(self, case, n, ranks, peer):
        for r in self.rows:
            if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == peer and r.get("eq_selected"):
                return r
        return None

    def equal_table(self):
        """Nonlinear cases at their largest size: each Newton peer's fastest run that agrees with the
        reference to --agree, over -snes_rtol 1e-8 (the timing run) and --snes-rtols."""
        keys = sorted({(r["case"], r["ranks"], r["n"]) for r in self.rows if r["role"] == "accuracy"},
                      key=lambda k: (CASE_ORDER[k[0]], k[1], k[2]))
        if not keys:
            return ""
        out = ["At equal accuracy (nonlinear cases): each Newton peer's fastest run with rel <= %g, over -snes_rtol 1e-8 "
               "and %s" % (self.a.agree, ", ".join("%g" % x for x in self.a.snes_rtols))]
        for case, ranks, n in keys:
            c = CASE[case]
            out.append("  %s, %d rank%s (x %s: s/step / those of tsmech %s at equal accuracy)" % (
                size_label(case, n), ranks, "s" if ranks > 1 else "", c["base"], c["base"]))
            out.append("    %-28s %-16s %10s %9s %7s %7s %9s %8s  %s" % ("peer", "config", "snes_rtol", "s/step", "Newton", "KSP", "rel",
                                                                   "x " + c["base"][:6], "all runs (snes_rtol: s/step rel)"))
            base = self.eq_best(case, n, ranks, c["base"])
            for p in PEERS:
                rs = [r for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == p["key"]
                      and (r["role"] == "accuracy" or r["selected"])]
                if not rs:
                    continue
                allr = ", ".join("%s%g%s: %s %s" % ("" if r["config"] == rs[0]["config"] else r["config"] + " ", r.get("snes_rtol", 1e-8),
                                                   (" [%s]" % r["eq_variant"]) if r.get("eq_variant") else "", ("%.3g" % r["s_per_step"]) if r.get("s_per_step") else r["status"],
                                                 ("%.0e" % r["rel"]) if r.get("rel") is not None else "-") for r in rs)
                e = self.eq_best(case, n, ranks, p["key"])
                if not e:
                    out.append("    %-28s %-16s %10s %9s %7s %7s %9s %8s  %s" % (p["label"], rs[0]["config"], "-", "none", "", "", "", "", allr))
                    continue
                out.append("    %-28s %-16s %10s %9.3f %7d %7d %9.1e %8s  %s" % (
                    p["label"], e["config"], "%g%s" % (e.get("snes_rtol", 1e-8), (" [%s]" % e["eq_variant"]) if e.get("eq_variant") else ""), e["s_per_step"], e.get("newton", 0), e.get("ksp", 0), e["rel"],
                    ("%.2f" % (e["s_per_step"] / base["s_per_step"])) if base else "-", allr))
        return "\n".join(out)

    def breakdown(self):
        """Seconds per step in the main -log_view events, for the selected run of every peer at the
        largest size of each case and rank count (events nest: KSPSolve holds PCApply, MatMult;
        MechOperator is the operator assembly, inside SNESJacobianEval with the first-order form's
        insertion; MechForce is every force evaluation)."""
        out = ["Where the time goes (s/step; largest size of each case): TSStep = KSPSolve + PCSetUp + MechOperator + "
               "MechForce + rest (first-order Jacobian insertion, vector work)"]
        keys = sorted({(r["case"], r["ranks"]) for r in self.rows if r["role"] == "timing"},
                      key=lambda k: (CASE_ORDER[k[0]], k[1]))
        ev = ["TSStep", "KSPSolve", "PCSetUp", "MechOperator", "MechForce", "SNESJacobianEval"]
        for case, ranks in keys:
            ns = [r["n"] for r in self.rows if r["case"] == case and r["ranks"] == ranks and r["role"] == "timing"]
            n = max(ns)
            out.append("  %s, %d rank%s:%s" % (size_label(case, n), ranks, "s" if ranks > 1 else "",
                                                  "".join(" %12s" % e for e in ev + ["rest"])))
            for p in PEERS:
                r = self.best(case, n, ranks, p["key"])
                if not r or not r.get("steps"):
                    continue
                st = r["steps"]
                v = [r.get("ev_" + e) for e in ev]
                known = sum(x for x, e in zip(v[1:5], ev[1:5]) if x)
                rest = (v[0] - known) / st if v[0] else None
                out.append("    %-30s%s %12s  (%s)" % (p["label"], "".join(" %12s" % ("%.3f" % (x / st) if x is not None else "-") for x in v),
                                                      "%.3f" % rest if rest is not None else "-", r["config"]))
        return "\n".join(out)

    def best(self, case, n, ranks, peer):
        for r in self.rows:
            if r["case"] == case and r["n"] == n and r["ranks"] == ranks and r["peer"] == peer and r["selected"]:
                return r
        return None

    def targets(self):
        out = ["Targets (issue): per-step time of the peer / the case's tsmech peer (cloth: cn2, solid: midpoint2), each in its "
               "best configuration"]

        def verdict(x, goal, le=False):
            return "MET" if (x <= goal if le else x >= goal) else "NOT MET"

        def line(what, num, den, goal):
            if not num or not den:
                out.append("  %-72s not measured" % what)
                return
            ratio = num["s_per_step"] / den["s_per_step"]
            out.append("  %-72s %6.2f%s" % (what, ratio, ("  (target >= %.1f: %s)" % (goal, verdict(ratio, goal))) if goal else ""))

        for c in CASES:
            case = c["key"]
            ns = sorted({r["n"] for r in self.rows if r["case"] == case and r["ranks"] == 1 and r["role"] == "timing"})
            if not ns:
                continue
            n = c["at"] if c.get("at") in ns else ns[-1]
            lab, base = size_label(case, n), c["base"]
            b1 = self.best(case, n, 1, base)
            for p, goal in c.get("speed", {}).items():
                line("%s, 1 rank: %s / %s" % (lab, PEER[p]["label"].split(" (")[0].split(" [")[0], base), self.best(case, n, 1, p), b1,
                     None if c.get("eq_only") else goal)
            if not c["linear"]:
                e1 = self.eq_best(case, n, 1, base)
                for p, goal in c.get("speed", {}).items():
                    e = self.eq_best(case, n, 1, p)
                    if e1 and e:
                        line("%s, 1 rank, equal accuracy: %s / %s" % (lab, PEER[p]["label"].split(" (")[0].split(" [")[0], base), e, e1, goal)
                    elif c.get("eq_only") and p in PEER and self.best(case, n, 1, p):
                        out.append("  %-72s not measured (--snes-rtols)" % ("%s, 1 rank, equal accuracy: %s / %s" % (lab, p, base)))
            if c.get("agree"):
                rels = [(r["peer"], r["rel"]) for r in self.rows if r["case"] == case and r["n"] == n and r["ranks"] == 1 and r["selected"]
                        and r["peer"] in c["agree"] and r.get("rel") is not None]
                if rels:
                    worst = max(rels, key=lambda x: x[1])
                    out.append("  %-72s %.1e  (target <= %.0e: %s; worst %s)" % (
                        "%s, %s final state vs reference" % (lab, "/".join(c["agree"])), worst[1], self.a.agree,
                        verdict(worst[1], self.a.agree, le=True), worst[0]))
            if c.get("ksp_growth") and c.get("always"):
                for p in [base] + [q for q in c.get("agree", ()) if q != base]:
                    g = self.ksp_growth(case, p, c["always"])
                    if not g:
                        continue
                    what = "%s: %s %s KSP/Newton %s -> %s" % (c["label"], p, c["always"], c["size"](g[3]), c["size"](g[4]))
                    tgt = p == base
                    out.append("  %-72s %6.2f  (%.1f -> %.1f%s)" % (
                        what, g[2], g[0], g[1], ("; target <= %.1f: %s" % (c["ksp_growth"], verdict(g[2], c["ksp_growth"], le=True)))
                        if tgt else ""))
        for c in CASES:
            case = c["key"]
            ns = sorted({r["n"] for r in self.rows if r["case"] == case and r["ranks"] == 2 and r["role"] == "timing"}
                        & {r["n"] for r in self.rows if r["case"] == case and r["ranks"] == 1 and r["role"] == "timing"})
            if not ns:
                continue
            n = ns[-1]
            for p in c.get("rank_peers", ()):
                b1, b2 = self.best(case, n, 1, p), self.best(case, n, 2, p)
                if b1 and b2:
                    ratio = b1["s_per_step"] / b2["s_per_step"]
                    goal = c.get("scaling", {}).get(p)
                    tgt = goal and (c.get("at") is None or n == c["at"])
                    out.append("  %-72s %6.2f%s" % ("%s: tsmech %s 1 rank / 2 ranks" % (size_label(case, n), p), ratio,
                                                   ("  (target >= %.1f: %s)" % (goal, verdict(ratio, goal))) if tgt else ""))
        return "\n".join(out)

    # -----------------------------------------------------------------------------------------
    def plot(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        cases = [c["key"] for c in CASES if any(r["case"] == c["key"] and r["selected"] for r in self.rows)]
        if not cases:
            return None
        fig, axes = plt.subplots(1, len(cases), figsize=(6 * len(cases), 5), squeeze=False)
        cyc = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        colors = {p["key"]: cyc[i % len(cyc)] for i, p in enumerate(PEERS)}  # more peers than colours
        for ax, case in zip(axes[0], cases):
            for p in PEERS:
                for ranks, ls, mk in ((1, "-", "o"), (2, "--", "s"), (4, ":", "^")):
                    pts = sorted((r["unknowns"], r["s_per_step"]) for r in self.rows if r["case"] == case and r["peer"] == p["key"]
                                 and r["ranks"] == ranks and r["selected"])
                    if pts:
                        x, y = zip(*pts)
                        ax.loglog(x, y, ls, marker=mk, color=colors[p["key"]], label="%s, %d rank%s" % (p["label"], ranks, "s" if ranks > 1 else ""))
            ax.set_xlabel("unknowns N (dofs of q; the first-order form solves 2N)")
            ax.set_ylabel("seconds per step")
            ax.set_title("%s, %d steps of %g s, ksp_rtol %g" % (CASE[case]["label"], self.a.steps, self.a.dt, self.a.ksp_rtol))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(self.a.out, self.a.name + ".png")
        fig.savefig(path, dpi=120)
        return path


def ksp_per_newton(r):
    return ("%.1f" % (r["ksp"] / r["newton"])) if r.get("newton") and r.get("ksp") is not None else "-"


def load_csv(path):
    rows = []
    ints = ("n", "unknowns", "solver_unknowns", "ranks", "selected", "eq_selected", "attempts", "steps", "newton", "ksp")
    with open(path) as f:
        for r in csv.DictReader(f):
            d = {}
            for k, v in r.items():
                if v in ("", None):
                    continue
                if k in ints:
                    d[k] = int(float(v))
                else:
                    try:
                        d[k] = float(v) if k not in ("case", "model", "peer", "label", "family", "config", "role", "status", "ref", "cmd") else v
                    except ValueError:
                        d[k] = v
            d.setdefault("selected", 0)
            d.setdefault("load1", 0.0)
            rows.append(d)
    return rows


def git_describe():
    try:
        c = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10)
        return "tsmech " + c.stdout.strip()
    except Exception:  # noqa: BLE001
        return "tsmech"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="128² cloth (linear and nonlinear) and a 16³ lattice, 1 rank")
    ap.add_argument("--cases", default="linear,nonlinear,lattice", help="comma list of " + ", ".join(CASE) +
                    " (default: the cloth and lattice cases; the solid only when asked for)")
    ap.add_argument("--sizes", default="128,256,512", help="cloth sizes n (n x n particles)")
    ap.add_argument("--sizes2", default=None,
                    help="nonlinear cloth sizes on more than one rank (default: the smallest of --sizes; the linear cloth runs all "
                         "--sizes, the lattice its largest size)")
    ap.add_argument("--lattice-sizes", default="16,32", help="lattice sizes n (n³ particles); the largest is the reported case")
    ap.add_argument("--solid-sizes", default="8,16,32",
                    help="solid sizes n: the neo-Hookean beam of 8n x n x n boxes of 6 tetrahedra, 3(8n+1)(n+1)² unknowns "
                         "(n = 32: 839 619); 1 rank runs all, more ranks the largest")
    ap.add_argument("--ranks", default="1,2", help="comma list of rank counts")
    ap.add_argument("--peers", default=None, help="comma list of " + ", ".join(PEER) + " (default: all but the opt-in " +
                    ", ".join(p["key"] for p in PEERS if p.get("optin")) + "; for the solid " +
                    ",".join(CASE["solid"]["peers"]) + ", TSCN on the 2N first-order form only when asked for here)")
    ap.add_argument("--skip-big", default="theta",
                    help="peers left out at the largest cloth size on every rank count (the full run's time budget); '' keeps all")
    ap.add_argument("--config", action="append", default=[], metavar="PEER=CONFIG",
                    help="force a configuration (e.g. cn2=cg+gamg); configurations: " + ", ".join(SECOND_ORDER_SOLVERS + FIRST_ORDER_SOLVERS))
    ap.add_argument("--screen-all", action="store_true", help="every configuration at every size (slow)")
    ap.add_argument("--keep", type=int, default=2, help="at most this many configurations of a leader's ranking are run at a later size")
    ap.add_argument("--keep-within", type=float, default=1.15,
                    help="... those within this factor of the best time at the previous size")
    ap.add_argument("--second-order-solvers", default=None,
                    help="screened for tsmech and TSALPHA2 (default %s; for the solid %s)" % (
                        ",".join(SECOND_ORDER_SOLVERS), ",".join(CASE["solid"]["second_solvers"])))
    ap.add_argument("--first-order-solvers", default=",".join(FIRST_ORDER_SOLVERS), help="screened for TSCN/TSTHETA")
    ap.add_argument("--big-size", type=int, default=512, help="cloth sizes from which --skip-big applies")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--ksp-rtol", type=float, default=1e-8, help="-ksp_rtol of every timing run")
    ap.add_argument("--snes-rtol", type=float, default=None,
                    help="-snes_rtol of every timing run (default: not given, PETSc's 1e-8)")
    ap.add_argument("--ksp-max-it", type=int, default=1000, help="-ksp_max_it of every timing run (a solve that needs more fails)")
    ap.add_argument("--ref-solver", default=None,
                    help="configuration of the reference runs, the next one if a run fails (default %s; for the solid %s)" % (
                        ",".join(REF_SOLVERS), ",".join(CASE["solid"]["ref_solvers"])))
    ap.add_argument("--ref-ksp-rtol", type=float, default=1e-11)
    ap.add_argument("--ref-snes-rtol", type=float, default=1e-10)
    ap.add_argument("--agree", type=float, default=1e-6, help="relative agreement asked of the final state")
    ap.add_argument("--snes-rtols", default="1e-6,1e-5",
                    help="nonlinear cases, largest size: the Newton peers are run again with these -snes_rtol, for the "
                         "comparison at equal accuracy ('' : none)")
    ap.add_argument("--eq-variants", default="-snes_stol 0;-snes_stol 0 -snes_lag_preconditioner 2",
                    help="';'-separated option sets with which PETSc's Newton peers (TSALPHA2, TSCN) also run at equal "
                         "accuracy: by default Newton without the step-length test (PETSc's -snes_stol 1e-8 stops "
                         "TSALPHA2's Newton before -snes_rtol matters) and with the preconditioner rebuilt every second "
                         "iteration ('' : none)")
    ap.add_argument("--extra", default="", help="extra options for every run (quoted)")
    ap.add_argument("--timeout", type=float, default=400, help="seconds before a run is stopped")
    ap.add_argument("--busy", type=float, default=0.3,
                    help="other processes using more cores than this make the machine busy (waiting before, a retry after a run)")
    ap.add_argument("--max-wait", type=float, default=60, help="seconds to wait for a quiet machine before each run (0: never)")
    ap.add_argument("--wait-budget", type=float, default=600, help="total seconds of such waiting in one benchmark")
    ap.add_argument("--retries", type=int, default=1, help="extra runs of a timing run that other processes disturbed")
    ap.add_argument("--repeat", type=int, default=1, help="runs of every timing run; the fastest counts (s_per_step_all, spread in the CSV)")
    ap.add_argument("--mpiexec-args", default="--bind-to none", help="extra mpiexec arguments")
    ap.add_argument("--tsmech", default=os.path.join(ROOT, "build", "tsmech"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--name", default=None, help="base name of the csv/png/txt (default bench or bench_quick)")
    ap.add_argument("--workdir", default=None, help="where the HDF5 files and the copy of the binary go (default: a new "
                    "temporary directory, removed at the end unless --keep-h5)")
    ap.add_argument("--keep-h5", action="store_true")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    ap.add_argument("--from-csv", default=None, metavar="CSV", help="no runs: print the table and draw the plot of an earlier CSV")
    a = ap.parse_args()

    if a.quick:
        a.sizes, a.ranks, a.lattice_sizes = "128", "1", "16"
    a.name = a.name or ("bench_quick" if a.quick else "bench")
    own_workdir = a.workdir is None
    if own_workdir:
        import tempfile
        a.workdir = tempfile.mkdtemp(prefix="tsmech_bench_")
    a.cases = [c for c in a.cases.split(",") if c]
    a.sizes = sorted(int(s) for s in a.sizes.split(",") if s)
    a.sizes2 = sorted(int(s) for s in a.sizes2.split(",") if s) if a.sizes2 is not None else a.sizes[:1]
    a.lattice_sizes = sorted(int(s) for s in a.lattice_sizes.split(",") if s)
    a.solid_sizes = sorted(int(s) for s in a.solid_sizes.split(",") if s)
    a.ranks = sorted(int(s) for s in a.ranks.split(",") if s)
    a.peers = [p for p in a.peers.split(",") if p] if a.peers is not None else None
    a.skip_big = [p for p in a.skip_big.split(",") if p]
    a.config = dict(c.split("=", 1) for c in a.config)
    a.ref_solvers = [c for c in a.ref_solver.split(",") if c] if a.ref_solver is not None else None
    a.snes_rtols = [float(x) for x in a.snes_rtols.split(",") if x]
    a.timing_snes = ["-snes_rtol", repr(a.snes_rtol)] if a.snes_rtol is not None else []
    a.eq_variants = [v.strip() for v in a.eq_variants.split(";") if v.strip()]
    a.second_solvers = [c for c in a.second_order_solvers.split(",") if c] if a.second_order_solvers is not None else None
    a.first_solvers = [c for c in a.first_order_solvers.split(",") if c]
    for c in (a.second_solvers or []) + (a.ref_solvers or []) + a.first_solvers + list(a.config.values()):
        solver_args(c, 1)
    for p in (a.peers or []) + list(a.config):
        if p not in PEER:
            ap.error("unknown peer %s" % p)
    for c in a.cases:
        if c not in CASE:
            ap.error("unknown case %s" % c)
    if not os.access(a.tsmech, os.X_OK) and not a.dry_run:
        ap.error("%s is not built: meson compile -C build" % a.tsmech)
    if not shutil.which("mpiexec"):
        ap.error("mpiexec not found")

    if a.from_csv:
        a.dry_run = True
        b = Bench(a)
        b.rows = load_csv(a.from_csv)
        if not a.name or a.name in ("bench", "bench_quick"):
            a.name = os.path.splitext(os.path.basename(a.from_csv))[0] + "_report"
        rep = b.table()
        log(rep)
        with open(os.path.join(a.out, a.name + ".txt"), "w") as f:
            f.write(rep + "\n")
        log("\nwrote %s" % b.plot())
        return
    b = Bench(a)
    log("tsmech benchmark: cases %s, cloth sizes %s (nonlinear on >1 rank: %s), lattice %s, solid %s, ranks %s, peers %s" % (
        ",".join(a.cases), a.sizes, a.sizes2, a.lattice_sizes, a.solid_sizes, a.ranks,
        ",".join(a.peers) if a.peers is not None else "default per case"))
    try:
        for ranks in a.ranks:
            for case in [c["key"] for c in CASES if c["key"] in a.cases]:
                c = CASE[case]
                sizes = c["sizes"](a, ranks)
                if not sizes:
                    continue
                # peers of --skip-big are left out at the largest cloth size (time budget)
                skip = {n: set(a.skip_big) for n in sizes if n >= a.big_size} if c.get("skip_big") else {}
                peers = a.peers if a.peers is not None else (c.get("peers") or DEFAULT_PEERS)
                b.case_ladder(case, sizes, ranks, peers, skip)
    except KeyboardInterrupt:
        log("\ninterrupted: writing what was measured")
    csvp = b.write_csv()
    rep = b.table()
    log("\n" + rep)
    txt = os.path.join(a.out, a.name + ".txt")
    with open(txt, "w") as f:
        f.write(rep + "\n")
    png = None if a.dry_run else b.plot()
    log("\nwrote %s, %s%s, logs in %s" % (csvp, txt, (", " + png) if png else "", b.logdir))
    if own_workdir and not a.keep_h5:
        shutil.rmtree(a.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
