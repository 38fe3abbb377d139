r"""Position-encoding families side by side: what each learns, the matrix it contributes, and
what it does past the training length (RoPE's two pairings and its context-extension rules are
in :mod:`pekit.rope_variants`).

The schemes themselves live in :mod:`pekit.encodings` (sinusoidal, binary), :mod:`pekit.rotation`
(RoPE) and :mod:`pekit.positions` (learned, ALiBi, T5); this module adds Shaw et al.'s clipped
relative positions and the numbers that compare them.

References
- Vaswani et al., "Attention Is All You Need" (2017), section 3.5, and tensor2tensor's
  ``get_timing_signal_1d`` (``tensor2tensor/layers/common_attention.py``): the sinusoidal table,
  interleaved (the book) or as all sines then all cosines with timescales log-spaced from 1 to
  the base, i.e. the exponent's denominator ``d/2 - 1`` instead of ``d/2``.
- Shaw, Uszkoreit and Vaswani, "Self-Attention with Relative Position Representations" (NAACL
  2018): learned vectors :math:`a^K_{ij} = w^K_{\text{clip}(j-i, k)}`, :math:`a^V_{ij} = w^V_{\text{clip}(j-i, k)}`
  of the head width, :math:`2k+1` of each per layer, shared by the heads; the index matrix as
  tensor2tensor's ``_generate_relative_positions_matrix`` (``common_attention.py``):
  ``clip(j - i, -k, k) + k``.
- Su et al., "RoFormer" (2021) and lucidrains' rotary-embedding-torch
  (``rotary_embedding_torch/rotary_embedding_torch.py``): RoPE on adjacent pairs
  ``(x[2j], x[2j+1])``; GPT-NeoX and Hugging Face transformers
  (``models/llama/modeling_llama.py``, ``rotate_half``): pairs ``(x[j], x[j + d/2])``.
- Press, Smith and Lewis, "Train Short, Test Long" (ICLR 2022): ALiBi (:func:`pekit.alibi_bias`).
- Raffel et al. (2020), T5's relative buckets (:func:`pekit.t5_relative_buckets`, as Hugging Face
  ``models/t5/modeling_t5.py`` ``_relative_position_bucket``).

Shapes use the book's words: ``num_positions`` (steps), ``num_hiddens`` (the model's width
``d``), ``num_heads``; per-head vectors have ``num_hiddens / num_heads`` entries, and RoPE turns
``head_dim / 2`` pairs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_bool, check_elements, check_int, check_memory, check_tensor
from .devices import resolve_device
from .encodings import binary_encoding, frequencies, sinusoidal_encoding
from .positions import (
    MAX_HEADS,
    MAX_STEPS,
    T5_BYTES,
    _relative,
    alibi_bias,
    alibi_bytes,
    alibi_slopes,
    check_buckets,
    t5_buckets_of,
    t5_relative_buckets,
)

__all__ = [
    "FAMILIES",
    "shaw_relative_indices",
    "shaw_parameters",
    "scheme_parameters",
    "scheme_matrix",
    "ShawPairs",
    "shaw_pairs",
    "alibi_slope_table",
    "T5Curve",
    "t5_bucket_curve",
    "RopePair",
    "Beyond",
    "beyond_training",
]

# the rows of the comparison: two layouts of the sinusoidal table, then the schemes used in practice
FAMILIES: tuple[str, ...] = ("sinusoidal", "tensor2tensor", "learned", "binary", "rope", "alibi", "t5", "shaw",
                             "none")
MAX_DIM = 1 << 16


def _check_family(scheme: object) -> str:
    if not isinstance(scheme, str) or scheme not in FAMILIES:
        raise ValueError(f"scheme={str(scheme)[:40]!r} must be one of {', '.join(FAMILIES)}")
    return scheme


# ---------------------------------------------------------------------------------------------
# Shaw et al.: clipped relative positions


SHAW_BYTES = 24  # bytes per query-key pair of the offsets, their clipped copy and the indices (int64)


def shaw_relative_indices(num_queries: int, num_keys: int, max_distance: int, *,
                          device: str | torch.device | None = None) -> Tensor:
    r"""Which learned relative vector each query-key pair uses, ``(num_queries, num_keys)`` int64:
    :math:`\text{clip}(j - i, -k, k) + k` with ``k = max_distance``, so ``0 .. 2k``. As in
    tensor2tensor, with more keys than queries the queries are the last positions. The tables take
    24 bytes per pair; more than 1 GiB is refused (``ValueError``)."""
    num_queries = check_int("num_queries", num_queries, minimum=0, maximum=MAX_STEPS)
    num_keys = check_int("num_keys", num_keys, minimum=0, maximum=MAX_STEPS)
    max_distance = check_int("max_distance", max_distance, minimum=0, maximum=MAX_STEPS)
    check_memory({"num_queries": num_queries, "num_keys": num_keys}, SHAW_BYTES)
    rel = _relative(num_queries, num_keys, resolve_device(device))  # (queries, keys): j - i
    return rel.clamp(-max_distance, max_distance) + max_distance


def shaw_parameters(max_distance: int, head_dim: int, *, layers: int = 1) -> int:
    r"""Numbers Shaw et al.'s scheme learns: per layer, :math:`2k+1` vectors of the head width
    for the keys (:math:`w^K`) and as many for the values (:math:`w^V`), shared by the heads:
    ``layers · 2 · (2k + 1) · head_dim``."""
    max_distance = check_int("max_distance", max_distance, minimum=0, maximum=MAX_STEPS)
    head_dim = check_int("head_dim", head_dim, minimum=1, maximum=MAX_DIM)
    layers = check_int("layers", layers, minimum=1, maximum=1 << 10)
    return layers * 2 * (2 * max_distance + 1) * head_dim


def _check_width(num_hiddens: object, num_heads: object, *, divisible: bool = True) -> tuple[int, int]:
    num_hiddens = check_int("num_hiddens", num_hiddens, minimum=1, maximum=MAX_DIM)
    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_HEADS)
    if divisible and num_hiddens % num_heads:
        raise ValueError(f"num_hiddens={num_hiddens} is not divisible by num_heads={num_heads}")
    return num_hiddens, num_heads


def scheme_parameters(scheme: str, *, num_hiddens: int, num_heads: int, max_len: int = 512, num_buckets: int = 32,
                      max_distance: int = 16, layers: int = 1) -> int:
    r"""How many numbers ``scheme`` learns for its positions in a model of width ``num_hiddens``
    with ``num_heads`` heads and ``layers`` layers.

    ``sinusoidal``, ``tensor2tensor``, ``binary``, ``rope``, ``alibi`` and ``none``: 0 (fixed
    formulas). ``learned``: ``max_len · num_hiddens`` (a row per position, BERT and GPT-2).
    ``t5``: ``num_buckets · num_heads`` (a scalar per bucket and head; T5 shares one table across
    its layers). ``shaw``: :func:`shaw_parameters` with ``max_distance`` and the head width."""
    scheme = _check_family(scheme)
    num_hiddens, num_heads = _check_width(num_hiddens, num_heads)
    max_len = check_int("max_len", max_len, minimum=1, maximum=MAX_STEPS)
    num_buckets = check_int("num_buckets", num_buckets, minimum=2, maximum=1 << 16)
    layers = check_int("layers", layers, minimum=1, maximum=1 << 10)
    if scheme == "learned":
        return max_len * num_hiddens
    if scheme == "t5":
        return num_buckets * num_heads
    if scheme == "shaw":
        return shaw_parameters(max_distance, num_hiddens // num_heads, layers=layers)
    return 0


def scheme_matrix(scheme: str, num_positions: int, num_heads: int, *, num_hiddens: int = 64,
                  base: float = 10000.0, causal: bool = False, num_buckets: int = 32, t5_max_distance: int = 128,
                  shaw_max_distance: int = 4, table: Tensor | None = None) -> Tensor:
    r"""What ``scheme`` contributes at ``num_positions`` positions (float64, on the CPU):

    - ``sinusoidal`` / ``tensor2tensor``: the added table ``(num_positions, num_hiddens)`` in
      that layout; ``binary``: the 0/1 table ``(num_positions, bits)``, the fewest bits;
    - ``learned``: the first ``num_positions`` rows of ``table`` (a trained
      ``(max_len, width)`` table; fewer rows when it has fewer);
    - ``rope``: the angle by which each pair of a head is turned, :math:`m\,\omega_j \bmod 2\pi`,
      ``(num_positions, head_dim / 2)`` (the float64 product, reduced by ``torch.remainder``:
      within 1e-11 of the exact angle for positions up to ``MAX_STEPS``);
    - ``alibi``: the score bias of every head, ``(num_heads, num_positions, num_positions)``
      (``-inf`` above the diagonal when ``causal``);
    - ``t5``: the bucket of every query-key pair, ``(num_positions, num_positions)``;
    - ``shaw``: the index of the relative vector of every pair, ``(num_positions, num_positions)``;
    - ``none``: nothing, a ``(num_positions, 0)`` matrix.

    The tables of ``alibi``, ``t5`` and ``shaw`` (the float64 result and what builds it) must fit
    in 1 GiB, else ``ValueError`` names ``num_positions`` (and the heads).
    """
    scheme = _check_family(scheme)
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=MAX_STEPS)
    num_hiddens, num_heads = _check_width(num_hiddens, num_heads, divisible=scheme == "rope")
    causal = check_bool("causal", causal)
    check_elements({"num_heads": num_heads, "num_positions²": num_positions * num_positions})
    check_elements({"num_positions": num_positions, "num_hiddens": num_hiddens})
    pair_bytes = {"alibi": alibi_bytes(num_heads, torch.float64), "t5": T5_BYTES + 8, "shaw": SHAW_BYTES + 8}
    if scheme in pair_bytes:  # (positions, positions) tables, as float64
        check_memory({"num_positions²": num_positions * num_positions}, pair_bytes[scheme])
    if scheme in ("sinusoidal", "tensor2tensor"):
        layout = "interleaved" if scheme == "sinusoidal" else "tensor2tensor"
        return sinusoidal_encoding(num_positions, num_hiddens, base=base, layout=layout, device="cpu",
                                   dtype=torch.float64)
    if scheme == "binary":
        return binary_encoding(num_positions, device="cpu", dtype=torch.float64)
    if scheme == "learned":
        check_tensor("table", table, dims=2, floating=True, what="(max_len, width)")
        return table[:num_positions].detach().to("cpu", torch.float64)
    if scheme == "rope":
        head_dim = num_hiddens // num_heads  # (divisible: checked above)
        if head_dim % 2:
            raise ValueError(f"num_hiddens={num_hiddens} / num_heads={num_heads} = {head_dim} per head is odd; RoPE "
                             "turns pairs of columns")
        omega = frequencies(head_dim, base=base)  # (head_dim / 2,)
        angles = torch.arange(num_positions, dtype=torch.float64)[:, None] * omega[None, :]
        return torch.remainder(angles, 2 * math.pi)  # (num_positions, head_dim / 2)
    if scheme == "alibi":
        return alibi_bias(num_positions, num_positions, num_heads, causal=causal, device="cpu", dtype=torch.float64)
    if scheme == "t5":
        num_buckets, t5_max_distance = check_buckets(num_buckets, t5_max_distance, not causal,
                                                     names=("num_buckets", "t5_max_distance"))
        return t5_relative_buckets(num_positions, num_positions, bidirectional=not causal, num_buckets=num_buckets,
                                   max_distance=t5_max_distance, device="cpu").double()
    if scheme == "shaw":
        return shaw_relative_indices(num_positions, num_positions, shaw_max_distance, device="cpu").double()
    return torch.zeros(num_positions, 0, dtype=torch.float64)


class ShawPairs(NamedTuple):
    """Shaw's vector index of every query-key pair, ``indices`` ``(num_positions, num_positions)``
    float64 (``NaN`` where a decoder's query meets a later key, which uses no vector), and ``used``:
    how many of the ``2k + 1`` indices occur among the pairs not masked."""

    indices: Tensor
    used: int


def shaw_pairs(num_positions: int, max_distance: int, *, causal: bool = False) -> ShawPairs:
    """:func:`scheme_matrix` of ``shaw`` at ``num_positions`` positions, clipped at
    ``max_distance``, with the pairs above the diagonal masked (``NaN``) when ``causal``, and the
    indices in use counted."""
    causal = check_bool("causal", causal)
    indices = scheme_matrix("shaw", num_positions, 1, shaw_max_distance=max_distance)  # (n, n)
    n = indices.shape[0]
    if causal:  # a decoder's query never sees a later key
        indices = indices.masked_fill(indices.new_ones((n, n)).triu(1).bool(), float("nan"))
    return ShawPairs(indices, int(indices[~indices.isnan()].unique().numel()))


# ---------------------------------------------------------------------------------------------
# ALiBi slopes and T5 buckets, as the conventions section shows them


def alibi_slope_table(num_heads: int):
    r"""The slopes of ``num_heads`` heads and where ``get_slopes`` takes each from, as a frame:
    ``head`` (1-based), ``slope``, ``exponent`` (:math:`-\log_2` slope) and ``taken from``: for a
    power of two ``P``, head ``i`` of the geometric sequence :math:`2^{-8i/P}`; otherwise the ``P``
    slopes of the largest power of two below, then heads 1, 3, 5, ... of the ``2P`` sequence."""
    import pandas as pd

    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_HEADS)
    slopes = alibi_slopes(num_heads, device="cpu", dtype=torch.float64).tolist()
    power = 1 << (num_heads.bit_length() - 1)
    source = [f"head {i + 1} of {power}" for i in range(power)]
    source += [f"head {2 * t + 1} of {2 * power}" for t in range(num_heads - power)]
    return pd.DataFrame({"head": range(1, num_heads + 1), "slope": slopes,
                         "exponent": [-math.log2(m) for m in slopes], "taken from": source})


class T5Curve(NamedTuple):
    """T5's bucket of each offset ``key - query`` in ``offsets`` (``-M .. M``), bidirectional
    (an encoder) and causal (a decoder); ``exact``: how many distances ``0, 1, ..`` get a bucket
    of their own in each (``num_buckets / 4`` and ``num_buckets / 2``); every distance from
    ``max_distance`` on shares one bucket."""

    offsets: Tensor
    bidirectional: Tensor
    causal: Tensor
    exact_bidirectional: int
    exact_causal: int
    max_distance: int


def t5_bucket_curve(max_offset: int, *, num_buckets: int = 32, max_distance: int = 128) -> T5Curve:
    """:func:`pekit.t5_relative_buckets` along one row: offsets ``-max_offset .. max_offset``
    (``2·max_offset + 1`` of them)."""
    max_offset = check_int("max_offset", max_offset, minimum=0, maximum=MAX_STEPS // 2)
    num_buckets = check_int("num_buckets", num_buckets, minimum=4, maximum=1 << 16)
    max_distance = check_int("max_distance", max_distance, minimum=1, maximum=1 << 30)
    check_buckets(num_buckets, max_distance, True)
    check_buckets(num_buckets, max_distance, False)
    # the one row itself: offsets key - query = -M .. M (no (M + 1, 2M + 1) table)
    rel = torch.arange(-max_offset, max_offset + 1)
    both = t5_buckets_of(rel, True, num_buckets, max_distance)
    causal = t5_buckets_of(rel, False, num_buckets, max_distance)
    return T5Curve(torch.arange(-max_offset, max_offset + 1), both, causal, num_buckets // 4, num_buckets // 2,
                   max_distance)


# ---------------------------------------------------------------------------------------------
# Past the training length


class RopePair(NamedTuple):
    """One RoPE pair past the training length: ``omega`` (radians per position), the largest
    angle (offset) seen in training ``(L-1)·ω``, whether that is a full turn or more (then every
    direction of the pair was met), the angle at the offset asked about, and whether that angle
    was never met in training (no full turn and a larger angle). Angles are raw float64
    products ``offset · ω`` (not reduced; offsets up to ``MAX_STEPS``, so within 1e-11);
    ``turned`` is the angle reduced mod 2π, the direction the pair points in at the offset."""

    pair: int
    omega: float
    largest_seen: float
    full_turn: bool
    angle: float
    unseen: bool
    turned: float = 0.0


class Beyond(NamedTuple):
    """What each scheme does at position (or offset) ``position`` of a model trained on
    ``train_len`` positions (see :func:`beyond_training`)."""

    position: int
    train_len: int
    learned_has_row: bool
    sinusoidal_nearest: float
    sinusoidal_step: float
    rope: list[RopePair]
    alibi_slopes: list[float]
    alibi_bias: list[float]
    alibi_bias_seen: list[float]
    t5_bucket: int
    t5_buckets_seen: int
    t5_bucket_seen: bool
    t5_max_distance: int
    shaw_index: int
    shaw_clipped: bool
    shaw_max_distance: int


def beyond_training(position: int, train_len: int, *, num_hiddens: int = 64, num_heads: int = 8,
                    base: float = 10000.0, num_buckets: int = 32, t5_max_distance: int = 128,
                    shaw_max_distance: int = 16) -> Beyond:
    r"""Each scheme at position or offset ``p`` = ``position`` after training on ``L`` =
    ``train_len`` positions (offsets up to ``L - 1``):

    - learned: a row exists only for ``p < L``;
    - sinusoidal: row ``p`` is defined; ``sinusoidal_nearest`` is its distance to the nearest
      row seen in training (``0 .. L-1``), ``sinusoidal_step`` the distance between two
      neighbouring rows (:math:`\|P_1 - P_0\|`), for scale (interleaved, width ``num_hiddens``);
    - RoPE (head width ``num_hiddens / num_heads``): per pair, :class:`RopePair`;
    - ALiBi: :math:`-m_h p` and the most negative bias seen, :math:`-m_h (L-1)`, per head;
    - T5 (keys before the query, as a decoder and the backward half of an encoder): the bucket
      of offset ``p``, how many buckets offsets ``0 .. L-1`` reach, whether ``p``'s is one of them;
      every offset from ``t5_max_distance`` on shares the last bucket;
    - Shaw: the vector index :math:`\text{clip}(p, -k, k) + k` and whether ``p`` is clipped to the edge.
    """
    train_len = check_int("train_len", train_len, minimum=1, maximum=MAX_STEPS)
    position = check_int("position", position, minimum=0, maximum=MAX_STEPS)
    num_hiddens, num_heads = _check_width(num_hiddens, num_heads)
    head_dim = num_hiddens // num_heads
    if head_dim % 2:
        raise ValueError(f"num_hiddens={num_hiddens} / num_heads={num_heads} = {head_dim} per head is odd; RoPE "
                         "turns pairs of columns")
    shaw_max_distance = check_int("shaw_max_distance", shaw_max_distance, minimum=0, maximum=MAX_STEPS)
    num_buckets, t5_max_distance = check_buckets(num_buckets, t5_max_distance, True,
                                                 names=("num_buckets", "t5_max_distance"))
    check_elements({"train_len": train_len, "num_hiddens": num_hiddens})
    # sinusoidal: row p against the rows seen in training
    P = sinusoidal_encoding(train_len, num_hiddens, base=base, device="cpu", dtype=torch.float64)  # (L, d)
    row = sinusoidal_encoding(1, num_hiddens, base=base, start=position, device="cpu", dtype=torch.float64)
    nearest = float((P - row).norm(dim=1).min())
    first = sinusoidal_encoding(2, num_hiddens, base=base, device="cpu", dtype=torch.float64)
    step = float((first[1] - first[0]).norm())
    # RoPE, per pair of a head
    omega = frequencies(head_dim, base=base)
    pairs = []
    for j, w in enumerate(omega.tolist()):
        seen = (train_len - 1) * w
        full = seen >= 2 * math.pi
        pairs.append(RopePair(j, w, seen, full, position * w, (not full) and position > train_len - 1,
                              math.fmod(position * w, 2 * math.pi)))
    # ALiBi
    slopes = alibi_slopes(num_heads, device="cpu", dtype=torch.float64).tolist()
    # T5: keys 0 .. p places before the query (offsets 0, -1, .., -p), the backward half of the buckets
    bucket_of = t5_buckets_of(-torch.arange(max(train_len, position + 1)), True, num_buckets,
                              t5_max_distance)  # (offsets,): offsets 0, -1, .., -p
    seen_buckets = set(bucket_of[:train_len].tolist())
    bucket = int(bucket_of[position])
    index = min(position, shaw_max_distance) + shaw_max_distance
    return Beyond(
        position=position, train_len=train_len, learned_has_row=position < train_len,
        sinusoidal_nearest=nearest, sinusoidal_step=step, rope=pairs, alibi_slopes=slopes,
        alibi_bias=[-m * position for m in slopes], alibi_bias_seen=[-m * (train_len - 1) for m in slopes],
        t5_bucket=bucket, t5_buckets_seen=len(seen_buckets), t5_bucket_seen=bucket in seen_buckets,
        t5_max_distance=t5_max_distance, shaw_index=index, shaw_clipped=position > shaw_max_distance,
        shaw_max_distance=shaw_max_distance,
    )
