r"""How alike two positions' encodings are: the Gram matrix :math:`PP^\top` and its dependence on
the offset alone.

For the sinusoidal table, every sine/cosine pair contributes
:math:`\sin(a)\sin(b) + \cos(a)\cos(b) = \cos(a - b)`, so
:math:`P_i \cdot P_{i+\delta} = \sum_j \cos(\delta\,\omega_j)` depends on the offset
:math:`\delta` only, is symmetric in :math:`\pm\delta` and decays (noisily) as :math:`\delta`
grows. (An odd width's unpaired sine column adds a term that does depend on :math:`i`.)
The functions here measure that on any table rather than assume it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_data, check_elements, check_int, check_memory, check_sequence
from .reduce import BlockSummary, _summarise

__all__ = ["gram_block_means", "OffsetSimilarity", "similarity_by_offset", "neighbour_distances",
           "StepRange", "step_range", "ColumnChanges", "column_changes", "sinusoidal_column_changes",
           "pair_steps", "offset_dots",
           "EncodingProperties", "encoding_properties",
           "random_direction_overlap", "EmbeddingOverlap", "embedding_overlap"]


def _check_table(P: Tensor) -> None:
    if not isinstance(P, Tensor) or P.dim() != 2 or P.shape[0] == 0:
        raise ValueError("P must be a 2-D tensor of shape (positions, dim) with at least one position")
    if not P.dtype.is_floating_point:
        raise ValueError(f"P must hold floating-point numbers; got dtype {P.dtype}")
    check_data("P", P)


def gram_block_means(P: Tensor, max_blocks: int) -> BlockSummary:
    r"""Block means of the similarity matrix :math:`S = PP^\top` (``(n, n)``) over at most
    ``max_blocks x max_blocks`` blocks, without forming ``S``.

    The mean of :math:`P_i \cdot P_k` over a block of rows :math:`I` and columns :math:`K`
    equals :math:`\bar P_I \cdot \bar P_K`, the dot product of the blocks' mean rows, so this
    costs :math:`O(n d + B^2 d)` and is exact. Only means are known (``minimum``/``maximum`` are
    ``None``); when ``n <= max_blocks`` the result is ``S`` itself.
    """
    _check_table(P)
    if P.shape[1] == 0:
        raise ValueError("P must have at least one column")
    max_blocks = check_int("max_blocks", max_blocks, minimum=1, maximum=1 << 40)
    blocks = min(max_blocks, P.shape[0])
    check_elements({"blocks²": blocks * blocks})
    Pf = P.float() if P.dtype in (torch.float16, torch.bfloat16) else P
    rows = _summarise(Pf, max_blocks, Pf.shape[1], False)  # mean row of each block
    means = rows.mean  # (blocks, dim)
    return BlockSummary(means @ means.T, None, None, rows.row_edges, rows.row_edges.clone())


class OffsetSimilarity(NamedTuple):
    r""":math:`P_i \cdot P_{i+\delta}` per offset over several starting positions ``i``.
    ``offsets``, ``mean``, ``minimum``, ``maximum``: ``(D,)``; ``count``: how many starts
    each offset was measured at; ``starts``: the starting rows used."""

    offsets: Tensor
    mean: Tensor
    minimum: Tensor
    maximum: Tensor
    count: Tensor
    starts: Tensor

    @property
    def spread(self) -> Tensor:
        """``maximum - minimum`` per offset: 0 means the offset alone decides the similarity."""
        return self.maximum - self.minimum

    @property
    def max_spread(self) -> float:
        """The largest spread over all offsets."""
        return float(self.spread.max())


def similarity_by_offset(P: Tensor, *, max_offset: int | None = None, num_starts: int = 64) -> OffsetSimilarity:
    r"""Measure :math:`P_i \cdot P_{i+\delta}` for ``delta = 0 .. max_offset`` at up to
    ``num_starts`` evenly spaced starting rows ``i`` (all rows when there are fewer).

    Costs one ``(starts, dim) x (dim, n)`` product. Offsets beyond the table for a start
    are skipped for that start; ``count`` says how many starts remain per offset. Its tables take
    about 64 bytes per start and position; more than 1 GiB is refused (``ValueError``).
    """
    _check_table(P)
    n = P.shape[0]
    max_offset = n - 1 if max_offset is None else check_int("max_offset", max_offset, minimum=0)
    max_offset = min(max_offset, n - 1)
    num_starts = check_int("num_starts", num_starts, minimum=1)
    check_memory({"starts": min(num_starts, n), "positions": n}, 64)  # G, offsets, masks, gathered values
    starts = torch.unique(torch.linspace(0, n - 1, min(num_starts, n)).round().long())
    device = P.device
    starts_d = starts.to(device)
    Pf = P.float() if P.dtype in (torch.float16, torch.bfloat16) else P
    G = Pf[starts_d] @ Pf.T  # (starts, n)
    offsets = torch.arange(max_offset + 1, device=device)
    cols = starts_d[:, None] + offsets[None, :]  # (starts, offsets)
    valid = cols < n
    vals = torch.gather(G, 1, cols.clamp(max=n - 1))  # (starts, offsets)
    count = valid.sum(0)
    zero = torch.zeros((), dtype=vals.dtype, device=device)
    mean = torch.where(valid, vals, zero).sum(0) / count.clamp(min=1)
    minimum = torch.where(valid, vals, torch.full((), float("inf"), device=device, dtype=vals.dtype)).amin(0)
    maximum = torch.where(valid, vals, torch.full((), float("-inf"), device=device, dtype=vals.dtype)).amax(0)
    return OffsetSimilarity(offsets.cpu(), mean.cpu(), minimum.cpu(), maximum.cpu(), count.cpu(), starts)


def neighbour_distances(P: Tensor) -> Tensor:
    r"""Euclidean distance between consecutive rows, :math:`\lVert P_{i+1} - P_i \rVert`, shape
    ``(positions - 1,)``. For the sinusoidal table each pair adds :math:`2 - 2\cos\omega_j` to the
    squared distance, whatever ``i`` is, so the result is the same at every position."""
    _check_table(P)
    Pf = P.float() if P.dtype in (torch.float16, torch.bfloat16) else P
    return torch.linalg.vector_norm(Pf[1:] - Pf[:-1], dim=1)


class EncodingProperties(NamedTuple):
    """The four properties a positional encoding should have, measured on the sinusoidal table
    of ``num_positions`` rows (float64):

    - unique: ``closest`` is the smallest distance between two different positions (> 0);
    - consistent distances: ``step_spread`` is max − min of ‖P[i+1] − P[i]‖ over i (0 up to
      rounding), and ``prefix_gap`` the largest difference between these rows and the same rows
      of a table twice as long (0: a position's code does not depend on the sentence's length);
    - bounded, and defined past the end: ``largest`` is max |P| (at most 1), and ``beyond`` the
      largest |P| over the next ``num_positions`` positions nobody asked for;
    - deterministic: ``repeat_gap`` is the largest difference between two computations (0)."""

    closest: float
    step_spread: float
    prefix_gap: float
    largest: float
    beyond: float
    repeat_gap: float


def encoding_properties(num_positions: int, dim: int, *, base: float = 10000.0, start: int = 0,
                        layout: str = "interleaved") -> EncodingProperties:
    """Measure :class:`EncodingProperties` on the rows ``start .. start + num_positions - 1`` of
    the sinusoidal table (``sinusoidal_encoding(num_positions, dim, start=start)``, float64 on the
    CPU): the table twice as long has the same ``start``, and ``beyond`` covers the rows
    ``start + num_positions .. start + 2·num_positions - 1``. ``num_positions`` from 2 to 8192."""
    num_positions = check_int("num_positions", num_positions, minimum=2, maximum=1 << 13)
    # one table at a time, and its comparisons in blocks of rows: at 4096 × 1024 the largest
    # allocation is the longer table (64 MiB), not the 128 MiB matrix of every distance (the
    # figures are the same to the last bit)
    P = _table64(num_positions, dim, base, start, layout)
    steps = neighbour_distances(P)
    closest = _closest_rows(P)
    largest = _largest_abs(P)
    repeat_gap = _largest_gap(_table64(num_positions, dim, base, start, layout), P)
    longer = _table64(2 * num_positions, dim, base, start, layout)
    prefix_gap = _largest_gap(longer[:num_positions], P)
    beyond = _largest_abs(longer[num_positions:])
    return EncodingProperties(
        closest=closest, step_spread=float(steps.max() - steps.min()), prefix_gap=prefix_gap, largest=largest,
        beyond=beyond, repeat_gap=repeat_gap,
    )


_ROW_BLOCK = 256  # rows compared at a time (differences, absolute values)
# rows whose distances to every row are measured at a time: a (1024, 4096) block of float64
# distances is 32 MiB (torch.cdist pads the whole table again at each call: fewer, larger blocks
# keep it as fast as one call)
_DISTANCE_ROWS = 1024


def _closest_rows(P: Tensor) -> float:
    """The smallest Euclidean distance between two different rows of ``P`` (``torch.cdist``,
    one block of rows against all rows at a time)."""
    closest = math.inf
    for r0 in range(0, P.shape[0], _DISTANCE_ROWS):
        D = torch.cdist(P[r0:r0 + _DISTANCE_ROWS], P)  # (block, positions)
        rows = torch.arange(D.shape[0])
        D[rows, rows + r0] = math.inf  # a row's distance to itself
        closest = min(closest, float(D.min()))
    return closest


def _largest_abs(T: Tensor) -> float:
    """max |T|, one block of rows at a time."""
    return max(float(T[r0:r0 + _ROW_BLOCK].abs().max()) for r0 in range(0, T.shape[0], _ROW_BLOCK))


def _largest_gap(A: Tensor, B: Tensor) -> float:
    """max |A − B| over tables of one shape, one block of rows at a time."""
    return max(float((A[r0:r0 + _ROW_BLOCK] - B[r0:r0 + _ROW_BLOCK]).abs().max())
               for r0 in range(0, A.shape[0], _ROW_BLOCK))


def _table64(num_positions: int, dim: int, base: float, start: int, layout: str) -> Tensor:
    """The rows ``start .. start + num_positions - 1`` of the sinusoidal table, float64 on the CPU."""
    from .encodings import sinusoidal_encoding

    return sinusoidal_encoding(num_positions, dim, base=base, start=start, layout=layout, device="cpu",
                               dtype=torch.float64)


class StepRange(NamedTuple):
    """The smallest and largest distance between neighbouring rows, ‖P[i+1] − P[i]‖ over i."""

    smallest: float
    largest: float


def step_range(num_positions: int, dim: int, *, base: float = 10000.0, start: int = 0,
               layout: str = "interleaved") -> StepRange:
    """:class:`StepRange` of :func:`neighbour_distances` on the rows ``start .. start +
    num_positions - 1`` of the sinusoidal table, measured in float64 on the CPU (the same
    measurement as :func:`encoding_properties`' ``step_spread``). ``num_positions`` from 2."""
    num_positions = check_int("num_positions", num_positions, minimum=2)
    steps = neighbour_distances(_table64(num_positions, dim, base, start, layout))  # (num_positions - 1,)
    return StepRange(float(steps.min()), float(steps.max()))


class ColumnChanges(NamedTuple):
    """How each column of a table moves down its rows, one entry per column: ``sign_changes[c]``,
    between how many of the ``positions - 1`` pairs of neighbouring rows column ``c`` changes sign
    (``P[i, c]·P[i+1, c] < 0``; a zero is no change), and ``minimum[c]``, ``maximum[c]``, its
    smallest and largest value."""

    sign_changes: tuple[int, ...]
    minimum: tuple[float, ...]
    maximum: tuple[float, ...]


def column_changes(P: Tensor) -> ColumnChanges:
    """:class:`ColumnChanges` of the table ``P`` ``(positions, dim)`` (a single row changes
    nowhere). A fast column changes sign often, a slow one rarely or never."""
    _check_table(P)
    if P.shape[1] == 0:
        raise ValueError("P must have at least one column")
    Pf = P.float() if P.dtype in (torch.float16, torch.bfloat16) else P
    flips = ((Pf[1:] * Pf[:-1]) < 0).sum(dim=0)  # (dim,)
    return ColumnChanges(tuple(flips.tolist()), tuple(Pf.amin(dim=0).tolist()), tuple(Pf.amax(dim=0).tolist()))


def sinusoidal_column_changes(num_positions: int, dim: int, *, base: float = 10000.0, start: int = 0,
                              layout: str = "interleaved") -> ColumnChanges:
    """:func:`column_changes` of the rows ``start .. start + num_positions - 1`` of the sinusoidal
    table, measured in float64 on the CPU."""
    return column_changes(_table64(num_positions, dim, base, start, layout))


def pair_steps(num_positions: int, dim: int, *, base: float = 10000.0) -> tuple[float, ...]:
    """How fast each (sin, cos) column pair of the interleaved sinusoidal table (rows ``0 ..
    num_positions - 1``, even ``dim``) changes, one entry per pair: the mean absolute change per
    step of its two columns, ``mean_i (|P[i+1, 2j] − P[i, 2j]| + |P[i+1, 2j+1] − P[i, 2j+1]|) / 2``,
    measured in float64 on the CPU. ``num_positions`` from 2."""
    num_positions = check_int("num_positions", num_positions, minimum=2)
    dim = check_int("dim", dim, minimum=2)
    if dim % 2:
        raise ValueError(f"dim={dim} must be even (every sine with its cosine)")
    P = _table64(num_positions, dim, base, 0, "interleaved")
    change = (P[1:] - P[:-1]).abs().mean(dim=0)  # (dim,)
    return tuple(((change[0::2] + change[1::2]) / 2).tolist())


def offset_dots(dim: int, offset: int, starts: Sequence[int], *, base: float = 10000.0) -> tuple[float, ...]:
    r"""The dot products :math:`P_s \cdot P_{s + \delta}` of rows of the interleaved sinusoidal
    table (even ``dim``) ``offset`` positions apart, one per start ``s`` of ``starts``, measured
    in float64 on the CPU (one table of ``max(starts) + offset + 1`` rows). Each pair adds
    :math:`\cos(\delta\,\omega_j)`, whatever the start."""
    dim = check_int("dim", dim, minimum=2)
    if dim % 2:
        raise ValueError(f"dim={dim} must be even (every sine with its cosine)")
    offset = check_int("offset", offset, minimum=0)
    starts = [check_int("starts", s, minimum=0) for s in check_sequence("starts", starts)]
    if not starts:
        raise ValueError("starts must name at least one position")
    rows = max(starts) + offset + 1
    check_elements({"max(starts) + offset + 1": rows, "dim": dim})
    P = _table64(rows, dim, base, 0, "interleaved")
    return tuple(float(P[s] @ P[s + offset]) for s in starts)


def random_direction_overlap(width: int) -> float:
    r"""The expected :math:`|\cos|` between a fixed direction and a uniformly random one in
    ``width`` dimensions, :math:`\Gamma(w/2) / (\sqrt\pi\,\Gamma((w+1)/2))`: 1 for ``w = 1``,
    :math:`2/\pi` for ``w = 2``, about :math:`\sqrt{2/(\pi w)}` for large ``w``."""
    width = check_int("width", width, minimum=1, maximum=1 << 40)
    return math.exp(math.lgamma(width / 2) - math.lgamma((width + 1) / 2)) / math.sqrt(math.pi)


MAX_WIDTHS = 64  # widths one call of embedding_overlap measures


class EmbeddingOverlap(NamedTuple):
    r"""How much the rows of the sinusoidal table overlap random token embeddings, per width
    (each a tuple, one entry per width of ``widths``): ``overlaps``, the mean :math:`|\cos|`
    between the measured rows that are not zero and the embeddings (NaN where every row is zero);
    ``random``, that of two random directions (:func:`random_direction_overlap`); ``root``,
    :math:`1/\sqrt{w}`; ``rows``, how many rows were measured (0 where every row is zero);
    ``control``, the control measured the same way: as many Gaussian vectors as there are measured
    rows (from a generator seeded with ``seed + 1``) against the same embeddings, what any vector
    gives (NaN where every row is zero)."""

    widths: tuple[int, ...]
    overlaps: tuple[float, ...]
    random: tuple[float, ...]
    root: tuple[float, ...]
    rows: tuple[int, ...]
    control: tuple[float, ...] = ()


def _sampled_rows(num_positions: int, max_rows: int) -> list[int]:
    """The rows measured of a table of ``num_positions`` rows: all of them, or ``max_rows``
    evenly spaced ones (``round(i·(n−1)/(max_rows−1))``, first and last included)."""
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=1 << 40)
    max_rows = check_int("max_rows", max_rows, minimum=2, maximum=1 << 20)
    if num_positions <= max_rows:
        return list(range(num_positions))
    return sorted({round(i * (num_positions - 1) / (max_rows - 1)) for i in range(max_rows)})


def embedding_overlap(num_positions: int, widths: Sequence[int], *, base: float = 10000.0, start: int = 0,
                      layout: str = "interleaved", max_rows: int = 256, embeddings: int = 256,
                      seed: int = 0) -> EmbeddingOverlap:
    r"""Whether adding positions to token embeddings (instead of concatenating them) mixes the
    two: for each width ``w`` of ``widths``, the mean :math:`|\cos|` between rows of
    ``sinusoidal_encoding(num_positions, w, start=start)`` (all rows, or ``max_rows`` evenly
    spaced ones, see :func:`_sampled_rows`; rows that are all zero left out) and ``embeddings``
    Gaussian embeddings ``randn(embeddings, w)`` from a generator seeded with ``seed``.
    Measured in float64 on the CPU, so every machine gets the same numbers. The control: as many
    Gaussian vectors ``randn(rows, w)`` (a generator seeded with ``seed + 1``) as there are rows
    measured, against the same embeddings."""
    num_positions = check_int("num_positions", num_positions, minimum=1, maximum=1 << 20)
    widths = tuple(check_int("widths", w, minimum=1, maximum=1 << 14) for w in check_sequence("widths", widths))
    if not 0 < len(widths) <= MAX_WIDTHS:
        raise ValueError(f"widths must name 1 to {MAX_WIDTHS} widths; got {len(widths)}")
    embeddings = check_int("embeddings", embeddings, minimum=1, maximum=1 << 14)
    seed = check_int("seed", seed, minimum=0, maximum=(1 << 63) - 2)
    rows = _sampled_rows(num_positions, max_rows)
    overlaps, counts, controls = [], [], []
    for w in widths:
        P = _table64(num_positions, w, base, start, layout)[rows]  # (rows, w)
        P = P[P.norm(dim=1) > 0]
        if not len(P):
            overlaps.append(float("nan"))
            controls.append(float("nan"))
            counts.append(0)
            continue
        E = torch.randn(embeddings, w, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        R = torch.randn(len(P), w, generator=torch.Generator().manual_seed(seed + 1), dtype=torch.float64)
        overlaps.append(_mean_abs_cosine(P, E))  # P: (rows, w), E: (embeddings, w)
        controls.append(_mean_abs_cosine(R, E))
        counts.append(len(P))
    return EmbeddingOverlap(widths, tuple(overlaps), tuple(random_direction_overlap(w) for w in widths),
                            tuple(1 / math.sqrt(w) for w in widths), tuple(counts), tuple(controls))


def _mean_abs_cosine(A: Tensor, B: Tensor) -> float:
    r"""Mean :math:`|\cos|` between every row of ``A`` ``(a, w)`` and every row of ``B`` ``(b, w)``."""
    cos = (A / A.norm(dim=1, keepdim=True)) @ (B / B.norm(dim=1, keepdim=True)).T  # (a, b)
    return float(cos.abs().mean())
