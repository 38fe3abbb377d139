"""The measurement sweep (validated before anything is allocated), the timings, the log-log
slopes fitted to them, and the slopes the counts predict."""

import math

import pytest
import torch

from hypothesis import given, settings, strategies as st

from pekit.complexity import attention_weights_bytes, layer_costs
from pekit.scaling import check_sweep, fit_slope, fitted_slopes, measure_layers, sweep_lengths, sweep_multiply_adds


def test_slope_recovers_known_exponents():
    ns = [64, 128, 256, 512, 1024]
    for p in (1.0, 2.0, 2.5):
        assert fit_slope(ns, [3e-6 * n**p for n in ns]) == pytest.approx(p)
    gen = torch.Generator().manual_seed(0)
    noisy = [1e-9 * n**2 * float(1 + 0.05 * torch.randn(1, generator=gen)) for n in ns]
    assert fit_slope(ns, noisy) == pytest.approx(2.0, abs=0.1)
    with pytest.raises(ValueError):
        fit_slope([4], [1.0])
    with pytest.raises(ValueError):
        fit_slope([4, 8], [1.0, 0.0])


def test_measurement_shapes_and_positive_times(device):
    frame = measure_layers([16, 32, 64], 16, 3, num_heads=2, device=device, repeats=1, warmup=0)
    assert len(frame) == 12
    assert set(frame["layer"]) == {"CNN", "RNN", "Self-attention", "Self-attention (fused)"}
    assert (frame["seconds"] > 0).all()
    explicit = frame[frame["layer"] == "Self-attention"]
    if device == "cpu":
        assert explicit["weights_bytes"].tolist() == [attention_weights_bytes(n, 2) for n in (16, 32, 64)]
    slopes = fitted_slopes(frame)
    assert list(slopes["layer"]) == ["CNN", "RNN", "Self-attention", "Self-attention (fused)"]
    assert slopes["from_n"].iloc[0] == 32 and slopes["to_n"].iloc[0] == 64
    assert slopes["theory"].tolist() == [1, 1, 2, 2]


def test_progress_is_reported():
    seen = []
    measure_layers([8, 16], 8, 3, num_heads=1, repeats=1, warmup=0, progress=lambda f, label: seen.append(f))
    assert seen[0] == 0 and seen[-1] == 1 and seen == sorted(seen)


def test_sweeps_that_do_not_fit_are_refused_before_allocating():
    with pytest.raises(ValueError, match="GiB"):
        check_sweep([8192], 64, 4, budget_bytes=512 * 2**20)
    with pytest.raises(ValueError, match="multiply-adds"):
        check_sweep([4096], 4096, 4, budget_bytes=1 << 40, max_multiply_adds=10**9)
    with pytest.raises(ValueError, match="divisible"):
        check_sweep([16], 10, 4, budget_bytes=1 << 30)
    assert check_sweep([64, 16, 64], 8, 2, budget_bytes=1 << 30) == [16, 64]
    # CNN 3·2·4 + RNN 2·2·4 + attention twice (explicit and fused): 2·(2·4·2 + 4·2·4)
    assert sweep_multiply_adds([2], 2, 3) == 3 * 2 * 4 + 2 * 2 * 4 + 2 * (2 * 4 * 2 + 4 * 2 * 4)
    assert sweep_lengths(2048, 64) == [64, 128, 256, 512, 1024, 2048] and sweep_lengths(100, 100) == [64]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 10**6), min_size=1, max_size=6), st.integers(1, 4096), st.integers(2, 9))
def test_sweep_multiply_adds_is_the_layer_costs_summed(ns, d, k):
    """The sweep's total is added up without tables; it must equal the per-layer costs."""
    expected = 0
    for n in ns:
        costs = layer_costs(n, d, k)["multiply_adds"]
        expected += int(costs.sum()) + int(costs["Self-attention"])
    assert sweep_multiply_adds(ns, d, k) == expected


def test_slope_verdicts_follow_the_numbers():
    import pandas as pd

    from pekit.scaling import slope_verdicts

    fitted = pd.DataFrame({"layer": ["CNN", "RNN", "Self-attention", "Self-attention (fused)"],
                           "slope": [0.96, 0.5, 1.2, 2.6], "theory": [1, 1, 2, 2]})
    assert [v[3] for v in slope_verdicts(fitted)] == ["as expected", "below", "below", "above"]
    assert slope_verdicts(fitted, tolerance=1.0)[2][3] == "as expected"


@settings(max_examples=200, deadline=None)
@given(slope=st.floats(-1, 4, allow_nan=False), theory=st.sampled_from([1, 2]),
       tolerance=st.sampled_from([0.1, 0.25, 0.5]))
def test_slope_verdicts_judge_the_slope_as_shown(slope, theory, tolerance):
    """Rounded to two decimals, the verdict is the one the shown number gives: the table and
    the sentence below it never disagree, even at the edge of the tolerance."""
    import pandas as pd

    from pekit.scaling import slope_verdicts

    from decimal import Decimal

    fitted = pd.DataFrame({"layer": ["x"], "slope": [slope], "theory": [theory]})
    (_, shown, _, verdict), = slope_verdicts(fitted, tolerance=tolerance, decimals=2)
    assert shown == round(slope, 2)
    # decided in decimal arithmetic on the text a reader sees, not in binary floating point
    text = Decimal(f"{shown:.2f}")
    expected = ("as expected" if abs(text - theory) <= Decimal(str(tolerance)) else
                "below" if text < theory else "above")
    assert verdict == expected


def test_slope_verdicts_at_the_edge_of_the_tolerance():
    import pandas as pd

    from pekit.scaling import slope_verdicts

    fitted = pd.DataFrame({"layer": ["RNN"], "slope": [0.7497], "theory": [1]})
    assert slope_verdicts(fitted)[0][3] == "below"  # the fitted number itself is 0.2503 away
    assert slope_verdicts(fitted, decimals=2)[0][1:] == (0.75, 1, "as expected")  # as shown: 0.75
    edge = pd.DataFrame({"layer": ["a", "b"], "slope": [1.1, 0.9], "theory": [1, 1]})
    assert [v[3] for v in slope_verdicts(edge, tolerance=0.1, decimals=2)] == ["as expected", "as expected"]


@settings(max_examples=40, deadline=None)
@given(low=st.integers(0, 12), span=st.integers(1, 8), d=st.integers(1, 4096), k=st.integers(2, 15))
def test_count_slopes_are_the_slopes_of_everything_timed(low, span, d, k):
    """The slope a timing would have if time followed the count: numpy's least squares on the
    formulas written out here, attention's projections included (2 only where n ≫ 2·d)."""
    import numpy as np

    from pekit.scaling import count_slopes

    ns = [2**e for e in range(low, low + span + 1)]
    counts = {"CNN": [k * n * d * d for n in ns], "RNN": [2 * n * d * d for n in ns],
              "Self-attention": [2 * n * n * d + 4 * n * d * d for n in ns]}
    slopes = count_slopes(ns, d, k)
    for layer, values in counts.items():
        expected = float(np.polyfit(np.log(ns), np.log(np.array(values, dtype=float)), 1)[0])
        assert slopes[layer] == pytest.approx(expected, abs=1e-9)
    assert slopes["Self-attention (fused)"] == slopes["Self-attention"]
    assert 1 - 1e-9 < slopes["Self-attention"] < 2
    if ns[0] >= 64 * d:  # the n² terms dwarf the projections
        assert slopes["Self-attention"] > 1.9
    with pytest.raises(ValueError, match="ns"):
        count_slopes(ns[:1], d, k)


@settings(max_examples=40, deadline=None)
@given(n=st.floats(0.5, 1e7), d=st.integers(1, 4096))
def test_whole_attention_slope_is_the_local_slope_of_the_whole_count(n, d):
    from pekit.scaling import whole_attention_slope

    def log_count(m: float) -> float:
        return math.log(2 * m * m * d + 4 * m * d * d)

    h = 1e-5  # a central difference in log(n)
    numeric = (log_count(n * math.exp(h)) - log_count(n * math.exp(-h))) / (2 * h)
    assert whole_attention_slope(n, d) == pytest.approx(numeric, abs=1e-6)
    assert 1 <= whole_attention_slope(n, d) < 2
    assert whole_attention_slope(2 * d, d) == 1.5
