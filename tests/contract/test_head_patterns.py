"""The contract of ``pekit.head_patterns`` (which head shows which attention pattern): its call
with hostile arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch

from pekit import head_patterns

from .sweep import Cases, sweep, tensors

CASES = Cases()


def weights():
    return torch.softmax(torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(0)), dim=-1)


CASES.register(head_patterns.strongest_heads, {"weights": tensors((2, 3, 4, 4))}, lambda: {"weights": weights()})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)
