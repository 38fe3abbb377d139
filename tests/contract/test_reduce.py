"""The contract of ``pekit.reduce`` (block summaries of matrices too large to draw cell by cell):
its calls with their hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import reduce

from .sweep import BOOL, SIZES, Cases, T, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

register(reduce.block_summary, {"X": tensors((6, 5)), "max_rows": SIZES, "max_cols": SIZES, "extremes": BOOL},
         lambda: {"X": T(6, 5), "max_rows": 4, "max_cols": 2})
register(reduce.block_edges, {"length": SIZES, "max_blocks": SIZES}, lambda: {"length": 10, "max_blocks": 4})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_block_edges_refuse_more_blocks_than_pekit_allocates():
    raises_naming(lambda: reduce.block_edges(10**12, 10**12), "length", "max_blocks")
