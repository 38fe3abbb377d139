r"""Which head of a model shows which attention pattern: for the anti-diagonal (output ``i`` reads
input ``T - 1 - i``, a reversal), the diagonal (each token reads itself) and the first key, the
head that puts the most weight on it.

A head's share of a pattern is the mean over the queries of the weight each puts on the pattern's
key, :math:`\frac{1}{T}\sum_i A_{i,k(i)}`; a head that spreads its weight evenly puts
:math:`1/T` on any of them.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from ._checks import check_tensor

__all__ = ["StrongestHeads", "strongest_heads"]


class StrongestHeads(NamedTuple):
    """Per pattern, the ``(layer, head, share)`` of the head that puts the most weight on it
    (counted from 0; the first such head in layer-major order on a tie), and ``uniform``, the
    share of evenly spread weights, ``1/T``."""

    anti: tuple[int, int, float]
    diagonal: tuple[int, int, float]
    first: tuple[int, int, float]
    uniform: float


def strongest_heads(weights: Tensor) -> StrongestHeads:
    """:class:`StrongestHeads` of attention weights ``(layers, heads, T, T)`` (rows are queries),
    at least one layer, one head and one key."""
    check_tensor("weights", weights, dims=4, floating=True, what="(layers, heads, T, T)")
    layers, heads, T, keys = weights.shape
    if T != keys or T == 0 or layers == 0 or heads == 0:
        raise ValueError(f"weights must have the shape (layers, heads, T, T) with at least one layer, head and key; "
                         f"got {tuple(weights.shape)}")
    weights = weights.detach()
    if weights.dtype in (torch.float16, torch.bfloat16):
        weights = weights.float()
    shares = {"anti": weights.flip(-1).diagonal(dim1=-2, dim2=-1).mean(-1),
              "diagonal": weights.diagonal(dim1=-2, dim2=-1).mean(-1), "first": weights[..., 0].mean(-1)}
    best = {}
    for name, share in shares.items():  # (layers, heads) each
        index = int(share.argmax())
        layer, head = divmod(index, heads)
        best[name] = (layer, head, float(share.flatten()[index]))
    return StrongestHeads(best["anti"], best["diagonal"], best["first"], 1 / T)
