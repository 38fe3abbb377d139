"""pekit.attention against a naive loop, torch.nn.MultiheadAttention and the chapter's example."""

import math

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from pekit import (
    DotProductAttention,
    MultiHeadAttention,
    attention_scores,
    dot_product_attention,
    masked_softmax,
    sinusoidal_encoding,
    transpose_output,
    transpose_qkv,
)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def naive_masked_softmax(X, valid_lens):
    """Row-by-row softmax over the first valid_len keys, zeros elsewhere (float64)."""
    batch, queries, keys = X.shape
    out = torch.zeros_like(X, dtype=torch.float64)
    for b in range(batch):
        for q in range(queries):
            n = valid_lens[b] if valid_lens.dim() == 1 else valid_lens[b, q]
            n = min(int(n), keys)
            if n == 0:
                continue
            row = [math.exp(float(x)) for x in X[b, q, :n]]
            total = sum(row)
            for k in range(n):
                out[b, q, k] = row[k] / total
    return out


@pytest.mark.parametrize(
    "valid_lens",
    [torch.tensor([3, 2]), torch.tensor([0, 4]), torch.tensor([[1, 2, 3], [4, 0, 2]]), torch.tensor([9, 1])],
)
def test_masked_softmax_matches_naive_loop(valid_lens):
    X = torch.randn(2, 3, 4, generator=gen(1))
    W = masked_softmax(X, valid_lens)
    assert_close(W.double(), naive_masked_softmax(X, valid_lens), atol=1e-6, rtol=0)
    assert not torch.isnan(W).any()


def test_masked_keys_get_exactly_zero_and_zero_length_rows_are_zero():
    X = torch.randn(2, 2, 5, generator=gen(2)) * 50
    W = masked_softmax(X, torch.tensor([0, 3]))
    assert torch.equal(W[0], torch.zeros(2, 5))
    assert torch.equal(W[1, :, 3:], torch.zeros(2, 2))
    assert_close(W[1].sum(-1), torch.ones(2))


def test_zero_length_rows_have_no_nan_gradient():
    X = torch.randn(2, 2, 4, generator=gen(3), requires_grad=True)
    masked_softmax(X, torch.tensor([0, 2])).sum().backward()
    assert torch.isfinite(X.grad).all()


def test_masked_softmax_without_lengths_is_softmax():
    X = torch.randn(2, 3, 4, generator=gen(4))
    assert_close(masked_softmax(X), torch.softmax(X, dim=-1))


def test_integral_float_lengths_are_accepted():
    X = torch.randn(2, 3, 4, generator=gen(5))
    assert_close(masked_softmax(X, torch.tensor([3.0, 2.0])), masked_softmax(X, torch.tensor([3, 2])))


@pytest.mark.parametrize(
    "valid_lens, match",
    [
        (torch.tensor([-1, 2]), ">= 0"),
        (torch.tensor([1.5, 2.0]), "whole numbers"),
        (torch.tensor([float("nan"), 2.0]), "whole numbers"),
        (torch.tensor([True, False]), "whole numbers"),
        (torch.tensor([1, 2, 3]), "shape"),
        (torch.tensor([[1, 2]]), "shape"),
        (torch.ones(2, 3, 1, dtype=torch.long), "shape"),
    ],
)
def test_bad_valid_lens_raise(valid_lens, match):
    with pytest.raises(ValueError, match="valid_lens") as err:
        masked_softmax(torch.zeros(2, 3, 4), valid_lens)
    assert match in str(err.value)


def test_masked_softmax_needs_3d_input():
    with pytest.raises(ValueError, match="X must"):
        masked_softmax(torch.zeros(3, 4), torch.tensor([1, 2, 3]))


def test_dot_product_attention_matches_formula():
    q, k, v = (torch.randn(2, 3, 8, generator=gen(6)), torch.randn(2, 5, 8, generator=gen(7)),
               torch.randn(2, 5, 4, generator=gen(8)))
    out, w = dot_product_attention(q, k, v, torch.tensor([5, 2]))
    scores = q @ k.transpose(1, 2) / math.sqrt(8)
    assert_close(attention_scores(q, k), scores)
    ref_w = naive_masked_softmax(scores, torch.tensor([5, 2])).float()
    assert_close(w, ref_w, atol=1e-6, rtol=0)
    assert_close(out, ref_w @ v, atol=1e-5, rtol=0)
    module = DotProductAttention(0.0)
    assert_close(module(q, k, v, torch.tensor([5, 2])), out)
    assert_close(module.attention_weights, w)


def test_transpose_round_trip():
    X = torch.randn(2, 4, 12, generator=gen(9))
    H = transpose_qkv(X, 3)
    assert H.shape == (6, 4, 4)
    assert torch.equal(transpose_output(H, 3), X)
    assert torch.equal(H[1], X[0, :, 4:8])  # batch 0, head 1


def test_chapter_example_shape():
    """MultiHeadAttention(100, 5, 0.5) on ones(2, 4, 100), valid_lens [3, 2] -> (2, 4, 100)."""
    torch.manual_seed(0)
    attention = MultiHeadAttention(100, 5, 0.5)
    attention.eval()
    X = torch.ones((2, 4, 100))
    out = attention(X, X, X, torch.tensor([3, 2]))
    assert out.shape == (2, 4, 100)
    w = attention.attention_weights
    assert w.shape == (2, 5, 4, 4)
    assert torch.equal(w[0, :, :, 3:], torch.zeros(5, 4, 1))
    assert torch.equal(w[1, :, :, 2:], torch.zeros(5, 4, 2))


@pytest.mark.parametrize("num_heads", [1, 2, 4])
@pytest.mark.parametrize("bias", [False, True])
def test_matches_torch_multihead_attention(num_heads, bias, device):
    torch.manual_seed(10)
    d, batch, n_q, n_k = 16, 3, 5, 7
    ours = MultiHeadAttention(d, num_heads, 0.0, bias=bias).to(device).eval()
    peer = nn.MultiheadAttention(d, num_heads, dropout=0.0, bias=bias, batch_first=True).to(device).eval()
    with torch.no_grad():
        peer.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        peer.out_proj.weight.copy_(ours.W_o.weight)
        if bias:
            peer.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
            peer.out_proj.bias.copy_(ours.W_o.bias)
    q = torch.randn(batch, n_q, d, device=device)
    kv = torch.randn(batch, n_k, d, device=device)
    valid_lens = torch.tensor([7, 3, 1], device=device)
    pad = torch.arange(n_k, device=device)[None, :] >= valid_lens[:, None]  # True = ignore
    out = ours(q, kv, kv, valid_lens)
    ref, ref_w = peer(q, kv, kv, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
    assert_close(out, ref, atol=1e-5, rtol=1e-5)
    assert_close(ours.attention_weights, ref_w, atol=1e-6, rtol=1e-5)


def test_per_query_lengths_match_explicit_mask():
    torch.manual_seed(11)
    m = MultiHeadAttention(8, 2, 0.0).eval()
    X = torch.randn(2, 3, 8)
    lens2d = torch.tensor([[1, 2, 3], [3, 3, 1]])
    out = m(X, X, X, lens2d)
    w = m.attention_weights
    for b in range(2):
        for q in range(3):
            assert torch.equal(w[b, :, q, lens2d[b, q]:], torch.zeros(2, 3 - int(lens2d[b, q])))
    assert out.shape == (2, 3, 8)


def test_state_dict_names_match_the_book():
    m = MultiHeadAttention(12, 3, 0.1)
    assert set(m.state_dict()) == {"W_q.weight", "W_k.weight", "W_v.weight", "W_o.weight"}


def test_self_attention_without_positions_is_permutation_equivariant():
    torch.manual_seed(12)
    m = MultiHeadAttention(16, 4, 0.0).eval()
    X = torch.randn(1, 9, 16)
    perm = torch.randperm(9)
    out, w = m(X, X, X), m.attention_weights
    out_p, w_p = m(X[:, perm], X[:, perm], X[:, perm]), m.attention_weights
    assert_close(out_p, out[:, perm], atol=1e-6, rtol=0)
    assert_close(w_p, w[:, :, perm][:, :, :, perm], atol=1e-6, rtol=0)
    # with positions added, the shuffled sequence is no longer the shuffled output
    P = sinusoidal_encoding(9, 16, device="cpu")[None]
    out_pe = m(X + P, X + P, X + P)
    Xp = X[:, perm] + P
    assert (m(Xp, Xp, Xp) - out_pe[:, perm]).abs().max() > 1e-3


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: MultiHeadAttention(10, 3, 0.1), "num_hiddens=10 is not divisible by num_heads=3"),
        (lambda: MultiHeadAttention(10, 0, 0.1), "num_heads"),
        (lambda: MultiHeadAttention(10, 2, -0.1), "dropout"),
        (lambda: DotProductAttention(2.0), "dropout"),
    ],
)
def test_bad_construction_raises(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_bad_forward_inputs_raise():
    m = MultiHeadAttention(8, 2, 0.0)
    X = torch.zeros(2, 3, 8)
    with pytest.raises(ValueError, match="queries"):
        m(torch.zeros(3, 8), X, X)
    with pytest.raises(ValueError, match="features"):
        m(torch.zeros(2, 3, 6), X, X)
    with pytest.raises(ValueError, match="valid_lens"):
        m(X, X, X, torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="valid_lens"):
        m(X, X, X, torch.tensor([-1, 2]))
