"""The app's shell knows no page and no class: the page skeleton (lab/page.py) reaches the classroom
through its hooks only, a page runs with no hook registered, and the setting kinds answer for
themselves (no ladder of ``isinstance`` over them in the skeleton). And every module stays small
enough to read: each module of lab/ under 600 lines, of pekit/ under 500.

Run as a script, it prints every module's size, largest first."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "lab" / "page.py"
SETTING_KINDS = {"BoolSetting", "ChoiceSetting", "FloatSetting", "IntListSetting", "IntSetting", "TextSetting"}

LIMITS = {"lab": 600, "pekit": 500}  # lines a module stays under (the design asks pekit for ~500)
# Modules over their limit while they wait for a split: each leaves this list when it fits.
KNOWN_LARGE: set[str] = set()


# -- the skeleton and the classroom ----------------------------------------------------------------

def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (functions included), and every module named
    as text to ``importlib.import_module`` / ``__import__``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "lab" if node.level else (node.module or "")  # (a relative import in lab/ is lab's)
            if node.level and node.module:
                base = f"lab.{node.module}"
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("import_module", "__import__"):
            found |= {arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    return found


def test_the_page_skeleton_does_not_import_the_classroom():
    classroom = {name for name in imported_modules(PAGE) if name == "lab.classroom" or name.startswith("lab.classroom.")}
    assert not classroom, f"lab/page.py imports {sorted(classroom)}: reach the classroom through lab.page.hooks"
    assert "classroom" not in {name.split(".")[-1] for name in imported_modules(PAGE)}


def test_the_import_check_sees_every_way_in(tmp_path):
    sneaky = tmp_path / "page.py"
    sneaky.write_text("import importlib\nfrom lab import classroom\n\ndef f():\n    from lab.classroom.cards import x\n"
                      "    importlib.import_module('lab.classroom.following')\nfrom .classroom import seats\n")
    assert {"lab.classroom", "lab.classroom.cards", "lab.classroom.following", "lab.classroom.seats"} <= imported_modules(sneaky)


def test_importing_the_page_skeleton_loads_no_classroom():
    code = "import sys, lab.page; print(sorted(m for m in sys.modules if m.startswith('lab.classroom')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_page_skeleton_holds_no_ladder_over_the_setting_kinds():
    ladders = [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(PAGE.read_text(encoding="utf-8")))
               if isinstance(node, ast.Call) and ast.unparse(node.func) in ("isinstance", "issubclass", "type")
               and SETTING_KINDS & {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}]
    assert not ladders, "a setting kind's behaviour belongs to its class in lab/settings.py: " + "; ".join(ladders)


def test_the_classroom_registers_itself_as_the_skeletons_hooks():
    import lab.classroom as classroom
    from lab.page import hooks

    assert hooks.relinking is classroom.relinking and hooks.before_compute is classroom.announce
    assert hooks.question_card is classroom.question_card and hooks.settings_published is classroom.page_settings


def test_hooks_are_set_by_name_and_cleared():
    from lab.page import PageHooks

    hooks = PageHooks()
    assert hooks.relinking() is False and hooks.question_card(()) is False and hooks.page_end(()) is None
    assert hooks.before_compute({"n": "1"}) is None and hooks.settings_published({}) is None
    hooks.register(question_card=lambda questions: bool(questions))
    assert hooks.question_card(("q",)) is True and hooks.relinking() is False
    with pytest.raises(TypeError, match="not a page hook: card"):
        hooks.register(card=lambda: True)
    hooks.clear()
    assert hooks.question_card(("q",)) is False


PAGE_ALONE = """
import streamlit as st
from lab.page import lab_page
from lab.settings import ChoiceSetting, IntListSetting, IntSetting

N = IntSetting("n", "Positions", default=5, minimum=1, maximum=9)
COLS = IntListSetting("cols", "Columns", default=(1, 2), minimum=0, maximum=9, max_items=4)
KIND = ChoiceSetting("kind", "Kind", default="a", options=("a", "b"))
with lab_page("alone", "A page alone", "No class here.", [N, COLS, KIND], questions=["first", "second"]) as page:
    n = page.slider(N)
    cols = page.int_list(COLS)
    kind = page.radio(KIND)
    st.markdown(f"n={n} cols={cols} kind={kind}")
    if n == 9:
        raise ValueError("n: nine is refused")
"""


@pytest.fixture
def no_hooks(monkeypatch):
    """The skeleton with nothing registered (this test process may have imported the classroom)."""
    import lab.page

    monkeypatch.setattr(lab.page, "hooks", lab.page.PageHooks())
    return lab.page.hooks


def test_a_page_runs_with_no_hook_registered(no_hooks):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(PAGE_ALONE, default_timeout=60)
    at.query_params.update({"n": "7", "cols": "3-4"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "A page alone"
    assert "n=7 cols=[3, 4] kind=a" in [m.value for m in at.markdown]
    at.slider(key="alone.n").set_value(4).run()
    at.radio(key="alone.kind").set_value("b").run()
    assert not at.exception and "n=4 cols=[3, 4] kind=b" in [m.value for m in at.markdown]
    assert dict(at.query_params) == {"n": "4", "cols": "3,4", "kind": "b"}
    at.slider(key="alone.n").set_value(9).run()  # a refused setting: a message, not a traceback
    assert not at.exception and "nine is refused" in " ".join(e.value for e in at.error)


def test_the_hooks_are_called_around_a_pages_run(no_hooks):
    """Where the skeleton calls each hook: relinking while seeding the widgets, before_compute with
    the link's settings before the page computes, question_card under the introduction (True: the
    page stops there, its link written), settings_published each time the link is written; the
    page's questions reach question_card and page_end as the page handed them to lab_page."""
    from streamlit.testing.v1 import AppTest

    calls: list = []
    state = {"card": False, "relink": False}
    no_hooks.register(relinking=lambda: calls.append("relinking") or state["relink"],
                      before_compute=lambda params: calls.append(("before_compute", dict(params))),
                      question_card=lambda questions: calls.append(("question_card", questions)) or state["card"],
                      settings_published=lambda params: calls.append(("settings_published", dict(params))),
                      page_end=lambda questions: calls.append(("page_end", questions)))
    at = AppTest.from_string(PAGE_ALONE, default_timeout=60)
    at.query_params.update({"n": "7"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    asked = ("first", "second")
    assert calls == ["relinking", ("before_compute", {"n": "7"}), ("question_card", asked), ("page_end", asked),
                     ("settings_published", {"n": "7"})]
    calls.clear()
    state["card"] = True  # an open question: the page stops before its pictures
    at.slider(key="alone.n").set_value(3).run()
    assert not at.exception and not any(m.value.startswith("n=") for m in at.markdown)
    assert calls == ["relinking", ("before_compute", {"n": "3"}), ("question_card", asked),
                     ("settings_published", {"n": "3"})]
    assert dict(at.query_params) == {"n": "3"}
    state.update(card=False, relink=True)  # following someone: every setting from the link again
    at.query_params.clear()
    at.query_params.update({"n": "8", "kind": "b"})
    at.run()
    assert not at.exception and "n=8 cols=[1, 2] kind=b" in [m.value for m in at.markdown]


# -- sizes ------------------------------------------------------------------------------------------

def module_sizes() -> dict[str, int]:
    """Lines of every module of lab/ and pekit/ (subpackages included), by path from the root."""
    return {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for package in LIMITS for path in sorted((ROOT / package).rglob("*.py"))}


def limit(path: str) -> int:
    return LIMITS[path.split("/")[0]]


def test_every_module_stays_under_its_packages_limit():
    sizes = module_sizes()
    large = {path: lines for path, lines in sizes.items() if lines >= limit(path) and path not in KNOWN_LARGE}
    assert not large, "split these modules: " + ", ".join(f"{p} ({n} lines, limit {limit(p)})" for p, n in large.items())


def test_a_known_large_module_leaves_the_list_once_it_fits():
    sizes = module_sizes()
    fits = sorted(path for path in KNOWN_LARGE if sizes.get(path, 0) < limit(path))
    assert not fits, f"{fits} fit (or are gone) now: take them out of KNOWN_LARGE in tests/test_shell.py"


if __name__ == "__main__":
    for path, lines in sorted(module_sizes().items(), key=lambda item: -item[1]):
        mark = "  (known large)" if path in KNOWN_LARGE else ("  OVER" if lines >= limit(path) else "")
        print(f"{lines:6d}  {path}  (limit {limit(path)}){mark}")
