"""The concept check page through AppTest: alone, a check handed in before the lesson gives its
score and keeps the answers hidden; after the lesson, the score, the gain and every explanation."""

from __future__ import annotations

import pytest

from lab.views import concept_check as concept
from tests.test_app import open_app

PAGE = "pages/concept_check.py"


def hand_in(at, choices):
    for radio, choice in zip(at.main.radio[1:], choices):
        radio.set_value(choice)
    next(b for b in at.main.button if b.label == "Hand in").click().run()
    assert not at.exception
    return at


def right_of(choices):
    key = concept.answer_key()
    return sum(choice == key[check.id] for check, choice in zip(concept.QUESTIONS, choices))


def test_a_learner_takes_the_check_before_and_after_the_lesson():
    at = open_app(PAGE, fresh=False)
    assert len(at.main.radio) == 1 + concept.COUNT and at.main.radio[0].label == "Taken"
    before = [0] * concept.COUNT
    hand_in(at, before)
    assert [s.value for s in at.success] == [f"{right_of(before)} of 8 right before the lesson."]
    said = "\n".join(m.value for m in at.markdown)
    assert "You see your score, not the answers" in "\n".join(c.value for c in at.caption)
    assert concept.solved("concept-cnn").explanation not in said  # the pre-check gives nothing away
    assert [radio.value for radio in at.main.radio[1:]] == before  # the answers stay as handed in
    assert next(b for b in at.main.button if b.label == "Hand in").disabled
    at.main.radio[0].set_value("post").run()
    assert at.query_params["phase"] == "post"
    after = [concept.answer_key()[check.id] for check in concept.QUESTIONS]
    hand_in(at, after)
    assert [s.value for s in at.success] == ["8 of 8 right after the lesson."]
    said = "\n".join(m.value for m in at.markdown)
    pre = 100 * right_of(before) / 8
    gain = (100 - pre) / (100 - pre)
    assert f"normalized gain ⟨g⟩ = {gain:.2f}" in said
    for check in concept.QUESTIONS:
        assert concept.solved(check.id).explanation in said


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_check_reads_in_both_languages(lang):
    at = open_app(PAGE, {"lang": lang}, fresh=False)
    labels = [radio.label for radio in at.main.radio[1:]]
    assert len(labels) == 8 and all(label.endswith("?") for label in labels)
    assert ("Where do a token's" in " ".join(labels)) == (lang == "en")
