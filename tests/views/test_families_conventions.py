"""The encoding families page's conventions section: each sentence states the numbers of its view,
checked against references recomputed here."""


import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.views import encoding_families as fam
from lab.views import families_conventions as conv

from tests.views.families_helpers import (
    WIDTHS, get_slopes, no_hyphen_minus, rope, sinusoid, t5_bucket, t5_buckets, with_examples)


# conventions --------------------------------------------------------------------------------------


def test_every_width_on_the_page_has_even_heads_and_odd_ones_are_named():
    assert all(conv.head_width_is_even(d, h) for d, h in WIDTHS)
    assert not conv.head_width_is_even(48, 16) and conv.head_width_is_even(48, 8)


@st.composite
def conventions_settings(draw):
    d, heads = draw(st.sampled_from(WIDTHS))
    return draw(st.integers(fam.N.minimum, fam.N.maximum)), d, heads


def check_permutation_and_pairing(view, n, hw) -> None:
    perm = list(range(0, hw, 2)) + list(range(1, hw, 2))  # even columns first, then odd
    said = conv.permutation_sentence(view)
    assert f" {hw}: " in said
    shown = said.split("[..., [")[1].split("]]")[0]
    assert shown == (", ".join(map(str, perm)) if hw <= 32
                     else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(map(str, perm[-4:])))
    assert (said.claim("columns moved").relation == "equal") == (perm == list(range(hw))) == (hw == 2)  # the identity
    moved = sum(i != j for i, j in enumerate(perm))
    assert said.holds() and said.claim("columns moved").value == moved
    assert said.claim("columns moved").relation == ("equal" if moved == 0 else "above")

    g = torch.Generator().manual_seed(0)
    q = torch.randn(n, hw, generator=g, dtype=torch.float64)
    k = torch.randn(n, hw, generator=g, dtype=torch.float64)
    scores = rope(q, "adjacent") @ rope(k, "adjacent").T
    permuted = rope(q[:, perm], "halves") @ rope(k[:, perm], "halves").T
    wrong = rope(q, "halves") @ rope(k, "halves").T
    largest, agree, disagree = float(scores.abs().max()), float((scores - permuted).abs().max()), float(
        (scores - wrong).abs().max())
    vectors = float((rope(q, "adjacent") - rope(q, "halves")).abs().max())
    c = view.check
    assert c.largest_score == pytest.approx(largest, rel=1e-9)
    assert c.score_difference <= 1e-9 * largest and agree <= 1e-9 * largest  # only rounding, both ways computed
    assert c.mismatched_score_difference == pytest.approx(disagree, rel=1e-6, abs=1e-9 * largest)
    assert c.vector_difference == pytest.approx(vectors, rel=1e-6, abs=1e-12)
    assert conv.metric_values(view) == (number(c.vector_difference, ".3g"), number(c.score_difference, ".1e"),
                                       number(c.mismatched_score_difference, ".3g"))

    said = conv.pairing_sentence(view)
    assert f" {n} " in said and f" {number(c.largest_score, '.3g')} " in said
    assert said.claim("permuted: largest score difference").value == c.score_difference
    assert c.score_difference == 0 or f" {number(c.score_difference, '.1e')}" in said  # exactly, or to the rounding
    if hw == 2:  # one pair: adjacent pairs and halves are the same two columns
        assert disagree <= 1e-9 * largest and vectors == 0
        assert said.claim("unpermuted: largest score difference").relation == "at most"  # they agree too
        assert number(c.mismatched_score_difference, '.1e') in said
        # "from a head width of 4 on" they disagree: measured at width 4
        q4, k4 = torch.randn(n, 4, generator=g, dtype=torch.float64), torch.randn(n, 4, generator=g, dtype=torch.float64)
        s4 = rope(q4, "adjacent") @ rope(k4, "adjacent").T
        assert float((s4 - rope(q4, "halves") @ rope(k4, "halves").T).abs().max()) > 1e-3 or n == 1
    else:
        assert disagree > 1e3 * max(agree, 1e-12)
        assert said.claim("unpermuted: largest score difference").relation == "above"  # they disagree
        assert f" {number(c.mismatched_score_difference, '.3g')}" in said
    assert said.holds()  # against float64 rounding of the largest score, recomputed here
    bound = said.claim("permuted: largest score difference").reference.value
    assert bound == pytest.approx(1e-9 * max(1.0, largest), rel=1e-9)
    assert agree <= bound and (disagree > bound) == (hw > 2)
    assert said.claim("unpermuted: largest score difference").relation == ("above" if hw > 2 else "at most")


def check_slopes(view) -> None:
    """ALiBi's slopes for 8, 6 and 4 heads against the authors' get_slopes written out."""
    eight, six, four = get_slopes(8), get_slopes(6), get_slopes(4)
    assert list(view.slopes8["slope"]) == eight and list(view.slopes6["slope"]) == six
    said = conv.slopes8_sentence(view)
    assert said.holds()  # the slopes fall, each half the one before
    assert said.claim("slopes").value == tuple(eight) and said.claim("slopes").relation == "falls"
    assert (said.claim("first slope").value, said.claim("last slope").value) == (eight[0], eight[-1])
    ratios = [b / a for a, b in zip(eight, eight[1:])]
    assert all(r == 0.5 for r in ratios)  # halving from head to head
    for end in ("smallest", "largest"):
        claim = said.claim(f"{end} ratio of a slope to the one before")
        assert claim.value == (min if end == "smallest" else max)(ratios) and claim.reference.value == 0.5
    assert f"{eight[0]:g}" in said and f"{eight[-1]:g}" in said
    said = conv.slopes6_sentence(view)
    assert six == four + [eight[0], eight[2]]  # the 4 of 4 heads, then heads 1 and 3 of 8
    assert said.holds() and said.claim("4 heads' slopes").value == tuple(four)
    assert said.claim("6 heads' slopes").value == tuple(six)
    gap = said.claim("largest gap from the 4 slopes of 4 heads, then heads 1 and 3 of 8")
    assert gap.value == max(abs(a - b) for a, b in zip(six, four + [eight[0], eight[2]])) == 0
    assert f"({', '.join(f'{x:g}' for x in four)})" in said


def check_t5(view) -> None:
    """T5's buckets, read from HF's bucket written out over offsets −160 .. 160."""
    said = conv.t5_sentence(view)
    offsets = np.arange(-160, 161)
    both, causal = t5_buckets(offsets, True), t5_buckets(offsets, False)
    assert view.t5.bidirectional.tolist() == both.tolist() and view.t5.causal.tolist() == causal.tolist()  # drawn
    assert [t5_bucket(int(o), True) for o in offsets[::16]] == both[::16].tolist()  # the vectorized one, spot-checked
    before, after = both[160::-1].tolist(), both[161:].tolist()  # keys before the query by distance 0 .. 160; after
    causal_before, causal_after = causal[160::-1].tolist(), causal[161:].tolist()
    exact = [dist for dist, b in enumerate(before) if before.count(b) == 1]
    causal_exact = [dist for dist, b in enumerate(causal_before) if causal_before.count(b) == 1]
    assert exact == list(range(len(exact))) and said.claim("encoder: distances with a bucket each").value == len(exact)
    assert f" {len(exact) - 1} " in said
    assert set(after) <= set(range(16, 32))  # keys after: the upper half
    assert set(causal_before) == set(range(32)) and said.claim("decoder: buckets of keys at or before the query").value == 32
    assert said.claim("decoder: exact distances").value == len(causal_exact) and f"({len(causal_exact)} " in said
    assert causal_exact == list(range(len(causal_exact)))
    assert set(causal_after) == {0} and said.claim("decoder: largest bucket of a later key").value == 0
    assert "max_distance = 128" in said and "±128" in said
    assert set(before[128:]) == {15} and set(after[127:]) == {31} and set(causal_before[128:]) == {31}
    assert said.holds()  # each number against the curve drawn; the references against HF's bucket written out
    assert said.claim("encoder: distances with a bucket each").reference.value == len(exact)
    assert said.claim("decoder: exact distances").reference.value == len(causal_exact)
    assert said.claim("decoder: buckets of keys at or before the query").value == len(set(causal_before))
    assert said.claim("decoder: largest bucket of a later key").value == max(causal_after)
    assert said.claim("encoder: lowest bucket of a later key").value == min(after)
    assert [said.claim(f"{w}: buckets from max_distance on").value
            for w in ("encoder, keys before", "encoder, keys after", "decoder")] == [
        len(set(before[128:])), len(set(after[127:])), len(set(causal_before[128:]))]


def check_layouts(view, n, d) -> None:
    said = conv.layouts_sentence(view)
    t2t_last, inter_last = 10000.0 ** -1, 10000.0 ** (-2 * (d // 2 - 1) / d)
    inter, t2t = sinusoid(range(n), d), sinusoid(range(n), d, "t2t")
    gap = float(np.abs(np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1) - t2t).max())
    assert said.holds() and said.claim("width d").value == d and said.claim("positions").value == n
    assert said.claim("tensor2tensor: slowest pair's ω").value == pytest.approx(t2t_last, rel=1e-9)
    assert said.claim("book: slowest pair's ω").value == pytest.approx(inter_last, rel=1e-9)
    assert said.claim("largest difference between the reordered tables").value == pytest.approx(gap, abs=1e-5)
    assert f"d = {d} " in said and f"at {n} positions" in said
    for value, spec in ((t2t_last, ".4g"), (inter_last, ".4g"), (view.largest_gap, ".3g")):
        assert number(value, spec) in said


def check_conventions(setting) -> None:
    n, d, heads = setting
    view = conv.conventions(*setting)
    check_permutation_and_pairing(view, n, d // heads)
    check_slopes(view)
    check_t5(view)
    check_layouts(view, n, d)
    for text in (conv.pairing_sentence(view), conv.layouts_sentence(view), conv.slopes8_sentence(view),
                 conv.slopes6_sentence(view), conv.t5_sentence(view), *conv.metric_values(view)):
        no_hyphen_minus(text)


@settings(max_examples=8, deadline=None)
@given(conventions_settings())
@with_examples([(2, 32, 16), (256, 32, 16), (256, 64, 16), (2, 512, 1), (256, 512, 1), (37, 64, 1), (24, 128, 2)])
def test_conventions_sentences_state_the_measured_check(setting):
    check_conventions(setting)


@pytest.mark.slow  # the whole range drawn at random: the slow tier's sweep
@settings(max_examples=25, deadline=None)
@given(conventions_settings())
def test_conventions_sentences_over_the_whole_range(setting):
    check_conventions(setting)
