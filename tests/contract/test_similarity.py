"""The contract of ``pekit.similarity`` (how an encoding's rows resemble one another): its calls
with their hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import similarity

from .sweep import INTS, NAME, REALS, SEQ, SIZES, Cases, T, sweep, tensors

CASES = Cases()
register = CASES.register

register(similarity.gram_block_means, {"P": tensors((6, 4)), "max_blocks": SIZES},
         lambda: {"P": T(6, 4), "max_blocks": 4}, finite=lambda r: r.mean)
register(similarity.similarity_by_offset, {"P": tensors((6, 4)), "max_offset": SIZES, "num_starts": SIZES},
         lambda: {"P": T(6, 4)})
register(similarity.neighbour_distances, {"P": tensors((6, 4))}, lambda: {"P": T(6, 4)})
register(similarity.encoding_properties,
         {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS, "layout": NAME},
         lambda: {"num_positions": 12, "dim": 8, "start": 3})
register(similarity.column_changes, {"P": tensors((6, 4))}, lambda: {"P": T(6, 4)})
TABLE = {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS, "layout": NAME}
register(similarity.sinusoidal_column_changes, TABLE, lambda: {"num_positions": 12, "dim": 5, "start": 1})
register(similarity.step_range, TABLE, lambda: {"num_positions": 12, "dim": 5, "start": 1})
register(similarity.pair_steps, {"num_positions": SIZES, "dim": SIZES, "base": REALS},
         lambda: {"num_positions": 12, "dim": 6})
register(similarity.offset_dots, {"dim": SIZES, "offset": SIZES, "starts": SEQ, "base": REALS},
         lambda: {"dim": 8, "offset": 3, "starts": [0, 5]})
register(similarity.random_direction_overlap, {"width": SIZES}, lambda: {"width": 8})
register(similarity.embedding_overlap,
         {"num_positions": SIZES, "widths": SEQ, "base": REALS, "start": INTS, "layout": NAME, "max_rows": SIZES,
          "embeddings": SIZES, "seed": INTS},
         lambda: {"num_positions": 12, "widths": [1, 2, 8], "start": 1, "max_rows": 5, "embeddings": 16})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)
