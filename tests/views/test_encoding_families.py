"""The encoding families page's sentences state the numbers of the views they are written from:
each record is built by the real (cached) view over the page's whole range of settings (hypothesis,
with the corners as explicit examples), and each claim is checked against numbers recomputed here
independently: float64 formulas, naive loops over the matrices drawn, the authors' reference code
(T5's bucket, ALiBi's ``get_slopes``) written out again."""


import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.views import encoding_families as fam
from pekit import families

from tests.views.families_helpers import (
    WIDTHS, check_blocks, colour_domain, get_slopes, no_hyphen_minus, read_back, sinusoid, t5_bucket,
    with_examples)


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
       st.sampled_from([".3g", ".4g", ".6g", ",.4g", ",.6g", ".1e", ",.0f"]))
@example(-0.390625, ",.4g")
@example(1.8e-15, ".1e")
@example(4.22243e7, ",.6g")
@example(0.0, ".1e")
@example(-0.0, ".3g")
@example(-11584.6, ",.0f")
def test_numbers_are_written_with_a_minus_sign_and_powers_of_ten(value, spec):
    said = number(value, spec)
    no_hyphen_minus(said)
    assert "e" not in said and said.startswith("−") == (value < 0 and said != "0")
    assert read_back(said) == pytest.approx(float(format(value, spec).replace(",", "")), rel=1e-12, abs=0)
    assert number(-0.390625, ",.4g") == "−0.3906" and number(1.8e-15, ".1e") == "1.8 × 10⁻¹⁵"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=40, unique=True).map(sorted))
@example([0]).via("one pair")
@example([3, 4]).via("two neighbours")
@example([1, 2, 5, 6, 7]).via("three runs")
@example([1, 3, 5, 7]).via("four runs")
def test_runs_of_names_every_item_once_as_ranges(items):
    said = fam.runs_of(items)
    assert said.claim("items").value == tuple(items)
    runs = [[items[0]]]
    for x in items[1:]:
        runs[-1].append(x) if x == runs[-1][-1] + 1 else runs.append([x])
    parts = [p for r in runs for p in ([str(r[0])] if len(r) == 1 else [str(r[0]), str(r[1])] if len(r) == 2
                                      else [f"{r[0]} to {r[-1]}"])]
    assert fam.listed(items) == (len(runs) <= 3)  # past three runs a sentence says how many, between which two
    named = said.replace(" and ", ", ").split(", ")
    assert named == parts
    covered = [x for p in named for x in (range(int(p.split(" to ")[0]), int(p.split(" to ")[1]) + 1)
                                         if " to " in p else [int(p)])]
    assert covered == items


def test_runs_of_needs_an_item():
    with pytest.raises(ValueError, match="at least one"):
        fam.runs_of([])


# the side-by-side section ------------------------------------------------------------------------


@st.composite
def side_settings(draw):
    """(n, d, heads, causal, k, head) over the page's whole range."""
    d, heads = draw(st.sampled_from(WIDTHS))
    return (draw(st.integers(fam.N.minimum, fam.N.maximum)), d, heads, draw(st.booleans()),
            draw(st.integers(fam.SHAW_K.minimum, fam.SHAW_K.maximum)), draw(st.integers(1, heads)))


SIDE_CORNERS = [(2, 32, 16, True, 1, 16), (2, 32, 1, False, 64, 1), (256, 512, 16, True, 64, 16),
                (256, 512, 1, False, 1, 1), (12, 64, 4, True, 3, 2), (20, 64, 4, False, 3, 1), (3, 128, 2, True, 2, 2),
                (32, 64, 8, True, 4, 1), (32, 64, 1, False, 4, 1), (2, 64, 1, True, 4, 1)]


def parameters_of(scheme: str, d: int, heads: int, k: int) -> int:
    """What each scheme learns for one layer, from its definition."""
    return {"learned": 512 * d, "t5": 32 * heads, "shaw": 2 * (2 * k + 1) * (d // heads)}.get(scheme, 0)


def drawn_means(matrix: np.ndarray) -> np.ndarray:
    """The cells a heatmap draws of ``matrix``: its entries, or the means of the blocks pekit cuts
    it into (the edges from pekit, the means taken here: block sums over the block sizes)."""
    from pekit import charts
    from pekit.reduce import block_summary

    blocks = block_summary(torch.from_numpy(matrix), *charts.drawing_blocks(*matrix.shape, max_marks=fam.MAX_MARKS),
                           extremes=False)
    rows, cols = np.array(blocks.row_edges.tolist()), np.array(blocks.col_edges.tolist())
    sums = np.add.reduceat(np.add.reduceat(matrix, rows[:-1], axis=0), cols[:-1], axis=1)
    return sums / np.outer(np.diff(rows), np.diff(cols))


def check_learned_colours(view, table: np.ndarray, said) -> None:
    """The learned caption counts what is drawn: the cells of the picture (entries, or block
    means), how many lie beyond the colour range, each of them larger than its end."""
    cells = drawn_means(table)
    high = view.scale.high
    assert view.scale.low == -high and f"±{number(high, '.3g')}" in said
    beyond = int((np.abs(cells) > high).sum())
    assert beyond <= 0.01 * cells.size + 1  # 99 % of the cells drawn inside the colour range
    assert view.exact == (cells.shape == table.shape)
    assert said.holds() and f"{cells.size:,}" in said
    assert said.claim("cells counted").value == cells.size and said.claim("cells beyond the colours").value == beyond
    # the case (none, one, several beyond the range): the claim of the smallest beyond is there when any is
    assert ("smallest |value| beyond the colours" in [c.what for c in said.claims]) == (beyond > 0)
    if beyond > 1:
        assert f"{beyond:,}" in said


def check_learns(view, setting) -> None:
    """Each scheme's parameter count against its definition, and the trained table drawn beside the
    learned one, counted from the table itself."""
    n, d, heads, causal, k, head = setting
    counts = [parameters_of(s, d, heads, k) for s in families.FAMILIES]
    assert [view.params.count(s) for s in families.FAMILIES] == counts
    for scheme, count in zip(families.FAMILIES, counts):
        said = fam.learns_sentence(view.params, scheme)
        assert said.holds() and said.claim("numbers learned").value == count
        assert f"{count:,}" in said
        no_hyphen_minus(said)
    said = fam.learns_sentence(view.params, "learned")
    assert (said.claim("table rows").value, said.claim("table width").value) == (512, d)
    assert "512" in said and f"{d}" in said
    # beside the trained table drawn, the count is of a table at the width set: the drawn one is named
    # with its own size and count when they differ (one quantity, two tables)
    table, _name = fam.learned_table()
    beside = fam.learns_sentence(view.params, "learned", view.panel("learned").view)
    if tuple(table.shape) != (fam.LEARNED_ROWS, d):
        assert [beside.claim(f"trained table {what}").value for what in ("rows", "width", "entries")] == [
            table.shape[0], table.shape[1], table.numel()]
        assert (fam._table_name(view.panel('learned').view) in beside
                and f"{table.shape[0]} × {table.shape[1]}: {table.numel():,}" in beside), beside
    else:
        assert beside == said and beside.claims == said.claims
    said = fam.learns_sentence(view.params, "t5")
    assert (said.claim("buckets").value, said.claim("heads").value) == (32, heads)
    assert "32" in said and f"× {heads}" in said
    said = fam.learns_sentence(view.params, "shaw")
    assert (said.claim("k").value, said.claim("head width").value) == (k, d // heads)
    assert f"2 × (2·{k} + 1)" in said and f"{d // heads}" in said
    said = fam.learns_sentence(view.params, "none")
    assert said.claim("numbers learned").value == 0 and "0" in said


def check_tables(view, n, d) -> None:
    """The two sinusoidal tables: drawn from the formula, captioned with their size (and the
    tensor2tensor layout's count of sines first)."""
    for scheme in ("sinusoidal", "tensor2tensor"):
        table = view.panel(scheme).view
        drawn = families.scheme_matrix(scheme, n, 1, num_hiddens=d).double().numpy()
        assert np.abs(drawn - sinusoid(range(n), d, "interleaved" if scheme == "sinusoidal" else "t2t")).max() < 1e-5
        said = fam.caption(table)
        assert said.holds() and (said.claim("positions").value, said.claim("width").value) == (n, d)
        assert f"{n} × {d}" in said
        # interleaved: column 2j is a sine, 2j + 1 its cosine; tensor2tensor: the d/2 sines, then the cosines
        if scheme == "tensor2tensor":
            assert said.claim("sine columns").value == d // 2 and f"{d // 2}" in said
        else:
            assert "sine columns" not in [c.what for c in said.claims]
        check_blocks(table, n, d)


def check_learned(view, n) -> None:
    learned = view.panel("learned").view
    table, name = fam.learned_table()
    rows = min(n, table.shape[0])
    said = fam.caption(learned)
    assert f"{rows}" in said and name in said and f"({table.shape[0]} × {table.shape[1]})" in said
    assert ("rows missing" in said.cases) == (rows < n)
    assert rows == n or f"{n - 1}" in said  # the last position without a row, written
    check_learned_colours(learned, table[:rows].double().numpy(), said)
    check_blocks(learned, rows, table.shape[1])


def check_binary_and_rope(view, n, d, heads) -> None:
    binary = view.panel("binary").view
    bits = max(1, (n - 1).bit_length())
    matrix = families.scheme_matrix("binary", n, 1)
    assert matrix.tolist() == [[(i >> c) & 1 for c in range(bits)] for i in range(n)]  # least significant first
    said = fam.caption(binary)
    assert said.holds() and (said.claim("last position").value, said.claim("bits").value) == (n - 1, bits)
    assert f"{n - 1}" in said and f"{bits}" in said
    check_blocks(binary, n, bits)

    rope_view = view.panel("rope").view
    hw = d // heads
    angles = families.scheme_matrix("rope", n, heads, num_hiddens=d).double().numpy()
    omega = 10000.0 ** (-2 * np.arange(hw // 2) / hw)
    expected = np.mod(np.arange(n)[:, None] * omega, 2 * np.pi)
    assert np.abs(np.angle(np.exp(1j * (angles - expected)))).max() < 1e-4  # equal mod 2π
    said = fam.caption(rope_view)
    assert said.holds() and (said.claim("pairs").value, said.claim("head width").value) == (hw // 2, hw)
    assert f"{hw}" in said and (hw == 2 or f" {hw // 2} " in said)
    check_blocks(rope_view, n, hw // 2)


def check_alibi(view, n, heads, causal, head) -> None:
    alibi = view.panel("alibi").view
    slope = get_slopes(heads)[head - 1]
    bias = families.scheme_matrix("alibi", n, heads, causal=causal)[head - 1].double().numpy()
    said = fam.caption(alibi)
    assert f"{head}" in said and f"{heads}" in said and f"m = {number(slope, '.6g')}" in said
    i, j = np.indices((n, n))
    masked = (j > i) if causal else np.zeros((n, n), dtype=bool)
    assert (bias[masked] == -np.inf).all()
    assert np.allclose(bias[~masked], -slope * np.abs(i - j)[~masked], rtol=1e-6, atol=0)
    assert colour_domain(alibi.spec) == pytest.approx([-slope * (n - 1), slope * (n - 1)])  # 0 in the middle
    assert said.holds()  # the bias falls by the slope at every step: the drawn row against the authors' slope
    assert said.claim("bias by distance").value == pytest.approx([-slope * k for k in range(n)], rel=1e-6, abs=0)
    assert said.claim("largest fall per step of distance").reference.value == pytest.approx(slope, rel=1e-6)
    if causal:
        assert "masked" in said.cases
        # and grey they are: the map carries the grey's legend entry, and drawn as cells, every cell is there
        layers = alibi.spec.get("layer", [alibi.spec])
        assert any(layer.get("encoding", {}).get("fill", {}).get("scale", {}).get("domain") == ["masked"]
                   for layer in layers)
    else:
        assert "masked" not in said.cases
    check_blocks(alibi, n, n)


def check_t5_and_shaw(view, n, causal, k) -> None:
    t5 = view.panel("t5").view
    # the bucket of a pair depends on its offset j − i alone: every offset −(n − 1) .. n − 1 occurs
    used = len({t5_bucket(o, not causal) for o in range(-(n - 1), n)})
    said = fam.caption(t5)
    assert said.holds() and said.claim("buckets that occur").value == used
    assert (said.claim("buckets").value, said.claim("positions").value) == (32, n)
    assert f"({used} " in said and f"n = {n})" in said
    check_blocks(t5, n, n)

    shaw = view.panel("shaw").view
    # a decoder's query sees the keys at or before it only: offsets j − i ≤ 0
    used = len({min(max(o, -k), k) for o in range(-(n - 1), (0 if causal else n - 1) + 1)})
    said = fam.caption(shaw)
    assert said.holds() and said.claim("vectors that occur").value == used
    assert (said.claim("vectors").value, said.claim("k").value, said.claim("positions").value) == (2 * k + 1, k, n)
    assert f"2k + 1 = {2 * k + 1}" in said and f"({used} " in said and f"n = {n})" in said
    if causal:
        assert used <= k + 1 and said.claim("vectors that occur").reference.value == k + 1
        assert said.claim("vectors a decoder can use").value == k + 1
        assert f" {k + 1} " in said and f"−{k}" in said
        assert "±" not in said
        layers = shaw.spec.get("layer", [shaw.spec])  # the masked cells are drawn grey, with their legend entry
        assert any(layer.get("encoding", {}).get("fill", {}).get("scale", {}).get("domain") == ["masked"]
                   for layer in layers)
    else:
        assert said.claim("vectors that occur").reference.value == 2 * k + 1
        assert f"±{k}" in said and "vectors a decoder can use" not in [c.what for c in said.claims]
    check_blocks(shaw, n, n)


def check_side_by_side(setting) -> None:
    n, d, heads, causal, k, head = setting
    view = fam.side_by_side(*setting)
    assert [p.scheme for p in view.panels] == list(families.FAMILIES)
    assert [p.scheme for p in view.panels if p.view is None] == ["none"]
    check_learns(view, setting)
    # the page's first picture: the same panels, one scheme of each place position enters
    first = fam.side_by_side(*setting, schemes=fam.KEY_IDEA)
    assert [p.scheme for p in first.panels] == list(fam.KEY_IDEA) and first.params == view.params
    assert all(p == view.panel(p.scheme) for p in first.panels)
    check_tables(view, n, d)
    check_learned(view, n)
    check_binary_and_rope(view, n, d, heads)
    check_alibi(view, n, heads, causal, head)
    check_t5_and_shaw(view, n, causal, k)
    direct = {"sinusoidal": fam.table_caption, "tensor2tensor": fam.table_caption, "learned": fam.learned_caption,
              "binary": fam.binary_caption, "rope": fam.rope_caption, "alibi": fam.alibi_caption,
              "t5": fam.t5_caption, "shaw": fam.shaw_caption}
    for p in view.panels:
        if p.view is not None:  # caption() is each scheme's own caption function
            said = fam.caption(p.view)
            assert said == direct[p.scheme](p.view) and said.claims == direct[p.scheme](p.view).claims
            no_hyphen_minus(said)


@settings(max_examples=5, deadline=None)
@given(side_settings())
@with_examples(SIDE_CORNERS)
def test_side_by_side_sentences_state_each_matrix_drawn(setting):
    check_side_by_side(setting)


@pytest.mark.slow  # the whole range drawn at random: the slow tier's sweep
@settings(max_examples=40, deadline=None)
@given(side_settings())
def test_side_by_side_sentences_over_the_whole_range(setting):
    check_side_by_side(setting)
