"""The house's rule of dependencies, checked on the source: streamlit_app.py → pages → pekit.charts
→ pekit's computation modules, with no arrow back; and ``import pekit`` costs torch alone."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPUTE = sorted(p for p in (ROOT / "pekit").glob("*.py"))
CHARTS = sorted((ROOT / "pekit" / "charts").glob("*.py"))
PAGES = sorted((ROOT / "pages").glob("*.py"))


def imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """Modules a file imports (relative imports resolved within pekit)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.If) and top_level_only:  # `if TYPE_CHECKING:` imports cost nothing at run time
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = path.parent.relative_to(ROOT).parts
                base = ".".join(package[: len(package) - node.level + 1])
                found.add(f"{base}.{node.module}" if node.module else base)
            else:
                found.add(node.module or "")
    return found


@pytest.mark.parametrize("path", COMPUTE, ids=lambda p: p.name)
def test_computation_modules_import_torch_and_the_standard_library_only(path):
    third_party = {name.split(".")[0] for name in imports(path, top_level_only=True)} - set(sys.stdlib_module_names)
    assert third_party <= {"torch", "pekit"}, third_party
    assert not any(name.startswith("pekit.charts") for name in imports(path)), "computation never draws"
    assert "streamlit" not in {name.split(".")[0] for name in imports(path)}


@pytest.mark.parametrize("path", CHARTS, ids=lambda p: p.name)
def test_chart_builders_never_call_streamlit(path):
    assert "streamlit" not in {name.split(".")[0] for name in imports(path)}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_pages_leave_tensor_math_to_pekit(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    called = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    math = {c for c in called if c.startswith(("torch.", "F.", "np.", "numpy."))}
    assert not math, f"{path.name} computes with {sorted(math)}: move it into pekit"
    assert "torch" not in {name.split(".")[0] for name in imports(path)}


def test_import_pekit_loads_torch_alone():
    code = "import sys, pekit; print(' '.join(m for m in ('pandas', 'altair', 'streamlit') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert loaded.stdout.strip() == "", f"import pekit also loads: {loaded.stdout}"
