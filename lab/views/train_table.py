"""What the training page's table of results says: the model without positions against the
best order-blind guess on the held-out examples, and the best scheme against the others, each
sentence with its comparisons as claims."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lab.claims import Claim, Reference, Said
from lab.i18n import N_, _, ngettext
from lab.views.train_names import _kind, _n, _names, _pct, _scheme, _task, ranking

if TYPE_CHECKING:
    from lab.views.train import Result


def _below(value: float, ceiling: float, what: str) -> str:
    """How a share ``value`` stands against ``ceiling`` that ``what`` can reach, within two points."""
    if value <= ceiling:
        return _("no better than the {share} {what}").format(share=_pct(ceiling), what=what)
    return _("within {points} points of the {share} {what}").format(points=_n(100 * (value - ceiling), ".1f"),
                                                                    share=_pct(ceiling), what=what)


def lesson(task: str, kind: str, results: dict[str, Result], ceiling: float) -> list[Said]:
    """What a table of ``results`` (one per scheme) says, in sentences built from its numbers.
    ``ceiling``: the best token accuracy an order-blind model can reach on the test set
    (:func:`pekit.training.held_out_ceiling`). Compares the model without positions with that
    ceiling and with the best scheme (schemes whose shown percentages are equal tie). Each
    sentence carries its comparisons as claims: against the ceiling (with the page's allowance of
    two points for the sample of held-out examples) and against the other schemes' shares as shown."""
    if not results:
        return []
    said: list[Said] = []
    line = Reference(ceiling, "pekit.training.held_out_ceiling: the best expected token accuracy of a guess blind to "
                              "order on the held-out examples of this task and length")
    allowance = Reference(MARGIN, "the page's allowance for the sample of held-out examples: two points")
    none = results.get("none")
    others = {p: r for p, r in results.items() if p != "none"}
    if none is not None:
        tok, seq = none.token_accuracy, none.seq_accuracy
        margin = tok - ceiling
        if ceiling >= 1.0:  # the answer does not depend on order (histogram)
            text = _("Without positions the {kind} gets {tokens} of the tokens and {sequences} of the sequences "
                     "right on {task}, whose answer does not depend on order (permuting the input permutes the "
                     "answer the same way), so seeing order is not needed here").format(
                kind=_kind(kind), tokens=_pct(tok), sequences=_pct(seq), task=_task(task))
            claims = [Claim("best order-blind guess", ceiling, "at least", Reference(
                1.0, "every token right: the answer is a function of the token and the multiset"))]
            if others:
                (top, top_tok), *_rest = ranking({p: r.token_accuracy for p, r in others.items()})
                best_shown = Reference(shown(top_tok), "the best scheme's share as shown (a tenth of a percent)")
                gap = Reference(0.05, "five points: the page's word for close")
                if _pct(tok) == _pct(top_tok) or tok > top_tok:
                    claims.append(Claim("tokens right without positions", shown(tok), "at least", best_shown))
                    text += _(": as many tokens as any scheme with positions or more (best: {names}, "
                              "{share}).").format(names=_names(top), share=_pct(top_tok))
                elif top_tok - tok <= 0.05:
                    claims += [Claim("tokens right without positions", shown(tok), "below", best_shown),
                               Claim("gap to the best scheme", top_tok - tok, "at most", gap)]
                    text += _(": within {points} points of the best scheme with positions ({names}, "
                              "{share}).").format(points=_n(100 * (top_tok - tok), ".1f"), names=_names(top),
                                                   share=_pct(top_tok))
                else:
                    claims.append(Claim("gap to the best scheme", top_tok - tok, "above", gap))
                    text += ngettext("; {names} gets {share} of the tokens with the same training, so the gap is "
                                     "not about seeing order.",
                                     "; {names} get {share} of the tokens with the same training, so the gap is "
                                     "not about seeing order.", len(top)).format(names=_names(top),
                                                                                  share=_pct(top_tok))
            else:
                text += "."
            said.append(Said(text, claims))
        elif kind == "encoder":
            if margin <= MARGIN:
                cannot = _(CANNOT[task]) if task in CANNOT else f"so it cannot {task} them"
                said.append(Said(_(
                    "Without positions the encoder gets {tokens} of the tokens and {sequences} of the sequences "
                    "right: {below}. Self-attention without positions treats its input as a bag of tokens (permute "
                    "the input and its outputs permute the same way), {cannot}.").format(
                    tokens=_pct(tok), sequences=_pct(seq), cannot=cannot,
                    below=_below(tok, ceiling, _("that the best order-blind guess can reach on these examples"))),
                    _against_line(tok, ceiling, line, allowance)))
            else:
                said.append(Said(_(
                    "Without positions the encoder gets {tokens} of the tokens right, above the {share} an "
                    "order-blind model can reach: something in these settings leaks order.").format(
                    tokens=_pct(tok), share=_pct(ceiling)), [Claim("points above the line", margin, "above", allowance)]))
        elif margin > MARGIN:
            said.append(Said(_(
                "Without positions the decoder still gets {tokens} of the tokens right ({sequences} of the "
                "sequences), above the {share} an order-blind model could reach: the causal mask leaks position "
                "(each token sees only the tokens before it, so how many it sees tells where it is).").format(
                tokens=_pct(tok), sequences=_pct(seq), share=_pct(ceiling)),
                [Claim("points above the line", margin, "above", allowance)]))
        else:
            said.append(Said(_(
                "Without positions the decoder gets {tokens} of the tokens right, {below}: it has not yet found the "
                "position the causal mask leaks (more steps may help).").format(
                tokens=_pct(tok), below=_below(tok, ceiling, _("an order-blind model could reach"))),
                _against_line(tok, ceiling, line, allowance)))
    if not others:
        return said
    # the best by sequences, then tokens, as the table shows them (a tenth of a percent): equal as shown is a
    # tie, and a share that only differs beyond what is shown does not outrank more tokens right
    key = {p: (round(1000 * r.seq_accuracy), round(1000 * r.token_accuracy), r.seq_accuracy, r.token_accuracy)
           for p, r in results.items()}
    top = max(results, key=lambda p: key[p])
    best = [p for p in results if key[p][:2] == key[top][:2]]
    seq = results[top].seq_accuracy
    as_shown = "the scheme's share of sequences as shown (a tenth of a percent)"
    beaten = []  # the others: fewer sequences as shown, or as many and fewer tokens
    for p, r in results.items():
        if p in best:
            continue
        other = shown(r.seq_accuracy)
        beaten.append(Claim(f"{_names(best)} against {p}", shown(seq), "equal" if other == shown(seq) else "above",
                            Reference(other, as_shown, TENTH if other == shown(seq) else 0.0)))
    if "none" in best:
        said.append(Said(_("No scheme with positions gets more of the sequences right than none ({share}).").format(
            share=_pct(seq)), beaten, cases=("none best",)))
    elif len(results) == 1:
        said.append(Said(_("{name} gets {share} of the sequences right.").format(name=_scheme(top), share=_pct(seq)),
                         cases=("only scheme",)))
    elif none is not None and _pct(seq) == _pct(none.seq_accuracy):  # the best only by tokens
        tokens = Reference(none.token_accuracy, "the tokens the model without positions gets right")
        said.append(Said(ngettext(
            "No scheme with positions gets more of the sequences right than none ({share}); {names} gets the most "
            "tokens right: {tokens} against {none}.",
            "No scheme with positions gets more of the sequences right than none ({share}); {names} get the most "
            "tokens right: {tokens} against {none}.", len(best)).format(
            share=_pct(seq), names=_names(best), tokens=_pct(results[top].token_accuracy),
            none=_pct(none.token_accuracy)), beaten + [Claim("the most tokens right", results[top].token_accuracy,
                                                             "above", tokens)], cases=("best by tokens",)))
    elif none is not None:
        said.append(Said(_("With {names} positions it gets {share} of the sequences right, against {none} without."
                           ).format(names=_names(best, "or"), share=_pct(seq), none=_pct(none.seq_accuracy)), beaten,
                         cases=("beats none",)))
    else:
        said.append(Said(ngettext("The best here is {names}: {share} of the sequences right.",
                                  "The best here are {names}: {share} of the sequences right.", len(best)).format(
            names=_names(best), share=_pct(seq)), beaten, cases=("best among positions",)))
    return said


MARGIN = 0.02  # two points: above the order-blind line by more than this, something leaks order
TENTH = 0.0005  # shares equal as shown (a tenth of a percent) are this close


def shown(share: float) -> float:
    """A share as the page writes it: a tenth of a percent."""
    return round(1000 * share) / 1000


def _against_line(tok: float, ceiling: float, line: Reference, allowance: Reference) -> list[Claim]:
    """``_below``'s claims: at most the line, or above it by no more than the allowance."""
    if tok <= ceiling:
        return [Claim("tokens right without positions", tok, "at most", line)]
    return [Claim("tokens right without positions", tok, "above", line),
            Claim("points above the line", tok - ceiling, "at most", allowance)]




# what a model without positions cannot do to its input, by task
CANNOT = {"reverse": N_("so it cannot reverse them"), "sort": N_("so it cannot sort them"),
          "shift": N_("so it cannot shift them"), "histogram": N_("so it cannot histogram them")}
