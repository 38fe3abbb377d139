"""The contract of ``pekit.text`` (tokens and their seeded embeddings): its calls with their hostile
arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import text

from .sweep import DTYPE, INTS, SIZES, TEXT, TOKEN_LISTS, Cases, device_args, raises_naming, sweep

CASES = Cases()
register = CASES.register

register(text.tokenize, {"text": TEXT, "max_tokens": SIZES}, lambda: {"text": "The cat sat."})
register(text.token_embeddings, {"tokens": TOKEN_LISTS, "dim": SIZES, "seed": INTS, "dtype": DTYPE, **device_args()},
         lambda: {"tokens": ["the", "cat", "the"], "dim": 8})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_token_embeddings_of_a_string():
    raises_naming(lambda: text.token_embeddings("abc", 8), "tokens")
