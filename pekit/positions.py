r"""Position schemes used in practice, behind one interface: where each puts position into a model.

A scheme can act at three places of a transformer, and each scheme here uses exactly one:

- added to the token vectors before the first layer (:meth:`PositionScheme.embed`):
  ``sinusoidal`` and ``learned``;
- turning the queries and keys of every head (:attr:`PositionScheme.rotary`): ``rope``;
- added to the attention scores of every head (:meth:`PositionScheme.bias`): ``alibi`` and ``t5``.

``none`` does nothing: a model without positions, which self-attention alone cannot tell from
any reordering of its input (the chapter's "self-attention by itself does not preserve the order
of the sequence").

References, one per scheme (each is tested against its reference in ``tests/test_positions.py``)
- ``sinusoidal``: Vaswani et al., "Attention Is All You Need" (2017), section 3.5, as the
  Dive into Deep Learning chapter builds it (interleaved sin/cos columns), the table of
  :func:`pekit.sinusoidal_encoding`: :math:`X + P_{[:n]}`.
- ``learned``: one trained vector per position (BERT, GPT-2's ``wpe``), :math:`X + E_{[:n]}`;
  a table of ``max_len`` rows has nothing for position ``max_len`` and later.
- ``rope``: Su et al., "RoFormer" (2021): :math:`q_m \mapsto R_m q_m`, :math:`k_n \mapsto R_n k_n`
  with adjacent pairs turned by :math:`m\,\theta_j`, :math:`\theta_j = 10000^{-2j/d}` (per head,
  ``d`` the head width), i.e. :func:`pekit.apply_rope` with ``pairing="adjacent"``.
- ``alibi``: Press, Smith and Lewis, "Train Short, Test Long: Attention with Linear Biases"
  (ICLR 2022): score bias :math:`-m_h\,|i-j|` with head slopes :math:`m_h` from the authors'
  ``get_slopes`` (github.com/ofirpress/attention_with_linear_biases); causal models see keys
  ``j <= i`` only, so their bias is :math:`-m_h (i - j)`.
- ``t5``: Raffel et al., "Exploring the Limits of Transfer Learning with a Unified Text-to-Text
  Transformer" (2020), section 2.1: one learned scalar per head and relative-distance bucket,
  buckets from Hugging Face transformers' ``T5Attention._relative_position_bucket`` (32 buckets,
  half exact, half log-spaced up to ``max_distance=128``; bidirectional or causal). As in T5, one
  table serves every layer.

Shapes use the book's words: ``(batch, steps, num_hiddens)`` for token vectors,
``(batch, num_heads, steps, num_hiddens / num_heads)`` for the per-head queries and keys,
``(num_heads, queries, keys)`` for score biases.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from ._checks import check_bool, check_elements, check_float, check_float_dtype, check_int, check_memory, check_tensor
from .devices import resolve_device
from .encodings import check_base, sinusoidal_encoding
from .rotation import apply_rope

__all__ = [
    "SCHEMES",
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_buckets",
    "PositionScheme",
    "NoPositions",
    "SinusoidalPositions",
    "LearnedPositions",
    "RotaryPositions",
    "ALiBiPositions",
    "T5Positions",
    "position_scheme",
]

SCHEMES: tuple[str, ...] = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
MAX_HEADS = 1 << 12
MAX_STEPS = 1 << 14  # positions of a score bias (a (heads, steps, steps) table)
MAX_STD = 100.0  # largest scale a learned table may start at (token vectors start near 0.3)


def check_scheme(positions: object) -> str:
    """``positions`` as one of :data:`SCHEMES`, or ``ValueError`` naming it."""
    if not isinstance(positions, str) or positions not in SCHEMES:
        raise ValueError(f"positions={str(positions)[:40]!r} must be one of {', '.join(SCHEMES)}")
    return positions


# ---------------------------------------------------------------------------------------------
# ALiBi


def _slopes_power_of_2(n: int) -> list[float]:
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # 2^(-8/n)
    return [start * start**i for i in range(n)]


def _slopes(n: int) -> list[float]:
    if math.log2(n).is_integer():
        return _slopes_power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return _slopes_power_of_2(closest) + _slopes(2 * closest)[0::2][: n - closest]


def alibi_slopes(num_heads: int, *, device: str | torch.device | None = None,
                 dtype: torch.dtype = torch.float32) -> Tensor:
    r"""The head slopes :math:`m_h` of ALiBi, ``(num_heads,)``, as the authors' ``get_slopes``.

    For ``H`` a power of two: the geometric sequence :math:`2^{-8/H}, 2^{-16/H}, \dots, 2^{-8}`
    (start and ratio both :math:`2^{-8/H}`). Otherwise: the slopes of the largest power of two
    ``P < H``, then every other slope of ``2P`` heads (the ones between them), ``H - P`` of them.
    E.g. 6 heads: the 4 slopes 1/4, 1/16, 1/64, 1/256, then 2^-1, 2^-3 from the 8-head sequence.
    """
    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_HEADS)
    dtype = check_float_dtype(dtype)
    return _slope_tensor(num_heads, resolve_device(device), dtype)


def _slope_tensor(num_heads: int, device: torch.device, dtype: torch.dtype) -> Tensor:
    return torch.tensor(_slopes(num_heads), dtype=torch.float64).to(device=device, dtype=dtype)  # (num_heads,)


def _relative(num_queries: int, num_keys: int, device: torch.device) -> Tensor:
    """``key - query`` for every pair, ``(queries, keys)`` int64; with more keys than queries the
    queries are the last ones (aligned at the end, as causal attention is)."""
    q = torch.arange(num_queries, device=device)[:, None] + (num_keys - num_queries)
    return torch.arange(num_keys, device=device)[None, :] - q


def _check_sizes(num_queries: object, num_keys: object) -> tuple[int, int]:
    num_queries = check_int("num_queries", num_queries, minimum=0, maximum=MAX_STEPS)
    num_keys = check_int("num_keys", num_keys, minimum=0, maximum=MAX_STEPS)
    return num_queries, num_keys


def alibi_bias(
    num_queries: int,
    num_keys: int,
    num_heads: int,
    *,
    causal: bool = False,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    r"""ALiBi's score bias ``(num_heads, num_queries, num_keys)``: :math:`B_{h,i,j} = -m_h\,|i - j|`
    with :math:`m_h` from :func:`alibi_slopes`.

    ``causal=True`` (a decoder): keys after the query get ``-inf`` (masked), the others
    :math:`-m_h (i - j)`. With more keys than queries, query ``i`` sits at key position
    ``i + num_keys - num_queries``. Its tables (offsets, distances, the bias) must fit in 1 GiB
    (:func:`alibi_bytes` per query-key pair), else ``ValueError``.
    """
    num_queries, num_keys = _check_sizes(num_queries, num_keys)
    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_HEADS)
    check_elements({"num_heads": num_heads, "num_queries": num_queries, "num_keys": num_keys})
    causal = check_bool("causal", causal)
    dev = resolve_device(device)
    dtype = check_float_dtype(dtype)
    check_memory({"num_queries": num_queries, "num_keys": num_keys}, alibi_bytes(num_heads, dtype))
    return _alibi_bias(num_queries, num_keys, num_heads, causal, dev, dtype)


def alibi_bytes(num_heads: int, dtype: torch.dtype) -> int:
    """Bytes per query-key pair of :func:`alibi_bias`'s tables: the offsets (int64), the
    distances, and the bias of every head twice (product and mask)."""
    size = torch.empty((), dtype=dtype).element_size()
    return 8 + 8 + size + 2 * num_heads * size


T5_BYTES = 64  # bytes per query-key pair of the T5 bucket tables (offsets, distances, masks, logs: int64 and float32)


def _alibi_bias(num_queries: int, num_keys: int, num_heads: int, causal: bool, device: torch.device,
                dtype: torch.dtype) -> Tensor:
    """:func:`alibi_bias` of checked arguments."""
    rel = _relative(num_queries, num_keys, device)  # (queries, keys): j - i
    distance = rel.abs().to(dtype)
    bias = -_slope_tensor(num_heads, device, dtype)[:, None, None] * distance  # (heads, queries, keys)
    if causal:
        bias = bias.masked_fill(rel > 0, float("-inf"))
    return bias


# ---------------------------------------------------------------------------------------------
# T5 relative buckets


def check_buckets(num_buckets: object, max_distance: object, bidirectional: bool, *,
                  names: tuple[str, str] = ("num_buckets", "max_distance")) -> tuple[int, int]:
    """T5's ``num_buckets`` and ``max_distance`` as ints, the distance beyond those that get a
    bucket each, or ``ValueError`` naming the argument by the caller's ``names``."""
    num_buckets = check_int(names[0], num_buckets, minimum=2 if not bidirectional else 4, maximum=1 << 16)
    max_distance = check_int(names[1], max_distance, minimum=1, maximum=1 << 30)
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    if max_distance <= max_exact:
        raise ValueError(f"{names[1]}={max_distance} must be more than the {max_exact} distances that get a bucket "
                         f"each ({names[0]}={num_buckets})")
    return num_buckets, max_distance


def t5_relative_buckets(
    num_queries: int,
    num_keys: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    device: str | torch.device | None = None,
) -> Tensor:
    r"""The T5 bucket of ``key - query`` for every pair, ``(num_queries, num_keys)`` int64.

    As T5's ``_relative_position_bucket``: with ``bidirectional`` the buckets are split in two
    halves, keys after the query (``j > i``) taking the upper half, and the distance is
    :math:`n = |j - i|`; otherwise only keys at or before the query count,
    :math:`n = \max(i - j, 0)`. Of the ``B`` buckets left, distances below ``B/2`` get one
    bucket each; longer ones share :math:`B/2 + \lfloor \log(n / (B/2)) / \log(\text{max\_distance}/(B/2))
    \cdot B/2 \rfloor`, capped at the last bucket, so every distance from ``max_distance`` on
    lands in one bucket. Its tables take :data:`T5_BYTES` bytes per query-key pair and must fit
    in 1 GiB, else ``ValueError`` names the sizes.
    """
    num_queries, num_keys = _check_sizes(num_queries, num_keys)
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets, max_distance = check_buckets(num_buckets, max_distance, bidirectional)
    check_memory({"num_queries": num_queries, "num_keys": num_keys}, T5_BYTES)
    return _t5_buckets(num_queries, num_keys, bidirectional, num_buckets, max_distance, resolve_device(device))


def _t5_buckets(num_queries: int, num_keys: int, bidirectional: bool, num_buckets: int, max_distance: int,
                device: torch.device) -> Tensor:
    """:func:`t5_relative_buckets` of checked arguments."""
    rel = _relative(num_queries, num_keys, device)  # (queries, keys): key - query
    return t5_buckets_of(rel, bidirectional, num_buckets, max_distance)


def t5_buckets_of(rel: Tensor, bidirectional: bool, num_buckets: int, max_distance: int) -> Tensor:
    """The T5 bucket of each offset ``key - query`` in ``rel`` (int64, any shape; checked
    ``num_buckets`` and ``max_distance``), same shape."""
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0).long() * num_buckets
        distance = rel.abs()
    else:
        distance = (-rel).clamp(min=0)
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    # float32 as in the reference: the bucket edges then fall exactly where T5's do
    large = max_exact + (
        torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).long()
    large = large.clamp(max=num_buckets - 1)
    return buckets + torch.where(is_small, distance, large)


# ---------------------------------------------------------------------------------------------
# The schemes as modules


class PositionScheme(nn.Module):
    """Where a scheme puts position into a transformer (see the module docstring).

    - :meth:`embed` ``(batch, steps, num_hiddens) -> (batch, steps, num_hiddens)``: the token
      vectors with the positions added (the identity for schemes that act elsewhere).
    - :attr:`rotary`: ``None``, or a function turning per-head queries and keys
      ``(batch, num_heads, steps, head_dim)``, for :class:`pekit.MultiHeadAttention`'s ``rotary``.
    - :meth:`bias` ``-> (num_heads, queries, keys)`` or ``None``: added to every layer's scores
      (``score_bias``); ``-inf`` entries mask.
    - :attr:`max_len`: the longest sequence the scheme has positions for (``None``: any).
    """

    name = "none"
    max_len: int | None = None

    def __init__(self, num_hiddens: int, num_heads: int, *, causal: bool = False) -> None:
        super().__init__()
        self.num_hiddens = check_int("num_hiddens", num_hiddens, minimum=1)
        self.num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_HEADS)
        if self.num_hiddens % self.num_heads:
            raise ValueError(f"num_hiddens={self.num_hiddens} is not divisible by num_heads={self.num_heads}")
        self.causal = check_bool("causal", causal)

    @property
    def head_dim(self) -> int:
        return self.num_hiddens // self.num_heads

    def check_steps(self, steps: int, *, name: str = "steps") -> int:
        """``steps`` when the scheme has positions for that many steps, else ``ValueError``
        naming ``name`` (``"steps"``, or the tensor whose steps they are)."""
        said = f"{name}={steps}" if name == "steps" else f"{name} has {steps} steps"
        steps = check_int(name, steps, minimum=0)
        if steps > MAX_STEPS:
            raise ValueError(f"{said}: more than the {MAX_STEPS:,} positions pekit's schemes cover")
        if self.max_len is not None and steps > self.max_len:
            raise ValueError(f"{said}: the {self.name} position table has rows for positions 0 to "
                             f"{self.max_len - 1} only; a learned table has nothing to add for later positions")
        return steps

    def _check_input(self, X: Tensor) -> Tensor:
        check_tensor("X", X, dims=3, floating=True, what="(batch, steps, num_hiddens)")
        if X.shape[-1] != self.num_hiddens:
            raise ValueError(f"X has {X.shape[-1]} features; this scheme was built for num_hiddens={self.num_hiddens}")
        self.check_steps(X.shape[1], name="X")
        return X

    def embed(self, X: Tensor) -> Tensor:
        return self._check_input(X)

    rotary: Callable[[Tensor], Tensor] | None = None

    def bias(self, num_queries: int, num_keys: int) -> Tensor | None:
        self._check_bias_sizes(num_queries, num_keys)
        return None

    def _check_bias_sizes(self, num_queries: object, num_keys: object) -> tuple[int, int]:
        """The sizes of a score bias, each within what the scheme has positions for."""
        num_queries, num_keys = _check_sizes(num_queries, num_keys)
        if self.max_len is not None and max(num_queries, num_keys) > self.max_len:
            raise ValueError(f"num_queries={num_queries}, num_keys={num_keys}: the {self.name} position table has rows "
                             f"for positions 0 to {self.max_len - 1} only")
        return num_queries, num_keys

    def extra_repr(self) -> str:
        return f"num_hiddens={self.num_hiddens}, num_heads={self.num_heads}, causal={self.causal}"


class NoPositions(PositionScheme):
    """No positions at all: the model sees a set of tokens (order enters only through a causal
    mask, when there is one)."""

    name = "none"


class SinusoidalPositions(PositionScheme):
    r""":math:`X + P_{[:n]}`: the fixed sinusoidal table (interleaved, base 10000) added to the
    token vectors; defined for every position, so any length works."""

    name = "sinusoidal"

    def __init__(self, num_hiddens: int, num_heads: int, *, causal: bool = False, base: float = 10000.0) -> None:
        super().__init__(num_hiddens, num_heads, causal=causal)
        self.base = check_base(base)
        check_elements({"num_hiddens": self.num_hiddens, "positions": 64})
        self.register_buffer("P", sinusoidal_encoding(64, self.num_hiddens, base=self.base, device="cpu"),
                             persistent=False)

    def table(self, steps: int) -> Tensor:
        """``P`` for ``steps`` positions, ``(steps, num_hiddens)`` (grown when a longer input comes)."""
        if steps > self.P.shape[0]:
            self.P = sinusoidal_encoding(max(steps, 2 * self.P.shape[0]), self.num_hiddens, base=self.base,
                                         device=self.P.device, dtype=self.P.dtype)
        return self.P[:steps]

    def embed(self, X: Tensor) -> Tensor:
        X = self._check_input(X)
        return X + self.table(X.shape[1]).to(X.dtype)  # (batch, steps, num_hiddens)


class LearnedPositions(PositionScheme):
    r""":math:`X + E_{[:n]}`: one trained vector per position, ``max_len`` of them, initialised
    :math:`\mathcal N(0, \text{std}^2)` (GPT-2's ``wpe`` uses 0.02; :mod:`pekit.tiny` starts
    them at the scale of its token vectors); longer inputs are refused."""

    name = "learned"

    def __init__(self, num_hiddens: int, num_heads: int, *, max_len: int, causal: bool = False,
                 std: float = 0.02) -> None:
        super().__init__(num_hiddens, num_heads, causal=causal)
        self.max_len = check_int("max_len", max_len, minimum=1, maximum=MAX_STEPS)
        check_elements({"max_len": self.max_len, "num_hiddens": self.num_hiddens})
        std = check_float("std", std, minimum=0.0, maximum=MAX_STD)
        self.table = nn.Embedding(self.max_len, self.num_hiddens)
        nn.init.normal_(self.table.weight, std=std)

    def embed(self, X: Tensor) -> Tensor:
        X = self._check_input(X)
        return X + self.table.weight[: X.shape[1]].to(X.dtype)  # (batch, steps, num_hiddens)


class RotaryPositions(PositionScheme):
    r"""RoPE: every head's queries and keys turned by :func:`pekit.apply_rope` (adjacent pairs,
    base 10000, head width ``num_hiddens / num_heads``, which must be even), so each score
    :math:`q_m \cdot k_n` depends on the offset :math:`m - n` only."""

    name = "rope"

    def __init__(self, num_hiddens: int, num_heads: int, *, causal: bool = False, base: float = 10000.0) -> None:
        super().__init__(num_hiddens, num_heads, causal=causal)
        if self.head_dim % 2:
            raise ValueError(f"num_hiddens={self.num_hiddens} / num_heads={self.num_heads} = {self.head_dim} per head is "
                             "odd; RoPE turns pairs of columns, so each head needs an even width")
        self.base = check_base(base)

    def rotary(self, x: Tensor) -> Tensor:  # type: ignore[override]
        """``(batch, num_heads, steps, head_dim)`` -> the same, pair ``j`` at position ``m``
        turned by :math:`m\\,\\text{base}^{-2j/\\text{head\\_dim}}`."""
        check_tensor("x", x, dims=4, floating=True, what="(batch, num_heads, steps, head_dim)")
        if x.shape[1] != self.num_heads or x.shape[-1] != self.head_dim:
            raise ValueError(f"x must have shape (batch, {self.num_heads}, steps, {self.head_dim}) for num_heads="
                             f"{self.num_heads} heads of {self.head_dim}; got {tuple(x.shape)}")
        self.check_steps(x.shape[-2], name="x")
        return apply_rope(x, base=self.base, pairing="adjacent")


class ALiBiPositions(PositionScheme):
    r"""ALiBi: :math:`-m_h |i-j|` added to head ``h``'s scores (:func:`alibi_bias`); nothing is
    learned, so any length works."""

    name = "alibi"

    def __init__(self, num_hiddens: int, num_heads: int, *, causal: bool = False) -> None:
        super().__init__(num_hiddens, num_heads, causal=causal)
        self.register_buffer("slopes", alibi_slopes(self.num_heads, device="cpu"), persistent=False)

    def bias(self, num_queries: int, num_keys: int) -> Tensor:
        num_queries, num_keys = self._check_bias_sizes(num_queries, num_keys)
        check_elements({"num_heads": self.num_heads, "num_queries": num_queries, "num_keys": num_keys})
        return _alibi_bias(num_queries, num_keys, self.num_heads, self.causal, self.slopes.device, torch.float32)


class T5Positions(PositionScheme):
    r"""T5's relative bias: a learned scalar per head and bucket of ``key - query``
    (:func:`t5_relative_buckets`), :math:`B_{h,i,j} = b_{h,\text{bucket}(j-i)}`, added to the
    scores of every layer. Initialised at zero (every head starts position-blind)."""

    name = "t5"

    def __init__(self, num_hiddens: int, num_heads: int, *, causal: bool = False, num_buckets: int = 32,
                 max_distance: int = 128) -> None:
        super().__init__(num_hiddens, num_heads, causal=causal)
        self.num_buckets, self.max_distance = check_buckets(num_buckets, max_distance, not self.causal)
        check_elements({"num_buckets": self.num_buckets, "num_heads": self.num_heads})
        self.relative_attention_bias = nn.Embedding(self.num_buckets, self.num_heads)
        nn.init.zeros_(self.relative_attention_bias.weight)

    def bias(self, num_queries: int, num_keys: int) -> Tensor:
        num_queries, num_keys = self._check_bias_sizes(num_queries, num_keys)
        check_elements({"num_heads": self.num_heads, "num_queries": num_queries, "num_keys": num_keys})
        table = self.relative_attention_bias.weight  # (num_buckets, num_heads)
        buckets = _t5_buckets(num_queries, num_keys, not self.causal, self.num_buckets, self.max_distance,
                              table.device)  # (queries, keys)
        return table[buckets].permute(2, 0, 1)  # (num_heads, queries, keys)


def position_scheme(positions: str, num_hiddens: int, num_heads: int, *, max_len: int | None = None,
                    causal: bool = False, learned_std: float = 0.02) -> PositionScheme:
    """The scheme named ``positions`` (one of :data:`SCHEMES`) for a model of ``num_hiddens``
    units and ``num_heads`` heads. ``max_len`` is the number of rows of a ``learned`` table
    (required there, ignored elsewhere), ``learned_std`` the scale its rows start at; ``causal``
    selects the decoder form of ``alibi`` (masked future) and ``t5`` (one-sided buckets)."""
    positions = check_scheme(positions)
    if positions == "learned":
        learned_std = check_float("learned_std", learned_std, minimum=0.0, maximum=MAX_STD)
        if max_len is None:
            raise ValueError("max_len is needed for positions='learned' (how many positions the table has rows for)")
        return LearnedPositions(num_hiddens, num_heads, max_len=max_len, causal=causal, std=learned_std)
    cls = {"none": NoPositions, "sinusoidal": SinusoidalPositions, "rope": RotaryPositions, "alibi": ALiBiPositions,
           "t5": T5Positions}[positions]
    return cls(num_hiddens, num_heads, causal=causal)

