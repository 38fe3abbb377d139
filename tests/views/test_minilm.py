"""The MiniLM tab's sentences, each made from the real views (all-MiniLM-L6-v2 on a few texts, at
layers and heads over the whole model) and checked against the numbers they state."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views import minilm as mini
from pekit.text import MAX_CHARS
from pekit import pretrained as pt
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

TEXTS = ["The animal didn't cross the street because it was too tired.", "unbelievably tokenization", "dog"]
LAYER_HEADS = [(0, 0), (2, 7), (5, 11)]


WORDS = st.sampled_from(["didn't", "well-known", "2024", "3.14", "café", "naïve", "Zürich", "東京", "tokenization",
                         "unbelievably", "dog", "it's", "e-mail", "#1", "a*b_c", "$5", "x", "🙂", "—", "l'été", "[CLS]",
                         "rock'n'roll", "don’t", "ﬁne", "α-β"])
TYPED = st.lists(st.one_of(WORDS, st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                          min_size=1, max_size=8)), min_size=1, max_size=8)
SPACES = st.sampled_from([" ", "  ", "\t", "\n", "\u00a0"])


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


@settings(max_examples=30, deadline=None)
@given(TYPED, SPACES)
@example(["The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired."], " ")
@example(["dog"], " ")
@example(["unbelievably", "tokenization"], " ")
@example(["extraordinarily"] * 60, " ")
def test_pieces_statement_follows_the_word_pieces(words, space):
    """Written words (runs of characters between white space, found here with a regular
    expression) against the pieces' character offsets: how many became several pieces, the
    first of them with its pieces, the ## pieces, and whether 'same word' is empty."""
    text = space.join(words)
    try:
        pieces = mini.pieces_view(text)
    except ValueError:
        with pytest.raises(ValueError):
            pt.encode_text(text)
        return
    encoded = pt.encode_text(text)
    read = text[:MAX_CHARS]
    spans = [m.span() for m in re.finditer(r"\S+", read)]
    # a piece belongs to the runs it overlaps (one, unless the tokenizer dropped a white-space
    # control character inside it); runs that share a piece are one written word
    root = list(range(len(spans)))

    def find(k: int) -> int:
        while root[k] != k:
            k = root[k]
        return k

    of_piece = {}
    for i, (a, b) in enumerate(encoded.offsets):
        if encoded.word_ids[i] is None:
            continue
        ks = [k for k, (s, e) in enumerate(spans) if s < max(b, a + 1) and a < e]
        assert ks, (text, encoded.tokens[i], (a, b))
        for k in ks[1:]:
            root[find(k)] = find(ks[0])
        of_piece[i] = ks[0]
    by_span: dict[int, list[int]] = {}
    for i, k in of_piece.items():
        by_span.setdefault(find(k), []).append(i)
    split = [k for k in sorted(by_span) if len(by_span[k]) > 1]
    hashes = sum(1 for i, t in enumerate(encoded.tokens) if encoded.word_ids[i] is not None and t.startswith("##"))
    said = mini.pieces_statement(pieces)
    inner = len(encoded.tokens) - 2
    assert said.startswith(f"{len(encoded.tokens)} word pieces: [CLS] first, [SEP] last, and {inner} "
                           f"piece{'s' if inner != 1 else ''} of {len(by_span)} written word"
                           f"{'s' if len(by_span) != 1 else ''} in between; ")
    run = mini.minilm_run(text)
    same_word_empty = bool(run.frame["same word"].isna().all())
    if not split:
        assert "each written word is one piece" in said and hashes == 0 and same_word_empty
        assert "became several pieces" not in said
    else:
        n = len(split)
        assert f"{n} written word{'s' if n != 1 else ''} became several pieces, e.g. " in said
        first = by_span[split[0]]
        word = read[encoded.offsets[first[0]][0]:encoded.offsets[first[-1]][1]]
        example_said = _unescape(said.split(", e.g. ", 1)[1].split(" → ", 1)[0])
        assert example_said == (word if len(word) <= 40 else word[:39] + "…")
        parts = _unescape(said.split(" → ", 1)[1].split(". The tokenizer", 1)[0])
        assert parts.removesuffix(" …").split(" | ") == [encoded.tokens[i] for i in first][:12]
        if hashes:
            assert f"({hashes} piece{'s' if hashes != 1 else ''} here)." in said and not same_word_empty
        else:
            assert "(none here, so the share 'same word'" in said and same_word_empty
    assert "no word was split" not in said


def test_cut_statement_counts_what_the_model_does_not_read():
    run = mini.minilm_run("extraordinarily " * 60)
    assert run.cut == 114 and len(run.tokens) == pt.MAX_PIECES
    assert mini.cut_statement(run) == ("The text has 240 word pieces; the model reads 128 including [CLS] and [SEP], "
                                       "so the last 114 are cut.")


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("layer, head", LAYER_HEADS)
def test_head_statement_states_the_shares_and_the_verdict(text, layer, head):
    run = mini.minilm_run(text)
    said = mini.head_statement(run.patterns, layer, head)
    shares = dict(zip(run.patterns.names, run.patterns.shares[layer, head].tolist()))
    assert said.startswith(f"Layer {layer}, head {head}:")
    for name, share in shares.items():
        assert (f"{name} {share:.2f}" in said) == (not math.isnan(share))
    best = max((s, n) for n, s in shares.items() if not math.isnan(s))
    if best[0] >= mini.THRESHOLD:
        assert f"It is a **{best[1]}** head" in said
    else:
        assert f"(the most, {best[0]:.2f}, goes to {best[1]})" in said


@pytest.mark.parametrize("text", TEXTS)
def test_named_statement_counts_the_named_heads(text):
    run = mini.minilm_run(text)
    said = mini.named_statement(run.named)
    named = [h for h in run.named]
    assert len(named) == int((run.frame["named"] != "").sum())
    if named:
        assert said.startswith(f"{len(named)} of the 72 heads")
        for pattern in {h.pattern for h in named}:
            assert f"{sum(h.pattern == pattern for h in named)} on {pattern}" in said
        top = max(named, key=lambda h: h.share)
        assert f"{top.share:.2f} on {top.pattern}." in said
    else:
        assert said.startswith("None of the 72 heads")


@pytest.mark.parametrize("text, word", [(TEXTS[0], "it"), (TEXTS[0], "street"), (TEXTS[1], "zebra")])
@pytest.mark.parametrize("layer", [0, 5])
def test_follow_statement_names_the_top_piece_of_every_layer(text, word, layer):
    run = mini.minilm_run(text)
    followed = mini.followed_piece(run, word)
    assert followed.found == (pt.find_token(run.tokens, word) is not None)
    view = mini.follow_view(text, followed.index, layer)
    said = mini.follow_statement(view)
    assert len(view.top) == mini.LAYERS
    for lay, (j, w) in enumerate(view.top):
        assert f"layer {lay}: {run.tokens[j]!r} {w:.3f}" in said
    counts = {j: sum(k == j for k, _ in view.top) for j, _ in view.top}
    best = max(counts.values())
    j = min(k for k, n in counts.items() if n == best)
    assert f"It favours {run.tokens[j]!r} (piece {j}) in {best} of the {mini.LAYERS} layers." in said


@pytest.mark.parametrize("text", TEXTS[:2])
@pytest.mark.parametrize("seed", [1, 7])
def test_order_and_positions_statements_state_the_gaps(text, seed):
    view = mini.order_view(text, seed, 0, 0)
    order, positions = view.order, view.positions
    said = mini.order_statement(order)
    learned, zero = max(order.gap_learned), max(order.gap_zero)
    assert (f"up to {learned:.2f} (layer by layer: " in said) == (learned >= mini.ROUND_OFF)
    assert ("float round-off" in said) == (zero < mini.ROUND_OFF)
    assert list(view.frame["shuffle, learned positions: largest change"]) == pytest.approx(order.gap_learned)
    said = mini.positions_statement(positions)
    change = positions.layer_change
    assert f"between {min(change):.2f} and {max(change):.2f} of each query's weight" in said
    assert f"(layer {positions.layer}, head {positions.head}, {positions.before:.2f}) puts {positions.after:.2f}" in said
    assert said.endswith("find its neighbour.") == (positions.after < positions.before / 2)
    assert list(view.frame["zeroing positions: mean change"]) == pytest.approx(change)


def test_picked_head_reads_a_click():
    assert mini.picked_head(None) is None and mini.picked_head({"selection": {}}) is None
    assert mini.picked_head({"selection": {mini.PICK: [{"layer": 3, "head": 5}]}}) == mini.HeadChoice(3, 5)
