"""The contract of ``pekit.encodings`` (the sinusoidal and binary tables, their frequencies and
layouts, PositionalEncoding): its calls with their hostile arguments, and the breaks found in it,
one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch

import pekit
from pekit import encodings

from .sweep import DTYPE, INTS, NAME, PROB, REALS, SEQ, SIZES, Cases, T, device_args, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

TABLE = {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS, "layout": NAME, "dtype": DTYPE,
         **device_args()}
register(encodings.sinusoidal_encoding, TABLE, lambda: {"num_positions": 6, "dim": 8})
register(encodings.sinusoidal_columns, TABLE | {"columns": SEQ},
         lambda: {"num_positions": 6, "dim": 8, "columns": [0, 3, 7]})
register(encodings.binary_encoding, {"num_positions": SIZES, "bits": SIZES, "dtype": DTYPE, **device_args()},
         lambda: {"num_positions": 6, "bits": 3})
for f in (encodings.frequencies, encodings.wavelengths, encodings.frequency_table):
    register(f, {"dim": SIZES, "base": REALS, "layout": NAME}, lambda: {"dim": 8})
register(encodings.compare_layouts, {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS},
         lambda: {"num_positions": 6, "dim": 8})
for f in (encodings.interleaved_to_concatenated, encodings.concatenated_to_interleaved):
    register(f, {"P": tensors((4, 6))}, lambda: {"P": T(4, 6)})
register(encodings.PositionalEncoding,
         {"num_hiddens": SIZES, "dropout": PROB, "max_len": SIZES, "base": REALS, "layout": NAME, **device_args()},
         lambda: {"num_hiddens": 8, "dropout": 0.0, "max_len": 10}, label="PositionalEncoding()")
register(encodings.PositionalEncoding, {"X": tensors((2, 5, 8))},
         lambda: {"X": T(2, 5, 8)}, call=lambda X: encodings.PositionalEncoding(8, 0.0, 10)(X),
         label="PositionalEncoding.forward")

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_binary_encoding_with_a_dtype_name():
    raises_naming(lambda: pekit.binary_encoding(8, dtype="float32"), "dtype")


def test_huge_sinusoidal_table_is_refused_before_allocating():
    raises_naming(lambda: pekit.sinusoidal_encoding(10**12, 8), "num_positions", "dim")


def test_huge_binary_table_is_refused_before_allocating():
    raises_naming(lambda: pekit.binary_encoding(10**8), "num_positions", "bits")


def test_huge_positional_encoding_is_refused_before_allocating():
    raises_naming(lambda: pekit.PositionalEncoding(8, 0.0, max_len=10**9), "max_len", "num_hiddens")


def test_a_base_too_large_for_a_float():
    raises_naming(lambda: pekit.sinusoidal_encoding(4, 8, base=10**400), "base")


def test_positional_encoding_on_integers_is_refused():
    raises_naming(lambda: pekit.PositionalEncoding(8, 0.0)(torch.zeros(1, 4, 8, dtype=torch.int64)), "X")


def test_sinusoidal_columns_of_no_positions():
    assert pekit.sinusoidal_columns(0, 8, [0, 3]).shape == (0, 2)


def test_float8_is_not_a_dtype_pekit_computes_in():
    raises_naming(lambda: pekit.sinusoidal_encoding(4, 8, dtype=torch.float8_e4m3fn), "dtype")


def test_millions_of_columns_are_refused_at_once():
    import time

    t0 = time.perf_counter()
    raises_naming(lambda: pekit.sinusoidal_columns(4, 8, [0] * 3_000_000), "columns")
    assert time.perf_counter() - t0 < 0.5
    raises_naming(lambda: pekit.sinusoidal_columns(4, 8, (0 for _ in range(10**7))), "columns")
    assert pekit.sinusoidal_columns(2, 8, [7] * encodings.MAX_COLUMNS).shape == (2, encodings.MAX_COLUMNS)


def test_a_huge_binary_table_names_num_positions_not_bits():
    message = raises_naming(lambda: pekit.binary_encoding(2**63), "num_positions")
    assert "bits" not in message


def test_positional_encoding_names_num_hiddens_not_dim():
    raises_naming(lambda: pekit.PositionalEncoding(2**24, 0.0, max_len=10), "num_hiddens")
