"""The training page's attention maps: the shipped models' maps and the sentences about the
clearest head, checked against the maps' numbers recomputed here."""

import math
import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.train import shipped_maps, trainings
from lab.views.train_maps import (AttentionView, Head, attention_view, clearest_sentence, example_sentence,
                                  fallback_scheme, layer_heading, layer_options)
from lab.views.train_names import LAYERS, LENGTH, MAPS_PER_ROW
from pekit import training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS
from tests.bilingual import digit_runs
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
    maps = shipped_maps(kind, positions)
    inputs, answers = training.held_out_example(run.task, run.seq_len, D["vocab"])
    said = example_sentence(view)
    check_example(said, inputs.tolist(), answers.tolist(), maps.predicted.tolist())

    causal = kind == "decoder"
    shares = training.source_attention(maps.trained, run.task, causal=causal)  # (layers, heads)
    best_layer, best_head = divmod(int(shares.argmax()), shares.shape[1])
    before = float(training.source_attention(maps.untrained, run.task, causal=causal).max())
    said = clearest_sentence(view)
    assert f"**{float(shares.max()):.0%}**" in said  # the clearest head's share, in bold
    # the numbers written: the clearest head and its layer (1-based), its share and the best share before training
    assert not digit_runs(f"{best_head + 1} {best_layer + 1} {float(shares.max()):.0%} {before:.0%}") - digit_runs(said)
    assert said.claim("clearest head's share").value == pytest.approx(float(shares.max()), abs=1e-12)
    assert said.claim("best head's share before training").value == pytest.approx(before, abs=1e-12)
    assert said.holds()
    assert said.claim("clearest head's share").reference.value == pytest.approx(float(shares.max()), abs=1e-12)
    assert said.claim("best head's share before training").reference.value == pytest.approx(before, abs=1e-12)
    check_even(said, run.seq_len, causal)
    shown = [f"{float(v):.0%}" for v in shares.flatten()]
    assert said.claim("other heads tied as shown").value == shown.count(f"{float(shares.max()):.0%}") - 1

    shown = best_layer + 1 if layer == "clearest" else int(layer)
    assert view.layer == shown and view.layers == maps.trained.shape[0]
    for trained in (True, False):
        check_heading(layer_heading(view, trained), view, trained, best_layer + 1)
    for rows in (view.trained, view.untrained):
        assert [m.head for row in rows for m in row] == list(range(1, run.heads + 1))
        assert all(0 < len(row) <= MAPS_PER_ROW for row in rows)


def check_example(said, inputs: list[int], answers: list[int], predicted: list[int]) -> None:
    """The example's tokens as claims, and each written in bold in the order the sentence gives them."""
    assert (said.claim("input").value, said.claim("right answer").value, said.claim("trained model's answer").value
            ) == (tuple(inputs), tuple(answers), tuple(predicted))
    assert re.findall(r"\*\*([\d ]+)\*\*", said) == [" ".join(map(str, ids)) for ids in (inputs, answers, predicted)]


def check_heading(said, view, trained: bool, clearest_layer: int | None) -> None:
    """The heading names the model (trained, or the same before training), the layer drawn and why:
    the clearest head's layer (``clearest_layer``, found by the test), or the last layer when no head
    is clearest (None), or the layer chosen."""
    title = "**Trained**" if trained else "**The same model before training (same seed)**"
    assert said.startswith(title) and said.count("**") == 2  # which model: no claim says it
    assert digit_runs(said) == digit_runs(str(view.layer))
    claim = said.claim("layer")
    assert claim.value == view.layer and said.holds()
    if view.clearest and clearest_layer is not None:  # the clearest head's layer
        assert claim.reference.value == clearest_layer == view.layer and view.best is not None
    elif view.clearest:  # no head is the clearest: the last layer
        assert claim.reference.value == view.layers == view.layer and view.best is None
    else:  # as chosen: no reference
        assert claim.reference is None


@given(layer=st.integers(LAYERS.minimum, LAYERS.maximum), layers=st.integers(LAYERS.minimum, LAYERS.maximum),
       clearest=st.booleans(), copies=st.booleans(), trained=st.booleans(),
       tokens=st.lists(st.integers(0, 15), min_size=LENGTH.minimum, max_size=LENGTH.maximum))
@example(layer=2, layers=2, clearest=True, copies=False, trained=True, tokens=[1, 2, 3, 4])  # sort: no clearest head
@settings(max_examples=30, deadline=None)
def test_the_headings_and_the_example_state_what_they_are_given(layer, layers, clearest, copies, trained, tokens):
    layer = min(layer, layers)
    if clearest and not copies:
        layer = layers  # the page draws the last layer when no head copies a fixed position
    answers, predicted = sorted(tokens), tokens[::-1]
    view = AttentionView(layer=layer, clearest=clearest, trained=(), untrained=(), inputs=tuple(tokens),
                         answers=tuple(answers), predicted=tuple(predicted),
                         best=Head(layer, 1, 0.5) if copies else None, before=None, seq_len=len(tokens), even=0.0,
                         layers=layers)
    check_heading(layer_heading(view, trained), view, trained, layer if copies else None)
    check_example(example_sentence(view), tokens, answers, predicted)


# a training on the job board ------------------------------------------------------------------


def even_by_hand(seq_len: int, causal: bool) -> float:
    """What source_attention measures of a head that spreads evenly over every key it may see: the
    map built by a loop (a decoder's row r sees keys 0..r of its 2·seq_len), then measured."""
    T = 2 * seq_len if causal else seq_len
    weights = torch.zeros(1, 1, T, T, dtype=torch.float64)
    for r in range(T):
        keys = r + 1 if causal else T
        for k in range(keys):
            weights[0, 0, r, k] = 1.0 / keys
    return float(training.source_attention(weights, "reverse", causal=causal)[0, 0])


def check_even(said, seq_len: int, causal: bool) -> None:
    """The even head's share the sentence says (a percent to four digits) is that of an even map,
    measured; an encoder's is 1/seq_len, said as a fraction too."""
    even = even_by_hand(seq_len, causal)
    assert said.claim("even head's share").reference.value == pytest.approx(even, abs=1e-12)
    percents = re.findall(r"(\d+(?:\.\d+)?)%", said)  # the clearest head's, the best before training, the even one
    assert len(percents) == 3, said
    percent = float(percents[2])
    assert abs(percent - 100 * even) <= 0.5 * 10 ** (math.floor(math.log10(100 * even)) - 3) + 1e-12
    assert re.findall(r"1/(\d+)", said) == ([] if causal else [str(seq_len)])


# shares that tie as shown (0.97 and 0.9712 both read 97%), and the ends
head_shares = st.one_of(st.sampled_from([0.0, 0.124, 0.125, 0.97, 0.9712, 1.0]), st.floats(0.0, 1.0))


@given(seq_len=st.integers(LENGTH.minimum, LENGTH.maximum), causal=st.booleans(),
       shares=st.lists(head_shares, min_size=1, max_size=16), before=st.lists(head_shares, min_size=1, max_size=16),
       layer=st.integers(LAYERS.minimum, LAYERS.maximum))
@example(seq_len=8, causal=False, shares=[0.97], before=[0.124], layer=1)
@example(seq_len=8, causal=True, shares=[0.97, 0.9712, 0.5], before=[0.084], layer=2)
@example(seq_len=LENGTH.minimum, causal=False, shares=[1.0, 1.0], before=[0.0], layer=1)
@example(seq_len=LENGTH.maximum, causal=True, shares=[0.0], before=[1.0], layer=4)
@settings(max_examples=30, deadline=None)
def test_the_clearest_sentence_states_the_shares_it_is_given(seq_len, causal, shares, before, layer):
    head = shares.index(max(shares)) + 1
    view = AttentionView(layer=layer, clearest=True, trained=(), untrained=(), inputs=(1, 2), answers=(2, 1),
                         predicted=(2, 1), best=Head(layer, head, max(shares)), before=Head(1, 1, max(before)),
                         seq_len=seq_len, even=training.even_source_share(seq_len, causal=causal), causal=causal,
                         shares=tuple(shares), shares_before=tuple(before))
    said = clearest_sentence(view)
    assert said.holds()
    trained = re.search(r"\*\*(\d+)%\*\*", said)  # the clearest head's share, in bold
    untrained = re.findall(r"(\d+(?:\.\d+)?)%", said)[1]  # then the best head's before training
    assert trained and abs(int(trained[1]) - 100 * max(shares)) <= 0.5 + 1e-9  # whole percents
    assert abs(int(untrained) - 100 * max(before)) <= 0.5 + 1e-9
    check_even(said, seq_len, causal)
    tied = sum(f"{s:.0%}" == f"{max(shares):.0%}" for s in shares) - 1  # counted here, in Python's own format
    assert said.claim("other heads tied as shown").value == tied
    # every number written: the head, its layer, the shares, the even share, the length (twice with 1/length) and
    # the tied heads' count when some tie
    even = 100 * training.even_source_share(seq_len, causal=causal)
    stated = [head, layer, f"{max(shares):.0%}", f"{max(before):.0%}", f"{even:.4g}",
              *([seq_len] if causal else [seq_len, 1, seq_len]), *([tied] if tied else [])]
    assert digit_runs(said) == digit_runs(" ".join(map(str, stated))), said
    if seq_len == 8 and not causal:
        assert "1/8" in said and "12.5%" in said


@pytest.mark.parametrize("kind", KINDS)
def test_a_decoder_s_even_head_is_even_over_the_keys_it_sees(kind):
    """A decoder's answer slot sees the inputs and the slots up to it: the even share the page
    compares with is what an even map of those keys measures (8.3 % at 8 tokens, not 1/8)."""
    run = shipped_run(kind)
    view = attention_view(run, trainings(run, ["none"]).source("none"), "clearest")
    said = clearest_sentence(view)
    even = even_by_hand(run.seq_len, kind == "decoder")
    found = re.findall(r"(\d+(?:\.\d+)?)%", said)[2:3]  # the third percent: the even head's
    assert found and abs(float(found[0]) - 100 * even) < 0.01, f"{kind}: the sentence says {found[0]}%, an even map measures {100 * even:.4g}%"


@given(layers=st.integers(LAYERS.minimum, LAYERS.maximum))
def test_layer_options_name_every_layer(layers):
    assert layer_options(layers) == ("clearest", *map(str, range(1, layers + 1)))


@given(kind=st.sampled_from(KINDS), positions=st.sampled_from(SCHEMES), layer=st.sampled_from(["clearest", "1", "2"]))
@settings(max_examples=20, deadline=None)
def test_the_attention_sentences_hold_for_every_shipped_model(kind, positions, layer):
    test_attention_sentences_state_the_shipped_maps_numbers(kind, positions, layer)
