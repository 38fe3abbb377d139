"""The contract of ``pekit.scaling`` (timing the layers over a sweep of lengths, and the log-log
slopes fitted to the timings and to the counts): its calls with their hostile arguments, and the
breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import pandas as pd

from pekit import scaling

from .sweep import FN, FRAMES, INTS, REALS, SEQ, SIZES, Cases, among, device_args, raises_naming, sweep

CASES = Cases()
register = CASES.register

register(scaling.sweep_multiply_adds, {"ns": SEQ, "d": SIZES, "k": SIZES}, lambda: {"ns": [1, 4, 16], "d": 4})
register(scaling.check_sweep,
         {"ns": SEQ, "d": SIZES, "num_heads": SIZES, "budget_bytes": INTS, "k": SIZES, "max_multiply_adds": INTS},
         lambda: {"ns": [1, 4, 16], "d": 4, "num_heads": 2, "budget_bytes": 1 << 20})
register(scaling.sweep_lengths, {"low": SIZES, "high": SIZES}, lambda: {"low": 2, "high": 64})
register(scaling.measure_layers,
         {"ns": SEQ, "d": SIZES, "k": SIZES, "num_heads": SIZES, "repeats": SIZES, "warmup": SIZES,
          "budget_bytes": INTS, "max_multiply_adds": INTS, "seed": INTS, "progress": FN, **device_args()},
         lambda: {"ns": [2, 4], "d": 4, "num_heads": 2, "repeats": 1, "warmup": 0, "device": "cpu"})
register(scaling.fit_slope,
         {"ns": SEQ, "values": SEQ},
         lambda: {"ns": [1, 2, 4], "values": [1.0, 4.0, 16.0]})


def measured_frame():
    return pd.DataFrame({"n": [2, 4, 8] * 2, "layer": ["CNN"] * 3 + ["RNN"] * 3,
                         "seconds": [1e-5, 2e-5, 4e-5, 1e-5, 3e-5, 9e-5], "weights_bytes": [0] * 6})


# the frames are pekit's own records: only something that is no frame at all is refused
NOT_FRAMES = [f for f in FRAMES if not isinstance(f, pd.DataFrame)]
register(scaling.fitted_slopes, {"measured": among(*NOT_FRAMES)},
         lambda: {"measured": measured_frame()},
         finite=lambda r: r[["from_n", "to_n", "theory", "weights_bytes"]])
register(scaling.whole_attention_slope, {"n": REALS, "d": SIZES}, lambda: {"n": 8.0, "d": 4})
register(scaling.count_slopes, {"ns": SEQ, "d": SIZES, "k": SIZES}, lambda: {"ns": [4, 8, 16], "d": 4})
register(scaling.slope_verdicts,
         {"fitted": among(*NOT_FRAMES),
          "tolerance": REALS, "decimals": SIZES, "expected": among(None, [1.0], {"CNN": "1"}, {"CNN": True})},
         lambda: {"fitted": scaling.fitted_slopes(measured_frame())})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_measure_layers_refuses_a_width_whose_layers_do_not_fit():
    # nn.Conv1d(65536, 65536, 3) alone would hold 1.3e10 weights
    raises_naming(lambda: scaling.measure_layers([2], 2**16, num_heads=1, repeats=1, warmup=0), "d")
