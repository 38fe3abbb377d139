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
    losses that may tie, break down or improve past the context."""
    bucket = draw(st.sampled_from([1, 3, 64, 256]))
    context = draw(st.integers(2, 40)) * bucket
    tokens = context + draw(st.integers(2, 40 * bucket))
    count = -(-(tokens - 1) // bucket)
    means = {}
    for rule in llama.RULES:
        inside, past = draw(LOSS), draw(LOSS)
        tie = draw(st.booleans())
        means[rule] = tuple(inside if k * bucket < context else (inside if tie else past) for k in range(count))
    return llama.LongContext(tokens, bucket, context, 2.0, means, {r: draw(st.floats(0, 1e4)) for r in llama.RULES},
                             "cpu: x86_64, torch 2.13.0+cpu, 2 threads")


def _naive_windows(r: llama.LongContext) -> dict[str, tuple[float, float]]:
    losses = {rule: [r.means[rule][p // r.bucket] for p in range(r.tokens - 1)] for rule in llama.RULES}
    return {rule: (sum(v[:r.context]) / len(v[:r.context]), sum(v[r.context:]) / len(v[r.context:]))
            for rule, v in losses.items()}


@settings(max_examples=150, deadline=None)
@given(long_contexts())
@example(llama.LongContext(17, 4, 8, 2.0, {"plain": (3.0, 3.0, 3.6, 3.6, 3.6), "linear": (3.2,) * 5,
                                            "ntk": (3.01,) * 5}, {"plain": 329.3, "linear": 195.2, "ntk": 104.5}, "cpu"))
def test_the_context_sentences_state_the_windows_means(results):
    naive = _naive_windows(results)
    for rule, (inside, past) in rc.context_windows(results).items():
        assert math.isclose(inside, naive[rule][0], rel_tol=1e-9) and math.isclose(past, naive[rule][1], rel_tol=1e-9)
    text = rc.context_statement(results)
    said = re.search(rf"the loss is ({FIGURE}) nats per token inside the context \(positions 0 to ({FIGURE})\) and "
                     rf"({FIGURE}) past it \(({FIGURE}) to ({FIGURE})\)", text)
    inside, past = naive["plain"]
    assert close(said[1], inside, 2) and close(said[3], past, 2), text
    assert [read(said[i]) for i in (2, 4, 5)] == [results.context - 1, results.context, results.tokens - 2]
    gap = past - inside
    if gap >= rc.BREAKS:
        assert "breaks down" in text
    elif gap > rc.SAME:
        assert "worse but not broken" in text
    elif -gap > rc.SAME:
        assert "reads better" in text
    else:
        assert "about the same" in text
    best = min(llama.RULES, key=lambda rule: naive[rule][1])
    second = sorted(naive[rule][1] for rule in llama.RULES)[1]
    if second - naive[best][1] > rc.SAME + 1e-9:
        assert f"Past the context {rc.RULE_NAMES[best]} reads best" in text, text
    elif second - naive[best][1] < rc.SAME - 1e-9:
        assert "no rule is clearly best" in text
    papers = rc.papers_statement(results)
    lower = naive["linear"][1] < naive["plain"][1]
    assert ("is not lower" in papers) == (not lower)
    assert ("breaks down past the context" in papers) == (gap >= rc.BREAKS and lower)
    cost = naive["linear"][0] - naive["plain"][0]
    if cost > rc.SAME + 1e-9:
        assert close(re.findall(FIGURE, papers.split("costs ")[1])[0], cost, 2)
    elif cost < rc.SAME - 1e-9:
        assert "at no cost" in papers
    assert close(re.findall(FIGURE, papers)[-1], abs(naive["ntk"][0] - naive["plain"][0]), 2)
    caption = rc.context_caption(results)
    assert f"{results.tokens:,} tokens" in caption and f"over {results.bucket} positions" in caption
    slowest = re.search(rf"up to ({FIGURE}) s per rule", caption)[1]
    assert read(slowest) == round(max(results.seconds.values())) and results.machine in caption


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
        assert ("to float rounding" in text) == (gap <= 1e-3)


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
