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
