"""The encoding heatmap's sections under "explore further": the properties measured, the two
layouts compared, adding against concatenating; each sentence's numbers and claims checked against
the test's own float64 computation (numpy, torch's own layer)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings

from lab.display import number
from lab.views import encoding_heatmap_further as views
from tests.views.test_encoding_heatmap import GRID, SMALL, WHOLE, omegas, table64


def measured(setting) -> views.PropertiesView:
    return views.properties(*setting)


def check_layout_text(setting) -> None:
    n, d, base, start, _layout = setting
    if d < 2:
        return
    compared = views.layout_comparison(n, d, base, start)
    text = views.layout_text(compared)
    assert compared.text == text and text.holds()
    k = d // 2
    inter = table64(n, d, base, start, "interleaved")[:, : 2 * k]
    t2t = table64(n, d, base, start, "tensor2tensor")
    reordered = np.concatenate([inter[:, 0::2], inter[:, 1::2]], axis=1)  # sines, then cosines
    diff = np.abs(reordered - t2t[:, : 2 * k])
    per_pair = np.maximum(diff[:, :k], diff[:, k:]).max(axis=0)
    assert ("odd d" in text.cases) == (d % 2 == 1)
    gap = text.claim("largest difference after reordering")
    if d % 2:
        assert not t2t[:, -1].any() and np.abs(table64(n, d, base, start, "interleaved")[:, -1]).max() >= 0
    if k == 1:
        # one pair: both use the frequency 1 and agree; no frequencies to compare are claimed
        assert per_pair.max() <= 1e-6 and gap.relation == "equal" and gap.reference.value == 0
        assert "frequencies" not in [c.what for c in text.claims]
        return
    paper = omegas(d, base, "interleaved")
    assert text.claim("frequencies").value == k and f" {k} " in text
    assert math.isclose(omegas(d, base, "tensor2tensor")[-1], 1 / base, rel_tol=1e-12)
    assert f"{number(paper[k - 1], '.4g')}" in text and paper[k - 1] > 1 / base
    last_paper = text.claim("the paper's last frequency")
    assert math.isclose(last_paper.value, paper[k - 1], rel_tol=1e-6) and last_paper.relation == "above"
    assert math.isclose(text.claim("tensor2tensor's last frequency").reference.value, 1 / base, rel_tol=1e-12)
    assert math.isclose(gap.value, per_pair.max(), rel_tol=1e-2, abs_tol=1e-6)
    if gap.relation == "equal":  # the tables still agree, to float32 rounding
        assert per_pair.max() <= 1e-6 and "worst pair" not in [c.what for c in text.claims]
    else:
        assert gap.relation == "above" and per_pair.max() > 1e-6 and number(gap.value, ".3g") in text
        worst = text.claim("worst pair").value
        assert per_pair[worst] >= per_pair.max() - 1e-6 and f"{worst}" in text


def expected_abs_cosine(w: int) -> float:
    """E|cos φ| between a fixed and a uniformly random direction in w dimensions, by integrating
    over the angle φ between them, whose density is proportional to sin^(w−2) φ (w ≥ 2)."""
    if w == 1:
        return 1.0
    phi = np.linspace(0, np.pi, 200_001)
    density = np.sin(phi) ** (w - 2)
    return float(np.trapezoid(np.abs(np.cos(phi)) * density, phi) / np.trapezoid(density, phi))


def check_add_or_concat_text(setting) -> None:
    n, d, base, start, layout = setting
    view = views.add_or_concat(*setting)
    text = views.add_or_concat_text(view)
    assert view.text == text and text.holds()
    # parameters of one encoder layer, counted on torch's own layer where it is small enough to build
    for w in (d, 2 * d):
        params = 12 * w * w + 13 * w
        if w <= 256:
            layer = torch.nn.TransformerEncoderLayer(w, 1, dim_feedforward=4 * w)
            assert sum(p.numel() for p in layer.parameters()) == params
    p_add, p_cat = 12 * d * d + 13 * d, 12 * 4 * d * d + 26 * d
    m_add = n * 12 * d * d + 2 * n * n * d
    m_cat = n * 12 * 4 * d * d + 2 * n * n * 2 * d
    assert text.claim("width, concatenated").value == 2 * d and text.claim("width").value == d
    assert text.claim("parameters, concatenated").value == p_cat and text.claim("parameters, added").value == p_add
    assert text.claim("multiply-adds, concatenated").value == m_cat and text.claim("multiply-adds, added").value == m_add
    assert math.isclose(text.claim("parameters ratio").value, p_cat / p_add, rel_tol=1e-12)
    assert math.isclose(text.claim("multiply-adds ratio").value, m_cat / m_add, rel_tol=1e-12)
    assert text.claim("tokens").value == n and f" {n} " in text
    rows = sorted({round(i * (n - 1) / 255) for i in range(256)}) if n > 256 else list(range(n))
    g = torch.Generator().manual_seed(0)
    E = torch.randn(256, d, generator=g, dtype=torch.float64).numpy()
    P = table64(n, d, base, start, layout)[rows]
    P = P[np.linalg.norm(P, axis=1) > 0]
    if not len(P):
        # all zeros: no overlap is measured, and none claimed
        assert f"d = {d}" in text and "overlap" not in [c.what for c in text.claims]
        return
    cos = (P / np.linalg.norm(P, axis=1, keepdims=True)) @ (E / np.linalg.norm(E, axis=1, keepdims=True)).T
    overlap, expected = np.abs(cos).mean(), expected_abs_cosine(d)
    assert math.isclose(view.overlap, overlap, rel_tol=1e-9)
    assert math.isclose(view.expected, expected, rel_tol=1e-4)
    assert text.claim("rows of P").value == len(P) and text.claim("embeddings").value == 256
    assert math.isclose(text.claim("overlap").value, overlap, rel_tol=1e-9)
    # drawn in the chart (view.expected), not written: no claim states it
    assert all(c.value != view.expected for c in text.claims)
    # the control: as many Gaussian vectors (seed 1) against the same embeddings
    R = torch.randn(len(P), d, generator=torch.Generator().manual_seed(1), dtype=torch.float64).numpy()
    against = (R / np.linalg.norm(R, axis=1, keepdims=True)) @ (E / np.linalg.norm(E, axis=1, keepdims=True)).T
    control = np.abs(against).mean()
    assert math.isclose(view.control, control, rel_tol=1e-9)
    assert math.isclose(text.claim("control").value, control, rel_tol=1e-9)
    like, orthogonal = [c for c in text.claims if c.what == "mean |cos| of P's rows"]
    assert like.relation == ("at most" if overlap <= 1.25 * control else "above")
    assert math.isclose(like.reference.value, 1.25 * control, rel_tol=1e-9)
    assert orthogonal.relation == ("below" if overlap < 0.2 else "at least") and orthogonal.reference.value == 0.2
    # the trend word is read from the whole series the chart draws, not from its two ends
    series = [o for o in view.overlaps if not math.isnan(o)]
    monotone = all(b <= a for a, b in zip(series, series[1:]))
    assert text.claim("overlap across the widths").relation == ("falls" if monotone else "not monotone")
    assert text.claim("overlap across the widths").value == tuple(series)
    first, last = text.claim("overlap at the narrowest width").value, text.claim("overlap at the widest").value
    w0, w1 = text.claim("narrowest width").value, text.claim("widest width").value
    # at d = 1 the one column is zero for tensor2tensor (its cosine half is empty), and for the
    # interleaved layout where every sampled position is 0 (sin 0): the narrowest measured width is 2
    zero_at_one = layout == "tensor2tensor" or all(start + r == 0 for r in rows)
    assert first > last and w0 < w1 == 1024 and w0 == (2 if zero_at_one else 1)
    assert first == series[0] and last == series[-1]
    assert ("no point at d = 1" in text.cases) == (layout == "tensor2tensor")


def check_properties_text(view: views.PropertiesView, setting) -> None:
    n, d, base, start, layout = setting
    text, p = views.properties_text(view), view.measured
    assert view.text == text and text.holds()
    rows = max(n, 2)
    assert view.rows == rows and view.d == d and view.n == n and view.start == start
    assert text.claim("first position").value == start and text.claim("last position").value == start + rows - 1
    assert text.claim("d").value == d and text.cases == (("one position",) if n == 1 else ("whole table",))
    assert f"{start}" in text and f"{start + rows - 1}" in text and f"d = {d}" in text
    assert text.claim("positions beyond").value == rows and text.claim("first position beyond").value == start + rows
    assert text.claim("last position beyond").value == start + 2 * rows - 1
    P = table64(rows, d, base, start, layout)  # the rows drawn (two for n = 1)
    D = np.array([[np.linalg.norm(P[i] - P[k]) if i != k else np.inf for k in range(rows)] for i in range(rows)]) \
        if rows <= 64 else None
    if D is None:
        sq = (P * P).sum(axis=1)
        D2 = sq[:, None] + sq[None, :] - 2 * P @ P.T
        np.fill_diagonal(D2, np.inf)
        closest = math.sqrt(max(D2.min(), 0.0))
    else:
        closest = D.min()
    assert abs(p.closest - closest) <= 1e-6
    # "share a code" means equal codes (float64 round-off apart at most), as in tensor2tensor's
    # d = 1, whose one column is zero; codes 1e-6 apart (sin i for i up to a few hundred) are apart
    assert view.unique == (closest > 1e-9)
    if layout == "tensor2tensor" and d == 1:
        assert not view.unique
    assert math.isclose(text.claim("closest").value, closest, rel_tol=6e-3, abs_tol=1e-9)
    assert number(text.claim("closest").value, ".3g") in text
    assert text.claim("closest two positions").relation == ("above" if view.unique else "at most")
    longer = table64(2 * rows, d, base, start, layout)  # "a table twice as long" as the rows measured
    assert text.claim("rows of the longer table").value == 2 * rows
    gap = text.claim("largest difference from the longer table's first rows").value
    assert number(gap, ".1e") in text
    assert gap < 1e-9 and np.abs(longer[:rows] - P).max() < 1e-9
    steps = np.linalg.norm(P[1:] - P[:-1], axis=1)
    spread = steps.max() - steps.min()
    said = text.claim("spread of the neighbour steps")
    if said.relation == "at most":  # the same distance everywhere
        assert spread <= 2e-11
    else:
        assert said.relation == "above" and number(said.value, ".1e") in text
        assert math.isclose(said.value, spread, rel_tol=0.06) and spread > 5e-12
        assert layout == "interleaved" and d % 2 == 1
        rest = np.linalg.norm(P[1:, :-1] - P[:-1, :-1], axis=1)
        assert rest.max() - rest.min() <= 1e-11  # without that column the steps are the same
    largest = text.claim("largest |value|").value
    assert math.isclose(largest, np.abs(P).max(), rel_tol=1e-5, abs_tol=1e-12) and number(largest, ".6g") in text
    assert f"{start + rows}" in text and f"{start + 2 * rows - 1}" in text  # the positions beyond (claims above)
    beyond = np.abs(table64(rows, d, base, start + rows, layout)).max()
    said = text.claim("largest |value| beyond the table")
    assert math.isclose(said.value, beyond, rel_tol=1e-5, abs_tol=1e-12) and beyond <= 1
    assert number(said.value, ".6g") in text
    assert text.claim("largest difference of two computations").value == 0 and p.repeat_gap == 0
    assert text.endswith(" 0.")


@pytest.mark.parametrize("setting", [s for s in GRID if s[0] <= 1025], ids=str)
def test_properties_text_states_the_measurements(setting):
    check_properties_text(measured(setting), setting)



@settings(max_examples=25, deadline=None)
@given(SMALL)
@example((279, 1, 2, 0, "interleaved"))  # the two closest codes are 9.3e-7 apart: close, yet apart
@example((1, 1, 2, 0, "interleaved"))
@example((2, 1, 10000, 0, "tensor2tensor"))
@example((300, 3, 1_000_000, 1, "interleaved"))
@example((2, 1, 10000, 1, "interleaved"))  # rows sin 1 and sin 2: 0.0678 apart, largest 0.909297
@example((3, 2, 10000, 1, "interleaved"))  # cos 0 is not drawn: largest 0.989992
@example((1, 3, 2, 1, "interleaved"))
@example((1, 2, 2, 0, "interleaved"))  # one row, position 0: its one column at d = 1 is sin 0 = 0
def test_properties_text_on_small_tables(setting):
    check_properties_text(measured(setting), setting)


SETTING_CHECKS = [check_layout_text, check_add_or_concat_text]


@pytest.mark.parametrize("check", SETTING_CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("setting", GRID, ids=str)
def test_setting_sentences_state_the_table(check, setting):
    check(setting)


@settings(max_examples=15, deadline=None)
@given(WHOLE)
@example((1, 1, 2, 0, "interleaved"))
@example((2, 2, 10000, 0, "interleaved"))
@example((3, 3, 10000, 0, "tensor2tensor"))
@example((4096, 1024, 2, 1, "tensor2tensor"))
def test_every_further_sentence_over_the_whole_range(setting):
    for check in SETTING_CHECKS:
        check(setting)
