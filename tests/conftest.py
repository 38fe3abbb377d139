import os

import pytest
import torch
from hypothesis import settings

# CI draws the same examples on every run (a submission passes or fails on its code, not on the draw);
# a laptop explores fresh ones each run, and PEKIT_HYPOTHESIS_RANDOM=1 does so in CI too
settings.register_profile("fixed", derandomize=True, database=None)
if os.environ.get("CI") and not os.environ.get("PEKIT_HYPOTHESIS_RANDOM"):
    settings.load_profile("fixed")

# `make test` runs the fast tier on every core, one pytest worker per core (pytest-xdist): each
# worker computes with one torch thread, as each session of the app does, and numpy's BLAS on
# one thread too, so that the workers do not fight over the cores
if os.environ.get("PYTEST_XDIST_WORKER"):
    torch.set_num_threads(1)


def pytest_configure(config):
    """Before the workers start (they inherit the environment; a BLAS reads it when loaded)."""
    if getattr(config.option, "numprocesses", None) and not os.environ.get("PYTEST_XDIST_WORKER"):
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(variable, "1")

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
