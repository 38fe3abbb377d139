"""The contract of ``pekit.llama`` (SmolLM2 run by pekit's own Llama decoder): its calls with their
hostile arguments, and the breaks found in it, one assertion each.

``smollm2`` checks its arguments before it looks for the optional extra, so its hostile calls run
with or without it; the loaded model's calls (``tokenize``, ``logits``, ``attentions`` ...) are
swept where the extra is installed (``make smollm``), each valid call a forward pass on five tokens.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import pytest
import torch
from hypothesis import strategies as st

import pekit
from pekit import llama

from .sweep import (
    BAD_INTS,
    DTYPE,
    INTS,
    NAME,
    REALS,
    SEQ,
    SIZES,
    TEXT,
    Cases,
    among,
    device_args,
    lazy,
    raises_naming,
    sweep,
    tensors,
)

pytestmark = pytest.mark.slow  # the optional model

CASES = Cases()
register = CASES.register
AVAILABLE = llama.smollm2_available()

for f in (llama.smollm2_missing, llama.smollm2_available):
    register(f, {})


def smollm2_or_absent(**kwargs):
    """``pekit.smollm2``, where an absent extra (``ModuleNotFoundError``, after the arguments were
    checked) counts as a return."""
    try:
        return pekit.smollm2(**kwargs)
    except ModuleNotFoundError:
        return None


# the weights are the file's, the same on every call: one table of them stands for all
register(pekit.smollm2, device_args(dtype=DTYPE), lambda: {"device": "cpu"}, call=smollm2_or_absent,
         label="smollm2", finite=lambda model: None if model is None else model.decoder.norm.weight)

IDS = [504, 3575, 282, 4649, 314]  # "The capital of France is"


def model():
    return pekit.smollm2(device="cpu")


if AVAILABLE:
    TOKEN_IDS = st.one_of(SEQ, tensors((5,)), lazy(lambda: [
        [49152] * 5, [49151, 0, 1, 2, 3], [-1, 2, 3, 4, 5], torch.tensor(IDS), torch.tensor(IDS, dtype=torch.int32),
        torch.tensor(IDS, dtype=torch.uint8) if max(IDS) < 256 else torch.tensor([1, 2, 3, 4, 5], dtype=torch.uint8),
        list(range(5)), IDS * 3]))
    POSITIONS = st.one_of(SEQ, tensors((5,)), lazy(lambda: [
        [0, 1, 2, 3, 4], [10**9] * 5, [-1, 0, 1, 2, 3], [2**24 - 1] * 5, [2**24] * 5, torch.arange(5) + 7000,
        [4, 3, 2, 1, 0], [0] * 5, [0, 1, 2, 3]]))
    FREQUENCIES = st.one_of(tensors((32,)), lazy(lambda: [
        pekit.rope_frequencies(64, base=100000.0), torch.zeros(32), -torch.ones(32), torch.full((32,), 1e30),
        pekit.rope_frequencies(64, base=100000.0, scaling="ntk", factor=4.0), None]))
    RUN = {"ids": TOKEN_IDS, "position_ids": POSITIONS, "inv_freq": FREQUENCIES, "pairing": NAME}
    for method in ("logits", "attentions", "loss"):
        register(getattr(llama.loaded.SmolLM2, method), RUN, lambda: {"ids": IDS},
                 call=lambda method=method, **kw: getattr(model(), method)(**kw), label=f"SmolLM2.{method}")
    register(llama.loaded.SmolLM2.tokenize, {"text": TEXT}, lambda: {"text": "The capital of France is"},
             call=lambda **kw: model().tokenize(**kw), label="SmolLM2.tokenize")
    for method in ("decode", "pieces"):
        register(getattr(llama.loaded.SmolLM2, method), {"ids": TOKEN_IDS}, lambda: {"ids": IDS},
                 call=lambda method=method, **kw: getattr(model(), method)(**kw), label=f"SmolLM2.{method}")
    register(llama.loaded.SmolLM2.greedy,
             {"ids": TOKEN_IDS, "new_tokens": st.one_of(st.sampled_from(BAD_INTS), st.integers(-3, 3))},
             lambda: {"ids": IDS, "new_tokens": 2}, call=lambda **kw: model().greedy(**kw), label="SmolLM2.greedy")


# the microscope's measures of tensors: no model needed
def qk(layers=None):
    g = torch.Generator().manual_seed(0)
    shape = (3, 5, 8) if layers is None else (layers, 3, 5, 8)
    return torch.randn(*shape, generator=g), torch.randn(*shape[:-3], 1, 5, 8, generator=g)


FREQS8 = lambda: pekit.frequencies(8)  # noqa: E731
register(llama.head_habits, {"attentions": tensors((2, 3, 4, 4))},
         lambda: {"attentions": torch.softmax(torch.randn(2, 3, 4, 4), dim=-1).tril()})
register(llama.offset_scores, {"queries": tensors((3, 5, 8)), "keys": tensors((1, 5, 8)), "inv_freq": tensors((4,)),
                               "max_offset": SIZES},
         lambda: {"queries": qk()[0], "keys": qk()[1], "inv_freq": FREQS8(), "max_offset": 20})
register(llama.pair_shares, {"queries": tensors((2, 3, 5, 8)), "keys": tensors((2, 1, 5, 8)), "inv_freq": tensors((4,))},
         lambda: {"queries": qk(2)[0], "keys": qk(2)[1], "inv_freq": FREQS8()})


def habits():
    return llama.head_habits(torch.softmax(torch.randn(2, 3, 5, 5, generator=torch.Generator().manual_seed(0)),
                                           dim=-1).tril())


def shares():
    return llama.pair_shares(qk(2)[0], qk(2)[1], FREQS8())


HABITS = st.one_of(among(None, "habits", (1.0, 2.0, 3.0)), lazy(lambda: [
    llama.HeadHabits(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2)),
    llama.HeadHabits(torch.ones(0, 3), torch.ones(0, 3), torch.ones(0, 3)),
    llama.HeadHabits(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3), torch.ones(2, 3)),
    llama.HeadHabits(torch.ones(2, 3), "previous", torch.ones(2, 3)), shares()]))
register(llama.habit_counts, {"habits": HABITS, "threshold": REALS}, lambda: {"habits": habits(), "threshold": 0.5})
register(llama.as_drawn, {"x": tensors((2, 3))}, lambda: {"x": torch.rand(2, 3, dtype=torch.float64)})
register(llama.mean_pair_shares, {"shares": st.one_of(among(None, "shares", (1.0,)), lazy(lambda: [
    habits(), llama.PairShares(FREQS8(), torch.ones(2, 3, 4), torch.ones(2, 1, 3)),
    llama.PairShares(FREQS8(), torch.ones(2, 3), torch.ones(2, 1, 4))]))}, lambda: {"shares": shares()})
register(llama.perplexity, {"loss": REALS}, lambda: {"loss": 2.5})
MODELS = among(None, "model", torch.nn.Linear(2, 2))
# the shipped text and results of the long-context section: no arguments, no model needed
register(llama.long_text, {}, finite=lambda text: torch.tensor(float(len(text))))
register(llama.shipped_context, {}, finite=lambda r: torch.tensor([v for means in r.means.values() for v in means]))
if AVAILABLE:
    register(llama.shift_effect, {"model": MODELS, "ids": TOKEN_IDS, "shift": INTS},
             lambda: {"model": model(), "ids": IDS, "shift": 100})
    register(llama.conventions, {"model": MODELS, "ids": TOKEN_IDS}, lambda: {"model": model(), "ids": IDS})
    register(llama.rounding_control, {"model": MODELS, "ids": TOKEN_IDS}, lambda: {"model": model(), "ids": IDS})
    register(llama.loaded.SmolLM2.queries_keys, {"ids": TOKEN_IDS}, lambda: {"ids": IDS},
             call=lambda **kw: model().queries_keys(**kw), label="SmolLM2.queries_keys")
    register(llama.loss_by_rule, {"model": MODELS, "ids": TOKEN_IDS,
                                  "rules": among("plain", ("plain", "yarn"), ["ntk", None], (), None, 3, {"plain": 1})},
             lambda: {"model": model(), "ids": IDS, "rules": ("plain", "ntk")}, finite=lambda d: torch.cat(list(d.values())))
else:  # the model is absent: its measures are still reached by the sweep, refusing what is not a model
    for f in (llama.shift_effect, llama.conventions, llama.loss_by_rule, llama.rounding_control):
        register(f, {"model": MODELS}, lambda: {"model": None, "ids": IDS, "shift": 1}, call=lambda f=f, **kw: _absent(f, kw))


def _absent(f, kwargs):
    """Without the model, every call refuses ``model``; a hostile model that is not one is refused the same way."""
    try:
        f(**{k: v for k, v in kwargs.items() if f is llama.shift_effect or k != "shift"})
    except ValueError as err:
        if "model" in str(err) and kwargs.get("model") is None:
            return None
        raise


test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


@pytest.mark.skipif(not AVAILABLE, reason=str(llama.smollm2_missing()))
def test_model_breaks_found():
    m = model()
    raises_naming(lambda: m.logits(IDS, position_ids=[0, 1, 2]), "position_ids")  # one per token
    raises_naming(lambda: m.logits(IDS, inv_freq=torch.ones(31)), "inv_freq")  # one per rotary pair
    raises_naming(lambda: m.loss(IDS[:1]), "ids")  # no next token to score
    raises_naming(lambda: m.tokenize("x" * ((1 << 20) + 1)), "text")  # bounded before the tokenizer
    raises_naming(lambda: m.attentions(list(range(1500))), "T²")  # 30 x 9 x T x T within 1 GiB


def test_smollm2_dtype_is_checked_before_the_extra():
    raises_naming(lambda: pekit.smollm2(dtype=torch.float64), "dtype")
    raises_naming(lambda: pekit.smollm2(dtype=torch.int8), "dtype")
