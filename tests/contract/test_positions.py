"""The contract of ``pekit.positions`` (the position schemes of the tiny transformers: ALiBi, T5
buckets, learned, rotary): its calls with their hostile arguments, and the breaks found in it, one
assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import pytest
import torch
from hypothesis import strategies as st

import pekit
from pekit import positions

from .sweep import (
    BOOL,
    DTYPE,
    INF,
    INTS,
    NAN,
    REALS,
    SCHEME_NAMES,
    SIZES,
    Cases,
    T,
    among,
    device_args,
    raises_naming,
    sweep,
    tensors,
)

CASES = Cases()
register = CASES.register


def _masks_as_zero(bias):
    """A causal bias masks later keys with -inf by design; every other entry must be finite."""
    return None if bias is None else bias.masked_fill(bias == -INF, 0.0)


register(positions.alibi_slopes, {"num_heads": SIZES, "dtype": DTYPE, **device_args()}, lambda: {"num_heads": 6})
register(positions.alibi_bias,
         {"num_queries": SIZES, "num_keys": SIZES, "num_heads": SIZES, "causal": BOOL, "dtype": DTYPE, **device_args()},
         lambda: {"num_queries": 4, "num_keys": 5, "num_heads": 2}, finite=_masks_as_zero)
register(positions.t5_relative_buckets,
         {"num_queries": SIZES, "num_keys": SIZES, "bidirectional": BOOL, "num_buckets": SIZES, "max_distance": INTS,
          **device_args()},
         lambda: {"num_queries": 4, "num_keys": 6, "num_buckets": 8, "max_distance": 16})
SCHEME_ARGS = {"num_hiddens": SIZES, "num_heads": SIZES, "causal": BOOL}


def scheme_base(**extra):
    return lambda: {"num_hiddens": 8, "num_heads": 2, **extra}


for f in (positions.PositionScheme, positions.NoPositions, positions.ALiBiPositions):
    register(f, SCHEME_ARGS, scheme_base(), label=f"{f.__name__}()")
for f in (positions.SinusoidalPositions, positions.RotaryPositions):
    register(f, SCHEME_ARGS | {"base": REALS}, scheme_base(), label=f"{f.__name__}()")
register(positions.LearnedPositions, SCHEME_ARGS | {"max_len": SIZES, "std": REALS}, scheme_base(max_len=6),
         label="LearnedPositions()")
register(positions.T5Positions, SCHEME_ARGS | {"num_buckets": SIZES, "max_distance": INTS},
         scheme_base(num_buckets=8, max_distance=16), label="T5Positions()")
register(positions.position_scheme,
         {"positions": SCHEME_NAMES, "num_hiddens": SIZES, "num_heads": SIZES, "max_len": st.one_of(SIZES, among(None)),
          "causal": BOOL, "learned_std": REALS},
         lambda: {"positions": "learned", "num_hiddens": 8, "num_heads": 2, "max_len": 6})
register(positions.check_scheme, {"positions": SCHEME_NAMES}, lambda: {"positions": "rope"})
register(positions.SinusoidalPositions, {"X": tensors((2, 5, 8))}, lambda: {"X": T(2, 5, 8)},
         call=lambda X: positions.SinusoidalPositions(8, 2).embed(X), label="SinusoidalPositions.embed")
register(positions.LearnedPositions, {"X": tensors((2, 5, 8))}, lambda: {"X": T(2, 5, 8)},
         call=lambda X: positions.LearnedPositions(8, 2, max_len=6).embed(X), label="LearnedPositions.embed")
register(positions.RotaryPositions, {"x": tensors((2, 2, 5, 4))}, lambda: {"x": T(2, 2, 5, 4)},
         call=lambda x: positions.RotaryPositions(8, 2).rotary(x), label="RotaryPositions.rotary")
BIAS_SIZES = {"num_queries": SIZES, "num_keys": SIZES}
for make in (lambda: positions.ALiBiPositions(8, 2, causal=True), lambda: positions.T5Positions(8, 2),
             lambda: positions.LearnedPositions(8, 2, max_len=6)):
    scheme = type(make())
    register(scheme, BIAS_SIZES, lambda: {"num_queries": 4, "num_keys": 5},
             call=lambda make=make, **kw: make().bias(**kw), label=f"{scheme.__name__}.bias", finite=_masks_as_zero)

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_a_causal_flag_given_as_text_is_refused_by_the_schemes():
    # bool("False") is True: ALiBi would mask every later key without a word
    raises_naming(lambda: pekit.alibi_bias(3, 3, 2, causal="False"), "causal")
    raises_naming(lambda: pekit.t5_relative_buckets(3, 3, bidirectional="False"), "bidirectional")
    raises_naming(lambda: positions.ALiBiPositions(8, 2, causal="False"), "causal")


def test_a_base_given_as_text_is_refused_by_the_schemes():
    raises_naming(lambda: positions.SinusoidalPositions(8, 2, base="10000"), "base")
    raises_naming(lambda: positions.RotaryPositions(8, 2, base="abc"), "base")


def test_a_learned_table_of_nan_is_refused():
    raises_naming(lambda: positions.LearnedPositions(8, 2, max_len=4, std=NAN), "std")
    raises_naming(lambda: positions.position_scheme("learned", 8, 2, max_len=4, learned_std=NAN), "learned_std")


def test_score_bias_sizes_that_are_not_numbers():
    raises_naming(lambda: positions.ALiBiPositions(8, 2).bias("4", 4), "num_queries")


def test_t5_distances_without_a_log_bucket_are_refused_when_the_scheme_is_made():
    raises_naming(lambda: positions.T5Positions(8, 2, num_buckets=32, max_distance=4), "max_distance")


def test_a_learned_table_names_the_input_it_has_no_rows_for():
    raises_naming(lambda: positions.LearnedPositions(8, 2, max_len=4).embed(torch.zeros(1, 5, 8)), "X")


@pytest.mark.parametrize("call", [lambda: pekit.t5_relative_buckets(1 << 14, 1 << 14),
                                  lambda: pekit.alibi_bias(1 << 14, 1 << 14, 1)])
def test_query_key_tables_past_a_gibibyte_are_refused(call):
    assert "GiB" in raises_naming(call, "num_queries", "num_keys")
