"""The lab in two languages: the Portuguese catalog holds every message of the code, translated
and with its placeholders; the language follows the link, the reader's choice and the browser;
numbers follow the language; and a page opened in Portuguese holds no English prose."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
import streamlit as st
from babel.messages.extract import extract_from_dir
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

from lab import i18n, memo
from lab.display import number
from lab.registry import LAB_PAGES, OPTIONAL_PAGES
from tests.bilingual import english_words, visible_prose

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def code_messages() -> dict:
    """Every message the code marks for translation (as ``make catalogs`` extracts them), by
    (context, msgid), with where it is."""
    found = {}
    with open(ROOT / "babel.cfg", encoding="utf-8") as f:
        from babel.messages.frontend import parse_mapping_cfg

        method_map, options_map = parse_mapping_cfg(f)
    for filename, _lineno, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        found[(context, message)] = filename
    return found


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_message_of_the_code_is_translated_with_its_placeholders():
    catalog = i18n.catalog_messages("pt")
    problems = []
    for (context, message), where in sorted(code_messages().items(), key=lambda kv: str(kv[0])):
        msgid = message[0] if isinstance(message, tuple) else message
        entry = catalog.get(msgid, context=context)
        if entry is None or not entry.string or (isinstance(entry.string, tuple) and not all(entry.string)):
            problems.append(f"{where}: not translated: {msgid[:80]!r}")
            continue
        if entry.fuzzy:
            problems.append(f"{where}: fuzzy: {msgid[:80]!r}")
        sources = message if isinstance(message, tuple) else (message,)
        targets = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        wanted = set().union(*(fields(s) for s in sources))
        for target in targets:
            try:
                got = fields(target)
            except ValueError as err:
                problems.append(f"{where}: broken placeholder in {target[:80]!r}: {err}")
                continue
            if got != wanted and not (len(sources) == 2 and got <= wanted):  # a singular may say "one" for {count}
                problems.append(f"{where}: placeholders {sorted(got)} instead of {sorted(wanted)} in {target[:80]!r}")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"


def test_the_catalog_passes_babels_checks_and_keeps_the_portuguese_plural_rule():
    """Babel's check of the plural forms (its other check reads ``%`` placeholders, and the lab's
    messages use named ``{fields}``, checked above)."""
    from babel.messages.checkers import num_plurals

    catalog = i18n.catalog_messages("pt")
    errors = []
    for message in catalog:
        if message.id:
            try:
                num_plurals(catalog, message)
            except Exception as err:  # noqa: BLE001 - Babel's TranslationError
                errors.append((message.id, err))
    assert not errors, errors[:10]
    assert catalog.num_plurals == 2
    t = i18n.translations("pt")
    assert [t.ngettext("{count} position", "{count} positions", n) for n in (0, 1, 2)] == [
        "{count} posições", "{count} posição", "{count} posições"]


@pytest.mark.parametrize("value, expected", [("pt", "pt"), ("pt-BR", "pt"), ("PT_br", "pt"), ("en-GB", "en"),
                                             ("de", None), ("", None), (None, None), (["pt"], None)])
def test_a_language_is_read_from_a_link_or_a_browser_locale(value, expected):
    assert i18n.parse_language(value) == expected


@settings(max_examples=60, deadline=None)
@given(value=hs.one_of(hs.integers(-10**12, 10**12), hs.floats(-1e12, 1e12, allow_nan=False)),
       spec=hs.sampled_from(["", ",", ".1f", ",.2f", ".3g", ".2e", ",.0f"]))
def test_numbers_follow_the_language(value, spec):
    english = number(value, spec)
    with i18n.use("pt"):
        portuguese = number(value, spec)
    assert portuguese == english.translate({ord("."): ",", ord(","): "."})


def test_english_is_unchanged_outside_a_language_block():
    assert i18n.language() == "en"
    with i18n.use("pt"):
        assert i18n._("Reset") == "Redefinir" and i18n.language() == "pt"
    assert i18n._("Reset") == "Reset"


def open_app(query: dict | None = None, locale: str | None = None) -> AppTest:
    st.cache_resource.clear()
    memo.clear_all()
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.query_params.update(query or {})
    if locale:
        at.context.locale = locale  # type: ignore[attr-defined]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def param(at: AppTest, name: str) -> str | None:
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def test_the_link_chooses_portuguese_and_keeps_it(menu):
    at = open_app({"lang": "pt"})
    assert at.title[0].value == "pekit: um laboratório de codificação posicional e autoatenção"
    assert any("pt.d2l.ai/chapter_attention-mechanisms/self-attention-and-positional-encoding" in m.value
               for m in at.markdown)
    assert param(at, "lang") == "pt"
    labels = menu.titles()
    assert labels[0] == "Início" and "Mapa de calor da codificação" in labels


def test_the_sidebar_choice_switches_the_language_and_writes_the_link():
    at = open_app()
    assert at.title[0].value.startswith("pekit: a lab")
    picker = at.sidebar.get("button_group")[0]
    picker.set_value("pt").run()
    assert at.title[0].value.startswith("pekit: um laboratório")
    assert param(at, "lang") == "pt"
    at.sidebar.get("button_group")[0].set_value("en").run()
    assert at.title[0].value.startswith("pekit: a lab") and param(at, "lang") == "en"


def test_with_no_choice_the_browsers_language_decides():
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert at.title[0].value.startswith("pekit: a lab")
    assert "lang" not in at.query_params  # nothing chosen: nothing written into the link


def test_every_module_that_writes_sentences_writes_them_in_both_languages():
    """Each module whose sentences tests/test_sentence_coverage.py counts speaks through lab.i18n, so
    tests/conftest.py repeats every sentence test of it in Portuguese."""
    from tests.bilingual_plugin import bilingual_modules
    from tests.test_sentence_coverage import MODULES

    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts) for path in MODULES}
    assert modules == set(bilingual_modules())


@pytest.mark.slow
def test_every_sentence_test_passes_again_in_portuguese():
    """The sentence tests of every module that writes sentences (tests/test_sentence_coverage.py's
    list), run with each text function said a second time in Portuguese (the plugin
    tests/bilingual_plugin.py): the same numbers, no English prose. Most of those functions are called."""
    import os
    import re
    import subprocess
    import sys

    from tests.test_sentence_coverage import MODULES, text_functions

    files = sorted({str(test.relative_to(ROOT)) for test in MODULES.values() if test.exists()})  # (a module
    # that writes no text may have no test file of its own)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "tests.bilingual_plugin", *files],
                          cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    calls, functions = map(int, re.search(r"bilingual: (\d+) calls of (\d+) functions", done.stdout).groups())
    written = sum(len(text_functions(module)) for module in MODULES)
    assert functions >= 0.9 * written and calls >= functions, (calls, functions, written)


def test_the_catalog_is_one_file_compiled_in_memory():
    """The app compiles the catalog the first time a reader asks for Portuguese (no compiled file
    is committed, so none can lag behind its source; ``make bench`` times the compilation)."""
    i18n.catalog_messages.cache_clear()
    i18n.translations.cache_clear()
    assert sorted(p.name for p in (i18n.LOCALE_DIR / "pt_BR" / "LC_MESSAGES").glob("*")) == ["messages.po"]
    assert i18n.translations("pt").gettext("Reset") == "Redefinir"


def test_a_formulas_words_follow_the_language_and_its_names_stay():
    formula = r"E \in \mathbb{R}^{\text{max\_len}\times d}\ \text{learned},\ (\text{T5 leaves out } 1/\sqrt{d/h})"
    assert i18n.latex_words(formula) == formula
    with i18n.use("pt"):
        assert i18n.latex_words(formula) == (r"E \in \mathbb{R}^{\text{max\_len}\times d}\ \text{aprendida},\ "
                                             r"(\text{o T5 omite } 1/\sqrt{d/h})")


def _texts(tab) -> list[str]:
    return sorted(el.markdown.body for kind, el, _ in tab.elements.values() if kind == "markdown")


@pytest.mark.parametrize("query", ["lang=pt", "lang=pt&store=no"], ids=["from-session-state", "from-the-link"])
def test_a_fragment_rerunning_on_its_own_speaks_the_sessions_language(query):
    """A fragment's own rerun runs in a thread of its own, without the entry point: it reads
    the language the session's last page run spoke (or, where none was kept, the link's), on a
    real server, through Streamlit's public API."""
    import asyncio

    from benchmarks.browser import AppServer
    from benchmarks.protocol.client import Tab

    async def go(url: str) -> tuple[list[str], list[str]]:
        tab = Tab(url)
        try:
            first = await tab.open(query=query)
            assert not first.exceptions, first.exceptions
            (fragment,) = tab.auto_reruns
            shown = _texts(tab)
            again = await tab.poll(fragment)
            assert not again.exceptions, again.exceptions
            return shown, _texts(tab)
        finally:
            await tab.close()

    with AppServer(script="tests/apps/fragment_language.py", env={"PYTHONPATH": str(ROOT)}) as server:
        shown, after = asyncio.run(go(server.url))
    assert shown == ["fragment 1: pt, na fila", "page: pt, na fila"]
    assert after == ["fragment 2: pt, na fila", "page: pt, na fila"]  # the fragment alone ran again


def test_a_thread_of_a_server_that_runs_no_script_speaks_english_and_asks_once(monkeypatch, capfd):
    """Outside a script run in a server (a job's worker, any other thread), the language is
    English, without an exception; such a thread asks Streamlit at most once (Streamlit warns of
    a missing script run context when asked), and the job board's workers never ask."""
    import threading

    from lab.jobs import JobBoard

    monkeypatch.setattr(st.runtime, "exists", lambda: True)  # as in a server
    capfd.readouterr()
    board = JobBoard(workers=1)
    job = board.submit("i18n", "Training", lambda job: [i18n.language(), i18n._("waiting"), i18n.language()])
    for _ in range(500):
        if job.over:
            break
        threading.Event().wait(0.01)
    assert job.result == ["en", "waiting", "en"] and job.error is None
    assert "ScriptRunContext" not in capfd.readouterr().err  # the board's workers speak English unasked

    seen: list = []

    def other() -> None:
        seen.extend([i18n.language(), i18n._("waiting"), i18n.language(), i18n.language()])

    thread = threading.Thread(target=other, name="not-a-script")
    thread.start()
    thread.join()
    assert seen == ["en", "waiting", "en", "en"]
    warned = capfd.readouterr().err.count("missing ScriptRunContext")
    assert warned <= 2  # one look at the session state and the link, then English for the thread
    monkeypatch.undo()
    assert i18n.language() == "en"
