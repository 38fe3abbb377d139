"""The contract of ``pekit.rope_variants`` (RoPE's pairings and context-extension rules): its calls
with their hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from hypothesis import strategies as st

from pekit import rope_variants

from .sweep import INTS, NAME, REALS, SIZES, Cases, raises_naming, sweep

CASES = Cases()
register = CASES.register

register(rope_variants.rope_pair_permutation, {"dim": SIZES}, lambda: {"dim": 8})
register(rope_variants.rope_pairing_check, {"dim": SIZES, "num_positions": SIZES, "seed": INTS, "base": REALS},
         lambda: {"dim": 8, "num_positions": 5})
SCALING_NAMES = st.one_of(NAME, st.sampled_from(list(rope_variants.SCALINGS) + [None, "NTK", "longrope"]))
ROPE_SCALING = {"dim": SIZES, "base": REALS, "scaling": SCALING_NAMES, "factor": REALS, "original_max_len": INTS,
                "seq_len": st.one_of(INTS, st.none()), "beta_fast": REALS, "beta_slow": REALS}
for f in (rope_variants.rope_scaling, rope_variants.rope_frequencies):
    register(f, ROPE_SCALING, lambda: {"dim": 8, "scaling": "yarn", "factor": 4.0, "original_max_len": 64})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


def test_a_pairing_table_past_a_gibibyte_is_refused_naming_the_callers_size():
    raises_naming(lambda: rope_variants.rope_pairing_check(2, 1 << 14), "num_positions")


def test_yarn_betas_too_small_for_a_float_are_refused():
    raises_naming(lambda: rope_variants.rope_scaling(8, scaling="yarn", factor=4.0, beta_slow=5e-324), "beta_slow")
    raises_naming(lambda: rope_variants.rope_scaling(8, scaling="yarn", factor=4.0, beta_fast=1e-320, beta_slow=1e-321),
                  "beta_fast")
