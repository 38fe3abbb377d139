"""Server memory while many sessions open the encoding heatmap at its largest settings at once.

    python -m benchmarks.memory                  # idle, one session, twenty sessions
    python -m benchmarks.memory --sessions 40    # another room size
    python -m benchmarks.run memory              # the same, as a section of make bench

Each measurement starts a fresh ``streamlit run`` server (``benchmarks.browser.AppServer``) and
samples its resident memory, with its children, every 20 ms (psutil) while tabs that speak
Streamlit's protocol (``benchmarks.protocol.client.Tab``) open their links. Reported: the idle
server's RSS once it answers, the peak while one tab opens ``/encoding_heatmap?n=4096&d=1024``,
and the peak while twenty open at once: half that link, the others the page's other largest
settings (the other layout, an odd width, the other first position, the smallest and largest
base, other columns), so that the room is not one cached view served twenty times. Every tab's
run must end without an exception or an error shown. Target: the twenty peak at <= 1.2 GiB.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import threading

import psutil

from benchmarks.browser import AppServer
from benchmarks.protocol.client import Tab

PAGE = "encoding_heatmap"
LARGEST = "n=4096&d=1024"
# the page's controls at their largest (pages/encoding_heatmap.py: n <= 4096, d <= 1024, base <= 10⁶,
# start 0 or 1, two layouts, up to 8 columns), each different from LARGEST and from each other
OTHERS = (
    "n=4096&d=1024&layout=tensor2tensor",
    "n=4096&d=1024&start=1",
    "n=4096&d=1023",
    "n=4096&d=1024&base=1000000",
    "n=4096&d=1023&layout=tensor2tensor&cols=0-7",
    "n=4096&d=1024&start=1&layout=tensor2tensor",
    "n=4096&d=1024&base=1000000&layout=tensor2tensor",
    "n=4096&d=1024&cols=1016-1023",
    "n=4096&d=1023&start=1",
    "n=4096&d=1024&base=2",
)
TARGET_GIB = 1.2
GIB, MIB = 2**30, 2**20


def room(sessions: int) -> list[str]:
    """The links ``sessions`` tabs open: half :data:`LARGEST`, the rest :data:`OTHERS` in turn."""
    half = (sessions + 1) // 2
    return [LARGEST] * half + [OTHERS[i % len(OTHERS)] for i in range(sessions - half)]


class Sampler(threading.Thread):
    """The resident memory of a process and its children, every ``every`` seconds, until stopped."""

    def __init__(self, pid: int, every: float = 0.02):
        super().__init__(daemon=True)
        self.proc, self.every, self.peak, self.samples = psutil.Process(pid), every, 0, 0
        self._halt = threading.Event()

    def rss(self) -> int:
        total = 0
        for p in [self.proc, *self.proc.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
        return total

    def run(self) -> None:
        while not self._halt.is_set():
            with contextlib.suppress(psutil.Error):
                self.peak = max(self.peak, self.rss())
                self.samples += 1
            self._halt.wait(self.every)

    def stop(self) -> int:
        self._halt.set()
        self.join()
        return self.peak


async def _open_all(url: str, links: list[str], timeout: float) -> list[str]:
    """Open every link in its own tab at once; the problems of each run (none: every run ended
    without an exception or an error shown)."""
    tabs = [Tab(url, timeout=timeout) for _ in links]

    async def one(tab: Tab, query: str) -> list[str]:
        try:
            result = await tab.open(PAGE, query)
        except Exception as err:  # noqa: BLE001 (a failed tab is reported, the others go on)
            return [f"?{query}: {type(err).__name__}: {err}"]
        return [f"?{query}: {problem}" for problem in result.exceptions + result.errors_shown]

    try:
        found = await asyncio.gather(*(one(tab, query) for tab, query in zip(tabs, links)))
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs), return_exceptions=True)
    return [problem for problems in found for problem in problems]


def measure(links: list[str], timeout: float = 300.0, env: dict | None = None) -> tuple[int, int, int, list[str]]:
    """On a fresh server: its RSS once it answers, the peak while ``links`` open at once, its
    RSS once every run has ended, and the problems of the runs."""
    with AppServer(env=env) as server:
        sampler = Sampler(server.pid)
        idle = sampler.rss()
        sampler.start()
        try:
            problems = asyncio.run(_open_all(server.url, links, timeout))
        finally:
            peak = sampler.stop()
        after = sampler.rss()
    return idle, peak, after, problems


def _line(label: str, peak: int) -> str:
    return (f"{label}: peak {peak / MIB:6.0f} MiB = {peak / GIB:5.2f} GiB | ratio to target "
            f"{peak / GIB / TARGET_GIB:4.2f} (target <= {TARGET_GIB} GiB)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"## server memory: {args.sessions} sessions open /{PAGE} at its largest settings at once "
          f"(target <= {TARGET_GIB} GiB)")
    idle, one, one_after, problems = measure([LARGEST])
    print(f"idle server after start: {idle / MIB:6.0f} MiB")
    print(_line(f"1 session  (?{LARGEST})", one) + f" | {one_after / MIB:.0f} MiB once the run ended")
    links = room(args.sessions)
    _, many, many_after, more = measure(links)
    print(_line(f"{args.sessions} sessions ({links.count(LARGEST)} at ?{LARGEST}, "
                f"{len(set(links)) - 1} other settings)", many) + f" | {many_after / MIB:.0f} MiB once the runs ended")
    problems += more
    print(f"runs with an exception or error shown: {len(problems)} of {1 + len(links)} (target 0)")
    for problem in problems[:10]:
        print(f"  {problem}")


if __name__ == "__main__":
    main()
