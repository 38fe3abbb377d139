"""The contract of ``pekit.rollout`` (attention rollout): its call with hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch

from pekit import rollout

from .sweep import PROB, REALS, Cases, sweep, tensors

CASES = Cases()


def weights():
    return torch.softmax(torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(0)), dim=-1)


CASES.register(rollout.attention_rollout, {"attentions": tensors((2, 3, 4, 4)), "residual": PROB | REALS},
               lambda: {"attentions": weights()})
CASES.register(rollout.ranked_shares, {"row": tensors((5,))}, lambda: {"row": weights()[0, 0, -1]})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)
