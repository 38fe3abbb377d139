"""pekit.llama's measures of a run (pair shares, head habits, perplexity, the drawn copy), against
loops over Python floats and numpy's float32 rounding: pure functions of tensors, no model file."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from pekit import llama


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 2), heads=st.sampled_from([1, 3]), T=st.integers(1, 4), half=st.integers(1, 4),
       seed=st.integers(0, 99))
def test_pair_shares_against_a_loop(layers, heads, T, half, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(layers, heads, T, 2 * half, generator=g)
    k = torch.randn(layers, 1, T, 2 * half, generator=g)
    shares = llama.pair_shares(q, k, pekit.frequencies(2 * half))
    for lay in range(layers):
        for h in range(heads):
            lengths = [sum(math.hypot(float(q[lay, h, t, 2 * j]), float(q[lay, h, t, 2 * j + 1])) for t in range(T)) / T
                       for j in range(half)]
            assert shares.query[lay, h].tolist() == pytest.approx([v / sum(lengths) for v in lengths], abs=1e-9)
    assert torch.allclose(shares.key.sum(-1), torch.ones((), dtype=torch.float64))


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 4), heads=st.integers(1, 4), seed=st.integers(0, 999),
       threshold=st.sampled_from([0.5, 0.0, 0.25, 1.0]))
def test_habit_counts_against_a_loop(layers, heads, seed, threshold):
    """Counts, boundary heads and the farthest head, by loops over Python floats (ties included:
    the weights are drawn from a few values)."""
    g = torch.Generator().manual_seed(seed)
    grid = torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0], dtype=torch.float64)
    sink, prev = (grid[torch.randint(0, 5, (layers, heads), generator=g)] for _ in range(2))
    distance = torch.randint(0, 4, (layers, heads), generator=g).double()
    counts = llama.habit_counts(llama.HeadHabits(sink, prev, distance), threshold)
    cells = [(lay, h) for lay in range(layers) for h in range(heads)]
    S, P, D = sink.tolist(), prev.tolist(), distance.tolist()
    sinks = [(lay, h) for lay, h in cells if S[lay][h] > threshold]
    assert (counts.heads, counts.layers, counts.sinks) == (layers * heads, layers, len(sinks))
    assert counts.sink_layers == tuple(sorted({lay for lay, _h in sinks}))
    assert counts.previous == tuple((lay, h) for lay, h in cells if P[lay][h] > threshold)
    for W, least, most in ((S, counts.least_sink, counts.most_other_sink),
                           (P, counts.least_previous, counts.most_other_previous)):
        inside = [W[lay][h] for lay, h in cells if W[lay][h] > threshold]
        outside = [W[lay][h] for lay, h in cells if not W[lay][h] > threshold]
        assert least == (min(inside) if inside else None) and most == (max(outside) if outside else None)
    best = max(D[lay][h] for lay, h in cells)
    assert counts.farthest == next(c for c in cells if D[c[0]][c[1]] == best)  # the first, layer-major, on a tie
    assert counts.farthest_distance == counts.largest_distance == best


def test_habit_counts_refuse_what_is_no_habits():
    good = torch.ones(2, 3, dtype=torch.float64)
    for habits, name in (((good, good, good), "habits"), (llama.HeadHabits(good, good, torch.ones(2)), "habits"),
                         (llama.HeadHabits(good[:0], good[:0], good[:0]), "habits")):
        with pytest.raises(ValueError, match=name):
            llama.habit_counts(habits, 0.5)
    with pytest.raises(ValueError, match="threshold"):
        llama.habit_counts(llama.HeadHabits(good, good, good), float("nan"))


def test_as_drawn_is_float32_rounding():
    x = torch.rand(3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64).requires_grad_()
    drawn = llama.as_drawn(x)
    assert drawn.dtype == torch.float32 and not drawn.requires_grad and drawn.device.type == "cpu"
    assert drawn.tolist() == [[float(np.float32(v)) for v in row] for row in x.tolist()]


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 3), heads=st.sampled_from([1, 3]), T=st.integers(1, 4), half=st.integers(1, 4),
       seed=st.integers(0, 99))
def test_mean_pair_shares_against_a_loop(layers, heads, T, half, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(layers, heads, T, 2 * half, generator=g)
    k = torch.randn(layers, 1, T, 2 * half, generator=g)
    shares = llama.pair_shares(q, k, pekit.frequencies(2 * half))
    query, key = llama.mean_pair_shares(shares)
    for got, x in ((query, shares.query.tolist()), (key, shares.key.tolist())):
        rows = [row for layer in x for row in layer]
        assert got == pytest.approx([math.fsum(r[j] for r in rows) / len(rows) for j in range(half)], abs=1e-12)
        assert math.fsum(got) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("loss", [0.0, -0.5, 1e-7, 2.302585092994046, 20.0, 69.0, 69.1, 88.7, 88.8, 1e6])
def test_perplexity_is_float32_exp_up_to_a_cap(loss):
    """Against math.exp of the loss rounded to float32, the result rounded to float32 (within one
    unit of float32's last place: torch's exp is not correctly rounded)."""
    x = float(np.float32(loss))
    exact = math.exp(x) if x < 709 else math.inf
    expected = min(float(np.float32(exact)) if exact < 3.4e38 else math.inf, 1e30)
    assert llama.perplexity(loss) == pytest.approx(expected, rel=2**-23)
    assert llama.perplexity(float("inf")) == llama.microscope.MAX_PERPLEXITY == 1e30
    with pytest.raises(ValueError, match="loss"):
        llama.perplexity(float("nan"))
