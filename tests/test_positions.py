"""Position schemes against their references: the ALiBi authors' get_slopes, T5's
_relative_position_bucket (Hugging Face transformers), pekit's sinusoidal table and the book's
PositionalEncoding, apply_rope, and naive loops for every score bias."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.testing import assert_close

import pekit
from pekit import positions as P


# --- references, transcribed from their sources -----------------------------------------------

def ref_get_slopes(n):
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py, ``get_slopes``."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + ref_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]


def ref_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """huggingface/transformers, models/t5/modeling_t5.py, ``T5Attention._relative_position_bucket``."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def ref_compute_buckets(query_length, key_length, **kwargs):
    """T5Attention.compute_bias: ``memory_position - context_position`` bucketed."""
    context_position = torch.arange(query_length, dtype=torch.long)[:, None]
    memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
    return ref_relative_position_bucket(memory_position - context_position, **kwargs)


# --- ALiBi ---------------------------------------------------------------------------------------

def test_alibi_slopes_for_8_heads_are_powers_of_one_half():
    assert P.alibi_slopes(8, dtype=torch.float64).tolist() == [2.0**-k for k in range(1, 9)]
    assert P.alibi_slopes(8, dtype=torch.float64).tolist() == ref_get_slopes(8)


def test_alibi_slopes_for_6_heads_follow_get_slopes():
    # the 4-head slopes 2^-2 .. 2^-8, then every other 8-head slope: 2^-1, 2^-3
    expected = [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]
    assert P.alibi_slopes(6, dtype=torch.float64).tolist() == expected == ref_get_slopes(6)


@settings(deadline=None)
@given(st.integers(1, 256))
def test_alibi_slopes_match_the_reference_for_any_head_count(n):
    assert_close(P.alibi_slopes(n, dtype=torch.float64), torch.tensor(ref_get_slopes(n), dtype=torch.float64),
                 rtol=0, atol=0)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("q, k, h", [(5, 5, 4), (3, 7, 6), (1, 1, 1), (8, 8, 8)])
def test_alibi_bias_against_a_loop(q, k, h, causal, device):
    bias = P.alibi_bias(q, k, h, causal=causal, device=device, dtype=torch.float64).cpu()
    slopes = ref_get_slopes(h)
    for hh in range(h):
        for i in range(q):
            pos = i + k - q  # queries aligned at the end
            for j in range(k):
                want = float("-inf") if causal and j > pos else -slopes[hh] * abs(pos - j)
                assert bias[hh, i, j].item() == want


def test_alibi_scheme_adds_its_bias_to_every_head():
    scheme = P.position_scheme("alibi", 32, 4)
    assert_close(scheme.bias(6, 6), P.alibi_bias(6, 6, 4))
    decoder = P.position_scheme("alibi", 32, 4, causal=True)
    later = torch.ones(6, 6, dtype=torch.bool).triu(1)  # keys after the query
    assert torch.equal(torch.isinf(decoder.bias(6, 6)), later.expand(4, 6, 6))


# --- T5 ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 20), (8, 64), (64, 256)])
@pytest.mark.parametrize("q, k", [(300, 300), (1, 300), (37, 5)])
def test_t5_buckets_match_the_reference(q, k, bidirectional, num_buckets, max_distance):
    ours = P.t5_relative_buckets(q, k, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance,
                                 device="cpu")
    if q == k:
        ref = ref_compute_buckets(q, k, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
        assert torch.equal(ours, ref)
    # with more keys than queries the queries are the last ones; the bucket depends on key - query only
    rel = torch.arange(k)[None, :] - (torch.arange(q)[:, None] + k - q)
    ref = ref_relative_position_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets,
                                       max_distance=max_distance)
    assert torch.equal(ours, ref)


def test_t5_bucket_values_by_hand():
    b = P.t5_relative_buckets(1, 400, device="cpu")[0]  # query at 399: key - query = j - 399
    rel = lambda d: int(b[399 + d]) if d <= 0 else None  # noqa: E731
    # bidirectional, 32 buckets: keys before the query use 0..15, distances 0..7 exact
    assert [rel(-d) for d in range(8)] == list(range(8))
    assert rel(-8) == 8 and rel(-127) == 15 and rel(-128) == 15 and rel(-399) == 15
    after = P.t5_relative_buckets(400, 400, device="cpu")[0]  # query 0: keys after it, 16..31
    assert int(after[0]) == 0 and int(after[1]) == 17 and int(after[7]) == 23 and int(after[300]) == 31
    causal = P.t5_relative_buckets(40, 40, bidirectional=False, device="cpu")
    assert int(causal[10, 20]) == 0 and int(causal[20, 10]) == 10 and int(causal[39, 0]) == 22
    # 22 = 16 + floor(log(39 / 16) / log(128 / 16) * 16) = 16 + floor(6.86)


def test_t5_scheme_bias_is_its_table_at_the_buckets():
    scheme = P.position_scheme("t5", 32, 4)
    torch.nn.init.normal_(scheme.relative_attention_bias.weight)
    table = scheme.relative_attention_bias.weight.detach()
    bias = scheme.bias(9, 9).detach()
    buckets = ref_compute_buckets(9, 9)
    for h in range(4):
        for i in range(9):
            for j in range(9):
                assert bias[h, i, j] == table[buckets[i, j], h]
    causal = P.position_scheme("t5", 32, 4, causal=True)
    torch.nn.init.normal_(causal.relative_attention_bias.weight)
    want = causal.relative_attention_bias.weight.detach()[ref_compute_buckets(9, 9, bidirectional=False)].permute(2, 0, 1)
    assert torch.equal(causal.bias(9, 9).detach(), want)


# --- sinusoidal, learned, rope --------------------------------------------------------------------

def test_sinusoidal_scheme_is_the_books_positional_encoding():
    X = torch.randn(3, 11, 32, generator=torch.Generator().manual_seed(0))
    scheme = P.position_scheme("sinusoidal", 32, 4)
    book = pekit.PositionalEncoding(32, 0.0).eval()
    assert_close(scheme.embed(X), book(X))
    assert_close(scheme.embed(X) - X, pekit.sinusoidal_encoding(11, 32).expand(3, 11, 32))
    long = torch.zeros(1, 200, 32)  # grows past its first table
    assert_close(scheme.embed(long)[0], pekit.sinusoidal_encoding(200, 32))


def test_learned_scheme_adds_its_rows_and_has_none_past_max_len():
    scheme = P.position_scheme("learned", 16, 2, max_len=8)
    X = torch.randn(2, 5, 16)
    assert_close(scheme.embed(X), X + scheme.table.weight[:5])
    with pytest.raises(ValueError, match="rows for positions 0 to 7 only"):
        scheme.embed(torch.randn(2, 9, 16))
    with pytest.raises(ValueError, match="max_len"):
        P.position_scheme("learned", 16, 2)


def test_rope_scheme_is_apply_rope_per_head():
    scheme = P.position_scheme("rope", 32, 4)
    x = torch.randn(2, 4, 10, 8, dtype=torch.float64)  # (batch, num_heads, steps, head_dim)
    assert_close(scheme.rotary(x), pekit.apply_rope(x))
    # per head, adjacent pairs of the head's 8 columns turn by m * 10000^(-2j/8)
    m, j = 7, 1
    angle = m * 10000 ** (-2 * j / 8)
    c, s = math.cos(angle), math.sin(angle)
    x0, x1 = x[0, 2, m, 2], x[0, 2, m, 3]
    assert_close(scheme.rotary(x)[0, 2, m, 2:4], torch.stack((x0 * c - x1 * s, x0 * s + x1 * c)))


def test_rope_scores_depend_on_the_offset_only():
    scheme = P.position_scheme("rope", 16, 1)
    v = torch.randn(1, 1, 1, 16, dtype=torch.float64).expand(1, 1, 12, 16)
    w = torch.randn(1, 1, 1, 16, dtype=torch.float64).expand(1, 1, 12, 16)
    S = scheme.rotary(v)[0, 0] @ scheme.rotary(w)[0, 0].T  # (12, 12)
    for d in range(-5, 6):
        diag = torch.diagonal(S, offset=d)
        assert_close(diag, diag[:1].expand_as(diag))


def test_schemes_act_where_their_documentation_says():
    X = torch.randn(1, 6, 16)
    for name in P.SCHEMES:
        s = P.position_scheme(name, 16, 2, max_len=6)
        adds = name in ("sinusoidal", "learned")
        assert (not torch.equal(s.embed(X), X)) == adds, name
        assert (s.rotary is not None) == (name == "rope"), name
        assert (s.bias(6, 6) is not None) == (name in ("alibi", "t5")), name


def test_none_changes_nothing():
    s = P.position_scheme("none", 16, 2)
    X = torch.randn(2, 5, 16)
    assert torch.equal(s.embed(X), X) and s.rotary is None and s.bias(5, 5) is None


def test_schemes_follow_the_model_to_its_device(device):
    for name in ("alibi", "t5", "sinusoidal"):
        s = P.position_scheme(name, 16, 2).to(device)
        X = torch.zeros(1, 4, 16, device=device)
        assert s.embed(X).device.type == torch.device(device).type
        b = s.bias(4, 4)
        assert b is None or b.device.type == torch.device(device).type


# --- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: P.position_scheme("rotary", 16, 2), "positions"),
    (lambda: P.position_scheme(None, 16, 2), "positions"),
    (lambda: P.alibi_slopes(0), "num_heads"),
    (lambda: P.alibi_slopes(2.5), "num_heads"),
    (lambda: P.alibi_bias(-1, 3, 2), "num_queries"),
    (lambda: P.alibi_bias(3, 10**9, 2), "num_keys"),
    (lambda: P.t5_relative_buckets(4, 4, num_buckets=1), "num_buckets"),
    (lambda: P.t5_relative_buckets(4, 4, num_buckets=32, max_distance=4), "max_distance"),
    (lambda: P.position_scheme("rope", 12, 4), "per head is"),
    (lambda: P.position_scheme("alibi", 10, 3), "not divisible"),
])
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.booleans())
def test_alibi_and_t5_agree_with_their_references_on_any_sizes(q, k, causal):
    bias = P.alibi_bias(q, k, 4, causal=causal, device="cpu", dtype=torch.float64)
    rel = torch.arange(k)[None, :] - (torch.arange(q)[:, None] + k - q)
    slopes = torch.tensor(ref_get_slopes(4), dtype=torch.float64)
    want = -slopes[:, None, None] * rel.abs()
    if causal:
        want = want.masked_fill(rel > 0, float("-inf"))
    assert torch.equal(bias, want)
    assert torch.equal(P.t5_relative_buckets(q, k, bidirectional=not causal, device="cpu"),
                       ref_relative_position_bucket(rel, bidirectional=not causal))
