"""Attention rollout against Abnar & Zuidema's reference code (``compute_joint_attention``),
written out here with numpy in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from pekit.rollout import attention_rollout, ranked_shares


def reference(att_mat: np.ndarray, residual: float) -> np.ndarray:
    """The reference: heads averaged, ``r I + (1 - r) A``, rows normalised, then joint[i] = aug[i] @ joint[i-1]."""
    att = att_mat.mean(axis=1)
    aug = residual * np.eye(att.shape[-1])[None] + (1 - residual) * att
    aug = aug / aug.sum(axis=-1, keepdims=True)
    joint = np.zeros_like(aug)
    joint[0] = aug[0]
    for i in range(1, len(aug)):
        joint[i] = aug[i] @ joint[i - 1]
    return joint


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 4), heads=st.integers(1, 3), T=st.integers(1, 6), residual=st.sampled_from([0.5, 0.0, 0.25, 1.0]),
       causal=st.booleans(), seed=st.integers(0, 99))
def test_rollout_matches_the_reference(layers, heads, T, residual, causal, seed):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(layers, heads, T, T, generator=g, dtype=torch.float64)
    if causal:
        scores = scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf"))
    A = torch.softmax(scores, dim=-1)
    got = attention_rollout(A, residual=residual)
    assert got.shape == (layers, T, T)
    np.testing.assert_allclose(got.numpy(), reference(A.numpy(), residual), atol=1e-12)
    assert torch.allclose(got.sum(-1), torch.ones((), dtype=torch.float64))


def test_one_layer_with_half_residual_is_half_the_map_plus_half_the_identity():
    A = torch.tensor([[[[1.0, 0.0], [0.25, 0.75]]]])
    assert attention_rollout(A)[0].tolist() == [[1.0, 0.0], [0.125, 0.875]]


@pytest.mark.parametrize("bad, name", [(torch.ones(2, 2, 3, 4), "attentions"), (-torch.ones(1, 1, 2, 2), "attentions"),
                                       (torch.full((1, 1, 2, 2), float("nan")), "attentions")])
def test_bad_maps_are_named(bad, name):
    with pytest.raises(ValueError, match=name):
        attention_rollout(bad)
    with pytest.raises(ValueError, match="residual"):
        attention_rollout(torch.ones(1, 1, 2, 2) / 2, residual=1.5)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(T=st.integers(1, 12), seed=st.integers(0, 999), ties=st.booleans())
def test_ranked_shares_against_python_sorting(T, seed, ties):
    g = torch.Generator().manual_seed(seed)
    raw = torch.randint(1, 4, (T,), generator=g).double() if ties else torch.rand(T, generator=g, dtype=torch.float64)
    row = raw / raw.sum()
    positions, shares = ranked_shares(row)
    values = row.tolist()
    assert sorted(positions) == list(range(T)) and list(shares) == [values[i] for i in positions]
    assert list(shares) == sorted(values, reverse=True)  # largest first (ties in any order)
    if not ties:
        assert list(positions) == sorted(range(T), key=lambda i: -values[i])


@pytest.mark.parametrize("row", [torch.tensor([]), torch.ones(2, 2), torch.tensor([1, 2]), torch.tensor([0.5, float("nan")]),
                                 [0.5, 0.5]])
def test_ranked_shares_refuse_what_is_no_row(row):
    with pytest.raises(ValueError, match="row"):
        ranked_shares(row)

