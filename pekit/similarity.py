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

from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_data, check_elements, check_int, check_memory
from .reduce import BlockSummary, _summarise

__all__ = ["gram_block_means", "OffsetSimilarity", "similarity_by_offset", "neighbour_distances",
           "EncodingProperties", "encoding_properties"]


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


def encoding_properties(num_positions: int, dim: int, *, base: float = 10000.0, layout: str = "interleaved") -> EncodingProperties:
    """Measure :class:`EncodingProperties` for ``sinusoidal_encoding(num_positions, dim)``."""
    from .encodings import sinusoidal_encoding

    num_positions = check_int("num_positions", num_positions, minimum=2, maximum=1 << 13)
    P = sinusoidal_encoding(num_positions, dim, base=base, layout=layout, device="cpu", dtype=torch.float64)
    longer = sinusoidal_encoding(2 * num_positions, dim, base=base, layout=layout, device="cpu", dtype=torch.float64)
    again = sinusoidal_encoding(num_positions, dim, base=base, layout=layout, device="cpu", dtype=torch.float64)
    D = torch.cdist(P, P)
    D.fill_diagonal_(float("inf"))
    steps = neighbour_distances(P)
    return EncodingProperties(
        closest=float(D.min()), step_spread=float(steps.max() - steps.min()),
        prefix_gap=float((longer[:num_positions] - P).abs().max()), largest=float(P.abs().max()),
        beyond=float(longer[num_positions:].abs().max()), repeat_gap=float((again - P).abs().max()),
    )
