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
import torch

import pekit
from pekit import charts, llama
from pekit.rollout import attention_rollout
from lab.memo import shared
from lab.display import number
from lab.i18n import N_, _, local_number, localized_resource, ngettext
from lab.settings import IntSetting, TextSetting
from lab.views.minilm import model_missing

# SmolLM2 was trained on English: its default text stays English in every language (data, not prose)
DEFAULT_TEXT = "Alice gave the book to Bob, and then Bob gave the book back to Alice because she had read it."
TEXT = TextSetting("text", N_("Your text"), default=DEFAULT_TEXT, max_chars=300)
SHIFT = IntSetting("shift", N_("Shift every position by c"), default=1000, minimum=0, maximum=16_000)
LAYER = IntSetting("layer", N_("Layer"), default=6, minimum=0, maximum=29)
HEAD = IntSetting("head", N_("Head"), default=0, minimum=0, maximum=8)
MAX_OFFSET = IntSetting("offset", N_("Largest offset"), default=512, minimum=16, maximum=16_384)
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
        return ngettext("{count} token: {tokens}", "{count} tokens: {tokens}", len(self.tokens)).format(
            count=len(self.tokens), tokens=" | ".join(repr(t) for t in self.tokens))

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
    layers = ngettext("{count} layer", "{count} layers", c.num_layers).format(count=c.num_layers)
    heads = ngettext("{count} query head", "{count} query heads", c.num_heads).format(count=c.num_heads)
    return ngettext(
        "SmolLM2-135M: {layers}, {heads} sharing {count} key/value head of {dims} dimensions, RoPE base {base}, "
        "trained on {positions} positions.",
        "SmolLM2-135M: {layers}, {heads} sharing {count} key/value heads of {dims} dimensions, RoPE base {base}, "
        "trained on {positions} positions.", c.num_kv_heads).format(
        layers=layers, heads=heads, count=c.num_kv_heads, dims=c.head_dim, base=local_number(f"{c.rope_base:,g}"),
        positions=number(c.context_length, ","))


def pairs_caption(config: llama.SmolLM2Config) -> str:
    """How fast the first and the last rotary pair turn, and what a pair's share is."""
    pairs = config.head_dim // 2
    freqs = pekit.rope_frequencies(config.head_dim, base=config.rope_base)
    fast, slow = 2 * math.pi / float(freqs[0]), 2 * math.pi / float(freqs[-1])
    return _("Pair j turns by θ_j = {base}^(−2j/{dims}) radians per position: pair 0 once every {fast} positions, "
             "pair {last} once every {slow}. A pair's share: its mean length over the text's tokens, over the sum of "
             "all {pairs}.").format(base=local_number(f"{config.rope_base:g}"), dims=config.head_dim,
                                    fast=number(fast, ".3g"), last=pairs - 1, slow=number(slow, ",.0f"), pairs=pairs)


def layout_statement(config: llama.SmolLM2Config) -> str:
    """Which rows of a head each convention pairs."""
    return _("The file stores each head's query and key rows so that pair j is rows (2j, 2j + 1); Hugging Face's "
             "Llama code pairs row j with row j + {half} and reorders the rows when it reads such a file. Rotating "
             "the wrong pairs of the same weights:").format(half=config.head_dim // 2)


def shift_statement(effect: llama.ShiftEffect) -> str:
    """What moving every position by c changed, and what that says."""
    c, T = effect.shift, effect.tokens
    if c == 0:
        return _("With c = 0 both runs are the same run: move the slider to shift every position.")
    gaps = ngettext(
        "Every one of the {count} token moved {shift} positions on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.",
        "Every one of the {count} tokens moved {shift} positions on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.", T).format(
        count=T, shift=number(c, ","), logit_gap=number(effect.logit_gap, ".2g"),
        logit_scale=number(effect.logit_scale, ".3g"), weight_gap=number(effect.attention_gap, ".2g"),
        changed=effect.changed_predictions)
    relative = effect.logit_gap / effect.logit_scale if effect.logit_scale else float("inf")
    rounding = relative <= 1e-4 and effect.attention_gap <= 1e-4
    if rounding and effect.changed_predictions == 0:
        return gaps + " " + _("The model computes the same thing wherever the text starts, up to float32 rounding "
                              "(the rotated queries and keys differ in their last digits).")
    if rounding:
        return gaps + " " + _("The logits and weights moved by float32 rounding only; where the two best next tokens "
                              "were almost tied, that was enough to swap them.")
    return gaps + " " + _("The differences are larger than float32 rounding gives (a ten-thousandth of the largest "
                          "logit, or of a weight).")


def minilm_shift_statement(similarity: float | None, shift: int, tokens: int) -> str:
    """A learned-position model's counterpart: how alike the rows it would add are (``None``: the
    shifted slots are past its 512 rows)."""
    if shift == 0:
        return _("MiniLM, with a learned row per slot, would see the same rows too at c = 0.")
    if similarity is None:
        return _("A model with learned absolute positions could not even read a text this long at c = {shift}: "
                 "MiniLM has a learned row for each of 512 slots, and a text of {tokens} pieces would end in slot "
                 "{last}.").format(shift=number(shift, ","), tokens=tokens, last=number(shift + tokens - 1, ","))
    return _("A model with learned absolute positions has no such freedom: MiniLM adds row i of its table to the word "
             "piece in slot i, and for a text of {tokens} pieces the rows of slots c to c + {last} are not those of "
             "slots 0 to {last} (mean cosine similarity of the two rows of each slot pair: {similarity}), so its "
             "input, and everything after it, changes.").format(tokens=tokens, last=tokens - 1,
                                                                similarity=number(similarity, ".2f"))


def _heads(mask: torch.Tensor, limit: int = 4) -> str:
    found = [(int(lay), int(h)) for lay, h in mask.nonzero().tolist()]
    shown = ", ".join(f"{lay}.{h}" for lay, h in found[:limit])
    if len(found) > limit:
        return _("{heads} and {count} more").format(heads=shown, count=len(found) - limit)
    return shown


def habits_statement(habits: llama.HeadHabits, tokens: int) -> str:
    """How many heads are attention sinks, previous-token heads, and which looks farthest back."""
    total = habits.sink.numel()
    sinks = habits.sink > MOST
    previous = habits.previous > MOST
    n_sinks, n_prev = int(sinks.sum()), int(previous.sum())
    if tokens < 3:
        return _("With fewer than three tokens, the first token is also the one just before every query that can look "
                 "back: write a longer text to tell attention sinks from previous-token heads.")
    parts = []
    if n_sinks:
        layers = sinks.any(dim=1).nonzero().flatten().tolist()
        all_layers = habits.sink.shape[0]
        where = ngettext("in {found} of the {count} layer, the first of them layer {first}",
                         "in {found} of the {count} layers, the first of them layer {first}", all_layers).format(
            found=len(layers), count=all_layers, first=layers[0])
        parts.append(ngettext(
            "{count} of the {total} heads puts more than half of its weight on the first token (attention sinks: a "
            "place to park attention that has nowhere better to go), {where}",
            "{count} of the {total} heads put more than half of their weight on the first token (attention sinks: a "
            "place to park attention that has nowhere better to go), {where}", n_sinks).format(
            count=n_sinks, total=total, where=where))
    else:
        parts.append(_("none of the {total} heads puts more than half of its weight on the first token").format(
            total=total))
    if n_prev:
        parts.append(ngettext(
            "{count} head (layer.head {heads}) puts more than half on the token just before: previous-token head, "
            "which needs positions to find the neighbour",
            "{count} heads (layer.head {heads}) put more than half on the token just before: previous-token heads, "
            "which need positions to find the neighbour", n_prev).format(count=n_prev, heads=_heads(previous)))
    else:
        parts.append(_("no head puts more than half of its weight on the token just before"))
    far = int(habits.distance.flatten().argmax())
    lay, h = divmod(far, habits.distance.shape[1])
    text = "; ".join(parts)
    return _("Averaged over the queries 2 to {last} (for query 1 the first token is also the one just before): "
             "{findings}. The head that looks farthest back on average is layer {layer}, head {head}: {distance} "
             "tokens back.").format(last=tokens - 1, findings=text[0].upper() + text[1:], layer=lay, head=h,
                                    distance=number(float(habits.distance[lay, h]), ".1f"))


def offset_statement(scores: llama.OffsetScores, layer: int) -> str:
    """How the scores of one layer's heads move with the offset, against RoFormer's bound."""
    s = scores.scores
    far = int(scores.offsets[-1])
    start, end = s[:, 0], s[:, -1]
    shrink = start.abs() - end.abs()  # how much smaller in size each score is far away
    smaller = int((shrink > 0).sum())
    heads = s.shape[0]
    if smaller:
        h = int(shrink.argmax())
        change = _("head {head} shrinks most in size (from {start} to {end})")
    else:
        h = int(shrink.argmin())
        change = _("none shrinks, and head {head} grows most in size (from {start} to {end})")
    change = change.format(head=h, start=number(float(start[h]), ".2f"), end=number(float(end[h]), ".2f"))
    bound = float(scores.bound[-1])
    return ngettext(
        "Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score {start_low} to "
        "{start_high}, at offset {far} {end_low} to {end_high}; {count} of the {heads} scores is smaller in size at "
        "{far} than at 0, and {change}. RoFormer's bound on how large a score can be falls to {bound} of its offset-0 "
        "value by offset {far}: a bound over every content, not a prediction of one head's score, which can rise and "
        "fall in between.",
        "Layer {layer}, the text's mean query against its mean key: at offset 0 the {heads} heads score {start_low} to "
        "{start_high}, at offset {far} {end_low} to {end_high}; {count} of the {heads} scores are smaller in size at "
        "{far} than at 0, and {change}. RoFormer's bound on how large a score can be falls to {bound} of its offset-0 "
        "value by offset {far}: a bound over every content, not a prediction of one head's score, which can rise and "
        "fall in between.", smaller).format(
        layer=layer, heads=heads, start_low=number(float(start.min()), ".2f"),
        start_high=number(float(start.max()), ".2f"), far=number(far, ","), end_low=number(float(end.min()), ".2f"),
        end_high=number(float(end.max()), ".2f"), count=smaller, change=change, bound=number(bound, ".2f"))


def _percent(share: float) -> str:
    return local_number(f"{share:.0%}")


def pairs_statement(shares: llama.PairShares) -> str:
    """How much of the queries' and keys' norm the slowest and the fastest quarter of pairs hold."""
    pairs = shares.query.shape[-1]
    quarter = max(1, pairs // 4)
    q_slow = float(shares.query[..., -quarter:].sum(-1).mean())
    q_fast = float(shares.query[..., :quarter].sum(-1).mean())
    k_slow = float(shares.key[..., -quarter:].sum(-1).mean())
    k_fast = float(shares.key[..., :quarter].sum(-1).mean())
    even = quarter / pairs
    if q_slow > q_fast and k_slow > k_fast:
        verdict = _("the slow pairs hold more than the fast ones for both, as Barbero et al. (2024) found the slowest "
                    "pairs taking the largest share of the norm in Gemma 7B (pairs that barely turn over a text can "
                    "carry content rather than position)")
    elif q_slow > q_fast:
        verdict = _("the slow pairs hold more for the queries but not for the keys, where Barbero et al. (2024) found "
                    "the slowest pairs taking the largest share of the norm in Gemma 7B")
    elif k_slow > k_fast:
        verdict = _("the slow pairs hold more for the keys but not for the queries, where Barbero et al. (2024) found "
                    "the slowest pairs taking the largest share of the norm in Gemma 7B")
    else:
        verdict = _("the slow pairs hold no more than the fast ones, unlike what Barbero et al. (2024) found the "
                    "slowest pairs taking the largest share of the norm in Gemma 7B")
    return ngettext(
        "Averaged over every head, the {count} slowest pair hold {q_slow} of the queries' norm and {k_slow} of the "
        "keys', the {count} fastest {q_fast} and {k_fast} (an even spread would give {even} each): {verdict}.",
        "Averaged over every head, the {count} slowest pairs hold {q_slow} of the queries' norm and {k_slow} of the "
        "keys', the {count} fastest {q_fast} and {k_fast} (an even spread would give {even} each): {verdict}.",
        quarter).format(count=quarter, q_slow=_percent(q_slow), k_slow=_percent(k_slow), q_fast=_percent(q_fast),
                        k_fast=_percent(k_fast), even=_percent(even), verdict=verdict)


def conventions_statement(c: llama.Conventions) -> str:
    """What the wrong pairing does to the next-token loss, and that reordering brings it back."""
    if f"{c.reordered:.3f}" == f"{c.right:.3f}":
        back = _("gives {loss} again").format(loss=local_number(f"{c.reordered:.3f}"))
    else:
        back = _("gives {loss} against {right}").format(loss=local_number(f"{c.reordered:.4f}"),
                                                         right=local_number(f"{c.right:.4f}"))
    losses = dict(count=c.scored, right=local_number(f"{c.right:.3f}"), wrong=local_number(f"{c.wrong:.3f}"),
                  right_perplexity=number(min(float(torch.tensor(c.right).exp()), 1e30), ".3g"),
                  wrong_perplexity=number(min(float(torch.tensor(c.wrong).exp()), 1e30), ".3g"))
    if c.wrong > c.right:
        text = ngettext(
            "With the file's pairing (adjacent rows of each head) the next-token loss over the {count} scored token is "
            "{right} nats per token; rotating split halves of the same rows gives {wrong} (worse, perplexity "
            "{right_perplexity} → {wrong_perplexity}).",
            "With the file's pairing (adjacent rows of each head) the next-token loss over the {count} scored tokens "
            "is {right} nats per token; rotating split halves of the same rows gives {wrong} (worse, perplexity "
            "{right_perplexity} → {wrong_perplexity}).", c.scored)
    else:
        text = ngettext(
            "With the file's pairing (adjacent rows of each head) the next-token loss over the {count} scored token is "
            "{right} nats per token; rotating split halves of the same rows gives {wrong} (no worse on this text, "
            "perplexity {right_perplexity} → {wrong_perplexity}).",
            "With the file's pairing (adjacent rows of each head) the next-token loss over the {count} scored tokens "
            "is {right} nats per token; rotating split halves of the same rows gives {wrong} (no worse on this text, "
            "perplexity {right_perplexity} → {wrong_perplexity}).", c.scored)
    return text.format(**losses) + " " + _(
        "Reordering each head's rows first {back} (largest logit difference {gap}): the two conventions are one "
        "rotation, with its dimensions permuted.").format(
        back=back, gap=number(c.reordered_gap, ".1g"))


def rollout_statement(name: str, tokens: tuple[str, ...], row: torch.Tensor, layer: int) -> str:
    """Where the rollout of the last token's position traces its input, after ``layer``."""
    T = len(tokens)
    order = row.argsort(descending=True).tolist()
    top = ", ".join(f"{i} {tokens[i]!r} {local_number(f'{float(row[i]):.1%}')}" for i in order[:3])
    return _("{name}, after layer {layer}: rollout traces {first_share} of the last position's input to the first "
             "token {first} and {last_share} to the last token itself; the largest shares: {top}.").format(
        name=name, layer=layer, first_share=local_number(f"{float(row[0]):.1%}"), first=repr(tokens[0]),
        last_share=local_number(f"{float(row[T - 1]):.1%}"), top=top)


# cached work -----------------------------------------------------------------------------------


# The model's runs hold numbers only (one cache for every language); the page shows their spinners
# in the reader's language (LOADING, RUNNING, SHIFTING, RUNNING_MINILM). Charts hold words: cached
# per language, each drawn from the same runs.
LOADING = N_("Loading SmolLM2 (once for this server)…")
RUNNING = N_("Running SmolLM2 on the text…")
SHIFTING = N_("Running the shifted text…")
RUNNING_MINILM = N_("Running MiniLM on the text…")
RECOMPUTING = N_("Running SmolLM2 on the first tokens with each rule…")


@shared()
def shared_model() -> llama.loaded.SmolLM2:
    return pekit.smollm2()


@shared(max_entries=8)
def run_view(text: str) -> Run:
    """Raises ``ValueError`` when the text has fewer than three tokens (with two, the first token is also
    the one just before the only query that can look back) or more than :data:`MAX_PAGE_TOKENS`."""
    model = shared_model()
    ids = model.tokenize(text)
    if len(ids) < 3:
        raise ValueError(_("The text has fewer than three tokens: write a few words for the model to read."))
    if len(ids) > MAX_PAGE_TOKENS:  # 300 characters of some scripts are over a thousand tokens
        raise ValueError(_("The text reads as {count} tokens; this page runs the model on at most {limit}. Shorten "
                           "it.").format(count=number(len(ids), ","), limit=MAX_PAGE_TOKENS))
    attentions = model.attentions(ids)
    q, k = model.queries_keys(ids)
    return Run(tuple(ids), tuple(model.pieces(ids)), attentions, llama.head_habits(attentions),
               llama.pair_shares(q, k, model.inv_freq), llama.conventions(model, ids), attention_rollout(attentions),
               q, k)


@shared(max_entries=16)
def shift_view(text: str, shift: int) -> llama.ShiftEffect:
    return llama.shift_effect(shared_model(), run_view(text).ids, shift)


@shared(max_entries=4)
def minilm_rows_similarity(tokens: int, shift: int) -> float | None:
    """Mean cosine similarity of MiniLM's position rows i and i + c, i < tokens (None where MiniLM
    is absent or its 512 rows do not reach)."""
    if model_missing() is not None or shift + tokens > 512:
        return None
    table = pekit.pretrained_position_table(device="cpu").double()
    a, b = table[:tokens], table[shift:shift + tokens]
    return float(torch.nn.functional.cosine_similarity(a, b, dim=-1).mean())


@shared(max_entries=16)
def offsets_view(text: str, layer: int, max_offset: int) -> llama.OffsetScores:
    run = run_view(text)  # the queries and keys of the run: no second pass through the model
    return llama.offset_scores(run.queries[layer], run.keys[layer], shared_model().inv_freq, max_offset)


@shared(max_entries=4)
def minilm_rollout(text: str) -> MiniLMRollout | None:
    if model_missing() is not None:
        return None
    result = pekit.pretrained_attention(text, device="cpu")
    return MiniLMRollout(tuple(result.tokens), attention_rollout(result.attentions)[-1], result.attentions.shape[0] - 1)


# charts ----------------------------------------------------------------------------------------


@localized_resource(max_entries=16)
def shift_chart(text: str, shift: int) -> dict:
    gaps = shift_view(text, shift).layer_gaps
    frame = pd.DataFrame({"layer": range(len(gaps)), "gap": gaps.numpy()})  # on a weight's whole scale, 0 to 1
    return charts.line_chart(frame, x="layer", y="gap", x_title=_("layer"), y_title=_("largest change of a weight"),
                             points=True, y_domain=(0.0, 1.0), height=220).spec()


@localized_resource(max_entries=16)
def habits_charts(text: str) -> tuple[dict, dict]:
    h = run_view(text).habits
    sink = charts.heatmap(h.sink.float(), x_title=_("head"), y_title=_("layer"),
                          value_title=_("weight on the first token"), palette="sequential", domain=(0.0, 1.0),
                          height=300)
    prev = charts.heatmap(h.previous.float(), x_title=_("head"), y_title=_("layer"),
                          value_title=_("weight on the token before"), palette="sequential", domain=(0.0, 1.0),
                          height=300)
    return sink.spec(), prev.spec()


@localized_resource(max_entries=16)
def map_chart(text: str, layer: int, head: int) -> dict:
    run = run_view(text)
    return charts.token_heatmap(run.attentions[layer, head], run.tokens, run.tokens, legend="right").spec()


@localized_resource(max_entries=16)
def offsets_charts(text: str, layer: int, head: int, max_offset: int) -> tuple[dict, dict]:
    """One head's score against the offset, and RoFormer's bound."""
    o = offsets_view(text, layer, max_offset)
    frame = pd.DataFrame({"offset": o.offsets.numpy(), "score": o.scores[head].numpy()})
    scores = charts.line_chart(frame, x="offset", y="score", x_title=_("offset m − n"),
                               y_title=_("score (mean query · mean key)"), height=260)
    bound = charts.line_chart(pd.DataFrame({"offset": o.offsets.numpy(), "bound": o.bound.numpy()}), x="offset",
                              y="bound", x_title=_("offset m − n"), y_title=_("RoFormer's bound (1 at 0)"), height=200)
    return scores.spec(), bound.spec()


@localized_resource(max_entries=16)
def pairs_charts(text: str, layer: int) -> tuple[dict, dict]:
    s = run_view(text).shares
    layer_map = charts.heatmap(s.query[layer].float(), x_title=_("rotary pair (fastest 0 → slowest 31)"),
                               y_title=_("query head"), value_title=_("share of the norm"), palette="sequential",
                               domain=None, height=240)
    pairs = s.query.shape[-1]
    frame = pd.DataFrame({"pair": list(range(pairs)) * 2,
                          "share": torch.cat([s.query.mean(dim=(0, 1)), s.key.mean(dim=(0, 1))]).numpy(),
                          "of": [_("queries")] * pairs + [_("keys")] * pairs})
    mean = charts.line_chart(frame, x="pair", y="share", series="of", x_title=_("rotary pair (fastest 0 → slowest 31)"),
                             y_title=_("mean share of the norm"), series_title=_("vectors"), points=True, height=240)
    return layer_map.spec(), mean.spec()


def _rollout_map(tokens: tuple[str, ...], rollout: torch.Tensor) -> dict:
    return charts.token_heatmap(rollout.float(), tokens, tokens, x_title=_("input token"), y_title=_("position"),
                                value_title=_("rollout"), scale="max", legend="right").spec()


@localized_resource(max_entries=16)
def rollout_chart(text: str, layer: int) -> dict:
    run = run_view(text)
    return _rollout_map(run.tokens, run.rollout[layer])


@localized_resource(max_entries=4)
def minilm_rollout_chart(text: str) -> dict | None:
    view = minilm_rollout(text)
    return None if view is None else _rollout_map(view.tokens, view.rollout)


# past the context ------------------------------------------------------------------------------

# the rules as the chart and the sentences name them
RULE_NAMES = {"plain": N_("plain RoPE"), "linear": N_("linear interpolation ×2"), "ntk": N_("NTK-aware ×2")}
LIVE_TOKENS = 512  # the first positions the page recomputes live (three runs of a few seconds on a CPU)
SAME = 0.05  # nats per token: two losses closer than this read as the same
BREAKS = 0.5  # nats per token: a loss this much higher past the context than inside it has broken down


def context_windows(results: llama.LongContext) -> dict[str, tuple[float, float]]:
    """Each rule's mean loss inside the context (positions 0 to context − 1) and past it (to the
    last position with a next token, tokens − 2)."""
    last = results.tokens - 1
    return {rule: (results.window(rule, 0, min(results.context, last)), results.window(rule, results.context, last))
            for rule in llama.RULES}


def _nats(value: float) -> str:
    return number(value, ".2f")


def context_statement(results: llama.LongContext) -> str:
    """What the loss does past the context, rule by rule, and which rule reads the far half best."""
    w = context_windows(results)
    inside, past = w["plain"]
    # the loss at position t scores the token after it: positions 0 to tokens − 2 have one
    span = {"context": number(results.context, ","), "last": number(results.context - 1, ","),
            "end": number(results.tokens - 2, ",")}
    first = _("With plain RoPE the loss is {inside} nats per token inside the context (positions 0 to {last}) and "
              "{past} past it ({context} to {end})").format(inside=_nats(inside), past=_nats(past), **span)
    if past - inside >= BREAKS:
        first += _(": {gap} nats more, the model breaks down where it never saw positions.").format(
            gap=_nats(past - inside))
    elif past - inside > SAME:
        first += _(": {gap} nats more, worse but not broken.").format(gap=_nats(past - inside))
    elif inside - past > SAME:
        first += _(": {gap} nats less, the far half reads better.").format(gap=_nats(inside - past))
    else:
        first += _(": about the same.")
    rules = _("Linear interpolation ×2 gives {li} inside and {lp} past; NTK-aware ×2 gives {ni} and {np}.").format(
        li=_nats(w["linear"][0]), lp=_nats(w["linear"][1]), ni=_nats(w["ntk"][0]), np=_nats(w["ntk"][1]))
    best = min(llama.RULES, key=lambda rule: w[rule][1])
    others = [w[rule][1] for rule in llama.RULES if rule != best]
    if min(others) - w[best][1] <= SAME:
        last = _("Past the context no rule is clearly best: the lowest loss, {rule}'s {value}, is within {same} nats "
                 "of another.").format(rule=_(RULE_NAMES[best]), value=_nats(w[best][1]), same=number(SAME, ".2f"))
    else:
        last = _("Past the context {rule} reads best ({value} nats per token).").format(
            rule=_(RULE_NAMES[best]), value=_nats(w[best][1]))
    return " ".join([first, rules, last])


def papers_statement(results: llama.LongContext) -> str:
    """What the papers report, and whether this model on this text agrees."""
    w = context_windows(results)
    broke = w["plain"][1] - w["plain"][0] >= BREAKS
    bounded = w["linear"][1] < w["plain"][1]
    costs = w["linear"][0] - w["plain"][0]
    text = _("Chen et al. (2023) report that a RoPE model's perplexity explodes past its training length, and that "
             "position interpolation keeps it bounded at some cost inside the original window (removed by a short "
             "fine-tuning). ")
    if broke and bounded:
        text += _("Here too: plain RoPE breaks down past the context and linear interpolation stays lower there")
    elif bounded:
        text += _("Here plain RoPE does not break down on this text, and linear interpolation is still lower past "
                  "the context")
    else:
        text += _("Here linear interpolation is not lower than plain RoPE past the context")
    if costs > SAME:
        text += _(", and costs {cost} nats inside it.").format(cost=_nats(costs))
    else:
        text += _(", at no cost inside it.")
    ntk = w["ntk"][0] - w["plain"][0]
    text += " " + _("The NTK-aware rule (bloc97, 2023) was proposed to extend a model without fine-tuning by slowing "
                    "the slow pairs and barely touching the fast ones: inside the context it is {gap} nats from plain "
                    "RoPE.").format(gap=number(abs(ntk), ".2f"))
    return text


def context_caption(results: llama.LongContext) -> str:
    """How the shipped curve was computed, and where."""
    return _("The first {tokens} tokens of Theodore Roosevelt's 1907 message to Congress (public domain, shipped with "
             "pekit), each point the mean over {bucket} positions, computed once by `python -m pekit.llama.context "
             "regenerate` ({machine}; up to {seconds} s per rule).").format(
        tokens=number(results.tokens, ","), bucket=results.bucket, machine=results.machine,
        seconds=number(max(results.seconds.values()), ",.0f"))


def live_statement(live: dict[str, float], shipped: dict[str, float], tokens: int) -> str:
    """The first ``tokens`` positions recomputed now against the shipped run's."""
    gap = max(abs(live[rule] - shipped[rule]) for rule in llama.RULES)
    fields = dict(tokens=number(tokens, ","), p=number(live["plain"], ".4f"), l=number(live["linear"], ".4f"),
                  n=number(live["ntk"], ".4f"), sp=number(shipped["plain"], ".4f"), sl=number(shipped["linear"], ".4f"),
                  sn=number(shipped["ntk"], ".4f"))
    if gap <= 1e-3:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap}: the same, to float rounding).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap}: the same, to float "
            "rounding).", tokens), number(gap, ".1e")
    else:
        message, shown = ngettext(
            "Recomputed now on the first token: plain {p}, linear {l}, NTK {n} nats per token; the shipped run gives "
            "{sp}, {sl} and {sn} for the same position (largest difference {gap} nats: another machine's or "
            "version's arithmetic).",
            "Recomputed now on the first {tokens} tokens: plain {p}, linear {l}, NTK {n} nats per token; the shipped "
            "run gives {sp}, {sl} and {sn} for the same positions (largest difference {gap} nats: another machine's "
            "or version's arithmetic).", tokens), number(gap, ".2g")
    return message.format(gap=shown, **fields)


@shared()
def shipped_context() -> llama.LongContext:
    return llama.shipped_context()


@localized_resource(max_entries=2)
def context_chart() -> dict:
    """The loss by position of each rule, with the context marked."""
    results = shipped_context()
    rows = [{"position": k * results.bucket, "loss": value, "rule": _(RULE_NAMES[rule])}
            for rule in llama.RULES for k, value in enumerate(results.means[rule])]
    return charts.line_chart(pd.DataFrame(rows), x="position", y="loss", series="rule",
                             x_title=_("Position in the text (each point: the {bucket} tokens from there)").format(bucket=results.bucket),
                             y_title=_("Next-token loss (nats)"), series_title=_("RoPE frequencies"),
                             marks={_("end of the context"): results.context}, height=300).spec()


@shared(max_entries=1)
def context_live(tokens: int = LIVE_TOKENS) -> tuple[dict[str, float], dict[str, float]]:
    """The first ``tokens`` positions recomputed now (mean loss per rule), beside the shipped
    run's mean over the same positions; one run per server, shared by every session."""
    model = shared_model()
    ids = model.tokenize(llama.long_text())[:tokens + 1]
    live = {rule: float(loss.double().mean()) for rule, loss in llama.loss_by_rule(model, ids).items()}
    results = shipped_context()
    return live, {rule: results.window(rule, 0, tokens) for rule in llama.RULES}


CONTEXT_RANGES = (0, 2048, 4096, 8192, 12288, 16384)  # the table's runs of positions (the last cut to the text)


def context_table(results: llama.LongContext) -> pd.DataFrame:
    """Each rule's mean loss over the positions 0–2,047, 2,048–4,095, 4,096–8,191 (to the end of
    the context), 8,192–12,287 and 12,288 to the text's last position."""
    last = results.tokens - 1
    rows = []
    for start, stop in zip(CONTEXT_RANGES, CONTEXT_RANGES[1:]):
        stop = min(stop, last)
        if start >= stop:
            break
        row = {"positions": f"{number(start, ',')}–{number(stop - 1, ',')}"}
        row.update({rule: results.window(rule, start, stop) for rule in llama.RULES})
        rows.append(row)
    return pd.DataFrame(rows, columns=["positions", *llama.RULES])
