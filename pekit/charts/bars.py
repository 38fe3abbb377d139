"""Bars over tokens: one number per token (a query's scores or weights against every key)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
from torch import Tensor

from .._checks import check_range, check_str, check_tensor
from ._common import SERIES_COLORS, Drawing, Drawn, texts, tip, unchecked
from .matrices import TOKEN_LABEL_LIMIT

__all__ = ["token_bars"]

MAX_BARS = 256


@unchecked
def token_bars(
    values: Tensor,
    labels: Sequence[str],
    *,
    value_title: str = "value",
    label_title: str = "key",
    domain: Sequence[float] | None = None,
    title: str | None = None,
    highlight: int | None = None,
) -> Drawn:
    """One horizontal bar per token (``values``: ``(n,)``), tokens downwards in their order and
    numbered (repeated words stay apart), each bar labelled with its value and read out on hover,
    so nothing depends on colour. Negative values run left of a zero line. ``domain``: the value
    axis (default: the data's range, 0 included); ``highlight``: a token drawn in a second colour."""
    check_tensor("values", values, dims=1, what="(n,)")
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise ValueError(f"labels must be a list of labels, one per value; got a {type(labels).__name__}")
    n = values.shape[0]
    if len(labels) != n or n == 0:
        raise ValueError(f"labels must give one label per value: {n} values, {len(labels)} labels (at least one)")
    if n > MAX_BARS:
        raise ValueError(f"values has {n} entries; at most {MAX_BARS} bars are drawn")
    for name, text in (("value_title", value_title), ("label_title", label_title)):
        check_str(name, text)
    check_str("title", title, optional=True)
    if highlight is not None and (isinstance(highlight, bool) or not isinstance(highlight, int)
                                  or not 0 <= highlight < n):
        raise ValueError(f"highlight={highlight!r} must be a token number from 0 to {n - 1}, or None")
    v = values.detach().double().cpu()
    if not bool(v.isfinite().all()):
        raise ValueError("values must be finite numbers (a bar cannot show a masked value)")
    if domain is None:
        lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
        domain = (lo, hi if hi > lo else lo + 1.0)
    else:
        domain = check_range("domain", domain)
    names = [f"{i} {str(t)[:20]}" for i, t in enumerate(labels)]
    frame = pd.DataFrame({"token": names, "value": v.numpy(), "value text": texts(v, ".3f"),
                          "at": v.clamp(min=0).numpy(),  # each number right of its bar's end or of 0
                          "picked": [i == highlight for i in range(n)]})
    y = alt.Y(field="token", type="ordinal", sort=None, title=label_title,
              axis=alt.Axis(labelLimit=TOKEN_LABEL_LIMIT, labelOverlap=False))
    room = 0.3 * (domain[1] - domain[0])  # beside the longest bar: its number
    x = alt.X(field="value", type="quantitative", title=value_title,
              scale=alt.Scale(domain=[domain[0], domain[1] + room], nice=False, zero=True))
    colour = alt.ColorValue(SERIES_COLORS[0], condition=alt.ConditionalPredicateValueDefGradientstringnullExprRef(
        test="datum.picked", value=SERIES_COLORS[1]))
    tooltip = [tip("token", label_title), tip("value text", value_title)]
    bars = alt.Chart(frame).mark_bar().encode(y=y, x=x, color=colour, tooltip=tooltip)
    numbers = alt.Chart(frame).mark_text(align="left", dx=3, color="#31333f").encode(
        y=y, x=alt.X(field="at", type="quantitative"), text=alt.Text(field="value text", type="nominal"),
        tooltip=tooltip)
    zero = alt.Chart(alt.InlineData(values=[{"zero": 0.0}])).mark_rule(color="#76706f").encode(
        x=alt.X(field="zero", type="quantitative"))
    chart = alt.layer(bars, numbers, zero).properties(height=n * 20)
    if title:
        chart = chart.properties(title=alt.TitleParams(title, anchor="start"))
    return Drawn(chart, Drawing("marks", (n, 1), (n, 1), (1, 1), hover=True))
