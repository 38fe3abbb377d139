"""pekit.attention without waiting for the device: the path taken on a GPU (no Python read of
tensor values) gives what the CPU's path gives, and on a GPU no call synchronises.

On the CPU a check of the data costs nothing, so pekit keeps a few shortcuts there (the plain
softmax where nothing is masked, ``out`` itself where no value is NaN or inf). The ``sync_free``
fixture takes them away (``pekit._masking._FREE_READS`` empty: the CPU is treated as a GPU), so
the tests below run both paths on the CPU and compare them bit for bit, and check the sync-free
path against the references of tests/test_attention.py (the formula in float64,
``torch.nn.MultiheadAttention`` with the same weights).
"""

from __future__ import annotations

import gc
import math
from contextlib import contextmanager

import pytest
import torch
from torch import nn
from torch.testing import assert_close

import pekit
from pekit import _masking, attention

NAN, INF = float("nan"), float("inf")


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.fixture
def sync_free(monkeypatch):
    """The CPU computes as a GPU does: no read of tensor values decides a path, and a
    ``valid_lens`` tensor is read once and remembered (a fresh registry for the test)."""
    monkeypatch.setattr(_masking, "_FREE_READS", frozenset())
    monkeypatch.setattr(_masking, "_CHECKED", {})


@contextmanager
def sync_free_mode():
    before, checked = _masking._FREE_READS, _masking._CHECKED
    _masking._FREE_READS, _masking._CHECKED = frozenset(), {}
    try:
        yield
    finally:
        _masking._FREE_READS, _masking._CHECKED = before, checked


def same(a, b) -> bool:
    """Equal bit for bit where numbers, NaN at the same places (torch.equal calls NaN unequal)."""
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    nan = torch.isnan(a)
    return (a.shape == b.shape and a.dtype == b.dtype and torch.equal(nan, torch.isnan(b))
            and torch.equal(a[~nan], b[~nan]))


def both_ways(call):
    """``call()`` on the CPU's path and on the sync-free path, the RNG seeded alike (dropout)."""
    torch.manual_seed(123)
    fast = call()
    with sync_free_mode():
        torch.manual_seed(123)
        free = call()
    return fast, free


def qkv(batch=2, n_q=4, n_k=6, d=8, seed=0):
    g = gen(seed)
    return (torch.randn(batch, n_q, d, generator=g), torch.randn(batch, n_k, d, generator=g),
            torch.randn(batch, n_k, d, generator=g))


LENS = {
    "none": None,
    "per sequence": torch.tensor([6, 0]),  # 0: a row with no visible key
    "per query": torch.tensor([[1, 0, 3, 9], [6, 2, 0, 4]]),
    "list": [3, 5],
}


# ---------------------------------------------------------------------------------------------
# masked_softmax


@pytest.mark.parametrize("lens", LENS, ids=str)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("fill", ["none", "-inf", "-inf rows", "nan", "+inf"])
def test_masked_softmax_is_the_same_both_ways(lens, causal, fill):
    X = torch.randn(2, 4, 6, generator=gen(1)) * 3
    if fill == "-inf":
        X[0, 1, [0, 4]] = -INF
        X[1, :, 2] = -INF
    elif fill == "-inf rows":
        X[1, 3] = -INF  # every key masked by its score: a row of zeros
    elif fill in ("nan", "+inf"):
        X[0, 2, 1] = NAN if fill == "nan" else INF
    fast, free = both_ways(lambda: pekit.masked_softmax(X, LENS[lens], causal=causal))
    assert same(fast, free)
    if fill != "nan" and fill != "+inf":
        assert not torch.isnan(free).any()
        if fill == "-inf rows":
            assert torch.equal(free[1, 3], torch.zeros(6))


def test_masked_softmax_sync_free_matches_the_formula(sync_free):
    X = torch.randn(2, 3, 5, generator=gen(2), dtype=torch.float64)
    X[0, 1, 2] = -INF
    lens = torch.tensor([[5, 0, 2], [3, 4, 1]])
    W = pekit.masked_softmax(X, lens)
    for b in range(2):
        for q in range(3):
            n = int(lens[b, q])
            row = [math.exp(float(x)) if x != -INF else 0.0 for x in X[b, q, :n]]
            expect = [r / sum(row) for r in row] + [0.0] * (5 - n) if n else [0.0] * 5
            assert_close(W[b, q], torch.tensor(expect, dtype=torch.float64), atol=1e-12, rtol=0)


def test_masked_softmax_gradients_are_the_same_both_ways():
    X0 = torch.randn(2, 3, 5, generator=gen(3))
    X0[1, 0, 1] = -INF
    upstream = torch.randn(2, 3, 5, generator=gen(4))

    def grad(lens, causal):
        def call():
            X = X0.clone().requires_grad_()
            (pekit.masked_softmax(X, lens, causal=causal) * upstream).sum().backward()
            return X.grad
        return call

    for lens, causal in ((None, False), (torch.tensor([0, 3]), False), (None, True)):
        fast, free = both_ways(grad(lens, causal))
        assert same(fast, free) and torch.isfinite(free).all()
    clean = X0.clone()
    clean[1, 0, 1] = 0.5
    fast, free = both_ways(lambda: torch.autograd.grad((pekit.masked_softmax(clean.requires_grad_()) * upstream).sum(),
                                                       clean)[0])
    assert same(fast, free)  # the plain softmax's gradient (nothing masked), bit for bit


# ---------------------------------------------------------------------------------------------
# dot_product_attention and DotProductAttention


def poisoned_values(v, where):
    v = v.clone()
    if where in ("masked", "both"):
        v[1, 5, 0] = NAN  # key 5 of sequence 1: past its valid length 3 (lens "list") / masked below
        v[1, 4, 2] = INF
    if where in ("visible", "both"):
        v[0, 0, 1] = NAN  # key 0: every query sees it
        v[0, 1, 3] = -INF
    return v


@pytest.mark.parametrize("lens", LENS, ids=str)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("values", ["finite", "masked", "visible", "both"])
@pytest.mark.parametrize("bias", [False, True])
def test_dot_product_attention_is_the_same_both_ways(lens, causal, values, bias):
    q, k, v = qkv()
    v = poisoned_values(v, values)
    score_bias = None
    if bias:
        score_bias = torch.randn(4, 6, generator=gen(5))
        score_bias[:, 5] = -INF  # masks key 5 for every query
    fast, free = both_ways(lambda: pekit.dot_product_attention(q, k, v, LENS[lens], causal=causal,
                                                               score_bias=score_bias))
    assert same(fast, free)


def test_dropout_in_training_is_the_same_both_ways():
    q, k, v = qkv()
    fast, free = both_ways(lambda: pekit.dot_product_attention(q, k, v, [3, 5], dropout=0.3, training=True))
    assert same(fast, free)
    module = pekit.DotProductAttention(0.3).train()
    fast, free = both_ways(lambda: (module(q, k, v, torch.tensor([2, 6])), module.attention_weights))
    assert same(fast, free)


def test_masked_non_finite_values_add_nothing_and_seen_ones_show(sync_free):
    q, k, v = qkv()
    lens = [6, 3]
    clean, _ = pekit.dot_product_attention(q, k, v, lens)
    out, w = pekit.dot_product_attention(q, k, poisoned_values(v, "masked"), lens)
    assert torch.equal(out, clean)  # keys 4, 5 of sequence 1 are past its length 3
    out, w = pekit.dot_product_attention(q, k, poisoned_values(v, "visible"), lens)
    assert out[0, :, [1, 3]].isnan().all() and torch.equal(out[0][:, [0, 2, 4, 5, 6, 7]], clean[0][:, [0, 2, 4, 5, 6, 7]])
    assert torch.equal(out[1], clean[1])


def test_sync_free_dot_product_attention_matches_the_formula(sync_free):
    q, k, v = (t.double() for t in qkv())
    lens = torch.tensor([[6, 0, 2, 1], [3, 3, 6, 5]])
    out, w = pekit.dot_product_attention(q, k, v, lens)
    scores = q @ k.transpose(1, 2) / math.sqrt(8)
    keep = torch.arange(6) < lens[..., None]
    ref_w = torch.softmax(scores.masked_fill(~keep, -INF), -1).nan_to_num(0.0)
    assert_close(w, ref_w, atol=1e-12, rtol=0)
    assert_close(out, ref_w @ v, atol=1e-12, rtol=0)


# ---------------------------------------------------------------------------------------------
# multi_head_attention and MultiHeadAttention, both paths (need_weights True and False)


def mha_args(seed=0, n_q=4, n_k=6):
    q, k, v = qkv(n_q=n_q, n_k=n_k, seed=seed)
    W = [torch.randn(8, 8, generator=gen(seed + 10 + i)) * 0.3 for i in range(4)]
    return q, k, v, W


@pytest.mark.parametrize("lens", LENS, ids=str)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("bias", [False, True])
def test_multi_head_attention_is_the_same_both_ways_on_finite_input(lens, causal, need_weights, bias):
    q, k, v, W = mha_args()
    score_bias = None
    if bias:
        score_bias = torch.randn(2, 4, 6, generator=gen(6))
        score_bias[1, :, 0] = -INF
    fast, free = both_ways(lambda: pekit.multi_head_attention(q, k, v, *W, num_heads=2, valid_lens=LENS[lens],
                                                              causal=causal, score_bias=score_bias,
                                                              need_weights=need_weights))
    assert same(fast, free)


@pytest.mark.parametrize("lens", LENS, ids=str)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("where", ["keys", "values"])
@pytest.mark.parametrize("n_k", [4, 6])  # 4: causal on a square, the kernel's own causal mask
def test_multi_head_attention_is_the_same_both_ways_with_nan_and_inf(lens, causal, need_weights, where, n_k):
    q, k, v, W = mha_args(n_k=n_k)
    hostile = {"keys": k.clone(), "values": v.clone()}
    hostile[where][1, n_k - 1] = NAN  # the last key of sequence 1
    hostile[where][0, 2, 3] = INF
    lens_given = LENS[lens]
    if isinstance(lens_given, torch.Tensor):
        lens_given = lens_given.clamp(max=n_k)
    fast, free = both_ways(lambda: pekit.multi_head_attention(q, hostile["keys"], hostile["values"], *W, num_heads=2,
                                                              valid_lens=lens_given, causal=causal,
                                                              need_weights=need_weights))
    assert same(fast, free)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("where", ["keys", "values"])
def test_nan_in_masked_keys_stays_out_and_seen_ones_show(sync_free, need_weights, where):
    """Lengths [6, 3]: keys 3.. of sequence 1 are masked; causal on a square masks the future."""
    q, k, v, W = mha_args()
    for lens, causal, n_k, masked, seen_by in (([6, 3], False, 6, (1, 4), None), (None, True, 4, (0, 3), 3),
                                               ([6, 3], False, 6, (0, 1), "all")):
        kk, vv = k[:, :n_k], v[:, :n_k]
        hostile = {"keys": kk.clone(), "values": vv.clone()}
        hostile[where][masked] = NAN
        qq = q[:, :n_k] if causal else q
        clean = pekit.multi_head_attention(qq, kk, vv, *W, num_heads=2, valid_lens=lens, causal=causal,
                                           need_weights=need_weights)[0]
        out = pekit.multi_head_attention(qq, hostile["keys"], hostile["values"], *W, num_heads=2, valid_lens=lens,
                                         causal=causal, need_weights=need_weights)[0]
        b = masked[0]
        if seen_by is None:  # masked for every query: nothing changes
            assert_close(out, clean)
        elif seen_by == "all":  # key 1 of sequence 0 is seen by every query
            assert out[b].isnan().all()
            assert_close(out[1 - b], clean[1 - b])
        else:  # causal: only queries from seen_by on see key 3
            assert_close(out[b, :seen_by], clean[b, :seen_by])
            assert out[b, seen_by:].isnan().all()
            assert_close(out[1 - b], clean[1 - b])


def test_fused_causal_on_a_square_keeps_a_future_nan_out():
    """The kernel's own causal mask multiplies 0 by a NaN in a future value; pekit keeps it out
    on every path (this leaked before the fused path sanitised keys and values)."""
    q, k, v, W = mha_args(n_k=4)
    v = v.clone()
    v[:, 3] = NAN
    for need_weights in (True, False):
        out = pekit.multi_head_attention(q, k, v, *W, num_heads=2, causal=True, need_weights=need_weights)[0]
        assert torch.isfinite(out[:, :3]).all() and out[:, 3].isnan().all()


@pytest.mark.parametrize("num_heads", [1, 2, 4])
@pytest.mark.parametrize("need_weights", [True, False])
def test_sync_free_matches_torch_multihead_attention(sync_free, num_heads, need_weights):
    torch.manual_seed(10)
    d, batch, n_q, n_k = 16, 3, 5, 7
    ours = pekit.MultiHeadAttention(d, num_heads, 0.0, bias=True).eval()
    peer = nn.MultiheadAttention(d, num_heads, dropout=0.0, bias=True, batch_first=True).eval()
    with torch.no_grad():
        peer.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        peer.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
        peer.out_proj.weight.copy_(ours.W_o.weight)
        peer.out_proj.bias.copy_(ours.W_o.bias)
    q, kv = torch.randn(batch, n_q, d), torch.randn(batch, n_k, d)
    valid_lens = torch.tensor([7, 3, 1])
    pad = torch.arange(n_k)[None, :] >= valid_lens[:, None]
    ref, ref_w = peer(q, kv, kv, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
    biases = (ours.W_q.bias, ours.W_k.bias, ours.W_v.bias, ours.W_o.bias)
    out, w = attention.multi_head_attention(q, kv, kv, ours.W_q.weight, ours.W_k.weight, ours.W_v.weight,
                                            ours.W_o.weight, num_heads=num_heads, biases=biases,
                                            valid_lens=valid_lens, need_weights=need_weights)
    assert_close(out, ref, atol=1e-5, rtol=1e-5)
    if need_weights:
        assert_close(w, ref_w, atol=1e-6, rtol=1e-5)
    assert_close(ours(q, kv, kv, valid_lens), ref, atol=1e-5, rtol=1e-5)


def test_module_forwards_are_the_same_both_ways():
    torch.manual_seed(0)
    m = pekit.MultiHeadAttention(8, 2, 0.1, bias=True)
    X = torch.randn(2, 5, 8, generator=gen(7))
    bias = pekit.alibi_bias(5, 5, 2, causal=True)
    for mode in ("train", "eval"):
        getattr(m, mode)()
        for kwargs in ({}, {"valid_lens": torch.tensor([5, 0])}, {"causal": True}, {"score_bias": bias}):
            fast, free = both_ways(lambda: (m(X, X, X, **kwargs), m.attention_weights))
            assert same(fast, free), (mode, kwargs)


# ---------------------------------------------------------------------------------------------
# No value read from Python on the sync-free path, and valid_lens read once


@contextmanager
def no_value_reads(monkeypatch):
    """Every way Python reads a tensor's values raises (the CPU's stand-in for a GPU's sync check)."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("a tensor's values were read from Python")

    with monkeypatch.context() as m:
        for name in ("__bool__", "item", "tolist", "__int__", "__float__", "__index__", "numpy"):
            m.setattr(torch.Tensor, name, refuse)
        yield


def public_calls(lens1, lens2, bias, X, q, k, v, W, modules):
    """Every public attention call on a normal path (the CUDA test below runs the same list)."""
    mha, dpa = modules
    scores = X.clone()
    scores[:, :, -1] = -INF
    return {
        "masked_softmax": lambda: pekit.masked_softmax(X),
        "masked_softmax lens": lambda: pekit.masked_softmax(X, lens1),
        "masked_softmax per query, causal": lambda: pekit.masked_softmax(X, lens2, causal=True),
        "masked_softmax -inf": lambda: pekit.masked_softmax(scores),
        "dot_product_attention": lambda: pekit.dot_product_attention(q, k, v),
        "dot_product_attention lens, bias": lambda: pekit.dot_product_attention(q, k, v, lens1, score_bias=bias[0]),
        "dot_product_attention causal, dropout": lambda: pekit.dot_product_attention(q, k, v, lens2, causal=True,
                                                                                     dropout=0.2, training=True),
        "DotProductAttention": lambda: dpa(q, k, v, lens1),
        "multi_head_attention": lambda: pekit.multi_head_attention(q, k, v, *W, num_heads=2),
        "multi_head_attention fused": lambda: pekit.multi_head_attention(q, k, v, *W, num_heads=2,
                                                                         need_weights=False),
        **{f"multi_head_attention {kind}{' fused' if not nw else ''}": (
            lambda kw=kw, nw=nw: pekit.multi_head_attention(q, k, v, *W, num_heads=2, need_weights=nw, **kw))
           for kind, kw in (("lens", {"valid_lens": lens1}), ("per query lens", {"valid_lens": lens2}),
                            ("causal", {"causal": True}), ("bias", {"score_bias": bias}),
                            ("all", {"valid_lens": lens1, "causal": True, "score_bias": bias}))
           for nw in (True, False)},
        "MultiHeadAttention": lambda: mha(q, k, v),
        "MultiHeadAttention lens": lambda: mha(q, k, v, lens1),
        "MultiHeadAttention causal, bias": lambda: mha(q, k, v, causal=True, score_bias=bias),
        "MultiHeadAttention self, causal square": lambda: mha(k, k, k, causal=True),
    }


def inputs(device):
    torch.manual_seed(1)
    q, k, v = (t.to(device) for t in qkv())
    v[1, 5] = NAN  # a NaN value past the length of sequence 1 (never seen)
    W = [torch.randn(8, 8, device=device) * 0.3 for _ in range(4)]
    bias = pekit.alibi_bias(4, 6, 2, causal=True, device=device)[None].expand(2, 2, 4, 6)
    X = torch.randn(2, 4, 6, device=device)
    lens1 = torch.tensor([6, 3], device=device)
    lens2 = torch.tensor([[1, 0, 3, 6], [5, 2, 0, 3]], device=device)
    mha = pekit.MultiHeadAttention(8, 2, 0.1, bias=True).to(device).train()
    dpa = pekit.DotProductAttention(0.1).to(device).train()
    return lens1, lens2, bias, X, q, k, v, W, (mha, dpa)


def test_no_value_is_read_on_the_sync_free_path(sync_free, monkeypatch):
    calls = public_calls(*inputs("cpu"))
    for call in calls.values():
        call()  # the valid_lens tensors are read here, once
    for name, call in calls.items():
        with no_value_reads(monkeypatch):
            try:
                call()
            except AssertionError as err:
                pytest.fail(f"{name}: {err}")


def test_valid_lens_on_a_device_are_read_once_and_again_after_a_change(sync_free, monkeypatch):
    reads = []
    check = _masking._check_length_values
    monkeypatch.setattr(_masking, "_check_length_values", lambda lens, name: (reads.append(name), check(lens, name)))
    m = pekit.MultiHeadAttention(8, 2, 0.0).eval()
    X = torch.randn(2, 3, 8)
    lens = torch.tensor([3, 1])
    for _ in range(3):  # three layers sharing one valid_lens
        m(X, X, X, lens)
    assert len(reads) == 1
    lens[1] = -1  # changed in place: its version moves, so it is checked again
    with pytest.raises(ValueError, match="valid_lens must be >= 0"):
        m(X, X, X, lens)
    with pytest.raises(ValueError, match="valid_lens must be >= 0"):
        m(X, X, X, lens)  # a tensor that failed is not remembered
    lens[1] = 2
    m(X, X, X, lens)
    m(X, X, X, lens)
    assert len(reads) == 4
    for bad, match in ((torch.tensor([1.5, 2.0]), "whole numbers"), (torch.tensor([NAN, 2.0]), "whole numbers"),
                       (torch.tensor([-1.0, 2.0]), ">= 0"), (torch.tensor([[1, 2, 3], [1, -2, 3]]), ">= 0")):
        with pytest.raises(ValueError, match="valid_lens") as err:
            m(X, X, X, bad)
        assert match in str(err.value)
    assert torch.equal(pekit.masked_softmax(X[:, :, :4], torch.tensor([2, 0], dtype=torch.uint8)),
                       pekit.masked_softmax(X[:, :, :4], [2, 0]))  # unsigned: nothing to read


def test_the_registry_forgets_dead_tensors_and_partial_checks(sync_free):
    X = torch.randn(2, 3, 4)
    lens = torch.tensor([3, 1])
    pekit.masked_softmax(X, lens)
    assert len(_masking._CHECKED) == 1
    del lens
    gc.collect()
    assert not _masking._CHECKED
    # (batch,) lengths for no queries look at no value: accepted as before, but not remembered
    negative = torch.tensor([-1, 2])
    assert pekit.masked_softmax(torch.zeros(2, 0, 4), negative).shape == (2, 0, 4)
    with pytest.raises(ValueError, match=">= 0"):
        pekit.masked_softmax(X, negative)
    with torch.inference_mode():  # no version counter: checked on every call
        inference_lens = torch.tensor([1, 2])
        pekit.masked_softmax(X, inference_lens)
    assert not _masking._CHECKED
    with pytest.raises(ValueError, match=">= 0"):
        with torch.inference_mode():
            pekit.masked_softmax(X, torch.tensor([1, -2]))


def test_partial_checks_behave_as_on_the_cpu_path():
    negative = torch.tensor([-1, 2])
    assert pekit.masked_softmax(torch.zeros(2, 0, 4), negative).shape == (2, 0, 4)
    with pytest.raises(ValueError, match=">= 0"):
        pekit.masked_softmax(torch.zeros(2, 3, 4), negative)


# ---------------------------------------------------------------------------------------------
# On a GPU

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)")


@cuda
def test_no_call_synchronises_on_cuda():
    """Every public attention call, inputs and valid_lens already on the GPU, after a warm-up,
    runs under ``torch.cuda.set_sync_debug_mode("error")`` without a synchronisation.

    Covered (see ``public_calls``): masked_softmax without lengths, with (batch,) lengths, with
    per-query lengths and causal, with -inf scores; dot_product_attention plain, with lengths and
    a score bias, causal with dropout in training; DotProductAttention.forward with lengths;
    multi_head_attention with need_weights True and False, each plain, with (batch,) and
    per-query lengths, causal, an ALiBi score bias, and all of these together;
    MultiHeadAttention.forward (training, dropout 0.1) plain, with lengths, causal with a bias,
    and causal self-attention on a square (the kernel's own causal mask). A NaN sits in a masked
    value throughout.

    Not covered, by design: a ``valid_lens`` tensor the call has not seen before is read once
    (one sync) for the ValueError the contract asks of negative or fractional lengths; the warm-up
    does that read here. A list (or a CPU tensor) as valid_lens is copied to the GPU, which waits.
    """
    calls = public_calls(*inputs("cuda"))
    for call in calls.values():
        call()
    torch.cuda.synchronize()
    before = torch.cuda.get_sync_debug_mode()
    failed = {}
    try:
        torch.cuda.set_sync_debug_mode("error")
        for name, call in calls.items():
            try:
                call()
            except RuntimeError as err:
                failed[name] = str(err).splitlines()[0]
    finally:
        torch.cuda.set_sync_debug_mode(before)
    torch.cuda.synchronize()
    assert not failed, failed


@cuda
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("where", ["keys", "values"])
def test_cuda_gives_the_cpu_results(need_weights, where):
    """The GPU's path (no reads) against the CPU's: close, with NaN where the CPU has NaN, for
    masked and seen NaN in keys or values, lengths, causal, on a square and not."""
    for lens, causal, n_k in (([6, 3], False, 6), (None, True, 4), ([[1, 0, 3, 4], [4, 2, 0, 3]], True, 4)):
        q, k, v, W = mha_args(n_k=n_k)
        hostile = {"keys": k.clone(), "values": v.clone()}
        hostile[where][1, n_k - 1] = NAN
        args = (q, hostile["keys"], hostile["values"], *W)
        cpu = pekit.multi_head_attention(*args, num_heads=2, valid_lens=None if lens is None else torch.tensor(lens),
                                         causal=causal, need_weights=need_weights)
        gpu = pekit.multi_head_attention(*(t.cuda() for t in args), num_heads=2, causal=causal,
                                         valid_lens=None if lens is None else torch.tensor(lens, device="cuda"),
                                         need_weights=need_weights)
        assert_close(gpu[0].cpu(), cpu[0], atol=1e-5, rtol=1e-5, equal_nan=True)
        if need_weights:
            assert_close(gpu[1].cpu(), cpu[1], atol=1e-6, rtol=1e-5, equal_nan=True)
