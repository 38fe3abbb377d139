"""Token maps: a matrix over the tokens of a sentence (attention weights, scores, masks), one
square cell per query-key pair with the tokens as row and column labels.

Up to 32 × 32 tokens each cell is a rectangle with its value on hover; beyond that the map is
one image inside the same axes, and hovering reads the cell's tokens and value from parameters
of the chart (no mark per cell).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .._checks import check_bool, check_int, check_range, check_str, check_tensor
from ._common import Drawing, Drawn, data_domain, legend_layer, tip, unchecked
from ._png import PALETTES, check_palette, colorize, png_data_url
from ._wording import _, local_number, wording
from .matrices import _masked, _valid_or_grey, centred_domain, masked_legend, signed

__all__ = ["token_heatmap"]


MAX_TOKEN_RECTS = 1024  # above this many cells (32 × 32 tokens) a token map is drawn as an image
TOKEN_SCALES = ("fixed", "max", "row")


def token_cell(count: int) -> int:
    """Pixels per cell of a token map with ``count`` tokens a side: square cells, tall enough
    for a 12-px label on every row (16 px), larger for short sentences (at most 32 px)."""
    return max(16, min(32, 480 // max(count, 1)))


def _token_domain(values: Tensor, scale: str, domain: Sequence[float] | str | None) -> tuple[float, float]:
    finite = values[torch.isfinite(values)]
    if domain == "symmetric":
        bound = float(finite.abs().max()) if finite.numel() else 1.0
        return -max(bound, 1e-9), max(bound, 1e-9)
    if domain is not None:
        return float(domain[0]), float(domain[1])
    if scale == "fixed":
        return 0.0, 1.0
    if scale == "max" or scale == "row":
        top = float(finite.max()) if finite.numel() else 1.0
        return 0.0, top if top > 0 else 1.0
    return data_domain(values)


@unchecked
def token_heatmap(
    M: Tensor,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    x_title: str | None = None,
    y_title: str | None = None,
    value_title: str | None = None,
    palette: str = "sequential",
    scale: str = "fixed",
    domain: Sequence[float] | str | None = None,
    cell: int | None = None,
    title: str | None = None,
    compact: bool = False,
    max_marks: int = MAX_TOKEN_RECTS,
    legend: str = "bottom",
) -> Drawn:
    """A matrix over tokens (e.g. attention weights, ``(queries, keys)``) with square cells and
    every token as an axis label (numbered, so repeated words stay apart), values on hover.
    Entries that are ``-inf`` or NaN (masked) are drawn grey, read "masked" on hover and have a
    "masked" legend entry. Values of both signs get the diverging palette over a range symmetric
    about 0 unless ``domain`` is given.

    Colours: ``scale="fixed"`` maps 0..1 (weights); ``"max"`` maps 0 to the map's largest value
    (an untrained layer's weights of about 1/n become visible); ``"row"`` colours each row by its
    share of that row's largest value (the tooltip still gives the weight). ``domain`` overrides
    the colour range: two numbers, ``"symmetric"`` (``-m .. m``, for scores) or None.
    ``compact=True`` draws a small multiple: no axis labels or legend, small cells, a title.
    ``legend``: the colour bar ``"bottom"`` (under the key labels) or ``"right"`` (beside the
    map: a shorter chart, for a map that must fit a screen's height).

    Up to ``max_marks`` cells: one rectangle per cell with a tooltip. Beyond that (a 64-token
    sentence has 4096 cells): one image pixel per cell and a title line that reads out the cell
    under the pointer; browsers draw Streamlit's charts as SVG, one element per mark, so the
    image keeps a long sentence as quick to redraw as a short one.
    """
    check_palette(palette)
    if scale not in TOKEN_SCALES:
        raise ValueError(f"scale={scale!r} must be one of {TOKEN_SCALES}")
    if not isinstance(M, Tensor) or M.dim() != 2:
        raise ValueError(f"M must be a 2-D tensor; got {tuple(M.shape) if isinstance(M, Tensor) else type(M).__name__}")
    check_tensor("M", M)
    for name, labels in (("row_labels", row_labels), ("col_labels", col_labels)):
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
            raise ValueError(f"{name} must be a list of labels, one per row or column of M; got a {type(labels).__name__}")
    # the default titles, in the caller's language
    x_title = _("key") if x_title is None else x_title
    y_title = _("query") if y_title is None else y_title
    value_title = _("weight") if value_title is None else value_title
    for name, text in (("x_title", x_title), ("y_title", y_title), ("value_title", value_title)):
        check_str(name, text)
    if domain is not None and not (isinstance(domain, str) and domain == "symmetric"):
        domain = check_range("domain", domain)
    cell = None if cell is None else check_int("cell", cell, minimum=2, maximum=64)
    check_str("title", title, optional=True)
    compact = check_bool("compact", compact)
    max_marks = check_int("max_marks", max_marks, minimum=0)
    if legend not in TOKEN_LEGENDS:
        raise ValueError(f"legend={legend!r} must be one of {tuple(TOKEN_LEGENDS)}")
    bar = TOKEN_LEGENDS[legend]
    values = M.detach().double().cpu()
    rows, cols = values.shape
    if len(row_labels) != rows or len(col_labels) != cols:
        raise ValueError(f"row_labels and col_labels must match M's shape {tuple(values.shape)}; "
                         f"got {len(row_labels)} and {len(col_labels)} labels")
    if rows == 0 or cols == 0:
        raise ValueError("M must have at least one row and one column")
    ylab = [f"{i} {str(t)[:20]}" for i, t in enumerate(row_labels)]
    xlab = [f"{j} {str(t)[:20]}" for j, t in enumerate(col_labels)]
    finite = torch.isfinite(values)
    shown = values
    legend_title = value_title
    if scale == "row":  # each row as a share of its largest finite value
        top = torch.where(finite, values, torch.zeros_like(values)).amax(dim=1, keepdim=True).clamp(min=1e-300)
        shown = values / top
        legend_title = _("{value} ÷ row maximum").format(value=value_title)
    if domain is None and signed(shown):
        palette = "diverging"  # values of both signs: a diverging palette, 0 at its neutral middle
    if domain is None and palette == "diverging":
        domain = "symmetric"  # a diverging palette keeps its neutral middle at 0
    lo, hi = centred_domain(_token_domain(shown, scale, domain), palette)
    any_masked = not bool(finite.all())
    flat, flat_shown, ok = values.flatten(), shown.flatten(), finite.flatten()
    masked_text, local = _masked(), wording()
    cell_texts = [local.number(format(float(v), ".6f")) if good else masked_text for v, good in zip(flat.tolist(), ok.tolist())]
    size = cell or (max(4, min(12, 160 // max(rows, cols))) if compact else token_cell(max(rows, cols)))
    # shown at its own width (square cells) where the page has room, narrower where it has not
    # (a phone): the height keeps a row per token, and the key labels thin out only then
    preferred = cols * size + (40 if compact else TOKEN_MARGIN + (80 if legend == "right" else 0))
    if rows * cols > max_marks and compact:  # a small multiple of a long sentence: one small picture
        picture = png_data_url(colorize(torch.where(finite, shown, torch.full_like(shown, float("nan"))), vmin=lo,
                                        vmax=hi, palette=palette))
        chart = (
            alt.Chart(alt.InlineData(values=[{"url": picture, "k0": 0, "k1": cols, "q0": 0, "q1": rows,
                                              "colours": _colour_note(legend_title, lo, hi, palette)}]))
            .mark_image(aspect=False, smooth=False)
            .encode(tooltip=[tip("colours", _("colours"))],
                    x=alt.X(field="k0", type="quantitative", axis=None,
                            scale=alt.Scale(domain=[0, cols], nice=False, zero=False)), x2=alt.X2(field="k1"),
                    y=alt.Y(field="q0", type="quantitative", axis=None,
                            scale=alt.Scale(domain=[0, rows], nice=False, zero=False, reverse=True)),
                    y2=alt.Y2(field="q1"), url=alt.Url(field="url", type="nominal"))
            .properties(height=rows * size, width=cols * size)
        )
        if title:
            chart = chart.properties(title=title)
        return Drawn(chart, Drawing("image", (rows, cols), (rows, cols), (1, 1), hover=False))
    if rows * cols > max_marks:
        chart = _token_image(torch.where(finite, shown, torch.full_like(shown, float("nan"))), ylab, xlab, cell_texts,
                             x_title=x_title, y_title=y_title, value_title=value_title, legend_title=legend_title,
                             palette=palette, domain=(lo, hi), cell=size, title=title, legend=bar)
        return Drawn(chart.properties(usermeta={"width": preferred}),
                     Drawing("image", (rows, cols), (rows, cols), (1, 1), hover=True))
    frame = pd.DataFrame({
        "query": [ylab[i] for i in range(rows) for _ in range(cols)],
        "key": [xlab[j] for _ in range(rows) for j in range(cols)],
        # a masked cell keeps a number the chart engine draws (it skips NaN), coloured grey by its flag
        "value": torch.where(ok, flat_shown, torch.full_like(flat_shown, lo)).numpy(),
        "value text": cell_texts,
        "masked": (~ok).numpy(),
    })
    color_scale = alt.Scale(range=list(PALETTES[palette]), interpolate="rgb", domain=[lo, hi], zero=False, nice=False,
                            clamp=True)
    # sort=None: the axes keep the order in which the frame lists the tokens (a list of labels
    # would cost an expression per cell when the browser draws)
    x = alt.X(field="key", type="ordinal", sort=None, title=None if compact else x_title,
              axis=None if compact else alt.Axis(labelAngle=-90, labelLimit=TOKEN_LABEL_LIMIT, labelOverlap="greedy"))
    y = alt.Y(field="query", type="ordinal", sort=None, title=None if compact else y_title,
              axis=None if compact else alt.Axis(labelLimit=TOKEN_LABEL_LIMIT, labelOverlap=False))
    tooltip = [tip("query", y_title), tip("key", x_title), tip("value text", value_title)]
    cells = alt.Chart(frame).mark_rect().encode(
        x=x, y=y, tooltip=tooltip,
        color=_valid_or_grey(legend_title, color_scale, None if compact else bar))
    if any_masked and not compact:  # the grey's legend entry: under a colour bar beside the map, else above the map
        cells = alt.layer(cells, masked_legend(TOKEN_MASKED_LEGENDS[legend]))
    if compact:  # a fixed small square: several of them sit side by side
        chart = cells.properties(height=rows * size, width=cols * size)
    else:
        chart = cells.properties(height=rows * size, usermeta={"width": preferred})
    if title:
        chart = chart.properties(title=title)
    return Drawn(chart, Drawing("marks", (rows, cols), (rows, cols), (1, 1), hover=True))


def _colour_note(title: str, lo: float, hi: float, palette: str) -> str:
    """What the colours of a small map without a legend stand for (its tooltip)."""
    low, high = local_number(f"{lo:.3g}").replace("-", "−"), local_number(f"{hi:.3g}").replace("-", "−")
    if palette == "diverging":
        return _("{title}: dark blue {low} to dark red {high}, white 0; grey masked. Enlarge it for each value.").format(
            title=title, low=low, high=high)
    return _("{title}: dark purple {low} to yellow {high}; grey masked. Enlarge it for each value.").format(
        title=title, low=low, high=high)


TOKEN_LABEL_LIMIT = 110  # px of a token label before it is cut with an ellipsis
TOKEN_MARGIN = TOKEN_LABEL_LIMIT + 60  # px beside the map: labels and the axis title
TOKEN_LEGEND = alt.Legend(orient="bottom", direction="horizontal", gradientLength=200)
TOKEN_LEGENDS = {"bottom": TOKEN_LEGEND, "right": alt.Legend(orient="right", direction="vertical", gradientLength=120)}
TOKEN_MASKED_LEGENDS = {side: alt.Legend(orient=orient, symbolOpacity=1, symbolType="square", symbolStrokeWidth=0)
                        for side, orient in (("bottom", "top"), ("right", "right"))}

# Names of the parameters the image form of token_heatmap carries to the browser.
HOVER, ROW_NAMES, COL_NAMES, CELL_TEXTS = "hover", "row_names", "col_names", "cell_texts"


def _token_image(values: Tensor, ylab: list[str], xlab: list[str], cell_texts: list[str], *, x_title: str,
                 y_title: str, value_title: str, legend_title: str, palette: str, domain: Sequence[float], cell: int,
                 title: str | None, legend: alt.Legend = TOKEN_LEGEND) -> alt.LayerChart:
    """``token_heatmap`` as one image, with a read-out of the cell under the pointer.

    The pointer is followed by an interval selection that restarts on every move, so it is
    always one pixel wide: its pixel signals ``hover_x``/``hover_y`` hold the pointer's position,
    which the read-out turns back into a cell with ``invert``. Labels and values travel as
    parameters (data, never code), so any text a user typed stays text."""
    rows, cols = values.shape
    url = png_data_url(colorize(values, vmin=domain[0], vmax=domain[1], palette=palette))
    x_scale = alt.Scale(domain=[0, cols], nice=False, zero=False)
    y_scale = alt.Scale(domain=[0, rows], nice=False, zero=False, reverse=True)
    # one tick in the middle of every row and column; labels looked up by their number
    x_axis = alt.Axis(values=[j + 0.5 for j in range(cols)], tickCount=cols, labelExpr=f"{COL_NAMES}[floor(datum.value)]",
                      labelAngle=-90, labelLimit=TOKEN_LABEL_LIMIT, labelOverlap="greedy", grid=False, ticks=False)
    y_axis = alt.Axis(values=[i + 0.5 for i in range(rows)], tickCount=rows, labelExpr=f"{ROW_NAMES}[floor(datum.value)]",
                      labelLimit=TOKEN_LABEL_LIMIT, labelOverlap=False, grid=False, ticks=False)
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
    width = max(len(t) for t in cell_texts)
    packed = "".join(t.ljust(width) for t in cell_texts)
    at = f"({q} * {cols} + {k})"
    say = json.dumps  # a string literal in a Vega expression
    readout = (f"{on} ? {say(y_title + ' ')} + {ROW_NAMES}[{q}] + {say('  →  ' + x_title + ' ')} + {COL_NAMES}[{k}] + "
               f"{say(':  ' + value_title + ' ')} + trim(substring({CELL_TEXTS}, {at} * {width}, {at} * {width} + {width})) "
               f": {say(_('Point at a cell to read its {value}.').format(value=value_title))}")
    one = alt.InlineData(values=[{}])  # one mark, placed by expressions
    outline = (
        alt.Chart(one)
        .mark_rect(filled=False, stroke="#111111", strokeWidth=1.5, tooltip=None,
                   opacity=alt.ExprRef(f"{on} ? 1 : 0"))
        .encode(alt.XValue(alt.ExprRef(f"scale('x', {k})")), alt.X2Value(alt.ExprRef(f"scale('x', {k} + 1)")),
                alt.YValue(alt.ExprRef(f"scale('y', {q})")), alt.Y2Value(alt.ExprRef(f"scale('y', {q} + 1)")))
    )
    scale = alt.Scale(domain=list(domain), range=list(PALETTES[palette]), interpolate="rgb")
    bar = legend_layer(domain, scale, legend_title, x=("k0", 0), y=("q0", 0), legend=legend)
    masked = bool(values.isnan().any())
    side = "right" if legend.orient == "right" else "bottom"
    layers = [picture, outline, bar] + ([masked_legend(TOKEN_MASKED_LEGENDS[side])] if masked else [])
    params = [alt.VariableParameter(name=ROW_NAMES, value=ylab), alt.VariableParameter(name=COL_NAMES, value=xlab),
              alt.VariableParameter(name=CELL_TEXTS, value=packed)]
    # the read-out is the chart's title: Vega keeps room for it above the map
    if title:
        readout = f"{json.dumps(title + ': ')} + ({readout})"
    heading = alt.TitleParams(text=alt.ExprRef(readout), anchor="start", fontSize=13, fontWeight="normal",
                              color="#31333f")
    return alt.LayerChart(layer=layers, params=params, height=rows * cell, title=heading)
