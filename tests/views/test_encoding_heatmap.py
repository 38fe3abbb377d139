"""The encoding heatmap page's records and sentences: each sentence states the numbers of the
record it is written from, checked on the real views over the page's settings (n 1..4096,
d 1..1024, base 2..1e6, first position 0 or 1, both layouts)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def table(setting) -> views.TableView:
    return views.table_view(*setting)


def measured(setting) -> views.PropertiesView:
    n, d, base, _, layout = setting
    return views.properties(n, d, base, layout)


def check_table_caption(view: views.TableView) -> None:
    caption, drawing = views.table_caption(view), view.drawing
    assert drawing.shape == (view.n, view.d)
    if drawing.exact:
        assert f"All {view.n:,} × {view.d:,} " in caption and "Lower n or d" not in caption
    else:
        rows, cols = drawing.block
        assert f"{view.n:,} × {view.d:,} = {view.cells:,} entries" in caption
        assert f"a block of {rows:,} position(s) × {cols:,} column(s)" in caption
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
    assert f"from 0 to {view.d - 1}, e.g." in views.columns_help(view)


def check_pairs_caption(view: views.TableView) -> None:
    caption, pairs = views.pairs_caption(view), view.frequencies
    if view.layout == "interleaved":
        assert caption.startswith("Columns 2j and 2j+1 share a frequency")
        paired = pairs[pairs.cos_column >= 0]
        assert (paired.cos_column == paired.sin_column + 1).all()
    else:
        assert f"Column j and column {view.d // 2}+j share a frequency" in caption
        assert (pairs.cos_column == pairs.sin_column + view.d // 2).all()


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


def check_offsets_caption(view: views.TableView) -> None:
    caption = views.offsets_caption(view)
    assert view.starts == min(view.n, 64)  # every row, or 64 evenly spaced ones
    assert f"measured at {view.starts} evenly spaced starting rows i" in caption
    assert caption.endswith(f"Largest band width: {view.max_spread:.2g}.")
    if view.d % 2 == 0 or view.layout == "tensor2tensor":
        # every column has its partner: the band stays a line up to float32 rounding, as the page says
        assert view.max_spread < 1e-3


def check_steps_caption(view: views.TableView) -> None:
    if view.n == 1:
        assert view.steps is None
        return
    steps = view.steps
    assert 0 <= steps.smallest <= steps.largest
    assert views.steps_caption(steps).startswith(f"Largest over all i: {steps.largest:.6f}. Every step")
    if view.d % 2 == 0 or view.layout == "tensor2tensor":
        assert steps.largest - steps.smallest <= 1e-5 * steps.largest  # the same distance, up to float32 rounding


def check_wavelengths_caption(view: views.TableView) -> None:
    caption, n_pairs = views.wavelengths_caption(view), len(view.frequencies)
    if view.layout == "interleaved":
        assert n_pairs == math.ceil(view.d / 2)
        last = 2 * math.pi * view.base ** (2 * (n_pairs - 1) / view.d)
    elif n_pairs:
        assert n_pairs == view.d // 2
        last = 2 * math.pi * (view.base if n_pairs > 1 else 1)  # log-spaced from 1 to base inclusive
    else:
        assert view.d == 1
        assert caption == "d = 1 in the tensor2tensor layout has no sine/cosine pair: its one column is zero."
        return
    assert f"(the last pair here: {last:,.0f} positions)" in caption
    unpaired = view.layout == "interleaved" and view.d % 2 == 1
    assert caption.endswith("a sine and no cosine (cos column −1)." if unpaired
                            else "each pair is one sine/cosine frequency.")
    assert (view.frequencies.cos_column == -1).any() == unpaired


def check_properties_text(view: views.PropertiesView, setting) -> None:
    n, d, _, _, layout = setting
    text, p = views.properties_text(view), view.measured
    assert view.rows == max(n, 2) and view.d == d
    assert f"Measured on this table ({max(n, 2)} positions, d = {d}, float64)" in text
    # every position has its own code except in tensor2tensor's d = 1, whose one column is zero
    assert view.unique == (not (layout == "tensor2tensor" and d == 1))
    closest = f"The two closest positions are {p.closest:.3g} apart "
    assert closest + ("(never 0)." if view.unique else "(0: two positions share a code).") in text
    assert f"differ from these by at most {p.prefix_gap:.1e};" in text and p.prefix_gap < 1e-9
    assert f"(spread {p.step_spread:.1e} over all i" + (", the unpaired" if d % 2 else ").") in text
    assert f"The largest |value| is {p.largest:.6g}, and the next {max(n, 2)} positions" in text and p.largest <= 1
    assert f"stay within {p.beyond:.6g}:" in text and p.beyond <= 1
    assert text.endswith("the tables differ by 0.") and p.repeat_gap == 0


TABLE_CHECKS = [check_table_caption, check_csv_limit_caption, check_columns_help, check_pairs_caption,
                check_gram_caption, check_offsets_caption, check_steps_caption, check_wavelengths_caption]


@pytest.mark.parametrize("check", TABLE_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_table_sentences_state_the_table(check, setting):
    check(table(setting))


@pytest.mark.parametrize("setting", GRID, ids=str)
def test_properties_text_states_the_measurements(setting):
    check_properties_text(measured(setting), setting)


@settings(max_examples=25, deadline=None)
@given(SMALL)
def test_every_sentence_on_small_tables(setting):
    view = table(setting)
    for check in TABLE_CHECKS:
        check(view)
    check_properties_text(measured(setting), setting)


@pytest.mark.parametrize("columns", [(0,), (6, 7, 8, 9), (0, 511, 1022)])
@pytest.mark.parametrize("n", [1, 60, 4096])
def test_curves_caption_says_how_the_curves_are_drawn(n, columns):
    drawn = views.curves(n, 1023, 10000, 0, "interleaved", columns)
    caption = views.curves_caption(drawn)
    assert drawn.drawing.shape[0] == n
    if drawn.drawing.exact:
        assert caption is None
    else:
        run = drawn.drawing.block[0]
        assert f"{n:,} positions are more than the chart has room for" in caption
        assert f"over every {run:,} consecutive positions" in caption and run > 1


@pytest.mark.parametrize("n, d, layout, compared", [(60, 1, "tensor2tensor", False), (60, 2, "tensor2tensor", True),
                                                    (60, 32, "interleaved", False)])
def test_layouts_are_compared_for_tensor2tensor_with_a_pair(n, d, layout, compared):
    assert table((n, d, 10000, 0, layout)).compares_layouts == compared
