"""The examples exactly as the README's Python section prints them, run from the source root
with no path in the environment (they find the build tree's package themselves), each exiting 0;
and the installed package: `meson install` puts it beside the library, its _config.py names the
installed libtsmech.so, and it imports from the staged install alone."""
import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import SOURCE

BUILD = os.environ.get("TSMECH_TEST_BUILD", os.path.join(SOURCE, "build"))


def readme_commands():
    """The indented command lines of the README's section "Using tsmech from Python" that run
    an example or the package."""
    text = open(os.path.join(SOURCE, "README.md")).read()
    section = text[text.index("## Using tsmech from Python"):]
    section = section[: section.index("\n## ", 5)]
    return [line.strip() for line in section.splitlines() if re.match(r"^    (mpiexec|/usr/bin/python3|PYTHONPATH=)", line)]


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TSMECH_LIB")}
    return env


def test_readme_lists_every_example():
    cmds = " ".join(readme_commands())
    for f in os.listdir(os.path.join(SOURCE, "examples", "python")):
        if f.endswith(".py"):
            assert f"examples/python/{f}" in cmds, f"the README runs no examples/python/{f}"


@pytest.mark.parametrize("cmd", readme_commands())
def test_readme_command(cmd):
    if not os.path.abspath(BUILD) == os.path.join(SOURCE, "build"):
        pytest.skip("the README's commands assume the build directory build/")
    os.makedirs(os.path.join(SOURCE, "results"), exist_ok=True)
    # exactly as printed: a shell in the source root, no package path in the environment
    p = subprocess.run(cmd, shell=True, cwd=SOURCE, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert p.returncode == 0, f"{cmd}: exit status {p.returncode}\n{p.stdout}"


def test_installed_package(tmp_path):
    stage = tmp_path / "stage"
    p = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", str(stage), "--no-rebuild"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    configs = [os.path.join(d, f) for d, _, fs in os.walk(stage) for f in fs if f == "_config.py" and d.endswith("tsmech")]
    assert len(configs) == 1, configs
    pkgdir = os.path.dirname(configs[0])
    names = set(os.listdir(pkgdir))
    assert {"__init__.py", "_lib.py", "_life.py", "system.py", "output.py", "checkpoint.py", "reader.py", "_config.py"} <= names
    assert "_config_install.py" not in names
    ns = {}
    exec(open(configs[0]).read(), ns)
    installed_lib = ns["LIBTSMECH"]
    assert installed_lib.endswith("/libtsmech.so") and not installed_lib.startswith(str(stage))
    assert os.path.exists(str(stage) + installed_lib), "the recorded library is not what meson installs"
    # the staged copy alone (its library moved with the stage: TSMECH_LIB), from outside the tree
    env = dict(clean_env(), PYTHONPATH=os.path.dirname(pkgdir), TSMECH_LIB=str(stage) + installed_lib)
    code = ("import petsc4py; petsc4py.init([]); import tsmech; from petsc4py import PETSc; "
            "ts = PETSc.TS().create(); ts.setType('midpoint2'); print(tsmech.__file__, tsmech.MODELS)")
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd="/", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    assert p.stdout.startswith(pkgdir), p.stdout
