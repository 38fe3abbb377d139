"""The Live attention page's questions (see :mod:`lab.views.questions`). Each explanation states
the numbers of the view its reveal opens: the page's own untrained layer on its default sentence
(the Order tab, shuffled as the page shuffles it; the Masking tab with sequence B's valid length
at 0)."""

from __future__ import annotations

from typing import NamedTuple

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views import live_attention as live
from lab.views import live_order
from lab.views.questions import Check, Solved

SEED = 0  # the page's default layer
HEAD = 0
EMPTY_SETTINGS = {"view": "Masking", "len_b": "0"}  # sequence B (shown by default) with a valid length of 0


class Shuffled(NamedTuple):
    """The page's Order tab at its defaults, without P: the sentence's tokens, the shuffle, and
    head ``head``'s weights compared (:class:`lab.views.live_attention.OrderGap`)."""

    tokens: int
    shuffle: int
    head: int
    gap: live_order.OrderGap  # without P


def shuffled(sentence: str | None = None, shuffle: int = live.DEFAULT_SHUFFLE) -> Shuffled:
    """The page's order view for ``sentence`` (the page's default, in the reader's language, when
    None) at its default layer, shuffled by ``shuffle``."""
    tokens = live.sentence_view(_(live.DEFAULT_SENTENCE) if sentence is None else sentence).tokens
    view = live_order.order_view(tokens, live.DEFAULT_HIDDEN, live.DEFAULT_HEADS, SEED, shuffle, HEAD)
    return Shuffled(len(tokens), shuffle, HEAD, view.without)


def shuffle_answer(result: Shuffled) -> int:
    """0: the weights move with the tokens and nothing else changes; 2: the same matrix; 1: new
    values; each gap read against the weights' float rounding measured for the same runs. A
    shuffle that swaps only identical tokens leaves the sentence, and so the map, as it was: 2
    (its weights also "move with the tokens", but nothing moved)."""
    gap = result.gap
    if gap.unmoved <= gap.weights_rounding:
        return 2
    return 0 if gap.weights <= gap.weights_rounding else 1


def shuffle_sentence(result: Shuffled) -> Said:
    gap = result.gap
    rounding = Reference(gap.weights_rounding, "the weights' float rounding measured for the same two runs "
                                               "(pekit.order.OrderCheck.weights_rounding)")
    moved = gap.weights <= gap.weights_rounding
    claims = [Claim("weights put back against the original", gap.weights, "at most" if moved else "above", rounding),
              Claim("weights as they stand against the original", gap.unmoved,
                    "above" if gap.unmoved > gap.weights_rounding else "at most", rounding),
              Claim("tokens", result.tokens), Claim("shuffle", result.shuffle), Claim("head", result.head),
              Claim("float rounding", gap.weights_rounding)]
    if gap.unmoved <= gap.weights_rounding:
        text = _("On the page's sentence ({tokens} tokens), shuffle {shuffle} swaps only identical tokens: the "
                 "shuffled sentence is the sentence, and head {head}'s map stays as it was, to {moved} (float "
                 "rounding: at most {bound} here). Choose another shuffle to move the words.")
    elif moved:
        text = _("On the page's sentence ({tokens} tokens) shuffled without P (shuffle {shuffle}), head {head}'s weights "
                 "put back in the original order differ from the original ones by {gap}, within float rounding (at "
                 "most {bound} here), while the map as it stands changed by up to {moved}. Without positions, a "
                 "token's weights follow the token, not its place.")
    else:
        text = _("On the page's sentence ({tokens} tokens) shuffled without P (shuffle {shuffle}), head {head}'s weights "
                 "put back in the original order still differ from the original ones by {gap}, more than float "
                 "rounding can make here ({bound}); the map as it stands changed by up to {moved}.")
    return Said(text.format(tokens=result.tokens, shuffle=result.shuffle, head=result.head,
                            gap=number(gap.weights, ".1e"), bound=number(gap.weights_rounding, ".1e"),
                            moved=number(gap.unmoved, ".2g")), claims)


def _solve_shuffle() -> Solved:
    result = shuffled()
    return Solved(shuffle_answer(result), shuffle_sentence(result))


def empty_view(sentence: str | None = None) -> live.MaskingView:
    """The page's Masking tab at :data:`EMPTY_SETTINGS`: sequence B of the sentence's first
    tokens, every key masked."""
    tokens = live.sentence_view(_(live.DEFAULT_SENTENCE) if sentence is None else sentence).first
    return live.masking_view(tokens, live.DEFAULT_HIDDEN, SEED, "own", EMPTY_SETTINGS["len_b"], "one per sequence", "B")


def empty_answer(row: tuple[float, ...]) -> int:
    """0: all zeros, 1: NaN, 2: 1/n on every key, 3: one on the first key."""
    if any(v != v for v in row):
        return 1
    if all(v == 0 for v in row):
        return 0
    if all(abs(v - 1 / len(row)) < 1e-6 for v in row):
        return 2
    return 3


def empty_sentence(view: live.MaskingView) -> Said:
    row = view.zero_row
    return Said(_("With sequence {show}'s valid length at 0, `masked_softmax` gives query {query} the row {row}, summing "
                  "to {total}: with no key to attend to, the layer averages nothing and its output is a zero vector, "
                  "not the 0/0 (NaN) a plain softmax of all −∞ scores gives. (The book's version spreads {book} on "
                  "every key instead.)").format(
        show=view.show, query=view.zero_rows[0], row="(" + "; ".join(number(v, "g") for v in row) + ")",
        total=number(sum(row), "g"), book=number(view.book_row[0], ".4f")),
        [Claim("row's total", sum(row)), Claim("zero rows", len(view.zero_rows)), Claim("query", view.zero_rows[0]),
         Claim("row", tuple(row)), Claim("book's weight", view.book_row[0])])


def _solve_empty() -> Solved:
    view = empty_view()
    return Solved(empty_answer(view.zero_row), empty_sentence(view))


QUESTIONS: tuple[Check, ...] = (
    Check("attention-permute", "live_attention",
          N_("Without positional encoding, you shuffle the tokens of the sentence. What happens to the attention "
             "weights?"),
          (N_("they move with the tokens; nothing else changes"), N_("they change to new values"),
           N_("they stay exactly as they were")), _solve_shuffle, {"view": "Order"}),
    Check("attention-empty", "live_attention",
          N_("A sequence's valid length is 0: every key is masked. Which weights does `masked_softmax` give?"),
          (N_("all zeros"), N_("NaN (0/0)"), N_("1/n on every key"), N_("1 on the first key")), _solve_empty,
          EMPTY_SETTINGS),
)
