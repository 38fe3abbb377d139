"""The contract of ``pekit.tasks`` (the toy tasks and their seeded examples): its calls with their
hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from pekit import tasks

from .sweep import INTS, SIZES, TASK_NAMES, Cases, among, lazy, raises_naming, sweep, token_ids, token_tensors

CASES = Cases()
register = CASES.register

register(tasks.check_task, {"task": TASK_NAMES}, lambda: {"task": "sort"})
register(tasks.num_classes, {"task": TASK_NAMES, "vocab": SIZES, "seq_len": SIZES},
         lambda: {"task": "histogram", "vocab": 16, "seq_len": 8})
register(tasks.answers, {"task": TASK_NAMES, "inputs": token_tensors(3, 6)},
         lambda: {"task": "histogram", "inputs": token_ids(3, 6)})
GENERATORS = lazy(lambda: [None, "generator", 5, torch.Generator().manual_seed(1), np.random.default_rng(0),
                           torch.manual_seed])
register(tasks.make_examples,
         {"task": TASK_NAMES, "num_examples": SIZES, "seq_len": SIZES, "vocab": SIZES,
          "seed": st.one_of(INTS, among(None)), "generator": GENERATORS},
         lambda: {"task": "sort", "num_examples": 4, "seq_len": 5, "vocab": 8, "seed": 1})
register(tasks.order_blind_ceiling, {"task": TASK_NAMES, "inputs": token_tensors(3, 6)},
         lambda: {"task": "reverse", "inputs": token_ids(3, 6)})
register(tasks.mirror_ceiling, {"task": TASK_NAMES, "inputs": token_tensors(3, 6)},
         lambda: {"task": "shift", "inputs": token_ids(3, 6)})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_task_sizes_given_as_text_are_refused():
    raises_naming(lambda: tasks.num_classes("reverse", "16", 8), "vocab")


def test_histogram_answers_do_not_grow_with_the_square_of_the_steps():
    x = torch.randint(0, 3, (1, 300_000))  # a (batch, steps, steps) comparison would hold 9e10 bools
    y = tasks.answers("histogram", x)
    assert torch.equal(y[0, :5], (x[0, :5, None] == x[0, None, :]).sum(-1))


def test_examples_from_something_that_is_not_a_generator():
    raises_naming(lambda: tasks.make_examples("sort", 2, 4, 8, generator="seed"), "generator")


def test_order_blind_ceiling_of_token_ids_out_of_range():
    # the counts would have had one column per id up to 10**12
    raises_naming(lambda: tasks.order_blind_ceiling("shift", torch.tensor([[10**12, 1, 2]])), "inputs")
    raises_naming(lambda: tasks.order_blind_ceiling("shift", torch.tensor([[-1, 1, 2]])), "inputs")


def test_a_seed_of_none_is_refused_like_any_other_non_number():
    raises_naming(lambda: tasks.make_examples("reverse", 4, 4, 8, seed=None), "seed")
    assert torch.equal(tasks.make_examples("reverse", 4, 4, 8)[0], tasks.make_examples("reverse", 4, 4, 8, seed=0)[0])
