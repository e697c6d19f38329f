"""What the benchmarks of issue 38 share (globalization.py, thin_solvers.py, csm1.py, cook_static.py):
a tsmech run with its CPU time (the machine may be shared: not wall time), an optional CPU-time limit,
and the numbers of its summary line."""
import os
import re
import resource
import subprocess


def run(tsmech, args, cpu=None):
    """(exit status, output, CPU seconds of the child) of tsmech with args (a string); with cpu, the child
    is ended at that many CPU seconds (status -1)"""

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([tsmech] + args.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=limit if cpu else None,
                           timeout=50 * cpu if cpu else None)
        status, out = p.returncode, p.stdout.decode(errors="replace")
        if status < 0:
            status = -1
    except subprocess.TimeoutExpired as e:
        status, out = -1, (e.stdout or b"").decode(errors="replace")
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return status, out, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def summary(out):
    """(steps, rejected, Newton, KSP) of the summary line, or None"""
    m = re.search(r"tsmech: \S+, (\d+) steps \((\d+) rejected\) to t = \S+, (\d+) Newton / (\d+) KSP", out)
    return tuple(int(x) for x in m.groups()) if m else None


def equilibrium(out):
    """the residual of equilibrium against the load of -report_equilibrium, or None"""
    m = re.search(r", ([0-9.e+-]+) of the load", out)
    return float(m.group(1)) if m else None


def failure(out):
    """the one line of a failed run, shortened"""
    m = re.search(r"failed: (.*)", out)
    if m:
        return re.sub(r"\(dt = [^)]*\) ", "", m.group(1))
    lines = out.strip().splitlines()
    return lines[-1] if lines else "?"


def mesh(root, script, args, name):
    """writes a mesh with one of tests/solid's scripts unless it exists"""
    if not os.path.exists(name):
        subprocess.run(["/usr/bin/python3", os.path.join(root, "tests/solid", script)] + [str(x) for x in args], check=True)
