"""The MiniLM tab's sentences, each made from the real views (all-MiniLM-L6-v2 on a few texts, at
layers and heads over the whole model) and checked against the numbers they state."""

from __future__ import annotations

import math

import pytest

from lab.views import minilm as mini
from pekit import pretrained as pt
from tests.test_pretrained import missing

pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

TEXTS = ["The animal didn't cross the street because it was too tired.", "unbelievably tokenization", "dog"]
LAYER_HEADS = [(0, 0), (2, 7), (5, 11)]


@pytest.mark.parametrize("text", TEXTS)
def test_pieces_statement_counts_the_pieces(text):
    run = mini.minilm_run(text)
    words = [w for w in run.word_ids if w is not None]
    split = len({w for w in words if words.count(w) > 1})
    said = mini.pieces_statement(run.word_ids)
    assert said.startswith(f"{len(run.tokens)} word pieces:") and f"{len(words)} pieces of {len(set(words))} words" in said
    assert (f"{split} word{'s were' if split != 1 else ' was'} split" in said) if split else "no word was split" in said


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
