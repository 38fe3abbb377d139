"""The contract of ``pekit.devices`` (choosing, describing and limiting where pekit computes): its
calls with their hostile arguments, and the breaks found in it, one assertion each.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import pekit
from pekit import devices

from .sweep import INTS, PEKIT_DEVICES, Cases, device_args, pekit_device, raises_naming, sweep

CASES = Cases()
register = CASES.register

register(devices.default_device, {"PEKIT_DEVICE": st.sampled_from(PEKIT_DEVICES)})
register(devices.resolve_device, device_args(), lambda: {"device": "cpu"})
register(devices.describe_device, device_args(), lambda: {"device": "cpu"})
register(devices.cpu_name, {})


def _limit_threads(num_threads):
    before = torch.get_num_threads()
    try:
        return devices.limit_threads(num_threads)
    finally:
        torch.set_num_threads(before)


register(devices.limit_threads, {"num_threads": INTS}, lambda: {"num_threads": 1}, call=_limit_threads)

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


# ---------------------------------------------------------------------------------------------
# The breaks found, one assertion each


def test_more_threads_than_cores_are_refused():
    raises_naming(lambda: pekit.limit_threads(2**31 - 1), "num_threads")


def test_a_device_that_is_not_there():
    raises_naming(lambda: pekit.resolve_device("xla"), "device")


def test_a_pekit_device_variable_that_is_not_there():
    with pekit_device("xla"):
        raises_naming(pekit.default_device, "PEKIT_DEVICE")
