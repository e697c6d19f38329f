"""What a tsmech run printed, without the MPI launcher's own noise (shared by the Python tests).

OpenMPI 4.1's event library may warn while mpiexec tears down under load ("[warn] Epoll MOD(1) on
fd 23 failed. Old events were 6; ...: Bad file descriptor"). The line comes from the launcher after
the ranks have exited, not from tsmech, so the tests that count a refused run's lines skip it.
"""
import re

LAUNCHER_NOISE = re.compile(r"^\[warn\] Epoll ")


def program_lines(text):
    """the non-blank lines of text that the program printed (bytes or str)"""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return [l for l in text.splitlines() if l.strip() and not LAUNCHER_NOISE.match(l)]
