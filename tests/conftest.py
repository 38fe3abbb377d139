import os

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
