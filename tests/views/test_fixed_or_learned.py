"""The fixed-or-learned page's sentences, each made from the real view at settings over the
sliders' whole range and checked against the numbers it states."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.views import fixed_or_learned as lp
from pekit import pretrained as pt
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

OFFSETS = st.integers(lp.MAX_OFFSET.minimum, lp.MAX_OFFSET.maximum)
KS = st.integers(lp.K.minimum, lp.K.maximum)


def test_colour_statement_counts_what_the_scale_leaves_out():
    assert lp.colour_statement(pt.ColourRange(-1.0, 1.0, 0, 10)) == "Colours from -1 to 1; every entry lies within."
    assert lp.colour_statement(pt.ColourRange(-0.25, 0.5, 1234, 196608)) == (
        "Colours from -0.25 to 0.5: 1,234 of 196,608 entries lie beyond and take the end colours, so that they do "
        "not wash out the rest.")


def test_picture_captions_say_what_each_picture_draws_and_leaves_out():
    for pictures in lp.tables():
        for picture, columns in ((pictures.table, "column(s)"), (pictures.gram, "position(s)")):
            caption = lp.picture_caption(picture)
            assert caption.startswith(picture.drawing.describe("position(s)", columns))
            c = picture.colours
            assert f"Colours from {c.low:.3g} to {c.high:.3g}" in caption
            assert (f"{c.beyond:,} of {c.total:,} entries lie beyond" in caption) == (c.beyond > 0)


def test_values_statement_states_both_ranges_and_the_long_rows():
    view = lp.whole_table_view()
    text = lp.values_statement(view)
    lo, hi = view.learned.value_range
    slo, shi = view.sinusoidal.value_range
    assert f"The learned values run from {lo:.3f} to {hi:.3f}, the sinusoidal ones from {slo:.3f} to {shi:.3f}." in text
    assert f"the same length, {view.sinusoidal.norm_median:.2f} (√(d/2))" in text
    median = view.learned.norm_median
    assert f"median length of {median:.2f}" in text
    long_rows = [i for i, norm in enumerate(view.learned.norms.tolist()) if norm > 2 * median]
    if long_rows:
        assert ", ".join(map(str, long_rows)) in text
        assert all(f"{float(view.learned.norms[i]):.2f}" in text for i in long_rows)
    else:
        assert "No row is more than twice as long" in text


def test_steps_statement_states_the_range_median_and_jumps():
    view = lp.whole_table_view()
    text = lp.steps_statement(view)
    sin = view.sinusoidal.steps
    assert text.startswith(f"Every step of the sinusoidal table has the same length, {float(sin.min()):.4f}")
    steps = view.learned.steps.tolist()
    median = float(view.learned.steps.median())
    assert f"run from {min(steps):.4f} to {max(steps):.4f} (median {median:.4f})" in text
    i = steps.index(max(steps))
    assert f"the longest between positions {i} and {i + 1}" in text
    for j, step in enumerate(steps):
        assert (f"{j} → {j + 1} ({step:.3f})" in text) == (step > 2 * median)


@settings(max_examples=25, deadline=None)
@given(OFFSETS)
def test_offset_statement_states_the_similarities_shown(max_offset):
    view = lp.offsets_view(max_offset)
    text = lp.offset_statement(view)
    for d in (1, 2, 5, 10):
        said = f"δ = {d}: {view.learned.similarity_at(d):.2f} learned" if d <= max_offset else f"δ = {d}:"
        assert (said in text) == (d <= max_offset)
    for name, summary in (("learned", view.learned), ("sinusoidal", view.sinusoidal)):
        width = float(summary.offsets.spread.max())
        if width < lp.SAME:
            assert f"for the {name} table the band stays a line (largest width {width:.1e})" in text
        else:
            assert f"for the {name} table the band is up to {width:.2f} wide" in text


@settings(max_examples=8, deadline=None)
@given(KS)
def test_components_statement_states_each_component(k):
    for view in lp.components_view(k):
        text = lp.components_statement(view)
        c = view.summary.components
        assert text.startswith(f"{view.title}: ") and text.count("of the variance") == k
        for i in range(k):
            crossings = int(c.crossings[i])
            noun = "sign change" if crossings == 1 else "sign changes"
            assert f"PC{i + 1} {float(c.explained[i]):.1%} of the variance, {crossings} {noun}," in text
        pairs = c.pairs()
        assert ("No two neighbouring components share a period." in text) == (not pairs)
        for a, b in pairs:
            assert f"PC{a + 1} and PC{b + 1} share a period of {float(c.periods[a]):.1f} positions" in text
