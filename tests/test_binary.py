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


# ---------------------------------------------------------------------------------------------
# code_distances and overlay_values, against loops over bits, math.sin and math.dist


def sine_loop(i, dim, column, base):
    """Column ``column`` of the interleaved table at position ``i``, float64 by math.sin / math.cos."""
    angle = i / base ** ((column - column % 2) / dim)
    return math.sin(angle) if column % 2 == 0 else math.cos(angle)


@pytest.mark.parametrize("n, bits, dim, base", [(2, 1, 1, 10000), (64, 6, 16, 10000), (200, 8, 32, 100),
                                                (100, 3, 7, 50), (40, 2, 2, 10000), (300, 12, 64, 10000)])
def test_code_distances_against_loops(n, bits, dim, base):
    from pekit.binary import code_distances, compare_codes

    found = code_distances(compare_codes(n, bits, dim, base=base))
    code = [[(i >> b) & 1 for b in range(bits)] for i in range(n)]
    table = [[sine_loop(i, dim, c, base) for c in range(dim)] for i in range(n)]
    dials = [[math.sin(2 * math.pi * (i % 2**j) / 2**j) for j in range(bits)] for i in range(n)]
    binary_steps = [math.sqrt(bin((i ^ (i - 1)) & (2**bits - 1)).count("1")) for i in range(1, n)]  # bits flipped
    sine_steps = [math.dist(table[i], table[i - 1]) for i in range(1, n)]
    dial_from_first = [math.dist(row, dials[0]) for row in dials]
    sine_from_first = [math.dist(row, table[0]) for row in table]
    for got, want in [(found.binary_steps, binary_steps), (found.sinusoidal_steps, sine_steps),
                      (found.dial_distances, dial_from_first), (found.sinusoidal_distances, sine_from_first)]:
        assert len(got) == len(want) and all(isinstance(v, float) for v in got)
        assert all(math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12) for g, w in zip(got, want))
    assert found.binary_step_range == (min(found.binary_steps), max(found.binary_steps))
    assert found.binary_step_range == (min(binary_steps), max(binary_steps))  # square roots of whole numbers
    assert all(math.isclose(g, w, rel_tol=1e-12) for g, w in zip(found.sinusoidal_step_range,
                                                                 (min(sine_steps), max(sine_steps))))
    assert math.isclose(sine_from_first[found.closest_to_first], min(sine_from_first[1:]), rel_tol=1e-12, abs_tol=1e-12)
    assert found.closest_to_first == 1 + found.sinusoidal_distances[1:].index(min(found.sinusoidal_distances[1:]))
    # position 0's dial code is all zeros; sin(2πi/2^j) is 0 where i/2^j is a whole or half turn, in every
    # column j < bits where 2^(bits − 2) divides i (float64 leaves ~1e-16, pekit's tolerance 1e-9 counts it as 0)
    returns = [i for i in range(1, n) if i % 2 ** max(bits - 2, 0) == 0]
    if returns:
        assert (found.dial_min_from_first, found.dial_closest_to_first) == (0.0, returns[0])
    else:
        assert math.isclose(found.dial_min_from_first, min(dial_from_first[1:]), rel_tol=1e-12)
        assert found.dial_closest_to_first == 1 + dial_from_first[1:].index(min(dial_from_first[1:]))


def test_code_distances_refuses_what_is_not_compare_codes_record():
    from pekit.binary import CodeComparison, code_distances, compare_codes

    stats = compare_codes(9, 4, 8)
    short = stats._replace(sinusoidal_distances=stats.sinusoidal_distances[:-1])
    for bad in [None, tuple(stats), short, stats._replace(binary_steps=stats.binary_steps[None])]:
        with pytest.raises(ValueError, match="stats"):
            code_distances(bad)
    assert isinstance(stats, CodeComparison)


@pytest.mark.parametrize("n, bit, dim, column, base", [(1, 0, 1, 0, 10000), (64, 2, 16, 4, 10000),
                                                       (300, 7, 32, 15, 100), (32, 62, 7, 6, 10000),
                                                       (100, 0, 2, 1, 10)])
def test_overlay_values_against_loops(n, bit, dim, column, base):
    from pekit.binary import overlay_values, value_counts

    found, counts = overlay_values(n, bit, dim, column, base=base), value_counts(n, bit, dim, column, base=base)
    wave = [2.0 * ((i >> bit) & 1) - 1.0 for i in range(n)]
    column_loop = [sine_loop(i, dim, column, base) for i in range(n)]
    assert found.bit_wave == tuple(wave)
    assert len(found.column_wave) == n
    # drawn in float32: each value a float32 within one float32 unit at 1 (2^-23) of the float64 value
    assert all(abs(g - w) <= 2**-23 and g == float(torch.tensor(g, dtype=torch.float32))
               for g, w in zip(found.column_wave, column_loop))
    assert counts.bit_values == len(set(wave))
    assert counts.column_values == len(set(column_loop))


def test_overlay_values_names_a_column_outside_the_table():
    from pekit.binary import overlay_values, value_counts

    for f in (overlay_values, value_counts):
        for column in (8, -1):
            with pytest.raises(ValueError, match="column"):
                f(10, 1, 8, column)


@pytest.mark.parametrize("n, bit", [(1, 0), (2, 0), (2, 1), (64, 2), (100, 0), (1000, 9), (1025, 10), (70, 61), (9, 3)])
def test_bit_changes_against_a_loop_over_shifts(n, bit):
    from pekit.binary import bit_changes

    assert bit_changes(n, bit) == tuple(i for i in range(1, n) if (i >> bit) & 1 != ((i - 1) >> bit) & 1)


def test_bit_changes_refuses_bad_input_by_name():
    from pekit.binary import bit_changes

    for args, name in [((0, 1), "num_positions"), ((10, -1), "bit"), ((10, 62), "bit"), ((1 << 27, 1), "num_positions")]:
        with pytest.raises(ValueError, match=name):
            bit_changes(*args)
