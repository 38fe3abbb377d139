"""What every chart builder shares: the result type, series colours, tooltips, the spec."""

from __future__ import annotations

import functools
import hashlib
import json
import threading

from collections.abc import Callable, Sequence
from typing import NamedTuple, ParamSpec, TypeVar

import altair as alt
from altair.utils import schemapi
import torch
from torch import Tensor

P = ParamSpec("P")
R = TypeVar("R")

# distinct hues for series (Tableau 10), so overlaid lines stay apart in any theme
SERIES_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                 "#9c755f", "#bab0ac"]
AXIS_FONT = 12  # px: axis labels and titles stay readable on a projector
READABLE = {
    "axis": {"labelFontSize": AXIS_FONT, "titleFontSize": AXIS_FONT + 1, "titleFontWeight": "normal"},
    "legend": {"labelFontSize": AXIS_FONT, "titleFontSize": AXIS_FONT + 1, "titleFontWeight": "normal",
               "titlePadding": 10},
    "title": {"fontSize": AXIS_FONT + 3},
    "text": {"fontSize": AXIS_FONT},
}


_CHECKS = threading.Lock()
_unchecked_depth = 0
_checks_before = True


def unchecked(builder: Callable[P, R]) -> Callable[P, R]:
    """Run a chart builder with Altair's debug mode off. In that mode (Altair's default) every
    chart object is checked against the whole Vega-Lite schema each time it is made or copied,
    which costs a small chart several milliseconds, most of its making. The builders' output is
    checked by the tests instead (``chart.to_dict()`` validates). The mode is a global of Altair:
    it is switched off while any builder runs, in any thread, and restored when the last ends."""

    @functools.wraps(builder)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        global _unchecked_depth, _checks_before
        with _CHECKS:
            if _unchecked_depth == 0:
                _checks_before = schemapi.DEBUG_MODE
                schemapi.DEBUG_MODE = False
            _unchecked_depth += 1
        try:
            return builder(*args, **kwargs)
        finally:
            with _CHECKS:
                _unchecked_depth -= 1
                if _unchecked_depth == 0:
                    schemapi.DEBUG_MODE = _checks_before

    return run


class Drawing(NamedTuple):
    """What a builder drew. ``kind``: ``"marks"`` (one mark per value), ``"image"`` (one pixel
    per value or block), ``"lines"`` (every value a point on a line) or ``"bands"`` (each line
    drawn as the range of its values over runs of consecutive points). ``shape``: the data's
    ``(rows, columns)``; ``grid``: how many cells (or points per line) were drawn;
    ``block``: rows and columns of data per drawn cell (``(1, 1)`` when exact; for bands the
    run length and 1); ``hover``: exact values on hover."""

    kind: str
    shape: tuple[int, int]
    grid: tuple[int, int]
    block: tuple[int, int]
    hover: bool

    @property
    def exact(self) -> bool:
        """True when every value is drawn as it is (nothing averaged or banded)."""
        return self.block == (1, 1)

    def describe(self, rows: str = "rows", columns: str = "columns") -> str:
        """A sentence saying honestly what the picture shows."""
        r, c = self.shape
        if self.kind == "bands":
            return (f"{r:,} {rows} are more than the chart has room for: each line is drawn as the band between its "
                    f"smallest and largest value over every {self.block[0]:,} consecutive {rows} (a fast line fills "
                    "its band, a slow one stays a line).")
        if self.kind == "lines":
            return f"Every value is a point on its line{'; hover for values' if self.hover else ''}."
        if self.exact and self.hover:
            return f"All {r:,} × {c:,} entries drawn; hover a cell for its exact value."
        if self.exact:
            return f"All {r:,} × {c:,} = {r * c:,} entries drawn, one pixel each."
        br, bc = self.block
        return (f"{r:,} × {c:,} = {r * c:,} entries are more than a chart can show one by one: each pixel is the "
                f"mean of a block of {br:,} {rows} × {bc:,} {columns} ({self.grid[0]:,} × {self.grid[1]:,} blocks), "
                "so nothing is skipped or aliased, but what changes faster than a block averages out.")


class Drawn(NamedTuple):
    """A chart and what it drew."""

    chart: alt.TopLevelMixin
    drawing: Drawing

    def spec(self) -> dict:
        """The chart as a Vega-Lite dict (see :func:`to_spec`)."""
        return to_spec(self.chart)


def texts(values, fmt: str = ".6f") -> list[str]:
    """Numbers as tooltip text. Tooltips are computed for every mark when a chart draws, and
    formatting there costs more than drawing; a text field costs one lookup."""
    return [format(float(v), fmt) for v in values]


def tip(field: str, title: str | None = None) -> alt.Tooltip:
    return alt.Tooltip(field=field, type="nominal", title=title or field)


def data_domain(values: Tensor) -> tuple[float, float]:
    """The range of the finite values (``(0, 1)`` when there are none), never empty."""
    shown = values[torch.isfinite(values)]
    lo, hi = (float(shown.min()), float(shown.max())) if shown.numel() else (0.0, 1.0)
    return lo, hi if hi > lo else lo + 1.0


def legend_layer(domain: Sequence[float], scale: alt.Scale, title: str, *, x: tuple[str, float],
                 y: tuple[str, float], legend: alt.Legend | None = None) -> alt.Chart:
    """An invisible layer that carries the colour legend of an image's palette (an image mark
    has no colour channel). ``x`` and ``y`` name the image's position fields and a value in
    their domains, so the layer shares the image's scales."""
    return (
        alt.Chart(alt.InlineData(values=[{"value": v, x[0]: x[1], y[0]: y[1]} for v in domain]))
        .mark_point(opacity=0, tooltip=None)
        .encode(x=alt.X(field=x[0], type="quantitative"), y=alt.Y(field=y[0], type="quantitative"),
                color=alt.Color(field="value", type="quantitative", title=title, scale=scale,
                                **({"legend": legend} if legend is not None else {})))
    )


class Spec(dict):
    """A Vega-Lite spec (a plain dict to every reader) that also carries ``fingerprint``, a
    digest of its content: a page can recognise a chart it has drawn before without reading the
    whole spec again. The digest stays outside the dict, so two charts that differ only in their
    data still have specs that differ only in ``data`` (the browser then keeps its chart).
    ``fingerprint`` may be given by a caller that already knows a digest of the content."""

    def __init__(self, spec: dict, fingerprint: str | None = None) -> None:
        super().__init__(spec)
        if fingerprint is None:
            text = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
            fingerprint = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        self.fingerprint = fingerprint


@unchecked
def to_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega-Lite dict with its data inline, made by Altair (its tables named by
    content), skipping Altair's JSON-schema validation (the tests validate every builder's
    output; a page need not pay for it on every rerun). Sizes are bounded by the builders, so
    Altair's 5000-row guard is lifted.

    A chart drawn from one table gets it as top-level ``data.values``: Streamlit then sends the
    table beside a spec that does not mention it, and when only the numbers change between
    two reruns, the browser swaps the data in the chart it has instead of building it anew."""
    if isinstance(chart, Drawn):
        chart = chart.chart
    if not isinstance(chart, alt.TopLevelMixin):
        raise ValueError(f"chart must be an Altair chart or a Drawn; got a {type(chart).__name__}")
    with alt.data_transformers.enable("default", max_rows=None):
        spec = chart.to_dict(validate=False)
    # The height a builder states is the plot area's: axes, titles and legends come on top of it
    # (Streamlit would otherwise fit them all into that height, squeezing the plot), while the
    # width follows the page's column; a chart with a width of its own keeps it too.
    fixed = isinstance(spec.get("width"), (int, float))
    spec.setdefault("autosize", {"type": "pad" if fixed else "fit-x", "contains": "padding"})
    spec.setdefault("padding", {"left": 10, "top": 12, "right": 10, "bottom": 6})  # room for edge labels
    config = spec.setdefault("config", {})
    for part, style in READABLE.items():
        config[part] = {**style, **config.get(part, {})}
    # the digest: the spec with its datasets named by content, the rows themselves left out
    datasets = spec.pop("datasets", {})
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
    fingerprint = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    data = spec.get("data", {})
    if len(datasets) == 1 and set(data) == {"name"} and data["name"] in datasets:
        spec["data"] = {"values": datasets.pop(data["name"])}
    if datasets:
        spec["datasets"] = datasets
    return Spec(spec, fingerprint)
