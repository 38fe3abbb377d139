"""The fixed-or-learned page's sentences, each made from the real view at settings over the
sliders' whole range and checked against the numbers it states."""

from __future__ import annotations

import functools
import json
import math
import re

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.i18n import _
from lab.views import fixed_or_learned as lp
from pekit import charts
from pekit import pretrained as pt
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")


OFFSETS = st.integers(lp.MAX_OFFSET.minimum, lp.MAX_OFFSET.maximum)
# a number as the lab prints it: a true minus sign, a power of ten written out
NUMBER = r"−?[\d.]+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"


def read(said: str) -> float:
    """A number as the lab prints it (−0.0594, 1.2 × 10⁻⁶), read back; a hyphen is no minus sign."""
    assert "-" not in said and "e" not in said, said
    mantissa, _, power = said.replace("−", "-").partition(" × 10")
    power = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    return float(mantissa) * 10.0 ** int(power or 0)


def close_3g(said: str, value: float) -> bool:
    """``said`` is ``value`` to three significant digits."""
    return abs(read(said) - value) <= 0.5e-2 * abs(value) + 1e-300
KS = st.integers(lp.K.minimum, lp.K.maximum)


@settings(max_examples=30, deadline=None)
@given(low=st.floats(-10, 0), width=st.floats(1e-6, 10), total=st.integers(1, 10**6), data=st.data(),
       unit=st.sampled_from(["entries", "blocks drawn"]))
@example(low=-1.0, width=2.0, total=10, data=None, unit="entries")
@example(low=-0.0594, width=0.1188, total=49152, data=None, unit="blocks drawn")  # MiniLM's table
@example(low=-3e-7, width=1e-6, total=4, data=None, unit="entries")
def test_colour_statement_counts_what_the_scale_leaves_out(low, width, total, data, unit):
    beyond = data.draw(st.integers(0, total)) if data is not None else 0
    text = lp.colour_statement(pt.ColourRange(low, low + width, beyond, total), unit)
    assert text.holds() and text.claim("colour scale's low end").value == low
    assert text.claim("colour scale's high end").value == low + width
    assert text.claim(f"{unit} coloured").value == total and text.claim(f"{unit} beyond the scale").value == beyond
    assert number(low, ".3g") in text and number(low + width, ".3g") in text  # the scale's ends written
    assert "-" not in text and "e-" not in text  # minus signs and powers of ten as people write them
    assert f"{total:,}" in text and (beyond == 0 or f"{beyond:,}" in text)  # the counts claimed above, written


@settings(max_examples=8, deadline=None)
@given(table=st.sampled_from([0, 1]), which=st.sampled_from(["table", "gram"]))
def test_picture_captions_count_what_was_coloured(table, which):
    """Counted against the matrix drawn (the block means), recomputed by numpy from the table."""
    pictures = lp.tables()[table]
    picture = getattr(pictures, which)
    P = lp.position_tables()[table].double().numpy()
    matrix = P if which == "table" else P @ P.T
    br, bc = picture.drawing.block
    blocks = matrix.reshape(matrix.shape[0] // br, br, matrix.shape[1] // bc, bc).mean(axis=(1, 3))
    caption = lp.picture_caption(picture)
    assert caption == f"{lp.blocks_caption(picture)} {lp.colours_caption(picture)}"  # the page shows them apart too
    assert caption.claims == lp.blocks_caption(picture).claims + lp.colours_caption(picture).claims
    assert caption.holds()
    # what the drawing states, against the matrix and its blocks as numpy has them
    stated = {c.what: c.value for c in lp.blocks_caption(picture).claims}
    assert (stated["rows"], stated["columns"], stated["entries"]) == (*matrix.shape, matrix.size)
    if (br, bc) != (1, 1):
        assert (stated["rows per block"], stated["columns per block"]) == (br, bc)
        assert (stated["block rows drawn"], stated["block columns drawn"]) == blocks.shape
        assert all(f"{v:,}" in caption for v in (br, bc, *blocks.shape))
    assert lp.colours_caption(picture).claim("colour scale's low end").value == picture.colours.low
    c = picture.colours
    margin = 1e-5 * float(np.abs(blocks).max())  # pekit sums in float32: entries at the very ends may tip
    surely = int(((blocks < c.low - margin) | (blocks > c.high + margin)).sum())
    maybe = int(((blocks < c.low + margin) | (blocks > c.high - margin)).sum())
    assert picture.drawing.shape == matrix.shape and picture.drawing.grid == blocks.shape
    unit = "entries" if (br, bc) == (1, 1) else "blocks drawn"
    if which == "gram":  # dot products of positions: always the diverging palette, 0 at its neutral middle,
        # whatever their signs (all positive for the sinusoidal table), so that the two tables compare
        assert c.low == -c.high
        assert charts.PALETTES["diverging"][0] in json.dumps(picture.chart)
    said = lp.colour_statement(c, unit)  # the caption states this picture's colours, as counted in its unit
    assert said in caption and "-" not in said
    assert caption.claim(f"{unit} coloured").value == blocks.size
    assert surely <= caption.claim(f"{unit} beyond the scale").value <= maybe
    # the scale holds all but about 0.1% of the blocks (pekit.pretrained.colour_range's share), the same low and high
    low, high = np.quantile(np.abs(blocks), 0.999) * np.array([-1, 1])
    assert caption.claim("colour scale's low end").value == pytest.approx(low, rel=1e-4)
    assert caption.claim("colour scale's high end").value == pytest.approx(high, rel=1e-4)
    assert surely <= c.beyond <= maybe and f"{blocks.size:,}" in caption and (c.beyond == 0 or f"{c.beyond:,}" in caption)
    assert caption.startswith(f"{matrix.shape[0]:,} × {matrix.shape[1]:,} = {matrix.size:,} ")


@st.composite
def learned_tables(draw):
    """The real MiniLM table, or a small generated one standing in for it (rows, steps and lengths
    of every kind: equal steps, one long row, a random table)."""
    kind = draw(st.sampled_from(["minilm", "random", "ramp", "spike"]))
    if kind == "minilm":
        return lp.position_tables()[0]
    n, d = draw(st.integers(3, 40)), draw(st.integers(2, 16))
    gen = torch.Generator().manual_seed(draw(st.integers(0, 2**31)))
    if kind == "ramp":  # every step the same length
        return torch.arange(n, dtype=torch.float32)[:, None] * torch.ones(d) / d
    table = torch.randn(n, d, generator=gen)
    if kind == "spike":
        table[draw(st.integers(0, n - 1))] *= 10
    return table


def whole_view_with(learned: torch.Tensor) -> lp.WholeTables:
    real = lp.whole_table_view()
    summary = pt.position_table_summary(learned, max_offset=1, k=1)
    control = pt.position_table_summary(pt.shuffled_table(learned, seed=lp.CONTROL_SEED), max_offset=1, k=1)
    return real._replace(learned=summary, control=control)


def lower_median(values: np.ndarray) -> float:
    return float(np.sort(values)[(len(values) - 1) // 2])  # torch's median: the lower middle


def control_of(table: torch.Tensor) -> np.ndarray:
    """The control beside the learned table: its own entries shuffled (the page's seed), float64."""
    shuffled = pt.shuffled_table(table, seed=lp.CONTROL_SEED).double().numpy()
    assert sorted(shuffled.ravel()) == sorted(table.double().numpy().ravel())  # the same values, moved
    return shuffled


def check_against_control(said, claim: str, learned: float, control: float, tol: float = 1e-5) -> None:
    """A measurement offered about the learned table is shown beside the same measurement of its
    control, and the claim's relation is the one the two numbers (recomputed here) stand in."""
    c = said.claim(claim)
    assert c.reference.how == lp.CONTROL_HOW and abs(c.reference.value - control) <= tol * max(1.0, abs(control))
    assert abs(c.value - learned) <= tol * max(1.0, abs(learned))
    assert c.relation == ("above" if c.value > c.reference.value else "below" if c.value < c.reference.value
                          else "equal")
    assert "A control, " in said and said.holds()


@settings(max_examples=20, deadline=None)
@given(learned_tables())
def test_values_statement_states_both_ranges_and_the_long_rows(table):
    view = whole_view_with(table)
    text = lp.values_statement(view)
    L = table.double().numpy()
    S = lp.position_tables()[1].double().numpy()
    lo, hi, slo, shi = (text.split("The learned values run from ")[1].split(". ")[0]
                        .replace(", the sinusoidal ones from", " to").split(" to "))
    assert all(near(said, value, 3) for said, value in ((lo, L.min()), (hi, L.max()), (slo, S.min()), (shi, S.max())))
    assert "-" not in text  # a true minus sign: the sinusoidal values reach −1
    s_norms = np.linalg.norm(S, axis=1)
    assert np.ptp(s_norms) < 1e-4 and f"{s_norms[0]:.2f} (√(d/2))" in text
    assert math.isclose(s_norms[0], math.sqrt(S.shape[1] / 2), rel_tol=1e-4)
    norms = np.linalg.norm(L.astype(np.float32), axis=1)
    median = float(np.sort(norms)[(len(norms) - 1) // 2])  # torch's median: the lower middle
    assert near(text.split("median length of ")[1][:-1].split(".")[0] + "." +
                text.split("median length of ")[1].split(".")[1][:2], median, 2)
    long_rows = [i for i, norm in enumerate(norms) if norm > 2 * median]
    if long_rows:
        many = len(long_rows) > 1
        assert (f"Row{'s' if many else ''} {', '.join(map(str, long_rows))} {'are' if many else 'is'} more than twice "
                f"as long as the median row") in text
        assert all(f"{norms[i]:.2f}" in text for i in long_rows)
    else:  # no row more than twice the median: the count claimed is 0
        assert text.claim("learned rows more than twice the median").value == 0
    # beside the long rows, the same count on the control: long rows made by a few large entries
    # wherever they stand are no sign of position
    shuffled = control_of(table).astype(np.float32)
    c_norms = np.linalg.norm(shuffled, axis=1)
    c_long = int((c_norms > 2 * lower_median(c_norms)).sum())
    check_against_control(text, "learned rows more than twice the median", len(long_rows), c_long)
    assert f"{c_long} row{'' if c_long == 1 else 's'} {'is' if c_long == 1 else 'are'} more than twice its median" in text


def check_steps(said, name: str, steps: np.ndarray) -> None:
    """One table's sentence of ``said`` against its steps ``steps`` (float64, by numpy): one length
    within SAME, or the range, median, longest step and those more than twice the median."""
    lo, hi = float(steps.min()), float(steps.max())
    median = float(np.sort(steps)[(len(steps) - 1) // 2])  # torch's median: the lower middle
    width = said.claim(f"{name}: longest − shortest step")
    assert width.value == pytest.approx(hi - lo, abs=1e-5 * hi)
    if width.relation == "at most":  # every step one length
        assert np.ptp(steps) <= 1.01 * lp.SAME * hi
        assert said.claim(f"{name}: step length").value == pytest.approx(lo, rel=1e-5)
        assert f"Every step of the {name} table has the same length, {said.claim(f'{name}: step length').value:.4f}." \
            in said
        return
    assert np.ptp(steps) > 0.99 * lp.SAME * hi and f"The {name} table's steps run from " in said
    assert said.claim(f"{name}: shortest step").value == pytest.approx(lo, rel=1e-5)
    assert said.claim(f"{name}: longest step").value == pytest.approx(hi, rel=1e-5)
    assert said.claim(f"{name}: median step").value == pytest.approx(median, rel=1e-5)
    i = said.claim(f"{name}: where the longest step starts").value
    assert steps[i] >= hi * (1 - 1e-5)
    written = [said.claim(f"{name}: {what}").value for what in ("shortest step", "longest step", "median step")]
    assert f"run from {written[0]:.4f} to {written[1]:.4f} (median {written[2]:.4f}), the longest between " \
           f"positions {i} and {i + 1}, and " in said
    long_steps = [j for j, step in enumerate(steps) if step > 2 * median]
    clear = [j for j, step in enumerate(steps) if abs(step - 2 * median) > 1e-5 * median]  # clear of the line
    if said.claim(f"{name}: longest step").relation == "at most":  # none more than twice the median
        assert not [j for j in long_steps if j in clear]
        return
    named = said.claim(f"{name}: where the steps named long start").value
    assert [j for j in named if j in clear] == [j for j in long_steps if j in clear]
    lengths = said.claim(f"{name}: lengths of the steps named long").value
    assert np.allclose(lengths, steps[list(named)], rtol=1e-5)
    assert all(f"{j} → {j + 1} ({length:.3f})" in said for j, length in zip(named, lengths))


@settings(max_examples=20, deadline=None)
@given(learned_tables())
def test_steps_statement_states_the_range_median_and_jumps(table):
    view = whole_view_with(table)
    said = lp.steps_statement(view)
    assert said.holds()  # one length within SAME, or not; the long steps above twice the median
    S = lp.position_tables()[1].double().numpy()
    check_steps(said, "sinusoidal", np.linalg.norm(np.diff(S, axis=0), axis=1))
    steps = np.linalg.norm(np.diff(table.double().numpy(), axis=0), axis=1)
    check_steps(said, "learned", steps)
    c_steps = np.linalg.norm(np.diff(control_of(table), axis=0), axis=1)
    check_against_control(said, "learned: median step", lower_median(steps), lower_median(c_steps), tol=1e-4)
    assert said.index("sinusoidal table") < said.index("learned table") < said.index("A control, ")


def near(said: str, value: float, digits: int) -> bool:
    """A number as printed with ``digits`` decimals, against a float64 recomputation (pekit sums
    in float32)."""
    return abs(read(said) - value) <= 0.5 * 10**-digits + 1e-5 * abs(value)


@functools.cache
def by_offset(which: str) -> tuple[np.ndarray, np.ndarray]:
    """Of the real ``"learned"`` or ``"sinusoidal"`` table, or the learned table's ``"control"``:
    per offset δ = 0 .. 511, the mean cosine similarity of rows δ apart and the band's width (the
    largest minus the smallest over every start), from the diagonals of its unit rows' Gram
    matrix, float64."""
    learned, sinusoidal = lp.position_tables()
    table = {"learned": learned.double().numpy(), "sinusoidal": sinusoidal.double().numpy(),
             "control": real_control()}[which]
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    G = unit @ unit.T  # (512, 512): row i · row k
    diagonals = [np.diagonal(G, d) for d in range(len(G))]
    return np.array([v.mean() for v in diagonals]), np.array([np.ptp(v) for v in diagonals])


@functools.cache
def real_control() -> np.ndarray:
    """The control beside MiniLM's table: its entries shuffled at the page's seed, float64."""
    return control_of(lp.position_tables()[0])


@settings(max_examples=12, deadline=None)
@given(OFFSETS)
@example(lp.MAX_OFFSET.minimum)
@example(9)  # the last offset before δ = 10 is shown
@example(lp.MAX_OFFSET.maximum)
def test_offset_statement_states_the_similarities_shown(max_offset):
    view = lp.offsets_view(max_offset)
    text = lp.offset_statement(view)
    assert text.holds()  # each band against SAME, each learned similarity against its control's
    shown = [d for d in (1, 2, 5, 10) if d <= max_offset]
    assert text.claim("offsets shown").value == tuple(shown)
    for d in (1, 2, 5, 10):
        assert (f"δ = {d}:" in text) == (d in shown)
    (learned, learned_width), (sinusoidal, sin_width) = by_offset("learned"), by_offset("sinusoidal")
    assert np.allclose(text.claim("sinusoidal: mean similarity at each offset shown").value, sinusoidal[shown],
                       rtol=0, atol=1e-5)
    control, _width = by_offset("control")
    for d in shown:  # beside the learned similarities, the control's at the same offsets: neighbours alike by chance
        check_against_control(text, f"learned: mean similarity at δ = {d}", learned[d], control[d], tol=1e-4)
        said = re.findall(NUMBER, text.split(f"δ = {d}: ", 1)[1])  # the learned table's number, then the sinusoidal's
        assert abs(read(said[0]) - learned[d]) <= 0.0051 and abs(read(said[1]) - sinusoidal[d]) <= 0.0051
        assert f"{number(control[d], '.2f')} at δ = {d}" in text
    for name, widths in (("learned", learned_width), ("sinusoidal", sin_width)):
        width = float(widths[: min(max_offset, 511) + 1].max())
        claim = text.claim(f"{name}: widest band")
        assert claim.value == pytest.approx(width, abs=1e-5) and claim.reference.value == lp.SAME
        if claim.relation == "below":  # the band stays a line
            assert width < lp.SAME / 2 and f"{number(claim.value, '.1e')}" in text
        else:
            assert width > 2 * lp.SAME and number(claim.value, ".2f") in text


def numpy_gap(scores: np.ndarray, a: int, b: int) -> float:
    """Phase difference (0 .. 180 degrees) of columns a and b at the strongest frequency of a, by numpy."""
    spectrum = np.fft.rfft(scores[:, [a, b]].astype(np.float64), axis=0)
    row = spectrum[int(np.abs(spectrum[:, 0]).argmax())]
    gap = abs(np.degrees(np.angle(row[1]) - np.angle(row[0]))) % 360.0
    return float(360.0 - gap if gap > 180.0 else gap)


def numpy_periods(scores: np.ndarray) -> list[float]:
    peak = np.abs(np.fft.rfft(scores.astype(np.float64), axis=0)).argmax(axis=0)
    return [scores.shape[0] / int(p) if p else math.inf for p in peak]


def written_in_order(text: str, numbers: list[str]) -> None:
    """Each of ``numbers`` is written in ``text``, one after another."""
    at = 0
    for written in numbers:
        assert written in text[at:], f"{written!r} not after {text[:at]!r} in {text!r}"
        at = text.index(written, at) + len(written)


def check_components_statement(view, k):
    text = lp.components_statement(view)
    assert text.holds()  # each wave word against 2 sign changes, each phase against the tolerance
    c = view.summary.components
    scores = c.scores.numpy()
    n = scores.shape[0]
    periods = numpy_periods(scores)
    assert text.startswith(f"{_(view.title)}: ")
    # the components' clauses, then the pairs' (no number written ends in ". " or holds "; ")
    components, pairing = text[len(_(view.title)) + 2:].split(". ")[:2]
    components, pairing = components.split("; "), pairing.rstrip(".").split("; ")
    assert len(components) == k
    for i in range(k):
        crossings = int((np.sign(scores[1:, i]) * np.sign(scores[:-1, i]) < 0).sum())
        # each component's numbers, in order: its index, share of the variance, sign changes and period
        written_in_order(components[i], [f"PC{i + 1}", f"{float(c.explained[i]):.1%}", f"{crossings}"]
                         + ([f"{periods[i]:.1f}"] if periods[i] < n else []))
        # one wave over the table crosses 0 at most twice; more sign changes are faster wiggles over it
        wave = [x for x in text.claims if x.what == f"PC{i + 1}: sign changes"]
        if math.isfinite(periods[i]) and periods[i] >= n:
            assert wave[0].value == crossings and wave[0].relation == ("at most" if crossings <= 2 else "above")
        else:
            assert wave == []
        assert (f"{periods[i]:.1f}" in components[i]) == (periods[i] < n)  # a trend or the whole table: no period
    same = {(a, b) for a in range(k) for b in range(a + 1, k)
            if math.isfinite(periods[a]) and abs(periods[a] - periods[b]) <= 0.01 * periods[a]}
    gaps = {pair: numpy_gap(scores, *pair) for pair in same}

    def gap_claims(a, b):
        return [x for x in text.claims if x.what == f"PC{a + 1}, PC{b + 1}: phase gap's distance from 90°"]

    def clause(a, b):  # the one clause that names both components first
        (said,) = [x for x in pairing if x.startswith(f"PC{a + 1}") and f"PC{b + 1}" in x[len(f"PC{a + 1}"):][:12]]
        return said

    # a pair: its phase gap claimed within the tolerance of 90°
    pairs = [pair for pair in sorted(same) if any(x.relation == "at most" and x.reference.value == lp.PHASE_TOLERANCE
                                                  for x in gap_claims(*pair))]
    used = [i for pair in pairs for i in pair]
    assert len(used) == len(set(used)), "a component partners two"
    assert all(abs(gaps[pair] - 90) <= lp.PHASE_TOLERANCE for pair in pairs)
    for a, b in pairs:
        assert math.isclose(gap_claims(a, b)[0].value, abs(gaps[(a, b)] - 90), abs_tol=0.5)
        written_in_order(clause(a, b), [f"PC{a + 1}", f"PC{b + 1}", f"{periods[a]:.1f}", f"{gaps[(a, b)]:.0f}°"])
    for a, b in sorted(same - set(pairs)):  # every other shared period is said, with why it is no pair
        written = [f"PC{a + 1}", f"PC{b + 1}", f"{periods[a]:.1f}", f"{gaps[(a, b)]:.0f}°"]
        if abs(gaps[(a, b)] - 90) <= lp.PHASE_TOLERANCE:  # only because one of them is taken, closer to 90°
            taken = a if a in used else b
            mate = next(x for pair in pairs if taken in pair for x in pair if x != taken)
            assert taken in used and abs(gaps[tuple(sorted((taken, mate)))] - 90) <= abs(gaps[(a, b)] - 90)
            closer = [x for x in gap_claims(*sorted((taken, mate))) if x.reference.value != lp.PHASE_TOLERANCE]
            assert [x.relation for x in closer] == ["at most"] and closer[0].holds()
            assert math.isclose(closer[0].reference.value, abs(gaps[(a, b)] - 90), abs_tol=0.5)
            written_in_order(clause(a, b), written + [f"PC{taken + 1}", f"PC{mate + 1}"])
        else:
            (off,) = gap_claims(a, b)
            assert off.relation == "above" and off.reference.value == lp.PHASE_TOLERANCE
            assert math.isclose(off.value, abs(gaps[(a, b)] - 90), abs_tol=0.5)
            written_in_order(clause(a, b), written + [f"{lp.PHASE_TOLERANCE:.0f}°"])
    # the case: one component (no pair to look for), no pair among several (within the tolerance, written first), or
    # pairs
    assert text.cases == (("one component",) if k == 1 else ("no pair",) if not pairs else ())
    if text.cases == ("no pair",):
        assert f"{lp._n(lp.PHASE_TOLERANCE, '.0f')}°" in pairing[0]
    return pairs


@functools.cache
def control_pairs(k: int) -> int:
    """How many pairs like a sine and its cosine the control's first ``k`` components hold."""
    control = pt.position_components(torch.from_numpy(real_control()).float(), k)
    return len(control.pairs(tolerance=lp.PERIOD_TOLERANCE, phase_tolerance=lp.PHASE_TOLERANCE))


@settings(max_examples=5, deadline=None)
@given(KS)
@example(1).via("one component")
@example(5).via("PC4 and PC5 of MiniLM share a period but not a phase")
@example(8).via("the slider's largest")
def test_components_statement_states_each_component_and_pairs_by_period_and_phase(k):
    learned, sinusoidal = lp.components_view(k)
    # the sinusoidal table's components are sine and cosine pairs of one frequency each: all found
    assert check_components_statement(sinusoidal, k) == [(2 * i, 2 * i + 1) for i in range(k // 2)]
    found = check_components_statement(learned, k)
    if k >= 2:
        assert (0, 1) in found  # MiniLM's fastest wave, period ~5.8, 90° apart
        # beside the pairs found, the control's: a random table's components do not pair up
        said = lp.components_statement(learned)
        check_against_control(said, "pairs like a sine and its cosine", len(found), control_pairs(k))
    assert lp.components_statement(sinusoidal).holds() and "control" not in lp.components_statement(sinusoidal)
    assert (3, 4) not in found and (4, 5) not in found  # one period, but 131° and 33° apart


def test_pairs_need_a_quarter_turn_and_take_each_component_once():
    i = torch.arange(512, dtype=torch.float64)
    wave = 2 * math.pi * i / 64
    # three columns of one period: a sine, its cosine, and a sine shifted by 30°
    P = torch.stack([3 * torch.sin(wave), 2 * torch.cos(wave), 1 * torch.sin(wave + math.pi / 6)], 1)
    comps = pt.position_components(P.float(), 3)
    found = comps.pairs()
    assert len(found) <= 1 and all(abs(comps.phase_gap(a, b) - 90) <= 20 for a, b in found)
    # a faint third column of noise gives the table its second component (a fixed draw: about 1 draw in 100
    # of such noise has a period and phase of its own that pair it with the sine)
    noise = torch.randn(512, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 1e-3
    in_phase = torch.stack([torch.sin(wave), 0.5 * torch.sin(wave), noise], 1)
    assert pt.position_components(in_phase.float(), 2).pairs() == []  # one period, no quarter turn
    for bad, name in (({"tolerance": -1.0}, "tolerance"), ({"phase_tolerance": 91.0}, "phase_tolerance")):
        with pytest.raises(ValueError, match=name):
            comps.pairs(**bad)
    with pytest.raises(ValueError, match="b=3"):
        comps.phase_gap(0, 3)


def test_a_table_without_pairs_says_so():
    # the control's components (MiniLM's entries shuffled) pair up nowhere: the statement says there is no pair
    for k in (2, lp.K.maximum):
        control = lp.Components(lp.NAMES[0], lp.TITLES[0], lp.cut(k=k)[2], {})
        assert control_pairs(k) == 0 and check_components_statement(control, k) == []
        assert lp.components_statement(control).cases == ("no pair",)
