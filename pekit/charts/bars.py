"""Bars of shares (accuracies) per named run, with an optional reference line."""

from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from .._checks import check_float, check_int, check_str
from ._common import SERIES_COLORS, Drawing, Drawn, texts, tip, unchecked

MAX_BARS = 64  # runs one chart draws


@unchecked
def accuracy_bars(shares: Mapping[str, Mapping[str, float]], *, reference: float | None = None,
                  reference_label: str = "reference", height: int = 220) -> Drawn:
    """A horizontal bar per run and measure: ``shares`` maps each run (a row, in its order) to
    its measures (``{"tokens right": 0.27, "sequences right": 0.0}``; every run the same
    measures, values from 0 to 1). ``reference`` draws a dashed line at that share, named
    ``reference_label`` in its tooltip and beside it. Every value is drawn and written at its
    bar's end."""
    if not isinstance(shares, Mapping) or not shares or len(shares) > MAX_BARS:
        raise ValueError(f"shares must map 1 to {MAX_BARS} run names to their measures; got {str(shares)[:60]!r}")
    measures = None
    rows = []
    for run, values in shares.items():
        check_str("shares' run names", run)
        if not isinstance(values, Mapping) or not values or len(values) > len(SERIES_COLORS) \
                or (measures is not None and list(values) != measures):
            raise ValueError(f"shares[{run!r}] must map the same 1 to {len(SERIES_COLORS)} measure names as every run "
                             f"to shares; got {str(values)[:60]!r}")
        measures = list(values)
        for measure, value in values.items():
            rows.append((run, check_str("measure names", measure),
                         check_float(f"shares[{run!r}][{measure!r}]", value, minimum=0.0, maximum=1.0)))
    height = check_int("height", height, minimum=40, maximum=2000)
    check_str("reference_label", reference_label)
    frame = pd.DataFrame(rows, columns=["run", "measure", "share"])
    frame["label"] = [f"{100 * v:.1f}%" for v in frame["share"]]
    frame["share text"] = texts(frame["share"], ".4f")
    runs = list(shares)
    y = alt.Y("run", type="nominal", sort=runs, title=None)
    color = alt.Color("measure", type="nominal", sort=measures, title=None,
                      scale=alt.Scale(range=SERIES_COLORS[: len(measures)]),
                      legend=alt.Legend(orient="top", direction="horizontal"))
    base = alt.Chart(frame).encode(y=y, yOffset=alt.YOffset("measure", type="nominal", sort=measures))
    x = alt.X("share", type="quantitative", title="share right (held-out examples)",
              scale=alt.Scale(domain=[0, 1], nice=False), axis=alt.Axis(format="%"))
    bars = base.mark_bar().encode(x=x, color=color, tooltip=[tip("run", "scheme"), tip("measure"),
                                                             tip("label", "share")])
    labels = base.mark_text(align="left", dx=3, fontSize=11).encode(x=x, text=alt.Text("label", type="nominal"))
    layers = [bars, labels]
    if reference is not None:
        reference = check_float("reference", reference, minimum=0.0, maximum=1.0)
        line = pd.DataFrame({"share": [reference], "what": [reference_label], "label": [f"{100 * reference:.1f}%"]})
        layers.append(alt.Chart(line).mark_rule(strokeDash=[5, 3], color="#555").encode(
            x="share:Q", tooltip=[tip("what", "line"), tip("label", "share")]))
    chart = alt.layer(*layers).properties(height=height)
    return Drawn(chart, Drawing("marks", (len(runs), len(measures)), (len(runs), len(measures)), (1, 1), hover=True))
