"""Altair chart builders: tensors and summaries in, ``alt.Chart`` out.

They never call streamlit; whether and where a chart is shown is the page's business. Each
builder first turns its input into a small long-form DataFrame (one row per mark), so what
reaches the browser is bounded by the caller's choice of sizes, never by the raw tensor.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .reduce import BlockSummary
from .similarity import OffsetSimilarity

__all__ = [
    "heatmap_frame",
    "heatmap",
    "column_curves",
    "offset_similarity_chart",
    "frequency_chart",
]


def _span(lo: int, hi: int) -> str:
    return str(lo) if hi - lo == 1 else f"{lo}–{hi - 1}"


def heatmap_frame(summary: BlockSummary, *, row_offset: int = 0, col_offset: int = 0) -> pd.DataFrame:
    """One row per block: its extent (``row0, row1, col0, col1``, half-open), labels, the mean
    and, when known, the block's minimum and maximum. Offsets shift the row/column numbers
    (e.g. to label rows by position when the table starts at 1)."""
    R, C = summary.mean.shape
    re = summary.row_edges.tolist()
    ce = summary.col_edges.tolist()
    row0 = torch.tensor(re[:-1]).repeat_interleave(C)
    col0 = torch.tensor(ce[:-1]).repeat(R)
    row1 = torch.tensor(re[1:]).repeat_interleave(C)
    col1 = torch.tensor(ce[1:]).repeat(R)
    frame = pd.DataFrame(
        {
            "row0": (row0 + row_offset).numpy(),
            "row1": (row1 + row_offset).numpy(),
            "col0": (col0 + col_offset).numpy(),
            "col1": (col1 + col_offset).numpy(),
            "value": summary.mean.detach().double().cpu().flatten().numpy(),
        }
    )
    row_labels = [_span(a + row_offset, b + row_offset) for a, b in zip(re[:-1], re[1:])]
    col_labels = [_span(a + col_offset, b + col_offset) for a, b in zip(ce[:-1], ce[1:])]
    frame["rows"] = [row_labels[r] for r in range(R) for _ in range(C)]
    frame["cols"] = [col_labels[c] for _ in range(R) for c in range(C)]
    if summary.minimum is not None and not summary.exact:
        frame["min"] = summary.minimum.detach().double().cpu().flatten().numpy()
        frame["max"] = summary.maximum.detach().double().cpu().flatten().numpy()
    return frame


def heatmap(
    summary: BlockSummary,
    *,
    x_title: str,
    y_title: str,
    value_title: str = "value",
    scheme: str = "blueorange",
    domain: Sequence[float] | None = (-1.0, 1.0),
    row_offset: int = 0,
    col_offset: int = 0,
    height: int = 360,
) -> alt.Chart:
    """A matrix as rectangles, rows downwards (as the book draws ``P``), columns across.

    Each rectangle spans its block's real rows and columns, so the axes always read in
    positions and dimensions; a reduced summary is drawn honestly as block means with the
    block's extent, mean, minimum and maximum on hover. An exact summary shows exact values.
    """
    frame = heatmap_frame(summary, row_offset=row_offset, col_offset=col_offset)
    scale = alt.Scale(scheme=scheme, domain=list(domain)) if domain is not None else alt.Scale(scheme=scheme)
    label = value_title if summary.exact else f"mean {value_title}"
    tooltip = [alt.Tooltip("rows:N", title=y_title), alt.Tooltip("cols:N", title=x_title),
               alt.Tooltip("value:Q", title=label, format=".6f")]
    if "min" in frame:
        tooltip += [alt.Tooltip("min:Q", format=".6f"), alt.Tooltip("max:Q", format=".6f")]
    n_rows, n_cols = int(frame["row1"].max()), int(frame["col1"].max())
    return (
        alt.Chart(frame)
        .mark_rect()
        .encode(
            x=alt.X("col0:Q", title=x_title, scale=alt.Scale(domain=[col_offset, n_cols], nice=False)),
            x2="col1:Q",
            y=alt.Y("row0:Q", title=y_title, scale=alt.Scale(domain=[row_offset, n_rows], nice=False, reverse=True)),
            y2="row1:Q",
            color=alt.Color("value:Q", title=label, scale=scale),
            tooltip=tooltip,
        )
        .properties(height=height)
    )


def column_curves(P: Tensor, columns: Sequence[int], *, start: int = 0, height: int = 260) -> alt.Chart:
    """Chosen columns of ``P`` (``(positions, dim)``) as curves over positions ``start + i``
    (the book's figure of columns 6-9)."""
    columns = list(columns)
    values = P[:, columns].detach().double().cpu()  # (positions, len(columns))
    n = values.shape[0]
    frame = pd.DataFrame(
        {
            "position": torch.arange(start, start + n).repeat(len(columns)).numpy(),
            "column": [f"Col {c}" for c in columns for _ in range(n)],
            "value": values.T.flatten().numpy(),
        }
    )
    return (
        alt.Chart(frame)
        .mark_line(point=n <= 120)
        .encode(
            x=alt.X("position:Q", title="Row (position)"),
            y=alt.Y("value:Q", title="P[position, column]", scale=alt.Scale(domain=[-1, 1])),
            color=alt.Color("column:N", title="Column", sort=[f"Col {c}" for c in columns]),
            tooltip=["column:N", "position:Q", alt.Tooltip("value:Q", format=".6f")],
        )
        .properties(height=height)
    )


def offset_similarity_chart(sim: OffsetSimilarity, *, height: int = 260) -> alt.Chart:
    """Mean of ``P[i]·P[i+δ]`` over the measured starts against ``δ``, with the band from the
    smallest to the largest value seen (a flat band means the offset alone decides)."""
    frame = pd.DataFrame(
        {
            "offset": sim.offsets.numpy(),
            "mean": sim.mean.double().numpy(),
            "min": sim.minimum.double().numpy(),
            "max": sim.maximum.double().numpy(),
            "starts": sim.count.numpy(),
        }
    )
    base = alt.Chart(frame).encode(x=alt.X("offset:Q", title="Offset δ (positions)"))
    band = base.mark_area(opacity=0.3).encode(y=alt.Y("min:Q", title="P[i] · P[i+δ]"), y2="max:Q")
    line = base.mark_line().encode(
        y="mean:Q",
        tooltip=["offset:Q", alt.Tooltip("mean:Q", format=".6f"), alt.Tooltip("min:Q", format=".6f"),
                 alt.Tooltip("max:Q", format=".6f"), alt.Tooltip("starts:Q", title="starts measured")],
    )
    return (band + line).properties(height=height)


def frequency_chart(frame: pd.DataFrame, *, y: str = "wavelength", height: int = 260) -> alt.Chart:
    """Per-pair wavelength (or frequency) on a log scale; ``frame`` is long-form with columns
    ``pair``, ``layout`` and ``y``."""
    title = {"wavelength": "Wavelength 2π/ω (positions)", "omega": "Frequency ω (radians per position)"}.get(y, y)
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("pair:Q", title="Pair index j"),
            y=alt.Y(f"{y}:Q", title=title, scale=alt.Scale(type="log")),
            color=alt.Color("layout:N", title="Layout"),
            tooltip=["layout:N", "pair:Q", alt.Tooltip("omega:Q", format=".6g"),
                     alt.Tooltip("wavelength:Q", format=".6g")],
        )
        .properties(height=height)
    )
