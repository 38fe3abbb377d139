"""The encoding heatmap page's sections under "explore further": the four properties of a
positional encoding measured on the table drawn, tensor2tensor's layout against the paper's, and
adding P to the token embeddings against concatenating it; each record carries its sentences."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import pandas as pd

import pekit
from pekit import charts
from lab.claims import Claim, Reference, Said
from lab.memo import shared
from lab.display import number
from lab.i18n import _, ngettext
from pekit.complexity import encoder_layer_multiply_adds, encoder_layer_parameters
from pekit.similarity import EncodingProperties, embedding_overlap, encoding_properties

DISTINCT = 1e-9  # two positions whose codes are closer than this share a code
# float64 steps (at most √(2d) ≈ 45 long) that agree to this are the same distance: an even width's
# steps spread by up to about 7 × 10⁻¹³ at n = 4096 (the rounding of i·ω_j), an odd width's unpaired
# sine by 2.4 × 10⁻⁶ at d = 3, base 10000
FLOAT64_ROUNDING = 1e-11
ORTHOGONAL = 0.2  # a mean |cos| below this reads as nearly orthogonal
# P's rows read as no more aligned with the embeddings than the control (random vectors measured the
# same way) while their mean |cos| is within this factor of the control's
LIKE_THE_CONTROL = 1.25


@dataclass(frozen=True)
class PropertiesView:
    """The four properties of a positional encoding, measured on ``rows`` positions of the
    table of width ``d`` (float64), the ones drawn: positions ``start`` to ``start + rows − 1``."""

    n: int
    rows: int
    d: int
    start: int
    measured: EncodingProperties
    text: str | None = None  # properties_text, said in the view's language

    @property
    def unique(self) -> bool:
        """Whether every position has a code of its own (the two closest are apart)."""
        return self.measured.closest > DISTINCT

    @property
    def last(self) -> int:
        """The last position measured."""
        return self.start + self.rows - 1


@shared(max_entries=24, per_language=True)
def properties(n: int, d: int, base: int, start: int, layout: str) -> PropertiesView:
    """What :func:`pekit.similarity.encoding_properties` measures, on the rows the page draws
    (from ``start``): one position has no distances to measure, so n = 1 measures two."""
    rows = max(n, 2)
    view = PropertiesView(n, rows, d, start, encoding_properties(rows, d, base=base, start=start, layout=layout))
    return dataclasses.replace(view, text=properties_text(view))


@dataclass(frozen=True)
class LayoutComparison:
    """tensor2tensor's table against the paper's over n positions from ``start`` (width d), pair by
    pair (:func:`pekit.compare_layouts`), with its sentence."""

    n: int
    d: int
    base: int
    start: int
    table: pd.DataFrame
    text: str | None = None  # layout_text, said in the view's language


@shared(max_entries=8, per_language=True)
def layout_comparison(n: int, d: int, base: int, start: int) -> LayoutComparison:
    view = LayoutComparison(n, d, base, start, pekit.compare_layouts(n, d, base=base, start=start))
    return dataclasses.replace(view, text=layout_text(view))


@shared(max_entries=8, per_language=True)
def layout_comparison_chart(d: int, base: int) -> dict:
    """The wavelengths of both layouts depend on d and base only, so a change of n leaves this
    chart as it is (the browser has nothing to redraw)."""
    return charts.layout_comparison_chart(pekit.compare_layouts(1, d, base=base)).spec()


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
    controls: tuple[float, ...] = ()  # the control at each width: as many random vectors against the same embeddings
    text: str | None = None  # add_or_concat_text, said in the view's language

    @property
    def overlap(self) -> float:
        return self.overlaps[self.widths.index(self.d)]

    @property
    def expected(self) -> float:
        return self.random[self.widths.index(self.d)]

    @property
    def root(self) -> float:
        return self.roots[self.widths.index(self.d)]

    @property
    def control(self) -> float:
        return self.controls[self.widths.index(self.d)]


@shared(max_entries=24, per_language=True)
def add_or_concat(n: int, d: int, base: int, start: int, layout: str) -> AddOrConcat:
    widths = tuple(sorted(set(OVERLAP_WIDTHS) | {d}))
    measured = embedding_overlap(n, widths, base=base, start=start, layout=layout, max_rows=OVERLAP_ROWS,
                                 embeddings=OVERLAP_EMBEDDINGS, seed=OVERLAP_SEED)
    frame = pd.concat([
        pd.DataFrame({"width": widths, "overlap": measured.overlaps, "curve": _("rows of P against random embeddings")}),
        pd.DataFrame({"width": widths, "overlap": measured.control,
                      "curve": _("control: random vectors against the same embeddings")}),
        pd.DataFrame({"width": widths, "overlap": measured.random, "curve": _("two random directions: E|cos|")}),
        pd.DataFrame({"width": widths, "overlap": measured.root, "curve": "1/√d"}),
    ]).dropna()
    chart = charts.line_chart(frame, x="width", y="overlap", series="curve", x_title=_("Width d"),
                              y_title=_("mean |cos|"), series_title=_("Curve"), log_x=True, log_y=True, points=True,
                              marks={f"d = {d}": d}).spec()
    view = AddOrConcat(n=n, d=d, layout=layout, params_add=encoder_layer_parameters(d),
                       params_concat=encoder_layer_parameters(2 * d), macs_add=encoder_layer_multiply_adds(d, n),
                       macs_concat=encoder_layer_multiply_adds(2 * d, n), widths=widths, overlaps=measured.overlaps,
                       random=measured.random, roots=measured.root, rows=measured.rows[widths.index(d)], chart=chart,
                       controls=measured.control)
    return dataclasses.replace(view, text=add_or_concat_text(view))


# sentences --------------------------------------------------------------------------------------

def same_steps(spread: float) -> bool:
    """Whether neighbour steps (float64) that spread by ``spread`` are the same distance, up to rounding
    (the properties' rule)."""
    return spread <= FLOAT64_ROUNDING


def _spread_words(spread: float) -> str:
    """How far steps that count as the same distance spread."""
    if spread == 0:
        return _("the steps agree exactly")
    return _("the steps spread over {spread}, float64 rounding").format(spread=number(spread, ".1e"))


def layout_text(view: LayoutComparison) -> Said:
    """How tensor2tensor's layout differs from the paper's, from the comparison table (one row per pair)."""
    table, d = view.table, view.d
    k = len(table)
    gap = float(table["max_abs_difference"].max())
    worst = int(table["max_abs_difference"].idxmax())
    parts = [_("Same ingredients, in another order: tensor2tensor puts all sines first and all cosines after them, "
               "where the paper interleaves sin/cos pairs; reordering the columns turns one arrangement into the "
               "other.")]
    cases = ("odd d",) if d % 2 else ()
    if d % 2:
        parts.append(_("For an odd d the extra last column differs: a sine in the paper's layout, zeros in "
                       "tensor2tensor's (left out below)."))
    # float32 tables: agreeing pairs differ by rounding at most
    agree = Reference(0.0, "the same table (float32 rounding of sin and cos)", tolerance=1e-6)
    if k == 1:
        parts.append(_("With one pair both use the frequency 1, so after reordering the pairs agree (largest "
                       "difference {gap}).").format(gap=number(gap, ".2g")))
        return Said(" ".join(parts), [Claim("largest difference after reordering", gap, "equal", agree)], cases)
    last_paper = float(table["omega_interleaved"].iloc[-1])
    last_t2t = float(table["omega_tensor2tensor"].iloc[-1])
    claims = [Claim("frequencies", k), Claim("tensor2tensor's last frequency", last_t2t, "equal",
                    Reference(1 / view.base, "1/base", tolerance=1e-6 / view.base)),
              Claim("the paper's last frequency", last_paper, "above", Reference(last_t2t, "tensor2tensor's, 1/base"))]
    parts.append(_("**Spacing:** tensor2tensor's {count} frequencies run from 1 down to exactly 1/base ({formula}), "
                   "while the paper's stop at {last} ({paper_formula}).").format(
        count=k, formula=r"$\omega_j=\text{base}^{-j/(k-1)}$", last=number(last_paper, ".4g"),
        paper_formula=r"$\omega_j=\text{base}^{-2j/d}$"))
    if gap <= agree.tolerance:
        claims.append(Claim("largest difference after reordering", gap, "equal", agree))
        parts.append(_("Over these positions the reordered tables still agree, to float32 rounding (largest difference "
                       "{gap}).").format(gap=number(gap, ".2g")))
    else:
        claims += [Claim("largest difference after reordering", gap, "above", agree), Claim("worst pair", worst)]
        parts.append(_("So even after reordering the tables differ, by up to {gap} (pair {pair}); pair by pair:").format(
            gap=number(gap, ".3g"), pair=worst))
    return Said(" ".join(parts), claims, cases)


def add_or_concat_text(view: AddOrConcat) -> Said:
    """What concatenating P would cost one layer, and how much P overlaps random embeddings, beside
    the control: as many random vectors, measured the same way."""
    w = view.d
    claims = [Claim("parameters, concatenated", view.params_concat), Claim("parameters, added", view.params_add),
              Claim("multiply-adds, concatenated", view.macs_concat), Claim("multiply-adds, added", view.macs_add),
              Claim("width, concatenated", 2 * w), Claim("width", w), Claim("tokens", view.n),
              Claim("parameters ratio", view.params_concat / view.params_add),
              Claim("multiply-adds ratio", view.macs_concat / view.macs_add)]
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
        return Said(" ".join(parts), claims)
    if view.rows == 1 or view.rows >= min(view.n, OVERLAP_ROWS):
        rows = ngettext("{count} row of P", "{count} rows of P", view.rows).format(count=view.rows)
    else:
        rows = _("{count} rows of P (the non-zero ones)").format(count=view.rows)
    overlap = dict(width=w, rows=rows, embeddings=OVERLAP_EMBEDDINGS, overlap=number(view.overlap, ".3g"),
                   control=number(view.control, ".3g"), count=view.rows)
    control = Reference(LIKE_THE_CONTROL * view.control,
                        f"the control (as many Gaussian vectors against the same embeddings) times {LIKE_THE_CONTROL}")
    parts.append(ngettext(
        "Is something lost when positions and words share the width? At d = {width}, {rows} and {embeddings} random "
        "Gaussian embeddings have a mean |cos| of {overlap}; the control, {count} random vector in their place, "
        "gives {control}.",
        "Is something lost when positions and words share the width? At d = {width}, {rows} and {embeddings} random "
        "Gaussian embeddings have a mean |cos| of {overlap}; the control, {count} random vectors in their place, "
        "gives {control}.", view.rows).format(**overlap))
    claims += [Claim("rows of P", view.rows), Claim("embeddings", OVERLAP_EMBEDDINGS), Claim("overlap", view.overlap),
               Claim("control", view.control)]
    if view.overlap <= control.value:
        claims.append(Claim("mean |cos| of P's rows", view.overlap, "at most", control))
        verdict = _("P's rows overlap the words no more than any vector would: what keeps them apart is the width.")
    else:
        claims.append(Claim("mean |cos| of P's rows", view.overlap, "above", control))
        verdict = _("P's rows overlap the words more than random vectors do.")
    threshold = Reference(ORTHOGONAL, "the mean |cos| this page reads as nearly orthogonal")
    if view.overlap < ORTHOGONAL:
        claims.append(Claim("mean |cos| of P's rows", view.overlap, "below", threshold))
        verdict += " " + _("At this width they are nearly orthogonal.")
    else:
        claims.append(Claim("mean |cos| of P's rows", view.overlap, "at least", threshold))
        verdict += " " + _("At so small a width they are far from orthogonal.")
    parts.append(verdict)
    trend = _trend(view, claims)
    parts.append(trend)
    return Said(" ".join(parts), claims, trend.cases)


def _trend(view: AddOrConcat, claims: list[Claim]) -> Said:
    """How the overlap of P's rows goes across the chart's widths, read from the whole series."""
    measured = [(w_, o) for w_, o in zip(view.widths, view.overlaps) if not math.isnan(o)]
    series = tuple(o for _w, o in measured)
    (w0, o0), (w1, o1) = measured[0], measured[-1]
    falls = dict(first=number(o0, ".3g"), first_width=w0, last=number(o1, ".3g"), last_width=w1)
    whole = Reference(series, "the overlap of P's rows at every width the chart shows")
    claims += [Claim("narrowest width", w0), Claim("overlap at the narrowest width", o0), Claim("widest width", w1),
               Claim("overlap at the widest", o1)]
    if Claim("overlap across the widths", series, "falls", whole).holds():
        claims.append(Claim("overlap across the widths", series, "falls", whole))
        text = _("Across the chart it falls at every wider width, from {first} at d = {first_width} to {last} at d = "
                 "{last_width}, as the control's does: the wider the model, the more room for both.").format(**falls)
    else:
        claims += [Claim("overlap across the widths", series, "not monotone", whole),
                   Claim("overlap at the widest width", o1, "below", Reference(o0, "the overlap at the narrowest width"))]
        text = _("Across the chart it falls overall, with bumps, from {first} at d = {first_width} to {last} at d = "
                 "{last_width}, as the control's does: the wider the model, the more room for both.").format(**falls)
    if w0 == 1 or view.layout == "interleaved":
        return Said(text)
    return Said(text + " " + _("(The rows of P have no point at d = 1: tensor2tensor's one column there is zero.)"),
                cases=("no point at d = 1",))


def properties_text(view: PropertiesView) -> Said:
    """The four properties, each with the number that shows it holds, measured on the rows drawn."""
    p = view.measured
    cases = ("whole table",) if view.rows == view.n else ("one position",)
    if view.rows == view.n:
        head = _("Four properties are often asked of a positional encoding. Measured on this table (positions {start} "
                 "to {last}, d = {d}, float64):")
    else:
        head = _("Four properties are often asked of a positional encoding. Measured on positions {start} and {last} "
                 "(one position has no distances to measure; d = {d}, float64):")
    apart = Reference(DISTINCT, "the distance under which two codes count as one")
    if view.unique:
        claims = [Claim("closest two positions", p.closest, "above", apart)]
        unique = _("1. **A unique code for every position.** The two closest positions are {closest} apart (never 0).")
    else:
        claims = [Claim("closest two positions", p.closest, "at most", apart)]
        unique = _("1. **A unique code for every position.** The two closest positions are {closest} apart (0: two "
                   "positions share a code).")
    # the longer table measured has 2 × rows rows: "twice as long" as the rows measured
    claims.append(Claim("rows of the longer table", 2 * view.rows))
    claims.append(Claim("largest difference from the longer table's first rows", p.prefix_gap, "equal",
                        Reference(0.0, "the same rows, computed alone (to float64 rounding)",
                                                  tolerance=FLOAT64_ROUNDING)))
    rounding = Reference(FLOAT64_ROUNDING, "float64 rounding of steps at most √(2d) long")
    if same_steps(p.step_spread):
        claims.append(Claim("spread of the neighbour steps", p.step_spread, "at most", rounding))
        lengths = _("2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
                    "there are: the rows of a table twice as long differ from these by at most {gap}; and one step "
                    "along the sequence moves the code by the same distance everywhere ({spread}).").format(
            gap=number(p.prefix_gap, ".1e"), spread=_spread_words(p.step_spread))
    else:
        claims.append(Claim("spread of the neighbour steps", p.step_spread, "above", rounding))
        lengths = _("2. **The same distances whatever the sentence's length.** Row i does not depend on how many rows "
                    "there are: the rows of a table twice as long differ from these by at most {gap}; but one step "
                    "along the sequence does not move the code by quite the same distance everywhere: the steps spread "
                    "over {spread}, from the unpaired last sine column of an odd d.").format(
            gap=number(p.prefix_gap, ".1e"), spread=number(p.step_spread, ".1e"))
    claims.append(Claim("largest |value| beyond the table", p.beyond, "at most", Reference(1.0, "|sin|, |cos| ≤ 1")))
    bounded = _("3. **Bounded, and defined for longer sentences.** The largest |value| is {largest}, and the next "
                "{count} positions ({first} to {last}), never asked for, stay within {beyond}: the formula goes on for "
                "ever, where a learned table has no row past its last trained position.").format(
        largest=number(p.largest, ".6g"), count=view.rows, first=view.last + 1, last=view.last + view.rows,
        beyond=number(p.beyond, ".6g"))
    claims.append(Claim("largest difference of two computations", p.repeat_gap, "equal",
                        Reference(0.0, "the same table")))
    repeated = _("4. **Deterministic.** Computed twice, the tables differ by {gap}.").format(
        gap=number(p.repeat_gap, "g"))
    claims += [Claim("first position", view.start), Claim("last position", view.last), Claim("d", view.d),
               Claim("closest", p.closest), Claim("largest |value|", p.largest), Claim("positions beyond", view.rows),
               Claim("first position beyond", view.last + 1), Claim("last position beyond", view.last + view.rows)]
    return Said("\n".join([head.format(start=view.start, last=view.last, d=view.d),
                           unique.format(closest=number(p.closest, ".3g")), lengths, bounded, repeated]), claims, cases)
