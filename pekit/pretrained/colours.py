"""A colour scale's range for a matrix with a few extreme entries, so that one outlier does not
wash out the rest of a picture.

References
- NumPy's ``quantile`` (linear interpolation between the closest entries), which has no size
  limit where ``torch.quantile`` stops at 2**24 entries.
"""

from __future__ import annotations

from typing import NamedTuple

from torch import Tensor

from .._checks import check_bool, check_float, check_tensor

__all__ = ["ColourRange", "colour_range"]


class ColourRange(NamedTuple):
    """A colour scale's range for a matrix with a few extreme entries: ``low``..``high`` hold
    all but ``beyond`` of its ``total`` entries, which take the end colours."""

    low: float
    high: float
    beyond: int
    total: int


def colour_range(X: Tensor, *, share: float = 0.999, symmetric: bool = False) -> ColourRange:
    """The range holding ``share`` of the entries of ``X`` (the ``(1 - share) / 2`` most extreme
    at each end left out; with ``symmetric``, the ``share`` quantile of ``|X|`` on both sides),
    so that one outlier does not wash out the rest of a picture."""
    import numpy as np

    check_tensor("X", X, floating=True)
    if X.numel() == 0:
        raise ValueError("X must be a non-empty floating-point tensor")
    share = check_float("share", share, positive=True, maximum=1.0)
    symmetric = check_bool("symmetric", symmetric)
    values = X.detach().double().flatten().cpu()
    array = values.numpy()  # numpy's quantile has no size limit (torch's stops at 2**24 entries)
    with np.errstate(invalid="ignore"):  # inf - inf between two infinite entries: NaN, as torch gives
        if symmetric:
            bound = max(float(np.quantile(np.abs(array), share)), 1e-12)
            low, high = -bound, bound
        else:
            low, high = float(np.quantile(array, (1 - share) / 2)), float(np.quantile(array, (1 + share) / 2))
            high = high if high > low else low + 1e-12
    beyond = int(((values < low) | (values > high)).sum())
    return ColourRange(low, high, beyond, values.numel())
