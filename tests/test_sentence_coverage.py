"""The rule behind every sentence the lab writes from numbers: each function of a view module
that returns text is exercised by a property-based (hypothesis ``@given``) test of that module,
directly or through a helper of the same test file. The test checks the claims against numbers
computed independently; this file checks that such a test exists, so a new sentence cannot land
without one.

Run as a script (``python tests/test_sentence_coverage.py``), it prints the count per module:
functions that write text, and how many of them a property test reaches."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
# view modules and the test file that holds their property tests
MODULES = {path: ROOT / "tests" / "views" / f"test_{path.stem}.py"
           for path in sorted((ROOT / "lab" / "views").glob("*.py")) if path.stem != "__init__"}
MODULES.update({path: ROOT / "tests" / "views" / "test_questions.py"
                for path in sorted((ROOT / "lab" / "views" / "questions").glob("*.py"))})
MODULES[ROOT / "lab" / "published.py"] = ROOT / "tests" / "test_published.py"
MODULES[ROOT / "lab" / "display.py"] = ROOT / "tests" / "test_display.py"


def returns_text(node: ast.FunctionDef) -> bool:
    """A function annotated to return ``str`` or ``str | None`` (or ``lab.claims.Said``, text with its claims): text for people (an option
    label list, a ``dict[str, ...]`` or an exported ``bytes | str`` file is not)."""
    annotation = node.returns
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = [annotation.left, annotation.right]
        if not any(isinstance(p, ast.Constant) and p.value is None for p in parts):
            return False
        annotation = next(p for p in parts if not (isinstance(p, ast.Constant) and p.value is None))
    return isinstance(annotation, ast.Name) and annotation.id in ("str", "Said")


def text_functions(module: Path) -> list[str]:
    """The module's public functions that return text."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and returns_text(node)]


def _names_in(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            names.add(sub.attr)
    return names


def _is_property_test(node: ast.FunctionDef) -> bool:
    """A ``@given`` test of the fast tier (the README's test command): not marked ``slow``."""
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None))
    return "given" in names and "slow" not in names


def _slow_module(tree: ast.Module) -> bool:
    """A test file whose every test is in the slow tier (``pytestmark`` names ``slow``)."""
    return any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)
               and "slow" in _names_in(node.value) for node in tree.body)


def reached_by_property_tests(test_file: Path) -> set[str]:
    """Every name a ``@given`` test of the file uses, following the file's own helpers: its
    functions (module-level, or methods of its test classes) and its module-level names (a list
    of checks the test runs through)."""
    if not test_file.exists():
        return set()
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    if _slow_module(tree):
        return set()
    functions: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            functions.setdefault(node.name, []).append(node)
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for name in _names_in(target):
                    functions.setdefault(name, []).append(node.value)
    todo = [node for nodes in functions.values() for node in nodes
            if isinstance(node, ast.FunctionDef) and _is_property_test(node)]
    seen: set[int] = set()
    reached: set[str] = set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names = _names_in(node)
        reached |= names
        todo.extend(helper for name in names for helper in functions.get(name, []))
    return reached


class Coverage(NamedTuple):
    module: str
    writers: tuple[str, ...]
    untested: tuple[str, ...]


def coverage(module: Path) -> Coverage:
    writers = text_functions(module)
    reached = reached_by_property_tests(MODULES[module])
    return Coverage(str(module.relative_to(ROOT)), tuple(writers), tuple(w for w in writers if w not in reached))


@pytest.mark.parametrize("module", sorted(MODULES), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_function_that_writes_text_has_a_property_test(module):
    found = coverage(module)
    assert not found.untested, (f"{found.module}: no @given test in {MODULES[module].relative_to(ROOT)} "
                                f"reaches {', '.join(found.untested)}")


def test_the_check_finds_a_sentence_without_a_property_test(tmp_path):
    module = tmp_path / "view.py"
    module.write_text("def caption(view) -> str:\n    return f'{view.n} rows'\n"
                      "def shown(view) -> str | None:\n    return None\n"
                      "def numbers(view) -> int:\n    return 1\n"
                      "def options(view) -> tuple[str, ...]:\n    return ()\n"
                      "def exported(view) -> bytes | str:\n    return b''\n")
    test_file = tmp_path / "test_view.py"
    test_file.write_text("from hypothesis import given\n"
                         "def check(v):\n    assert views.shown(v) is None\n"
                         "CHECKS = [check]\n"
                         "@given(st.integers())\ndef test_shown(n):\n    for c in CHECKS:\n        c(n)\n"
                         "def test_caption():\n    assert views.caption(1)\n")
    assert text_functions(module) == ["caption", "shown"]
    reached = reached_by_property_tests(test_file)
    assert "shown" in reached  # through the list of checks, and the helper `check`
    assert "caption" not in reached  # only an example-based test calls it


if __name__ == "__main__":
    total_writers = total_tested = 0
    for module in sorted(MODULES):
        found = coverage(module)
        tested = len(found.writers) - len(found.untested)
        total_writers += len(found.writers)
        total_tested += tested
        print(f"{found.module:40} {len(found.writers):3} write text  {tested:3} with a property test"
              + (f"   missing: {', '.join(found.untested)}" if found.untested else ""))
    print(f"{'all':40} {total_writers:3} write text  {total_tested:3} with a property test")
