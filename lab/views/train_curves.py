"""The training page's curves: loss and sequence accuracy per training step, a line per scheme,
and how they were measured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pekit import charts
from pekit.training import HistoryRow
from pekit.charts.lines import MAX_LINE_POINTS
from lab.claims import Claim, Reference, Said
from lab.i18n import _, ngettext
from lab.views.train_names import BATCH_SIZE, _n, _scheme


class Curves(NamedTuple):
    """Loss and sequence accuracy per training step, a line per scheme."""

    loss: dict  # chart spec
    accuracy: dict  # chart spec
    banded: bool  # lines drawn as bands (too many steps for the chart's room)
    block: int  # the most steps one band segment spans (1: every step a point)
    longest: int  # steps of the longest history
    rows: int = 0  # steps drawn over all lines (every scheme's history)
    room: int = MAX_LINE_POINTS  # the points a line chart draws over all its lines before it draws bands
    lines: int = 1  # schemes with a history


def history_frame(histories: dict[str, Sequence[HistoryRow]], field: str, name: str):
    """Long-form history of every scheme: ``step``, ``name`` (the rows' ``field``) and ``scheme``."""
    import pandas as pd

    rows = [(h.step, getattr(h, field), _scheme(scheme)) for scheme, history in histories.items() for h in history]
    return pd.DataFrame(rows, columns=["step", name, "scheme"])


def curves_specs(histories: dict[str, Sequence[HistoryRow]]) -> Curves | None:
    """The loss and sequence-accuracy curves of each scheme's ``histories``; ``None`` while no
    step is known."""
    if not any(histories.values()):
        return None
    height = charts.legend_room(len(histories), 220)
    lengths = [len(h) for h in histories.values() if h]
    points = min(lengths) < 2 or max(lengths) <= 60  # a history of one step is a point, not a line
    # steps on a log axis: a run that succeeds in 30 steps gets as much room as the next 300 steps of one that
    # goes on to the step cap (on a linear axis it would be squashed against the left edge)
    log = max(lengths) > 1
    step_title = _("training step (log scale)") if log else _("training step")
    loss = charts.line_chart(history_frame(histories, "loss", "loss"), x="step", y="loss", series="scheme",
                             x_title=step_title, y_title=_("loss (cross-entropy)"), series_title=_("Scheme"),
                             log_x=log, log_y=True, height=height, points=points)
    acc = charts.line_chart(history_frame(histories, "seq_accuracy", "sequence accuracy"), x="step",
                            y="sequence accuracy", series="scheme", x_title=step_title,
                            y_title=_("sequences right (fresh batch)"), series_title=_("Scheme"), y_domain=(0, 1),
                            log_x=log, height=height, points=points)
    banded = acc.drawing.kind == "bands"
    return Curves(loss.spec(), acc.spec(), banded, acc.drawing.block[0], max(lengths), sum(lengths), MAX_LINE_POINTS,
                  len(lengths))


def curves_caption(curves: Curves) -> Said:
    """How the training curves were measured, and what the accuracy chart draws: every step, or,
    with more steps over all its lines than the points a line chart draws (``curves.room``), bands."""
    room = Reference(curves.room, "pekit.charts.lines.MAX_LINE_POINTS: the points a line chart draws over all its "
                                  "lines before it draws each line as bands")
    if curves.banded:
        return Said(ngettext(
            "Each step's accuracy is measured on that step's {count} fresh examples, before the model learns from "
            "them. {steps} steps on {lines} line exceed the {room} points drawn: the line is banded, lowest to highest "
            "value, over up to {block} consecutive steps.",
            "Each step's accuracy is measured on that step's {count} fresh examples, before the model learns from "
            "them. {steps} steps over {lines} lines exceed the {room} points drawn: each line is banded, lowest to "
            "highest value, over up to {block} consecutive steps.", curves.lines).format(
            count=BATCH_SIZE, steps=_n(curves.rows, ","), lines=curves.lines, room=_n(curves.room, ","),
            block=_n(curves.block, ",")), [Claim("steps drawn", curves.rows, "above", room)])
    return Said(_("Each step's accuracy is measured on that step's {count} fresh examples, before the model learns "
                  "from them. Every step is a point on its line; hover for values.").format(count=BATCH_SIZE),
                [Claim("steps drawn", curves.rows, "at most", room)])
