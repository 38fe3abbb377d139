"""Where a rerun's CPU goes on the server: a real server sampled with py-spy while one
attendee tours every page.

    python -m benchmarks.profile_rerun --rounds 3

Starts ``streamlit run streamlit_app.py`` (``benchmarks.browser.AppServer``), warms it up
with one tour of ``benchmarks.protocol`` (imports, caches; not measured), then samples the
server process with py-spy (250 samples per second, of the thread holding the GIL: the
server is bound to one core by it, so that is the time every other session waits for)
while one attendee tours every page ``--rounds`` times and makes every change each page
offers, one action at a time. A sampling profiler adds no cost to the functions it samples,
so the shares are those of the unprofiled server. Prints:

- per page: CPU per rerun (the samples in that page's script, plus the share of the
  entry point, Streamlit's script runner and the event loop);
- self time by component (the innermost frame that belongs to a known component: the app's
  pages, pekit's computing, pekit's chart builders, Altair, pandas/numpy, torch, JSON, Streamlit's
  caching, elements, session state and runtime, message serialization and hashing, the
  websocket and its compression, the event loop);
- inclusive time of the operations that matter for optimising (chart specs, Streamlit's
  vega-lite marshalling, cached calls and their misses, serialization, websocket sends);
- the cache misses by the cached function that computed (what a new setting costs).

Needs py-spy (``pip install py-spy``) and the right to trace the server (root, or
``ptrace_scope`` 0).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RATE = 250
# the app's own files as py-spy names them (bare file names outside site-packages)
APP_FILES = {"streamlit_app.py", *(p.name for folder in ("pages", "lab", "lab/views") for p in (ROOT / folder).glob("*.py"))}
FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^():]*)(?::(?P<line>\d+))?\)$")

# component of a frame, by file path and function name; the innermost known frame wins
COMPONENTS = [
    ("message hashing (ForwardMsg hash: deterministic serialization + md5)",
     lambda f, n: "forward_msg_cache.py" in f),
    ("message serialization (protobuf SerializeToString)", lambda f, n: "serialize_forward_msg" in n),
    ("websocket compression (permessage-deflate)", lambda f, n: "permessage_deflate" in f),
    ("websocket and HTTP (uvicorn, starlette, websockets)",
     lambda f, n: any(k in f for k in ("uvicorn/", "starlette/", "websockets/", "h11/", "web/server"))),
    ("event loop (asyncio)", lambda f, n: "asyncio/" in f or "selectors.py" in f),
    ("JSON encoding", lambda f, n: f.startswith("json/") or "/json/" in f),
    ("Streamlit caches: hashing arguments", lambda f, n: "caching/hashing.py" in f),
    ("Streamlit caches: storing, pickling, replay", lambda f, n: "runtime/caching" in f or "pickle" in f),
    ("pekit chart builders", lambda f, n: "pekit/charts" in f or f.startswith("charts")),
    ("pekit computing", lambda f, n: "pekit/" in f),
    ("Altair (chart objects to dict, data to values)", lambda f, n: "altair/" in f or "narwhals/" in f),
    ("pandas and numpy", lambda f, n: "pandas/" in f or "numpy/" in f or "pyarrow" in f),
    ("torch", lambda f, n: "torch/" in f),
    ("protobuf (building elements)", lambda f, n: "google/protobuf" in f or "proto/" in f),
    ("Streamlit elements (st.* calls: marshalling into protobuf)",
     lambda f, n: "streamlit/elements" in f or "delta_generator" in f or "streamlit/commands" in f),
    ("Streamlit session state and widgets", lambda f, n: "runtime/state" in f),
    ("Streamlit runtime (script runner, queues, sessions)", lambda f, n: "streamlit/" in f),
    ("the app's pages, its lab package and entry point", lambda f, n: f in APP_FILES or f.startswith(("pages/", "lab/"))),
]

# inclusive time of named operations (a sample counts once per operation it is inside)
OPERATIONS = [
    ("chart specs: pekit.charts.to_spec (Altair to_dict, data to values)", lambda f, n: n == "to_spec"),
    ("Streamlit's st.vega_lite_chart (spec to JSON, hashing, protobuf)",
     lambda f, n: "vega_charts.py" in f and n in ("vega_lite_chart", "_vega_lite_chart")),
    ("st.dataframe (Arrow)", lambda f, n: n == "dataframe" and "elements" in f),
    ("Streamlit's cached calls (charts and tables sent again; st.cache_resource, st.cache_data)",
     lambda f, n: "cache_utils.py" in f and n == "__call__"),
    ("views remembered by lab.memo (hits and misses)", lambda f, n: f.endswith("lab/memo.py") and n == "__call__"),
    ("   cached functions defined again (page scripts rerun their decorators: source hashed)",
     lambda f, n: n == "_make_function_key"),
    ("   of which misses (the cached function computing)", lambda f, n: n == "_handle_cache_miss"),
    ("   of which arguments hashed", lambda f, n: "caching/hashing.py" in f and n == "update_hash"),
    ("UrlSettings (settings bound to the link)", lambda f, n: "_shared" in f and n in ("__init__", "write_url")),
    ("message serialization", lambda f, n: n == "serialize_forward_msg"),
    ("message hashing", lambda f, n: n == "populate_hash_if_needed"),
    ("websocket sends (frames, compression)", lambda f, n: "_sender" in n or n == "send_bytes"),
    ("waking the event loop for each message (call_soon_threadsafe)", lambda f, n: n == "call_soon_threadsafe"),
]


def parse(line: str) -> tuple[list[tuple[str, str]], int]:
    stack, _, count = line.rpartition(" ")
    frames = []
    for raw in stack.split(";"):
        m = FRAME.match(raw.strip())
        if m:
            path = m.group("file").split("site-packages/")[-1]
            frames.append((path, m.group("name").split(".")[-1]))
        else:
            frames.append((raw, raw))
    return frames, int(count)


def analyse(raw: str, names: dict[str, str], counts: collections.Counter, rate: int = RATE) -> str:
    samples = [parse(line) for line in raw.splitlines() if line.strip()]
    total = sum(c for _, c in samples)
    reruns = sum(counts.values())
    per_page: collections.Counter = collections.Counter()
    self_by: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()
    misses: collections.Counter = collections.Counter()  # by the cached function that computed
    loop = 0
    for frames, c in samples:
        files = [f for f, _ in frames]
        script = any("script_runner.py" in f for f in files)
        if not script:
            loop += c
        page = next((f for f in files if Path(f).name in APP_FILES
                     and Path(f).name not in ("streamlit_app.py", "_shared.py")), None)
        if script:
            per_page[Path(page).stem if page else "(entry point and script runner)"] += c
        label = "other (Python built-ins, typing, re, copy, ...)"
        for f, n in reversed(frames):
            hit = next((lab for lab, test in COMPONENTS if test(f, n)), None)
            if hit:
                label = hit
                break
        self_by[label] += c
        for lab, test in OPERATIONS:
            if any(test(f, n) for f, n in frames):
                incl[lab] += c
        miss = next((i for i, (_, n) in enumerate(frames) if n == "_handle_cache_miss"), None)
        if miss is not None:
            inner = next((f"{Path(f).stem}.{n}" for f, n in frames[miss + 1:] if Path(f).name in APP_FILES), "?")
            misses[inner] += c
    ms = lambda c: c / rate * 1e3 / max(1, reruns)  # noqa: E731  (ms per rerun)
    lines = [f"## {reruns} reruns (page changes and widget changes, one at a time): {total} samples = "
             f"{total / rate:.2f} s of server CPU = {ms(total):.1f} ms per rerun; script threads "
             f"{ms(total - loop):.1f} ms, event loop {ms(loop):.1f} ms"]
    lines.append("## per page: CPU in the page's own script per rerun of that page")
    by_stem = {title.lower().replace(" ", "_"): title for title in counts}
    for stem, c in per_page.most_common():
        title = by_stem.get(stem, stem)
        n = counts.get(title, 0)
        if n:
            lines.append(f"  {title:<34} {c / rate * 1e3 / n:7.1f} ms ({n} reruns)")
        else:
            lines.append(f"  {title:<34} {ms(c):7.1f} ms per rerun of any page")
    lines.append("## self time by component, ranked (ms per rerun, share of all server CPU)")
    for label, c in self_by.most_common():
        lines.append(f"  {ms(c):6.1f} ms  {c / total:6.1%}  {label}")
    lines.append("## inclusive time of operations (ms per rerun, share)")
    for label, _ in OPERATIONS:
        lines.append(f"  {ms(incl[label]):6.1f} ms  {incl[label] / total:6.1%}  {label}")
    lines.append("## cache misses by function (ms per rerun of any page, share): what a new setting costs")
    for name, c in misses.most_common(12):
        lines.append(f"  {ms(c):6.1f} ms  {c / total:6.1%}  {name}")
    return "\n".join(lines)


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
    parser.add_argument("--raw", help="also keep py-spy's collapsed stacks in this file")
    args = parser.parse_args(argv)
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        print("py-spy is not installed: pip install py-spy", file=sys.stderr)
        return 2
    from benchmarks.browser import AppServer

    with AppServer(env={"PEKIT_THREADS": "1"}) as server, tempfile.TemporaryDirectory() as tmp:
        asyncio.run(tour(server.url, 1, seed=99))  # warm-up, not sampled
        out = Path(tmp) / "stacks.txt"
        proc = subprocess.Popen([spy, "record", "--pid", str(server.pid), "--rate", str(RATE), "--format", "raw",
                                 "--gil", "--nonblocking", "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        time.sleep(1.0)
        names, counts = asyncio.run(tour(server.url, args.rounds, seed=1))
        proc.send_signal(signal.SIGINT)
        log = proc.communicate(timeout=60)[0]
        if not out.exists():
            print(log, file=sys.stderr)
            return 1
        raw = out.read_text()
        if args.raw:
            Path(args.raw).write_text(raw)
    print(analyse(raw, names, counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
