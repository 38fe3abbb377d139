"""pekit.head_patterns against a naive loop over each head's map, written out in Python floats
(math.fsum), at the edges: one key, one head, ties, half precision."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from pekit.head_patterns import strongest_heads


def naive(weights: list) -> dict[str, tuple[int, int, float]]:
    """Each pattern's strongest head, by loops: per head the mean over queries i of the weight on
    key T-1-i, i and 0; the largest, the first in layer-major order on a tie."""
    best = {}
    for name, key in (("anti", lambda i, T: T - 1 - i), ("diagonal", lambda i, T: i), ("first", lambda i, T: 0)):
        found = None
        for layer, heads in enumerate(weights):
            for head, rows in enumerate(heads):
                T = len(rows)
                share = math.fsum(rows[i][key(i, T)] for i in range(T)) / T
                if found is None or share > found[2]:
                    found = (layer, head, share)
        best[name] = found
    return best


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 3), heads=st.integers(1, 4), T=st.integers(1, 9), seed=st.integers(0, 999))
def test_strongest_heads_match_a_loop(layers, heads, T, seed):
    weights = torch.randn(layers, heads, T, T, generator=torch.Generator().manual_seed(seed),
                          dtype=torch.float64).mul(3).softmax(-1)
    found, expected = strongest_heads(weights), naive(weights.tolist())
    for name in ("anti", "diagonal", "first"):
        got = getattr(found, name)
        assert math.isclose(got[2], expected[name][2], rel_tol=1e-12, abs_tol=1e-15)
        # the head named puts that share there (a near tie may name another head with the same share)
        assert math.isclose(naive(weights[got[0], got[1]][None, None].tolist())[name][2], got[2], rel_tol=1e-12)
    assert found.uniform == 1 / T


def test_strongest_heads_on_patterns_written_out():
    T = 5
    anti, eye, first = np.fliplr(np.eye(T)), np.eye(T), np.zeros((T, T))
    first[:, 0] = 1
    even = np.full((T, T), 1 / T)
    weights = torch.tensor(np.stack([np.stack([even, anti]), np.stack([eye, first])]), dtype=torch.float32)
    found = strongest_heads(weights)
    assert found == ((0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0), 0.2)
    # one key: every pattern is that key, every head puts all its weight there; the first head is named
    assert strongest_heads(torch.ones(2, 3, 1, 1)) == ((0, 0, 1.0), (0, 0, 1.0), (0, 0, 1.0), 1.0)
    # ties: evenly spread heads, the first in layer-major order
    assert strongest_heads(torch.full((2, 2, 4, 4), 0.25)) == ((0, 0, 0.25), (0, 0, 0.25), (0, 0, 0.25), 0.25)


def test_strongest_heads_in_half_precision_and_with_grad():
    weights = torch.randn(2, 2, 6, 6, generator=torch.Generator().manual_seed(1)).softmax(-1)
    half = strongest_heads(weights.half())
    expected = naive(weights.half().float().tolist())
    assert all(math.isclose(getattr(half, n)[2], expected[n][2], rel_tol=1e-6) for n in ("anti", "diagonal", "first"))
    assert strongest_heads(weights.clone().requires_grad_()) == strongest_heads(weights)


@pytest.mark.parametrize("weights", [torch.ones(2, 2, 3), torch.ones(1, 1, 3, 4), torch.ones(0, 1, 2, 2),
                                     torch.ones(1, 0, 2, 2), torch.ones(1, 1, 0, 0), torch.ones(1, 1, 2, 2, dtype=torch.long),
                                     [[[[1.0]]]]])
def test_strongest_heads_refuse_what_is_no_map(weights):
    with pytest.raises(ValueError, match="weights"):
        strongest_heads(weights)
