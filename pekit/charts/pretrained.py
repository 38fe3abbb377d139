"""Charts of a pretrained model: every head's attention map at once, and the learned position
table next to the sinusoidal one.

References
- Clark et al., "What Does BERT Look At?" (2019), figure 1: a grid of every layer's and
  head's attention map, small enough to see all of them at once, the layout of
  :func:`head_gallery`.
- The encoding heatmap page's similarity and neighbour-distance charts, here with one series
  per table so a learned and a fixed table can be read on the same axes.

Like every builder, these take tensors or pekit results and return :class:`~pekit.charts.Drawn`;
they never call streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd
import torch
from torch import Tensor

from .._checks import check_int, check_sequence, check_str, check_tensor
from ..similarity import OffsetSimilarity
from ._common import Drawing, Drawn, legend_layer, tip, unchecked
from ._png import PALETTES, check_palette, colorize, png_data_url
from ._wording import _, local_number
from .lines import MAX_HEIGHT, check_similarity, line_chart, similarity_bands

__all__ = ["head_gallery", "offset_similarity_comparison", "position_components_chart",
           "neighbour_distance_chart"]

PICK = "pick"  # the name of the gallery's click selection (a page reads the clicked layer and head from it)
_GAP = 0.12  # space between two tiles, in tiles
MAX_GALLERY_PIXELS = 1 << 24  # pixels of all maps together (all-MiniLM-L6-v2 at 128 pieces: 1.2 million)
MAX_SERIES_POINTS = 1 << 16  # points of all lines of one chart


def _check_height(name: str, height: object, *, rows: int = 1) -> int:
    return check_int(name, height, minimum=1, maximum=max(1, MAX_HEIGHT // rows))


def _check_count(name: str, count: int, limit: int, what: str) -> None:
    if count > limit:
        raise ValueError(f"{name} holds {count:,} values, more than the {limit:,} {what}")


def _check_named(name: str, tables: object) -> list[str]:
    """The names of a mapping ``{name: something}`` with at least one entry, each a string."""
    if not isinstance(tables, Mapping) or not tables:
        raise ValueError(f"{name} must map at least one table name to its values; got {str(tables)[:40]!r}")
    if not all(isinstance(k, str) for k in tables):
        raise ValueError(f"{name} must be keyed by table names (strings)")
    return list(tables)


@unchecked
def head_gallery(
    attentions: Tensor,
    *,
    selected: tuple[int, int] | None = None,
    notes: Sequence[Sequence[str]] | None = None,
    palette: str = "sequential",
    tile_height: int = 74,
) -> Drawn:
    """All ``(layers, num_heads, T, T)`` attention maps as a grid of small images, layers down
    and heads across, on one colour scale from 0 to 1. ``selected`` outlines one
    ``(layer, head)``; ``notes[layer][head]`` is shown on hover beside the head's name.

    A click on a map selects its ``layer`` and ``head`` (a point selection named
    :data:`PICK`), so a page can enlarge it. Each map is one image of ``T x T`` pixels drawn
    without smoothing: every weight is a pixel, nothing is averaged.
    """
    check_tensor("attentions", attentions, dims=4, what="(layers, num_heads, T, T)")
    if attentions.shape[-1] != attentions.shape[-2] or min(attentions.shape) < 1:
        raise ValueError(f"attentions must be a tensor of shape (layers, num_heads, T, T); got {tuple(attentions.shape)}")
    layers, heads, T, _keys = attentions.shape
    _check_count("attentions", layers * heads * T * T, MAX_GALLERY_PIXELS, "pixels a gallery draws")
    if notes is not None:
        rows = check_sequence("notes", notes) if not isinstance(notes, (str, bytes)) else None
        if rows is None or len(rows) != layers or not all(
                isinstance(row, (list, tuple)) and len(row) == heads and all(isinstance(n, str) for n in row)
                for row in rows):
            raise ValueError(f"notes must hold {layers} rows of {heads} texts, one per map of attentions")
    if selected is not None:
        pair = check_sequence("selected", selected) if not isinstance(selected, (str, bytes)) else None
        if pair is None or len(pair) != 2:
            raise ValueError(f"selected={str(selected)[:40]!r} must be a (layer, head) pair or None")
        selected = (check_int("selected", pair[0]), check_int("selected", pair[1]))
    check_palette(palette)
    tile_height = _check_height("tile_height", tile_height, rows=layers)
    weights = attentions.detach().float().cpu()
    # one colour lookup for all maps, then one PNG per map
    rgb = colorize(weights.reshape(layers * heads * T, T), vmin=0.0, vmax=1.0, palette=palette)
    rgb = rgb.reshape(layers, heads, T, T, 3)
    rows = []
    name = _("layer {layer}, head {head}")
    for layer in range(layers):
        for head in range(heads):
            rows.append({
                "layer": layer, "head": head, "x0": head + _GAP / 2, "x1": head + 1 - _GAP / 2,
                "y0": layer + _GAP / 2, "y1": layer + 1 - _GAP / 2, "url": png_data_url(rgb[layer, head]),
                "name": name.format(layer=layer, head=head),
                "note": notes[layer][head] if notes is not None else "",
            })
    frame = alt.InlineData(values=rows)  # long strings: plain values, not a table to convert
    x_scale = alt.Scale(domain=[0, heads], nice=False, zero=False)
    y_scale = alt.Scale(domain=[0, layers], nice=False, zero=False, reverse=True)
    x_axis = alt.Axis(values=[h + 0.5 for h in range(heads)], labelExpr="'head ' + floor(datum.value)", grid=False,
                      ticks=False, domain=False, orient="top", labelAngle=0)
    y_axis = alt.Axis(values=[layer + 0.5 for layer in range(layers)], labelExpr="'layer ' + floor(datum.value)",
                      grid=False, ticks=False, domain=False)
    pick = alt.selection_point(name=PICK, fields=["layer", "head"], on="click", toggle=False, clear=False,
                               empty=False)
    tooltip = ([tip("name", _("map")), tip("note", _("strongest pattern"))] if notes is not None
               else [tip("name", _("map"))])
    tiles = (
        alt.Chart(frame)
        .mark_image(aspect=False, smooth=False, cursor="pointer")
        .encode(x=alt.X(field="x0", type="quantitative", title=None, scale=x_scale, axis=x_axis),
                x2=alt.X2(field="x1"),
                y=alt.Y(field="y0", type="quantitative", title=None, scale=y_scale, axis=y_axis),
                y2=alt.Y2(field="y1"), url=alt.Url(field="url", type="nominal"), tooltip=tooltip)
        .add_params(pick)
    )
    parts = [tiles]
    if selected is not None:
        layer, head = selected
        if not (0 <= layer < layers and 0 <= head < heads):
            raise ValueError(f"selected={selected} is not a (layer, head) of the {layers} x {heads} maps of attentions")
        box = alt.InlineData(values=[{"x0": head + _GAP / 4, "x1": head + 1 - _GAP / 4, "y0": layer + _GAP / 4,
                                      "y1": layer + 1 - _GAP / 4}])
        parts.append(alt.Chart(box).mark_rect(filled=False, stroke="#e15759", strokeWidth=3, tooltip=None)
                     .encode(x=alt.X(field="x0", type="quantitative", scale=x_scale), x2=alt.X2(field="x1"),
                             y=alt.Y(field="y0", type="quantitative", scale=y_scale), y2=alt.Y2(field="y1")))
    scale = alt.Scale(domain=[0.0, 1.0], range=list(PALETTES[palette]), interpolate="rgb")
    parts.append(legend_layer((0.0, 1.0), scale, _("weight"), x=("x0", 0), y=("y0", 0)))
    chart = alt.layer(*parts).properties(height=tile_height * layers)
    return Drawn(chart, Drawing("image", (layers * T, heads * T), (layers * T, heads * T), (1, 1), hover=False))


@unchecked
def offset_similarity_comparison(sims: Mapping[str, OffsetSimilarity], *, y_title: str = "cos(P[i], P[i+δ])",
                                 height: int = 280) -> Drawn:
    """One line per table: the mean similarity of rows ``δ`` apart against ``δ``, inside a band
    from the smallest to the largest value over the starting rows (a band that stays a line
    means the offset alone decides)."""
    _check_named("sims", sims)
    sims = {name: check_similarity(f"sims[{name[:40]!r}]", sim) for name, sim in sims.items()}
    check_str("y_title", y_title)
    height = _check_height("height", height)
    _check_count("sims", sum(len(sim.offsets) for sim in sims.values()), MAX_SERIES_POINTS, "points a chart draws")
    return similarity_bands(sims, y_title=y_title, height=height)


@unchecked
def position_components_chart(scores: Tensor, *, explained: Tensor | None = None, height: int = 300) -> Drawn:
    """The first principal components of a position table against position: ``scores``
    ``(positions, k)`` (e.g. :func:`pekit.pretrained.position_components`), one line each,
    every position a point on its line (no thinning: a fast wave stays a wave)."""
    check_tensor("scores", scores, dims=2, floating=True, what="(positions, k)")
    n, k = scores.shape
    if n < 1 or k < 1:
        raise ValueError(f"scores must hold at least one position and one component; got {tuple(scores.shape)}")
    _check_count("scores", n * k, MAX_SERIES_POINTS, "points a chart draws")
    if explained is not None:
        check_tensor("explained", explained, dims=1, floating=True, what=f"({k},)")
        if explained.shape[0] != k:
            raise ValueError(f"explained must hold one share per component of scores, {k} of them; got "
                             f"{explained.shape[0]}")
    height = _check_height("height", height)
    names = [f"PC{c + 1}" + ("" if explained is None else f" ({local_number(format(float(explained[c]), '.1%'))})")
             for c in range(k)]
    frame = pd.DataFrame({"position": torch.arange(n).repeat(k).numpy(),
                          "component": [name for name in names for _row in range(n)],
                          "score": scores.detach().T.double().flatten().numpy()})
    return line_chart(frame, x="position", y="score", series="component", x_title=_("Position"), y_title=_("Coordinate"),
                      series_title=_("Component (share of variance)"), height=height, max_points=MAX_SERIES_POINTS,
                      legend="top")


@unchecked
def neighbour_distance_chart(steps: Mapping[str, Tensor], *, height: int = 280) -> Drawn:
    """``‖P[i+1] − P[i]‖`` against ``i`` for each named table, on a log axis (the tables'
    scales differ), every step a point on its line."""
    _check_named("steps", steps)
    for name, s in steps.items():
        check_tensor(f"steps[{name[:40]!r}]", s, dims=1, floating=True, what="(positions - 1,)")
        if len(s) < 1 or not bool((s > 0).all()) or not bool(torch.isfinite(s).all()):
            raise ValueError(f"steps[{name[:40]!r}] must hold at least one distance, each finite and above 0 "
                             "(the axis is logarithmic)")
    _check_count("steps", sum(len(s) for s in steps.values()), MAX_SERIES_POINTS, "points a chart draws")
    height = _check_height("height", height)
    frame = pd.concat([pd.DataFrame({"table": name, "position": torch.arange(len(s)).numpy(),
                                     "distance": s.detach().double().cpu().numpy()}) for name, s in steps.items()],
                      ignore_index=True)
    return line_chart(frame, x="position", y="distance", series="table", x_title=_("Position i"),
                      y_title="‖P[i+1] − P[i]‖", series_title=_("Table"), height=height, log_y=True,
                      max_points=MAX_SERIES_POINTS, legend="top")
