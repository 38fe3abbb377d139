import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

# CI draws the same examples on every run (a submission passes or fails on its code, not on the draw);
# a laptop explores fresh ones each run, and PEKIT_HYPOTHESIS_RANDOM=1 does so in CI too
settings.register_profile("fixed", derandomize=True, database=None)
if os.environ.get("CI") and not os.environ.get("PEKIT_HYPOTHESIS_RANDOM"):
    settings.load_profile("fixed")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    """Every device this machine has: the CPU, plus CUDA where present."""
    return request.param


@pytest.fixture(autouse=True)
def _cpu_unless_the_test_takes_a_device(request, monkeypatch):
    """pekit computes on CUDA by default where a GPU is present. A test that compares pekit with a
    reference built on the CPU, without naming a device, gets pekit's tensors on the CPU too; a test
    that takes the ``device`` fixture runs on every device this machine has, CUDA included (and one
    that sets ``PEKIT_DEVICE`` itself keeps what it sets)."""
    if "device" not in request.fixturenames and "PEKIT_DEVICE" not in os.environ:
        monkeypatch.setenv("PEKIT_DEVICE", "cpu")


@pytest.fixture
def one_thread():
    """One torch thread, as each session of the app computes (lab.server.prepare_pekit): a training
    test then measures what a reader's training does, and two test processes do not fight over
    the cores. The count before is put back."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def fresh_registry():
    """The registry looks the optional model up once per process: forget that around a test that
    hides it (tests/test_registry.py, tests/test_rope_page.py)."""
    from lab import registry

    registry._smollm2_available.cache_clear()
    yield
    registry._smollm2_available.cache_clear()


# The app and Chromium for the browser tests: one server and one browser per test module.
@pytest.fixture(scope="module")
def server():
    from benchmarks.browser import AppServer

    with AppServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def pytest_collection_modifyitems(items):
    """The slow tier (``make test-slow``): besides the tests marked ``slow`` in their module, every
    browser test and every test against the Redis store."""
    for item in items:
        redis = "redis_url" in getattr(item, "fixturenames", ()) or "redis" in getattr(
            getattr(item, "callspec", None), "id", "")
        if item.get_closest_marker("browser") or redis:
            item.add_marker(pytest.mark.slow)


# Every sentence in both languages, where PEKIT_BILINGUAL=1 (tests/test_i18n.py runs the view
# tests so, in the slow tier): each function of the modules below that writes text for people is
# wrapped, so that every call a test makes in English (the property tests, at every setting they
# draw) is made again in Portuguese, and the Portuguese text is checked to state the same numbers
# and to hold no English prose (tests/bilingual.py). A module takes part once it speaks through
# lab.i18n; tests/test_i18n.py checks that every one does.
def bilingual_modules() -> list[str]:
    from tests.test_sentence_coverage import MODULES

    root = Path(__file__).resolve().parent.parent
    return [".".join(path.relative_to(root).with_suffix("").parts) for path in MODULES
            if "from lab.i18n import" in path.read_text(encoding="utf-8")]


def _wrap_bilingual() -> None:
    import contextvars
    import functools
    import importlib
    import inspect
    from pathlib import Path

    from lab import i18n
    from streamlit import runtime
    from tests.bilingual import check_translation, strings_in
    from tests.test_sentence_coverage import text_functions

    inside = contextvars.ContextVar("bilingual_inside", default=False)

    def both(fn, where):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            english = fn(*args, **kwargs)
            # a direct call of a test; inside a page run through AppTest (a runtime exists while it
            # runs) the page tests judge the page
            if inside.get() or runtime.exists() or i18n.language() != "en" or not isinstance(english, str):
                return english
            token = inside.set(True)
            try:
                with i18n.use("pt"):
                    portuguese = fn(*args, **kwargs)
            finally:
                inside.reset(token)
            check_translation(english, portuguese, strings_in(args) + strings_in(kwargs), where)
            SAID_TWICE[where] = SAID_TWICE.get(where, 0) + 1
            return english

        call.english_only = fn
        return call

    for name in bilingual_modules():
        module = importlib.import_module(name)
        for function in text_functions(Path(inspect.getfile(module))):
            setattr(module, function, both(getattr(module, function), f"{name}.{function}"))


SAID_TWICE: dict[str, int] = {}  # each wrapped function: the calls said again in Portuguese
BILINGUAL = os.environ.get("PEKIT_BILINGUAL") == "1"
if BILINGUAL:
    _wrap_bilingual()


def pytest_terminal_summary(terminalreporter):
    if BILINGUAL:
        terminalreporter.write_line(f"bilingual: {sum(SAID_TWICE.values())} calls of {len(SAID_TWICE)} "
                                    f"functions said again in Portuguese")


class Menu:
    """The pages the app's last run handed to ``st.navigation`` (its menu), in order."""

    def __init__(self) -> None:
        self.pages: list = []

    def titles(self) -> list[str]:
        return [page.title for page in self.pages]

    def hashes(self) -> dict[str, str]:
        """Each page's address and its page hash (what a link to it carries)."""
        return {page.url_path: page._script_hash for page in self.pages}


@pytest.fixture
def menu(monkeypatch) -> Menu:
    """Records the app's menu at each run of the entry point (AppTest does not show it)."""
    import streamlit as st

    seen, navigation = Menu(), st.navigation

    def recording(pages, *args, **kwargs):
        seen.pages = [p for section in (pages.values() if isinstance(pages, dict) else [pages]) for p in section]
        return navigation(pages, *args, **kwargs)

    monkeypatch.setattr(st, "navigation", recording)
    return seen
