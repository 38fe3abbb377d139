"""Choosing where pekit computes: the automatic choice, the override, refusals, threads."""

import os

import pytest
import torch

import pekit
from pekit.devices import DEVICE_TYPES, cpu_name, default_device, describe_device, limit_threads, resolve_device


def test_default_device_follows_what_the_machine_has(monkeypatch):
    monkeypatch.delenv("PEKIT_DEVICE", raising=False)
    if torch.cuda.is_available():
        assert default_device().type == "cuda"
    elif torch.backends.mps.is_available():
        assert default_device().type == "mps"
    else:
        assert default_device() == torch.device("cpu")
    assert default_device().type in DEVICE_TYPES


def test_device_override_and_errors(monkeypatch):
    monkeypatch.setenv("PEKIT_DEVICE", "cpu")
    assert default_device() == torch.device("cpu")
    assert pekit.sinusoidal_encoding(3, 4).device.type == "cpu"
    with pytest.raises(ValueError, match="device"):
        resolve_device("gpu0")
    for absent in ("xla", "meta", "cpu:3", "vulkan"):
        with pytest.raises(ValueError, match="device"):
            resolve_device(absent)
    monkeypatch.setenv("PEKIT_DEVICE", "xla")
    with pytest.raises(ValueError, match="PEKIT_DEVICE"):
        default_device()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine without CUDA")
def test_cuda_is_refused_where_there_is_none():
    with pytest.raises(ValueError, match="no CUDA"):
        resolve_device("cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_is_described_where_there_is_one():
    assert describe_device("cuda").startswith("CUDA: ")
    with pytest.raises(ValueError, match="CUDA device"):
        resolve_device(f"cuda:{torch.cuda.device_count()}")


def test_describe_device_and_threads():
    assert describe_device("cpu").startswith("CPU: ") and cpu_name()
    before = torch.get_num_threads()
    try:
        assert limit_threads(1) == 1
    finally:
        torch.set_num_threads(before)
    for bad in (0, -1, 2**31 - 1, (os.cpu_count() or 1) + 1, 1.5, "2", True):
        with pytest.raises(ValueError, match="num_threads"):
            limit_threads(bad)
    assert torch.get_num_threads() == before
