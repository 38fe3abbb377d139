"""RoPE inside a real language model: SmolLM2-135M-Instruct, its 4-bit (Q4_1) weights dequantised to
float32 (30 layers of 9 query heads sharing 3 key/value heads, RoPE base 100,000, trained on 8,192
positions: its file's config), run by pekit's own decoder on the reader's text.

The views of ``pages/rope_in_a_real_model.py``: cached records of what each section shows
(``pekit.llama``'s microscope computes, ``pekit.charts`` draws), and the functions that turn a
record into the sentences stating its numbers. The page is listed only where the optional extra
is installed (:mod:`lab.registry`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

import pekit
from pekit import charts, llama, pretrained
from pekit.llama.files import MODEL_NAME, QUANTISATION
from pekit.rollout import attention_rollout, ranked_shares
from lab.claims import Claim, Reference, Said
from lab.memo import shared
from lab.display import number
from lab.i18n import N_, _, local_number, localized_resource, ngettext
from lab.settings import IntSetting, TextSetting
from lab.views.minilm_lookups import model_missing

if TYPE_CHECKING:
    from torch import Tensor

# SmolLM2 was trained on English: its default text stays English in every language (data, not prose)
DEFAULT_TEXT = "Alice gave the book to Bob, and then Bob gave the book back to Alice because she had read it."
TEXT = TextSetting("text", N_("Your text"), default=DEFAULT_TEXT, max_chars=300)
SHIFT = IntSetting("shift", N_("Shift every position by c"), default=1000, minimum=0, maximum=16_000)
LAYER = IntSetting("layer", N_("Layer"), default=6, minimum=0, maximum=29)
HEAD = IntSetting("head", N_("Head"), default=0, minimum=0, maximum=8)
MAX_OFFSET = IntSetting("offset", N_("Largest offset"), default=512, minimum=16, maximum=16_384)
SETTINGS = [TEXT, SHIFT, LAYER, HEAD, MAX_OFFSET]
MOST = 0.5  # a head "puts most of its weight" somewhere above this share
ROUNDING_ROOM = 10  # a shift's changes read as rounding while within ten times the rounding-only control's
MINILM_SLOTS = 512  # MiniLM's learned position rows (its config's max_position_embeddings)
MAX_PAGE_TOKENS = 160  # every layer's attention of a 160-token text: 28 MB, kept per text across sessions


# records ---------------------------------------------------------------------------------------


class Run(NamedTuple):
    """The model on one text: its tokens (as the text they stand for), every layer's attention,
    where the heads look, the norm per rotary pair and the rollout."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    attentions: Tensor  # (layers, heads, T, T) float32
    habits: llama.HeadHabits
    shares: llama.PairShares
    rollout: Tensor  # (layers, T, T) float64
    queries: Tensor  # (layers, heads, T, head_dim), before rotation: kept for the offset curves
    keys: Tensor  # (layers, kv_heads, T, head_dim)

    @property
    def count(self) -> int:
        return len(self.tokens)

    @property
    def listing(self) -> str:
        """The tokens as the model reads them, each quoted."""
        return ngettext("{count} token: {tokens}", "{count} tokens: {tokens}", len(self.tokens)).format(
            count=len(self.tokens), tokens=" | ".join(repr(t) for t in self.tokens))

    def last_row(self, layer: int) -> Tensor:
        """The rollout of the last position after ``layer``, ``(T,)``."""
        return self.rollout[layer, -1]


class MiniLMRollout(NamedTuple):
    """MiniLM's rollout after its last layer (``layer``, counted from 0), on its word pieces
    ([CLS] first, [SEP] last)."""

    tokens: tuple[str, ...]
    rollout: Tensor  # (T, T) float64
    layer: int

    @property
    def last_row(self) -> Tensor:
        return self.rollout[-1]


# sentences from numbers ------------------------------------------------------------------------


def model_statement(config: llama.SmolLM2Config) -> Said:
    """The model's sizes, as its file gives them."""
    c = config
    # one whole message per case: the key/value heads counted by ngettext, one layer and one query
    # head each by their own message; the model's name and weights are fixed names, not translated
    if c.num_layers == 1 and c.num_heads == 1:
        text = ngettext("{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layer, "
                        "{heads} query head sharing {count} key/value head of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.",
                        "{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layer, "
                        "{heads} query head sharing {count} key/value heads of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.", c.num_kv_heads)
    elif c.num_layers == 1:
        text = ngettext("{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layer, "
                        "{heads} query heads sharing {count} key/value head of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.",
                        "{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layer, "
                        "{heads} query heads sharing {count} key/value heads of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.", c.num_kv_heads)
    elif c.num_heads == 1:
        text = ngettext("{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layers, "
                        "{heads} query head sharing {count} key/value head of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.",
                        "{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layers, "
                        "{heads} query head sharing {count} key/value heads of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.", c.num_kv_heads)
    else:
        text = ngettext("{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layers, "
                        "{heads} query heads sharing {count} key/value head of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.",
                        "{model} (its 4-bit {quantisation} weights, dequantised to float32): {layers} layers, "
                        "{heads} query heads sharing {count} key/value heads of {dims} dimensions, RoPE base {base}, "
                        "trained on {positions} positions.", c.num_kv_heads)
    return Said(text.format(
        model=MODEL_NAME, quantisation=QUANTISATION, layers=c.num_layers, heads=c.num_heads, count=c.num_kv_heads,
        dims=c.head_dim, base=local_number(f"{c.rope_base:,g}"), positions=number(c.context_length, ",")),
        [Claim("layers", c.num_layers), Claim("query heads", c.num_heads), Claim("key/value heads", c.num_kv_heads),
         Claim("dimensions of a head", c.head_dim), Claim("RoPE base", c.rope_base),
         Claim("positions trained on", c.context_length)])


def pairs_caption(config: llama.SmolLM2Config) -> Said:
    """How fast the first and the last rotary pair turn, and what a pair's share is."""
    pairs = config.head_dim // 2
    freqs = pekit.rope_frequencies(config.head_dim, base=config.rope_base)
    fast, slow = 2 * math.pi / float(freqs[0]), 2 * math.pi / float(freqs[-1])
    return Said(_("Pair j turns by θ_j = {base}^(−2j/{dims}) radians per position: pair 0 once every {fast} positions, "
                  "pair {last} once every {slow}. A pair's share: its mean length over the text's tokens, over the sum "
                  "of all {pairs}.").format(base=local_number(f"{config.rope_base:g}"), dims=config.head_dim,
                                            fast=number(fast, ".3g"), last=pairs - 1, slow=number(slow, ",.0f"),
                                            pairs=pairs),
                [Claim("RoPE base", config.rope_base), Claim("dimensions of a head", config.head_dim),
                 Claim("positions per turn of pair 0", fast), Claim("last pair", pairs - 1),
                 Claim("positions per turn of the last pair", slow), Claim("pairs", pairs)])


def layout_statement(config: llama.SmolLM2Config) -> Said:
    """Which rows of a head each convention pairs."""
    return Said(_("The file pairs rows (2j, 2j + 1) of each head's queries and keys; Hugging Face's Llama code pairs "
                  "row j with row j + {half}, reordering the rows as it reads the file. Rotating the wrong pairs of "
                  "the same weights:").format(half=config.head_dim // 2),
                [Claim("rows between the two of a pair in Hugging Face's pairing", config.head_dim // 2)])


class ShiftView(NamedTuple):
    """What moving every position by the shift changed (``effect``), beside a rounding-only
    control on the same text: the same run with each head's rows reordered into split halves (the
    same arithmetic in another order), its largest change of a logit (``control_logit``) and of an
    attention weight (``control_weight``)."""

    effect: llama.ShiftEffect
    control_logit: float
    control_weight: float


def shift_statement(view: ShiftView) -> Said:
    """What moving every position by c changed, against what rounding alone changes on the same
    text (the control): within :data:`ROUNDING_ROOM` times it, the shift changed nothing but rounding."""
    effect = view.effect
    c, T = effect.shift, effect.tokens
    if c == 0:
        return Said(_("With c = 0 both runs are the same run: move the slider to shift every position."),
                    [Claim("shift", 0)])
    # one whole message per case: the tokens counted by ngettext, a shift of one position by its own message
    gaps = (ngettext(
        "The {count} token moved {shift} position on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.",
        "All {count} tokens moved {shift} position on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.", T) if c == 1 else ngettext(
        "The {count} token moved {shift} positions on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.",
        "All {count} tokens moved {shift} positions on: the largest change of a logit is {logit_gap} (the "
        "largest logit in size is {logit_scale}), of an attention weight {weight_gap}, and {changed} of the {count} "
        "next-token predictions changed.", T)).format(
        count=T, shift=number(c, ","), logit_gap=number(effect.logit_gap, ".2g"),
        logit_scale=number(effect.logit_scale, ".3g"), weight_gap=number(effect.attention_gap, ".2g"),
        changed=effect.changed_predictions)
    logit_room, weight_room = ROUNDING_ROOM * view.control_logit, ROUNDING_ROOM * view.control_weight
    how = ("ten times the largest change of a {} between the run at positions 0 to T − 1 and the same run with each "
           "head's rows reordered (rounding alone)")
    rounding = effect.logit_gap <= logit_room and effect.attention_gap <= weight_room
    relation = "at most" if rounding else "above"
    claims = [Claim("largest change of a logit", effect.logit_gap, "at most" if rounding else None,
                    Reference(logit_room, how.format("logit")) if rounding else None),
              Claim("largest change of an attention weight", effect.attention_gap, "at most" if rounding else None,
                    Reference(weight_room, how.format("weight")) if rounding else None),
              Claim("predictions changed", effect.changed_predictions)]
    if not rounding:  # the larger of the two, over its control
        over = max(effect.logit_gap / logit_room if logit_room else math.inf,
                   effect.attention_gap / weight_room if weight_room else math.inf)
        claims.append(Claim("larger change over ten times its rounding-only control", over, relation,
                            Reference(1.0, "the change equal to ten times its control")))
    control = _("A run that differs by rounding alone (each head's rows reordered) changes a logit by up to {logit} "
                "and a weight by up to {weight}.").format(
        logit=number(view.control_logit, ".2g"), weight=number(view.control_weight, ".2g"))
    if rounding and effect.changed_predictions == 0:
        verdict = _("The shift's changes are within ten times those: the model computes the same thing wherever the "
                    "text starts, up to float32 rounding.")
    elif rounding:
        verdict = _("The shift's changes are within ten times those, rounding only; where the two best next tokens "
                    "were almost tied, that was enough to swap them.")
    else:
        verdict = _("The shift changes more than ten times that: more than rounding.")
    return Said(" ".join([gaps, control, verdict]), claims)


class MiniLMShift(NamedTuple):
    """The text as MiniLM reads it (``pieces``: its word pieces with [CLS] and [SEP]), and the mean
    cosine similarity of its position rows i and i + c over the slots the text fills (``None`` where
    the shifted slots are past its :data:`MINILM_SLOTS` rows)."""

    pieces: int
    similarity: float | None


def minilm_shift_statement(view: MiniLMShift, shift: int) -> Said:
    """A learned-position model's counterpart, on its own count of the text (its word pieces):
    how alike the rows it would add are, or that its rows do not reach."""
    if shift == 0:
        return Said(_("MiniLM, with a learned row per slot, would see the same rows too at c = 0."),
                    [Claim("shift", 0)])
    last = shift + view.pieces - 1
    if view.similarity is None:
        return Said(_("A model with learned absolute positions could not even read a text this long at c = {shift}: "
                      "MiniLM has a learned row for each of {slots} slots, and this text, {tokens} word pieces for "
                      "MiniLM with [CLS] and [SEP], would end in slot {last}.").format(
            shift=number(shift, ","), slots=MINILM_SLOTS, tokens=view.pieces, last=number(last, ",")),
            [Claim("last slot", last, "above", Reference(MINILM_SLOTS - 1, "MiniLM's last learned position row"))])
    return Said(_("A model with learned absolute positions has no such freedom: MiniLM adds row i of its table to the "
                  "word piece in slot i, and for this text, {tokens} word pieces for MiniLM with [CLS] and [SEP], the "
                  "rows of slots c to c + {last} are not those of slots 0 to {last} (mean cosine similarity of the two "
                  "rows of each slot pair: {similarity}), so its input, and everything after it, changes.").format(
        tokens=view.pieces, last=view.pieces - 1, similarity=number(view.similarity, ".2f")),
        [Claim("mean cosine similarity of rows i and i + c", view.similarity, "below",
               Reference(1.0, "the similarity of identical rows"))])


def _sinks_sentence(counts: llama.HabitCounts, last: int) -> tuple[str, list[Claim]]:
    """How many heads put more than half of their weight on the first token, and in which layers:
    one whole message per case."""
    total, all_layers = counts.heads, counts.layers
    count = counts.sinks
    fields = dict(last=last, total=total, count=count)
    if not count:
        return _("Averaged over the queries 2 to {last} (query 1's first token is also the one just before), none of "
                 "the {total} heads puts more than half of its weight on the first token.").format(**fields), []
    layers = list(counts.sink_layers)
    fields.update(found=len(layers), layers=all_layers, first=layers[0])
    claims = [Claim("heads with more than half on the first token", count),
              Claim("layers holding them", len(layers)), Claim("first layer holding one", layers[0])]
    if count == 1:
        text = _("Averaged over the queries 2 to {last} (query 1's first token is also the one just before), {count} of "
                 "the {total} heads puts more than half of its weight on the first token (an attention sink, Xiao et "
                 "al. 2023), in layer {first}.")
    elif len(layers) == 1:
        text = ngettext("Averaged over the queries 2 to {last} (query 1's first token is also the one just before), "
                        "{count} of the {total} heads puts more than half of its weight on the first token (an "
                        "attention sink, Xiao et al. 2023), all in layer {first}.",
                        "Averaged over the queries 2 to {last} (query 1's first token is also the one just before), "
                        "{count} of the {total} heads put more than half of their weight on the first token (attention "
                        "sinks, Xiao et al. 2023), all in layer {first}.", count)
    else:
        text = ngettext("Averaged over the queries 2 to {last} (query 1's first token is also the one just before), "
                        "{count} of the {total} heads puts more than half of its weight on the first token (an "
                        "attention sink, Xiao et al. 2023), in {found} of the {layers} layers, the first of them layer "
                        "{first}.",
                        "Averaged over the queries 2 to {last} (query 1's first token is also the one just before), "
                        "{count} of the {total} heads put more than half of their weight on the first token (attention "
                        "sinks, Xiao et al. 2023), in {found} of the {layers} layers, the first of them layer {first}.",
                        count)
    return text.format(**fields), claims


def _previous_sentence(found: tuple[tuple[int, int], ...], limit: int = 4) -> tuple[str, list[Claim]]:
    """How many heads put more than half of their weight on the token just before, the first
    ``limit`` of them named: one whole message per case."""
    found = list(found)
    if not found:
        return _("No head puts more than half of its weight on the token just before."), []
    listed = ", ".join(f"{lay}.{h}" for lay, h in found[:limit])
    claims = [Claim("heads with more than half on the token just before", len(found)),
              Claim("heads listed (layer, head)", tuple(found[:limit]))]
    if len(found) > limit:
        claims.append(Claim("heads not listed", len(found) - limit))
        return ngettext("{count} heads (layer.head {heads} and {more} more) put more than half on the token just "
                        "before: previous-token heads.",
                        "{count} heads (layer.head {heads} and {more} more) put more than half on the token just "
                        "before: previous-token heads.", len(found)).format(
            count=len(found), heads=listed, more=len(found) - limit), claims
    return ngettext("{count} head (layer.head {heads}) puts more than half on the token just before: a previous-token "
                    "head.",
                    "{count} heads (layer.head {heads}) put more than half on the token just before: previous-token "
                    "heads.", len(found)).format(count=len(found), heads=listed), claims


def habits_statement(habits: llama.HeadHabits, tokens: int) -> Said:
    """How many heads put more than half of their weight on the first token or on the one just
    before (each count claimed at its boundary heads against half), and which looks farthest back;
    each sentence one whole message."""
    if tokens < 3:
        return Said(_("With fewer than three tokens, the first token is also the one just before every query that can "
                      "look back: write a longer text to tell attention sinks from previous-token heads."),
                    [Claim("tokens", tokens, "below", Reference(3, "three tokens: query 2 is the first whose first "
                                                                   "token is not also the one just before"))])
    counts = llama.habit_counts(habits, MOST)
    half = Reference(MOST, "half of a head's weight")
    claims = [Claim("last query", tokens - 1), Claim("heads", counts.heads)]
    for name, least, most in (("first token", counts.least_sink, counts.most_other_sink),
                              ("token just before", counts.least_previous, counts.most_other_previous)):
        if least is not None:
            claims.append(Claim(f"least weight on the {name} of a head counted", least, "above", half))
        if most is not None:
            claims.append(Claim(f"most weight on the {name} of a head not counted", most, "at most", half))
    first, first_claims = _sinks_sentence(counts, tokens - 1)
    before, before_claims = _previous_sentence(counts.previous)
    lay, h = counts.farthest
    farthest = counts.farthest_distance
    claims += [*first_claims, *before_claims, Claim("head looking farthest back", (lay, h)),
               Claim("mean distance back of the head named farthest", farthest, "at least",
                     Reference(counts.largest_distance, "the largest mean distance back of any head"))]
    back = _("On average layer {layer}, head {head} looks farthest back: {distance} tokens.").format(
        layer=lay, head=h, distance=number(farthest, ".1f"))
    return Said(" ".join([first, before, back]), claims)


def _percent(share: float) -> str:
    return local_number(f"{share:.0%}")


def pairs_statement(shares: llama.PairShares) -> Said:
    """How much of the queries' and keys' norm the slowest and the fastest quarter of pairs hold,
    each compared with the other quarter (and an even spread shown beside them)."""
    pairs = shares.query.shape[-1]
    quarter = max(1, pairs // 4)
    q_slow = float(shares.query[..., -quarter:].sum(-1).mean())
    q_fast = float(shares.query[..., :quarter].sum(-1).mean())
    k_slow = float(shares.key[..., -quarter:].sum(-1).mean())
    k_fast = float(shares.key[..., :quarter].sum(-1).mean())
    even = quarter / pairs
    q_more, k_more = q_slow > q_fast, k_slow > k_fast
    claims = [Claim("queries' slowest quarter's share", q_slow, "above" if q_more else "at most",
                    Reference(q_fast, "the queries' fastest quarter's share")),
              Claim("keys' slowest quarter's share", k_slow, "above" if k_more else "at most",
                    Reference(k_fast, "the keys' fastest quarter's share")),
              Claim("an even spread's share", even)]
    # two sentences, each one whole message: the shares, with the quarter's pairs counted by their
    # ngettext, then one message per verdict
    if q_more and k_more:
        verdict = _("The slow pairs hold more than the fast ones for both, as Barbero et al. (2024) found the slowest "
                    "pairs taking the largest share of the norm in Gemma 7B.")
    elif q_more:
        verdict = _("The slow pairs hold more for the queries but not for the keys, where Barbero et al. (2024) found "
                    "the slowest pairs taking the largest share of the norm in Gemma 7B.")
    elif k_more:
        verdict = _("The slow pairs hold more for the keys but not for the queries, where Barbero et al. (2024) found "
                    "the slowest pairs taking the largest share of the norm in Gemma 7B.")
    else:
        verdict = _("The slow pairs hold no more than the fast ones, unlike what Barbero et al. (2024) found the "
                    "slowest pairs taking the largest share of the norm in Gemma 7B.")
    return Said(ngettext(
        "Averaged over every head, the {count} slowest pair holds {q_slow} of the queries' norm and {k_slow} of the "
        "keys', the {count} fastest {q_fast} and {k_fast} (an even spread would give {even} each).",
        "Averaged over every head, the {count} slowest pairs hold {q_slow} of the queries' norm and {k_slow} of the "
        "keys', the {count} fastest {q_fast} and {k_fast} (an even spread would give {even} each).",
        quarter).format(count=quarter, q_slow=_percent(q_slow), k_slow=_percent(k_slow), q_fast=_percent(q_fast),
                        k_fast=_percent(k_fast), even=_percent(even)) + " " + verdict, claims)


def conventions_statement(c: llama.Conventions) -> Said:
    """What the wrong pairing does to the next-token loss (against the file's pairing), and that
    reordering brings it back (to the digits printed)."""
    again = f"{c.reordered:.3f}" == f"{c.right:.3f}"  # the same to the three decimals printed
    # one whole message per case: the loss after reordering, the same again or against the file's
    back = (_("Reordering each head's rows first gives {loss} again (largest logit difference {gap}): the two "
              "conventions are one rotation, with its dimensions permuted.") if again else
            _("Reordering each head's rows first gives {loss} against {right} (largest logit difference {gap}): the "
              "two conventions are one rotation, with its dimensions permuted.")).format(
        loss=local_number(f"{c.reordered:.3f}" if again else f"{c.reordered:.4f}"),
        right=local_number(f"{c.right:.4f}"), gap=number(c.reordered_gap, ".1g"))
    losses = dict(count=c.scored, right=local_number(f"{c.right:.3f}"), wrong=local_number(f"{c.wrong:.3f}"),
                  right_perplexity=number(llama.perplexity(c.right), ".3g"),
                  wrong_perplexity=number(llama.perplexity(c.wrong), ".3g"))
    if c.wrong > c.right:
        text = ngettext(
            "With the file's pairing the next-token loss over the {count} scored token is "
            "{right} nats per token; rotating split halves of the same rows gives {wrong} (worse, perplexity "
            "{right_perplexity} → {wrong_perplexity}).",
            "With the file's pairing the next-token loss over the {count} scored tokens "
            "is {right} nats per token; rotating split halves of the same rows gives {wrong} (worse, perplexity "
            "{right_perplexity} → {wrong_perplexity}).", c.scored)
    else:
        text = ngettext(
            "With the file's pairing the next-token loss over the {count} scored token is "
            "{right} nats per token; rotating split halves of the same rows gives {wrong} (no worse on this text, "
            "perplexity {right_perplexity} → {wrong_perplexity}).",
            "With the file's pairing the next-token loss over the {count} scored tokens "
            "is {right} nats per token; rotating split halves of the same rows gives {wrong} (no worse on this text, "
            "perplexity {right_perplexity} → {wrong_perplexity}).", c.scored)
    right = Reference(c.right, "the loss with the file's pairing")
    claims = [Claim("loss with split halves", c.wrong, "above" if c.wrong > c.right else "at most", right)]
    if again:
        claims.append(Claim("loss after reordering", c.reordered, "equal",
                            Reference(c.right, "the loss with the file's pairing, to the 3 decimals printed", 5e-4)))
    else:
        claims.append(Claim("loss after reordering", c.reordered))
    return Said(text.format(**losses) + " " + back, claims)


def rollout_statement(name: str, tokens: tuple[str, ...], row: Tensor, layer: int) -> Said:
    """Where the rollout of the last token's position traces its input, after ``layer``; the
    largest shares listed, against the largest of those not listed."""
    T = len(tokens)
    order, shares = ranked_shares(row)
    top = ", ".join(f"{i} {tokens[i]!r} {local_number(f'{share:.1%}')}" for i, share in zip(order[:3], shares))
    claims = [Claim("layer", layer), Claim("share traced to the first token", float(row[0])),
              Claim("share traced to the last token", float(row[T - 1])),
              Claim("positions of the largest shares", tuple(order[:3])), Claim("largest shares", tuple(shares[:3]))]
    if T > 3:
        claims.append(Claim("smallest of the largest shares listed", shares[2], "at least",
                            Reference(shares[3], "the largest share of a position not listed")))
    return Said(_("{name}, after layer {layer}: rollout traces {first_share} of the last position's input to the "
                  "first token {first} and {last_share} to the last token itself; the largest shares: {top}.").format(
        name=name, layer=layer, first_share=local_number(f"{float(row[0]):.1%}"), first=repr(tokens[0]),
        last_share=local_number(f"{float(row[T - 1]):.1%}"), top=top), claims)


# cached work -----------------------------------------------------------------------------------


# The model's runs hold numbers only (one cache for every language); the page shows their spinners
# in the reader's language (LOADING, RUNNING, SHIFTING, RUNNING_MINILM). Charts hold words: cached
# per language, each drawn from the same runs.
LOADING = N_("Loading SmolLM2 (once for this server)…")
RUNNING = N_("Running SmolLM2 on the text…")
SHIFTING = N_("Running the shifted text…")
RUNNING_MINILM = N_("Running MiniLM on the text…")


@shared()
def shared_model() -> llama.loaded.SmolLM2:
    return pekit.smollm2()


@shared(max_entries=16)
def token_ids(text: str) -> tuple[int, ...]:
    """The text as the model's token ids. Raises ``ValueError`` when the text has fewer than three
    tokens (with two, the first token is also the one just before the only query that can look
    back) or more than :data:`MAX_PAGE_TOKENS`."""
    ids = shared_model().tokenize(text)
    if len(ids) < 3:
        raise ValueError(_("The text has fewer than three tokens: write a few words for the model to read."))
    if len(ids) > MAX_PAGE_TOKENS:  # 300 characters of some scripts are over a thousand tokens
        raise ValueError(_("The text reads as {count} tokens; this page runs the model on at most {limit}. Shorten "
                           "it.").format(count=number(len(ids), ","), limit=MAX_PAGE_TOKENS))
    return tuple(ids)


@shared(max_entries=8)
def run_view(text: str) -> Run:
    """The model's run on the text, for the sections under "Explore further" (the shift at the top
    needs only the text's tokens: :func:`token_ids`). Raises ``ValueError`` as :func:`token_ids`."""
    model = shared_model()
    ids = token_ids(text)
    attentions = model.attentions(ids)
    q, k = model.queries_keys(ids)
    return Run(ids, tuple(model.pieces(ids)), attentions, llama.head_habits(attentions),
               llama.pair_shares(q, k, model.inv_freq), attention_rollout(attentions), q, k)


@shared(max_entries=8)
def conventions_view(text: str) -> llama.Conventions:
    """The next-token loss with each pairing convention (three more runs: computed when its section opens)."""
    return llama.conventions(shared_model(), token_ids(text))


@shared(max_entries=16)
def shift_view(text: str, shift: int) -> ShiftView:
    return ShiftView(llama.shift_effect(shared_model(), token_ids(text), shift), *rounding_control(text))


@shared(max_entries=8)
def rounding_control(text: str) -> llama.RoundingControl:
    """What rounding alone changes on the text (the control of every shift)."""
    return llama.rounding_control(shared_model(), token_ids(text))


@shared(max_entries=4)
def minilm_shift_view(text: str, shift: int) -> MiniLMShift | None:
    """MiniLM's own count of the text (word pieces with [CLS] and [SEP]) and the mean cosine
    similarity of its position rows i and i + c over them (None where MiniLM is absent)."""
    if model_missing() is not None:
        return None
    pieces = len(pretrained.encode_text(text, device="cpu").tokens)
    if shift + pieces > MINILM_SLOTS:
        return MiniLMShift(pieces, None)
    table = pekit.pretrained_position_table(device="cpu")
    return MiniLMShift(pieces, pretrained.shifted_row_similarity(table, pieces, shift))


@shared(max_entries=4)
def minilm_rollout(text: str) -> MiniLMRollout | None:
    if model_missing() is not None:
        return None
    result = pekit.pretrained_attention(text, device="cpu")
    return MiniLMRollout(tuple(result.tokens), attention_rollout(result.attentions)[-1], result.attentions.shape[0] - 1)


# charts ----------------------------------------------------------------------------------------


@localized_resource(max_entries=16)
def shift_chart(text: str, shift: int) -> dict:
    gaps = shift_view(text, shift).effect.layer_gaps
    frame = pd.DataFrame({"layer": range(len(gaps)), "gap": gaps.tolist()})  # on a weight's whole scale, 0 to 1
    return charts.line_chart(frame, x="layer", y="gap", x_title=_("layer"), y_title=_("largest change of a weight"),
                             points=True, y_domain=(0.0, 1.0), height=220).spec()


@localized_resource(max_entries=16)
def habits_charts(text: str) -> tuple[dict, dict]:
    h = run_view(text).habits
    sink = charts.heatmap(llama.as_drawn(h.sink), x_title=_("head"), y_title=_("layer"),
                          value_title=_("weight on the first token"), palette="sequential", domain=(0.0, 1.0),
                          height=300)
    prev = charts.heatmap(llama.as_drawn(h.previous), x_title=_("head"), y_title=_("layer"),
                          value_title=_("weight on the token before"), palette="sequential", domain=(0.0, 1.0),
                          height=300)
    return sink.spec(), prev.spec()


@localized_resource(max_entries=16)
def map_chart(text: str, layer: int, head: int) -> dict:
    run = run_view(text)
    return charts.token_heatmap(run.attentions[layer, head], run.tokens, run.tokens, legend="right").spec()


@localized_resource(max_entries=16)
def pairs_charts(text: str, layer: int) -> tuple[dict, dict]:
    s = run_view(text).shares
    pairs = s.query.shape[-1]
    axis = _("rotary pair (fastest 0 → slowest {last})").format(last=pairs - 1)
    layer_map = charts.heatmap(llama.as_drawn(s.query[layer]), x_title=axis,
                               y_title=_("query head"), value_title=_("share of the norm"), palette="sequential",
                               domain=None, height=240)
    query_means, key_means = llama.mean_pair_shares(s)
    frame = pd.DataFrame({"pair": list(range(pairs)) * 2,
                          "share": [*query_means, *key_means],
                          "of": [_("queries")] * pairs + [_("keys")] * pairs})
    mean = charts.line_chart(frame, x="pair", y="share", series="of", x_title=axis,
                             y_title=_("mean share of the norm"), series_title=_("vectors"), points=True, height=240)
    return layer_map.spec(), mean.spec()


def _rollout_map(tokens: tuple[str, ...], rollout: Tensor) -> dict:
    return charts.token_heatmap(llama.as_drawn(rollout), tokens, tokens, x_title=_("input token"), y_title=_("position"),
                                value_title=_("rollout"), scale="max", legend="right").spec()


@localized_resource(max_entries=16)
def rollout_chart(text: str, layer: int) -> dict:
    run = run_view(text)
    return _rollout_map(run.tokens, run.rollout[layer])


@localized_resource(max_entries=4)
def minilm_rollout_chart(text: str) -> dict | None:
    view = minilm_rollout(text)
    return None if view is None else _rollout_map(view.tokens, view.rollout)
