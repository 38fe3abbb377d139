"""The training page's ALiBi section: the mirror bound by a loop, and the sentences about
direction checked against the numbers measured again here."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.claims import claims_of
from lab.views.train import results_view, shipped_result, trainings
from lab.views.train_alibi import Direction, _against, _by_position, direction_demo, direction_lesson
from lab.views.train_names import LENGTH, TASK, _task
from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS
from tests.bilingual import digit_runs
from tests.views.train_common import D, pct, result_of, shares, shipped_run


@given(x=shares, bound=shares, count=st.integers(1, 6))
def test_the_alibi_helpers_write_what_they_are_given(x, bound, count):
    assert _by_position([x] * count).split(" ") == [f"{100 * x:.0f}%"] * count
    assert (_against(x, bound) == "at or below that bound") == (x <= bound)


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
    assert all(s.holds() for s in said if hasattr(s, "holds"))
    first = claims_of(said[0])
    if kind == "encoder" and alibi.mirror is not None and bound >= 1.0 and not any(
            p in results for p in ("sinusoidal", "learned", "rope", "t5")):
        # no control: "right answers mirror anyway", claimed as the mirror bound (every token) it stands on
        assert said[0].claim("mirror bound").value == bound and said[0].claim("mirror bound").relation == "at least"
    positions = " ".join(f"{100 * s:.0f}%" for s in alibi.by_position)
    last = len(alibi.by_position) - 1
    if kind == "encoder":
        assert "−m·|i−j|" in said[0]  # the encoder's symmetric bias, the same both sides
        assert any(c.what == "ALiBi's mirror agreement" for c in first) == (alibi.mirror is not None)
        if alibi.mirror is not None:
            assert said[0].claim("ALiBi's mirror agreement").value == alibi.mirror and pct(alibi.mirror) in said[0]
        # the sentences: the bias; why it does (or does not) stand in the way; the demo when there is one
        assert len(said) == 2 + (bound >= 1.0 and demo is not None)
        if bound >= 1.0:
            # the case: the mirror does not stand in the way of the task, which it names
            assert said[1].cases == ("not in the way",) and _task(task) in said[1]
            assert ("|L−1−2i|" in said[1]) == (task == "reverse")
            if alibi.by_position:
                assert pct(alibi.token_accuracy) in said[1] and positions in said[1]
                assert str(last) in digit_runs(said[1])
            if demo is not None:
                word = "at or below that bound" if demo.token_accuracy <= demo.bound else "a little above it"
                assert word in said[2]  # which side of the bound: no claim says it (plain text)
                # every number written: the demo's length, width, layers, heads and its four shares
                stated = (f"{demo.seq_len} {demo.dim} {demo.layers} {demo.heads} {pct(demo.token_accuracy)} "
                          f"{pct(demo.seq_accuracy)} {pct(demo.bound)} {pct(demo.mirror)}")
                assert digit_runs(said[2]) == digit_runs(stated), said[2]
                assert said[2].index(pct(demo.token_accuracy)) < said[2].index(pct(demo.seq_accuracy)) or (
                    pct(demo.token_accuracy) == pct(demo.seq_accuracy))
        else:
            assert said[1].cases == ("mirror bound",) and _task(task) in said[1]
            word = "at or below that bound" if alibi.token_accuracy <= bound else "a little above it"
            assert word in said[1]  # which side of the bound: no claim says it (plain text)
            assert digit_runs(said[1]) == digit_runs(f"{pct(bound)} {pct(alibi.token_accuracy)}"), said[1]
        return
    assert "−m·(i−j)" in text  # the decoder's signed bias
    # every number written: the shares of tokens and sequences, the slots (0 to the last) with their shares, the
    # shares without positions when they are recorded, and the 2 and 1 of "2i+1" on reversal
    none = results.get("none")
    stated = f"{pct(alibi.token_accuracy)} {pct(alibi.seq_accuracy)}"
    if alibi.by_position:
        stated += f" 0 {last} {positions}"
        assert positions in text
        if none is not None and none.by_position:
            stated += " " + " ".join(f"{100 * s:.0f}%" for s in none.by_position)
    if task == "reverse":
        stated += " 2 1"
    assert digit_runs(text) == digit_runs(stated), text
    assert ("2i+1" in text) == (task == "reverse")


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


@pytest.mark.parametrize("kind", ["encoder"])
def test_the_mirror_measurement_is_shown_beside_its_control(kind):
    """On reversal a model that answers right mirrors too: the shipped sinusoidal encoder's answers
    mirror at 100 % like ALiBi's. The measurement offered for "cannot tell left from right" comes
    with that control, measured here again by a loop; the next sentence says why they agree."""
    run = shipped_run(kind)
    view = results_view(run, trainings(run, list(SCHEMES)).where)
    text = view.direction[0]
    _right, control = measured_by_hand(shipped.load_checkpoint(kind, "sinusoidal", device="cpu"), "reverse")
    against = text.claim("ALiBi's mirror agreement against sinusoidal's")
    assert pct(control) in text and pct(against.reference.value) == pct(control), (
        f"the sinusoidal encoder mirrors at {pct(control)} too; the sentence says: {text}")
    assert text.holds() and against.relation == "at most"  # "so does the sinusoidal encoder"
    assert "|L−1−2i|" in view.direction[1]  # why: a right answer mirrors, and what reversal needs besides
