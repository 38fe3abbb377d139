r"""Position-encoding families side by side: what each learns, the matrix it contributes, its
conventions, what it does past the training length, and how RoPE is stretched to longer contexts.

The schemes themselves live in :mod:`pekit.encodings` (sinusoidal, binary), :mod:`pekit.rotation`
(RoPE) and :mod:`pekit.positions` (learned, ALiBi, T5); this module adds Shaw et al.'s clipped
relative positions, the RoPE pairing and context-extension rules, and the numbers that compare
them.

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
- Context extension for RoPE, as Hugging Face transformers' ``modeling_rope_utils.py`` computes
  it (``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``,
  ``_compute_yarn_parameters``): position interpolation (Chen, Wong, Chen and Tian, "Extending
  Context Window of Large Language Models via Positional Interpolation", 2023); NTK-aware scaling
  (bloc97, 2023: the base becomes :math:`b\,s^{d/(d-2)}`) and its dynamic form (emozilla, 2023);
  YaRN (Peng, Quesnelle, Fan and Shippole, "YaRN: Efficient Context Window Extension of Large
  Language Models", 2023).

Shapes use the book's words: ``num_positions`` (steps), ``num_hiddens`` (the model's width
``d``), ``num_heads``; per-head vectors have ``num_hiddens / num_heads`` entries, and RoPE turns
``head_dim / 2`` pairs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_bool, check_elements, check_float, check_int, check_memory, check_tensor
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
from .rotation import apply_rope

__all__ = [
    "FAMILIES",
    "SCALINGS",
    "shaw_relative_indices",
    "shaw_parameters",
    "scheme_parameters",
    "scheme_matrix",
    "alibi_slope_table",
    "T5Curve",
    "t5_bucket_curve",
    "rope_pair_permutation",
    "PairingCheck",
    "rope_pairing_check",
    "RopeScaling",
    "rope_scaling",
    "rope_frequencies",
    "RopePair",
    "Beyond",
    "beyond_training",
]

# the rows of the comparison: two layouts of the sinusoidal table, then the schemes used in practice
FAMILIES: tuple[str, ...] = ("sinusoidal", "tensor2tensor", "learned", "binary", "rope", "alibi", "t5", "shaw",
                             "none")
SCALINGS: tuple[str, ...] = ("none", "linear", "ntk", "dynamic", "yarn")
MAX_DIM = 1 << 16
MAX_FACTOR = 1e6


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
# RoPE: adjacent pairs against split halves


def _check_rope_dim(dim: object, name: str = "dim", minimum: int = 2) -> int:
    dim = check_int(name, dim, minimum=minimum, maximum=MAX_DIM)
    if dim % 2:
        raise ValueError(f"{name}={dim} is odd: RoPE turns pairs of columns, so the width must be even")
    return dim


def rope_pair_permutation(dim: int) -> Tensor:
    """The column order taking the adjacent layout to split halves, ``(dim,)`` int64:
    ``x_halves = x_adjacent[..., perm]`` puts ``x[2j]`` at ``j`` and ``x[2j+1]`` at ``j + dim/2``,
    so adjacent pair ``j`` becomes halves pair ``j`` (``[0, 2, 4, ..., 1, 3, 5, ...]``)."""
    dim = _check_rope_dim(dim)
    return torch.cat((torch.arange(0, dim, 2), torch.arange(1, dim, 2)))


class PairingCheck(NamedTuple):
    """The two RoPE conventions on the same seeded ``q`` and ``k`` (``(num_positions, dim)``,
    float64): ``vector_difference`` = max |RoPE_adjacent(q) − RoPE_halves(q)| (the same input,
    the two conventions: different vectors); ``score_difference`` = max |S_adjacent − S_halves|
    with ``S_halves`` computed from ``q[..., perm]`` and ``k[..., perm]`` (equal up to rounding);
    ``mismatched_score_difference``: the same without permuting (what loading weights trained in
    one convention into the other does); ``largest_score`` = max |S_adjacent|, for scale."""

    permutation: Tensor
    vector_difference: float
    score_difference: float
    mismatched_score_difference: float
    largest_score: float


PAIRING_BYTES = 40  # bytes per pair of positions: three score tables and two differences (float64)


def rope_pairing_check(dim: int, num_positions: int, *, seed: int = 0, base: float = 10000.0) -> PairingCheck:
    r"""Check that the adjacent and the split-halves RoPE give the same attention scores
    :math:`S_{mn} = \mathrm{RoPE}(q_m, m) \cdot \mathrm{RoPE}(k_n, n)` once ``q`` and ``k`` are permuted
    by :func:`rope_pair_permutation`, on standard-normal ``q``, ``k`` drawn from ``seed``. Its
    ``(num_positions, num_positions)`` tables take 40 bytes per pair; more than 1 GiB is refused."""
    dim = _check_rope_dim(dim)
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=MAX_STEPS)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    check_elements({"num_positions": num_positions, "dim": dim})
    check_memory({"num_positions²": num_positions * num_positions}, PAIRING_BYTES)
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(num_positions, dim, generator=g, dtype=torch.float64)  # (positions, dim)
    k = torch.randn(num_positions, dim, generator=g, dtype=torch.float64)
    perm = rope_pair_permutation(dim)
    q_adj, k_adj = apply_rope(q, base=base), apply_rope(k, base=base)
    q_half, k_half = apply_rope(q[:, perm], base=base, pairing="halves"), apply_rope(k[:, perm], base=base,
                                                                                       pairing="halves")
    q_wrong, k_wrong = apply_rope(q, base=base, pairing="halves"), apply_rope(k, base=base, pairing="halves")
    scores = q_adj @ k_adj.T  # (positions, positions)
    return PairingCheck(
        permutation=perm,
        vector_difference=float((q_adj - q_wrong).abs().max()),
        score_difference=float((scores - q_half @ k_half.T).abs().max()),
        mismatched_score_difference=float((scores - q_wrong @ k_wrong.T).abs().max()),
        largest_score=float(scores.abs().max()),
    )


# ---------------------------------------------------------------------------------------------
# RoPE context extension


class RopeScaling(NamedTuple):
    """RoPE's rotation frequencies after a context-extension rule: ``inv_freq`` ``(dim // 2,)``
    float64, radians per position of each pair; ``attention_factor``: what the cosines and sines
    are multiplied by (YaRN's :math:`0.1 \\ln s + 1`, else 1); ``base``: the base the frequencies
    come from (changed by ``ntk`` and ``dynamic``); ``scale``: the scale the rule applies (``factor``,
    or dynamic NTK's :math:`s L / L_0 - (s - 1)`; 1 for ``none``); ``low``, ``high``: YaRN's ramp
    between the pairs kept as they were (``j <= low``) and the ones fully interpolated (``j >= high``)."""

    inv_freq: Tensor
    attention_factor: float
    scaling: str
    factor: float
    base: float
    scale: float = 1.0
    low: float | None = None
    high: float | None = None


def _yarn_correction_dim(rotations: float, dim: int, base: float, max_len: int) -> float:
    """The (fractional) pair-times-two index whose wavelength fits ``rotations`` turns in ``max_len``."""
    return (dim * math.log(max_len / (rotations * 2 * math.pi))) / (2 * math.log(base))


def rope_scaling(dim: int, *, base: float = 10000.0, scaling: str | None = "none", factor: float = 1.0,
                 original_max_len: int = 2048, seq_len: int | None = None, beta_fast: float = 32.0,
                 beta_slow: float = 1.0) -> RopeScaling:
    r"""RoPE's frequencies :math:`\omega_j = b^{-2j/d}` (``j = 0 .. d/2 - 1``) after the rule
    ``scaling`` with scale factor :math:`s` = ``factor``, for a model trained on
    ``original_max_len`` positions (as Hugging Face's ``modeling_rope_utils``, in float64):

    - ``"none"`` (or ``None``): :math:`\omega_j` unchanged;
    - ``"linear"`` (position interpolation): :math:`\omega_j / s`;
    - ``"ntk"`` (NTK-aware): the base becomes :math:`b' = b\,s^{d/(d-2)}`, so the fastest pair
      keeps its speed and the slowest is slowed by exactly :math:`s`;
    - ``"dynamic"`` (dynamic NTK): the same with :math:`s' = s L / L_0 - (s - 1)` for the current
      length :math:`L` = ``max(seq_len, original_max_len)`` (``seq_len=None``: :math:`L_0`, no change);
    - ``"yarn"``: pairs that turn more than ``beta_fast`` times within :math:`L_0` keep
      :math:`\omega_j`, pairs turning fewer than ``beta_slow`` times get :math:`\omega_j / s`, a
      linear ramp in between; attention factor :math:`0.1 \ln s + 1`.
    """
    if scaling is None:
        scaling = "none"
    if not isinstance(scaling, str) or scaling not in SCALINGS:  # before dim, whose minimum it sets
        raise ValueError(f"scaling={str(scaling)[:40]!r} must be one of {', '.join(SCALINGS)} (or None)")
    dim = _check_rope_dim(dim, minimum=2 if scaling in ("none", "linear", "yarn") else 4)
    freqs = frequencies(dim, base=base)  # checks base; (dim / 2,) float64
    base = float(base)
    factor = check_float("factor", factor, minimum=1.0, maximum=MAX_FACTOR)
    original_max_len = check_int("original_max_len", original_max_len, minimum=1, maximum=1 << 40)
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, minimum=1, maximum=1 << 40)
    # turns within the original length: below 1e-6 the correction dimension overflows a float
    beta_fast = check_float("beta_fast", beta_fast, positive=True, minimum=1e-6, maximum=1e6)
    beta_slow = check_float("beta_slow", beta_slow, positive=True, minimum=1e-6, maximum=1e6)
    if scaling == "none":
        return RopeScaling(freqs, 1.0, scaling, factor, base)
    if scaling == "linear":
        return RopeScaling(freqs / factor, 1.0, scaling, factor, base, factor)
    if scaling in ("ntk", "dynamic"):
        s = factor
        if scaling == "dynamic":
            length = original_max_len if seq_len is None else max(seq_len, original_max_len)
            s = factor * length / original_max_len - (factor - 1)
        new_base = base * s ** (dim / (dim - 2))
        if not math.isfinite(new_base) or new_base > 1e300:
            raise ValueError(f"factor={factor:g}{f' with seq_len={seq_len}' if scaling == 'dynamic' else ''} makes "
                             f"the base {base:g}·s^(d/(d-2)) too large to compute")
        return RopeScaling(frequencies(dim, base=new_base), 1.0, scaling, factor, new_base, s)
    # yarn
    if base <= 1:
        raise ValueError(f"base={base:g} must be more than 1 for YaRN (its ramp is measured in turns of base^(2j/d))")
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast={beta_fast:g} must be larger than beta_slow={beta_slow:g} (turns within "
                         "the original length: fast pairs keep their speed, slow ones are interpolated)")
    low = max(math.floor(_yarn_correction_dim(beta_fast, dim, base, original_max_len)), 0)
    high = min(math.ceil(_yarn_correction_dim(beta_slow, dim, base, original_max_len)), dim - 1)
    top = high + 0.001 if low == high else high  # as the reference: no division by zero
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (top - low)).clamp(0, 1)  # 0: keep, 1: interpolate
    inv_freq = freqs / factor * ramp + freqs * (1 - ramp)
    attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    return RopeScaling(inv_freq, attention, scaling, factor, base, factor, float(low), float(high))


def rope_frequencies(dim: int, *, base: float = 10000.0, scaling: str | None = None, factor: float = 1.0,
                     original_max_len: int = 2048, seq_len: int | None = None, beta_fast: float = 32.0,
                     beta_slow: float = 1.0) -> Tensor:
    r"""The angle per position of each RoPE pair, ``(dim // 2,)`` float64, after the
    context-extension rule ``scaling`` (``None`` or ``"none"``, ``"linear"``, ``"ntk"``,
    ``"dynamic"``, ``"yarn"``): the ``inv_freq`` of :func:`rope_scaling`, which also gives the
    attention factor YaRN multiplies the cosines and sines by."""
    return rope_scaling(dim, base=base, scaling=scaling, factor=factor, original_max_len=original_max_len,
                        seq_len=seq_len, beta_fast=beta_fast, beta_slow=beta_slow).inv_freq


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
