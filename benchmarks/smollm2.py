"""SmolLM2-135M run by pekit: cold load and extra memory in a fresh process, and one forward of 64
tokens with 2 threads against Hugging Face ``transformers`` on the same ids (the optional extra,
``make smollm``; skipped with the reason where it is absent).

    python -m benchmarks.run smollm2
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import torch

import pekit
from pekit.timing import interleaved_medians

ROOT = Path(__file__).resolve().parent.parent

_COLD_LOAD = r"""
import json, time, torch
torch.set_num_threads(2)
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
import gc, gguf.quants, tokenizers, pekit
before = rss()
t = time.perf_counter()
model = pekit.smollm2(device="cpu")
load = time.perf_counter() - t
gc.collect()
loaded = rss()
model.logits(list(range(1000, 1064)))
print(json.dumps({"load": load, "rss": loaded - before, "rss_forward": rss() - before}))
"""


def _peer():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # transformers' progress bars while it dequantises
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    from pekit.llama import files

    hf_logging.disable_progress_bar()
    path = files.gguf_path()
    return AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32).eval()


def bench_shape_on_cuda() -> None:
    """The decoder at SmolLM2's shape with random weights, on CUDA: how long forwards of a few
    thousand tokens take there (the model's file need not be present: the shape sets the cost)."""
    from pekit.llama import LlamaDecoder, SmolLM2Config

    config = SmolLM2Config(vocab_size=49152, num_hiddens=576, num_layers=30, num_heads=9, num_kv_heads=3, head_dim=64,
                           ffn_hiddens=1536, rope_base=100000.0, context_length=8192, eps=1e-5, bos_id=1, eos_id=2)
    torch.manual_seed(0)
    decoder = LlamaDecoder(config).to("cuda").eval().requires_grad_(False)
    freqs = pekit.rope_frequencies(64, base=100000.0)
    print(f"## the decoder at SmolLM2's shape (random weights) on {pekit.describe_device('cuda')}")
    for dtype in (torch.float32, torch.bfloat16):
        model = decoder.to(dtype)
        for n in (64, 4096, 8192, 16384):
            ids = torch.randint(0, config.vocab_size, (1, n), device="cuda")
            pos = torch.arange(n)
            sec = interleaved_medians({"f": lambda: model(ids, pos, freqs)}, repeats=5, warmup=1, device="cuda")["f"]
            print(f"cuda  {str(dtype).removeprefix('torch.'):8s} {n:6d} tokens: {sec * 1e3:8.2f} ms per forward"
                  f" | {n / sec:,.0f} tokens/s")


def bench_smollm2(repeat: int = 3) -> None:
    print("## SmolLM2-135M run by pekit's Llama decoder")
    if torch.cuda.is_available():
        bench_shape_on_cuda()
    problem = pekit.smollm2_missing()
    if problem:
        print(f"skipped: {problem}")
        return
    runs = []
    for _ in range(repeat):  # a fresh process each time: nothing loaded yet (the file may be in the OS cache)
        out = subprocess.run([sys.executable, "-c", _COLD_LOAD], capture_output=True, text=True, check=True, cwd=ROOT)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    load = statistics.median(r["load"] for r in runs)
    rss = statistics.median(r["rss"] for r in runs) / 2**20
    rss_forward = statistics.median(r["rss_forward"] for r in runs) / 2**20
    print(f"cold load (file to float32 model and tokenizer) {load:5.2f} s | extra RSS loaded {rss:6.1f} MiB, after a "
          f"64-token forward {rss_forward:6.1f} MiB | ratio to target {rss_forward / 700:4.2f} (target <= 700 MiB)")
    model = pekit.smollm2(device="cpu")
    ids = model.tokenize(" ".join(["the quick brown fox jumps over the lazy dog"] * 8))[:64]
    assert len(ids) == 64, len(ids)
    try:
        hf = _peer()
    except ImportError as err:
        hf = None
        print(f"transformers' peer skipped: {err}")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        x = torch.tensor([ids])
        calls = {"pekit": lambda: model.logits(ids)}
        if hf is not None:
            def peer_forward():
                with torch.inference_mode():
                    return hf(x).logits
            calls["transformers"] = peer_forward
        medians = interleaved_medians(calls, repeats=11, warmup=2)
    finally:
        torch.set_num_threads(before)
    ours = medians["pekit"]
    line = f"cpu   64 tokens, 30 layers, 2 threads: pekit {ours * 1e3:6.1f} ms | ratio to target {ours / 1.0:4.2f} (<= 1 s)"
    if hf is not None:
        line += f" | transformers {medians['transformers'] * 1e3:6.1f} ms | ratio pekit/transformers " \
                f"{ours / medians['transformers']:4.2f} (aim <= 1)"
    print(line)
    if torch.cuda.is_available():
        gpu = pekit.smollm2(device="cuda")
        for n in (64, 4096):
            long_ids = (ids * (n // 64 + 1))[:n]
            sec = interleaved_medians({"gpu": lambda: gpu.logits(long_ids)}, repeats=11, warmup=2, device="cuda")["gpu"]
            print(f"cuda  {n} tokens: {sec * 1e3:7.2f} ms")
        gap = (gpu.logits(ids).cpu() - model.logits(ids)).abs().max() / model.logits(ids).abs().max()
        print(f"cuda vs cpu logits, max relative difference {float(gap):.1e}")
