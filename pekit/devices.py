"""Choosing where pekit computes: CUDA when present, Apple's MPS when present, else the CPU.

Every public pekit function that creates tensors takes ``device=None``; ``None`` means
:func:`default_device`. The environment variable ``PEKIT_DEVICE`` (``cpu``, ``cuda``,
``cuda:1``, ``mps``) overrides the automatic choice, e.g. to compare CPU and GPU numbers.
"""

from __future__ import annotations

import functools
import os
import platform

import torch

from ._checks import check_int

__all__ = ["DEVICE_TYPES", "default_device", "resolve_device", "describe_device", "limit_threads"]

DEVICE_TYPES = ("cpu", "cuda", "mps")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def default_device() -> torch.device:
    """The device pekit uses when a function gets ``device=None``."""
    override = os.environ.get("PEKIT_DEVICE", "").strip()
    if override:
        try:
            return resolve_device(override)
        except ValueError as err:
            raise ValueError(f"PEKIT_DEVICE: {err}") from None
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


def resolve_device(device: str | torch.device | None) -> torch.device:
    """Turn ``None``, a string or a ``torch.device`` into a usable ``torch.device``.

    Raises ``ValueError`` naming the device when it is unknown or not present here.
    """
    if device is None:
        return default_device()
    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device={device!r} must be a device name such as 'cpu' or 'cuda', or a torch.device")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as err:
        raise ValueError(f"device={str(device)[:40]!r} is not a device name (try 'cpu' or 'cuda')") from err
    if dev.type not in DEVICE_TYPES:
        raise ValueError(f"device={str(device)[:40]!r}: pekit computes on {', '.join(DEVICE_TYPES)}, not on {dev.type!r}")
    if dev.type == "cpu" and dev.index not in (None, 0):
        raise ValueError(f"device={device!r}: the CPU has no index {dev.index}")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r}: no CUDA device is available on this machine")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(
            f"device={device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)"
        )
    if dev.type == "mps" and not _mps_available():
        raise ValueError(f"device={device!r}: Apple's MPS backend is not available here")
    return dev


@functools.lru_cache(maxsize=1)
def cpu_name() -> str:
    """The processor's model name, as the operating system reports it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def describe_device(device: str | torch.device | None = None) -> str:
    """A one-line human description, e.g. ``'CUDA: NVIDIA H100 80GB HBM3'``."""
    dev = resolve_device(device)
    if dev.type == "cuda":
        return f"CUDA: {torch.cuda.get_device_name(dev)}"
    if dev.type == "mps":
        return f"Apple MPS ({platform.machine()})"
    threads = torch.get_num_threads()
    return f"CPU: {cpu_name()} ({threads} thread{'' if threads == 1 else 's'})"


def limit_threads(num_threads: int) -> int:
    """Cap torch's intra-op CPU threads (for servers where sessions share few cores).

    Returns the number of threads now in use. Raises ``ValueError`` for ``num_threads < 1``
    or more threads than this machine has cores (the OpenMP runtime cannot start that many).
    """
    cores = os.cpu_count() or 1
    num_threads = check_int("num_threads", num_threads, minimum=1, maximum=cores)
    if torch.get_num_threads() != num_threads:
        torch.set_num_threads(num_threads)
    return torch.get_num_threads()
