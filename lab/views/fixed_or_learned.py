"""Learned positions next to sinusoidal ones: all-MiniLM-L6-v2's 512 x 384 position table beside the
sinusoidal table of the same shape.

The views of ``pages/fixed_or_learned.py``: cached records of what each section shows (pekit
computes with ``pekit.pretrained.position_table_summary`` over ``pekit.similarity`` and draws with
``pekit.charts``), and the functions that turn a record into the sentences stating its numbers.
"""

from __future__ import annotations

from typing import NamedTuple


import pekit
from pekit import charts, pretrained
from pekit.charts import Drawing
from pekit.reduce import block_summary
from pekit.similarity import gram_block_means
from lab.memo import shared
from lab.display import number
from lab.i18n import N_, _, local_number, localized_resource, ngettext, pgettext
from lab.settings import IntSetting

K = IntSetting("k", N_("Principal components"), default=4, minimum=1, maximum=8)
MAX_OFFSET = IntSetting("offset", N_("Largest offset δ"), default=64, minimum=1, maximum=511)
SETTINGS = [K, MAX_OFFSET]
NAMES = (N_("learned (MiniLM)"), N_("sinusoidal"))  # the records keep them English; people read _(name)
TITLES = (N_("Learned"), N_("Sinusoidal"))  # how each table's components sentence names it
SAME = 1e-4  # relative spread below which a quantity counts as the same everywhere
# two components draw one wave (a sine and its cosine) when their strongest periods agree within
# 1% and their phases differ by 90° within 20°
PERIOD_TOLERANCE = 0.01
PHASE_TOLERANCE = 20.0


# records ---------------------------------------------------------------------------------------


class Picture(NamedTuple):
    """A matrix drawn as a heatmap: its chart, what the chart drew, and its colour scale."""

    chart: dict  # Vega-Lite spec
    drawing: Drawing
    colours: pretrained.ColourRange
    rows: tuple[str, str]  # what a row and a column of the matrix are, for the caption: (singular, plural),
    columns: tuple[str, str]  # in English (the caption translates them)


class TablePictures(NamedTuple):
    """One position table drawn twice: its values (512, 384) and how alike its rows are, P·Pᵀ (512, 512)."""

    name: str  # one of NAMES
    table: Picture
    gram: Picture


class WholeTables(NamedTuple):
    """What depends on neither slider: both tables summarised at the largest settings, and the
    chart of the distances between neighbouring rows."""

    learned: pretrained.PositionTableSummary
    sinusoidal: pretrained.PositionTableSummary
    steps: dict  # Vega-Lite spec


class Offsets(NamedTuple):
    """Cosine similarity of rows δ apart, δ = 0 .. the largest offset asked."""

    learned: pretrained.PositionTableSummary
    sinusoidal: pretrained.PositionTableSummary
    chart: dict  # Vega-Lite spec


class Components(NamedTuple):
    """One table's first k principal components against position."""

    name: str  # one of NAMES
    title: str  # how its sentence names the table
    summary: pretrained.PositionTableSummary
    chart: dict  # Vega-Lite spec


# sentences from numbers ------------------------------------------------------------------------


def _n(value: float, spec: str) -> str:
    """A number written as ``format(value, spec)`` writes it, in the reader's decimal and group
    symbols (the English text stays exactly as before)."""
    return local_number(format(value, spec))


def _numbers(values) -> str:
    """Numbers listed one after another (with a decimal comma, a comma cannot separate them)."""
    return pgettext("between numbers in a list", ", ").join(values)


def _table(name: str) -> str:
    """``"learned"`` or ``"sinusoidal"`` as the sentences name a table."""
    # "sinusoidal" reads the same for a table as for a series (senoidal): one message serves both
    return pgettext("table", "learned") if name == "learned" else _("sinusoidal")


def colour_statement(colours: pretrained.ColourRange, unit: str = "entries") -> str:
    """What the colour scale of a picture leaves out, counted in ``unit`` (what was coloured:
    ``"entries"``, or ``"blocks drawn"`` when each pixel is a block's mean)."""
    span = {"low": number(colours.low, ".3g"), "high": number(colours.high, ".3g"),
            "total": _n(colours.total, ","), "beyond": _n(colours.beyond, ",")}
    entries = unit == "entries"
    if not colours.beyond:  # each message is counted: Portuguese says "each of the 1" and "each of the 5" apart
        within = (ngettext("Colours from {low} to {high}; every one of the {total} entries lies within.",
                           "Colours from {low} to {high}; every one of the {total} entries lies within.", colours.total)
                  if entries else
                  ngettext("Colours from {low} to {high}; every one of the {total} blocks drawn lies within.",
                           "Colours from {low} to {high}; every one of the {total} blocks drawn lies within.",
                           colours.total))
        return within.format(**span)
    beyond = (ngettext("Colours from {low} to {high}: {beyond} of the {total} entries lie beyond and take the end "
                       "colours.",
                       "Colours from {low} to {high}: {beyond} of the {total} entries lie beyond and take the end "
                       "colours.", colours.beyond)
              if entries else
              ngettext("Colours from {low} to {high}: {beyond} of the {total} blocks drawn lie beyond and take the "
                       "end colours.",
                       "Colours from {low} to {high}: {beyond} of the {total} blocks drawn lie beyond and take the "
                       "end colours.", colours.beyond))
    return beyond.format(**span)


def blocks_caption(picture: Picture) -> str:
    """What a heatmap shows of its matrix: every entry, or the means of blocks of them (the two
    tables share their shape, so one sentence serves both)."""
    rows, columns = (tuple(_(noun) for noun in nouns) for nouns in (picture.rows, picture.columns))
    return picture.drawing.describe(rows, columns)


def colours_caption(picture: Picture) -> str:
    """What a heatmap's colour scale leaves out, counted in what was coloured."""
    return colour_statement(picture.colours, "entries" if picture.drawing.exact else "blocks drawn")


def picture_caption(picture: Picture) -> str:
    """What a heatmap shows of its matrix, and what its colour scale leaves out."""
    return blocks_caption(picture) + " " + colours_caption(picture)


def values_statement(view: WholeTables) -> str:
    learned, sinusoidal = view.learned, view.sinusoidal
    lo, hi = learned.value_range
    long_rows = learned.long_rows
    if long_rows:
        rows = " " + ngettext("Row {rows} is more than twice as long as the median row ({lengths} against {median}).",
                              "Rows {rows} are more than twice as long as the median row ({lengths} against "
                              "{median}).", len(long_rows)).format(
            rows=", ".join(map(str, long_rows)),
            lengths=_numbers([_n(float(learned.norms[i]), ".2f") for i in long_rows]),
            median=_n(learned.norm_median, ".2f"))
    else:
        rows = " " + _("No row is more than twice as long as the median row.")
    return _("The learned values run from {low} to {high}, the sinusoidal ones from {sin_low} to {sin_high}. Every "
             "sinusoidal row has the same length, {sin_length} (√(d/2)); the learned rows have a median length of "
             "{median}.{rows}").format(
        low=number(lo, ".3f"), high=number(hi, ".3f"), sin_low=number(sinusoidal.value_range[0], ".3f"),
        sin_high=number(sinusoidal.value_range[1], ".3f"), sin_length=_n(sinusoidal.norm_median, ".2f"),
        median=_n(learned.norm_median, ".2f"), rows=rows)


def offset_statement(view: Offsets) -> str:
    learned, sinusoidal = view.learned, view.sinusoidal

    def band(s: pretrained.PositionTableSummary, name: str) -> str:
        width = s.offsets.max_spread
        if width < SAME:
            return _("for the {name} table the band stays a line (largest width {width}): how alike two rows are "
                     "depends on their offset alone").format(name=_table(name), width=number(width, ".1e"))
        return _("for the {name} table the band is up to {width} wide: how alike two rows are depends on where they "
                 "are, not only on how far apart").format(name=_table(name), width=_n(width, ".2f"))

    shown = [d for d in (1, 2, 5, 10) if d < len(learned.offsets.mean) and d < len(sinusoidal.offsets.mean)]
    values = "; ".join(_("δ = {offset}: {learned} learned, {sinusoidal} sinusoidal").format(
        offset=d, learned=number(learned.similarity_at(d), ".2f"),
        sinusoidal=number(sinusoidal.similarity_at(d), ".2f"))
        for d in shown)
    return _("Mean cosine similarity of rows δ apart: {values}. Over every start, {sinusoidal}; {learned}.").format(
        values=values, sinusoidal=band(sinusoidal, "sinusoidal"), learned=band(learned, "learned"))


def components_statement(view: Components) -> str:
    c = view.summary.components
    n = c.scores.shape[0]
    parts = []
    for i in range(len(c.explained)):
        period = float(c.periods[i])
        slow = (_("one slow wave over the whole table") if int(c.crossings[i]) <= 2 else
                _("a strongest period as long as the whole table, with faster wiggles over it"))
        wave = _("a trend with no repeat") if period == float("inf") else (
            slow if period >= n else _("a strongest period of {period} positions").format(period=_n(period, ".1f")))
        crossings = int(c.crossings[i])
        parts.append(ngettext("PC{index} {share} of the variance, {count} sign change, {wave}",
                              "PC{index} {share} of the variance, {count} sign changes, {wave}", crossings).format(
            index=i + 1, share=_n(float(c.explained[i]), ".1%"), count=crossings, wave=wave))
    pairs = c.pairs(tolerance=PERIOD_TOLERANCE, phase_tolerance=PHASE_TOLERANCE)
    partner = {a: b for pair in pairs for a, b in (pair, pair[::-1])}
    said = [_("PC{a} and PC{b} share a period of {period} positions and are {gap}° apart in phase, like the sine and "
              "cosine of one frequency").format(a=a + 1, b=b + 1, period=_n(float(c.periods[a]), ".1f"),
                                                gap=_n(c.phase_gap(a, b), ".0f")) for a, b in pairs]
    k = len(c.explained)
    for a in range(k):
        for b in range(a + 1, k):
            if not same_period(c, a, b) or (a, b) in pairs:
                continue
            values = {"a": a + 1, "b": b + 1, "period": _n(float(c.periods[a]), ".1f"),
                      "gap": _n(c.phase_gap(a, b), ".0f"), "tolerance": _n(PHASE_TOLERANCE, ".0f")}
            if abs(c.phase_gap(a, b) - 90.0) > PHASE_TOLERANCE:
                said.append(_("PC{a} and PC{b} share a period of {period} positions but are {gap}° apart, more than "
                              "{tolerance}° from the 90° of a sine and its cosine").format(**values))
            else:
                taken = a if a in partner else b
                said.append(_("PC{a} and PC{b} share a period of {period} positions but are {gap}° apart while "
                              "PC{taken} already pairs with PC{partner}, closer to 90° (each component pairs "
                              "once)").format(taken=taken + 1, partner=partner[taken] + 1, **values))
    if k == 1:
        said.insert(0, _("With one component shown there is no pair to look for"))
    elif not pairs:
        said.insert(0, _("No two components pair up as a sine and its cosine would (one period, 90° apart in phase, "
                         "within {tolerance}°)").format(tolerance=_n(PHASE_TOLERANCE, ".0f")))
    return f"{_(view.title)}: " + "; ".join(parts) + ". " + "; ".join(said) + "."


def same_period(c: pretrained.PositionComponents, i: int, j: int) -> bool:
    """Whether components ``i`` and ``j`` have the same strongest period, as
    :meth:`~pekit.pretrained.PositionComponents.pairs` judges it."""
    a, b = float(c.periods[i]), float(c.periods[j])
    return a != float("inf") and abs(a - b) <= PERIOD_TOLERANCE * a


def steps_statement(view: WholeTables) -> str:
    def describe(s: pretrained.PositionTableSummary, name: str) -> str:
        lo, hi = float(s.steps.min()), float(s.steps.max())
        if hi - lo <= SAME * hi:
            return _("every step of the {name} table has the same length, {length}").format(
                name=_table(name), length=_n(lo, ".4f"))
        i, long_steps = s.largest_step, s.long_steps
        if long_steps:
            jumps = _(", and more than twice the median at {steps}").format(
                steps=", ".join(_("{start} → {end} ({length})").format(
                    start=j, end=j + 1, length=_n(float(s.steps[j]), ".3f")) for j in long_steps))
        else:
            jumps = _(", and no step is more than twice the median")
        return _("the {name} table's steps run from {low} to {high} (median {median}), the longest between positions "
                 "{start} and {end}{jumps}").format(
            name=_table(name), low=_n(lo, ".4f"), high=_n(hi, ".4f"), median=_n(float(s.steps.median()), ".4f"),
            start=i, end=i + 1, jumps=jumps)

    first = describe(view.sinusoidal, "sinusoidal")
    return f"{first[:1].upper()}{first[1:]}; {describe(view.learned, 'learned')}."


# cached work -----------------------------------------------------------------------------------


def position_tables() -> tuple:
    """MiniLM's learned table (512, 384) and the sinusoidal table of the same shape."""
    learned = pretrained.pretrained_position_table(device="cpu")
    return learned, pekit.sinusoidal_encoding(*learned.shape, device="cpu")


@localized_resource(max_entries=4)
def tables() -> tuple[TablePictures, TablePictures]:
    """Both tables and their P·Pᵀ, learned first, each on its own colour scale."""
    out = []
    for name, P in zip(NAMES, position_tables()):
        table = block_summary(P, *charts.drawing_blocks(*P.shape, max_marks=charts.MAX_RECT_MARKS),
                                     extremes=False)
        colours = pretrained.colour_range(table.mean, symmetric=True)
        table_chart = charts.heatmap(table, x_title=_("Column"), y_title=_("Position"),
                                     domain=(colours.low, colours.high), height=300)
        n = P.shape[0]
        gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
        # a table's own products, in the lab's one palette for dot products of positions (the
        # diverging one, centred on 0): all positive for the sinusoidal table, of both signs for
        # the learned one, side by side in the same colours
        gram_colours = pretrained.colour_range(gram.mean, symmetric=True)
        gram_chart = charts.heatmap(gram, x_title=_("Position"), y_title=_("Position"), value_title="P[i]·P[k]",
                                    palette="diverging", domain=(gram_colours.low, gram_colours.high), height=300)
        positions, columns = (N_("position"), N_("positions")), (N_("column"), N_("columns"))
        out.append(TablePictures(
            name, Picture(table_chart.spec(), table_chart.drawing, colours, positions, columns),
            Picture(gram_chart.spec(), gram_chart.drawing, gram_colours, positions, positions)))
    return tuple(out)


@shared()
def full_summaries() -> tuple[pretrained.PositionTableSummary, pretrained.PositionTableSummary]:
    """Both tables summarised once, at the largest offset and number of components the sliders
    offer; each setting's summary is cut from these (``PositionTableSummary.limited``)."""
    return tuple(pretrained.position_table_summary(P, max_offset=MAX_OFFSET.maximum, k=K.maximum)
                 for P in position_tables())


def cut(*, max_offset: int = MAX_OFFSET.maximum, k: int = K.maximum) -> tuple[pretrained.PositionTableSummary, ...]:
    """Both summaries as the sliders ask; what is not asked stays as measured."""
    return tuple(s.limited(max_offset=max_offset, k=k) for s in full_summaries())


@localized_resource(max_entries=64)
def offsets_view(max_offset: int) -> Offsets:
    s_learned, s_sin = cut(max_offset=max_offset)
    chart = charts.offset_similarity_comparison({_(NAMES[0]): s_learned.offsets, _(NAMES[1]): s_sin.offsets}).spec()
    return Offsets(s_learned, s_sin, chart)


@localized_resource(max_entries=8)
def components_view(k: int) -> tuple[Components, Components]:
    """Each table's first ``k`` components, learned first."""
    return tuple(Components(name, title, s, charts.position_components_chart(s.components.scores,
                                                                              explained=s.components.explained).spec())
                 for name, title, s in zip(NAMES, TITLES, cut(k=k)))


@localized_resource()
def whole_table_view() -> WholeTables:
    """What depends on neither slider: value ranges and the distances between neighbours."""
    s_learned, s_sin = full_summaries()
    return WholeTables(s_learned, s_sin,
                       charts.neighbour_distance_chart({_(NAMES[0]): s_learned.steps, _(NAMES[1]): s_sin.steps}).spec())
