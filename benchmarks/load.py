"""A workshop in a box, in real browsers: N Chromium sessions open the app and click through
every page. An optional smoke script (pytest does not run it): at workshop scale the browsers,
not the server, fill a small machine, so the server's load is measured with
``benchmarks.protocol_load``, which speaks Streamlit's protocol without a browser.

    python -m benchmarks.load --sessions 3

Starts ``streamlit run`` on a free local port, then drives N concurrent Chromium sessions
(one browser context each: separate cookies, websocket and renderer). Each opens the app,
then moves through every page with the sidebar and makes each page's interaction, reading
for a while (``--think``) before each click. Reports the latency of every click (p50, p95,
max: from the click to the paint after the last change it made), of the first load,
errors (exceptions on a page, console errors, failed or foreign requests, timeouts) and the
server's peak resident memory, sampled with psutil (the server and its children).
Everything runs on this machine against loopback only, so the attendees' browsers share its
cores with the server: at a real workshop each browser has a laptop of its own.
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


from benchmarks.browser import (  # noqa: E402
    CHROMIUM, CHROMIUM_ARGS, DRAWN_JS, INSTALL_PAINT_LOG, INSTALL_STATE_LOG, LAST_PAINT_JS, NEXT_FRAMES_JS, QUIET_JS,
    QUIET_MS, RERUN_DONE_JS, SCRIPT_DONE_JS, AppServer,
)

# (page title in the sidebar, the interactions made on it): the first page is opened by its
# address, each later one by a click in the sidebar, as an attendee moves through the lab
TOUR = [
    ("Home", []),
    ("Encoding heatmap", [("slider", "Positions n", "ArrowLeft")]),
    ("Binary analogy", [("slider", "Bits", "ArrowLeft")]),
    ("Offset rotation", [("slider", "Offset δ", "ArrowRight")]),
    ("Complexity comparison", [("slider", "Kernel size k", "ArrowRight")]),
    ("Live attention", [("text", "Your sentence", "the cat sat on the mat because it was warm"),
                        ("tab", "Masking", None)]),
]
SWITCHES = len(TOUR) - 1  # page changes through the sidebar
INTERACTIONS = sum(len(actions) for _, actions in TOUR)


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


async def act(page, action, index: int) -> None:
    kind, label, value = action
    if kind == "slider":
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).locator('input[type="range"]').first
        await thumb.focus()
        await thumb.press(value)
    elif kind == "text":
        box = page.get_by_role("textbox", name=label)
        await box.fill(f"{value} {index}")
        await box.press("Enter")
    elif kind == "tab":
        await page.get_by_role("tab", name=label).click()
    else:  # "page": a link in the sidebar
        await page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"] a').filter(has_text=label).first.click()


async def timed(page, action, index: int, timeout: float) -> float:
    """Seconds from the action to the paint after the last change it made to the page (the
    method of benchmarks.browser.timed_interaction)."""
    await page.evaluate(INSTALL_STATE_LOG)
    await page.evaluate(INSTALL_PAINT_LOG)
    await page.wait_for_function(QUIET_JS, arg=QUIET_MS, timeout=timeout)
    start = await page.evaluate("() => [performance.now(), location.href]")
    await act(page, action, index)
    await page.wait_for_function(RERUN_DONE_JS, arg=start, timeout=timeout)
    await wait_drawn(page, timeout)
    await page.wait_for_function(QUIET_JS, arg=QUIET_MS, timeout=timeout)
    return (await page.evaluate(LAST_PAINT_JS) - start[0]) / 1000.0


async def attendee(browser, url: str, index: int, results: dict, timeout: float, start_delay: float,
                   think: float) -> None:
    """One attendee: opens the app, then reads each page for ``think`` seconds on average (half
    to one and a half times that, at random) before each click."""
    rng = random.Random(index)
    await asyncio.sleep(start_delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" and "404" not in m.text else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: problems.append(f"foreign request: {r.url}")
            if not r.url.startswith((url, "data:", "blob:", "about:")) else None)
    doing = "first load"
    try:
        t0 = time.perf_counter()
        await page.goto(url, timeout=timeout, wait_until="commit")
        await page.wait_for_function(SCRIPT_DONE_JS, timeout=timeout)
        await wait_drawn(page, timeout)
        results["loads"].append(time.perf_counter() - t0)
        for position, (title, actions) in enumerate(TOUR):
            steps = ([("page", title, None)] if position else []) + actions
            for step in steps:
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                doing = f"{step[0]} {step[1]!r} on {title}"
                seconds = await timed(page, step, index, timeout)
                results["switches" if step[0] == "page" else "interactions"].append(seconds)
            if await page.locator('[data-testid="stException"]').count():
                problems.append(f"exception shown on {title}")
    except Exception as err:  # a timeout or a crash counts as an error, the load goes on
        problems.append(f"{doing}: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
    finally:
        results["errors"].extend(f"session {index}: {p}" for p in problems)
        await context.close()


def cpu_seconds(procs) -> float:
    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def machine_busy_seconds() -> float:
    """CPU seconds this machine has spent on anything but idling, over all cores. (Counting the
    browsers process by process would miss every renderer that has exited.)"""
    t = psutil.cpu_times()
    return sum(getattr(t, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq", "steal"))


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))] if values else float("nan")


async def run_load(sessions: int, *, ramp: float = 2.0, think: float = 0.0, timeout: float = 120.0,
                   seed: int = 0) -> dict:
    """Run the tour with ``sessions`` concurrent attendees (starts spread over ``ramp`` seconds,
    ``think`` seconds of reading before each click on average)."""
    from playwright.async_api import async_playwright

    results: dict = {"loads": [], "switches": [], "interactions": [], "errors": []}
    rng = random.Random(seed)
    with AppServer() as server:
        sampler = RssSampler(server.pid)
        sampler.start()
        server_procs = [psutil.Process(server.pid)]
        server_cpu, busy = cpu_seconds(server_procs), machine_busy_seconds()
        t0 = time.perf_counter()
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                await asyncio.gather(*(attendee(browser, server.url, i, results, timeout * 1000, rng.uniform(0, ramp),
                                                think) for i in range(sessions)))
                await browser.close()
        finally:
            results["peak_rss"] = sampler.stop()
            results["seconds"] = time.perf_counter() - t0
            results["server_cpu"] = cpu_seconds(server_procs) - server_cpu
            results["machine_cpu"] = machine_busy_seconds() - busy
    return results


def summary(values: list[float]) -> str:
    if not values:
        return "none measured"
    return (f"p50 {statistics.median(values):.2f} s, p95 {percentile(values, 0.95):.2f} s, "
            f"max {max(values):.2f} s ({len(values)} measured)")


def report(sessions: int, results: dict, think: float = 0.0) -> str:
    clicks = results["switches"] + results["interactions"]
    lines = [
        f"sessions {sessions} | tour of {len(TOUR)} pages: {SWITCHES} page changes and {INTERACTIONS} interactions "
        f"each, {think:g} s of reading before each on average | {results['seconds']:.1f} s in all",
        f"every click (page change or interaction): {summary(clicks)}; target p95 < 2 s",
        f"  page changes:    {summary(results['switches'])}",
        f"  interactions:    {summary(results['interactions'])}",
        f"first load (whole app: scripts, styles, websocket): {summary(results['loads'])}",
        f"errors: {len(results['errors'])} (target 0)",
        f"server peak RSS: {results['peak_rss'] / 2**20:.0f} MiB (target < 1536 MiB)",
        f"CPU time: {results['machine_cpu']:.0f} s used on this machine's {psutil.cpu_count()} cores in "
        f"{results['seconds']:.0f} s ({results['machine_cpu'] / (psutil.cpu_count() * results['seconds']):.0%} busy): "
        f"the server {results['server_cpu']:.0f} s, the attendees' browsers and the driver the other "
        f"{results['machine_cpu'] - results['server_cpu']:.0f} s",
        f"server CPU per request (first loads, page changes, interactions): "
        f"{results['server_cpu'] / max(1, len(results['loads']) + len(clicks)) * 1e3:.0f} ms",
    ]
    lines += [f"  {e}" for e in results["errors"][:20]]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--ramp", type=float, default=20.0, help="seconds over which the sessions start")
    parser.add_argument("--think", type=float, default=10.0,
                        help="seconds an attendee reads before each click, on average (0: click as fast as possible)")
    args = parser.parse_args()
    outcome = asyncio.run(run_load(args.sessions, ramp=args.ramp, think=args.think))
    print(report(args.sessions, outcome, args.think))
