"""The encoding heatmap page's computed views (the table, its columns, similarities and
wavelengths, as typed records of chart specs and tables) and the sentences that state their
numbers."""

from __future__ import annotations

from dataclasses import dataclass

import math

import pandas as pd
import streamlit as st
import torch

import pekit
from pekit import charts
from pekit.charts import Drawing
from lab.display import number, plural
from pekit.similarity import (
    EncodingProperties,
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
    """The distance between neighbouring positions, ‖P[i+1] − P[i]‖, over every i, measured on the
    table in float64 (the same measurement as the properties' step spread)."""

    smallest: float
    largest: float

    @property
    def spread(self) -> float:
        """How far the steps differ: largest − smallest."""
        return self.largest - self.smallest


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
    offset_means: tuple[float, ...]  # the chart's line: mean of P[i]·P[i+δ] over the starts, δ = 0, 1, ...
    steps: Steps | None
    frequencies: pd.DataFrame

    @property
    def max_offset(self) -> int:
        """The largest offset δ the chart shows."""
        return len(self.offset_means) - 1

    @property
    def pairs(self) -> int:
        """Sine/cosine pairs (both columns present)."""
        return self.d // 2

    @property
    def unpaired_sine(self) -> bool:
        """Whether the last column is a sine without its cosine (an odd d, interleaved)."""
        return self.d % 2 == 1 and self.layout == "interleaved"

    @property
    def zero_column(self) -> bool:
        """Whether the last column is all zeros (an odd d in tensor2tensor's layout)."""
        return self.d % 2 == 1 and self.layout == "tensor2tensor"

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
    steps = neighbour_distances(table64(n, d, base, start, layout)) if n > 1 else None  # (n - 1,), float64
    return TableView(
        n=n, d=d, base=base, start=start, layout=layout,
        heatmap=table.spec(), drawing=table.drawing,
        gram=gram_chart.spec(), gram_drawing=gram_chart.drawing,
        offsets=charts.offset_similarity_chart(offsets).spec(),
        max_spread=offsets.max_spread, starts=len(offsets.starts),
        offset_means=tuple(float(v) for v in offsets.mean),
        steps=None if steps is None else Steps(float(steps.min()), float(steps.max())),
        frequencies=pekit.frequency_table(d, base=base, layout=layout),
    )


def table64(n: int, d: int, base: int, start: int, layout: str) -> torch.Tensor:
    """The rows start .. start + n − 1 of P in float64, ``(n, d)``."""
    return pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout, device="cpu", dtype=torch.float64)


@dataclass(frozen=True)
class PropertiesView:
    """The four properties of a positional encoding, measured on ``rows`` positions of the
    table of width ``d`` (float64), the ones drawn: positions ``start`` to ``start + rows − 1``."""

    n: int
    rows: int
    d: int
    start: int
    measured: EncodingProperties

    @property
    def unique(self) -> bool:
        """Whether every position has a code of its own (the two closest are apart)."""
        return self.measured.closest > DISTINCT

    @property
    def last(self) -> int:
        """The last position measured."""
        return self.start + self.rows - 1


@st.cache_resource(max_entries=24, show_spinner=False)
def properties(n: int, d: int, base: int, start: int, layout: str) -> PropertiesView:
    """What :func:`pekit.similarity.encoding_properties` measures, on the rows the page draws
    (from ``start``): one position has no distances to measure, so n = 1 measures two."""
    rows = max(n, 2)
    P = table64(rows, d, base, start, layout)  # (rows, d)
    longer = table64(2 * rows, d, base, start, layout)  # (2·rows, d): the same start, twice as long
    again = table64(rows, d, base, start, layout)
    D = torch.cdist(P, P)  # (rows, rows)
    D.fill_diagonal_(float("inf"))
    steps = neighbour_distances(P)  # (rows − 1,)
    measured = EncodingProperties(
        closest=float(D.min()), step_spread=float(steps.max() - steps.min()),
        prefix_gap=float((longer[:rows] - P).abs().max()), largest=float(P.abs().max()),
        beyond=float(longer[rows:].abs().max()), repeat_gap=float((again - P).abs().max()),
    )
    return PropertiesView(n, rows, d, start, measured)


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


@dataclass(frozen=True)
class ColumnFlips:
    """How each column of P moves down the table: ``flips[c]``, between how many of the ``n − 1``
    pairs of neighbouring rows column c changes sign (P[i, c]·P[i+1, c] < 0, float64), and
    ``lows[c]``, ``highs[c]``, its smallest and largest value."""

    n: int
    d: int
    layout: str
    flips: tuple[int, ...]
    lows: tuple[float, ...]
    highs: tuple[float, ...]
    frequencies: int  # distinct frequencies in the table

    @property
    def fastest(self) -> int:
        """The column that changes sign most often (the first such)."""
        return max(range(self.d), key=lambda c: (self.flips[c], -c))

    @property
    def steps(self) -> int:
        return self.n - 1


@st.cache_resource(max_entries=24, show_spinner=False)
def column_flips(n: int, d: int, base: int, start: int, layout: str) -> ColumnFlips:
    P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout, device="cpu", dtype=torch.float64)
    flips = ((P[1:] * P[:-1]) < 0).sum(dim=0)  # (d,)
    return ColumnFlips(n=n, d=d, layout=layout, flips=tuple(int(v) for v in flips),
                       lows=tuple(float(v) for v in P.amin(dim=0)), highs=tuple(float(v) for v in P.amax(dim=0)),
                       frequencies=len(pekit.frequencies(d, base=base, layout=layout)))


# one Transformer encoder layer of width w: Q, K, V, O projections (w × w and a bias each), a
# feed-forward block of width 4w (two matrices and their biases), two layer norms (scale, shift)
def layer_parameters(width: int) -> int:
    return 4 * (width * width + width) + (width * 4 * width + 4 * width) + (4 * width * width + width) + 4 * width


def layer_multiply_adds(width: int, tokens: int) -> int:
    """Multiply-adds of that layer for ``tokens`` tokens: the projections and the feed-forward
    block (12·w² per token), the scores QKᵀ and the weighted sum of the values (2·n²·w)."""
    return 12 * width * width * tokens + 2 * tokens * tokens * width


OVERLAP_WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
OVERLAP_ROWS = 256  # rows of P measured (evenly spaced over the table when it has more)
OVERLAP_EMBEDDINGS = 256  # random Gaussian token embeddings, from a fixed seed
OVERLAP_SEED = 0


def random_direction_overlap(width: int) -> float:
    """E|cos| between a fixed direction and a uniformly random one in ``width`` dimensions:
    Γ(w/2) / (√π·Γ((w+1)/2)), about √(2/(π·w)) for large w."""
    return math.exp(math.lgamma(width / 2) - math.lgamma((width + 1) / 2)) / math.sqrt(math.pi)


def overlap_rows(n: int) -> list[int]:
    """The rows of P measured: all of them, or OVERLAP_ROWS evenly spaced ones."""
    if n <= OVERLAP_ROWS:
        return list(range(n))
    return sorted({round(i * (n - 1) / (OVERLAP_ROWS - 1)) for i in range(OVERLAP_ROWS)})


def mean_abs_cosine(n: int, width: int, base: int, start: int, layout: str) -> tuple[float, int]:
    """Mean |cos| between the measured rows of P (width ``width``) that are not zero and
    OVERLAP_EMBEDDINGS Gaussian embeddings (seed OVERLAP_SEED), float64; and how many rows were
    measured (NaN and 0 when every row is zero)."""
    rows = overlap_rows(n)
    P = pekit.sinusoidal_encoding(n, width, base=base, start=start, layout=layout, device="cpu",
                                  dtype=torch.float64)[rows]  # (rows, width)
    P = P[P.norm(dim=1) > 0]
    if not len(P):
        return float("nan"), 0
    g = torch.Generator().manual_seed(OVERLAP_SEED)
    E = torch.randn(OVERLAP_EMBEDDINGS, width, generator=g, dtype=torch.float64)  # (embeddings, width)
    cos = (P / P.norm(dim=1, keepdim=True)) @ (E / E.norm(dim=1, keepdim=True)).T  # (rows, embeddings)
    return float(cos.abs().mean()), len(P)


@dataclass(frozen=True)
class AddOrConcat:
    """Adding P to token embeddings of width d, or concatenating it (width 2d): what one layer
    costs at each width, for n tokens; and how much the rows of P overlap random embeddings
    (mean |cos|) at every width in ``widths``, against a random direction's."""

    n: int
    d: int
    layout: str
    params_add: int
    params_concat: int
    macs_add: int
    macs_concat: int
    widths: tuple[int, ...]
    overlaps: tuple[float, ...]  # mean |cos| at each width (NaN where every row of P is zero)
    random: tuple[float, ...]  # E|cos| of a random direction at each width
    rows: int  # rows of P measured at width d
    chart: dict

    @property
    def overlap(self) -> float:
        return self.overlaps[self.widths.index(self.d)]

    @property
    def expected(self) -> float:
        return self.random[self.widths.index(self.d)]


@st.cache_resource(max_entries=24, show_spinner=False)
def add_or_concat(n: int, d: int, base: int, start: int, layout: str) -> AddOrConcat:
    widths = tuple(sorted(set(OVERLAP_WIDTHS) | {d}))
    measured = [mean_abs_cosine(n, w, base, start, layout) for w in widths]
    overlaps = tuple(m[0] for m in measured)
    random = tuple(random_direction_overlap(w) for w in widths)
    frame = pd.concat([
        pd.DataFrame({"width": widths, "overlap": overlaps, "curve": "rows of P against random embeddings"}),
        pd.DataFrame({"width": widths, "overlap": random, "curve": "two random directions: E|cos|"}),
        pd.DataFrame({"width": widths, "overlap": [1 / math.sqrt(w) for w in widths], "curve": "1/√d"}),
    ]).dropna()
    chart = charts.line_chart(frame, x="width", y="overlap", series="curve", x_title="Width d", y_title="mean |cos|",
                              series_title="Curve", log_x=True, log_y=True, points=True,
                              marks={f"d = {d}": d}).spec()
    return AddOrConcat(n=n, d=d, layout=layout, params_add=layer_parameters(d), params_concat=layer_parameters(2 * d),
                       macs_add=layer_multiply_adds(d, n), macs_concat=layer_multiply_adds(2 * d, n),
                       widths=widths, overlaps=overlaps, random=random, rows=measured[widths.index(d)][1], chart=chart)


# sentences --------------------------------------------------------------------------------------

# float64 steps (at most √(2d) ≈ 45 long) that agree to this are the same distance: an even width's
# steps spread by up to about 7 × 10⁻¹³ at n = 4096 (the rounding of i·ω_j), an odd width's unpaired
# sine by 2.4 × 10⁻⁶ at d = 3, base 10000
FLOAT64_ROUNDING = 1e-11
ORTHOGONAL = 0.2  # a mean |cos| below this reads as nearly orthogonal


def percent(part: int, whole: int) -> str:
    """``part / whole`` as a percentage, never rounded to 0 % or 100 % when it is neither."""
    share = 100 * part / whole
    if 0 < share < 1:
        return "under 1%"
    if 99 < share < 100:
        return "over 99%"
    return f"{share:.0f}%"


def formula_latex(view: TableView) -> str:
    """The formula of the chosen layout, with its edge cases (one pair; an odd width's last column)."""
    if view.layout == "interleaved":
        return (r"P_{i,\,2j} = \sin\!\Big(\frac{i}{\text{base}^{2j/d}}\Big),\qquad "
                r"P_{i,\,2j+1} = \cos\!\Big(\frac{i}{\text{base}^{2j/d}}\Big)")
    if view.d == 1:
        return r"P_{i,\,0} = 0\quad(d = 1\text{ has no sine/cosine pair})"
    omega = (r"\omega_0 = 1\ (k = 1)" if view.pairs == 1
             else r"\omega_j = \text{base}^{-j/(k-1)}")
    return (r"P_{i,\,j} = \sin(i\,\omega_j),\quad P_{i,\,k+j} = \cos(i\,\omega_j),\quad "
            + omega + r",\ k = \lfloor d/2 \rfloor"
            + (r",\quad P_{i,\,d-1} = 0" if view.zero_column else ""))


def reading_text(view: ColumnFlips) -> str:
    """How to read the heatmap column by column, with each column's measured sign changes."""
    last = view.d - 1
    if view.n == 1:
        return ("With one position there are no neighbouring rows to compare: each column holds one value. "
                "Raise n to watch the columns change down the table.")

    def changes(c: int) -> str:
        f = view.flips[c]
        if f == 0:
            return "never changes sign"
        return f"changes sign between {f} of the {view.steps} pairs of neighbouring rows ({percent(f, view.steps)})"

    fast = view.fastest
    if view.flips[fast] == 0:
        text = f"Read the picture column by column: over these {view.n} rows no column changes sign. "
    elif view.flips[fast] == view.steps:
        text = f"Read the picture column by column: column {fast} changes sign at every step. "
    else:
        text = (f"Read the picture column by column: no column changes sign at every step. The fastest, column "
                f"{fast}, {changes(fast)}, about once every {number(view.steps / view.flips[fast], '.3g')} rows. ")
    if last != fast:
        if view.layout == "tensor2tensor" and view.d % 2 == 1:
            text += (f"The last column, {last}, is all zeros: tensor2tensor fills the extra column of an odd d "
                     "with zeros. ")
        else:
            span = view.highs[last] - view.lows[last]
            text += (f"The last column, {last}, {changes(last)} and moves within a range of {number(span, '.3g')} over the "
                     f"whole table (from {number(view.lows[last], '.6g')} to {number(view.highs[last], '.6g')}). ")
    if view.frequencies == 0:
        return "d = 1 in tensor2tensor's layout is one column of zeros: there is nothing to read."
    if view.frequencies > 1:
        text += ("Fast columns tell neighbours apart, slow ones tell far-apart positions apart, the way a clock "
                 "tells the time with a second hand, a minute hand and an hour hand.")
    else:
        text += "With a single frequency there is only one hand on the clock: add columns to get slower ones."
    return text.rstrip()


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
    if view.d == 1:
        return "Up to 8 columns; d = 1 has column 0 only. The book plots columns 6 to 9."
    return f"Up to 8 columns from 0 to {view.last_column}, e.g. 0,{view.last_column}. The book plots columns 6 to 9."


def curves_caption(drawn: Curves) -> str | None:
    """Nothing when every value is a point on its line; else how the curves were banded."""
    return None if drawn.drawing.exact else drawn.drawing.describe("positions")


def pairs_caption(view: TableView) -> str:
    """Which columns share a frequency in the chosen layout."""
    if view.layout == "interleaved":
        if view.d == 1:
            return "d = 1 holds one column: the sine of the fastest frequency, without its cosine."
        return ("Columns 2j and 2j+1 share a frequency: a sine and its cosine, a quarter period apart"
                + (f"; the last column, {view.last_column}, is a sine without its cosine." if view.unpaired_sine
                   else "."))
    if view.d == 1:
        return "d = 1 in the tensor2tensor layout has no sine/cosine pair: its one column is zero."
    k = view.pairs
    if k == 1:
        return ("Columns 0 and 1 share the one frequency: the sine, then its cosine"
                + (f"; the last column, {view.last_column}, is zero." if view.zero_column else "."))
    return (f"Column j and column {k}+j share a frequency: the sines (columns 0 to {k - 1}) come first, then the "
            f"cosines (columns {k} to {2 * k - 1})"
            + (f"; the last column, {view.last_column}, is zero." if view.zero_column else "."))


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
    """Where P[i]·P[i+δ] was measured, over which offsets, and how wide its band gets."""
    rows = ("at the table's one row i" if view.n == 1 else f"at all {view.starts} rows i" if view.starts == view.n
            else f"at {view.starts} evenly spaced starting rows i")
    reach = (f"δ from 0 to {view.max_offset}" if view.max_offset == view.n - 1
             else f"δ from 0 to {view.max_offset} (the table reaches {view.n - 1}; larger offsets are not drawn)")
    return (f"P[i]·P[i+δ] measured {rows}, {reach}: the line is the mean, the band runs from the smallest "
            f"to the largest value. Largest band width: {number(view.max_spread, '.2g')}.")


def offsets_text(view: TableView) -> str:
    """Why P[i]·P[i+δ] depends on δ alone for paired columns, what an odd width adds, and where the
    measured line is largest and smallest."""
    text = (r"Every sine/cosine pair contributes $\sin a\sin b + \cos a\cos b = \cos(a-b)$, so the pairs add up to "
            r"$\sum_j \cos(\delta\,\omega_j)$: a function of the **offset δ only**, not of where you start. ")
    if view.d == 1 and view.layout == "tensor2tensor":
        return text + "Here there is no pair: the one column is zero, so every product is 0."
    band = (f"the band is {number(view.max_spread, '.2g')} wide at its widest. " if view.n > 1 else
            "with one row there is no other start to compare, so the band cannot show it. ")
    if view.d == 1:
        text = (r"With d = 1 there is no sine/cosine pair: the one column is the sine $\sin(i)$, and "
                r"$\sin(i)\sin(i+\delta)$ does depend on i: " + band)
    elif view.unpaired_sine:
        text += (r"The unpaired last sine column of an odd d adds $\sin(i\omega)\sin((i+\delta)\omega)$, which "
                 "does depend on i: " + band)
    elif view.zero_column:
        text += ("tensor2tensor's zero column for an odd d adds nothing, so the band stays a line (widest "
                 f"{number(view.max_spread, '.2g')}, float32 rounding). ")
    else:
        text += f"The band stays a line (widest {number(view.max_spread, '.2g')}, float32 rounding). "
    means = view.offset_means
    if len(means) == 1:
        return text + "With one position only δ = 0 is measured."
    top = max(range(len(means)), key=lambda k: (means[k], -k))
    low = min(range(len(means)), key=lambda k: (means[k], k))
    return text + (f"Over the offsets shown the mean is largest at δ = {top} ({number(means[top], '.3g')}) and "
                   f"smallest at δ = {low} ({number(means[low], '.3g')}).")


def same_steps(spread: float) -> bool:
    """Whether neighbour steps (float64) that spread by ``spread`` are the same distance, up to rounding:
    the one rule for the caption under the metric and for the properties."""
    return spread <= FLOAT64_ROUNDING


def _spread_words(spread: float) -> str:
    """How far steps that count as the same distance spread."""
    return "the steps agree exactly" if spread == 0 else f"the steps spread over {number(spread, '.1e')}, float64 rounding"


def steps_caption(view: TableView) -> str:
    """The largest neighbour step, below the metric that shows the smallest, and whether they agree
    (float64, the measurement the properties below state too)."""
    steps = view.steps
    text = f"Largest over all i: {steps.largest:.6f}"
    if view.n == 2:
        text += " (n = 2: there is one step)"
    if steps.largest == 0:
        return text + ". Every row is zero here: no step moves the encoding."
    if same_steps(steps.spread):
        return text + f". Every step along the sequence moves the encoding by the same distance ({_spread_words(steps.spread)})."
    return (text + f". The steps differ, spreading over {number(steps.spread, '.1e')}: the unpaired last sine column "
            "moves by |sin((i+1)ω) − sin(iω)|, which depends on i.")


def wavelengths_caption(view: TableView) -> str:
    """The range of the wavelengths, and what an odd width's last column is."""
    wavelengths = view.frequencies["wavelength"]
    if wavelengths.empty:
        return f"d = {view.d} in the {view.layout} layout has no sine/cosine pair: its one column is zero."
    if len(wavelengths) == 1:
        text = f"One frequency only: wavelength 2π ≈ {number(wavelengths.iloc[0], '.4g')} positions"
    else:
        text = (f"The wavelengths grow geometrically from 2π ≈ {number(wavelengths.iloc[0], '.4g')} positions towards "
                f"2π·base = {2 * math.pi * view.base:,.0f} (the last pair here: {wavelengths.iloc[-1]:,.0f} positions)")
    if view.unpaired_sine:
        return text + "; an odd d has a last pair with a sine and no cosine (cos column −1)."
    if view.zero_column:
        return text + f"; each pair is one sine/cosine frequency, and the extra column {view.last_column} is zero."
    return text + "; each pair is one sine/cosine frequency."


def layout_text(d: int, table: pd.DataFrame) -> str:
    """How tensor2tensor's layout differs from the paper's, from the comparison table (one row per pair)."""
    k = len(table)
    gap = float(table["max_abs_difference"].max())
    worst = int(table["max_abs_difference"].idxmax())
    text = ("Same ingredients, in another order: tensor2tensor puts all sines first and all cosines after them, "
            "where the paper interleaves sin/cos pairs; reordering the columns turns one arrangement into the other. ")
    if d % 2:
        text += ("For an odd d the extra last column differs: a sine in the paper's layout, zeros in tensor2tensor's "
                 "(left out below). ")
    if k == 1:
        return text + ("With one pair both use the frequency 1, so after reordering the pairs agree "
                       f"(largest difference {number(gap, '.2g')}).")
    last_paper = float(table["omega_interleaved"].iloc[-1])
    text += (f"**Spacing:** tensor2tensor's {k} frequencies run from 1 down to exactly 1/base "
             r"($\omega_j=\text{base}^{-j/(k-1)}$), while the paper's stop at "
             + f"{number(last_paper, '.4g')} " + r"($\omega_j=\text{base}^{-2j/d}$). ")
    if gap == 0:
        return text + "Over these positions the reordered tables still agree exactly."
    return text + (f"So even after reordering the tables differ, by up to {number(gap, '.3g')} (pair {worst}); pair by pair:")


def add_or_concat_text(view: AddOrConcat) -> str:
    """What concatenating P would cost one layer, and how little P overlaps random embeddings."""
    w = view.d
    text = (f"**Concatenating** P would make every vector {2 * w} wide instead of {w}, in every layer. One encoder "
            f"layer (four attention projections and a feed-forward block four times as wide) then holds "
            f"{view.params_concat:,} parameters instead of {view.params_add:,} ({view.params_concat / view.params_add:.2f}×) "
            f"and costs {view.macs_concat:,} multiply-adds instead of {view.macs_add:,} for {view.n} "
            f"{plural(view.n, 'token')} ({view.macs_concat / view.macs_add:.2f}×). **Adding** keeps the width. ")
    if math.isnan(view.overlap):
        return text + (f"At d = {w} this table is all zeros, so there is no direction to compare; the chart shows the "
                       "other widths.")
    rows = f"{view.rows} {plural(view.rows, 'row')} of P" + ("" if view.rows == 1 else " (the non-zero ones)"
                                                             if view.rows < min(view.n, OVERLAP_ROWS) else "")
    text += (f"It loses little when positions and words point in nearly unrelated directions: at d = {w}, {rows} "
             f"and {OVERLAP_EMBEDDINGS} random Gaussian embeddings have a mean |cos| of {number(view.overlap, '.3g')}, against "
             f"{number(view.expected, '.3g')} for two random directions and 1/√d = {number(1 / math.sqrt(w), '.3g')}: "
             + ("nearly orthogonal. " if view.overlap < ORTHOGONAL else "far from orthogonal at so small a width. "))
    measured = [(w_, o) for w_, o in zip(view.widths, view.overlaps) if not math.isnan(o)]
    (w0, o0), (w1, o1) = measured[0], measured[-1]
    text += f"Across the chart it falls from {number(o0, '.3g')} at d = {w0} to {number(o1, '.3g')} at d = {w1}"
    text += ("" if w0 == 1 or view.layout == "interleaved"
             else " (the rows of P have no point at d = 1: tensor2tensor's one column there is zero)")
    return text + ": the wider the model, the more room for both."


def properties_text(view: PropertiesView) -> str:
    """The four properties, each with the number that shows it holds, measured on the rows drawn."""
    p = view.measured
    where = (f"this table (positions {view.start} to {view.last}, d = {view.d}, float64)" if view.rows == view.n
             else f"positions {view.start} and {view.last} (one position has no distances to measure; d = {view.d}, "
                  "float64)")
    if same_steps(p.step_spread):
        step = f"and one step along the sequence moves the code by the same distance everywhere ({_spread_words(p.step_spread)})."
    else:
        step = (f"but one step along the sequence does not move the code by quite the same distance everywhere: the "
                f"steps spread over {number(p.step_spread, '.1e')}, from the unpaired last sine column of an odd d.")
    return (
        f"Four properties are often asked of a positional encoding. Measured on {where}:\n"
        f"1. **A unique code for every position.** The two closest positions are {number(p.closest, '.3g')} apart "
        + ("(never 0)." if view.unique else "(0: two positions share a code).") + "\n"
        f"2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
        f"there are: the rows of a table twice as long differ from these by at most {number(p.prefix_gap, '.1e')}; "
        + step + "\n"
        f"3. **Bounded, and defined for longer sentences.** The largest |value| is {number(p.largest, '.6g')}, and the "
        f"next {view.rows} positions ({view.last + 1} to {view.last + view.rows}), never asked for, stay within "
        f"{number(p.beyond, '.6g')}: the formula goes on for ever, where a learned table has no row past its last "
        "trained position.\n"
        f"4. **Deterministic.** Computed twice, the tables differ by {number(p.repeat_gap, 'g')}."
    )
