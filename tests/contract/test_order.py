"""The contract of ``pekit.order`` (what self-attention does with the order of its inputs, and
masking step by step): its calls with their hostile arguments, and the breaks found in it, one
assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from pekit import attention, order, seeded

from .sweep import BOOL, LENS, NAN, REALS, SIZES, Cases, T, among, lazy, sweep, tensors

CASES = Cases()
register = CASES.register


def model():
    return seeded.seeded_attention(8, 2, seed=1)


MODELS = lazy(lambda: [None, "model", attention.DotProductAttention(0.0), torch.nn.Linear(8, 8),
                       attention.MultiHeadAttention(8, 2, 0.0).double(), attention.MultiHeadAttention(4, 2, 0.0),
                       attention.MultiHeadAttention(8, 2, 0.0, query_size=6)])
PERMS = st.one_of(tensors((5,)), lazy(lambda: [
    [4, 3, 2, 1, 0], torch.tensor([0, 0, 1, 2, 3]), torch.tensor([0, 1, 2, 3, 5]), torch.arange(5).flip(0).double(),
    torch.arange(6), torch.arange(5)[None]]))
register(order.self_attention, {"model": MODELS, "X": tensors((5, 8)), "positional": BOOL, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "positional": True})
register(order.order_check, {"model": MODELS, "X": tensors((5, 8)), "perm": PERMS, "positional": BOOL, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "perm": torch.tensor([4, 0, 3, 1, 2]), "positional": True})
register(order.masking_steps, {"X": tensors((2, 4, 3)), "valid_lens": LENS,
                               "keys": st.one_of(tensors((2, 4, 3)), among(None, T(2, 4, 2), T(2, 4, 3).double(), "k"))},
         lambda: {"X": T(2, 4, 3), "valid_lens": torch.tensor([2, 4]), "keys": T(2, 4, 3, seed=1)},
         finite=lambda r: (r.scores, r.weights, r.lengths, r.masked_weight, r.row_sums))
register(order.causal_lengths, {"batch_lens": LENS, "queries": SIZES},
         lambda: {"batch_lens": [2, 4], "queries": 4})
register(order.positional_effect, {"model": MODELS, "X": tensors((5, 8)), "base": REALS},
         lambda: {"model": model(), "X": T(5, 8)})
register(order.book_masked_softmax, {"X": tensors((2, 3, 4)), "valid_lens": LENS},
         lambda: {"X": T(2, 3, 4), "valid_lens": [0, 3]})
SEQUENCE_LISTS = lazy(lambda: [
    "abc", None, [], (), [T(3, 4), "x"], [T(3, 4), T(2, 5)], [T(3, 4), T(2, 4, dtype=torch.float64)],
    [T(3, 4, dtype=torch.int64)], [T(3, 4, dtype=torch.complex64)], [T(9, 4)], [T(4)], [T(3, 4) * NAN],
    [torch.zeros(3, 4, device="meta")], T(2, 3, 4)])
register(order.padded_batch, {"sequences": SEQUENCE_LISTS, "steps": SIZES},
         lambda: {"sequences": [T(3, 4), T(2, 4, seed=1)], "steps": 5})
register(order.self_attention_weights, {"model": MODELS, "X": tensors((5, 8)), "positional": BOOL, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "positional": True})
register(order.head_effect, {"model": MODELS, "X": tensors((5, 8)), "head": SIZES, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "head": 1})
register(order.query_trace, {"model": MODELS, "X": tensors((5, 8)), "head": SIZES, "query": SIZES, "positional": BOOL,
                             "columns": st.one_of(SIZES, among(None)), "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "head": 1, "query": 4, "positional": True, "columns": 3},
         finite=lambda r: (r.scores, r.weights, r.values, r.output, r.table))
register(order.query_key, {"model": MODELS, "X": st.one_of(tensors((2, 5, 8)), tensors((5, 8)))},
         lambda: {"model": model(), "X": T(2, 5, 8)})
register(order.masking_lab, {"X": tensors((2, 4, 3)), "valid_lens": LENS,
                             "keys": st.one_of(tensors((2, 4, 3)), among(None, T(2, 4, 2), T(2, 4, 3).double(), "k"))},
         lambda: {"X": T(2, 4, 3), "valid_lens": [[0, 1, 2, 2], [4, 4, 4, 4]], "keys": T(2, 4, 3, seed=1)},
         finite=lambda r: (r.steps.scores, r.steps.weights, r.book, r.sequences))

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_the_book_masked_softmax_in_float16():
    X = torch.zeros(1, 2, 3, dtype=torch.float16)  # -1e6 is no float16
    assert order.book_masked_softmax(X, [1])[0, :, 1:].eq(0).all()
