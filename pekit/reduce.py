"""Honest reduction of large matrices for drawing: block means with the range of each block.

A 4096 x 1024 table has 4M cells; drawing each as a chart mark is slow and a browser would
alias it anyway. :func:`block_summary` averages equal blocks (a box filter: no aliasing) and
keeps each block's minimum and maximum, so a picture can say exactly what it shows: "each cell
is the mean of rows a..b and columns c..d, whose values range from lo to hi".
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from ._checks import MAX_ELEMENTS, check_bool, check_data, check_int

__all__ = ["BlockSummary", "block_summary"]


class BlockSummary(NamedTuple):
    """Block statistics of a matrix. ``mean``/``minimum``/``maximum``: ``(R, C)``;
    ``row_edges``: ``(R + 1,)`` and ``col_edges``: ``(C + 1,)`` give block ``[r, c]`` as rows
    ``row_edges[r] .. row_edges[r+1] - 1`` and columns ``col_edges[c] .. col_edges[c+1] - 1``.
    ``minimum``/``maximum`` are ``None`` where only means are known."""

    mean: Tensor
    minimum: Tensor | None
    maximum: Tensor | None
    row_edges: Tensor
    col_edges: Tensor

    @property
    def exact(self) -> bool:
        """True when every block is a single cell (nothing was averaged)."""
        return self.mean.shape == (self.row_edges[-1].item(), self.col_edges[-1].item())

    @property
    def block_shape(self) -> tuple[int, int]:
        """Rows and columns per full block."""
        return int(self.row_edges[1] - self.row_edges[0]), int(self.col_edges[1] - self.col_edges[0])


def block_edges(length: int, max_blocks: int) -> Tensor:
    """Edges of equal blocks (the last may be shorter) covering ``0 .. length``, at most
    ``max_blocks`` blocks: ``tensor([0, s, 2s, ..., length])`` with ``s = ceil(length / max_blocks)``."""
    length = check_int("length", length, minimum=1, maximum=1 << 40)
    max_blocks = check_int("max_blocks", max_blocks, minimum=1, maximum=1 << 40)
    size = -(-length // max_blocks)
    if -(-length // size) > MAX_ELEMENTS:  # one edge per block is returned
        raise ValueError(f"length={length:,} in at most max_blocks={max_blocks:,} blocks gives {-(-length // size):,} "
                         f"blocks, over the {MAX_ELEMENTS:,} numbers pekit allocates at once")
    edges = torch.arange(0, length, size)
    return torch.cat([edges, torch.tensor([length])])


def _blocks(X: Tensor, rows: int, cols: int, pad_value: float = 0.0) -> Tensor:
    """``X`` padded with ``pad_value`` to whole blocks and viewed as ``(R, rows, C, cols)``."""
    n, d = X.shape
    padded = F.pad(X, (0, (-d) % cols, 0, (-n) % rows), value=pad_value)
    return padded.reshape(padded.shape[0] // rows, rows, padded.shape[1] // cols, cols)


def block_summary(X: Tensor, max_rows: int, max_cols: int, *, extremes: bool = True) -> BlockSummary:
    """Mean, minimum and maximum of ``X`` (``(n, d)``) over at most ``max_rows x max_cols``
    equal blocks. When ``X`` already fits, every block is one cell and the means are the
    values themselves. ``extremes=False`` skips the minima and maxima (``None``)."""
    if not isinstance(X, Tensor) or X.dim() != 2 or X.numel() == 0:
        raise ValueError("X must be a non-empty 2-D tensor")
    if X.dtype == torch.bool or X.is_complex():
        raise ValueError(f"X must hold real numbers; got dtype {X.dtype}")
    check_data("X", X)
    max_rows = check_int("max_rows", max_rows, minimum=1, maximum=1 << 40)
    max_cols = check_int("max_cols", max_cols, minimum=1, maximum=1 << 40)
    extremes = check_bool("extremes", extremes)
    return _summarise(X, max_rows, max_cols, extremes)


def _summarise(X: Tensor, max_rows: int, max_cols: int, extremes: bool) -> BlockSummary:
    """:func:`block_summary` of checked arguments."""
    n, d = X.shape
    row_edges, col_edges = block_edges(n, max_rows), block_edges(d, max_cols)
    rows, cols = int(row_edges[1]), int(col_edges[1])
    if rows == 1 and cols == 1:
        return BlockSummary(X, X, X, row_edges, col_edges)
    Xf = X.float() if not X.dtype.is_floating_point else X
    sums = _blocks(Xf, rows, cols).sum(dim=(1, 3), dtype=torch.float64)  # float64: no overflow, no drift
    counts = torch.outer(row_edges.diff(), col_edges.diff()).to(sums)
    mean = (sums / counts).to(Xf.dtype)  # (R, C)
    if not extremes:
        return BlockSummary(mean, None, None, row_edges, col_edges)
    return BlockSummary(
        mean, _blocks(Xf, rows, cols, float("inf")).amin(dim=(1, 3)),
        _blocks(Xf, rows, cols, float("-inf")).amax(dim=(1, 3)),
        row_edges, col_edges,
    )
