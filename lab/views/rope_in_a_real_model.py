"""RoPE inside a real language model: SmolLM2-135M (30 layers of 9 query heads sharing 3 key/value
heads, RoPE base 100,000) run by pekit's own decoder on the reader's text.

The views of ``pages/rope_in_a_real_model.py``: cached records of what each section shows
(``pekit.llama``'s microscope computes, ``pekit.charts`` draws), and the functions that turn a
record into the sentences stating its numbers. The page is listed only where the optional extra
is installed (:mod:`lab.registry`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import pandas as pd
import streamlit as st
import torch

import pekit
from pekit import charts, llama
from pekit.rollout import attention_rollout
from lab.display import number, plural
from lab.settings import IntSetting, TextSetting
from lab.views.minilm import model_missing

DEFAULT_TEXT = "Alice gave the book to Bob, and then Bob gave the book back to Alice because she had read it."
TEXT = TextSetting("text", "Your text", default=DEFAULT_TEXT, max_chars=300)
SHIFT = IntSetting("shift", "Shift every position by c", default=1000, minimum=0, maximum=16_000)
LAYER = IntSetting("layer", "Layer", default=6, minimum=0, maximum=29)
HEAD = IntSetting("head", "Head", default=0, minimum=0, maximum=8)
MAX_OFFSET = IntSetting("offset", "Largest offset", default=512, minimum=16, maximum=16_384)
SETTINGS = [TEXT, SHIFT, LAYER, HEAD, MAX_OFFSET]
MOST = 0.5  # a head "puts most of its weight" somewhere above this share
MAX_PAGE_TOKENS = 160  # every layer's attention of a 160-token text: 28 MB, kept per text across sessions


# records ---------------------------------------------------------------------------------------


class Run(NamedTuple):
    """The model on one text: its tokens (as the text they stand for), every layer's attention,
    where the heads look, the norm per rotary pair, the pairing conventions and the rollout."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    attentions: torch.Tensor  # (layers, heads, T, T) float32
    habits: llama.HeadHabits
    shares: llama.PairShares
    conventions: llama.Conventions
    rollout: torch.Tensor  # (layers, T, T) float64
    queries: torch.Tensor  # (layers, heads, T, head_dim), before rotation: kept for the offset curves
    keys: torch.Tensor  # (layers, kv_heads, T, head_dim)

    @property
    def count(self) -> int:
        return len(self.tokens)

    @property
    def listing(self) -> str:
        """The tokens as the model reads them, each quoted."""
        return f"{len(self.tokens)} tokens: " + " | ".join(repr(t) for t in self.tokens)

    def last_row(self, layer: int) -> torch.Tensor:
        """The rollout of the last position after ``layer``, ``(T,)``."""
        return self.rollout[layer, -1]


class MiniLMRollout(NamedTuple):
    """MiniLM's rollout after its last layer (``layer``, counted from 0), on its word pieces
    ([CLS] first, [SEP] last)."""

    tokens: tuple[str, ...]
    rollout: torch.Tensor  # (T, T) float64
    layer: int

    @property
    def last_row(self) -> torch.Tensor:
        return self.rollout[-1]


# sentences from numbers ------------------------------------------------------------------------


def model_statement(config: llama.SmolLM2Config) -> str:
    """The model's sizes, as its file gives them."""
    c = config
    return (f"SmolLM2-135M: {c.num_layers} {plural(c.num_layers, 'layer')}, {c.num_heads} query "
            f"{plural(c.num_heads, 'head')} sharing {c.num_kv_heads} key/value {plural(c.num_kv_heads, 'head')} of "
            f"{c.head_dim} dimensions, RoPE base {c.rope_base:,g}, trained on {c.context_length:,} positions.")


def pairs_caption(config: llama.SmolLM2Config) -> str:
    """How fast the first and the last rotary pair turn, and what a pair's share is."""
    pairs = config.head_dim // 2
    freqs = pekit.rope_frequencies(config.head_dim, base=config.rope_base)
    fast, slow = 2 * math.pi / float(freqs[0]), 2 * math.pi / float(freqs[-1])
    return (f"Pair j turns by θ_j = {config.rope_base:g}^(−2j/{config.head_dim}) radians per position: pair 0 once "
            f"every {number(fast, '.3g')} positions, pair {pairs - 1} once every {slow:,.0f}. A pair's share: "
            f"its mean length over the text's tokens, over the sum of all {pairs}.")


def layout_statement(config: llama.SmolLM2Config) -> str:
    """Which rows of a head each convention pairs."""
    return (f"The file stores each head's query and key rows so that pair j is rows (2j, 2j + 1); Hugging Face's "
            f"Llama code pairs row j with row j + {config.head_dim // 2} and reorders the rows when it reads such a "
            "file. Rotating the wrong pairs of the same weights:")


def shift_statement(effect: llama.ShiftEffect) -> str:
    """What moving every position by c changed, and what that says."""
    c, T = effect.shift, effect.tokens
    if c == 0:
        return "With c = 0 both runs are the same run: move the slider to shift every position."
    gaps = (f"Every one of the {T} {plural(T, 'token')} moved {c:,} positions on: the largest change of a logit is "
            f"{number(effect.logit_gap, '.2g')} (the largest logit in size is {number(effect.logit_scale, '.3g')}), of "
            f"an attention weight {number(effect.attention_gap, '.2g')}, and {effect.changed_predictions} of the {T} "
            f"next-token predictions changed.")
    relative = effect.logit_gap / effect.logit_scale if effect.logit_scale else float("inf")
    rounding = relative <= 1e-4 and effect.attention_gap <= 1e-4
    if rounding and effect.changed_predictions == 0:
        return gaps + (" The model computes the same thing wherever the text starts: RoPE's scores depend on "
                       "offsets alone, and what is left is float32 rounding (the rotated queries and keys differ "
                       "in their last digits, and 30 layers carry that on).")
    if rounding:
        return gaps + (" The logits and weights moved by float32 rounding only; where the two best next tokens were "
                       "almost tied, that was enough to swap them.")
    return gaps + (" The differences are larger than float32 rounding gives (a ten-thousandth of the largest logit, "
                   "or of a weight).")


def minilm_shift_statement(similarity: float | None, shift: int, tokens: int) -> str:
    """A learned-position model's counterpart: how alike the rows it would add are (``None``: the
    shifted slots are past its 512 rows)."""
    if shift == 0:
        return "MiniLM, with a learned row per slot, would see the same rows too at c = 0."
    if similarity is None:
        return (f"A model with learned absolute positions could not even read a text this long at c = {shift:,}: "
                f"MiniLM has a learned row for each of 512 slots, and a text of {tokens} pieces would end in slot "
                f"{shift + tokens - 1:,}.")
    return (f"A model with learned absolute positions has no such freedom: MiniLM adds row i of its table to the "
            f"word piece in slot i, and for a text of {tokens} pieces the rows of slots c to c + {tokens - 1} are not "
            f"those of slots 0 to {tokens - 1} (mean cosine similarity of the two rows of each slot pair: "
            f"{number(similarity, '.2f')}), so its input, and everything after it, changes.")


def _heads(mask: torch.Tensor, limit: int = 4) -> str:
    found = [(int(lay), int(h)) for lay, h in mask.nonzero().tolist()]
    shown = ", ".join(f"{lay}.{h}" for lay, h in found[:limit])
    return shown + (f" and {len(found) - limit} more" if len(found) > limit else "")


def habits_statement(habits: llama.HeadHabits, tokens: int) -> str:
    """How many heads are attention sinks, previous-token heads, and which looks farthest back."""
    total = habits.sink.numel()
    sinks = habits.sink > MOST
    previous = habits.previous > MOST
    n_sinks, n_prev = int(sinks.sum()), int(previous.sum())
    if tokens < 3:
        return ("With fewer than three tokens, the first token is also the one just before every query that can look "
                "back: write a longer text to tell attention sinks from previous-token heads.")
    parts = []
    if n_sinks:
        layers = sinks.any(dim=1).nonzero().flatten().tolist()
        one = n_sinks == 1
        parts.append(f"{n_sinks} of the {total} heads put{'s' if one else ''} more than half of "
                     f"{'its' if one else 'their'} weight on the first token (attention sinks: a place to park "
                     f"attention that has nowhere better to go), in {len(layers)} of the {habits.sink.shape[0]} "
                     f"{plural(habits.sink.shape[0], 'layer')}, the first of them layer {layers[0]}")
    else:
        parts.append(f"none of the {total} heads puts more than half of its weight on the first token")
    if n_prev:
        one = n_prev == 1
        parts.append(f"{n_prev} {plural(n_prev, 'head')} (layer.head {_heads(previous)}) put{'s' if one else ''} more "
                     f"than half on the token just before: previous-token {plural(n_prev, 'head')}, which "
                     f"need{'s' if one else ''} positions to find the neighbour")
    else:
        parts.append("no head puts more than half of its weight on the token just before")
    far = int(habits.distance.flatten().argmax())
    lay, h = divmod(far, habits.distance.shape[1])
    text = "; ".join(parts)
    return (f"Averaged over the queries 2 to {tokens - 1} (for query 1 the first token is also the one just before): "
            f"{text[0].upper() + text[1:]}. The head that looks farthest back on average is layer {lay}, head {h}: "
            f"{number(float(habits.distance[lay, h]), '.1f')} tokens back.")


def offset_statement(scores: llama.OffsetScores, layer: int) -> str:
    """How the scores of one layer's heads move with the offset, against RoFormer's bound."""
    s = scores.scores
    far = int(scores.offsets[-1])
    start, end = s[:, 0], s[:, -1]
    shrink = start.abs() - end.abs()  # how much smaller in size each score is far away
    smaller = int((shrink > 0).sum())
    heads = s.shape[0]
    verb = "is" if smaller == 1 else "are"
    if smaller:
        h = int(shrink.argmax())
        change = f"head {h} shrinks most in size (from {number(float(start[h]), '.2f')} to {number(float(end[h]), '.2f')})"
    else:
        h = int(shrink.argmin())
        change = (f"none shrinks, and head {h} grows most in size (from {number(float(start[h]), '.2f')} to "
                  f"{number(float(end[h]), '.2f')})")
    bound = float(scores.bound[-1])
    return (f"Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score "
            f"{number(float(start.min()), '.2f')} to {number(float(start.max()), '.2f')}, at offset {far:,} "
            f"{number(float(end.min()), '.2f')} to {number(float(end.max()), '.2f')}; {smaller} of the {heads} scores "
            f"{verb} smaller in size at {far:,} than at 0, and {change}. RoFormer's bound on how large a score can be "
            f"falls to {number(bound, '.2f')} of its offset-0 value by offset {far:,}: a bound over every content, not "
            "a prediction of one head's score, which can rise and fall in between.")


def pairs_statement(shares: llama.PairShares) -> str:
    """How much of the queries' and keys' norm the slowest and the fastest quarter of pairs hold."""
    pairs = shares.query.shape[-1]
    quarter = max(1, pairs // 4)
    q_slow = float(shares.query[..., -quarter:].sum(-1).mean())
    q_fast = float(shares.query[..., :quarter].sum(-1).mean())
    k_slow = float(shares.key[..., -quarter:].sum(-1).mean())
    k_fast = float(shares.key[..., :quarter].sum(-1).mean())
    even = quarter / pairs
    found = "Barbero et al. (2024) found the slowest pairs taking the largest share of the norm in Gemma 7B"
    if q_slow > q_fast and k_slow > k_fast:
        verdict = (f"the slow pairs hold more than the fast ones for both, as {found} (pairs that barely turn over a "
                   "text can carry content rather than position)")
    elif q_slow > q_fast or k_slow > k_fast:
        which = "queries" if q_slow > q_fast else "keys"
        other = "keys" if which == "queries" else "queries"
        verdict = f"the slow pairs hold more for the {which} but not for the {other}, where {found}"
    else:
        verdict = f"the slow pairs hold no more than the fast ones, unlike what {found}"
    return (f"Averaged over every head, the {quarter} slowest {plural(quarter, 'pair')} hold {q_slow:.0%} of the "
            f"queries' norm and {k_slow:.0%} of the keys', the {quarter} fastest {q_fast:.0%} and {k_fast:.0%} (an "
            f"even spread would give {even:.0%} each): {verdict}.")


def conventions_statement(c: llama.Conventions) -> str:
    """What the wrong pairing does to the next-token loss, and that reordering brings it back."""
    worse = c.wrong > c.right
    back = (f"gives {c.reordered:.3f} again" if f"{c.reordered:.3f}" == f"{c.right:.3f}" else
            f"gives {c.reordered:.4f} against {c.right:.4f}")
    return (f"With the file's pairing (adjacent rows of each head) the next-token loss over the {c.scored} scored "
            f"{plural(c.scored, 'token')} is {c.right:.3f} nats per token; rotating split halves of the same rows "
            f"gives {c.wrong:.3f} ({'worse' if worse else 'no worse on this text'}, perplexity "
            f"{number(min(float(torch.tensor(c.right).exp()), 1e30), '.3g')} → "
            f"{number(min(float(torch.tensor(c.wrong).exp()), 1e30), '.3g')}). Reordering each head's rows first, as "
            f"transformers does when it reads the file, {back} (largest logit difference "
            f"{number(c.reordered_gap, '.1g')}): the two conventions are one rotation, with its dimensions permuted.")


def rollout_statement(name: str, tokens: tuple[str, ...], row: torch.Tensor, layer: int) -> str:
    """Where the rollout of the last token's position traces its input, after ``layer``."""
    T = len(tokens)
    order = row.argsort(descending=True).tolist()
    top = ", ".join(f"{i} {tokens[i]!r} {float(row[i]):.1%}" for i in order[:3])
    return (f"{name}, after layer {layer}: rollout traces {float(row[0]):.1%} of the last position's input to the "
            f"first token {tokens[0]!r} and {float(row[T - 1]):.1%} to the last token itself; the largest shares: "
            f"{top}.")


# cached work -----------------------------------------------------------------------------------


@st.cache_resource(show_spinner="Loading SmolLM2 (once for this server)…")
def shared_model() -> llama.loaded.SmolLM2:
    return pekit.smollm2()


@st.cache_resource(max_entries=8, show_spinner="Running SmolLM2 on the text…")
def run_view(text: str) -> Run:
    """Raises ``ValueError`` when the text has fewer than three tokens (with two, the first token is also
    the one just before the only query that can look back) or more than :data:`MAX_PAGE_TOKENS`."""
    model = shared_model()
    ids = model.tokenize(text)
    if len(ids) < 3:
        raise ValueError("The text has fewer than three tokens: write a few words for the model to read.")
    if len(ids) > MAX_PAGE_TOKENS:  # 300 characters of some scripts are over a thousand tokens
        raise ValueError(f"The text reads as {len(ids):,} tokens; this page runs the model on at most "
                         f"{MAX_PAGE_TOKENS}. Shorten it.")
    attentions = model.attentions(ids)
    q, k = model.queries_keys(ids)
    return Run(tuple(ids), tuple(model.pieces(ids)), attentions, llama.head_habits(attentions),
               llama.pair_shares(q, k, model.inv_freq), llama.conventions(model, ids), attention_rollout(attentions),
               q, k)


@st.cache_resource(max_entries=16, show_spinner="Running the shifted text…")
def shift_view(text: str, shift: int) -> llama.ShiftEffect:
    return llama.shift_effect(shared_model(), run_view(text).ids, shift)


@st.cache_resource(max_entries=4, show_spinner=False)
def minilm_rows_similarity(tokens: int, shift: int) -> float | None:
    """Mean cosine similarity of MiniLM's position rows i and i + c, i < tokens (None where MiniLM
    is absent or its 512 rows do not reach)."""
    if model_missing() is not None or shift + tokens > 512:
        return None
    table = pekit.pretrained_position_table(device="cpu").double()
    a, b = table[:tokens], table[shift:shift + tokens]
    return float(torch.nn.functional.cosine_similarity(a, b, dim=-1).mean())


@st.cache_resource(max_entries=16, show_spinner=False)
def offsets_view(text: str, layer: int, max_offset: int) -> llama.OffsetScores:
    run = run_view(text)  # the queries and keys of the run: no second pass through the model
    return llama.offset_scores(run.queries[layer], run.keys[layer], shared_model().inv_freq, max_offset)


@st.cache_resource(max_entries=4, show_spinner="Running MiniLM on the text…")
def minilm_rollout(text: str) -> MiniLMRollout | None:
    if model_missing() is not None:
        return None
    result = pekit.pretrained_attention(text, device="cpu")
    return MiniLMRollout(tuple(result.tokens), attention_rollout(result.attentions)[-1], result.attentions.shape[0] - 1)


# charts ----------------------------------------------------------------------------------------


@st.cache_resource(max_entries=16, show_spinner=False)
def shift_chart(text: str, shift: int) -> dict:
    gaps = shift_view(text, shift).layer_gaps
    frame = pd.DataFrame({"layer": range(len(gaps)), "gap": gaps.numpy()})
    top = float(gaps.max()) or 1e-6
    return charts.line_chart(frame, x="layer", y="gap", x_title="layer", y_title="largest change of a weight",
                             points=True, y_domain=(0.0, top * 1.05), height=220).spec()


@st.cache_resource(max_entries=16, show_spinner=False)
def habits_charts(text: str) -> tuple[dict, dict]:
    h = run_view(text).habits
    sink = charts.heatmap(h.sink.float(), x_title="head", y_title="layer", value_title="weight on the first token",
                          palette="sequential", domain=(0.0, 1.0), height=300)
    prev = charts.heatmap(h.previous.float(), x_title="head", y_title="layer",
                          value_title="weight on the token before", palette="sequential", domain=(0.0, 1.0),
                          height=300)
    return sink.spec(), prev.spec()


@st.cache_resource(max_entries=16, show_spinner=False)
def map_chart(text: str, layer: int, head: int) -> dict:
    run = run_view(text)
    return charts.token_heatmap(run.attentions[layer, head], run.tokens, run.tokens, legend="right").spec()


@st.cache_resource(max_entries=16, show_spinner=False)
def offsets_charts(text: str, layer: int, head: int, max_offset: int) -> tuple[dict, dict]:
    """One head's score against the offset, and RoFormer's bound."""
    o = offsets_view(text, layer, max_offset)
    frame = pd.DataFrame({"offset": o.offsets.numpy(), "score": o.scores[head].numpy()})
    scores = charts.line_chart(frame, x="offset", y="score", x_title="offset m − n",
                               y_title="score (mean query · mean key)", height=260)
    bound = charts.line_chart(pd.DataFrame({"offset": o.offsets.numpy(), "bound": o.bound.numpy()}), x="offset",
                              y="bound", x_title="offset m − n", y_title="RoFormer's bound (1 at 0)", height=200)
    return scores.spec(), bound.spec()


@st.cache_resource(max_entries=16, show_spinner=False)
def pairs_charts(text: str, layer: int) -> tuple[dict, dict]:
    s = run_view(text).shares
    layer_map = charts.heatmap(s.query[layer].float(), x_title="rotary pair (fastest 0 → slowest 31)",
                               y_title="query head", value_title="share of the norm", palette="sequential",
                               domain=None, height=240)
    pairs = s.query.shape[-1]
    frame = pd.DataFrame({"pair": list(range(pairs)) * 2,
                          "share": torch.cat([s.query.mean(dim=(0, 1)), s.key.mean(dim=(0, 1))]).numpy(),
                          "of": ["queries"] * pairs + ["keys"] * pairs})
    mean = charts.line_chart(frame, x="pair", y="share", series="of", x_title="rotary pair (fastest 0 → slowest 31)",
                             y_title="mean share of the norm", series_title="vectors", points=True, height=240)
    return layer_map.spec(), mean.spec()


def _rollout_map(tokens: tuple[str, ...], rollout: torch.Tensor) -> dict:
    return charts.token_heatmap(rollout.float(), tokens, tokens, x_title="input token", y_title="position",
                                value_title="rollout", scale="max", legend="right").spec()


@st.cache_resource(max_entries=16, show_spinner=False)
def rollout_chart(text: str, layer: int) -> dict:
    run = run_view(text)
    return _rollout_map(run.tokens, run.rollout[layer])


@st.cache_resource(max_entries=4, show_spinner=False)
def minilm_rollout_chart(text: str) -> dict | None:
    view = minilm_rollout(text)
    return None if view is None else _rollout_map(view.tokens, view.rollout)
