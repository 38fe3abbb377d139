"""pekit.binary against explicit loops and the facts the binary-analogy page states."""

import math

import pytest
import torch

from pekit import binary_encoding, sinusoidal_encoding, wavelengths
from pekit.binary import (
    binary_strings,
    bit_periods,
    bit_wave,
    dial_encoding,
    distances_from_first,
    distinct_positions,
    match_bits_to_pairs,
    pairwise_distances,
)


def test_book_printout_both_orders():
    assert binary_strings(8, 3, lsb_first=False) == [f"{i:>03b}" for i in range(8)]
    assert binary_strings(8, 3) == ["000", "100", "010", "110", "001", "101", "011", "111"]
    assert binary_strings(10, 3)[8:] == ["000", "100"]  # wraps with too few bits


def test_bit_periods_match_the_code():
    B = binary_encoding(256, 8, device="cpu")
    for b, period in enumerate(bit_periods(8).tolist()):
        column = B[:, b]
        assert torch.equal(column[: 256 - int(period)], column[int(period):])  # repeats every period
        assert not torch.equal(column[: 256 - int(period) // 2], column[int(period) // 2:])  # not sooner
    assert torch.equal(bit_wave(256, 3), B[:, 3].double() * 2 - 1)


def test_match_bits_to_pairs_is_the_log_nearest():
    table = match_bits_to_pairs(8, 32, base=10000.0)
    waves = wavelengths(32)
    for _, row in table.iterrows():
        period = 2 ** (row["bit"] + 1)
        best = min(range(len(waves)), key=lambda j: abs(math.log(waves[j]) - math.log(period)))
        assert row["pair"] == best and row["sin_column"] == 2 * best
        assert row["ratio"] == pytest.approx(float(waves[best]) / period)
    assert table["pair"].iloc[0] == 0  # bit 0 (period 2) is faster than any column


def test_distinct_positions_binary_vs_sinusoidal():
    four = distinct_positions(binary_encoding(64, 4, device="cpu"))
    assert four.distinct == 16 and four.min_distance == 0 and four.pair == (0, 16)
    full = distinct_positions(binary_encoding(64, 6, device="cpu"))
    assert full.distinct == 64 and full.min_distance == pytest.approx(1.0)
    P = sinusoidal_encoding(512, 16, device="cpu")
    sin = distinct_positions(P)
    D = torch.tensor([[float((P[i] - P[k]).double().norm()) for k in range(0, 512, 7)] for i in range(0, 512, 7)])
    D.fill_diagonal_(float("inf"))
    assert sin.distinct == 512 and sin.min_distance <= float(D.min()) + 1e-3


def test_pairwise_distances_against_loop():
    X = torch.randn(6, 3, generator=torch.Generator().manual_seed(0)).double()
    D = pairwise_distances(X)
    for i in range(6):
        for k in range(6):
            assert D[i, k].item() == pytest.approx(float((X[i].double() - X[k].double()).norm()), abs=1e-7)


def test_dials_close_on_themselves_and_sinusoidal_does_not():
    M = dial_encoding(128, 6)
    assert M[:, 0].abs().max() < 1e-12  # period 1: sin(2πi) is always 0
    dist = distances_from_first(M)
    assert dist[32] < 1e-12 and dist[64] < 1e-12 and dist[16] < 1e-12  # full turn and half turn
    assert dist[1:16].min() > 0.1
    P = sinusoidal_encoding(128, 12, device="cpu")
    assert distances_from_first(P)[1:].min() > 0.5
    i, j = 5, 3
    assert M[i, j].item() == pytest.approx(math.sin(2 * math.pi * i / 2**j))


@pytest.mark.parametrize("call, name", [
    (lambda: bit_periods(0), "bits"), (lambda: binary_strings(4, 0), "bits"), (lambda: bit_wave(4, -1), "bit"),
    (lambda: match_bits_to_pairs(4, 1, layout="tensor2tensor"), "dim"), (lambda: dial_encoding(5, 0), "columns"),
    (lambda: distances_from_first(torch.zeros(0, 3)), "X"), (lambda: pairwise_distances(torch.zeros(3)), "X"),
])
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()
