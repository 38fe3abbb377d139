"""The training page's views: the records built from the shipped checkpoints, from a real
(tiny) training on the job board and from jobs held in line, and the sentences written from
them, checked against the numbers they state."""

import dataclasses
import functools
import re
import threading

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.i18n import _, ngettext
from lab.jobs import job_board
from lab.views.train import (
    ceiling,
    Failure,
    Progress,
    Results,
    Run,
    TrainKey,
    bars_caption,
    failure_sentence,
    is_attendee,
    jobs_for,
    measured_caption,
    missing_sentence,
    nothing_yet_sentence,
    press_train_sentence,
    progress,
    progress_text,
    results_view,
    shipped_result,
    submit,
    trainings,
    waiting_sentence,
)
from lab.views.train_table import _below, lesson
from lab.views.train_maps import attention_view, clearest_sentence, example_sentence
from lab.views.train_names import BATCH_SIZE, LENGTH, SCHEMES_SETTING, STEPS, TASK, _names, _pct, _ranked, ranking
from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tasks import make_examples, order_blind_ceiling
from pekit.tiny import KINDS
from tests.views.train_common import (D, evenly_said, names_in, order_blind_by_hand, pct, result_of,
                                      runs, scheme_lists, seen_by_hand, shares, shipped_run, wait_until)


def test_the_job_key_is_a_hashable_record_of_the_ten_fields_in_order():
    run = Run("shift", "decoder", 6, 32, 1, 2, 12, 3)
    key = run.key("rope")
    assert isinstance(key, TrainKey) and key.positions == "rope" and key.task == "shift" and key.seed == 3
    assert key == ("train", "shift", "decoder", 6, 32, 1, 2, 12, 3, "rope") and hash(key) == hash(tuple(key))
    assert {key: 1}[run.key("rope")] == 1 and run.key("none") != key


# before anything is trained -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def shipped_settings() -> dict[str, int]:
    """The shipped runs' settings, as pekit's record of them says (every shipped run has the same)."""
    records = shipped.recorded_metrics().values()
    found = {(r["config"]["seq_len"], r["config"]["dim"], r["config"]["layers"], r["config"]["heads"],
              r["settings"]["max_steps"], r["seed"]) for r in records}
    (settings_,) = found
    return dict(zip(("shipped tokens", "shipped d", "shipped layers", "shipped heads", "shipped step cap",
                     "shipped seed"), settings_))


def check_press_train(said, run: Run, schemes: list[str]) -> None:
    """The settings **Train** would train with, and the shipped ones, as claims against the run's
    own fields and pekit's record of the shipped settings; each written in the text, in order."""
    assert "**Train**" in said and said.holds()
    mine = {"tokens": run.seq_len, "d": run.dim, "layers": run.layers, "heads": run.heads, "step cap": run.steps,
            "seed": run.seed}
    theirs = shipped_settings()
    assert {c.what: c.value for c in said.claims} == {**mine, **theirs}
    # each number written, in the order the claims give them (the step caps with their thousands separator)
    written = [int(v.replace(",", "")) for v in re.findall(r"(?<![\w.])(\d+(?:,\d{3})*)", said)]
    assert written == list(mine.values()) + list(theirs.values()), said
    assert f"schemes {', '.join(schemes)}," in said  # the names, in the reader's language (English here)


@given(run=runs, schemes=scheme_lists)
@settings(max_examples=60, deadline=None)
def test_press_train_states_the_settings_it_would_train_with(run, schemes):
    check_press_train(press_train_sentence(run, schemes), run, schemes)


@given(run=runs, schemes=scheme_lists)
@settings(max_examples=50, deadline=None)
def test_settings_never_trained_have_no_results_and_a_primary_button(run, schemes):
    run = run._replace(seed=run.seed | 1 << 30)  # seeds no other test trains with
    assert jobs_for(run, schemes) == {p: None for p in schemes}
    board = trainings(run, schemes)
    assert not board.running and not board.again and not board.failures
    assert [s.positions for s in board.where] == schemes and all(s.missing for s in board.where)
    assert not board.shipped_only
    assert results_view(run, board.where) is None

@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=6, deadline=None)  # each draw builds the results view: the edges are the examples
@example(kind="encoder", schemes=list(SCHEMES))
@example(kind="decoder", schemes=["none"])
@example(kind="decoder", schemes=["t5"])
def test_shipped_results_say_they_are_shipped_and_miss_nothing(kind, schemes):
    run = shipped_run(kind)
    board = trainings(run, schemes)
    assert board.shipped_only and not board.again and not board.running
    view = results_view(run, board.where)
    assert list(view.table["scheme"]) == schemes and set(view.table["result"]) == {"shipped checkpoint"}
    assert view.missing == () and view.shipped
    check_shipped_note(measured_caption(view))
    metrics = shipped.recorded_metrics()
    assert list(view.table["steps"]) == [metrics[f"{kind}-{p}"]["steps"] for p in schemes]


def threads_of_a_shipped_run(monkeypatch) -> int:
    """The torch threads a shipped run trains on, read while pekit.shipped.retrain trains (its
    training replaced by a stand-in that records them)."""
    import torch

    seen = []
    monkeypatch.setattr(shipped, "train_tiny", lambda **kwargs: seen.append(torch.get_num_threads()))
    shipped.retrain("encoder", "none")
    (threads,) = seen
    return threads


def check_shipped_note(said, threads: int = 1) -> None:
    assert said.claim("CPU threads").value == threads == 1


def test_the_shipped_note_states_the_threads_a_shipped_run_trains_on(monkeypatch):
    view = Results(None, (), None, {}, (), (), True, {})
    check_shipped_note(measured_caption(view), threads_of_a_shipped_run(monkeypatch))
    assert measured_caption(dataclasses.replace(view, shipped=False)) is None


@given(shipped_=st.booleans(), missing=scheme_lists)
@settings(max_examples=20, deadline=None)
def test_the_notes_under_the_table_say_what_is_shipped_and_missing(shipped_, missing):
    view = Results(None, (), None, {}, (), tuple(missing), shipped_, {})
    note = measured_caption(view)
    if shipped_:
        check_shipped_note(note)
    else:
        assert note is None
    said = missing_sentence(view)
    assert said.endswith(f": {', '.join(missing)}.") and said.claims == ()  # names only: no number

TRAINED = Run("shift", "encoder", 6, 32, 1, 2, 12, 11)


@pytest.fixture(scope="module")
def trained():
    """``TRAINED`` with the scheme none, trained for real through the board."""
    submit(TRAINED, ["none"])
    wait_until(lambda: job_board().get(TRAINED.key("none")).over)
    return trainings(TRAINED, ["none", "learned", "rope"])


def test_a_finished_training_is_shown_and_the_others_are_missing(trained):
    assert [s.origin for s in trained.where] == ["trained", "missing", "missing"]
    assert trained.again and not trained.running and not trained.shipped_only and not trained.failures
    view = results_view(TRAINED, trained.where)
    assert view.missing == ("learned", "rope") and not view.shipped
    assert missing_sentence(view).endswith(": learned, rope.")
    assert list(view.table["result"]) == ["trained on this server"]
    assert 0 < view.table["steps"][0] <= TRAINED.steps
    assert measured_caption(view) is None  # nothing shipped among the results
    assert view.curves is not None

def test_the_trained_models_attention_sentences_state_its_numbers(trained):
    view = attention_view(TRAINED, trained.source("none"), "clearest")
    record = job_board().get(TRAINED.key("none")).result["attention"]
    shares = training.source_attention(record["trained"], TRAINED.task, causal=False)
    assert view.best.share == pytest.approx(float(shares.max()))
    assert f"head {view.best.head} of layer {view.best.layer} puts **{view.best.share:.0%}**" in clearest_sentence(view)
    assert evenly_said(clearest_sentence(view), 6)
    said = example_sentence(view)
    assert said.claim("input").value == tuple(record["inputs"].tolist())
    assert f"input **{' '.join(map(str, record['inputs'].tolist()))}**" in said


# jobs in line, running and failed ------------------------------------------------------------------


def test_progress_counts_the_trainings_and_the_jobs_ahead():
    run = Run("sort", "decoder", 5, 32, 1, 1, 10, 12345)
    board = job_board()
    release = threading.Event()

    def slow(job):
        job.report(0.5, "none: halfway", row=training.HistoryRow(1, 2.5, 0.2, 0.0))
        release.wait(60)
        return {}

    board.submit(run.key("none"), "Training none", slow)
    board.submit(run.key("rope"), "Training rope", lambda job: {})
    wait_until(lambda: board.get(run.key("none")).message == "none: halfway")
    try:
        now = progress(run, ["none", "rope", "alibi"])
        assert now.schemes == 3 and now.fraction == pytest.approx(0.5 / 3)
        said = progress_text(now)
        assert " 3 " in said and said.endswith("none: halfway")  # the job's own message, last
        assert said.claim("schemes").value == 3
        assert now.waiting == ("rope",) and now.ahead == 1
        said = waiting_sentence(now)  # rope waits while none runs: one training at a time
        assert "rope (1 " in said and said.claim("jobs ahead").value == 1
        assert said.claim("trainings at a time").value == 1 == board.workers
        assert now.curves is not None
        snapshot = trainings(run, ["none", "rope", "alibi"])
        assert snapshot.running and not snapshot.again
        assert [s.origin for s in snapshot.where] == ["missing"] * 3
        # nothing to show yet, and the page says these settings are training, not "Press Train"
        assert results_view(run, snapshot.where) is None
        said = nothing_yet_sentence(run, ["none", "rope", "alibi"], snapshot.running)
        assert said != press_train_sentence(run, ["none", "rope", "alibi"]) and "**Train**" not in said
        assert "none, rope, alibi" in said and said.claims == ()
        assert snapshot.finished == 0
    finally:
        release.set()
    wait_until(lambda: board.get(run.key("none")).over)
    # one training over: the page runs again to show it, while the others go on
    assert progress(run, ["none", "rope", "alibi"], shown=0) is None
    assert trainings(run, ["none", "rope", "alibi"]).finished >= 1
    wait_until(lambda: board.get(run.key("rope")).over)
    assert progress(run, ["none", "rope", "alibi"], shown=2) is None


def test_waiting_counts_every_job_ahead_in_the_plural():
    run = Run("sort", "decoder", 5, 32, 1, 1, 10, 54321)
    board = job_board()
    release = threading.Event()
    board.submit(run.key("none"), "Training none", lambda job: release.wait(60))
    board.submit(run.key("rope"), "Training rope", lambda job: {})
    board.submit(run.key("t5"), "Training t5", lambda job: {})
    try:
        now = progress(run, ["t5"])
        assert now.current == "waiting for the server" and now.fraction == 0.0 and now.schemes == 1
        assert now.waiting == ("t5",) and now.ahead == 2
        said = waiting_sentence(now)
        assert "t5 (2 " in said and said.claim("jobs ahead").value == 2
    finally:
        release.set()
    wait_until(lambda: board.get(run.key("t5")).over)


def test_a_failed_training_is_reported_with_its_error():
    run = Run("sort", "encoder", 5, 32, 1, 1, 10, 777)

    def broken(job):
        raise ValueError("the model diverged")

    job_board().submit(run.key("alibi"), "Training alibi", broken)
    wait_until(lambda: job_board().get(run.key("alibi")).over)
    board = trainings(run, ["none", "alibi"])
    assert board.failures == (Failure("alibi", "ValueError: the model diverged"),)
    assert board.again and not board.running
    said = failure_sentence(board.failures[0])
    assert "alibi" in said and said.endswith(": ValueError: the model diverged") and said.claims == ()


# the small helpers every sentence uses ---------------------------------------------------------


@given(values=st.dictionaries(st.sampled_from(SCHEMES), shares, min_size=1), x=shares, bound=shares,
       count=st.integers(1, 6))
@settings(max_examples=40, deadline=None)
def test_the_helpers_write_what_they_are_given(values, x, bound, count):
    assert _pct(x) == f"{100 * x:.1f}%" and _pct(None) == "no position"
    listed = list(values)
    assert names_in(_names(listed)) == listed and _names(listed[:1]) == listed[0]
    below = _below(x, bound, "of it")
    if x <= bound:
        assert below == f"no better than the {pct(bound)} of it"
    else:
        assert below == f"within {100 * (x - bound):.1f} points of the {pct(bound)} of it"
    groups = ranking(values)
    # every name once; a group's members read the same; groups strictly fall and read differently
    assert sorted(p for names, _ in groups for p in names) == sorted(values)
    for names, share in groups:
        assert all(pct(values[p]) == pct(share) for p in names)
    shown = [pct(share) for _, share in groups]
    assert len(set(shown)) == len(shown)
    assert all(a > b for (_, a), (_, b) in zip(groups, groups[1:]))
    assert _ranked(values) == ", ".join(f"{_names(n)} {pct(s)}" for n, s in groups)


@given(schemes=scheme_lists)
def test_a_scheme_list_reads_back_from_its_link_in_order(schemes):
    text = SCHEMES_SETTING.format(list(reversed(schemes)))
    assert text == ",".join(schemes)
    assert SCHEMES_SETTING._parse_text(text) == (schemes, None)
    assert SCHEMES_SETTING._parse_text(text + ",rotary")[0] is None
    assert SCHEMES_SETTING.ordered(list(reversed(schemes)) + schemes) == schemes

# the lesson of the table ---------------------------------------------------------------------------


def expected_best(results: dict) -> list[str]:
    """The schemes with the most sequences right, then tokens, as shown (recomputed by a loop)."""
    shown = {p: (pct(r.seq_accuracy), pct(r.token_accuracy)) for p, r in results.items()}
    top = None
    for p, r in results.items():  # the shown shares first: a difference nobody can see ranks nothing
        mine = (float(pct(r.seq_accuracy)[:-1]), float(pct(r.token_accuracy)[:-1]), r.seq_accuracy, r.token_accuracy)
        if top is None or mine > (float(pct(results[top].seq_accuracy)[:-1]),
                                  float(pct(results[top].token_accuracy)[:-1]),
                                  results[top].seq_accuracy, results[top].token_accuracy):
            top = p
    return [p for p in results if shown[p] == shown[top]]


# (tokens right, sequences right): a sequence is right only when all its tokens are, so the second
# never exceeds the first
accuracies = st.tuples(shares, shares).map(lambda t: (max(t), min(t)))


@given(none=st.one_of(st.none(), accuracies),
       others=st.dictionaries(st.sampled_from(SCHEMES[1:]), accuracies, max_size=5),
       kind=st.sampled_from(KINDS), task=st.sampled_from(TASK.options), ceiling=shares)
@settings(max_examples=40, deadline=None)
@example(none=(0.275, 0.0), others={"sinusoidal": (1.0, 1.0), "learned": (1.0, 1.0)}, kind="encoder",
         task="reverse", ceiling=0.276)
@example(none=(0.29, 0.0), others={}, kind="encoder", task="sort", ceiling=0.28)
@example(none=(0.97, 0.5), others={"rope": (0.99, 0.9)}, kind="decoder", task="histogram", ceiling=1.0)
@example(none=(0.5, 0.5), others={"rope": (0.5, 0.5)}, kind="decoder", task="histogram", ceiling=1.0)
@example(none=(0.5, 0.25), others={"sinusoidal": (0.0, 0.0), "learned": (0.2501, 0.2501)}, kind="encoder",
         task="reverse", ceiling=0.0)  # sequences tied as shown; none has more tokens right
@example(none=None, others={"rope": (0.5, 0.2)}, kind="encoder", task="shift", ceiling=0.3)
def test_the_lesson_states_the_table_s_numbers(none, others, kind, task, ceiling):
    if task == "histogram":
        ceiling = 1.0  # the order-blind ceiling of a task whose answer does not depend on order
    else:
        ceiling = min(ceiling, 0.99)
    results = {**({"none": result_of(*none)} if none else {}), **{p: result_of(*r) for p, r in others.items()}}
    said = lesson(task, kind, results, ceiling)
    assert all(sentence.holds() for sentence in said)
    rest = said
    if none:
        first, rest = said[0], said[1:]
        assert pct(none[0]) in first
        if ceiling >= 1.0:  # the answer does not depend on order: the guess reaches every token
            assert first.claim("best order-blind guess").relation == "at least"
            if others:
                top = max(r[0] for r in others.values())
                tops = sorted((p for p, r in others.items() if pct(r[0]) == pct(top)), key=lambda p: -others[p][0])
                if pct(none[0]) == pct(top) or none[0] > top:
                    assert first.claim("tokens right without positions").relation == "at least"
                elif top - none[0] <= 0.05:
                    assert first.claim("tokens right without positions").relation == "below"
                    assert first.claim("gap to the best scheme").relation == "at most"
                    assert f"{100 * (top - none[0]):.1f}" in first
                else:
                    assert first.claim("gap to the best scheme").relation == "above"
                assert _names(tops) in first and pct(top) in first
        elif none[0] - ceiling > 0.02:
            assert first.claim("points above the line").relation == "above" and pct(ceiling) in first
        elif none[0] <= ceiling:
            assert first.claim("tokens right without positions").relation == "at most" and pct(ceiling) in first
        else:
            assert first.claim("tokens right without positions").relation == "above"
            assert first.claim("points above the line").relation == "at most"
            assert f"{100 * (none[0] - ceiling):.1f}" in first and pct(ceiling) in first
    if not others:
        assert rest == []
        return
    (last,) = rest
    best = expected_best(results)
    seq = results[best[0]].seq_accuracy
    # the best (as counted here) against each other scheme, by name: equal where the shown shares of sequences are
    against = {f"{_names(best)} against {p}": "equal" if pct(r.seq_accuracy) == pct(seq) else "above"
               for p, r in results.items() if p not in best}
    assert {c.what: c.relation for c in last.claims if c.what != "the most tokens right"} == against
    assert pct(seq) in last
    # which case the module said: decided here, with the numbers counted here written in it
    if "none" in best:
        assert last.cases == ("none best",)
    elif len(results) == 1:
        assert last.cases == ("only scheme",) and best[0] in last
    elif none and pct(seq) == pct(none[1]):
        assert last.cases == ("best by tokens",)
        tokens = last.claim("the most tokens right")
        assert tokens.value == results[best[0]].token_accuracy and tokens.relation == "above"
        assert tokens.reference.value == none[0] and tokens.holds()
        assert last == ngettext(
            "No scheme with positions gets more of the sequences right than none ({share}); {names} gets the most "
            "tokens right: {tokens} against {none}.",
            "No scheme with positions gets more of the sequences right than none ({share}); {names} get the most "
            "tokens right: {tokens} against {none}.", len(best)).format(
            share=pct(seq), names=_names(best), tokens=pct(results[best[0]].token_accuracy), none=pct(none[0]))
        assert results[best[0]].token_accuracy > none[0]
    elif none:
        assert last.cases == ("beats none",)
        assert _names(best, "or") in last and last.index(pct(seq)) < last.index(pct(none[1]))
        assert seq > none[1]
    else:
        assert last.cases == ("best among positions",)
        assert last == ngettext("The best here is {names}: {share} of the sequences right.",
                                "The best here are {names}: {share} of the sequences right.", len(best)).format(
            names=_names(best), share=pct(seq))


def test_the_shipped_lessons_name_the_tied_best():
    for kind in KINDS:
        results = {p: shipped_result(kind, p) for p in SCHEMES}
        said = lesson("reverse", kind, results, training.held_out_ceiling("reverse", 8, D["vocab"]))
        metrics = shipped.recorded_metrics()
        perfect = [p for p in SCHEMES if metrics[f"{kind}-{p}"]["seq_accuracy"] == 1.0]
        # the best are the perfect ones, each against every other scheme; the message with the share without positions
        assert {c.what for c in said[-1].claims} == {f"{_names(perfect)} against {p}" for p in SCHEMES if p not in perfect}
        assert "100.0%" in said[-1] and pct(metrics[f"{kind}-none"]["seq_accuracy"]) in said[-1]


# past the training length --------------------------------------------------------------------------

# the other sentences ---------------------------------------------------------------------------------


ATTENDEE = ("Nothing is trained yet with these settings. In a class the presenter runs the trainings, so that the class "
            "does not wait in line: these results show here once the presenter trains them, and **Reset** brings back "
            "the settings shipped with pekit, whose results show at once.")  # the message to an attendee


@given(run=runs, schemes=scheme_lists, running=st.booleans(), attendee=st.booleans())
@settings(max_examples=30, deadline=None)
def test_with_nothing_to_show_the_page_says_why(run, schemes, running, attendee):
    said = nothing_yet_sentence(run, schemes, running, attendee=attendee)
    if running:  # a training an attendee follows (the presenter's) shows as it does to anyone
        assert ", ".join(schemes) in said and said != press_train_sentence(run, schemes) and said != _(ATTENDEE)
        assert "**Train**" not in said and said.claims == ()  # no number: the settings are on screen beside it
    elif attendee:  # an attendee has no Train button: the presenter trains
        assert said == _(ATTENDEE) and "**Train**" not in said and "**Reset**" in said and said.claims == ()
    else:
        assert said == press_train_sentence(run, schemes)
        check_press_train(said, run, schemes)



def test_only_an_attendee_of_a_class_is_an_attendee():
    from lab.classroom import Seat

    assert not is_attendee(None)  # alone
    assert is_attendee(Seat("K7QM3P", "x" * 22))
    assert not is_attendee(Seat("K7QM3P", "x" * 22, key="secret"))  # the presenter

@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=4, deadline=None)  # each draw builds the results view: the edges are the examples
@example(kind="encoder", schemes=list(SCHEMES))
@example(kind="decoder", schemes=["alibi"])
def test_the_results_captions_state_their_numbers(kind, schemes):
    run = shipped_run(kind)
    view = results_view(run, trainings(run, schemes).where)
    guess = training.held_out_ceiling(run.task, run.seq_len, D["vocab"])
    said = bars_caption(view, run)
    assert f"{training.TEST_EXAMPLES:,}" in said and " 8 " in said and pct(guess) in said
    assert said.claim("held-out inputs seen in training").relation == "equal"  # no run saw them
    assert said.claim("best order-blind guess").value == pytest.approx(guess, abs=1e-12)
    assert said.holds()
    assert said.claim("held-out inputs seen in training").value == seen_by_hand(
        run.task, run.seq_len, run.seed, max(shipped_result(kind, p).steps for p in schemes), BATCH_SIZE) == 0
    assert said.claim("best order-blind guess").reference.value == pytest.approx(
        held_out_guess_by_hand(run.task, run.seq_len), abs=1e-12)
    check_shipped_note(measured_caption(view))
    assert missing_sentence(dataclasses.replace(view, missing=tuple(schemes))).endswith(f": {', '.join(schemes)}.")
    # the bars draw every scheme's two accuracies
    data = [row for rows in view.bars["datasets"].values() for row in rows if "measure" in row]
    metrics = shipped.recorded_metrics()
    assert sorted((r["run"], r["measure"], r["share"]) for r in data) == sorted(
        (p, m, metrics[f"{kind}-{p}"][f]) for p in schemes
        for m, f in (("tokens right", "token_accuracy"), ("sequences right", "seq_accuracy")))


@given(task=st.sampled_from(TASK.options), seq_len=st.integers(LENGTH.minimum, LENGTH.maximum))
@settings(max_examples=12, deadline=None)
@example(task="reverse", seq_len=LENGTH.minimum)
@example(task="reverse", seq_len=9)  # odd: the middle token is its own answer
@example(task="shift", seq_len=LENGTH.maximum)
def test_the_dashed_line_is_the_best_order_blind_guess_on_the_examples_shown(task, seq_len):
    """The bars' reference for the task and length on screen: the most likely answer at each
    position given its token and the multiset, by a loop, over the held-out examples the page
    evaluates (the first 200 of them here: the page's ceiling on the same 200 agrees)."""
    inputs = make_examples(task, training.TEST_EXAMPLES, seq_len, D["vocab"], seed=training.TEST_SEED)[0]
    assert ceiling(task, seq_len) == pytest.approx(
        order_blind_ceiling(task, inputs), abs=1e-15)  # the page's: the held-out examples of this setting
    assert order_blind_ceiling(task, inputs[:200]) == pytest.approx(order_blind_by_hand(task, inputs[:200].tolist()),
                                                                    abs=1e-12)


@functools.lru_cache(maxsize=None)
def held_out_guess_by_hand(task: str, seq_len: int) -> float:
    """The order-blind guess on the held-out examples of a task and length (a loop; once per setting)."""
    return order_blind_by_hand(task, make_examples(task, training.TEST_EXAMPLES, seq_len, D["vocab"],
                                                   seed=training.TEST_SEED)[0].tolist())


LONG_SEEN = Run("reverse", "encoder", LENGTH.minimum, 32, 1, 1, STEPS.minimum, 5)


def test_at_the_shortest_length_the_caption_counts_the_held_out_inputs_training_saw():
    """16**4 = 65,536 inputs of 4 tokens, 64 per step: after the fewest steps a training may take
    (10: 640 inputs drawn), about 1 % of the held-out inputs came up in its batches too. The
    caption counts them (a loop here) instead of saying no run saw them."""
    submit(LONG_SEEN, ["none"])
    wait_until(lambda: job_board().get(LONG_SEEN.key("none")).over)
    view = results_view(LONG_SEEN, trainings(LONG_SEEN, ["none"]).where)
    said = bars_caption(view, LONG_SEEN)
    steps = view.table["steps"][0]
    expected = seen_by_hand("reverse", LENGTH.minimum, LONG_SEEN.seed, steps, BATCH_SIZE)
    assert expected > 0
    assert said.claim("held-out inputs seen in training").relation == "above", said  # not "no run saw them"
    assert said.holds() and said.claim("held-out inputs seen in training").value == expected
    assert said.claim("held-out inputs seen in training").reference.value == 0
    assert f"{expected:,}" in said and f"{steps:,}" in said and "65,536" in said and " 4 " in said


@given(positions=st.sampled_from(SCHEMES), error=st.text(max_size=40))
@settings(max_examples=25)
def test_a_failure_names_its_scheme_and_error(positions, error):
    said = failure_sentence(Failure(positions, error))
    assert said.endswith(error) and positions in said[:len(said) - len(error)]  # the scheme named, the error last
    assert said.claims == ()  # the error is quoted as raised: no number of the sentence's own


@given(count=st.integers(1, 6), ahead=st.integers(0, 1200), waiting=st.lists(st.sampled_from(SCHEMES), min_size=1,
                                                                                 unique=True),
       running=st.one_of(st.none(), st.tuples(st.sampled_from(SCHEMES), st.integers(1, 3000), st.integers(1, 3000),
                                              st.floats(0, 20), shares)))
@example(count=1, ahead=1, waiting=["rope"], running=("none", 1, 10, 2.5, 0.0))
def test_progress_sentences_count_in_the_plural(count, ahead, waiting, running):
    from lab.views.train import _step_text

    if running is None:
        current = "waiting for the server"
    else:  # what a running training reports: its scheme, step, step cap, loss and share of the batch right
        positions, step, cap, loss, share = running
        current = _step_text(positions, training.HistoryRow(step, loss, 0.0, share), cap)
        assert current.startswith(positions)  # the scheme first, then its numbers, written in that order
        at = 0
        for written in (f"{step}", f"{cap}", f"{loss:.3f}", f"{share:.0%}"):
            at = current.index(written, at) + len(written)
        assert [c.value for c in current.claims] == [step, cap, loss, share]
    now = Progress(count, 0.5, current, tuple(waiting), ahead, None)
    said = progress_text(now)
    # the module's message in the plural form for the count, ending with the running training's report
    assert said == ngettext("Training {count} scheme: {current}", "Training {count} schemes: {current}", count).format(
        count=count, current=current)
    assert said.claim("schemes").value == count and said.claims[1:] == getattr(current, "claims", ())
    said = waiting_sentence(now)
    assert said == ngettext(
        "Waiting: {names} ({count} job ahead; one training runs at a time so nobody's page slows down).",
        "Waiting: {names} ({count} jobs ahead; one training runs at a time so nobody's page slows down).",
        ahead).format(names=", ".join(waiting), count=ahead)
    assert said.claim("jobs ahead").value == ahead and said.claim("trainings at a time").value == now.workers == 1

# a click at the defaults: the informative contrast first, and a live run that stopped short says why ------


@given(schemes=scheme_lists)
def test_trainings_run_the_informative_contrast_first(schemes):
    from lab.views.train import TRAIN_ORDER, training_order

    ordered = training_order(schemes)
    assert sorted(ordered) == sorted(schemes)
    assert [TRAIN_ORDER.index(p) for p in ordered] == sorted(TRAIN_ORDER.index(p) for p in schemes)
    if {"sinusoidal", "none"} <= set(schemes):
        assert ordered[:2] == ["sinusoidal", "none"]


@given(runs=st.lists(st.tuples(st.sampled_from(SCHEMES), st.integers(1, 3000), st.integers(1, 3000),
                                st.sampled_from(["target", "steps", "time"]), st.floats(0, 1), st.floats(0, 1)),
                      min_size=1, max_size=6, unique_by=lambda r: r[0]))
@example(runs=[("sinusoidal", 2999, 3000, "time", 0.5, 1.0), ("none", 1, 1, "time", 0.0, 0.0)])
def test_live_runs_that_stopped_short_of_the_shipped_ones_say_why(runs):
    from lab.views.train import MAX_SECONDS, STOPPED, differs_sentence, stopped_short

    compared = []
    for scheme, steps, shipped_steps, stopped, seq, shipped_seq in runs:
        live = dataclasses.replace(result_of(0.5, seq), steps=steps, stopped=STOPPED[stopped])
        recorded = dataclasses.replace(result_of(0.5, shipped_seq), steps=shipped_steps, stopped=STOPPED["steps"])
        short = stopped == "time" and steps < shipped_steps  # what the sentence is for, decided here
        assert stopped_short(live, recorded) == short
        if short:
            compared.append((scheme, live, recorded))
    if not compared:
        return
    said = differs_sentence(compared)
    assert said.holds()  # each run's steps below the shipped run's
    count = len(compared)
    assert said.claim("runs").value == count and said.claim("time cap (s)").value == MAX_SECONDS
    head, *each = said.split(". ")  # a sentence for them all, then one per run (no number written ends in ". ")
    assert f"{count}" in head and f"{MAX_SECONDS:g}" in head and len(each) == count
    for scheme, live, recorded in compared:
        steps = said.claim(f"{scheme} steps")
        assert steps.value == live.steps and steps.reference.value == recorded.steps
        assert said.claim(f"{scheme} sequences right").value == live.seq_accuracy
        assert said.claim(f"shipped {scheme} sequences right").value == recorded.seq_accuracy
        # one sentence per run, with its numbers written in order: the live run's, then the shipped run's
        sentence = each[[c[0] for c in compared].index(scheme)]
        at = 0
        for written in (scheme, f"{live.steps:,}", pct(live.seq_accuracy), f"{recorded.steps:,}",
                        pct(recorded.seq_accuracy)):
            at = sentence.index(written, at) + len(written)
    assert ";" not in said.split(".")[0]  # no run's clause slotted into the first sentence
