"""The contract of ``pekit.timing`` (timing calls on a device): its calls with their hostile
arguments.

The harness (the hostile values, the check of one call, the property each call keeps) is
``sweep.py`` beside this file."""

from __future__ import annotations

from pekit import timing

from .sweep import FN, SIZES, Cases, among, device_args, sweep

CASES = Cases()
register = CASES.register

register(timing.synchronizer, device_args(), lambda: {"device": "cpu"})
TIMED = {"fn": FN, "repeats": SIZES, "warmup": SIZES, **device_args()}
for f in (timing.time_calls, timing.median_seconds):
    register(f, TIMED, lambda: {"fn": lambda: None, "repeats": 2, "warmup": 0, "device": "cpu"})
register(timing.interleaved_medians,
         {"fns": among(None, "fn", [print], {"a": 5}, {}, {1: print}, print), "repeats": SIZES, "warmup": SIZES,
          **device_args()},
         lambda: {"fns": {"a": lambda: None, "b": lambda: None}, "repeats": 2, "warmup": 0, "device": "cpu"})

test_the_valid_call_works, test_hostile_calls_keep_the_contract = sweep(CASES)


def _lazy():
    yield from range(10**6)


async def _later():
    return 1


def test_a_function_whose_work_has_not_run_is_refused():
    """A generator or a coroutine returns at once and would be timed as if its work were done."""
    from .sweep import raises_naming

    for fn in (_lazy, _later):
        raises_naming(lambda: timing.time_calls(fn, repeats=1, warmup=0), "fn")
        raises_naming(lambda: timing.interleaved_medians({"a": fn}, repeats=1, warmup=0), "fns")
