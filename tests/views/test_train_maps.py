"""The training page's attention maps: the shipped models' maps and the sentences about the
clearest head, checked against the maps' numbers recomputed here."""

import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.train import trainings, shipped_result
from lab.views.train_maps import (AttentionView, Head, attention_view, clearest_sentence, example_sentence,
                                  fallback_scheme, layer_heading, layer_options)
from lab.views.train_names import LAYERS, LENGTH, MAPS_PER_ROW
from pekit import training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS
from tests.views.train_common import D, scheme_lists, shipped_run


@pytest.mark.parametrize("layers", range(LAYERS.minimum, LAYERS.maximum + 1))
def test_layer_options_are_the_clearest_and_every_layer_of_the_model(layers):
    assert layer_options(layers) == ("clearest", *map(str, range(1, layers + 1)))


@given(schemes=scheme_lists)
def test_the_fallback_scheme_is_the_last_chosen(schemes):
    assert fallback_scheme(schemes) == schemes[len(schemes) - 1]


# the shipped results --------------------------------------------------------------------------


@pytest.mark.parametrize("layer", ["clearest", "1", "2"])
@pytest.mark.parametrize("positions", SCHEMES)
@pytest.mark.parametrize("kind", KINDS)
def test_attention_sentences_state_the_shipped_maps_numbers(kind, positions, layer):
    run = shipped_run(kind)
    view = attention_view(run, trainings(run, [positions]).source(positions), layer)
    maps = shipped_result(kind, positions).maps
    inputs, answers = training.held_out_example(run.task, run.seq_len, D["vocab"])
    said = example_sentence(view)
    assert f"input **{' '.join(map(str, inputs.tolist()))}**" in said
    assert f"right answer **{' '.join(map(str, answers.tolist()))}**" in said
    assert f"the trained model answers **{' '.join(map(str, maps.predicted.tolist()))}**." in said

    causal = kind == "decoder"
    shares = training.source_attention(maps.trained, run.task, causal=causal)  # (layers, heads)
    best_layer, best_head = divmod(int(shares.argmax()), shares.shape[1])
    before = float(training.source_attention(maps.untrained, run.task, causal=causal).max())
    said = clearest_sentence(view)
    assert (f"Trained, head {best_head + 1} of layer {best_layer + 1} puts **{float(shares.max()):.0%}** of the "
            "answers' attention") in said
    assert f"before training the best head put {before:.0%} there" in said
    assert evenly_said(said, run.seq_len)

    shown = best_layer + 1 if layer == "clearest" else int(layer)
    how = "(the layer of the clearest head)" if layer == "clearest" else "(as chosen)"
    assert view.layer == shown
    assert layer_heading(view, "Trained") == f"**Trained**, layer {shown} {how}"
    for rows in (view.trained, view.untrained):
        assert [m.head for row in rows for m in row] == list(range(1, run.heads + 1))
        assert all(0 < len(row) <= MAPS_PER_ROW for row in rows)


# a training on the job board ------------------------------------------------------------------


def evenly_said(said: str, seq_len: int) -> bool:
    """The even head's share, 1/seq_len, is said exactly as a fraction and as a percent to four
    digits (12.5% for 8 tokens, not 12%)."""
    found = re.search(rf"evenly over the {seq_len} input tokens would put 1/{seq_len} there, ([\d.]+)%\)\.$", said)
    return found is not None and abs(float(found[1]) - 100 / seq_len) <= 0.5 * 10 ** (math.floor(
        math.log10(100 / seq_len)) - 3) + 1e-12


@given(seq_len=st.integers(LENGTH.minimum, LENGTH.maximum), best=st.floats(0.0, 1.0), before=st.floats(0.0, 1.0),
       layer=st.integers(LAYERS.minimum, LAYERS.maximum), head=st.integers(1, 16))
@example(seq_len=8, best=0.97, before=0.124, layer=1, head=1)
@example(seq_len=LENGTH.minimum, best=1.0, before=0.0, layer=1, head=1)
@example(seq_len=LENGTH.maximum, best=0.0, before=1.0, layer=4, head=16)
@settings(max_examples=30, deadline=None)
def test_the_clearest_sentence_states_the_shares_it_is_given(seq_len, best, before, layer, head):
    view = AttentionView(layer=layer, clearest=True, trained=(), untrained=(), inputs=(1, 2), answers=(2, 1),
                         predicted=(2, 1), best=Head(layer, head, best), before=Head(1, 1, before), seq_len=seq_len,
                         even=1 / seq_len)
    said = clearest_sentence(view)
    trained = re.search(rf"Trained, head {head} of layer {layer} puts \*\*(\d+)%\*\* of the answers' attention", said)
    untrained = re.search(r"before training the best head put (\d+)% there", said)
    assert trained and abs(int(trained[1]) - 100 * best) <= 0.5 + 1e-9  # whole percents
    assert untrained and abs(int(untrained[1]) - 100 * before) <= 0.5 + 1e-9
    assert evenly_said(said, seq_len)
    if seq_len == 8:
        assert "1/8 there, 12.5%)" in said


@given(layers=st.integers(LAYERS.minimum, LAYERS.maximum))
def test_layer_options_name_every_layer(layers):
    assert layer_options(layers) == ("clearest", *map(str, range(1, layers + 1)))


@given(kind=st.sampled_from(KINDS), positions=st.sampled_from(SCHEMES), layer=st.sampled_from(["clearest", "1", "2"]))
@settings(max_examples=20, deadline=None)
def test_the_attention_sentences_hold_for_every_shipped_model(kind, positions, layer):
    test_attention_sentences_state_the_shipped_maps_numbers(kind, positions, layer)
