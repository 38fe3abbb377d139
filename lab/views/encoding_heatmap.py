"""The encoding heatmap page's computed views (the table, its columns, similarities and
wavelengths, as typed records of chart specs and tables) and the sentences that state their
numbers."""

from __future__ import annotations

from dataclasses import dataclass

import math

import pandas as pd

import pekit
from pekit import charts
from pekit.charts import Drawing
from lab.memo import shared
from lab.display import number
from lab.i18n import _, localized_resource, ngettext, per_view
from pekit.complexity import encoder_layer_multiply_adds, encoder_layer_parameters
from pekit.similarity import (
    EncodingProperties,
    embedding_overlap,
    encoding_properties,
    gram_block_means,
    similarity_by_offset,
    sinusoidal_column_changes,
)

# Results are shared by every session as they are (lab.memo): a rerun that finds one
# neither unpickles nor copies it. Records are frozen, and nothing here or on the page changes
# a chart spec or a table after it is made. Records that hold a chart's words are kept per
# language (localized_resource); those of numbers only, once for all.

LAYOUTS = pekit.LAYOUTS  # the column layouts the page offers
DISTINCT = 1e-9  # two positions whose codes are closer than this share a code


@dataclass(frozen=True)
class TableView:
    """Everything on the page that depends on the table P (``(n, d)``) but not on the chosen
    columns: the settings it was made with, the heatmap of P and what it drew, the similarity
    matrix P·Pᵀ (block means when large), P[i]·P[i+δ] against δ measured at ``starts`` rows
    (``max_spread``: the widest band over δ) and the wavelength of each column pair."""

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


@localized_resource(max_entries=24)
def table_view(n: int, d: int, base: int, start: int, layout: str) -> TableView:
    """Everything on the page that depends on the table but not on the chosen columns."""
    P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)  # (n, d)
    table = charts.heatmap(P, x_title=_("Column (encoding dimension)"), y_title=_("Row (position)"), row_offset=start)
    gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
    gram_chart = charts.heatmap(gram, x_title=_("Position"), y_title=_("Position"), value_title="P[i]·P[k]",
                                palette="diverging", domain=None, row_offset=start, col_offset=start)
    offsets = similarity_by_offset(P, max_offset=min(n - 1, 512))
    return TableView(
        n=n, d=d, base=base, start=start, layout=layout,
        heatmap=table.spec(), drawing=table.drawing,
        gram=gram_chart.spec(), gram_drawing=gram_chart.drawing,
        offsets=charts.offset_similarity_chart(offsets).spec(),
        max_spread=offsets.max_spread, starts=len(offsets.starts),
        offset_means=tuple(float(v) for v in offsets.mean),
        frequencies=pekit.frequency_table(d, base=base, layout=layout),
    )


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


@shared(max_entries=24)
def properties(n: int, d: int, base: int, start: int, layout: str) -> PropertiesView:
    """What :func:`pekit.similarity.encoding_properties` measures, on the rows the page draws
    (from ``start``): one position has no distances to measure, so n = 1 measures two."""
    rows = max(n, 2)
    return PropertiesView(n, rows, d, start, encoding_properties(rows, d, base=base, start=start, layout=layout))


@dataclass(frozen=True)
class Curves:
    """The chosen columns of P over the positions: the chart and what it drew."""

    spec: dict
    drawing: Drawing


@localized_resource(max_entries=24)
def curves(n: int, d: int, base: int, start: int, layout: str, columns: tuple[int, ...]) -> Curves:
    values = pekit.sinusoidal_columns(n, d, columns, base=base, start=start, layout=layout)  # (n, len(columns))
    drawn = charts.column_curves(values, columns, start=start)
    return Curves(drawn.spec(), drawn.drawing)


@shared(max_entries=8)
def layout_comparison(n: int, d: int, base: int, start: int) -> pd.DataFrame:
    return pekit.compare_layouts(n, d, base=base, start=start)


@localized_resource(max_entries=8)
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


@shared(max_entries=24)
def column_flips(n: int, d: int, base: int, start: int, layout: str) -> ColumnFlips:
    changes = sinusoidal_column_changes(n, d, base=base, start=start, layout=layout)  # float64
    return ColumnFlips(n=n, d=d, layout=layout, flips=changes.sign_changes, lows=changes.minimum, highs=changes.maximum,
                       frequencies=len(pekit.frequencies(d, base=base, layout=layout)))


OVERLAP_WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
OVERLAP_ROWS = 256  # rows of P measured (evenly spaced over the table when it has more)
OVERLAP_EMBEDDINGS = 256  # random Gaussian token embeddings, from a fixed seed
OVERLAP_SEED = 0


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
    roots: tuple[float, ...]  # 1/√w at each width
    rows: int  # rows of P measured at width d
    chart: dict

    @property
    def overlap(self) -> float:
        return self.overlaps[self.widths.index(self.d)]

    @property
    def expected(self) -> float:
        return self.random[self.widths.index(self.d)]

    @property
    def root(self) -> float:
        return self.roots[self.widths.index(self.d)]


@localized_resource(max_entries=24)
def add_or_concat(n: int, d: int, base: int, start: int, layout: str) -> AddOrConcat:
    widths = tuple(sorted(set(OVERLAP_WIDTHS) | {d}))
    measured = embedding_overlap(n, widths, base=base, start=start, layout=layout, max_rows=OVERLAP_ROWS,
                                 embeddings=OVERLAP_EMBEDDINGS, seed=OVERLAP_SEED)
    frame = pd.concat([
        pd.DataFrame({"width": widths, "overlap": measured.overlaps, "curve": _("rows of P against random embeddings")}),
        pd.DataFrame({"width": widths, "overlap": measured.random, "curve": _("two random directions: E|cos|")}),
        pd.DataFrame({"width": widths, "overlap": measured.root, "curve": "1/√d"}),
    ]).dropna()
    chart = charts.line_chart(frame, x="width", y="overlap", series="curve", x_title=_("Width d"),
                              y_title=_("mean |cos|"), series_title=_("Curve"), log_x=True, log_y=True, points=True,
                              marks={f"d = {d}": d}).spec()
    return AddOrConcat(n=n, d=d, layout=layout, params_add=encoder_layer_parameters(d),
                       params_concat=encoder_layer_parameters(2 * d), macs_add=encoder_layer_multiply_adds(d, n),
                       macs_concat=encoder_layer_multiply_adds(2 * d, n), widths=widths, overlaps=measured.overlaps,
                       random=measured.random, roots=measured.root, rows=measured.rows[widths.index(d)], chart=chart)


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
        return _("under 1%")
    if 99 < share < 100:
        return _("over 99%")
    return f"{share:.0f}%"


@per_view
def formula_latex(view: TableView) -> str:
    """The formula of the chosen layout, with its edge cases (one pair; an odd width's last column)."""
    if view.layout == "interleaved":
        return (r"P_{i,\,2j} = \sin\!\Big(\frac{i}{\text{base}^{2j/d}}\Big),\qquad "
                r"P_{i,\,2j+1} = \cos\!\Big(\frac{i}{\text{base}^{2j/d}}\Big)")
    if view.d == 1:
        # the words inside the formula's \text{...}: keep them free of accents (KaTeX's text font)
        return r"P_{i,\,0} = 0\quad(d = 1\text{ " + _("has no sine/cosine pair") + "})"
    omega = (r"\omega_0 = 1\ (k = 1)" if view.pairs == 1
             else r"\omega_j = \text{base}^{-j/(k-1)}")
    return (r"P_{i,\,j} = \sin(i\,\omega_j),\quad P_{i,\,k+j} = \cos(i\,\omega_j),\quad "
            + omega + r",\ k = \lfloor d/2 \rfloor"
            + (r",\quad P_{i,\,d-1} = 0" if view.zero_column else ""))


@per_view
def reading_text(view: ColumnFlips) -> str:
    """How to read the heatmap column by column, with each column's measured sign changes."""
    last = view.d - 1
    if view.n == 1:
        return _("With one position there are no neighbouring rows to compare: each column holds one value. "
                 "Raise n to watch the columns change down the table.")
    if view.frequencies == 0:
        return _("d = 1 in tensor2tensor's layout is one column of zeros: there is nothing to read.")

    fast = view.fastest
    if view.flips[fast] == 0:
        parts = [_("Read the picture column by column: over these {count} rows no column changes sign.").format(
            count=view.n)]
    elif view.flips[fast] == view.steps:
        parts = [_("Read the picture column by column: column {column} changes sign at every step.").format(
            column=fast)]
    else:
        f = view.flips[fast]
        parts = [_("Read the picture column by column: no column changes sign at every step. The fastest, column "
                   "{column}, changes sign between {count} of the {steps} pairs of neighbouring rows ({share}).").format(
            column=fast, count=f, steps=view.steps, share=percent(f, view.steps))]
    if last != fast:
        if view.layout == "tensor2tensor" and view.d % 2 == 1:
            parts.append(_("The last column, {column}, is all zeros: tensor2tensor fills the extra column of an odd d "
                           "with zeros.").format(column=last))
        else:
            f = view.flips[last]
            span = dict(column=last, span=number(view.highs[last] - view.lows[last], ".3g"),
                        low=number(view.lows[last], ".6g"), high=number(view.highs[last], ".6g"))
            if f == 0:
                parts.append(_("The last column, {column}, never changes sign and moves within a range of {span} "
                               "over the whole table (from {low} to {high}).").format(**span))
            else:
                parts.append(_("The last column, {column}, changes sign between {count} of the {steps} pairs of "
                               "neighbouring rows ({share}) and moves within a range of {span} over the whole table "
                               "(from {low} to {high}).").format(
                    count=f, steps=view.steps, share=percent(f, view.steps), **span))
    if view.frequencies > 1:
        parts.append(_("Fast columns tell neighbours apart, slow ones tell far-apart positions apart, the way a clock "
                       "tells the time with a second hand, a minute hand and an hour hand."))
    else:
        parts.append(_("With a single frequency there is only one hand on the clock: add columns to get slower ones."))
    return " ".join(parts)


@per_view
def table_caption(view: TableView) -> str:
    """What the heatmap of P draws: every entry, or block means."""
    drawn = view.drawing.describe((_("position"), _("positions")), (_("column"), _("columns")))
    return drawn if view.drawing.exact else drawn + " " + _("Lower n or d to see every entry.")


@per_view
def csv_limit_caption(view: TableView) -> str:
    """Why a table too large to download has no CSV button, and how to get it anyway."""
    code = (f"pekit.sinusoidal_encoding({view.n}, {view.d}, base={view.base}, start={view.start}, "
            f"layout='{view.layout}')")
    return _("CSV download up to {limit} entries (this table has {count}); for larger tables use `{code}` in "
             "Python.").format(limit=number(charts.MAX_CSV_CELLS, ","), count=number(view.cells, ","), code=code)


@per_view
def columns_help(view: TableView) -> str:
    if view.d == 1:
        return _("Up to 8 columns; d = 1 has column 0 only. The book plots columns 6 to 9.")
    return _("Up to 8 columns from 0 to {last}, e.g. 0,{last}. The book plots columns 6 to 9.").format(
        last=view.last_column)


@per_view
def curves_caption(drawn: Curves) -> str | None:
    """Nothing when every value is a point on its line; else how the curves were banded."""
    return None if drawn.drawing.exact else drawn.drawing.describe((_("position"), _("positions")))


@per_view
def pairs_caption(view: TableView) -> str:
    """Which columns share a frequency in the chosen layout."""
    if view.layout == "interleaved":
        if view.d == 1:
            return _("d = 1 holds one column: the sine of the fastest frequency, without its cosine.")
        if view.unpaired_sine:
            return _("Columns 2j and 2j+1 share a frequency: a sine and its cosine, a quarter period apart; the last "
                     "column, {column}, is a sine without its cosine.").format(column=view.last_column)
        return _("Columns 2j and 2j+1 share a frequency: a sine and its cosine, a quarter period apart.")
    if view.d == 1:
        return _("d = 1 in the tensor2tensor layout has no sine/cosine pair: its one column is zero.")
    k = view.pairs
    if k == 1:
        if view.zero_column:
            return _("Columns 0 and 1 share the one frequency: the sine, then its cosine; the last column, {column}, "
                     "is zero.").format(column=view.last_column)
        return _("Columns 0 and 1 share the one frequency: the sine, then its cosine.")
    columns = dict(k=k, last_sine=k - 1, last_cosine=2 * k - 1, column=view.last_column)
    if view.zero_column:
        return _("Column j and column {k}+j share a frequency: the sines (columns 0 to {last_sine}) come first, then "
                 "the cosines (columns {k} to {last_cosine}); the last column, {column}, is zero.").format(**columns)
    return _("Column j and column {k}+j share a frequency: the sines (columns 0 to {last_sine}) come first, then the "
             "cosines (columns {k} to {last_cosine}).").format(**columns)


@per_view
def gram_caption(view: TableView) -> str:
    """What the similarity matrix draws: every dot product, or exact block means."""
    gram = view.gram_drawing
    if gram.exact:
        if gram.hover:
            return _("Similarity matrix P·Pᵀ: entry (i, k) is the dot product of rows i and k (hover for values).")
        return _("Similarity matrix P·Pᵀ: entry (i, k) is the dot product of rows i and k, one pixel per entry.")
    return _("Similarity matrix P·Pᵀ ({n} × {n}): each pixel is the exact mean over a block of {block} × {block} "
             "positions (the mean of a block of dot products is the dot product of the blocks' mean rows).").format(
        n=view.n, block=gram.block[0])


@per_view
def offsets_caption(view: TableView) -> str:
    """Where P[i]·P[i+δ] was measured, over which offsets, and how wide its band gets."""
    if view.n == 1:
        rows = _("at the table's one row i")
    elif view.starts == view.n:
        rows = _("at all {count} rows i").format(count=view.starts)
    else:
        rows = _("at {count} evenly spaced starting rows i").format(count=view.starts)
    if view.max_offset == view.n - 1:
        reach = _("δ from 0 to {largest}").format(largest=view.max_offset)
    else:
        reach = _("δ from 0 to {largest} (the table reaches {last}; larger offsets are not drawn)").format(
            largest=view.max_offset, last=view.n - 1)
    return _("P[i]·P[i+δ] measured {rows}, {offsets}: the line is the mean, the band spans the smallest to the "
             "largest value.").format(rows=rows, offsets=reach)


@per_view
def offsets_text(view: TableView) -> str:
    """Why P[i]·P[i+δ] depends on δ alone for paired columns, what an odd width adds, and where the
    measured line is largest and smallest."""
    pairs = _(r"Every sine/cosine pair contributes $\sin a\sin b + \cos a\cos b = \cos(a-b)$, so the pairs add up to "
              r"$\sum_j \cos(\delta\,\omega_j)$: a function of the **offset δ only**, not of where you start.")
    if view.d == 1 and view.layout == "tensor2tensor":
        return pairs + " " + _("Here there is no pair: the one column is zero, so every product is 0.")
    band = (_("the band is {width} wide at its widest.").format(width=number(view.max_spread, ".2g")) if view.n > 1
            else _("with one row there is no other start to compare, so the band cannot show it."))
    widest = number(view.max_spread, ".2g")
    if view.d == 1:
        parts = [_(r"With d = 1 there is no sine/cosine pair: the one column is the sine $\sin(i)$, and "
                   r"$\sin(i)\sin(i+\delta)$ does depend on i: {band}").format(band=band)]
    elif view.unpaired_sine:
        parts = [pairs, _(r"The unpaired last sine column of an odd d adds $\sin(i\omega)\sin((i+\delta)\omega)$, "
                          r"which does depend on i: {band}").format(band=band)]
    elif view.zero_column:
        parts = [pairs, _("tensor2tensor's zero column for an odd d adds nothing, so the band stays a line (widest "
                          "{width}, float32 rounding).").format(width=widest)]
    else:
        parts = [pairs, _("The band stays a line (widest {width}, float32 rounding).").format(width=widest)]
    means = view.offset_means
    if len(means) == 1:
        parts.append(_("With one position only δ = 0 is measured."))
        return " ".join(parts)
    top = max(range(len(means)), key=lambda k: (means[k], -k))
    low = min(range(len(means)), key=lambda k: (means[k], k))
    parts.append(_("Over the offsets shown the mean is largest at δ = {top} ({top_value}) and smallest at δ = {low} "
                   "({low_value}).").format(top=top, top_value=number(means[top], ".3g"), low=low,
                                            low_value=number(means[low], ".3g")))
    return " ".join(parts)


def same_steps(spread: float) -> bool:
    """Whether neighbour steps (float64) that spread by ``spread`` are the same distance, up to rounding
    (the properties' rule)."""
    return spread <= FLOAT64_ROUNDING


def _spread_words(spread: float) -> str:
    """How far steps that count as the same distance spread."""
    if spread == 0:
        return _("the steps agree exactly")
    return _("the steps spread over {spread}, float64 rounding").format(spread=number(spread, ".1e"))


@per_view
def wavelengths_caption(view: TableView) -> str:
    """The range of the wavelengths, and what an odd width's last column is."""
    wavelengths = view.frequencies["wavelength"]
    if wavelengths.empty:
        return _("d = {d} in the {layout} layout has no sine/cosine pair: its one column is zero.").format(
            d=view.d, layout=view.layout)
    if len(wavelengths) == 1:
        text = _("One frequency only: wavelength 2π ≈ {wavelength} positions").format(
            wavelength=number(wavelengths.iloc[0], ".4g"))
    else:
        text = _("The wavelengths grow geometrically from 2π ≈ {first} positions towards 2π·base = {limit} (the last "
                 "pair here: {last} positions)").format(
            first=number(wavelengths.iloc[0], ".4g"), limit=number(2 * math.pi * view.base, ",.0f"),
            last=number(wavelengths.iloc[-1], ",.0f"))
    if view.unpaired_sine:
        return text + _("; an odd d has a last pair with a sine and no cosine (cos column −1).")
    if view.zero_column:
        return text + _("; each pair is one sine/cosine frequency, and the extra column {column} is zero.").format(
            column=view.last_column)
    return text + _("; each pair is one sine/cosine frequency.")


def layout_text(d: int, table: pd.DataFrame) -> str:
    """How tensor2tensor's layout differs from the paper's, from the comparison table (one row per pair)."""
    k = len(table)
    gap = float(table["max_abs_difference"].max())
    worst = int(table["max_abs_difference"].idxmax())
    parts = [_("Same ingredients, in another order: tensor2tensor puts all sines first and all cosines after them, "
               "where the paper interleaves sin/cos pairs; reordering the columns turns one arrangement into the "
               "other.")]
    if d % 2:
        parts.append(_("For an odd d the extra last column differs: a sine in the paper's layout, zeros in "
                       "tensor2tensor's (left out below)."))
    if k == 1:
        parts.append(_("With one pair both use the frequency 1, so after reordering the pairs agree (largest "
                       "difference {gap}).").format(gap=number(gap, ".2g")))
        return " ".join(parts)
    last_paper = float(table["omega_interleaved"].iloc[-1])
    parts.append(_("**Spacing:** tensor2tensor's {count} frequencies run from 1 down to exactly 1/base ({formula}), "
                   "while the paper's stop at {last} ({paper_formula}).").format(
        count=k, formula=r"$\omega_j=\text{base}^{-j/(k-1)}$", last=number(last_paper, ".4g"),
        paper_formula=r"$\omega_j=\text{base}^{-2j/d}$"))
    if gap == 0:
        parts.append(_("Over these positions the reordered tables still agree exactly."))
    else:
        parts.append(_("So even after reordering the tables differ, by up to {gap} (pair {pair}); pair by pair:").format(
            gap=number(gap, ".3g"), pair=worst))
    return " ".join(parts)


@per_view
def add_or_concat_text(view: AddOrConcat) -> str:
    """What concatenating P would cost one layer, and how little P overlaps random embeddings."""
    w = view.d
    parts = [ngettext(
        "**Concatenating** P would make every vector {wide} wide instead of {width}, in every layer. One encoder "
        "layer (four attention projections and a feed-forward block four times as wide) then holds {params} "
        "parameters instead of {params_added} ({params_ratio}×) and costs {macs} multiply-adds instead of "
        "{macs_added} for {count} token ({macs_ratio}×). **Adding** keeps the width.",
        "**Concatenating** P would make every vector {wide} wide instead of {width}, in every layer. One encoder "
        "layer (four attention projections and a feed-forward block four times as wide) then holds {params} "
        "parameters instead of {params_added} ({params_ratio}×) and costs {macs} multiply-adds instead of "
        "{macs_added} for {count} tokens ({macs_ratio}×). **Adding** keeps the width.",
        view.n).format(
        wide=2 * w, width=w, params=number(view.params_concat, ","), params_added=number(view.params_add, ","),
        params_ratio=number(view.params_concat / view.params_add, ".2f"), macs=number(view.macs_concat, ","),
        macs_added=number(view.macs_add, ","), count=view.n, macs_ratio=number(view.macs_concat / view.macs_add, ".2f"))]
    if math.isnan(view.overlap):
        parts.append(_("At d = {width} this table is all zeros, so there is no direction to compare; the chart shows "
                       "the other widths.").format(width=w))
        return " ".join(parts)
    if view.rows == 1 or view.rows >= min(view.n, OVERLAP_ROWS):
        rows = ngettext("{count} row of P", "{count} rows of P", view.rows).format(count=view.rows)
    else:
        rows = _("{count} rows of P (the non-zero ones)").format(count=view.rows)
    overlap = dict(width=w, rows=rows, embeddings=OVERLAP_EMBEDDINGS, overlap=number(view.overlap, ".3g"),
                   expected=number(view.expected, ".3g"), root=number(view.root, ".3g"))
    if view.overlap < ORTHOGONAL:
        parts.append(_("It loses little when positions and words point in nearly unrelated directions: at d = {width}, "
                       "{rows} and {embeddings} random Gaussian embeddings have a mean |cos| of {overlap}, against "
                       "{expected} for two random directions and 1/√d = {root}: nearly orthogonal.").format(**overlap))
    else:
        parts.append(_("It loses little when positions and words point in nearly unrelated directions: at d = {width}, "
                       "{rows} and {embeddings} random Gaussian embeddings have a mean |cos| of {overlap}, against "
                       "{expected} for two random directions and 1/√d = {root}: far from orthogonal at so small a "
                       "width.").format(**overlap))
    measured = [(w_, o) for w_, o in zip(view.widths, view.overlaps) if not math.isnan(o)]
    (w0, o0), (w1, o1) = measured[0], measured[-1]
    falls = dict(first=number(o0, ".3g"), first_width=w0, last=number(o1, ".3g"), last_width=w1)
    if w0 == 1 or view.layout == "interleaved":
        parts.append(_("Across the chart it falls from {first} at d = {first_width} to {last} at d = {last_width}: the "
                       "wider the model, the more room for both.").format(**falls))
    else:
        parts.append(_("Across the chart it falls from {first} at d = {first_width} to {last} at d = {last_width} (the "
                       "rows of P have no point at d = 1: tensor2tensor's one column there is zero): the wider the "
                       "model, the more room for both.").format(**falls))
    return " ".join(parts)


@per_view
def properties_text(view: PropertiesView) -> str:
    """The four properties, each with the number that shows it holds, measured on the rows drawn."""
    p = view.measured
    if view.rows == view.n:
        head = _("Four properties are often asked of a positional encoding. Measured on this table (positions {start} "
                 "to {last}, d = {d}, float64):")
    else:
        head = _("Four properties are often asked of a positional encoding. Measured on positions {start} and {last} "
                 "(one position has no distances to measure; d = {d}, float64):")
    if view.unique:
        unique = _("1. **A unique code for every position.** The two closest positions are {closest} apart (never 0).")
    else:
        unique = _("1. **A unique code for every position.** The two closest positions are {closest} apart (0: two "
                   "positions share a code).")
    if same_steps(p.step_spread):
        lengths = _("2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
                    "there are: the rows of a table twice as long differ from these by at most {gap}; and one step "
                    "along the sequence moves the code by the same distance everywhere ({spread}).").format(
            gap=number(p.prefix_gap, ".1e"), spread=_spread_words(p.step_spread))
    else:
        lengths = _("2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
                    "there are: the rows of a table twice as long differ from these by at most {gap}; but one step "
                    "along the sequence does not move the code by quite the same distance everywhere: the steps spread "
                    "over {spread}, from the unpaired last sine column of an odd d.").format(
            gap=number(p.prefix_gap, ".1e"), spread=number(p.step_spread, ".1e"))
    bounded = _("3. **Bounded, and defined for longer sentences.** The largest |value| is {largest}, and the next "
                "{count} positions ({first} to {last}), never asked for, stay within {beyond}: the formula goes on for "
                "ever, where a learned table has no row past its last trained position.").format(
        largest=number(p.largest, ".6g"), count=view.rows, first=view.last + 1, last=view.last + view.rows,
        beyond=number(p.beyond, ".6g"))
    repeated = _("4. **Deterministic.** Computed twice, the tables differ by {gap}.").format(
        gap=number(p.repeat_gap, "g"))
    return "\n".join([head.format(start=view.start, last=view.last, d=view.d),
                      unique.format(closest=number(p.closest, ".3g")), lengths, bounded, repeated])
