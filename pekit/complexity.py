r"""CNN, RNN and self-attention on n tokens of width d: the chapter's table, and measurements.

References
- Dive into Deep Learning, "Comparing CNNs, RNNs, and Self-Attention": a convolution with
  kernel k costs :math:`O(knd^2)` with :math:`O(1)` sequential operations and maximum path
  length :math:`O(n/k)`; a recurrent layer :math:`O(nd^2)`, :math:`O(n)`, :math:`O(n)`;
  self-attention :math:`O(n^2 d)`, :math:`O(1)`, :math:`O(1)`.
- nanoGPT's ``bench.py``: warm up, synchronize around timed CUDA work, report medians.

Where the terms come from: each of the n outputs of a convolution mixes k inputs of d channels
into d channels (:math:`k d^2` multiply-adds); an RNN step multiplies a d-vector by a
:math:`d\times d` matrix, n times, one after the other; self-attention forms the
:math:`n\times n` scores :math:`QK^\top`, each a d-term dot product, then the same for the
weighted values.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence

import pandas as pd
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_int
from .attention import MultiHeadAttention, transpose_output, transpose_qkv
from .devices import resolve_device

__all__ = [
    "LAYERS",
    "complexity_table",
    "theoretical_costs",
    "cnn_receptive_field",
    "attention_weights_bytes",
    "sweep_flops",
    "check_sweep",
    "measure_layers",
    "fit_slope",
    "fitted_slopes",
]

LAYERS = ("CNN", "RNN", "Self-attention")


def _check(n: int, d: int, k: int) -> tuple[int, int, int]:
    return (check_int("n", n, minimum=1), check_int("d", d, minimum=1), check_int("k", k, minimum=2))


def complexity_table(n: int, d: int, k: int = 3) -> pd.DataFrame:
    """The chapter's table for concrete sizes: one row each for ``CNN``, ``RNN`` and
    ``Self-attention``; columns ``flops`` (``k*n*d**2``, ``n*d**2``, ``n**2*d``),
    ``sequential_operations`` (``1``, ``n``, ``1``) and ``max_path_length``
    (``ceil((n-1)/(k-1))``, ``n-1``, ``1``). ``k`` must be at least 2."""
    n, d, k = _check(n, d, k)
    return pd.DataFrame(
        {
            "flops": [k * n * d**2, n * d**2, n**2 * d],
            "sequential_operations": [1, n, 1],
            "max_path_length": [math.ceil((n - 1) / (k - 1)), n - 1, 1],
        },
        index=pd.Index(LAYERS, name="layer"),
    )


def theoretical_costs(ns: Sequence[int], d: int, k: int = 3) -> pd.DataFrame:
    """Long-form ``n, layer, flops`` over the lengths ``ns``."""
    rows = []
    for n in ns:
        table = complexity_table(n, d, k)
        rows += [{"n": n, "layer": layer, "flops": int(table.loc[layer, "flops"])} for layer in LAYERS]
    return pd.DataFrame(rows)


def cnn_receptive_field(n: int, k: int = 3) -> Tensor:
    """Which inputs reach the last output through ``l`` stacked convolutions of kernel ``k``:
    a bool tensor ``(layers + 1, n)``, row ``l`` covering positions ``n-1-l*(k-1) .. n-1``,
    with as many layers as it takes to reach position 0."""
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=2)
    layers = math.ceil((n - 1) / (k - 1))
    reach = (torch.arange(layers + 1) * (k - 1))[:, None]  # (layers + 1, 1)
    return torch.arange(n)[None, :] >= (n - 1 - reach)  # (layers + 1, n)


def attention_weights_bytes(n: int, heads: int, *, batch: int = 1, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of the explicit attention weights ``(batch, heads, n, n)``."""
    return batch * heads * n * n * torch.empty((), dtype=dtype).element_size()


def sweep_flops(ns: Sequence[int], d: int, k: int = 3) -> int:
    """Multiply-adds of one pass of every measured layer over the sweep: the table's figures,
    the attention counted twice (explicit and fused) with its four d x d projections."""
    total = 0
    for n in ns:
        table = complexity_table(n, d, k)
        total += int(table["flops"].sum()) + n**2 * d + 2 * 4 * n * d**2
    return total


def check_sweep(
    ns: Sequence[int], d: int, heads: int, *, budget_bytes: int, k: int = 3, max_flops: int | None = None
) -> list[int]:
    """Validate a sweep before anything is allocated: positive lengths, ``d`` divisible by
    ``heads``, the explicit attention (scores, weights and their softmax, three
    ``(heads, n, n)`` float32 tensors) within ``budget_bytes``, and (optionally) one pass of
    the sweep within ``max_flops`` multiply-adds."""
    ns = [check_int("n", n, minimum=1) for n in ns]
    if not ns:
        raise ValueError("ns must hold at least one length")
    d = check_int("d", d, minimum=1)
    heads = check_int("heads", heads, minimum=1)
    if d % heads:
        raise ValueError(f"d={d} is not divisible by heads={heads}")
    biggest = max(ns)
    need = 3 * attention_weights_bytes(biggest, heads)
    if need > budget_bytes:
        raise ValueError(
            f"n={biggest} needs about {need / 2**30:.2f} GiB for the attention weights alone "
            f"(3 x heads x n^2 x 4 bytes), over the {budget_bytes / 2**30:.2f} GiB allowed here"
        )
    if max_flops is not None:
        work = sweep_flops(ns, d, k)
        if work > max_flops:
            raise ValueError(
                f"this sweep needs about {work / 1e9:.0f} G multiply-adds per pass, over the "
                f"{max_flops / 1e9:.0f} G allowed here; lower d or the largest n"
            )
    return sorted(set(ns))


def _fused_self_attention(mha: MultiHeadAttention, X: Tensor) -> Tensor:
    """The same projections as ``mha``, with torch's fused scaled_dot_product_attention in
    the middle (no (n, n) weights kept)."""
    h = mha.num_heads
    q = transpose_qkv(mha.W_q(X), h)[None]  # (1, batch * heads, n, hs)
    k = transpose_qkv(mha.W_k(X), h)[None]
    v = transpose_qkv(mha.W_v(X), h)[None]
    out = F.scaled_dot_product_attention(q, k, v)[0]  # (batch * heads, n, hs)
    return mha.W_o(transpose_output(out, h))


def measure_layers(
    ns: Sequence[int],
    d: int,
    k: int = 3,
    *,
    heads: int = 4,
    device: str | torch.device | None = None,
    repeats: int = 3,
    warmup: int = 1,
    budget_bytes: int = 1 << 30,
    max_flops: int | None = None,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Time one forward pass of each layer on a ``(1, n, d)`` input for every ``n`` in ``ns``.

    Layers: ``CNN`` (``nn.Conv1d(d, d, k)``, same padding), ``RNN`` (``nn.RNN(d, d)``),
    ``Self-attention`` (pekit's ``MultiHeadAttention``, weights formed explicitly) and
    ``Self-attention (fused)`` (the same projections around
    ``torch.nn.functional.scaled_dot_product_attention``). Each is warmed up, then timed
    ``repeats`` times (synchronizing on CUDA); the median is reported. Returns a long-form
    frame ``n, layer, seconds, weights_bytes`` (bytes of the explicit attention weights; on
    CUDA the measured peak of allocated memory during the pass). ``progress(fraction, label)``
    is called as the sweep advances. The sweep is validated (see :func:`check_sweep`) before
    anything is allocated.
    """
    d = check_int("d", d, minimum=1)
    k = check_int("k", k, minimum=2)
    repeats = check_int("repeats", repeats, minimum=1)
    warmup = check_int("warmup", warmup, minimum=0)
    ns = check_sweep(ns, d, heads, budget_bytes=budget_bytes, k=k, max_flops=max_flops)
    dev = resolve_device(device)
    cuda = dev.type == "cuda"
    gen = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[dev] if cuda else []):
        torch.manual_seed(seed)
        conv = nn.Conv1d(d, d, k, padding=k // 2).to(dev).eval()
        rnn = nn.RNN(d, d, batch_first=True).to(dev).eval()
        mha = MultiHeadAttention(d, heads, 0.0).to(dev).eval()
    layers: dict[str, Callable[[Tensor], Tensor]] = {
        "CNN": lambda X: conv(X.transpose(1, 2)),  # (1, d, n)
        "RNN": lambda X: rnn(X)[0],
        "Self-attention": lambda X: mha(X, X, X),
        "Self-attention (fused)": lambda X: _fused_self_attention(mha, X),
    }
    rows, steps, done = [], len(ns) * len(layers), 0
    with torch.inference_mode():
        for n in ns:
            X = torch.randn(1, n, d, generator=gen).to(dev)
            for name, forward in layers.items():
                if progress:
                    progress(done / steps, f"{name}, n = {n}")
                for _ in range(warmup):
                    forward(X)
                if cuda:
                    torch.cuda.synchronize(dev)
                    torch.cuda.reset_peak_memory_stats(dev)
                    base = torch.cuda.memory_allocated(dev)
                times = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    forward(X)
                    if cuda:
                        torch.cuda.synchronize(dev)
                    times.append(time.perf_counter() - t0)
                if cuda:
                    weights = torch.cuda.max_memory_allocated(dev) - base
                else:
                    weights = attention_weights_bytes(n, heads) if name == "Self-attention" else 0
                rows.append({"n": n, "layer": name, "seconds": statistics.median(times), "weights_bytes": int(weights)})
                done += 1
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows)


def fit_slope(ns: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of ``log(values)`` against ``log(ns)``: the exponent ``p`` in
    ``value ≈ c · n**p``."""
    x = torch.log(torch.tensor([float(v) for v in ns], dtype=torch.float64))
    y = torch.log(torch.tensor([float(v) for v in values], dtype=torch.float64))
    if x.numel() < 2 or x.numel() != y.numel():
        raise ValueError("need at least two (n, value) pairs of equal length")
    if not bool(torch.isfinite(y).all()):
        raise ValueError("values must be positive and finite")
    xc = x - x.mean()
    if float((xc**2).sum()) == 0:
        raise ValueError("ns must not all be equal")
    return float((xc * (y - y.mean())).sum() / (xc**2).sum())


def fitted_slopes(measured: pd.DataFrame) -> pd.DataFrame:
    """Per layer of a :func:`measure_layers` frame: the log-log slope of seconds against n over
    the largest half of the lengths (at least two; small n is dominated by fixed costs), and
    the weights' bytes at the largest n. Layers with a single length get no slope (NaN)."""
    ns = sorted(measured["n"].unique())
    top = ns[len(ns) - max(2, math.ceil(len(ns) / 2)):] if len(ns) >= 2 else ns
    rows = []
    for layer, group in measured.groupby("layer", sort=False):
        part = group[group["n"].isin(top)]
        slope = fit_slope(part["n"], part["seconds"]) if len(part) >= 2 else float("nan")
        rows.append({"layer": layer, "slope": slope, "from n": int(min(top)),
                     "weights_bytes": int(group.loc[group["n"].idxmax(), "weights_bytes"])})
    return pd.DataFrame(rows)
