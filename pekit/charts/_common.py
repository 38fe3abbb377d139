"""What every chart builder shares: the result type, series colours, tooltips, the spec."""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import threading

from collections.abc import Callable, Sequence
from typing import NamedTuple, ParamSpec, TypeVar

import altair as alt
from altair.utils import schemapi
import numpy as np
import pandas as pd
import torch
from torch import Tensor

from ._wording import _, local_number, wording
from .style import READABLE

P = ParamSpec("P")
R = TypeVar("R")

# distinct hues for series (Tableau 10), so overlaid lines stay apart in any theme
SERIES_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                 "#9c755f", "#bab0ac"]


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

    def describe(self) -> str:
        """A sentence saying honestly what the picture shows, one whole message per kind of
        drawing (rows and columns are the chart's). Words and numbers follow the caller's
        :class:`Wording`."""
        r, c = self.shape
        n = lambda value: local_number(f"{value:,}")  # noqa: E731
        if self.kind == "bands":
            # banded only when a line has more points than the chart has room for: r > run ≥ 2
            return _("{count} points per line are more than the chart has room for: each line is drawn as the band "
                     "between its smallest and largest value over every {run} consecutive points (a fast line "
                     "fills its band, a slow one stays a line).").format(count=n(r), run=n(self.block[0]))
        if self.kind == "lines":
            return (_("Every value is a point on its line; hover for values.") if self.hover
                    else _("Every value is a point on its line."))
        if self.exact and r * c == 1:
            return _("The one entry drawn; hover it for its exact value.") if self.hover else _("The one entry drawn.")
        if self.exact and self.hover:
            return _("All {rows} × {columns} entries drawn; hover a cell for its exact value.").format(
                rows=n(r), columns=n(c))
        if self.exact:
            return _("All {rows} × {columns} = {count} entries drawn, one pixel each.").format(
                rows=n(r), columns=n(c), count=n(r * c))
        br, bc = self.block  # a block of at least two entries
        return _("{rows} × {columns} = {count} entries are more than a chart can show one by one: each pixel is "
                 "the mean of a block of {block_rows} × {block_columns} entries (rows × columns; {grid_rows} × "
                 "{grid_columns} blocks), so nothing is skipped or aliased, but what changes faster than a block averages "
                 "out.").format(
            rows=n(r), columns=n(c), count=n(r * c), block_rows=n(br), block_columns=n(bc),
            grid_rows=n(self.grid[0]), grid_columns=n(self.grid[1]))


class Drawn(NamedTuple):
    """A chart and what it drew."""

    chart: alt.TopLevelMixin
    drawing: Drawing

    def spec(self) -> dict:
        """The chart as a Vega-Lite dict (see :func:`to_spec`)."""
        return to_spec(self.chart)


def texts(values, fmt: str = ".6f") -> list[str]:
    """Numbers as tooltip text, a negative one with a minus sign (−), as the lab's sentences
    write it. Tooltips are computed for every mark when a chart draws, and formatting there costs
    more than drawing; a text field costs one lookup."""
    local = wording()
    if local.english_numbers:
        return [format(float(v), fmt).replace("-", "−") for v in values]
    return [local.number(format(float(v), fmt)).replace("-", "−") for v in values]


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


def _column_values(column: pd.Series) -> tuple[list, bytes] | None:
    """One column as the JSON-ready values Altair's ``sanitize_pandas_dataframe`` makes of it
    (Python numbers and strings, ``None`` for NaN and infinities) and bytes that identify them;
    ``None`` for a kind of column left to Altair (dates, categories, text with gaps, ...)."""
    dtype = column.dtype
    kind = getattr(dtype, "kind", "")
    if isinstance(dtype, np.dtype) and kind in "iub":
        values = column.to_numpy()
        return values.tolist(), dtype.str.encode() + values.tobytes()
    if isinstance(dtype, np.dtype) and kind == "f":
        values = column.to_numpy()
        out = values.tolist()
        bad = ~np.isfinite(values)
        if bad.any():
            for i in np.flatnonzero(bad).tolist():
                out[i] = None
        return out, dtype.str.encode() + values.tobytes()
    if kind == "O" or str(dtype) in ("str", "string"):
        out = column.astype(object).tolist()
        if not all(type(v) is str for v in out):
            return None  # missing values, numbers, arrays, dates among text: Altair's conversion
        return out, pickle.dumps(out, protocol=5)
    return None


def _rows(data: object) -> tuple[list[dict], bytes] | None:
    """A chart's data as Vega-Lite rows and bytes that identify them, or ``None`` when it is
    not a table (a URL, a named source) or holds something only Altair converts."""
    if isinstance(data, pd.DataFrame):
        if not all(isinstance(c, str) for c in data.columns) or isinstance(data.index, pd.MultiIndex):
            return None
        columns = [_column_values(data[c]) for c in data.columns]
        if any(c is None for c in columns):
            return None
        names = list(data.columns)
        rows = [dict(zip(names, row)) for row in zip(*(c[0] for c in columns))] if names else [{}] * len(data)
        key = b"\x1e".join([repr(names).encode()] + [c[1] for c in columns])
        return rows, key
    if isinstance(data, alt.InlineData) and data.name is alt.Undefined and data.format is alt.Undefined \
            and isinstance(data.values, list) and all(type(r) is dict for r in data.values):
        return data.values, pickle.dumps(data.values, protocol=5)
    return None


def _lift_data(chart: alt.TopLevelMixin, datasets: dict[str, list], swapped: list) -> None:
    """Replace the tables of ``chart`` (its own and its layers', at any depth) by named
    references into ``datasets``, filled here, so Altair serialises only the small tree of marks
    and encodings. Names follow the content, so one table shared by several layers is sent once.
    Each replaced ``(chart, table)`` is appended to ``swapped`` for :func:`to_spec` to put back
    (a copy of an Altair layer chart costs more than the whole conversion)."""
    data = getattr(chart, "data", alt.Undefined)
    if data is not alt.Undefined:
        converted = _rows(data)
        if converted is not None:
            rows, key = converted
            name = "data-" + hashlib.blake2b(key, digest_size=16).hexdigest()
            datasets.setdefault(name, rows)
            swapped.append((chart, data))
            chart.data = alt.NamedData(name=name)
    for part in ("layer", "hconcat", "vconcat", "concat"):
        children = getattr(chart, part, alt.Undefined)
        if isinstance(children, list):
            for child in children:
                if isinstance(child, alt.TopLevelMixin):
                    _lift_data(child, datasets, swapped)
    inner = getattr(chart, "spec", alt.Undefined)
    if isinstance(inner, alt.TopLevelMixin):
        _lift_data(inner, datasets, swapped)


# charts are swapped in place while they serialise: one conversion at a time (they run under
# the GIL anyway), so a chart shared between threads is never seen half swapped
_SWAP = threading.Lock()


@unchecked
def to_spec(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega-Lite dict with its data inline, skipping Altair's JSON-schema
    validation (the tests validate every builder's output; a page need not pay for it on
    every rerun). Sizes are bounded by the builders, so Altair's 5000-row guard is lifted.

    Tables become rows column by column (the values Altair's own conversion gives, at a
    fraction of its cost: it sanitises a copy of the frame and hashes a JSON dump of the rows to
    name them), and Altair serialises only the marks and encodings.

    A chart drawn from one table gets it as top-level ``data.values``: Streamlit then sends the
    table beside a spec that does not mention it, and when only the numbers change between
    two reruns, the browser swaps the data in the chart it has instead of building it anew."""
    if isinstance(chart, Drawn):
        chart = chart.chart
    if not isinstance(chart, alt.TopLevelMixin):
        raise ValueError(f"chart must be an Altair chart or a Drawn; got a {type(chart).__name__}")
    lifted: dict[str, list] = {}
    swapped: list[tuple[alt.TopLevelMixin, object]] = []
    with _SWAP:
        try:
            _lift_data(chart, lifted, swapped)
            with alt.data_transformers.enable("default", max_rows=None):
                spec = chart.to_dict(validate=False)
        finally:
            for part, data in reversed(swapped):
                part.data = data
    if lifted:
        spec["datasets"] = {**spec.get("datasets", {}), **lifted}
    # The height a builder states is the plot area's: axes, titles and legends come on top of it
    # (Streamlit would otherwise fit them all into that height, squeezing the plot), while the
    # width follows the page's column; a chart with a width of its own keeps it too.
    fixed = isinstance(spec.get("width"), (int, float))
    spec.setdefault("autosize", {"type": "pad" if fixed else "fit-x", "contains": "padding"})
    spec.setdefault("padding", {"left": 10, "top": 12, "right": 10, "bottom": 6})  # room for edge labels
    config = spec.setdefault("config", {})
    for part, style in READABLE.items():
        config[part] = {**style, **config.get(part, {})}
    locale = wording().vega_locale()
    if locale is not None:
        config["locale"] = locale
    # the digest: the spec with datasets named by content, the rows themselves left out
    datasets = spec.pop("datasets", {})
    others = {k: v for k, v in datasets.items() if k not in lifted}  # converted by Altair: hash them too
    text = json.dumps([spec, others], sort_keys=True, separators=(",", ":"), default=str)
    fingerprint = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    data = spec.get("data", {})
    if len(datasets) == 1 and set(data) == {"name"} and data["name"] in datasets:
        spec["data"] = {"values": datasets.pop(data["name"])}
    if datasets:
        spec["datasets"] = datasets
    return Spec(spec, fingerprint)
