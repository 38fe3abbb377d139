"""A real pretrained model on the sentence typed: all-MiniLM-L6-v2's views, shown by the MiniLM
tab of ``pages/live_attention.py`` (and its missing-model notice by ``pages/fixed_or_learned.py``).

Cached records of the model's run on a text (its word pieces, every head's weights and named
patterns), where one piece looks in every layer, and what shuffling the words or zeroing the
positions changes; and the functions that turn a record into the sentences stating its numbers.
pekit computes (``pekit.pretrained``) and draws (``pekit.charts``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import pandas as pd
import streamlit as st

from pekit import charts, pretrained
from pekit.text import MAX_CHARS
from lab.memo import shared
from lab.claims import Claim, Reference, Said
from lab.display import number, plain
from lab.i18n import N_, _, language, local_number, localized_resource, ngettext, pgettext
from lab.settings import MAX_SEED, ChoiceSetting, IntSetting, TextSetting
from lab.views import minilm_patterns as kinds  # each pattern's own messages

UNTRAINED = N_("untrained")  # the options stay English in the link; the reader sees them translated
PRETRAINED = N_("MiniLM (pretrained)")
MODEL = ChoiceSetting("model", N_("Model"), default=UNTRAINED, options=(UNTRAINED, PRETRAINED))
LAYERS, HEADS = 6, 12  # all-MiniLM-L6-v2 (the tests check the model's config.json says so)
LAYER = IntSetting("layer", N_("Layer"), default=0, minimum=0, maximum=LAYERS - 1)
M_HEAD = IntSetting("mhead", N_("Head"), default=0, minimum=0, maximum=HEADS - 1)
WORD = TextSetting("word", N_("Follow the word"), default="it", max_chars=40)  # a word piece: English data
M_SHUFFLE = IntSetting("mshuffle", N_("Shuffle seed"), default=1, minimum=0, maximum=MAX_SEED)
M_VIEW = ChoiceSetting("mview", N_("MiniLM section"), default="Heads",
                       options=(N_("Heads"), N_("Follow a word"), N_("Order and positions")))
SETTINGS = [MODEL, LAYER, M_HEAD, WORD, M_SHUFFLE, M_VIEW]
THRESHOLD = 0.5  # a head is named after a pattern that takes at least this share of its weight
ROUND_OFF = 1e-4  # weight changes below this are float round-off


# records ---------------------------------------------------------------------------------------


class MiniLMRun(NamedTuple):
    """The model on one text: its weights (the hidden states are not kept) and every head's
    named patterns, one row per head in ``frame``."""

    result: pretrained.PretrainedAttention  # attentions (layers, heads, T, T) on the CPU
    patterns: pretrained.HeadPatterns  # shares (layers, heads, patterns)
    named: tuple[pretrained.NamedHead, ...]  # strongest first
    frame: pd.DataFrame

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.result.tokens

    @property
    def word_ids(self) -> tuple[int | None, ...]:
        return self.result.word_ids

    @property
    def clipped(self) -> bool:
        return self.result.clipped

    @property
    def cut(self) -> int:
        """Word pieces beyond pekit.pretrained.MAX_PIECES that were dropped."""
        return self.result.cut


class Pieces(NamedTuple):
    """How a text became word pieces, against its written words (runs of characters between
    white space). ``split``: each written word read as several pieces, with those pieces (a word
    cut at MAX_PIECES not among them); ``continued``: pieces that continue a word (they start
    with ##)."""

    count: int  # every piece, [CLS] and [SEP] included
    written: int  # written words with all their pieces read (a word cut at MAX_PIECES not counted)
    split: tuple[tuple[str, tuple[str, ...]], ...]
    continued: int
    partial: int = 0  # pieces read of the last written word when its other pieces are cut (0: none cut)
    example: str = ""  # the first split word and its pieces as the statement shows them ("" : made from split)

    @property
    def inner(self) -> int:
        return self.count - 2


class Followed(NamedTuple):
    """The word piece followed: the one typed, else the first piece after [CLS]."""

    index: int
    token: str
    found: bool


class FollowView(NamedTuple):
    """Where the piece at ``index`` looks: per layer (mean of heads) and per head of one layer."""

    token: str
    index: int
    tokens: tuple[str, ...]
    top: tuple[tuple[int, float], ...]  # per layer: the piece with the most weight (other than [CLS], [SEP], itself) and that weight
    per_layer: dict  # Vega-Lite spec
    per_head: dict  # Vega-Lite spec
    frame: pd.DataFrame


class OrderNumbers(NamedTuple):
    """What shuffling the words changes, per layer: the largest weight change with the learned
    positions and with them zeroed, and the largest change of a last-layer output vector."""

    gap_learned: tuple[float, ...]
    gap_zero: tuple[float, ...]
    hidden_learned: float
    hidden_zero: float
    same_pieces: bool = False  # the shuffled text's pieces are those typed (only identical words swapped)
    identity: bool = False  # every piece stays in its slot

    @classmethod
    def of(cls, order: pretrained.OrderEffect) -> OrderNumbers:
        slots = order.order.tolist()  # slot s of the shuffled text holds piece slots[s] of the original
        shuffled = order.shuffled.tokens
        typed = [""] * len(slots)
        for s, i in enumerate(slots):
            typed[i] = shuffled[s]
        return cls(tuple(order.gap["learned"].tolist()), tuple(order.gap["zero"].tolist()),
                   order.hidden_gap["learned"], order.hidden_gap["zero"], tuple(typed) == tuple(shuffled),
                   slots == sorted(slots))


class PositionNumbers(NamedTuple):
    """What zeroing the position embeddings changes: the mean share of a query's weight that
    moves, per layer, and the head most devoted to the previous token, with and without them."""

    layer_change: tuple[float, ...]
    layer: int
    head: int
    before: float
    after: float

    @classmethod
    def of(cls, effect: pretrained.PositionsEffect) -> PositionNumbers:
        return cls(tuple(effect.layer_change.tolist()), *effect.strongest("previous token"))


class OrderView(NamedTuple):
    """The text shuffled, and one head's map as typed, shuffled, and with the positions zeroed."""

    shuffled: tuple[str, ...]  # the shuffled text's word pieces
    as_typed: dict  # Vega-Lite specs
    words_shuffled: dict
    positions_zeroed: dict
    order: OrderNumbers
    positions: PositionNumbers
    frame: pd.DataFrame  # one row per layer


# sentences from numbers ------------------------------------------------------------------------

# the column headers of the views' tables (pekit's frames keep English names: CSV, tests)
COLUMN_LABELS = (N_("layer"), N_("head"), N_("named"), N_("most weight on"), N_("its weight"), N_("on [CLS]"),
                 N_("on [SEP]"), N_("on itself"), N_("shuffle, learned positions: largest change"),
                 N_("shuffle, positions zeroed: largest change"), N_("zeroing positions: mean change"))


def _n(value: float, spec: str) -> str:
    """A number written as ``format(value, spec)`` writes it, in the reader's decimal and group
    symbols (the English text stays exactly as before)."""
    return local_number(format(value, spec))


def _numbers(values: Sequence[str]) -> str:
    """Numbers listed one after another (with a decimal comma, a comma cannot separate them)."""
    return pgettext("between numbers in a list", ", ").join(values)


def _pattern_label(name: str) -> str:
    """A head pattern's name (one of ``pekit.pretrained.PATTERNS``) as the reader reads it."""
    return _(name) if name else name


def column_label(name: str) -> Said:
    """A column of one of the views' tables (``MiniLMRun.frame``, ``FollowView.frame``,
    ``OrderView.frame``) as the reader reads it; a pattern's column is named after its pattern."""
    return Said(_(name) if name else name)


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One of the views' tables as the reader reads it: its column headers, and the patterns
    named in the ``named`` column, in the reader's language (the record keeps pekit's names)."""
    if language() == "en":
        return frame
    shown = frame.copy()
    if "named" in shown.columns:
        shown["named"] = shown["named"].map(_pattern_label)
    return shown.rename(columns=column_label)


def _pieces_claims(pieces: Pieces) -> list[Claim]:
    claims = [Claim("word pieces", pieces.count), Claim("pieces between [CLS] and [SEP]", pieces.inner),
              Claim("written words read whole", pieces.written), Claim("pieces continuing a word", pieces.continued)]
    if pieces.partial:
        claims.append(Claim("pieces read of the cut word", pieces.partial))
    if pieces.split:
        claims.append(Claim("written words read as several pieces", len(pieces.split)))
    return claims


def pieces_statement(pieces: Pieces) -> Said:
    """How the written words became word pieces (a word cut at MAX_PIECES told apart): how many
    pieces, then what became of the written words, each sentence one message per case."""
    inner, written, partial, c = pieces.inner, pieces.written, pieces.partial, pieces.continued
    if not partial:  # each piece in between is a whole written word's: one written word, or as many pieces
        start = (ngettext("{count} word pieces: [CLS] first, [SEP] last, and {inner} piece of {written} written word "
                          "in between.", "{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces of "
                          "{written} written word in between.", inner) if written == 1 else
                 _("{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces of {written} written words in "
                   "between."))
    elif written:  # the whole words' pieces, then the cut word's: two pieces in between at least
        start = (ngettext("{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces in between: those of "
                          "{written} written word, then the first piece of one more word, whose other pieces are cut.",
                          "{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces in between: those of "
                          "{written} written word, then the first {partial} pieces of one more word, whose other "
                          "pieces are cut.", partial) if written == 1 else
                 ngettext("{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces in between: those of "
                          "{written} written words, then the first piece of one more word, whose other pieces are "
                          "cut.", "{count} word pieces: [CLS] first, [SEP] last, and {inner} pieces in between: those "
                          "of {written} written words, then the first {partial} pieces of one more word, whose other "
                          "pieces are cut.", partial))
    else:  # every piece in between is the cut word's (inner == partial)
        start = ngettext("{count} word pieces: [CLS] first, [SEP] last, and {inner} piece in between: the first "
                         "{partial} of one written word, whose other pieces are cut.", "{count} word pieces: [CLS] "
                         "first, [SEP] last, and {inner} pieces in between: the first {partial} of one written word, "
                         "whose other pieces are cut.", inner)
    start = start.format(count=pieces.count, inner=inner, written=written, partial=partial)
    if not pieces.split and not c:
        if not written:
            rest = _("No piece continues a word (##), so the share 'same word' in the table of heads is empty.")
        elif partial:
            rest = _("Each whole written word is one piece; no piece continues a word (##), so the share 'same word' "
                     "in the table of heads is empty.")
        else:
            rest = _("Each written word is one piece; no piece continues a word (##), so the share 'same word' in the "
                     "table of heads is empty.")
    elif not pieces.split:  # the pieces continuing a word are the cut word's
        rest = (ngettext("Each whole written word is one piece; the {count} piece that continues a word (##) here is "
                         "of the cut word.",
                         "Each whole written word is one piece; the {count} pieces that continue a word (##) here are "
                         "all of the cut word.", c) if written else
                ngettext("The {count} piece that continues a word (##) here is of the cut word.",
                         "The {count} pieces that continue a word (##) here are all of the cut word.", c)).format(count=c)
    else:
        n = len(pieces.split)
        became = (ngettext("{count} whole written word became several pieces, e.g. {example}.",
                           "{count} whole written words became several pieces, e.g. {example}.", n) if partial else
                  ngettext("{count} written word became several pieces, e.g. {example}.",
                           "{count} written words became several pieces, e.g. {example}.", n))
        how = (ngettext("The tokenizer cuts at punctuation and splits unknown words into known pieces; a piece "
                        "continuing a word starts with ## ({count} piece here).",
                        "The tokenizer cuts at punctuation and splits unknown words into known pieces; a piece "
                        "continuing a word starts with ## ({count} pieces here).", c)
               if c else
               _("The tokenizer cuts at punctuation and splits unknown words into known pieces; a piece continuing a "
                 "word starts with ## (none here, so the share 'same word' in the table of heads is empty)."))
        rest = became.format(count=n, example=pieces.example or _split_example(pieces.split)) + " " + how.format(
            count=c)
    return Said(f"{start} {rest}", _pieces_claims(pieces))


_plain = plain  # typed text (or the model's word pieces) shown as itself in Markdown


def _split_example(split: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The first written word that became several pieces, and its pieces (English data, shown
    as itself in Markdown): ``tokenization → token | ##ization``."""
    word, parts = split[0]
    shown = word if len(word) <= 40 else word[:39] + "…"
    return f"{_plain(shown)} → {_plain(' | '.join(parts[:12]))}{' …' if len(parts) > 12 else ''}"


def cut_statement(run: MiniLMRun) -> Said:
    """How many word pieces the model did not read (the text's pieces against those it reads)."""
    total = len(run.tokens) - 2 + run.cut  # the pieces between [CLS] and [SEP], those cut included
    read = pretrained.MAX_PIECES
    return Said(ngettext("The text has {total} word pieces; the model reads {read} including [CLS] and [SEP], so the "
                         "last {count} is cut.",
                         "The text has {total} word pieces; the model reads {read} including [CLS] and [SEP], so the "
                         "last {count} are cut.", run.cut).format(total=total, read=read, count=run.cut),
                [Claim("word pieces of the text", total, "above",
                       Reference(read - 2, "the pieces the model reads between [CLS] and [SEP] (MAX_PIECES − 2)")),
                 Claim("pieces read", read), Claim("pieces cut", run.cut)])


def head_statement(patterns: pretrained.HeadPatterns, layer: int, head: int) -> Said:
    """What one head's word pieces attend to, on average; its largest share against half of the
    weight (the claim: :data:`THRESHOLD`)."""
    shares, names = patterns.shares[layer, head].tolist(), patterns.names
    parts = [_(kinds.SHARE[name]).format(share=_n(share, ".2f"))
             for name, share in zip(names, shares) if not math.isnan(share)]
    best = max((s, n) for s, n in zip(shares, names) if not math.isnan(s))
    verdict = (_(kinds.NAMED[best[1]]) if best[0] >= THRESHOLD else
               _(kinds.MOST[best[1]]).format(share=_n(best[0], ".2f")))
    listed = pgettext("between shares in a list", ", ").join(parts)
    return Said(_("Layer {layer}, head {head}: the word pieces put on average {shares} of their weight on each kind of "
                  "token.").format(layer=layer, head=head, shares=listed) + " " + verdict,
                [Claim("layer", layer), Claim("head", head),
                 *(Claim(f"share on {name}", share) for name, share in zip(names, shares) if not math.isnan(share)),
                 Claim("largest share", best[0], "at least" if best[0] >= THRESHOLD else "below",
                       Reference(THRESHOLD, "THRESHOLD: half of a word piece's weight"))])


def named_statement(named: Sequence[pretrained.NamedHead], total: int = LAYERS * HEADS) -> Said:
    """How many heads have a named pattern (each with at least half of its weight there), how many
    per pattern, and the one with the largest share."""
    if not named:
        return Said(_("None of the {total} heads puts half of its weight on one kind of token for this text.").format(
            total=total), [Claim("heads", total), Claim("named heads", 0)])
    counts: dict[str, int] = {}
    for h in named:
        counts[h.pattern] = counts.get(h.pattern, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    listing = ", ".join(_(kinds.COUNT[p]).format(count=n) for p, n in ordered)
    top = named[0]
    half = Reference(THRESHOLD, "THRESHOLD: half of a word piece's weight")
    claims = [Claim("heads", total), Claim("named heads", len(named)),
              *(Claim(f"heads named {p}", n) for p, n in ordered),
              Claim("smallest share of a named head", min(h.share for h in named), "at least", half),
              Claim("most single-minded head", (top.layer, top.head)),
              Claim("most single-minded head's share", top.share, "at least",
                    Reference(max(h.share for h in named), "the largest share of any named head"))]
    return Said(ngettext("{count} of the {total} heads put at least half of their weight on one kind of token: "
                         "{listing}.",
                         "{count} of the {total} heads put at least half of their weight on one kind of token: "
                         "{listing}.", len(named)).format(count=len(named), total=total, listing=listing)
                + " " + _(kinds.TOP[top.pattern]).format(layer=top.layer, head=top.head, share=_n(top.share, ".2f")),
                claims)


def follow_statement(view: FollowView) -> Said:
    """Where the followed piece looks in each layer (plain text: it quotes the sentence), and the
    piece it favours: the one that leads in the most layers, against every other piece's count."""
    tokens = view.tokens
    weights = tuple(w for _j, w in view.top)
    claims = [Claim("heads averaged", HEADS)]
    if len(tokens) <= 3 and 0 < view.index < len(tokens) - 1:
        return Said(_("The text is the one word piece {token} between [CLS] and [SEP]: it has no other word piece to "
                      "look at (its weight on itself, averaged over the {heads} heads, layer by layer: {weights})."
                      ).format(token=repr(view.token), heads=HEADS, weights=_numbers([_n(w, ".3f") for w in weights])),
                    [*claims, Claim("weight on itself per layer", weights)])
    per_layer = "; ".join(
        _("layer {layer}: {token} {weight}").format(layer=layer, token=repr(tokens[j]), weight=_n(w, ".3f"))
        for layer, (j, w) in enumerate(view.top))
    favourite: dict[int, int] = {}
    for j, _w in view.top:
        favourite[j] = favourite.get(j, 0) + 1
    n = max(favourite.values())
    leaders = sorted(j for j, count in favourite.items() if count == n)
    others = max((count for j, count in favourite.items() if count != n), default=0)
    claims += [Claim("piece with the most weight per layer", tuple(j for j, _w in view.top)),
               Claim("its weight per layer", weights), Claim("layers", len(view.top))]
    if len(leaders) > 1:  # a tie: no piece is favoured, the leaders are named together
        return Said(_("Averaged over the {heads} heads, {token} puts the most weight (besides [CLS], [SEP] and itself) "
                      "on {per_layer}. No one piece is favoured: {pieces} lead in {count} of the {layers} layers "
                      "each.").format(heads=HEADS, token=repr(view.token), per_layer=per_layer, count=n,
                                      layers=len(view.top), pieces=_numbers([
                                          _("{token} (piece {index})").format(token=repr(tokens[j]), index=j)
                                          for j in leaders])),
                    [*claims, Claim("leading pieces", tuple(leaders)),
                     Claim("layers each leading piece leads", n, "above",
                           Reference(others, "the most layers a piece that does not lead leads"))])
    j = leaders[0]
    return Said(_("Averaged over the {heads} heads, {token} puts the most weight (besides [CLS], [SEP] and itself) on "
                  "{per_layer}. It favours {favourite} (piece {index}) in {count} of the {layers} layers.").format(
        heads=HEADS, token=repr(view.token), per_layer=per_layer, favourite=repr(tokens[j]), index=j, count=n,
        layers=len(view.top)),
        [*claims, Claim("favoured piece", j),
         Claim("layers the favoured piece leads", n, "above",
               Reference(others, "the most layers any other piece leads"))])


def _round_off(gap: float) -> str:
    """A weight difference below ROUND_OFF, as the order statement says it."""
    return _("0: exactly the same") if gap == 0 else _("{gap}: float round-off").format(gap=number(gap, ".1e"))


ROUND_OFF_HOW = ("ROUND_OFF, 1e-4 of a weight: the page's bound for float32 round-off (a shuffle with the positions "
                 "zeroed, exactly equivariant, measures about 1e-6)")


def _order_claims(numbers: OrderNumbers) -> list[Claim]:
    """What the order statement compares: the learned model's largest change against the same
    shuffle with the positions zeroed (the control: a model that cannot see order) and both
    against round-off, the output vectors' too."""
    learned_max, zero_max = max(numbers.gap_learned), max(numbers.gap_zero)
    round_off = Reference(ROUND_OFF, ROUND_OFF_HOW)
    control = Reference(zero_max, "the same shuffle with the position embeddings zeroed (pekit.pretrained.order_effect)")
    below = lambda value: "below" if value < ROUND_OFF else "at least"  # noqa: E731
    claims = [Claim("learned positions: largest weight change", learned_max, below(learned_max), round_off),
              Claim("positions zeroed: largest weight change", zero_max, below(zero_max), round_off)]
    if learned_max >= ROUND_OFF:
        claims.append(Claim("learned positions: largest weight change, against the control", learned_max, "above",
                            control))
    if zero_max < ROUND_OFF:
        claims.append(Claim("positions zeroed: largest change of an output vector", numbers.hidden_zero, "below",
                            round_off))  # "the same output vector"
    return claims


def order_statement(numbers: OrderNumbers) -> Said:
    """What shuffling the words does, with and without positions; a shuffle that only swaps
    identical words compares the copies of a word with each other. The claims: each change
    against round-off, and the learned model's against the same shuffle with the positions zeroed."""
    learned_max, zero_max = max(numbers.gap_learned), max(numbers.gap_zero)
    cases = ("learned: changes" if learned_max >= ROUND_OFF else "learned: round-off", "zeroed: changes"
             if zero_max >= ROUND_OFF else "zeroed: round-off" if zero_max else "zeroed: exactly the same")
    layers = _numbers([number(g, ".2f") for g in numbers.gap_learned])
    if numbers.identity:
        return Said(_("The shuffle leaves every word in its slot (the text has one word: nothing to move): with the "
                      "learned positions the weights differ by at most {learned}, with them zeroed by at most "
                      "{zero}.").format(learned=number(learned_max, ".1e"), zero=number(zero_max, ".1e")),
                    _order_claims(numbers), cases=("one word",))
    if numbers.same_pieces:
        start = _("This shuffle only swaps identical words: the shuffled pieces are the pieces as typed, so the model "
                  "gives them the same weights. Following each word to its new slot therefore compares each copy of "
                  "a word with the copy whose slot it took.")
        learned_text = (_("With the learned positions the copies' weights differ by up to {gap} (layer by layer: "
                          "{layers}), and their last layer's output vectors by up to {hidden}: each copy carries its "
                          "own position, and the model tells identical words apart by it alone.").format(
                            gap=number(learned_max, ".2f"), layers=layers, hidden=number(numbers.hidden_learned, ".2f"))
                        if learned_max >= ROUND_OFF else
                        _("With the learned positions the copies' weights differ by at most {gap}.").format(
                            gap=number(learned_max, ".1e")))
        zero_text = (_("With the positions zeroed, the largest difference is {gap}. The copies are then the same input "
                       "and get the same weights and the same output vector (largest difference {hidden}).").format(
                         gap=_round_off(zero_max), hidden=number(numbers.hidden_zero, ".1e"))
                     if zero_max < ROUND_OFF else
                     _("With the positions zeroed, the largest difference is still {gap}, more than round-off.").format(
                         gap=number(zero_max, ".2g")))
        return Said(f"{start} {learned_text} {zero_text} " + _("Press Shuffle again for an order that moves the words."),
                    _order_claims(numbers), cases=("identical words", *cases))
    zero_text = (_("With the positions zeroed, the largest change is {gap}: each word gets the same weights and "
                   "output vector (largest difference {hidden}) wherever it stands.").format(
                     gap=_round_off(zero_max), hidden=number(numbers.hidden_zero, ".1e"))
                 if zero_max < ROUND_OFF else
                 _("With the positions zeroed, the largest change is still {gap}, more than round-off.").format(
                     gap=number(zero_max, ".2g")))
    learned_text = (_("With the learned positions, following each word to its new place, the weights change by up to "
                      "{gap}, the last layer's outputs by up to {hidden}: the model reads the order.").format(
                        gap=number(learned_max, ".2f"), hidden=number(numbers.hidden_learned, ".2f"))
                    if learned_max >= ROUND_OFF else
                    _("With the learned positions the weights change by at most {gap}: this text gives the model "
                      "nothing to reorder.").format(gap=number(learned_max, ".1e")))
    return Said(f"{learned_text} {zero_text}", _order_claims(numbers), cases=("words moved", *cases))


def positions_statement(numbers: PositionNumbers) -> Said:
    """What zeroing the position embeddings does to the maps; the head most devoted to the
    previous token "needs the positions" where its share falls below half of what it was."""
    change = numbers.layer_change
    values = {"low": _n(min(change), ".2f"), "high": _n(max(change), ".2f"),
              "layer": numbers.layer, "head": numbers.head,
              "before": _n(numbers.before, ".2f"), "after": _n(numbers.after, ".2f")}
    claims = [Claim("mean change per layer", tuple(change)), Claim("smallest mean change of a layer", min(change)),
              Claim("largest mean change of a layer", max(change))]
    if math.isnan(numbers.before):  # one word piece: its previous token would be [CLS] (see head_patterns)
        return Said(_("Zeroing the position embeddings moves between {low} and {high} of each query's weight to other "
                      "keys, depending on the layer (0: unchanged, 1: no overlap). The text has one word piece: there "
                      "is no previous piece for a head to find.").format(**values), claims)
    claims += [Claim("previous-token head", (numbers.layer, numbers.head)),
               Claim("its share on the previous token", numbers.before)]
    if numbers.after < numbers.before / 2:
        return Said(_("Zeroing the position embeddings moves between {low} and {high} of each query's weight to other "
                      "keys, depending on the layer (0: unchanged, 1: no overlap). The head most devoted to the "
                      "previous token (layer {layer}, head {head}, {before}) puts {after} there without them: it needs "
                      "the positions to find its neighbour.").format(**values),
                    [*claims, Claim("its share without positions", numbers.after, "below",
                                    Reference(numbers.before / 2, "half of its share with the positions"))])
    return Said(_("Zeroing the position embeddings moves between {low} and {high} of each query's weight to other "
                  "keys, depending on the layer (0: unchanged, 1: no overlap). The head most devoted to the previous "
                  "token (layer {layer}, head {head}, {before}) puts {after} there without them.").format(**values),
                [*claims, Claim("its share without positions", numbers.after)])


# small lookups (those the pages call are in lab.views.minilm_lookups) ---------------------------


def followed_piece(run: MiniLMRun, word: str) -> Followed:
    """The word piece ``word`` names (compared lower-case), else the first piece after [CLS]."""
    index = pretrained.find_token(run.tokens, word)
    return Followed(1, run.tokens[1], False) if index is None else Followed(index, run.tokens[index], True)


# cached work -----------------------------------------------------------------------------------


@st.cache_resource(show_spinner="Loading MiniLM (once for this server)…")
def shared_model():
    """The one copy of the model in this server process (pekit keeps the same object)."""
    return pretrained.load_minilm()


# Cache sizes are bounded for a 1 GB host: a 128-piece text's weights take 4.7 MB, its gallery
# about 1.5 MB of images.
@shared(max_entries=8)
def minilm_run(text: str) -> MiniLMRun:
    """Raises ``ValueError`` when the text has no word piece."""
    shared_model()
    result = pretrained.pretrained_attention(text)
    # the page shows weights only: the hidden states are not kept
    result = pretrained.weights_only(result)
    patterns = pretrained.head_patterns(result)
    return MiniLMRun(result, patterns, tuple(pretrained.named_heads(patterns, threshold=THRESHOLD)),
                     pretrained.patterns_frame(patterns, threshold=THRESHOLD))


@shared(max_entries=32)
def pieces_view(text: str) -> Pieces:
    """The text's word pieces against its written words. Raises ``ValueError`` when the text
    has no word piece."""
    shared_model()
    encoded = pretrained.encode_text(text)
    read = text[:MAX_CHARS]
    words: list[list[int]] = []  # piece indices, grouped by written word
    last_end, last_word = None, None
    for i, (start, end) in enumerate(encoded.offsets):
        if encoded.word_ids[i] is None:
            continue
        # one written word: no white space in between, or one word to the tokenizer (which drops a
        # control character that Python counts as white space, such as \x1f, and reads on)
        if last_end is not None and (encoded.word_ids[i] == last_word
                                     or not any(c.isspace() for c in read[last_end:start])):
            words[-1].append(i)
        else:
            words.append([i])
        last_end, last_word = end, encoded.word_ids[i]
    partial = 0
    if encoded.cut and words:  # the last word read may have lost its other pieces to the cut
        begin, end = encoded.offsets[words[-1][0]][0], encoded.offsets[words[-1][-1]][1]
        while end < len(read) and not read[end].isspace():
            end += 1
        alone = pretrained.encode_text(read[begin:end])  # the whole written word, its pieces counted
        if len(alone.tokens) - 2 + alone.cut > len(words[-1]):
            partial = len(words.pop())
    split = tuple((read[encoded.offsets[w[0]][0]:encoded.offsets[w[-1]][1]], tuple(encoded.tokens[i] for i in w))
                  for w in words if len(w) > 1)
    continued = sum(1 for i, t in enumerate(encoded.tokens) if encoded.word_ids[i] is not None and t.startswith("##"))
    return Pieces(len(encoded.tokens), len(words), split, continued, partial, _split_example(split) if split else "")


@localized_resource(max_entries=32)
def map_chart(text: str, layer: int, head: int) -> dict:
    run = minilm_run(text)
    return charts.token_heatmap(run.result.attentions[layer, head], run.tokens, run.tokens, x_title=_("key"),
                                y_title=_("query"), value_title=_("weight")).spec()


@localized_resource(max_entries=8)
def gallery_chart(text: str, layer: int, head: int) -> dict:
    run = minilm_run(text)
    shares, names = run.patterns.shares, run.patterns.names
    notes = [[_strongest(shares[lay, h].tolist(), names) for h in range(HEADS)] for lay in range(LAYERS)]
    return charts.head_gallery(run.result.attentions, selected=(layer, head), notes=notes).spec()


def _strongest(shares: list[float], names: Sequence[str]) -> str:
    share, name = max((s, n) for s, n in zip(shares, names) if not math.isnan(s))
    return _(kinds.SHARE[name]).format(share=_n(share, ".2f"))


@localized_resource(max_entries=16)
def follow_view(text: str, index: int, layer: int) -> FollowView:
    run = minilm_run(text)
    ta = pretrained.token_attention(run.result, index)
    tokens = run.tokens
    # rows are numbered by the builder: layer i, head h
    per_layer = charts.token_heatmap(ta.mean, [""] * LAYERS, tokens, x_title=_("key"),
                                     y_title=_("layer (mean of heads)"), value_title=_("weight"), domain=None)
    per_head = charts.token_heatmap(ta.per_head[layer], [""] * HEADS, tokens, x_title=_("key"),
                                    y_title=_("head of layer {layer}").format(layer=layer), value_title=_("weight"),
                                    domain=None)
    return FollowView(ta.token, index, tokens, tuple(ta.top), per_layer.spec(), per_head.spec(),
                      pretrained.token_attention_frame(ta, tokens))


@localized_resource(max_entries=8)
def order_view(text: str, seed: int, layer: int, head: int) -> OrderView:
    shared_model()
    learned = pretrained.pretrained_attention(text)
    zero = pretrained.pretrained_attention(text, positions="zero")
    order = pretrained.order_effect(text, seed)
    effect = pretrained.positions_effect(learned, zero)
    maps = [charts.token_heatmap(pretrained.head_weights(r, layer, head), r.tokens, r.tokens, x_title=_("key"),
                                 y_title=_("query"), value_title=_("weight")).spec()
            for r in (learned, order.shuffled, zero)]
    return OrderView(order.shuffled.tokens, *maps, OrderNumbers.of(order), PositionNumbers.of(effect),
                     pretrained.layer_effects_frame(order, effect))
