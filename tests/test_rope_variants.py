"""RoPE's variants against their references: the two pairings (adjacent against split halves,
checked on scores computed here) and context extension against Hugging Face transformers'
``modeling_rope_utils``."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.testing import assert_close

import pekit
from pekit import rope_variants as R
from tests.test_families import raises_naming

# --- RoPE pairings ------------------------------------------------------------------------------


def test_permutation_maps_adjacent_pairs_to_halves():
    assert R.rope_pair_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 32), n=st.integers(1, 24), start=st.integers(0, 5000), seed=st.integers(0, 100))
def test_halves_of_the_permuted_vector_are_the_permuted_adjacent_rotation(half, n, start, seed):
    dim = 2 * half
    x = torch.randn(n, dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    perm = R.rope_pair_permutation(dim)
    adjacent = pekit.apply_rope(x, start=start)
    halves = pekit.apply_rope(x[:, perm], start=start, pairing="halves")
    assert_close(halves, adjacent[:, perm], atol=1e-12, rtol=0)


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 64), n=st.integers(2, 64), seed=st.integers(0, 1000))
def test_pairing_check_scores_agree_vectors_differ(half, n, seed):
    result = R.rope_pairing_check(2 * half, n, seed=seed)
    assert result.score_difference <= 1e-6
    # the same input turned by the two conventions: different vectors (pair 0 alone turns alike)
    if half > 1 and n > 1:
        assert result.vector_difference > 1e-3


def test_pairing_check_against_scores_computed_here():
    dim, n, seed = 16, 10, 3
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n, dim, generator=g, dtype=torch.float64)
    k = torch.randn(n, dim, generator=g, dtype=torch.float64)
    check = R.rope_pairing_check(dim, n, seed=seed)
    S = pekit.apply_rope(q) @ pekit.apply_rope(k).T
    wrong = pekit.apply_rope(q, pairing="halves") @ pekit.apply_rope(k, pairing="halves").T
    assert check.largest_score == pytest.approx(S.abs().max().item())
    assert check.mismatched_score_difference == pytest.approx((S - wrong).abs().max().item())
    assert check.mismatched_score_difference > 1e-2  # weights of one convention do not work in the other


# --- RoPE context extension against Hugging Face ------------------------------------------------

transformers = pytest.importorskip("transformers")
rope_utils = pytest.importorskip("transformers.modeling_rope_utils")


def hf_config(dim, base, rope_type, factor, original, **extra):
    from transformers import LlamaConfig

    params = {"rope_type": rope_type, "rope_theta": base, "factor": factor, **extra}
    if rope_type == "yarn":
        params["original_max_position_embeddings"] = original
    return LlamaConfig(hidden_size=dim * 4, num_attention_heads=4, head_dim=dim, max_position_embeddings=original,
                       rope_parameters=params)


CASES = [(64, 10000.0, 4.0, 2048), (128, 500000.0, 8.0, 4096), (16, 100.0, 2.0, 64), (32, 10000.0, 1.5, 512),
         (128, 10000.0, 32.0, 4096), (8, 10000.0, 16.0, 16)]


def assert_same(ours, theirs):
    theirs = theirs.double()
    assert ours.dtype == torch.float64 and ours.shape == theirs.shape
    assert_close(ours, theirs, rtol=1e-6, atol=0)  # Hugging Face computes in float32


@pytest.mark.parametrize("dim, base, factor, original", CASES)
def test_linear_scaling_matches_transformers(dim, base, factor, original):
    inv, attention = rope_utils._compute_linear_scaling_rope_parameters(hf_config(dim, base, "linear", factor, original))
    result = R.rope_scaling(dim, base=base, scaling="linear", factor=factor, original_max_len=original)
    assert_same(result.inv_freq, inv)
    assert result.attention_factor == attention == 1.0
    assert_same(pekit.rope_frequencies(dim, base=base, scaling="linear", factor=factor), inv)


@pytest.mark.parametrize("dim, base, factor, original", CASES)
@pytest.mark.parametrize("times", [None, 0.5, 1, 3, 10])
def test_dynamic_ntk_matches_transformers(dim, base, factor, original, times):
    seq_len = None if times is None else int(times * original)
    inv, attention = rope_utils._compute_dynamic_ntk_parameters(hf_config(dim, base, "dynamic", factor, original),
                                                                seq_len=seq_len)
    ours = R.rope_scaling(dim, base=base, scaling="dynamic", factor=factor, original_max_len=original, seq_len=seq_len)
    assert_same(ours.inv_freq, inv)
    assert ours.attention_factor == attention


@pytest.mark.parametrize("dim, base, factor, original", CASES)
def test_static_ntk_is_dynamic_ntk_at_the_length_giving_that_scale(dim, base, factor, original):
    # dynamic NTK with factor f at length L uses the scale f·L/L0 − (f − 1): 2·3 − 1 = 5 for f = 2, L = 3·L0
    inv, _ = rope_utils._compute_dynamic_ntk_parameters(hf_config(dim, base, "dynamic", 2.0, original),
                                                        seq_len=3 * original)
    assert_same(R.rope_frequencies(dim, base=base, scaling="ntk", factor=5.0), inv)
    # and the formula: base·s^(d/(d−2)), so the fastest pair keeps its speed and the slowest slows by s
    ntk = R.rope_scaling(dim, base=base, scaling="ntk", factor=factor)
    assert ntk.base == pytest.approx(base * factor ** (dim / (dim - 2)), rel=1e-12)
    plain = R.rope_frequencies(dim, base=base)
    assert ntk.inv_freq[0].item() == plain[0].item() == 1.0
    assert (plain[-1] / ntk.inv_freq[-1]).item() == pytest.approx(factor, rel=1e-9)


@pytest.mark.parametrize("dim, base, factor, original", CASES)
@pytest.mark.parametrize("betas", [(32.0, 1.0), (16.0, 2.0), (64.0, 0.5)])
def test_yarn_matches_transformers(dim, base, factor, original, betas):
    fast, slow = betas
    config = hf_config(dim, base, "yarn", factor, original, beta_fast=fast, beta_slow=slow)
    inv, attention = rope_utils._compute_yarn_parameters(config)
    ours = R.rope_scaling(dim, base=base, scaling="yarn", factor=factor, original_max_len=original, beta_fast=fast,
                          beta_slow=slow)
    assert_same(ours.inv_freq, inv)
    assert ours.attention_factor == pytest.approx(attention, rel=1e-12)
    assert ours.attention_factor == pytest.approx(0.1 * math.log(factor) + 1)


def test_no_scaling_is_the_plain_frequencies():
    plain = pekit.frequencies(64)
    assert torch.equal(pekit.rope_frequencies(64), plain)
    assert torch.equal(R.rope_frequencies(64, scaling="none", factor=8.0), plain)
    assert R.rope_scaling(64, scaling=None).attention_factor == 1.0


def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones():
    r = R.rope_scaling(128, scaling="yarn", factor=8.0, original_max_len=4096)
    plain = pekit.frequencies(128)
    kept = int(r.low)
    assert_close(r.inv_freq[: kept + 1], plain[: kept + 1], rtol=0, atol=0)
    assert_close(r.inv_freq[int(r.high):], plain[int(r.high):] / 8.0, rtol=1e-15, atol=0)


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("call, name", [
    (lambda: R.rope_pair_permutation(7), "dim"),
    (lambda: R.rope_pairing_check(8, 0), "num_positions"),
    (lambda: pekit.rope_frequencies(64, scaling="ntk-by-parts"), "scaling"),
    (lambda: pekit.rope_frequencies(64, scaling="linear", factor=0.5), "factor"),
    (lambda: pekit.rope_frequencies(64, scaling="linear", factor=float("nan")), "factor"),
    (lambda: pekit.rope_frequencies(2, scaling="ntk", factor=2.0), "dim"),
    (lambda: pekit.rope_frequencies(64, base=-1.0), "base"),
    (lambda: R.rope_scaling(64, base=1.0, scaling="yarn", factor=2.0), "base"),
    (lambda: R.rope_scaling(64, scaling="yarn", factor=4.0, beta_fast=1.0, beta_slow=2.0), "beta_fast"),
    (lambda: R.rope_scaling(64, scaling="dynamic", factor=2.0, seq_len=0), "seq_len"),
])
def test_bad_arguments_name_themselves(call, name):
    raises_naming(call, name)


def test_rope_frequencies_is_public():
    assert pekit.rope_frequencies is R.rope_frequencies and "rope_frequencies" in pekit.__all__


@pytest.mark.parametrize("dim", [2, 3, 4, 64])
@pytest.mark.parametrize("scaling", ["bogus", "NTK", 3, ["linear"]])
def test_an_unknown_scaling_is_named_whatever_the_dim(dim, scaling):
    """The scaling sets the smallest dim it allows, so it is checked first: an unknown one at
    dim 2 was blamed on dim ("dim=2 must be >= 4")."""
    for call in (pekit.rope_frequencies, R.rope_scaling):
        with pytest.raises(ValueError, match=r"^scaling="):
            call(dim, scaling=scaling)
