"""The classroom's records and sentences: who is in the class, how the class answered a question,
and what an attendee is told after the reveal. Each sentence states the counts it is given."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from lab.claims import Claim, Said
from lab.display import number, plain
from lab.i18n import _, language, ngettext
from lab.spec_templates import fill, localized, template


class Tally(NamedTuple):
    """How many attendees chose each option of a question (every option, zeros included)."""

    counts: tuple[int, ...]
    correct: int

    @property
    def answered(self) -> int:
        return sum(self.counts)

    @property
    def right(self) -> int:
        return self.counts[self.correct]


def tally_of(stored: Mapping[str, int], options: int, correct: int) -> Tally:
    """A store's tally (answers as option indices in text, ``{"0": 3, "2": 1}``) as a :class:`Tally`;
    an answer naming no option is left out (it cannot be drawn: the note says how many)."""
    counts = [0] * options
    for answer, count in stored.items():
        if isinstance(answer, str) and answer.isdigit() and int(answer) < options and count > 0:
            counts[int(answer)] += count
    return Tally(tuple(counts), correct)


def ignored_answers(stored: Mapping[str, int], options: int) -> int:
    """How many stored answers name no option of the question (an older question's, or tampered)."""
    return sum(count for answer, count in stored.items()
               if not (isinstance(answer, str) and answer.isdigit() and int(answer) < options))


def kept_sentence(idle_seconds: float) -> Said:
    """What a class keeps, and when it is removed (``idle_seconds``: the store's idle limit)."""
    hours = idle_seconds / 3600
    return Said(ngettext("Nothing personal is kept: a class holds the presenter's page and settings, the answers given (by "
                    "anonymous attendees) and optional nicknames, and is removed when it ends or after {hours} idle "
                    "hour.",
                    "Nothing personal is kept: a class holds the presenter's page and settings, the answers given (by "
                    "anonymous attendees) and optional nicknames, and is removed when it ends or after {hours} idle "
                    "hours.", int(hours) if hours == int(hours) else 2).format(hours=number(hours, "g")),
                [Claim("idle hours", hours)])


def nicknames_sentence(names: Sequence[str]) -> Said:
    """The nicknames attendees typed, each shown as typed (markup escaped: never a link, never bold)."""
    return Said(_("Nicknames: {names}").format(names=", ".join(plain(name) for name in names)),
                [Claim("nicknames", len(names))])


def presence_sentence(connected: int, following: int) -> Said:
    """How many attendees are here, and how many follow the presenter."""
    if connected == 0:
        return Said(_("No attendee has joined yet: share the attendee link or the code."), [Claim("connected", 0)])
    return Said(ngettext("{connected} attendee connected, {following} following you.",
                         "{connected} attendees connected, {following} following you.", connected).format(
        connected=number(connected, ","), following=number(following, ",")),
        [Claim("connected", connected), Claim("following", following)])


def answered_sentence(answered: int, connected: int) -> Said:
    """The presenter's count while a question is open (an attendee who answered may have left since)."""
    return Said(ngettext("{answered} answer so far.", "{answered} answers so far.", answered).format(
        answered=number(answered, ",")) + " " + ngettext(
        "{connected} attendee connected.", "{connected} attendees connected.", connected).format(
        connected=number(connected, ",")), [Claim("answered", answered), Claim("connected", connected)])


def result_sentence(tally: Tally) -> Said:
    """The class's result once the answer is revealed."""
    if tally.answered == 0:
        return Said(_("Nobody answered this question."), [Claim("answered", 0)], ["nobody answered"])
    return Said(ngettext("{right} of {answered} answer was right ({share} %).",
                    "{right} of {answered} answers were right ({share} %).", tally.answered).format(
        right=number(tally.right, ","), answered=number(tally.answered, ","),
        share=number(100 * tally.right / tally.answered, ".0f")),
        [Claim("right", tally.right), Claim("answered", tally.answered),
         Claim("percent right", 100 * tally.right / tally.answered)])


def verdict_sentence(mine: int | None, correct: int, options: Sequence[str]) -> Said:
    """What an attendee (or a learner alone) is told at the reveal: ``options`` in the reader's language (it
    states no number: the options are quoted)."""
    if mine is None:
        return Said(_("You did not answer. The answer is “{answer}”.").format(answer=options[correct]),
                    cases=["not answered"])
    if mine == correct:
        return Said(_("You answered “{answer}”: right.").format(answer=options[mine]), cases=["right"])
    return Said(_("You answered “{mine}”; the answer is “{answer}”.").format(mine=options[mine],
                                                                             answer=options[correct]), cases=["wrong"])


def options_markdown(options: Sequence[str], correct: int | None = None) -> Said:
    """The options as a numbered list (the chart's bars carry the numbers); once revealed, the
    right one in bold with a tick."""
    return Said("\n".join(f"{i + 1}. **{label}** ✓" if i == correct else f"{i + 1}. {label}"
                          for i, label in enumerate(options)), [Claim("options", len(options))])


LABEL_WIDTH, BAND, LINE = 36, 12, 18  # pekit.charts.bars: characters per label line, a band's height and a line's


def bar_label(index: int, text: str) -> Said:
    """What ``pekit.charts.bars.option_label`` writes beside a bar (this page draws without pekit):
    the option's number and text in lines of at most ``LABEL_WIDTH`` characters."""
    return Said("\n".join(textwrap.wrap(f"{index + 1}. {text}", LABEL_WIDTH, break_long_words=False)
                          or [f"{index + 1}."]), [Claim("option number", index + 1)])


def answers_chart(options: Sequence[str], tally: Tally, *, revealed: bool) -> dict:
    """A bar per option, numbered as :func:`options_markdown` lists them, with its text beside it
    (``options`` in the reader's language), zeros included; once revealed the right option's bar is
    green and the others grey. The spec is ``pekit.charts.answer_bars``', made ahead of time
    (``answers_chart.json``, :mod:`lab.spec_templates`: this page draws without pekit), filled
    here with the tally: one row per option, as the builder writes them."""
    made = template("answers_chart")
    rows = [{"option": str(bar_label(i, label)), "text": label, "count": count, "right": revealed and i == tally.correct,
             "order": i} for i, (label, count) in enumerate(zip(options, tally.counts))]
    lines = max(row["option"].count("\n") + 1 for row in rows)
    spec = fill(made["specs"]["revealed" if revealed else "asked"],
                {"rows": rows, "top": max(tally.counts + (1,)), "count_title": _("attendees"),
                 "label_title": _("answer"), "step": BAND + LINE * lines})
    return localized(spec, made["locales"], language())
