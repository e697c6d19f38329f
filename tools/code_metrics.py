#!/usr/bin/env python3
"""Line counts and the longest function of every C file under the given folders (default: src and
include): the numbers the architecture review asks for, reproducible by anyone.

  python3 tools/code_metrics.py [DIR ...]

A function is a top-level brace block whose opening line is preceded by a signature line ending in
')' (PETSc's style: the brace on its own line). Lengths count the lines from the signature to the
closing brace. functions() yields (name, length, first line); tools/architecture_check.py checks
it against ctags' view of the same files.
"""
import os
import re
import sys

SIG = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(")


def functions(lines):
    depth, start, name = 0, None, None
    for i, line in enumerate(lines):
        code = re.sub(r'"(\\.|[^"\\])*"', '""', line.split("//")[0])
        if depth == 0 and code.startswith("{") and i > 0:
            # the signature may span lines: walk back to its first line
            j = i - 1
            while j > 0 and not SIG.match(lines[j]) and lines[j].strip() and not lines[j].rstrip().endswith(";"):
                j -= 1
            m = SIG.match(lines[j])
            if m and lines[i - 1].rstrip().endswith(")"):
                start, name = j, m.group(1)
        depth += code.count("{") - code.count("}")
        if depth == 0 and start is not None and "}" in code:
            yield name, i - start + 1, start + 1
            start = None


def main():
    roots = sys.argv[1:] or ["src", "include"]
    files = sorted(os.path.join(d, f) for r in roots for d, _, fs in os.walk(r) for f in fs if f.endswith((".c", ".h")))
    total = 0
    print(f"{'file':42s} {'lines':>6s}  longest function")
    for path in files:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        n = len(lines) - (1 if lines and lines[-1] == "" else 0)
        total += n
        fns = list(functions(lines))
        best = max(fns, key=lambda x: x[1]) if fns else ("-", 0)
        print(f"{path:42s} {n:6d}  {best[0]} ({best[1]})" if fns else f"{path:42s} {n:6d}  -")
    print(f"{'total':42s} {total:6d}")


if __name__ == "__main__":
    main()
