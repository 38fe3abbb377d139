"""The class report, for the presenter: per question asked, the answers of the first vote and of the
vote after discussing, with the share right in each; and the concept check's normalized gain over
the attendees who took it before and after the lesson. Counts only: nothing about any one attendee."""

from __future__ import annotations

from typing import NamedTuple

from lab.classroom import storage
from lab.classroom.seats import Seat
from lab.rooms import Room


class Report(NamedTuple):
    rows: tuple  # concept_check.QuestionReport, one per question asked, in the order asked
    gain: object  # concept_check.Gain

    def csv(self) -> str:
        from lab.views import concept_check

        return concept_check.report_csv(self.rows, self.gain)


def class_report(current: Seat, found: Room) -> Report:
    """Read from the store (the presenter's key): raises RoomError where the store cannot be read."""
    from lab.views import concept_check, questions
    from lab.views.classroom import tally_of

    rooms = storage.store()
    rows = []
    for qid in found.asked:
        check = questions.find(qid)
        if check is None:  # (a question of an older version of the lab)
            continue
        right = questions.solved(qid).correct
        first = tally_of(rooms.tally(current.code, qid, key=current.key), len(check.options), right)
        second = tally_of(rooms.tally(current.code, qid, key=current.key, round=2), len(check.options), right)
        rows.append(concept_check.QuestionReport(check.text(), first.counts,
                                                 second.counts if second.answered else (), right))
    qids = [check.id for check in concept_check.QUESTIONS]
    pre, post = (rooms.handed_in(current.code, current.key, phase, qids) for phase in concept_check.PHASES)
    return Report(tuple(rows), concept_check.class_gain(pre, post, concept_check.answer_key()))


class Takers(NamedTuple):
    """How many attendees handed in the concept check before and after the lesson, and the gain."""

    before: int
    after: int
    gain: object  # concept_check.Gain


def check_takers(current: Seat) -> Takers:
    from lab.views import concept_check

    rooms = storage.store()
    qids = [check.id for check in concept_check.QUESTIONS]
    pre, post = (rooms.handed_in(current.code, current.key, phase, qids) for phase in concept_check.PHASES)
    return Takers(len(pre), len(post), concept_check.class_gain(pre, post, concept_check.answer_key()))
