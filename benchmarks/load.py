"""A workshop in a box: N attendees open the app at once and click through every page.

    python -m benchmarks.load --sessions 50

Starts ``streamlit run`` on a free local port, then drives N concurrent Chromium sessions
(one browser context each: separate cookies, websocket and renderer) through a tour of all
pages with one interaction per page. Reports per-interaction and page-load latency (p50, p95,
max), errors (exceptions on a page, console errors, failed or foreign requests, timeouts) and
the server's peak resident memory, sampled with psutil (the server and its children).
Everything runs on this machine against loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.browser import (  # noqa: E402
    CHROMIUM, CHROMIUM_ARGS, DRAWN_JS, INSTALL_STATE_LOG, NEXT_FRAMES_JS, RERUN_DONE_JS, SCRIPT_DONE_JS, AppServer,
)

# (page, how to interact) for every page of the lab
TOUR = [
    ("", None),
    ("encoding_heatmap", ("slider", "Positions n", "ArrowLeft")),
    ("binary_analogy", ("slider", "Bits", "ArrowLeft")),
    ("offset_rotation", ("slider", "Offset δ", "ArrowRight")),
    ("complexity_comparison", ("slider", "Kernel size k", "ArrowRight")),
    ("live_attention", ("text", "Your sentence", "the cat sat on the mat because it was warm")),
]


class RssSampler(threading.Thread):
    """Samples the resident memory of a process and its children until stopped."""

    def __init__(self, pid: int, every: float = 0.25):
        super().__init__(daemon=True)
        self.proc, self.every, self.peak, self._halt = psutil.Process(pid), every, 0, threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
                self.peak = max(self.peak, sum(p.memory_info().rss for p in procs))
            except psutil.Error:
                pass
            self._halt.wait(self.every)

    def stop(self) -> int:
        self._halt.set()
        self.join()
        return self.peak


async def wait_drawn(page, timeout: float) -> None:
    await page.wait_for_function(DRAWN_JS, timeout=timeout)
    await page.evaluate(NEXT_FRAMES_JS)


async def attendee(browser, url: str, index: int, results: dict, timeout: float, start_delay: float) -> None:
    await asyncio.sleep(start_delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" and "404" not in m.text else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: problems.append(f"foreign request: {r.url}")
            if not r.url.startswith((url, "data:", "blob:", "about:")) else None)
    try:
        for path, action in TOUR:
            t0 = time.perf_counter()
            await page.goto(f"{url}/{path}", timeout=timeout, wait_until="commit")
            await page.wait_for_function(SCRIPT_DONE_JS, timeout=timeout)
            await wait_drawn(page, timeout)
            results["loads"].append(time.perf_counter() - t0)
            if action:
                await page.evaluate(INSTALL_STATE_LOG)
                start = await page.evaluate("() => [performance.now(), location.href]")
                kind, label, value = action
                t0 = time.perf_counter()
                if kind == "slider":
                    thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).locator('input[type="range"]').first
                    await thumb.focus()
                    await thumb.press(value)
                else:
                    box = page.get_by_role("textbox", name=label)
                    await box.fill(f"{value} {index}")
                    await box.press("Enter")
                await page.wait_for_function(RERUN_DONE_JS, arg=start, timeout=timeout)
                await wait_drawn(page, timeout)
                results["interactions"].append(time.perf_counter() - t0)
            if await page.locator('[data-testid="stException"]').count():
                problems.append(f"exception shown on /{path}")
    except Exception as err:  # a timeout or a crash counts as an error, the load goes on
        problems.append(f"{type(err).__name__}: {str(err).splitlines()[0][:200]}")
    finally:
        results["errors"].extend(f"session {index}: {p}" for p in problems)
        await context.close()


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))] if values else float("nan")


async def run_load(sessions: int, *, ramp: float = 2.0, timeout: float = 120.0, seed: int = 0) -> dict:
    """Run the tour with ``sessions`` concurrent attendees (starts spread over ``ramp`` seconds)."""
    from playwright.async_api import async_playwright

    results: dict = {"loads": [], "interactions": [], "errors": []}
    rng = random.Random(seed)
    with AppServer() as server:
        sampler = RssSampler(server.pid)
        sampler.start()
        t0 = time.perf_counter()
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                await asyncio.gather(*(attendee(browser, server.url, i, results, timeout * 1000, rng.uniform(0, ramp))
                                       for i in range(sessions)))
                await browser.close()
        finally:
            results["peak_rss"] = sampler.stop()
            results["seconds"] = time.perf_counter() - t0
    return results


def report(sessions: int, results: dict) -> str:
    inter, loads = results["interactions"], results["loads"]
    lines = [
        f"sessions {sessions} | tour of {len(TOUR)} pages, {sum(1 for _, a in TOUR if a)} interactions each | "
        f"{results['seconds']:.1f} s in all",
        f"interaction latency: p50 {statistics.median(inter) if inter else float('nan'):.2f} s, "
        f"p95 {percentile(inter, 0.95):.2f} s, max {max(inter, default=float('nan')):.2f} s "
        f"({len(inter)} measured; target p95 < 2 s)",
        f"page load latency:   p50 {statistics.median(loads) if loads else float('nan'):.2f} s, "
        f"p95 {percentile(loads, 0.95):.2f} s, max {max(loads, default=float('nan')):.2f} s ({len(loads)} loads)",
        f"errors: {len(results['errors'])} (target 0)",
        f"server peak RSS: {results['peak_rss'] / 2**20:.0f} MiB (target < 1536 MiB)",
    ]
    lines += [f"  {e}" for e in results["errors"][:20]]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--ramp", type=float, default=5.0, help="seconds over which the sessions start")
    args = parser.parse_args()
    outcome = asyncio.run(run_load(args.sessions, ramp=args.ramp))
    print(report(args.sessions, outcome))
