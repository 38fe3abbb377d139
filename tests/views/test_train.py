"""The training page's views: the records built from the shipped checkpoints, from a real
(tiny) training on the job board and from jobs held in line, and the sentences written from
them, checked against the numbers they state."""

import re
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.jobs import job_board
from lab.views.train import (
    HEAD_COUNTS,
    KIND,
    LAYERS,
    LENGTH,
    MAPS_PER_ROW,
    SCHEMES_SETTING,
    SEED,
    STEPS,
    TASK,
    WIDTHS,
    Failure,
    Run,
    LengthAccuracy,
    Result,
    TrainKey,
    attention_view,
    clearest_sentence,
    example_sentence,
    extrapolation_lesson,
    failure_sentence,
    fallback_scheme,
    layer_heading,
    layer_options,
    lesson,
    measured_caption,
    missing_sentence,
    press_train_sentence,
    progress,
    progress_text,
    results_view,
    shipped_result,
    submit,
    trainings,
    waiting_sentence,
)
from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS

SHIPPED_NOTE = "Shipped checkpoints were trained with these settings"
D = shipped.DEFAULTS


def shipped_run(kind: str) -> Run:
    return Run(D["task"], kind, D["seq_len"], D["dim"], D["layers"], D["heads"], shipped.STEPS, D["seed"])


def wait_until(done, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.05)


# the job key -----------------------------------------------------------------------------------


def test_the_job_key_is_a_hashable_record_of_the_ten_fields_in_order():
    run = Run("shift", "decoder", 6, 32, 1, 2, 12, 3)
    key = run.key("rope")
    assert isinstance(key, TrainKey) and key.positions == "rope" and key.task == "shift" and key.seed == 3
    assert key == ("train", "shift", "decoder", 6, 32, 1, 2, 12, 3, "rope") and hash(key) == hash(tuple(key))
    assert {key: 1}[run.key("rope")] == 1 and run.key("none") != key


# before anything is trained -------------------------------------------------------------------


runs = st.builds(Run, st.sampled_from(TASK.options), st.sampled_from(KIND.options),
                 st.integers(LENGTH.minimum, LENGTH.maximum), st.sampled_from(WIDTHS).map(int),
                 st.integers(LAYERS.minimum, LAYERS.maximum), st.sampled_from(HEAD_COUNTS).map(int),
                 st.integers(STEPS.minimum, STEPS.maximum), st.integers(SEED.minimum, SEED.maximum))
scheme_lists = st.lists(st.sampled_from(SCHEMES), min_size=1, unique=True).map(SCHEMES_SETTING.ordered)


@given(run=runs, schemes=scheme_lists)
@settings(max_examples=200, deadline=None)
def test_press_train_states_the_settings_it_would_train_with(run, schemes):
    said = press_train_sentence(run, schemes)
    assert said.startswith(f"Press **Train** to train the {run.kind} on {run.task} with {', '.join(schemes)}: "
                           f"{run.seq_len} tokens, d = {run.dim}, ")
    layers = re.search(r"(\d+) layer(s?),", said)
    heads = re.search(r"(\d+) head(s?),", said)
    assert int(layers[1]) == run.layers and (layers[2] == "s") == (run.layers != 1)
    assert int(heads[1]) == run.heads and (heads[2] == "s") == (run.heads != 1)
    assert int(re.search(r"at most ([\d,]+) steps", said)[1].replace(",", "")) == run.steps
    assert int(re.search(r"seed (\d+)\.", said)[1]) == run.seed


@given(run=runs, schemes=scheme_lists)
@settings(max_examples=50, deadline=None)
def test_settings_never_trained_have_no_results_and_a_primary_button(run, schemes):
    run = run._replace(seed=run.seed | 1 << 30)  # seeds no other test trains with
    board = trainings(run, schemes)
    assert not board.running and not board.again and not board.failures
    assert [s.positions for s in board.where] == schemes and all(s.missing for s in board.where)
    assert not board.shipped_only
    assert results_view(run, board.where) is None


@pytest.mark.parametrize("layers", range(LAYERS.minimum, LAYERS.maximum + 1))
def test_layer_options_are_the_clearest_and_every_layer_of_the_model(layers):
    assert layer_options(layers) == ("clearest", *map(str, range(1, layers + 1)))


@given(schemes=scheme_lists)
def test_the_fallback_scheme_is_the_last_chosen(schemes):
    assert fallback_scheme(schemes) == schemes[len(schemes) - 1]


# the shipped results --------------------------------------------------------------------------


@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=30, deadline=None)
def test_shipped_results_say_they_are_shipped_and_miss_nothing(kind, schemes):
    run = shipped_run(kind)
    board = trainings(run, schemes)
    assert board.shipped_only and not board.again and not board.running
    view = results_view(run, board.where)
    assert list(view.table["scheme"]) == schemes and set(view.table["result"]) == {"shipped checkpoint"}
    assert view.missing == () and view.shipped
    caption = measured_caption(view)
    assert caption.startswith("Measured on 1,000 held-out examples") and SHIPPED_NOTE in caption
    metrics = shipped.recorded_metrics()
    assert list(view.table["steps"]) == [metrics[f"{kind}-{p}"]["steps"] for p in schemes]


@pytest.mark.parametrize("layer", ["clearest", "1", "2"])
@pytest.mark.parametrize("positions", SCHEMES)
@pytest.mark.parametrize("kind", KINDS)
def test_attention_sentences_state_the_shipped_maps_numbers(kind, positions, layer):
    run = shipped_run(kind)
    view = attention_view(run, trainings(run, [positions]).source(positions), layer)
    maps = shipped_result(kind, positions).maps
    inputs, answers = training.held_out_example(run.task, run.seq_len, D["vocab"])
    said = example_sentence(view)
    assert f"input **{' '.join(map(str, inputs.tolist()))}**" in said
    assert f"right answer **{' '.join(map(str, answers.tolist()))}**" in said
    assert f"the trained model answers **{' '.join(map(str, maps.predicted.tolist()))}**." in said

    causal = kind == "decoder"
    shares = training.source_attention(maps.trained, run.task, causal=causal)  # (layers, heads)
    best_layer, best_head = divmod(int(shares.argmax()), shares.shape[1])
    before = float(training.source_attention(maps.untrained, run.task, causal=causal).max())
    said = clearest_sentence(view)
    assert (f"Trained, head {best_head + 1} of layer {best_layer + 1} puts **{float(shares.max()):.0%}** of the "
            "answers' attention") in said
    assert f"before training the best head put {before:.0%} there" in said
    assert f"evenly over the {run.seq_len} input tokens would put {1 / run.seq_len:.0%})." in said

    shown = best_layer + 1 if layer == "clearest" else int(layer)
    how = "(the layer of the clearest head)" if layer == "clearest" else "(as chosen)"
    assert view.layer == shown
    assert layer_heading(view, "Trained") == f"**Trained**, layer {shown} {how}"
    for rows in (view.trained, view.untrained):
        assert [m.head for row in rows for m in row] == list(range(1, run.heads + 1))
        assert all(0 < len(row) <= MAPS_PER_ROW for row in rows)


# a training on the job board ------------------------------------------------------------------


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
    assert missing_sentence(view) == "Not trained yet with these settings: learned, rope."
    assert list(view.table["result"]) == ["trained on this server"]
    assert 0 < view.table["steps"][0] <= TRAINED.steps
    caption = measured_caption(view)
    assert caption.startswith("Measured on 1,000 held-out examples") and SHIPPED_NOTE not in caption
    assert view.curves is not None


def test_the_trained_models_attention_sentences_state_its_numbers(trained):
    view = attention_view(TRAINED, trained.source("none"), "clearest")
    record = job_board().get(TRAINED.key("none")).result["attention"]
    shares = training.source_attention(record["trained"], TRAINED.task, causal=False)
    assert view.best.share == pytest.approx(float(shares.max()))
    assert f"head {view.best.head} of layer {view.best.layer} puts **{view.best.share:.0%}**" in clearest_sentence(view)
    assert f"over the 6 input tokens would put {1 / 6:.0%})." in clearest_sentence(view)
    assert f"input **{' '.join(map(str, record['inputs'].tolist()))}**" in example_sentence(view)


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
        assert progress_text(now) == "Training 3 scheme(s): none: halfway"
        assert now.waiting == ("rope",) and now.ahead == 1
        assert waiting_sentence(now).startswith("Waiting: rope (1 job ahead; one training runs at a time")
        assert now.curves is not None
        snapshot = trainings(run, ["none", "rope", "alibi"])
        assert snapshot.running and not snapshot.again
        assert [s.origin for s in snapshot.where] == ["missing"] * 3
    finally:
        release.set()
    wait_until(lambda: board.get(run.key("rope")).over)
    assert progress(run, ["none", "rope", "alibi"]) is None


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
        assert waiting_sentence(now).startswith("Waiting: t5 (2 jobs ahead;")
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
    assert failure_sentence(board.failures[0]) == "Training alibi failed: ValueError: the model diverged"


# the lessons: what a table of results and the accuracy past the training length say ---------------


def result_of(token: float, seq: float, extrapolation: tuple = ()) -> Result:
    return Result(token_accuracy=token, seq_accuracy=seq, steps=1, seconds=0.0, stopped="target", history=(),
                  extrapolation=extrapolation, maps=None)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def test_the_lesson_follows_the_numbers():
    rows = {"none": result_of(0.27, 0.0), "sinusoidal": result_of(1.0, 0.998)}
    said = " ".join(lesson("reverse", "encoder", rows, 0.28))
    assert "27.0%" in said and "28.0%" in said and "no better than" in said and "99.8%" in said
    leaky = " ".join(lesson("reverse", "encoder", {**rows, "none": result_of(0.6, 0.0)}, 0.28))
    assert "above the 28.0%" in leaky and "no better" not in leaky
    decoder = " ".join(lesson("reverse", "decoder", {"none": result_of(0.76, 0.2)}, 0.28))
    assert "76.0%" in decoder and "causal mask leaks" in decoder
    hist = " ".join(lesson("histogram", "encoder", {**rows, "none": result_of(0.97, 0.0)}, 1.0))
    assert "97.0%" in hist and "costs nothing" in hist and "as many tokens as the best scheme" in hist
    behind = " ".join(lesson("histogram", "decoder", {**rows, "none": result_of(0.5, 0.0)}, 1.0))
    assert "50.0%" in behind and "the gap is not about seeing order" in behind and "leaks" not in behind
    assert lesson("reverse", "encoder", {}, 0.3) == []


shares = st.floats(0.0, 1.0)


@given(none=st.tuples(shares, shares), others=st.dictionaries(st.sampled_from(SCHEMES[1:]), st.tuples(shares, shares),
                                                              max_size=5),
       kind=st.sampled_from(KINDS), ceiling=st.floats(0.0, 0.99))
@settings(max_examples=200, deadline=None)
def test_the_lesson_compares_no_positions_with_the_ceiling_and_the_best_scheme(none, others, kind, ceiling):
    results = {"none": result_of(*none), **{p: result_of(*r) for p, r in others.items()}}
    said = lesson("reverse", kind, results, ceiling)
    first = said[0]
    assert f"gets {pct(none[0])} of the tokens" in first
    above = none[0] - ceiling > 0.02
    assert ("above the " + pct(ceiling)) in first if above else ("no better than the " + pct(ceiling)) in first
    best = max(results, key=lambda p: (results[p].seq_accuracy, results[p].token_accuracy))
    if best == "none":
        assert len(said) == 1
    elif results[best].seq_accuracy > none[1]:
        assert said[1] == (f"With {best} positions it gets {pct(results[best].seq_accuracy)} of the sequences right, "
                           f"against {pct(none[1])} without.")
    else:
        assert said[1].startswith(f"The best scheme here is {best}: {pct(results[best].seq_accuracy)}")


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), st.lists(st.one_of(st.none(), shares), min_size=1, max_size=4),
                              min_size=1, max_size=6),
       seq_len=st.integers(2, 64))
@settings(max_examples=200, deadline=None)
def test_the_extrapolation_lesson_names_the_best_and_worst_at_the_longest_length(tables, seq_len):
    results = {p: tuple(LengthAccuracy(seq_len + i, a) for i, a in enumerate(shares_)) for p, shares_ in tables.items()}
    said = " ".join(extrapolation_lesson(results, seq_len))
    longest = max(len(t) for t in tables.values()) - 1 + seq_len
    at = {p: t[-1] for p, t in tables.items() if len(t) - 1 + seq_len == longest}
    known = {p: a for p, a in at.items() if a is not None}
    if known:
        best, worst = max(known, key=known.get), min(known, key=known.get)
        assert f"At {longest} tokens ({longest / seq_len:g} times the training length) {best} keeps " \
               f"{pct(known[best])} of the tokens right" in said
        if worst != best:
            assert f", {worst} {pct(known[worst])}" in said
    for p in (p for p, a in at.items() if a is None):
        assert p in said and "cannot be asked at all" in said
    assert ("cannot be asked" in said) == any(a is None for a in at.values())
