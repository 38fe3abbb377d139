"""The encoding heatmap page's computed views (the table, its columns, similarities and
wavelengths, as typed records of chart specs and tables) and the sentences that state their
numbers."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

import pekit
from pekit import charts
from pekit.charts import Drawing
from pekit.similarity import (
    EncodingProperties,
    encoding_properties,
    gram_block_means,
    neighbour_distances,
    similarity_by_offset,
)

# Results are shared by every session as they are (st.cache_resource): a rerun that finds one
# neither unpickles nor copies it. Records are frozen, and nothing here or on the page changes
# a chart spec or a table after it is made.

LAYOUTS = pekit.LAYOUTS  # the column layouts the page offers
DISTINCT = 1e-9  # two positions whose codes are closer than this share a code


@dataclass(frozen=True)
class Steps:
    """The distance between neighbouring positions, ‖P[i+1] − P[i]‖, over every i."""

    smallest: float
    largest: float


@dataclass(frozen=True)
class TableView:
    """Everything on the page that depends on the table P (``(n, d)``) but not on the chosen
    columns: the settings it was made with, the heatmap of P and what it drew, the similarity
    matrix P·Pᵀ (block means when large), P[i]·P[i+δ] against δ measured at ``starts`` rows
    (``max_spread``: the widest band over δ), the neighbour steps (``None`` for one position)
    and the wavelength of each column pair."""

    n: int
    d: int
    base: int
    start: int
    layout: str
    heatmap: dict
    drawing: Drawing
    gram: dict
    gram_drawing: Drawing
    offsets: dict
    max_spread: float
    starts: int
    steps: Steps | None
    frequencies: pd.DataFrame

    @property
    def cells(self) -> int:
        """Entries of P."""
        return self.n * self.d

    @property
    def downloadable(self) -> bool:
        """Whether P is small enough to offer as a CSV download."""
        return self.cells <= charts.MAX_CSV_CELLS

    @property
    def last_column(self) -> int:
        return self.d - 1

    @property
    def compares_layouts(self) -> bool:
        """Whether the page compares tensor2tensor's layout with the paper's (it takes a pair)."""
        return self.layout == "tensor2tensor" and self.d >= 2


@st.cache_resource(max_entries=24, show_spinner=False)
def table_view(n: int, d: int, base: int, start: int, layout: str) -> TableView:
    """Everything on the page that depends on the table but not on the chosen columns."""
    P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)  # (n, d)
    table = charts.heatmap(P, x_title="Column (encoding dimension)", y_title="Row (position)", row_offset=start)
    gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
    gram_chart = charts.heatmap(gram, x_title="Position", y_title="Position", value_title="P[i]·P[k]",
                                palette="sequential", domain=None, row_offset=start, col_offset=start)
    offsets = similarity_by_offset(P, max_offset=min(n - 1, 512))
    steps = neighbour_distances(P) if n > 1 else None  # (n - 1,)
    return TableView(
        n=n, d=d, base=base, start=start, layout=layout,
        heatmap=table.spec(), drawing=table.drawing,
        gram=gram_chart.spec(), gram_drawing=gram_chart.drawing,
        offsets=charts.offset_similarity_chart(offsets).spec(),
        max_spread=offsets.max_spread, starts=len(offsets.starts),
        steps=None if steps is None else Steps(float(steps.min()), float(steps.max())),
        frequencies=pekit.frequency_table(d, base=base, layout=layout),
    )


@dataclass(frozen=True)
class PropertiesView:
    """The four properties of a positional encoding, measured on ``rows`` positions of the
    table of width ``d`` (float64)."""

    rows: int
    d: int
    measured: EncodingProperties

    @property
    def unique(self) -> bool:
        """Whether every position has a code of its own (the two closest are apart)."""
        return self.measured.closest > DISTINCT


@st.cache_resource(max_entries=24, show_spinner=False)
def properties(n: int, d: int, base: int, layout: str) -> PropertiesView:
    rows = max(n, 2)  # one position has no distances to measure: the first two are measured
    return PropertiesView(rows, d, encoding_properties(rows, d, base=base, layout=layout))


@dataclass(frozen=True)
class Curves:
    """The chosen columns of P over the positions: the chart and what it drew."""

    spec: dict
    drawing: Drawing


@st.cache_resource(max_entries=24, show_spinner=False)
def curves(n: int, d: int, base: int, start: int, layout: str, columns: tuple[int, ...]) -> Curves:
    values = pekit.sinusoidal_columns(n, d, columns, base=base, start=start, layout=layout)  # (n, len(columns))
    drawn = charts.column_curves(values, columns, start=start)
    return Curves(drawn.spec(), drawn.drawing)


@st.cache_resource(max_entries=8, show_spinner=False)
def layout_comparison(n: int, d: int, base: int, start: int) -> pd.DataFrame:
    return pekit.compare_layouts(n, d, base=base, start=start)


@st.cache_resource(max_entries=8, show_spinner=False)
def layout_comparison_chart(d: int, base: int) -> dict:
    """The wavelengths of both layouts depend on d and base only, so a change of n leaves this
    chart as it is (the browser has nothing to redraw)."""
    return charts.layout_comparison_chart(pekit.compare_layouts(1, d, base=base)).spec()


def csv_of_table(n: int, d: int, base: int, start: int, layout: str):
    """The CSV download, built only when the button is clicked."""

    def make() -> str:
        P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)
        return charts.matrix_csv(P, row_start=start)

    return make


# sentences --------------------------------------------------------------------------------------


def table_caption(view: TableView) -> str:
    """What the heatmap of P draws: every entry, or block means."""
    drawn = view.drawing.describe("position(s)", "column(s)")
    return drawn if view.drawing.exact else drawn + " Lower n or d to see every entry."


def csv_limit_caption(view: TableView) -> str:
    """Why a table too large to download has no CSV button, and how to get it anyway."""
    return (f"CSV download up to {charts.MAX_CSV_CELLS:,} entries (this table has {view.cells:,}); for larger "
            f"tables use `pekit.sinusoidal_encoding({view.n}, {view.d}, base={view.base}, start={view.start}, "
            f"layout='{view.layout}')` in Python.")


def columns_help(view: TableView) -> str:
    return f"Up to 8 columns from 0 to {view.last_column}, e.g. 6-9 or 0,2,4. The book plots columns 6 to 9."


def curves_caption(drawn: Curves) -> str | None:
    """Nothing when every value is a point on its line; else how the curves were banded."""
    return None if drawn.drawing.exact else drawn.drawing.describe("positions")


def pairs_caption(view: TableView) -> str:
    """Which columns share a frequency in the chosen layout."""
    if view.layout == "interleaved":
        return "Columns 2j and 2j+1 share a frequency: a sine and its cosine, a quarter period apart."
    return f"Column j and column {view.d // 2}+j share a frequency: the sines come first, then the cosines."


def gram_caption(view: TableView) -> str:
    """What the similarity matrix draws: every dot product, or exact block means."""
    gram = view.gram_drawing
    if gram.exact:
        return ("Similarity matrix P·Pᵀ: entry (i, k) is the dot product of rows i and k"
                + (" (hover for values)." if gram.hover else ", one pixel per entry."))
    b = gram.block[0]
    return (f"Similarity matrix P·Pᵀ ({view.n} × {view.n}): each pixel is the exact mean over a block of "
            f"{b} × {b} positions (the mean of a block of dot products is the dot product of "
            "the blocks' mean rows).")


def offsets_caption(view: TableView) -> str:
    """Where P[i]·P[i+δ] was measured and how wide its band gets."""
    return (f"P[i]·P[i+δ] measured at {view.starts} evenly spaced starting rows i: the line is the "
            f"mean, the band runs from the smallest to the largest value. Largest band width: "
            f"{view.max_spread:.2g}.")


def steps_caption(steps: Steps) -> str:
    """The largest neighbour step, below the metric that shows the smallest."""
    return (f"Largest over all i: {steps.largest:.6f}. Every step along the sequence moves the encoding by the "
            "same distance.")


def wavelengths_caption(view: TableView) -> str:
    """The range of the wavelengths, and whether the last pair lacks its cosine."""
    wavelengths = view.frequencies["wavelength"]
    if wavelengths.empty:
        return (f"d = {view.d} in the {view.layout} layout has no sine/cosine pair: its one column is zero.")
    unpaired = view.d % 2 and view.layout == "interleaved"
    return (f"The wavelengths grow geometrically from 2π ≈ 6.28 positions towards 2π·base (the last pair here: "
            f"{wavelengths.iloc[-1]:,.0f} positions); "
            + ("an odd d has a last pair with a sine and no cosine (cos column −1)." if unpaired
               else "each pair is one sine/cosine frequency."))


def properties_text(view: PropertiesView) -> str:
    """The four properties, each with the number that shows it holds."""
    p = view.measured
    return (
        f"Four properties are often asked of a positional encoding. Measured on this table ({view.rows} positions, "
        f"d = {view.d}, float64):\n"
        f"1. **A unique code for every position.** The two closest positions are {p.closest:.3g} apart "
        + ("(never 0)." if view.unique else "(0: two positions share a code).") + "\n"
        f"2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
        f"there are: the rows of a table twice as long differ from these by at most {p.prefix_gap:.1e}; "
        f"and one step along the sequence moves the code by the same distance everywhere (spread "
        f"{p.step_spread:.1e} over all i" + (", the unpaired last sine column of an odd d adds a "
                                             "little" if view.d % 2 else "") + ").\n"
        f"3. **Bounded, and defined for longer sentences.** The largest |value| is {p.largest:.6g}, and the "
        f"next {view.rows} positions, never asked for, stay within {p.beyond:.6g}: the formula goes on for ever, "
        "where a learned table has no row past its last trained position.\n"
        f"4. **Deterministic.** Computed twice, the tables differ by {p.repeat_gap:g}."
    )
