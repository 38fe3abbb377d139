"""The training page's ALiBi section: the mirror bound by a loop, and the sentences about
direction checked against the numbers measured again here."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab.views.train import results_view, shipped_result, trainings
from lab.views.train_alibi import Direction, _against, _by_position, direction_demo, direction_lesson
from lab.views.train_names import LENGTH, TASK
from pekit import shipped, training
from pekit.positions import SCHEMES
from pekit.tiny import KINDS
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
    if kind == "encoder" and alibi.mirror is not None and bound >= 1.0 and not any(
            p in results for p in ("sinusoidal", "learned", "rope", "t5")):
        assert f"On {task} right answers mirror anyway, so this cannot tell it from a model that sees direction" in text
    positions = " ".join(f"{100 * s:.0f}%" for s in alibi.by_position)
    if kind == "encoder":
        assert "the same penalty for a key two places to the left as for one two places to the right" in text
        assert ("Measured" in text) == (alibi.mirror is not None)
        if alibi.mirror is not None:
            assert f"read backwards mirror its answers at {pct(alibi.mirror)} of the tokens." in text
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


@pytest.mark.parametrize("kind", ["encoder"])
def test_the_mirror_measurement_is_shown_beside_its_control(kind):
    """On reversal a model that answers right mirrors too: the shipped sinusoidal encoder's answers
    mirror at 100 % like ALiBi's. The measurement offered for "cannot tell left from right" comes
    with that control, measured here again by a loop; the next sentence says why they agree."""
    run = shipped_run(kind)
    view = results_view(run, trainings(run, list(SCHEMES)).where)
    text = view.direction[0]
    _right, control = measured_by_hand(shipped.load_checkpoint(kind, "sinusoidal", device="cpu"), "reverse")
    assert f"So does the sinusoidal encoder, which tells left from right ({pct(control)})" in text, (
        f"the sinusoidal encoder mirrors at {pct(control)} too; the sentence says: {text}")
    assert text.holds() and text.claim("ALiBi's mirror agreement against sinusoidal's").relation == "at most"
    assert "That alone does not stand in the way of reverse" in view.direction[1]  # why: a right answer mirrors
