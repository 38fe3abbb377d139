r"""A shift in position is a rotation: the offset matrix :math:`T(\delta)` and rotary embeddings.

References
- Dive into Deep Learning, "Self-Attention and Positional Encoding", relative positional
  information: each pair :math:`(p_{i,2j}, p_{i,2j+1})` maps to
  :math:`(p_{i+\delta,2j}, p_{i+\delta,2j+1})` through
  :math:`\begin{bmatrix}\cos\delta\omega_j & \sin\delta\omega_j\\ -\sin\delta\omega_j & \cos\delta\omega_j\end{bmatrix}`,
  which does not depend on :math:`i`.
- Denk, "Linear Relationships in the Transformer's Positional Encoding": the block-diagonal
  :math:`T(k)` built from those 2x2 blocks.
- Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding" (2021): rotate
  queries and keys instead of adding positions, so :math:`q_m \cdot k_n` depends on
  :math:`m - n` only. Pairs are adjacent columns ``(2j, 2j+1)`` here (as in lucidrains'
  rotary-embedding-torch), not the two halves of the vector used by some LLM code.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import torch
from torch import Tensor

from ._checks import (
    MAX_ELEMENTS,
    check_bool,
    check_elements,
    check_float,
    check_float_dtype,
    check_int,
    check_memory,
    check_tensor,
)
from .devices import resolve_device
from ._angles import exact_sincos, needs_exact
from .encodings import check_base, frequencies, sinusoidal_encoding

if TYPE_CHECKING:  # pandas is imported by the functions that return tables
    import pandas as pd

__all__ = [
    "rotation_angles",
    "angle_table",
    "offset_rotation",
    "rotation_block",
    "rotation_residuals",
    "residual_rounding",
    "residual_summary",
    "sine_only_fit",
    "arrow_turns",
    "offset_dot_product",
    "apply_rope",
    "rope_scores",
    "additive_scores",
    "diagonal_spread",
    "map_extent",
    "score_rounding",
    "point_turns",
]


def _check_even(dim: object, what: str, name: str = "dim") -> int:
    dim = check_int(name, dim, minimum=2)
    if dim % 2:
        raise ValueError(
            f"{name}={dim} is odd: {what} rotates sine/cosine pairs of columns, and the last column "
            f"(a sine) has no cosine partner; a sine alone cannot be shifted by a fixed linear map"
        )
    return dim


MAX_DELTA = 1 << 52  # offsets: whole numbers in float64


def rotation_angles(dim: int, delta: int, *, base: float = 10000.0) -> Tensor:
    r"""The angle :math:`\delta\,\omega_j` (radians, float64) by which pair ``j`` turns when the
    position moves by ``delta``; ``dim // 2`` values, not reduced to one turn.

    Rounding: the float64 product of ``delta`` and the float64 frequency, so each angle is off by
    up to about ``|delta| · ω_j · 1e-15`` radians (4e-10 at ``|delta| = 10**5`` and ``ω = 1``;
    0.2 rad at ``2**52``). The sines and cosines pekit builds from these angles
    (:func:`offset_rotation`, :func:`rotation_block`, :func:`offset_dot_product`) do not use them
    past that range: they reduce the angle modulo 2π exactly and are within 1e-15."""
    dim = _check_even(dim, "the offset rotation")
    delta = check_int("delta", delta, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    return delta * frequencies(dim, base=base)


def rotation_sincos(dim: int, deltas: Tensor, base: float) -> tuple[Tensor, Tensor]:
    r"""``(sin, cos)`` of :math:`\delta\,\omega_j` for the whole offsets ``deltas`` (``(n,)``),
    float64 ``(n, dim // 2)`` each: the float64 product where it is within ~5e-10, the exactly
    reduced angle (:mod:`pekit._angles`) past that."""
    omega = frequencies(dim, base=base)
    deltas = deltas.to(torch.int64)
    far = int(deltas.abs().max()) if deltas.numel() else 0
    if needs_exact(far, omega):
        return exact_sincos(deltas, dim, float(base), "interleaved")
    angles = deltas.double()[:, None] * omega[None, :]
    return torch.sin(angles), torch.cos(angles)


class Turn(NamedTuple):
    """An angle as whole turns plus what is left: ``radians = sign · (turns · 2π + degrees · π/180)``
    with ``0 <= degrees < 360``; ``sign`` is -1 for a negative angle (a turn the other way)."""

    radians: float
    sign: int
    turns: int
    degrees: float


def split_turns(radians: float) -> Turn:
    """``radians`` as whole turns and the remaining degrees, e.g. 14 150° is 39 turns + 110°."""
    radians = check_float("radians", radians)
    sign = -1 if radians < 0 else 1
    turns, rest = divmod(abs(radians), 2 * math.pi)
    return Turn(radians, sign, int(turns), math.degrees(rest))


def angle_table(dim: int, delta: int, *, base: float = 10000.0) -> pd.DataFrame:
    """Per pair ``j``: ``pair``, ``angle`` (radians, :func:`rotation_angles`) and ``turns``
    (the angle in whole turns, ``angle / 2π``)."""
    import pandas as pd

    angles = rotation_angles(dim, delta, base=base)
    return pd.DataFrame({"pair": range(len(angles)), "angle": angles.numpy(), "turns": (angles / (2 * math.pi)).numpy()})


def offset_rotation(
    dim: int,
    delta: int,
    *,
    base: float = 10000.0,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    r"""The block-diagonal :math:`T(\delta)` (``(dim, dim)``) with 2x2 blocks
    :math:`\begin{bmatrix}\cos\delta\omega_j & \sin\delta\omega_j\\-\sin\delta\omega_j & \cos\delta\omega_j\end{bmatrix}`,
    so that ``P[i + delta] = T @ P[i]`` for every row ``i`` of the interleaved table. The matrix
    is built in ``dtype`` and must fit in 1 GiB (``dim`` up to 16,384 in float32, 11,585 in
    float64), else ``ValueError`` names ``dim``."""
    dim = _check_even(dim, "the offset rotation")
    delta = check_int("delta", delta, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    base = check_base(base)
    dtype = check_float_dtype(dtype)
    dev = resolve_device(device)
    if dim * dim > MAX_ELEMENTS:
        raise ValueError(f"dim={dim:,} gives a {dim:,} × {dim:,} matrix, over the {MAX_ELEMENTS:,} numbers pekit "
                         "allocates at once (rotation_angles gives the same information per pair)")
    check_memory({"dim²": dim * dim}, torch.empty((), dtype=dtype).element_size())  # the matrix, built in dtype
    s, c = (v[0].to(dtype) for v in rotation_sincos(dim, torch.tensor([delta]), base))  # angles reduced exactly
    T = torch.zeros(dim // 2, 2, dim // 2, 2, dtype=dtype)  # (pair, row in block, pair, column in block)
    j = torch.arange(dim // 2)
    T[j, 0, j, 0], T[j, 0, j, 1], T[j, 1, j, 0], T[j, 1, j, 1] = c, s, -s, c
    return T.reshape(dim, dim).to(device=dev)


def rotation_block(dim: int, delta: int, pair: int, *, base: float = 10000.0) -> list[list[float]]:
    """The 2x2 block of :func:`offset_rotation` for column pair ``pair`` (float64, as lists)."""
    dim = _check_even(dim, "the offset rotation")
    delta = check_int("delta", delta, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    base = check_base(base)
    pair = check_int("pair", pair, minimum=0)
    if pair >= dim // 2:
        raise ValueError(f"pair={pair} must be one of the pairs 0 .. dim / 2 - 1 = {dim // 2 - 1}")
    s, c = (float(v[0, pair]) for v in rotation_sincos(dim, torch.tensor([delta]), base))
    return [[c, s], [-s, c]]


def rotation_residuals(
    num_positions: int, dim: int, delta: int, *, base: float = 10000.0, start: int = 0,
    device: str | torch.device | None = None,
) -> Tensor:
    r""":math:`\max_c |(T(\delta) P_i)_c - P_{i+\delta,c}|` for each of ``num_positions`` rows
    ``i = start ..``, computed with the matrix ``T`` itself (float32, as a model would)."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    delta = check_int("delta", delta, minimum=-(1 << 52), maximum=1 << 52)
    start = check_int("start", start, minimum=-(1 << 51), maximum=1 << 51)
    check_elements({"num_positions + |delta|": num_positions + abs(delta), "dim": check_int("dim", dim, minimum=2)})
    T = offset_rotation(dim, delta, base=base, device=device)
    first = min(start, start + delta)
    table = sinusoidal_encoding(num_positions + abs(delta), dim, base=base, start=first, device=device)
    here = table[start - first : start - first + num_positions]  # rows for positions i
    there = table[start + delta - first : start + delta - first + num_positions]  # rows for i + delta
    return (here @ T.T - there).abs().amax(dim=1)  # (num_positions,)


FLOAT32_UNIT = 2.0**-24  # float32's unit round-off: one rounding moves a value by at most this share of it


def residual_rounding(
    num_positions: int, dim: int, delta: int, *, base: float = 10000.0, start: int = 0,
) -> Tensor:
    r"""For each row ``i = start ..`` of :func:`rotation_residuals`, how far float32 rounding alone
    can take :math:`\max_c |(T(\delta) P_i)_c - P_{i+\delta,c}|` from 0 (it is 0 in exact
    arithmetic), float64 ``(num_positions,)``: the rounding of ``T`` and of both table rows,
    measured against their float64 values at these positions, carried through the product, plus
    the rounding of the two products of each entry, their sum and the subtraction (each at most
    :data:`FLOAT32_UNIT` of its size; the zeros of ``T`` add nothing)."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    delta = check_int("delta", delta, minimum=-(1 << 52), maximum=1 << 52)
    start = check_int("start", start, minimum=-(1 << 51), maximum=1 << 51)
    check_elements({"num_positions + |delta|": num_positions + abs(delta), "dim": check_int("dim", dim, minimum=2)})
    first = min(start, start + delta)
    rows = num_positions + abs(delta)

    def pieces(dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
        T = offset_rotation(dim, delta, base=base, device="cpu", dtype=dtype).to(torch.float64)
        table = sinusoidal_encoding(rows, dim, base=base, start=first, device="cpu", dtype=dtype).to(torch.float64)
        return (T, table[start - first : start - first + num_positions],
                table[start + delta - first : start + delta - first + num_positions])

    (T, here, there), (T64, here64, there64) = pieces(torch.float32), pieces(torch.float64)
    u = FLOAT32_UNIT
    sizes = here.abs() @ T.abs().T  # (positions, dim): sum over the products of an entry, in size
    inputs = ((here - here64).abs() @ T64.abs().T + here64.abs() @ (T - T64).abs().T
              + (here - here64).abs() @ (T - T64).abs().T + (there - there64).abs())
    arithmetic = (2 * u / (1 - 2 * u)) * sizes + u * (sizes + there.abs())  # products and sum, then the subtraction
    return (inputs + arithmetic).amax(dim=1) * (1 + 4 * u)


class ResidualSummary(NamedTuple):
    """:func:`rotation_residuals` (float32, read as float64) of each position shown, in order, and
    against :func:`residual_rounding`: ``largest`` residual, ``rounding`` the largest bound, and
    ``excess`` the largest residual over its own position's bound (at most 1: rounding alone)."""

    residuals: tuple[float, ...]
    largest: float
    rounding: float
    excess: float


def residual_summary(num_positions: int, dim: int, delta: int, *, base: float = 10000.0,
                     start: int = 0) -> ResidualSummary:
    """The residuals of positions ``start .. start + num_positions − 1`` and their rounding bounds."""
    residuals = rotation_residuals(num_positions, dim, delta, base=base, start=start).double().cpu()
    bounds = residual_rounding(num_positions, dim, delta, base=base, start=start)
    return ResidualSummary(tuple(residuals.tolist()), float(residuals.max()), float(bounds.max()),
                           float((residuals / bounds).max()))


class SineOnlyFit(NamedTuple):
    """:func:`sine_only_fit`: per position ``t``, the largest |entry| of map·code(t) − code(t+δ)
    for the rotation (``rotation_errors``) and the best sine-only map (``sine_errors``); their
    largest (``rotation_error``, ``sine_error``); the sine-only fit's root-mean-square error
    (``sine_rms``) against that of the target sine columns (``sine_scale``); ``at_zero``:
    max_j |sin(δ·ω_j)|, what every linear map of the sines misses at t = 0, where each sine is 0."""

    rotation_errors: tuple[float, ...]
    sine_errors: tuple[float, ...]
    rotation_error: float
    sine_error: float
    sine_rms: float
    sine_scale: float
    at_zero: float


SINE_FIT_BYTES = 48  # float64 bytes per (position, column): both tables, the rotated rows, the SVD's U, the fit


def sine_only_fit(dim: int, delta: int, *, base: float = 10000.0, num_positions: int = 256,
                  rank_tol: float = 1e-10) -> SineOnlyFit:
    """Moving positions ``t = 0 .. num_positions − 1`` by ``delta`` with a fixed linear map, in
    float64: with every sine/cosine pair (:func:`offset_rotation`), and with the ``dim / 2`` sine
    columns alone (the best map by least squares: the projection of the shifted sines onto the
    span of the sines, taken from the left singular vectors whose singular values exceed
    ``rank_tol`` of the largest, since the slow sine columns are nearly parallel)."""
    dim = _check_even(dim, "the offset rotation")
    delta = check_int("delta", delta, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    num_positions = check_int("num_positions", num_positions, minimum=1)
    rank_tol = check_float("rank_tol", rank_tol, minimum=0.0, maximum=1.0)
    check_elements({"num_positions": num_positions, "dim": dim})
    check_memory({"num_positions": num_positions, "dim": dim}, SINE_FIT_BYTES)
    T = offset_rotation(dim, delta, base=base, device="cpu", dtype=torch.float64)  # (dim, dim); checks base, dim
    here = sinusoidal_encoding(num_positions, dim, base=base, device="cpu", dtype=torch.float64)  # rows t
    there = sinusoidal_encoding(num_positions, dim, base=base, start=delta, device="cpu", dtype=torch.float64)  # t + δ
    rotated = (here @ T.T - there).abs()  # (positions, dim): T acts on the column vector P[t]
    S, S_next = here[:, 0::2], there[:, 0::2]  # (positions, dim/2): the sine columns
    U, sv, _right = torch.linalg.svd(S, full_matrices=False)
    basis = U[:, sv > rank_tol * sv[0]]  # (positions, rank)
    missed = (basis @ (basis.T @ S_next) - S_next).abs()  # (positions, dim/2)
    return SineOnlyFit(tuple(rotated.amax(dim=1).tolist()), tuple(missed.amax(dim=1).tolist()),
                       float(rotated.max()), float(missed.max()), float(missed.pow(2).mean().sqrt()),
                       float(S_next.pow(2).mean().sqrt()), float(S_next[0].abs().max()))


class ArrowTurns(NamedTuple):
    """How far each drawn arrow of one pair's circle turns, against δ·ω_j: ``gap`` the largest
    difference (radians, taken round the circle, so whole turns do not count) over the arrows,
    ``rounding`` the most float32 rounding of the drawn points can give (each coordinate of both
    ends rounded once, plus float64's rounding of the angles)."""

    gap: float
    rounding: float


def arrow_turns(dim: int, delta: int, pair: int, *, base: float = 10000.0, start: int = 0,
                num_positions: int = 1) -> ArrowTurns:
    r"""The arrows of the circle of pair ``pair``: from the float32 point ``(sin iω_j, cos iω_j)``
    of each position ``i = start .. start + num_positions − 1`` to that of ``i + δ``, each
    measured as the angle between its two radii and compared with :math:`\delta\omega_j`."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    dim = _check_even(dim, "the circle")
    pair = check_int("pair", pair, minimum=0)
    if pair >= dim // 2:
        raise ValueError(f"pair={pair} must be one of the pairs 0 .. dim / 2 - 1 = {dim // 2 - 1}")
    delta = check_int("delta", delta, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    cols = [2 * pair, 2 * pair + 1]
    a = _columns(num_positions, dim, cols, base, start)  # (positions, 2): the drawn points, float32 read as float64
    b = _columns(num_positions, dim, cols, base, start + delta)
    ccw = torch.atan2(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0], a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1])  # (positions,)
    angle = float(rotation_angles(dim, delta, base=base)[pair])
    # a point (sin, cos) turns clockwise as the position grows: the arrow's turn δ·ω_j is −ccw
    gap = torch.remainder(-ccw - angle + math.pi, 2 * math.pi) - math.pi
    rounding = 4 * FLOAT32_UNIT + 8 * 2.0**-53 * (math.pi + abs(angle))
    return ArrowTurns(float(gap.abs().max()), rounding)


def _columns(num_positions: int, dim: int, cols: list[int], base: float, start: int) -> Tensor:
    from .encodings import sinusoidal_columns

    return sinusoidal_columns(num_positions, dim, cols, base=base, start=start, device="cpu").double()


class ScoreRounding(NamedTuple):
    """For :func:`rope_scores` and :func:`additive_scores` of ``q`` and ``k``: each map's largest
    spread along a diagonal in exact arithmetic (float64: ``rope_spread``, ``additive_spread``)
    and its float32 round-off, the largest difference between its float32 and float64 scores
    (``rope_rounding``, ``additive_rounding``). A float32 map's spread is at most its float64
    spread plus twice its round-off."""

    rope_spread: float
    rope_rounding: float
    additive_spread: float
    additive_rounding: float


def score_rounding(q: Tensor, k: Tensor, num_positions: int, *, base: float = 10000.0) -> ScoreRounding:
    """The two score maps of ``q`` and ``k`` (float32, as the page draws them) beside the same
    maps in float64."""
    num_positions = _check_vectors(q, k, num_positions)
    q32, k32, q64, k64 = q.float(), k.float(), q.double(), k.double()
    found = []
    for scores in (rope_scores, additive_scores):
        exact = scores(q64, k64, num_positions, base=base)
        rounded = scores(q32, k32, num_positions, base=base).double()
        found += [float(diagonal_spread(exact)[1].max()), float((rounded - exact).abs().max())]
    return ScoreRounding(*found)


def offset_dot_product(dim: int, deltas: Tensor | list[int], *, base: float = 10000.0) -> Tensor:
    r""":math:`P_i \cdot P_{i+\delta} = \sum_j \cos(\delta\,\omega_j)` (float64), a function of
    :math:`\delta` alone for the interleaved table of even width."""
    dim = _check_even(dim, "the offset dot product")
    if isinstance(deltas, (str, bytes)) or not isinstance(deltas, (Tensor, list, tuple, range)):
        raise ValueError(f"deltas must be a list or 1-D tensor of whole offsets; got {type(deltas).__name__}")
    deltas = [check_int("deltas", v, minimum=-MAX_DELTA, maximum=MAX_DELTA)
              for v in (deltas.tolist() if isinstance(deltas, Tensor) else deltas)]
    check_elements({"deltas": len(deltas), "dim": dim})
    base = check_base(base)
    return rotation_sincos(dim, torch.tensor(deltas, dtype=torch.int64), base)[1].sum(dim=1)


PAIRINGS = ("adjacent", "halves")


def apply_rope(x: Tensor, *, base: float = 10000.0, start: int = 0, pairing: str = "adjacent") -> Tensor:
    r"""Rotary position embedding: ``x`` of shape ``(..., positions, dim)``; the pair
    ``(x_a, x_b)`` at position ``start + i`` turns by :math:`\theta = (s+i)\,\omega_j`:
    :math:`(x_a\cos\theta - x_b\sin\theta,\ x_a\sin\theta + x_b\cos\theta)`.

    ``pairing="adjacent"`` pairs ``(x[2j], x[2j+1])`` (RoFormer, rotary-embedding-torch, the
    book's sin/cos pairs); ``pairing="halves"`` pairs ``(x[j], x[j + dim/2])`` (GPT-NeoX, Hugging
    Face Llama's ``rotate_half``). Pair ``j`` turns by the same frequency in both."""
    check_tensor("x", x, floating=True, what="(..., positions, dim)")
    if x.dim() < 2:
        raise ValueError(f"x must have shape (..., positions, dim); got {tuple(x.shape)}")
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing={pairing!r} must be one of {PAIRINGS}")
    dim = _check_even(x.shape[-1], "RoPE", "x.shape[-1]")
    start = check_int("start", start, minimum=-MAX_DELTA, maximum=MAX_DELTA)
    base = check_base(base)
    positions = x.shape[-2]
    omega = frequencies(dim, base=base)
    if needs_exact(max(abs(start), abs(start + positions - 1)), omega):  # far: angles reduced exactly
        sin, cos = exact_sincos(start + torch.arange(positions, dtype=torch.int64), dim, base, "interleaved")
    else:
        theta = (start + torch.arange(positions, dtype=torch.float64))[:, None] * omega[None, :]
        sin, cos = torch.sin(theta), torch.cos(theta)
    return rotate_pairs(x, cos, sin, pairing)


def rotate_pairs(x: Tensor, cos: Tensor, sin: Tensor, pairing: str) -> Tensor:
    """Turn each pair of ``x`` ``(..., positions, dim)`` by the angles whose cosines and sines are
    ``cos`` and ``sin`` ``(positions, dim/2)`` (any float dtype and device: cast to ``x``'s), the
    pairs taken as ``pairing`` says ("adjacent" or "halves"). Internal: arguments are trusted."""
    dim = x.shape[-1]
    cos = cos.to(device=x.device, dtype=x.dtype)  # (positions, dim/2)
    sin = sin.to(device=x.device, dtype=x.dtype)
    if pairing == "halves":
        x0, x1 = x[..., : dim // 2], x[..., dim // 2 :]  # (..., positions, dim/2) each
        return torch.cat((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1)
    pairs = x.unflatten(-1, (dim // 2, 2))  # (..., positions, dim/2, 2)
    x0, x1 = pairs[..., 0], pairs[..., 1]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


def _check_vectors(q: object, k: object, num_positions: object) -> int:
    num_positions = check_int("num_positions", num_positions, minimum=1)
    check_tensor("q", q, dims=1, floating=True, what="(dim,)")
    check_tensor("k", k, dims=1, floating=True, what="(dim,)")
    if q.shape != k.shape or q.dtype != k.dtype or q.device != k.device:
        raise ValueError(f"q and k must be vectors of one length, dtype and device; got {tuple(q.shape)} and {tuple(k.shape)}")
    if q.shape[0] == 0:
        raise ValueError("q and k must have at least one entry")
    check_elements({"num_positions²": num_positions * num_positions})  # the (num_positions, num_positions) scores
    check_elements({"num_positions": num_positions, "dim": q.shape[0]})
    return num_positions


def rope_scores(q: Tensor, k: Tensor, num_positions: int, *, base: float = 10000.0) -> Tensor:
    r"""``S[m, n] = RoPE(q, m) · RoPE(k, n)`` for one query vector ``q`` and one key vector ``k``
    (``(dim,)``) placed at every position ``0 .. num_positions-1``; ``(num_positions, num_positions)``."""
    num_positions = _check_vectors(q, k, num_positions)
    _check_even(q.shape[0], "RoPE", "q.shape[0]")
    Q = apply_rope(q.expand(num_positions, -1), base=base)  # (positions, dim)
    K = apply_rope(k.expand(num_positions, -1), base=base)
    return Q @ K.T


def additive_scores(q: Tensor, k: Tensor, num_positions: int, *, base: float = 10000.0) -> Tensor:
    r"""``S[m, n] = (q + P_m) · (k + P_n)``: the same vectors with the sinusoidal table added
    (the Transformer's way), ``(num_positions, num_positions)``."""
    num_positions = _check_vectors(q, k, num_positions)
    P = sinusoidal_encoding(num_positions, q.shape[0], base=base, device=q.device, dtype=q.dtype)
    return (q + P) @ (k + P).T


def diagonal_spread(S: Tensor) -> tuple[Tensor, Tensor]:
    """For a square ``S``, each diagonal ``m - n = o`` (``o = -(N-1) .. N-1``): returns
    ``(offsets, spread)`` with ``spread = max - min`` along that diagonal; 0 everywhere means
    ``S`` depends on ``m - n`` only."""
    check_tensor("S", S, dims=2, what="(N, N)")
    if S.dtype == torch.bool:
        raise ValueError("S must hold numbers; got dtype torch.bool")
    if S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square matrix; got shape {tuple(S.shape)}")
    N = S.shape[0]
    offsets = torch.arange(-(N - 1), N)
    diagonals = [torch.diagonal(S, offset=-int(o)) for o in offsets]  # S[m, m - o]
    spread = torch.stack([diag.max() - diag.min() for diag in diagonals])
    return offsets, spread


class MapExtent(NamedTuple):
    """A square score map's largest ``|score|`` (``scale``) and largest spread along a diagonal (``spread``)."""

    scale: float
    spread: float


def map_extent(S: Tensor) -> MapExtent:
    """How large the scores of ``S`` are, and how far they are from depending on ``m − n`` only
    (the largest of :func:`diagonal_spread`; 0 when they do)."""
    spread = diagonal_spread(S)[1]  # checks S
    return MapExtent(float(S.abs().max()), float(spread.max()))


def point_turns(here: Tensor, there: Tensor, *, degrees: bool = False) -> Tensor:
    r"""How far each point of a column pair turned: ``here`` and ``there`` are ``(n, 2)`` rows
    ``(sin θ, cos θ)`` (the columns ``2j, 2j + 1`` of the table at positions ``i`` and
    ``i + δ``); the angle from each row of ``here`` to the same row of ``there``, in radians
    from 0 to 2π (float64; ``degrees``: from 0 to 360): what a reader sees an arrow turn, whole turns
    left out."""
    here = check_tensor("here", here, dims=2, floating=True, what="(n, 2) rows (sin, cos)")
    there = check_tensor("there", there, dims=2, floating=True, what="(n, 2) rows (sin, cos)")
    if here.shape[1] != 2 or there.shape != here.shape:
        raise ValueError(f"here and there must be (n, 2) rows (sin, cos) of one shape; got {tuple(here.shape)} and "
                         f"{tuple(there.shape)}")
    here, there = here.double().cpu(), there.double().cpu()
    turn = torch.atan2(there[:, 0], there[:, 1]) - torch.atan2(here[:, 0], here[:, 1])
    turn = torch.remainder(turn, 2 * math.pi)
    return torch.rad2deg(turn) if check_bool("degrees", degrees) else turn
