"""The contract of ``pekit.complexity`` (the cost of CNN, RNN and self-attention layers, counted;
their measurement is ``test_scaling.py``): its calls with their hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import complexity

from .sweep import DTYPE, SEQ, SIZES, Cases, sweep

CASES = Cases()
register = CASES.register

NDK = {"n": SIZES, "d": SIZES, "k": SIZES}
for f in (complexity.complexity_table, complexity.cost_terms, complexity.layer_costs):
    register(f, NDK, lambda: {"n": 10, "d": 4})
register(complexity.crossovers, {"d": SIZES, "k": SIZES}, lambda: {"d": 4})
register(complexity.encoder_layer_parameters, {"width": SIZES}, lambda: {"width": 8})
register(complexity.encoder_layer_multiply_adds, {"width": SIZES, "tokens": SIZES}, lambda: {"width": 8, "tokens": 5})
register(complexity.cost_curves, {"ns": SEQ, "d": SIZES, "k": SIZES}, lambda: {"ns": [1, 4, 16], "d": 4})
register(complexity.cost_curve_lengths, NDK | {"points": SIZES}, lambda: {"n": 10, "d": 4})
register(complexity.architecture_graph, {"n": SIZES, "k": SIZES}, lambda: {"n": 6, "k": 3})
register(complexity.attention_weights_bytes, {"n": SIZES, "num_heads": SIZES, "batch": SIZES, "dtype": DTYPE},
         lambda: {"n": 10, "num_heads": 2})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)

