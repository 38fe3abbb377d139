"""Matrices as pictures: the encoding table, similarity matrices, attention weights.

Up to a few thousand cells a matrix is one rectangle per cell with its value on hover. Beyond
that a browser slows down (Streamlit draws Vega charts as SVG, one element per mark) and would
alias the picture anyway, so the matrix becomes one image, one pixel per cell or per block
mean (:func:`pekit.reduce.block_summary`), inside the same axes; the returned
:class:`~pekit.charts.Drawing` says which.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .._checks import check_int, check_range, check_sequence, check_str, check_tensor
from ..reduce import BlockSummary, block_summary
from ._common import Drawing, Drawn, data_domain, legend_layer, texts, tip, unchecked
from ._png import PALETTES, check_palette, colorize, png_data_url
from ._wording import _
from .style import MASKED_GREY, MAX_RECT_MARKS, index_ticks

__all__ = ["heatmap"]

MAX_PIXELS = (320, 320)  # at most this many blocks (image pixels) down and across


def drawing_blocks(rows: int, cols: int, *, max_marks: int, max_pixels: tuple[int, int] = MAX_PIXELS) -> tuple[int, int]:
    """How many row and column blocks to draw a ``rows x cols`` matrix with: every cell when
    it has at most ``max_marks`` cells (one chart mark each), else at most ``max_pixels``
    blocks (one image pixel each)."""
    rows, cols = check_int("rows", rows, minimum=0), check_int("cols", cols, minimum=0)
    max_marks = check_int("max_marks", max_marks, minimum=0)
    max_pixels = _check_pixels(max_pixels)
    if rows * cols <= max_marks:
        return rows, cols
    return min(rows, max_pixels[0]), min(cols, max_pixels[1])


MAX_OFFSET = 1 << 52  # row and column numbers stay exact in a browser's float64
MAX_HEIGHT = 1 << 14  # pixels


def _check_pixels(max_pixels: object) -> tuple[int, int]:
    items = check_sequence("max_pixels", max_pixels) if not isinstance(max_pixels, (str, bytes)) else None
    if items is None or len(items) != 2:
        raise ValueError(f"max_pixels={max_pixels!r} must be two whole numbers (rows, columns)")
    return tuple(check_int("max_pixels", v, minimum=1) for v in items)  # type: ignore[return-value]


def _check_summary(name: str, summary: object) -> BlockSummary:
    """``summary`` as the :class:`BlockSummary` it must be, or ``ValueError`` naming ``name``."""
    if not isinstance(summary, BlockSummary):
        raise ValueError(f"{name} must be a BlockSummary (e.g. from pekit.reduce.block_summary); "
                         f"got a {type(summary).__name__}")
    return summary


def _span(lo: int, hi: int) -> str:
    return str(lo) if hi - lo == 1 else f"{lo}–{hi - 1}"


def heatmap_frame(summary: BlockSummary, *, row_offset: int = 0, col_offset: int = 0) -> pd.DataFrame:
    """One row per block: its extent (``row0, row1, col0, col1``, half-open), labels, the mean
    and, when known, the block's minimum and maximum. Offsets shift the row/column numbers
    (e.g. to label rows by position when the table starts at 1)."""
    _check_summary("summary", summary)
    row_offset = check_int("row_offset", row_offset, minimum=-MAX_OFFSET, maximum=MAX_OFFSET)
    col_offset = check_int("col_offset", col_offset, minimum=-MAX_OFFSET, maximum=MAX_OFFSET)
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


MASKED = "masked"  # the tooltip text and the legend entry of a cell that has no value (−∞, NaN), in English


def _masked() -> str:
    """``MASKED`` in the caller's language."""
    return _("masked")


def centred_domain(domain: Sequence[float], palette: str) -> tuple[float, float]:
    """The colour range to draw with: a diverging palette over values of both signs gets the
    symmetric range ``-m .. m`` (``m`` the larger end), so its neutral middle colour is 0."""
    lo, hi = float(domain[0]), float(domain[1])
    if palette == "diverging" and lo < 0 < hi and lo != -hi:
        bound = max(-lo, hi)
        return -bound, bound
    return lo, hi


def signed(values: Tensor) -> bool:
    """Whether the finite values have both signs (a signed map: drawn with the diverging palette)."""
    finite = values[torch.isfinite(values)]
    return bool(finite.numel()) and float(finite.min()) < 0 < float(finite.max())


def masked_legend(legend: alt.Legend | None = None) -> alt.Chart:
    """An invisible layer whose only part is a legend entry: a grey square reading "masked"."""
    return (
        alt.Chart(alt.InlineData(values=[{"cell": _masked()}]))
        .mark_square(opacity=0, tooltip=None)
        .encode(fill=alt.Fill(field="cell", type="nominal", title=None,
                              scale=alt.Scale(domain=[_masked()], range=[MASKED_GREY]),
                              legend=legend or alt.Legend(symbolOpacity=1, symbolType="square",
                                                          symbolStrokeWidth=0)))
    )


def index_axis(offset: int, count: int, **kwargs) -> alt.Axis:
    """An axis over cells ``offset ..`` whose ticks sit on cell centres, labelled by index."""
    ticks = index_ticks(offset, count)
    # an explicit tickCount: Vega would otherwise thin explicit values down to its default count
    return alt.Axis(values=ticks, tickCount=len(ticks), labelExpr="format(floor(datum.value), 'd')", **kwargs)


@unchecked
def heatmap(
    data: Tensor | BlockSummary,
    *,
    x_title: str,
    y_title: str,
    value_title: str | None = None,
    palette: str = "diverging",
    domain: Sequence[float] | str | None = (-1.0, 1.0),
    row_offset: int = 0,
    col_offset: int = 0,
    height: int = 360,
    max_marks: int = MAX_RECT_MARKS,
    max_pixels: tuple[int, int] = MAX_PIXELS,
) -> Drawn:
    """A matrix, rows downwards (as the book draws ``P``), columns across, axes in real rows
    and columns whatever the reduction; ``data`` is the matrix ``(rows, cols)`` or a block
    summary of it (e.g. :func:`pekit.similarity.gram_block_means`).

    Up to ``max_marks`` cells: one rectangle per cell, with the exact value on hover. Beyond
    that: one image pixel per cell or per block mean (at most ``max_pixels`` blocks),
    colour-mapped with the same stops as the legend and drawn without smoothing, so a browser
    neither slows down nor blurs or aliases it. ``domain=None`` colours the data's own range,
    ``domain="symmetric"`` the range ``-m .. m`` with ``m`` the largest absolute value (white at 0
    in the diverging palette). Values of both signs are always drawn in the diverging palette over
    a range symmetric about 0 (with ``domain=None`` whatever ``palette`` asked; a given range
    around 0 is widened to be symmetric). Entries that are NaN or infinite (masked) are drawn,
    grey, with a "masked" legend entry and tooltip.
    """
    check_palette(palette)
    value_title = _("value") if value_title is None else value_title
    for name, text in (("x_title", x_title), ("y_title", y_title), ("value_title", value_title)):
        check_str(name, text)
    if domain is not None and not (isinstance(domain, str) and domain == "symmetric"):
        if isinstance(domain, str):
            raise ValueError(f"domain={domain!r} must be two numbers, None or 'symmetric'")
        domain = check_range("domain", domain)
    row_offset = check_int("row_offset", row_offset, minimum=-MAX_OFFSET, maximum=MAX_OFFSET)
    col_offset = check_int("col_offset", col_offset, minimum=-MAX_OFFSET, maximum=MAX_OFFSET)
    height = check_int("height", height, minimum=1, maximum=MAX_HEIGHT)
    max_marks = check_int("max_marks", max_marks, minimum=0)
    max_pixels = _check_pixels(max_pixels)
    if isinstance(data, Tensor):
        check_tensor("data", data, what="(rows, cols)")
        if data.dim() != 2 or data.numel() == 0:
            raise ValueError(f"data must be a non-empty matrix; got shape {tuple(data.shape)}")
        if data.dtype == torch.bool:
            raise ValueError("data must hold numbers; got dtype torch.bool")
        summary = block_summary(data, *drawing_blocks(*data.shape, max_marks=max_marks, max_pixels=max_pixels),
                                extremes=False)
    elif isinstance(data, BlockSummary):
        summary = _check_summary("data", data)
    else:
        raise ValueError(f"data must be a tensor or a BlockSummary; got a {type(data).__name__}")
    values = summary.mean.detach().double().cpu()
    if domain is None and signed(values):
        palette = "diverging"  # values of both signs: a diverging palette, 0 at its neutral middle
    if domain is None and palette == "diverging":
        domain = "symmetric"  # a diverging palette keeps its neutral middle at 0
    if domain is None:
        domain = data_domain(values)
    elif isinstance(domain, str):
        if domain != "symmetric":
            raise ValueError(f"domain={domain!r} must be two numbers, None or 'symmetric'")
        lo, hi = data_domain(values)
        bound = max(abs(lo), abs(hi), 1e-9)
        domain = (-bound, bound)
    domain = centred_domain(domain, palette)
    masked = ~torch.isfinite(values)
    stops = list(PALETTES[palette])
    label = value_title if summary.exact else _("mean {value}").format(value=value_title)
    scale = alt.Scale(domain=list(domain), range=stops, interpolate="rgb")
    n_rows, n_cols = int(summary.row_edges[-1]), int(summary.col_edges[-1])
    marks = values.numel() <= max_marks
    drawing = Drawing("marks" if marks else "image", (n_rows, n_cols), tuple(values.shape), summary.block_shape,
                      hover=marks and summary.exact)
    x_scale = alt.Scale(domain=[col_offset, col_offset + n_cols], nice=False, zero=False)
    y_scale = alt.Scale(domain=[row_offset, row_offset + n_rows], nice=False, zero=False, reverse=True)
    x_axis, y_axis = index_axis(col_offset, n_cols, grid=False), index_axis(row_offset, n_rows, grid=False)
    if marks:
        frame = heatmap_frame(summary, row_offset=row_offset, col_offset=col_offset)
        flat = masked.flatten().numpy()
        masked_text = _masked()
        frame["value text"] = [masked_text if m else t for m, t in zip(flat.tolist(), texts(frame["value"]))]
        # a masked cell keeps a number the chart engine draws (it skips NaN), coloured grey by its flag
        frame["value"] = frame["value"].where(~flat, float(domain[0]))
        frame["masked"] = flat
        tooltip = [tip("rows", y_title), tip("cols", x_title), tip("value text", label)]
        chart = (
            alt.Chart(frame)
            .mark_rect()
            .encode(
                x=alt.X("col0", type="quantitative", title=x_title, scale=x_scale, axis=x_axis),
                x2=alt.X2("col1"),
                y=alt.Y("row0", type="quantitative", title=y_title, scale=y_scale, axis=y_axis),
                y2=alt.Y2("row1"),
                color=_valid_or_grey(label, scale, alt.Undefined),
                tooltip=tooltip,
            )
            .properties(height=height)
        )
        if bool(masked.any()):
            chart = alt.layer(chart, masked_legend()).properties(height=height)
        return Drawn(chart, drawing)
    url = png_data_url(colorize(values, vmin=domain[0], vmax=domain[1], palette=palette))
    image = pd.DataFrame({"url": [url], "x": [col_offset], "x2": [col_offset + n_cols],
                          "y": [row_offset], "y2": [row_offset + n_rows]})
    picture = (
        alt.Chart(image)
        .mark_image(aspect=False, smooth=False)
        .encode(x=alt.X("x", type="quantitative", title=x_title, scale=x_scale, axis=x_axis), x2=alt.X2("x2"),
                y=alt.Y("y", type="quantitative", title=y_title, scale=y_scale, axis=y_axis), y2=alt.Y2("y2"),
                url=alt.Url("url", type="nominal"))
    )
    legend = legend_layer(domain, scale, label, x=("x", col_offset), y=("y", row_offset))
    parts = [picture, legend] + ([masked_legend()] if bool(masked.any()) else [])
    return Drawn(alt.layer(*parts).properties(height=height), drawing)


def _valid_or_grey(title: str, scale: alt.Scale, legend: object) -> alt.ColorValue:
    """Colour by ``value`` where the cell is not masked, grey where it is (``datum.masked``: a
    masked cell's ``value`` is a number all the same, since the chart engine skips a mark whose
    colour field is NaN). ``legend``: a legend, None for none, ``alt.Undefined`` for the default. Written as the
    typed objects ``alt.condition`` stands for: its plain dict would be checked against the
    whole Vega-Lite schema on every chart (about 50 ms a map; the tests validate the output)."""
    return alt.ColorValue(MASKED_GREY, condition=alt.ConditionalPredicateMarkPropFieldOrDatumDef(
        test="!datum.masked", field="value", type="quantitative", title=title, scale=scale, legend=legend))
