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

import torch
from torch import Tensor

from ._checks import check_float, check_float_dtype, check_int
from .devices import resolve_device
from .encodings import frequencies, sinusoidal_encoding

__all__ = [
    "rotation_angles",
    "offset_rotation",
    "rotation_block",
    "rotation_residuals",
    "offset_dot_product",
    "apply_rope",
    "rope_scores",
    "additive_scores",
    "diagonal_spread",
    "seeded_query_key",
]


def _check_even(dim: object, what: str) -> int:
    dim = check_int("dim", dim, minimum=2)
    if dim % 2:
        raise ValueError(
            f"dim={dim} is odd: {what} rotates sine/cosine pairs of columns, and the last column "
            f"(a sine) has no cosine partner; a sine alone cannot be shifted by a fixed linear map"
        )
    return dim


def rotation_angles(dim: int, delta: int, *, base: float = 10000.0) -> Tensor:
    r"""The angle :math:`\delta\,\omega_j` (radians, float64) by which pair ``j`` turns when the
    position moves by ``delta``; ``dim // 2`` values."""
    dim = _check_even(dim, "the offset rotation")
    delta = check_int("delta", delta)
    return delta * frequencies(dim, base=base)


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
    so that ``P[i + delta] = T @ P[i]`` for every row ``i`` of the interleaved table."""
    angles = rotation_angles(dim, delta, base=base)  # float64, exact angles
    dtype = check_float_dtype(dtype)
    c, s = torch.cos(angles), torch.sin(angles)
    blocks = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)  # (pairs, 2, 2)
    T = torch.block_diag(*blocks) if len(blocks) else torch.zeros(0, 0, dtype=torch.float64)
    return T.to(device=resolve_device(device), dtype=dtype)


def rotation_block(dim: int, delta: int, pair: int, *, base: float = 10000.0) -> list[list[float]]:
    """The 2x2 block of :func:`offset_rotation` for column pair ``pair`` (float64, as lists)."""
    angle = float(rotation_angles(dim, delta, base=base)[check_int("pair", pair, minimum=0, maximum=dim // 2 - 1)])
    return [[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]]


def rotation_residuals(
    num_positions: int, dim: int, delta: int, *, base: float = 10000.0, start: int = 0,
    device: str | torch.device | None = None,
) -> Tensor:
    r""":math:`\max_c |(T(\delta) P_i)_c - P_{i+\delta,c}|` for each of ``num_positions`` rows
    ``i = start ..``, computed with the matrix ``T`` itself (float32, as a model would)."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    delta = check_int("delta", delta)
    T = offset_rotation(dim, delta, base=base, device=device)
    first = min(start, start + delta)
    table = sinusoidal_encoding(num_positions + abs(delta), dim, base=base, start=first, device=device)
    here = table[start - first : start - first + num_positions]  # rows for positions i
    there = table[start + delta - first : start + delta - first + num_positions]  # rows for i + delta
    return (here @ T.T - there).abs().amax(dim=1)  # (num_positions,)


def offset_dot_product(dim: int, deltas: Tensor | list[int], *, base: float = 10000.0) -> Tensor:
    r""":math:`P_i \cdot P_{i+\delta} = \sum_j \cos(\delta\,\omega_j)` (float64), a function of
    :math:`\delta` alone for the interleaved table of even width."""
    dim = _check_even(dim, "the offset dot product")
    deltas = torch.as_tensor(deltas, dtype=torch.float64)
    return torch.cos(deltas[:, None] * frequencies(dim, base=base)[None, :]).sum(dim=1)


def apply_rope(x: Tensor, *, base: float = 10000.0, start: int = 0) -> Tensor:
    r"""Rotary position embedding: ``x`` of shape ``(..., positions, dim)``; the pair
    ``(x[2j], x[2j+1])`` at position ``start + i`` turns by :math:`\theta = (s+i)\,\omega_j`:
    :math:`(x_0\cos\theta - x_1\sin\theta,\ x_0\sin\theta + x_1\cos\theta)`."""
    if not isinstance(x, Tensor) or x.dim() < 2:
        raise ValueError("x must be a tensor of shape (..., positions, dim)")
    if not x.dtype.is_floating_point:
        raise ValueError(f"x must be floating point; got dtype {x.dtype}")
    dim = _check_even(x.shape[-1], "RoPE")
    start = check_int("start", start)
    check_float("base", base, positive=True)
    positions = x.shape[-2]
    theta = (start + torch.arange(positions, dtype=torch.float64))[:, None] * frequencies(dim, base=base)[None, :]
    cos = torch.cos(theta).to(device=x.device, dtype=x.dtype)  # (positions, dim/2)
    sin = torch.sin(theta).to(device=x.device, dtype=x.dtype)
    pairs = x.unflatten(-1, (dim // 2, 2))  # (..., positions, dim/2, 2)
    x0, x1 = pairs[..., 0], pairs[..., 1]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


def rope_scores(q: Tensor, k: Tensor, num_positions: int, *, base: float = 10000.0) -> Tensor:
    r"""``S[m, n] = RoPE(q, m) · RoPE(k, n)`` for one query vector ``q`` and one key vector ``k``
    (``(dim,)``) placed at every position ``0 .. num_positions-1``; ``(num_positions, num_positions)``."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    if q.shape != k.shape or q.dim() != 1:
        raise ValueError(f"q and k must be vectors of the same length; got {tuple(q.shape)} and {tuple(k.shape)}")
    Q = apply_rope(q.expand(num_positions, -1), base=base)  # (positions, dim)
    K = apply_rope(k.expand(num_positions, -1), base=base)
    return Q @ K.T


def additive_scores(q: Tensor, k: Tensor, num_positions: int, *, base: float = 10000.0) -> Tensor:
    r"""``S[m, n] = (q + P_m) · (k + P_n)``: the same vectors with the sinusoidal table added
    (the Transformer's way), ``(num_positions, num_positions)``."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    if q.shape != k.shape or q.dim() != 1:
        raise ValueError(f"q and k must be vectors of the same length; got {tuple(q.shape)} and {tuple(k.shape)}")
    P = sinusoidal_encoding(num_positions, q.shape[0], base=base, device=q.device, dtype=q.dtype)
    return (q + P) @ (k + P).T


def diagonal_spread(S: Tensor) -> tuple[Tensor, Tensor]:
    """For a square ``S``, each diagonal ``m - n = o`` (``o = -(N-1) .. N-1``): returns
    ``(offsets, spread)`` with ``spread = max - min`` along that diagonal; 0 everywhere means
    ``S`` depends on ``m - n`` only."""
    if S.dim() != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"S must be a square matrix; got shape {tuple(S.shape)}")
    N = S.shape[0]
    offsets = torch.arange(-(N - 1), N)
    diagonals = [torch.diagonal(S, offset=-int(o)) for o in offsets]  # S[m, m - o]
    spread = torch.stack([diag.max() - diag.min() for diag in diagonals])
    return offsets, spread


def seeded_query_key(dim: int, seed: int, *, device: str | torch.device | None = None) -> tuple[Tensor, Tensor]:
    """A query and a key vector (``(dim,)`` each, standard normal, float32) that depend only on
    ``dim`` and ``seed``, so everyone with the same settings sees the same picture."""
    dim = check_int("dim", dim, minimum=1)
    seed = check_int("seed", seed, minimum=0, maximum=2**63 - 1)
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, generator=g)
    dev = resolve_device(device)
    return q.to(dev), k.to(dev)
