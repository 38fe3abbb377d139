r"""Sines and cosines of far positions, exact to float64.

The angle of pair ``j`` at position ``p`` is :math:`p\,\omega_j` with
:math:`\omega_j = \text{base}^{-2j/\text{dim}}` (tensor2tensor: :math:`\text{base}^{-j/(k-1)}`).
In float64 the frequency is rounded (relative error ~1e-16, more through ``exp`` and ``log``) and
so is the product, so the angle drifts by about ``|p| · ω · 1e-16``: 0.2 rad at ``p = 2**52``.

Near positions keep the float64 formula (fast, and the error stays under ~5e-10 while
:func:`needs_exact` is false). Past that, the angle is reduced exactly: the frequency in turns per
position, :math:`\omega_j / 2\pi`, is known to 120 bits after the point (computed once per
``(dim, base, layout)`` with :mod:`decimal`, cached), cut into five 24-bit limbs; the position
(a whole number, ``|p| < 2**53``) is cut into two halves, and every partial product fits an
int64, so the fraction of a turn :math:`\{p\,\omega_j/2\pi\}` comes out exact to 2**-62 of a
turn. Sine and cosine of that reduced angle (in ``[-π, π)``) are then exact to float64.
"""

from __future__ import annotations

import functools
import math

import torch
from torch import Tensor

# pi to 110 digits, for the frequencies in turns
_PI = ("3.14159265358979323846264338327950288419716939937510"
       "582097494459230781640628620899862803482534211706798214808651")
_LIMBS, _LIMB_BITS = 5, 24  # 120 bits of the frequency's fraction of a turn
_Q = 62  # bits of the reduced fraction of a turn
_FIXED = 224  # bits after the point of the fixed-point recurrence for the frequencies

# float64 angles are used while |p| * max_j ω_j (3 + 2 |ln ω_j|) is at most this (error < ~5e-10)
FAST_LIMIT = float(1 << 22)
MAX_EXACT_POSITION = 1 << 53  # positions the exact reduction handles (two 27-bit halves)


def needs_exact(max_position: int, omega: Tensor) -> bool:
    """Whether float64 angles ``p * omega`` could be off by more than ~5e-10 for ``|p| <= max_position``.

    The float64 error of ``p * ω`` (rounded frequency, through ``exp``/``log``, and the rounded
    product) is at most about ``|p| · ω (3 + 2 |ln ω|) · 2**-53``."""
    if max_position == 0 or omega.numel() == 0:
        return False
    w = omega.double()
    growth = float((w * (3 + 2 * w.log().abs())).max())
    return max_position * growth > FAST_LIMIT


@functools.lru_cache(maxsize=16)
def _turn_limbs(dim: int, base: float, layout: str) -> Tensor:
    """The fraction of a turn per position of each pair, :math:`\\{\\omega_j / 2\\pi\\}`, as
    ``(pairs, 5)`` int64 limbs of 24 bits, most significant first (120 bits, truncated)."""
    from decimal import Decimal, localcontext

    if layout == "interleaved":
        pairs, exponent = (dim + 1) // 2, (Decimal(-2), Decimal(dim))  # ω_j = (base**(-2/dim))**j
    else:
        pairs = dim // 2
        exponent = (Decimal(-1), Decimal(max(pairs - 1, 1)))  # ω_j = (base**(-1/(k-1)))**j
    one = 1 << _FIXED
    with localcontext() as ctx:
        ctx.prec = 110
        ratio = (Decimal(base).ln() * exponent[0] / exponent[1]).exp()
        ratio_fixed = int((ratio * one).to_integral_value())
        inv_two_pi = int((Decimal(one) / (2 * Decimal(_PI))).to_integral_value())
    frac_mask = one - 1
    keep = _LIMBS * _LIMB_BITS
    limb_mask = (1 << _LIMB_BITS) - 1
    rows = []
    w = one  # ω_0 = 1, fixed point
    for _ in range(pairs):
        turns = ((w * inv_two_pi) >> _FIXED) & frac_mask  # fraction of a turn, fixed point
        top = turns >> (_FIXED - keep)
        rows.append([(top >> (_LIMB_BITS * (_LIMBS - 1 - k))) & limb_mask for k in range(_LIMBS)])
        w = (w * ratio_fixed) >> _FIXED
    return torch.tensor(rows, dtype=torch.int64).reshape(pairs, _LIMBS)


def exact_sincos(positions: Tensor, dim: int, base: float, layout: str, pairs: Tensor | None = None
                 ) -> tuple[Tensor, Tensor]:
    r"""``(sin, cos)`` of :math:`p\,\omega_j` for whole ``positions`` (int64, ``(n,)``,
    ``|p| < 2**53``) and the pairs ``pairs`` (all when None): float64 ``(n, pairs)`` each, on the
    CPU, within ~1e-15 of the exact values (the frequency taken as a real number)."""
    limbs = _turn_limbs(dim, float(base), layout)
    if pairs is not None:
        limbs = limbs[pairs]
    p = positions.to(torch.int64).cpu()
    if p.numel() and int(p.abs().max()) >= MAX_EXACT_POSITION:
        raise ValueError(f"positions up to {MAX_EXACT_POSITION:,} are supported")
    negative = (p < 0)[:, None]
    a = p.abs()
    halves = ((a >> 27)[:, None], 27), ((a & ((1 << 27) - 1))[:, None], 0)  # (high half, its shift), (low, 0)
    mask = (1 << _Q) - 1
    acc = torch.zeros(p.numel(), limbs.shape[0], dtype=torch.int64)
    for k in range(_LIMBS):
        f = limbs[:, k][None, :]  # (1, pairs), < 2**24
        for half, shift in halves:
            below = _LIMB_BITS * (k + 1) - shift  # the product counts in units of 2**-below turns
            if below <= 0:
                continue  # whole turns
            x = half * f  # < 2**51
            if below < 63:
                x = x & ((1 << below) - 1)
            x = x << (_Q - below) if below <= _Q else x >> (below - _Q)
            acc = (acc + x) & mask
    acc = torch.where(negative, (-acc) & mask, acc)
    turns = acc.double() * 2.0**-_Q  # [0, 1]
    turns = torch.where(turns >= 0.5, turns - 1.0, turns)  # [-1/2, 1/2]
    angle = turns * (2 * math.pi)
    return torch.sin(angle), torch.cos(angle)
