r"""RoPE's variants: its two pairings of columns, and the rules that stretch it past the length a
model was trained on.

References
- Su et al., "RoFormer" (2021) and lucidrains' rotary-embedding-torch
  (``rotary_embedding_torch/rotary_embedding_torch.py``): RoPE on adjacent pairs
  ``(x[2j], x[2j+1])``; GPT-NeoX and Hugging Face transformers
  (``models/llama/modeling_llama.py``, ``rotate_half``): pairs ``(x[j], x[j + d/2])``.
- Context extension, as Hugging Face transformers' ``modeling_rope_utils.py`` computes it
  (``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``,
  ``_compute_yarn_parameters``): position interpolation (Chen, Wong, Chen and Tian, "Extending
  Context Window of Large Language Models via Positional Interpolation", 2023); NTK-aware scaling
  (bloc97, 2023: the base becomes :math:`b\,s^{d/(d-2)}`) and its dynamic form (emozilla, 2023);
  YaRN (Peng, Quesnelle, Fan and Shippole, "YaRN: Efficient Context Window Extension of Large
  Language Models", 2023).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_elements, check_float, check_int, check_memory
from .encodings import frequencies
from .positions import MAX_STEPS
from .rotation import apply_rope

__all__ = [
    "SCALINGS",
    "rope_pair_permutation",
    "PairingCheck",
    "rope_pairing_check",
    "RopeScaling",
    "rope_scaling",
    "rope_frequencies",
]

SCALINGS: tuple[str, ...] = ("none", "linear", "ntk", "dynamic", "yarn")
MAX_DIM = 1 << 16
MAX_FACTOR = 1e6


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
