"""The contract of ``pekit.families`` (the families of position schemes compared side by side): its calls with their hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import pytest
import torch
from hypothesis import strategies as st

import pekit
from pekit import families

from .sweep import BOOL, NAME, REALS, SIZES, Cases, T, device_args, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

register(families.shaw_relative_indices,
         {"num_queries": SIZES, "num_keys": SIZES, "max_distance": SIZES, **device_args()},
         lambda: {"num_queries": 5, "num_keys": 6, "max_distance": 2})
register(families.shaw_parameters, {"max_distance": SIZES, "head_dim": SIZES, "layers": SIZES},
         lambda: {"max_distance": 4, "head_dim": 8})
FAMILY_NAMES = st.one_of(NAME, st.sampled_from(list(families.FAMILIES) + ["rotary", "Shaw"]))
register(families.scheme_parameters,
         {"scheme": FAMILY_NAMES, "num_hiddens": SIZES, "num_heads": SIZES, "max_len": SIZES, "num_buckets": SIZES,
          "max_distance": SIZES, "layers": SIZES},
         lambda: {"scheme": "shaw", "num_hiddens": 16, "num_heads": 4})
register(families.scheme_matrix,
         {"scheme": FAMILY_NAMES, "num_positions": SIZES, "num_heads": SIZES, "num_hiddens": SIZES, "base": REALS,
          "causal": BOOL, "num_buckets": SIZES, "t5_max_distance": SIZES, "shaw_max_distance": SIZES,
          "table": tensors((6, 4))},
         lambda: {"scheme": "learned", "num_positions": 5, "num_heads": 2, "num_hiddens": 8, "table": T(6, 4)},
         finite=lambda r: r[torch.isfinite(r)] if isinstance(r, torch.Tensor) else r)
register(families.shaw_pairs, {"num_positions": SIZES, "max_distance": SIZES, "causal": BOOL},
         lambda: {"num_positions": 6, "max_distance": 2, "causal": True}, finite=lambda r: r.used)
register(families.alibi_slope_table, {"num_heads": SIZES}, lambda: {"num_heads": 6})
register(families.t5_bucket_curve, {"max_offset": SIZES, "num_buckets": SIZES, "max_distance": SIZES},
         lambda: {"max_offset": 20})
register(families.beyond_training,
         {"position": SIZES, "train_len": SIZES, "num_hiddens": SIZES, "num_heads": SIZES, "base": REALS,
          "num_buckets": SIZES, "t5_max_distance": SIZES, "shaw_max_distance": SIZES},
         lambda: {"position": 30, "train_len": 12, "num_hiddens": 16, "num_heads": 2})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


@pytest.mark.parametrize("value", [1, 1.5, -1, 10**12])
def test_t5_max_distance_is_named_as_the_caller_gave_it(value):
    for call in (lambda: families.beyond_training(30, 12, num_hiddens=16, num_heads=2, t5_max_distance=value),
                 lambda: families.scheme_matrix("t5", 8, 2, t5_max_distance=value)):
        with pytest.raises(ValueError, match=r"^t5_max_distance="):
            call()


def test_tables_past_a_gibibyte_are_refused_naming_the_callers_sizes():
    raises_naming(lambda: families.scheme_matrix("t5", 1 << 14, 1), "num_positions")
    raises_naming(lambda: families.scheme_matrix("alibi", 8192, 16), "num_positions")
    raises_naming(lambda: families.shaw_relative_indices(1 << 14, 1 << 14, 4), "num_queries")


def test_the_largest_curve_and_offset_are_computed_not_blamed_on_num_keys():
    curve = families.t5_bucket_curve(families.MAX_STEPS // 2)  # one row, not a (M + 1, 2M + 1) table
    assert curve.offsets.shape[0] == families.MAX_STEPS + 1
    small = families.t5_bucket_curve(5)
    ref = pekit.t5_relative_buckets(6, 11)[0]
    assert torch.equal(small.bidirectional, ref)
    assert families.beyond_training(families.MAX_STEPS, 64).t5_bucket == 15  # the last backward bucket
    assert families.beyond_training(300, 64).t5_bucket == int(pekit.t5_relative_buckets(1, 301)[0, 0])
