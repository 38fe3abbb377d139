"""The live attention page's sentences (untrained layer), each made from the real view at
settings over the page's range and checked against the numbers it states."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.i18n import _
from lab.views import live_attention as live
from tests.bilingual import digit_runs

SENTENCES = ["The animal didn't cross the street because it was too tired.", "man bites dog", "x",
             "a b c d e f g h i j"]
HIDDEN = st.sampled_from([16, 32, 64, 128, 256])
HEADS = st.sampled_from([1, 2, 4, 8])
LENGTHS = st.sampled_from(("own",) + tuple(str(v) for v in range(9)))


def test_sentence_records_count_tokens_and_what_is_cut():
    s = live.sentence_view("a " * 70)
    assert (s.count, s.dropped) == (64, 6)
    assert live.sentence_view("y" * (live.MAX_CHARS + 1)).clipped


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 64), HIDDEN, HEADS)
def test_shape_sentences_state_the_shapes(n, hidden, heads):
    shape = live.LayerShape(n, hidden, heads)
    text = live.shapes_statement(shape)
    assert [text.claim(w).value for w in ("tokens", "hidden", "heads")] == [n, hidden, heads]
    assert (f"{n} tokens," in text) == (n != 1)
    qkv = live.qkv_statement(shape)
    assert [qkv.claim(w).value for w in ("tokens", "hidden", "heads", "head size")] == [n, hidden, heads, hidden // heads]
    # the page's layer is untrained: its matrices are not called learned without saying they are random here
    assert qkv.startswith(_("In **self**-attention all three come from the same input X ({n} × {hidden}, a row per "
                            "token), through three different {hidden} × {hidden} matrices (learned in training; random "
                            "in this untrained layer): Q = XW_q, K = XW_k, V = XW_v. ").format(n=n, hidden=hidden))
    assert f"learned {hidden}" not in qkv
    # every number written, once per place: X's n × hidden, the matrices' hidden × hidden, the heads (only when
    # several) and their columns, the heads' outputs n × hidden (the 1-head message names no count: no "1 heads")
    stated = f"{n} {hidden} {hidden} {hidden} {str(heads) + ' ' if heads > 1 else ''}{hidden // heads} {n} {hidden}"
    assert digit_runs(qkv) == digit_runs(stated), qkv
    assert shape.last_head == heads - 1 and shape.several_heads == (heads > 1)
    assert [h for row in shape.gallery_rows for h in row] == list(range(heads))
    assert all(len(row) <= 4 for row in shape.gallery_rows)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(SENTENCES), HIDDEN, HEADS, st.integers(0, 3), st.data())
def test_effect_caption_states_the_largest_change(sentence, hidden, heads, seed, data):
    head = data.draw(st.integers(0, heads - 1))
    tokens = live.sentence_view(sentence).tokens
    effect = live.effect_chart(tokens, hidden, heads, seed, head)
    caption = live.effect_caption(effect)
    without = live.attention_view(tokens, hidden, heads, seed, False)[head]
    with_p = live.attention_view(tokens, hidden, heads, seed, True)[head]
    assert caption.claim("largest change").value == pytest.approx(float((with_p - without).abs().max()), abs=1e-6)


TYPED = st.lists(st.sampled_from(["the", "cat", "didn't", "2024", "café", "🙂", ",", "well-known", "東京", "x"]),
                 min_size=1, max_size=90).map(" ".join)


@settings(max_examples=30, deadline=None)
@given(TYPED)
@example("a " * 64)
@example("a " * 65)
@example("x")
def test_sentence_statements_count_the_tokens(typed):
    """The tokens line and the cut statement against the whole text's tokens (all of them)."""
    from pekit import text

    s = live.sentence_view(typed)
    every = text.tokenize(typed, max_tokens=10**6).tokens
    assert list(s.tokens) == every[:live.MAX_TOKENS] and s.dropped == max(0, len(every) - live.MAX_TOKENS)
    line = live.tokens_line(s)
    assert line.claim("tokens").value == len(every[:live.MAX_TOKENS])
    assert line.endswith(" | ".join(every[:live.MAX_TOKENS]))  # the tokens, quoted
    said = live.dropped_statement(s)
    assert said.claim("tokens").value == len(every)
    if len(every) > live.MAX_TOKENS:
        assert said.claim("used").value == live.MAX_TOKENS and said.claim("cut").value == len(every) - live.MAX_TOKENS
    else:
        assert [c.what for c in said.claims] == ["tokens"]  # "all are used": nothing cut is claimed


@settings(max_examples=20, deadline=None)
@given(TYPED)
@example("x")
@example("man bites dog")
def test_batch_statement_counts_the_two_sequences(sentence):
    s = live.sentence_view(sentence)
    a = min(s.count, live.LAB_STEPS)
    text = live.batch_statement(s)
    assert text.claim("tokens of A").value == a and text.claim("tokens of B").value == max(1, a // 2)
    assert text.claim("steps").value == live.LAB_STEPS == 8
    # each number written once: the masked keys' weight 0, the tokens of A and B and the steps
    assert digit_runs(text) == digit_runs(f"0 {a} {max(1, a // 2)} {live.LAB_STEPS}")


def _lab_weights(first, hidden, seed, len_a, len_b, form, show):
    """The masking lab recomputed in float64 from the embeddings and the layer's W_q, W_k:
    the weights (a naive masked softmax, loop per query), those without a mask, the number of
    hidden pairs and the rows with nothing to look at."""
    import math

    import torch

    from pekit import seeded, text

    a = list(first)
    b = a[:max(1, len(a) // 2)]
    seq = a if show == "A" else b
    own = len(seq)
    chosen = len_a if show == "A" else len_b
    length = own if chosen == "own" else int(chosen)
    X = torch.zeros(live.LAB_STEPS, hidden, dtype=torch.float64)
    X[:own] = text.token_embeddings(seq, hidden, seed=seed).double().cpu()
    model = seeded.seeded_attention(hidden, 1, seed=seed, device="cpu")
    Q = X @ model.W_q.weight.detach().double().T
    K = X @ model.W_k.weight.detach().double().T
    scores = Q @ K.T / math.sqrt(hidden)
    n = live.LAB_STEPS
    lens = [length] * n if form == "one per sequence" else [min(length, q + 1) for q in range(n)]
    weights, plain = torch.zeros(n, n, dtype=torch.float64), torch.zeros(n, n, dtype=torch.float64)
    for q in range(n):
        plain[q] = torch.softmax(scores[q], 0)
        if lens[q]:
            weights[q, :lens[q]] = torch.softmax(scores[q, :lens[q]], 0)
    hidden_pairs = sum(n - v for v in lens)
    zero_rows = tuple(q for q in range(n) if lens[q] == 0)
    return weights, plain, hidden_pairs, zero_rows, length, own


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SENTENCES), HIDDEN, st.sampled_from([0, 1, 7, live.MAX_SEED]), LENGTHS, LENGTHS,
       st.sampled_from(("one per sequence", "one per query (causal)")), st.sampled_from("AB"))
@example("The animal didn't cross the street because it was too tired.", 64, 0, "own", "own", "one per sequence", "A")
@example("x", 16, 0, "0", "0", "one per query (causal)", "B")
@example("x", 256, 0, "8", "8", "one per sequence", "A")
@example("The animal didn't cross the street because it was too tired.", 64, 0, "8", "own", "one per sequence", "A")
@example(" ".join(f"w{i}" for i in range(70)), 64, 0, "own", "0", "one per sequence", "A")
@example("a b c d e f g h i j", 64, 0, "8", "8", "one per sequence", "B")
def test_masking_sentences_follow_the_lab(sentence, hidden, seed, len_a, len_b, form, show):
    s = live.sentence_view(sentence)
    view = live.masking_view(s.first, hidden, seed, len_a, len_b, form, show)
    weights, plain, hidden_pairs, zero_rows, length, real = _lab_weights(s.first, hidden, seed, len_a, len_b, form,
                                                                         show)
    assert view.real == real and view.length == length and view.zero_rows == zero_rows
    code = live.valid_code(view)
    lens = [int(v) for v in re.findall(r"\d+", code)]
    assert code.startswith("valid_lens = [") and (len(lens) == 2 if form == "one per sequence" else len(lens) == 16)
    flat = [int(w) for v in code.claim("valid lengths").value for w in (v if isinstance(v, tuple) else (v,))]
    assert flat == lens
    if view.counts_padding:
        extra = view.length - view.real
        assert extra > 0
        padding = live.padding_statement(view)
        assert padding.claim("real tokens").value == real and padding.claim("valid length").value == length
        assert padding.claim("padding steps counted").value == extra
        assert digit_runs(padding) == digit_runs(f"{real} {length} {extra}")
    else:
        assert length <= real
    masked = live.masked_statement(view)
    total = masked.claim("weight on masked keys")
    assert masked.holds() and total.value == 0 and (total.relation, total.reference.value) == ("equal", 0.0)
    other = "B" if show == "A" else "A"
    other_pairs = _lab_weights(s.first, hidden, seed, len_a, len_b, form, other)[2]
    if hidden_pairs:
        moved = float((weights - plain).abs().max())
        assert masked.claim("hidden pairs").value == hidden_pairs and masked.claim("pairs").value == live.LAB_STEPS ** 2
        assert masked.claim("largest move").value == pytest.approx(moved, abs=1e-6)
        assert moved > 1e-3  # "the weights change with each mask" (the batch statement)
    else:  # no key masked: no hidden pairs claimed, the steps are
        assert "hidden pairs" not in [c.what for c in masked.claims] and masked.claim("steps").value == live.LAB_STEPS
        assert length >= live.LAB_STEPS and form == "one per sequence"
        assert float((weights - plain).abs().max()) < 1e-6
        assert [c.value for c in masked.claims if c.what == "other's hidden pairs"] == ([other_pairs] if other_pairs else [])
    if zero_rows:
        assert masked.claim("rows of valid length 0").value == zero_rows
        assert ", ".join(map(str, zero_rows)) in masked  # the rows written
        assert all(float(weights[q].abs().sum()) == 0 for q in zero_rows)
        book = live.book_statement(view)
        assert book.holds() and book.claim("row").value == zero_rows[0] and book.claim("steps").value == live.LAB_STEPS
        assert book.claim("book's weight").value == pytest.approx(1 / live.LAB_STEPS)
        assert book.claim("book's weight").reference.value == pytest.approx(1 / 8)
    else:
        assert masked.claim("each row's sum over its valid keys").value == 1
        assert torch_sums_are_one(weights)


def torch_sums_are_one(weights) -> bool:
    return bool(((weights.sum(dim=1) - 1).abs() < 1e-9).all())


@settings(max_examples=10, deadline=None)
@given(HIDDEN, st.sampled_from([0, 3, live.MAX_SEED]))
def test_queries_and_keys_differ_so_each_mask_changes_the_weights(hidden, seed):
    """Q and K come from two different projections: the weights are no near-identity (a token
    does not just look at itself), and the causal mask gives other weights than one length per
    sequence, as the batch statement says."""
    s = live.sentence_view("The animal didn't cross the street because it was too tired.")
    by_form = {form: live.masking_view(s.first, hidden, seed, "own", "own", form, "A")
               for form in ("one per sequence", "one per query (causal)")}
    per_seq = _lab_weights(s.first, hidden, seed, "own", "own", "one per sequence", "A")[0]
    causal = _lab_weights(s.first, hidden, seed, "own", "own", "one per query (causal)", "A")[0]
    assert float((per_seq - causal).abs().max()) > 0.3  # visibly different maps
    assert float(per_seq.diagonal().mean()) < 0.5  # not the near-identity of Q = K = X
    assert by_form["one per sequence"].hidden_pairs == 0 and by_form["one per query (causal)"].hidden_pairs == 28
    assert "Queries and keys come from two different projections of the layer, so the weights change with each " \
           "mask." in live.batch_statement(s)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([0, 1, 2, 99, live.MAX_SEED]))
@example(0)
def test_book_example_code_states_both_shapes(seed):
    """The book's run (at the page's seed 0, and others: the numbers do not depend on it, since every
    input is equal): the shapes, and 1/3 resp. 1/2 on each valid key, as its caption says."""
    from pekit import seeded

    example = live.book_example() if seed == 0 else live.BookExample(*(
        tuple(map(tuple, v)) if i >= 2 else v for i, v in enumerate(seeded.book_example(seed))))
    code = live.book_example_code(example)
    assert all(abs(w - (1 / 3 if k < 3 else 0)) < 1e-6 for row in example.first for k, w in enumerate(row))
    assert all(abs(w - (1 / 2 if k < 2 else 0)) < 1e-6 for row in example.second for k, w in enumerate(row))
    assert "sequence 0, head 0 (3 valid keys)" in code and "sequence 1, head 0 (2 valid keys)" in code
    assert code.claim("output shape").value == (2, 4, 100) and code.claim("weights shape").value == (2, 5, 4, 4)
    assert code.claim("batch times heads").value == 10 and code.claim("sequence 0 weights").value == example.first
    assert "  0.3333  0.3333  0.3333  0.0000" in code and "  0.5000  0.5000  0.0000  0.0000" in code


def test_next_shuffle_stays_in_range_and_skips_the_original_order():
    assert live.next_shuffle(0) == 1 and live.next_shuffle(1) == 2
    assert live.next_shuffle(live.MAX_SEED) == 1


def _signed(value) -> str:
    """A score as the lab writes it: three decimals, a true minus sign (−) for a negative one."""
    return "0" if float(value) == 0 else f"{float(value):.3f}".replace("-", "−")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(SENTENCES + ["it's a well-known café, 2024!"]), HIDDEN, HEADS, st.sampled_from([0, 5, live.MAX_SEED]),
       st.booleans(), st.data())
@example("x", 16, 8, 0, False, None)
@example("the cat the cat", 64, 4, 0, False, None)  # query 3 (cat): keys 1 and 3 tie, once said "goes to key 1"
@example("la la la", 64, 4, 0, False, None)  # every score equal: no key gets more
def test_query_step_statement_states_the_three_steps(sentence, hidden, heads, seed, positional, data):
    """One query's scores, weights and output, recomputed here in float64 from the layer's own
    W_q, W_k, W_v (and P when added), against the layer's weights and the sentence."""
    import math

    import torch

    from pekit import seeded, sinusoidal_encoding, text

    tokens = live.sentence_view(sentence).tokens
    n = len(tokens)
    head = data.draw(st.integers(0, heads - 1)) if data is not None else heads - 1
    query = data.draw(st.integers(0, n - 1)) if data is not None else n - 1
    step = live.query_step(tokens, hidden, heads, seed, positional, head, query)
    hs = hidden // heads
    model = seeded.seeded_attention(hidden, heads, seed=seed, device="cpu")
    X = text.token_embeddings(list(tokens), hidden, seed=seed, device="cpu").double()
    if positional:
        X = X + sinusoidal_encoding(n, hidden, device="cpu", dtype=torch.float64)
    W = {name: getattr(model, name).weight.detach().double()[head * hs:(head + 1) * hs] for name in ("W_q", "W_k", "W_v")}
    q, K, V = X[query] @ W["W_q"].T, X @ W["W_k"].T, X @ W["W_v"].T
    scores = torch.tensor([float(q @ K[j]) / math.sqrt(hs) for j in range(n)], dtype=torch.float64)
    weights = torch.exp(scores - scores.max()) / torch.exp(scores - scores.max()).sum()
    output = sum(weights[j] * V[j] for j in range(n))
    assert torch.allclose(torch.tensor(step.scores, dtype=torch.float64), scores, atol=1e-5)
    assert torch.allclose(torch.tensor(step.weights, dtype=torch.float64), weights, atol=1e-6)
    assert torch.allclose(torch.tensor(step.output, dtype=torch.float64), output[:min(8, hs)], atol=1e-5)
    layer = live.attention_view(tokens, hidden, heads, seed, positional)[head][query].double()
    assert torch.allclose(layer, weights, atol=1e-5)  # the row of the map above
    said = live.query_step_statement(step)
    assert said.claim("query").value == query and said.claim("head").value == head
    assert f"{query} ({live.plain(tokens[query])})" in said.split(".**")[0]  # the bold opening: the token, quoted
    assert str(head) in digit_runs(said.split(".**")[0])
    whats = [c.what for c in said.claims]
    assert said.claim("head size").value == hs and said.claim("keys").value == n
    top = int(torch.argmax(weights))
    tied = [j for j in range(n) if float(weights[top] - weights[j]) <= 1e-9]  # ties found here, in float64
    assert said.holds()  # every comparison it makes is true of its numbers
    assert step.tops == tuple(tied) and said.claim("keys tied for the most").value == len(tied)
    assert said.claim("largest weight").reference.value == pytest.approx(float(weights.max()), abs=1e-6)
    if n > 1 and len(tied) == n:  # all scores equal: "from x to x" and "the most goes to key 0" were wrong
        assert said.claim("lowest score").value == pytest.approx(float(scores[0]), abs=1e-5)
        # the message of equal scores: their weights' spread is claimed (nothing is "the most"), no order
        assert said.claim("weight spread").value <= 1e-12 and "weights in the order of the scores" not in whats
        assert said.claim("largest weight").value == pytest.approx(1 / n, abs=1e-6)
    elif n > 1:
        assert said.claim("lowest score").value == pytest.approx(float(scores.min()), abs=1e-5)
        assert said.claim("highest score").value == pytest.approx(float(scores.max()), abs=1e-5)
        order = said.claim("weights in the order of the scores")
        assert order.reference.value == tuple(sorted(step.scores))
    else:
        assert said.claim("lowest score").value == pytest.approx(float(scores[0]), abs=1e-5)
        assert said.claim("keys").value == 1 and "weights in the order of the scores" not in whats
        assert "weight spread" not in whats
    assert "-" not in said.split("here ", 1)[1].split(", ", 1)[0]  # minus signs, not hyphens
    if n > 1 and len(tied) == 1:
        assert said.claim("key with the most weight").value == top
        assert said.claim("largest weight").value == pytest.approx(float(weights[top]), abs=1e-6)
        assert f"{top} ({live.plain(tokens[top])})" in said.split("2. ", 1)[1]  # the key with the most, in step 2
    elif 1 < len(tied) < n:  # ties named together, never one of them alone
        assert len({tokens[j] for j in tied}) == 1
        assert said.claim("largest weight").value == pytest.approx(float(weights[top]), abs=1e-6)
        assert said.claim("tokens among the tied keys").value == 1 and said.claim("keys tied for the most").value == len(tied)
        assert ", ".join(f"{j} ({live.plain(tokens[j])})" for j in tied) in said  # every tied key, together
    elif n == 1:  # one key: no plural, no comparison
        assert said.claim("largest weight").value == 1.0
        assert "1 score" not in said and "1 weight" not in said
    assert abs(float(weights.sum()) - 1) < 1e-12  # "weights that sum to 1"
    assert all((scores[i] < scores[j]) == (weights[i] < weights[j]) for i in range(n) for j in range(n))  # larger→larger
    shown = min(8, hs)
    assert said.claim("values shown").value == shown
    # step 3 writes the head size, then all of them shown, or the first `shown` of them
    assert re.findall(r"\d+", said.split(" 3. ", 1)[1])[:3 if shown < hs else 2] == (
        [f"{hs}", f"{shown}", f"{hs}"] if shown < hs else [f"{hs}", f"{hs}"])
