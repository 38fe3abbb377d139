"""The chapter's complexity table, receptive fields, the measurement sweep and slope fitting."""

import math

import pytest
import torch

from pekit.complexity import (
    attention_weights_bytes,
    check_sweep,
    cnn_receptive_field,
    complexity_table,
    fit_slope,
    fitted_slopes,
    measure_layers,
    sweep_flops,
    theoretical_costs,
)


@pytest.mark.parametrize("n, d, k", [(1, 1, 2), (5, 4, 3), (100, 256, 3), (1000, 64, 7)])
def test_table_formulas(n, d, k):
    t = complexity_table(n, d, k)
    assert list(t.index) == ["CNN", "RNN", "Self-attention"]
    assert t["flops"].tolist() == [k * n * d * d, n * d * d, n * n * d]
    assert t["sequential_operations"].tolist() == [1, n, 1]
    assert t["max_path_length"].tolist() == [math.ceil((n - 1) / (k - 1)), n - 1, 1]


def test_crossovers_follow_from_the_table():
    d, k = 64, 3
    for n in (10, 63, 64, 65, 191, 192, 193, 500):
        t = complexity_table(n, d, k)["flops"]
        assert (t["Self-attention"] < t["RNN"]) == (n < d)
        assert (t["Self-attention"] < t["CNN"]) == (n < k * d)


def test_theoretical_costs_long_form():
    frame = theoretical_costs([2, 4], 3, 3)
    assert len(frame) == 6 and set(frame["layer"]) == {"CNN", "RNN", "Self-attention"}


def test_book_receptive_field_example():
    """x1 and x5 are within the receptive field of two stacked k = 3 convolutions."""
    field = cnn_receptive_field(5, 3)
    assert field.shape == (3, 5)
    assert field.tolist() == [[False, False, False, False, True], [False, False, True, True, True], [True] * 5]
    for n, k in [(10, 3), (64, 5), (2, 2)]:
        field = cnn_receptive_field(n, k)
        assert field.shape[0] - 1 == complexity_table(n, 4, k)["max_path_length"]["CNN"]
        assert field[-1].all() and (field.shape[0] == 1 or not field[-2].all())


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
    frame = measure_layers([16, 32, 64], 16, 3, heads=2, device=device, repeats=1, warmup=0)
    assert len(frame) == 12
    assert set(frame["layer"]) == {"CNN", "RNN", "Self-attention", "Self-attention (fused)"}
    assert (frame["seconds"] > 0).all()
    explicit = frame[frame["layer"] == "Self-attention"]
    if device == "cpu":
        assert explicit["weights_bytes"].tolist() == [attention_weights_bytes(n, 2) for n in (16, 32, 64)]
    slopes = fitted_slopes(frame)
    assert list(slopes["layer"]) == ["CNN", "RNN", "Self-attention", "Self-attention (fused)"]
    assert slopes["from n"].iloc[0] == 32


def test_progress_is_reported():
    seen = []
    measure_layers([8, 16], 8, 3, heads=1, repeats=1, warmup=0, progress=lambda f, label: seen.append(f))
    assert seen[0] == 0 and seen[-1] == 1 and seen == sorted(seen)


def test_sweeps_that_do_not_fit_are_refused_before_allocating():
    with pytest.raises(ValueError, match="GiB"):
        check_sweep([8192], 64, 4, budget_bytes=512 * 2**20)
    with pytest.raises(ValueError, match="multiply-adds"):
        check_sweep([4096], 4096, 4, budget_bytes=1 << 40, max_flops=10**9)
    with pytest.raises(ValueError, match="divisible"):
        check_sweep([16], 10, 4, budget_bytes=1 << 30)
    assert check_sweep([64, 16, 64], 8, 2, budget_bytes=1 << 30) == [16, 64]
    assert sweep_flops([2], 2, 3) == 3 * 2 * 4 + 2 * 4 + 4 * 2 + 4 * 2 + 2 * 4 * 2 * 4


@pytest.mark.parametrize("call, name", [(lambda: complexity_table(0, 4), "n"), (lambda: complexity_table(4, 4, 1), "k"),
                                        (lambda: complexity_table(4, 0), "d"), (lambda: cnn_receptive_field(4, 1), "k")])
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()
