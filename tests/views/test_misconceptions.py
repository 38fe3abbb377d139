"""Every question of the lab names its tempting wrong option and says why it is wrong: the option
is one its question's computed answer is not, and the revealed explanation ends with the reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.i18n import use
from lab.views import concept_check, lesson, misconceptions, questions

EVERY = [*questions.CHECKS, *lesson.QUESTIONS.values(), *lesson.FOLLOW_UPS.values(), *concept_check.QUESTIONS]


def solve(check):
    return (concept_check.solved if check.page == "concept_check" else questions.solved)(check.id)


def test_every_question_has_a_tempting_option_and_no_other_id_does():
    assert {check.id for check in EVERY} == set(misconceptions.REASONS)


@pytest.mark.parametrize("check", EVERY, ids=lambda c: c.id)
def test_the_tempting_option_is_wrong_and_the_explanation_says_why(check):
    index = misconceptions.tempting(check.id)
    assert index in check.indices()
    solved = solve(check)
    assert index != solved.correct, "the reason would explain the right answer away"
    for code in ("en", "pt"):
        with use(code):
            said = solve(check).explanation
            assert said.endswith(misconceptions.why_not(check.id, check.options)), code
            assert "“" + misconceptions._(check.options[index]) + "”" in said


@settings(max_examples=60, deadline=None)
@given(qid=st.sampled_from(sorted(misconceptions.REASONS)) | st.text(max_size=12), code=st.sampled_from(["en", "pt"]))
def test_why_not_names_the_option_and_gives_its_reason(qid, code):
    check = next((c for c in EVERY if c.id == qid), None)
    with use(code):
        said = misconceptions.why_not(qid, check.options if check else ("a", "b", "c", "d"))
    if check is None:
        assert said == "" and misconceptions.tempting(qid) is None
        return
    index, reason = misconceptions.REASONS[qid]
    with use(code):
        option, why = misconceptions._(check.options[index]), misconceptions._(reason)
    assert said.index("“" + option + "”") < said.index(why) and said.endswith(why)
