"""The house's rule of dependencies, checked on the source: streamlit_app.py → pages → lab (the
app's package and its views) → pekit.charts → pekit's computation modules, with no arrow back;
page scripts hold widgets, layout and text, and compute nothing; ``import pekit`` costs torch
alone."""

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# pekit's computation: its modules and those of its subpackages (pekit/pretrained/, ...), not the charts
COMPUTE = sorted(p for p in (ROOT / "pekit").rglob("*.py") if "charts" not in p.relative_to(ROOT / "pekit").parts)
CHARTS = sorted((ROOT / "pekit" / "charts").glob("*.py"))
PAGES = sorted((ROOT / "pages").glob("*.py"))
LAB = sorted((ROOT / "lab").rglob("*.py"))

# What a page may not do: reduce, compare sizes, or do sums; the views in lab/views do it and
# hand the page numbers to format.
REDUCING_CALLS = {"sum", "min", "max", "sorted", "abs", "round", "len", "any", "all", "divmod", "pow"}
REDUCING_METHODS = {"sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "median", "quantile",
                    "idxmax", "idxmin", "nlargest", "nsmallest", "item", "tolist", "numpy", "aminmax",
                    "count", "cumsum", "prod", "abs", "round", "clip", "sort_values", "value_counts"}
ARITHMETIC = (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult)
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
COMPUTING_MODULES = ("math", "statistics", "numpy", "np", "torch", "pekit", "pandas", "pd", "time")


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


@pytest.mark.parametrize("path", COMPUTE, ids=lambda p: str(p.relative_to(ROOT / "pekit")))
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


def page_violations(source: str) -> list[str]:
    """What a page script's source does beyond widgets, layout and text: imports other than
    streamlit and the app's package, reductions and statistics, arithmetic, and ordering
    comparisons (thresholds). String concatenation with + and %-formatting of a string stay
    allowed: they are formatting."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [f"{where}: imports {a.name}" for a in node.names if a.name.split(".")[0] not in ("streamlit", "lab")]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            if (node.module or "").split(".")[0] not in ("streamlit", "lab"):
                found.append(f"{where}: imports from {node.module}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in REDUCING_CALLS:
                found.append(f"{where}: calls {func.id}()")
            elif isinstance(func, ast.Attribute) and func.attr in REDUCING_METHODS:
                found.append(f"{where}: calls .{func.attr}()")
            elif isinstance(func, ast.Attribute) and ast.unparse(func).split(".")[0] in COMPUTING_MODULES:
                found.append(f"{where}: calls {ast.unparse(func)}()")
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ARITHMETIC):
                found.append(f"{where}: computes {ast.unparse(node)}")
            elif isinstance(node.op, ast.Mod) and not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
                found.append(f"{where}: computes {ast.unparse(node)}")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            found.append(f"{where}: computes {ast.unparse(node)}")
        elif isinstance(node, ast.Compare) and any(isinstance(op, ORDERING) for op in node.ops):
            found.append(f"{where}: compares {ast.unparse(node)}")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            container = ast.unparse(node.value)
            if isinstance(node.slice.value, str) and not container.startswith(("st.session_state", "st.query_params")):
                found.append(f"{where}: reads {ast.unparse(node)} by a string key (views return typed records)")
            elif isinstance(node.slice.value, int):
                found.append(f"{where}: reads {ast.unparse(node)} by position (views return typed records)")
    return found


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_page_scripts_hold_widgets_layout_and_text_only(path):
    found = page_violations(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} computes; move it into its views module (lab/views): " + "; ".join(found)


BAD_PAGE = """
import streamlit as st
import pekit
from lab.views.encoding_heatmap import table_view

view = table_view(60, 32, 10000, 0, "interleaved")
st.markdown(f"The mean is {view.values.mean():.2f}, the largest step {max(view.steps)}.")
if view.spread > 1e-6:
    st.write("the band is wide")
st.caption(f"Columns 0 to {view.d - 1}.")
st.caption("%d positions" % view.n)
st.markdown(view["values"] + view.pair[0])
"""


def test_the_page_check_fails_on_a_page_that_computes():
    found = page_violations(BAD_PAGE)
    assert any("imports pekit" in f for f in found)
    assert any(".mean()" in f for f in found) and any("max()" in f for f in found)
    assert any("compares view.spread > 1e-06" in f for f in found)
    assert any("computes view.d - 1" in f for f in found)
    assert not any("%d positions" in f for f in found), "%-formatting of a string is formatting"
    assert any("by a string key" in f for f in found) and any("view.pair[0] by position" in f for f in found)
    assert page_violations('import streamlit as st\nfrom lab.page import lab_page\nst.markdown("**a**" + f"{1:.2f}")\n') == []


VIEWS = sorted((ROOT / "lab" / "views").glob("*.py")) + sorted((ROOT / "lab" / "views" / "questions").glob("*.py"))


def view_name(path: Path) -> str:
    """A view module's path under lab/views (``questions/train.py``)."""
    return path.relative_to(ROOT / "lab" / "views").as_posix()
ARRAY_MODULES = {"torch", "numpy", "np", "F", "scipy"}  # a view names none of them
# math's functions a view may call: tests of a number it was given; every other one (sin, exp,
# sqrt, lgamma, fmod, ...) is a formula, and formulas live in pekit
MATH_TESTS = {"isnan", "isfinite", "isinf", "isclose"}
# methods that only a tensor or an array has (or that move one between devices and dtypes)
TENSOR_METHODS = {"norm", "cdist", "matmul", "mm", "bmm", "einsum", "fill_diagonal_", "amax", "amin", "diagonal",
                  "flip", "softmax", "log_softmax", "exp", "log", "sin", "cos", "sqrt", "double", "float", "half",
                  "cpu", "cuda", "numpy", "argmax", "argmin", "clamp", "clamp_min", "clamp_max", "nonzero",
                  "randn", "randperm", "manual_seed", "repeat_interleave", "flatten", "reshape", "permute",
                  "transpose", "unsqueeze", "squeeze", "cumprod", "topk", "svd", "eigh", "outer", "gather",
                  "masked_fill", "isfinite", "any", "all", "item", "detach", "clone", "copy_", "fmod"}
def tensor_math(source: str) -> list[str]:
    """Where a view's source computes with tensors or arrays instead of calling pekit: an import
    of torch, numpy or scipy (one under ``if TYPE_CHECKING:`` names a type and is allowed), a name
    taken from one of them, a call of math's formulas, a method only a tensor has, a matrix product."""
    tree = ast.parse(source)
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for node in ast.walk(block)}
    found = []
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [f"{where}: imports {a.name}" for a in node.names if a.name.split(".")[0] in ARRAY_MODULES]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in ARRAY_MODULES:
            found.append(f"{where}: imports from {node.module}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ARRAY_MODULES:
            found.append(f"{where}: uses {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if isinstance(func.value, ast.Name) and func.value.id == "math":
                if func.attr not in MATH_TESTS:
                    found.append(f"{where}: calls {ast.unparse(func)}()")
            elif func.attr in TENSOR_METHODS:
                found.append(f"{where}: calls .{func.attr}()")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append(f"{where}: multiplies matrices ({ast.unparse(node)})")
    return found


@pytest.mark.parametrize("path", VIEWS, ids=view_name)
def test_views_leave_tensor_math_to_pekit(path):
    found, name = tensor_math(path.read_text(encoding="utf-8")), view_name(path)
    assert not found, f"{name} computes; call pekit instead: " + "; ".join(found)


BAD_VIEW = """
from __future__ import annotations
import math
from typing import TYPE_CHECKING
import torch
from numpy import linalg
import pekit
if TYPE_CHECKING:
    from torch import Tensor

def view(n: int, d: int, base: int) -> float:
    P = pekit.sinusoidal_encoding(n, d, dtype=torch.float64)
    rates = [1 / base ** (2 * j / d) for j in range(d)]
    wave = [math.sin(i * r) for i, r in enumerate(rates)]
    closest = P.norm(dim=1).amin()
    if math.isnan(float(closest)):
        return math.pi
    return float((P @ P.T).flip(0).cpu()[0, 0]) + math.exp(wave[0])
"""


def test_the_view_check_fails_on_a_view_that_computes():
    found = tensor_math(BAD_VIEW)
    assert any("imports torch" in f for f in found) and any("imports from numpy" in f for f in found)
    assert any("uses torch.float64" in f for f in found)
    assert any("math.sin()" in f for f in found) and any("math.exp()" in f for f in found)
    assert not any("isnan" in f or "math.pi" in f for f in found), "a test of a number and a constant are no formula"
    assert any(".norm()" in f for f in found) and any(".amin()" in f for f in found)
    assert any("multiplies matrices (P @ P.T)" in f for f in found)
    assert any(".flip()" in f for f in found) and any(".cpu()" in f for f in found)
    assert not any("line 9" in f for f in found), "an import for type annotations only computes nothing"
    assert tensor_math("import pekit\nrows = pekit.frequencies(8).tolist()\n") == []


@pytest.mark.parametrize("path", LAB, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_package_imports_pekit_as_a_package(path):
    """No file of pekit is loaded by its path under a name of the lab's making: a module is
    imported, or looked for with importlib's finder, by its own name."""
    calls = {ast.unparse(node.func).split(".")[-1] for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call)}
    assert not calls & {"spec_from_file_location", "exec_module", "SourceFileLoader", "load_module"}, path.name


@pytest.mark.parametrize("path", LAB, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_package_never_imports_a_page(path):
    assert not any(name.split(".")[0] == "pages" for name in imports(path)), "arrows point down: pages → lab → pekit"


def test_pages_folder_holds_page_scripts_only():
    """Every file in pages/ is a page the navigation lists (its framework and views live in lab/)."""
    from lab.registry import CONCEPT_PAGE, LAB_PAGES, LESSON_PAGE, OPTIONAL_PAGES

    listed = {Path(p.path).name for p in LAB_PAGES + OPTIONAL_PAGES + [LESSON_PAGE, CONCEPT_PAGE]} | {"home.py", "classroom.py"}  # + the shell's
    assert {p.name for p in PAGES} == listed


def test_import_pekit_loads_torch_alone():
    code = "import sys, pekit; print(' '.join(m for m in ('pandas', 'altair', 'streamlit') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert loaded.stdout.strip() == "", f"import pekit also loads: {loaded.stdout}"


def streamlit_internals_imported(path: Path) -> set[str]:
    """What a file imports of Streamlit beyond ``streamlit`` itself: its submodules, and the
    names taken from them (``streamlit.runtime.pages_manager.PagesManager``), including a
    submodule taken by name from the package (``from streamlit import config``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("streamlit.")}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.startswith("streamlit."):
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
            elif node.module == "streamlit":
                found |= {f"streamlit.{alias.name}" for alias in node.names
                          if importlib.util.find_spec(f"streamlit.{alias.name}") is not None}
    return found


@pytest.mark.parametrize("path", [ROOT / "streamlit_app.py", *PAGES, *LAB], ids=lambda p: str(p.relative_to(ROOT)))
def test_streamlit_internals_are_used_in_one_module_only(path):
    internal = streamlit_internals_imported(path)
    if path.name == "streamlit_internals.py":  # the two named exceptions, and nothing else
        assert internal == {"streamlit.runtime.pages_manager.PagesManager",
                            "streamlit.runtime.scriptrunner_utils.script_run_context.get_run_yield_check"}
    else:
        assert not internal, f"{path.name} uses {sorted(internal)}: go through lab/streamlit_internals.py"


def test_the_internals_check_sees_a_submodule_taken_by_name(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("from streamlit import config, type_util\nimport streamlit as st\nfrom streamlit import session_state\n")
    assert streamlit_internals_imported(sneaky) == {"streamlit.config", "streamlit.type_util"}
