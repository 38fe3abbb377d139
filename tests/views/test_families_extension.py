"""The encoding families page's context extension section: each sentence states the numbers of its
view, checked against references recomputed here."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.views import encoding_families as fam
from lab.views import families_extension as ext

from tests.views.families_helpers import no_hyphen_minus, with_examples


# context extension -------------------------------------------------------------------------------


@st.composite
def extension_settings(draw):
    """(head width, base, s, L₀) over the page's range: s from 1 to 64 in the slider's steps of 0.5."""
    factor = fam.FACTOR.minimum + 0.5 * draw(st.integers(0, int((fam.FACTOR.maximum - fam.FACTOR.minimum) / 0.5)))
    return (int(draw(st.sampled_from(fam.HEAD_DIM.options))), float(draw(st.sampled_from(fam.THETA.options))),
            factor, int(draw(st.sampled_from(fam.ORIGINAL.options))))


@settings(max_examples=25, deadline=None)
@given(extension_settings())
@with_examples([(32, 10000.0, 1.0, 512), (32, 500000.0, 64.0, 512), (256, 10000.0, 1.5, 8192),
                (256, 500000.0, 64.0, 8192), (128, 10000.0, 4.0, 2048), (32, 10000.0, 1.0, 8192),
                (256, 10000.0, 64.0, 512)])
# beyond the page's settings, YaRN's other cases: one pair kept and one divided with none between, and
# a ramp that runs past the last pair
@example((4, 10000.0, 4.0, 512))
@example((32, 1e9, 4.0, 512))
@example((32, 10.0, 4.0, 512))
@pytest.mark.filterwarnings("ignore")
def test_context_extension_sentences_state_each_rules_numbers(setting):
    hd, base, s, original = setting
    view = ext.extension(*setting)
    target = round(s * original)
    pairs = hd // 2
    omega = np.array([base ** (-2 * j / hd) for j in range(pairs)])
    said = ext.extension_caption(view)
    assert said.claim("pairs per head").value == pairs and said.claim("target length s·L₀").value == target
    assert said.startswith(f"{pairs} ") and f"s·L₀ = {target:,}" in said

    linear = pekit.rope_frequencies(hd, base=base, scaling="linear", factor=s).double().numpy() / omega
    assert linear == pytest.approx([1 / s] * pairs) and view.linear_ratio == pytest.approx(1 / s)
    said = ext.linear_line(view)
    assert said.holds()  # every pair's ratio is 1/s
    assert said.claim("ratio").value == pytest.approx(1 / s) and f" {number(1 / s, '.4g')}" in said
    assert said.claim("every pair: smallest ratio").value == pytest.approx(linear.min(), rel=1e-9)
    assert said.claim("every pair: largest ratio").value == pytest.approx(linear.max(), rel=1e-9)
    assert said.claim("every pair: largest ratio").reference.value == pytest.approx(1 / s, rel=1e-12)
    assert said.cases == (("s = 1",) if s == 1 else ("s ≠ 1",))  # the message of s = 1, and only there

    ntk_base = base * s ** (hd / (hd - 2))
    ntk = np.array([ntk_base ** (-2 * j / hd) for j in range(pairs)]) / omega
    assert pekit.rope_frequencies(hd, base=base, scaling="ntk", factor=s).double().numpy() / omega == pytest.approx(ntk)
    said = ext.ntk_line(view)
    assert said.holds() and said.claim("base b'").value == pytest.approx(ntk_base)
    assert f"b' = {number(view.ntk.base, ',.6g')}" in said
    assert said.claim("fastest pair's ratio").value == pytest.approx(ntk[0], rel=1e-9) == 1.0
    assert said.claim("slowest pair's ratio").value == pytest.approx(ntk[-1], rel=1e-9)
    assert said.claim("slowest pair's ratio").relation == ("equal" if s == 1 else "below")
    if s > 1:
        slowed = said.claim("slowest pair slowed by").value
        assert slowed == pytest.approx(1 / ntk[-1], rel=1e-9) == pytest.approx(s)
        assert number(slowed, ".4g") in said and number(slowed, ".4g") == number(s, ".4g")
    else:
        assert "(ratios 1 and 1 " in said

    scale = s * target / original - (s - 1)  # s' at L = s·L₀
    said = ext.dynamic_line(view)
    assert said.claim("scale s'").value == pytest.approx(scale) and said.claim("target length s·L₀").value == target
    assert said.claim("base").value == pytest.approx(base * scale ** (hd / (hd - 2)))
    for value, spec in ((scale, ".6g"), (view.dynamic.base, ",.6g"), (target, ",")):
        assert number(value, spec) in said

    low = max(math.floor(hd * math.log(original / (32 * 2 * math.pi)) / (2 * math.log(base))), 0)
    high = min(math.ceil(hd * math.log(original / (2 * math.pi)) / (2 * math.log(base))), hd - 1)
    yarn = pekit.rope_frequencies(hd, base=base, scaling="yarn", factor=s, original_max_len=original).double().numpy()
    yarn = (yarn / omega).tolist()
    for line in (ext.extension_caption, ext.linear_line, ext.ntk_line, ext.dynamic_line, ext.yarn_line):
        no_hyphen_minus(line(view))
    said = ext.yarn_line(view)
    assert said.holds()  # each group's ratios against 1, 1/s, or strictly between
    assert yarn[: low + 1] == pytest.approx([1.0] * (low + 1))
    factor = 0.1 * math.log(s) + 1
    assert said.claim("attention factor, 0.1·ln s + 1").value == pytest.approx(factor)
    assert said.endswith(f" = {number(factor, '.4g')}.")
    if s == 1:
        assert yarn == pytest.approx([1.0] * pairs)
        assert said.claim("every pair: smallest ratio").value == pytest.approx(min(yarn), rel=1e-12)
        assert said.claim("every pair: largest ratio").value == pytest.approx(max(yarn), rel=1e-12)
        return
    kept = list(range(low + 1))
    assert said.claim("pairs kept").value == tuple(kept) and f"pair{'' if low == 0 else 's'} {fam.runs_of(kept)}." in said
    assert said.claim("pairs kept: largest ratio").value == pytest.approx(max(yarn[: low + 1]), rel=1e-12)
    if high < pairs:
        divided, between = list(range(high, pairs)), list(range(low + 1, high))
        assert yarn[high:] == pytest.approx([1 / s] * len(divided))
        assert said.claim("pairs divided by s").value == tuple(divided)
        assert said.claim("pairs divided by s: smallest ratio").value == pytest.approx(min(yarn[high:]), rel=1e-12)
        assert f"{'pair' if len(divided) == 1 else 'pairs'} {fam.runs_of(divided)} by s" in said
        assert said.claim("pairs on the ramp").value == tuple(between)
        if between:
            assert f"{'Pair' if len(between) == 1 else 'Pairs'} {fam.runs_of(between)}, in between" in said
            assert all(1 / s < r < 1 for r in yarn[low + 1: high])  # the ramp: strictly between
            assert said.claim("pairs on the ramp: smallest ratio").value == pytest.approx(min(yarn[low + 1: high]))
            assert said.claim("pairs on the ramp: largest ratio").value == pytest.approx(max(yarn[low + 1: high]))
    else:
        assert "pairs divided by s" not in [c.what for c in said.claims]
        assert yarn[-1] > 1 / s * (1 + 1e-9)  # the last pair is not fully interpolated
        assert said.claim("smallest ratio of a pair").value == pytest.approx(min(yarn), rel=1e-12)
