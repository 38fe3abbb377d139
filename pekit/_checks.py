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
MAX_BYTES = 1 << 30  # memory of the tables one call allocates at once, intermediates included (1 GiB)


def check_int(name: str, value: object, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.dtype.is_floating_point \
                and value.dtype != torch.bool and not value.is_complex() and not value.is_meta:
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


FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)  # what pekit computes in


def check_float_dtype(dtype: object) -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or dtype not in FLOAT_DTYPES:
        raise ValueError(f"dtype={dtype!r} must be a floating-point torch dtype (torch.float32, torch.float64, "
                         "torch.float16 or torch.bfloat16)")
    return dtype


def check_bool(name: str, value: object) -> bool:
    """``value`` as a bool: ``True``/``False`` (also numpy's) or the whole numbers 0 and 1, never a
    string such as ``"False"``, whose truth would be the opposite of what it says."""
    if type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name}={_short(value)} must be True or False")


def check_str(name: str, value: object, *, optional: bool = False) -> str | None:
    """``value`` as a string (or None where ``optional``), or ``ValueError`` naming ``name``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name}={_short(value)} must be a string{' or None' if optional else ''}")
    return value


def check_range(name: str, value: object) -> tuple[float, float]:
    """Two finite real numbers ``(low, high)`` with ``low < high``, or ``ValueError`` naming ``name``."""
    items = check_sequence(name, value) if not isinstance(value, (str, bytes)) else None
    if items is None or len(items) != 2:
        raise ValueError(f"{name}={_short(value)} must be two numbers (low, high)")
    low, high = (check_float(name, v) for v in items)
    if not low < high:
        raise ValueError(f"{name}=({low!r}, {high!r}) must have low < high")
    return low, high


def check_sequence(name: str, value: object) -> list:
    """The items of a list, tuple, range or 1-D tensor as a list; a string, a mapping, a set or a
    single number raise ``ValueError`` naming ``name``."""
    if isinstance(value, torch.Tensor):
        check_tensor(name, value, dims=1, what="(count,)")
        return value.tolist()
    if isinstance(value, (list, tuple, range)):
        return list(value)
    if callable(getattr(value, "tolist", None)) and getattr(value, "ndim", None) == 1:  # numpy, pandas
        return list(value.tolist())
    raise ValueError(f"{name} must be a list of numbers; got a {type(value).__name__}")


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


def check_memory(sizes: dict[str, int], bytes_each: int, *, limit: int = MAX_BYTES) -> int:
    """The product of ``sizes`` when its tables, ``bytes_each`` bytes per item (the result and
    the intermediate tables together), fit in ``limit`` bytes; else ``ValueError`` naming the
    sizes, the memory and the limit."""
    total = math.prod(sizes.values())
    if total * bytes_each > limit:
        named = " × ".join(f"{k}={v:,}" for k, v in sizes.items())
        raise ValueError(f"{named} needs about {total * bytes_each / 2**30:,.1f} GiB of tables ({bytes_each} bytes "
                         f"each), over the {limit / 2**30:g} GiB pekit allocates at once")
    return total


def check_tensor(name: str, value: object, *, dims: int | tuple[int, ...] | None = None, floating: bool = False,
                 what: str = "") -> torch.Tensor:
    """``value`` as a tensor with the given number of dimensions, or ``ValueError`` naming it."""
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{name} must be a tensor{' of shape ' + what if what else ''}; got a {type(value).__name__}")
    check_data(name, value)
    allowed = (dims,) if isinstance(dims, int) else dims
    if allowed is not None and value.dim() not in allowed:
        raise ValueError(f"{name} must have shape {what or allowed}; got {tuple(value.shape)}")
    if floating and not value.dtype.is_floating_point:
        raise ValueError(f"{name} must hold floating-point numbers; got dtype {value.dtype}")
    return value


def check_data(name: str, value: torch.Tensor) -> torch.Tensor:
    """A tensor pekit can compute with: real numbers (not complex: casting would drop the
    imaginary part) in a dtype pekit computes in, holding data (not on the meta device)."""
    if value.is_meta:
        raise ValueError(f"{name} is on the meta device and holds no numbers")
    if value.is_complex() or (value.dtype.is_floating_point and value.dtype not in FLOAT_DTYPES):
        raise ValueError(f"{name} must hold real numbers in float16, bfloat16, float32, float64, an integer or "
                         f"bool dtype; got dtype {value.dtype}")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
