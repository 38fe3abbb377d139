"""The Train it yourself page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from pekit.head_patterns import strongest_heads
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved

if TYPE_CHECKING:
    from torch import Tensor


class Shipped(NamedTuple):
    """The shipped encoders' held-out shares on reversal: without positions and with sinusoidal,
    and the most a guess blind to order can expect on those examples (the page's dashed line)."""

    seq_none: float
    token_none: float
    seq_sinusoidal: float
    guess: float = 1.0


def shipped_shares() -> Shipped:
    from pekit import shipped, training

    metrics = shipped.recorded_metrics()
    config = metrics["encoder-none"]["config"]
    return Shipped(metrics["encoder-none"]["seq_accuracy"], metrics["encoder-none"]["token_accuracy"],
                   metrics["encoder-sinusoidal"]["seq_accuracy"],
                   training.held_out_ceiling(config["task"], config["seq_len"], config["vocab"]))


def share_answer(share: float) -> int:
    """0: over 90 %, 1: about half (25 to 75 %), 2: under 5 %; -1 in between."""
    return 0 if share > 0.9 else 2 if share < 0.05 else 1 if 0.25 <= share <= 0.75 else -1


def share_sentence(s: Shipped) -> Said:
    """The shares the page's table shows, and the tokens without positions against the page's
    dashed line (``s.guess``): at most it, or above it (then said so)."""
    line = Reference(s.guess, "pekit.training.held_out_ceiling for the checkpoints' task, length and vocabulary: "
                              "the page's dashed line")
    fields = dict(none=number(100 * s.seq_none, ".3g"), tokens=number(100 * s.token_none, ".3g"),
                  sin=number(100 * s.seq_sinusoidal, ".3g"), guess=number(100 * s.guess, ".3g"))
    if s.token_none <= s.guess:
        text = _("The shipped encoder without positions gets {none} % of the held-out sequences entirely right (and "
                 "{tokens} % of their tokens, no more than the {guess} % a guess blind to order can expect); with "
                 "sinusoidal positions, {sin} %. Without positions a token's vector is the same wherever it stands, so "
                 "the model cannot know where each token must go.").format(**fields)
        relation = "at most"
    else:
        text = _("The shipped encoder without positions gets {none} % of the held-out sequences entirely right (and "
                 "{tokens} % of their tokens, above the {guess} % a guess blind to order can expect); with sinusoidal "
                 "positions, {sin} %.").format(**fields)
        relation = "above"
    return Said(text, [Claim("sequences right without positions", s.seq_none),
                       Claim("tokens right without positions", s.token_none, relation, line),
                       Claim("sequences right with sinusoidal positions", s.seq_sinusoidal)])


def _solve_share() -> Solved:
    s = shipped_shares()
    return Solved(share_answer(s.seq_none), share_sentence(s))


class Pattern(NamedTuple):
    """The head of a trained model that puts the most weight on one pattern, per pattern: the
    share of the head's weight on the anti-diagonal, the diagonal and the first key."""

    anti: tuple[int, int, float]  # (layer, head, share)
    diagonal: tuple[int, int, float]
    first: tuple[int, int, float]
    uniform: float


def pattern(weights: Tensor) -> Pattern:
    """``weights`` ``(layers, heads, T, T)``: each pattern's strongest head
    (:func:`pekit.head_patterns.strongest_heads`)."""
    return Pattern(*strongest_heads(weights))


def pattern_answer(p: Pattern) -> int:
    """0: anti-diagonal, 1: diagonal, 2: first key, 3: about uniform (no head above twice uniform)."""
    shares = [p.anti[2], p.diagonal[2], p.first[2]]
    if max(shares) < 2 * p.uniform:
        return 3
    return max(range(3), key=shares.__getitem__)


def pattern_sentence(p: Pattern) -> Said:
    """The head that puts the most weight on the anti-diagonal (counted from 1), its share, the most
    any head puts on the diagonal and on the first key, and the share of evenly spread weights
    (shares as fractions in the claims, written as percents)."""
    return Said(_("In the shipped encoder with sinusoidal positions, head {head} of layer {layer} puts {anti} % of its "
                  "weight on the anti-diagonal (output i reads input n − 1 − i); the most any head puts on the "
                  "diagonal is {diagonal} %, on the first token {first} %, against {uniform} % for evenly spread "
                  "weights.").format(head=p.anti[1] + 1, layer=p.anti[0] + 1, anti=number(100 * p.anti[2], ".3g"),
                                     diagonal=number(100 * p.diagonal[2], ".3g"), first=number(100 * p.first[2], ".3g"),
                                     uniform=number(100 * p.uniform, ".3g")),
                [Claim("head", p.anti[1] + 1), Claim("layer", p.anti[0] + 1), Claim("anti-diagonal share", p.anti[2]),
                 Claim("largest diagonal share", p.diagonal[2]), Claim("largest first-key share", p.first[2]),
                 Claim("even share", p.uniform)])


@functools.lru_cache(maxsize=1)
def _reversal_pattern() -> Pattern:
    from pekit import shipped

    return pattern(shipped.shipped_attention("encoder", "sinusoidal")["trained"])


def _solve_pattern() -> Solved:
    p = _reversal_pattern()
    return Solved(pattern_answer(p), pattern_sentence(p))


QUESTIONS: tuple[Check, ...] = (
    Check("train-none", "train",
          N_("A tiny encoder with no positional information trains to reverse 8 tokens. What share of held-out "
             "sequences does it get entirely right?"),
          (N_("almost all (over 90 %)"), N_("about half"), N_("almost none (under 5 %)")), _solve_share),
    Check("train-map", "train",
          N_("A model trained to reverse its input: which pattern does its clearest attention map show?"),
          (N_("an anti-diagonal: output i reads input n − 1 − i"), N_("the diagonal: each token reads itself"),
           N_("a column: every token reads the first"), N_("weights spread evenly")), _solve_pattern,
          opens=("train.open_maps",)),
)
