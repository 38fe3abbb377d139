"""Argument checks shared by pekit's public functions: each raises ``ValueError`` naming the argument.

Sizes are bounded before anything is allocated: one table or layer holds at most
:data:`MAX_ELEMENTS` numbers (1 GiB of float32), so a mistyped size is refused with its name
and the limit instead of exhausting memory.
"""

from __future__ import annotations

import math
import numbers

import torch

MAX_ELEMENTS = 1 << 28  # numbers in one tensor pekit allocates (1 GiB of float32)


def check_int(name: str, value: object, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.dtype.is_floating_point \
                and value.dtype != torch.bool:
            value = int(value.item())
        else:
            raise ValueError(f"{name}={_short(value)} must be a whole number")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={value} must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value} must be <= {maximum:,}")
    return value


def check_float(
    name: str, value: object, *, positive: bool = False, minimum: float | None = None, maximum: float | None = None
) -> float:
    """Return ``value`` as a finite float, or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={_short(value)} must be a real number")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large to be a float") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}={value!r} must be finite")
    if positive and value <= 0:
        raise ValueError(f"{name}={value!r} must be > 0")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={value!r} must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value!r} must be <= {maximum}")
    return value


def check_float_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype={dtype!r} must be a floating-point torch dtype (e.g. torch.float32)")
    return dtype


def check_probability(name: str, value: object) -> float:
    value = check_float(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name}={value!r} must be between 0 and 1")
    return value


def check_elements(sizes: dict[str, int], *, limit: int = MAX_ELEMENTS) -> int:
    """The product of ``sizes`` (already checked whole numbers), or ``ValueError`` naming them
    when it is over ``limit``."""
    total = math.prod(sizes.values())
    if total > limit:
        named = " × ".join(f"{k}={v:,}" for k, v in sizes.items())
        raise ValueError(f"{named} asks for {total:,} numbers, over the {limit:,} pekit allocates at once")
    return total


def check_tensor(name: str, value: object, *, dims: int | tuple[int, ...] | None = None, floating: bool = False,
                 what: str = "") -> torch.Tensor:
    """``value`` as a tensor with the given number of dimensions, or ``ValueError`` naming it."""
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{name} must be a tensor{' of shape ' + what if what else ''}; got a {type(value).__name__}")
    allowed = (dims,) if isinstance(dims, int) else dims
    if allowed is not None and value.dim() not in allowed:
        raise ValueError(f"{name} must have shape {what or allowed}; got {tuple(value.shape)}")
    if floating and not value.dtype.is_floating_point:
        raise ValueError(f"{name} must hold floating-point numbers; got dtype {value.dtype}")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
