"""The contract of ``pekit.binary`` (binary codes beside the sinusoids): its calls with their
hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from pekit import binary

from .sweep import BOOL, NAME, REALS, SIZES, Cases, T, raises_naming, sweep, tensors

CASES = Cases()
register = CASES.register

register(binary.bit_periods, {"bits": SIZES}, lambda: {"bits": 4})
register(binary.bit_wave, {"num_positions": SIZES, "bit": SIZES}, lambda: {"num_positions": 9, "bit": 1})
register(binary.bit_changes, {"num_positions": SIZES, "bit": SIZES}, lambda: {"num_positions": 40, "bit": 2})
register(binary.binary_strings, {"num_positions": SIZES, "bits": SIZES, "lsb_first": BOOL},
         lambda: {"num_positions": 9, "bits": 3})
register(binary.match_bits_to_pairs, {"bits": SIZES, "dim": SIZES, "base": REALS, "layout": NAME},
         lambda: {"bits": 4, "dim": 8})
register(binary.pairwise_distances, {"X": tensors((5, 3))}, lambda: {"X": T(5, 3)})
register(binary.distinct_positions, {"X": tensors((5, 3)), "tol": REALS}, lambda: {"X": T(5, 3)},
         finite=lambda r: r[:1] + ((r.min_distance,) if r.distinct >= 2 else ()))
register(binary.dial_encoding, {"num_positions": SIZES, "columns": SIZES}, lambda: {"num_positions": 9, "columns": 3})
register(binary.distances_from_first, {"X": tensors((5, 3))}, lambda: {"X": T(5, 3)})
register(binary.compare_codes, {"n": SIZES, "bits": SIZES, "dim": SIZES, "base": REALS},
         lambda: {"n": 9, "bits": 4, "dim": 8})
register(binary.bits_needed, {"num_positions": SIZES}, lambda: {"num_positions": 9})
register(binary.wavelength_growth, {"dim": SIZES, "base": REALS}, lambda: {"dim": 8})
register(binary.overlay_window, {"num_positions": SIZES, "bit": SIZES}, lambda: {"num_positions": 100, "bit": 2})
register(binary.equal_width, {"n": SIZES, "width": SIZES, "base": REALS}, lambda: {"n": 20, "width": 3},
         finite=lambda r: (r.binary.distinct, r.sinusoidal.distinct))

_STATS = binary.compare_codes(9, 4, 8)
BAD_STATS = [None, 3, "stats", (), tuple(_STATS), _STATS._replace(binary_steps=None),
             _STATS._replace(sinusoidal_distances=_STATS.sinusoidal_distances[:1]),
             _STATS._replace(dial_distances=torch.zeros(9, dtype=torch.complex64)),
             _STATS._replace(sinusoidal_steps=torch.zeros(8, device="meta")),
             _STATS._replace(binary_steps=_STATS.binary_steps[None]), _STATS._replace(dial_returns=[0]),
             _STATS._replace(dial_returns=[9]), _STATS._replace(dial_returns="ab"), _STATS._replace(dial_returns=[2.0]),
             _STATS._replace(binary_steps=torch.full((8,), float("nan"), dtype=torch.float64))]
register(binary.code_distances, {"stats": st.sampled_from(BAD_STATS)}, lambda: {"stats": _STATS})
for f in (binary.overlay_values, binary.value_counts):
    register(f, {"num_positions": SIZES, "bit": SIZES, "dim": SIZES, "column": SIZES, "base": REALS},
             lambda: {"num_positions": 40, "bit": 2, "dim": 8, "column": 4})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_complex_tensors_are_refused():
    # casting to a real dtype would drop the imaginary part without a word
    raises_naming(lambda: binary.pairwise_distances(torch.ones(3, 2, dtype=torch.complex64)), "X")


def test_wavelength_growth_too_large_for_a_float():
    raises_naming(lambda: binary.wavelength_growth(1, base=1e200), "base", "dim")


def test_distance_tables_past_a_gibibyte_are_refused_naming_n():
    raises_naming(lambda: binary.compare_codes(1 << 14, 4, 8), "n")
    raises_naming(lambda: binary.equal_width(1 << 14, 4), "n")
    raises_naming(lambda: binary.distinct_positions(torch.zeros(1 << 14, 1)), "X")
