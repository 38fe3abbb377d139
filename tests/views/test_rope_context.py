"""The sentences of the RoPE-in-a-real-model page's section past the context, each written from
shipped records generated over their whole range (any bucket, ties, breakdowns, improvements) and
checked against the numbers it states. No model is needed here (the page test runs the model)."""

from __future__ import annotations

import math
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views import rope_context as rc
from pekit import llama
from tests.views.test_rope_in_a_real_model import close, read

# -- past the context -----------------------------------------------------------------------------

LOSS = st.floats(0.5, 12, allow_nan=False)
FIGURE = r"−?\d+(?:[.,]\d+)*(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"  # a number, never the full stop after it


@st.composite
def long_contexts(draw):
    """A shipped record over its whole range: any bucket size, a context inside the text, and
    losses that may tie, break down at once, break down later, spike once, or improve past the
    context, point by point."""
    bucket = draw(st.sampled_from([1, 3, 64, 256]))
    context = draw(st.integers(2, 40)) * bucket
    tokens = context + draw(st.integers(2, 40 * bucket))
    count = -(-(tokens - 1) // bucket)
    first = context // bucket
    means = {}
    for rule in llama.RULES:
        inside = draw(LOSS)
        shape = draw(st.sampled_from(["tie", "level", "step", "any"]))
        n = count - first
        if shape == "tie":
            past = [inside] * n
        elif shape == "level":
            past = [draw(LOSS)] * n
        elif shape == "step":  # the same as inside for a while, then another level
            at = draw(st.integers(0, n))
            past = [inside] * at + [draw(LOSS)] * (n - at)
        else:
            past = draw(st.lists(LOSS, min_size=n, max_size=n))
        means[rule] = tuple([inside] * first + past)
    return llama.LongContext(tokens, bucket, context, 2.0, means, {r: draw(st.floats(0, 1e4)) for r in llama.RULES},
                             "cpu: x86_64, torch 2.13.0+cpu, 2 threads")


def _naive_windows(r: llama.LongContext) -> dict[str, tuple[float, float]]:
    losses = {rule: [r.means[rule][p // r.bucket] for p in range(r.tokens - 1)] for rule in llama.RULES}
    return {rule: (sum(v[:r.context]) / len(v[:r.context]), sum(v[r.context:]) / len(v[r.context:]))
            for rule, v in losses.items()}


def _points_past(r: llama.LongContext, rule: str) -> list[tuple[int, float]]:
    """(first position, mean) of each point the chart draws from the end of the context on."""
    return [(k * r.bucket, v) for k, v in enumerate(r.means[rule]) if k * r.bucket >= r.context]


@settings(max_examples=150, deadline=None)
@given(long_contexts())
@example(llama.LongContext(17, 4, 8, 2.0, {"plain": (3.0, 3.0, 3.6, 3.6, 3.6), "linear": (3.2,) * 5,
                                            "ntk": (3.01,) * 5}, {"plain": 329.3, "linear": 195.2, "ntk": 104.5}, "cpu"))
@example(llama.shipped_context())  # breaks down 3,072 positions past the context; linear lower only from there
@example(llama.LongContext(tokens=4, bucket=1, context=2, factor=2.0,  # the two lowest 0.05 apart, to float rounding
                           means={"plain": (1.0,) * 3, "linear": (0.5,) * 3, "ntk": (0.55,) * 3},
                           seconds={"plain": 0.0, "linear": 0.0, "ntk": 0.0}, machine="cpu"))
def test_the_context_sentences_state_the_windows_means(results):
    naive = _naive_windows(results)
    for rule, (inside, past) in rc.context_windows(results).items():
        assert math.isclose(inside, naive[rule][0], rel_tol=1e-9) and math.isclose(past, naive[rule][1], rel_tol=1e-9)
    text = rc.context_statement(results)
    assert text.holds()
    # the model and the context its numbers belong to
    assert "SmolLM2-135M-Instruct" in text and "Q4_1" in text
    assert f"{results.context:,}" in text
    # the numbers written after the model's name and weights, in order: the context, the loss inside it (positions 0 to the last
    # one of it), the loss past it (the context to the last position with a next token)
    said = re.findall(FIGURE, text.split("float32", 1)[1])[:7]  # (after the model, its weights and their float32)
    inside, past = naive["plain"]
    assert close(said[1], inside, 2) and close(said[4], past, 2), text
    assert [read(said[i]) for i in (0, 2, 3, 5, 6)] == [results.context, 0, results.context - 1, results.context,
                                                         results.tokens - 2], text
    # the numbers stated, as claims against this test's own means
    assert text.claim("positions trained on").value == results.context
    assert text.claim("last position with a next token").value == results.tokens - 2
    for rule, (naive_inside, naive_past) in naive.items():
        name = "plain RoPE's" if rule == "plain" else f"{rule}'s"
        assert math.isclose(text.claim(f"{name} mean loss inside the context").value, naive_inside, rel_tol=1e-9)
        assert math.isclose(text.claim(f"{name} mean loss past the context").value, naive_past, rel_tol=1e-9)
    assert math.isclose(text.claim("lowest mean loss past the context").value, min(v[1] for v in naive.values()),
                        rel_tol=1e-9)
    # where it breaks down: the first point BREAKS above the inside mean, by a loop over the points
    points = _points_past(results, "plain")
    at = next((start for start, value in points if value >= inside + rc.BREAKS), None)
    gap = past - inside
    if at is not None:
        assert f"{at:,}" in text
        assert text.claim("breakdown point").value == at
        assert text.claim("breakdown point's distance past the context").value == at - results.context
        after = [v for start, v in points if start >= at]
        stays = sum(after) / len(after) >= inside + rc.BREAKS
        # "breaks down there" or "worse, not broken down": the mean from the breakdown point on
        there = text.claim(f"plain RoPE's mean loss from {at} on")
        assert math.isclose(there.value, sum(after) / len(after), rel_tol=1e-9)
        assert there.relation == ("at least" if stays else "below")
        if stays:  # where it breaks down is written with its distance past the context
            assert f"{at - results.context:,}" in text
        assert math.isclose(there.reference.value, inside + rc.BREAKS, rel_tol=1e-9)
    else:  # no point breaks down: "worse but not broken", "reads better" or "about the same"
        assert "breakdown point" not in {c.what for c in text.claims}
        mean_past = text.claim("plain RoPE's mean loss past the context")
        if abs(abs(gap) - rc.SAME) > 1e-9:  # not on the boundary, where the two means' float rounding decides
            assert mean_past.relation == ("above" if gap > rc.SAME else "below" if -gap > rc.SAME else "at most")
    best = min(llama.RULES, key=lambda rule: naive[rule][1])
    second = sorted(naive[rule][1] for rule in llama.RULES)[1]
    apart = text.claim("gap between the two lowest mean losses past the context")
    assert math.isclose(apart.value, second - naive[best][1], rel_tol=1e-9, abs_tol=1e-12)
    if second - naive[best][1] > rc.SAME + 1e-9:  # the best rule's own message
        assert apart.relation == "above" and text.endswith(rc._(rc.BEST[best])), text
    elif second - naive[best][1] < rc.SAME - 1e-9:  # "no rule is clearly best"
        assert apart.relation == "at most" and rc._(rc.BEST[best]) not in text
    papers = rc.papers_statement(results)
    assert papers.holds()
    assert re.findall(FIGURE, papers)[:4] == ["2023", "7", "65", "2,048"]  # Chen et al.'s year, sizes and context
    linear = dict(_points_past(results, "linear"))
    over = [(start, linear[start] - value) for start, value in points]  # linear over plain, point by point
    lower = [start for start, d in over if d < 0]
    compared = {c.what for c in papers.claims} - {"linear's cost inside the context",
                                                  "NTK-aware's distance from plain RoPE inside the context"}
    differences = [d for _, d in over]
    if not over:  # no point to compare: no claim about linear against plain
        assert compared == set()
    elif len(lower) == len(over):  # "lower ... at every one of the points"
        every = papers.claim("linear's highest loss over plain's, past the context")
        assert compared == {every.what} and every.relation == "below"
        assert math.isclose(every.value, max(differences), rel_tol=1e-9, abs_tol=1e-12)
    elif not lower:  # "not lower ... at any of the points"
        none = papers.claim("linear's lowest loss over plain's, past the context")
        assert compared == {none.what} and none.relation == "at least"
        assert math.isclose(none.value, min(differences), rel_tol=1e-9, abs_tol=1e-12)
    elif lower == [start for start, _ in over if start >= lower[0]]:  # "from position ... to the end, not before"
        assert f"{lower[0]:,}" in papers
        since = papers.claim("linear's highest loss over plain's, from the first point it is lower")
        before = papers.claim("linear's lowest loss over plain's, before that")
        assert compared == {since.what, before.what} and (since.relation, before.relation) == ("below", "at least")
        assert math.isclose(since.value, max(d for start, d in over if start >= lower[0]), rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(before.value, min(d for start, d in over if start < lower[0]), rel_tol=1e-9, abs_tol=1e-12)
    else:
        assert f"at {len(lower)} of the {len(over)} points past the context, not at all of them" in papers
        assert compared == {"points past the context where linear is lower"}
        assert papers.claim("points past the context where linear is lower").value == len(lower)
    cost = naive["linear"][0] - naive["plain"][0]
    costs = papers.claim("linear's cost inside the context")
    assert math.isclose(costs.value, cost, rel_tol=1e-9, abs_tol=1e-12)
    if cost > rc.SAME + 1e-9:  # the cost is written, after Chen et al.'s figures and before the NTK-aware gap
        assert costs.relation == "above" and any(close(f, cost, 2) for f in re.findall(FIGURE, papers)[4:-1])
    elif cost < rc.SAME - 1e-9:  # "costs nothing"
        assert costs.relation == "at most"
    assert close(re.findall(FIGURE, papers)[-1], abs(naive["ntk"][0] - naive["plain"][0]), 2)
    caption = rc.context_caption(results)
    # the numbers written, in order (the machine's name aside): the tokens, ..., the positions per point, the slowest
    # rule's seconds
    assert results.machine in caption
    written = re.findall(FIGURE, caption.replace(results.machine, " "))
    assert written[0] == f"{results.tokens:,}" and written[-2] == f"{results.bucket}", caption
    assert read(written[-1]) == round(max(results.seconds.values()))
    assert [caption.claim(w).value for w in ("tokens", "positions per point", "seconds of the slowest rule")] == [
        results.tokens, results.bucket, max(results.seconds.values())]


def test_the_shipped_run_breaks_down_later_than_the_context_ends():
    """The mean past the context (4.70 against 3.44) hides where the change happens: plain RoPE stays
    within half a nat of its inside mean for 3,072 positions past the context, and linear
    interpolation is higher than plain RoPE there."""
    r = llama.shipped_context()
    text, papers = rc.context_statement(r), rc.papers_statement(r)
    assert "11,264" in text and "3,072" in text
    assert [text.claim(w).value for w in ("breakdown point", "breakdown point's distance past the context")] == [
        11264, 3072]
    assert text.claim("plain RoPE's mean loss from 11264 on").relation == "at least"  # "breaks down there"
    assert "11,264" in papers  # linear lower from there to the end, and not before it
    assert papers.claim("linear's highest loss over plain's, from the first point it is lower").relation == "below"
    assert papers.claim("linear's lowest loss over plain's, before that").relation == "at least"
    before = [v for start, v in _points_past(r, "plain") if start < 11264]
    assert max(before) < _naive_windows(r)["plain"][0] + rc.BREAKS


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from(list(llama.RULES)), LOSS, min_size=3),
       st.dictionaries(st.sampled_from(list(llama.RULES)), LOSS, min_size=3), st.integers(1, 2048),
       st.floats(0, 2e-3))
def test_the_live_recomputation_is_compared_with_the_shipped_run(live, shipped, tokens, nudge):
    for near in (False, True):
        theirs = {rule: live[rule] + (nudge if rule == "ntk" else 0.0) for rule in llama.RULES} if near else shipped
        text = rc.live_statement(live, theirs, tokens)
        said = re.findall(FIGURE, text)
        if tokens > 1:
            assert read(said.pop(0)) == tokens
        for value, rule in zip(said[0:3], llama.RULES):
            assert close(value, live[rule], 4)
        for value, rule in zip(said[3:6], llama.RULES):
            assert close(value, theirs[rule], 4)
        gap = max(abs(live[r] - theirs[r]) for r in llama.RULES)
        assert text.claim("largest difference from the shipped run").relation == ("at most" if gap <= 1e-3 else "above")
        assert math.isclose(text.claim("largest difference from the shipped run").value, gap, rel_tol=1e-9)
        assert text.holds() and text.comparisons[0].reference.value == 1e-3


@settings(max_examples=60, deadline=None)
@given(long_contexts())
def test_the_context_table_gives_each_range_its_mean(results):
    table = rc.context_table(results)
    losses = {rule: [results.means[rule][p // results.bucket] for p in range(results.tokens - 1)]
              for rule in llama.RULES}
    edges = [e for e in rc.CONTEXT_RANGES if e < results.tokens - 1] + [results.tokens - 1]
    assert len(table) == min(len(edges) - 1, len(rc.CONTEXT_RANGES) - 1)
    for (_, row), start, stop in zip(table.iterrows(), edges, edges[1:]):
        stop = min(stop, rc.CONTEXT_RANGES[rc.CONTEXT_RANGES.index(start) + 1])
        assert row["positions"] == f"{start:,}–{stop - 1:,}"
        for rule in llama.RULES:
            part = losses[rule][start:stop]
            assert math.isclose(row[rule], sum(part) / len(part), rel_tol=1e-9)
