"""The contract of ``pekit.training`` (training and evaluating the tiny transformers, and what their
runs teach): its calls with their hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import strategies as st

from pekit import tasks, training

from .sweep import (
    BAD_INTS,
    BOOL,
    CONFIG_ARGS,
    FN,
    INTS,
    PROB,
    REALS,
    SEQ,
    SIZES,
    SMALL_MODELS,
    SMALL_TRAINING,
    TASK_NAMES,
    Cases,
    T,
    among,
    device_args,
    lazy,
    raises_naming,
    small_model,
    small_run,
    sweep,
    tensors,
    token_ids,
    token_tensors,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # as the app trains: one thread a session

CASES = Cases()
register = CASES.register

# step caps of a few steps at most: a valid cap of 65 536 steps would train for minutes
STEP_CAPS = st.one_of(st.sampled_from([v for v in BAD_INTS if not (isinstance(v, int) and 40 < v <= training.MAX_STEPS)]),
                      st.integers(-3, 40))
register(training.train_tiny,
         CONFIG_ARGS | {"max_steps": STEP_CAPS, "seed": INTS, "target": st.one_of(PROB, among(None)), "callback": FN,
                        "max_seconds": st.one_of(REALS, among(None)), "batch_size": SIZES, "lr": REALS,
                        "weight_decay": REALS, "test_examples": SIZES, **device_args()},
         lambda: dict(SMALL_TRAINING),
         finite=lambda r: (r.token_accuracy, r.seq_accuracy, r.seconds, [list(row) for row in r.history]))


def run_fields():
    run = small_run()
    return {f.name: getattr(run, f.name) for f in dataclasses.fields(training.TrainResult)}


# a TrainResult is a record train_tiny makes: trusted as it is, so only its valid call is checked
register(training.TrainResult, {}, run_fields, finite=lambda r: (r.token_accuracy, r.seq_accuracy, r.seconds))


def held_out_pairs():
    x, y = tasks.make_examples("reverse", 5, 4, 8, seed=2)
    return [None, "pairs", (x,), (x, y), [x, y], (x.float(), y), (x, y[:, :3]), (x[:, :3], y[:, :3]), (x, "y"),
            (x + 8, y), (x, y, y), (torch.zeros(0, 4, dtype=torch.long),) * 2, (x, y.double())]


register(training.evaluate_tiny,
         {"model": SMALL_MODELS, "task": TASK_NAMES, "seq_len": SIZES, "num_examples": SIZES, "seed": INTS,
          "inputs": lazy(held_out_pairs)},
         lambda: {"model": small_model(), "task": "reverse", "seq_len": 4, "num_examples": 16})
register(training.predict, {"model": SMALL_MODELS, "inputs": token_tensors(3, 4)},
         lambda: {"model": small_model(), "inputs": token_ids(3, 4)})
register(training.extrapolation_lengths, {"seq_len": SIZES, "points": SIZES}, lambda: {"seq_len": 8, "points": 5})
register(training.extrapolation,
         {"model": SMALL_MODELS, "task": TASK_NAMES, "num_examples": SIZES,
          "lengths": st.one_of(SEQ, among(None, [4], [2, 8], [9], [1], list(range(2, 9)), "48", [4.0], [True]))},
         lambda: {"model": small_model("learned"), "task": "reverse", "lengths": [4, 6, 8], "num_examples": 16})
register(training.attention_maps,
         {"model": SMALL_MODELS, "inputs": st.one_of(tensors((4,)), lazy(lambda: [token_ids(4, high=9), token_ids(1),
                                                                               token_ids(12), token_ids(2, 4)]))},
         lambda: {"model": small_model("rope", "decoder"), "inputs": token_ids(4)})
register(training.held_out_example, {"task": TASK_NAMES, "seq_len": SIZES, "vocab": SIZES},
         lambda: {"task": "sort", "seq_len": 6, "vocab": 8})
register(training.compare_attention, {"model": SMALL_MODELS, "seed": INTS}, lambda: {"model": small_model(), "seed": 0})
register(training.held_out_ceiling, {"task": TASK_NAMES, "seq_len": SIZES, "vocab": SIZES, "num_examples": SIZES},
         lambda: {"task": "shift", "seq_len": 6, "vocab": 8, "num_examples": 50})
for f in (training.position_accuracy, training.mirror_agreement):
    register(f, {"model": SMALL_MODELS, "task": TASK_NAMES, "num_examples": SIZES},
             lambda: {"model": small_model("alibi"), "task": "shift", "num_examples": 16})
register(training.held_out_mirror_ceiling, {"task": TASK_NAMES, "seq_len": SIZES, "vocab": SIZES, "num_examples": SIZES},
         lambda: {"task": "shift", "seq_len": 6, "vocab": 8, "num_examples": 50})
register(training.source_positions, {"task": TASK_NAMES, "seq_len": SIZES}, lambda: {"task": "reverse", "seq_len": 6})
for f in (training.source_attention, training.clearest_head):
    register(f, {"weights": tensors((1, 2, 4, 4)), "task": TASK_NAMES, "causal": BOOL},
             lambda: {"weights": torch.softmax(T(1, 2, 4, 4), dim=-1), "task": "shift", "causal": False})


test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_evaluation_names_the_length_a_learned_table_has_no_rows_for():
    raises_naming(lambda: training.evaluate_tiny(small_model("learned"), "reverse", seq_len=5), "seq_len")


def test_evaluation_on_no_examples_is_refused():
    no_examples = (torch.zeros(0, 4, dtype=torch.long),) * 2
    raises_naming(lambda: training.evaluate_tiny(small_model(), "reverse", seq_len=4, inputs=no_examples), "inputs")


def test_extrapolation_of_a_learned_table_does_not_swallow_a_bad_task():
    # every ValueError of a learned model used to become a row saying it had no positions
    raises_naming(lambda: training.extrapolation(small_model("learned"), "copy"), "task")
    raises_naming(lambda: training.extrapolation(small_model(), "reverse", "48"), "lengths")


def test_extrapolation_lengths_with_one_point():
    raises_naming(lambda: training.extrapolation_lengths(8, points=1), "points")  # was a division by zero
    raises_naming(lambda: training.extrapolation_lengths(8, points=10**12), "points")  # was a loop of 10**12


def test_source_positions_of_an_unknown_task():
    raises_naming(lambda: training.source_positions("copy", 4), "task")  # was None: "copies no fixed position"
    raises_naming(lambda: training.source_positions("reverse", 10**12), "seq_len")


def test_clearest_head_of_no_heads():
    raises_naming(lambda: training.clearest_head(torch.zeros(0, 2, 4, 4), "reverse", causal=False), "weights")



def test_training_with_a_learning_rate_too_large_for_float32():
    raises_naming(lambda: training.train_tiny(**(SMALL_TRAINING | {"lr": 1e300})), "lr")


def test_evaluation_of_none_seed_is_refused():
    raises_naming(lambda: training.evaluate_tiny(small_model(), "reverse", seq_len=4, seed=None), "seed")


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_the_largest_models_evaluation_keeps_its_attention_weights_within_64_mib(monkeypatch, kind):
    """Every layer keeps its (batch, heads, T, T) weights after a forward: the largest decoder
    (4 layers, 8 heads, read at twice its 64 tokens, so T = 256) evaluated 1,024 examples at once
    held 8 GiB of them (17.7 GiB at its peak, measured). Each chunk now holds at most 2**24 numbers
    (64 MiB of float32); the weights are recorded, not computed (the model is not run)."""
    from pekit.tiny import TinyConfig, build_model

    config = TinyConfig(task="reverse", positions="rope", kind=kind, seq_len=64, vocab=64, dim=256, layers=4,
                        heads=8)
    model = build_model(config, seed=0)
    seen = []
    monkeypatch.setattr(training, "predict",
                        lambda model, x: seen.append(x.shape[0]) or torch.zeros_like(x))
    training.evaluate_tiny(model, "reverse", seq_len=128, num_examples=300)
    tokens = 128 * (2 if kind == "decoder" else 1)
    assert sum(seen) == 300
    assert max(seen) * config.layers * config.heads * tokens ** 2 <= 1 << 24


def test_evaluation_goes_through_the_model_in_chunks(monkeypatch):
    """The largest accepted evaluation never runs every example through the model at once."""
    seen = []
    real = training.predict
    monkeypatch.setattr(training, "predict", lambda model, x: seen.append(x.shape[0]) or real(model, x))
    model = small_model()
    tok, seq = training.evaluate_tiny(model, "reverse", seq_len=4, num_examples=3000)
    assert max(seen) <= training.EVAL_CHUNK and sum(seen) == 3000
    x, y = tasks.make_examples("reverse", 3000, 4, 8, seed=training.TEST_SEED)
    right = real(model, x) == y
    assert (tok, seq) == (float(right.float().mean()), float(right.all(-1).float().mean()))
