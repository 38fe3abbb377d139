"""Drive the app in a real browser: start ``streamlit run`` on a free port, open pages in
Debian's Chromium through Playwright, wait for scripts to finish, time redraws.

Used by the browser tests (``tests/test_browser.py``) and the redraw/load benchmarks.
Playwright cannot download its own browsers here, so it launches ``/usr/bin/chromium``
(override with ``PEKIT_CHROMIUM``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("PEKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Streamlit's front end probes for a base path when a page is opened at a deep link
# (e.g. /encoding_heatmap/_stcore/health); those 404s are the framework's, not the app's.
_BASE_PATH_PROBES = ("/_stcore/health", "/_stcore/host-config")


def chromium_missing_reason() -> str | None:
    """Why browser tests cannot run here, or None when they can."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"Chromium not found at {CHROMIUM} (install Debian's 'chromium' package or set PEKIT_CHROMIUM)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the 'playwright' Python package is not installed"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """``streamlit run streamlit_app.py`` on a free local port, for the length of a ``with``."""

    def __init__(self, *, port: int | None = None, env: dict[str, str] | None = None, timeout: float = 90.0,
                 script: str = "streamlit_app.py", address: str = "127.0.0.1"):
        self.script = script
        self.address = address  # "0.0.0.0": every interface, as `make run` serves (the url stays loopback)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **(env or {})}
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> AppServer:
        cmd = [sys.executable, "-m", "streamlit", "run", self.script, "--server.port", str(self.port),
               "--server.address", self.address, "--server.headless", "true"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early:\n{self.proc.stdout.read()}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError(f"streamlit did not answer /_stcore/health within {self.timeout} s")

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class PageWatch:
    """Collects what a page does wrong: console errors, page errors, failed or foreign requests."""

    def __init__(self, page, server_url: str):
        self.page = page
        self.origin = server_url
        self.console_errors: list[str] = []
        self.foreign_requests: list[str] = []
        self.failed_requests: list[str] = []
        self.probe_404s = 0
        page.on("console", lambda msg: self.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda err: self.console_errors.append(f"uncaught: {err}"))
        page.on("request", self._on_request)
        page.on("requestfailed", lambda r: self.failed_requests.append(r.url))
        page.on("response", self._on_response)

    def _on_response(self, response) -> None:
        if response.status == 404 and response.url.endswith(_BASE_PATH_PROBES):
            self.probe_404s += 1

    def _on_request(self, request) -> None:
        url = request.url
        if not (url.startswith(self.origin) or url.startswith(("data:", "blob:", "about:"))):
            self.foreign_requests.append(url)

    def problems(self) -> list[str]:
        errors = list(self.console_errors)
        for _ in range(self.probe_404s):  # the console echo of each base-path probe
            echo = next((e for e in errors if "status of 404" in e), None)
            if echo is not None:
                errors.remove(echo)
        out = [f"console error: {e}" for e in errors]
        out += [f"request outside the app: {u}" for u in self.foreign_requests]
        out += [f"failed request: {u}" for u in self.failed_requests]
        return out


INSTALL_STATE_LOG = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || window.__pekitStates) return;
  window.__pekitStates = [];
  new MutationObserver(() => window.__pekitStates.push(
      [performance.now(), app.getAttribute('data-test-script-state')]))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


# JavaScript conditions shared by the sync helpers here and the async load script
SCRIPT_DONE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
         && document.querySelector('[data-testid="stMain"] h1');
}"""
DRAWN_JS = """() => !document.querySelector('[data-testid="stSkeleton"]')
  && [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].every(c => c.querySelector('canvas, svg'))"""
NEXT_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))"
# A rerun is over when the app is idle again and either a 'running' state was seen after the
# action or the address changed (a fast rerun can go from running to idle within one render, so
# 'running' may never reach the DOM; every settings change rewrites the link).
RERUN_DONE_JS = """([t0, href0]) => document.querySelector('[data-testid="stApp"]')
    .getAttribute('data-test-script-state') === 'notRunning'
  && ((window.__pekitStates || []).some(([t, s]) => t > t0 && s === 'running') || location.href !== href0)"""


# The end of a redraw is the paint after the last change to the page. "Every chart has a canvas"
# is not enough: vega reuses the canvas element when a chart gets a new spec, so the old picture
# satisfies that test while the new one is still being computed. Each DOM change is logged with
# the time of the frame painted after it; a redraw is over once the page has been quiet for
# QUIET_MS, and it ended at that last paint. (Idle pages make no DOM changes.)
QUIET_MS = 300
INSTALL_PAINT_LOG = """() => {
  if (window.__pekitPaintObserver) return;
  window.__pekitPainted = performance.now();
  window.__pekitChanged = performance.now();
  window.__pekitPaintObserver = new MutationObserver(() => {
    window.__pekitChanged = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__pekitPainted = performance.now(); }, 0));
  });
  window.__pekitPaintObserver.observe(document.querySelector('[data-testid="stApp"]') || document.body,
                                      {subtree: true, childList: true, attributes: true, characterData: true});
}"""
QUIET_JS = """(ms) => performance.now() - Math.max(window.__pekitPainted, window.__pekitChanged) > ms"""
LAST_PAINT_JS = "() => window.__pekitPainted"


def wait_for_script(page, timeout_ms: float = 60_000) -> None:
    """Wait until the app has run its script and rendered the main area."""
    page.wait_for_function(SCRIPT_DONE_JS, timeout=timeout_ms)
    page.evaluate(INSTALL_STATE_LOG)
    settle(page)


def settle(page) -> None:
    """Let pending renders reach the screen: lazily loaded elements (shown as skeletons until
    their code arrives) and charts, which vega draws asynchronously."""
    page.wait_for_function(DRAWN_JS, timeout=30_000)
    page.evaluate(NEXT_FRAMES_JS)


def timed_interaction(page, action, timeout_ms: float = 60_000) -> float:
    """Run ``action()`` (e.g. a key press on a slider) and return the seconds until the
    rerun it triggers has finished and the last change it made to the page was painted."""
    page.evaluate(INSTALL_STATE_LOG)
    page.evaluate(INSTALL_PAINT_LOG)
    page.wait_for_function(QUIET_JS, arg=QUIET_MS, timeout=timeout_ms)
    t0, href0 = page.evaluate("() => [performance.now(), location.href]")
    action()
    page.wait_for_function(RERUN_DONE_JS, arg=[t0, href0], timeout=timeout_ms)
    settle(page)
    page.wait_for_function(QUIET_JS, arg=QUIET_MS, timeout=timeout_ms)
    return (page.evaluate(LAST_PAINT_JS) - t0) / 1000.0


def slider_thumb(page, label: str):
    """The draggable thumb of the slider whose label is ``label``."""
    box = page.locator('[data-testid="stSlider"]').filter(has_text=label)
    return box.locator('input[type="range"]').first
