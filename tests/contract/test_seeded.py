"""The contract of ``pekit.seeded`` (seeded demo inputs, the same numbers for everyone): its calls
with their hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import seeded

from .sweep import INTS, SIZES, Cases, device_args, sweep

CASES = Cases()
register = CASES.register

register(seeded.seeded_attention, {"num_hiddens": SIZES, "num_heads": SIZES, "seed": INTS, **device_args()},
         lambda: {"num_hiddens": 8, "num_heads": 2})
register(seeded.permutation, {"n": SIZES, "seed": INTS}, lambda: {"n": 6, "seed": 3})
register(seeded.seeded_query_key, {"dim": SIZES, "seed": INTS, **device_args()}, lambda: {"dim": 8, "seed": 3})
register(seeded.book_example, {"seed": INTS}, lambda: {"seed": 0})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)
