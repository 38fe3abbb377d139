r"""CNN, RNN and self-attention on n tokens of width d: the chapter's table, the exact counts
behind it, and its figure of the paths between tokens. Timing the layers and fitting how their
time grows with n is :mod:`pekit.scaling`.

References
- Dive into Deep Learning, "Comparing CNNs, RNNs, and Self-Attention": a convolution with
  kernel k costs :math:`O(knd^2)` with :math:`O(1)` sequential operations and maximum path
  length :math:`O(n/k)`; a recurrent layer :math:`O(nd^2)`, :math:`O(n)`, :math:`O(n)`;
  self-attention :math:`O(n^2 d)`, :math:`O(1)`, :math:`O(1)`.

Where the terms come from, counted as multiply-adds (one multiply-add is two FLOPs):
each of the n outputs of a convolution mixes k inputs of d channels into d channels
(:math:`k d^2` each); an RNN step multiplies the input and the hidden state by a
:math:`d\times d` matrix each (:math:`2d^2`), n times, one after the other; self-attention
forms the :math:`n\times n` scores :math:`QK^\top` (each a d-term dot product, :math:`n^2 d`)
and the weighted sum of the values (:math:`n^2 d` again), after projecting the tokens to
queries, keys and values and before projecting the result (four :math:`d\times d` products per
token, :math:`4nd^2`). The chapter's table keeps the leading term of each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import torch

from ._checks import check_int, check_sequence

if TYPE_CHECKING:  # pandas is imported by the functions that return tables
    import pandas as pd

__all__ = [
    "complexity_table",
    "cost_terms",
    "layer_costs",
    "crossovers",
    "cost_curves",
    "encoder_layer_parameters",
    "encoder_layer_multiply_adds",
    "ArchitectureGraph",
    "architecture_graph",
    "attention_weights_bytes",
]

LAYERS = ("CNN", "RNN", "Self-attention")
# the chapter's orders: computational cost, sequential operations, maximum path length
BIG_O = {
    "CNN": ("O(k·n·d²)", "O(1)", "O(n/k)"),
    "RNN": ("O(n·d²)", "O(n)", "O(n)"),
    "Self-attention": ("O(n²·d)", "O(1)", "O(1)"),
}
MAX_N = 10**9
MAX_D = 1 << 20


def _check(n: int, d: int, k: int) -> tuple[int, int, int]:
    return (check_int("n", n, minimum=1, maximum=MAX_N), check_int("d", d, minimum=1, maximum=MAX_D),
            check_int("k", k, minimum=2, maximum=1024))


def complexity_table(n: int, d: int, k: int = 3) -> pd.DataFrame:
    """The chapter's table for concrete sizes: one row each for ``CNN``, ``RNN`` and
    ``Self-attention``; columns ``flops`` (the chapter's leading terms ``k*n*d**2``,
    ``n*d**2``, ``n**2*d``, which count multiply-adds; :func:`layer_costs` has every term),
    ``sequential_operations`` (``1``, ``n``, ``1``) and ``max_path_length``
    (``ceil((n-1)/(k-1))``, ``n-1``, ``1``; with a single token there is no path to take, so all
    three are 0). ``k`` must be at least 2."""
    import pandas as pd

    n, d, k = _check(n, d, k)
    return pd.DataFrame(
        {
            "flops": [k * n * d**2, n * d**2, n**2 * d],
            "sequential_operations": [1, n, 1],
            "max_path_length": [math.ceil((n - 1) / (k - 1)), n - 1, min(1, n - 1)],
        },
        index=pd.Index(LAYERS, name="layer"),
    )


def cost_terms(n: int, d: int, k: int = 3) -> pd.DataFrame:
    """Every multiply-add term of one forward pass of each layer as it is measured
    (``Conv1d(d, d, k)``, ``RNN(d, d)``, multi-head self-attention with its projections):
    columns ``layer``, ``term`` (what it computes), ``formula`` and ``multiply_adds``. Biases,
    the softmax and the activation are left out (a few operations per output, no d² or n²d)."""
    import pandas as pd

    n, d, k = _check(n, d, k)
    return pd.DataFrame(_terms(n, d, k), columns=["layer", "term", "formula", "multiply_adds"])


def _terms(n: int, d: int, k: int) -> list[tuple[str, str, str, int]]:
    """The rows of :func:`cost_terms` for checked sizes."""
    return [
        ("CNN", "kernel: k positions × d channels into d channels, per output", "k·n·d²", k * n * d * d),
        ("RNN", "input product W_xh·x_t, per step", "n·d²", n * d * d),
        ("RNN", "recurrent product W_hh·h_(t−1), per step", "n·d²", n * d * d),
        ("Self-attention", "scores QKᵀ: n × n dot products of length d", "n²·d", n * n * d),
        ("Self-attention", "weighted sum of the values: n × n weights times n × d", "n²·d", n * n * d),
        ("Self-attention", "projections W_q, W_k, W_v, W_o: four d × d products per token", "4·n·d²", 4 * n * d * d),
    ]


def _mixes_positions(term: str) -> bool:
    """Whether a term of :func:`cost_terms` combines positions (not an input or projection product)."""
    return not term.startswith(("input", "projections"))


def layer_costs(n: int, d: int, k: int = 3) -> pd.DataFrame:
    """Per layer (index ``layer``): ``multiply_adds`` (the sum of :func:`cost_terms`), ``flops``
    (twice that), ``mixing_multiply_adds`` (the terms that combine positions: the convolution
    itself, the recurrent product, the two n²·d products of attention) and the chapter's
    ``order``."""
    terms = cost_terms(n, d, k)
    total = terms.groupby("layer", sort=False)["multiply_adds"].sum()
    mixing = terms[[_mixes_positions(t) for t in terms["term"]]].groupby("layer", sort=False)["multiply_adds"].sum()
    frame = total.to_frame("multiply_adds")
    frame["flops"] = 2 * frame["multiply_adds"]
    frame["mixing_multiply_adds"] = mixing
    frame["order"] = [BIG_O[layer][0] for layer in frame.index]
    return frame


def crossovers(d: int, k: int = 3) -> dict[str, float]:
    """Lengths n where attention's two n²·d products cost as much as a whole other layer:
    ``"RNN"`` at ``2n²d = 2nd²``, i.e. ``n = d``; ``"CNN"`` at ``2n²d = knd²``, i.e.
    ``n = k·d/2``. Below them attention's mixing is the cheaper; its projections (``4nd²``)
    come on top, so counted whole, a self-attention layer never costs less than an RNN layer of
    the same width."""
    d = check_int("d", d, minimum=1, maximum=MAX_D)
    k = check_int("k", k, minimum=2, maximum=1024)
    return {"RNN": float(d), "CNN": k * d / 2}


def encoder_layer_parameters(width: int) -> int:
    """Parameters of one Transformer encoder layer of width ``w`` (``torch.nn.TransformerEncoderLayer(w,
    heads, dim_feedforward=4*w)``, any number of heads): the four attention projections
    (``w × w`` and a bias each, ``4w² + 4w``), the feed-forward block of width ``4w`` (two matrices
    and their biases, ``8w² + 5w``) and two layer norms (scale and shift, ``4w``):
    ``12w² + 13w``."""
    w = check_int("width", width, minimum=1, maximum=MAX_D)
    return 4 * (w * w + w) + (w * 4 * w + 4 * w) + (4 * w * w + w) + 4 * w


def encoder_layer_multiply_adds(width: int, tokens: int) -> int:
    """Multiply-adds of one forward pass of that layer (:func:`encoder_layer_parameters`) over
    ``tokens`` tokens ``n`` of width ``w``: the four projections and the feed-forward block
    (``12·w²`` per token) and the scores ``QKᵀ`` and weighted sum of the values (``n²·w`` each):
    ``12·n·w² + 2·n²·w``. Biases, softmax, activation and norms (a few operations per value,
    no ``w²`` or ``n²`` term) are left out. Concatenating a table of width ``w`` to embeddings of
    width ``w`` instead of adding it makes it ``width=2*w``."""
    w = check_int("width", width, minimum=1, maximum=MAX_D)
    n = check_int("tokens", tokens, minimum=1, maximum=MAX_N)
    return 12 * w * w * n + 2 * n * n * w


def cost_curve_lengths(n: int, d: int, k: int = 3, *, points: int = 60) -> list[int]:
    """Lengths for a log-log cost chart: log-spaced from 1 past the crossovers and past ``n``,
    with ``n`` itself included."""
    n, d, k = _check(n, d, k)
    points = check_int("points", points, minimum=2, maximum=1000)
    top = max(2 * k * d, 2 * n, 16)
    return sorted({max(1, round(top ** (i / points))) for i in range(points + 1)} | {n})


def cost_curves(ns: Sequence[int], d: int, k: int = 3) -> pd.DataFrame:
    """Long-form ``n, layer, multiply_adds`` over the lengths ``ns``: each layer's total, and
    ``Self-attention (n² terms only)`` for the part the chapter compares."""
    import pandas as pd

    ns = [check_int("ns", v, minimum=1, maximum=MAX_N) for v in check_sequence("ns", ns)]
    _check(1, d, k)
    rows = []
    for n in ns:  # the sums of layer_costs, without a table per length
        terms = _terms(n, d, k)
        rows += [(n, layer, sum(t[3] for t in terms if t[0] == layer)) for layer in LAYERS]
        rows.append((n, "Self-attention (n² terms only)",
                     sum(t[3] for t in terms if t[0] == "Self-attention" and _mixes_positions(t[1]))))
    return pd.DataFrame(rows, columns=["n", "layer", "multiply_adds"])


class ArchitectureGraph(NamedTuple):
    """The chapter's figure of the three architectures for ``n`` tokens, as nodes and edges.

    ``nodes``: ``(architecture, row, position)``, row 0 being the inputs; ``edges``:
    ``(architecture, row_from, position_from, row_to, position_to, on_path)`` from a node to each
    node it reads; ``on_path`` marks the shortest path between the first and the last token.
    ``rows``: how many rows each architecture has; ``path_length``: that path's length
    (⌈(n−1)/(k−1)⌉ layers, n − 1 steps, 1)."""

    n: int
    k: int
    nodes: list[tuple[str, int, int]]
    edges: list[tuple[str, int, int, int, int, bool]]
    rows: dict[str, int]
    path_length: dict[str, int]


def architecture_graph(n: int, k: int = 3) -> ArchitectureGraph:
    """Nodes and edges of stacked convolutions, a recurrent chain and self-attention over ``n``
    tokens (see :class:`ArchitectureGraph`).

    CNN: ⌈(n−1)/(k−1)⌉ layers of kernel ``k`` with ``padding="same"`` (centred for odd k, as
    ``Conv1d(padding=k//2)``): output ``i`` reads inputs ``i − ⌊(k−1)/2⌋ .. i + ⌈(k−1)/2⌉`` that
    exist. After that many layers one output sees both ends: the path runs from the first token
    up to it and down to the last. RNN: ``h_t`` reads ``x_t`` and ``h_(t−1)``; the path from
    ``x_0`` to ``h_(n−1)`` takes n − 1 steps along the chain. Self-attention: every output reads
    every input; one step.
    """
    n = check_int("n", n, minimum=2, maximum=64)
    k = check_int("k", k, minimum=2, maximum=64)
    left, right = (k - 1) // 2, k - 1 - (k - 1) // 2  # how far an output reads to its left and right
    layers = math.ceil((n - 1) / (k - 1))
    nodes: list[tuple[str, int, int]] = []
    edges: list[tuple[str, int, int, int, int, bool]] = []
    # the output at the top that sees the whole sequence, and the path up to it from both ends:
    # input p reaches outputs p − right .. p + left of the next layer
    top = min(layers * left, n - 1)
    path: set[tuple[int, int, int, int]] = set()
    for pos, toward in ((0, lambda p: min(p + left, top)), (n - 1, lambda p: max(p - right, top))):
        for row in range(1, layers + 1):
            nxt = toward(pos)
            path.add((row - 1, pos, row, nxt))
            pos = nxt
    for row in range(layers + 1):
        nodes += [("CNN", row, i) for i in range(n)]
    for row in range(1, layers + 1):
        for i in range(n):
            for j in range(i - left, i + right + 1):
                if 0 <= j < n:
                    edges.append(("CNN", row - 1, j, row, i, (row - 1, j, row, i) in path))
    nodes += [("RNN", row, i) for row in (0, 1) for i in range(n)]
    for t in range(n):
        edges.append(("RNN", 0, t, 1, t, t == 0))
        if t:
            edges.append(("RNN", 1, t - 1, 1, t, True))
    nodes += [("Self-attention", row, i) for row in (0, 1) for i in range(n)]
    for i in range(n):
        edges += [("Self-attention", 0, j, 1, i, (j, i) == (0, n - 1)) for j in range(n)]
    return ArchitectureGraph(n, k, nodes, edges, {"CNN": layers + 1, "RNN": 2, "Self-attention": 2},
                             {"CNN": layers, "RNN": n - 1, "Self-attention": 1})


def attention_weights_bytes(n: int, num_heads: int, *, batch: int = 1, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of the explicit attention weights ``(batch, num_heads, n, n)``."""
    n = check_int("n", n, minimum=0, maximum=MAX_N)
    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=1 << 16)
    batch = check_int("batch", batch, minimum=0, maximum=1 << 32)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"dtype={dtype!r} must be a torch dtype")
    return batch * num_heads * n * n * torch.empty((), dtype=dtype).element_size()
