r"""The binary analogy: bits of a counter against the columns of the sinusoidal encoding.

References
- Dive into Deep Learning, "Self-Attention and Positional Encoding", absolute positional
  information: the lowest bit of 0..7 flips every number, the next every two, the next every
  four; the encoding's columns likewise oscillate more slowly with the column index.
- Kernes, "Master Positional Encoding" (the study notes' "dials"):
  :math:`M_{ij} = \sin(2\pi i / 2^j)` closes on itself; lowering the frequencies with a large
  base keeps positions apart.

Bit ``b`` is a square wave with period :math:`2^{b+1}` positions; column pair ``j`` of the
encoding is a sine/cosine with wavelength :math:`2\pi\,\text{base}^{2j/d}`.
"""

from __future__ import annotations

import math

import pandas as pd
import torch
from torch import Tensor

from ._checks import check_float, check_int
from .encodings import Layout, wavelengths

__all__ = [
    "bit_periods",
    "bit_wave",
    "binary_strings",
    "match_bits_to_pairs",
    "pairwise_distances",
    "distinct_positions",
    "dial_encoding",
    "distances_from_first",
]


def bit_periods(bits: int) -> Tensor:
    """Period in positions of each bit of a counter: bit ``b`` repeats every ``2**(b+1)``."""
    bits = check_int("bits", bits, minimum=1, maximum=62)
    return 2.0 ** torch.arange(1, bits + 1, dtype=torch.float64)


def bit_wave(num_positions: int, bit: int) -> Tensor:
    """Bit ``bit`` of positions ``0 .. num_positions-1`` as a square wave of -1 (bit 0) and
    +1 (bit 1), float64: the same range as a sine column, for overlaying the two."""
    num_positions = check_int("num_positions", num_positions, minimum=0)
    bit = check_int("bit", bit, minimum=0, maximum=62)
    i = torch.arange(num_positions, dtype=torch.int64)
    return (((i >> bit) & 1) * 2 - 1).double()


def binary_strings(num_positions: int, bits: int, *, lsb_first: bool = True) -> list[str]:
    """Each position's code as a string, e.g. 6 with 3 bits: ``'011'``
    least significant bit first (as the Julia edition prints), ``'110'`` most significant first.
    With fewer bits than a position needs, only its low ``bits`` bits are shown (it wraps)."""
    num_positions = check_int("num_positions", num_positions, minimum=0)
    bits = check_int("bits", bits, minimum=1, maximum=62)
    out = []
    for i in range(num_positions):
        msb = format(i % (1 << bits), f"0{bits}b")
        out.append(msb[::-1] if lsb_first else msb)
    return out


def match_bits_to_pairs(
    bits: int, dim: int, *, base: float = 10000.0, layout: Layout = "interleaved"
) -> pd.DataFrame:
    """For each bit, the column pair whose wavelength is closest to the bit's period (on a log
    scale, i.e. by ratio): ``bit, period, pair, sin column, wavelength, ratio``
    (``ratio = wavelength / period``; 1 is a perfect match). Bits whose period lies beyond the
    longest wavelength match the last pair with a ratio below 1: there the analogy stops."""
    periods = bit_periods(bits)
    waves = wavelengths(dim, base=check_float("base", base, positive=True), layout=layout)
    if waves.numel() == 0:
        raise ValueError(f"dim={dim} has no sine/cosine pair to compare with (tensor2tensor needs dim >= 2)")
    gap = (waves[None, :].log() - periods[:, None].log()).abs()  # (bits, pairs)
    pair = gap.argmin(dim=1)
    pairs = waves.numel()
    sin_col = 2 * pair if layout == "interleaved" else pair
    return pd.DataFrame(
        {
            "bit": range(bits),
            "period": periods.numpy(),
            "pair": pair.numpy(),
            "sin column": sin_col.numpy(),
            "wavelength": waves[pair].numpy(),
            "ratio": (waves[pair] / periods).numpy(),
            "pairs": pairs,
        }
    ).drop(columns="pairs")


def pairwise_distances(X: Tensor) -> Tensor:
    """Euclidean distances between all rows of ``X`` (``(n, d)``), ``(n, n)``, in ``X``'s
    floating dtype (float32 for other dtypes), through matrix products: fast, exact for 0/1
    codes, and within ~1e-7 (float64) or ~1e-3 (float32, d up to 1024) of the direct differences."""
    if not isinstance(X, Tensor) or X.dim() != 2:
        raise ValueError("X must be a 2-D tensor of shape (positions, dim)")
    Xf = X.detach() if X.dtype in (torch.float32, torch.float64) else X.detach().float()
    return torch.cdist(Xf, Xf)


def distinct_positions(X: Tensor, *, tol: float = 1e-3) -> dict:
    """How well rows of ``X`` tell positions apart: ``distinct`` (how many rows remain when
    every row within ``tol`` of an earlier row is counted with it), ``min_distance`` between
    two different positions and the first such pair ``(i, k)``."""
    n = X.shape[0]
    if n < 2:
        return {"distinct": n, "min_distance": float("nan"), "pair": None}
    D = pairwise_distances(X)
    D.fill_diagonal_(float("inf"))
    flat = int(D.argmin())
    i, k = divmod(flat, n)
    same = D <= tol  # (n, n): rows that coincide with an earlier or later row
    earlier = torch.triu(same, diagonal=1).any(dim=0)  # row k equals some row i < k
    return {"distinct": int(n - earlier.sum()), "min_distance": float(D[i, k]), "pair": (min(i, k), max(i, k))}


def dial_encoding(num_positions: int, columns: int) -> Tensor:
    r"""The naive "dials" :math:`M_{ij} = \sin(2\pi i / 2^j)`, ``(num_positions, columns)``,
    float64 with the angle reduced exactly (``i mod 2^j``), so collisions are real, not rounding."""
    num_positions = check_int("num_positions", num_positions, minimum=0)
    columns = check_int("columns", columns, minimum=1, maximum=52)
    i = torch.arange(num_positions, dtype=torch.int64)[:, None]
    period = 2 ** torch.arange(columns, dtype=torch.int64)[None, :]
    return torch.sin(2 * math.pi * (i % period).double() / period.double())


def distances_from_first(X: Tensor) -> Tensor:
    """``||X[i] - X[0]||`` for every row ``i`` (float64)."""
    if not isinstance(X, Tensor) or X.dim() != 2 or X.shape[0] == 0:
        raise ValueError("X must be a non-empty 2-D tensor of shape (positions, dim)")
    Xd = X.detach().double()
    return (Xd - Xd[0]).norm(dim=1)
