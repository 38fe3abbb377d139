"""The classroom's speed, measured at the protocol level (``benchmarks.protocol.client``: each
attendee is one browser tab as the server sees it; its page waits on the class's route as the
browser runs the waiting component's script (``benchmarks.protocol.waiting``), and the route's
answer reruns the whole page when the presenter moves).

    python -m benchmarks.classroom floors                       # the CPU figures, against their floors
    python -m benchmarks.classroom room --attendees 200         # follow latency, 2 replicas behind nginx
    python -m benchmarks.classroom room --store redis ...       # the same with the Redis store
    python -m benchmarks.classroom widgets                      # widget actions while a class runs

``floors``: server CPU (the process's CPU clock) per run, each measured alone on its own server:

- an empty page's rerun and an empty ``st.fragment(run_every=1)`` poll (``benchmarks/apps``): the
  floor Streamlit itself sets;
- an idle room (the room unchanged, ``--idle-attendees`` in it, each waiting on the class's route,
  a request every 3 s that is also its heartbeat): the share of one core the server spends on it,
  against the target for 100 attendees, and per attendee against one empty poll a second;
- a follower's update: the rerun of the page at the presenter's settings that the route's answer
  asks for when the presenter moves, every view a cache hit (the presenter's values were shown
  once before), against the floor (an empty page's rerun) and the ~10 ms budget (the waiting
  while the class waits for the move is counted in it).

Each figure is printed beside the fragment poll's (every page polling once a second; measured with
this benchmark on 2026-11-28, before the route) and the server-side push's (Streamlit internals).

``room``: a presenter and N attendees through nginx over K replicas (consistent hashing of a
random route cookie spreads them), all on the heatmap; the presenter moves the positions slider
to varied values every ``--gap`` seconds. Each attendee's follow latency is the time from the
presenter's action to the end of the attendee's run showing that value in its link; p50, p95,
max, and attendees who never showed it (errors), with the server CPU per follower update.

``widgets``: the server CPU per action of ``benchmarks.protocol_load`` (100 attendees, think time
5 s, arrivals over 30 s, 120 s; each visits the pages in turn and moves one or two of each page's
widgets to random values, so most views are computed afresh) on one server, the same run twice:
without a class, and while a class runs on that server (a presenter on the heatmap, and every
attendee joined through the attendee link, following: each of their runs reads the room, and
their server keeps their heartbeats). No question is open during the run: an open question
holds every attendee's page at the question until it is answered.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.browser import AppServer
from benchmarks.protocol.client import Tab
from benchmarks.protocol.widgets import Change, Value
from benchmarks.protocol_load import Config, percentile, process_cpu_seconds, run_room
from lab.classroom import BEAT_SECONDS
from lab.rooms import open_rooms

ROOT = Path(__file__).resolve().parent.parent
TARGET_LATENCY = 2.0  # seconds, p95
TARGET_FOLLOWER_MS = 10.0  # a follower's update, server CPU
TARGET_IDLE_CORE = 0.35  # an idle room of 100 attendees: the share of one core its server spends
IDLE_ROOM = 100  # attendees the idle target is for
TARGET_ACTION_MS = 25.0  # server CPU per widget action while a class runs
SLIDER = "Positions n"
# the fragment poll's figures, which the route replaced (this benchmark, 2026-11-28, this 2-core machine)
POLL_FOLLOWER_MS = 16.48  # a follower's server CPU per move with the polls while the class waits (rerun itself 13.34)
POLL_LATENCY_P95 = 2.28  # seconds, 200 attendees on 2 replicas
POLL_IDLE_CORE = 0.309  # an idle room of 100 (3.091 ms per attendee per second)
# the figures of the server-side push before the poll (Streamlit internals; benchmarks/README.md)
PUSH_FOLLOWER_MS = "9.56 to 9.71"  # a follower's server CPU per move, medians of two runs
PUSH_LATENCY_P95 = "1.47 to 1.56"  # seconds, 200 attendees on 2 replicas
PUSH_IDLE_CORE = 0.021  # an idle room of 100 (0.212 ms per attendee per second)


def slider_change(tab: Tab, label: str, value: int) -> Change:
    """The presenter's move of the slider ``label`` to ``value``."""
    for kind, w in tab.widgets():
        if kind == "slider" and w.label == label:
            return Change(w.id, label, "slider", Value("double_array_value", (float(value),)), tab.values.get(w.id))
    raise RuntimeError(f"no slider {label!r} on the page {tab.pathname}")


def poll_id(tab: Tab) -> str:
    """The page's one polling fragment (an empty ``st.fragment(run_every=1)`` page's)."""
    if len(tab.auto_reruns) != 1:
        raise RuntimeError(f"expected one polling fragment on {tab.pathname}, found {len(tab.auto_reruns)}")
    return next(iter(tab.auto_reruns))


async def cpu_per_run(pid: int, runs: int, action) -> float:
    """Server CPU milliseconds per ``await action()``, over ``runs`` runs after 5 warm-up runs."""
    for _ in range(5):
        await action()
    before = process_cpu_seconds(pid)
    for _ in range(runs):
        await action()
    return (process_cpu_seconds(pid) - before) / runs * 1e3


async def _floors_of_streamlit(runs: int) -> tuple[float, float]:
    with AppServer(script="benchmarks/apps/empty_page.py", env={"PEKIT_THREADS": "1"}) as server:
        tab = Tab(server.url)
        await tab.open()
        page = await cpu_per_run(server.pid, runs, tab.rerun_same)
        await tab.close()
    with AppServer(script="benchmarks/apps/empty_fragment.py", env={"PEKIT_THREADS": "1"}) as server:
        tab = Tab(server.url)
        await tab.open()
        fragment = poll_id(tab)
        poll = await cpu_per_run(server.pid, runs, lambda: tab.poll(fragment))
        await tab.close()
    return page, poll


async def _class_figures(followers: int, changes: int, quiet: float, idle_attendees: int, seed: int) -> dict:
    rng = random.Random(seed)
    values = rng.sample(range(20, 400), changes)
    folder = tempfile.mkdtemp(prefix="pekit-bench-rooms-")
    env = {"PEKIT_ROOMS": f"{folder}/rooms.sqlite3", "PEKIT_THREADS": "1"}
    rooms = open_rooms(env)
    code, key = rooms.create()
    with AppServer(env=env) as desk, AppServer(env=env) as hall:
        presenter = Tab(desk.url, timeout=120)
        await presenter.open("encoding_heatmap", f"room={code}&key={key}")
        tabs = [Tab(hall.url, timeout=120) for _ in range(followers)]
        for tab in tabs:
            await tab.open("", f"room={code}")
            if "encoding_heatmap" not in tab.pathname:
                raise RuntimeError(f"a follower did not reach the presenter's page: {tab.pathname}")
            if tab.waiting is None or tab.auto_reruns:
                raise RuntimeError(f"an attendee's page does not wait on the class's route: {tab.auto_reruns}")
            tab.start_timers()

        async def show(value: int) -> None:
            runs = [asyncio.create_task(tab.unasked_run()) for tab in tabs]
            await asyncio.sleep(0)  # each tab listens before the presenter moves
            await presenter.change(slider_change(presenter, SLIDER, value))
            await asyncio.gather(*runs)  # the route's answer reran every follower's page
            for tab in tabs:
                if f"n={value}" not in tab.query:
                    raise RuntimeError(f"a follower shows {tab.query!r}, not n={value}")

        for value in values:  # every view computed once on the hall's server (the presenter's values)
            await show(value)
        before, wall = process_cpu_seconds(hall.pid), time.perf_counter()
        for value in values:
            await show(value)
        update = (process_cpu_seconds(hall.pid) - before) / (changes * followers) * 1e3
        move_seconds = (time.perf_counter() - wall) / changes  # from the presenter's move to the last page shown
        for _ in range(idle_attendees - followers):  # a class's worth of attendees for the quiet room
            tabs.append(Tab(hall.url, timeout=120, rng=random.Random(len(tabs))))
            await tabs[-1].open("", f"room={code}")
            tabs[-1].start_timers()
        await asyncio.sleep(BEAT_SECONDS)  # a quiet room: no change, heartbeats at their pace
        before = process_cpu_seconds(hall.pid)
        await asyncio.sleep(quiet)
        idle = (process_cpu_seconds(hall.pid) - before) / (quiet * len(tabs)) * 1e3
        present = rooms.presence(code)[0]
        for tab in [presenter, *tabs]:
            await tab.close()
    if present != len(tabs):
        raise RuntimeError(f"the room counts {present} attendees connected, not {len(tabs)}")
    # the rerun itself: the update less what the follower's waiting cost while the class waited
    return {"update_ms": update, "idle_ms": idle, "idle_attendees": len(tabs),
            "rerun_ms": update - idle * move_seconds, "move_seconds": move_seconds}


def floors(args) -> None:
    page, poll = asyncio.run(_floors_of_streamlit(args.runs))
    # runs of the same code on fresh servers spread by about a tenth on this machine: each launch
    # is a figure of its own (with slider values of its own, as classes differ), and the median
    # of the launches is judged
    launches = [asyncio.run(_class_figures(args.followers, args.changes, args.quiet, args.idle_attendees,
                                           args.seed + i)) for i in range(args.launches)]
    updates = [lab["update_ms"] for lab in launches]
    idles = [lab["idle_ms"] for lab in launches]
    reruns = [lab["rerun_ms"] for lab in launches]
    update, idle, rerun = statistics.median(updates), statistics.median(idles), statistics.median(reruns)
    print("## Classroom: server CPU per run (this machine, one thread per session, each figure alone)")
    print(f"floor: empty page rerun {page:.2f} ms | empty fragment poll {poll:.2f} ms")
    room_core = idle * IDLE_ROOM / 1e3  # CPU seconds per second for a room of IDLE_ROOM
    print(f"idle room (each attendee waits on the class's route: a request every {BEAT_SECONDS:g} s, its heartbeat), "
          f"{launches[0]['idle_attendees']} in the room, per attendee per second, median of {args.launches} servers "
          f"({', '.join(f'{v:.3f}' for v in idles)}): {idle:.3f} ms | ratio to one empty poll a second "
          f"{idle / poll:.2f} | a room of {IDLE_ROOM}: {room_core:.3f} of a core, target <= {TARGET_IDLE_CORE:g}: "
          f"ratio {room_core / TARGET_IDLE_CORE:.2f} | with the fragment poll {POLL_IDLE_CORE:g} | with the "
          f"server-side push {PUSH_IDLE_CORE:g}")
    print(f"follower update (the route's answer reruns the page at the presenter's settings, views cached, the "
          f"waiting while the class waits counted; "
          f"{args.followers} followers x {args.changes} moves), median of {args.launches} servers "
          f"({', '.join(f'{v:.2f}' for v in updates)}): {update:.2f} ms | ratio to the floor (empty page rerun) "
          f"{update / page:.2f} | target <= {TARGET_FOLLOWER_MS:g} ms: ratio {update / TARGET_FOLLOWER_MS:.2f} "
          f"(highest server {max(updates) / TARGET_FOLLOWER_MS:.2f}) | with the fragment poll {POLL_FOLLOWER_MS:g} ms")
    print(f"  of which the rerun itself (less the idle waiting over the {statistics.median(lab['move_seconds'] for lab in launches):.2f} s "
          f"a move took to reach every follower), median ({', '.join(f'{v:.2f}' for v in reruns)}): {rerun:.2f} ms | "
          f"ratio to the floor {rerun / page:.2f} | target <= {TARGET_FOLLOWER_MS:g} ms: ratio {rerun / TARGET_FOLLOWER_MS:.2f}"
          f" | with the server-side push {PUSH_FOLLOWER_MS} ms")


async def _room(url: str, code: str, key: str, pids: dict, args) -> dict:
    rng = random.Random(args.seed)
    presenter = Tab(url, timeout=120, rng=rng)
    await presenter.open("encoding_heatmap", f"room={code}&key={key}")
    tabs = [Tab(url, timeout=120, rng=random.Random(i)) for i in range(args.attendees)]
    gate = asyncio.Semaphore(8)  # attendees arrive over the first minute, a few at a time

    async def arrive(tab: Tab) -> None:
        async with gate:
            await tab.open("", f"room={code}")
        tab.start_timers()

    await asyncio.gather(*(arrive(tab) for tab in tabs))
    lost = [t for t in tabs if "encoding_heatmap" not in t.pathname]
    current: dict = {"value": None, "t0": 0.0}
    seen: dict[int, dict[int, float]] = {}
    runs = {"count": 0}

    def showing(i: int, tab: Tab):
        def run_ended() -> None:  # the end of a run the route's answer asked for when the presenter moved
            runs["count"] += 1
            value = current["value"]
            if value is not None and f"n={value}" in tab.query and i not in seen[value]:
                seen[value][i] = time.perf_counter() - current["t0"]
        return run_ended

    for i, tab in enumerate(tabs):
        tab.on_run_end = showing(i, tab)
    await asyncio.sleep(3.0)
    values = rng.sample(range(20, 400), args.changes)
    cpu0 = {name: process_cpu_seconds(pid) for name, pid in pids.items()}
    generator0, wall0 = time.process_time(), time.perf_counter()
    runs0 = runs["count"]
    for value in values:
        seen[value] = {}
        current["t0"] = time.perf_counter()
        current["value"] = value
        await presenter.change(slider_change(presenter, SLIDER, value))
        await asyncio.sleep(args.gap)
    cpu1 = {name: process_cpu_seconds(pid) for name, pid in pids.items()}
    generator, wall = time.process_time() - generator0, time.perf_counter() - wall0
    runs1 = runs["count"]
    for tab in [presenter, *tabs]:
        await tab.close()
    latencies = [t for value in values for t in seen[value].values()]
    missed = sum(args.attendees - len(lost) - len(seen[value]) for value in values)
    servers = sorted({tab.server for tab in tabs if tab.server})
    cpu = sum(cpu1[n] - cpu0[n] for n in cpu0 if cpu0[n] is not None and cpu1[n] is not None)
    return {"latencies": latencies, "missed": missed, "lost": len(lost), "runs": runs1 - runs0,
            "errors": sum(len(t.protocol_errors) for t in tabs), "cpu_s": cpu, "servers": servers,
            "changes": len(values),
            "generator_s": generator, "wall_s": wall}


def room(args) -> None:
    from deploy.rooms_store import RedisServer
    from deploy.serve import Deployment

    folder = tempfile.mkdtemp(prefix="pekit-bench-rooms-")
    redis = RedisServer() if args.store == "redis" else None
    where = redis.__enter__() if redis else f"{folder}/rooms.sqlite3"
    try:
        env = {"PEKIT_ROOMS": where}
        code, key = open_rooms(env).create()
        with Deployment(args.replicas, env=env) as dep:
            out = asyncio.run(_room(dep.url, code, key, dep.pids(), args))
    finally:
        if redis:
            redis.__exit__(None, None, None)
    lat = out["latencies"]
    updates = len(lat)
    print(f"## Classroom: {args.attendees} attendees following one presenter, {args.replicas} replicas behind nginx "
          f"({args.store} store), {out['changes']} slider moves {args.gap:g} s apart")
    if lat:
        p95 = percentile(lat, 0.95)
        print(f"follow latency: p50 {statistics.median(lat):.2f} s | p95 {p95:.2f} s | max {max(lat):.2f} s | "
              f"target p95 <= {TARGET_LATENCY:g} s: ratio {p95 / TARGET_LATENCY:.2f} | with the fragment poll "
              f"p95 {POLL_LATENCY_P95:g} s | with the server-side push p95 {PUSH_LATENCY_P95} s")
    print(f"errors: {out['missed']} updates never shown, {out['lost']} attendees not on the page, "
          f"{out['errors']} protocol errors")
    if updates:
        print(f"server CPU while the class followed: {out['cpu_s']:.1f} s for {updates} follower updates "
              f"({out['runs']} runs ended on the attendees' pages)")
    # the attendees' side runs on the same machine: it decodes every message 200 browsers would
    print(f"generator CPU (the {args.attendees} attendees' side, on the same cores): {out['generator_s']:.1f} s "
          f"in {out['wall_s']:.0f} s ({out['generator_s'] / max(out['cpu_s'], 1e-9):.2f} x the servers')")


async def _actions(attendees: int, duration: float, seed: int, in_class: bool) -> dict:
    folder = tempfile.mkdtemp(prefix="pekit-bench-rooms-")
    env = {"PEKIT_ROOMS": f"{folder}/rooms.sqlite3", "PEKIT_THREADS": "1"}
    with AppServer(env=env) as server:
        presenter, present = None, [None]
        cfg = Config(attendees=attendees, think=5.0, ramp=30.0, duration=duration, seed=seed)
        if in_class:
            rooms = open_rooms(env)
            code, key = rooms.create()
            presenter = Tab(server.url, timeout=120)
            await presenter.open("encoding_heatmap", f"room={code}&key={key}")
            cfg.link = f"?room={code}"

            async def count() -> None:  # the room's count of connected attendees, after the arrivals
                await asyncio.sleep(cfg.ramp + 0.5 * (duration - cfg.ramp))
                present[0] = rooms.presence(code)[0]

            counting = asyncio.create_task(count())
        try:
            out = await run_room(server.url, cfg, server_pids={"server": server.pid})
        finally:
            if presenter is not None:
                counting.cancel()  # (done by then, in a run that ended normally)
                await presenter.close()
    answered = [a for a in out["actions"] if a["seconds"] is not None]
    failed = len(out["actions"]) - len(answered) + sum(1 for a in answered if a["exceptions"] or a["mismatches"])
    widget = sum(1 for a in answered if a["kind"] == "widget change")
    return {"per_action_ms": out["server_cpu"]["server"] / max(1, len(answered)) * 1e3, "actions": len(answered),
            "widget_changes": widget, "failed": failed + len(out["protocol_errors"]), "present": present[0]}


def widgets(args) -> None:
    print(f"## Classroom: server CPU per action, {args.attendees} attendees on one server, think 5 s, varied "
          f"widget values ({args.duration:g} s; protocol_load)")
    for in_class in (False, True):
        out = asyncio.run(_actions(args.attendees, args.duration, args.seed, in_class))
        name = (f"while a class runs (all in the class, following; the room counted {out['present']} connected "
                f"mid-run)" if in_class else "no class")
        print(f"{name}: {out['per_action_ms']:.1f} ms per action ({out['actions']} actions, "
              f"{out['widget_changes']} of them widget changes; {out['failed']} failed) | target <= "
              f"{TARGET_ACTION_MS:g} ms: ratio {out['per_action_ms'] / TARGET_ACTION_MS:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    f = sub.add_parser("floors")
    f.add_argument("--runs", type=int, default=200)
    f.add_argument("--followers", type=int, default=8)
    f.add_argument("--changes", type=int, default=24)
    f.add_argument("--launches", type=int, default=3, help="fresh pairs of servers, each measured")
    f.add_argument("--quiet", type=float, default=10.0, help="seconds of a quiet room for the idle figure")
    f.add_argument("--idle-attendees", type=int, default=IDLE_ROOM, help="attendees in the quiet room")
    f.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("room")
    r.add_argument("--attendees", type=int, default=200)
    r.add_argument("--replicas", type=int, default=2)
    r.add_argument("--changes", type=int, default=8)
    r.add_argument("--gap", type=float, default=6.0)
    r.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    r.add_argument("--seed", type=int, default=0)
    w = sub.add_parser("widgets")
    w.add_argument("--attendees", type=int, default=100)
    w.add_argument("--duration", type=float, default=120.0)
    w.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    {"floors": floors, "room": room, "widgets": widgets}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
