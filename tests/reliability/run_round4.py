#!/usr/bin/python3
"""The reliability round of issue 37, by family: every case one tsmech run, held or not.

  run_round4.py TSMECH MPIEXEC MESHDIR WORKDIR [--report] [FAMILY ...]

MESHDIR is tests/solid/meshes (the committed Gmsh meshes; damaged and non-conforming variants are
made from them in WORKDIR). A case holds when the run ends within its time (default 20 s: a hang
is killed and fails) with the expected exit status and no signal; a refused one (status 2) prints
exactly one line "tsmech: error: ..." that names the option or file and says what is wrong (its
patterns), nothing it must not say (e.g. "64 MiB" for a directory); and no file appears or
changes in WORKDIR besides the case's own outputs (no lock file .NAME.lock, no temporary). Some
cases check more afterwards (an output's attributes, a restart on 2 ranks).

Families (the issue's, then this round's own):
  inputs      a FIFO, a directory, a device, a sparse 65 MiB file, a NUL byte, a missing file with a
              4 KiB path, as a table (gravity, constraint, load), a mesh, a checkpoint, an options file
  signals     SIGTERM during the set-up (a FIFO no longer blocks it; a large beam): no lock file
              left; (own) the output's reader goes away: SIGPIPE ends the run, no crash report
  truncation  over-long -solid_bc/-solid_load lists, a 69-character plane, names past 63 characters,
              17 loads, over-long -model, -ts_type, -output, -solid_mesh values
  restart     a restart with another selection (plane, group, label), another load value, faces or
              time function, another table, -solid_output_stress switched: refused naming it
  conforming  quadratic meshes whose cells give a shared edge or face different nodes (1, 2 ranks)
  solvers     symmetric-only methods under a follower pressure, as gauss2's stage solver, with
              PETSc's first-order types; TSIRK with M != I (refused) and M = I (runs)
  gmsh40      Gmsh 4.0 meshes (ASCII and binary, linear and quadratic) read; damaged ones refused
  status      -ts_adapt_type history (exit 2); a continued output's ts_type and gauss2_stages
  messages    the misleading messages of the issue: each names its option and says what is wrong
  syntax      (own) logical options given 2, maybe or a 5000-character value; a 300-digit number;
              a list element of 300 characters; each named, in every model
  inputkinds  (own) a symbolic link to a FIFO, a link loop, a directory with a trailing slash, an
              empty table, 10^6 + 1 rows, a mesh that is a directory, an empty mesh
  identity    (own) what must still run: a checkpoint of 1 rank restarted on 2 with the same
              constraints and loads, a table moved to another path, the same selection by group

Prints one line per case and "family: tried N, held M" per family; exits 1 if a case failed
(unless --report, which only counts: run against an older tsmech for the before numbers).
"""
import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
REPORT = "--report" in sys.argv
TSMECH, MPIEXEC, MESHDIR, WORK = [os.path.abspath(a) if i != 1 else a for i, a in enumerate(args[:4])]
ONLY = set(args[4:])
BASE = os.path.join(WORK, "fixtures")  # made once, copied for each worker (families run side by side)
WORKERS = 3
LONG = "/tmp/" + "d" * 200 + "/" + "e" * 3800 + ".msh"  # a 4 KiB path that does not exist


def w(name, wd=None):
    return os.path.join(wd or BASE, name)


def run(np_, argv, timeout, wd=None):
    """Runs tsmech on np_ ranks in wd (its own process group, killed on a timeout): status, output, seconds"""
    cmd = [TSMECH, "-quiet"] + argv
    if np_ > 1:
        cmd = [MPIEXEC, "-q", "-n", str(np_)] + cmd
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=wd or BASE, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode(errors="replace"), time.time() - t0
    return p.returncode, out.decode(errors="replace"), time.time() - t0


def must(argv, np_=1):
    status, out, _ = run(np_, argv, 120)
    if status != 0:
        raise RuntimeError(f"fixture run failed ({status}): tsmech {' '.join(argv)}\n{out}")


def snapshot(wd):
    snap = {}
    for root, dirs, files in os.walk(wd):
        for f in files:
            path = os.path.join(root, f)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            else:
                digest = "special"
            snap[os.path.relpath(path, wd)] = (st.st_size, st.st_mtime_ns, digest)
    return snap


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------

BEAM = ["-model", "solid", "-solid_beam_cells", "4,1,1"]


def lines_of(name):
    return open(os.path.join(MESHDIR, name)).read().split("\n")


def nonconforming(src, dst, cell_types, face):
    """A copy of a quadratic 2.2 ASCII mesh in which one cell gets its own copy of a higher-order
    node it shares with another: an edge node (face False) or a hexahedron's face node"""
    L = lines_of(src)
    i, j = L.index("$Nodes"), L.index("$Elements")
    nn, ne = int(L[i + 1]), int(L[j + 1])
    nodes = {int(l.split()[0]): l.split()[1:] for l in L[i + 2 : i + 2 + nn]}
    use = {}
    for k in range(j + 2, j + 2 + ne):
        wds = L[k].split()
        if int(wds[1]) not in cell_types:
            continue
        nt = int(wds[2])
        ns = [int(x) for x in wds[3 + nt :]]
        lo, hi = (4, 10) if int(wds[1]) == 11 else ((20, 26) if face else (8, 20))
        for pos in range(lo, hi):
            use.setdefault(ns[pos], []).append((k, pos))
    n = min(x for x in use if len(use[x]) >= 2)
    k, pos = use[n][1]
    wds = L[k].split()
    new = max(nodes) + 1
    wds[3 + int(wds[2]) + pos] = str(new)
    L[k] = " ".join(wds)
    L[i + 1] = str(nn + 1)
    L.insert(i + 2 + nn, "%d %s" % (new, " ".join(nodes[n])))
    open(w(dst), "w").write("\n".join(L))


def cut_element_line(src, dst, ctype):
    """A copy with one number missing from the first element line of type ctype (2.2 or 4.x ASCII)"""
    L = lines_of(src)
    j = L.index("$Elements")
    for k in range(j + 2, len(L)):
        wds = L[k].split()
        if L[1].startswith("2") and len(wds) > 3 and wds[1] == str(ctype):
            L[k] = " ".join(wds[:-1])
            break
        if not L[1].startswith("2") and len(wds) == 11 and ctype == 11:
            L[k] = " ".join(wds[:-1])
            break
    open(w(dst), "w").write("\n".join(L))


def make_fixtures():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(BASE)
    os.mkfifo(w("fifo"))
    os.mkfifo(w("fifo.msh"))
    os.mkfifo(w("fifo.h5"))
    os.makedirs(w("adir"))
    os.makedirs(w("adir.msh"))
    os.symlink("fifo", w("link_to_fifo.txt"))
    os.symlink("loop_b.txt", w("loop_a.txt"))
    os.symlink("loop_a.txt", w("loop_b.txt"))
    with open(w("sparse.txt"), "wb") as f:
        f.truncate(65 * 1024 * 1024)
    open(w("nul.txt"), "wb").write(b"0 0\n1 1\x00\n2 2\n")
    open(w("empty.txt"), "w").close()
    open(w("empty.msh"), "w").close()
    open(w("phi.txt"), "w").write("0 0\n1 1\n2 1\n")
    open(w("phi2.txt"), "w").write("0 0\n1 0.5\n2 1\n")
    os.makedirs(w("moved"))
    shutil.copy(w("phi.txt"), w("moved/phi.txt"))
    with open(w("rows.txt"), "w") as f:
        f.write("".join("%d 0\n" % i for i in range(1000001)))
    # meshes: Gmsh 4.0 (committed), non-conforming and damaged variants
    for m in ("box_msh40.msh", "box_msh40_bin.msh", "cyl_tet10_msh40.msh", "hex27_msh40_bin.msh", "box_msh41.msh"):
        shutil.copy(os.path.join(MESHDIR, m), w(m))
    data = open(w("box_msh40.msh"), "rb").read()
    open(w("trunc_msh40.msh"), "wb").write(data[: len(data) // 2])
    open(w("entity_msh40.msh"), "w").write(_undeclared_entity40(data.decode()))
    nonconforming("cyl_tet10_msh22.msh", "nc_tet10.msh", (11,), False)
    nonconforming("hex27_msh22.msh", "nc_hex27_edge.msh", (12,), False)
    nonconforming("hex27_msh22.msh", "nc_hex27_face.msh", (12,), True)
    cut_element_line("cyl_tet10_msh22.msh", "cut_tet10_msh22.msh", 11)
    cut_element_line("cyl_tet10_msh41.msh", "cut_tet10_msh41.msh", 11)
    # checkpoints
    must(BEAM + ["-solid_fix", "x=0", "-ts_max_steps", "2", "-checkpoint", "fix0.h5"])
    must(BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_time", "table:phi.txt", "-solid_bc_c_u", "0,0,0.01", "-ts_max_steps", "2", "-checkpoint", "bc.h5"])
    must(BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1e3", "-solid_load_p_time", "ramp:1", "-ts_max_steps", "2", "-checkpoint", "load.h5"])
    must(["-model", "solid", "-solid_mesh", "box_msh41.msh", "-solid_bc", "c", "-solid_bc_c_group", "clamped", "-ts_max_steps", "2", "-checkpoint", "group.h5"])
    must(["-model", "chain", "-ts_type", "gauss2", "-ts_gauss2_stages", "3", "-ts_max_steps", "3", "-output", "g2out.h5", "-checkpoint", "g2ck.h5"])


def copy_fixtures(dst):
    """A copy of the fixtures: FIFOs and links made anew, the sparse file sparse (copying would
    read a FIFO forever and write 65 MiB)"""
    for root, dirs, files in os.walk(BASE):
        rel = os.path.relpath(root, BASE)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in dirs + files:
            src, to = os.path.join(root, name), os.path.join(dst, rel, name)
            st = os.lstat(src)
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(src), to)
            elif stat.S_ISFIFO(st.st_mode):
                os.mkfifo(to)
            elif stat.S_ISDIR(st.st_mode):
                os.makedirs(to, exist_ok=True)
            elif name == "sparse.txt":
                with open(to, "wb") as f:
                    f.truncate(st.st_size)
            else:
                shutil.copy2(src, to)


def _undeclared_entity40(text):
    """format 4.0: an element block that names a volume $Entities does not declare"""
    L = text.split("\n")
    j = L.index("$Elements")
    k = j + 2
    while k < len(L):
        wds = L[k].split()
        if len(wds) == 4 and wds[1] == "3":
            wds[0] = "999"
            L[k] = " ".join(wds)
            break
        k += int(wds[3]) + 1 if len(wds) == 4 else 1
    return "\n".join(L)


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

CASES = []


def case(family, name, argv, exit=2, np=1, names=(), what=None, forbid=None, within=20, creates=(), post=None):
    CASES.append(dict(family=family, name=name, argv=argv, exit=exit, np=np, names=names, what=what, forbid=forbid, within=within, creates=creates, post=post))


OUT = ["-output", "run.h5"]  # a case with files to lock: none may be left


def inputs():
    kinds = [("fifo", "FIFO|named pipe"), ("adir", "directory"), ("/dev/zero", "device"), ("sparse.txt", "65 MiB|larger than|more than"), ("nul.txt", "NUL")]
    for f, what in kinds:
        for opt, extra in (("-solid_g_time", []), ("-solid_bc_c_time", ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_u", "0,0,1e-3"]), ("-solid_load_p_time", ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1"])):
            for np_ in (1, 2) if opt == "-solid_g_time" else (1,):
                case("inputs", f"table {f} {opt} np{np_}", BEAM + extra + [opt, "table:" + f] + OUT, np=np_, names=[opt, f], what=what, within=10)
    case("inputs", "table missing 4KiB path", BEAM + ["-solid_g_time", "table:" + LONG] + OUT, names=["-solid_g_time"], what="does not exist", within=10)
    for f, what in (("fifo.msh", "FIFO|named pipe"), ("adir.msh", "directory"), (LONG, "does not exist")):
        for np_ in (1, 2):
            case("inputs", f"mesh {f[:20]} np{np_}", ["-model", "solid", "-solid_mesh", f] + OUT, np=np_, names=["-solid_mesh"], what=what, within=10)
    for np_ in (1, 2):
        case("inputs", f"restart fifo np{np_}", ["-model", "chain", "-restart", "fifo.h5", "-ts_max_steps", "5"] + OUT, np=np_, names=["-restart", "fifo.h5"], what="FIFO|named pipe", within=10)
    case("inputs", "options_file fifo", ["-options_file", "fifo", "-model", "chain"] + OUT, names=["-options_file", "fifo"], what="FIFO|named pipe", within=10)


def signals():
    # handled in run_signal() and run_pipe(); listed here so that the family is counted with the others
    for when in ("set-up of a large beam", "set-up on 2 ranks"):
        CASES.append(dict(family="signals", name=f"SIGTERM during the {when}", special="signal", np=2 if "2 ranks" in when else 1))
    CASES.append(dict(family="signals", name="the output's reader goes away (| head -1)", special="pipe", np=1))


def truncation():
    bcs = ",".join("c%d" % i for i in range(300))
    case("truncation", "-solid_bc 1389 characters", BEAM + ["-solid_bc", bcs], names=["-solid_bc"], what="characters")
    loads = ",".join("l%d" % i for i in range(300))
    case("truncation", "-solid_load 1389 characters", BEAM + ["-solid_load", loads], names=["-solid_load"], what="characters")
    plane = "x=1.000000000000000000000000000000000000000000000000000000000000000e-1"
    case("truncation", "plane of 69 characters", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", plane], names=["-solid_bc_c_where"], what=r"no vertex .*x = 0\.1")
    case("truncation", "-solid_fix plane of 69 characters", BEAM + ["-solid_fix", plane], names=["-solid_fix"], what=r"no vertex .*x = 0\.1")
    a = "a" * 63
    case("truncation", "names differing after 63", BEAM + ["-solid_bc", f"{a}1,{a}2", f"-solid_bc_{a}1_where", "x=0", f"-solid_bc_{a}2_where", "x=1", "-checkpoint", "ck.h5"], names=["-solid_bc"], what="64 characters|at most 63")
    l17 = ",".join("l%d" % i for i in range(17))
    case("truncation", "17 loads", BEAM + ["-solid_load", l17] + sum(([f"-solid_load_l{i}_where", "x=1", f"-solid_load_l{i}_pressure", "1"] for i in range(17)), []), names=["-solid_load"], what="at most 16")
    case("truncation", "-model of 100 characters", ["-model", "s" * 100] + OUT, names=["-model"], what="characters|unknown|Unknown")
    case("truncation", "-ts_type of 300 characters", ["-model", "chain", "-ts_type", "t" * 300] + OUT, names=["-ts_type"], what="characters|unknown")
    case("truncation", "-solid_mesh of 5000 characters", ["-model", "solid", "-solid_mesh", "m" * 5000 + ".msh"] + OUT, names=["-solid_mesh"], what="characters")
    case("truncation", "-solid_material of 300 characters", BEAM + ["-solid_material", "n" * 300] + OUT, names=["-solid_material"], what="characters|unknown")


def restart():
    R = ["-ts_max_steps", "4"]
    case("restart", "-solid_fix x=0 then x=1", BEAM + ["-solid_fix", "x=1", "-restart", "fix0.h5"] + R, names=["-restart", "x=0", "x=1"])
    case("restart", "-solid_fix then _where", BEAM + ["-solid_fix", "none", "-solid_bc", "fix", "-solid_bc_fix_where", "x=1", "-restart", "fix0.h5"] + R, names=["-restart"], what="x=1|bc_fix")
    case("restart", "_where x=0 then x=1", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=1", "-solid_bc_c_time", "table:phi.txt", "-solid_bc_c_u", "0,0,0.01", "-restart", "bc.h5"] + R, names=["-restart", "bc_c"], what="x=1")
    case("restart", "another table behind the name", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_time", "table:phi2.txt", "-solid_bc_c_u", "0,0,0.01", "-restart", "bc.h5"] + R, names=["-restart", "bc_c_time"], what="table|rows", forbid=r"^tsmech: error: .*bc_c_time = \d+(\.\d+)?,")
    case("restart", "_group then _label", ["-model", "solid", "-solid_mesh", "box_msh41.msh", "-solid_bc", "c", "-solid_bc_c_label", "Face Sets", "-solid_bc_c_value", "2", "-restart", "group.h5"] + R, names=["-restart", "bc_c"], what="label|group")
    case("restart", "load pressure changed", BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "2e3", "-solid_load_p_time", "ramp:1", "-restart", "load.h5"] + R, names=["-restart", "load_p"], what="2000", forbid="checksum")
    case("restart", "load time changed", BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1e3", "-solid_load_p_time", "ramp:2", "-restart", "load.h5"] + R, names=["-restart", "load_p"], what="ramp:2", forbid="checksum")
    case("restart", "load faces changed", BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=0", "-solid_load_p_pressure", "1e3", "-solid_load_p_time", "ramp:1", "-restart", "load.h5"] + R, names=["-restart", "load_p"], what="x=0")
    case("restart", "output_stress switched", BEAM + ["-solid_fix", "x=0", "-solid_output_stress", "false", "-restart", "fix0.h5"] + R, names=["-restart", "output_stress"], forbid="lacks|missing")


def conforming():
    for m in ("nc_tet10.msh", "nc_hex27_edge.msh", "nc_hex27_face.msh"):
        for np_ in (1, 2):
            case("conforming", f"{m} np{np_}", ["-model", "solid", "-solid_mesh", m, "-solid_order", "2", "-solid_fix", "z=0"] + OUT, np=np_, names=[m], what=r"not conforming: elements \d+ and \d+ .*nodes? \d+")


def solvers():
    follower = BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1e3", "-ts_max_steps", "2"]
    for k in ("nash", "stcg", "gltr", "fcg", "pipefcg", "pipecg2", "pipeprcg", "chebyshev"):
        case("solvers", f"follower -ksp_type {k}", follower + ["-ksp_type", k] + OUT, names=["-ksp_type " + k], what="follower|symmetric", within=10)
    for k in ("cg", "minres", "stcg"):
        case("solvers", f"gauss2 -gauss2_ksp_type {k}", ["-model", "chain", "-ts_type", "gauss2", "-gauss2_ksp_type", k, "-ts_max_steps", "2"] + OUT, names=["-gauss2_ksp_type " + k], what="symmetric", within=10)
    case("solvers", "beuler -ksp_type stcg", ["-model", "chain", "-ts_type", "beuler", "-ksp_type", "stcg", "-ts_max_steps", "2"] + OUT, names=["-ksp_type stcg"], what="symmetric", within=10)
    case("solvers", "irk on the chain (M != I)", ["-model", "chain", "-ts_type", "irk", "-ksp_type", "gmres", "-pc_type", "none", "-ts_max_steps", "2"] + OUT, names=["-ts_type irk"], what="identity|dF/dUdot", within=10)
    case("solvers", "irk with unit masses runs", ["-model", "chain", "-chain_mass", "20", "-ts_type", "irk", "-pc_type", "none", "-ts_max_steps", "2"], exit=0, within=10)


def gmsh40():
    for m in ("box_msh40.msh", "box_msh40_bin.msh"):
        for np_ in (1, 2):
            case("gmsh40", f"{m} np{np_}", ["-model", "solid", "-solid_mesh", m, "-solid_bc", "c", "-solid_bc_c_group", "clamped", "-ts_max_steps", "2"], exit=0, np=np_)
    case("gmsh40", "cyl_tet10_msh40 order 2", ["-model", "solid", "-solid_mesh", "cyl_tet10_msh40.msh", "-solid_order", "2", "-solid_fix", "z=0", "-ts_max_steps", "2"], exit=0)
    case("gmsh40", "hex27_msh40_bin order 2", ["-model", "solid", "-solid_mesh", "hex27_msh40_bin.msh", "-solid_order", "2", "-solid_fix", "x=0", "-ts_max_steps", "2"], exit=0)
    case("gmsh40", "truncated 4.0", ["-model", "solid", "-solid_mesh", "trunc_msh40.msh"] + OUT, names=["trunc_msh40.msh"], what="truncated|ends|damaged")
    case("gmsh40", "undeclared entity 4.0", ["-model", "solid", "-solid_mesh", "entity_msh40.msh"] + OUT, names=["entity_msh40.msh"], what="entity")


def continued_attrs(expect):
    def check(wd):
        import h5py

        with h5py.File(w("g2out.h5", wd), "r") as f:
            got = {k: f.attrs[k] for k in ("ts_type", "gauss2_stages") if k in f.attrs}
        got = {k: (v.decode() if isinstance(v, bytes) else float(v)) for k, v in got.items()}
        return None if got == expect else f"output attributes {got}, expected {expect}"

    return check


def status():
    case("status", "-ts_adapt_type history", ["-model", "chain", "-ts_adapt_type", "history", "-ts_max_steps", "3"] + OUT, names=["-ts_adapt_type"], what="history|recorded")
    case("status", "continued with gauss2 stages 2", ["-model", "chain", "-ts_type", "gauss2", "-ts_gauss2_stages", "2", "-ts_max_steps", "5", "-restart", "g2ck.h5", "-checkpoint", "g2ck.h5", "-output", "g2out.h5"], exit=0, creates=("g2out.h5", "g2ck.h5"), post=continued_attrs({"ts_type": "gauss2", "gauss2_stages": 2.0}))
    case("status", "continued with midpoint2", ["-model", "chain", "-ts_type", "midpoint2", "-ts_max_steps", "7", "-restart", "g2ck.h5", "-checkpoint", "g2ck.h5", "-output", "g2out.h5"], exit=0, creates=("g2out.h5", "g2ck.h5"), post=continued_attrs({"ts_type": "midpoint2"}))


def messages():
    case("messages", "a table that is a directory", BEAM + ["-solid_g_time", "table:adir"], names=["adir"], what="directory", forbid="64 MiB")
    case("messages", "-solid_bc_c_u a,b,c", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_u", "a,b,c"], names=["-solid_bc_c_u"], what="numeric|number")
    case("messages", "-ts_gauss2_pc_definite 2", ["-model", "chain", "-ts_type", "gauss2", "-ts_gauss2_pc_definite", "2"], names=["-ts_gauss2_pc_definite"], what="logical")
    case("messages", "a 4 KiB path keeps its reason", ["-model", "solid", "-solid_mesh", LONG], names=["-solid_mesh"], what="does not exist")
    for m in ("cut_tet10_msh22.msh", "cut_tet10_msh41.msh"):
        case("messages", f"damaged 10-node line {m}", ["-model", "solid", "-solid_mesh", m, "-solid_order", "2"], names=[m], what="10-node", forbid="pyramid|twice|unknown Gmsh element type")
    case("messages", "restart time function says what changed", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_time", "ramp:1", "-solid_bc_c_u", "0,0,0.01", "-restart", "bc.h5", "-ts_max_steps", "4"], names=["bc_c_time"], what="ramp:1", forbid=r"bc_c_time = \d")
    case("messages", "output_stress switched is no missing parameter", BEAM + ["-solid_fix", "x=0", "-solid_output_stress", "0", "-restart", "fix0.h5", "-ts_max_steps", "4"], names=["output_stress"], what="= 1.*= 0", forbid="lacks|missing")


def syntax():
    for opt, model in (("-chain_linear", "chain"), ("-cloth_sphere", "cloth"), ("-solid_output_stress", "solid"), ("-quiet", "chain"), ("-ts_theta_endpoint", "chain")):
        for val in ("2", "maybe", "y" * 5000):
            extra = ["-ts_type", "theta2"] if opt == "-ts_theta_endpoint" else []
            case("syntax", f"{opt} {val[:8]}", ["-model", model, opt, val] + extra + OUT, names=[opt], what="logical", within=10)
    case("syntax", "a 300-digit number", BEAM + ["-solid_E", "1" * 300] + OUT, names=["-solid_E"], what="characters|large|integer|number")
    case("syntax", "a list element of 300 characters", BEAM + ["-solid_g", "0,0," + "9" * 300] + OUT, names=["-solid_g"], what="characters|number")
    case("syntax", "-ts_theta_linearized_guess 5000 characters", ["-model", "chain", "-ts_type", "theta2", "-ts_theta_linearized", "-ts_theta_linearized_guess", "g" * 5000] + OUT, names=["-ts_theta_linearized_guess"], what="characters")


def inputkinds():
    case("inputkinds", "a link to a FIFO", BEAM + ["-solid_g_time", "table:link_to_fifo.txt"] + OUT, names=["link_to_fifo.txt"], what="FIFO|named pipe", within=10)
    case("inputkinds", "a link loop", BEAM + ["-solid_g_time", "table:loop_a.txt"] + OUT, names=["loop_a.txt"], what="cannot be read|links|loop", within=10)
    case("inputkinds", "a directory with a slash", BEAM + ["-solid_g_time", "table:adir/"] + OUT, names=["adir/"], what="directory", within=10)
    case("inputkinds", "an empty table", BEAM + ["-solid_g_time", "table:empty.txt"] + OUT, names=["empty.txt"], what="two rows", within=10)
    case("inputkinds", "10^6 + 1 rows", BEAM + ["-solid_g_time", "table:rows.txt"] + OUT, names=["rows.txt"], what="1000000 rows", within=10)
    case("inputkinds", "a mesh that is a directory named .msh", ["-model", "solid", "-solid_mesh", "adir.msh", "-solid_order", "2"] + OUT, names=["adir.msh"], what="directory", within=10)
    case("inputkinds", "an empty mesh", ["-model", "solid", "-solid_mesh", "empty.msh"] + OUT, names=["empty.msh"], what="empty|neither", within=10)
    case("inputkinds", "/dev/null as a checkpoint", ["-model", "chain", "-restart", "/dev/null", "-ts_max_steps", "5"] + OUT, names=["/dev/null"], what="device", within=10)


def identity():
    case("identity", "1-rank checkpoint, same constraint, 2 ranks", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_time", "table:phi.txt", "-solid_bc_c_u", "0,0,0.01", "-restart", "bc.h5", "-ts_max_steps", "4"], exit=0, np=2)
    case("identity", "the table moved elsewhere", BEAM + ["-solid_fix", "none", "-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_bc_c_time", "table:moved/phi.txt", "-solid_bc_c_u", "0,0,0.01", "-restart", "bc.h5", "-ts_max_steps", "4"], exit=0)
    case("identity", "same load on 2 ranks", BEAM + ["-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1e3", "-solid_load_p_time", "ramp:1", "-restart", "load.h5", "-ts_max_steps", "4"], exit=0, np=2)
    case("identity", "same group on 2 ranks", ["-model", "solid", "-solid_mesh", "box_msh41.msh", "-solid_bc", "c", "-solid_bc_c_group", "clamped", "-restart", "group.h5", "-ts_max_steps", "4"], exit=0, np=2)


FAMILIES = [inputs, signals, truncation, restart, conforming, solvers, gmsh40, status, messages, syntax, inputkinds, identity]

# ---------------------------------------------------------------------------------------------


def finish(p, secs):
    """The decoded standard output and error of p once it ended, (None, None) if it is still running
    after secs seconds (then its process group is killed)"""
    try:
        out, err = p.communicate(timeout=secs)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, None
    return (out or b"").decode(errors="replace"), (err or b"").decode(errors="replace")


def left_behind(before, wd):
    """The files of wd that were not in the snapshot before, removed (the next case starts clean)"""
    left = sorted(set(snapshot(wd)) - set(before))
    for k in left:
        os.remove(w(k, wd))
    return left


def run_signal(c, wd):
    """SIGTERM while a large beam is set up (with an output, so files are locked): the run ends by
    the signal and leaves no lock file (or, where the ranks step already, stops after the step with
    its output and no lock file)"""
    before = snapshot(wd)
    cmd = [TSMECH, "-quiet", "-model", "solid", "-solid_beam_cells", "80,30,30", "-ts_max_steps", "1", "-output", "big.h5"]
    if c["np"] > 1:
        cmd = [MPIEXEC, "-q", "-n", str(c["np"])] + cmd
    # mpiexec forwards the signal and sends SIGKILL after odls_base_sigkill_timeout seconds (the
    # tests' environment sets 0, which leaves a rank no time for its handler); 5 s, more than the
    # default 1 s, for a loaded machine
    env = dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="5")
    p = subprocess.Popen(cmd, cwd=wd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    t0 = time.time()
    while time.time() - t0 < 10 and not os.path.exists(w(".big.h5.lock", wd)):
        time.sleep(0.01)
    if not os.path.exists(w(".big.h5.lock", wd)):
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "the run did not lock its output within 10 s"
    # at once: the lock is taken before the model is built, and an idle machine builds this beam in
    # about a second (a signal after the set-up stops the run after its step, with its output)
    os.killpg(p.pid, signal.SIGTERM)
    out, _ = finish(p, 15)
    if out is None:
        return "the run did not end within 15 s of SIGTERM"
    left = left_behind(before, wd)
    # a signal that reaches the ranks once they step stops the run after its step: then the output
    # is the run's result, complete, and only the lock files and temporaries must be gone
    if "tsmech: interrupted by SIGTERM at step" in out:
        left = [k for k in left if k not in ("big.h5", "big.xmf")]
    return f"left {', '.join(left)} (exit status {p.returncode}: {' | '.join(out.splitlines()[-3:])})" if left else None


def run_pipe(c, wd):
    """A run whose standard output is read by a program that stops after a line (tsmech ... | head
    -1): it ends by SIGPIPE as any program would, without a crash report, leaving no lock file"""
    before = snapshot(wd)
    cmd = [TSMECH, "-model", "chain", "-ts_max_steps", "1000000", "-ts_max_time", "1e9", "-ts_monitor", "-output", "pipe.h5"]
    p = subprocess.Popen(cmd, cwd=wd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    p.stdout.readline()
    p.stdout.close()
    _, err = finish(p, 20)
    if err is None:
        return "still running 20 s after its reader went away"
    left = left_behind(before, wd)
    problems = []
    if "PETSC ERROR" in err or "Caught signal" in err:
        problems.append("a crash report: " + " | ".join(err.splitlines()[:3]))
    if p.returncode not in (-signal.SIGPIPE, 128 + signal.SIGPIPE):
        problems.append(f"exit status {p.returncode}, not SIGPIPE's")
    if [k for k in left if "lock" in k or "tmp" in k]:
        problems.append("left " + ", ".join(left))
    return "; ".join(problems) or None


def check_case(c, wd):
    if c.get("special") == "signal":
        return run_signal(c, wd)
    if c.get("special") == "pipe":
        return run_pipe(c, wd)
    before = snapshot(wd)
    status, out, secs = run(c["np"], c["argv"], c["within"], wd)
    after = snapshot(wd)
    problems = []
    if status is None:
        problems.append(f"still running after {c['within']} s (killed)")
    elif status < 0 or status > 128:
        problems.append(f"ended by a signal (status {status})")
    elif status != c["exit"]:
        problems.append(f"exit status {status}, expected {c['exit']}")
    lines = program_lines(out)
    if status == 2 and c["exit"] == 2:
        if len(lines) != 1 or not lines[0].startswith("tsmech: error: "):
            problems.append(f"not one line 'tsmech: error: ...' but {len(lines)} lines")
        text = " ".join(lines)
        for n in c["names"]:
            if n not in text:
                problems.append(f"does not name {n[:40]}")
        if c["what"] and not re.search(c["what"], text):
            problems.append(f"does not say /{c['what']}/")
    if c["forbid"] and re.search(c["forbid"], out, re.M):
        problems.append(f"says /{c['forbid']}/")
    changed = sorted(k for k in set(before) | set(after) if k not in c["creates"] and before.get(k) != after.get(k))
    if changed:
        problems.append("files changed or appeared: " + ", ".join(changed))
    if not problems and c["post"]:
        msg = c["post"](wd)
        if msg:
            problems.append(msg)
    # the case's new files go, so that the next case starts from the fixtures
    for k in set(after) - set(before):
        if k not in c["creates"]:
            os.remove(w(k, wd))
    return "; ".join(problems) + ("\n       output: " + " | ".join(lines)[:600] if problems else "") if problems else None


def main():
    import concurrent.futures
    import threading

    for f in FAMILIES:
        f()
    cases = [c for c in CASES if not ONLY or c["family"] in ONLY]
    make_fixtures()
    families = [f.__name__ for f in FAMILIES if any(c["family"] == f.__name__ for c in cases)]
    lock = threading.Lock()
    results = {}

    def worker(k):
        """the families k, k + WORKERS, ...: each family in order, in a directory of its own"""
        wd = os.path.join(WORK, "w%d" % k)
        copy_fixtures(wd)
        for fam in families[k::WORKERS]:
            for c in [c for c in cases if c["family"] == fam]:
                problem = check_case(c, wd)
                results[id(c)] = problem
                with lock:
                    print(f"{'ok  ' if problem is None else 'FAIL'} {c['family']:10s} {c['name']}" + (f": {problem}" if problem else ""), flush=True)

    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(worker, range(WORKERS)))
    print()
    total = [0, 0]
    for fam in families:
        got = [results[id(c)] is None for c in cases if c["family"] == fam]
        total[0] += len(got)
        total[1] += sum(got)
        print(f"{fam:10s}: tried {len(got):3d}, held {sum(got):3d}")
    print(f"{'all':10s}: tried {total[0]:3d}, held {total[1]:3d}")
    return 0 if REPORT or total[0] == total[1] else 1


if __name__ == "__main__":
    sys.exit(main())
