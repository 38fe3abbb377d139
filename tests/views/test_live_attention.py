"""The live attention page's sentences (untrained layer), each made from the real view at
settings over the page's range and checked against the numbers it states."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.views import live_attention as live

SENTENCES = ["The animal didn't cross the street because it was too tired.", "man bites dog", "x",
             "a b c d e f g h i j"]
HIDDEN = st.sampled_from([16, 32, 64, 128, 256])
HEADS = st.sampled_from([1, 2, 4, 8])
LENGTHS = st.sampled_from(("own",) + tuple(str(v) for v in range(9)))


def test_sentence_records_count_tokens_and_what_is_cut():
    s = live.sentence_view("a " * 70)
    assert (s.count, s.dropped) == (64, 6)
    assert live.dropped_statement(s) == "The sentence has 70 tokens; the first 64 are used and 6 are cut."
    assert live.tokens_line(live.sentence_view("x")) == "1 token: x"
    assert live.tokens_line(live.sentence_view("man bites dog")) == "3 tokens: man | bites | dog"
    assert live.sentence_view("y" * (live.MAX_CHARS + 1)).clipped


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 64), HIDDEN, HEADS)
def test_shape_sentences_state_the_shapes(n, hidden, heads):
    shape = live.LayerShape(n, hidden, heads)
    text = live.shapes_statement(shape)
    assert f"Input: (1, {n}, {hidden})" in text and f"Weights: (1, {heads}, {n}, {n}), one {n} × {n} map" in text
    assert (f"{n} tokens," in text) == (n != 1)
    qkv = live.qkv_statement(shape)
    assert f"{heads} heads of {hidden // heads} columns" in qkv and f"scaled by √{hidden // heads}" in qkv
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
    assert caption.startswith(f"Head {head}:") and f"The largest change here is {effect.biggest:.3f};" in caption
    without = live.attention_view(tokens, hidden, heads, seed, False)[head]
    with_p = live.attention_view(tokens, hidden, heads, seed, True)[head]
    assert effect.biggest == pytest.approx(float((with_p - without).abs().max()), abs=1e-6)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_batch_statement_counts_the_two_sequences(sentence):
    s = live.sentence_view(sentence)
    a = min(s.count, live.LAB_STEPS)
    text = live.batch_statement(s)
    assert f"sequence A is the first {a} token{'s' if a != 1 else ''} of your sentence" in text
    assert f"B the first {max(1, a // 2)}," in text and f"padded to {live.LAB_STEPS} steps" in text


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SENTENCES), LENGTHS, LENGTHS, st.sampled_from(("one per sequence", "one per query (causal)")),
       st.sampled_from("AB"))
def test_masking_sentences_follow_the_lab(sentence, len_a, len_b, form, show):
    s = live.sentence_view(sentence)
    view = live.masking_view(s.first, 16, 0, len_a, len_b, form, show)
    real = len(s.first) if show == "A" else max(1, len(s.first) // 2)
    chosen = len_a if show == "A" else len_b
    assert view.real == real and view.length == (real if chosen == "own" else int(chosen))
    code = live.valid_code(view)
    lens = [int(v) for v in re.findall(r"\d+", code)]
    assert code.startswith("valid_lens = [") and (len(lens) == 2 if form == "one per sequence" else len(lens) == 16)
    if view.counts_padding:
        extra = view.length - view.real
        assert f"a valid length of {view.length} counts {extra} padding step{'s' if extra != 1 else ''}" \
            in live.padding_statement(view)
    masked = live.masked_statement(view)
    assert f"**{view.masked_total:g}**" in masked and view.masked_total == 0
    if view.zero_rows:
        rows = ", ".join(map(str, view.zero_rows))
        assert f" {rows} {'have' if len(view.zero_rows) > 1 else 'has'} a valid length of 0" in masked
        book = live.book_statement(view)
        assert f"row {view.zero_rows[0]} gets {view.book_row[0]:.4f} = 1/{live.LAB_STEPS}" in book
        assert view.book_row[0] == pytest.approx(1 / live.LAB_STEPS)
    else:
        assert "Every row sums to 1 over its valid keys." in masked


def test_book_example_code_states_both_shapes():
    example = live.book_example()
    code = live.book_example_code(example)
    assert "output shape: (2, 4, 100)" in code and "(batch, heads, queries, keys): (2, 5, 4, 4)" in code
    assert "(batch·heads, queries, keys): (10, 4, 4)" in code
    assert "  0.3333  0.3333  0.3333  0.0000" in code and "  0.5000  0.5000  0.0000  0.0000" in code


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(SENTENCES[:2] + SENTENCES[3:]), HIDDEN, HEADS, st.integers(1, 50), st.data())
def test_order_sentence_states_the_gaps(sentence, hidden, heads, shuffle, data):
    head = data.draw(st.integers(0, heads - 1))
    tokens = live.sentence_view(sentence).tokens
    view = live.order_view(tokens, hidden, heads, 0, shuffle, head)
    assert sorted(view.shuffled) == sorted(tokens) and len(view.maps) == 4
    text = live.order_statement(view)
    assert f"the largest difference of an output is {view.without.relative:.1e} of the outputs' size" in text
    assert f"the outputs move by {view.with_p.relative:.0%} of their size" in text
    assert view.without.relative < 1e-5  # "float round-off"


def test_next_shuffle_stays_in_range_and_skips_the_original_order():
    assert live.next_shuffle(0) == 1 and live.next_shuffle(1) == 2
    assert live.next_shuffle(live.MAX_SEED) == 1
