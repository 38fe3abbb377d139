"""The contract of ``pekit.attention`` (masked softmax, scaled dot-product and multi-head
attention): its calls with their hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import math

import pytest
import torch

import pekit
from pekit import attention

from .sweep import BOOL, LENS, NAN, PROB, SIZES, Cases, T, among, lazy, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

QKV = {"queries": tensors((2, 3, 8)), "keys": tensors((2, 4, 8)), "values": tensors((2, 4, 8))}


def qkv():
    return {"queries": T(2, 3, 8, seed=1), "keys": T(2, 4, 8, seed=2), "values": T(2, 4, 8, seed=3)}


register(attention.masked_softmax, {"X": tensors((2, 3, 4)), "valid_lens": LENS, "causal": BOOL},
         lambda: {"X": T(2, 3, 4), "valid_lens": torch.tensor([2, 4])})
register(attention.attention_scores, {"queries": QKV["queries"], "keys": QKV["keys"]},
         lambda: {"queries": T(2, 3, 8, seed=1), "keys": T(2, 4, 8, seed=2)})
register(attention.dot_product_attention,
         QKV | {"valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 3, 4)), "dropout": PROB,
                "training": BOOL},
         lambda: qkv() | {"valid_lens": [1, 4], "score_bias": T(3, 4)})
register(attention.DotProductAttention, {"dropout": PROB}, lambda: {"dropout": 0.1}, label="DotProductAttention()")
register(attention.DotProductAttention, QKV | {"valid_lens": LENS},
         lambda: qkv() | {"valid_lens": [1, 4]},
         call=lambda **kw: attention.DotProductAttention(0.0)(**kw), label="DotProductAttention.forward")
register(attention.transpose_qkv, {"X": tensors((2, 3, 8)), "num_heads": SIZES},
         lambda: {"X": T(2, 3, 8), "num_heads": 2})
register(attention.transpose_output, {"X": tensors((4, 3, 4)), "num_heads": SIZES},
         lambda: {"X": T(4, 3, 4), "num_heads": 2})


def weights():
    return {f"W_{n}": T(8, 8, seed=10 + i) * 0.3 for i, n in enumerate("qkvo")}


BIASES = lazy(lambda: [5, "abc", (None,) * 3, (None,) * 5, [None] * 4, (T(7), None, None, None),
                       (T(8, dtype=torch.int64), None, None, None), (T(8, dtype=torch.float64), None, None, None),
                       (T(8) * NAN, None, None, None), (torch.zeros(8, device="meta"), None, None, None), None])
ROTARY = among(None, 5, "rope", lambda x: x, lambda x: x[..., :-1], lambda x: "rotated",
               lambda x: pekit.apply_rope(x), lambda x: x.double())
register(attention.multi_head_attention,
         QKV | {f"W_{n}": tensors((8, 8)) for n in "qkvo"} | {
             "num_heads": SIZES, "biases": BIASES, "valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 2, 3, 4)),
             "rotary": ROTARY, "dropout": PROB, "training": BOOL, "need_weights": BOOL},
         lambda: qkv() | weights() | {"num_heads": 2, "valid_lens": [1, 4]})
register(attention.MultiHeadAttention,
         {"num_hiddens": SIZES, "num_heads": SIZES, "dropout": PROB, "bias": BOOL, "query_size": SIZES,
          "key_size": SIZES, "value_size": SIZES},
         lambda: {"num_hiddens": 8, "num_heads": 2, "dropout": 0.0}, label="MultiHeadAttention()")


def _mha_forward(**kw):
    torch.manual_seed(0)
    return attention.MultiHeadAttention(8, 2, 0.0, bias=True).eval()(**kw)


register(attention.MultiHeadAttention,
         QKV | {"valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 2, 3, 4)), "rotary": ROTARY},
         lambda: qkv() | {"valid_lens": [1, 4]}, call=_mha_forward, label="MultiHeadAttention.forward")

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_attention_scores_on_mismatched_shapes():
    raises_naming(lambda: attention.attention_scores(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6)), "queries", "keys")


def test_transpose_qkv_with_heads_that_do_not_divide():
    raises_naming(lambda: attention.transpose_qkv(torch.zeros(2, 3, 10), 4), "num_heads")


def test_transpose_output_with_heads_that_do_not_divide():
    raises_naming(lambda: attention.transpose_output(torch.zeros(3, 5, 4), 2), "num_heads")


def test_transpose_qkv_with_no_heads():
    raises_naming(lambda: attention.transpose_qkv(torch.zeros(2, 3, 8), 0), "num_heads")


def test_multi_head_valid_lens_message_shows_the_shapes_given():
    X = torch.zeros(2, 3, 8)
    message = raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, X, torch.tensor([1, 2, 3])), "valid_lens")
    assert "must have shape (2,) or (2, 3)" in message  # batch 2, not batch × heads = 4


def test_huge_multi_head_layer_is_refused_before_allocating():
    raises_naming(lambda: pekit.MultiHeadAttention(10**5, 1, 0.0), "num_hiddens")


@pytest.mark.parametrize("valid_lens", ["ab", {"a": 1}, ["1", "2"], [10**400, 1]], ids=["string", "dict", "strings",
                                                                                       "huge"])
def test_valid_lens_in_forms_that_are_not_lengths(valid_lens):
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(2, 3, 4), valid_lens), "valid_lens")


def test_valid_lens_longer_than_the_keys_masks_nothing():
    X = torch.randn(2, 3, 4)
    assert torch.equal(pekit.masked_softmax(X, [2**64, 2]), pekit.masked_softmax(X, [4, 2]))


def test_valid_lens_that_are_nearly_whole_are_not_rounded():
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(2, 3, 4), [2.0000001, 3.0]), "valid_lens")


@pytest.mark.parametrize("dtype", [torch.int64, torch.float64])
def test_multi_head_attention_on_other_dtypes_is_refused_by_name(dtype):
    X = torch.zeros(2, 3, 8, dtype=dtype)
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, X), "queries")


def test_dot_product_attention_on_integers_is_refused_by_name():
    X = torch.zeros(2, 3, 8, dtype=torch.int64)
    raises_naming(lambda: pekit.DotProductAttention(0.0)(X, X, X), "queries")


def test_dot_product_attention_on_float64_computes_in_float64():
    q, k, v = (torch.randn(2, 3, 8, dtype=torch.float64) for _ in range(3))
    weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(8), dim=-1)
    assert torch.allclose(pekit.DotProductAttention(0.0)(q, k, v), weights @ v, atol=1e-12, rtol=0)


def test_a_flag_given_as_text_is_refused():
    # bool("False") is True: a string flag would silently turn causal masking on
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(1, 2, 2), causal="False"), "causal")


def test_a_bias_flag_given_as_text_is_refused():
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0, bias="False"), "bias")


def test_meta_tensors_are_refused():
    raises_naming(lambda: pekit.masked_softmax(torch.empty(2, 3, 4, device="meta")), "X")


def test_a_mismatched_input_is_named_not_the_weight_behind_it():
    X = torch.zeros(2, 3, 8)
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, torch.zeros(2, 3, 9)), "values")


def test_the_size_of_a_huge_input_projection_is_named():
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0, key_size=10**12), "key_size")


def test_a_rotary_that_changes_the_dtype_is_named():
    X = torch.zeros(2, 3, 8)
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, X, rotary=lambda x: x.double()), "rotary")


@pytest.mark.parametrize("where", ["keys", "values"])
def test_a_nan_in_a_masked_key_changes_neither_path(where):
    """A NaN or inf in a key (or its value) past the valid length has weight 0 in both paths of
    multi_head_attention: the explicit weights and the fused kernel agree with the clean input."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 4, generator=g) for _ in range(3))
    k, v = torch.cat((k, torch.randn(2, 2, 4, generator=g)), 1), torch.cat((v, torch.randn(2, 2, 4, generator=g)), 1)
    W = [torch.eye(4) for _ in range(4)]
    hostile = {"keys": k.clone(), "values": v.clone()}
    hostile[where][0, 4] = float("nan")
    hostile[where][0, 3, 0] = float("inf")
    clean = pekit.multi_head_attention(q, k, v, *W, num_heads=2, valid_lens=[3, 5])[0]
    for need_weights in (True, False):
        out = pekit.multi_head_attention(q, hostile["keys"], hostile["values"], *W, num_heads=2, valid_lens=[3, 5],
                                         need_weights=need_weights)[0]
        torch.testing.assert_close(out, clean)
    out = pekit.dot_product_attention(q, hostile["keys"], hostile["values"], [3, 5])[0]
    torch.testing.assert_close(out, pekit.dot_product_attention(q, k, v, [3, 5])[0])


def test_a_nan_value_a_query_sees_still_shows():
    q, k, v = torch.ones(1, 2, 4), torch.ones(1, 3, 4), torch.ones(1, 3, 4)
    v[0, 0, 1] = float("nan")
    out = pekit.dot_product_attention(q, k, v, [2])[0]
    assert out[0, :, 1].isnan().all() and torch.isfinite(out[0, :, [0, 2, 3]]).all()
