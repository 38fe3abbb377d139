"""The encoding heatmap page's computed views (the table, its columns, similarities and
wavelengths, as typed records of chart specs and tables) and the sentences that state their
numbers; the sections under "explore further" are in :mod:`lab.views.encoding_heatmap_further`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

import pekit
from pekit import charts
from pekit.charts import Drawing
from lab.claims import Claim, Reference, Said, joined
from lab.memo import shared
from lab.display import number
from lab.i18n import _, ngettext
from pekit.similarity import gram_block_means, similarity_by_offset, sinusoidal_column_changes

# Results are shared by every session as they are (lab.memo): a rerun that finds one
# neither unpickles nor copies it. Records are frozen, and nothing here or on the page changes
# a chart spec or a table after it is made. A record carries its sentences, said inside the
# view in the reader's language (lab.memo's per_language): a rerun says nothing again.

LAYOUTS = pekit.LAYOUTS  # the column layouts the page offers


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
    said: TableSentences | None = None  # the sentences about this record, in the language it was made in

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


@dataclass(frozen=True)
class TableSentences:
    """What the page says about a :class:`TableView` (each the sentence function of that name)."""

    table_caption: str
    csv_limit_caption: str | None
    formula_latex: str
    columns_help: str
    pairs_caption: str
    gram_caption: str
    offsets_caption: str
    offsets_text: str
    wavelengths_caption: str


SENTENCES = tuple(field.name for field in dataclasses.fields(TableSentences))


@shared(max_entries=24, per_language=True)
def table_view(n: int, d: int, base: int, start: int, layout: str) -> TableView:
    """Everything on the page that depends on the table but not on the chosen columns."""
    P = pekit.sinusoidal_encoding(n, d, base=base, start=start, layout=layout)  # (n, d)
    table = charts.heatmap(P, x_title=_("Column (encoding dimension)"), y_title=_("Row (position)"), row_offset=start)
    gram = gram_block_means(P, charts.drawing_blocks(n, n, max_marks=charts.MAX_RECT_MARKS)[0])
    gram_chart = charts.heatmap(gram, x_title=_("Position"), y_title=_("Position"), value_title="P[i]·P[k]",
                                palette="diverging", domain=None, row_offset=start, col_offset=start)
    offsets = similarity_by_offset(P, max_offset=min(n - 1, 512))
    view = TableView(
        n=n, d=d, base=base, start=start, layout=layout,
        heatmap=table.spec(), drawing=table.drawing,
        gram=gram_chart.spec(), gram_drawing=gram_chart.drawing,
        offsets=charts.offset_similarity_chart(offsets).spec(),
        max_spread=offsets.max_spread, starts=len(offsets.starts),
        offset_means=tuple(float(v) for v in offsets.mean),
        frequencies=pekit.frequency_table(d, base=base, layout=layout),
    )
    return dataclasses.replace(view, said=TableSentences(**{name: globals()[name](view) for name in SENTENCES}))


@dataclass(frozen=True)
class Curves:
    """The chosen columns of P over the positions: the chart and what it drew."""

    spec: dict
    drawing: Drawing
    caption: str | None = None  # curves_caption, said in the view's language


@shared(max_entries=24, per_language=True)
def curves(n: int, d: int, base: int, start: int, layout: str, columns: tuple[int, ...]) -> Curves:
    values = pekit.sinusoidal_columns(n, d, columns, base=base, start=start, layout=layout)  # (n, len(columns))
    drawn = charts.column_curves(values, columns, start=start)
    view = Curves(drawn.spec(), drawn.drawing)
    return dataclasses.replace(view, caption=curves_caption(view))


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
    wavelengths: tuple[float, ...] = ()  # 2π/ω of each frequency, fastest first
    text: str | None = None  # reading_text, said in the view's language

    @property
    def fastest(self) -> int:
        """The column that changes sign most often (the first such)."""
        return max(range(self.d), key=lambda c: (self.flips[c], -c))

    @property
    def steps(self) -> int:
        return self.n - 1


@shared(max_entries=24, per_language=True)
def column_flips(n: int, d: int, base: int, start: int, layout: str) -> ColumnFlips:
    changes = sinusoidal_column_changes(n, d, base=base, start=start, layout=layout)  # float64
    waves = pekit.frequency_table(d, base=base, layout=layout)["wavelength"]
    view = ColumnFlips(n=n, d=d, layout=layout, flips=changes.sign_changes, lows=changes.minimum,
                       highs=changes.maximum, frequencies=len(waves), wavelengths=tuple(float(w) for w in waves))
    return dataclasses.replace(view, text=reading_text(view))


# sentences --------------------------------------------------------------------------------------

def percent(part: int, whole: int) -> Said:
    """``part / whole`` as a percentage, never rounded to 0 % or 100 % when it is neither."""
    share = 100 * part / whole
    claims = [Claim("percent", share)]
    if 0 < share < 1:
        return Said(_("under 1%"), claims)
    if 99 < share < 100:
        return Said(_("over 99%"), claims)
    return Said(f"{share:.0f}%", claims)


def formula_latex(view: TableView) -> Said:
    """The formula of the chosen layout, with its edge cases (one pair; an odd width's last column)."""
    if view.layout == "interleaved":
        return (r"P_{i,\,2j} = \sin\!\Big(\frac{i}{\text{base}^{2j/d}}\Big),\qquad "
                r"P_{i,\,2j+1} = \cos\!\Big(\frac{i}{\text{base}^{2j/d}}\Big)")
    if view.d == 1:
        # the words inside the formula's \text{...}: keep them free of accents (KaTeX's text font)
        return Said(r"P_{i,\,0} = 0\quad(d = 1\text{ " + _("has no sine/cosine pair") + "})", [Claim("d", view.d)])
    omega = (r"\omega_0 = 1\ (k = 1)" if view.pairs == 1
             else r"\omega_j = \text{base}^{-j/(k-1)}")
    return Said(r"P_{i,\,j} = \sin(i\,\omega_j),\quad P_{i,\,k+j} = \cos(i\,\omega_j),\quad "
                + omega + r",\ k = \lfloor d/2 \rfloor" + (r",\quad P_{i,\,d-1} = 0" if view.zero_column else ""),
                [Claim("pairs", view.pairs)] if view.pairs == 1 else [])


def reading_text(view: ColumnFlips) -> Said:
    """How to read the heatmap column by column, with each column's measured sign changes."""
    last = view.d - 1
    if view.n == 1:
        return Said(_("With one position there are no neighbouring rows to compare: each column holds one value. "
                      "Raise n to watch the columns change down the table."), [Claim("positions", 1)])
    if view.frequencies == 0:
        return Said(_("d = 1 in tensor2tensor's layout is one column of zeros: there is nothing to read."),
                    [Claim("d", 1)])

    fast = view.fastest
    claims = [Claim("fastest column", fast), Claim("its sign changes", view.flips[fast])]
    if view.flips[fast] == 0:
        claims.append(Claim("rows", view.n))
        parts = [_("Read the picture column by column: over these {count} rows no column changes sign.").format(
            count=view.n)]
    elif view.flips[fast] == view.steps:
        claims[1] = Claim("its sign changes", view.flips[fast], "equal", Reference(view.steps, "the n − 1 steps"))
        parts = [_("Read the picture column by column: column {column} changes sign at every step.").format(
            column=fast)]
    else:
        f = view.flips[fast]
        claims += [Claim("steps", view.steps), Claim("its share of the steps, percent", 100 * f / view.steps)]
        parts = [_("Read the picture column by column: no column changes sign at every step. The fastest, column "
                   "{column}, changes sign between {count} of the {steps} pairs of neighbouring rows ({share}).").format(
            column=fast, count=f, steps=view.steps, share=percent(f, view.steps))]
    cases = []
    if last != fast:
        claims.append(Claim("last column", last))
        if view.layout == "tensor2tensor" and view.d % 2 == 1:
            cases.append("last column zeros")
            parts.append(_("The last column, {column}, is all zeros: tensor2tensor fills the extra column of an odd d "
                           "with zeros.").format(column=last))
        else:
            f = view.flips[last]
            claims += [Claim("last column's sign changes", f), Claim("last column's range", view.highs[last] - view.lows[last]),
                       Claim("last column's lowest", view.lows[last]), Claim("last column's highest", view.highs[last])]
            span = dict(column=last, span=number(view.highs[last] - view.lows[last], ".3g"),
                        low=number(view.lows[last], ".6g"), high=number(view.highs[last], ".6g"))
            cases.append("last column never changes sign" if f == 0 else "last column changes sign")
            if f == 0:
                parts.append(_("The last column, {column}, never changes sign and moves within a range of {span} "
                               "over the whole table (from {low} to {high}).").format(**span))
            else:
                parts.append(_("The last column, {column}, changes sign between {count} of the {steps} pairs of "
                               "neighbouring rows ({share}) and moves within a range of {span} over the whole table "
                               "(from {low} to {high}).").format(
                    count=f, steps=view.steps, share=percent(f, view.steps), **span))
    if view.frequencies == 1:
        parts.append(_("With a single frequency there is only one hand on the clock: add columns to get slower ones."))
        return Said(" ".join(parts), claims, cases)
    return joined([Said(" ".join(parts), claims, cases), _clock(view)])


def _clock(view: ColumnFlips) -> Said:
    """The clock's hands, as fast and as slow as this table's columns turn: whether the slowest
    comes round within the rows drawn (then it is no hour hand over them)."""
    fast, slow, span = view.wavelengths[0], view.wavelengths[-1], view.steps
    speeds = dict(count=view.frequencies, fast=number(fast, ".3g"), slow=_positions(slow), n=view.n)
    claims = [Claim("speeds", view.frequencies), Claim("fastest wavelength", fast), Claim("rows", view.n),
              Claim("slowest wavelength", slow, "above", Reference(fast, "the fastest pair's wavelength, 2π/ω_0")),
              Claim("wavelengths, fastest first", view.wavelengths, "rises",
                    Reference(view.wavelengths, "2π/ω_j of every frequency of the table, in column order"))]
    text = _("Fast columns tell neighbours apart and slow ones far-apart positions, like the hands of a clock: here "
             "{count} speeds, from one turn every {fast} positions to one every {slow}.").format(**speeds)
    if slow > span:
        claims.append(Claim("slowest wavelength", slow, "above", Reference(span, "the positions the table spans, n − 1")))
        text += " " + _("The slowest does not come round within these {n} rows: like an hour hand, it tells apart "
                        "positions that the fast columns have wrapped around.").format(**speeds)
    else:
        claims.append(Claim("slowest wavelength", slow, "at most", Reference(span, "the positions the table spans, n − 1")))
        text += " " + _("Even the slowest comes round within these {n} rows, so no column here is an hour hand over "
                        "the whole table (a larger base slows the last columns).").format(**speeds)
    return Said(text, claims)


def _positions(count: float) -> str:
    """A number of positions: three digits below 100 (2π ≈ 6.28), whole positions above."""
    return number(count, ".3g") if count < 100 else number(count, ",.0f")


def table_caption(view: TableView) -> Said:
    """What the heatmap of P draws: every entry, or block means; and, when a block holds several
    positions, which columns turn too fast for the blocks to follow (their means draw false, slower
    stripes: sampling a block mean once per block aliases what repeats within two blocks)."""
    drawing = view.drawing
    counted = [Claim("positions", view.n), Claim("columns", view.d), Claim("entries", view.cells)]
    if drawing.exact:
        return Said(drawing.describe(), counted)
    (rows, cols), (grid_rows, grid_cols) = drawing.block, drawing.grid
    sizes = dict(rows=number(view.n, ","), columns=number(view.d, ","), count=number(view.cells, ","),
                 grid_rows=number(grid_rows, ","), grid_columns=number(grid_cols, ","),
                 block_rows=ngettext("{count} position", "{count} positions", rows).format(count=number(rows, ",")),
                 block_columns=ngettext("{count} column", "{count} columns", cols).format(count=number(cols, ",")))
    even = grid_rows * rows == view.n and grid_cols * cols == view.d
    text = (_("{rows} × {columns} = {count} entries are more than a chart can show one by one: each pixel is the mean "
              "of a block of {block_rows} × {block_columns} ({grid_rows} × {grid_columns} pixels).")
            if even else
            _("{rows} × {columns} = {count} entries are more than a chart can show one by one: each pixel is the mean "
              "of a block of up to {block_rows} × {block_columns} ({grid_rows} × {grid_columns} pixels; the last "
              "blocks are smaller).")).format(**sizes)
    claims = counted + [Claim("positions per block", rows), Claim("columns per block", cols),
                      Claim("pixel rows", grid_rows), Claim("pixel columns", grid_cols),
                      Claim("pixels drawn", grid_rows * grid_cols),
                      Claim("entries covered", grid_rows * rows * grid_cols * cols, "at least",
                            Reference(view.cells, "the table's n × d entries"))]
    if rows > 1:
        waves = view.frequencies["wavelength"]
        two_blocks = 2 * rows
        fast = waves[waves < two_blocks]
        if len(fast):
            claims += [Claim("frequencies repeating within two blocks", len(fast)), Claim("two blocks", two_blocks)]
            claims.append(Claim("slowest wavelength drawn with false stripes", float(fast.max()), "below",
                                Reference(two_blocks, "two blocks of positions (the blocks sample once per block)")))
            text += " " + ngettext(
                "{count} frequency repeats within two blocks ({twice} positions): its columns' block means draw "
                "slower stripes that are not in the table, or average out.",
                "{count} frequencies repeat within two blocks ({twice} positions): their columns' block means draw "
                "slower stripes that are not in the table, or average out.", len(fast)).format(
                count=len(fast), twice=number(two_blocks, ","))
        else:
            claims.append(Claim("two blocks", two_blocks))
            claims.append(Claim("fastest wavelength", float(waves.min()), "at least",
                                Reference(two_blocks, "two blocks of positions (the blocks sample once per block)")))
            text += " " + _("Every frequency takes at least two blocks ({twice} positions) to repeat, so the block "
                            "means follow each column without false stripes.").format(twice=number(two_blocks, ","))
    return Said(text + " " + _("Lower n or d to see every entry."), claims, ("even blocks" if even else "uneven blocks",))


def csv_limit_caption(view: TableView) -> Said | None:
    """Why a table too large to download has no CSV button, and how to get it anyway (nothing for
    a table that can be downloaded)."""
    if view.downloadable:
        return None
    code = (f"pekit.sinusoidal_encoding({view.n}, {view.d}, base={view.base}, start={view.start}, "
            f"layout='{view.layout}')")
    return Said(_("CSV download up to {limit} entries (this table has {count}); for larger tables use `{code}` in "
                  "Python.").format(limit=number(charts.MAX_CSV_CELLS, ","), count=number(view.cells, ","), code=code),
                [Claim("entries", view.cells, "above", Reference(charts.MAX_CSV_CELLS, "the download's limit")),
                 Claim("limit", charts.MAX_CSV_CELLS), Claim("n", view.n), Claim("d", view.d), Claim("base", view.base),
                 Claim("start", view.start)])


def columns_help(view: TableView) -> Said:
    if view.d == 1:
        return Said(_("Up to 8 columns; d = 1 has column 0 only. The book plots columns 6 to 9."),
                    [Claim("columns at most", 8), Claim("d", 1)])
    return Said(_("Up to 8 columns from 0 to {last}, e.g. 0,{last}. The book plots columns 6 to 9.").format(
        last=view.last_column), [Claim("columns at most", 8), Claim("last column", view.last_column)])


def curves_caption(drawn: Curves) -> Said | None:
    """Nothing when every value is a point on its line; else how the curves were banded."""
    drawing = drawn.drawing
    if drawing.exact:
        return None
    claims = [Claim("positions", drawing.shape[0]), Claim("positions per band", drawing.block[0])]
    return Said(drawing.describe(), claims if drawing.kind == "bands" else claims[:1])


def pairs_caption(view: TableView) -> Said:
    """Which columns share a frequency in the chosen layout."""
    claims = [Claim("d", 1)] if view.d == 1 else []
    if view.d > 1 and (view.unpaired_sine or view.zero_column):
        claims.append(Claim("last column", view.last_column))
    if view.d > 1 and view.layout != "interleaved":
        claims += [Claim("pairs", view.pairs), Claim("last sine column", view.pairs - 1),
                   Claim("last cosine column", 2 * view.pairs - 1)]
    one = ("d = 1, sine",) if view.layout == "interleaved" else ("d = 1, zero",)
    return Said(_pairs_text(view), claims, one if view.d == 1 else ())


def _pairs_text(view: TableView) -> str:
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


def gram_caption(view: TableView) -> Said:
    """What the similarity matrix draws: every dot product, or exact block means (how many pixels,
    and blocks of up to how many positions when the last ones are smaller)."""
    gram = view.gram_drawing
    if gram.exact:
        if gram.hover:
            return Said(_("Similarity matrix P·Pᵀ: entry (i, k) is the dot product of rows i and k (hover for "
                          "values)."))
        return Said(_("Similarity matrix P·Pᵀ: entry (i, k) is the dot product of rows i and k, one pixel per entry."))
    sizes = dict(n=view.n, block=gram.block[0], grid=gram.grid[0])
    pixels = [Claim("positions", view.n), Claim("pixels per side", gram.grid[0]), Claim("block", gram.block[0])]
    if gram.grid[0] * gram.block[0] == view.n:
        return Said(_("Similarity matrix P·Pᵀ ({n} × {n}) in {grid} × {grid} pixels: each pixel is the exact mean over a "
                 "block of {block} × {block} positions (the mean of a block of dot products is the dot product of the "
                 "blocks' mean rows).").format(**sizes), pixels)
    last = Claim("positions in the last block", view.n - (gram.grid[0] - 1) * gram.block[0], "below",
                 Reference(gram.block[0], "the positions of every other block"))
    return Said(_("Similarity matrix P·Pᵀ ({n} × {n}) in {grid} × {grid} pixels: each pixel is the exact mean over a "
                  "block of up to {block} × {block} positions, the last ones smaller (the mean of a block of dot "
                  "products is the dot product of the blocks' mean rows).").format(**sizes), pixels + [last])


def offsets_caption(view: TableView) -> Said:
    """Where P[i]·P[i+δ] was measured, over which offsets, and how wide its band gets."""
    case = "one row" if view.n == 1 else "all rows" if view.starts == view.n else "evenly spaced rows"
    if view.n == 1:
        rows = _("at the table's one row i")
    elif view.starts == view.n:
        rows = _("at all {count} rows i").format(count=view.starts)
    else:
        rows = _("at {count} evenly spaced starting rows i").format(count=view.starts)
    claims = [Claim("largest offset drawn", view.max_offset)] + ([Claim("starting rows", view.starts)] if view.n > 1 else [])
    if view.max_offset == view.n - 1:
        reach = _("δ from 0 to {largest}").format(largest=view.max_offset)
    else:
        reach = _("δ from 0 to {largest} (the table reaches {last}; larger offsets are not drawn)").format(
            largest=view.max_offset, last=view.n - 1)
        claims.append(Claim("largest offset in the table", view.n - 1, "above",
                            Reference(view.max_offset, "the largest offset the chart draws")))
    return Said(_("P[i]·P[i+δ] measured {rows}, {offsets}: the line is the mean, the band spans the smallest to the "
                  "largest value.").format(rows=rows, offsets=reach), claims, (case,))


def offsets_text(view: TableView) -> Said:
    """Why P[i]·P[i+δ] depends on δ alone for paired columns, what an odd width adds, and where the
    measured line is largest and smallest."""
    pairs = _(r"Every sine/cosine pair contributes $\sin a\sin b + \cos a\cos b = \cos(a-b)$, so the pairs add up to "
              r"$\sum_j \cos(\delta\,\omega_j)$: a function of the **offset δ only**, not of where you start.")
    if view.d == 1 and view.layout == "tensor2tensor":
        return Said(pairs + " " + _("Here there is no pair: the one column is zero, so every product is 0."),
                    [Claim("d", 1), Claim("every product", 0)])
    band = (_("the band is {width} wide at its widest.").format(width=number(view.max_spread, ".2g")) if view.n > 1
            else _("with one row there is no other start to compare, so the band cannot show it."))
    widest = number(view.max_spread, ".2g")
    cases = [("band measured" if view.n > 1 else "no other start")] if view.d == 1 or view.unpaired_sine else []
    if view.d == 1:
        cases.insert(0, "d = 1, sine")
        parts = [_(r"With d = 1 there is no sine/cosine pair: the one column is the sine $\sin(i)$, and "
                   r"$\sin(i)\sin(i+\delta)$ does depend on i: {band}").format(band=band)]
    elif view.unpaired_sine:
        cases.insert(0, "unpaired last sine")
        parts = [pairs, _(r"The unpaired last sine column of an odd d adds $\sin(i\omega)\sin((i+\delta)\omega)$, "
                          r"which does depend on i: {band}").format(band=band)]
    elif view.zero_column:
        parts = [pairs, _("tensor2tensor's zero column for an odd d adds nothing, so the band stays a line (widest "
                          "{width}, float32 rounding).").format(width=widest)]
    else:
        parts = [pairs, _("The band stays a line (widest {width}, float32 rounding).").format(width=widest)]
    claims = [Claim("d", 1)] if view.d == 1 else []
    claims += [Claim("widest band", view.max_spread)] if view.n > 1 or view.d > 1 else []
    means = view.offset_means
    if len(means) == 1:
        parts.append(_("With one position only δ = 0 is measured."))
        return Said(" ".join(parts), claims + [Claim("offsets measured", 1)], cases)
    top = max(range(len(means)), key=lambda k: (means[k], -k))
    low = min(range(len(means)), key=lambda k: (means[k], k))
    parts.append(_("Over the offsets shown the mean is largest at δ = {top} ({top_value}) and smallest at δ = {low} "
                   "({low_value}).").format(top=top, top_value=number(means[top], ".3g"), low=low,
                                            low_value=number(means[low], ".3g")))
    return Said(" ".join(parts), claims + [
        Claim("offset of the largest mean", top), Claim("largest mean", means[top], "equal",
                                                        Reference(max(means), "the largest of the offsets' means")),
        Claim("offset of the smallest mean", low), Claim("smallest mean", means[low], "equal",
                                                         Reference(min(means), "the smallest of the offsets' means"))],
                cases)


def wavelengths_caption(view: TableView) -> Said:
    """The range of the wavelengths, and what an odd width's last column is."""
    wavelengths = view.frequencies["wavelength"]
    if wavelengths.empty:
        return Said(_("d = {d} in the {layout} layout has no sine/cosine pair: its one column is zero.").format(
            d=view.d, layout=view.layout), [Claim("d", view.d)])
    claims = []
    if len(wavelengths) == 1:
        claims = [Claim("first wavelength", float(wavelengths.iloc[0]))]
        text = _("One frequency only: wavelength 2π ≈ {wavelength} positions").format(
            wavelength=number(wavelengths.iloc[0], ".4g"))
    else:
        series = tuple(float(w) for w in wavelengths)
        limit = float(pekit.wavelengths(2, base=view.base)[0]) * view.base  # 2π·base
        claims = [Claim("wavelengths, pair by pair", series, "rises", Reference(series, "the frequency table's 2π/ω_j")),
                  Claim("last wavelength", series[-1], "at most", Reference(limit * (1 + 1e-12), "2π·base")),
                  Claim("first wavelength", series[0]), Claim("2π·base", limit)]
        text = _("The wavelengths grow geometrically from 2π ≈ {first} positions towards 2π·base = {limit} (the last "
                 "pair here: {last} positions)").format(
            first=number(wavelengths.iloc[0], ".4g"), limit=number(limit, ",.0f"), last=number(series[-1], ",.0f"))
    if view.unpaired_sine:
        text += _("; an odd d has a last pair with a sine and no cosine (cos column −1).")
    elif view.zero_column:
        claims.append(Claim("zero column", view.last_column))
        text += _("; each pair is one sine/cosine frequency, and the extra column {column} is zero.").format(
            column=view.last_column)
    else:
        text += _("; each pair is one sine/cosine frequency.")
    return Said(text, claims)
