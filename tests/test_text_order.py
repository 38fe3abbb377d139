"""Tokenizer, deterministic embeddings, the order experiment and the masking steps."""

import pytest
import torch
from torch.testing import assert_close

from pekit import MultiHeadAttention, masked_softmax, sinusoidal_encoding
from pekit.order import causal_lengths, masking_steps, order_check, padded_batch
from pekit.seeded import book_example, permutation, seeded_attention
from pekit.text import MAX_CHARS, token_embeddings, tokenize


@pytest.mark.parametrize("text, tokens", [
    ("The animal didn't cross.", ["The", "animal", "didn't", "cross", "."]),
    ("", []),
    ("   \n\t ", []),
    ("a,b;c", ["a", ",", "b", ";", "c"]),
    ("<script>alert(1)</script>", ["<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">"]),
    ("hi 🙂!", ["hi", "🙂", "!"]),
    ("x\x00y\x07 z", ["xy", "z"]),  # control characters are dropped
    ("snake_case 42", ["snake_case", "42"]),
])
def test_tokenizer(text, tokens):
    assert tokenize(text).tokens == tokens


def test_long_input_is_cut_with_counts():
    t = tokenize("word " * 500)
    assert len(t.tokens) == 64 and t.dropped == 436 and not t.clipped
    huge = tokenize("a" * (MAX_CHARS + 10))
    assert huge.clipped and huge.tokens == ["a" * MAX_CHARS]
    with pytest.raises(ValueError, match="text"):
        tokenize(None)


def test_embeddings_are_deterministic_per_word_and_seed():
    E = token_embeddings(["the", "cat", "the"], 16, seed=3, device="cpu")
    assert torch.equal(E[0], E[2]) and not torch.equal(E[0], E[1])
    assert torch.equal(E, token_embeddings(["the", "cat", "the"], 16, seed=3, device="cpu"))
    assert not torch.equal(E, token_embeddings(["the", "cat", "the"], 16, seed=4, device="cpu"))
    assert token_embeddings([], 8, device="cpu").shape == (0, 8)


def test_seeded_attention_is_reproducible_and_leaves_global_rng():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a, b = seeded_attention(16, 4, seed=5, device="cpu"), seeded_attention(16, 4, seed=5, device="cpu")
    assert torch.equal(torch.rand(1), before)  # global random state untouched
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    assert not a.training


def test_permutation():
    assert permutation(5, 0).tolist() == [0, 1, 2, 3, 4]
    p = permutation(20, 7)
    assert sorted(p.tolist()) == list(range(20)) and torch.equal(p, permutation(20, 7))


def test_order_is_ignored_without_positions_and_matters_with_them():
    model = seeded_attention(32, 4, seed=1, device="cpu")
    X = token_embeddings(tokenize("dog bites man while the cat sleeps quietly").tokens, 32, seed=1, device="cpu")
    perm = permutation(X.shape[0], 9)
    plain = order_check(model, X, perm, positional=False)
    assert plain.output_gap < 1e-6 and plain.weights_gap < 1e-6
    with_pe = order_check(model, X, perm, positional=True)
    assert with_pe.output_gap > 1e-2 and with_pe.weights_gap > 1e-3
    assert plain.weights.shape == (4, 8, 8)
    with torch.inference_mode():  # the reference: the model on X + P directly
        P = sinusoidal_encoding(8, 32, device="cpu")
        ref = model((X + P)[None], (X + P)[None], (X + P)[None])[0]
    assert_close(with_pe.output, ref)


def test_masking_steps_are_exact():
    X = padded_batch([torch.randn(5, 6, generator=torch.Generator().manual_seed(0)), torch.randn(2, 6)], 5)
    assert X.shape == (2, 5, 6) and torch.equal(X[1, 2:], torch.zeros(3, 6))
    steps = masking_steps(X, torch.tensor([4, 0]))
    assert torch.equal(steps.weights[1], torch.zeros(5, 5))
    assert steps.masked_weight.tolist() == [0.0, 0.0]
    assert steps.row_sums[1].tolist() == [0.0] * 5
    assert_close(steps.row_sums[0], torch.ones(5))
    assert torch.isinf(steps.masked[0, :, 4]).all() and torch.isfinite(steps.masked[0, :, :4]).all()
    assert_close(steps.weights, masked_softmax(steps.scores, torch.tensor([4, 0])))
    causal = causal_lengths([5, 3], 5)
    assert causal.tolist() == [[1, 2, 3, 4, 5], [1, 2, 3, 3, 3]]
    per_query = masking_steps(X, causal)
    assert torch.equal(torch.triu(per_query.weights[0], diagonal=1), torch.zeros(5, 5))
    with pytest.raises(ValueError, match="steps"):
        padded_batch([torch.zeros(6, 2)], 5)


def test_book_example():
    out_shape, w_shape, w0, w1 = book_example()
    assert out_shape == (2, 4, 100) and w_shape == (2, 5, 4, 4)
    assert w0[0] == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0]) and w1[2] == pytest.approx([0.5, 0.5, 0.0, 0.0])
    assert isinstance(MultiHeadAttention(100, 5, 0.5), torch.nn.Module)


def book_reference_masked_softmax(X, valid_lens):
    """The book's masked_softmax as printed: masked scores set to -1e6 row by row, then softmax."""
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    flat = X.reshape(-1, shape[-1]).clone()
    mask = torch.arange(flat.size(1), dtype=torch.float32)[None, :] < valid_lens[:, None]
    flat[~mask] = -1e6
    return torch.softmax(flat.reshape(shape), dim=-1)


@pytest.mark.parametrize("lens", [torch.tensor([0, 3]), torch.tensor([[0, 1, 4], [2, 0, 3]])])
def test_book_convention_against_the_book_and_pekit(lens):
    from pekit import masked_softmax
    from pekit.order import book_masked_softmax

    X = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(3))
    book = book_masked_softmax(X, lens)
    assert_close(book, book_reference_masked_softmax(X, lens))
    ours = masked_softmax(X, lens)
    full = lens if lens.dim() == 2 else lens[:, None].expand(2, 3)
    for b in range(2):
        for q in range(3):
            if full[b, q] == 0:  # the two conventions part ways only here
                assert_close(book[b, q], torch.full((4,), 0.25))
                assert torch.equal(ours[b, q], torch.zeros(4))
            else:
                assert_close(book[b, q], ours[b, q])


def test_shuffled_weights_put_back_and_positional_effect():
    from pekit.order import positional_effect, self_attention

    model = seeded_attention(16, 2, seed=2, device="cpu")
    X = token_embeddings(["a", "b", "c", "d", "e"], 16, seed=1, device="cpu")
    perm = permutation(5, 3)
    plain = order_check(model, X, perm, positional=False)
    assert_close(plain.shuffled_back, plain.weights, atol=1e-6, rtol=0)  # order ignored: the same map
    assert plain.relative_output_gap < 1e-5 and plain.output_scale > 0
    with_p = order_check(model, X, perm, positional=True)
    assert (with_p.shuffled_back - with_p.weights).abs().max() > 1e-3
    change = positional_effect(model, X)
    assert_close(change, self_attention(model, X, positional=True)[1] - self_attention(model, X, positional=False)[1])


# one layer at work: one query step by step, the weights on the CPU, one head's effect of P, the
# masking lab's numbers; each against a float64 loop written from the layer's weights

def _naive_head(model, X, head, *, positional=False, base=10000.0):
    """Head ``head``'s scores, weights and values from W_q, W_k, W_v in float64, a loop per pair."""
    import math

    n, d = X.shape
    hs = model.num_hiddens // model.num_heads
    X = X.double()
    if positional:
        X = X + torch.tensor([[math.sin(p / base ** (j / d)) if j % 2 == 0 else math.cos(p / base ** ((j - 1) / d))
                               for j in range(d)] for p in range(n)], dtype=torch.float64)

    def project(W):
        w = W.weight.detach().double()[head * hs:(head + 1) * hs]
        b = W.bias.detach().double()[head * hs:(head + 1) * hs] if W.bias is not None else torch.zeros(hs, dtype=torch.float64)
        return [[sum(float(X[i, k]) * float(w[c, k]) for k in range(d)) + float(b[c]) for c in range(hs)] for i in range(n)]

    Q, K, V = project(model.W_q), project(model.W_k), project(model.W_v)
    scores = [[sum(Q[i][c] * K[j][c] for c in range(hs)) / math.sqrt(hs) for j in range(n)] for i in range(n)]
    weights = []
    for row in scores:
        top = max(row)
        e = [math.exp(s - top) for s in row]
        weights.append([v / sum(e) for v in e])
    return scores, weights, V


@pytest.mark.parametrize("hidden, heads, head, n, positional", [
    (16, 4, 3, 5, True), (16, 1, 0, 5, False), (8, 8, 7, 3, True), (12, 2, 0, 1, False), (16, 2, 1, 4, False)])
def test_query_trace_against_a_float64_loop(hidden, heads, head, n, positional):
    from pekit.order import query_trace

    model = seeded_attention(hidden, heads, seed=4, device="cpu")
    X = token_embeddings(["a", "b", "a", "c", "d"][:n], hidden, seed=2, device="cpu")
    scores, weights, V = _naive_head(model, X, head, positional=positional)
    hs = hidden // heads
    for query in range(n):
        for columns in (None, 0, 1, 3, hs + 5):
            trace = query_trace(model, X, head=head, query=query, positional=positional, columns=columns)
            shown = hs if columns is None else min(columns, hs)
            s, w, v, out = trace.numbers()
            assert trace.head_size == hs and trace.scores.dtype == torch.float64 and trace.scores.device.type == "cpu"
            assert s == pytest.approx(scores[query], abs=1e-5) and w == pytest.approx(weights[query], abs=1e-6)
            assert len(v) == n and all(a == pytest.approx(row[:shown], abs=1e-5) for a, row in zip(v, V))
            want = [sum(weights[query][j] * V[j][c] for j in range(n)) for c in range(shown)]
            assert out == pytest.approx(want, abs=1e-5) and len(out) == shown
            assert trace.table.shape == (n + 1, shown) and torch.equal(trace.table[-1], trace.output)
            assert abs(sum(w) - 1) < 1e-12
    if n == 1:  # one key: a weight of exactly 1, whatever the score
        assert query_trace(model, X, head=head, query=0, positional=positional).numbers()[1] == (1.0,)


def test_query_trace_of_identical_tokens_ties_them_and_refuses_bad_input():
    from pekit.order import query_trace

    model = seeded_attention(16, 2, seed=1, device="cpu")
    X = token_embeddings(["la", "la", "la"], 16, seed=0, device="cpu")
    w = query_trace(model, X, head=1, query=2, positional=False).numbers()[1]
    assert max(w) - min(w) <= 1e-15 and w[0] == pytest.approx(1 / 3, abs=1e-12)
    for bad, word in [(dict(head=2), "head"), (dict(head=-1), "head"), (dict(query=3), "query"),
                      (dict(columns=-1), "columns"), (dict(positional="yes"), "positional")]:
        with pytest.raises(ValueError, match=word):
            query_trace(model, X, **{"head": 0, "query": 0, "positional": False, **bad})
    with pytest.raises(ValueError, match="query"):
        query_trace(model, X[:0], head=0, query=0, positional=False)
    with pytest.raises(ValueError, match="X"):
        query_trace(model, X.double(), head=0, query=0, positional=False)


def test_the_weights_on_the_cpu_and_one_heads_effect_against_a_float64_loop():
    from pekit.order import head_effect, self_attention_weights

    model = seeded_attention(16, 4, seed=3, device="cpu")
    X = token_embeddings(["dog", "bites", "man", "today"], 16, seed=5, device="cpu")
    for positional in (False, True):
        weights = self_attention_weights(model, X, positional=positional)
        assert weights.shape == (4, 4, 4) and weights.device.type == "cpu"
        for h in range(4):
            assert_close(weights[h].double(), torch.tensor(_naive_head(model, X, h, positional=positional)[1],
                                                           dtype=torch.float64), atol=1e-6, rtol=0)
    for h in (0, 3):
        effect = head_effect(model, X, h)
        change = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(_naive_head(model, X, h, positional=True)[1],
                                                                    _naive_head(model, X, h)[1])]
        assert_close(effect.change.double(), torch.tensor(change, dtype=torch.float64), atol=1e-6, rtol=0)
        assert effect.largest == pytest.approx(max(abs(v) for row in change for v in row), abs=1e-6)
        assert effect.largest == float(effect.change.abs().max())
    assert head_effect(model, X[:1], 0).largest == 0.0  # one token: P changes no weight of 1
    for bad in (4, -1, 1.5):
        with pytest.raises(ValueError, match="head"):
            head_effect(model, X, bad)


def test_query_key_against_the_projections_written_out():
    from pekit.order import query_key

    model = seeded_attention(8, 1, seed=6, device="cpu")
    batch = padded_batch([token_embeddings(["a", "b", "c"], 8, seed=0, device="cpu"),
                          token_embeddings(["d"], 8, seed=0, device="cpu")], 4)
    q, k = query_key(model, batch)
    assert q.shape == k.shape == (2, 4, 8) and not q.requires_grad
    for W, got in ((model.W_q, q), (model.W_k, k)):
        w = W.weight.detach().double()
        want = [[[sum(float(batch[b, i, c]) * float(w[o, c]) for c in range(8)) for o in range(8)] for i in range(4)]
                for b in range(2)]
        assert_close(got.double(), torch.tensor(want, dtype=torch.float64), atol=1e-6, rtol=0)
    assert torch.equal(q[1, 1:], torch.zeros(3, 8))  # no bias: padding stays zero
    assert_close(query_key(model, batch[0])[0], q[0])
    with pytest.raises(ValueError, match="X"):
        query_key(model, torch.zeros(2, 4, 6))
    with pytest.raises(ValueError, match="model"):
        query_key(torch.nn.Linear(8, 8), batch)


@pytest.mark.parametrize("valid", [[3, 1], [4, 4], [0, 2], [[1, 2, 3, 3], [0, 1, 1, 1]], [[0, 0, 0, 0], [4, 4, 4, 4]]])
def test_masking_lab_against_a_float64_loop(valid):
    import math

    from pekit.order import masking_lab

    steps = 4
    g = torch.Generator().manual_seed(11)
    X = padded_batch([torch.randn(3, 5, generator=g), torch.randn(1, 5, generator=g)], steps)
    keys = padded_batch([torch.randn(3, 5, generator=g), torch.randn(1, 5, generator=g)], steps)
    lab = masking_lab(X, valid, keys=keys)
    assert len(lab.sequences) == 2
    for b, seq in enumerate(lab.sequences):
        lens = [valid[b]] * steps if isinstance(valid[b], int) else valid[b]
        scores = [[sum(float(X[b, i, c]) * float(keys[b, j, c]) for c in range(5)) / math.sqrt(5) for j in range(steps)]
                  for i in range(steps)]

        def softmax(row):
            e = [math.exp(v - max(row)) for v in row]
            return [v / sum(e) for v in e]

        plain = [softmax(row) for row in scores]
        masked = [softmax(row[:n]) + [0.0] * (steps - n) if n else [0.0] * steps for row, n in zip(scores, lens)]
        kept = [abs(v) for row, n in zip(scores, lens) for v in row[:n]]
        assert seq.score_bound == (pytest.approx(max(kept), abs=1e-5) if kept else 1.0)
        assert seq.masked_weight == 0.0
        assert seq.hidden_pairs == sum(steps - n for n in lens)
        assert seq.moved == pytest.approx(max(abs(a - p) for ra, rp in zip(masked, plain) for a, p in zip(ra, rp)),
                                          abs=1e-6)
        zero_rows = tuple(q for q, n in enumerate(lens) if n == 0)
        assert seq.zero_rows == zero_rows
        if zero_rows:
            assert seq.zero_row == (0.0,) * steps  # pekit: nothing to look at, no weight
            assert seq.book_row == pytest.approx((1 / steps,) * steps, abs=1e-7)  # the book: uniform over padding
        else:
            assert seq.zero_row == seq.book_row == ()
    assert_close(lab.book, torch.softmax(lab.steps.scores.masked_fill(~torch.isfinite(lab.steps.masked), -1e6), -1))
