"""The contract of ``pekit.rotation`` (offset rotations and rotary position embedding): its calls
with their hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch

import pekit
from pekit import rotation

from .sweep import BOOL, DTYPE, INTS, NAME, REALS, SEQ, SIZES, Cases, T, device_args, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

register(rotation.rotation_angles, {"dim": SIZES, "delta": INTS, "base": REALS}, lambda: {"dim": 8, "delta": 3})
register(rotation.split_turns, {"radians": REALS}, lambda: {"radians": 14.5})
register(rotation.angle_table, {"dim": SIZES, "delta": INTS, "base": REALS}, lambda: {"dim": 8, "delta": 3})
register(rotation.offset_rotation, {"dim": SIZES, "delta": INTS, "base": REALS, "dtype": DTYPE, **device_args()},
         lambda: {"dim": 8, "delta": 3})
register(rotation.rotation_block, {"dim": SIZES, "delta": INTS, "pair": SIZES, "base": REALS},
         lambda: {"dim": 8, "delta": 3, "pair": 1})
register(rotation.rotation_residuals,
         {"num_positions": SIZES, "dim": SIZES, "delta": INTS, "base": REALS, "start": INTS, **device_args()},
         lambda: {"num_positions": 5, "dim": 8, "delta": 3})
register(rotation.offset_dot_product, {"dim": SIZES, "deltas": SEQ, "base": REALS},
         lambda: {"dim": 8, "deltas": [0, 1, 5]})
register(rotation.apply_rope, {"x": tensors((2, 5, 8)), "base": REALS, "start": INTS, "pairing": NAME},
         lambda: {"x": T(2, 5, 8)})
for f in (rotation.rope_scores, rotation.additive_scores):
    register(f, {"q": tensors((8,)), "k": tensors((8,)), "num_positions": SIZES, "base": REALS},
             lambda: {"q": T(8, seed=1), "k": T(8, seed=2), "num_positions": 6})
register(rotation.diagonal_spread, {"S": tensors((5, 5))}, lambda: {"S": T(5, 5)})
register(rotation.map_extent, {"S": tensors((5, 5))}, lambda: {"S": T(5, 5)})
register(rotation.residual_rounding,
         {"num_positions": SIZES, "dim": SIZES, "delta": INTS, "base": REALS, "start": INTS},
         lambda: {"num_positions": 5, "dim": 8, "delta": 3})
register(rotation.residual_summary,
         {"num_positions": SIZES, "dim": SIZES, "delta": INTS, "base": REALS, "start": INTS},
         lambda: {"num_positions": 5, "dim": 8, "delta": 3})
register(rotation.sine_only_fit,
         {"dim": SIZES, "delta": INTS, "base": REALS, "num_positions": SIZES, "rank_tol": REALS},
         lambda: {"dim": 8, "delta": 3, "num_positions": 20})
register(rotation.arrow_turns,
         {"dim": SIZES, "delta": INTS, "pair": SIZES, "base": REALS, "start": INTS, "num_positions": SIZES},
         lambda: {"dim": 8, "delta": 3, "pair": 1, "num_positions": 4})
register(rotation.score_rounding, {"q": tensors((8,)), "k": tensors((8,)), "num_positions": SIZES, "base": REALS},
         lambda: {"q": T(8, seed=1), "k": T(8, seed=2), "num_positions": 6})
register(rotation.point_turns, {"here": tensors((4, 2)), "there": tensors((4, 2)), "degrees": BOOL},
         lambda: {"here": T(4, 2, seed=1), "there": T(4, 2, seed=2)})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_rope_names_the_width_of_x():
    raises_naming(lambda: pekit.apply_rope(torch.zeros(2, 5)), "x")


def test_an_offset_rotation_is_built_in_its_dtype_within_a_gibibyte():
    raises_naming(lambda: pekit.offset_rotation(16384, 3, dtype=torch.float64), "dim")
    assert "1 GiB" in rotation.offset_rotation.__doc__
