#!/usr/bin/python3
"""Checks tsmech's options against its manual blocks (issue 39: "every option -help prints appears
on exactly one manual page and every page's option exists").

  /usr/bin/python3 tools/manual_options.py [--tsmech build/tsmech] [--report] [--verbose]

It runs `tsmech -help` with every model (-model NAME) and every TS type (-ts_type NAME), the names
taken from a first plain -help (the -model choices and the "TS types (-ts_type)" list), model i with
TS type i in one run (apart if -help refuses the pair), plus the runs of RUNS below that make
per-name options appear. PETSc's -help prints one block per options block:
a line of dashes, the block's title ("tsmech driver options:", "Solid model options:"), then
"  -name <default>: help (manual page)" lines, with sub-headers indented by two spaces inside a
block ("  Theta2 (...) options" inside PETSc's TS block). An option is tsmech's when its nearest
header is the title of one of tsmech's own options blocks: the string literals of every
PetscOptionsBegin(comm, prefix, "title", ...) and PetscOptionsHeadBegin(obj, "title") in src/ (so a
new block is found without a word here). PETSc's blocks (TS, SNES, KSP, PC, ...) are ignored.

The manual's options are the items of the "Options Database Keys" of every manual block, read by
tools/manual.py (whose docstring gives the conventions; a per-name option is written with its
placeholder in angle brackets, -solid_bc_<name>_where).

Findings (each printed as a full list):
  undocumented  a tsmech option that no block lists
  duplicated    a tsmech option that two or more blocks list
  unknown       an option a block lists that no -help run prints (PETSc's own options count; a
                PETSc solver option under a prefix of tsmech's, -mass_ksp_type or -mass_ksp_*,
                counts when -help prints the unprefixed -ksp_type: the prefix is one src/ gives a
                solver, "mass_" in KSPAppendOptionsPrefix(ksp, "mass_"), or that of a family of
                tsmech options, ts_theta_ne_ of -ts_theta_ne_depth)
  no page       a model or TS type -help names without its page (models/NAME.md, ts/NAME.md)

--skeleton also prints the undocumented options as doctext items (from the -help lines, per-name
options with <name>), ready to paste into the blocks and edit.

Options blocks titled per name (PetscSNPrintf(title, ..., "The load %s of the solid") before
PetscOptionsBegin(comm, NULL, title, ...)) count as tsmech's through their format. An option PETSc
prints inside a sub-block of tsmech's (-ts_save_trajectory after the TSAdapt head "Automatic
incrementation") is PETSc's when its manual field names no function of tsmech's sources. One object's
options under the several prefixes tsmech gives it count as one: -solid_damping_eps_type printed (the
damping's modal analysis runs under -help) makes -modes_eps_* and -stability_eps_* exist (the same
MechModes under the prefixes modes_ and stability_, which -help never runs).

Exit status: strict (the default) 1 on any finding; --report prints the same lists and the
coverage numbers and fails only when the check itself cannot work (a -help run fails, or finds no
option of tsmech's). The test manual_options (suite docs) runs it strict. There is no allowlist:
every undocumented option is printed every time.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manual  # noqa: E402

# Runs that make options appear that only exist for a configuration: per-name options (a
# constraint's or a load's options are read once its name is given). A block that lists such an
# option family (-solid_bc_<name>_where) needs a run here that creates one member, or the option is
# reported unknown. PER_NAME: the names these runs give (--skeleton writes them as <name>).
PER_NAME = ["held", "pull", "mid", "insert"]
RUNS = [
    ["-model", "solid", "-solid_bc", "held", "-solid_bc_held_where", "x=0", "-solid_load", "pull", "-solid_load_pull_where", "x=1", "-solid_load_pull_traction", "0,0,-1"],
    # a probe and a material region (their per-name options), the p-multigrid of quadratic elements
    ["-model", "solid", "-probe", "mid", "-probe_mid_point", "0.5,0.05,0.05", "-solid_region", "insert", "-solid_region_insert_where", "x>0.5",
     "-solid_order", "2", "-pc_type", "mg"],
    # Rayleigh damping from modal ratios: its modal analysis runs in the set-up, so -help prints the
    # options of the eigensolver (MechModes, under the prefix solid_damping_)
    ["-model", "solid", "-solid_damping_ratio", "0.02", "-solid_damping_modes", "1,2"],
]
DASHES = re.compile(r"^-{20,}\s*$")
OPTLINE = re.compile(r"^\s+(-[A-Za-z][A-Za-z0-9_]*)")
MANFIELD = re.compile(r"\((\w+)\)\s*$")


def run_help(tsmech, args, alone=False):
    """The output of tsmech -help ARGS; an error ends the check (alone: None instead, to retry apart)."""
    cmd = [tsmech, "-help"] + args
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    if p.returncode != 0 and alone:
        return None
    if p.returncode != 0:
        raise SystemExit(f"manual_options: {' '.join(cmd)} failed with exit status {p.returncode}:\n{p.stdout[-2000:]}")
    return p.stdout


def parse_help(text):
    """[(block title, sub-header or None, option, manual page named by -help or "", the line)] of one -help output."""
    out, title, sub, after_dashes = [], None, None, False
    for line in text.split("\n"):
        if DASHES.match(line):
            after_dashes, title, sub = True, None, None
            continue
        if after_dashes:
            title, after_dashes = line.strip().rstrip(":"), False
            continue
        m = OPTLINE.match(line)
        if m and title is not None:
            man = MANFIELD.search(line)
            out.append((title, sub, m.group(1), man.group(1) if man else "", line))
        elif re.match(r"^  [^\s\-]", line) and title is not None:
            sub = line.strip()
    return out


def doctext_item(opt, line):
    """A doctext item "-opt <default> - help" from a -help line, the per-name runs' names as <name>."""
    rest = line.strip()[len(opt):]
    m = re.match(r"^:?\s*<([^<>]*)>:?\s*(.*)$", rest)
    default, text = (m.group(1), m.group(2)) if m else ("", rest.lstrip(": "))
    default = re.sub(r"^now (.*?) : formerly\b.*$", r"\1", default.strip())
    default = re.sub(r"^(.*?) : .*$", r"\1", default).strip()
    text = re.sub(r"\s*\(\w*\)\s*$", "", text).strip()
    for name in PER_NAME:
        opt = opt.replace(f"_{name}_", "_<name>_")
    if default in ("FALSE", "TRUE"):
        default = default.lower()
    return f"{opt}{' <' + default + '>' if default else ''} - {text}"


def title_pattern(fmt):
    """The regex of a title printed from a format ("The load %s of the solid"): each conversion any text."""
    parts = re.split(r"%[-+ #0-9.]*[a-zA-Z]+", fmt.replace('\\"', '"'))
    return re.compile(".+".join(re.escape(p) for p in parts) + "$")


def tsmech_titles(root):
    """The titles of tsmech's own options blocks, from the sources: literal titles, and the patterns
    of titles made per name (a title variable filled by PetscSNPrintf(title, ..., "The load %s ...")
    in the same file), returned as compiled regexes."""
    titles, dynamic = set(), []
    for rel in manual.source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            # comments out (a manual block may name PetscOptionsBegin()), lines kept
            text = re.sub(r"/\*.*?\*/", lambda c: "\n" * c.group(0).count("\n"), fh.read(), flags=re.S)
        for m in re.finditer(r"\bPetscOptions(Begin|HeadBegin)\s*\(([^;]*?)\)\s*;", text):
            args = m.group(2)
            argv = [a.strip() for a in args.split(",")]
            # PetscOptionsBegin(comm, prefix, title, mansec); PetscOptionsHeadBegin(obj, title)
            title = argv[2] if m.group(1) == "Begin" and len(argv) >= 3 else argv[1] if len(argv) >= 2 else ""
            lit = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', title)
            if lit:
                titles.add(lit.group(1).replace('\\"', '"'))
                continue
            fmts = re.findall(r"\bPetscSNPrintf\s*\(\s*" + re.escape(title) + r'\s*,[^;]*?"((?:[^"\\]|\\.)*)"', text) if re.fullmatch(r"\w+", title) else []
            if fmts:
                titles.update(title_pattern(f) for f in fmts)
            elif m.group(1) == "Begin" or "PetscOptionsObject" in args:
                dynamic.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}")
        # a block titled by its object's class: not recognised either
        dynamic += [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}" for m in re.finditer(r"\bPetscObjectOptionsBegin\s*\(", text)]
    return titles, dynamic


def solver_prefixes(root):
    """The options prefixes tsmech gives solvers of its own (mass_, gauss2_, solid_damping_, ...): the
    literal of a *SetOptionsPrefix()/*AppendOptionsPrefix() call, or an object's default prefix
    (PetscStrallocpy("modes_", &m->prefix))."""
    pre = set()
    for rel in manual.source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            text = fh.read()
        pre.update(re.findall(r'(?:Set|Append)OptionsPrefix\([^;]*?"(\w+_)"', text))
        pre.update(re.findall(r'PetscStrallocpy\(\s*"(\w+_)"\s*,\s*&\s*\w+->prefix\s*\)', text))
    return pre


def source_names(root):
    """Every identifier in tsmech's sources (to tell a -help line's manual field of tsmech's from PETSc's)."""
    names = set()
    for rel in manual.source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            names.update(re.findall(r"\b[A-Za-z_]\w*\b", fh.read()))
    return names


def pattern(option):
    """The regex of a documented option: a <placeholder> stands for a name, a trailing * for any rest."""
    star = option.endswith("*")
    parts = re.split(r"<[A-Za-z0-9_]+>", option.rstrip("*"))
    body = "".join(re.escape(p) + ("[A-Za-z0-9_]+" if i < len(parts) - 1 else "") for i, p in enumerate(parts))
    return re.compile(body + ("[A-Za-z0-9_]*" if star else "") + "$")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tsmech", default=os.path.join(root, "build", "tsmech"), help="the tsmech program (default build/tsmech)")
    ap.add_argument("--root", default=root, help="the repository")
    ap.add_argument("--report", action="store_true", help="print the findings, fail only if the check cannot run")
    ap.add_argument("--verbose", action="store_true", help="also list every tsmech option with its page")
    ap.add_argument("--skeleton", action="store_true", help="also print the undocumented options as doctext items to paste into blocks")
    args = ap.parse_args()

    base = run_help(args.tsmech, [])
    models = re.search(r"^\s+-model <[^>]*>:.*?\(one of\)\s*(.*?)\s*\(\w+\)\s*$", base, re.M)
    types = re.search(r"^TS types \(-ts_type\):.*\n((?:  \S+: .*\n)+)", base, re.M)
    if not models or not types:
        raise SystemExit("manual_options: tsmech -help lists no models (-model ... (one of) ...) or no TS types (\"TS types (-ts_type):\")")
    models = models.group(1).split()
    types = [line.split(":")[0].strip() for line in types.group(1).strip("\n").split("\n")]
    # every model and every TS type once: model i with TS type i (a pair -help refuses is run apart,
    # the type with the built-in solid, which every type runs: the quasi-static one refuses a body
    # not held, as the default model is)
    n = max(len(models), len(types))
    pairs = [["-model", models[i % len(models)], "-ts_type", types[i % len(types)]] for i in range(n)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(pool.map(lambda a: run_help(args.tsmech, a, alone=True), pairs + RUNS))
        for k in [i for i, o in enumerate(outputs[:n]) if o is None]:
            outputs[k] = "".join(pool.map(lambda a: run_help(args.tsmech, a), [pairs[k][:2], ["-model", "solid", "-ts_type", pairs[k][3]]]))
        for k in range(n, len(outputs)):
            if outputs[k] is None:
                run_help(args.tsmech, (pairs + RUNS)[k])
    runs = pairs + RUNS

    titles, dynamic = tsmech_titles(args.root)
    names = source_names(args.root)

    def is_ours(head):
        return any(head == t if isinstance(t, str) else t.match(head) for t in titles)

    ours, every = {}, set()  # tsmech's options -> (title, man); every option any run prints
    for text in [base] + outputs:
        for title, sub, opt, man, line in parse_help(text):
            every.add(opt)
            head = sub if sub is not None else title
            # PETSc prints options of its own after a sub-block of tsmech's inside its block
            # (-ts_save_trajectory after TSAdapt's "Automatic incrementation" head): a manual field
            # naming a function tsmech does not have is PETSc's
            if sub is not None and man and man != "None" and man not in names:
                continue
            if is_ours(head) or (sub is None and is_ours(title)):
                ours.setdefault(opt, (head, man, line))
    if not ours:
        raise SystemExit(f"manual_options: no option of tsmech's own blocks found in {len(runs) + 1} -help runs (titles from the sources: {sorted(t if isinstance(t, str) else t.pattern for t in titles)})")

    blocks, _ = manual.build(args.root)
    listed = []  # (option as written, block)
    for b in blocks:
        for o, _ in b.options():
            listed.append((o, b))
    pats = [(o, pattern(o), b) for o, b in listed]
    prefixes = solver_prefixes(args.root)
    petsc = every - set(ours)

    home = {opt: [b for o, p, b in pats if p.match(opt)] for opt in ours}
    undocumented = sorted(o for o, bl in home.items() if not bl)
    duplicated = sorted(o for o, bl in home.items() if len({id(b) for b in bl}) > 1)

    # a PETSc solver's options under a prefix of tsmech's: a literal prefix src/ gives a solver, or the
    # name of a tsmech option family (-ts_theta_ne_depth: ts_theta_ne_, whose solver is -ts_theta_ne_ksp_type)
    prefixes |= {o[1:].rsplit("_", 1)[0] + "_" for o in ours if "_" in o[1:]}

    # one object's options under each of the prefixes tsmech gives it: -solid_damping_eps_type printed
    # (the modal analysis of the damping runs under -help) shows -modes_eps_type and -stability_eps_type
    # (the same eigensolver, under the driver's and the stability estimate's prefixes, never run by -help)
    solvers = solver_prefixes(args.root)
    rests = {"-" + x[1 + len(pre):] for x in every for pre in solvers if x.startswith("-" + pre) and len(x) > len(pre) + 1}

    def exists(o):
        p = pattern(o)
        if any(p.match(x) for x in every):
            return True
        for pre in prefixes:
            if o.startswith("-" + pre) and len(o) > len(pre) + 1:
                q = pattern("-" + o[1 + len(pre):])
                if any(q.match(x) for x in petsc) or (pre in solvers and any(q.match(x) for x in rests)):
                    return True
        return False

    unknown = [(o, b) for o, b in listed if not exists(o)]
    pages = {b.page for b in blocks}
    nopage = [f"model {m} (models/{m}.md)" for m in models if f"models/{m}.md" not in pages]
    nopage += [f"TS type {t} (ts/{t}.md)" for t in types if f"ts/{t}.md" not in pages]

    by_name = {b.name: b for b in blocks}
    print(f"tsmech -help: {len(runs) + 1} runs ({len(models)} models, {len(types)} TS types, {len(RUNS)} per-name run{'s' if len(RUNS) > 1 else ''}); "
          f"{len(every)} options in all, {len(ours)} of tsmech's own blocks ({len(titles)} block titles in src/)")
    print(f"manual blocks: {len(blocks)}, {len({b.name for o, b in listed})} of them with Options Database Keys listing {len(listed)} options")
    documented = len(ours) - len(undocumented)
    print(f"coverage: {documented} of {len(ours)} tsmech options on a manual page ({100.0 * documented / len(ours):.0f} %); "
          f"undocumented {len(undocumented)}, duplicated {len(duplicated)}, unknown {len(unknown)}, models/TS types without a page {len(nopage)}")
    if dynamic:
        print(f"note: options blocks whose title is not a string literal (their options are not recognised): {', '.join(dynamic)}")

    if undocumented:
        print(f"\nundocumented: {len(undocumented)} options that -help prints and no manual block lists (block title; the page named by -help's manual field)")
        groups = {}
        for o in undocumented:
            groups.setdefault(ours[o][0], []).append(o)
        for title, opts in sorted(groups.items()):
            print(f"  [{title}]")
            for o in opts:
                man = ours[o][1]
                target = by_name[man].page if man in by_name else ""
                print(f"    {o:44s} {man or '-'}{' -> ' + target if target else ''}")
    if undocumented and args.skeleton:
        print("\nskeleton: Options Database Keys items from the -help lines (defaults and help as -help prints them; edit before use)")
        for title, opts in sorted(groups.items()):
            items = sorted({doctext_item(o, ours[o][2]) for o in opts})
            print(f"  [{title}]")
            for i, item in enumerate(items):
                print(f"{'+' if i == 0 else '-' if i == len(items) - 1 else '.'} {item}" if len(items) > 1 else f". {item}")
    if duplicated:
        print(f"\nduplicated: {len(duplicated)} options listed by more than one block")
        for o in duplicated:
            print(f"  {o:44s} " + ", ".join(f"{b.name} ({b.page})" for b in home[o]))
    if unknown:
        print(f"\nunknown: {len(unknown)} options a block lists that no -help run prints")
        for o, b in unknown:
            print(f"  {o:44s} {b.name} ({b.path})")
    if nopage:
        print(f"\nno page: {', '.join(nopage)}")
    if args.verbose:
        print("\nevery tsmech option and its page:")
        for o in sorted(ours):
            print(f"  {o:44s} {', '.join(b.page for b in home[o]) or '-'}")
    problems = len(undocumented) + len(duplicated) + len(unknown) + len(nopage)
    if problems and not args.report:
        print(f"\nFAIL: {problems} findings (strict mode)")
        return 1
    print("\nreport mode: findings listed, not failed" if problems else "\nOK: every tsmech option is on exactly one manual page and every listed option exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
