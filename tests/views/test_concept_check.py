"""The concept check: each right answer against a reference computed here another way (the formula
in float64, the chapter's path length, a float64 loop of the lesson's layer), and the score, the
normalized gain and the class report against their definitions."""

from __future__ import annotations

import csv
import io
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pekit
from lab.display import number
from lab.i18n import _
from lab.views import concept_check as concept
from lab.views import lesson
from tests.views.test_lesson import TOKENS, independent_gap, naive_outputs


def test_every_answer_matches_an_independent_reference():
    key = concept.answer_key()
    assert len(set(key.values())) >= 3  # the right answer is not always in the same place
    # the order: a word's output is the same wherever it stands (float64 loop over the layer)
    gap, moved = independent_gap(TOKENS, lesson.SHUFFLE, False)
    assert moved and gap < 1e-9 and key["concept-order"] == 1
    # query and key differ: the float64 scores of "dog" on "man" and of "man" on "dog" differ
    import torch

    from pekit import seeded, text

    model = seeded.seeded_attention(lesson.HIDDEN, lesson.HEADS, seed=lesson.SEED)
    X = text.token_embeddings(list(TOKENS), lesson.HIDDEN, seed=lesson.SEED).double()
    Q, K = X @ model.W_q.weight.detach().double().T, X @ model.W_k.weight.detach().double().T
    assert abs(float(Q[1] @ K[4] - Q[4] @ K[1])) > 1e-6 and key["concept-qkv"] == 2
    # an odd width: the last column is the sine of the last pair, sin(i / 10000^(6/7))
    from pekit import sinusoidal_encoding

    P = sinusoidal_encoding(5, 7, dtype=torch.float64)
    assert P.shape == (5, 7)
    assert all(abs(float(P[i, 6]) - math.sin(i / 10000 ** (6 / 7))) < 1e-12 for i in range(5))
    assert key["concept-odd"] == 3
    # tensor2tensor's timescales run from 1 to base, both included: its slowest pair turns at 1/base
    t2t_slowest, chapter_slowest = 1 / 10000, 10000 ** (-6 / 8)
    assert abs(t2t_slowest - chapter_slowest) > 1e-4 and key["concept-layouts"] == 1
    # a kernel-3 convolution: the receptive field grows by 2 a layer, so 9 tokens need ⌈8/2⌉ = 4 layers
    layers = next(layer for layer in range(1, 10) if 1 + 2 * layer >= 9)
    assert concept.QUESTIONS[4].options[key["concept-cnn"]] == str(layers) == "4"
    assert key["concept-steps"] == 2  # the chapter's table: O(n) sequential steps for an RNN, O(1) for attention
    # the dot product of rows the same offset apart, by the formula in float64, at every start
    P = sinusoidal_encoding(64, 32, dtype=torch.float64)
    dots = [float(P[i] @ P[i + 5]) for i in range(59)]
    assert max(dots) - min(dots) < 1e-9 and key["concept-shift"] == 1
    from pekit import PositionalEncoding

    assert not list(PositionalEncoding(32, 0.0).parameters()) and key["concept-learned"] == 2


def test_explanations_state_the_numbers_they_rest_on():
    assert "after 4 layers" in concept.solved("concept-cnn").explanation
    assert "100 steps" in concept.solved("concept-steps").explanation
    said = concept.solved("concept-qkv").explanation
    first = lesson.looking(TOKENS, 1).scores[4]
    assert number(first, ".3f") in said
    _weights, outputs = naive_outputs(TOKENS, False)  # (the layer is the lesson's)
    assert len(outputs) == len(TOKENS)


ANSWERS = st.dictionaries(st.sampled_from([c.id for c in concept.QUESTIONS]),
                          st.sampled_from(["0", "1", "2", "3", "x"]), max_size=8)


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=3), ANSWERS, max_size=6),
       st.dictionaries(st.text("abcdef", min_size=1, max_size=3), ANSWERS, max_size=6))
@example({"a": {}}, {"a": {}})
def test_the_class_gain_follows_its_definition(pre, post):
    key = concept.answer_key()

    def percent(answers):
        return 100 * sum(answers.get(q) == str(c) for q, c in key.items()) / len(key)

    gain = concept.class_gain(pre, post, key)
    both = set(pre) & set(post)
    assert gain.matched == len(both)
    said = concept.gain_sentence(gain)
    if not both:
        assert gain.gain is None and [c.what for c in said.claims] == ["took both"] and said.claim("took both").value == 0
        return
    before = sum(percent(pre[t]) for t in both) / len(both)
    after = sum(percent(post[t]) for t in both) / len(both)
    assert gain.pre == pytest.approx(before) and gain.post == pytest.approx(after)
    if before == 100:
        assert gain.gain is None and "normalized gain" not in [c.what for c in said.claims]
    else:
        assert gain.gain == pytest.approx((after - before) / (100 - before))
        assert said.claim("normalized gain").value == pytest.approx((after - before) / (100 - before))
    assert said.claim("took both").value == len(both)
    assert said.claim("percent right before").value == pytest.approx(before)
    assert said.claim("percent right after").value == pytest.approx(after)


@settings(max_examples=20, deadline=None)
@given(ANSWERS, st.sampled_from(concept.PHASES))
def test_a_learner_is_told_how_many_were_right(answers, phase):
    key = concept.answer_key()
    right = sum(answers.get(q) == str(c) for q, c in key.items())
    own = concept.own_sentence(phase, answers, key)
    assert own.claim("right").value == right and own.claim("questions").value == 8
    other = "post" if phase == "pre" else "pre"  # the phase named, from the module's own names of them
    assert _(concept.PHASE_NAMES[phase]) in own and _(concept.PHASE_NAMES[other]) not in own
    # the check before the lesson states no number; the one after, the questions asked
    assert ("questions" in [c.what for c in concept.phase_sentence(phase).claims]) == (phase == "post")
    if phase == "post":  # the count it states is the questions asked
        assert concept.phase_sentence(phase).claim("questions").value == len(concept.QUESTIONS) == 8
    assert concept.score(answers, key) == pytest.approx(100 * right / 8)


COUNTS = st.lists(st.integers(0, 30), min_size=3, max_size=3)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(COUNTS, st.one_of(st.just([]), COUNTS), st.integers(0, 2)), max_size=5),
       st.integers(0, 5), st.integers(0, 5))
def test_the_report_counts_each_vote_and_its_share_right(rows, before, after):
    reports = [concept.QuestionReport(f"question {i}", first, second, right)
               for i, (first, second, right) in enumerate(rows)]
    gain = concept.Gain(1, 50.0, 75.0, 0.5)
    report = concept.report_csv(reports, gain)
    assert report.claim("questions").value == len(reports) and report.claim("normalized gain").value == 0.5
    table = list(csv.reader(io.StringIO(report)))
    assert table[0][0] == "question"
    for report, line in zip(reports, table[1:]):
        total = sum(report.first)
        assert line[1] == str(total)
        assert line[2] == (f"{report.first[report.correct] / total:.3f}" if total else "")
        assert line[3] == (str(sum(report.second)) if report.second else "")
    assert table[-1][1:] == ["1", "50.0", "75.0", "0.500"]
    frame = concept.report_frame(reports)
    assert len(frame) == len(reports)
    takers = concept.takers_sentence(before, after)
    assert takers.claim("before").value == before and takers.claim("after").value == after


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=8, max_size=8), st.sampled_from(concept.PHASES))
def test_the_answers_handed_in_are_the_options_chosen(choices, phase):
    state = {concept.widget_key(phase, check): choice for check, choice in zip(concept.QUESTIONS, choices)}
    state[concept.widget_key("post" if phase == "pre" else "pre", concept.QUESTIONS[0])] = 2  # the other check's
    assert concept.given(state, phase) == {check.id: str(choice) for check, choice in zip(concept.QUESTIONS, choices)
                                          if choice is not None}


def test_the_pages_words_count_the_questions_asked():
    """The page and the menu say "Eight questions"; the check asks as many (one tuple for both phases)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert len(concept.QUESTIONS) == concept.COUNT == 8
    assert "Eight questions" in (root / "pages" / "concept_check.py").read_text(encoding="utf-8")
    assert "Eight questions" in (root / "lab" / "registry.py").read_text(encoding="utf-8")
    # the check shows no answers before the lesson: "the difference" is a change of answers, not a cause
    assert "what the lesson taught" not in (root / "pages" / "concept_check.py").read_text(encoding="utf-8")
    assert "measures the lesson" not in concept.phase_sentence("pre")


def test_each_questions_numbers_are_those_of_the_view_it_cites():
    """The concept check reveals no page: each explanation cites a view of the lab (the lesson's
    layer, the heatmap page's table, pekit's tables), and states that view's numbers; its
    comparisons hold against their references."""
    from lab.display import number
    from lab.views import encoding_heatmap as heatmap_view
    from lab.views import lesson
    from lab.views import live_attention as live

    order = concept._solve_order()
    view = lesson.shuffle_view(lesson.tokens_of(lesson.SENTENCE), lesson.SHUFFLE, False)
    assert order.explanation.holds() and order.explanation.claim("gap").value == view.gap
    assert f"{number(view.gap, '.0e') if view.gap else '0'}" in order.explanation

    qkv = concept._solve_qkv()
    tokens = lesson.tokens_of(lesson.SENTENCE)
    first = live.query_step(tokens, lesson.HIDDEN, lesson.HEADS, lesson.SEED, False, 0, 1)
    second = live.query_step(tokens, lesson.HIDDEN, lesson.HEADS, lesson.SEED, False, 0, 4)
    assert qkv.explanation.holds()
    # the module's message with the two scores, one way then the other; the lesson's layer is untrained: its
    # matrices are not called learned without saying they are random there
    assert qkv.explanation == _(
        "Each token's query, key and value are made from its own vector by three different matrices (learned in "
        "training; random in the lesson's untrained layer). Were query and key the same vector, the score of “{a}” "
        "looking at “{b}” would equal the score the other way; in the lesson's layer they are {one} and "
        "{other}.").format(a=tokens[1], b=tokens[4], one=number(first.scores[4], ".3f"),
                           other=number(second.scores[1], ".3f"))

    shift = concept._solve_shift()
    table = heatmap_view.table_view(64, 32, 10000, 0, "interleaved")
    assert shift.explanation.holds() and shift.explanation.claim("largest spread").value == table.max_spread

    cnn = concept._solve_cnn()
    assert f"after {int(pekit.complexity_table(9, 16, 3).loc['CNN', 'max_path_length'])} layers" in cnn.explanation
    steps = concept._solve_steps()
    assert "100 steps" in steps.explanation and ": 1." in steps.explanation
