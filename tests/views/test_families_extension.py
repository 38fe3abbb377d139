"""The encoding families page's context extension section: each sentence states the numbers of its
view, checked against references recomputed here."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
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


@settings(max_examples=40, deadline=None)
@given(extension_settings())
@with_examples([(32, 10000.0, 1.0, 512), (32, 500000.0, 64.0, 512), (256, 10000.0, 1.5, 8192),
                (256, 500000.0, 64.0, 8192), (128, 10000.0, 4.0, 2048), (32, 10000.0, 1.0, 8192)])
@pytest.mark.filterwarnings("ignore")
def test_context_extension_sentences_state_each_rules_numbers(setting):
    hd, base, s, original = setting
    view = ext.extension(*setting)
    target = round(s * original)
    pairs = hd // 2
    omega = np.array([base ** (-2 * j / hd) for j in range(pairs)])
    assert ext.extension_caption(view) == (
        f"{pairs} pairs per head, target length s·L₀ = {target:,}; computed as Hugging Face's "
        "`modeling_rope_utils.py` does.")

    linear = pekit.rope_frequencies(hd, base=base, scaling="linear", factor=s).double().numpy() / omega
    assert linear == pytest.approx([1 / s] * pairs) and view.linear_ratio == pytest.approx(1 / s)
    if s == 1:
        assert ext.linear_line(view) == "**Linear** (position interpolation) at s = 1 leaves every pair as it is: ratio 1."
    else:
        assert ext.linear_line(view).endswith(f"slows every pair by s: ratio {number(1 / s, '.4g')} for all.")

    ntk_base = base * s ** (hd / (hd - 2))
    ntk = np.array([ntk_base ** (-2 * j / hd) for j in range(pairs)]) / omega
    assert pekit.rope_frequencies(hd, base=base, scaling="ntk", factor=s).double().numpy() / omega == pytest.approx(ntk)
    said = ext.ntk_line(view)
    assert view.ntk.base == pytest.approx(ntk_base) and f"b' = {number(view.ntk.base, ',.6g')}:" in said
    assert ntk[0] == 1.0 and 1 / ntk[-1] == pytest.approx(s)
    if s == 1:
        assert "every pair keeps its speed (ratios 1 and 1 for the fastest and the slowest)" in said
    else:
        assert "the fastest pair keeps its speed (ratio 1)" in said
        assert said.endswith(f"the slowest is slowed by {number(1 / view.ntk_last_ratio, '.4g')}.")
        assert number(1 / view.ntk_last_ratio, ".4g") == number(s, ".4g")

    scale = s * target / original - (s - 1)  # s' at L = s·L₀
    said = ext.dynamic_line(view)
    assert view.dynamic.scale == pytest.approx(scale) and f"its scale is s' = {number(view.dynamic.scale, '.6g')}" in said
    assert view.dynamic.base == pytest.approx(base * scale ** (hd / (hd - 2)))
    assert said.endswith(f"base {number(view.dynamic.base, ',.6g')}.") and f"at L = s·L₀ = {target:,}" in said

    low = max(math.floor(hd * math.log(original / (32 * 2 * math.pi)) / (2 * math.log(base))), 0)
    high = min(math.ceil(hd * math.log(original / (2 * math.pi)) / (2 * math.log(base))), hd - 1)
    yarn = pekit.rope_frequencies(hd, base=base, scaling="yarn", factor=s, original_max_len=original).double().numpy()
    yarn = (yarn / omega).tolist()
    said = ext.yarn_line(view)
    assert yarn[: low + 1] == pytest.approx([1.0] * (low + 1))
    if s == 1:
        assert yarn == pytest.approx([1.0] * pairs) and "at s = 1 every pair keeps its frequency" in said
    else:
        assert (f"pair 0 keeps its frequency" if low == 0 else f"{fam.runs_of(list(range(low + 1)))} keep their frequency") in said
        if high < pairs:
            divided, between = list(range(high, pairs)), list(range(low + 1, high))
            assert yarn[high:] == pytest.approx([1 / s] * len(divided))
            assert f"{fam.runs_of(divided)} {'is' if len(divided) == 1 else 'are'} divided by s" in said
            assert (f"{fam.runs_of(between)} on a linear ramp in between" in said) if between else (
                "with no pair in between" in said)
            assert all(1 / s < r < 1 for r in yarn[low + 1: high])  # the ramp: strictly between
        else:
            assert "the ramp to full interpolation runs past the last pair" in said
            assert yarn[-1] > 1 / s * (1 + 1e-9)  # the last pair is not fully interpolated
    factor = 0.1 * math.log(s) + 1
    assert view.yarn.attention_factor == pytest.approx(factor)
    assert said.endswith(f"0.1·ln s + 1 = {number(factor, '.4g')}.")
    for line in (ext.extension_caption, ext.linear_line, ext.ntk_line, ext.dynamic_line, ext.yarn_line):
        no_hyphen_minus(line(view))
