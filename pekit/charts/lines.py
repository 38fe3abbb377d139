"""Lines over an axis: encoding columns over positions, similarity against offset, wavelengths,
costs and timings.

Long series are never thinned by skipping points (that would alias a fast oscillation into a
slow one): beyond a point budget each series is cut into runs of consecutive points and drawn
as the band from each run's smallest to its largest value; the returned
:class:`~pekit.charts.Drawing` says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import altair as alt
import numpy as np
import pandas as pd
import torch
from torch import Tensor

from .._checks import check_bool, check_float, check_int, check_range, check_sequence, check_str, check_tensor
from ..reduce import block_summary
from ..similarity import OffsetSimilarity
from ._common import SERIES_COLORS, Drawing, Drawn, texts, tip, unchecked
from ._wording import _, wording

__all__ = ["column_curves", "offset_similarity_chart", "line_chart", "frequency_chart", "layout_comparison_chart"]

MAX_CURVE_POINTS = 960  # points over all columns; beyond, curves are drawn as per-bucket ranges
MAX_POSITION = 1 << 52  # positions stay exact in a browser's float64
MAX_HEIGHT = 1 << 14  # pixels


@unchecked
def column_curves(
    values: Tensor, columns: Sequence[int], *, start: int = 0, height: int = 260, max_points: int = MAX_CURVE_POINTS
) -> Drawn:
    """Columns of an encoding over positions ``start + i`` (the book's figure of columns 6-9).
    ``values``: ``(positions, len(columns))``, column ``k`` holding encoding column ``columns[k]``
    (e.g. from ``pekit.sinusoidal_columns`` or ``P[:, columns]``).

    Up to ``max_points`` values in all (positions x columns) every value is a point on a
    line. Beyond that, positions are split into equal buckets (at most
    ``max_points / len(columns)``) and each column is drawn as the band
    from its smallest to its largest value inside each bucket: a fast column fills its band,
    a slow one stays a thin line, and no oscillation is hidden by skipping positions.
    """
    columns = [check_int("columns", c, minimum=0) for c in check_sequence("columns", columns)]
    check_tensor("values", values, dims=2, what="(positions, len(columns))")
    if values.shape[1] != len(columns):
        raise ValueError(f"values of shape {tuple(values.shape)} must have one column per entry of columns")
    start = check_int("start", start, minimum=-MAX_POSITION, maximum=MAX_POSITION)
    height = check_int("height", height, minimum=1, maximum=MAX_HEIGHT)
    max_points = check_int("max_points", max_points, minimum=1)
    sub = values.detach().double().cpu()  # (positions, len(columns))
    n = sub.shape[0]
    names = [_("Col {column}").format(column=c) for c in columns]
    frame = pd.DataFrame({"position": torch.arange(start, start + n).repeat(len(columns)).numpy(),
                          "column": pd.Categorical.from_codes(np.repeat(np.arange(len(names)), n), categories=names),
                          "value": sub.T.flatten().numpy()})
    return line_chart(frame, x="position", y="value", series="column", x_title=_("Row (position)"),
                      y_title=_("P[position, column]"), series_title=_("Column"), y_domain=(-1.0, 1.0),
                      points=n * len(columns) <= max_points and n <= 64, height=height, max_points=max_points)


def check_similarity(name: str, sim: object) -> OffsetSimilarity:
    """``sim`` as the :class:`~pekit.similarity.OffsetSimilarity` it must be, its tensors on the
    CPU and out of autograd, or ``ValueError`` naming ``name``."""
    if not isinstance(sim, OffsetSimilarity):
        raise ValueError(f"{name} must be an OffsetSimilarity (from pekit.similarity.similarity_by_offset); "
                         f"got a {type(sim).__name__}")
    parts = ("offsets", "mean", "minimum", "maximum", "count")
    return sim._replace(**{part: getattr(sim, part).detach().cpu() for part in parts})  # e.g. from a trained P


@unchecked
def offset_similarity_chart(sim: OffsetSimilarity, *, height: int = 260) -> Drawn:
    """Mean of ``P[i]·P[i+δ]`` over the measured starts against ``δ``, with the band from the
    smallest to the largest value seen (a flat band means the offset alone decides)."""
    sim = check_similarity("sim", sim)
    height = check_int("height", height, minimum=1, maximum=MAX_HEIGHT)
    return similarity_bands({"": sim}, y_title="P[i] · P[i+δ]", height=height)


def similarity_bands(sims: dict[str, OffsetSimilarity], *, y_title: str, height: int) -> Drawn:
    """One line per named similarity (checked by the caller): the mean against the offset,
    inside the band from the smallest to the largest value over the starting rows. A single
    similarity named ``""`` is drawn without a legend."""
    names = list(sims)
    frame = pd.concat([pd.DataFrame({"table": name, "offset": sim.offsets.numpy(), "mean": sim.mean.double().numpy(),
                                     "min": sim.minimum.double().numpy(), "max": sim.maximum.double().numpy(),
                                     "starts": sim.count.numpy()}) for name, sim in sims.items()], ignore_index=True)
    frame["mean text"] = texts(frame["mean"])
    frame["range"] = _ranges(frame["min"], frame["max"], ".6f")
    last = int(frame["offset"].max()) if len(frame) else 0
    named = names != [""]
    color = ({"color": alt.Color("table", type="nominal", title=_("Table"), sort=names, scale=alt.Scale(range=SERIES_COLORS),
                                 legend=alt.Legend(orient="bottom"))} if named else {})
    base = alt.Chart(frame).encode(x=alt.X("offset", type="quantitative", title=_("Offset δ (positions)"),
                                           axis=alt.Axis(format="d", tickMinStep=1),
                                           scale=alt.Scale(domain=[0, max(last, 1)], nice=False)), **color)
    band = base.mark_area(opacity=0.3).encode(y=alt.Y("min", type="quantitative", title=y_title,
                                                      scale=alt.Scale(zero=False)), y2=alt.Y2("max"))
    line = base.mark_line().encode(
        y=alt.Y("mean", type="quantitative"),
        tooltip=([tip("table", _("Table"))] if named else []) + [
            alt.Tooltip("offset", type="quantitative", title=_("offset")), tip("mean text", _("mean")),
            tip("range", _("range")), alt.Tooltip("starts", type="quantitative", title=_("starts measured"))],
    )
    count = len(frame) // len(names)
    return Drawn((band + line).properties(height=height),
                 Drawing("lines", (count, len(names)), (count, len(names)), (1, 1), hover=True))


MAX_LINE_POINTS = 600  # points over all series of a line chart; beyond, series become range bands
MAX_POSITION_ROWS = 1 << 16  # measured rows of an extrapolation chart


@unchecked
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
    legend: str = "bottom",
) -> Drawn:
    """Lines of ``y`` against ``x`` from a long-form frame, one per value of ``series`` (which
    then needs a ``series_title`` for its legend); ``step`` draws square waves (values held until
    the next x), ``log_x``/``log_y`` log axes.

    Axes follow the data: their domains run from the smallest to the largest value shown (a
    log axis too), and an axis of whole numbers has whole-number ticks. With more than
    ``max_points`` rows in all, each series is cut into equal runs of consecutive rows (in x
    order) and drawn as the band from the run's smallest to largest ``y``: nothing is skipped,
    and a flat series still reads as a line. ``marks`` draws a labelled vertical rule at each
    given x (e.g. crossover points); marks outside the data's range are left out. ``legend``:
    ``"bottom"``, or ``"top"`` (above the plot, two labels a row: the plot keeps its height in
    a narrow column).
    """
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise ValueError(f"frame must be a pandas DataFrame with at least one row; got {type(frame).__name__}"
                         f"{' without rows' if isinstance(frame, pd.DataFrame) else ''}")
    for name, column, numeric in (("x", x, True), ("y", y, True), ("series", series, False)):
        if name == "series" and column is None:
            continue
        if not isinstance(column, str) or column not in frame.columns:
            raise ValueError(f"{name}={column!r} must name a column of frame; frame has {list(frame.columns)[:12]}")
        if numeric and (not pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column])):
            raise ValueError(f"{name}={column!r} must name a column of numbers; frame[{column!r}] has dtype "
                             f"{frame[column].dtype}")
    if series is not None and (frame[series].isna().any()
                               or not all(isinstance(v, (str, int, float)) for v in pd.unique(frame[series]))):
        raise ValueError(f"series={series!r}: frame[{series!r}] must hold a label (a string or number) in every row")
    for name, text in (("x_title", x_title), ("y_title", y_title), ("series_title", series_title)):
        check_str(name, text, optional=True)
    log_y, log_x, step, points = (check_bool(n, v) for n, v in (("log_y", log_y), ("log_x", log_x), ("step", step),
                                                                  ("points", points)))
    y_domain = None if y_domain is None else check_range("y_domain", y_domain)
    height = check_int("height", height, minimum=1, maximum=MAX_HEIGHT)
    max_points = check_int("max_points", max_points, minimum=1)
    if marks is not None and (not isinstance(marks, dict) or not all(isinstance(k, str) for k in marks)):
        raise ValueError(f"marks must map labels to x values, or be None; got {marks!r:.60}")
    marks = None if marks is None else {k: check_float("marks", v) for k, v in marks.items()}
    if legend not in ("bottom", "top"):
        raise ValueError(f"legend must be 'bottom' or 'top'; got {legend!r:.60}")
    if series and not series_title:
        raise ValueError(f"series_title must name the legend of the series {series!r}")
    x_scale = _axis_scale(frame[x], log=log_x, name="x")
    chart, drawing = _lines(frame, x=x, y=y, series=series, x_title=x_title, y_title=y_title, series_title=series_title,
                            log_y=log_y, x_scale=x_scale, step=step, points=points, y_domain=y_domain, height=height,
                            max_points=max_points, legend=legend)
    lo, hi = float(frame[x].min()), float(frame[x].max())
    shown = {label: float(v) for label, v in (marks or {}).items() if lo <= float(v) <= hi}
    if not shown:
        return Drawn(chart, drawing)
    rules = pd.DataFrame({x: list(shown.values()), "mark": list(shown.keys())}).sort_values(x)
    # where along the axis each mark falls: labels near the right edge hang to the left, and
    # neighbouring labels go on rows of their own so they never overlap
    span = (math.log(hi) - math.log(lo)) if log_x and lo > 0 else (hi - lo)
    at = [((math.log(v) - math.log(lo)) if log_x and lo > 0 else (v - lo)) / span if span else 0.0 for v in rules[x]]
    rules["align"] = ["right" if f > 0.6 else "left" for f in at]
    rules["dx"] = [-4 if f > 0.6 else 4 for f in at]
    rules["dy"] = [6 + 16 * i for i in range(len(rules))]
    x_enc = alt.X(x, type="quantitative", scale=x_scale)
    rule = alt.Chart(rules).mark_rule(strokeDash=[4, 3], color="#76706f").encode(x=x_enc, tooltip=[tip("mark", _("mark"))])
    layers = [rule]
    for align in ("left", "right"):
        part = rules[rules["align"] == align]
        if len(part):
            layers.append(alt.Chart(part).mark_text(align=align, baseline="top", color="#4a4544", fontSize=12).encode(
                x=x_enc, y=alt.value(0), xOffset=alt.XOffset("dx", type="quantitative", scale=None),
                yOffset=alt.YOffset("dy", type="quantitative", scale=None), text=alt.Text("mark", type="nominal")))
    return Drawn(alt.layer(chart, *layers), drawing)


def _axis_scale(values: pd.Series, *, log: bool, name: str) -> alt.Scale:
    """A scale over exactly the data's range (no rounding out to 10 or 10 000 on a log axis)."""
    lo, hi = float(values.min()), float(values.max())
    if log:
        if not lo > 0:
            raise ValueError(f"{name}={values.name!r}: a log axis needs positive values; the smallest is {lo:g}")
        return alt.Scale(type="log", domain=[lo, hi], nice=False)
    return alt.Scale(domain=[lo, hi] if hi > lo else [lo - 1, hi + 1], nice=False, zero=False)


def _whole(values: pd.Series) -> bool:
    numbers = pd.to_numeric(values, errors="coerce")
    return bool(numbers.notna().all() and (numbers == numbers.round()).all())


def _y_axis(values: pd.Series, log: bool, domain: Sequence[float] | None = None) -> alt.Axis:
    """Powers of ten for an axis of tiny values (all below 10⁻³ in size, not all 0, on an axis
    whose given ``domain`` is no wider), whose labels would otherwise run to ten digits after the
    point (0.00000010); tiny values on an axis from 0 to 1 keep its labels 0.2, 0.4, ..."""
    top = float(pd.to_numeric(values, errors="coerce").abs().max())
    if domain is not None:
        top = max(top, *(abs(float(v)) for v in domain))
    if not log and 0 < top < 1e-3:
        return alt.Axis(format="~e")
    return alt.Axis()


def _x_axis(values: pd.Series, log: bool) -> alt.Axis:
    if _whole(values) and not log:
        return alt.Axis(format="d", tickMinStep=1)
    return alt.Axis()


def _lines(frame, *, x, y, series, x_title, y_title, series_title, log_y, x_scale, step, points, y_domain,
           height, max_points, legend):
    names = list(pd.unique(frame[series])) if series else [None]  # in order of appearance
    if y_domain is not None:
        scale = alt.Scale(domain=list(y_domain), nice=False)
    else:
        scale = _axis_scale(frame[y], log=log_y, name="y")
    x_enc = alt.X(x, type="quantitative", title=x_title or x, scale=x_scale, axis=_x_axis(frame[x], x_scale.type == "log"))
    longest = max((len(str(n)) for n in names if n is not None), default=0)
    columns = 2 if legend == "top" else 1 if longest > 16 else min(len(names), 3)
    color = (
        {"color": alt.Color(series, type="nominal", title=series_title, sort=names, scale=alt.Scale(range=SERIES_COLORS),
                            legend=alt.Legend(orient=legend, direction="horizontal", labelLimit=0, columns=columns))}
        if series else {}
    )
    if len(frame) <= max_points:
        frame = frame.copy()
        if series and isinstance(frame[series].dtype, pd.CategoricalDtype):
            frame[series] = frame[series].astype(str)  # labels as text, the way the chart's data carries them
        frame["y text"] = texts(frame[y], ".6g")
        tooltip = ([tip(series, series_title or series)] if series else []) + [
            alt.Tooltip(x, type="quantitative", title=x_title or x), tip("y text", y_title or y)]
        mark = alt.Chart(frame).mark_line(point=points, interpolate="step-after" if step else "linear")
        chart = mark.encode(x=x_enc, y=alt.Y(y, type="quantitative", title=y_title or y, scale=scale,
                                             axis=_y_axis(frame[y], log_y, y_domain)),
                            tooltip=tooltip, **color).properties(height=height)
        rows = len(frame) // len(names)
        return chart, Drawing("lines", (rows, len(names)), (rows, len(names)), (1, 1), hover=True)
    per_series = max(1, max_points // len(names))
    which = pd.Categorical(frame[series], categories=names).codes if series else np.zeros(len(frame), dtype=np.int8)
    xs, ys = frame[x].to_numpy(dtype="float64"), frame[y].to_numpy(dtype="float64")
    parts, run = [], 1
    for i, name in enumerate(names):
        chosen = which == i
        order = np.argsort(xs[chosen], kind="stable")
        values = torch.from_numpy(np.stack([xs[chosen][order], ys[chosen][order]], axis=1))  # (rows, 2)
        if x_scale.type == "log":
            runs = _log_runs(values, per_series, lo=float(xs.min()), hi=float(xs.max()))
        else:
            summary = block_summary(values, per_series, 2)
            runs = pd.DataFrame({
                x: summary.mean[:, 0].numpy(),
                "first": values[summary.row_edges[:-1], 0].numpy(),
                "last": values[summary.row_edges[1:] - 1, 0].numpy(),
                "low": summary.minimum[:, 1].numpy(),
                "high": summary.maximum[:, 1].numpy(),
                "rows": summary.row_edges.diff().numpy(),
            })
        run = max(run, int(runs["rows"].max()))
        runs = runs.drop(columns="rows").rename(columns={"x": x} if x != "x" else {})
        if series:
            runs[series] = name
        parts.append(runs)
    bands = pd.concat(parts, ignore_index=True)
    bands["range"] = _ranges(bands["low"], bands["high"], ".6g")
    bands["span"] = _ranges(bands["first"], bands["last"], "g")
    tooltip = ([tip(series, series_title or series)] if series else []) + [tip("span", x_title or x),
                                                                            tip("range", y_title or y)]
    stroke = ({"stroke": alt.Stroke(series, type="nominal", sort=names, legend=None,
                                    scale=alt.Scale(range=SERIES_COLORS))} if series else {})
    chart = (
        alt.Chart(bands)
        .mark_area(opacity=0.5, strokeWidth=1)
        .encode(x=x_enc, y=alt.Y("low", type="quantitative", title=_("{title} (range per run)").format(title=y_title or y),
                                   scale=scale, axis=_y_axis(bands["high"], log_y, y_domain)),
                y2=alt.Y2("high"), tooltip=tooltip, **color, **stroke)
        .properties(height=height)
    )
    rows = len(frame) // len(names)
    return chart, Drawing("bands", (rows, len(names)), (len(bands) // len(names), len(names)), (run, 1), hover=True)


def _log_runs(values: Tensor, runs: int, *, lo: float, hi: float) -> pd.DataFrame:
    """Bands of ``values`` (``(rows, 2)``: x > 0 ascending, y) for a log x axis: the axis from
    ``lo`` to ``hi`` cut into ``runs`` equal spans of log x, each span's consecutive rows one
    band (its mean x, first and last x, smallest and largest y, row count). Early rows, sparse
    on a log axis, stay one band each; late ones, dense, share a band: every band about as wide."""
    xs, ys = values[:, 0].numpy(), values[:, 1].numpy()
    width = math.log(hi) - math.log(lo)
    bins = (np.floor((np.log(xs) - math.log(lo)) / width * runs).clip(0, runs - 1) if width > 0
            else np.zeros(len(xs)))
    starts = np.concatenate([[0], np.flatnonzero(np.diff(bins)) + 1])
    ends = np.concatenate([starts[1:], [len(xs)]])
    counts = ends - starts
    return pd.DataFrame({"x": np.add.reduceat(xs, starts) / counts, "first": xs[starts], "last": xs[ends - 1],
                         "low": np.minimum.reduceat(ys, starts), "high": np.maximum.reduceat(ys, starts),
                         "rows": counts})


@unchecked
def frequency_chart(frame: pd.DataFrame, *, y: str = "wavelength", height: int = 260) -> Drawn:
    """Per-pair wavelength (or frequency) on a log scale; ``frame`` is long-form with columns
    ``pair``, ``layout`` and ``y``."""
    if not isinstance(frame, pd.DataFrame) or not {"pair", "layout"} <= set(frame.columns):
        raise ValueError("frame must be a pandas DataFrame with columns pair, layout and the y column")
    check_str("y", y)
    title = {"wavelength": _("Wavelength 2π/ω (positions)"), "omega": _("Frequency ω (radians per position)")}.get(y, y)
    return line_chart(frame, x="pair", y=y, series="layout", x_title=_("Pair index j"), y_title=title,
                      series_title=_("Layout"), log_y=True, points=True, height=height)


@unchecked
def layout_comparison_chart(table: pd.DataFrame, *, height: int = 260) -> Drawn:
    """Wavelengths of both layouts per pair, from ``pekit.compare_layouts``'s table."""
    needed = ["pair"] + [f"{q}_{layout}" for q in ("wavelength", "omega") for layout in ("interleaved", "tensor2tensor")]
    if not isinstance(table, pd.DataFrame) or not set(needed) <= set(table.columns):
        raise ValueError(f"table must be a pandas DataFrame from pekit.compare_layouts, with columns {needed}")
    long = pd.concat(
        [pd.DataFrame({"pair": table["pair"], "layout": LAYOUT_NAMES[layout](), "wavelength": table[f"wavelength_{layout}"],
                       "omega": table[f"omega_{layout}"]}) for layout in ("interleaved", "tensor2tensor")],
        ignore_index=True,
    )
    return frequency_chart(long, height=height)




# a layout's name in a legend (tensor2tensor is a library's name)
LAYOUT_NAMES = {"interleaved": lambda: _("interleaved"), "tensor2tensor": lambda: "tensor2tensor"}


def _ranges(low, high, fmt: str) -> list[str]:
    """``"a to b"`` per pair of numbers, in the caller's words and number symbols."""
    local = wording()
    pattern = _("{low} to {high}")
    return [pattern.format(low=local.number(format(float(a), fmt)), high=local.number(format(float(b), fmt)))
            for a, b in zip(low, high)]


def legend_room(series: int, plot: int) -> int:
    """A line chart's height for a ``plot`` of that many pixels above a legend of ``series``
    lines (Streamlit fits the plot and its legend into the chart's height together)."""
    return plot + 60 + 30 * series


@unchecked
def extrapolation_chart(runs: dict[str, Sequence[dict]], *, series_title: str, trained_on: int | None = None,
                        plot_height: int = 260) -> Drawn:
    """Share of tokens right against the test length, one line per named run, from the rows of
    :func:`pekit.training.extrapolation` (``seq_len``, ``token_accuracy``; a row without an
    accuracy, where the model has no position to give, ends its line). ``trained_on`` marks
    the training length with a rule."""
    rows = _extrapolation_rows(runs)
    check_str("series_title", series_title)
    trained_on = None if trained_on is None else check_int("trained_on", trained_on, minimum=1, maximum=MAX_POSITION)
    plot_height = check_int("plot_height", plot_height, minimum=1, maximum=MAX_HEIGHT)
    frame = pd.DataFrame(rows, columns=["run", "test length", "tokens right"])
    marks = None if trained_on is None else {_("trained on {length}").format(length=trained_on): trained_on}
    return line_chart(frame, x="test length", y="tokens right", series="run", x_title=_("test length (tokens)"),
                      y_title=_("share of tokens right"), series_title=series_title, y_domain=(0, 1), points=True,
                      height=legend_room(len(runs), plot_height), marks=marks)


def _extrapolation_rows(runs: object) -> list[tuple[str, int, float]]:
    """``(run, test length, share right)`` of every measured row of ``runs``, or ``ValueError``
    naming ``runs``."""
    what = "runs must map run names to rows of pekit.training.extrapolation (seq_len, token_accuracy)"
    if not isinstance(runs, dict) or not runs or not all(isinstance(name, str) for name in runs):
        raise ValueError(f"{what}; got {str(runs)[:60]!r}")
    rows = []
    for name, table in runs.items():
        if not isinstance(table, (list, tuple)) or not all(isinstance(r, dict) for r in table):
            raise ValueError(f"{what}; runs[{name[:40]!r}] is {str(table)[:60]!r}")
        for row in table:
            length = check_int(f"runs[{name[:40]!r}] seq_len", row.get("seq_len"), minimum=1, maximum=MAX_POSITION)
            share = row.get("token_accuracy")
            if share is not None:
                rows.append((name, length, check_float(f"runs[{name[:40]!r}] token_accuracy", share, minimum=0.0,
                                                       maximum=1.0)))
    if not rows:
        raise ValueError(f"runs holds no measured accuracy to draw; got {str(runs)[:60]!r}")
    if len(rows) > MAX_POSITION_ROWS:
        raise ValueError(f"runs holds {len(rows):,} measured rows, more than the {MAX_POSITION_ROWS:,} a chart draws")
    return rows
