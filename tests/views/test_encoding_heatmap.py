"""The encoding heatmap page's records and sentences: each sentence states the numbers of the
record it is written from, checked on the real views over the page's settings (n 1..4096,
d 1..1024, base 2..1e6, first position 0 or 1, both layouts)."""

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.views import encoding_heatmap as views
from pekit import charts

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


def measured(setting) -> views.PropertiesView:
    return views.properties(*setting)


def check_table_caption(view: views.TableView) -> None:
    caption, drawing = views.table_caption(view), view.drawing
    assert drawing.shape == (view.n, view.d)
    if drawing.exact:
        one = view.n * view.d == 1
        assert ("The one entry drawn" if one else f"All {view.n:,} × {view.d:,} ") in caption
        assert "Lower n or d" not in caption and "All 1 × 1 " not in caption  # (one entry: "The one entry")
    else:
        rows, cols = drawing.block
        assert f"{view.n:,} × {view.d:,} = {view.cells:,} entries" in caption
        assert (f"a block of {rows:,} position{'s' if rows != 1 else ''} × {cols:,} column{'s' if cols != 1 else ''}"
                in caption) and "(s)" not in caption
        assert caption.endswith(" Lower n or d to see every entry.")
        # the blocks named cover the whole table
        assert drawing.grid[0] * rows >= view.n and drawing.grid[1] * cols >= view.d


def check_csv_limit_caption(view: views.TableView) -> None:
    assert view.downloadable == (view.n * view.d <= 1 << 20)
    caption = views.csv_limit_caption(view)
    assert f"up to {charts.MAX_CSV_CELLS:,} entries (this table has {view.n * view.d:,})" in caption
    assert f"pekit.sinusoidal_encoding({view.n}, {view.d}, base={view.base}, start={view.start}, " in caption


def check_columns_help(view: views.TableView) -> None:
    assert view.last_column == view.d - 1
    text = views.columns_help(view)
    if view.d == 1:
        assert "d = 1 has column 0 only" in text
    else:
        assert f"from 0 to {view.d - 1}, e.g. 0,{view.d - 1}." in text


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
        assert caption.startswith("d = 1 ")
        assert ("one column is zero" in caption) == (not P.any())
        return
    if view.layout == "interleaved":
        assert caption.startswith("Columns 2j and 2j+1 share a frequency")
        paired = pairs[pairs.cos_column >= 0]
        assert (paired.cos_column == paired.sin_column + 1).all()
        assert (f"the last column, {view.d - 1}, is a sine without its cosine" in caption) == (view.d % 2 == 1)
        assert (P[0, 0::2] == 0).all() and (P[0, 1::2] == 1).all()
        return
    k = view.d // 2
    if k == 1:
        assert caption.startswith("Columns 0 and 1 share the one frequency")
    else:
        assert f"Column j and column {k}+j share a frequency: the sines (columns 0 to {k - 1}) come first, " \
               f"then the cosines (columns {k} to {2 * k - 1})" in caption
    assert (pairs.cos_column == pairs.sin_column + k).all()
    assert (P[0, :k] == 0).all() and (P[0, k : 2 * k] == 1).all()
    assert (f"the last column, {view.d - 1}, is zero" in caption) == (view.d % 2 == 1)
    if view.d % 2:
        assert not P[:, -1].any()


def check_gram_caption(view: views.TableView) -> None:
    caption, gram = views.gram_caption(view), view.gram_drawing
    assert gram.shape == (view.n, view.n)
    if gram.exact:
        assert "entry (i, k) is the dot product of rows i and k" in caption
        assert caption.endswith(" (hover for values)." if gram.hover else ", one pixel per entry.")
    else:
        b = gram.block[0]
        assert gram.block == (b, b) and gram.grid[0] * b >= view.n
        assert f"P·Pᵀ ({view.n} × {view.n}): each pixel is the exact mean over a block of {b} × {b} " in caption


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
        assert "at the table's one row i," in caption and "all 1" not in caption
    elif view.starts == view.n:
        assert f"at all {view.n} rows i," in caption
    else:
        assert f"at {view.starts} evenly spaced starting rows i" in caption
    top = min(view.n - 1, 512)
    assert view.max_offset == top and f"δ from 0 to {top}" in caption
    assert ("larger offsets are not drawn" in caption) == (view.n - 1 > 512)
    assert caption.endswith("the line is the mean, the band spans the smallest to the largest value.")


def check_offsets_text(view: views.TableView) -> None:
    text = views.offsets_text(view)
    means, spread = offset_products(view)
    scale = max(1.0, view.d / 2)
    assert abs(view.max_spread - spread) <= 1e-5 * scale  # float32 against float64
    if view.d == 1 and view.layout == "tensor2tensor":
        assert text.endswith("every product is 0.") and not means.any()
        return
    if view.unpaired_sine:
        band = (f"the band is {number(view.max_spread, '.2g')} wide at its widest." if view.n > 1 else
                "with one row there is no other start to compare, so the band cannot show it.")
        assert f"does depend on i: {band}" in text
        # d = 1 has no pair at all: the text does not speak of pairs adding up
        assert ("no sine/cosine pair" in text and "Every sine/cosine pair" not in text) == (view.d == 1)
        # without the unpaired column the band is a line: all of the width comes from it
        if view.d > 1:
            P = table64(view.n, view.d, view.base, view.start, "interleaved")[:, :-1]
            starts = starts_of(view.n)
            for delta in range(0, min(view.n - 1, 512) + 1, 37):
                vals = [P[i] @ P[i + delta] for i in starts if i + delta < view.n]
                assert max(vals) - min(vals) <= 1e-9 * scale
    else:
        assert spread <= 1e-9 * scale  # a line, in float64
        assert f"(widest {number(view.max_spread, '.2g')}, float32 rounding)" in text
        assert view.max_spread <= 1e-6 * scale
    if view.n == 1:
        assert text.endswith("only δ = 0 is measured.")
        return
    found = re.search(rf"largest at δ = (\d+) \({NUMBER}\) and smallest at δ = (\d+) \({NUMBER}\)\.$", text)
    assert "-" not in found[2] + found[4]  # minus signs, not hyphens
    top, low = int(found[1]), int(found[3])
    top_value, low_value = (read(v) for v in (found[2], found[4]))
    tol = 1e-5 * scale
    assert abs(means[top] - top_value) <= tol + 5e-3 * abs(top_value) and means[top] >= means.max() - tol
    assert abs(means[low] - low_value) <= tol + 5e-3 * abs(low_value) and means[low] <= means.min() + tol


def check_wavelengths_caption(view: views.TableView) -> None:
    caption = views.wavelengths_caption(view)
    w = omegas(view.d, view.base, view.layout)
    if view.layout == "tensor2tensor" and view.d == 1:
        assert caption == "d = 1 in the tensor2tensor layout has no sine/cosine pair: its one column is zero."
        return
    waves = [2 * math.pi / o for o in w]
    assert len(view.frequencies) == len(waves)
    if len(waves) == 1:
        assert caption.startswith(f"One frequency only: wavelength 2π ≈ {number(waves[0], '.4g')} positions")
    else:
        assert all(b > a for a, b in zip(waves, waves[1:]))  # they grow
        ratios = [b / a for a, b in zip(waves, waves[1:])]
        assert max(ratios) - min(ratios) <= 1e-9 * max(ratios)  # geometrically
        assert waves[-1] <= 2 * math.pi * view.base * (1 + 1e-12)  # towards 2π·base
        assert f"from 2π ≈ {number(waves[0], '.4g')} positions towards 2π·base = {2 * math.pi * view.base:,.0f} " \
               f"(the last pair here: {waves[-1]:,.0f} positions)" in caption
    if view.unpaired_sine:
        assert caption.endswith("a sine and no cosine (cos column −1).")
        assert (view.frequencies.cos_column == -1).sum() == 1
    else:
        assert (view.frequencies.cos_column == -1).sum() == 0
        extra = f", and the extra column {view.d - 1} is zero." if view.zero_column else "."
        assert caption.endswith("each pair is one sine/cosine frequency" + extra)
        if view.zero_column:
            assert not table64(3, view.d, view.base, 0, "tensor2tensor")[:, -1].any()


def check_reading_text(setting) -> None:
    n, d, base, start, layout = setting
    flips = views.column_flips(*setting)
    text = views.reading_text(flips)
    if n == 1:
        assert text.startswith("With one position there are no neighbouring rows")
        return
    P = table64(n, d, base, start, layout)
    changes = ((P[1:] * P[:-1]) < 0).sum(axis=0)  # (d,) sign changes per column, float64
    assert list(changes) == list(flips.flips)
    if layout == "tensor2tensor" and d == 1:
        assert text == "d = 1 in tensor2tensor's layout is one column of zeros: there is nothing to read."
        return
    fastest = int(np.argmax(changes))
    if changes.max() == 0:
        assert f"over these {n} rows no column changes sign" in text
    elif changes.max() == n - 1:
        assert f"column {fastest} changes sign at every step" in text
    else:
        assert "no column changes sign at every step" in text and changes.max() < n - 1
        f = changes[fastest]
        share = 100 * f / (n - 1)
        shown = "under 1%" if share < 1 else "over 99%" if share > 99 else f"{share:.0f}%"
        assert views.percent(int(f), n - 1) == shown
        assert (f"The fastest, column {fastest}, changes sign between {f} of the {n - 1} pairs of neighbouring "
                f"rows ({shown}).") in text
    last = d - 1
    if last != fastest:
        if layout == "tensor2tensor" and d % 2:
            assert f"The last column, {last}, is all zeros" in text and not P[:, last].any()
        else:
            f = changes[last]
            says = "never changes sign" if f == 0 else f"changes sign between {f} of the {n - 1} pairs"
            assert f"The last column, {last}, {says}" in text
            lo, hi = P[:, last].min(), P[:, last].max()
            found = re.search(rf"within a range of {NUMBER} over the whole table \(from {NUMBER} to {NUMBER}\)", text)
            assert math.isclose(read(found[1]), hi - lo, rel_tol=5e-3, abs_tol=1e-6)
            assert "-" not in found[2] + found[3]  # minus signs, not hyphens
            assert math.isclose(read(found[2]), lo, rel_tol=1e-5, abs_tol=1e-6)
            assert math.isclose(read(found[3]), hi, rel_tol=1e-5, abs_tol=1e-6)
    several = len(set(omegas(d, base, layout))) > 1
    assert ("a second hand, a minute hand and an hour hand" in text) == several
    assert ("only one hand on the clock" in text) == (not several)


def check_layout_text(setting) -> None:
    n, d, base, start, _ = setting
    if d < 2:
        return
    table = views.layout_comparison(n, d, base, start)
    text = views.layout_text(d, table)
    k = d // 2
    inter = table64(n, d, base, start, "interleaved")[:, : 2 * k]
    t2t = table64(n, d, base, start, "tensor2tensor")
    reordered = np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1)  # sines, then cosines
    diff = np.abs(reordered - t2t[:, : 2 * k])
    per_pair = np.maximum(diff[:, :k], diff[:, k:]).max(axis=0)
    assert ("For an odd d the extra last column differs" in text) == (d % 2 == 1)
    if d % 2:
        assert not t2t[:, -1].any() and np.abs(table64(n, d, base, start, "interleaved")[:, -1]).max() >= 0
    if k == 1:
        assert per_pair.max() <= 1e-6 and "both use the frequency 1" in text
        return
    paper = omegas(d, base, "interleaved")
    assert f"tensor2tensor's {k} frequencies run from 1 down to exactly 1/base" in text
    assert math.isclose(omegas(d, base, "tensor2tensor")[-1], 1 / base, rel_tol=1e-12)
    assert f"while the paper's stop at {number(paper[k - 1], '.4g')} " in text and paper[k - 1] > 1 / base
    if "agree exactly" in text:
        assert per_pair.max() <= 1e-6
    else:
        found = re.search(r"differ, by up to (\S+) \(pair (\d+)\)", text)
        assert math.isclose(float(found[1]), per_pair.max(), rel_tol=1e-2, abs_tol=1e-6)
        assert per_pair[int(found[2])] >= per_pair.max() - 1e-6


def expected_abs_cosine(w: int) -> float:
    """E|cos φ| between a fixed and a uniformly random direction in w dimensions, by integrating
    over the angle φ between them, whose density is proportional to sin^(w−2) φ (w ≥ 2)."""
    if w == 1:
        return 1.0
    phi = np.linspace(0, np.pi, 200_001)
    density = np.sin(phi) ** (w - 2)
    return float(np.trapezoid(np.abs(np.cos(phi)) * density, phi) / np.trapezoid(density, phi))


def check_add_or_concat_text(setting) -> None:
    n, d, base, start, layout = setting
    view = views.add_or_concat(*setting)
    text = views.add_or_concat_text(view)
    # parameters of one encoder layer, counted on torch's own layer where it is small enough to build
    for w in (d, 2 * d):
        params = 12 * w * w + 13 * w
        if w <= 256:
            layer = torch.nn.TransformerEncoderLayer(w, 1, dim_feedforward=4 * w)
            assert sum(p.numel() for p in layer.parameters()) == params
    p_add, p_cat = 12 * d * d + 13 * d, 12 * 4 * d * d + 26 * d
    m_add = n * 12 * d * d + 2 * n * n * d
    m_cat = n * 12 * 4 * d * d + 2 * n * n * 2 * d
    assert f"every vector {2 * d} wide instead of {d}" in text
    assert f"holds {p_cat:,} parameters instead of {p_add:,} ({p_cat / p_add:.2f}×)" in text
    assert f"costs {m_cat:,} multiply-adds instead of {m_add:,} for {n} token{'' if n == 1 else 's'} " \
           f"({m_cat / m_add:.2f}×)" in text
    rows = sorted({round(i * (n - 1) / 255) for i in range(256)}) if n > 256 else list(range(n))
    g = torch.Generator().manual_seed(0)
    E = torch.randn(256, d, generator=g, dtype=torch.float64).numpy()
    P = table64(n, d, base, start, layout)[rows]
    P = P[np.linalg.norm(P, axis=1) > 0]
    if not len(P):
        assert f"At d = {d} this table is all zeros" in text
        return
    cos = (P / np.linalg.norm(P, axis=1, keepdims=True)) @ (E / np.linalg.norm(E, axis=1, keepdims=True)).T
    overlap, expected = np.abs(cos).mean(), expected_abs_cosine(d)
    assert math.isclose(view.overlap, overlap, rel_tol=1e-9)
    assert math.isclose(view.expected, expected, rel_tol=1e-4)
    assert f"{len(P)} row{'' if len(P) == 1 else 's'} of P" in text
    assert f"have a mean |cos| of {number(overlap, '.3g')}, against {number(expected, '.3g')} for two random directions and " \
           f"1/√d = {number(1 / math.sqrt(d), '.3g')}: " in text
    assert ("nearly orthogonal." in text) == (overlap < 0.2)
    found = re.search(r"it falls from (\S+) at d = (\d+) to (\S+) at d = (\d+)", text)
    assert float(found[1]) > float(found[3]) and int(found[2]) < int(found[4]) == 1024
    assert math.isclose(float(found[1]), view.overlaps[view.widths.index(int(found[2]))], rel_tol=1e-2)
    assert ("the rows of P have no point at d = 1" in text) == (layout == "tensor2tensor")


def check_properties_text(view: views.PropertiesView, setting) -> None:
    n, d, base, start, layout = setting
    text, p = views.properties_text(view), view.measured
    rows = max(n, 2)
    assert view.rows == rows and view.d == d and view.n == n and view.start == start
    if n == 1:
        assert (f"Measured on positions {start} and {start + 1} (one position has no distances to measure; d = "
                f"{d}, float64)") in text
    else:
        assert f"Measured on this table (positions {start} to {start + n - 1}, d = {d}, float64)" in text
    P = table64(rows, d, base, start, layout)  # the rows drawn (two for n = 1)
    D = np.array([[np.linalg.norm(P[i] - P[k]) if i != k else np.inf for k in range(rows)] for i in range(rows)]) \
        if rows <= 64 else None
    if D is None:
        sq = (P * P).sum(axis=1)
        D2 = sq[:, None] + sq[None, :] - 2 * P @ P.T
        np.fill_diagonal(D2, np.inf)
        closest = math.sqrt(max(D2.min(), 0.0))
    else:
        closest = D.min()
    assert abs(p.closest - closest) <= 1e-6
    # "share a code" means equal codes (float64 round-off apart at most), as in tensor2tensor's
    # d = 1, whose one column is zero; codes 1e-6 apart (sin i for i up to a few hundred) are apart
    assert view.unique == (closest > 1e-9)
    if layout == "tensor2tensor" and d == 1:
        assert not view.unique
    said = read(re.search(rf"The two closest positions are {NUMBER} apart", text)[1])
    assert math.isclose(said, closest, rel_tol=6e-3, abs_tol=1e-9)
    assert ("(never 0)." if view.unique else "(0: two positions share a code).") in text
    longer = table64(2 * rows, d, base, start, layout)
    gap = read(re.search(rf"differ from these by at most {NUMBER};", text)[1])
    assert gap < 1e-9 and np.abs(longer[:rows] - P).max() < 1e-9
    steps = np.linalg.norm(P[1:] - P[:-1], axis=1)
    spread = steps.max() - steps.min()
    if "by the same distance everywhere" in text:
        assert spread <= 2e-11
        assert "(the steps agree exactly)." in text or re.search(rf"\(the steps spread over {NUMBER}, float64", text)
    else:
        said = read(re.search(rf"the steps spread over {NUMBER}, from the unpaired last sine column", text)[1])
        assert math.isclose(said, spread, rel_tol=0.06) and spread > 5e-12
        assert layout == "interleaved" and d % 2 == 1
        rest = np.linalg.norm(P[1:, :-1] - P[:-1, :-1], axis=1)
        assert rest.max() - rest.min() <= 1e-11  # without that column the steps are the same
    found = re.search(rf"The largest \|value\| is {NUMBER}, and the next (\d+) positions \((\d+) to (\d+)\), never "
                      rf"asked for, stay within {NUMBER}:", text)
    assert math.isclose(read(found[1]), np.abs(P).max(), rel_tol=1e-5, abs_tol=1e-12)
    assert int(found[2]) == rows and int(found[3]) == start + rows and int(found[4]) == start + 2 * rows - 1
    beyond = np.abs(table64(rows, d, base, start + rows, layout)).max()
    assert math.isclose(read(found[5]), beyond, rel_tol=1e-5, abs_tol=1e-12) and beyond <= 1
    assert text.endswith("the tables differ by 0.") and p.repeat_gap == 0


TABLE_CHECKS = [check_table_caption, check_csv_limit_caption, check_columns_help, check_formula_latex,
                check_pairs_caption, check_gram_caption, check_offsets_caption, check_offsets_text,
                check_wavelengths_caption]
SETTING_CHECKS = [check_reading_text, check_layout_text, check_add_or_concat_text]


@pytest.mark.parametrize("check", TABLE_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_table_sentences_state_the_table(check, setting):
    check(table(setting))


@pytest.mark.parametrize("check", SETTING_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_setting_sentences_state_the_table(check, setting):
    check(setting)


@pytest.mark.parametrize("setting", [s for s in GRID if s[0] <= 1025], ids=str)
def test_properties_text_states_the_measurements(setting):
    check_properties_text(measured(setting), setting)


@settings(max_examples=25, deadline=None)
@given(WHOLE)
@example((1, 1, 2, 0, "interleaved"))
@example((2, 1, 10000, 1, "tensor2tensor"))
@example((2, 2, 10000, 0, "interleaved"))
@example((3, 3, 10000, 0, "tensor2tensor"))
@example((60, 32, 10000, 0, "interleaved"))
@example((4096, 1, 2, 1, "interleaved"))
@example((4096, 3, 10000, 0, "interleaved"))  # steps spread over 2.4e-6: not the same distance
@example((4096, 1024, 2, 1, "tensor2tensor"))
@example((4096, 1024, 1_000_000, 0, "tensor2tensor"))
def test_every_sentence_over_the_whole_range(setting):
    view = table(setting)
    for check in TABLE_CHECKS:
        check(view)
    for check in SETTING_CHECKS:
        check(setting)


@settings(max_examples=25, deadline=None)
@given(SMALL)
@example((279, 1, 2, 0, "interleaved"))  # the two closest codes are 9.3e-7 apart: close, yet apart
@example((1, 1, 2, 0, "interleaved"))
@example((2, 1, 10000, 0, "tensor2tensor"))
@example((300, 3, 1_000_000, 1, "interleaved"))
@example((2, 1, 10000, 1, "interleaved"))  # rows sin 1 and sin 2: 0.0678 apart, largest 0.909297
@example((3, 2, 10000, 1, "interleaved"))  # cos 0 is not drawn: largest 0.989992
@example((1, 3, 2, 1, "interleaved"))
def test_properties_text_on_small_tables(setting):
    check_properties_text(measured(setting), setting)


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
        assert f"{n:,} positions are more than the chart has room for" in caption
        assert f"over every {run:,} consecutive positions" in caption and run > 1
        assert run * drawn.drawing.grid[0] >= n  # the runs cover every position


@pytest.mark.parametrize("n, d, layout, compared", [(60, 1, "tensor2tensor", False), (60, 2, "tensor2tensor", True),
                                                    (60, 32, "interleaved", False)])
def test_layouts_are_compared_for_tensor2tensor_with_a_pair(n, d, layout, compared):
    assert table((n, d, 10000, 0, layout)).compares_layouts == compared
