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
from lab.claims import Claim, Reference, Said, joined
from lab.display import number
from lab.i18n import N_, _, local_number, localized_resource, ngettext, pgettext
from lab.settings import IntSetting

K = IntSetting("k", N_("Principal components"), default=4, minimum=1, maximum=8)
MAX_OFFSET = IntSetting("offset", N_("Largest offset δ"), default=64, minimum=1, maximum=511)
SETTINGS = [K, MAX_OFFSET]
NAMES = (N_("learned (MiniLM)"), N_("sinusoidal"))  # the records keep them English; people read _(name)
# the control beside each measurement of the learned table: its own entries shuffled at random
CONTROL = N_("learned, shuffled (control)")
CONTROL_SEED = 0
CONTROL_HOW = "the same measurement of the learned table's own entries shuffled at random (pekit.pretrained.shuffled_table, seed 0)"
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
    control: pretrained.PositionTableSummary  # the learned table's entries shuffled at random


class Offsets(NamedTuple):
    """Cosine similarity of rows δ apart, δ = 0 .. the largest offset asked."""

    learned: pretrained.PositionTableSummary
    sinusoidal: pretrained.PositionTableSummary
    chart: dict  # Vega-Lite spec
    control: pretrained.PositionTableSummary  # the learned table's entries shuffled at random


class Components(NamedTuple):
    """One table's first k principal components against position."""

    name: str  # one of NAMES
    title: str  # how its sentence names the table
    summary: pretrained.PositionTableSummary
    chart: dict  # Vega-Lite spec
    control: pretrained.PositionTableSummary | None = None  # beside the learned table: its entries shuffled


# sentences from numbers ------------------------------------------------------------------------


def _n(value: float, spec: str) -> str:
    """A number written as ``format(value, spec)`` writes it, in the reader's decimal and group
    symbols (the English text stays exactly as before)."""
    return local_number(format(value, spec))


def _numbers(values) -> str:
    """Numbers listed one after another (with a decimal comma, a comma cannot separate them)."""
    return pgettext("between numbers in a list", ", ").join(values)


def colour_statement(colours: pretrained.ColourRange, unit: str = "entries") -> Said:
    """What the colour scale of a picture leaves out, counted in ``unit`` (what was coloured:
    ``"entries"``, or ``"blocks drawn"`` when each pixel is a block's mean)."""
    span = {"low": number(colours.low, ".3g"), "high": number(colours.high, ".3g"),
            "total": _n(colours.total, ","), "beyond": _n(colours.beyond, ",")}
    claims = [Claim("colour scale's low end", colours.low), Claim("colour scale's high end", colours.high),
              Claim(f"{unit} coloured", colours.total), Claim(f"{unit} beyond the scale", colours.beyond)]
    entries = unit == "entries"
    if not colours.beyond:  # each message is counted: Portuguese says "each of the 1" and "each of the 5" apart
        within = (ngettext("Colours from {low} to {high}; every one of the {total} entries lies within.",
                           "Colours from {low} to {high}; every one of the {total} entries lies within.", colours.total)
                  if entries else
                  ngettext("Colours from {low} to {high}; every one of the {total} blocks drawn lies within.",
                           "Colours from {low} to {high}; every one of the {total} blocks drawn lies within.",
                           colours.total))
        return Said(within.format(**span), claims)
    beyond = (ngettext("Colours from {low} to {high}: {beyond} of the {total} entries lie beyond and take the end "
                       "colours.",
                       "Colours from {low} to {high}: {beyond} of the {total} entries lie beyond and take the end "
                       "colours.", colours.beyond)
              if entries else
              ngettext("Colours from {low} to {high}: {beyond} of the {total} blocks drawn lie beyond and take the "
                       "end colours.",
                       "Colours from {low} to {high}: {beyond} of the {total} blocks drawn lie beyond and take the "
                       "end colours.", colours.beyond))
    return Said(beyond.format(**span), claims)


def _drawing_claims(drawing: Drawing) -> list[Claim]:
    """The numbers :meth:`pekit.charts.Drawing.describe` writes of a heatmap, as claims: its rows,
    columns and entries (those it states), and for block means each block's rows and columns and
    the blocks drawn."""
    (rows, columns), entries = drawing.shape, drawing.shape[0] * drawing.shape[1]
    if drawing.exact and entries == 1:
        return [Claim("entries", 1)]
    claims = [Claim("rows", rows), Claim("columns", columns)]
    if drawing.exact and drawing.hover:
        return claims
    claims.append(Claim("entries", entries))
    if not drawing.exact:
        claims += [Claim("rows per block", drawing.block[0]), Claim("columns per block", drawing.block[1]),
                   Claim("block rows drawn", drawing.grid[0]), Claim("block columns drawn", drawing.grid[1])]
    return claims


def blocks_caption(picture: Picture) -> Said:
    """What a heatmap shows of its matrix: every entry, or the means of blocks of them (the two
    tables share their shape, so one sentence serves both)."""
    return Said(picture.drawing.describe(), _drawing_claims(picture.drawing))


def colours_caption(picture: Picture) -> Said:
    """What a heatmap's colour scale leaves out, counted in what was coloured."""
    return colour_statement(picture.colours, "entries" if picture.drawing.exact else "blocks drawn")


def picture_caption(picture: Picture) -> Said:
    """What a heatmap shows of its matrix, and what its colour scale leaves out."""
    return joined([blocks_caption(picture), colours_caption(picture)])


def _against(value: float, reference: float) -> str:
    """The relation a measured number stands in to its control's (a claim says which it is)."""
    return "above" if value > reference else "below" if value < reference else "equal"


# one whole message per table and case (a table's name slotted into a sentence cannot agree with it)
BAND_LINE = {
    "sinusoidal": N_("Over every start, the band of the sinusoidal table stays a line (largest width {width}): how "
                     "alike two rows are depends on their offset alone."),
    "learned": N_("Over every start, the band of the learned table stays a line (largest width {width}): how alike "
                  "two rows are depends on their offset alone."),
}
BAND_WIDE = {
    "sinusoidal": N_("Over every start, the band of the sinusoidal table is up to {width} wide: how alike two rows "
                     "are depends on where they are, not only on how far apart."),
    "learned": N_("Over every start, the band of the learned table is up to {width} wide: how alike two rows are "
                  "depends on where they are, not only on how far apart."),
}
STEPS = {
    ("sinusoidal", "same"): N_("Every step of the sinusoidal table has the same length, {length}."),
    ("sinusoidal", "jumps"): N_("The sinusoidal table's steps run from {low} to {high} (median {median}), the longest "
                                "between positions {start} and {end}, and more than twice the median at {steps}."),
    ("sinusoidal", "none"): N_("The sinusoidal table's steps run from {low} to {high} (median {median}), the longest "
                               "between positions {start} and {end}, and no step is more than twice the median."),
    ("learned", "same"): N_("Every step of the learned table has the same length, {length}."),
    ("learned", "jumps"): N_("The learned table's steps run from {low} to {high} (median {median}), the longest "
                             "between positions {start} and {end}, and more than twice the median at {steps}."),
    ("learned", "none"): N_("The learned table's steps run from {low} to {high} (median {median}), the longest "
                            "between positions {start} and {end}, and no step is more than twice the median."),
}


def values_statement(view: WholeTables) -> Said:
    """Both tables' value ranges and row lengths, the learned rows more than twice the median, and
    the same count on the control (the learned entries shuffled at random): a long row made by a
    few large entries, wherever they stand, is no sign of position."""
    learned, sinusoidal, control = view.learned, view.sinusoidal, view.control
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
    count = len(control.long_rows)
    rows += " " + ngettext("A control, the same entries shuffled at random over the table: {count} row is more than "
                           "twice its median ({median}).",
                           "A control, the same entries shuffled at random over the table: {count} rows are more "
                           "than twice its median ({median}).", count).format(
        count=count, median=_n(control.norm_median, ".2f"))
    short, long = sinusoidal.norm_range
    said = _("The learned values run from {low} to {high}, the sinusoidal ones from {sin_low} to {sin_high}. Every "
             "sinusoidal row has the same length, {sin_length} (√(d/2)); the learned rows have a median length of "
             "{median}.{rows}").format(
        low=number(lo, ".3f"), high=number(hi, ".3f"), sin_low=number(sinusoidal.value_range[0], ".3f"),
        sin_high=number(sinusoidal.value_range[1], ".3f"), sin_length=_n(sinusoidal.norm_median, ".2f"),
        median=_n(learned.norm_median, ".2f"), rows=rows)
    claims = [Claim("sinusoidal rows: longest − shortest", long - short, "at most",
                    Reference(SAME * long, "SAME (1e-4) of the longest sinusoidal row")),
              Claim("learned rows more than twice the median", len(long_rows), _against(len(long_rows), count),
                    Reference(count, CONTROL_HOW))]
    if long_rows:
        claims.append(Claim("shortest of the rows named long", min(float(learned.norms[i]) for i in long_rows),
                            "above", Reference(2 * learned.norm_median, "twice the median row")))
    else:
        claims.append(Claim("longest learned row", learned.norm_range[1], "at most",
                            Reference(2 * learned.norm_median, "twice the median row")))
    return Said(said, claims)


def offset_statement(view: Offsets) -> Said:
    """Mean similarity of rows δ apart in both tables and in the control (the learned entries
    shuffled at random: how alike neighbours are when their order means nothing), and whether each
    table's band over every start stays a line (its width against SAME; one whole sentence per
    table and case)."""
    learned, sinusoidal, control = view.learned, view.sinusoidal, view.control
    line = Reference(SAME, "SAME (1e-4): a band narrower is a line")
    shown = [d for d in (1, 2, 5, 10) if d < len(learned.offsets.mean) and d < len(sinusoidal.offsets.mean)]
    values = "; ".join(_("δ = {offset}: {learned} learned, {sinusoidal} sinusoidal").format(
        offset=d, learned=number(learned.similarity_at(d), ".2f"),
        sinusoidal=number(sinusoidal.similarity_at(d), ".2f"))
        for d in shown)
    said = [_("Mean cosine similarity of rows δ apart: {values}.").format(values=values)]
    claims = [Claim("offsets shown", tuple(shown)),
              Claim("sinusoidal: mean similarity at each offset shown",
                    tuple(sinusoidal.similarity_at(d) for d in shown))]
    sin_width, learned_width = sinusoidal.offsets.max_spread, learned.offsets.max_spread
    for name, width in (("sinusoidal", sin_width), ("learned", learned_width)):
        if width < SAME:
            said.append(_(BAND_LINE[name]).format(width=number(width, ".1e")))
        else:
            said.append(_(BAND_WIDE[name]).format(width=_n(width, ".2f")))
        claims.append(Claim(f"{name}: widest band", width, "below" if width < SAME else "at least", line))
    controls = _numbers([_("{value} at δ = {offset}").format(value=number(control.similarity_at(d), ".2f"), offset=d)
                         for d in shown])
    said.append(_("A control, the learned entries shuffled at random over the table: {values}.").format(
        values=controls))
    for d in shown:
        value, reference = learned.similarity_at(d), control.similarity_at(d)
        claims.append(Claim(f"learned: mean similarity at δ = {d}", value, _against(value, reference),
                            Reference(reference, CONTROL_HOW)))
    return Said(" ".join(said), claims)


def components_statement(view: Components) -> Said:
    """Each component's share, sign changes and strongest period, and which pair up as a sine and
    its cosine (one period, 90° apart within PHASE_TOLERANCE); for the learned table, the same
    count of pairs on its control (its entries shuffled at random). The claims: each wave word
    against one slow wave's 2 sign changes, each phase against the tolerance, the pairs against
    the control's."""
    c = view.summary.components
    n = c.scores.shape[0]
    parts, claims = [], []
    slow_wave = Reference(2, "the sign changes of one slow wave over the table")
    for i in range(len(c.explained)):
        period = float(c.periods[i])
        crossings = int(c.crossings[i])
        slow = (_("one slow wave over the whole table") if crossings <= 2 else
                _("a strongest period as long as the whole table, with faster wiggles over it"))
        wave = _("a trend with no repeat") if period == float("inf") else (
            slow if period >= n else _("a strongest period of {period} positions").format(period=_n(period, ".1f")))
        if period != float("inf") and period >= n:
            claims.append(Claim(f"PC{i + 1}: sign changes", crossings, "at most" if crossings <= 2 else "above",
                                slow_wave))
        parts.append(ngettext("PC{index} {share} of the variance, {count} sign change, {wave}",
                              "PC{index} {share} of the variance, {count} sign changes, {wave}", crossings).format(
            index=i + 1, share=_n(float(c.explained[i]), ".1%"), count=crossings, wave=wave))
    pairs = c.pairs(tolerance=PERIOD_TOLERANCE, phase_tolerance=PHASE_TOLERANCE)
    partner = {a: b for pair in pairs for a, b in (pair, pair[::-1])}
    tolerance = Reference(PHASE_TOLERANCE, "PHASE_TOLERANCE: how far from 90° a sine and its cosine may be")
    said = [_("PC{a} and PC{b} share a period of {period} positions and are {gap}° apart in phase, like the sine and "
              "cosine of one frequency").format(a=a + 1, b=b + 1, period=_n(float(c.periods[a]), ".1f"),
                                                gap=_n(c.phase_gap(a, b), ".0f")) for a, b in pairs]
    claims += [Claim(f"PC{a + 1}, PC{b + 1}: phase gap's distance from 90°", abs(c.phase_gap(a, b) - 90.0), "at most",
                     tolerance) for a, b in pairs]
    k = len(c.explained)
    for a in range(k):
        for b in range(a + 1, k):
            if not same_period(c, a, b) or (a, b) in pairs:
                continue
            values = {"a": a + 1, "b": b + 1, "period": _n(float(c.periods[a]), ".1f"),
                      "gap": _n(c.phase_gap(a, b), ".0f"), "tolerance": _n(PHASE_TOLERANCE, ".0f")}
            off = abs(c.phase_gap(a, b) - 90.0)
            if off > PHASE_TOLERANCE:
                said.append(_("PC{a} and PC{b} share a period of {period} positions but are {gap}° apart, more than "
                              "{tolerance}° from the 90° of a sine and its cosine").format(**values))
                claims.append(Claim(f"PC{a + 1}, PC{b + 1}: phase gap's distance from 90°", off, "above", tolerance))
            else:
                taken = a if a in partner else b
                said.append(_("PC{a} and PC{b} share a period of {period} positions but are {gap}° apart while "
                              "PC{taken} already pairs with PC{partner}, closer to 90° (each component pairs "
                              "once)").format(taken=taken + 1, partner=partner[taken] + 1, **values))
                first, second = sorted((taken, partner[taken]))
                claims.append(Claim(f"PC{first + 1}, PC{second + 1}: phase gap's distance from 90°",
                                    abs(c.phase_gap(first, second) - 90.0), "at most",
                                    Reference(off, f"PC{a + 1} and PC{b + 1}'s distance from 90°")))
    cases = ("one component",) if k == 1 else ("no pair",) if not pairs else ()
    if k == 1:
        said.insert(0, _("With one component shown there is no pair to look for"))
    elif not pairs:
        said.insert(0, _("No two components pair up as a sine and its cosine would (one period, 90° apart in phase, "
                         "within {tolerance}°)").format(tolerance=_n(PHASE_TOLERANCE, ".0f")))
    text = f"{_(view.title)}: " + "; ".join(parts) + ". " + "; ".join(said) + "."
    if view.control is not None and k > 1:
        control = view.control.components
        found = len(control.pairs(tolerance=PERIOD_TOLERANCE, phase_tolerance=PHASE_TOLERANCE))
        low, high = int(min(control.crossings)), int(max(control.crossings))
        text += " " + ngettext("A control, the same entries shuffled at random over the table: {count} pair among its "
                               "first {k} components, which change sign {low} to {high} times.",
                               "A control, the same entries shuffled at random over the table: {count} pairs among "
                               "its first {k} components, which change sign {low} to {high} times.", found).format(
            count=found, k=k, low=low, high=high)
        claims.append(Claim("pairs like a sine and its cosine", len(pairs), _against(len(pairs), found),
                            Reference(found, CONTROL_HOW)))
    return Said(text, claims, cases)


def same_period(c: pretrained.PositionComponents, i: int, j: int) -> bool:
    """Whether components ``i`` and ``j`` have the same strongest period, as
    :meth:`~pekit.pretrained.PositionComponents.pairs` judges it."""
    a, b = float(c.periods[i]), float(c.periods[j])
    return a != float("inf") and abs(a - b) <= PERIOD_TOLERANCE * a


def steps_statement(view: WholeTables) -> Said:
    """The distances between neighbouring rows of both tables: equal everywhere (within SAME) or
    their range, median and the steps more than twice the median (one whole sentence per table and
    case); and the learned table's median step against its control's (the same entries shuffled at
    random: neighbours that owe nothing to order)."""
    sinusoidal, learned, control = view.sinusoidal, view.learned, view.control
    sin_case, sin_fields, claims = _steps_case(sinusoidal, "sinusoidal")
    learned_case, learned_fields, learned_claims = _steps_case(learned, "learned")
    claims += learned_claims
    if sin_case != "same":  # the learned median step is claimed against its control's, below
        claims.append(Claim("sinusoidal: median step", sinusoidal.step_median))
    said = [_(STEPS[name, case]).format(**fields)
            for name, case, fields in (("sinusoidal", sin_case, sin_fields), ("learned", learned_case, learned_fields))]
    said.append(ngettext("A control, the learned entries shuffled at random over the table: median step {median}, "
                         "{count} step more than twice it.",
                         "A control, the learned entries shuffled at random over the table: median step {median}, "
                         "{count} steps more than twice it.", len(control.long_steps)).format(
        median=_n(control.step_median, ".4f"), count=len(control.long_steps)))
    claims += [Claim("learned: median step", learned.step_median, _against(learned.step_median, control.step_median),
                     Reference(control.step_median, CONTROL_HOW)),
               Claim("learned: steps more than twice the median", len(learned.long_steps),
                     _against(len(learned.long_steps), len(control.long_steps)),
                     Reference(len(control.long_steps), CONTROL_HOW))]
    return Said(" ".join(said), claims)


def _steps_case(s: pretrained.PositionTableSummary, name: str) -> tuple[str, dict, list[Claim]]:
    """Which sentence states a table's steps (``"same"``: every step one length; ``"jumps"``: some
    more than twice the median; ``"none"``: none), the numbers it writes, and their claims (all but
    the median step, which :func:`steps_statement` claims)."""
    lo, hi = s.step_range
    spread = Reference(SAME * hi, "SAME (1e-4) of the longest step")
    if hi - lo <= SAME * hi:
        return "same", {"length": _n(lo, ".4f")}, [
            Claim(f"{name}: longest − shortest step", hi - lo, "at most", spread), Claim(f"{name}: step length", lo)]
    i, long_steps, median = s.largest_step, s.long_steps, s.step_median
    twice = Reference(2 * median, "twice the median step")
    fields = {"low": _n(lo, ".4f"), "high": _n(hi, ".4f"), "median": _n(median, ".4f"), "start": i, "end": i + 1}
    claims = [Claim(f"{name}: longest − shortest step", hi - lo, "above", spread),
              Claim(f"{name}: shortest step", lo),
              Claim(f"{name}: where the longest step starts", i)]
    if not long_steps:
        return "none", fields, claims + [Claim(f"{name}: longest step", hi, "at most", twice)]
    lengths = tuple(float(s.steps[j]) for j in long_steps)
    fields["steps"] = ", ".join(_("{start} → {end} ({length})").format(start=j, end=j + 1, length=_n(length, ".3f"))
                                for j, length in zip(long_steps, lengths))
    return "jumps", fields, claims + [
        Claim(f"{name}: longest step", hi), Claim(f"{name}: where the steps named long start", tuple(long_steps)),
        Claim(f"{name}: lengths of the steps named long", lengths),
        Claim(f"{name}: shortest of the steps named long", min(lengths), "above", twice)]


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
        out.append(TablePictures(name, Picture(table_chart.spec(), table_chart.drawing, colours),
                                 Picture(gram_chart.spec(), gram_chart.drawing, gram_colours)))
    return tuple(out)


@shared()
def full_summaries() -> tuple[pretrained.PositionTableSummary, ...]:
    """Both tables and the control (the learned entries shuffled at random) summarised once, at
    the largest offset and number of components the sliders offer; each setting's summary is cut
    from these (``PositionTableSummary.limited``)."""
    learned, sinusoidal = position_tables()
    control = pretrained.shuffled_table(learned, seed=CONTROL_SEED)
    return tuple(pretrained.position_table_summary(P, max_offset=MAX_OFFSET.maximum, k=K.maximum)
                 for P in (learned, sinusoidal, control))


def cut(*, max_offset: int = MAX_OFFSET.maximum, k: int = K.maximum) -> tuple[pretrained.PositionTableSummary, ...]:
    """Both summaries as the sliders ask; what is not asked stays as measured."""
    return tuple(s.limited(max_offset=max_offset, k=k) for s in full_summaries())


@localized_resource(max_entries=64)
def offsets_view(max_offset: int) -> Offsets:
    s_learned, s_sin, s_control = cut(max_offset=max_offset)
    chart = charts.offset_similarity_comparison({_(NAMES[0]): s_learned.offsets, _(NAMES[1]): s_sin.offsets,
                                                 _(CONTROL): s_control.offsets}).spec()
    return Offsets(s_learned, s_sin, chart, s_control)


@localized_resource(max_entries=8)
def components_view(k: int) -> tuple[Components, Components]:
    """Each table's first ``k`` components, learned first."""
    s_learned, s_sin, s_control = cut(k=k)
    return tuple(Components(name, title, s, charts.position_components_chart(s.components.scores,
                                                                              explained=s.components.explained).spec(),
                            control)
                 for name, title, s, control in zip(NAMES, TITLES, (s_learned, s_sin), (s_control, None)))


@localized_resource()
def whole_table_view() -> WholeTables:
    """What depends on neither slider: value ranges and the distances between neighbours."""
    s_learned, s_sin, s_control = full_summaries()
    return WholeTables(s_learned, s_sin,
                       charts.neighbour_distance_chart({_(NAMES[0]): s_learned.steps, _(NAMES[1]): s_sin.steps,
                                                        _(CONTROL): s_control.steps}).spec(), s_control)
