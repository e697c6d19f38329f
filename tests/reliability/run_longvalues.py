#!/usr/bin/python3
"""Every option of the tsmech program's own (the driver's, every model's, a solid constraint's and
load's, tsmech's TS types') given a value of 5000 characters: each is refused in one line
"tsmech: error: ..." that names the option, exit status 2, no signal; none is cut short and run.

  run_longvalues.py TSMECH WORKDIR

The options are those -help prints in the blocks of the driver, the models and the tsmech TS
types (so an option added later is tested without a word here); PETSc's own are not tsmech's to
check. Runs four at a time (each run is mostly the MPI start-up).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from program_output import program_lines  # noqa: E402

TSMECH, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
VALUE = "x" * 5000
MODELS = ["oscillator", "pair", "chain", "kepler", "cloth", "lattice", "solid"]
SOLID_NAMES = ["-solid_bc", "c", "-solid_bc_c_where", "x=0", "-solid_load", "p", "-solid_load_p_where", "x=1", "-solid_load_p_pressure", "1"]
TS_TYPES = {"theta2": "-ts_theta_", "gauss2": "-ts_gauss2_", "discgrad2": "-ts_discgrad2_"}
SKIP = {"-help", "-traceback"}  # -help prints and exits; -traceback takes no value (PetscOptionsName)


def run(argv):
    p = subprocess.run([TSMECH, "-quiet"] + argv, cwd=WORK, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace")


def help_sections(argv):
    """{section title: [option names]} of tsmech's -help"""
    _, out = run(argv + ["-help"])
    sections, title = {}, None
    for line in out.splitlines():
        m = re.match(r"^(\S.*):$", line)
        if m:
            title = m.group(1)
            continue
        m = re.match(r"^  (-[A-Za-z0-9_]+)[ :<]", line)
        if m and title:
            sections.setdefault(title, [])
            if m.group(1) not in sections[title]:
                sections[title].append(m.group(1))
    return sections


def options():
    """[(option, the arguments its case runs with)]"""
    cases = []
    for model in MODELS:
        base = ["-model", model] + (SOLID_NAMES if model == "solid" else [])
        for title, names in help_sections(base).items():
            ours = title == "tsmech driver options" or title.endswith("model options") or title in ("Solid constraints", "Solid constraint", "Loads of the solid", "A load of the solid")
            if not ours:
                continue
            for n in names:
                if n in SKIP or n == "-model" and model != "chain":
                    continue
                if title == "tsmech driver options" and model != "chain":
                    continue
                cases.append((n, base))
    for ts, prefix in TS_TYPES.items():
        base = ["-model", "chain", "-ts_type", ts]
        for title, names in help_sections(base).items():
            for n in names:
                if n.startswith(prefix) and (n, base) not in cases:
                    cases.append((n, base))
    return cases


def check(opt, base):
    # the option last: it replaces a value the base gives (-solid_bc c, -model chain)
    argv = [a for i, a in enumerate(base) if not (a == opt or (i > 0 and base[i - 1] == opt))] + [opt, VALUE]
    status, out = run(argv)
    lines = program_lines(out)
    problems = []
    if status != 2:
        problems.append(f"exit status {status}, expected 2")
    if len(lines) != 1 or not lines[0].startswith("tsmech: error: "):
        problems.append(f"{len(lines)} lines, not one 'tsmech: error: ...'")
    elif opt not in lines[0]:
        problems.append("the message does not name the option")
    return opt, " ".join(base), problems, (lines[0] if lines else "")[:160]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cases = options()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for opt, base, problems, line in pool.map(lambda c: check(*c), cases):
            if problems:
                failed += 1
            print(f"{'ok  ' if not problems else 'FAIL'} {opt:36s} ({base}): {'; '.join(problems) if problems else line}", flush=True)
    print(f"{len(cases) - failed} of {len(cases)} options refused a value of {len(VALUE)} characters by name")
    return 1 if failed or len(cases) < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
