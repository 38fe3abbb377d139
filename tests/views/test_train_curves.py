"""The training page's curves: the caption says how the curves were drawn."""

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.train_curves import curves_caption, curves_specs
from pekit.charts.lines import MAX_LINE_POINTS
from pekit import training
from pekit.positions import SCHEMES
from pekit.training import HistoryRow
from tests.bilingual import digit_runs
from tests.views.train_common import shares


histories = st.lists(st.tuples(st.floats(1e-4, 10.0), shares, shares), min_size=1, max_size=1600)


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), histories, min_size=1, max_size=3))
@settings(max_examples=15, deadline=None)
@example(tables={"none": [(1.0, 0.5, 0.0)]})
def test_the_curves_caption_says_how_the_curves_were_drawn(tables):
    hist = {p: tuple(HistoryRow(i + 1, *row) for i, row in enumerate(rows)) for p, rows in tables.items()}
    curves = curves_specs(hist)
    said = curves_caption(curves)
    longest = max(len(h) for h in hist.values())
    assert curves.longest == longest
    assert said.holds()
    drawn = sum(len(h) for h in hist.values())  # the rows the chart was given, counted here
    assert said.claim("steps drawn").value == drawn
    assert said.claim("steps drawn").reference.value == MAX_LINE_POINTS
    assert curves.banded == (drawn > MAX_LINE_POINTS)
    # the case: banded above the room, every step a point at most at it
    assert said.claim("steps drawn").relation == ("above" if curves.banded else "at most")
    if curves.banded:
        # the numbers written: the batch size, the steps, the lines, the room and the band's steps
        stated = f"{training.BATCH_SIZE} {drawn:,} {len(hist)} {MAX_LINE_POINTS:,} {curves.block:,}"
        assert digit_runs(said) == digit_runs(stated)
        assert 1 < curves.block <= longest
        # the bands' run lengths as drawn: the longest is the one the caption states
        rows = [row for rows in curves.accuracy["datasets"].values() for row in rows if "first" in row]
        assert max(row["last"] - row["first"] + 1 for row in rows) == curves.block
    else:  # only the batch size is written
        assert digit_runs(said) == digit_runs(str(training.BATCH_SIZE))
    if min(len(h) for h in hist.values()) < 2:  # a single step is drawn as a point, not lost
        assert '"point": true' in str(curves.accuracy).replace("'", '"').replace("True", "true")


@given(steps=st.integers(201, 599), lines=st.integers(2, 3))
@settings(max_examples=10, deadline=None)
@example(steps=250, lines=3)
def test_bands_are_explained_by_the_steps_over_all_lines(steps, lines):
    """Lines shorter than the chart's room each, banded because together they are longer: the
    caption counts the steps the chart was given, over all its lines."""
    hist = {p: tuple(HistoryRow(i + 1, 1.0, 0.5, 0.5) for i in range(steps)) for p in SCHEMES[:lines]}
    curves = curves_specs(hist)
    said = curves_caption(curves)
    assert curves.banded == (steps * lines > MAX_LINE_POINTS)
    if curves.banded:
        assert said.claim("steps drawn").value == steps * lines  # over all the lines, not one
        assert said.claim("steps drawn").relation == "above" and said.holds()
        stated = f"{training.BATCH_SIZE} {steps * lines:,} {lines} {MAX_LINE_POINTS:,} {curves.block:,}"
        assert digit_runs(said) == digit_runs(stated), f"the caption does not count the steps it bands: {said!r}"
