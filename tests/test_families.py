"""Encoding families against their references: Shaw et al.'s relative indices against a slow loop
and tensor2tensor's ``_generate_relative_positions_matrix``; the two RoPE pairings; RoPE context
extension are in test_rope_variants.py; ALiBi's ``get_slopes``; T5's
buckets; tensor2tensor's timescale denominator; parameter counts; the numbers past the training
length."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.testing import assert_close

import pekit
from pekit import families as F
from tests.test_positions import ref_get_slopes, ref_relative_position_bucket

# --- references -------------------------------------------------------------------------------


def ref_generate_relative_positions_matrix(length_q, length_k, max_relative_position):
    """tensor2tensor, layers/common_attention.py, ``_generate_relative_positions_matrix``
    (cache=False), in torch instead of TensorFlow."""
    range_vec_k = torch.arange(length_k)
    range_vec_q = range_vec_k[-length_q:] if length_q else range_vec_k[:0]
    distance_mat = range_vec_k[None, :] - range_vec_q[:, None]
    distance_mat_clipped = torch.clamp(distance_mat, -max_relative_position, max_relative_position)
    return distance_mat_clipped + max_relative_position


def shaw_loop(q, k, max_distance):
    out = torch.empty(q, k, dtype=torch.long)
    for i in range(q):
        for j in range(k):
            rel = j - (i + k - q)
            out[i, j] = min(max(rel, -max_distance), max_distance) + max_distance
    return out


# --- Shaw ---------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(q=st.integers(0, 12), extra=st.integers(0, 6), k=st.integers(0, 9))
def test_shaw_indices_match_a_loop_and_tensor2tensor(q, extra, k):
    keys = q + extra
    ours = F.shaw_relative_indices(q, keys, k, device="cpu")
    assert ours.dtype == torch.int64 and ours.shape == (q, keys)
    assert torch.equal(ours, shaw_loop(q, keys, k))
    assert torch.equal(ours, ref_generate_relative_positions_matrix(q, keys, k))


def test_shaw_indices_by_hand():
    assert F.shaw_relative_indices(3, 3, 1).tolist() == [[1, 2, 2], [0, 1, 2], [0, 0, 1]]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 14), k=st.integers(0, 9), causal=st.booleans())
def test_shaw_pairs_match_a_loop_with_the_decoders_mask(n, k, causal):
    """The index of every pair (NaN above the diagonal for a decoder) and the indices in use,
    against a Python loop over the pairs."""
    pairs = F.shaw_pairs(n, k, causal=causal)
    assert pairs.indices.dtype == torch.float64 and pairs.indices.shape == (n, n)
    seen = set()
    for i in range(n):
        for j in range(n):
            got = float(pairs.indices[i, j])
            if causal and j > i:
                assert math.isnan(got)
            else:
                want = min(max(j - i, -k), k) + k
                assert got == want
                seen.add(want)
    assert pairs.used == len(seen) <= 2 * k + 1
    if not causal:  # every offset from -(n-1) to n-1, clipped
        assert pairs.used == 2 * min(k, n - 1) + 1
    else:  # keys at or before the query: offsets -(n-1) .. 0
        assert pairs.used == min(k, n - 1) + 1


def test_shaw_pairs_edges_and_bad_input():
    one = F.shaw_pairs(1, 4, causal=True)
    assert one.indices.tolist() == [[4.0]] and one.used == 1  # the query itself, offset 0
    assert F.shaw_pairs(3, 0).used == 1 and F.shaw_pairs(3, 0).indices.eq(0).all()
    for kwargs, word in [(dict(num_positions=0, max_distance=1), "num_positions"),
                         (dict(num_positions=3, max_distance=-1), "max_distance"),
                         (dict(num_positions=3, max_distance=1, causal="yes"), "causal")]:
        with pytest.raises(ValueError, match=word):
            F.shaw_pairs(**kwargs)


def test_shaw_learns_two_sets_of_2k_plus_1_head_vectors_per_layer():
    assert F.shaw_parameters(16, 64) == 2 * 33 * 64
    assert F.shaw_parameters(4, 8, layers=6) == 6 * 2 * 9 * 8
    assert F.scheme_parameters("shaw", num_hiddens=512, num_heads=8, max_distance=16, layers=2) == 2 * 2 * 33 * 64


def test_parameter_counts_of_every_scheme():
    kw = {"num_hiddens": 384, "num_heads": 12, "max_len": 512}
    counts = {s: F.scheme_parameters(s, **kw) for s in F.FAMILIES}
    assert counts == {"sinusoidal": 0, "tensor2tensor": 0, "learned": 512 * 384, "binary": 0, "rope": 0, "alibi": 0,
                      "t5": 32 * 12, "shaw": 2 * 33 * 32, "none": 0}
    # MiniLM's real table has exactly that many numbers
    if pekit.pretrained_missing() is None:
        assert pekit.pretrained_position_table().numel() == counts["learned"]


# --- the matrices -------------------------------------------------------------------------------


def test_scheme_matrices_are_the_existing_functions():
    n, h, d = 12, 4, 32
    assert_close(F.scheme_matrix("sinusoidal", n, h, num_hiddens=d), pekit.sinusoidal_encoding(n, d, dtype=torch.float64))
    assert_close(F.scheme_matrix("tensor2tensor", n, h, num_hiddens=d),
                 pekit.sinusoidal_encoding(n, d, layout="tensor2tensor", dtype=torch.float64))
    assert torch.equal(F.scheme_matrix("binary", n, h), pekit.binary_encoding(n, dtype=torch.float64))
    assert torch.equal(F.scheme_matrix("alibi", n, h, causal=True), pekit.alibi_bias(n, n, h, causal=True,
                                                                                     dtype=torch.float64))
    assert torch.equal(F.scheme_matrix("t5", n, h, causal=True).long(), pekit.t5_relative_buckets(n, n, bidirectional=False))
    assert torch.equal(F.scheme_matrix("shaw", n, h, shaw_max_distance=3).long(), F.shaw_relative_indices(n, n, 3))
    table = torch.randn(8, 5)
    assert torch.equal(F.scheme_matrix("learned", n, h, table=table), table.double())  # only the rows it has
    assert F.scheme_matrix("none", n, h).shape == (n, 0)


def test_rope_matrix_is_each_pairs_angle_modulo_a_turn():
    n, h, d = 40, 2, 16
    angles = F.scheme_matrix("rope", n, h, num_hiddens=d)
    assert angles.shape == (n, d // h // 2)
    for m in (0, 1, 7, 39):
        for j in range(d // h // 2):
            expected = math.fmod(m * 10000.0 ** (-2 * j / (d // h)), 2 * math.pi)
            assert angles[m, j].item() == pytest.approx(expected, abs=1e-12)


# --- conventions the page checks ----------------------------------------------------------------


def test_alibi_slopes_for_8_and_6_heads_follow_get_slopes():
    assert pekit.alibi_slopes(8, dtype=torch.float64).tolist() == ref_get_slopes(8) == [2.0 ** -i for i in range(1, 9)]
    assert pekit.alibi_slopes(6, dtype=torch.float64).tolist() == ref_get_slopes(6)


def test_slope_table_names_where_get_slopes_takes_each_slope():
    for heads in (1, 4, 6, 8, 12, 16):
        table = F.alibi_slope_table(heads)
        assert list(table["slope"]) == ref_get_slopes(heads)
        for slope, source in zip(table["slope"], table["taken from"]):
            i, count = (int(x) for x in source.removeprefix("head ").split(" of "))
            assert slope == ref_get_slopes(count)[i - 1]


def test_t5_curve_is_the_reference_along_one_row():
    curve = F.t5_bucket_curve(200)
    assert curve.offsets.tolist() == list(range(-200, 201))
    assert torch.equal(curve.bidirectional, ref_relative_position_bucket(curve.offsets))
    assert torch.equal(curve.causal, ref_relative_position_bucket(curve.offsets, bidirectional=False))
    assert (curve.exact_bidirectional, curve.exact_causal) == (8, 16)


def test_symmetric_and_causal_alibi_agree_at_and_below_the_diagonal():
    sym = F.scheme_matrix("alibi", 9, 6)
    causal = F.scheme_matrix("alibi", 9, 6, causal=True)
    below = torch.tril(torch.ones(9, 9, dtype=torch.bool))
    assert torch.equal(sym[:, below], causal[:, below])
    assert torch.isneginf(causal[:, ~below]).all() and torch.isfinite(sym).all()


def test_t5_buckets_exact_then_logarithmic_both_ways():
    rel = torch.arange(-300, 301)
    for bidirectional in (True, False):
        ours = pekit.t5_relative_buckets(1, 601, bidirectional=bidirectional)[0]  # offsets -600 .. 0
        ref = ref_relative_position_bucket(torch.arange(-600, 1), bidirectional=bidirectional)
        assert torch.equal(ours, ref)
    backward = ref_relative_position_bucket(-rel[300:], bidirectional=True)  # offsets 0, -1, .., -300
    assert backward[:8].tolist() == list(range(8))  # one bucket per distance below 16 / 2
    assert backward[128:].unique().tolist() == [15]  # every distance from max_distance on shares the last
    causal = ref_relative_position_bucket(-rel[300:], bidirectional=False)
    assert causal[:16].tolist() == list(range(16)) and causal[128:].unique().tolist() == [31]
    # causal ignores keys after the query: every one of them is bucket 0
    assert ref_relative_position_bucket(rel[301:], bidirectional=False).unique().tolist() == [0]


def test_tensor2tensor_denominator_is_half_the_width_minus_one():
    d = 16
    t2t = pekit.frequencies(d, layout="tensor2tensor")
    interleaved = pekit.frequencies(d)
    j = torch.arange(d // 2, dtype=torch.float64)
    assert_close(t2t, 10000.0 ** (-j / (d / 2 - 1)), rtol=1e-14, atol=0)
    assert_close(interleaved, 10000.0 ** (-j / (d / 2)), rtol=1e-14, atol=0)
    assert t2t[-1].item() == pytest.approx(1e-4) and interleaved[-1].item() > 1e-4


# --- past the training length -------------------------------------------------------------------


def test_beyond_training_by_hand():
    b = F.beyond_training(100, 20, num_hiddens=64, num_heads=8, shaw_max_distance=4, t5_max_distance=128)
    assert not b.learned_has_row and F.beyond_training(19, 20).learned_has_row
    P = pekit.sinusoidal_encoding(101, 64, dtype=torch.float64)
    assert b.sinusoidal_nearest == pytest.approx((P[:20] - P[100]).norm(dim=1).min().item())
    assert b.sinusoidal_step == pytest.approx((P[1] - P[0]).norm().item())
    omega = pekit.frequencies(8)
    for pair in b.rope:
        assert pair.largest_seen == pytest.approx(19 * omega[pair.pair].item())
        assert pair.full_turn == (19 * omega[pair.pair].item() >= 2 * math.pi)
        assert pair.unseen == (not pair.full_turn)
        assert pair.angle == pytest.approx(100 * omega[pair.pair].item())
        # the direction it points in: the angle less its whole turns, 0 .. 2π
        turns = math.floor(100 * omega[pair.pair].item() / (2 * math.pi))
        assert pair.turned == pytest.approx(100 * omega[pair.pair].item() - 2 * math.pi * turns, abs=1e-9)
        assert 0 <= pair.turned < 2 * math.pi
    assert b.alibi_bias == [-100 * m for m in ref_get_slopes(8)]
    assert b.alibi_bias_seen == [-19 * m for m in ref_get_slopes(8)]
    seen = set(ref_relative_position_bucket(-torch.arange(20)).tolist())
    assert b.t5_bucket == ref_relative_position_bucket(torch.tensor(-100)).item()
    assert b.t5_buckets_seen == len(seen) and b.t5_bucket_seen == (b.t5_bucket in seen) is False
    assert b.shaw_index == 8 and b.shaw_clipped


def test_inside_the_training_length_nothing_is_new():
    b = F.beyond_training(7, 64)
    assert b.learned_has_row and b.sinusoidal_nearest == 0.0 and not any(p.unseen for p in b.rope)
    assert b.t5_bucket_seen


# --- bad input ----------------------------------------------------------------------------------


def raises_naming(call, *words):
    with pytest.raises(ValueError) as err:
        call()
    assert all(w in str(err.value) for w in words), str(err.value)


@pytest.mark.parametrize("call, name", [
    (lambda: F.shaw_relative_indices(-1, 3, 2), "num_queries"),
    (lambda: F.shaw_relative_indices(3, 3, "2"), "max_distance"),
    (lambda: F.shaw_parameters(4, 0), "head_dim"),
    (lambda: F.scheme_parameters("rotary", num_hiddens=8, num_heads=2), "scheme"),
    (lambda: F.scheme_parameters("t5", num_hiddens=10, num_heads=4), "num_heads"),
    (lambda: F.scheme_matrix("learned", 4, 2), "table"),
    (lambda: F.scheme_matrix("rope", 4, 4, num_hiddens=12), "num_hiddens"),
    (lambda: F.scheme_matrix("alibi", 4, 2, causal="yes"), "causal"),
    (lambda: F.beyond_training(10, 0), "train_len"),
    (lambda: F.beyond_training(10, 8, num_hiddens=24, num_heads=8), "num_hiddens"),
])
def test_bad_arguments_name_themselves(call, name):
    raises_naming(call, name)
