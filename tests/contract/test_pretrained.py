"""The contract of ``pekit.pretrained`` (the pretrained MiniLM model, its attention and its position
table): its calls with their hostile arguments, and the breaks found in it, one assertion each.

The model is loaded once; each valid call is a forward pass on a short text.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import functools

import pytest
import torch
from hypothesis import strategies as st

import pekit
from pekit import pretrained
from pekit.pretrained import files, minilm

from .sweep import (
    BOOL,
    INTS,
    NAME,
    NAN,
    PROB,
    REALS,
    SIZES,
    TEXT,
    TOKEN_LISTS,
    Cases,
    T,
    among,
    device_args,
    lazy,
    raises_naming,
    sweep,
    tensors,
    token_ids,
)

# the model comes in a package of its own (requirements.txt installs it; a notebook may not)
MISSING = pretrained.pretrained_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

CASES = Cases()
register = CASES.register

SENTENCE = "Tokenization makes unbelievably small pieces."  # words of several pieces: no NaN share


@functools.lru_cache(maxsize=None)
def minilm_result(positions="learned"):
    return pretrained.pretrained_attention(SENTENCE, positions=positions, device="cpu")


def encoded():
    return pretrained.encode_text(SENTENCE, device="cpu")


# Records (Encoded, PretrainedAttention, HeadPatterns, ...) are what pekit made and are trusted as
# they are: the hostile values of a record argument are records of the right and wrong types.
def broken_encodings():
    e = encoded()
    return [e, pretrained.shuffle_words(e, 1).encoded, tuple(e)]


ENCODINGS = lazy(broken_encodings)
TEXTS_OR_PIECES = st.one_of(TEXT, ENCODINGS)
MINI_CONFIG = pretrained.MiniLMConfig(vocab_size=30, num_hiddens=8, layers=1, num_heads=2, ffn_hiddens=16,
                                      max_positions=12, type_vocab_size=2, eps=1e-12)
MINI_CONFIGS = among(None, "config", tuple(MINI_CONFIG), MINI_CONFIG._replace(vocab_size=10**9),
                     MINI_CONFIG._replace(num_hiddens=7), MINI_CONFIG._replace(num_hiddens=0),
                     MINI_CONFIG._replace(layers=-1), MINI_CONFIG._replace(eps=NAN), MINI_CONFIG._replace(eps=0.0),
                     MINI_CONFIG._replace(vocab_size=2.5), MINI_CONFIG._replace(ffn_hiddens="16"),
                     MINI_CONFIG._replace(num_hiddens=4096, vocab_size=1 << 20), MINI_CONFIG._replace(layers=True),
                     MINI_CONFIG._replace(max_positions=10**12), MINI_CONFIG._replace(num_heads=4))
for f in (minilm.BertEmbeddings, minilm.BertLayer, pretrained.MiniLM):
    register(f, {"config": MINI_CONFIGS}, lambda: {"config": MINI_CONFIG}, label=f"{f.__name__}()")


@functools.lru_cache(maxsize=1)
def mini_model():
    torch.manual_seed(0)
    return pretrained.MiniLM(MINI_CONFIG).eval()


register(pretrained.MiniLM,
         {"ids": st.one_of(tensors((1, 4)), lazy(lambda: [torch.tensor([[30, 1]]), torch.tensor([[-1, 2]]),
                                                          token_ids(1, 13), token_ids(1, 12), token_ids(1, 0)])),
          "positions": BOOL},
         lambda: {"ids": torch.tensor([[1, 5, 7, 2]])}, call=lambda **kw: mini_model()(**kw), label="MiniLM.forward")
register(minilm.BertLayer, {"X": tensors((1, 4, 8))}, lambda: {"X": T(1, 4, 8)},
         call=lambda X: mini_model().layers[0](X), label="BertLayer.forward")
for f in (pretrained.pretrained_missing, pretrained.pretrained_available, files.model_files):
    register(f, {})
# the weights are the checkpoint's, the same on every call: one table of them stands for all
register(pretrained.load_minilm, device_args(), lambda: {"device": "cpu"},
         finite=lambda model: model.embeddings.position_embeddings.weight)
register(pretrained.encode_text, {"text": TEXT, **device_args()}, lambda: {"text": SENTENCE, "device": "cpu"})
MODEL_POSITIONS = st.one_of(NAME, among("learned", "zero", "Zero", "none"))
register(pretrained.pretrained_attention, {"text": TEXTS_OR_PIECES, "positions": MODEL_POSITIONS, **device_args()},
         lambda: {"text": SENTENCE, "device": "cpu"})
register(pretrained.pretrained_position_table, device_args(), lambda: {"device": "cpu"})
register(pretrained.find_token, {"tokens": TOKEN_LISTS, "word": TEXT},
         lambda: {"tokens": ["[CLS]", "the", "cat", "[SEP]"], "word": "Cat"})


def broken_results():
    r = minilm_result()
    return [None, "result", encoded(), r, minilm_result("zero"), tuple(r),
            pretrained.pretrained_attention("The cat sat.", device="cpu")]


RESULTS = lazy(broken_results)


def known_patterns(patterns):
    """Shares that exist: "same word" is NaN by design where no word has two pieces."""
    return patterns.shares[..., [i for i, name in enumerate(patterns.names) if name != "same word"]]


register(pretrained.head_patterns, {"result": RESULTS}, lambda: {"result": minilm_result()}, finite=known_patterns)
register(pretrained.weights_only, {"result": RESULTS}, lambda: {"result": minilm_result()})
register(pretrained.head_weights, {"result": RESULTS, "layer": INTS, "head": INTS},
         lambda: {"result": minilm_result(), "layer": 5, "head": 11})


def broken_patterns():
    p = pretrained.head_patterns(minilm_result())
    return [None, "patterns", p, tuple(p), minilm_result()]


PATTERN_RESULTS = lazy(broken_patterns)
THRESHOLDS = st.one_of(PROB, REALS)
register(pretrained.named_heads, {"patterns": PATTERN_RESULTS, "threshold": THRESHOLDS},
         lambda: {"patterns": pretrained.head_patterns(minilm_result())})
register(pretrained.patterns_frame, {"patterns": PATTERN_RESULTS, "threshold": THRESHOLDS},
         lambda: {"patterns": pretrained.head_patterns(minilm_result())},
         finite=lambda frame: frame.drop(columns="same word", errors="ignore"))
register(pretrained.token_attention, {"result": RESULTS, "index": INTS}, lambda: {"result": minilm_result(), "index": 2})


def broken_token_attention():
    ta = pretrained.token_attention(minilm_result(), 2)
    return [None, "ta", ta, tuple(ta)]


register(pretrained.token_attention_frame,
         {"ta": lazy(broken_token_attention),
          "tokens": st.one_of(TOKEN_LISTS, lazy(lambda: [list(minilm_result().tokens), minilm_result().tokens[:-1]]))},
         lambda: {"ta": pretrained.token_attention(minilm_result(), 2), "tokens": list(minilm_result().tokens)})
register(pretrained.shuffle_words, {"encoded": st.one_of(ENCODINGS, TEXT), "seed": INTS},
         lambda: {"encoded": encoded(), "seed": 3})
register(pretrained.order_effect, {"text": TEXTS_OR_PIECES, "seed": INTS, **device_args()},
         lambda: {"text": SENTENCE, "seed": 1, "device": "cpu"})
register(pretrained.positions_effect, {"learned": RESULTS, "zero": RESULTS},
         lambda: {"learned": minilm_result(), "zero": minilm_result("zero")},
         finite=lambda r: (r.change, known_patterns(r.learned), known_patterns(r.zero)))


@functools.lru_cache(maxsize=1)
def effects():
    return (pretrained.order_effect(SENTENCE, 1, device="cpu"),
            pretrained.positions_effect(minilm_result(), minilm_result("zero")))


def order_and_positions():
    return dict(zip(("order", "positions"), effects()))


def broken_effects():
    good = order_and_positions()
    order, effect = good["order"], good["positions"]
    return {"order": [None, "order", effect, order], "positions": [None, "positions", order, effect]}


register(pretrained.layer_effects_frame,
         {"order": lazy(lambda: broken_effects()["order"]), "positions": lazy(lambda: broken_effects()["positions"])},
         order_and_positions)
# periods are inf for a curve without a wave (by design); the rest must be finite
register(pretrained.position_components, {"P": tensors((12, 6)), "k": SIZES}, lambda: {"P": T(12, 6)},
         finite=lambda r: (r.scores, r.explained, r.crossings))
register(pretrained.position_table_summary, {"P": tensors((12, 6)), "max_offset": SIZES, "k": SIZES},
         lambda: {"P": T(12, 6), "max_offset": 5, "k": 2},
         finite=lambda r: (r.value_range, r.norms, r.steps, r.offsets, r.components.scores, r.components.explained))
register(pretrained.shifted_row_similarity, {"P": tensors((12, 6)), "count": SIZES, "shift": SIZES},
         lambda: {"P": T(12, 6), "count": 5, "shift": 3})
register(pretrained.shuffled_table, {"P": tensors((12, 6)), "seed": SIZES}, lambda: {"P": T(12, 6), "seed": 3})
register(pretrained.colour_range, {"X": tensors((4, 5)), "share": THRESHOLDS, "symmetric": BOOL}, lambda: {"X": T(4, 5)})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_a_minilm_config_too_large_to_allocate():
    big = MINI_CONFIG._replace(vocab_size=10**6, num_hiddens=4096)  # 4e9 weights in the word table alone
    raises_naming(lambda: pretrained.MiniLM(big), "config")


def test_minilm_ids_beyond_its_vocabulary_or_positions():
    raises_naming(lambda: mini_model()(torch.tensor([[30, 1]])), "ids")
    raises_naming(lambda: mini_model()(token_ids(1, 13)), "ids")


def test_pretrained_results_of_the_wrong_kind():
    raises_naming(lambda: pretrained.head_patterns("result"), "result")
    raises_naming(lambda: pretrained.find_token(None, "cat"), "tokens")


def test_a_threshold_given_as_a_flag_is_refused():
    raises_naming(lambda: pretrained.named_heads(pretrained.head_patterns(minilm_result()), threshold=True),
                  "threshold")


def test_components_of_a_constant_table_are_zero_not_nan():
    assert torch.equal(pretrained.position_components(torch.ones(6, 4), k=2).explained, torch.zeros(2))
    raises_naming(lambda: pretrained.position_components(torch.full((6, 4), NAN)), "P")


def test_colour_range_of_a_table_larger_than_torch_quantile_takes():
    X = torch.linspace(-1, 1, (1 << 24) + 2)  # torch.quantile stops at 2**24 entries
    r = pretrained.colour_range(X, share=0.5)
    assert r.low == pytest.approx(-0.5, abs=1e-6) and r.high == pytest.approx(0.5, abs=1e-6)
    raises_naming(lambda: pretrained.colour_range(X[:4], symmetric="False"), "symmetric")


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb c", "ok \udc80"])
def test_a_lone_surrogate_is_refused_before_the_tokenizer(text):
    """Half of a surrogate pair is no character: the tokenizer would raise a bare TypeError."""
    for call in (lambda: pretrained.encode_text(text), lambda: pekit.pretrained_attention(text)):
        assert "surrogate" in raises_naming(call, "text")
