"""Where a rerun's CPU goes on the server: each page's reruns profiled inside a real server.

    python -m benchmarks.profile_rerun --rounds 3

Starts ``streamlit run streamlit_app.py`` in a child process whose script runs are each
profiled with cProfile (the script thread: the page's code, pekit, chart building, Streamlit's
elements, caching and protobuf work) and whose event-loop thread is profiled too (the
messages' serialization, compression and the websocket). One attendee of
``benchmarks.protocol`` warms the server up (not measured), then tours every page ``--rounds``
times making every change each page offers. Prints, per page, the profiled CPU per rerun,
and overall the self time ranked by where it is spent (the app's pages, pekit's computing,
pekit's chart builders, Altair, pandas, torch, JSON encoding, pickling and hashing for
``st.cache_data``, Streamlit's element code, its runtime, protobuf, the event loop and
websocket compression). cProfile's own overhead inflates Python-heavy parts (a function call
costs more under the profiler), so the shares are indicative; the unprofiled CPU per action is
measured by ``benchmarks.protocol_load --attendees 1``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import pstats
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# (category, test on a function's file path and name), first match wins
CATEGORIES = [
    ("st.cache_data: pickling of cached values", lambda f, n: "pickle" in n or f.endswith("pickle.py")
     or "copyreg" in f),
    ("st.cache_data: hashing of arguments", lambda f, n: "caching/hashing" in f or "hashlib" in n
     or "_hashlib" in n or "md5" in n),
    ("st.cache_data: other", lambda f, n: "runtime/caching" in f),
    ("JSON encoding", lambda f, n: "/json/" in f or "_json" in n),
    ("protobuf", lambda f, n: "google/protobuf" in f or "upb" in n or "SerializeToString" in n
     or "ParseFromString" in n or "CopyFrom" in n or "MergeFrom" in n or "'Add'" in n),
    ("the app's pages", lambda f, n: "/pages/" in f or f.endswith("streamlit_app.py")),
    ("pekit chart builders", lambda f, n: "/pekit/charts" in f),
    ("pekit computing", lambda f, n: "/pekit/" in f),
    ("Altair", lambda f, n: "/altair/" in f or "/jsonschema" in f or "/narwhals/" in f),
    ("pandas and numpy", lambda f, n: "/pandas/" in f or "/numpy/" in f or "pyarrow" in f or "numpy" in n),
    ("torch", lambda f, n: "/torch/" in f or "torch" in n),
    ("Streamlit elements", lambda f, n: "streamlit/elements" in f or "streamlit/delta_generator" in f),
    ("websocket, compression, event loop", lambda f, n: "zlib" in n or "compress" in n or "/websockets/" in f
     or "/uvicorn/" in f or "/starlette/" in f or "/asyncio/" in f or "select" in n or "socket" in n
     or "web/server" in f),
    ("Streamlit runtime (script runner, session state, messages)", lambda f, n: "/streamlit/" in f),
    ("Python: regular expressions, strings, copies", lambda f, n: "/re/" in f or "sre" in n or "copy.py" in f
     or "method 'join'" in n or "method 'format'" in n),
]


def category(filename: str, name: str) -> str:
    for label, test in CATEGORIES:
        if test(filename, name):
            return label
    return "other (Python built-ins, typing, dataclasses, ...)"


# ---- inside the profiled server ------------------------------------------------------------
def serve(port: int, out_dir: Path) -> None:
    import cProfile

    from streamlit.runtime.scriptrunner import script_runner

    active = threading.Event()
    lock = threading.Lock()
    profiles: dict[str, list] = collections.defaultdict(list)
    main_profile = cProfile.Profile()
    original = script_runner.ScriptRunner._run_script

    def run_script(self, rerun_data):
        if not active.is_set():
            return original(self, rerun_data)
        prof = cProfile.Profile()
        prof.enable()
        try:
            return original(self, rerun_data)
        finally:
            prof.disable()
            with lock:
                profiles[rerun_data.page_script_hash or "first"].append(prof)

    def start(*_):
        active.set()
        main_profile.enable()

    def stop(*_):
        main_profile.disable()
        active.clear()
        main_profile.dump_stats(str(out_dir / "event_loop.prof"))
        with lock:
            for key, profs in profiles.items():
                stats = pstats.Stats(profs[0])
                for p in profs[1:]:
                    stats.add(p)
                stats.dump_stats(str(out_dir / f"script-{key}-{len(profs)}.prof"))
        (out_dir / "done").write_text("ok")

    script_runner.ScriptRunner._run_script = run_script
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from streamlit.web import cli

    os.chdir(ROOT)
    sys.argv = ["streamlit", "run", "streamlit_app.py", "--server.port", str(port), "--server.address",
                "127.0.0.1", "--server.headless", "true"]
    cli.main()


# ---- the driver ---------------------------------------------------------------------------------
async def tour(url: str, rounds: int, seed: int) -> tuple[dict[str, str], collections.Counter]:
    from benchmarks.protocol.client import Tab

    tab = Tab(url, rng=random.Random(seed))
    counts: collections.Counter = collections.Counter()
    await tab.open()
    names = {p.script_hash: p.name for p in tab.pages}
    for _ in range(rounds):
        for page in tab.pages[1:] + tab.pages[:1]:
            await tab.goto(page)
            counts[page.name] += 1
            for change in tab.changes():
                await tab.change(change)
                counts[page.name] += 1
    await tab.close()
    return names, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=25, help="functions listed by cumulative time")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]))
        return 0

    from benchmarks.browser import free_port
    from deploy.serve import healthy

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="pekit-profile-") as tmp:
        out = Path(tmp)
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks.profile_rerun", "--serve", str(port), tmp],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "PEKIT_THREADS": "1"})
        try:
            deadline = time.monotonic() + 120
            while not healthy(url):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the profiled server did not start")
                time.sleep(0.2)
            asyncio.run(tour(url, 1, seed=99))  # warm-up: imports, caches (not profiled)
            proc.send_signal(signal.SIGUSR1)
            time.sleep(0.5)
            names, counts = asyncio.run(tour(url, args.rounds, seed=1))
            proc.send_signal(signal.SIGUSR2)
            deadline = time.monotonic() + 120
            while not (out / "done").exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)
            if proc.poll() is None:
                proc.kill()
        report(out, names, counts, args.top)
    return 0


def _self_times(stats: pstats.Stats) -> dict[str, float]:
    by: dict[str, float] = collections.defaultdict(float)
    for (filename, _line, name), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        by[category(filename, name)] += tt
    return by


def report(out: Path, names: dict[str, str], counts: collections.Counter, top: int) -> None:
    script_files = sorted(out.glob("script-*.prof"))
    total_runs = 0
    all_stats = None
    print("## profiled CPU per rerun, by page (script thread; cProfile inflates these)")
    for f in script_files:
        _, key, runs = f.stem.split("-")
        stats = pstats.Stats(str(f))
        seconds = sum(v[2] for v in stats.stats.values())
        total_runs += int(runs)
        print(f"  {names.get(key, key):<24} {seconds / int(runs) * 1e3:7.1f} ms per rerun ({runs} reruns)")
        if all_stats is None:
            all_stats = stats
        else:
            all_stats.add(str(f))
    loop = pstats.Stats(str(out / "event_loop.prof"))
    # waiting in epoll is idle time, not work
    loop_idle = sum(v[2] for (_f, _l, n), v in loop.stats.items() if "epoll" in n or "'select'" in n)
    loop_busy = sum(v[2] for v in loop.stats.values()) - loop_idle
    script_total = sum(v[2] for v in all_stats.stats.values())
    print(f"## {total_runs} reruns: script threads {script_total:.2f} s ({script_total / total_runs * 1e3:.1f} ms per "
          f"rerun), event loop {loop_busy:.2f} s busy ({loop_busy / total_runs * 1e3:.1f} ms per rerun)")
    by = _self_times(all_stats)
    for label, seconds in _self_times(loop).items():
        by[f"{label} [event loop]"] += seconds
    by["websocket, compression, event loop [event loop]"] -= loop_idle
    grand = sum(by.values())
    print("## self time ranked by where it is spent (both threads)")
    for label, seconds in sorted(by.items(), key=lambda kv: -kv[1]):
        if seconds > 0.0005 * grand:
            print(f"  {seconds / total_runs * 1e3:7.2f} ms per rerun  {seconds / grand:6.1%}  {label}")
    print(f"## the script threads' functions with the largest cumulative time (top {top})")
    all_stats.sort_stats("cumulative")
    rows = sorted(all_stats.stats.items(), key=lambda kv: -kv[1][3])
    shown = 0
    for (filename, line, name), (_cc, nc, _tt, ct, _callers) in rows:
        where = filename.split("site-packages/")[-1].replace(str(ROOT) + "/", "")
        if where.startswith("~") or "threading.py" in where or "exec_code" in name:
            continue
        print(f"  {ct / total_runs * 1e3:7.2f} ms per rerun  {nc:6d} calls  {where}:{line} {name}")
        shown += 1
        if shown >= top:
            break
    print("## the event loop's functions with the largest cumulative time")
    rows = sorted(loop.stats.items(), key=lambda kv: -kv[1][3])
    shown = 0
    for (filename, line, name), (_cc, nc, _tt, ct, _callers) in rows:
        where = filename.split("site-packages/")[-1]
        if "serialize" in name or "compress" in name or "send" in name or "write_forward_msg" in name:
            print(f"  {ct / total_runs * 1e3:7.2f} ms per rerun  {nc:6d} calls  {where}:{line} {name}")
            shown += 1
        if shown >= 10:
            break


if __name__ == "__main__":
    sys.exit(main())
