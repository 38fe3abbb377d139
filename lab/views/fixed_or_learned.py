"""Learned positions next to sinusoidal ones: all-MiniLM-L6-v2's 512 x 384 position table beside the
sinusoidal table of the same shape.

The views of ``pages/fixed_or_learned.py``: cached records of what each section shows (pekit
computes with ``pekit.pretrained.position_table_summary`` over ``pekit.similarity`` and draws with
``pekit.charts``), and the functions that turn a record into the sentences stating its numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

import pekit
from pekit import charts, pretrained
from pekit.charts import Drawing
from pekit.reduce import block_summary
from pekit.similarity import gram_block_means
from lab.display import number
from lab.settings import IntSetting

K = IntSetting("k", "Principal components", default=4, minimum=1, maximum=8)
MAX_OFFSET = IntSetting("offset", "Largest offset δ", default=64, minimum=1, maximum=511)
SETTINGS = [K, MAX_OFFSET]
NAMES = ("learned (MiniLM)", "sinusoidal")
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
    rows: str  # what a row and a column of the matrix are, for the caption
    columns: str


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


def colour_statement(colours: pretrained.ColourRange, unit: str = "entries") -> str:
    """What the colour scale of a picture leaves out, counted in ``unit`` (what was coloured:
    the entries, or the blocks drawn when each pixel is a block's mean)."""
    span = f"Colours from {number(colours.low, '.3g')} to {number(colours.high, '.3g')}"
    if not colours.beyond:
        return f"{span}; every one of the {colours.total:,} {unit} lies within."
    return (f"{span}: {colours.beyond:,} of the {colours.total:,} {unit} lie beyond and take the end colours, so "
            "that they do not wash out the rest.")


def picture_caption(picture: Picture) -> str:
    """What a heatmap shows of its matrix, and what its colour scale leaves out."""
    unit = "entries" if picture.drawing.exact else "blocks drawn"
    return picture.drawing.describe(picture.rows, picture.columns) + " " + colour_statement(picture.colours, unit)


def values_statement(view: WholeTables) -> str:
    learned, sinusoidal = view.learned, view.sinusoidal
    lo, hi = learned.value_range
    long_rows = learned.long_rows
    rows = (f" Row{'s' if len(long_rows) > 1 else ''} {', '.join(map(str, long_rows))} "
            f"{'are' if len(long_rows) > 1 else 'is'} more than twice as long as the median row ("
            + ", ".join(f"{float(learned.norms[i]):.2f}" for i in long_rows) + f" against {learned.norm_median:.2f})."
            if long_rows else " No row is more than twice as long as the median row.")
    return (f"The learned values run from {number(lo, '.3f')} to {number(hi, '.3f')}, the sinusoidal ones from "
            f"{number(sinusoidal.value_range[0], '.3f')} to {number(sinusoidal.value_range[1], '.3f')}. Every sinusoidal row has the same "
            f"length, {sinusoidal.norm_median:.2f} (√(d/2)); the learned rows have a median length of "
            f"{learned.norm_median:.2f}.{rows}")


def offset_statement(view: Offsets) -> str:
    learned, sinusoidal = view.learned, view.sinusoidal

    def band(s: pretrained.PositionTableSummary, name: str) -> str:
        width = s.offsets.max_spread
        if width < SAME:
            return (f"for the {name} table the band stays a line (largest width {number(width, '.1e')}): how alike two rows are "
                    "depends on their offset alone")
        return (f"for the {name} table the band is up to {width:.2f} wide: how alike two rows are depends on where "
                "they are, not only on how far apart")

    shown = [d for d in (1, 2, 5, 10) if d < len(learned.offsets.mean) and d < len(sinusoidal.offsets.mean)]
    values = "; ".join(f"δ = {d}: {number(learned.similarity_at(d), '.2f')} learned, "
                       f"{number(sinusoidal.similarity_at(d), '.2f')} sinusoidal"
                       for d in shown)
    return (f"Mean cosine similarity of rows δ apart: {values}. Over every start, "
            f"{band(sinusoidal, 'sinusoidal')}; {band(learned, 'learned')}.")


def components_statement(view: Components) -> str:
    c = view.summary.components
    n = c.scores.shape[0]
    parts = []
    for i in range(len(c.explained)):
        period = float(c.periods[i])
        slow = ("one slow wave over the whole table" if int(c.crossings[i]) <= 2 else
                "a strongest period as long as the whole table, with faster wiggles over it")
        wave = "a trend with no repeat" if period == float("inf") else (
            slow if period >= n else f"a strongest period of {period:.1f} positions")
        parts.append(f"PC{i + 1} {float(c.explained[i]):.1%} of the variance, {int(c.crossings[i])} sign change{'' if int(c.crossings[i]) == 1 else 's'}, {wave}")
    pairs = c.pairs(tolerance=PERIOD_TOLERANCE, phase_tolerance=PHASE_TOLERANCE)
    partner = {a: b for pair in pairs for a, b in (pair, pair[::-1])}
    said = [f"PC{a + 1} and PC{b + 1} share a period of {float(c.periods[a]):.1f} positions and are "
            f"{c.phase_gap(a, b):.0f}° apart in phase, like the sine and cosine of one frequency" for a, b in pairs]
    k = len(c.explained)
    for a in range(k):
        for b in range(a + 1, k):
            if not same_period(c, a, b) or (a, b) in pairs:
                continue
            gap = c.phase_gap(a, b)
            start = f"PC{a + 1} and PC{b + 1} share a period of {float(c.periods[a]):.1f} positions but are {gap:.0f}° apart"
            if abs(gap - 90.0) > PHASE_TOLERANCE:
                said.append(f"{start}, more than {PHASE_TOLERANCE:.0f}° from the 90° of a sine and its cosine")
            else:
                taken = a if a in partner else b
                said.append(f"{start} while PC{taken + 1} already pairs with PC{partner[taken] + 1}, "
                            "closer to 90° (each component pairs once)")
    if k == 1:
        said.insert(0, "With one component shown there is no pair to look for")
    elif not pairs:
        said.insert(0, "No two components pair up as a sine and its cosine would (one period, 90° apart in phase, "
                       f"within {PHASE_TOLERANCE:.0f}°)")
    return f"{view.title}: " + "; ".join(parts) + ". " + "; ".join(said) + "."


def same_period(c: pretrained.PositionComponents, i: int, j: int) -> bool:
    """Whether components ``i`` and ``j`` have the same strongest period, as
    :meth:`~pekit.pretrained.PositionComponents.pairs` judges it."""
    a, b = float(c.periods[i]), float(c.periods[j])
    return a != float("inf") and abs(a - b) <= PERIOD_TOLERANCE * a


def steps_statement(view: WholeTables) -> str:
    def describe(s: pretrained.PositionTableSummary, name: str) -> str:
        lo, hi = float(s.steps.min()), float(s.steps.max())
        if hi - lo <= SAME * hi:
            return f"every step of the {name} table has the same length, {lo:.4f}"
        i, long_steps = s.largest_step, s.long_steps
        jumps = (", and more than twice the median at " + ", ".join(f"{j} → {j + 1} ({float(s.steps[j]):.3f})"
                                                                  for j in long_steps)
                 if long_steps else ", and no step is more than twice the median")
        return (f"the {name} table's steps run from {lo:.4f} to {hi:.4f} (median {float(s.steps.median()):.4f}), "
                f"the longest between positions {i} and {i + 1}{jumps}")

    return f"{describe(view.sinusoidal, 'sinusoidal').capitalize()}; {describe(view.learned, 'learned')}."


# cached work -----------------------------------------------------------------------------------


def position_tables() -> tuple:
    """MiniLM's learned table (512, 384) and the sinusoidal table of the same shape."""
    learned = pretrained.pretrained_position_table(device="cpu")
    return learned, pekit.sinusoidal_encoding(*learned.shape, device="cpu")


@st.cache_resource(max_entries=4, show_spinner="Reading MiniLM's position table…")
def tables() -> tuple[TablePictures, TablePictures]:
    """Both tables and their P·Pᵀ, learned first, each on its own colour scale."""
    out = []
    for name, P in zip(NAMES, position_tables()):
        table = block_summary(P, *charts.drawing_blocks(*P.shape, max_marks=charts.MAX_RECT_MARKS),
                                     extremes=False)
        colours = pretrained.colour_range(table.mean, symmetric=True)
        table_chart = charts.heatmap(table, x_title="Column", y_title="Position",
                                     domain=(colours.low, colours.high), height=300)
        n = P.shape[0]
        gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
        # a table's own products: all positive for the sinusoidal one, of both signs for a learned
        # one, which then takes the diverging palette, centred on 0
        signed = bool((gram.mean < 0).any())
        gram_colours = pretrained.colour_range(gram.mean, symmetric=signed)
        gram_chart = charts.heatmap(gram, x_title="Position", y_title="Position", value_title="P[i]·P[k]",
                                    palette="diverging" if signed else "sequential",
                                    domain=(gram_colours.low, gram_colours.high), height=300)
        out.append(TablePictures(
            name, Picture(table_chart.spec(), table_chart.drawing, colours, "position(s)", "column(s)"),
            Picture(gram_chart.spec(), gram_chart.drawing, gram_colours, "position(s)", "position(s)")))
    return tuple(out)


@st.cache_resource(show_spinner="Measuring both tables…")
def full_summaries() -> tuple[pretrained.PositionTableSummary, pretrained.PositionTableSummary]:
    """Both tables summarised once, at the largest offset and number of components the sliders
    offer; each setting's summary is cut from these (``PositionTableSummary.limited``)."""
    return tuple(pretrained.position_table_summary(P, max_offset=MAX_OFFSET.maximum, k=K.maximum)
                 for P in position_tables())


def cut(*, max_offset: int = MAX_OFFSET.maximum, k: int = K.maximum) -> tuple[pretrained.PositionTableSummary, ...]:
    """Both summaries as the sliders ask; what is not asked stays as measured."""
    return tuple(s.limited(max_offset=max_offset, k=k) for s in full_summaries())


@st.cache_resource(max_entries=64, show_spinner=False)
def offsets_view(max_offset: int) -> Offsets:
    s_learned, s_sin = cut(max_offset=max_offset)
    chart = charts.offset_similarity_comparison({NAMES[0]: s_learned.offsets, NAMES[1]: s_sin.offsets}).spec()
    return Offsets(s_learned, s_sin, chart)


@st.cache_resource(max_entries=8, show_spinner=False)
def components_view(k: int) -> tuple[Components, Components]:
    """Each table's first ``k`` components, learned first."""
    return tuple(Components(name, title, s, charts.position_components_chart(s.components.scores,
                                                                              explained=s.components.explained).spec())
                 for name, title, s in zip(NAMES, ("Learned", "Sinusoidal"), cut(k=k)))


@st.cache_resource(show_spinner=False)
def whole_table_view() -> WholeTables:
    """What depends on neither slider: value ranges and the distances between neighbours."""
    s_learned, s_sin = full_summaries()
    return WholeTables(s_learned, s_sin,
                       charts.neighbour_distance_chart({NAMES[0]: s_learned.steps, NAMES[1]: s_sin.steps}).spec())
