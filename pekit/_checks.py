"""Argument checks shared by pekit's public functions: each raises ``ValueError`` naming the argument."""

from __future__ import annotations

import math
import numbers

import torch


def check_int(name: str, value: object, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}={value!r} must be a whole number")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={value} must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value} must be <= {maximum}")
    return value


def check_float(
    name: str, value: object, *, positive: bool = False, minimum: float | None = None
) -> float:
    """Return ``value`` as a finite float, or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}={value!r} must be finite")
    if positive and value <= 0:
        raise ValueError(f"{name}={value!r} must be > 0")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={value!r} must be >= {minimum}")
    return value


def check_float_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype={dtype!r} must be a floating-point torch dtype")
    return dtype


def check_probability(name: str, value: object) -> float:
    value = check_float(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name}={value!r} must be between 0 and 1")
    return value
