#!/usr/bin/python3
"""The conventions of tools/manual.py and tools/manual_options.py on a small made-up repository:
which block becomes which page, the option items (defaults, several options, <name>
placeholders, a trailing *), .seealso links, the stale-page check, and the option check's verdicts
against a stand-in tsmech whose -help is known (documented, undocumented, duplicated, unknown,
a failing -help).

  /usr/bin/python3 tests/docs/test_manual_tools.py      (standard library only)
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools")
sys.path.insert(0, TOOLS)
import manual  # noqa: E402
import manual_options  # noqa: E402

FILES = {
    "include/tsmech.h": """
        /* ------------------------------------------------------------------------------------------ */
        /* Things                                                                                     */
        /* ------------------------------------------------------------------------------------------ */
        #define TSFOO2 "foo2"
        PETSC_EXTERN PetscErrorCode FooSetBar(TS, PetscReal);
        PETSC_EXTERN PetscErrorCode MechCreateWidget(MPI_Comm, MechSystem *);
        """,
    "src/ts/foo2.c": """
        /*MC
          TSFOO2 - "foo2": a scheme for M q'' + f = 0 (docs/schemes.md §1).

          Options Database Keys:
        + -ts_type foo2 - selects it
        . -ts_foo2_bar <0.5> - the bar, as `FooSetBar()` sets it
        - -foo2_ksp_* - its linear solver

          Level: beginner

        .seealso: `FooSetBar()`, `MechCreateWidget()`, `TSSetType()`
        M*/
        static PetscErrorCode TSSetFromOptions_Foo2(TS ts, PetscOptionItems *PetscOptionsObject)
        {
          PetscOptionsHeadBegin(PetscOptionsObject, "Foo2 options");
          PetscOptionsHeadEnd();
          PetscCall(KSPAppendOptionsPrefix(ksp, "foo2_"));
          return 0;
        }

        /*@
          FooSetBar - Sets the bar
          of `TSFOO2`.

          Logically Collective

          Input Parameters:
        + ts  - the TS
        - bar - the bar, with a description that goes on
                on the next line

          Level: intermediate

          Notes:
          Uses -ts_foo2_bar's value; 2 * x < y.
        .vb
          bar = 1
        .ve

        .seealso: `TSFOO2`
        @*/
        PetscErrorCode FooSetBar(TS ts, PetscReal bar)
        {
          return 0;
        }
        """,
    "src/models/models.c": """
        PetscErrorCode MechModelRegisterAll(void)
        {
          PetscCall(PetscFunctionListAdd(&MechModelList, "widget", MechCreateWidget));
          return 0;
        }
        """,
    "src/models/widget.c": """
        /*@
          MechCreateWidget - Creates the widget model.

          Collective

          Options Database Keys:
        + -widget_n <3>                  - its size
        . -widget_a <1>, -widget_b <2>   - two lengths
        - -widget_part_<name>_size <1>   - the size of each part named by -widget_parts

          Level: beginner
        @*/
        PetscErrorCode MechCreateWidget(MPI_Comm comm, MechSystem *sys)
        {
          PetscOptionsBegin(comm, NULL, "Widget model options", "MechSystem");
          PetscOptionsEnd();
          return 0;
        }
        """,
    "src/driver/main.c": """
        /*MC
          TSMechDriverOptions - The options of the tsmech program.

          Options Database Keys:
        + -model <widget> - the model
        - -output <file>  - the HDF5 output

          Level: beginner
        M*/
        int main(void)
        {
          PetscOptionsBegin(comm, NULL, "tsmech driver options", "tsmech");
          PetscOptionsEnd();
          /* a comment naming PetscOptionsBegin(comm, NULL, "not a title", NULL); */
          return 0;
        }
        """,
    "src/io/layout.c": """
        /*MC
          MechOutputFormat - The layout of the HDF5 output: /monitor, /fields.

          Level: beginner
        M*/
        """,
}

HELP = """tsmech: a stand-in
----------------------------------------
TS types (-ts_type): foo2, alpha2, or PETSc's first-order types
  foo2: a scheme
----------------------------------------
tsmech driver options:
  -model <now widget : formerly widget>: Model to integrate (one of) widget (MechCreateModel)
  -output <now  : formerly >: HDF5 output file (MechOutputCreate)
----------------------------------------
Widget model options:
  -widget_n <now 3 : formerly 3>: size (MechCreateWidget)
  -widget_a <1. : 1.>: a (MechCreateWidget)
  -widget_b <2. : 2.>: b (MechCreateWidget)
  -widget_part_top_size <1. : 1.>: size (MechCreateWidget)
----------------------------------------
Time stepping (TS) options:
  -ts_type <now foo2 : formerly foo2>: TS method (one of) euler foo2 (TSSetType)
  Foo2 options
  -ts_foo2_bar <0.5 : 0.5>: the bar (FooSetBar)
  TS Adaptivity options
  -ts_adapt_type <now none : formerly none>: Algorithm (one of) none basic (TSAdaptSetType)
----------------------------------------
Krylov Method (KSP) options:
  -ksp_type <now gmres : formerly gmres>: Krylov method (one of) cg gmres (KSPSetType)
"""


def edit(path, old, new):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, old
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new))


def make_repo(root, files=FILES):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text).lstrip("\n"))


def fake_tsmech(root, help_text, status=0):
    """An executable printing help_text for -help, with the given exit status."""
    path = os.path.join(root, "fake_tsmech")
    with open(os.path.join(root, "help.txt"), "w", encoding="utf-8") as fh:
        fh.write(help_text)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"#!/bin/sh\ncat '{os.path.join(root, 'help.txt')}'\nexit {status}\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class MadeUpRepository(unittest.TestCase):
    """A fresh copy of FILES in a temporary folder for every test."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="manual_tools_")
        make_repo(self.root)

    def tearDown(self):
        shutil.rmtree(self.root)


class Generator(MadeUpRepository):
    def test_pages_by_kind(self):
        blocks, pages = manual.build(self.root)
        kinds = {b.name: (b.pagekind, b.page, b.anchor) for b in blocks}
        self.assertEqual(kinds["TSFOO2"], ("ts", "ts/foo2.md", ""))
        self.assertEqual(kinds["MechCreateWidget"], ("model", "models/widget.md", ""))
        self.assertEqual(kinds["TSMechDriverOptions"], ("options", "options/TSMechDriverOptions.md", ""))
        self.assertEqual(kinds["MechOutputFormat"], ("format", "formats/MechOutputFormat.md", ""))
        self.assertEqual(kinds["FooSetBar"], ("api", "api/things.md", "foosetbar"))
        self.assertEqual(set(pages), {"README.md", "option-index.md", "ts/foo2.md", "models/widget.md", "options/TSMechDriverOptions.md",
                                      "formats/MechOutputFormat.md", "api/things.md"})

    def test_option_items(self):
        blocks = {b.name: b for b in manual.build(self.root)[0]}
        self.assertEqual([o for o, _ in blocks["TSFOO2"].options()], ["-ts_type", "-ts_foo2_bar", "-foo2_ksp_*"])
        self.assertEqual([it.values for _, it in blocks["TSFOO2"].options()], [["foo2"], ["0.5"], []])
        self.assertEqual([o for o, _ in blocks["MechCreateWidget"].options()], ["-widget_n", "-widget_a", "-widget_b", "-widget_part_<name>_size"])
        items = [it for _, it in blocks["MechCreateWidget"].options()]
        self.assertEqual(items[1].values, ["1", "2"])
        self.assertEqual(items[1].text, "two lengths")

    def test_sections_and_links(self):
        blocks, pages = manual.build(self.root)
        foo = {b.name: b for b in blocks}["FooSetBar"]
        self.assertEqual(foo.summary, "Sets the bar of `TSFOO2`.")
        self.assertEqual(foo.collective, "Logically Collective")
        self.assertEqual(foo.level, "intermediate")
        self.assertEqual(foo.signature, "PetscErrorCode FooSetBar(TS ts, PetscReal bar)")
        params = [x for sec, c in foo.parts if sec == "Input Parameters" for tag, x in c if tag == "list"][0]
        self.assertEqual([(i.key, i.text) for i in params], [("ts", "the TS"), ("bar", "the bar, with a description that goes on on the next line")])
        ts = pages["ts/foo2.md"]
        self.assertIn("[`FooSetBar()`](../api/things.md#foosetbar)", ts)
        self.assertIn("[`MechCreateWidget()`](../models/widget.md)", ts)
        self.assertIn("`TSSetType()`", ts)  # PETSc's: not linked
        self.assertNotIn("[`TSSetType()`]", ts)
        self.assertIn("[docs/schemes.md](../../schemes.md)", ts)
        api = pages["api/things.md"]
        self.assertIn("`-ts_foo2_bar`", api)  # an option in prose is code
        self.assertIn("2 \\* x &lt; y", api)  # markdown and HTML escaped
        self.assertIn("```\nbar = 1\n```", api)
        self.assertIn("[`TSFOO2`](../ts/foo2.md)", api)
        self.assertIn("| `-widget_part_<name>_size` | `1` |", pages["models/widget.md"])
        self.assertIn("[foo2](ts/foo2.md)", pages["README.md"])
        self.assertIn("[MechOutputFormat](formats/MechOutputFormat.md)", pages["README.md"])

    def test_check_finds_a_stale_page(self):
        out = os.path.join(self.root, "docs", "manual")
        _, pages = manual.build(self.root)
        manual.write(pages, out)
        self.assertEqual(manual.compare(manual.build(self.root)[1], out), ([], []))
        edit(os.path.join(self.root, "src/ts/foo2.c"), "a scheme for", "a method for")
        stale, extra = manual.compare(manual.build(self.root)[1], out)
        self.assertEqual([p for p, _, _ in stale], ["README.md", "ts/foo2.md"])
        with open(os.path.join(out, "ts", "old.md"), "w", encoding="utf-8") as fh:
            fh.write("x\n")
        self.assertEqual(manual.compare(manual.build(self.root)[1], out)[1], ["ts/old.md"])

    def test_malformed_block_is_an_error(self):
        make_repo(self.root, {"src/bad.c": "/*@\n  Foo: no dash\n@*/\n"})
        with self.assertRaises(SystemExit) as e:
            manual.build(self.root)
        self.assertIn("src/bad.c:1", str(e.exception))


class OptionCheck(MadeUpRepository):
    def check(self, help_text=HELP, status=0, report=False):
        exe = fake_tsmech(self.root, help_text, status)
        args = [sys.executable, os.path.join(TOOLS, "manual_options.py"), "--tsmech", exe, "--root", self.root] + (["--report"] if report else [])
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    def test_parse_help(self):
        got = [x[:4] for x in manual_options.parse_help(HELP)]
        self.assertIn(("Time stepping (TS) options", "Foo2 options", "-ts_foo2_bar", "FooSetBar"), got)
        self.assertIn(("Time stepping (TS) options", "TS Adaptivity options", "-ts_adapt_type", "TSAdaptSetType"), got)
        self.assertIn(("tsmech driver options", None, "-output", "MechOutputCreate"), got)

    def test_titles_from_the_sources(self):
        titles, dynamic = manual_options.tsmech_titles(self.root)
        self.assertEqual(titles, {"Foo2 options", "Widget model options", "tsmech driver options"})
        self.assertEqual(dynamic, [])

    def test_patterns(self):
        self.assertTrue(manual_options.pattern("-widget_part_<name>_size").match("-widget_part_top_size"))
        self.assertFalse(manual_options.pattern("-widget_part_<name>_size").match("-widget_part_size"))
        self.assertTrue(manual_options.pattern("-foo2_ksp_*").match("-foo2_ksp_rtol"))
        self.assertFalse(manual_options.pattern("-widget_n").match("-widget_nn"))

    def test_skeleton_items(self):
        item = manual_options.doctext_item
        self.assertEqual(item("-model", "  -model <now widget : formerly widget>: Model to integrate (one of) widget (MechCreateModel)"),
                         "-model <widget> - Model to integrate (one of) widget")
        self.assertEqual(item("-output", "  -output <now  : formerly >: HDF5 output file (MechOutputCreate)"), "-output - HDF5 output file")
        self.assertEqual(item("-quiet", "  -quiet: <FALSE : FALSE> No progress line (None)"), "-quiet <false> - No progress line")
        self.assertEqual(item("-a_jacobian", "  -a_jacobian <now auto : formerly auto> Newton's matrix (TSFOO)"), "-a_jacobian <auto> - Newton's matrix")
        self.assertEqual(item("-solid_bc_held_u", "  -solid_bc_held_u <0.>: Constraint: u (MechCreateSolid)"), "-solid_bc_<name>_u <0.> - Constraint: u")

    def test_all_documented(self):
        status, out = self.check()
        self.assertEqual(status, 0, out)
        self.assertIn("coverage: 7 of 7 tsmech options", out)
        self.assertIn("OK: every tsmech option", out)

    def test_undocumented(self):
        status, out = self.check(HELP.replace("  -output <now", "  -output_every <now 10 : formerly 10>: every (MechOutputCreate)\n  -output <now"))
        self.assertEqual(status, 1, out)
        self.assertIn("undocumented 1", out)
        self.assertRegex(out, r"\[tsmech driver options\]\n\s+-output_every\s+MechOutputCreate")
        status, out = self.check(HELP.replace("  -output <now", "  -output_every <now 10 : formerly 10>: every (MechOutputCreate)\n  -output <now"), report=True)
        self.assertEqual(status, 0, out)
        self.assertIn("-output_every", out)

    def test_unknown_and_duplicated(self):
        edit(os.path.join(self.root, "src/driver/main.c"), "- -output <file>  - the HDF5 output", ". -output <file>  - the HDF5 output\n. -widget_n <3> - again\n- -outptu - a typo")
        status, out = self.check()
        self.assertEqual(status, 1, out)
        self.assertIn("duplicated 1, unknown 1", out)
        self.assertRegex(out, r"-widget_n\s+TSMechDriverOptions \(options/TSMechDriverOptions.md\), MechCreateWidget \(models/widget.md\)")
        self.assertRegex(out, r"-outptu\s+TSMechDriverOptions")

    def test_missing_page(self):
        status, out = self.check(HELP.replace("  foo2: a scheme\n", "  foo2: a scheme\n  bar2: another\n"))
        self.assertEqual(status, 1, out)
        self.assertIn("no page: TS type bar2 (ts/bar2.md)", out)

    def test_per_name_block(self):
        # a block titled per name (its title printed from a format) is tsmech's: its options are checked
        make_repo(self.root, {"src/models/part.c": """
            PetscErrorCode WidgetPartOptions(MPI_Comm comm, const char name[])
            {
              char title[256];
              PetscCall(PetscSNPrintf(title, sizeof(title), "The part %s of the widget", name));
              PetscOptionsBegin(comm, NULL, title, "MechSystem");
              PetscOptionsEnd();
              return 0;
            }
            """})
        titles, dynamic = manual_options.tsmech_titles(self.root)
        self.assertEqual(dynamic, [])
        self.assertTrue(any(not isinstance(t, str) and t.match("The part top of the widget") for t in titles), titles)
        extra = "----------------------------------------\nThe part top of the widget:\n  -widget_part_top_color <0.>: colour (MechCreateWidget)\n"
        status, out = self.check(HELP + extra)
        self.assertEqual(status, 1, out)
        self.assertRegex(out, r"\[The part top of the widget\]\n\s+-widget_part_top_color")

    def test_petsc_option_in_a_sub_block(self):
        # PETSc prints its own -ts_save_trajectory after tsmech's sub-block: its manual field is PETSc's
        status, out = self.check(HELP.replace("  -ts_foo2_bar <0.5 : 0.5>: the bar (FooSetBar)\n",
                                              "  -ts_foo2_bar <0.5 : 0.5>: the bar (FooSetBar)\n  -ts_save_trajectory: <FALSE : FALSE> Save (TSSetSaveTrajectory)\n"))
        self.assertEqual(status, 0, out)
        # an option of tsmech's there without a block is still undocumented
        status, out = self.check(HELP.replace("  -ts_foo2_bar <0.5 : 0.5>: the bar (FooSetBar)\n",
                                              "  -ts_foo2_bar <0.5 : 0.5>: the bar (FooSetBar)\n  -ts_foo2_baz <1 : 1>: baz (FooSetBar)\n"))
        self.assertEqual(status, 1, out)
        self.assertIn("-ts_foo2_baz", out)

    def test_one_object_under_several_prefixes(self):
        # the eigensolver's options printed under one prefix (widget_eig_) make them exist under its
        # default prefix (eig_), which no -help run prints; an option it does not have stays unknown
        make_repo(self.root, {"src/models/eig.c": """
            PetscErrorCode EigCreate(Eig m)
            {
              PetscCall(PetscStrallocpy("eig_", &m->prefix));
              return 0;
            }
            PetscErrorCode WidgetDamping(Eig m)
            {
              PetscCall(EigSetOptionsPrefix(m, "widget_eig_"));
              return 0;
            }
            """})
        edit(os.path.join(self.root, "src/driver/main.c"), "- -output <file>  - the HDF5 output", ". -output <file>  - the HDF5 output\n- -eig_eps_* - the eigensolver")
        extra = "----------------------------------------\nEigenvalue Problem Solver (EPS) options:\n  -widget_eig_eps_type <now krylovschur : formerly krylovschur>: method (EPSSetType)\n"
        status, out = self.check(HELP + extra)
        self.assertEqual(status, 0, out)
        edit(os.path.join(self.root, "src/driver/main.c"), "- -eig_eps_* - the eigensolver", ". -eig_eps_* - the eigensolver\n- -eig_nonsense - not an option")
        status, out = self.check(HELP + extra)
        self.assertEqual(status, 1, out)
        self.assertRegex(out, r"unknown 1[^\n]*\n(.*\n)*\s+-eig_nonsense")

    def test_failing_help_fails_even_the_report(self):
        status, out = self.check(status=1, report=True)
        self.assertNotEqual(status, 0, out)
        self.assertIn("failed with exit status 1", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
