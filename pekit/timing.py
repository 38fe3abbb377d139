"""Timing torch work honestly: warm up, synchronize around CUDA work, report medians.

References
- nanoGPT's ``bench.py``: burn in, then time with ``torch.cuda.synchronize()`` around the
  timed part, so the clock measures the work and not its launch.

Used by the complexity measurements and by the benchmarks, so both time the same way.
"""

from __future__ import annotations

import inspect
import statistics
import time
from collections.abc import Callable

import torch

from ._checks import check_int
from .devices import resolve_device

__all__ = ["time_calls", "median_seconds", "interleaved_medians"]


def synchronizer(device: str | torch.device | None = None) -> Callable[[], None]:
    """A function that waits for the device's queued work (nothing to wait for on a CPU)."""
    dev = resolve_device(device)
    if dev.type == "cuda":
        return lambda: torch.cuda.synchronize(dev)
    if dev.type == "mps":
        return torch.mps.synchronize
    return lambda: None


def _call(fn: Callable[[], object], name: str) -> None:
    """Call ``fn``; a result that does its work later (a generator, a coroutine, an awaitable)
    would be timed as if it were done, so it raises ``ValueError`` naming ``name``."""
    result = fn()
    if inspect.isgenerator(result) or inspect.isawaitable(result):
        if inspect.iscoroutine(result):
            result.close()  # never awaited: close it quietly
        raise ValueError(f"{name} returned a {type(result).__name__}, whose work has not run yet: pekit times calls "
                         "that do their work when called (call list(...) or run the coroutine inside fn)")


def time_calls(fn: Callable[[], object], *, repeats: int = 3, warmup: int = 1,
               device: str | torch.device | None = None) -> list[float]:
    """Seconds of each of ``repeats`` calls of ``fn`` after ``warmup`` untimed calls, each timed
    call ended by a device synchronize."""
    repeats = check_int("repeats", repeats, minimum=1, maximum=10_000)
    warmup = check_int("warmup", warmup, minimum=0, maximum=10_000)
    if not callable(fn):
        raise ValueError(f"fn must be callable; got a {type(fn).__name__}")
    sync = synchronizer(device)
    for _ in range(warmup):
        _call(fn, "fn")
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _call(fn, "fn")
        sync()
        times.append(time.perf_counter() - t0)
    return times


def median_seconds(fn: Callable[[], object], *, repeats: int = 15, warmup: int = 3,
                   device: str | torch.device | None = None) -> float:
    """The median of :func:`time_calls`."""
    return statistics.median(time_calls(fn, repeats=repeats, warmup=warmup, device=device))


def interleaved_medians(fns: dict[str, Callable[[], object]], *, repeats: int = 21, warmup: int = 3,
                        device: str | torch.device | None = None) -> dict[str, float]:
    """Median seconds of each function, timed in alternation (a, b, a, b, ...) so that all see
    the same machine state: on shared cores, timing one after the other is unfair."""
    repeats = check_int("repeats", repeats, minimum=1, maximum=10_000)
    warmup = check_int("warmup", warmup, minimum=0, maximum=10_000)
    if not isinstance(fns, dict) or not all(callable(f) for f in fns.values()):
        raise ValueError("fns must map names to callables")
    sync = synchronizer(device)
    for _ in range(warmup):
        for fn in fns.values():
            _call(fn, "fns")
    sync()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            _call(fn, "fns")
            sync()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(v) for name, v in times.items()}
