r"""How the time of CNN, RNN and self-attention layers grows with n, measured: a sweep of
forward passes timed on a device, the log-log slopes fitted to the timings, and the slopes the
counts of :mod:`pekit.complexity` predict for the same lengths.

References
- Dive into Deep Learning, "Comparing CNNs, RNNs, and Self-Attention": the orders
  :math:`O(knd^2)`, :math:`O(nd^2)` and :math:`O(n^2 d)`, i.e. slopes 1, 1 and 2 on log-log axes.
- nanoGPT's ``bench.py``: warm up, synchronize around timed CUDA work, report medians
  (:mod:`pekit.timing`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from ._checks import check_elements, check_float, check_int, check_sequence
from .attention import multi_head_attention
from .complexity import LAYERS, MAX_D, MAX_N, _check, _terms, attention_weights_bytes
from .devices import resolve_device
from .timing import time_calls

if TYPE_CHECKING:  # pandas is imported by the functions that return tables
    import pandas as pd

__all__ = [
    "sweep_multiply_adds",
    "check_sweep",
    "sweep_lengths",
    "measure_layers",
    "fit_slope",
    "fitted_slopes",
    "count_slopes",
    "whole_attention_slope",
    "slope_verdicts",
]


def sweep_multiply_adds(ns: Sequence[int], d: int, k: int = 3) -> int:
    """Multiply-adds of one pass of every measured layer over the sweep
    (:func:`~pekit.complexity.cost_terms`), attention counted twice (explicit and fused)."""
    ns = [check_int("ns", v, minimum=1, maximum=MAX_N) for v in check_sequence("ns", ns)]
    _check(1, d, k)
    return _sweep_multiply_adds(ns, d, k)


def _sweep_multiply_adds(ns: list[int], d: int, k: int) -> int:
    """:func:`sweep_multiply_adds` of checked sizes."""
    total = 0
    for n in ns:  # the terms added directly: a page checks its sweep on every rerun
        terms = _terms(n, d, k)
        total += sum(t[3] for t in terms) + sum(t[3] for t in terms if t[0] == "Self-attention")
    return total


def check_sweep(
    ns: Sequence[int], d: int, num_heads: int, *, budget_bytes: int, k: int = 3, max_multiply_adds: int | None = None
) -> list[int]:
    """Validate a sweep before anything is allocated: positive lengths, ``d`` divisible by
    ``num_heads``, the explicit attention (scores, weights and their softmax, three
    ``(num_heads, n, n)`` float32 tensors) within ``budget_bytes``, and (optionally) one pass of
    the sweep within ``max_multiply_adds``. Returns the distinct lengths in order."""
    ns = [check_int("ns", n, minimum=1, maximum=MAX_N) for n in check_sequence("ns", ns)]
    if not ns:
        raise ValueError("ns must hold at least one length")
    d = check_int("d", d, minimum=1, maximum=MAX_D)
    num_heads = check_int("num_heads", num_heads, minimum=1)
    budget_bytes = check_int("budget_bytes", budget_bytes, minimum=0)
    k = check_int("k", k, minimum=2, maximum=1024)
    if max_multiply_adds is not None:
        max_multiply_adds = check_int("max_multiply_adds", max_multiply_adds, minimum=0)
    if d % num_heads:
        raise ValueError(f"d={d} is not divisible by num_heads={num_heads}")
    biggest = max(ns)
    need = 3 * attention_weights_bytes(biggest, num_heads)
    if need > budget_bytes:
        raise ValueError(
            f"n={biggest} needs about {need / 2**30:.2f} GiB for the attention weights alone "
            f"(3 × num_heads × n² × 4 bytes), over budget_bytes={budget_bytes:,} ({budget_bytes / 2**30:.2f} GiB) "
            "allowed here"
        )
    if max_multiply_adds is not None:
        work = _sweep_multiply_adds(ns, d, k)
        if work > max_multiply_adds:
            raise ValueError(
                f"this sweep needs about {work:,} multiply-adds per pass, over max_multiply_adds="
                f"{max_multiply_adds:,} allowed here; lower d or the largest n"
            )
    return sorted(set(ns))


def sweep_lengths(low: int, high: int) -> list[int]:
    """The powers of two from ``low`` to ``high`` (either order), both rounded down to one."""
    low = check_int("low", low, minimum=1, maximum=MAX_N)
    high = check_int("high", high, minimum=1, maximum=MAX_N)
    low, high = min(low, high), max(low, high)
    return [2**e for e in range(low.bit_length() - 1, high.bit_length())]


THEORY_EXPONENT = {"CNN": 1, "RNN": 1, "Self-attention": 2, "Self-attention (fused)": 2}


def measure_layers(
    ns: Sequence[int],
    d: int,
    k: int = 3,
    *,
    num_heads: int = 4,
    device: str | torch.device | None = None,
    repeats: int = 3,
    warmup: int = 1,
    budget_bytes: int = 1 << 30,
    max_multiply_adds: int | None = None,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Time one forward pass of each layer on a ``(1, n, d)`` input for every ``n`` in ``ns``.

    Layers: ``CNN`` (``nn.Conv1d(d, d, k, padding="same")``: n outputs for any k), ``RNN`` (``nn.RNN(d, d)``),
    ``Self-attention`` (pekit's :func:`~pekit.attention.multi_head_attention`, weights formed
    explicitly) and ``Self-attention (fused)`` (the same projections around torch's fused
    ``scaled_dot_product_attention``: ``need_weights=False``). Each is warmed up, then timed
    ``repeats`` times (:func:`pekit.timing.time_calls`); the median is reported. Returns a
    long-form frame ``n, layer, seconds, weights_bytes`` (bytes of the explicit attention
    weights; on CUDA the measured peak of allocated memory during the pass).
    ``progress(fraction, label)`` is called as the sweep advances. The sweep is validated (see
    :func:`check_sweep`) before anything is allocated.
    """
    import pandas as pd

    d = check_int("d", d, minimum=1, maximum=MAX_D)
    k = check_int("k", k, minimum=2, maximum=1024)
    repeats = check_int("repeats", repeats, minimum=1, maximum=1000)
    warmup = check_int("warmup", warmup, minimum=0, maximum=1000)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable (fraction, label) or None")
    ns = check_sweep(ns, d, num_heads, budget_bytes=budget_bytes, k=k, max_multiply_adds=max_multiply_adds)
    check_elements({"d": d, "d × k": d * k})  # the convolution's weights
    check_elements({"ns": max(ns), "d": d})  # the input
    dev = resolve_device(device)
    cuda = dev.type == "cuda"
    gen = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[dev] if cuda else []):
        torch.manual_seed(seed)
        conv = nn.Conv1d(d, d, k, padding="same").to(dev).eval()
        rnn = nn.RNN(d, d, batch_first=True).to(dev).eval()
        W = [nn.Linear(d, d, bias=False).weight.detach().to(dev) for _ in range(4)]  # W_q, W_k, W_v, W_o
    layers: dict[str, Callable[[Tensor], Tensor]] = {
        "CNN": lambda X: conv(X.transpose(1, 2)),  # (1, d, n)
        "RNN": lambda X: rnn(X)[0],
        "Self-attention": lambda X: multi_head_attention(X, X, X, *W, num_heads=num_heads),
        "Self-attention (fused)": lambda X: multi_head_attention(X, X, X, *W, num_heads=num_heads, need_weights=False),
    }
    rows, steps, done = [], len(ns) * len(layers), 0
    with torch.inference_mode():
        for n in ns:
            X = torch.randn(1, n, d, generator=gen).to(dev)
            for name, forward in layers.items():
                if progress:
                    progress(done / steps, f"{name}, n = {n}")
                if cuda:
                    torch.cuda.synchronize(dev)
                    torch.cuda.reset_peak_memory_stats(dev)
                    base = torch.cuda.memory_allocated(dev)
                times = time_calls(lambda: forward(X), repeats=repeats, warmup=warmup, device=dev)
                if cuda:
                    weights = torch.cuda.max_memory_allocated(dev) - base
                else:
                    weights = attention_weights_bytes(n, num_heads) if name == "Self-attention" else 0
                rows.append({"n": n, "layer": name, "seconds": statistics.median(times), "weights_bytes": int(weights)})
                done += 1
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows, columns=["n", "layer", "seconds", "weights_bytes"])


def fit_slope(ns: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of ``log(values)`` against ``log(ns)``: the exponent ``p`` in
    ``value ≈ c · n**p``."""
    x = torch.tensor([check_float("ns", v) for v in check_sequence("ns", ns)], dtype=torch.float64)
    y = torch.tensor([check_float("values", v) for v in check_sequence("values", values)], dtype=torch.float64)
    if x.numel() < 2 or x.numel() != y.numel():
        raise ValueError(f"ns and values must hold at least two numbers each, as many in both; got {x.numel()} "
                         f"and {y.numel()}")
    if not bool((x > 0).all() & torch.isfinite(x).all() & (y > 0).all() & torch.isfinite(y).all()):
        raise ValueError("ns and values must be positive and finite")
    x, y = torch.log(x), torch.log(y)
    xc = x - x.mean()
    if float((xc**2).sum()) == 0:
        raise ValueError("ns must not all be equal")
    return float((xc * (y - y.mean())).sum() / (xc**2).sum())


def fitted_slopes(measured: pd.DataFrame) -> pd.DataFrame:
    """Per layer of a :func:`measure_layers` frame: the log-log slope of seconds against n over
    the largest half of the lengths (at least two),
    ``from_n`` and ``to_n`` (the range fitted), the theory's exponent and the weights' bytes at
    the largest n. Layers with a single length get no slope (NaN)."""
    import pandas as pd

    if not isinstance(measured, pd.DataFrame):
        raise ValueError("measured must be a frame from measure_layers (columns n, layer, seconds, weights_bytes)")
    ns = sorted(measured["n"].unique())
    top = ns[len(ns) - max(2, math.ceil(len(ns) / 2)):] if len(ns) >= 2 else ns
    rows = []
    for layer, group in measured.groupby("layer", sort=False):
        part = group[group["n"].isin(top)]
        slope = fit_slope(part["n"], part["seconds"]) if len(part) >= 2 else float("nan")
        rows.append({"layer": layer, "slope": slope, "from_n": int(min(top)), "to_n": int(max(top)),
                     "theory": THEORY_EXPONENT.get(layer, float("nan")),
                     "weights_bytes": int(group.loc[group["n"].idxmax(), "weights_bytes"])})
    return pd.DataFrame(rows, columns=["layer", "slope", "from_n", "to_n", "theory", "weights_bytes"])


def count_slopes(ns: Sequence[int], d: int, k: int = 3) -> dict[str, float]:
    """The slope a timing of :func:`measure_layers` would have if time followed the count of
    what is timed: per timed layer, the least-squares slope of ``log(multiply-adds)`` against
    ``log(n)`` over the lengths ``ns`` (at least two different ones), every term of
    :func:`~pekit.complexity.cost_terms` counted (``k·n·d²``; ``2·n·d²``; ``2·n²·d + 4·n·d²``
    for both attention passes, projections included). Attention's is 2 only where its n² terms dwarf its
    projections (n ≫ 2·d); near n = 2·d it is about 1.5."""
    ns = [check_int("ns", v, minimum=1, maximum=MAX_N) for v in check_sequence("ns", ns)]
    _check(1, d, k)
    if len(set(ns)) < 2:
        raise ValueError(f"ns must hold at least two different lengths; got {ns}")
    totals = {layer: [sum(t[3] for t in _terms(n, d, k) if t[0] == layer) for n in ns] for layer in LAYERS}
    slopes = {layer: fit_slope(ns, values) for layer, values in totals.items()}
    slopes["Self-attention (fused)"] = slopes["Self-attention"]  # the same arithmetic, another kernel
    return slopes


def whole_attention_slope(n: float, d: int) -> float:
    """The slope, on log-log axes, of self-attention counted whole (``2·n²·d + 4·n·d²``) at length
    ``n``: ``d log(count) / d log(n) = 2·(n + d) / (n + 2·d)``, which rises with n from 1 toward
    2, and is 1.5 at ``n = 2·d``, where the n² terms and the projections are equal."""
    n = check_float("n", n, minimum=0.0)
    d = check_int("d", d, minimum=1, maximum=MAX_D)
    if not math.isfinite(n):
        raise ValueError(f"n must be finite, got {n!r}")
    return 2 * (n + d) / (n + 2 * d)


def slope_verdicts(fitted: pd.DataFrame, *, tolerance: float = 0.25, decimals: int | None = None,
                   expected: dict[str, float] | None = None) -> list[tuple[str, float, int, str]]:
    """For each row of :func:`fitted_slopes`: ``(layer, slope, theory, verdict)`` with verdict
    ``"as expected"`` (within ``tolerance`` of the theory's exponent, or with ``expected``, of
    the layer's slope there, e.g. :func:`count_slopes` over the fitted lengths), ``"below"`` (it
    grows more slowly) or ``"above"`` (faster); ``"unknown"`` where no slope could be fitted.
    The verdict says how the measured slope stands to the reference, not why.

    With ``decimals``, each slope is rounded first and judged as it will be shown (a fitted
    0.7497 is shown as 0.75, which is within 0.25 of 1; a shown 1.10 is within 0.1 of 1, though
    1.1 - 1 is 0.10000000000000009 in floating point), and the rounded slope is returned."""
    import pandas as pd

    tolerance = check_float("tolerance", tolerance, minimum=0.0)
    if decimals is not None:
        decimals = check_int("decimals", decimals, minimum=0, maximum=15)
    if expected is not None and not (isinstance(expected, dict) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in expected.values())):
        raise ValueError("expected must be a dict of layer → slope (e.g. count_slopes(...)) or None")
    if not isinstance(fitted, pd.DataFrame):
        raise ValueError("fitted must be a frame from fitted_slopes (columns layer, slope, theory)")
    out = []
    for _, row in fitted.iterrows():
        slope, theory = float(row["slope"]), row["theory"]
        reference = float(theory) if expected is None else float(expected.get(str(row["layer"]), float("nan")))
        if decimals is not None and math.isfinite(slope):
            slope = round(slope, decimals)
        if decimals is not None and math.isfinite(reference):
            reference = round(reference, decimals)
        if not math.isfinite(slope) or not math.isfinite(reference):
            verdict = "unknown"
        elif (round(abs(slope - reference), decimals) if decimals is not None else abs(slope - reference)) <= tolerance:
            verdict = "as expected"
        else:
            verdict = "below" if slope < reference else "above"
        out.append((str(row["layer"]), slope, int(theory) if math.isfinite(float(theory)) else theory, verdict))
    return out
