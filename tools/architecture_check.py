#!/usr/bin/python3
"""The architecture targets of issue 39, measured: what the issue's closing note quotes.

  /usr/bin/python3 tools/architecture_check.py [--build build] [--report] [--no-options]

  file lengths      src/ files over 1200 lines (and the twelve longest)
  function lengths  functions over 150 lines (tools/code_metrics.py's brace parser, checked against
                    ctags' start and end lines when ctags is installed); MechCreateSolid at most 80
  dependency circles
                    strongly connected components of the graph of src files and of src folders.
                    Call edges from the object files of the build (nm): file A depends on file B
                    when A's object has an undefined symbol that B's object defines (functions and
                    data, non-static: exact, whatever the macros). Include edges (folders only):
                    a file including a private header ("ts/tsimpl2.h") depends on the header's
                    folder; include/tsmech.h, the public API, is no edge. src/mech must not depend on
                    src/ts (every edge is listed).
  declarations out of place
                    functions a private header declares that another folder defines (mechimpl.h
                    declaring src/ts functions), and MechSystem functions defined outside src/mech
                    (src/ts/stability.c): not failures, hints for the split
  material strcmp   string comparisons (strcmp, strncmp, PetscStrcmp, PetscStrcasecmp, ...) whose
                    argument is a material's name (the first string of each row of a
                    *Material*[] table, or a .name = "..." in a materials file) outside the table
  README length     at most 300 lines
  manual options    tools/manual_options.py --report's coverage line (skipped with --no-options or
                    without the built tsmech)

Exit status: 1 if a target is missed, 0 if all hold; --report prints the same and exits 0 unless
the measurement itself fails (no object files in the build, an object older than its source).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import code_metrics  # noqa: E402

MAX_FILE, MAX_FUNCTION, MAX_README = 1200, 150, 300
NAMED_FUNCTION_LIMITS = {"MechCreateSolid": 80}
STRCMP = re.compile(r"\b(strcmp|strncmp|strcasecmp|PetscStrcmp|PetscStrcasecmp|PetscStrncmp|PetscStrcmpNoError|PetscStrbeginswith|PetscStrendswith)\s*\(")


def c_files(root, top):
    out = []
    for d, _, fs in os.walk(os.path.join(root, top)):
        out += [os.path.relpath(os.path.join(d, f), root) for f in fs if f.endswith((".c", ".h"))]
    return sorted(out)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as fh:
        return fh.read()


def nlines(text):
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


# ------------------------------------------------------------------------------------------------
# lengths
# ------------------------------------------------------------------------------------------------


def function_lengths(root, files):
    """{(file, start line): (name, length)} by code_metrics' parser, and the disagreements with ctags."""
    ours = {}
    for rel in files:
        for name, length, start in code_metrics.functions(read(root, rel).split("\n")):
            ours[(rel, start)] = (name, length)
    ctags = shutil.which("ctags")
    if not ctags:
        return ours, None
    p = subprocess.run([ctags, "--languages=C", "--language-force=C", "--c-kinds=f", "--fields=+ne", "-o", "-"] + files, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    theirs = {}
    for line in p.stdout.split("\n"):
        parts = line.split("\t")
        if len(parts) < 4:
            continue
        f = dict(x.split(":", 1) for x in parts[3:] if ":" in x)
        if "line" in f and "end" in f:
            theirs[(parts[1], int(f["line"]))] = (parts[0], int(f["end"]) - int(f["line"]) + 1)
    # ctags' line is the name's line; the parser's is the signature's first line (same in PETSc style)
    disagree = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    return ours, disagree


# ------------------------------------------------------------------------------------------------
# the dependency graph
# ------------------------------------------------------------------------------------------------


def objects(root, build, sources):
    """{source file: object file} for the src .c files built in build/."""
    want = {s.replace("/", "_") + ".o": s for s in sources if s.endswith(".c")}
    found = {}
    for d, _, fs in os.walk(build):
        for f in fs:
            if f in want:
                found[want[f]] = os.path.join(d, f)
    return found


def symbols(obj):
    """(defined global symbols, undefined symbols, the defined functions) of an object file, by nm."""
    p = subprocess.run(["nm", "-P", obj], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit(f"architecture_check: nm {obj}: {p.stderr.strip()}")
    defined, undefined, functions = set(), set(), set()
    for line in p.stdout.split("\n"):
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper() or kind in "vw":
            defined.add(name)
            if kind in "TWtw":
                functions.add(name)
    return defined, undefined, functions


def folder(rel):
    return os.path.dirname(rel)


def include_edges(root, files):
    """[(file, private header)] of the quoted #includes that resolve to a file under src/."""
    edges = []
    for rel in files:
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', read(root, rel), re.M):
            for base in (folder(rel), "src"):
                cand = os.path.normpath(os.path.join(base, inc))
                if os.path.isfile(os.path.join(root, cand)):
                    if cand.startswith("src/"):
                        edges.append((rel, cand))
                    break
    return edges


def sccs(nodes, edges):
    """Strongly connected components (Tarjan) with more than one node, largest first."""
    adj = {n: sorted({b for a, b in edges if a == n and b != n}) for n in nodes}
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def material_names(root, files):
    names = set()
    for rel in files:
        text = read(root, rel)
        for m in re.finditer(r"\b\w*Material\w*\s*\[\s*\]\s*=\s*\{(.*?)\n\}\s*;", text, re.S):
            names.update(re.findall(r'^\s*\{\s*"([^"]+)"', m.group(1), re.M))
        if "material" in os.path.basename(rel).lower() or "/materials/" in rel:
            names.update(re.findall(r'\.name\s*=\s*"([^"]+)"', text))
    return names


def material_strcmps(root, files, names):
    hits = []
    lits = {f'"{n}"' for n in names}
    for rel in files:
        for i, line in enumerate(read(root, rel).split("\n"), 1):
            for m in STRCMP.finditer(line):
                # the call's arguments: up to the matching parenthesis
                depth, j = 1, m.end()
                while j < len(line) and depth:
                    depth += {"(": 1, ")": -1}.get(line[j], 0)
                    j += 1
                args = line[m.end():j - 1]
                hits += [(rel, i, line.strip())] if any(lit in args for lit in lits) else []
    return hits


# ------------------------------------------------------------------------------------------------


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=root)
    ap.add_argument("--build", default=None, help="the meson build folder with the object files (default ROOT/build)")
    ap.add_argument("--report", action="store_true", help="print the numbers; exit 0 unless the measurement fails")
    ap.add_argument("--no-options", action="store_true", help="skip tools/manual_options.py")
    args = ap.parse_args()
    root = args.root
    build = args.build or os.path.join(root, "build")
    src = c_files(root, "src")
    missed = []

    # file lengths
    lengths = {f: nlines(read(root, f)) for f in src}
    over = sorted(((n, f) for f, n in lengths.items() if n > MAX_FILE), reverse=True)
    print(f"== file lengths: {len(src)} files in src/, {sum(lengths.values())} lines; {len(over)} over {MAX_FILE} lines")
    for n, f in over:
        print(f"  {n:6d}  {f}")
    big = sorted(((n, f) for f, n in lengths.items() if 900 <= n <= MAX_FILE), reverse=True)
    if big:
        print(f"  between 900 and {MAX_FILE}: " + ", ".join(f"{f} {n}" for n, f in big))
    if over:
        missed.append(f"{len(over)} files over {MAX_FILE} lines")

    # function lengths
    fns, disagree = function_lengths(root, src)
    long = sorted(((ln, f, s, name) for (f, s), (name, ln) in fns.items() if ln > MAX_FUNCTION), reverse=True)
    check = "ctags not installed: not cross-checked" if disagree is None else ("ctags finds the same functions and lengths" if not disagree else f"ctags disagrees on {len(disagree)}")
    print(f"== function lengths: {len(fns)} functions ({check}); {len(long)} over {MAX_FUNCTION} lines")
    for ln, f, s, name in long:
        print(f"  {ln:6d}  {name} ({f}:{s})")
    for k in (disagree or [])[:20]:
        print(f"  ctags and the parser differ at {k[0]}:{k[1]}")
    if long:
        missed.append(f"{len(long)} functions over {MAX_FUNCTION} lines")
    for name, limit in NAMED_FUNCTION_LIMITS.items():
        got = [ln for (f, s), (n, ln) in fns.items() if n == name]
        if got:
            print(f"  {name}: {max(got)} lines (target at most {limit})")
            if max(got) > limit:
                missed.append(f"{name} {max(got)} lines > {limit}")
    if main_len := [(ln, f) for (f, s), (n, ln) in fns.items() if n == "main" and f.startswith("src/driver")]:
        print("  the driver's main: " + ", ".join(f"{ln} lines ({f})" for ln, f in main_len))

    # the dependency graph
    objs = objects(root, build, src)
    csrc = [f for f in src if f.endswith(".c")]
    if not objs:
        raise SystemExit(f"architecture_check: no object files of src/ under {build}: build first (meson compile -C {os.path.relpath(build)})")
    stale = [f for f in objs if os.path.getmtime(os.path.join(root, f)) > os.path.getmtime(objs[f])]
    if stale:
        raise SystemExit(f"architecture_check: objects older than their sources (rebuild first: meson compile -C {os.path.relpath(build)}): {', '.join(stale)}")
    unbuilt = sorted(set(csrc) - set(objs))
    syms = {f: symbols(o) for f, o in objs.items()}
    definer = {}
    for f, (d, _, _) in syms.items():
        for s in d:
            definer.setdefault(s, f)
    calls = {}
    for f, (_, u, _) in syms.items():
        for s in u:
            g = definer.get(s)
            if g and g != f:
                calls.setdefault((f, g), []).append(s)
    file_edges = set(calls)
    incs = include_edges(root, src)
    print(f"== dependency graph: {len(objs)} objects (nm), {len(file_edges)} call edges between files, {len(incs)} includes of private headers"
          + (f"; not built, left out: {', '.join(unbuilt)}" if unbuilt else ""))
    # headers are nodes too (a circle of private headers including each other would show)
    comps = sccs(set(objs) | {h for _, h in incs}, file_edges | set(incs))
    print(f"  circles among src files: {len(comps)}" + (" (sizes " + ", ".join(str(len(c)) for c in comps) + ")" if comps else ""))
    for c in comps:
        print(f"  - {len(c)} files: {', '.join(c)}")
        for (a, b), ss in sorted(calls.items()):
            if a in c and b in c:
                print(f"      {a} -> {b}: {', '.join(sorted(ss)[:4])}{' ...' if len(ss) > 4 else ''}")
    # the same counting function calls only (the log events and class ids, data, left out)
    fcalls = {(a, b) for (a, b), ss in calls.items() if any(x in syms[b][2] for x in ss)}
    print("  counting function calls only (no data symbols): sizes " + (", ".join(str(len(c)) for c in sccs(set(objs), fcalls)) or "none"))
    if comps:
        missed.append(f"{len(comps)} circles among src files")
    fedges = {(folder(a), folder(b)) for a, b in file_edges} | {(folder(a), folder(h)) for a, h in incs}
    fedges = {(a, b) for a, b in fedges if a != b}
    fcomps = sccs({folder(f) for f in src}, fedges)
    print(f"  circles among src folders: {len(fcomps)}" + "".join(f"\n  - {' <-> '.join(c)}" for c in fcomps))
    if fcomps:
        missed.append(f"{len(fcomps)} circles among src folders")
    leak = sorted((a, b, ", ".join(sorted(ss))) for (a, b), ss in calls.items() if folder(a) == "src/mech" and folder(b) == "src/ts")
    leak += sorted((a, h, "#include") for a, h in incs if folder(a) == "src/mech" and folder(h) == "src/ts")
    print(f"  src/mech -> src/ts: {len(leak)} edges" + "".join(f"\n    {a} -> {b}: {w}" for a, b, w in leak))
    if leak:
        missed.append(f"src/mech depends on src/ts ({len(leak)} edges)")
    # functions a private header declares and another folder defines
    misplaced = []
    for h in (f for f in src if f.endswith(".h")):
        for name in sorted(set(re.findall(r"^\s*(?:PETSC_EXTERN|PETSC_INTERN|extern)?\s*(?:const\s+)?\w[\w\s\*]*?\b(\w+)\s*\(", read(root, h), re.M))):
            g = definer.get(name)
            if g and folder(g) != folder(h):
                misplaced.append((h, name, g))
    print(f"  declarations out of place (a private header declaring another folder's functions): {len(misplaced)}")
    for h, name, g in misplaced:
        print(f"    {h}: {name} (defined in {g})")
    named = sorted((f, x) for f, (_, _, fn) in syms.items() for x in fn if x.startswith("MechSystem") and folder(f) != "src/mech")
    print(f"  MechSystem functions defined outside src/mech: {len(named)}" + "".join(f"\n    {x} ({f})" for f, x in named))

    # strcmp on material names
    names = material_names(root, src)
    hits = material_strcmps(root, src, names)
    print(f"== material names ({', '.join(sorted(names)) or 'no material table found'}): {len(hits)} string comparisons on them outside the table")
    for rel, i, line in sorted(set(hits)):
        k = hits.count((rel, i, line))
        print(f"  {rel}:{i}{f' ({k} calls)' if k > 1 else ''}: {line[:150]}")
    if hits:
        missed.append(f"{len(hits)} strcmp on material names")
    if not names:
        missed.append("no material table found")

    # README
    readme = os.path.join(root, "README.md")
    n = nlines(read(root, "README.md")) if os.path.exists(readme) else 0
    print(f"== README.md: {n} lines (target at most {MAX_README})")
    if n > MAX_README:
        missed.append(f"README {n} lines > {MAX_README}")

    # the manual's option check
    tsmech = os.path.join(build, "tsmech")
    if not args.no_options and os.path.exists(tsmech):
        p = subprocess.run([sys.executable, os.path.join(root, "tools", "manual_options.py"), "--tsmech", tsmech, "--root", root, "--report"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        cov = [line for line in p.stdout.split("\n") if line.startswith("coverage:")]
        print("== manual options (tools/manual_options.py): " + (cov[0][len("coverage: "):] if cov else f"failed:\n{p.stdout[-1500:]}"))
        if not cov or re.search(r"undocumented [1-9]|duplicated [1-9]|unknown [1-9]|page [1-9]", cov[0]):
            missed.append("manual option check")

    print(f"\n{'targets missed: ' + '; '.join(missed) if missed else 'all targets hold'}")
    return 1 if missed and not args.report else 0


if __name__ == "__main__":
    sys.exit(main())
