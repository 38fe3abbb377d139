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

from tests.views.families_helpers import WIDTHS, get_slopes, no_hyphen_minus, rope, sinusoid, t5_bucket, with_examples


# conventions --------------------------------------------------------------------------------------


def test_every_width_on_the_page_has_even_heads_and_odd_ones_are_named():
    assert all(conv.head_width_is_even(d, h) for d, h in WIDTHS)
    assert not conv.head_width_is_even(48, 16) and conv.head_width_is_even(48, 8)


@st.composite
def conventions_settings(draw):
    d, heads = draw(st.sampled_from(WIDTHS))
    return draw(st.integers(fam.N.minimum, fam.N.maximum)), d, heads


@settings(max_examples=25, deadline=None)
@given(conventions_settings())
@with_examples([(2, 32, 16), (256, 32, 16), (256, 64, 16), (2, 512, 1), (256, 512, 1), (37, 64, 1), (24, 128, 2)])
def test_conventions_sentences_state_the_measured_check(setting):
    n, d, heads = setting
    view = conv.conventions(*setting)
    hw = d // heads

    perm = list(range(0, hw, 2)) + list(range(1, hw, 2))  # even columns first, then odd
    said = conv.permutation_sentence(view)
    assert said.startswith(f"Permutation for a head of width {hw}: ")
    shown = said.split("[..., [")[1].split("]]")[0]
    assert shown == (", ".join(map(str, perm)) if hw <= 32
                     else ", ".join(map(str, perm[:16])) + ", …, " + ", ".join(map(str, perm[-4:])))
    assert ("the identity" in said) == (perm == list(range(hw))) == (hw == 2)
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
    assert f"at {n} position{'' if n == 1 else 's'}" in said and f"up to {number(c.largest_score, '.3g')} in size" in said
    assert ("agree exactly" in said) if c.score_difference == 0 else (
        f"agree to {number(c.score_difference, '.1e')}: only rounding" in said)
    if hw == 2:  # one pair: adjacent pairs and halves are the same two columns
        assert disagree <= 1e-9 * largest and vectors == 0
        assert f"Unpermuted they agree too (difference {number(c.mismatched_score_difference, '.1e')})" in said
        assert "disagree" not in said
        # "from a head width of 4 on" they disagree: measured at width 4
        q4, k4 = torch.randn(n, 4, generator=g, dtype=torch.float64), torch.randn(n, 4, generator=g, dtype=torch.float64)
        s4 = rope(q4, "adjacent") @ rope(k4, "adjacent").T
        assert float((s4 - rope(q4, "halves") @ rope(k4, "halves").T).abs().max()) > 1e-3 or n == 1
    else:
        assert disagree > 1e3 * max(agree, 1e-12)
        assert f"Unpermuted, they disagree by {number(c.mismatched_score_difference, '.3g')}:" in said
    assert said.holds()  # against float64 rounding of the largest score, recomputed here
    bound = said.claim("permuted: largest score difference").reference.value
    assert bound == pytest.approx(1e-9 * max(1.0, largest), rel=1e-9)
    assert agree <= bound and (disagree > bound) == (hw > 2)
    assert said.claim("unpermuted: largest score difference").relation == ("above" if hw > 2 else "at most")

    eight, six, four = get_slopes(8), get_slopes(6), get_slopes(4)
    assert list(view.slopes8["slope"]) == eight and list(view.slopes6["slope"]) == six
    assert all(b / a == 0.5 for a, b in zip(eight, eight[1:]))  # halving from head to head
    assert conv.slopes8_sentence(view) == f"8 heads: slopes from {eight[0]:g} down to {eight[-1]:g}, halving from head to head."
    assert six == four + [eight[0], eight[2]]  # the 4 of 4 heads, then heads 1 and 3 of 8
    assert conv.slopes6_sentence(view) == (f"6 heads: the 4 slopes of 4 heads ({', '.join(f'{x:g}' for x in four)}), "
                                          "then heads 1 and 3 of the 8-head sequence.")

    said = conv.t5_sentence(view)
    before = {dist: t5_bucket(-dist, True) for dist in range(161)}  # keys before the query
    exact = [dist for dist in before if list(before.values()).count(before[dist]) == 1]
    assert exact == list(range(len(exact))) and f"distances 0 to {len(exact) - 1} get a bucket each" in said
    assert {t5_bucket(r, True) for r in range(1, 161)} <= set(range(16, 32))  # keys after: the upper half
    causal_before = {dist: t5_bucket(-dist, False) for dist in range(161)}
    causal_exact = [dist for dist in causal_before if list(causal_before.values()).count(causal_before[dist]) == 1]
    assert set(causal_before.values()) == set(range(32)) and "all 32 buckets for keys at or before" in said
    assert f"{len(causal_exact)} exact distances" in said and causal_exact == list(range(len(causal_exact)))
    assert {t5_bucket(r, False) for r in range(1, 161)} == {0} and "falls in bucket 0" in said
    assert "max_distance = 128" in said and "From ±128 on, every distance shares the last bucket" in said
    assert {t5_bucket(-x, True) for x in range(128, 161)} == {15} and {t5_bucket(x, True) for x in range(128, 161)} == {31}
    assert {t5_bucket(-x, False) for x in range(128, 161)} == {31}
    assert view.t5.bidirectional.tolist() == [t5_bucket(o, True) for o in range(-160, 161)]  # the curve drawn
    assert view.t5.causal.tolist() == [t5_bucket(o, False) for o in range(-160, 161)]
    said = conv.t5_sentence(view)
    assert said.holds()  # each number against the curve drawn; the references against HF's bucket written out
    assert said.claim("encoder: distances with a bucket each").reference.value == len(exact)
    assert said.claim("decoder: exact distances").reference.value == len(causal_exact)
    assert said.claim("decoder: buckets of keys at or before the query").value == len(set(causal_before.values()))
    assert said.claim("decoder: largest bucket of a later key").value == max(t5_bucket(r, False) for r in range(1, 161))
    assert said.claim("encoder: lowest bucket of a later key").value == min(t5_bucket(r, True) for r in range(1, 161))
    assert [said.claim(f"{w}: buckets from max_distance on").value
            for w in ("encoder, keys before", "encoder, keys after", "decoder")] == [
        len({t5_bucket(-x, True) for x in range(128, 161)}), len({t5_bucket(x, True) for x in range(128, 161)}),
        len({t5_bucket(-x, False) for x in range(128, 161)})]

    said = conv.layouts_sentence(view)
    t2t_last, inter_last = 10000.0 ** -1, 10000.0 ** (-2 * (d // 2 - 1) / d)
    assert f"At d = {d} the slowest pair has ω = {number(t2t_last, '.4g')} in tensor2tensor" in said
    assert f"against {number(inter_last, '.4g')} in the book" in said
    inter, t2t = sinusoid(range(n), d), sinusoid(range(n), d, "t2t")
    gap = float(np.abs(np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1) - t2t).max())
    assert view.largest_gap == pytest.approx(gap, abs=1e-5)
    assert f"the two tables at {n} positions differ by up to {number(view.largest_gap, '.3g')}." in said
    for text in (conv.pairing_sentence(view), conv.layouts_sentence(view), *conv.metric_values(view)):
        no_hyphen_minus(text)
