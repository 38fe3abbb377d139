"""The lesson's sentences, each made from the real view over the step's settings and checked against
numbers computed here another way: self-attention as a float64 loop over the layer's own weights,
the turn of a sine/cosine pair from its formula, the mask's hidden keys by counting."""

from __future__ import annotations

import json
import math
import re

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.display import number
from lab.i18n import use
from lab.views import lesson, questions
from pekit import seeded, sinusoidal_encoding, text

TOKENS = lesson.tokens_of(lesson.SENTENCE)


def naive_outputs(tokens: tuple[str, ...], positional: bool) -> tuple[list[list[float]], list[list[float]]]:
    """The lesson's one-head layer on ``tokens``, as a float64 loop: every query's weights over the
    keys and its output (after W_o), from the layer's own projection matrices."""
    model = seeded.seeded_attention(lesson.HIDDEN, lesson.HEADS, seed=lesson.SEED)
    X = text.token_embeddings(list(tokens), lesson.HIDDEN, seed=lesson.SEED).double()
    if positional:
        X = X + sinusoidal_encoding(len(tokens), lesson.HIDDEN, dtype=torch.float64)
    Wq, Wk, Wv, Wo = (m.weight.detach().double() for m in (model.W_q, model.W_k, model.W_v, model.W_o))
    rows = X.tolist()

    def project(W, x):
        return [sum(W[i][j].item() * x[j] for j in range(len(x))) for i in range(W.shape[0])]

    Q, K, V = ([project(W, x) for x in rows] for W in (Wq, Wk, Wv))
    weights, outputs = [], []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(lesson.HIDDEN) for k in K]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        w = [v / sum(e) for v in e]
        mixed = [sum(w[j] * V[j][c] for j in range(len(V))) for c in range(lesson.HIDDEN)]
        weights.append(w)
        outputs.append(project(Wo, mixed))
    return weights, outputs


@settings(max_examples=5, deadline=None)
@given(st.integers(0, len(TOKENS) - 1))
def test_the_looking_sentence_names_the_largest_weight(query):
    step = lesson.looking(TOKENS, query)
    weights, _ = naive_outputs(TOKENS, False)
    row = weights[query]
    top = max(range(len(row)), key=lambda j: (row[j], -j))
    said = lesson.looking_sentence(step)
    assert f"“{TOKENS[query]}”" in said and f"“{TOKENS[top]}”" in said and f" {number(row[top], '.2f')}" in said
    assert step.top == top
    # against every other word's weight, from the loop (a word standing twice has one weight)
    runner = max(row[j] for j in range(len(row)) if TOKENS[j] != TOKENS[top])
    assert said.holds() and said.claim("largest weight").reference.value == round(runner, 2)


@settings(max_examples=7, deadline=None)
@given(st.sampled_from(lesson.COST_LENGTHS))
@example("125")
def test_the_cost_sentence_counts_the_scores_the_step_counts(n):
    """The step's text counts n × n scores; the sentence counts the same thing, by the same name
    (not "pairs of words", which a reader counts as n(n − 1)/2)."""
    n = int(n)
    said, rnn = lesson.cost_sentences(lesson.cost_view(n))
    scores = sum(1 for _q in range(n) for _k in range(n)) if n <= 1000 else n * n  # every query with every key
    assert f"computes {number(scores, ',')} scores" in said, f"the step counts {scores:,} scores; the sentence: {said}"
    assert said.holds() and said.claim("scores").value == scores
    assert f"an RNN needs {number(n - 1, ',')}." in rnn


def independent_gap(tokens: tuple[str, ...], shuffle: int, positional: bool) -> tuple[float, int]:
    """How far each word's output moves when the words are shuffled (over the outputs' size), and
    how many slots change word, from two float64 loops."""
    perm = seeded.permutation(len(tokens), shuffle).tolist()
    shuffled = tuple(tokens[i] for i in perm)
    _, before = naive_outputs(tokens, positional)
    _, after = naive_outputs(shuffled, positional)
    scale = max(abs(v) for row in before for v in row)
    gap = max(abs(after[i][c] - before[perm[i]][c]) for i in range(len(perm)) for c in range(lesson.HIDDEN))
    return gap / scale, sum(a != b for a, b in zip(tokens, shuffled))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 40), st.booleans())
@example(lesson.SHUFFLE, False)
@example(lesson.SHUFFLE, True)
@example(0, True)
def test_the_shuffle_sentence_says_what_the_outputs_did(shuffle, positional):
    view = lesson.shuffle_view(TOKENS, shuffle, positional)
    gap, moved = independent_gap(TOKENS, shuffle, positional)
    said = lesson.shuffle_sentence(view)
    assert view.moved == moved
    assert said.holds()  # every comparison it makes is true of its own numbers
    if moved:  # "identical" and "different" are measured against float rounding, from the independent gap
        gap_claim = said.claim("gap")
        assert gap_claim.reference.value == lesson.ROUND_OFF
        assert (gap < gap_claim.reference.value) == (gap_claim.relation == "below")
    if moved == 0:
        assert [c.what for c in said.claims] == ["moved"] and said.claim("moved").value == 0
    elif gap < 1e-9:
        assert said.claim("gap").relation == "below" and view.identical
    else:
        assert positional and not view.identical
        assert view.gap == pytest.approx(gap, rel=1e-3)
        assert said.claim("gap").relation == "at least" and f"{number(100 * view.gap, '.2g')} %" in said


def test_the_default_shuffle_swaps_dog_and_man_and_changes_nothing_without_positions():
    view = lesson.shuffle_view(TOKENS, lesson.SHUFFLE, False)
    assert view.shuffled == ("the", "man", "bit", "the", "dog")
    assert view.identical and view.gap < 1e-6
    assert lesson.swap_prompt_fields(view) == {"word": "dog", "other": "man", "shuffled": "the man bit the dog"}
    assert lesson.swap_answer(view) == 0
    with_p = lesson.shuffle_view(TOKENS, lesson.SHUFFLE, True)
    assert lesson.swap_answer(with_p) != 0  # with P the same question has another answer
    # each word's row of the drawn maps carries its word: the maps shuffle the same way
    for spec, words in ((view.original, TOKENS), (view.reordered, view.shuffled)):
        drawn = json.dumps(spec)
        labels = list(dict.fromkeys(re.findall(r'"(\d+ (?:the|dog|bit|man))"', drawn)))
        assert labels == [f"{i} {w}" for i, w in enumerate(words)]


def test_the_training_sentences_state_the_shipped_shares():
    from pekit import shipped

    metrics = shipped.recorded_metrics()
    view = lesson.training_view()
    first, second = lesson.training_sentences(view)
    assert f" {number(100 * metrics['encoder-none']['seq_accuracy'], '.3g')} %" in first
    assert f" {number(100 * metrics['encoder-sinusoidal']['seq_accuracy'], '.3g')} %" in second
    # the reference line is the best an order-blind model can do, below what positions reach
    assert view.guess < 1.0 and view.with_p > view.guess >= view.without
    # the line and the count of seen inputs for the checkpoints' own setting, recomputed by loops
    from pekit.tasks import make_examples
    from pekit.training import TEST_EXAMPLES, TEST_SEED
    from tests.views.train_common import order_blind_by_hand, seen_by_hand

    config = metrics["encoder-none"]["config"]
    inputs = make_examples(config["task"], TEST_EXAMPLES, config["seq_len"], config["vocab"], seed=TEST_SEED)[0]
    said = lesson.guess_sentence(view)
    assert said.holds()
    assert said.claim("words right without positions").reference.value == pytest.approx(
        order_blind_by_hand(config["task"], inputs.tolist()), abs=1e-12)
    intro = lesson.training_intro(view)
    assert intro.holds() and f"write {config['seq_len']} tokens" in intro
    assert intro.claim("held-out inputs seen in training").value == seen_by_hand(
        config["task"], config["seq_len"], metrics["encoder-none"]["seed"],
        max(metrics[f"encoder-{p}"]["steps"] for p in ("none", "sinusoidal")), 64) == 0


@settings(max_examples=30, deadline=None)
@given(words=st.floats(0.0, 1.0), guess=st.floats(0.0, 1.0), seen=st.sampled_from([0, 0, 1, 500]))
@example(words=0.27512499690055847, guess=0.276125, seen=0)  # the shipped ones
@example(words=0.3, guess=0.3, seen=0)  # equal: at most
def test_the_guess_sentence_compares_the_words_right_with_the_line(words, guess, seen):
    view = lesson.Training(0.0, 1.0, guess, {}, words, seen, 8)
    said = lesson.guess_sentence(view)
    assert said.holds()
    assert ("a little above" in said) == (words > guess)
    assert f"{number(100 * guess, '.3g')} %" in said and f"{number(100 * words, '.3g')} %" in said
    intro = lesson.training_intro(view)
    assert intro.holds() == (seen == 0)  # the shipped runs saw none of the test sequences; the claim would catch one


@settings(max_examples=4, deadline=None)
@given(st.sampled_from(lesson.TABLE_WIDTHS))
def test_the_table_sentences_give_the_first_and_last_periods(width):
    d = int(width)
    view = lesson.table_view(d)
    first, last = lesson.table_sentences(view)
    assert f"every {number(2 * math.pi, '.3g')} positions" in first
    slowest = 2 * math.pi * lesson.BASE ** ((d - 2) / d)
    assert f"need {number(slowest, ',.0f')} positions" in last


@settings(max_examples=4, deadline=None)
@given(st.integers(1, 6))
@example(lesson.BINARY_BITS)
def test_the_counter_sentence_counts_the_flips(bits):
    view = lesson.counter_view(bits)
    said = lesson.counter_sentence(view)
    bit = bits - 1
    # bit b of the positions 0 .. n − 1 changes between i − 1 and i once every 2**b positions
    def every(b: int) -> int:  # the positions between two flips of bit b, counted
        flips = [i for i in range(1, lesson.BINARY_N) if (i >> b) & 1 != ((i - 1) >> b) & 1]
        assert len({y - x for x, y in zip(flips, flips[1:])}) <= 1  # evenly spaced
        return flips[0]

    assert said.claim("first bit").value == 0 and said.claim("positions per flip of bit 0").value == every(0) == 1
    assert said.claim("last bit").value == bit == view.bits - 1
    assert said.claim("positions per flip of the last bit").value == every(bit)
    assert f" {bit} " in said and f" {every(bit)} " in said  # the numbers written; the claims above check them


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 20))
@example(3)
@example(0)  # nothing turns
@example(20)  # past a whole turn
def test_the_rotation_sentence_gives_the_pair_s_angle(delta):
    said = lesson.rotation_sentence(delta)
    assert said.holds()
    omega = lesson.BASE ** (-2 * lesson.ROTATION_PAIR / lesson.ROTATION_D)
    degrees = math.degrees(delta * omega)
    # each arrow drawn, measured here in float64 from the table's formula: from (sin, cos) at i to the same at i + δ
    arrows = [math.degrees(math.atan2(math.sin((i + delta) * omega), math.cos((i + delta) * omega))
                           - math.atan2(math.sin(i * omega), math.cos(i * omega))) % 360
              for i in range(lesson.ROTATION_POINTS)]
    if delta == 0:
        # nothing turns: the largest turn is claimed, within rounding, and no angle turned
        assert said.claim("largest arrow turn (degrees)").relation == "below"
        assert "angle past whole turns (degrees)" not in [c.what for c in said.claims]
        return
    assert f"{number(degrees, '.3g')}°" in said
    assert max(arrows) - min(arrows) < 1e-9
    assert said.claim("angle past whole turns (degrees)").reference.value == pytest.approx(arrows[0], abs=1e-3)
    assert said.claim("angle past whole turns (degrees)").value == pytest.approx(degrees % 360, abs=1e-9)


@pytest.mark.parametrize("delta", [0, 20])
def test_the_rotation_sentence_says_where_the_arrows_land_at_the_slider_s_ends(delta):
    """At δ = 0 nothing turns; at δ = 20 the angle passes a whole turn, and the picture shows each
    arrow 2.37° past where it started: the sentence says so."""
    said = lesson.rotation_sentence(delta)
    if delta == 0:
        assert "angle past whole turns (degrees)" not in [c.what for c in said.claims], f"at δ = 0: {said}"
    else:
        landed = math.degrees(delta * lesson.BASE ** (-2 * lesson.ROTATION_PAIR / lesson.ROTATION_D)) % 360
        assert f"{number(landed, '.3g')}°" in said, f"each arrow lands {landed:.3g}° past its start, the sentence says: {said}"


@settings(max_examples=9, deadline=None)
@given(st.integers(0, 8))
def test_the_masking_sentence_counts_the_hidden_keys(length):
    view = lesson.masking(TOKENS, length)
    said = lesson.masking_sentence(view)
    hidden = 8 - length  # keys length .. 7 of the 8 steps
    assert said.holds()  # "exactly 0", claimed of the weight the view measured
    if length == 0:
        assert view.zero_rows
        assert said.claim("valid length").value == 0
        assert said.claim("total |weight| of that query's row").value == 0 and len(view.zero_row) == 8
    elif hidden == 0:
        assert said.claim("hidden keys").value == 0 and "weight on the hidden keys" not in [c.what for c in said.claims]
    else:
        assert said.claim("hidden keys").value == hidden and f" {hidden} " in said
        assert view.hidden_pairs == 8 * hidden and said.claim("weight on the hidden keys").value == 0


@settings(max_examples=4, deadline=None)
@given(st.sampled_from(sorted(lesson.BY_ID)), st.sampled_from(["en", "pt"]))
def test_every_question_reads_whole_and_its_answer_is_an_option(qid, code):
    check = lesson.BY_ID[qid]
    with use(code):
        prompt = check.text()
        solved = questions.solved.uncached(qid)
    assert "{" not in prompt and prompt.endswith("?")
    assert 0 <= solved.correct < len(check.options) and solved.explanation


@settings(max_examples=9, deadline=None)
@given(st.integers(1, lesson.COUNT))
def test_step_headings_count_the_steps(k):
    said = lesson.step_heading(k)
    assert said.claim("step").value == k and said.claim("steps").value == len(lesson.STEPS) == 9
    assert _numbers(said)[:2] == [k, lesson.COUNT]  # the numbers written, then the title
    assert said.endswith(f" {lesson.STEPS[k - 1].title}")
    assert len(lesson.glossary()) == len(lesson.GLOSSARY)


# -- each question's explanation states the numbers of the step its reveal opens ---------------------


def _numbers(text: str) -> list[float]:
    return [float(v.replace(",", "")) for v in re.findall(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)", text)]


def explained(qid: str) -> str:
    return lesson.BY_ID[qid].solve().explanation


def test_the_swap_question_explains_step_2_s_outputs():
    assert lesson.BY_ID["lesson-swap"].settings == {"step": "2"}
    view = lesson.shuffle_view(TOKENS, lesson.SHUFFLE, False)  # step 2 at its defaults
    assert explained("lesson-swap").startswith(lesson.shuffle_sentence(view))


def test_the_weights_question_explains_step_2_s_sentence():
    """The follow-up reveals step 2: its explanation counts that step's sentence (5 words, one head,
    the step's shuffle), not the live attention page's 12 tokens."""
    check = lesson.BY_ID["lesson-weights"]
    assert check.settings == {"step": "2"}
    view = lesson.shuffle_view(TOKENS, lesson.SHUFFLE, False)
    text = explained("lesson-weights")
    assert f"({len(view.tokens)} tokens)" in text, f"step 2 shows {len(view.tokens)} words; the explanation: {text}"
    assert f"(shuffle {lesson.SHUFFLE})" in text and text.holds()
    assert check.solve().correct == 0  # the weights move with the words


def test_the_training_question_explains_step_3_s_bars():
    view = lesson.training_view()
    none_seq, tokens, guess, sin = [v for v in _numbers(explained("lesson-train"))][:4]
    for said, drawn in ((none_seq, view.without), (tokens, view.without_words), (guess, view.guess),
                        (sin, view.with_p)):
        assert abs(said - 100 * drawn) <= 0.05 + 1e-9


def test_the_bits_questions_explain_step_5_s_counter():
    view = lesson.counter_view()
    assert view.last_bit >= 2  # bit 2 is drawn on the step
    assert "every 4 positions" in explained("lesson-bits")
    text = explained("lesson-bits-count")
    assert f"binary_encoding({lesson.BINARY_N})` has {lesson.BINARY_BITS} columns" in text


def test_the_turn_question_explains_step_6_s_circle():
    check = lesson.BY_ID["lesson-turn"]
    delta = int(check.settings["delta"])
    view = lesson.rotation_turns(delta)
    text = explained("lesson-turn")
    radians = float(re.search(r"= ([\d.]+) rad", text)[1])
    assert abs(math.degrees(radians) - view.degrees) < 0.01  # the step's sentence says the same angle in degrees
    shown = [lesson.ROTATION_POINTS, 0, lesson.ROTATION_POINTS - 1]  # the positions shown: how many, first and last
    assert any(_numbers(text)[i:i + 3] == shown for i in range(len(_numbers(text)))), \
        f"step 6 draws {lesson.ROTATION_POINTS} positions; the explanation: {text}"
    assert text.holds()
    assert f"{number(view.degrees, '.3g')}°" in lesson.rotation_sentence(delta)


@pytest.mark.parametrize("qid", ["lesson-double", "lesson-double-rnn"])
def test_the_doubling_questions_explain_step_8_s_count(qid):
    check = lesson.BY_ID[qid]
    n = int(check.settings.get("n", lesson.COST_N))
    view = lesson.cost_view(n)
    # self-attention's two n²·d products, from the step's n × n scores, written
    assert 2 * view.scores * lesson.COST_D in _numbers(explained(qid))


def test_the_empty_question_explains_step_9_s_row():
    """The reveal opens step 9 at a valid length of 0: the row explained is that step's own view's."""
    check = lesson.BY_ID["lesson-empty"]
    view = lesson.masking(TOKENS, int(check.settings["valid"]))
    text = explained("lesson-empty")
    # the sequence named (a letter) is the one step 9 shows, at a valid length of 0, before any other number
    assert re.findall(r"\b[A-Z]\b", text)[0] == view.show, f"step 9 shows sequence {view.show}; {text}"
    assert _numbers(text)[0] == 0 and text.index(view.show) < text.index("0")
    assert text.claim("query").value == view.zero_rows[0] and text.claim("row").value == tuple(view.zero_row)
    assert "(" + "; ".join(number(v, "g") for v in view.zero_row) + ")" in text
    assert f" {number(view.book_row[0], '.4f')} " in text
