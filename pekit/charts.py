"""Altair chart builders: tensors and summaries in, ``alt.Chart`` out.

They never call streamlit; whether and where a chart is shown is the page's business. Each
builder first turns its input into a small long-form DataFrame (one row per mark), so what
reaches the browser is bounded by the caller's choice of sizes, never by the raw tensor.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .images import PALETTES, colorize, png_data_url
from .reduce import BlockSummary, block_summary
from .similarity import OffsetSimilarity

__all__ = [
    "to_spec",
    "heatmap_frame",
    "MAX_RECT_MARKS",
    "heatmap",
    "MAX_CURVE_POINTS",
    "column_curves",
    "offset_similarity_chart",
    "rotation_circle",
    "MAX_TOKEN_RECTS",
    "token_heatmap",
    "frequency_chart",
    "layout_comparison_chart",
    "MAX_LINE_POINTS",
    "line_chart",
]


def _texts(values, fmt: str = ".6f") -> list[str]:
    """Numbers as tooltip text. Tooltips are computed for every mark when a chart draws, and
    formatting there costs more than drawing; a text field costs one lookup."""
    return [format(float(v), fmt) for v in values]


def _tip(field: str, title: str | None = None) -> alt.Tooltip:
    return alt.Tooltip(field=field, type="nominal", title=title or field)


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


# distinct hues for series (Tableau 10), so overlaid lines stay apart in any theme
SERIES_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                 "#9c755f", "#bab0ac"]

MAX_RECT_MARKS = 2048  # above this many cells a heatmap is drawn as an image


def heatmap(
    summary: BlockSummary,
    *,
    x_title: str,
    y_title: str,
    value_title: str = "value",
    palette: str = "diverging",
    domain: Sequence[float] | None = (-1.0, 1.0),
    row_offset: int = 0,
    col_offset: int = 0,
    height: int = 360,
    max_marks: int = MAX_RECT_MARKS,
) -> alt.Chart | alt.LayerChart:
    """A matrix, rows downwards (as the book draws ``P``), columns across, axes in real rows
    and columns whatever the reduction.

    Up to ``max_marks`` cells: one rectangle per cell or block, with the exact value (or the
    block's extent, mean, minimum and maximum) on hover. Beyond that: one image pixel per
    cell or block, colour-mapped with the same stops as the legend and drawn without
    smoothing, so a browser neither slows down nor blurs or aliases it.
    """
    values = summary.mean.detach().double().cpu()
    if domain is None:
        domain = _data_domain(values)
    stops = list(PALETTES[palette])
    label = value_title if summary.exact else f"mean {value_title}"
    scale = alt.Scale(domain=list(domain), range=stops, interpolate="rgb")
    n_rows, n_cols = int(summary.row_edges[-1]), int(summary.col_edges[-1])
    x_scale = alt.Scale(domain=[col_offset, col_offset + n_cols], nice=False, zero=False)
    y_scale = alt.Scale(domain=[row_offset, row_offset + n_rows], nice=False, zero=False, reverse=True)
    x_axis, y_axis = alt.Axis(tickMinStep=1, format="d"), alt.Axis(tickMinStep=1, format="d")
    if values.numel() <= max_marks:
        frame = heatmap_frame(summary, row_offset=row_offset, col_offset=col_offset)
        frame["value text"] = _texts(frame["value"])
        tooltip = [_tip("rows", y_title), _tip("cols", x_title), _tip("value text", label)]
        if "min" in frame:
            frame["min text"], frame["max text"] = _texts(frame["min"]), _texts(frame["max"])
            tooltip += [_tip("min text", "min"), _tip("max text", "max")]
        return (
            alt.Chart(frame)
            .mark_rect()
            .encode(
                x=alt.X("col0", type="quantitative", title=x_title, scale=x_scale, axis=x_axis),
                x2=alt.X2("col1"),
                y=alt.Y("row0", type="quantitative", title=y_title, scale=y_scale, axis=y_axis),
                y2=alt.Y2("row1"),
                color=alt.Color("value", type="quantitative", title=label, scale=scale),
                tooltip=tooltip,
            )
            .properties(height=height)
        )
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
    return alt.layer(picture, _legend_layer(domain, scale, label, x=("x", col_offset), y=("y", row_offset))
                     ).properties(height=height)


def _data_domain(values: Tensor) -> tuple[float, float]:
    """The range of the finite values (``(0, 1)`` when there are none), never empty."""
    shown = values[torch.isfinite(values)]
    lo, hi = (float(shown.min()), float(shown.max())) if shown.numel() else (0.0, 1.0)
    return lo, hi if hi > lo else lo + 1.0


def _legend_layer(domain: Sequence[float], scale: alt.Scale, title: str, *, x: tuple[str, float],
                  y: tuple[str, float]) -> alt.Chart:
    """An invisible layer that carries the colour legend of an image's palette (an image mark
    has no colour channel). ``x`` and ``y`` name the image's position fields and a value in
    their domains, so the layer shares the image's scales."""
    return (
        alt.Chart(alt.InlineData(values=[{"value": v, x[0]: x[1], y[0]: y[1]} for v in domain]))
        .mark_point(opacity=0, tooltip=None)
        .encode(x=alt.X(field=x[0], type="quantitative"), y=alt.Y(field=y[0], type="quantitative"),
                color=alt.Color(field="value", type="quantitative", title=title, scale=scale))
    )


MAX_CURVE_POINTS = 960  # points over all columns; beyond, curves are drawn as per-bucket ranges


def column_curves(
    values: Tensor, columns: Sequence[int], *, start: int = 0, height: int = 260, max_points: int = MAX_CURVE_POINTS
) -> alt.Chart:
    """Columns of an encoding over positions ``start + i`` (the book's figure of columns 6-9).
    ``values``: ``(positions, len(columns))``, column ``k`` holding encoding column ``columns[k]``
    (e.g. from ``pekit.sinusoidal_columns`` or ``P[:, columns]``).

    Up to ``max_points`` values in all (positions x columns) every value is a point on a
    line. Beyond that, positions are split into equal buckets (at most
    ``max_points / len(columns)``) and each column is drawn as the band
    from its smallest to its largest value inside each bucket: a fast column fills its band,
    a slow one stays a thin line, and no oscillation is hidden by skipping positions.
    """
    columns = list(columns)
    if values.dim() != 2 or values.shape[1] != len(columns):
        raise ValueError(f"values of shape {tuple(values.shape)} must have one column per entry of columns")
    sub = values.detach().float().cpu()  # (positions, len(columns))
    n = sub.shape[0]
    names = [f"Col {c}" for c in columns]
    color = alt.Color("column", type="nominal", title="Column", sort=names, scale=alt.Scale(range=SERIES_COLORS))
    x = alt.X("position", type="quantitative", title="Row (position)")
    y_scale = alt.Scale(domain=[-1, 1])
    per_column = max(1, max_points // max(len(columns), 1))
    if n <= per_column:
        frame = pd.DataFrame(
            {
                "position": torch.arange(start, start + n).repeat(len(columns)).numpy(),
                "column": [name for name in names for _ in range(n)],
                "value": sub.T.double().flatten().numpy(),
            }
        )
        frame["value text"] = _texts(frame["value"])
        return (
            alt.Chart(frame)
            .mark_line(point=n <= 64)
            .encode(
                x=x,
                y=alt.Y("value", type="quantitative", title="P[position, column]", scale=y_scale),
                color=color,
                tooltip=[_tip("column"), alt.Tooltip("position", type="quantitative"), _tip("value text", "value")],
            )
            .properties(height=height)
        )
    summary = block_summary(sub, per_column, len(columns))  # rows bucketed, columns kept apart
    edges = summary.row_edges
    buckets = summary.mean.shape[0]
    frame = pd.DataFrame(
        {
            "position": (start + (edges[:-1] + edges[1:] - 1) / 2).double().repeat(len(columns)).numpy(),
            "first": (start + edges[:-1]).repeat(len(columns)).numpy(),
            "last": (start + edges[1:] - 1).repeat(len(columns)).numpy(),
            "column": [name for name in names for _ in range(buckets)],
            "min": summary.minimum.T.double().flatten().numpy(),
            "max": summary.maximum.T.double().flatten().numpy(),
        }
    )
    frame["positions"] = [f"{a}–{b}" for a, b in zip(frame["first"], frame["last"])]
    frame["range"] = [f"{a:.6f} to {b:.6f}" for a, b in zip(frame["min"], frame["max"])]
    return (
        alt.Chart(frame)
        .mark_area(opacity=0.55, strokeWidth=1)
        .encode(
            x=x,
            y=alt.Y("min", type="quantitative", title="P[position, column] (range per bucket)", scale=y_scale),
            y2=alt.Y2("max"),
            color=color,
            stroke=alt.Stroke("column", type="nominal", sort=names, legend=None, scale=alt.Scale(range=SERIES_COLORS)),
            tooltip=[_tip("column"), _tip("positions"), _tip("range")],
        )
        .properties(height=height)
    )


def offset_similarity_chart(sim: OffsetSimilarity, *, height: int = 260) -> alt.LayerChart:
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
    frame["mean text"] = _texts(frame["mean"])
    frame["range"] = [f"{a:.6f} to {b:.6f}" for a, b in zip(frame["min"], frame["max"])]
    base = alt.Chart(frame).encode(x=alt.X("offset", type="quantitative", title="Offset δ (positions)"))
    band = base.mark_area(opacity=0.3).encode(y=alt.Y("min", type="quantitative", title="P[i] · P[i+δ]"), y2=alt.Y2("max"))
    line = base.mark_line().encode(
        y=alt.Y("mean", type="quantitative"),
        tooltip=[alt.Tooltip("offset", type="quantitative"), _tip("mean text", "mean"), _tip("range"),
                 alt.Tooltip("starts", type="quantitative", title="starts measured")],
    )
    return (band + line).properties(height=height)


MAX_LINE_POINTS = 600  # points over all series of a line chart; beyond, series become range bands


def line_chart(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    series_title: str | None = None,
    log_y: bool = False,
    log_x: bool = False,
    step: bool = False,
    points: bool = False,
    y_domain: Sequence[float] | None = None,
    height: int = 260,
    max_points: int = MAX_LINE_POINTS,
    marks: dict[str, float] | None = None,
) -> alt.Chart | alt.LayerChart:
    """Lines of ``y`` against ``x`` from a long-form frame, one per value of ``series``;
    ``step`` draws square waves (values held until the next x), ``log_y`` a log axis.

    With more than ``max_points`` rows in all, each series is cut into equal runs of
    consecutive rows (in x order) and drawn as the band from the run's smallest to largest
    ``y``: nothing is skipped, and a flat series still reads as a line. ``marks`` draws a
    labelled vertical rule at each given x (e.g. crossover points).
    """
    chart = _lines(frame, x=x, y=y, series=series, x_title=x_title, y_title=y_title, series_title=series_title,
                   log_y=log_y, log_x=log_x, step=step, points=points, y_domain=y_domain, height=height,
                   max_points=max_points)
    if not marks:
        return chart
    rules = pd.DataFrame({x: list(marks.values()), "mark": list(marks.keys())})
    x_scale = alt.Scale(type="log") if log_x else alt.Scale()
    rule = alt.Chart(rules).mark_rule(strokeDash=[4, 3], color="#76706f").encode(
        x=alt.X(x, type="quantitative", scale=x_scale), tooltip=[_tip("mark")])
    text = alt.Chart(rules).mark_text(align="left", dx=4, dy=8, baseline="top", color="#76706f").encode(
        x=alt.X(x, type="quantitative", scale=x_scale), y=alt.value(0), text=alt.Text("mark", type="nominal"))
    return alt.layer(chart, rule, text)


def _lines(frame, *, x, y, series, x_title, y_title, series_title, log_y, log_x, step, points, y_domain,
           height, max_points):
    names = list(dict.fromkeys(frame[series])) if series else [None]
    scale = alt.Scale(type="log") if log_y else alt.Scale(domain=list(y_domain)) if y_domain else alt.Scale()
    x_enc = alt.X(x, type="quantitative", title=x_title or x, scale=alt.Scale(type="log") if log_x else alt.Scale())
    color = (
        {"color": alt.Color(series, type="nominal", title=series_title or series, sort=names,
                            scale=alt.Scale(range=SERIES_COLORS),
                            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400))}
        if series else {}
    )
    if len(frame) <= max_points:
        frame = frame.copy()
        frame["y text"] = _texts(frame[y], ".6g")
        tooltip = ([_tip(series, series_title or series)] if series else []) + [
            alt.Tooltip(x, type="quantitative", title=x_title or x), _tip("y text", y_title or y)]
        mark = alt.Chart(frame).mark_line(point=points, interpolate="step-after" if step else "linear")
        return mark.encode(x=x_enc, y=alt.Y(y, type="quantitative", title=y_title or y, scale=scale),
                           tooltip=tooltip, **color).properties(height=height)
    per_series = max(1, max_points // len(names))
    parts = []
    for name in names:
        part = frame[frame[series] == name] if series else frame
        part = part.sort_values(x)
        values = torch.tensor(part[[x, y]].to_numpy(dtype="float64"))  # (rows, 2)
        summary = block_summary(values, per_series, 2)
        parts.append(pd.DataFrame({
            x: summary.mean[:, 0].numpy(),
            "first": values[summary.row_edges[:-1], 0].numpy(),
            "last": values[summary.row_edges[1:] - 1, 0].numpy(),
            "low": summary.minimum[:, 1].numpy(),
            "high": summary.maximum[:, 1].numpy(),
            **({series: name} if series else {}),
        }))
    bands = pd.concat(parts, ignore_index=True)
    bands["range"] = [f"{a:.6g} to {b:.6g}" for a, b in zip(bands["low"], bands["high"])]
    bands["span"] = [f"{a:g} to {b:g}" for a, b in zip(bands["first"], bands["last"])]
    tooltip = ([_tip(series, series_title or series)] if series else []) + [_tip("span", x_title or x),
                                                                            _tip("range", y_title or y)]
    stroke = ({"stroke": alt.Stroke(series, type="nominal", sort=names, legend=None,
                                    scale=alt.Scale(range=SERIES_COLORS))} if series else {})
    return (
        alt.Chart(bands)
        .mark_area(opacity=0.5, strokeWidth=1)
        .encode(x=x_enc, y=alt.Y("low", type="quantitative", title=f"{y_title or y} (range per run)", scale=scale),
                y2=alt.Y2("high"), tooltip=tooltip, **color, **stroke)
        .properties(height=height)
    )


def frequency_chart(frame: pd.DataFrame, *, y: str = "wavelength", height: int = 260) -> alt.Chart:
    """Per-pair wavelength (or frequency) on a log scale; ``frame`` is long-form with columns
    ``pair``, ``layout`` and ``y``."""
    title = {"wavelength": "Wavelength 2π/ω (positions)", "omega": "Frequency ω (radians per position)"}.get(y, y)
    return line_chart(frame, x="pair", y=y, series="layout", x_title="Pair index j", y_title=title,
                      series_title="Layout", log_y=True, points=True, height=height)


def rotation_circle(start: Tensor, end: Tensor, positions: Sequence[int], *, delta: int, height: int = 380) -> alt.LayerChart:
    """One sine/cosine pair as points on the unit circle: ``start`` (``(count, 2)``) holds
    ``(sin, cos)`` at the given positions, ``end`` the same pair ``delta`` positions later; an
    arrow joins each point to where the shift takes it."""
    s, e = start.detach().double().cpu(), end.detach().double().cpu()
    pos = list(positions)
    points = pd.DataFrame({"sin": s[:, 0].numpy(), "cos": s[:, 1].numpy(), "position": pos,
                           "label": [str(p) for p in pos]})
    arrows = pd.DataFrame({"x": s[:, 0].numpy(), "y": s[:, 1].numpy(), "x2": e[:, 0].numpy(), "y2": e[:, 1].numpy(),
                           "move": [f"{p} → {p + delta}" for p in pos]})
    angle = torch.linspace(0, 2 * math.pi, 181, dtype=torch.float64)
    circle = pd.DataFrame({"sin": torch.sin(angle).numpy(), "cos": torch.cos(angle).numpy(), "order": range(181)})
    axis = alt.Scale(domain=[-1.15, 1.15])
    x = alt.X("sin", type="quantitative", title="P[i, 2j] = sin(iω_j)", scale=axis)
    y = alt.Y("cos", type="quantitative", title="P[i, 2j+1] = cos(iω_j)", scale=axis)
    ring = alt.Chart(circle).mark_line(color="#bab0ac").encode(x=x, y=y, order=alt.Order("order", type="quantitative"))
    shift = alt.Chart(arrows).mark_rule(color="#f28e2b", strokeWidth=2).encode(
        x=alt.X("x", type="quantitative", scale=axis), y=alt.Y("y", type="quantitative", scale=axis),
        x2=alt.X2("x2"), y2=alt.Y2("y2"), tooltip=[_tip("move", "shift")])
    heads = alt.Chart(arrows).mark_point(color="#f28e2b", shape="triangle", size=40, filled=True).encode(
        x=alt.X("x2", type="quantitative", scale=axis), y=alt.Y("y2", type="quantitative", scale=axis))
    dots = alt.Chart(points).mark_circle(size=70, color="#4e79a7").encode(
        x=x, y=y, tooltip=[alt.Tooltip("position", type="quantitative")])
    labels = alt.Chart(points).mark_text(dx=9, dy=-9, color="#4e79a7").encode(
        x=x, y=y, text=alt.Text("label", type="nominal"))
    return alt.layer(ring, shift, heads, dots, labels).properties(height=height, width=height)


MAX_TOKEN_RECTS = 1024  # above this many cells (32 × 32 tokens) a token map is drawn as an image


def token_heatmap(
    M: Tensor,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    x_title: str = "key",
    y_title: str = "query",
    value_title: str = "weight",
    palette: str = "sequential",
    domain: Sequence[float] | None = (0.0, 1.0),
    height: int | None = None,
    max_marks: int = MAX_TOKEN_RECTS,
) -> alt.Chart | alt.LayerChart:
    """A matrix over tokens (e.g. attention weights, ``(queries, keys)``), tokens as axis labels
    (numbered, so repeated words stay apart) and values on hover. Entries that are ``-inf`` or
    NaN (masked) read "masked" on hover.

    Up to ``max_marks`` cells: one rectangle per cell with a tooltip; masked cells are left
    blank. Beyond that (a 64-token sentence has 4096 cells): one image pixel per cell, masked
    ones grey, and a line above the map that reads out the cell under the pointer. Browsers
    draw Streamlit's charts as SVG, one element per mark, so the image keeps a long sentence
    as quick to redraw as a short one.
    """
    values = M.detach().double().cpu()
    if values.dim() != 2:
        raise ValueError(f"M must be 2-D; got shape {tuple(values.shape)}")
    rows, cols = values.shape
    if len(row_labels) != rows or len(col_labels) != cols:
        raise ValueError(f"row_labels and col_labels must match M's shape {tuple(values.shape)}; "
                         f"got {len(row_labels)} and {len(col_labels)} labels")
    ylab = [f"{i} {str(t)[:24]}" for i, t in enumerate(row_labels)]
    xlab = [f"{j} {str(t)[:24]}" for j, t in enumerate(col_labels)]
    flat = values.flatten()
    finite = torch.isfinite(flat)
    texts = [format(float(v), ".6f") if ok else "masked" for v, ok in zip(flat.tolist(), finite.tolist())]
    height = height or min(max(160, 18 * rows + 60), 640)
    if rows * cols > max_marks:
        return _token_image(values, ylab, xlab, texts, x_title=x_title, y_title=y_title, value_title=value_title,
                            palette=palette, domain=_data_domain(values) if domain is None else domain, height=height)
    frame = pd.DataFrame({
        "query": [ylab[i] for i in range(rows) for _ in range(cols)],
        "key": [xlab[j] for _ in range(rows) for j in range(cols)],
        "value": torch.where(finite, flat, torch.full_like(flat, float("nan"))).numpy(),
        "value text": texts,
    })
    # domain None: the browser takes the range of the finite values, so two maps of one size
    # differ only in their data (see to_spec)
    scale = alt.Scale(range=list(PALETTES[palette]), interpolate="rgb", zero=False, nice=False,
                      **({} if domain is None else {"domain": list(domain)}))
    return (
        alt.Chart(frame)
        .mark_rect()
        .encode(
            # sort=None: the axes keep the order in which the frame lists the tokens (a list of
            # labels would cost an expression per cell when the browser draws)
            x=alt.X(field="key", type="ordinal", sort=None, title=x_title, axis=alt.Axis(labelAngle=-50, labelLimit=120)),
            y=alt.Y(field="query", type="ordinal", sort=None, title=y_title, axis=alt.Axis(labelLimit=120)),
            color=alt.Color(field="value", type="quantitative", title=value_title, scale=scale),
            tooltip=[_tip("query", y_title), _tip("key", x_title), _tip("value text", value_title)],
        )
        .properties(height=height)
    )


# Names of the parameters the image form of token_heatmap carries to the browser.
HOVER, ROW_NAMES, COL_NAMES, CELL_TEXTS = "hover", "row_names", "col_names", "cell_texts"


def _token_image(values: Tensor, ylab: list[str], xlab: list[str], texts: list[str], *, x_title: str,
                 y_title: str, value_title: str, palette: str, domain: Sequence[float], height: int) -> alt.LayerChart:
    """``token_heatmap`` as one image, with a read-out of the cell under the pointer.

    The pointer is followed by an interval selection that restarts on every move, so it is
    always one pixel wide: its pixel signals ``hover_x``/``hover_y`` hold the pointer's position,
    which the read-out turns back into a cell with ``invert``. Labels and values travel as
    parameters (data, never code), so any text a user typed stays text."""
    rows, cols = values.shape
    url = png_data_url(colorize(torch.where(torch.isfinite(values), values, torch.full_like(values, float("nan"))),
                                vmin=domain[0], vmax=domain[1], palette=palette))
    x_scale = alt.Scale(domain=[0, cols], nice=False, zero=False)
    y_scale = alt.Scale(domain=[0, rows], nice=False, zero=False, reverse=True)
    # one tick in the middle of every row and column; labels looked up by their number
    x_axis = alt.Axis(values=alt.ExprRef(f"sequence(0.5, {cols})"), labelExpr=f"{COL_NAMES}[floor(datum.value)]",
                      labelAngle=-90, labelLimit=120, labelFontSize=10, labelOverlap="greedy", grid=False, ticks=False)
    y_axis = alt.Axis(values=alt.ExprRef(f"sequence(0.5, {rows})"), labelExpr=f"{ROW_NAMES}[floor(datum.value)]",
                      labelLimit=120, labelFontSize=10, labelOverlap="greedy", grid=False, ticks=False)
    hover = alt.selection_interval(name=HOVER, encodings=["x", "y"], on="[pointermove, pointerout] > pointermove",
                                   clear="pointerout", translate=False, zoom=False,
                                   mark=alt.BrushConfig(fillOpacity=0, strokeOpacity=0))
    picture = (
        alt.Chart(alt.InlineData(values=[{"url": url, "k0": 0, "k1": cols, "q0": 0, "q1": rows}]))
        .mark_image(aspect=False, smooth=False, tooltip=None)
        .encode(x=alt.X(field="k0", type="quantitative", title=x_title, scale=x_scale, axis=x_axis),
                x2=alt.X2(field="k1"),
                y=alt.Y(field="q0", type="quantitative", title=y_title, scale=y_scale, axis=y_axis),
                y2=alt.Y2(field="q1"), url=alt.Url(field="url", type="nominal"))
        .add_params(hover)
    )
    on = f"length({HOVER}_x) == 2 && length({HOVER}_y) == 2 && {HOVER}_x[1] + {HOVER}_y[1] > 0"
    k = f"clamp(floor(invert('x', {HOVER}_x[1])), 0, {cols - 1})"
    q = f"clamp(floor(invert('y', {HOVER}_y[1])), 0, {rows - 1})"
    # the values as one string of fixed-width fields: a list of 4096 strings would cost Altair
    # about 0.2 s to copy and convert, element by element
    width = max(len(t) for t in texts)
    packed = "".join(t.ljust(width) for t in texts)
    cell = f"({q} * {cols} + {k})"
    say = json.dumps  # a string literal in a Vega expression
    readout = (f"{on} ? {say(y_title + ' ')} + {ROW_NAMES}[{q}] + {say('  →  ' + x_title + ' ')} + {COL_NAMES}[{k}] + "
               f"{say(':  ' + value_title + ' ')} + trim(substring({CELL_TEXTS}, {cell} * {width}, {cell} * {width} + {width})) "
               f": {say(f'Point at a cell to read its {value_title}.')}")
    one = alt.InlineData(values=[{}])  # one mark, placed by expressions
    line = (
        alt.Chart(one)
        .mark_text(align="left", baseline="bottom", dy=-6, fontSize=13, tooltip=None, text=alt.ExprRef(readout))
        .encode(alt.XValue(0), alt.YValue(0))
    )
    outline = (
        alt.Chart(one)
        .mark_rect(filled=False, stroke="#111111", strokeWidth=1.5, tooltip=None,
                   opacity=alt.ExprRef(f"{on} ? 1 : 0"))
        .encode(alt.XValue(alt.ExprRef(f"scale('x', {k})")), alt.X2Value(alt.ExprRef(f"scale('x', {k} + 1)")),
                alt.YValue(alt.ExprRef(f"scale('y', {q})")), alt.Y2Value(alt.ExprRef(f"scale('y', {q} + 1)")))
    )
    scale = alt.Scale(domain=list(domain), range=list(PALETTES[palette]), interpolate="rgb")
    legend = _legend_layer(domain, scale, value_title, x=("k0", 0), y=("q0", 0))
    params = [alt.VariableParameter(name=ROW_NAMES, value=ylab), alt.VariableParameter(name=COL_NAMES, value=xlab),
              alt.VariableParameter(name=CELL_TEXTS, value=packed)]
    return alt.LayerChart(layer=[picture, outline, line, legend], params=params, height=height)


def layout_comparison_chart(table: pd.DataFrame, *, height: int = 260) -> alt.Chart:
    """Wavelengths of both layouts per pair, from ``pekit.compare_layouts``'s table."""
    long = pd.concat(
        [pd.DataFrame({"pair": table["pair"], "layout": layout, "wavelength": table[f"wavelength {layout}"],
                       "omega": table[f"omega {layout}"]}) for layout in ("interleaved", "tensor2tensor")],
        ignore_index=True,
    )
    return frequency_chart(long, height=height)


def to_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega-Lite dict with its data inline, skipping Altair's JSON-schema
    validation (the tests validate every builder's output; a page need not pay for it on
    every rerun). Sizes are bounded by the builders, so Altair's 5000-row guard is lifted.

    A chart drawn from one table gets it as top-level ``data.values``: Streamlit then sends the
    table beside a spec that does not mention it, and when only the numbers change between
    two reruns, the browser swaps the data in the chart it has instead of building it anew."""
    with alt.data_transformers.enable("default", max_rows=None):
        spec = chart.to_dict(validate=False)
    datasets, data = spec.get("datasets", {}), spec.get("data", {})
    if len(datasets) == 1 and set(data) == {"name"} and data["name"] in datasets:
        spec["data"] = {"values": datasets.pop(data["name"])}
        del spec["datasets"]
    return spec
