"""The contract of ``pekit.tiny`` (the tiny transformers): its calls with their hostile arguments,
and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch

from pekit import tiny

from .sweep import (
    CONFIG_ARGS,
    CONFIGS,
    INTS,
    SIZES,
    Cases,
    device_args,
    lazy,
    raises_naming,
    small_config,
    small_model,
    sweep,
    token_ids,
    token_tensors,
)

CASES = Cases()
register = CASES.register

register(tiny.TinyConfig, CONFIG_ARGS, lambda: small_config("rope", "decoder").to_dict(), label="TinyConfig()")
CONFIG_DICTS = lazy(lambda: [None, "config", [], {}, {"dim": "64"}, {"heads": 0}, {"extra": 1},
                             {**small_config().to_dict(), "positions": "rotary"}, small_config().to_dict(),
                             tuple(small_config().to_dict().items())])
register(tiny.TinyConfig, {"values": CONFIG_DICTS}, lambda: {"values": small_config().to_dict()},
         call=lambda values: tiny.TinyConfig.from_dict(values), label="TinyConfig.from_dict")
register(tiny.TinyTransformer, {"config": CONFIGS}, lambda: {"config": small_config()}, label="TinyTransformer()")
register(tiny.TinyTransformer, {"inputs": token_tensors(3, 4)}, lambda: {"inputs": token_ids(3, 4)},
         call=lambda inputs: small_model("learned")(inputs), label="TinyTransformer.forward")
register(tiny.Block, {"dim": SIZES, "heads": SIZES}, lambda: {"dim": 16, "heads": 2})
register(tiny.build_model, {"config": CONFIGS, "seed": INTS, **device_args()},
         lambda: {"config": small_config(), "seed": 1, "device": "cpu"})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_a_config_of_text_sizes_is_refused_when_made():
    raises_naming(lambda: tiny.TinyConfig(seq_len="8"), "seq_len")
    raises_naming(lambda: tiny.TinyConfig.from_dict({"dim": "64"}), "values", "dim")


def test_a_model_of_something_that_is_not_a_config():
    raises_naming(lambda: tiny.TinyTransformer({"dim": 16}), "config")
    raises_naming(lambda: tiny.Block(10**6, 2), "dim")


def test_a_tiny_model_reads_token_ids_of_any_integer_dtype():
    x = token_ids(2, 4)
    assert torch.equal(small_model()(x.to(torch.uint8)), small_model()(x))
