import pytest
import torch

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    """Every device this machine has: the CPU, plus CUDA where present."""
    return request.param


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
