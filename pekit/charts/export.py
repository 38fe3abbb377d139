"""Exports: tables as CSV text, with a labelled first column."""

from __future__ import annotations

import pandas as pd
from torch import Tensor

from .._checks import check_int, check_str, check_tensor

__all__ = ["matrix_csv"]

# about 12 MB of CSV: many attendees downloading at once stay within a hosted app's memory
MAX_CSV_CELLS = 1 << 20


def matrix_csv(X: Tensor, *, row_label: str = "position", row_start: int = 0, col_prefix: str = "col") -> str:
    """``X`` (``(rows, cols)``) as CSV: a header ``row_label, col0, col1, ...`` and one line
    per row, numbered from ``row_start``; values with 8 significant digits (float32 exact
    to print and read back within 1e-7 relative)."""
    if not isinstance(X, Tensor) or X.dim() != 2:
        raise ValueError("X must be a 2-D tensor")
    check_tensor("X", X)
    check_str("row_label", row_label)
    check_str("col_prefix", col_prefix)
    row_start = check_int("row_start", row_start, minimum=-(1 << 52), maximum=1 << 52)
    if X.numel() > MAX_CSV_CELLS:
        raise ValueError(f"X has {X.numel():,} entries; CSV export is capped at {MAX_CSV_CELLS:,}")
    frame = pd.DataFrame(X.detach().cpu().double().numpy(), columns=[f"{col_prefix}{j}" for j in range(X.shape[1])])
    frame.insert(0, row_label, range(row_start, row_start + X.shape[0]))
    return frame.to_csv(index=False, float_format="%.8g")
