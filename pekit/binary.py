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
from typing import TYPE_CHECKING, NamedTuple

import torch
from torch import Tensor

from ._checks import check_bool, check_elements, check_float, check_int, check_memory, check_tensor
from .encodings import Layout, binary_encoding, check_base, sinusoidal_encoding, wavelengths
from .similarity import neighbour_distances

if TYPE_CHECKING:  # pandas is imported by the functions that return tables
    import pandas as pd

__all__ = [
    "bit_periods",
    "bit_wave",
    "bit_changes",
    "binary_strings",
    "match_bits_to_pairs",
    "pairwise_distances",
    "Distinctness",
    "distinct_positions",
    "dial_encoding",
    "distances_from_first",
    "CodeComparison",
    "compare_codes",
    "CodeDistances",
    "code_distances",
    "OverlayValues",
    "overlay_values",
    "ValueCounts",
    "value_counts",
    "EqualWidth",
    "equal_width",
    "wavelength_growth",
]


def bit_periods(bits: int) -> Tensor:
    """Period in positions of each bit of a counter: bit ``b`` repeats every ``2**(b+1)``."""
    bits = check_int("bits", bits, minimum=1, maximum=62)
    return 2.0 ** torch.arange(1, bits + 1, dtype=torch.float64)


def bit_wave(num_positions: int, bit: int) -> Tensor:
    """Bit ``bit`` of positions ``0 .. num_positions-1`` as a square wave of -1 (bit 0) and
    +1 (bit 1), float64: the same range as a sine column, for overlaying the two."""
    num_positions = check_int("num_positions", num_positions, minimum=0, maximum=1 << 26)
    bit = check_int("bit", bit, minimum=0, maximum=62)
    i = torch.arange(num_positions, dtype=torch.int64)
    return (((i >> bit) & 1) * 2 - 1).double()


def bit_changes(num_positions: int, bit: int) -> tuple[int, ...]:
    """The positions ``i`` in ``1 .. num_positions − 1`` where bit ``bit`` of the binary code
    (:func:`pekit.binary_encoding`, with bits enough not to wrap) differs from position ``i − 1``'s."""
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=1 << 26)
    bit = check_int("bit", bit, minimum=0, maximum=61)
    column = binary_encoding(num_positions, bits=max(bit + 1, (num_positions - 1).bit_length()), device="cpu")[:, bit]
    return tuple(int(i) + 1 for i in torch.nonzero(column[1:] != column[:-1]).flatten())


def binary_strings(num_positions: int, bits: int, *, lsb_first: bool = True) -> list[str]:
    """Each position's code as a string, e.g. 6 with 3 bits: ``'011'``
    least significant bit first (as the Julia edition prints), ``'110'`` most significant first.
    With fewer bits than a position needs, only its low ``bits`` bits are shown (it wraps)."""
    num_positions = check_int("num_positions", num_positions, minimum=0, maximum=1 << 20)
    bits = check_int("bits", bits, minimum=1, maximum=62)
    lsb_first = check_bool("lsb_first", lsb_first)
    out = []
    for i in range(num_positions):
        msb = format(i % (1 << bits), f"0{bits}b")
        out.append(msb[::-1] if lsb_first else msb)
    return out


def match_bits_to_pairs(
    bits: int, dim: int, *, base: float = 10000.0, layout: Layout = "interleaved"
) -> pd.DataFrame:
    """For each bit, the column pair whose wavelength is closest to the bit's period (on a log
    scale, i.e. by ratio): ``bit, period, pair, sin_column, wavelength, ratio``
    (``ratio = wavelength / period``; 1 is a perfect match), and where the analogy stops:
    ``faster_than_every_pair`` (the period is shorter than the shortest wavelength, 2π) and
    ``slower_than_every_pair`` (longer than the longest wavelength)."""
    import pandas as pd

    periods = bit_periods(bits)
    waves = wavelengths(dim, base=check_base(base), layout=layout)
    if waves.numel() == 0:
        raise ValueError(f"dim={dim} has no sine/cosine pair to compare with (tensor2tensor needs dim >= 2)")
    gap = (waves[None, :].log() - periods[:, None].log()).abs()  # (bits, pairs)
    pair = gap.argmin(dim=1)
    sin_col = 2 * pair if layout == "interleaved" else pair
    return pd.DataFrame(
        {
            "bit": range(bits),
            "period": periods.numpy(),
            "pair": pair.numpy(),
            "sin_column": sin_col.numpy(),
            "wavelength": waves[pair].numpy(),
            "ratio": (waves[pair] / periods).numpy(),
            "faster_than_every_pair": (periods < waves.min()).numpy(),
            "slower_than_every_pair": (periods > waves.max()).numpy(),
        }
    )


def pairwise_distances(X: Tensor) -> Tensor:
    """Euclidean distances between all rows of ``X`` (``(n, d)``), ``(n, n)``, in ``X``'s
    floating dtype (float32 for other dtypes), through matrix products: fast, exact for 0/1
    codes, and within ~1e-7 (float64) or ~1e-3 (float32, d up to 1024) of the direct differences."""
    check_tensor("X", X, dims=2, what="(positions, dim)")
    check_elements({"positions²": X.shape[0] * X.shape[0]})
    Xf = X.detach() if X.dtype in (torch.float32, torch.float64) else X.detach().float()
    return torch.cdist(Xf, Xf)


class Distinctness(NamedTuple):
    """``distinct``: how many rows remain when every row within ``tol`` of an earlier row is
    counted with it; ``min_distance``: the smallest distance between two different positions
    (NaN with fewer than two); ``pair``: the first such pair ``(i, k)``, ``i < k``, or None."""

    distinct: int
    min_distance: float
    pair: tuple[int, int] | None


DISTINCT_BYTES = 18  # bytes per pair of positions: the distances (float64), two masks and a copy


def distinct_positions(X: Tensor, *, tol: float = 1e-3) -> Distinctness:
    """How well the rows of ``X`` (``(positions, dim)``) tell positions apart. Its
    ``(positions, positions)`` tables take :data:`DISTINCT_BYTES` bytes per pair and must fit
    in 1 GiB (about 7,700 positions), else ``ValueError``."""
    check_tensor("X", X, dims=2, what="(positions, dim)")
    tol = check_float("tol", tol, minimum=0.0)
    n = X.shape[0]
    check_memory({"X.shape[0]²": n * n}, DISTINCT_BYTES)
    if n < 2:
        return Distinctness(n, float("nan"), None)
    D = pairwise_distances(X)
    D.fill_diagonal_(float("inf"))
    flat = int(D.argmin())
    i, k = divmod(flat, n)
    same = D <= tol  # (n, n): rows that coincide with an earlier or later row
    earlier = torch.triu(same, diagonal=1).any(dim=0)  # row k equals some row i < k
    return Distinctness(int(n - earlier.sum()), float(D[i, k]), (min(i, k), max(i, k)))


def dial_encoding(num_positions: int, columns: int) -> Tensor:
    r"""The naive "dials" :math:`M_{ij} = \sin(2\pi i / 2^j)`, ``(num_positions, columns)``,
    float64 with the angle reduced exactly (``i mod 2^j``), so collisions are real, not rounding."""
    num_positions = check_int("num_positions", num_positions, minimum=0)
    columns = check_int("columns", columns, minimum=1, maximum=52)
    check_elements({"num_positions": num_positions, "columns": columns})
    i = torch.arange(num_positions, dtype=torch.int64)[:, None]
    period = 2 ** torch.arange(columns, dtype=torch.int64)[None, :]
    return torch.sin(2 * math.pi * (i % period).double() / period.double())


def distances_from_first(X: Tensor) -> Tensor:
    """``||X[i] - X[0]||`` for every row ``i`` (float64)."""
    check_tensor("X", X, dims=2, what="(positions, dim)")
    if X.shape[0] == 0:
        raise ValueError("X must have at least one position")
    Xd = X.detach().double()
    return (Xd - Xd[0]).norm(dim=1)


class CodeComparison(NamedTuple):
    """Binary codes of ``bits`` bits against the sinusoidal table of width ``dim`` over
    ``n`` positions (see :func:`compare_codes`). Distances are float64 tensors:
    ``binary_steps``/``sinusoidal_steps`` ``(n - 1,)`` between positions i−1 and i;
    ``dial_distances``/``sinusoidal_distances`` ``(n,)`` from position 0."""

    binary_steps: Tensor
    sinusoidal_steps: Tensor
    biggest_jump: int  # the position i whose step from i − 1 flips the most bits
    biggest_jump_flips: int
    binary: Distinctness
    sinusoidal: Distinctness
    dial_distances: Tensor
    sinusoidal_distances: Tensor
    dial_returns: list[int]  # positions > 0 whose dial code equals position 0's exactly
    sinusoidal_min_from_first: float


def compare_codes(n: int, bits: int, dim: int, *, base: float = 10000.0) -> CodeComparison:
    r"""Everything the binary analogy measures: steps between neighbours, how many positions
    each code tells apart, the dials :math:`\sin(2\pi i/2^j)` (``bits`` columns) returning to
    position 0's code, and the sinusoidal table's distance from position 0."""
    n = check_int("n", n, minimum=2, maximum=1 << 14)
    check_memory({"n²": n * n}, DISTINCT_BYTES)  # the (n, n) distances of each code
    bits = check_int("bits", bits, minimum=1, maximum=52)  # the dials have one column per bit
    B = binary_encoding(n, bits, device="cpu", dtype=torch.float64)  # (n, bits)
    P = sinusoidal_encoding(n, dim, base=base, device="cpu", dtype=torch.float64)  # (n, dim)
    binary_steps = neighbour_distances(B)
    flips = (binary_steps**2).round().long()  # squared distance of 0/1 codes = bits flipped
    jump = int(flips.argmax()) + 1
    M = dial_encoding(n, bits)
    dials = distances_from_first(M)
    sin_from_first = distances_from_first(P)
    returns = [int(i) for i in torch.nonzero(dials[1:] < 1e-9).flatten() + 1]
    return CodeComparison(
        binary_steps, neighbour_distances(P), jump, int(flips[jump - 1]), distinct_positions(B), distinct_positions(P),
        dials, sin_from_first, returns, float(sin_from_first[1:].min()),
    )


class CodeDistances(NamedTuple):
    """:func:`compare_codes`'s distances as plain floats, and what the binary analogy reads off
    them: each code's smallest and largest step between neighbours (``*_step_range``, float64),
    the position (> 0) whose sinusoidal code is closest to position 0's (the first at that
    distance), and the dials' smallest distance from position 0 with the first position at it
    (0 at the first exact return, see ``CodeComparison.dial_returns``)."""

    binary_steps: tuple[float, ...]
    sinusoidal_steps: tuple[float, ...]
    dial_distances: tuple[float, ...]
    sinusoidal_distances: tuple[float, ...]
    binary_step_range: tuple[float, float]
    sinusoidal_step_range: tuple[float, float]
    closest_to_first: int
    dial_min_from_first: float
    dial_closest_to_first: int


def code_distances(stats: CodeComparison) -> CodeDistances:
    """The distances of ``stats`` (a :class:`CodeComparison` of at least two positions)."""
    if not isinstance(stats, CodeComparison):
        raise ValueError(f"stats must be the CodeComparison compare_codes returns; got a {type(stats).__name__}")
    tables = (stats.binary_steps, stats.sinusoidal_steps, stats.dial_distances, stats.sinusoidal_distances)
    for field, table in zip(("binary_steps", "sinusoidal_steps", "dial_distances", "sinusoidal_distances"), tables):
        check_tensor(f"stats.{field}", table, dims=1, what="(positions,)")
    n = stats.sinusoidal_distances.numel()
    if n < 2 or [t.numel() for t in tables] != [n - 1, n - 1, n, n]:
        raise ValueError("stats must hold n − 1 steps and n distances from position 0 of each code, n >= 2")
    returns = stats.dial_returns
    if not isinstance(returns, list) or not all(type(i) is int and 0 < i < n for i in returns):
        raise ValueError("stats.dial_returns must list positions 1 .. n − 1, as compare_codes returns")
    binary_steps, sinusoidal_steps, dials, sinusoidal = (t.detach().double().cpu() for t in tables)
    return CodeDistances(
        tuple(binary_steps.tolist()), tuple(sinusoidal_steps.tolist()), tuple(dials.tolist()),
        tuple(sinusoidal.tolist()), tuple(map(float, binary_steps.aminmax())),
        tuple(map(float, sinusoidal_steps.aminmax())), int(sinusoidal[1:].argmin()) + 1,
        0.0 if returns else float(dials[1:].min()), returns[0] if returns else int(dials[1:].argmin()) + 1,
    )


class OverlayValues(NamedTuple):
    """Bit ``bit`` as a ±1 square wave (:func:`bit_wave`) and one column of the sinusoidal table
    as drawn (float32, read as float64) over the same positions."""

    bit_wave: tuple[float, ...]
    column_wave: tuple[float, ...]


class ValueCounts(NamedTuple):
    """How many different values a bit (1 or 2) and a column take over the same positions, the
    column's counted in float64 (float32 can round two of them to one)."""

    bit_values: int
    column_values: int


def _check_overlay(num_positions: object, bit: object, dim: object, column: object) -> tuple[int, int, int, int]:
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=1 << 26)
    bit = check_int("bit", bit, minimum=0, maximum=62)
    dim = check_int("dim", dim, minimum=1)
    column = check_int("column", column, minimum=0)
    if column >= dim:
        raise ValueError(f"column={column} must be one of the columns 0 .. dim − 1 = {dim - 1}")
    return num_positions, bit, dim, column


def overlay_values(num_positions: int, bit: int, dim: int, column: int, *, base: float = 10000.0) -> OverlayValues:
    """Bit ``bit`` against column ``column`` of the width-``dim`` table, positions ``0 .. num_positions − 1``."""
    from .encodings import sinusoidal_columns

    num_positions, bit, dim, column = _check_overlay(num_positions, bit, dim, column)
    drawn = sinusoidal_columns(num_positions, dim, [column], base=base)[:, 0]  # (positions,), float32
    return OverlayValues(tuple(bit_wave(num_positions, bit).tolist()), tuple(drawn.double().cpu().tolist()))


def value_counts(num_positions: int, bit: int, dim: int, column: int, *, base: float = 10000.0) -> ValueCounts:
    """The different values of :func:`overlay_values`' two curves, the column's in float64."""
    from .encodings import sinusoidal_columns

    num_positions, bit, dim, column = _check_overlay(num_positions, bit, dim, column)
    exact = sinusoidal_columns(num_positions, dim, [column], base=base, dtype=torch.float64)[:, 0]
    return ValueCounts(len(bit_wave(num_positions, bit).unique()), len(exact.unique()))


def bits_needed(num_positions: int) -> int:
    """The fewest bits that tell positions ``0 .. num_positions - 1`` apart (at least 1)."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    return max(1, (num_positions - 1).bit_length())


def wavelength_growth(dim: int, *, base: float = 10000.0) -> float:
    """The factor ``base**(2/dim)`` by which each pair's wavelength exceeds the previous one's
    (interleaved table); a bit's period grows by 2 from one bit to the next."""
    dim = check_int("dim", dim, minimum=1)
    base = check_base(base)
    try:
        return base ** (2 / dim)
    except OverflowError:
        raise ValueError(f"base={base!r} ** (2 / dim={dim}) is too large for a float") from None


def overlay_window(num_positions: int, bit: int) -> int:
    """How many positions to draw a bit against a column with: about four of the bit's periods
    (at least 32, at most 300), within ``num_positions``."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    bit = check_int("bit", bit, minimum=0, maximum=62)
    return min(num_positions, max(32, min(300, 4 * 2 ** (bit + 1))))


class EqualWidth(NamedTuple):
    """Binary codes and the sinusoidal table with the same number of columns ``width`` over
    ``n`` positions: how many positions each tells apart, and its closest two positions."""

    n: int
    width: int
    binary: Distinctness
    sinusoidal: Distinctness


def equal_width(n: int, width: int, *, base: float = 10000.0) -> EqualWidth:
    """The chapter's "continuous representations are more space-efficient", measured: ``width``
    bits tell at most ``2**width`` positions apart, ``width`` sinusoidal columns tell apart every
    position (their values never repeat exactly)."""
    n = check_int("n", n, minimum=2, maximum=1 << 14)
    check_memory({"n²": n * n}, DISTINCT_BYTES)  # the (n, n) distances of each code
    width = check_int("width", width, minimum=1, maximum=62)
    B = binary_encoding(n, width, device="cpu", dtype=torch.float64)  # (n, width), wraps after 2**width
    P = sinusoidal_encoding(n, width, base=base, device="cpu", dtype=torch.float64)  # (n, width)
    return EqualWidth(n, width, distinct_positions(B), distinct_positions(P))
