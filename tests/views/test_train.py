"""The training page's views: the records built from the shipped checkpoints, from a real
(tiny) training on the job board and from jobs held in line, and the sentences written from
them, checked against the numbers they state."""

import dataclasses
import math
import re
import threading
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.jobs import job_board
from lab.views.train import (
    HEAD_COUNTS,
    Direction,
    Progress,
    _against,
    _below,
    _by_position,
    _names,
    _pct,
    _ranked,
    bars_caption,
    curves_caption,
    curves_specs,
    direction_demo,
    direction_lesson,
    nothing_yet_sentence,
    ranking,
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
    AttentionView,
    Head,
    clearest_sentence,
    example_sentence,
    extrapolation_lesson,
    failure_sentence,
    fallback_scheme,
    jobs_for,
    layer_heading,
    layer_options,
    lesson,
    is_attendee,
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
from pekit.training import HistoryRow
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
    assert jobs_for(run, schemes) == {p: None for p in schemes}
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
    assert measured_caption(view).startswith(SHIPPED_NOTE)
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
    assert evenly_said(said, run.seq_len)

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
    assert measured_caption(view) is None  # nothing shipped among the results
    assert view.curves is not None


def evenly_said(said: str, seq_len: int) -> bool:
    """The even head's share, 1/seq_len, is said exactly as a fraction and as a percent to four
    digits (12.5% for 8 tokens, not 12%)."""
    found = re.search(rf"evenly over the {seq_len} input tokens would put 1/{seq_len} there, ([\d.]+)%\)\.$", said)
    return found is not None and abs(float(found[1]) - 100 / seq_len) <= 0.5 * 10 ** (math.floor(
        math.log10(100 / seq_len)) - 3) + 1e-12


@given(seq_len=st.integers(LENGTH.minimum, LENGTH.maximum), best=st.floats(0.0, 1.0), before=st.floats(0.0, 1.0),
       layer=st.integers(LAYERS.minimum, LAYERS.maximum), head=st.integers(1, 16))
@example(seq_len=8, best=0.97, before=0.124, layer=1, head=1)
@example(seq_len=LENGTH.minimum, best=1.0, before=0.0, layer=1, head=1)
@example(seq_len=LENGTH.maximum, best=0.0, before=1.0, layer=4, head=16)
@settings(max_examples=30, deadline=None)
def test_the_clearest_sentence_states_the_shares_it_is_given(seq_len, best, before, layer, head):
    view = AttentionView(layer=layer, clearest=True, trained=(), untrained=(), inputs=(1, 2), answers=(2, 1),
                         predicted=(2, 1), best=Head(layer, head, best), before=Head(1, 1, before), seq_len=seq_len,
                         even=1 / seq_len)
    said = clearest_sentence(view)
    trained = re.search(rf"Trained, head {head} of layer {layer} puts \*\*(\d+)%\*\* of the answers' attention", said)
    untrained = re.search(r"before training the best head put (\d+)% there", said)
    assert trained and abs(int(trained[1]) - 100 * best) <= 0.5 + 1e-9  # whole percents
    assert untrained and abs(int(untrained[1]) - 100 * before) <= 0.5 + 1e-9
    assert evenly_said(said, seq_len)
    if seq_len == 8:
        assert "1/8 there, 12.5%)" in said


def test_the_trained_models_attention_sentences_state_its_numbers(trained):
    view = attention_view(TRAINED, trained.source("none"), "clearest")
    record = job_board().get(TRAINED.key("none")).result["attention"]
    shares = training.source_attention(record["trained"], TRAINED.task, causal=False)
    assert view.best.share == pytest.approx(float(shares.max()))
    assert f"head {view.best.head} of layer {view.best.layer} puts **{view.best.share:.0%}**" in clearest_sentence(view)
    assert evenly_said(clearest_sentence(view), 6)
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
        assert progress_text(now) == "Training 3 schemes: none: halfway"
        assert now.waiting == ("rope",) and now.ahead == 1
        assert waiting_sentence(now).startswith("Waiting: rope (1 job ahead; one training runs at a time")
        assert now.curves is not None
        snapshot = trainings(run, ["none", "rope", "alibi"])
        assert snapshot.running and not snapshot.again
        assert [s.origin for s in snapshot.where] == ["missing"] * 3
        # nothing to show yet, and the page says these settings are training, not "Press Train"
        assert results_view(run, snapshot.where) is None
        said = nothing_yet_sentence(run, ["none", "rope", "alibi"], snapshot.running)
        assert "is training on this server" in said and "Press" not in said
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


def result_of(token: float, seq: float, extrapolation: tuple = (), by_position: tuple = (),
              mirror: float | None = None) -> Result:
    return Result(token_accuracy=token, seq_accuracy=seq, steps=1, seconds=0.0, stopped="target", history=(),
                  extrapolation=extrapolation, maps=None, by_position=by_position, mirror=mirror)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def names_in(text: str) -> list[str]:
    """The scheme names a list written ``a, b and c`` (or ``or``) holds, in order."""
    return re.split(r", | and | or ", text.strip())


# shares that tie as shown (0.1 and 0.1004 both read 10.0%), exact ties, and the ends
shares = st.one_of(st.sampled_from([0.0, 0.1, 0.1004, 0.25, 0.2501, 0.5, 0.9996, 1.0]), st.floats(0.0, 1.0))


# the small helpers every sentence uses ---------------------------------------------------------


@given(values=st.dictionaries(st.sampled_from(SCHEMES), shares, min_size=1), x=shares, bound=shares,
       count=st.integers(1, 6))
@settings(max_examples=40, deadline=None)
def test_the_helpers_write_what_they_are_given(values, x, bound, count):
    assert _pct(x) == f"{100 * x:.1f}%" and _pct(None) == "no position"
    listed = list(values)
    assert names_in(_names(listed)) == listed and _names(listed[:1]) == listed[0]
    assert _by_position([x] * count).split(" ") == [f"{100 * x:.0f}%"] * count
    assert (_against(x, bound) == "at or below that bound") == (x <= bound)
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


@given(layers=st.integers(LAYERS.minimum, LAYERS.maximum))
def test_layer_options_name_every_layer(layers):
    assert layer_options(layers) == ("clearest", *map(str, range(1, layers + 1)))


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
    rest = said
    if none:
        first, rest = said[0], said[1:]
        assert f"gets {pct(none[0])} of the tokens" in first
        if ceiling >= 1.0:
            assert "does not depend on order" in first
            if others:
                top = max(r[0] for r in others.values())
                tops = sorted((p for p, r in others.items() if pct(r[0]) == pct(top)), key=lambda p: -others[p][0])
                if pct(none[0]) == pct(top) or none[0] > top:
                    assert "as many tokens as any scheme with positions or more" in first
                elif top - none[0] <= 0.05:
                    assert f"within {100 * (top - none[0]):.1f} points of the best scheme" in first
                else:
                    assert "the gap is not about seeing order" in first
                assert f"{_names(tops)}, {pct(top)}" in first or f"{_names(tops)} get" in first
        elif none[0] - ceiling > 0.02:
            assert f"above the {pct(ceiling)}" in first
        elif none[0] <= ceiling:
            assert f"no better than the {pct(ceiling)}" in first
        else:
            assert f"within {100 * (none[0] - ceiling):.1f} points of the {pct(ceiling)}" in first
    if not others:
        assert rest == []
        return
    (last,) = rest
    best = expected_best(results)
    seq = results[best[0]].seq_accuracy
    if "none" in best:
        assert last == f"No scheme with positions gets more of the sequences right than none ({pct(seq)})."
    elif len(results) == 1:
        assert last == f"{best[0]} gets {pct(seq)} of the sequences right."
    elif none and pct(seq) == pct(none[1]):
        assert last == (f"No scheme with positions gets more of the sequences right than none ({pct(seq)}); "
                        f"{_names(best)} {'gets' if len(best) == 1 else 'get'} the most tokens right: "
                        f"{pct(results[best[0]].token_accuracy)} against {pct(none[0])}.")
        assert results[best[0]].token_accuracy > none[0]
    elif none:
        assert last == (f"With {_names(best, 'or')} positions it gets {pct(seq)} of the sequences right, against "
                        f"{pct(none[1])} without.")
        assert seq > none[1]
    else:
        assert names_in(re.match(r"The best here (?:is|are) (.+): ", last)[1]) == best
        assert last.endswith(f": {pct(seq)} of the sequences right.")


def test_the_shipped_lessons_name_the_tied_best():
    for kind in KINDS:
        results = {p: shipped_result(kind, p) for p in SCHEMES}
        said = lesson("reverse", kind, results, training.held_out_ceiling("reverse", 8, D["vocab"]))
        metrics = shipped.recorded_metrics()
        perfect = [p for p in SCHEMES if metrics[f"{kind}-{p}"]["seq_accuracy"] == 1.0]
        assert said[-1].startswith(f"With {_names(perfect, 'or')} positions it gets 100.0% of the sequences right")


# past the training length --------------------------------------------------------------------------


def check_extrapolation(said: list[str], tables: dict, seq_len: int, kind: str, guess: float | None) -> None:
    """Every claim of ``extrapolation_lesson``'s sentences against the tables, recomputed."""
    text = " ".join(said)
    longest = max(r.seq_len for t in tables.values() for r in t)
    at = {p: next((r.token_accuracy for r in t if r.seq_len == longest), "absent") for p, t in tables.items()}
    known = {p: a for p, a in at.items() if a not in (None, "absent")}
    if known:
        head = f"At {longest} tokens ({longest / seq_len:g} times the training length), the share of tokens right: "
        assert head in text
        listed = text.split(head)[1].split("%.")[0] + "%"
        groups = [(names_in(n), float(v) / 100) for n, v in re.findall(r"([a-z0-9, ]+?) (\d+\.\d)%(?:, |$)", listed)]
        assert sorted(p for n, _ in groups for p in n) == sorted(known)
        for n, v in groups:
            assert all(pct(known[p]) == f"{100 * v:.1f}%" for p in n)
        assert all(a > b for (_, a), (_, b) in zip(groups, groups[1:]))  # strictly falling, ties grouped
    else:
        assert "the share of tokens right" not in text
    if "none" in known and len(known) > 1:
        mine = pct(known["none"])
        more = [p for p in known if p != "none" and pct(known[p]) != mine and known[p] < known["none"]]
        same = [p for p in known if p != "none" and pct(known[p]) == mine]
        fewer = [p for p in known if p != "none" and pct(known[p]) != mine and known[p] > known["none"]]
        sentence = next(s for s in said if s.startswith("Without positions"))
        for word, expected in (("more than", more), ("as many as", same), ("fewer than", fewer)):
            first, second = word.rsplit(" ", 1)  # "as many" + "as": the words around "tokens right there"
            found = re.search(f"{first} (?:tokens right there )?{second}" + r" ([a-z0-9, ]+?)(?:, (?:as|fewer)|\.)",
                              sentence)
            assert sorted(names_in(found[1])) == sorted(expected) if expected else found is None
        assert ("the most tokens right" in sentence) == (not fewer)
        assert ("Kazemnejad" in sentence) == (kind == "decoder" and bool(more) and not fewer and not same)
    else:
        assert "Without positions" not in text
    if known and guess is not None:
        low = [p for p in known if known[p] <= guess]
        sentence = next(s for s in said if s.startswith("The best order-blind guess"))
        assert sentence.startswith(f"The best order-blind guess gets {pct(guess)} of the tokens at that length: ")
        if len(low) == len(known):
            assert sentence.endswith("no scheme does better.")
        elif low:
            assert sorted(names_in(re.search(r": (.+) do(?:es)? no better\.", sentence)[1])) == sorted(low)
        else:
            assert sentence.endswith("every scheme does better.")
    blind = [p for p, a in at.items() if a is None]
    if blind:
        last = seq_len * (2 if kind == "decoder" else 1) - 1
        assert f"{_names(blind)} cannot be asked at all: its table has no vector past position {last}" in text
    assert ("cannot be asked" in text) == bool(blind)


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), st.lists(st.one_of(st.none(), shares), min_size=1, max_size=4),
                              min_size=1, max_size=6),
       seq_len=st.integers(LENGTH.minimum, LENGTH.maximum), kind=st.sampled_from(KINDS),
       guess=st.one_of(st.none(), shares))
@settings(max_examples=40, deadline=None)
@example(tables={"none": [0.2], "rope": [0.2004], "sinusoidal": [0.1]}, seq_len=4, kind="decoder", guess=0.15)
@example(tables={"none": [0.3], "alibi": [0.5], "learned": [None]}, seq_len=32, kind="encoder", guess=0.9)
@example(tables={"none": [0.3]}, seq_len=8, kind="decoder", guess=0.1)
def test_the_extrapolation_lesson_ranks_every_scheme_at_the_longest_length(tables, seq_len, kind, guess):
    results = {p: tuple(LengthAccuracy(seq_len + i, a) for i, a in enumerate(shares_)) for p, shares_ in tables.items()}
    check_extrapolation(extrapolation_lesson(results, seq_len, kind, guess), results, seq_len, kind, guess)


@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=20, deadline=None)
def test_the_shipped_extrapolation_lesson_states_the_recorded_numbers(kind, schemes):
    metrics = shipped.recorded_metrics()
    tables = {p: tuple(LengthAccuracy(e["seq_len"], e["token_accuracy"]) for e in metrics[f"{kind}-{p}"]["extrapolation"])
              for p in schemes}
    guess = training.held_out_ceiling("reverse", 2 * D["seq_len"], D["vocab"])
    said = extrapolation_lesson(tables, D["seq_len"], kind, guess)
    check_extrapolation(said, tables, D["seq_len"], kind, guess)
    view = results_view(shipped_run(kind), trainings(shipped_run(kind), schemes).where)
    assert view.longer == tuple(said)


def test_the_shipped_decoder_without_positions_keeps_the_most_tokens_at_twice_the_length():
    said = results_view(shipped_run("decoder"), trainings(shipped_run("decoder"), list(SCHEMES)).where).longer
    metrics = shipped.recorded_metrics()
    last = {p: metrics[f"decoder-{p}"]["extrapolation"][-1]["token_accuracy"] for p in SCHEMES}
    assert all(last["none"] > last[p] for p in ("sinusoidal", "rope", "alibi", "t5"))  # as recorded
    assert any("Without positions the decoder keeps the most tokens right there: more than" in s
               and "Kazemnejad" in s for s in said)


# ALiBi: distance without direction --------------------------------------------------------------------


def naive_mirror_bound(task: str, inputs) -> float:
    """The best a model blind to direction can expect, by a loop over examples and positions."""
    total = 0.0
    rows = inputs.tolist()
    for x in rows:
        L = len(x)
        here = training_answers(task, x)
        mirrored = training_answers(task, x[::-1])
        for j in range(L):
            total += 1.0 if here[j] == mirrored[L - 1 - j] else 0.5
    return total / (len(rows) * len(rows[0]))


def training_answers(task: str, x: list[int]) -> list[int]:
    L = len(x)
    if task == "reverse":
        return x[::-1]
    if task == "sort":
        return sorted(x)
    if task == "shift":
        return [x[(i + 1) % L] for i in range(L)]
    return [x.count(t) for t in x]


@given(task=st.sampled_from(TASK.options), seq_len=st.integers(2, 12), vocab=st.integers(2, 16),
       seed=st.integers(0, 2**31))
@settings(max_examples=30, deadline=None)
def test_the_mirror_bound_is_the_loop_s(task, seq_len, vocab, seed):
    from pekit.tasks import make_examples, mirror_ceiling

    inputs = make_examples(task, 20, seq_len, vocab, seed=seed)[0]
    assert mirror_ceiling(task, inputs) == pytest.approx(naive_mirror_bound(task, inputs), abs=1e-12)


def measured_by_hand(model, task: str):
    """Per-position accuracy and mirror agreement of ``model`` on the held-out examples, by a loop."""
    import torch

    from pekit.tasks import make_examples

    cfg = model.config
    x, y = make_examples(task, training.TEST_EXAMPLES, cfg.seq_len, cfg.vocab, seed=training.TEST_SEED)
    with torch.no_grad():
        a = model(x).argmax(-1)
        b = model(x.flip(-1)).argmax(-1)
    right = [sum(int(a[n, i] == y[n, i]) for n in range(len(x))) / len(x) for i in range(cfg.seq_len)]
    agree = sum(int(a[n, i] == b[n, cfg.seq_len - 1 - i]) for n in range(len(x)) for i in range(cfg.seq_len))
    return right, agree / x.numel()


def check_direction(said: list[str], task: str, kind: str, results: dict, bound: float, demo) -> None:
    alibi = results.get("alibi")
    if alibi is None:
        assert said == []
        return
    text = " ".join(said)
    positions = " ".join(f"{100 * s:.0f}%" for s in alibi.by_position)
    if kind == "encoder":
        assert "the same penalty for a key two places to the left as for one two places to the right" in text
        assert ("Measured" in text) == (alibi.mirror is not None)
        if alibi.mirror is not None:
            assert f"read backwards, at {pct(alibi.mirror)} of the tokens." in text
        if bound >= 1.0:
            assert f"does not stand in the way of {task}" in text
            assert ("|L−1−2i|" in text) == (task == "reverse")
            if alibi.by_position:
                assert (f"ALiBi gets {pct(alibi.token_accuracy)} of the tokens right; by position (0 to "
                        f"{len(alibi.by_position) - 1}): {positions}.") in text
            assert ("Where direction matters" in text) == (demo is not None)
            if demo is not None:
                word = "at or below that bound" if demo.token_accuracy <= demo.bound else "a little above it"
                assert (f"the ALiBi encoder gets {pct(demo.token_accuracy)} of the tokens and "
                        f"{pct(demo.seq_accuracy)} of the sequences right, against at most {pct(demo.bound)} for a "
                        f"model blind to direction ({word}") in text
                assert f"mirror its answers at {pct(demo.mirror)} of the tokens." in text
                assert (f"trained on {demo.task} ({demo.seq_len} tokens, d = {demo.dim}, {demo.layers} "
                        f"layer{'s' if demo.layers != 1 else ''}, {demo.heads} head{'s' if demo.heads != 1 else ''};"
                        ) in text
        else:
            word = "at or below that bound" if alibi.token_accuracy <= bound else "a little above it"
            assert (f"can expect at most {pct(bound)} of the {task} tokens right on these examples" in text
                    and f"ALiBi gets {pct(alibi.token_accuracy)}, {word}" in text)
        return
    assert "every key lies behind its query" in text
    assert f"the decoder gets {pct(alibi.token_accuracy)} of the tokens and {pct(alibi.seq_accuracy)}" in text
    if alibi.by_position:
        assert f"By answer slot (0 to {len(alibi.by_position) - 1}): {positions}" in text
    none = results.get("none")
    assert ("without positions:" in text) == bool(alibi.by_position and none is not None and none.by_position)
    if "without positions:" in text:
        assert f"without positions: {' '.join(f'{100 * s:.0f}%' for s in none.by_position)}." in text
    assert ("2i+1 places back" in text) == (task == "reverse")


@given(task=st.sampled_from(TASK.options), kind=st.sampled_from(KINDS), alibi=st.one_of(st.none(), st.tuples(
           shares, shares, st.lists(shares, max_size=LENGTH.maximum), st.one_of(st.none(), shares))),
       none=st.one_of(st.none(), st.lists(shares, min_size=1, max_size=LENGTH.maximum)), bound=shares,
       demo=st.one_of(st.none(), st.tuples(shares, shares, shares, shares)))
@settings(max_examples=40, deadline=None)
@example(task="reverse", kind="encoder", alibi=(0.573, 0.013, [0.65] * 8, 1.0), none=None, bound=1.0,
         demo=(0.525, 0.003, 1.0, 0.531))
@example(task="shift", kind="encoder", alibi=(0.54, 0.0, [0.5] * 4, 1.0), none=None, bound=0.531, demo=None)
@example(task="reverse", kind="decoder", alibi=(0.66, 0.02, [0.8] * 8, None), none=[0.7] * 8, bound=1.0,
         demo=None)
def test_the_alibi_lesson_states_its_numbers(task, kind, alibi, none, bound, demo):
    results = {}
    if alibi is not None:
        results["alibi"] = result_of(alibi[0], alibi[1], by_position=tuple(alibi[2]), mirror=alibi[3])
    if none is not None:
        results["none"] = result_of(0.3, 0.0, by_position=tuple(none))
    if task in ("reverse", "histogram"):
        bound = 1.0  # the answer to a mirror image is the mirrored answer
    demo = None if demo is None or kind != "encoder" or bound < 1.0 else Direction("shift", 8, *demo, 32, 1, 1)
    said = direction_lesson(task, kind, results, bound, demo)
    check_direction(said, task, kind, results, bound, demo)


@pytest.mark.parametrize("kind", KINDS)
def test_the_shipped_alibi_lesson_states_what_was_measured(kind):
    run = shipped_run(kind)
    view = results_view(run, trainings(run, ["none", "alibi"]).where)
    results = {p: shipped_result(kind, p) for p in ("none", "alibi")}
    for p in ("none", "alibi"):  # measured again here, by a loop
        right, agree = measured_by_hand(shipped.load_checkpoint(kind, p, device="cpu"), "reverse")
        assert results[p].by_position == pytest.approx(right, abs=1e-12)
        assert results[p].mirror == pytest.approx(agree, abs=1e-12)
    from pekit.tasks import make_examples

    held_out = make_examples("reverse", training.TEST_EXAMPLES, 8, D["vocab"], seed=training.TEST_SEED)[0]
    assert naive_mirror_bound("reverse", held_out) == 1.0
    demo = direction_demo()
    model = shipped.load_direction_demo(device="cpu")
    right, agree = measured_by_hand(model, demo.task)
    assert demo.token_accuracy == pytest.approx(sum(right) / len(right), abs=1e-6)
    assert demo.mirror == pytest.approx(agree, abs=1e-12) and demo.mirror == 1.0  # exactly symmetric
    shift_inputs = make_examples(demo.task, training.TEST_EXAMPLES, 8, D["vocab"], seed=training.TEST_SEED)[0]
    assert demo.bound == pytest.approx(naive_mirror_bound(demo.task, shift_inputs), abs=1e-12)
    assert (demo.dim, demo.layers, demo.heads) == (model.config.dim, model.config.layers, model.config.heads)
    assert demo.token_accuracy <= demo.bound  # the demonstration: ALiBi stays at the bound on shift
    recorded = shipped.direction_metrics()  # the shipped file is the one recorded, small, and measures as recorded
    import hashlib

    data = shipped.DIRECTION_FILE.read_bytes()
    assert len(data) == recorded["bytes"] <= 1_000_000 and hashlib.sha256(data).hexdigest() == recorded["sha256"]
    assert recorded["config"]["task"] == demo.task == shipped.DIRECTION_TASK and recorded["config"]["positions"] == "alibi"
    assert recorded["token_accuracy"] == pytest.approx(demo.token_accuracy, abs=2e-3)
    check_direction(list(view.direction), "reverse", kind, results, 1.0, demo if kind == "encoder" else None)
    if kind == "encoder":
        assert results["alibi"].mirror == 1.0


# the other sentences ---------------------------------------------------------------------------------


@given(run=runs, schemes=scheme_lists, running=st.booleans(), attendee=st.booleans())
@settings(max_examples=30, deadline=None)
def test_with_nothing_to_show_the_page_says_why(run, schemes, running, attendee):
    said = nothing_yet_sentence(run, schemes, running, attendee=attendee)
    if running:  # a training an attendee follows (the presenter's) shows as it does to anyone
        assert said.startswith(f"The {run.kind} on {run.task} with {', '.join(schemes)} is training on this server")
        assert "Press" not in said
    elif attendee:  # an attendee has no Train button: the presenter trains
        assert said.startswith("Nothing is trained yet with these settings. In a class the presenter runs the trainings")
        assert "Press" not in said and "**Reset**" in said
    else:
        assert said == press_train_sentence(run, schemes)
        assert (f"({ {'reverse': 'reversal of'}[D['task']]} {D['seq_len']} tokens, d = {D['dim']}, {D['layers']} "
                f"layers, {D['heads']} heads, {shipped.STEPS:,} steps, seed {D['seed']})") in said



def test_only_an_attendee_of_a_class_is_an_attendee():
    from lab.classroom import Seat

    assert not is_attendee(None)  # alone
    assert is_attendee(Seat("K7QM3P", "x" * 22))
    assert not is_attendee(Seat("K7QM3P", "x" * 22, key="secret"))  # the presenter


histories = st.lists(st.tuples(st.floats(1e-4, 10.0), shares, shares), min_size=1, max_size=1600)


@given(tables=st.dictionaries(st.sampled_from(SCHEMES), histories, min_size=1, max_size=3))
@settings(max_examples=15, deadline=None)
@example(tables={"none": [(1.0, 0.5, 0.0)]})
def test_the_curves_caption_says_how_the_curves_were_drawn(tables):
    hist = {p: tuple(HistoryRow(i + 1, *row) for i, row in enumerate(rows)) for p, rows in tables.items()}
    curves = curves_specs(hist)
    said = curves_caption(curves)
    assert said.startswith(f"Each step's accuracy is measured on that step's {training.BATCH_SIZE} fresh examples, "
                           "before the model learns from them.")
    longest = max(len(h) for h in hist.values())
    assert curves.longest == longest
    if curves.banded:
        assert f"over up to {curves.block:,} consecutive steps." in said
        assert 1 < curves.block <= longest
        # the bands' run lengths as drawn: the longest is the one the caption states
        rows = [row for rows in curves.accuracy["datasets"].values() for row in rows if "first" in row]
        assert max(row["last"] - row["first"] + 1 for row in rows) == curves.block
    else:
        assert said.endswith("Every step is a point on its line; hover for values.")
    if min(len(h) for h in hist.values()) < 2:  # a single step is drawn as a point, not lost
        assert '"point": true' in str(curves.accuracy).replace("'", '"').replace("True", "true")


@given(kind=st.sampled_from(KINDS), schemes=scheme_lists)
@settings(max_examples=15, deadline=None)
def test_the_results_captions_state_their_numbers(kind, schemes):
    run = shipped_run(kind)
    view = results_view(run, trainings(run, schemes).where)
    guess = training.held_out_ceiling(run.task, run.seq_len, D["vocab"])
    said = bars_caption(view, run)
    assert said.startswith(f"Accuracy on {training.TEST_EXAMPLES:,} examples of 8 tokens that no run saw in training")
    assert f"The dashed line: {pct(guess)} of the tokens, the most a guess blind to order gets right here." in said
    assert measured_caption(view).startswith(SHIPPED_NOTE)
    assert missing_sentence(view._replace(missing=tuple(schemes)) if hasattr(view, "_replace") else
                            dataclasses.replace(view, missing=tuple(schemes))) == \
        f"Not trained yet with these settings: {', '.join(schemes)}."
    # the bars draw every scheme's two accuracies
    data = [row for rows in view.bars["datasets"].values() for row in rows if "measure" in row]
    metrics = shipped.recorded_metrics()
    assert sorted((r["run"], r["measure"], r["share"]) for r in data) == sorted(
        (p, m, metrics[f"{kind}-{p}"][f]) for p in schemes
        for m, f in (("tokens right", "token_accuracy"), ("sequences right", "seq_accuracy")))


@given(positions=st.sampled_from(SCHEMES), error=st.text(max_size=40))
def test_a_failure_names_its_scheme_and_error(positions, error):
    assert failure_sentence(Failure(positions, error)) == f"Training {positions} failed: {error}"


@given(count=st.integers(1, 6), ahead=st.integers(0, 40), waiting=st.lists(st.sampled_from(SCHEMES), min_size=1,
                                                                               unique=True),
       current=st.sampled_from(["waiting for the server", "rope: step 3 of at most 10"]))
def test_progress_sentences_count_in_the_plural(count, ahead, waiting, current):
    now = Progress(count, 0.5, current, tuple(waiting), ahead, None)
    assert progress_text(now) == f"Training {count} scheme{'s' if count != 1 else ''}: {current}"
    assert waiting_sentence(now).startswith(
        f"Waiting: {', '.join(waiting)} ({ahead} job{'s' if ahead != 1 else ''} ahead;")


@given(kind=st.sampled_from(KINDS), positions=st.sampled_from(SCHEMES), layer=st.sampled_from(["clearest", "1", "2"]))
@settings(max_examples=20, deadline=None)
def test_the_attention_sentences_hold_for_every_shipped_model(kind, positions, layer):
    test_attention_sentences_state_the_shipped_maps_numbers(kind, positions, layer)


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
def test_live_runs_that_stopped_short_of_the_shipped_ones_say_why(runs):
    from lab.views.train import MAX_SECONDS, STOPPED, differs_sentence, stopped_short

    compared = []
    for scheme, steps, shipped_steps, stopped, seq, shipped_seq in runs:
        live = dataclasses.replace(result_of(0.5, seq), steps=steps, stopped=STOPPED[stopped])
        recorded = dataclasses.replace(result_of(0.5, shipped_seq), steps=shipped_steps, stopped=STOPPED["steps"])
        assert stopped_short(live, recorded) == (stopped == "time" and steps < shipped_steps)
        compared.append((scheme, live, recorded))
    said = differs_sentence(compared)
    count = len(runs)
    runs_, owner = ("run", "run's") if count == 1 else ("runs", "runs'")
    assert said.startswith(f"Trained here, {count} {runs_} stopped at the time cap of {MAX_SECONDS:g} s, before the "
                           f"shipped {owner} steps")
    each = "; ".join(f"{scheme} after {steps:,} steps, {pct(seq)} of sequences right (shipped: {pct(shipped_seq)} after "
                     f"{shipped_steps:,})" for scheme, steps, shipped_steps, _stopped, seq, shipped_seq in runs)
    assert said.endswith(f"can differ: {each}.")
