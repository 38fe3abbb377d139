"""The concept check: eight questions on the chapter's ideas, taken before and after the lesson
(alone or in a class), different from the lesson's own. Each wrong option is a misconception
learners hold (the rows stay in order, so the order is kept; Q, K and V are one vector; an odd
width is an error; the two layouts differ only in their order; a convolution reaches every token
at once; ...). Each right option is computed from pekit's numbers, never stored.

A learner's score is the share of the eight answered right. A class's normalized gain is Hake's
⟨g⟩ = (post − pre) / (100 − pre), over the attendees who took both checks (the class averages of
their scores, in percent); it is undefined when the class scored 100 before."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pekit
from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _, localized_resource, ngettext
from lab.views import encoding_heatmap as heatmap_view
from lab.views import lesson
from lab.views import live_attention as live
from lab.views.questions import Check, Solved, with_why_not

PHASES = ("pre", "post")
PHASE_NAMES = {"pre": N_("before the lesson"), "post": N_("after the lesson")}


def _solve_order() -> Solved:
    view = lesson.shuffle_view(lesson.tokens_of(_(lesson.SENTENCE)), lesson.SHUFFLE, False)
    return Solved(1 if view.identical else 0, Said(_(
        "The output rows do come out in the input's order, but no row depends on it: a word's output is the same "
        "wherever it stands (in the lesson's example it moved by {gap} of the outputs' size, float rounding). The "
        "order is lost before anything reads the rows.").format(gap=number(view.gap, ".0e") if view.gap else "0"),
        [Claim("gap", view.gap, "below", Reference(lesson.ROUND_OFF, "the lesson's float rounding bound, relative to "
                                                                      "the outputs' size"))]))


def _solve_qkv() -> Solved:
    tokens = lesson.tokens_of(_(lesson.SENTENCE))
    first = live.query_step(tokens, lesson.HIDDEN, lesson.HEADS, lesson.SEED, False, 0, 1)
    second = live.query_step(tokens, lesson.HIDDEN, lesson.HEADS, lesson.SEED, False, 0, 4)
    one_way, other_way = first.scores[4], second.scores[1]
    same = abs(one_way - other_way) <= 1e-9
    return Solved(0 if same else 2, Said(_(
        "Each token's query, key and value are made from its own vector by three different matrices (learned in "
        "training; random in the lesson's untrained layer). Were query and key the same vector, the score of “{a}” "
        "looking at “{b}” would equal the score the other way; in the lesson's layer they are {one} and "
        "{other}.").format(a=tokens[1], b=tokens[4], one=number(one_way, ".3f"), other=number(other_way, ".3f")),
        [Claim("the two scores apart", abs(one_way - other_way), "at most" if same else "above",
               Reference(1e-9, "float64 rounding of two scores computed in float64"))]))


def _solve_odd() -> Solved:
    table = pekit.frequency_table(7)
    last = table.iloc[-1]
    rows, width = pekit.sinusoidal_encoding(3, 7).shape
    if width != 7:
        return Solved(1, _("The table could not be built with d = 7."))
    answer = 3 if int(last["sin_column"]) == 6 and int(last["cos_column"]) == -1 else 2
    return Solved(answer, _(
        "The formula simply stops at column d − 1 = 6: the last pair has its sine and no cosine. (The book's code "
        "fails at an odd d; tensor2tensor's layout makes the last column zeros instead.)"))


def _solve_layouts() -> Solved:
    chapter = pekit.frequencies(8).tolist()
    t2t = pekit.frequencies(8, layout="tensor2tensor").tolist()
    differ = any(abs(a - b) > 1e-12 for a, b in zip(chapter, t2t))
    return Solved(1 if differ else 0, _(
        "Not only the order: tensor2tensor spreads its frequencies from 1 down to 1/base, both included, so at d = 8 "
        "its slowest pair turns at {t2t} radian per position, the chapter's at {chapter}.").format(
        t2t=number(t2t[-1], ".3g"), chapter=number(chapter[-1], ".3g")))


CNN_OPTIONS = (1, 4, 8, 9)


def _solve_cnn() -> Solved:
    path = int(pekit.complexity_table(9, 16, 3).loc["CNN", "max_path_length"])
    return Solved(CNN_OPTIONS.index(path) if path in CNN_OPTIONS else -1, _(
        "Each layer of a kernel-3 convolution reaches one more token on each side, so the first of 9 tokens reaches "
        "the last after {layers} layers: (n − 1)/(k − 1). Self-attention needs one.").format(layers=path))


def _solve_steps() -> Solved:
    table = pekit.complexity_table(100, 16, 3)
    rnn, attention = (int(table.loc[layer, "sequential_operations"]) for layer in ("RNN", "Self-attention"))
    answer = 2 if (rnn, attention) == (100, 1) else 1 if (rnn, attention) == (1, 100) else 0
    return Solved(answer, _(
        "An RNN reads one token after another: {rnn} steps that cannot run at once. Self-attention compares every "
        "pair in one step of matrix products: {attention}.").format(rnn=rnn, attention=attention))


def _solve_shift() -> Solved:
    view = heatmap_view.table_view(64, 32, 10000, 0, "interleaved")
    return Solved(1 if view.max_spread < 1e-4 else 0, Said(_(
        "P[i]·P[j] depends on the offset i − j alone: over every start in a 64-position table of width 32, rows the "
        "same distance apart differ in their dot product by at most {spread}.").format(
        spread=number(view.max_spread, ".0e") if view.max_spread else "0"),
        [Claim("largest spread", view.max_spread, "below",
               Reference(1e-4, "the spread under which the answer calls the dot product unchanged"))]))


def _solve_learned() -> Solved:
    learned = sum(p.numel() for p in pekit.PositionalEncoding(32, 0.0).parameters())
    return Solved(2 if learned == 0 else 0, ngettext(
        "None: the chapter's P is computed from the formula and holds {count} trainable number. A learned "
        "table (BERT's, MiniLM's) is the other kind: n × d numbers that training sets.",
        "None: the chapter's P is computed from the formula and holds {count} trainable numbers. A learned "
        "table (BERT's, MiniLM's) is the other kind: n × d numbers that training sets.", learned).format(count=learned))


QUESTIONS: tuple[Check, ...] = (
    Check("concept-order", "concept_check",
          N_("Self-attention gives its outputs in the same row order as its inputs. Without positions, does a "
             "word's output depend on where the word stands?"),
          (N_("yes: the order of the rows carries the position"),
           N_("no: the same word gets the same output wherever it stands"), N_("only for the first and the last word")),
          _solve_order, solo=False),
    Check("concept-qkv", "concept_check", N_("Where do a token's query, key and value come from?"),
          (N_("they are one vector, used three times"), N_("the query from the token, the key and value from its position"),
           N_("from its own vector, through three different learned matrices"),
           N_("the query from the token, the key and value from the other tokens")), _solve_qkv, solo=False),
    Check("concept-odd", "concept_check",
          N_("The chapter's table P with an odd width, d = 7: what is its last column?"),
          (N_("all zeros"), N_("nothing: the width must be even"), N_("a cosine"),
           N_("a sine whose cosine partner is missing")), _solve_odd, solo=False),
    Check("concept-layouts", "concept_check",
          N_("tensor2tensor's table puts all the sines first, then all the cosines. At the same width, what else "
             "differs from the chapter's table?"),
          (N_("nothing: only the order of the columns"), N_("the frequencies themselves"),
           N_("the values become random")), _solve_layouts, solo=False),
    Check("concept-cnn", "concept_check",
          N_("Convolutions with kernel size 3 over 9 tokens: how many stacked layers before the first token can "
             "affect the last?"), tuple(str(v) for v in CNN_OPTIONS), _solve_cnn, solo=False),
    Check("concept-steps", "concept_check",
          N_("Reading 100 tokens: how many steps, one after another, does an RNN need, and self-attention?"),
          (N_("100 each"), N_("RNN 1, self-attention 100"), N_("RNN 100, self-attention 1")), _solve_steps,
          solo=False),
    Check("concept-shift", "concept_check",
          N_("Move two positions i and j by the same amount. What happens to the dot product P[i]·P[j]?"),
          (N_("it changes with where they start"), N_("it stays the same")), _solve_shift, solo=False),
    Check("concept-learned", "concept_check",
          N_("How many numbers of the chapter's sinusoidal table P does training change?"),
          (N_("all of them, n × d"), N_("one per position"), N_("none: P comes from a formula")), _solve_learned,
          solo=False),
)
BY_ID = {check.id: check for check in QUESTIONS}
COUNT = len(QUESTIONS)


def phase_sentence(phase: str) -> Said:
    """What the check taken now is for."""
    if phase == "pre":
        return Said(_("Before the lesson: answer from what you know now; a guess is fine. You see your score, not the "
                      "answers, so the second check cannot be answered from them."))
    return Said(ngettext("After the lesson: the same {count} question. Handed in, each answer comes with its explanation.",
                    "After the lesson: the same {count} questions. Handed in, each answer comes with its explanation.",
                    COUNT).format(count=COUNT), [Claim("questions", COUNT)])


def numbered() -> tuple[tuple[int, Check], ...]:
    """The questions with their numbers, from 1."""
    return tuple(enumerate(QUESTIONS, start=1))


def widget_key(phase: str, check: Check) -> str:
    return f"concept.{phase}.{check.id}"


def given(state: Mapping[str, object], phase: str) -> dict[str, str]:
    """The answers chosen on the page (``state``: the session's widget values), as the store keeps
    them: the option's index as text, questions left open left out."""
    return {check.id: str(state[widget_key(phase, check)]) for check in QUESTIONS
            if state.get(widget_key(phase, check)) is not None}


@localized_resource(max_entries=64)
def solved(qid: str) -> Solved:
    return with_why_not(BY_ID[qid], BY_ID[qid].solve())


def answer_key() -> dict[str, int]:
    """Each question's right option."""
    return {check.id: solved(check.id).correct for check in QUESTIONS}


def score(answers: Mapping[str, object], key: Mapping[str, int]) -> float:
    """The percent of the questions answered right (an answer given as the option's index or its
    text; a missing or unreadable one is wrong)."""
    return 100 * right_count(answers, key) / len(key)


def right_count(answers: Mapping[str, object], key: Mapping[str, int]) -> int:
    return sum(1 for qid, correct in key.items() if str(answers.get(qid)) == str(correct))


class Gain(NamedTuple):
    """A normalized gain over ``matched`` takers of both checks: their mean scores before and after
    (percent), and ⟨g⟩ = (post − pre) / (100 − pre), None where pre is 100 or nobody took both."""

    matched: int
    pre: float | None
    post: float | None
    gain: float | None


def class_gain(pre: Mapping[str, Mapping[str, object]], post: Mapping[str, Mapping[str, object]],
               key: Mapping[str, int]) -> Gain:
    """``pre`` and ``post``: each taker's answers (by an anonymous token); only tokens in both count."""
    both = sorted(set(pre) & set(post))
    if not both:
        return Gain(0, None, None, None)
    before = sum(score(pre[t], key) for t in both) / len(both)
    after = sum(score(post[t], key) for t in both) / len(both)
    return Gain(len(both), before, after, None if before >= 100 else (after - before) / (100 - before))


def own_sentence(phase: str, answers: Mapping[str, object], key: Mapping[str, int]) -> Said:
    """What a learner is told on handing in a check."""
    right = right_count(answers, key)
    return Said(ngettext("{right} of {count} right {when}.", "{right} of {count} right {when}.", right).format(
        right=right, count=len(key), when=_(PHASE_NAMES[phase])), [Claim("right", right), Claim("questions", len(key))])


def gain_sentence(gain: Gain) -> Said:
    """The normalized gain, for a learner alone (one taker) or a class."""
    if gain.matched == 0:
        return Said(_("The gain needs the check taken both before and after the lesson."), [Claim("took both", 0)])
    claims = [Claim("took both", gain.matched), Claim("percent right before", gain.pre),
              Claim("percent right after", gain.post)]
    if gain.gain is None:
        return Said(ngettext("{count} took both checks: {pre} % right before, {post} % after. The normalized gain is "
                        "undefined: nothing was left to gain.",
                        "{count} took both checks: {pre} % right before, {post} % after. The normalized gain is "
                        "undefined: nothing was left to gain.", gain.matched).format(
            count=gain.matched, pre=number(gain.pre, ".0f"), post=number(gain.post, ".0f")), claims)
    return Said(ngettext("{count} took both checks: {pre} % right before, {post} % after; normalized gain ⟨g⟩ = {gain} "
                    "(the share of what was left to learn that was learned).",
                    "{count} took both checks: {pre} % right before, {post} % after; normalized gain ⟨g⟩ = {gain} "
                    "(the share of what was left to learn that was learned).", gain.matched).format(
        count=gain.matched, pre=number(gain.pre, ".0f"), post=number(gain.post, ".0f"),
        gain=number(gain.gain, ".2f")), claims + [Claim("normalized gain", gain.gain)])


class QuestionReport(NamedTuple):
    """One question asked in a class: its text, the answers of each vote (option → count, the
    second vote empty when there was none) and its right option."""

    question: str
    first: Sequence[int]
    second: Sequence[int]
    correct: int


def report_frame(rows: Sequence[QuestionReport]):
    """The report's questions as a table: the answers and the share right in each vote."""
    import pandas as pd

    def share(counts: Sequence[int], correct: int) -> str:
        total = sum(counts)
        return number(100 * counts[correct] / total, ".0f") + " %" if total else "–"

    return pd.DataFrame({
        _("question"): [row.question for row in rows],
        _("first vote"): [f"{sum(row.first)} · {share(row.first, row.correct)}" for row in rows],
        _("after discussing"): [f"{sum(row.second)} · {share(row.second, row.correct)}" if row.second else "–"
                                for row in rows]})


def takers_sentence(before: int, after: int) -> Said:
    """How many attendees handed in each check."""
    return Said(_("Handed in: {before} before the lesson, {after} after it.").format(before=before, after=after),
                [Claim("before", before), Claim("after", after)])


def report_csv(rows: Sequence[QuestionReport], gain: Gain) -> Said:
    """The class report: per question the answers of the first and second vote and the share right
    in each; then the concept check's scores and gain. Nothing about any one attendee."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_("question"), _("first vote: answers"), _("first vote: share right"),
                     _("second vote: answers"), _("second vote: share right")])

    def share(counts: Sequence[int], correct: int) -> str:
        total = sum(counts)
        return f"{counts[correct] / total:.3f}" if total else ""

    for row in rows:
        writer.writerow([row.question, sum(row.first), share(row.first, row.correct),
                         sum(row.second) if row.second else "", share(row.second, row.correct) if row.second else ""])
    writer.writerow([])
    writer.writerow([_("concept check"), _("took both"), _("before (% right)"), _("after (% right)"),
                     _("normalized gain")])
    writer.writerow(["", gain.matched, "" if gain.pre is None else f"{gain.pre:.1f}",
                     "" if gain.post is None else f"{gain.post:.1f}", "" if gain.gain is None else f"{gain.gain:.3f}"])
    return Said(out.getvalue(), [Claim("questions", len(rows)), Claim("took both", gain.matched)]
                + [Claim(what, value) for what, value in (("percent right before", gain.pre), (
                    "percent right after", gain.post), ("normalized gain", gain.gain)) if value is not None])
