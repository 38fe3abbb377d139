"""Learned positions next to sinusoidal ones: all-MiniLM-L6-v2's 512 x 384 position table beside the
sinusoidal table of the same shape.

The views of ``pages/fixed_or_learned.py``. pekit computes
(``pekit.pretrained.position_table_summary`` over ``pekit.similarity``) and draws
(``pekit.charts``); every sentence stating a number is made from the numbers by the functions
at the top, which the tests call directly.
"""

from __future__ import annotations

import streamlit as st

import pekit
from pekit import charts, pretrained
from pekit.reduce import block_summary
from pekit.similarity import gram_block_means
from lab.settings import IntSetting

K = IntSetting("k", "Principal components", default=4, minimum=1, maximum=8)
MAX_OFFSET = IntSetting("offset", "Largest offset δ", default=64, minimum=1, maximum=511)
SETTINGS = [K, MAX_OFFSET]
NAMES = ("learned (MiniLM)", "sinusoidal")
SAME = 1e-4  # relative spread below which a quantity counts as the same everywhere


# sentences from numbers ------------------------------------------------------------------------


def colour_statement(colours: pretrained.ColourRange) -> str:
    """What the colour scale of a picture leaves out."""
    if not colours.beyond:
        return f"Colours from {colours.low:.3g} to {colours.high:.3g}; every entry lies within."
    return (f"Colours from {colours.low:.3g} to {colours.high:.3g}: {colours.beyond:,} of {colours.total:,} entries lie "
            "beyond and take the end colours, so that they do not wash out the rest.")


def values_statement(learned: pretrained.PositionTableSummary, sinusoidal: pretrained.PositionTableSummary) -> str:
    lo, hi = learned.value_range
    long_rows = learned.long_rows
    rows = (f" Row{'s' if len(long_rows) > 1 else ''} {', '.join(map(str, long_rows))} "
            f"{'are' if len(long_rows) > 1 else 'is'} more than twice as long as the median row ("
            + ", ".join(f"{float(learned.norms[i]):.2f}" for i in long_rows) + f" against {learned.norm_median:.2f})."
            if long_rows else " No row is more than twice as long as the median row.")
    return (f"The learned values run from {lo:.3f} to {hi:.3f}, the sinusoidal ones from "
            f"{sinusoidal.value_range[0]:.3f} to {sinusoidal.value_range[1]:.3f}. Every sinusoidal row has the same "
            f"length, {sinusoidal.norm_median:.2f} (√(d/2)); the learned rows have a median length of "
            f"{learned.norm_median:.2f}.{rows}")


def offset_statement(learned: pretrained.PositionTableSummary, sinusoidal: pretrained.PositionTableSummary) -> str:
    def band(s: pretrained.PositionTableSummary, name: str) -> str:
        width = s.offsets.max_spread
        if width < SAME:
            return (f"for the {name} table the band stays a line (largest width {width:.1e}): how alike two rows are "
                    "depends on their offset alone")
        return (f"for the {name} table the band is up to {width:.2f} wide: how alike two rows are depends on where "
                "they are, not only on how far apart")

    shown = [d for d in (1, 2, 5, 10) if d < len(learned.offsets.mean) and d < len(sinusoidal.offsets.mean)]
    values = "; ".join(f"δ = {d}: {learned.similarity_at(d):.2f} learned, {sinusoidal.similarity_at(d):.2f} sinusoidal"
                       for d in shown)
    return (f"Mean cosine similarity of rows δ apart: {values}. Over every start, "
            f"{band(sinusoidal, 'sinusoidal')}; {band(learned, 'learned')}.")


def components_statement(summary: pretrained.PositionTableSummary, name: str) -> str:
    c = summary.components
    n = c.scores.shape[0]
    parts = []
    for i in range(len(c.explained)):
        period = float(c.periods[i])
        wave = "a trend with no repeat" if period == float("inf") else (
            "one slow wave over the whole table" if period >= n else f"a strongest period of {period:.1f} positions")
        parts.append(f"PC{i + 1} {float(c.explained[i]):.1%} of the variance, {int(c.crossings[i])} sign change{'' if int(c.crossings[i]) == 1 else 's'}, {wave}")
    pairs = c.pairs()
    pair_text = (" " + "; ".join(f"PC{a + 1} and PC{b + 1} share a period of {float(c.periods[a]):.1f} positions, "
                                  "like the sine and cosine of one frequency" for a, b in pairs) + "."
                 if pairs else " No two neighbouring components share a period.")
    return f"{name}: " + "; ".join(parts) + "." + pair_text


def steps_statement(learned: pretrained.PositionTableSummary, sinusoidal: pretrained.PositionTableSummary) -> str:
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

    return f"{describe(sinusoidal, 'sinusoidal').capitalize()}; {describe(learned, 'learned')}."


# cached work -----------------------------------------------------------------------------------


def position_tables() -> tuple:
    """MiniLM's learned table (512, 384) and the sinusoidal table of the same shape."""
    learned = pretrained.pretrained_position_table(device="cpu")
    return learned, pekit.sinusoidal_encoding(*learned.shape, device="cpu")


@st.cache_resource(max_entries=4, show_spinner="Reading MiniLM's position table…")
def tables() -> dict:
    out = {}
    for name, P in zip(NAMES, position_tables()):
        table = block_summary(P, *charts.drawing_blocks(*P.shape, max_marks=charts.MAX_RECT_MARKS),
                                     extremes=False)
        colours = pretrained.colour_range(table.mean, symmetric=True)
        table_chart = charts.heatmap(table, x_title="Column", y_title="Position",
                                     domain=(colours.low, colours.high), height=300)
        n = P.shape[0]
        gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
        gram_colours = pretrained.colour_range(gram.mean)
        gram_chart = charts.heatmap(gram, x_title="Position", y_title="Position", value_title="P[i]·P[k]",
                                    palette="sequential", domain=(gram_colours.low, gram_colours.high), height=300)
        out[name] = {"table": table_chart.spec(), "drawing": table_chart.drawing, "colours": colour_statement(colours),
                     "gram": gram_chart.spec(), "gram_drawing": gram_chart.drawing,
                     "gram_colours": colour_statement(gram_colours)}
    return out


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
def offsets_view(max_offset: int) -> dict:
    s_learned, s_sin = cut(max_offset=max_offset)
    return {"offsets": charts.offset_similarity_comparison({NAMES[0]: s_learned.offsets, NAMES[1]: s_sin.offsets}).spec(),
            "offset_text": offset_statement(s_learned, s_sin)}


@st.cache_resource(max_entries=8, show_spinner=False)
def components_view(k: int) -> dict:
    s_learned, s_sin = cut(k=k)
    return {"components": [charts.position_components_chart(s.components.scores, explained=s.components.explained).spec()
                           for s in (s_learned, s_sin)],
            "component_text": [components_statement(s_learned, "Learned"), components_statement(s_sin, "Sinusoidal")]}


@st.cache_resource(show_spinner=False)
def whole_table_view() -> dict:
    """What depends on neither slider: value ranges and the distances between neighbours."""
    s_learned, s_sin = full_summaries()
    return {"values": values_statement(s_learned, s_sin),
            "steps": charts.neighbour_distance_chart({NAMES[0]: s_learned.steps, NAMES[1]: s_sin.steps}).spec(),
            "step_text": steps_statement(s_learned, s_sin)}


def summaries(k: int, max_offset: int) -> dict:
    """Every chart and sentence the sliders decide: a slider's move redraws only its own chart."""
    return {**whole_table_view(), **offsets_view(max_offset), **components_view(k)}
