"""A workshop room measured at the server: N simulated attendees speak Streamlit's protocol.

    python -m benchmarks.protocol_load --attendees 100 --think 5 --ramp 30 --duration 120
    python -m benchmarks.protocol_load --replicas 1 ...                  # one process behind nginx
    python -m benchmarks.protocol_load --replicas 2 --attendees 200 ...   # through nginx (deploy/)
    python -m benchmarks.protocol_load --replicas 2 --fault-at 60 ...     # stop one replica at 60 s
    python -m benchmarks.protocol_load --url http://127.0.0.1:8501        # a server already running
    python -m benchmarks.protocol_load --compare-with-chromium            # one attendee vs Chromium

Each attendee is one browser tab as the server sees it (``benchmarks.protocol.client``): it
opens the app's link (HTTP, XSRF cookie, websocket), reads the pages from the server's
navigation message, and tours them in navigation order, over and over until the run ends.
On each page it changes one or two widgets found in what the server sent (a slider step,
another option, a new sentence, another tab), reading ``--think`` seconds on average (half
to one and a half times that, at random) before every click. A fraction of attendees
(``--heavy``) also press the complexity page's Measure button, a sweep of forward-pass
timings. Every action is timed from its first byte to the server's end-of-run message.

Reported per action kind (first load, page change, widget change, heavy): p50/p95/p99/max
latency and counts; errors (exceptions shown, actions unanswered, disconnects, widget changes
that changed nothing on the page); actions per second; the server's CPU per action and peak
resident memory (per server process: its CPU clock, to the nanosecond, and psutil); and this generator's own CPU. Everything runs
against loopback; every loop is bounded by ``--duration``, ``--max-actions`` and a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import statistics
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.protocol.client import ActionFailed, Tab  # noqa: E402

KINDS = ("first load", "page change", "widget change", "heavy")
TARGETS = {"p95": 1.0, "p99": 2.0, "rss_mib": 1024.0, "cpu_ms": 25.0}


@dataclass
class Action:
    attendee: int
    kind: str
    page: str
    start: float  # seconds since the run began
    seconds: float | None  # None: unanswered
    error: str = ""
    what: str = ""
    changed: bool | None = None  # widget changes: did the page show something new
    outside_tabs: bool = False  # the widget sits above the page's tabs (may feed a closed tab only)
    exceptions: list = field(default_factory=list)
    errors_shown: list = field(default_factory=list)
    mismatches: list = field(default_factory=list)
    reconnected: bool = False
    lost_change: str = ""
    server: str = ""
    server_cpu: float | None = None  # seconds, measured alone (one attendee)


@dataclass
class Config:
    attendees: int = 10
    think: float = 5.0
    ramp: float = 30.0
    duration: float = 120.0
    timeout: float = 60.0
    heavy: float = 0.0  # fraction of visits to a page with the heavy button that press it
    heavy_button: str = "Measure"  # label of the button that starts a heavy action
    changes: tuple[int, int] = (1, 2)
    max_actions: int = 1000  # per attendee
    seed: int = 0
    fetch_assets: bool = True
    link: str = ""  # path?query of the link attendees open


def process_cpu_seconds(pid: int) -> float | None:
    """CPU seconds process ``pid`` has used, all its threads together, finished ones included,
    to the nanosecond: the process's CPU-time clock (what ``clock_getcpuclockid(3)`` returns,
    built here as the kernel encodes it: the pid inverted, shifted by 3, clock 2 = scheduler
    time). None where the clock cannot be read (not Linux, or the process is gone)."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except (OSError, OverflowError, AttributeError):
        return None


class ServerProbe(threading.Thread):
    """Samples each server process (with its children): peak resident memory, CPU seconds."""

    def __init__(self, pids: dict[str, int], every: float = 0.25):
        super().__init__(daemon=True)
        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.every = every
        self.peak = {name: 0 for name in pids}
        self.cpu0 = {name: self.cpu(name) for name in pids}
        self.cpu1 = dict(self.cpu0)
        self.me = psutil.Process()
        self.series: list[tuple[float, float, float]] = []  # (time, machine busy s, servers + generator s)
        self._halt = threading.Event()

    def _tree(self, name):
        proc = self.procs[name]
        return [proc, *proc.children(recursive=True)]

    def cpu(self, name: str) -> float:
        """CPU seconds of the server and its children: the process CPU clocks count nanoseconds;
        psutil's user and system times count clock ticks (10 ms), too coarse for one action,
        and stand in where a clock cannot be read."""
        total = 0.0
        try:
            tree = self._tree(name)
        except psutil.Error:  # the server itself is gone
            return total
        for p in tree:
            with contextlib.suppress(psutil.Error):  # a child that ends meanwhile costs only its own part
                seconds = process_cpu_seconds(p.pid)
                if seconds is None:
                    t = p.cpu_times()
                    seconds = t.user + t.system
                total += seconds
        return total

    def run(self) -> None:
        while not self._halt.is_set():
            for name in self.procs:
                with contextlib.suppress(psutil.Error):
                    self.peak[name] = max(self.peak[name], sum(p.memory_info().rss for p in self._tree(name)))
                    self.cpu1[name] = self.cpu(name)
            t = self.me.cpu_times()
            self.series.append((time.perf_counter(), machine_busy_seconds(),
                                sum(self.cpu1.values()) + t.user + t.system))
            self._halt.wait(self.every)

    def stop(self) -> None:
        self._halt.set()
        self.join()


async def attendee(index: int, url: str, cfg: Config, t0: float, actions: list[Action], tabs: list,
                   probe: ServerProbe | None) -> None:
    rng = random.Random(cfg.seed * 100_003 + index)
    await asyncio.sleep(rng.uniform(0, cfg.ramp) if cfg.attendees > 1 else 0)
    deadline = t0 + cfg.duration
    tab = Tab(url, timeout=cfg.timeout, fetch_assets=cfg.fetch_assets, rng=rng)
    tabs.append(tab)
    alone = probe is not None and cfg.attendees == 1 and "server" in probe.procs
    done = 0

    async def act(kind: str, page: str, coro, what: str = "", before: dict | None = None,
                  outside_tabs: bool = False) -> bool:
        nonlocal done
        done += 1
        cpu0 = probe.cpu("server") if alone else None
        rec = Action(index, kind, page, time.perf_counter() - t0, None, what=what, outside_tabs=outside_tabs)
        actions.append(rec)
        try:
            result = await coro
        except (ActionFailed, OSError) as err:
            rec.error = f"{type(err).__name__}: {err}"[:300]
            return False
        rec.seconds, rec.exceptions, rec.errors_shown = result.seconds, result.exceptions, result.errors_shown
        rec.mismatches, rec.reconnected, rec.server = result.widget_mismatches, result.reconnected, result.server
        rec.lost_change = result.lost_change
        if alone:
            await asyncio.sleep(0.1)  # the server's work after its last message (cleanup) counts too
            rec.server_cpu = probe.cpu("server") - cpu0
        if before is not None:
            strip = lambda sig: {k: v for k, v in sig.items() if k != "query"}  # noqa: E731
            rec.changed = strip(before) != strip(result.signature)
        return True

    def think() -> float:
        return rng.uniform(0.5 * cfg.think, 1.5 * cfg.think)

    path, _, query = cfg.link.partition("?")
    try:
        if not await act("first load", path or "/", tab.open(path.strip("/"), query)):
            return
        tab.start_timers()  # a page's timed fragments and the class's waiting component run as the browser runs them
        if not tab.pages:
            actions.append(Action(index, "crash", "", time.perf_counter() - t0, None, error="no navigation message"))
            return
        position = next((i for i, p in enumerate(tab.pages) if p.script_hash == tab.page_hash), 0)
        while done < cfg.max_actions:
            position = (position + 1) % len(tab.pages)
            page = tab.pages[position]
            await asyncio.sleep(think())
            if time.perf_counter() >= deadline:
                break
            if not await act("page change", page.name, tab.goto(page)):
                continue
            for _ in range(rng.randint(*cfg.changes)):
                options = tab.changes()
                if not options:
                    break
                change = rng.choice(options)
                await asyncio.sleep(think())
                if time.perf_counter() >= deadline:
                    break
                await act("widget change", page.name, tab.change(change), what=change.describe(),
                          before=tab.signature(), outside_tabs=tab.outside_open_tab(change.widget_id))
            button = tab.button(cfg.heavy_button) if cfg.heavy > 0 else None
            if button is not None and rng.random() < cfg.heavy:
                await asyncio.sleep(think())
                if time.perf_counter() < deadline:
                    await act("heavy", page.name, tab.press(button), what=f"press {cfg.heavy_button}")
            if time.perf_counter() >= deadline:
                break
    except Exception as err:  # a fault of this generator: recorded, the room goes on
        actions.append(Action(index, "crash", "", time.perf_counter() - t0, None, error=f"{type(err).__name__}: {err}"))
    finally:
        await tab.close()


def machine_busy_seconds() -> float:
    """CPU seconds this machine spent on anything but idling, over all cores."""
    t = psutil.cpu_times()
    return sum(getattr(t, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq", "steal"))


def others_by_second(series: list[tuple[float, float, float]], t0: float) -> list[float]:
    """Cores used by other processes (not the servers, not this generator) in each second
    of the run: on a shared machine, the quiet seconds give the cleaner latencies."""
    out: list[float] = []
    for (ta, ma, oa), (tb, mb, ob) in zip(series, series[1:]):
        second = int(tb - t0)
        if second < 0:
            continue
        while len(out) <= second:
            out.append(0.0)
        out[second] += max(0.0, (mb - ma) - (ob - oa))
    return out


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = q * (len(values) - 1)
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def latency_line(values: list[float]) -> str:
    if not values:
        return "none"
    return (f"p50 {statistics.median(values):.3f} s  p95 {percentile(values, 0.95):.3f} s  "
            f"p99 {percentile(values, 0.99):.3f} s  max {max(values):.3f} s  ({len(values)})")


async def warm_up(url: str, rounds: int = 1) -> None:
    """One attendee tours every page and makes every change once (not measured): a server
    that has been up for a while has imported its modules and filled its caches."""
    for r in range(rounds):
        tab = Tab(url, rng=random.Random(-1 - r))
        try:
            await tab.open()
            for page in tab.pages[1:] + tab.pages[:1]:
                await tab.goto(page)
                for change in tab.changes():
                    await tab.change(change)
        finally:
            await tab.close()


async def run_room(url: str, cfg: Config, *, server_pids: dict[str, int], fault=None, warm: bool = True,
                   warm_urls: list[str] | None = None) -> dict:
    """Run ``cfg.attendees`` attendees against ``url``; ``server_pids`` names the server
    processes to watch; ``fault`` is an optional ``(seconds, callable)`` run in the middle
    (called with the server each attendee is connected to; returns what it stopped);
    ``warm_urls`` are the servers to warm up first (default ``url``; each replica directly)."""
    if warm:
        for u in warm_urls or [url]:
            await warm_up(u)
    probe = ServerProbe(server_pids)
    probe.start()
    proc = psutil.Process()
    gen_cpu0 = proc.cpu_times()
    machine0 = machine_busy_seconds()
    actions: list[Action] = []
    tabs: list[Tab] = []
    t0 = time.perf_counter()
    fault_info: dict = {}

    async def inject():
        seconds, fn = fault
        await asyncio.sleep(seconds)
        fault_info["at"] = time.perf_counter() - t0
        fault_info["stopped"] = fn([t.server for t in tabs])

    try:
        tasks = [attendee(i, url, cfg, t0, actions, tabs, probe) for i in range(cfg.attendees)]
        if fault is not None:
            tasks.append(inject())
        await asyncio.gather(*tasks)
    finally:
        wall = time.perf_counter() - t0
        probe.stop()
    gen = proc.cpu_times()
    gen_cpu = (gen.user - gen_cpu0.user) + (gen.system - gen_cpu0.system)
    machine = machine_busy_seconds() - machine0
    return {
        "config": asdict(cfg), "url": url, "wall": wall, "actions": [asdict(a) for a in actions],
        "server_cpu": {n: probe.cpu1[n] - probe.cpu0[n] for n in probe.procs},
        "peak_rss": dict(probe.peak), "generator_cpu": gen_cpu, "fault": fault_info,
        "machine_cpu": machine, "cores": psutil.cpu_count(),
        "others": others_by_second(probe.series, t0),
        "disconnects": sum(t.disconnects for t in tabs),
        "reconnects": [s for t in tabs for s in t.reconnects],
        "protocol_errors": [e for t in tabs for e in t.protocol_errors],
        "final_servers": [t.server for t in tabs],
    }


def summarize(out: dict, *, p95_target: float = TARGETS["p95"]) -> str:
    acts = [Action(**a) for a in out["actions"]]
    answered = [a for a in acts if a.seconds is not None]
    wall = out["wall"]
    cfg = out["config"]
    lines = [f"{cfg['attendees']} attendees, think {cfg['think']:g} s, ramp {cfg['ramp']:g} s, duration "
             f"{cfg['duration']:g} s, heavy {cfg['heavy']:g} | {out['url']} | {wall:.1f} s"]
    for kind in KINDS:
        xs = [a.seconds for a in answered if a.kind == kind]
        if xs or kind != "heavy":
            lines.append(f"  {kind:<14} {latency_line(xs)}")
    light = [a.seconds for a in answered if a.kind != "heavy"]
    p95, p99 = percentile(light, 0.95), percentile(light, 0.99)
    lines.append(f"  every action but heavy: {latency_line(light)}")
    lines.append(f"    p95 {p95:.3f} s = {p95 / p95_target:.2f} x target {p95_target:g} s; "
                 f"p99 {p99:.3f} s = {p99 / TARGETS['p99']:.2f} x target {TARGETS['p99']:g} s")
    heavy = [(a.start, a.start + a.seconds) for a in answered if a.kind == "heavy"]
    if heavy:
        during = [a.seconds for a in answered if a.kind != "heavy"
                  and any(s < a.start + a.seconds and a.start < e for s, e in heavy)]
        outside = [a.seconds for a in answered if a.kind != "heavy"
                   and not any(s < a.start + a.seconds and a.start < e for s, e in heavy)]
        lines.append(f"  others while a heavy action ran: {latency_line(during)}")
        lines.append(f"  others with none running:        {latency_line(outside)}")
    unanswered = [a for a in acts if a.seconds is None]
    exceptions = [a for a in answered if a.exceptions]
    lost = [a for a in answered if a.lost_change]
    nochange = [a for a in answered if a.kind == "widget change" and a.changed is False and not a.lost_change]
    closed_tab = [a for a in nochange if a.outside_tabs]
    unchanged = [a for a in nochange if not a.outside_tabs]
    mismatched = [a for a in answered if a.mismatches]
    errors = (len(unanswered) + len(exceptions) + len(unchanged) + len(mismatched) + len(lost)
              + len(out["protocol_errors"]))
    lines.append(f"  errors {errors} (target 0): unanswered {len(unanswered)}, exceptions shown {len(exceptions)}, "
                 f"widget changes that changed nothing {len(unchanged)}, wrong view {len(mismatched)}, "
                 f"changes lost after a reconnect {len(lost)}, protocol {len(out['protocol_errors'])}; "
                 f"disconnects {out['disconnects']}")
    shown = [a for a in answered if a.errors_shown]
    if shown:
        lines.append(f"  st.error messages shown by the app (bad settings, not failures): {len(shown)}")
    changes = [a for a in answered if a.kind == "widget change"]
    lines.append(f"  {len(answered)} actions answered, {len(answered) / wall:.2f} per s; widget changes that "
                 f"changed the page: {sum(1 for a in changes if a.changed)}/{len(changes)}"
                 + (f" ({len(closed_tab)} others: a setting above the tabs that the open tab does not use, e.g. "
                    f"{closed_tab[0].what} on {closed_tab[0].page}; the whole page reran for nothing)"
                    if closed_tab else ""))
    total_cpu = sum(out["server_cpu"].values())
    per_action = total_cpu / max(1, len(answered)) * 1e3
    lines.append(f"  server CPU {total_cpu:.1f} s in all = {per_action:.1f} ms per action (mean; target median "
                 f"{TARGETS['cpu_ms']:g} ms: {per_action / TARGETS['cpu_ms']:.2f} x); "
                 f"{total_cpu / wall:.2f} cores busy on average")
    alone = [a for a in answered if a.server_cpu is not None]
    for kind in KINDS:
        xs = [a.server_cpu * 1e3 for a in alone if a.kind == kind]
        if xs:
            lines.append(f"    server CPU per {kind} (measured alone): median {statistics.median(xs):.1f} ms, "
                         f"max {max(xs):.1f} ms ({len(xs)})")
    for name in sorted(out["peak_rss"]):
        rss = out["peak_rss"][name] / 2**20
        mine = [a.seconds for a in answered if a.server.endswith(name.split("@")[-1])] if "@" in name else []
        extra = f"; its attendees' actions {latency_line(mine)}" if mine else ""
        lines.append(f"  {name}: peak RSS {rss:.0f} MiB ({rss / TARGETS['rss_mib']:.2f} x 1 GiB), CPU "
                     f"{out['server_cpu'][name]:.1f} s{extra}")
    gen = out["generator_cpu"]
    lines.append(f"  generator CPU {gen:.1f} s = {gen / wall:.0%} of one core, "
                 f"{gen / max(1, len(answered)) * 1e3:.1f} ms per action "
                 f"({gen / max(total_cpu, 1e-9):.2f} x the server's)")
    if "machine_cpu" in out:
        other = out["machine_cpu"] - total_cpu - gen
        lines.append(f"  the machine's {out['cores']} cores: {out['machine_cpu'] / wall:.2f} busy on average, of which "
                     f"{max(0.0, other) / wall:.2f} by other processes (not the servers, not this generator)")
        others = out.get("others") or []
        quiet = [a.seconds for a in answered if a.kind != "heavy" and all(
            others[s] < 0.25 for s in range(int(a.start), min(len(others), int(a.start + a.seconds) + 1)))]
        lines.append(f"    actions during which other processes used under 0.25 cores: {latency_line(quiet)}")
    if out["fault"]:
        f = out["fault"]
        rec = out["reconnects"]
        resent = [a for a in answered if a.reconnected]
        after = [a for a in answered if a.start + a.seconds > f["at"]]
        last = max((a.start + a.seconds for a in resent), default=f["at"])
        lines.append(f"  fault: {f.get('stopped')} stopped at {f['at']:.1f} s; {len(rec)} reconnects, "
                     f"{latency_line(rec) if rec else 'none'} from close to new websocket")
        lines.append(f"    actions that met the switch (in flight or waiting for the reconnect), answered on a "
                     f"live replica: {len(resent)} ({latency_line([a.seconds for a in resent])}); the last "
                     f"{last - f['at']:.2f} s after the stop; unanswered {len(unanswered)}; wrong view after "
                     f"reconnect {len(mismatched)}; changes lost {len(lost)}; actions after the stop {len(after)}")
        servers = out["final_servers"]
        dead = f.get("stopped", "").split("@")[-1]
        lines.append(f"    attendees' final replica: " + ", ".join(
            f"{s or '?'} {servers.count(s)}" for s in sorted(set(servers))) + f" (stopped: {dead})")
    for a in (unanswered + exceptions + unchanged + mismatched + lost)[:12]:
        lines.append(f"    attendee {a.attendee} {a.kind} {a.page} {a.what}: "
                     f"{a.error or a.exceptions or a.mismatches or a.lost_change or 'nothing changed'}")
    for e in out["protocol_errors"][:5]:
        lines.append(f"    protocol: {e}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attendees", type=int, default=100)
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds of reading before each click")
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds over which attendees arrive")
    parser.add_argument("--duration", type=float, default=120.0, help="seconds from the start to the last click")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds an action may take")
    parser.add_argument("--heavy", type=float, default=0.0,
                        help="chance that a visit to a page with the heavy button presses it (0 to 1)")
    parser.add_argument("--heavy-button", default="Measure", help="label of the button that starts a heavy action")
    parser.add_argument("--max-actions", type=int, default=1000, help="per attendee")
    parser.add_argument("--changes", type=int, nargs=2, default=(1, 2), metavar=("MIN", "MAX"),
                        help="widget changes per page visit (0 0: every page at its default settings)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--link", default="", help="path?query the attendees open (default: the home page)")
    parser.add_argument("--no-assets", action="store_true", help="skip the scripts and styles index.html names")
    parser.add_argument("--url", help="a running server (loopback); default: start one")
    parser.add_argument("--replicas", type=int, default=0, help="start K replicas behind nginx (deploy/)")
    parser.add_argument("--fault-at", type=float, help="seconds into the run at which one replica is stopped")
    parser.add_argument("--json", help="write every action to this file")
    parser.add_argument("--no-warm-up", action="store_true", help="measure from a cold server")
    parser.add_argument("--compare-with-chromium", action="store_true",
                        help="one attendee's clicks in Chromium and in this generator: compare what each sends")
    args = parser.parse_args(argv)
    # a SIGTERM (a CI timeout) unwinds the with-blocks, so the servers stop too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.compare_with_chromium:
        from benchmarks.protocol.chromium import compare_main
        return compare_main()
    cfg = Config(attendees=args.attendees, think=args.think, ramp=args.ramp, duration=args.duration,
                 timeout=args.timeout, heavy=args.heavy, heavy_button=args.heavy_button,
                 max_actions=args.max_actions, seed=args.seed, changes=tuple(args.changes),
                 fetch_assets=not args.no_assets, link=args.link)
    if not 0 <= args.changes[0] <= args.changes[1]:
        parser.error("--changes MIN MAX needs 0 <= MIN <= MAX")
    if args.fault_at is not None and args.replicas < 2:
        parser.error("--fault-at needs --replicas 2 or more")
    if args.url:
        out = asyncio.run(run_room(args.url, cfg, server_pids={}, warm=not args.no_warm_up))
        target = TARGETS["p95"]
    elif args.replicas:
        from deploy.serve import Deployment
        with Deployment(replicas=args.replicas) as dep:
            fault = (args.fault_at, dep.stop_busiest) if args.fault_at is not None else None
            out = asyncio.run(run_room(dep.url, cfg, server_pids=dep.pids(), fault=fault,
                                       warm=not args.no_warm_up, warm_urls=dep.replica_urls))
        # the course target is for several replicas; one replica behind nginx is still one process
        target = 1.5 if args.replicas > 1 else TARGETS["p95"]
    else:
        from benchmarks.browser import AppServer
        with AppServer() as server:
            out = asyncio.run(run_room(server.url, cfg, server_pids={"server": server.pid},
                                       warm=not args.no_warm_up))
        target = TARGETS["p95"]
    print(summarize(out, p95_target=target))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
