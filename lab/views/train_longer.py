"""The training page's longer inputs: what the accuracy past the training length says at the
longest test length, every scheme against the model without positions and the best order-blind
guess at that length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from lab.i18n import _, ngettext
from lab.views.train_names import _kind, _n, _names, _pct, _ranked, ranking


class LengthAccuracy(NamedTuple):
    """The share of tokens right at one test length (``None`` where the model has no position
    to give)."""

    seq_len: int
    token_accuracy: float | None


def extrapolation_lesson(results: dict[str, Sequence[LengthAccuracy]], seq_len: int, kind: str = "encoder",
                         guess: float | None = None) -> list[str]:
    """What the accuracy past the training length ``seq_len`` says at the longest test length:
    every scheme ranked by the share of tokens right (equal as shown: a tie), where the model
    without positions stands among them, how that compares with ``guess`` (the best order-blind
    guess at that length, :func:`pekit.training.held_out_ceiling`), and which scheme cannot be
    asked at all."""
    if not any(results.values()):
        return []
    longest = max(r.seq_len for table in results.values() for r in table)
    at = {p: next((r for r in table if r.seq_len == longest), None) for p, table in results.items()}
    known = {p: r.token_accuracy for p, r in at.items() if r is not None and r.token_accuracy is not None}
    said = []
    if known:
        said.append(_("At {length} tokens ({times} times the training length), the share of tokens right: "
                      "{ranked}.").format(length=longest, times=_n(longest / seq_len, "g"), ranked=_ranked(known)))
    if "none" in known and len(known) > 1:
        groups = ranking(known)
        place = next(i for i, (names, _share) in enumerate(groups) if "none" in names)
        above = [p for names, _share in groups[:place] for p in names]
        tied = [p for p in groups[place][0] if p != "none"]
        below = [p for names, _share in groups[place + 1:] for p in names]
        parts = [(word, names) for word, names in (("more", below), ("as many", tied), ("fewer", above)) if names]
        compared = {"more": _("more than {names}"), "as many": _("as many as {names}"),
                    "fewer": _("fewer than {names}")}
        if not above:  # first, alone or tied
            text = _("Without positions the {kind} keeps the most tokens right there: {compared}.").format(
                kind=_kind(kind), compared=", ".join(compared[word].format(names=_names(names))
                                                      for word, names in parts))
        else:
            (word, names), *rest = parts
            first = {"more": _("Without positions the {kind} keeps more tokens right there than {names}"),
                     "as many": _("Without positions the {kind} keeps as many tokens right there as {names}"),
                     "fewer": _("Without positions the {kind} keeps fewer tokens right there than {names}")}[word]
            text = (first.format(kind=_kind(kind), names=_names(names))
                    + "".join(", " + compared[w].format(names=_names(n)) for w, n in rest) + ".")
        if kind == "decoder" and below and not above and not tied:
            text += _(" Kazemnejad et al. (2023) found the same at a larger scale: decoders without positions "
                      "generalised to longer inputs better than with sinusoidal, T5, ALiBi or rotary positions.")
        said.append(text)
    if known and guess is not None:
        low = [p for p in known if known[p] <= guess]
        if len(low) == len(known):
            text = _("The best order-blind guess gets {share} of the tokens at that length: no scheme does better.")
        elif low:
            text = ngettext("The best order-blind guess gets {share} of the tokens at that length: {names} does no "
                            "better.",
                            "The best order-blind guess gets {share} of the tokens at that length: {names} do no "
                            "better.", len(low))
        else:
            text = _("The best order-blind guess gets {share} of the tokens at that length: every scheme does better.")
        said.append(text.format(share=_pct(guess), names=_names(low) if low else ""))
    blind = [p for p, r in at.items() if r is not None and r.token_accuracy is None]
    if blind:
        last = seq_len * (2 if kind == "decoder" else 1) - 1
        if kind == "decoder":
            said.append(_("{names} cannot be asked at all: its table has no vector past position {last} (the decoder "
                          "reads its inputs and as many answer slots).").format(names=_names(blind), last=last))
        else:
            said.append(_("{names} cannot be asked at all: its table has no vector past position {last}.").format(
                names=_names(blind), last=last))
    return said
