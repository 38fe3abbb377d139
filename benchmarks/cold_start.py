"""Cold start, as a hosted app waking up for a class: from launching ``streamlit run`` to the home
page's first picture drawn in Chromium.

    python -m benchmarks.cold_start --launches 3

Chromium is started first (a workshop's browsers are already open); the clock starts with the
server process and stops when the home page's chart has drawn its canvas. The first launch of a
run reads the files from disk as the operating system has them; the launches after it find them
in the file cache (a relaunch). Before the first launch the app is put back as a fresh install
leaves it: the bytecode of its own modules (``lab``, ``pekit``, ``pages``) is removed, and the
operating system's file cache is dropped where the user may (root on Linux), as on a host that
wakes a sleeping app. Reports each launch, the median relaunch, and the split: server up
(``/_stcore/health``) and page drawn.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

from benchmarks.browser import ROOT, chromium_missing_reason, free_port, launch

TARGET_SECONDS = 3.0
PICTURE_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
    .some(c => c.querySelector('canvas, svg'))"""


APP_PACKAGES = ("lab", "pekit", "pages")


def as_after_install() -> tuple[int, bool]:
    """The app as a fresh install leaves it: (bytecode folders of its own modules removed, whether
    the operating system's file cache was dropped)."""
    removed = 0
    for package in APP_PACKAGES:
        for folder in sorted((ROOT / package).rglob("__pycache__")):
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    try:  # (as root this drops the whole host's file cache, as a restart would)
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as caches:
            caches.write("3\n")
    except (OSError, AttributeError):  # not Linux, or not permitted
        return removed, False
    return removed, True


def one_launch(browser) -> tuple[float, float]:
    """(seconds to a healthy server, seconds to the home page's first picture), from the launch."""
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        while True:
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            if proc.poll() is not None or time.perf_counter() - t0 > 120:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        healthy = time.perf_counter() - t0
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(PICTURE_JS, timeout=120_000, polling="raf")
        drawn = time.perf_counter() - t0
        context.close()
        return healthy, drawn
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--launches", type=int, default=3)
    args = parser.parse_args(argv)
    reason = chromium_missing_reason()
    if reason:
        print(f"cold start: skipped ({reason})")
        return 0
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        removed, dropped = as_after_install()
        runs = [one_launch(browser) for _ in range(max(2, args.launches))]
        browser.close()
    print("## Cold start: launch to the home page's first picture in Chromium (1280 × 720)")
    for i, (healthy, drawn) in enumerate(runs):
        what = "first launch, as after install" if i == 0 else "relaunch (files cached)"
        print(f"{what:30s} server up {healthy:5.2f} s | picture drawn {drawn:5.2f} s")
    print(f"(before the first launch: bytecode folders of the app removed: {removed}"
          f"{'; the servers write none here (PYTHONDONTWRITEBYTECODE), so every launch compiles the app' if os.environ.get('PYTHONDONTWRITEBYTECODE') else ''}; "
          f"the file cache {'dropped' if dropped else 'kept: dropping it is not permitted here'})")
    relaunch = statistics.median(drawn for _, drawn in runs[1:])
    print(f"median relaunch {relaunch:.2f} s | target <= {TARGET_SECONDS:g} s: ratio {relaunch / TARGET_SECONDS:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
