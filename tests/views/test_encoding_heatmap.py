"""The encoding heatmap page's records and sentences: each sentence states the numbers of the
record it is written from, checked on the real views over the page's settings (n 1..4096,
d 1..1024, base 2..1e6, first position 0 or 1, both layouts)."""

import math
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.i18n import ngettext
from lab.views import encoding_heatmap as views

# (n, d, base, start, layout): the page's corners, the sizes where a picture or the download
# changes kind, and odd widths in both layouts
GRID = [
    (1, 1, 2, 0, "interleaved"),
    (1, 1, 10000, 1, "tensor2tensor"),
    (2, 2, 10000, 0, "tensor2tensor"),
    (3, 3, 1_000_000, 1, "tensor2tensor"),
    (40, 7, 10000, 0, "interleaved"),
    (60, 32, 10000, 0, "interleaved"),
    (64, 32, 100, 1, "interleaved"),  # 2048 cells: the last size drawn cell by cell
    (65, 32, 100, 0, "tensor2tensor"),
    (1024, 1024, 10000, 0, "interleaved"),  # the largest table offered as CSV
    (1025, 1024, 10000, 1, "interleaved"),
    (4096, 1023, 500, 1, "tensor2tensor"),
    (4096, 1024, 10000, 0, "interleaved"),
]
SMALL = st.tuples(st.integers(1, 300), st.integers(1, 64), st.integers(2, 1_000_000), st.sampled_from([0, 1]),
                  st.sampled_from(views.LAYOUTS))
# the whole range: small tables mostly, and the largest sizes
WHOLE = SMALL | st.tuples(st.integers(1, 4096), st.sampled_from([1, 2, 3, 511, 1023, 1024]),
                          st.sampled_from([2, 10000, 1_000_000]), st.sampled_from([0, 1]), st.sampled_from(views.LAYOUTS))


def omegas(d: int, base: int, layout: str) -> list[float]:
    """The frequencies of the table, from their definitions."""
    if layout == "interleaved":
        return [base ** (-2 * j / d) for j in range((d + 1) // 2)]
    k = d // 2
    return [1.0] if k == 1 else [base ** (-j / (k - 1)) for j in range(k)]


def table64(n: int, d: int, base: int, start: int, layout: str) -> np.ndarray:
    """P in float64, written from the formula column by column, (n, d)."""
    i = np.arange(start, start + n, dtype=np.float64)
    P = np.zeros((n, d))
    w = omegas(d, base, layout)
    for c in range(d):
        if layout == "interleaved":
            P[:, c] = np.sin(i * w[c // 2]) if c % 2 == 0 else np.cos(i * w[c // 2])
        elif c < 2 * (d // 2):
            k = d // 2
            P[:, c] = np.sin(i * w[c]) if c < k else np.cos(i * w[c - k])
    return P


# a number as the lab writes it: a minus sign, and a power of ten written out (``1.2 × 10⁻⁵``)
NUMBER = r"(−?[\d.]+(?: × 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?)"


def read(text: str) -> float:
    """A number the page wrote, read back."""
    text = text.replace("−", "-")
    if " × 10" in text:
        mantissa, power = text.split(" × 10")
        text = f"{mantissa}e{power.translate(str.maketrans('⁰¹²³⁴⁵⁶⁷⁸⁹⁻', '0123456789-'))}"
    return float(text)


def numbers(text: str) -> list[float]:
    return [float(v.replace(",", "")) for v in re.findall(r"-?\d[\d,]*\.?\d*(?:e[+-]?\d+)?", text)]


def table(setting) -> views.TableView:
    return views.table_view(*setting)


def check_table_caption(view: views.TableView) -> None:
    caption, drawing = views.table_caption(view), view.drawing
    assert drawing.shape == (view.n, view.d)
    assert [caption.claim(w).value for w in ("positions", "columns", "entries")] == [view.n, view.d, view.n * view.d]
    if drawing.exact:
        one = view.n * view.d == 1
        assert caption == drawing.describe()  # the drawing's own message: every entry, no blocks
        assert not any(c.what == "positions per block" for c in caption.claims)
        if one:
            assert "1 × 1" not in caption  # (one entry is not written as a table of one)
        else:
            assert f"{number(view.n, ',')} × {number(view.d, ',')}" in caption
    else:
        rows, cols = drawing.block
        grid = drawing.grid
        even = grid[0] * rows == view.n and grid[1] * cols == view.d
        assert caption.claim("positions per block").value == rows and caption.claim("columns per block").value == cols
        assert (caption.claim("pixel rows").value, caption.claim("pixel columns").value) == grid
        # the case: blocks that tile the table evenly, or up to that size, the last smaller
        assert caption.cases == (("even blocks",) if even else ("uneven blocks",))
        # the sizes written: the table, the grid, and the block in positions and columns (their plural forms)
        assert caption.startswith(f"{number(view.n, ',')} × {number(view.d, ',')} = {number(view.n * view.d, ',')} ")
        assert f"{number(grid[0], ',')} × {number(grid[1], ',')}" in caption
        block_rows = ngettext("{count} position", "{count} positions", rows).format(count=number(rows, ","))
        block_columns = ngettext("{count} column", "{count} columns", cols).format(count=number(cols, ","))
        assert f"{block_rows} × {block_columns}" in caption
        # the blocks named cover the whole table, and the picture has the pixels the caption counts
        assert grid[0] * rows >= view.n and grid[1] * cols >= view.d
        assert caption.claim("pixels drawn").value == grid[0] * grid[1]
        assert caption.holds()
        # aliasing: a block mean sampled once per block of `rows` positions cannot follow a column that
        # repeats within two blocks; the caption counts those frequencies, from their definitions
        waves = [2 * math.pi / w for w in omegas(view.d, view.base, view.layout)]
        fast = [w for w in waves if w < 2 * rows]
        if rows == 1:
            assert not any(c.what == "two blocks" for c in caption.claims)
        elif fast:
            said = caption.claim("frequencies repeating within two blocks").value
            assert said == len(fast) and caption.claim("two blocks").value == 2 * rows
            claim = caption.claim("slowest wavelength drawn with false stripes")
            assert math.isclose(claim.value, max(fast), rel_tol=1e-5) and claim.reference.value == 2 * rows
        else:
            assert min(waves) >= 2 * rows * (1 - 1e-6) and caption.claim("two blocks").value == 2 * rows
            claim = caption.claim("fastest wavelength")  # every frequency takes at least two blocks
            assert claim.relation == "at least" and claim.reference.value == 2 * rows
            assert math.isclose(claim.value, min(waves), rel_tol=1e-5)


def check_csv_limit_caption(view: views.TableView) -> None:
    assert view.downloadable == (view.n * view.d <= 1 << 20)
    caption = views.csv_limit_caption(view)
    if view.downloadable:
        assert caption is None  # the page offers the download instead
        return
    assert caption.holds() and caption.claim("entries").reference.value == 1 << 20 < view.n * view.d
    assert caption.claim("limit").value == 1 << 20 and caption.claim("entries").value == view.n * view.d
    assert [caption.claim(w).value for w in ("n", "d", "base", "start")] == [view.n, view.d, view.base, view.start]
    assert f"pekit.sinusoidal_encoding({view.n}, {view.d}, base={view.base}, start={view.start}, " in caption


def check_columns_help(view: views.TableView) -> None:
    assert view.last_column == view.d - 1
    text = views.columns_help(view)
    assert text.claim("columns at most").value == 8 and "8" in text
    if view.d == 1:
        assert text.claim("d").value == 1
    else:
        assert text.claim("last column").value == view.d - 1


def check_formula_latex(view: views.TableView) -> None:
    latex = views.formula_latex(view)
    P = table64(min(view.n, 8), view.d, view.base, view.start, view.layout)
    if view.layout == "interleaved":
        assert r"P_{i,\,2j} = \sin" in latex and r"\text{base}^{2j/d}" in latex
    elif view.d == 1:
        assert latex.startswith(r"P_{i,\,0} = 0") and not P.any()
    else:
        k = view.d // 2
        assert (r"\omega_0 = 1\ (k = 1)" in latex) == (k == 1)
        assert (r"P_{i,\,d-1} = 0" in latex) == (view.d % 2 == 1)
        if view.d % 2:
            assert not P[:, -1].any()  # the extra column is zeros, as the formula says


def check_pairs_caption(view: views.TableView) -> None:
    caption, pairs = views.pairs_caption(view), view.frequencies
    P = table64(4, view.d, view.base, 0, view.layout)  # positions 0 to 3: sin 0 = 0, cos 0 = 1
    if view.d == 1:
        assert caption.claim("d").value == 1
        # the case: tensor2tensor's one column is zero, interleaved's is the sine
        assert caption.cases == (("d = 1, zero",) if not P.any() else ("d = 1, sine",))
        return
    odd = [c.value for c in caption.claims if c.what == "last column"]
    assert odd == ([view.d - 1] if view.d % 2 else [])
    if view.layout == "interleaved":
        assert not any(c.what == "pairs" for c in caption.claims)  # pairs side by side: no count of pairs to name
        paired = pairs[pairs.cos_column >= 0]
        assert (paired.cos_column == paired.sin_column + 1).all()
        assert (P[0, 0::2] == 0).all() and (P[0, 1::2] == 1).all()
        return
    k = view.d // 2
    assert caption.claim("pairs").value == k and caption.claim("last sine column").value == k - 1
    assert caption.claim("last cosine column").value == 2 * k - 1
    assert (pairs.cos_column == pairs.sin_column + k).all()
    assert (P[0, :k] == 0).all() and (P[0, k : 2 * k] == 1).all()
    if view.d % 2:
        assert not P[:, -1].any()


def check_gram_caption(view: views.TableView) -> None:
    caption, gram = views.gram_caption(view), view.gram_drawing
    assert gram.shape == (view.n, view.n)
    if gram.exact:
        assert caption.claims == ()  # every dot product drawn: no blocks to count
        assert caption.endswith(" (hover for values)." if gram.hover else ", one pixel per entry.")
    else:
        b, g = gram.block[0], gram.grid[0]
        assert gram.block == (b, b) and gram.grid == (g, g) and g * b >= view.n
        even = g * b == view.n
        assert caption.claim("positions").value == view.n and caption.claim("pixels per side").value == g
        assert caption.claim("block").value == b and caption.holds()
        # blocks of up to b positions, the last ones smaller: said with the last block's count, below b
        assert [c.relation for c in caption.claims if c.what == "positions in the last block"] == ([] if even else ["below"])
        if not even:  # the last block holds what is left of the positions, fewer than b
            assert caption.claim("positions in the last block").value == view.n - (g - 1) * b < b


def starts_of(n: int) -> np.ndarray:
    return np.unique(np.round(np.linspace(0, n - 1, min(64, n))).astype(int))


def offset_products(view: views.TableView) -> tuple[np.ndarray, float]:
    """Mean of P[i]·P[i+δ] over the starting rows (float64), per δ, and the widest band."""
    P = table64(view.n, view.d, view.base, view.start, view.layout)
    starts = starts_of(view.n)
    means, spread = [], 0.0
    for delta in range(min(view.n - 1, 512) + 1):
        vals = [P[i] @ P[i + delta] for i in starts if i + delta < view.n]
        means.append(np.mean(vals))
        spread = max(spread, max(vals) - min(vals))
    return np.array(means), spread


def check_offsets_caption(view: views.TableView) -> None:
    caption = views.offsets_caption(view)
    assert view.starts == min(view.n, 64) == len(starts_of(view.n))  # every row, or 64 evenly spaced ones
    if view.n == 1:
        assert not any(c.what == "starting rows" for c in caption.claims)
    else:
        assert caption.claim("starting rows").value == min(view.n, 64)
        assert caption.cases == (("evenly spaced rows",) if view.n > 64 else ("all rows",))
        assert f"{min(view.n, 64)}" in caption  # the starting rows, counted
    top = min(view.n - 1, 512)
    assert view.max_offset == top and caption.claim("largest offset drawn").value == top
    beyond = [c.relation for c in caption.claims if c.what == "largest offset in the table"]
    assert beyond == (["above"] if view.n - 1 > 512 else [])  # larger offsets are said not to be drawn
    assert caption.holds()
    if view.n - 1 > 512:
        assert caption.claim("largest offset in the table").reference.value == 512
        assert caption.claim("largest offset in the table").value == view.n - 1


def check_offsets_text(view: views.TableView) -> None:
    text = views.offsets_text(view)
    means, spread = offset_products(view)
    scale = max(1.0, view.d / 2)
    assert abs(view.max_spread - spread) <= 1e-5 * scale  # float32 against float64
    if view.d == 1 and view.layout == "tensor2tensor":
        assert text.claim("every product").value == 0 and not means.any()
        return
    widest = [c.value for c in text.claims if c.what == "widest band"]
    assert widest == ([] if view.d == 1 and view.n == 1 else [view.max_spread])
    if view.unpaired_sine:
        # the case: the sine alone (d = 1) or the unpaired last sine column makes the product depend on i, as
        # wide as the band measured (or one row: no other start to compare)
        assert text.cases == ("d = 1, sine" if view.d == 1 else "unpaired last sine",
                              "band measured" if view.n > 1 else "no other start")
        assert view.n == 1 or f" {number(widest[0], '.2g')} " in text  # the band's width, written
        # d = 1 has no pair at all: the text says so, with d
        assert [c.value for c in text.claims if c.what == "d"] == ([1] if view.d == 1 else [])
        # without the unpaired column the band is a line: all of the width comes from it
        if view.d > 1:
            P = table64(view.n, view.d, view.base, view.start, "interleaved")[:, :-1]
            starts = starts_of(view.n)
            for delta in range(0, min(view.n - 1, 512) + 1, 37):
                vals = [P[i] @ P[i + delta] for i in starts if i + delta < view.n]
                assert max(vals) - min(vals) <= 1e-9 * scale
    else:
        assert spread <= 1e-9 * scale  # a line, in float64
        assert view.max_spread <= 1e-6 * scale
    if view.n == 1:
        assert text.claim("offsets measured").value == 1
        return
    assert text.holds()
    top, low = text.claim("offset of the largest mean").value, text.claim("offset of the smallest mean").value
    top_value, low_value = text.claim("largest mean").value, text.claim("smallest mean").value
    # the means as written, with minus signs, not hyphens (the sentence after the first "δ = ")
    assert number(top_value, ".3g") in text and number(low_value, ".3g") in text
    assert "-" not in text.split("δ = ", 1)[1]
    tol = 1e-5 * scale
    assert abs(means[top] - top_value) <= tol and means[top] >= means.max() - tol
    assert abs(means[low] - low_value) <= tol and means[low] <= means.min() + tol


def check_wavelengths_caption(view: views.TableView) -> None:
    caption = views.wavelengths_caption(view)
    w = omegas(view.d, view.base, view.layout)
    if view.layout == "tensor2tensor" and view.d == 1:
        assert caption.claim("d").value == 1 and [c.what for c in caption.claims] == ["d"]  # no wavelength to state
        return
    waves = [2 * math.pi / o for o in w]
    assert len(view.frequencies) == len(waves)
    if len(waves) == 1:
        assert number(waves[0], ".4g") in caption
        assert not any(c.what == "wavelengths, pair by pair" for c in caption.claims)  # one frequency: no series
        assert math.isclose(caption.claim("first wavelength").value, waves[0], rel_tol=1e-6)
    else:
        assert caption.holds()
        rises = caption.claim("wavelengths, pair by pair")
        assert rises.relation == "rises" and np.allclose(rises.reference.value, waves, rtol=1e-6)
        assert math.isclose(caption.claim("last wavelength").reference.value, 2 * math.pi * view.base, rel_tol=1e-6)
        assert all(b > a for a, b in zip(waves, waves[1:]))  # they grow
        ratios = [b / a for a, b in zip(waves, waves[1:])]
        assert max(ratios) - min(ratios) <= 1e-9 * max(ratios)  # geometrically
        assert waves[-1] <= 2 * math.pi * view.base * (1 + 1e-12)  # towards 2π·base
        assert math.isclose(caption.claim("first wavelength").value, waves[0], rel_tol=1e-6)
        assert math.isclose(caption.claim("2π·base").value, 2 * math.pi * view.base, rel_tol=1e-9)
        assert math.isclose(caption.claim("last wavelength").value, waves[-1], rel_tol=1e-6)
    if view.unpaired_sine:
        assert caption.endswith("−1).")  # the last pair's cos column, −1
        assert (view.frequencies.cos_column == -1).sum() == 1
    else:
        assert (view.frequencies.cos_column == -1).sum() == 0
        assert [c.value for c in caption.claims if c.what == "zero column"] == ([view.d - 1] if view.zero_column else [])
        assert "−1" not in caption
        if view.zero_column:
            assert not table64(3, view.d, view.base, 0, "tensor2tensor")[:, -1].any()


def check_reading_text(setting) -> None:
    n, d, base, start, layout = setting
    flips = views.column_flips(*setting)
    text = views.reading_text(flips)
    if n == 1:
        assert [c.what for c in text.claims] == ["positions"] and text.claim("positions").value == 1
        return
    P = table64(n, d, base, start, layout)
    changes = ((P[1:] * P[:-1]) < 0).sum(axis=0)  # (d,) sign changes per column, float64
    assert list(changes) == list(flips.flips)
    if layout == "tensor2tensor" and d == 1:
        assert [c.what for c in text.claims] == ["d"] and text.claim("d").value == 1  # nothing to read
        return
    fastest = int(np.argmax(changes))
    assert text.claim("fastest column").value == fastest and text.claim("its sign changes").value == changes.max()
    if changes.max() == 0:
        assert text.claim("rows").value == n and text.claim("its sign changes").relation is None
    elif changes.max() == n - 1:
        claim = text.claim("its sign changes")  # at every step
        assert claim.relation == "equal" and claim.reference.value == n - 1
    else:
        assert text.claim("its sign changes").relation is None and changes.max() < n - 1
        f = changes[fastest]
        share = 100 * f / (n - 1)
        shown = "under 1%" if share < 1 else "over 99%" if share > 99 else f"{share:.0f}%"
        assert views.percent(int(f), n - 1) == shown
        assert text.claim("steps").value == n - 1
        assert math.isclose(text.claim("its share of the steps, percent").value, share, rel_tol=1e-12)
        assert f"({shown})" in text
    last = d - 1
    if last != fastest:
        assert text.claim("last column").value == last
        if layout == "tensor2tensor" and d % 2:
            assert not any(c.what.startswith("last column's") for c in text.claims) and not P[:, last].any()
        else:
            f = changes[last]
            assert text.claim("last column's sign changes").value == f
            # the case of a column that never changes sign, or does, with the range claimed and written
            assert text.cases == (("last column never changes sign",) if f == 0 else ("last column changes sign",))
            assert f" {last}, " in text and number(text.claim("last column's range").value, ".3g") in text
            lo, hi = P[:, last].min(), P[:, last].max()
            assert math.isclose(text.claim("last column's range").value, hi - lo, rel_tol=1e-5, abs_tol=1e-6)
            # the range's ends as written, with minus signs, not hyphens
            assert number(text.claim("last column's lowest").value, ".6g") in text
            assert number(text.claim("last column's highest").value, ".6g") in text
            assert math.isclose(text.claim("last column's lowest").value, lo, rel_tol=1e-5, abs_tol=1e-6)
            assert math.isclose(text.claim("last column's highest").value, hi, rel_tol=1e-5, abs_tol=1e-6)
    waves = [2 * math.pi / w for w in omegas(d, base, layout)]
    several = len(set(waves)) > 1
    assert any(c.what == "speeds" for c in text.claims) == several  # the clock's hands, or only one hand
    assert text.holds()
    if several:
        # the hands as this table has them: how many speeds, the fastest and slowest turn, and
        # whether the slowest comes round within the rows drawn (an hour hand only if it does not)
        assert text.claim("speeds").value == len(waves) and text.claim("rows").value == n
        assert math.isclose(text.claim("fastest wavelength").value, waves[0], rel_tol=1e-6)
        slow = [c for c in text.claims if c.what == "slowest wavelength"]
        assert math.isclose(slow[0].value, waves[-1], rel_tol=1e-6)
        assert math.isclose(slow[0].reference.value, waves[0], rel_tol=1e-6)
        assert slow[1].reference.value == n - 1
        assert slow[1].relation == ("above" if waves[-1] > n - 1 else "at most")  # comes round within the rows or not
        assert np.allclose(text.claim("wavelengths, fastest first").reference.value, waves, rtol=1e-6)


TABLE_CHECKS = [check_table_caption, check_csv_limit_caption, check_columns_help, check_formula_latex,
                check_pairs_caption, check_gram_caption, check_offsets_caption, check_offsets_text,
                check_wavelengths_caption]
SETTING_CHECKS = [check_reading_text]


@pytest.mark.parametrize("check", TABLE_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_table_sentences_state_the_table(check, setting):
    check(table(setting))


@pytest.mark.parametrize("check", SETTING_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_setting_sentences_state_the_table(check, setting):
    check(setting)


def check_every_sentence(setting):
    view = table(setting)
    for check in TABLE_CHECKS:
        check(view)
    for check in SETTING_CHECKS:
        check(setting)


EDGES = [(1, 1, 2, 0, "interleaved"), (2, 1, 10000, 1, "tensor2tensor"), (2, 2, 10000, 0, "interleaved"),
         (3, 3, 10000, 0, "tensor2tensor"), (60, 32, 10000, 0, "interleaved"), (4096, 1, 2, 1, "interleaved"),
         (4096, 3, 10000, 0, "interleaved")]  # the last: steps spread over 2.4e-6, not the same distance
LARGEST = [(4096, 1024, 2, 1, "tensor2tensor"), (4096, 1024, 1_000_000, 0, "tensor2tensor")]


def with_examples(settings_list):
    def decorate(test):
        for setting in reversed(settings_list):
            test = example(setting)(test)
        return test
    return decorate


@settings(max_examples=25, deadline=None)
@given(SMALL)
@with_examples(EDGES)
def test_every_sentence_at_small_and_edge_sizes(setting):
    check_every_sentence(setting)


@pytest.mark.slow  # the largest tables (4096 × 1024) take most of a minute: the slow tier's sweep
@settings(max_examples=25, deadline=None)
@given(WHOLE)
@with_examples(EDGES + LARGEST)
def test_every_sentence_over_the_whole_range(setting):
    check_every_sentence(setting)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4096), d=st.integers(1, 1024), layout=st.sampled_from(views.LAYOUTS), start=st.sampled_from([0, 1]),
       picks=st.lists(st.integers(0, 1023), min_size=1, max_size=8, unique=True))
@example(n=1, d=1, layout="interleaved", start=0, picks=[0])
@example(n=60, d=32, layout="interleaved", start=0, picks=[6, 7, 8, 9])
@example(n=4096, d=1023, layout="tensor2tensor", start=1, picks=[0, 511, 1022])
def test_curves_caption_says_how_the_curves_are_drawn(n, d, layout, start, picks):
    columns = tuple(sorted({c % d for c in picks}))
    drawn = views.curves(n, d, 10000, start, layout, columns)
    caption = views.curves_caption(drawn)
    assert drawn.drawing.shape[0] == n
    if drawn.drawing.exact:
        assert caption is None
    else:
        run = drawn.drawing.block[0]
        assert caption.claim("positions").value == n and number(n, ",") in caption
        assert caption.claim("positions per band").value == run and run > 1
        assert run * drawn.drawing.grid[0] >= n  # the runs cover every position


@pytest.mark.parametrize("n, d, layout, compared", [(60, 1, "tensor2tensor", False), (60, 2, "tensor2tensor", True),
                                                    (60, 32, "interleaved", False)])
def test_layouts_are_compared_for_tensor2tensor_with_a_pair(n, d, layout, compared):
    assert table((n, d, 10000, 0, layout)).compares_layouts == compared


def test_a_record_carries_its_sentences_said_once_per_language():
    from lab.i18n import use

    setting = (70, 12, 10000, 1, "tensor2tensor")
    view = views.table_view(*setting)
    assert views.table_view(*setting) is view  # remembered with its sentences: a rerun says nothing again
    for name in views.SENTENCES:
        assert getattr(view.said, name) == getattr(views, name)(view)
    flips = views.column_flips(*setting)
    assert flips.text == views.reading_text(flips) and views.column_flips(*setting) is flips
    drawn = views.curves(*setting, (0, 11))
    assert drawn.caption == views.curves_caption(drawn)
    with use("pt"):
        portuguese = views.table_view(*setting)
        assert portuguese is not view and views.table_view(*setting) is portuguese
        assert portuguese.said.offsets_caption == views.offsets_caption(portuguese) != view.said.offsets_caption


# -- the page's questions: the revealed page's own numbers are the explanation's -------------------

def page_setting(check) -> tuple:
    """The page's settings where a question's answer is shown: its link settings over the page's defaults."""
    params = {"n": "60", "d": "32", "base": "10000", "start": "0", "layout": "interleaved", **check.settings}
    return int(params["n"]), int(params["d"]), int(params["base"]), int(params["start"]), params["layout"]


def question(check_id: str):
    from lab.views.questions import encoding_heatmap as page_questions

    return next(c for c in page_questions.QUESTIONS if c.id == check_id)


def test_the_fastest_columns_explanation_states_the_pages_own_numbers():
    import csv
    import io

    check = question("heatmap-fastest")
    n, d, base, start, layout = setting = page_setting(check)
    explanation = check.solve().explanation
    view = views.table_view(*setting)
    table = view.frequencies  # the wavelengths table the page shows
    last = len(table) - 1
    for j, which in ((0, "first"), (last, "last")):
        omega, wavelength = table["omega"].iloc[j], table["wavelength"].iloc[j]
        assert math.isclose(explanation.claim(f"{which} pair's frequency").value, omega, rel_tol=1e-6)
        assert math.isclose(explanation.claim(f"{which} pair's wavelength").value, wavelength, rel_tol=1e-6)
        assert number(omega, ".3g") in explanation and number(wavelength, ".3g") in explanation
    assert explanation.claim("last pair's columns").value == (2 * last, 2 * last + 1)
    # the mean change per step, from the CSV the page offers of the table it draws
    rows = [[float(v) for v in row[1:]] for row in list(csv.reader(io.StringIO(views.csv_of_table(*setting)())))[1:]]
    P = np.array(rows)
    assert P.shape == (n, d)
    for j, which in ((0, "first"), (last, "last")):
        change = np.abs(np.diff(P[:, 2 * j : 2 * j + 2], axis=0)).mean()
        said = explanation.claim(f"{which} pair's mean change per step").value
        assert number(said, ".3g") == number(change, ".3g") and number(change, ".3g") in explanation
    assert explanation.claim("positions").value == n and f" {n} " in explanation


def test_the_offset_explanation_states_the_pages_own_numbers():
    check = question("heatmap-offset")
    view = views.table_view(*page_setting(check))
    explanation = check.solve().explanation
    found = re.findall(rf"P(\d+)·P(\d+) = {NUMBER}", explanation)
    assert len(found) == 2
    for i, j, value in found:
        delta = int(j) - int(i)
        # the page's offset line: the mean of P[i]·P[i+δ] over every start, one value per δ (float32)
        assert math.isclose(view.offset_means[delta], read(value.rstrip(".")), rel_tol=1e-5, abs_tol=1e-5)
        assert view.starts == view.n  # measured at every row: the mean is the value at each start
