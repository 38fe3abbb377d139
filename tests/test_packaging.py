"""pekit installs on its own: from a clone and from a Git URL, into a fresh virtual environment
outside the repository, where the README's example then runs.

PyTorch is not installed again (that would download hundreds of megabytes): the fresh
environment sees the test environment's site-packages through PYTHONPATH, which holds torch and
pandas but not pekit (the test environment's pekit is an editable install, whose hook only runs
from a site directory). The test checks that ``import pekit`` finds the copy in the fresh
environment.
"""

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a fresh virtual environment per test

ROOT = Path(__file__).resolve().parent.parent


def run(*cmd, **kwargs) -> str:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The repository as committed (a clean clone), or a copy of the tree outside git."""
    target = tmp_path_factory.mktemp("src") / "pekit"
    if (ROOT / ".git").exists() and shutil.which("git"):
        run("git", "clone", "--quiet", ROOT, target)
    else:
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(".venv", "__pycache__", "*.egg-info"))
    return target


@pytest.mark.parametrize("source", ["path", "git"])
def test_fresh_environment_installs_and_runs_the_readme_example(tmp_path, clone, source):
    if source == "git" and not (clone / ".git").exists():
        pytest.skip("the tree is not a git checkout")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    spec = clone if source == "path" else f"git+file://{clone}"
    # as a user would: pip builds it in an isolated environment with setuptools from the index
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", spec)
    env = {"PYTHONPATH": sysconfig.get_paths()["purelib"], "PEKIT_DEVICE": "cpu", "PATH": "/usr/bin:/bin"}
    where = run(python, "-c", "import pekit, pekit.charts; print(pekit.__file__)", env=env, cwd=tmp_path)
    assert where.strip().startswith(str(venv)), where
    readme = clone / "README.md"
    script = ("import doctest, re, sys; text = open(sys.argv[1]).read(); "
              "blocks = [b for b in re.findall(r'```python\\n(.*?)```', text, flags=re.S) if '>>>' in b]; "
              "p, r = doctest.DocTestParser(), doctest.DocTestRunner(); "
              "[r.run(p.get_doctest(b, {}, 'README', sys.argv[1], 0)) for b in blocks]; "
              "s = r.summarize(verbose=False); sys.exit(1 if s.failed or not s.attempted else 0)")
    run(python, "-c", script, readme, env=env, cwd=tmp_path)


def test_the_wheel_holds_pekit_alone(tmp_path, clone):
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp_path, clone)
    (wheel,) = tmp_path.glob("pekit-*.whl")
    import zipfile

    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"pekit", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
