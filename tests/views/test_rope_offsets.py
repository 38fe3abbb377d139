"""The score-against-offset sentence of the RoPE-in-a-real-model page, written from records over
the page's whole range (one to nine heads, two to many offsets, bounds that fall all the way, stay
flat or rise and fall) and from RoFormer's real bound; each trend word is checked against the whole
series drawn, by loops of this file's own."""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views import rope_offsets as ro
from lab.views.rope_in_a_real_model import LAYER, MAX_OFFSET
from pekit import llama
from tests.views.test_rope_in_a_real_model import NUMBER, read

SCORE = st.floats(-10, 10, allow_nan=False)


def trend(series: list[float]) -> str | None:
    """"falls", "rises", "not monotone" or None (flat), by a loop over the steps."""
    up = any(b > a for a, b in zip(series, series[1:]))
    down = any(b < a for a, b in zip(series, series[1:]))
    if up and down:
        return "not monotone"
    if down:
        return "falls"
    return "rises" if up else None


@st.composite
def offset_scores(draw):
    heads, n = draw(st.integers(1, 9)), draw(st.integers(2, 30))
    step = draw(st.integers(1, MAX_OFFSET.maximum // 29))
    scores = [draw(st.lists(SCORE, min_size=n, max_size=n)) for _ in range(heads)]
    kind = draw(st.sampled_from(["falls", "flat", "any"]))
    if kind == "falls":
        bound = [1.0] + sorted(draw(st.lists(st.floats(0, 0.999), min_size=n - 1, max_size=n - 1)), reverse=True)
    elif kind == "flat":
        bound = [1.0] * n
    else:
        bound = [1.0] + draw(st.lists(st.floats(0, 1), min_size=n - 1, max_size=n - 1))
    return llama.OffsetScores(torch.arange(n) * step, torch.tensor(scores, dtype=torch.float64),
                              torch.tensor(bound, dtype=torch.float64))


def real_bound(top: int) -> llama.OffsetScores:
    """RoFormer's bound for SmolLM2's 32 pairs (base 100,000) and scores of seeded vectors, to ``top``."""
    g = torch.Generator().manual_seed(top)
    inv = 100000.0 ** (-torch.arange(0, 64, 2, dtype=torch.float64) / 64)
    return llama.offset_scores(torch.randn(9, 4, 64, generator=g), torch.randn(3, 4, 64, generator=g), inv, top)


@settings(max_examples=100, deadline=None)
@given(offset_scores(), st.integers(LAYER.minimum, LAYER.maximum))
@example(real_bound(16), 0)  # lowest at 16, but not reached steadily
@example(real_bound(512), 6)  # the default: the bound is lowest near offset 400, not at 512
@example(llama.OffsetScores(torch.tensor([0, 16]), torch.tensor([[1.0, 1.0]], dtype=torch.float64),
                            torch.tensor([1.0, 1.0], dtype=torch.float64)), 29)  # one head, a flat bound: ties
def test_offset_statement(scores, layer):
    text = ro.offset_statement(scores, layer)
    assert text.holds()  # every comparison and trend it makes, against the whole series drawn
    rows = scores.scores.tolist()
    heads, far = len(rows), int(scores.offsets[-1])
    start, end = [r[0] for r in rows], [r[-1] for r in rows]
    said = re.search(rf"Layer (\d+), .*? the (\d+) heads score ({NUMBER}) to ({NUMBER}), at offset ([\d,]+) ({NUMBER}) "
                     rf"to ({NUMBER}); (?:(\d+) of the (\d+) scores (?:is|are)|none of the (\d+) scores is) smaller in "
                     rf"size at [\d,]+ than at 0, and head (\d+)'s score (drops|gains) most in size \(from ({NUMBER}) to "
                     rf"({NUMBER})\)\.", text)
    assert said, text
    g = said.groups()
    assert int(g[0]) == layer and int(g[1]) == heads and read(g[4]) == far
    for got, value in ((g[2], min(start)), (g[3], max(start)), (g[5], min(end)), (g[6], max(end))):
        assert abs(read(got) - value) <= 0.0051
    change = [abs(a) - abs(b) for a, b in zip(start, end)]
    smaller = sum(c > 0 for c in change)
    assert int(g[7] or 0) == smaller and int(g[8] or g[9]) == heads and (g[11] == "drops") == (smaller > 0)
    h = int(g[10])
    assert change[h] == (max(change) if smaller else min(change))
    assert abs(read(g[12]) - start[h]) <= 0.0051 and abs(read(g[13]) - end[h]) <= 0.0051
    assert text.claim(f"head {h}'s size at offset {far}").reference.value == abs(start[h])
    # the numbers the first sentence states, as claims against this test's own values
    assert [text.claim(w).value for w in ("layer", "heads", "last offset", "heads smaller in size at the last offset "
                                                                           "than at 0")] == [layer, heads, far, smaller]
    assert [text.claim(w).value for w in ("lowest score at offset 0", "highest score at offset 0",
                                          f"lowest score at offset {far}", f"highest score at offset {far}",
                                          f"head {h}'s score at offset 0", f"head {h}'s score at offset {far}")] == [
        min(start), max(start), min(end), max(end), start[h], end[h]]
    # "rises and falls": counted over every offset drawn, by this file's loop
    wiggle = sum(trend(r) == "not monotone" for r in rows)
    assert text.claim("heads whose score rises and falls between the two").value == wiggle
    assert re.search(rf"Between the two, {wiggle} of the {heads} scores? rises? and falls? on the way\.", text)
    # the bound, read over the whole curve: "falls all the way" only where it does
    bound = scores.bound.tolist()
    shape = trend(bound)
    assert text.claim("RoFormer's bound over the offsets drawn").relation == shape
    if shape is None:  # "stays at its offset-0 value"
        last = text.claim(f"the bound at offset {far}")
        assert (last.relation, last.value, last.reference.value) == ("equal", bound[-1], bound[0])
    if shape not in ("falls", None) and bound[-1] <= min(bound):  # "ends at its lowest", not steadily
        last = text.claim(f"the bound at offset {far}")
        assert (last.relation, last.value, last.reference.value) == ("at most", bound[-1], min(bound))
    elif shape not in ("falls", None):
        low = min(bound)
        lowest = text.claim("the bound's lowest value")
        assert (lowest.relation, lowest.value, lowest.reference.value) == ("below", low, bound[-1])
        found = re.search(rf"lowest \(({NUMBER})\) at offset ([\d,]+)\.", text)
        assert abs(read(found[1]) - low) <= 0.0051
        assert bound[scores.offsets.tolist().index(int(read(found[2])))] == low
    assert abs(read(re.findall(rf"({NUMBER}) of its offset-0 value", text)[0]) - bound[-1]) <= 0.0051 \
        if shape is not None else True


def test_the_default_bound_is_not_read_as_falling_from_its_two_ends():
    """At the default largest offset (512) RoFormer's bound is lower at offset ~400 than at 512: the
    old sentence said it "falls to 0.29 of its offset-0 value by offset 512"."""
    text = ro.offset_statement(real_bound(512), 6)
    assert text.claim("RoFormer's bound over the offsets drawn").relation == "not monotone"
    bound = real_bound(512).bound.tolist()
    lowest = text.claim("the bound's lowest value")  # "lowest (…) at offset …", not "falls all the way"
    assert (lowest.relation, lowest.value, lowest.reference.value) == ("below", min(bound), bound[-1])


@pytest.mark.parametrize("top", [16, 16384])
def test_the_bound_rises_and_falls_at_both_ends_of_the_slider(top):
    assert trend(real_bound(top).bound.tolist()) == "not monotone"
