"""The training page's longer inputs: what the accuracy past the training length says at the
longest test length, every scheme against the model without positions and the best order-blind
guess at that length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from lab.claims import Claim, Reference, Said
from lab.i18n import _, ngettext
from lab.views.train_names import _kind, _n, _names, _pct, _ranked, ranking


class LengthAccuracy(NamedTuple):
    """The share of tokens right at one test length (``None`` where the model has no position
    to give)."""

    seq_len: int
    token_accuracy: float | None


def shown(share: float) -> float:
    """A share as the page writes it: a tenth of a percent (what a reader can compare)."""
    return round(1000 * share) / 1000


TENTH = 0.0005  # half a tenth of a percent: shares equal as shown are this close


def _series(table: Sequence[LengthAccuracy]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A scheme's test lengths with a share, in order, and the shares as shown."""
    known = sorted((r.seq_len, r.token_accuracy) for r in table if r.token_accuracy is not None)
    return tuple(n for n, _a in known), tuple(shown(a) for _n_, a in known)


def series_sentence(results: dict[str, Sequence[LengthAccuracy]]) -> Said | None:
    """What each scheme's line does over every length drawn (as shown, a tenth of a percent):
    the schemes whose share never rises and ends lower, and those whose share also rises
    somewhere on the way (with the largest such rise), whose order at the longest length holds
    there only. None with fewer than two lengths to compare."""
    lines = {p: _series(t) for p, t in results.items()}
    lines = {p: (n, v) for p, (n, v) in lines.items() if len(v) > 1}
    if not lines:
        return None
    every = "the scheme's whole series over the lengths drawn, as shown (a tenth of a percent)"
    falling = [p for p, (_n_, v) in lines.items() if Claim("", v, "falls", Reference(v, every)).holds()]
    bumpy = [p for p, (_n_, v) in lines.items() if Claim("", v, "not monotone", Reference(v, every)).holds()]
    rising = [p for p, (_n_, v) in lines.items() if Claim("", v, "rises", Reference(v, every)).holds()]
    first = min(n[0] for n, _v in lines.values())
    last = max(n[-1] for n, _v in lines.values())
    if bumpy:  # the lines that go up and down, with the largest rise from one length to the next among them
        size, scheme, at = max((v[i + 1] - v[i], p, i) for p in bumpy for n, v in (lines[p],) for i in range(len(v) - 1))
        lengths, values = lines[scheme]
        return Said(ngettext(
            "From {first} to {last} tokens, the line of {names} goes up and down ({scheme}: {low} at {a} tokens, "
            "{high} at {b}): the order below holds at {last} only.",
            "From {first} to {last} tokens, the lines of {names} go up and down ({scheme}: {low} at {a} tokens, "
            "{high} at {b}): the order below holds at {last} only.", len(bumpy)).format(
            first=first, last=last, names=_names(bumpy), scheme=_names([scheme]), low=_pct(values[at]), a=lengths[at],
            high=_pct(values[at + 1]), b=lengths[at + 1]),
            [Claim(f"{p} by length", lines[p][1], "not monotone", Reference(lines[p][1], every)) for p in bumpy]
            + [Claim(f"{scheme}'s largest rise", values[at + 1], "above",
                     Reference(values[at], "the share at the length before, as shown"))])
    claims = ([Claim(f"{p} by length", lines[p][1], "falls", Reference(lines[p][1], every)) for p in falling]
              + [Claim(f"{p} by length", lines[p][1], "rises", Reference(lines[p][1], every)) for p in rising])
    parts = []
    if falling:
        parts.append(_("the share falls throughout for {names}").format(names=_names(falling)))
    if rising:
        parts.append(_("it rises throughout for {names}").format(names=_names(rising)))
    flat = [p for p in lines if p not in falling + rising]
    if flat:
        parts.append(_("it ends where it starts for {names}").format(names=_names(flat)))
    return Said(_("From {first} to {last} tokens, {parts}.").format(first=first, last=last, parts="; ".join(parts)),
                claims)


def extrapolation_lesson(results: dict[str, Sequence[LengthAccuracy]], seq_len: int, kind: str = "encoder",
                         guess: float | None = None) -> list[Said]:
    """What the accuracy past the training length ``seq_len`` says: what each scheme's line does
    over every length drawn (:func:`series_sentence`), then at the longest test length every
    scheme ranked by the share of tokens right (equal as shown: a tie), where the model without
    positions stands among them, how that compares with ``guess`` (the best order-blind guess at
    that length, :func:`pekit.training.held_out_ceiling`), and which scheme cannot be asked at
    all. Each sentence carries its comparisons as claims."""
    if not any(results.values()):
        return []
    longest = max(r.seq_len for table in results.values() for r in table)
    at = {p: next((r for r in table if r.seq_len == longest), None) for p, table in results.items()}
    known = {p: r.token_accuracy for p, r in at.items() if r is not None and r.token_accuracy is not None}
    said: list[Said] = []
    trend = series_sentence(results)
    if trend is not None:
        said.append(trend)
    if known:
        groups = ranking(known)
        order = tuple(shown(share) for _names_, share in groups)
        claims = [Claim(f"{_names(names)} at {longest} tokens", share) for names, share in groups]
        if len(order) > 1:
            claims.append(Claim("ranked shares", order, "falls", Reference(order, "the groups' shares as shown, from "
                                                                                  "the first named to the last")))
        said.append(Said(_("At {length} tokens ({times} times the training length), the share of tokens right: "
                           "{ranked}.").format(length=longest, times=_n(longest / seq_len, "g"), ranked=_ranked(known)),
                         claims))
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
        mine = shown(known["none"])
        how = "the scheme's share at the longest length, as shown (a tenth of a percent)"
        said.append(Said(text, [Claim(f"none against {p}", mine, "above", Reference(shown(known[p]), how)) for p in below]
                         + [Claim(f"none against {p}", mine, "equal", Reference(shown(known[p]), how)) for p in tied]
                         + [Claim(f"none against {p}", mine, "below", Reference(shown(known[p]), how)) for p in above]))
    if known and guess is not None:
        low = [p for p in known if known[p] <= guess]
        if len(known) == 1 and not low:  # one scheme: named, not "every scheme"
            text = _("The best order-blind guess gets {share} of the tokens at that length: {names} does better.")
        elif len(known) == 1:
            text = _("The best order-blind guess gets {share} of the tokens at that length: {names} does no better.")
        elif len(low) == len(known):
            text = _("The best order-blind guess gets {share} of the tokens at that length: no scheme does better.")
        elif low:
            text = ngettext("The best order-blind guess gets {share} of the tokens at that length: {names} does no "
                            "better.",
                            "The best order-blind guess gets {share} of the tokens at that length: {names} do no "
                            "better.", len(low))
        else:
            text = _("The best order-blind guess gets {share} of the tokens at that length: every scheme does better.")
        line = Reference(guess, "pekit.training.held_out_ceiling at the longest length: the best expected share of "
                                "tokens of a guess blind to order on the held-out examples of that length")
        said.append(Said(text.format(share=_pct(guess), names=_names(low or list(known))),
                         [Claim(f"{p} at {longest} tokens", known[p], "at most" if p in low else "above", line)
                          for p in known]))
    blind = [p for p, r in at.items() if r is not None and r.token_accuracy is None]
    if blind:
        last = seq_len * (2 if kind == "decoder" else 1) - 1
        if kind == "decoder":
            said.append(Said(_("{names} cannot be asked at all: its table has no vector past position {last} (the "
                               "decoder reads its inputs and as many answer slots).").format(names=_names(blind),
                                                                                            last=last)))
        else:
            said.append(Said(_("{names} cannot be asked at all: its table has no vector past position {last}.").format(
                names=_names(blind), last=last)))
    return said
