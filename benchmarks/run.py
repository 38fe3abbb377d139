"""Speed figures the issues ask for, each beside its reference or target, as ratios.

    python -m benchmarks.run                 # everything
    python -m benchmarks.run encoding rerun  # chosen sections: encoding, rerun, redraw
    python -m benchmarks.run memory          # server memory of twenty heatmap sessions at once

Timings warm up first, repeat, and report medians; on CUDA each timed call is wrapped in
``torch.cuda.synchronize()``. Nothing here is a test: it prints numbers for the notes.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import torch

import pekit
from pekit.timing import interleaved_medians, median_seconds

from benchmarks.smollm2 import bench_smollm2

ROOT = Path(__file__).resolve().parent.parent


def book_encoding(n: int, d: int, device: str = "cpu") -> torch.Tensor:
    """The book's float32 construction of P (PositionalEncoding.__init__)."""
    P = torch.zeros((1, n, d), device=device)
    X = torch.arange(n, dtype=torch.float32, device=device).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, d, 2, dtype=torch.float32, device=device) / d
    )
    P[:, :, 0::2] = torch.sin(X)
    P[:, :, 1::2] = torch.cos(X)
    return P


def float64_row(position: int, d: int) -> torch.Tensor:
    j = torch.arange(d, dtype=torch.float64)
    angle = position / 10000.0 ** (2 * torch.div(j, 2, rounding_mode="floor") / d)
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle))


def bench_encoding() -> None:
    print("## sinusoidal_encoding(8192, 1024) against the book's float32 construction")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        medians = interleaved_medians({"pekit": lambda: pekit.sinusoidal_encoding(8192, 1024, device=device),
                                       "book": lambda: book_encoding(8192, 1024, device)}, device=device)
        ours, book = medians["pekit"], medians["book"]
        print(f"{device:5s} pekit {ours * 1e3:8.2f} ms | book {book * 1e3:8.2f} ms | ratio {ours / book:5.2f} (target <= 1.5)")
    n, d = 100_001, 1024
    ref = float64_row(100_000, d)
    ours_err = (pekit.sinusoidal_encoding(n, d, device="cpu")[-1].double() - ref).abs().max().item()
    book_err = (book_encoding(n, d)[0, -1].double() - ref).abs().max().item()
    print(f"max |error| at position 100000 vs float64: pekit {ours_err:.2e} (target <= 1e-6) | book {book_err:.2e}"
          f" | ratio book/pekit {book_err / ours_err:,.0f}")
    if torch.cuda.is_available():
        gpu = pekit.sinusoidal_encoding(8192, 1024, device="cuda").cpu()
        cpu = pekit.sinusoidal_encoding(8192, 1024, device="cpu")
        print(f"cuda vs cpu max |difference|: {(gpu - cpu).abs().max().item():.2e}")


def warm_rerun_seconds(page: str, query: dict | None = None, opened: tuple[str, ...] = ()) -> float:
    """Median seconds of a warm AppTest rerun of ``page`` opened with ``query`` in its link (and
    the expanders keyed ``opened`` open)."""
    from streamlit.testing.v1 import AppTest

    from lab.i18n import use

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.query_params.update(query or {})
    for key in opened:
        at.session_state[key] = True
    # AppTest writes a widget's value back through its format function in this thread: the
    # reruns of a page in another language run in that language here too
    with use((query or {}).get("lang", "en")):
        at.run()
        at.switch_page(page).run()
        assert not at.exception, at.exception
        return median_seconds(at.run, repeats=21, warmup=3)


def bench_rerun(pages: dict[str, dict] | None = None) -> None:
    """Warm AppTest reruns at default settings (target <= 100 ms median)."""
    pages = pages or {"pages/encoding_heatmap.py": {}, "pages/binary_analogy.py": {}, "pages/offset_rotation.py": {},
                      "pages/complexity_comparison.py": {}, "pages/live_attention.py": {}}
    print("## warm rerun in AppTest, default settings (target <= 100 ms median)")
    for page, query in pages.items():
        seconds = warm_rerun_seconds(page, query)
        print(f"{page:36s} {seconds * 1e3:7.1f} ms | ratio to target {seconds / 0.100:4.2f}")


REDRAW_CASES = {
    "encoding_heatmap": [("defaults", ""), ("largest (n=4096, d=1024)", "n=4096&d=1024"),
                         ("largest, tensor2tensor, 8 columns", "n=4096&d=1023&layout=tensor2tensor&cols=0-7"),
                         ("most marks drawn (n=480, d=8, 8 columns)", "n=480&d=8&cols=0-7")],
    "binary_analogy": [("defaults", ""), ("largest (n=1024, d=1024, 16 bits)", "n=1024&d=1024&bits=16")],
    "offset_rotation": [("defaults", ""), ("largest (d=512, 128 positions)", "d=512&count=128&delta=-256")],
    "complexity_comparison": [("defaults", "")],
    # the lesson's two sliders, each from a value where 7 presses reach 7 new values
    "lesson": [("step 6, shift δ (from 3)", "step=6"), ("step 9, valid length (from 0)", "step=9&valid=0")],
}
SLIDERS = {"encoding_heatmap": "Positions n", "binary_analogy": "Positions n", "offset_rotation": "Offset δ",
           "complexity_comparison": "Kernel size k", "lesson": {"step=6": "Shift δ", "step=9&valid=0": "Valid length"}}
REDRAW_TARGETS = {"lesson": 0.3}  # seconds; every other page 0.5


def bench_redraw(cases: dict | None = None, repeat: int = 7) -> None:
    """Seconds from a slider key press until the rerun finished and the page drew, in Chromium,
    with the server and the browser sharing this machine's cores."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import AppServer, launch, slider_thumb, timed_interaction, wait_for_script

    cases = cases or REDRAW_CASES
    print("## redraw after a slider change in Chromium (target <= 0.5 s; the lesson's <= 0.3 s)")
    with AppServer() as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path, variants in cases.items():
            for label, query in variants:
                page.goto(f"{server.url}/{path}?{query}")
                wait_for_script(page)
                slider = SLIDERS[path][query] if isinstance(SLIDERS[path], dict) else SLIDERS[path]
                thumb = slider_thumb(page, slider)
                # always a new value (v, v+1, v+2, ...): every step misses the caches
                key = "ArrowRight" if path in ("offset_rotation", "complexity_comparison", "lesson") else "ArrowLeft"
                times = [timed_interaction(page, lambda: (thumb.focus(), thumb.press(key))) for _ in range(repeat)]
                med = statistics.median(times)
                target = REDRAW_TARGETS.get(path, 0.5)
                print(f"/{path:18s} {label:42s} median {med:5.3f} s (max {max(times):5.3f}) | target {target} s, "
                      f"ratio {med / target:4.2f}")
        browser.close()


def bench_sweep() -> None:
    """The complexity page's default sweep (n = 64 .. 2048, d = 256, k = 3), as the page runs it
    (one torch thread), on every device here; attention TFLOP/s at the largest n."""
    from pekit import complexity, scaling

    print("## complexity page: default sweep (target <= 10 s on a 2-core CPU)")
    ns, d, k = [64, 128, 256, 512, 1024, 2048], 256, 3
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for device in ["cpu"] + (["cuda"] if torch.cuda.is_available() else []):
            t0 = time.perf_counter()
            frame = scaling.measure_layers(ns, d, k, num_heads=8, device=device)
            total = time.perf_counter() - t0
            slopes = scaling.fitted_slopes(frame)
            print(f"{device:5s} sweep {total:5.2f} s | ratio to target {total / 10:4.2f}")
            for _, row in slopes.iterrows():
                print(f"      {row['layer']:24s} fitted slope {row['slope']:5.2f} (theory 1 for CNN/RNN, 2 for attention)")
            n = ns[-1]
            flops = int(complexity.layer_costs(n, d, k).loc["Self-attention", "flops"])  # every term, as measured
            for layer in ("Self-attention", "Self-attention (fused)"):
                sec = float(frame[(frame["layer"] == layer) & (frame["n"] == n)]["seconds"].iloc[0])
                print(f"      {layer:24s} n={n}: {flops / sec / 1e12:.3f} TFLOP/s (projections and both n² products)")
    finally:
        torch.set_num_threads(before)


def bench_train_click() -> None:
    """Seconds from pressing Train on the training page at its defaults (a fresh server: nothing
    trained yet) until the page shows its first result trained on this server, in Chromium; and
    until every chosen scheme has one."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import AppServer, launch, wait_for_script

    print("## train: the default click to its first answer, in Chromium (target <= 15 s)")
    with AppServer() as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{server.url}/train")
        wait_for_script(page)
        button = page.locator('[data-testid="stMain"] button').filter(has_text="Train").first
        t0 = time.perf_counter()
        button.click()
        main = page.locator('[data-testid="stMain"]')
        # (the results table is a data grid: its cells are in the page, drawn on a canvas)
        main.get_by_text("trained on this server").first.wait_for(state="attached", timeout=300_000)
        first = time.perf_counter() - t0
        first_row = main.locator('[data-testid="stDataFrame"]').first.text_content() or ""
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stMain\"]').textContent"
                               ".includes('shipped checkpoint')", timeout=600_000)
        every = time.perf_counter() - t0
        browser.close()
    print(f"/train default click -> first result trained here {first:6.2f} s | ratio to target {first / 15:4.2f}")
    print(f"/train default click -> every scheme trained here {every:6.2f} s (one training at a time, each capped)")
    print(f"  first table, as shown: {' '.join(first_row.split())[:160]}")


def bench_sentence(repeat: int = 7) -> None:
    """Seconds from pressing Enter on a new sentence (every token different from the last one's)
    until the live attention page has redrawn, in Chromium, on each of its tabs."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import AppServer, launch, timed_interaction, wait_for_script

    print("## live attention: a new 64-token sentence, 8 heads (target <= 0.2 s)")
    words = "the quick brown fox jumps over a lazy dog while it rains on the quiet town".split()
    with AppServer() as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        cases = (("defaults (12 tokens, 4 heads)", "", 12), ("64 tokens, 8 heads", "heads=8", 64),
                 ("64 tokens, 8 heads, Masking tab", "heads=8&view=Masking", 64),
                 ("64 tokens, 8 heads, Order tab", "heads=8&view=Order", 64))
        for label, query, count in cases:
            page.goto(f"{server.url}/live_attention?{query}")
            wait_for_script(page)
            box = page.get_by_role("textbox", name="Your sentence")
            times = []
            for r in range(repeat):
                sentence = " ".join(words[(r + i) % len(words)] for i in range(count))

                def submit(s=sentence):
                    box.fill(s)
                    box.press("Enter")

                times.append(timed_interaction(page, submit))
            med = statistics.median(times)
            print(f"/live_attention {label:34s} median {med:5.3f} s (max {max(times):5.3f}) | ratio to target {med / 0.2:4.2f}")
        browser.close()


def bench_train() -> None:
    """Tiny transformers on the training page's default reversal run (8 tokens, ~0.1 M
    parameters), one CPU thread: the issue's targets as ratios, steps and seconds for every
    scheme, the page's warm rerun and how often progress reaches it."""

    from pekit import shipped
    from pekit.training import train_tiny

    print("## train: default reversal run, one CPU thread")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        train_tiny("reverse", "sinusoidal", max_steps=5, device="cpu")  # warm-up
        budget = 5.0
        best = train_tiny(positions="sinusoidal", device="cpu", max_seconds=budget,
                          **shipped.default_settings("encoder"))
        print(f"encoder sinusoidal: {best.seq_accuracy:.2%} of sequences in {best.steps} steps, {best.seconds:.2f} s "
              f"| accuracy / 99% target {best.seq_accuracy / 0.99:.3f} (>= 1) | seconds / 5 s {best.seconds / budget:.2f} "
              "(<= 1)")
        blind = train_tiny(positions="none", device="cpu", max_seconds=budget, **shipped.default_settings("encoder"))
        print(f"encoder none, same budget: {blind.seq_accuracy:.2%} of sequences ({blind.token_accuracy:.2%} of tokens) "
              f"in {blind.steps} steps | accuracy / 5% ceiling {blind.seq_accuracy / 0.05:.2f} (<= 1)")
        gaps = []
        for kind in ("encoder", "decoder"):
            for positions in ("none", "sinusoidal", "learned", "rope", "alibi", "t5"):
                stamps = []
                r = train_tiny(positions=positions, device="cpu", callback=lambda row: stamps.append(time.perf_counter()),
                               **shipped.default_settings(kind))
                gaps += [b - a for a, b in zip(stamps, stamps[1:])]
                first = next((h.step for h in r.history if h.seq_accuracy >= 0.99), None)
                print(f"{kind:8s} {positions:11s} {r.steps:5d} steps {r.seconds:7.2f} s ({r.seconds / r.steps * 1e3:5.1f} "
                      f"ms/step) | tokens {r.token_accuracy:7.2%} sequences {r.seq_accuracy:7.2%} | first batch at 99%: "
                      f"step {first} | {r.stopped}")
        gaps.sort()
        p50, p99 = gaps[len(gaps) // 2], gaps[int(0.99 * (len(gaps) - 1))]
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"gap between two streamed steps ({len(gaps)} gaps): median {p50 * 1e3:.0f} ms, 99th percentile "
              f"{p99 * 1e3:.0f} ms, longest {gaps[-1] * 1e3:.0f} ms (machine load {load:.1f} on {os.cpu_count()} cores); "
              f"the page redraws progress every 0.5 s | 99th percentile / 0.5 s {p99 / 0.5:.2f} (<= 1)")
        if torch.cuda.is_available():
            gpu = train_tiny(positions="sinusoidal", device="cuda", **shipped.default_settings("encoder"))
            cpu = train_tiny(positions="sinusoidal", device="cpu", **shipped.default_settings("encoder"))
            print(f"cuda vs cpu, encoder sinusoidal: sequences {gpu.seq_accuracy:.2%} vs {cpu.seq_accuracy:.2%}, "
                  f"steps {gpu.steps} vs {cpu.steps}")
    finally:
        torch.set_num_threads(before)
    seconds = warm_rerun_seconds("pages/train.py")
    print(f"pages/train.py warm rerun (shipped results) {seconds * 1e3:7.1f} ms | ratio to 100 ms {seconds / 0.100:4.2f}")



_COLD_LOAD = r"""
import json, os, time
import psutil
t0 = time.perf_counter()
import pekit, pekit.charts  # what a server has loaded before the model
from pekit import pretrained
t1 = time.perf_counter()
rss0 = psutil.Process().memory_info().rss
pretrained.load_minilm("cpu")
t2 = time.perf_counter()
pekit.pretrained_attention("The animal didn't cross the street because it was too tired.", device="cpu")
t3 = time.perf_counter()
rss1 = psutil.Process().memory_info().rss
# the weights may reach memory page by page as they are first read; read every one
sum(float(t.sum()) for t in pretrained.load_minilm("cpu").parameters())
print(json.dumps({"imports": t1 - t0, "load": t2 - t1, "first": t3 - t2, "rss_first": rss1 - rss0,
                  "rss": psutil.Process().memory_info().rss - rss0}))
"""


def _server_rss(query: str) -> tuple[float, float]:
    """The app server's RSS after opening the live attention page, before and after MiniLM."""
    import psutil
    from playwright.sync_api import sync_playwright

    from benchmarks.browser import AppServer, launch, wait_for_script

    with AppServer() as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{server.url}/live_attention")
        wait_for_script(page)
        before = psutil.Process(server.pid).memory_info().rss
        page.goto(f"{server.url}/live_attention?{query}")
        wait_for_script(page, 120_000)
        after = psutil.Process(server.pid).memory_info().rss
        browser.close()
    return before, after


def bench_pretrained(repeat: int = 3) -> None:
    """all-MiniLM-L6-v2: cold load, a 64-piece sentence through all 6 layers with attentions on
    one CPU thread (and on CUDA when present), extra memory, and the page's warm reruns."""
    import json
    import subprocess

    from pekit import pretrained
    from benchmarks.browser import chromium_missing_reason

    problem = pretrained.pretrained_missing()
    print("## pretrained: all-MiniLM-L6-v2 run by pekit")
    if problem:
        print(f"skipped: {problem}")
        return
    runs = []
    for _ in range(repeat):  # a fresh process each time: nothing loaded yet (the files may be in the OS cache)
        out = subprocess.run([sys.executable, "-c", _COLD_LOAD], capture_output=True, text=True, check=True,
                             cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    load = statistics.median(r["load"] for r in runs)
    first = statistics.median(r["first"] for r in runs)
    rss = statistics.median(r["rss"] for r in runs) / 2**20
    rss_first = statistics.median(r["rss_first"] for r in runs) / 2**20
    print(f"cold load (files to model and tokenizer) {load:5.2f} s | ratio to target {load / 5:4.2f} (target <= 5 s)"
          f" | first sentence after it {first * 1e3:6.1f} ms | imports before it "
          f"{statistics.median(r['imports'] for r in runs):5.2f} s")
    print(f"extra RSS of the loaded model (one process), every weight read {rss:6.1f} MiB | ratio to target "
          f"{rss / 250:4.2f} (target <= 250 MB) | after the first sentence only {rss_first:6.1f} MiB")
    words = "the quick brown fox jumps over a lazy dog while it rains on the quiet town".split()
    text = " ".join(words[i % len(words)] for i in range(62))
    encoded = pretrained.encode_text(text, device="cpu")
    assert len(encoded.ids) == 64, len(encoded.ids)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        sec = median_seconds(lambda: pretrained.pretrained_attention(encoded, device="cpu"), repeats=21, warmup=3)
    finally:
        torch.set_num_threads(before)
    print(f"cpu   64 word pieces, 6 layers, all attentions, 1 thread {sec * 1e3:6.1f} ms | ratio to target "
          f"{sec / 0.150:4.2f} (target <= 150 ms)")
    if torch.cuda.is_available():
        gpu_encoded = pretrained.encode_text(text, device="cuda")
        sec = median_seconds(lambda: pretrained.pretrained_attention(gpu_encoded, device="cuda"), repeats=21,
                             warmup=3, device="cuda")
        cpu_run = pretrained.pretrained_attention(encoded, device="cpu")
        gpu_run = pretrained.pretrained_attention(gpu_encoded, device="cuda")
        gap = (gpu_run.attentions.cpu() - cpu_run.attentions).abs().max().item()
        hgap = (gpu_run.hidden_states.cpu() - cpu_run.hidden_states).abs().max().item()
        print(f"cuda  64 word pieces {sec * 1e3:6.2f} ms | ratio to target {sec / 0.150:4.2f} | cuda vs cpu max "
              f"|difference|: weights {gap:.1e}, hidden states {hgap:.1e}")

    print("warm rerun in AppTest (target <= 100 ms median)")
    views = [("pages/live_attention.py", {"model": "MiniLM (pretrained)", "mview": view}, f"MiniLM, {view}")
             for view in ("Heads", "Follow a word", "Order and positions")]
    for page, query, label in views + [("pages/fixed_or_learned.py", {}, "fixed or learned positions")]:
        seconds = warm_rerun_seconds(page, query)
        print(f"{label:36s} {seconds * 1e3:7.1f} ms | ratio to target {seconds / 0.100:4.2f}")
    reason = chromium_missing_reason()
    if reason:
        print(f"server RSS: skipped ({reason})")
        return
    before_rss, after_rss = _server_rss("model=MiniLM+%28pretrained%29")
    extra = (after_rss - before_rss) / 2**20
    print(f"app server RSS: {before_rss / 2**20:.0f} MiB on the untrained page, {after_rss / 2**20:.0f} MiB after "
          f"MiniLM's first sentence: +{extra:.0f} MiB | ratio to target {extra / 250:4.2f} (target <= 250 MB)")


def bench_families(repeat: int = 5) -> None:
    """The encoding families page: warm rerun of every section in AppTest, and the redraw after a
    step of the positions slider in Chromium, at the defaults and at the largest n, d and heads."""

    from benchmarks.browser import AppServer, chromium_missing_reason, launch, slider_thumb, timed_interaction
    from benchmarks.browser import wait_for_script

    print("## encoding families: warm rerun (target <= 100 ms) and slider redraw (target <= 0.5 s)")
    largest = {"n": "256", "d": "512", "heads": "16"}
    sections = ["Side by side", "Conventions", "Past the training length", "Context extension", "Published results"]
    for label, query in (("defaults", {}), ("n = 256, d = 512, 16 heads", largest)):
        for section in sections:
            seconds = warm_rerun_seconds("pages/encoding_families.py", {**query, "section": section},
                                         opened=("families.explore",))  # the sections, under "Explore further"
            print(f"{label:28s} {section:26s} warm rerun {seconds * 1e3:6.1f} ms | ratio to target {seconds / 0.100:4.2f}")
    reason = chromium_missing_reason()
    if reason:
        print(f"slider redraw: skipped ({reason})")
        return
    from playwright.sync_api import sync_playwright

    with AppServer() as server, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for label, query, key in (("defaults", "", "ArrowRight"), ("n = 256, d = 512, 16 heads",
                                                                   "n=256&d=512&heads=16", "ArrowLeft")):
            page.goto(f"{server.url}/encoding_families?{query}")
            wait_for_script(page)
            thumb = slider_thumb(page, "Positions n")
            times = [timed_interaction(page, lambda: (thumb.focus(), thumb.press(key))) for _ in range(repeat)]
            med = statistics.median(times)
            print(f"/encoding_families {label:28s} slider redraw median {med:5.3f} s (max {max(times):5.3f}) | "
                  f"ratio to target {med / 0.5:4.2f}")
        browser.close()


def bench_languages() -> None:
    """The Portuguese edition's costs: compiling the catalog when the first reader asks for it
    (once per process), and a warm rerun of each page in Portuguese against the same page in
    English (target: a ratio of at most 1.2)."""
    import time

    from lab import i18n

    print("## the Portuguese catalog, compiled in memory at the first Portuguese run (target <= 0.5 s)")
    times = []
    for _ in range(5):
        i18n.catalog_messages.cache_clear()
        i18n.translations.cache_clear()
        start = time.perf_counter()
        i18n.translations("pt")
        times.append(time.perf_counter() - start)
    compile_s = sorted(times)[len(times) // 2]
    print(f"compile {len(i18n.catalog_messages('pt'))} messages: {compile_s * 1e3:7.1f} ms | "
          f"ratio to target {compile_s / 0.5:4.2f}")
    print("## warm rerun in AppTest, Portuguese against English, default settings (target ratio <= 1.2)")
    for page in ("pages/encoding_heatmap.py", "pages/binary_analogy.py", "pages/offset_rotation.py",
                 "pages/complexity_comparison.py", "pages/live_attention.py", "pages/encoding_families.py"):
        english = warm_rerun_seconds(page, {"lang": "en"})
        portuguese = warm_rerun_seconds(page, {"lang": "pt"})
        print(f"{page:36s} en {english * 1e3:7.1f} ms | pt {portuguese * 1e3:7.1f} ms | "
              f"ratio pt/en {portuguese / english:4.2f} (target 1.2)")


def bench_classroom() -> None:
    """The classroom: CPU of an idle attendee and per follower update against their floors, the follow
    latency of 200 attendees across the two-replica deployment, and the CPU per action of 100 attendees
    without a class and while one runs (benchmarks/classroom.py)."""
    from benchmarks import classroom

    classroom.main(["floors"])
    print()
    classroom.main(["room", "--attendees", "200", "--replicas", "2"])
    print()
    classroom.main(["widgets"])


def bench_memory() -> None:
    """Server memory while twenty sessions open the encoding heatmap at its largest settings at once
    (benchmarks/memory.py)."""
    from benchmarks import memory

    memory.main([])


def bench_cold_start() -> None:
    from benchmarks import cold_start

    cold_start.main(["--launches", "3"])


SECTIONS = {"sentence": bench_sentence, "encoding": bench_encoding, "rerun": bench_rerun, "redraw": bench_redraw,
            "sweep": bench_sweep, "train": bench_train, "click": bench_train_click, "pretrained": bench_pretrained,
            "families": bench_families, "smollm2": bench_smollm2, "languages": bench_languages,
            "classroom": bench_classroom, "cold": bench_cold_start, "memory": bench_memory}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(SECTIONS)
    print(f"device: {pekit.describe_device()} | torch {torch.__version__} | threads {torch.get_num_threads()}")
    for name in chosen:
        SECTIONS[name]()
        print()
