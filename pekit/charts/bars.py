"""Bars: one number per token (a query's scores or weights against every key), and shares
(accuracies) per named run with an optional reference line."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd
from torch import Tensor

from .._checks import check_float, check_int, check_range, check_str, check_tensor
from ._common import SERIES_COLORS, Drawing, Drawn, texts, tip, unchecked
from ._wording import _, local_number
from .tokens import TOKEN_LABEL_LIMIT

__all__ = ["accuracy_bars", "answer_bars", "token_bars"]

MAX_BARS = 256  # tokens one chart of token bars draws
MAX_RUNS = 64  # runs one chart of accuracy bars draws
MAX_OPTIONS = 26  # options one chart of answer bars draws
LABEL_WIDTH = 36  # characters per line of an option's label beside its bar
BAND, LINE = 12, 18  # pixels: an option's band around its label, and each line of the label
RIGHT_GREEN = "#2e7d32"  # the right option's bar once revealed
OTHER_GREY = "#9e9e9e"  # the other options' bars once revealed
ASKED_INDIGO = "#5c6bc0"  # every bar while the answer is not revealed


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

@unchecked
def accuracy_bars(shares: Mapping[str, Mapping[str, float]], *, reference: float | None = None,
                  reference_label: str | None = None, height: int = 220) -> Drawn:
    """A horizontal bar per run and measure: ``shares`` maps each run (a row, in its order) to
    its measures (``{"tokens right": 0.27, "sequences right": 0.0}``; every run the same
    measures, values from 0 to 1). ``reference`` draws a dashed line at that share, named
    ``reference_label`` in its tooltip and beside it. Every value is drawn and written at its
    bar's end."""
    if not isinstance(shares, Mapping) or not shares or len(shares) > MAX_RUNS:
        raise ValueError(f"shares must map 1 to {MAX_RUNS} run names to their measures; got {str(shares)[:60]!r}")
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
    reference_label = _("reference") if reference_label is None else reference_label
    check_str("reference_label", reference_label)
    frame = pd.DataFrame(rows, columns=["run", "measure", "share"])
    frame["label"] = [local_number(f"{100 * v:.1f}%") for v in frame["share"]]
    frame["share text"] = texts(frame["share"], ".4f")
    runs = list(shares)
    y = alt.Y("run", type="nominal", sort=runs, title=None)
    color = alt.Color("measure", type="nominal", sort=measures, title=None,
                      scale=alt.Scale(range=SERIES_COLORS[: len(measures)]),
                      legend=alt.Legend(orient="top", direction="horizontal"))
    base = alt.Chart(frame).encode(y=y, yOffset=alt.YOffset("measure", type="nominal", sort=measures))
    x = alt.X("share", type="quantitative", title=_("share right (held-out examples)"),
              scale=alt.Scale(domain=[0, 1], nice=False), axis=alt.Axis(format="%"))
    bars = base.mark_bar().encode(x=x, color=color, tooltip=[tip("run", _("scheme")),
                                                             tip("measure", _("measure")), tip("label", _("share"))])
    labels = base.mark_text(align="left", dx=3, fontSize=11).encode(x=x, text=alt.Text("label", type="nominal"))
    layers = [bars, labels]
    if reference is not None:
        reference = check_float("reference", reference, minimum=0.0, maximum=1.0)
        line = pd.DataFrame({"share": [reference], "what": [reference_label], "label": [local_number(f"{100 * reference:.1f}%")]})
        layers.append(alt.Chart(line).mark_rule(strokeDash=[5, 3], color="#555").encode(
            x="share:Q", tooltip=[tip("what", _("line")), tip("label", _("share"))]))
    chart = alt.layer(*layers).properties(height=height)
    return Drawn(chart, Drawing("marks", (len(runs), len(measures)), (len(runs), len(measures)), (1, 1), hover=True))


@unchecked
def answer_bars(labels: Sequence[str], counts: Sequence[int], *, correct: int | None = None,
                count_title: str | None = None, label_title: str | None = None) -> Drawn:
    """How many people chose each option of a question: a horizontal bar per option (``labels``,
    in the reader's language, read out on hover; ``counts``, one whole number each, zeros
    included), numbered from 1 downwards in their order. ``correct``: the index of the right
    option once the answer is revealed (its bar green, the others grey), or None while it is not
    (every bar the same colour). The count axis runs from 0 to the largest count (at least 1),
    in whole numbers. Each bar carries its option's number and text beside it, wrapped into lines
    of at most :data:`LABEL_WIDTH` characters (:func:`option_label`), so that a projected chart
    reads without the list. ``count_title`` names the counts (default "attendees"),
    ``label_title`` the options in the tooltip (default "answer")."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise ValueError(f"labels must be a list of option labels; got a {type(labels).__name__}")
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence):
        raise ValueError(f"counts must be a list of whole numbers, one per label; got a {type(counts).__name__}")
    if not 0 < len(labels) <= MAX_OPTIONS or len(counts) != len(labels):
        raise ValueError(f"labels and counts must give 1 to {MAX_OPTIONS} options, one count per label: "
                         f"{len(labels)} labels, {len(counts)} counts")
    labels = [check_str("labels", label) for label in labels]
    counts = [check_int("counts", count, minimum=0, maximum=1 << 53) for count in counts]
    if correct is not None:
        correct = check_int("correct", correct, minimum=0, maximum=len(labels) - 1)
    count_title = _("attendees") if count_title is None else check_str("count_title", count_title)
    label_title = _("answer") if label_title is None else check_str("label_title", label_title)
    rows = [{"option": option_label(i, label), "text": label, "count": count,
             "right": correct is not None and i == correct, "order": i}
            for i, (label, count) in enumerate(zip(labels, counts))]
    top = max(counts + [1])
    others = ASKED_INDIGO if correct is None else OTHER_GREY
    chart = alt.Chart(alt.InlineData(values=rows)).mark_bar().encode(
        y=alt.Y(field="option", type="nominal", sort=alt.EncodingSortField(field="order"), title=None,
                axis=alt.Axis(labelFontSize=14, labelAngle=0, labelExpr="split(datum.label, '\\n')",
                              labelLimit=LABEL_WIDTH * 9, labelAlign="right")),
        x=alt.X(field="count", type="quantitative", title=count_title, scale=alt.Scale(domain=[0, top]),
                axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color(field="right", type="nominal", legend=None,
                        scale=alt.Scale(domain=[True, False], range=[RIGHT_GREEN, others])),
        tooltip=[tip("text", label_title), alt.Tooltip(field="count", type="quantitative", title=count_title)],
    ).properties(height=alt.Step(bar_step(rows)), usermeta={"embedOptions": {"actions": False}})
    return Drawn(chart, Drawing("marks", (len(rows), 1), (len(rows), 1), (1, 1), hover=True))


def option_label(index: int, text: str) -> str:
    """The words beside an option's bar: its number and its text, in lines of at most
    :data:`LABEL_WIDTH` characters (a longer word keeps its own line), joined by newlines."""
    return "\n".join(textwrap.wrap(f"{index + 1}. {text}", LABEL_WIDTH, break_long_words=False) or [f"{index + 1}."])


def bar_step(rows: Sequence[Mapping]) -> int:
    """The height of one option's band: room for its label's lines (the longest label's)."""
    lines = max(row["option"].count("\n") + 1 for row in rows)
    return BAND + LINE * lines
