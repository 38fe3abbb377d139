"""Checks for understanding: short predict-then-reveal questions, at least two per page, drawn from
the chapter's exercises and the questions its readers asked in the discussion thread.

A question names the page it belongs to, its prompt and options (English, marked for the
catalog), and a ``solve`` function that computes the right option and the explanation from
pekit's own numbers, never from a stored answer: the explanation states those numbers. Where
the page can show the answer, ``settings`` are the link settings that put it in the picture.

Answers travel as the option's index (``"0"``, ``"1"``, ...), the same in every language.

Each page's questions are the ``QUESTIONS`` of its module in this package; the page hands them to
``lab.page.lab_page``, which shows them. :func:`find` and :func:`solved` reach every page's (a
class report lists the questions asked on any page).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from lab.i18n import _, localized_resource
from lab.views import misconceptions


class Solved(NamedTuple):
    """The right option's index and the explanation, in the reader's language."""

    correct: int
    explanation: str


@dataclass(frozen=True)
class Check:
    """One question of a page."""

    id: str
    page: str  # the page's URL path
    prompt: str  # N_ message
    options: tuple[str, ...]  # N_ messages
    solve: Callable[[], Solved]
    settings: Mapping[str, str] = field(default_factory=dict)  # where the page's picture shows the answer
    fields: Callable[[], Mapping[str, str]] | None = None  # what the prompt's {placeholders} name
    solo: bool = True  # listed on its page for a learner alone (the lesson asks its own in its steps)
    alone: bool = False  # a class answers it alone, without discussing (a new question after a discussed one)
    opens: tuple[str, ...] = ()  # the keys of the closed sections that hold the picture of its answer

    def indices(self) -> range:
        """The options' indices, as a choice widget lists them."""
        return range(len(self.options))

    def text(self) -> str:
        """The prompt in the reader's language, its placeholders filled."""
        return _(self.prompt).format(**self.fields()) if self.fields else _(self.prompt)

    def choice(self, answer: object) -> int | None:
        """An answer as stored (an option's index as text) back to the index; None if it names none."""
        if isinstance(answer, str) and answer.isdigit() and int(answer) < len(self.options):
            return int(answer)
        return None


def compare(first: float, second: float) -> int:
    """0 when two float64 results agree to rounding, else 1 when ``second`` is larger, -1 when smaller."""
    if abs(second - first) <= 1e-9 * max(1.0, abs(first)):
        return 0
    return 1 if second > first else -1


def with_why_not(check: Check, solved: Solved) -> Solved:
    """``solved`` with its explanation followed by why the question's tempting wrong option is wrong."""
    why = misconceptions.why_not(check.id, check.options)
    return Solved(solved.correct, f"{solved.explanation}\n\n{why}" if why else solved.explanation)


# -- every page's questions --------------------------------------------------------------------

# the pages with questions, in the order a presenter's report lists them: each one's questions are
# the QUESTIONS of its module in this package (the lesson's live with its steps, lab.views.lesson)
PAGES = ("encoding_heatmap", "binary_analogy", "offset_rotation", "complexity_comparison", "live_attention", "train",
         "encoding_families", "fixed_or_learned", "rope_in_a_real_model")
LESSON = "lesson"


def of_page(page: str) -> tuple[Check, ...]:
    """The questions of ``page`` (a page's URL path), in order; none for a page without questions."""
    if page == LESSON:
        from lab.views import lesson

        return (*lesson.QUESTIONS.values(), *lesson.FOLLOW_UPS.values())
    if page not in PAGES:
        return ()
    return importlib.import_module(f"{__name__}.{page}").QUESTIONS


@functools.lru_cache(maxsize=1)
def page_checks() -> dict[str, Check]:
    """The full pages' questions by id (the lesson asks some of them in its own words)."""
    return {check.id: check for page in PAGES for check in of_page(page)}


def every_check() -> dict[str, Check]:
    """Every page's questions, the lesson's too, by id."""
    return {**page_checks(), **{check.id: check for check in of_page(LESSON)}}


def follow_up(qid: str) -> Check | None:
    """The new question on the same idea that a class answers alone once ``qid`` is revealed
    (None: it has none)."""
    from lab.views import lesson

    return lesson.FOLLOW_UPS.get(qid)


def find(qid: object) -> Check | None:
    """The question with id ``qid`` on any page (None: no such question)."""
    if not isinstance(qid, str):
        return None
    return page_checks().get(qid) or next((check for check in of_page(LESSON) if check.id == qid), None)


@localized_resource(max_entries=64)
def solved(qid: str) -> Solved:
    """Question ``qid``'s right option and explanation in the reader's language, computed once per
    language for the server (a revealed question is shown on every rerun of every attendee)."""
    check = find(qid)
    if check is None:
        raise ValueError(f"qid={qid!r} names no question")
    return with_why_not(check, check.solve())


def correct(check: Check) -> int:
    """The right option's index (the same in every language)."""
    return solved(check.id).correct
