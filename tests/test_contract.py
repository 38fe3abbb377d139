"""The package's contract: the design's names at the top level, and every public callable keeping
``ValueError``-naming-the-argument on hostile input.

References
- The design's "public API of pekit (the contract)": the names below are fixed there, and every
  function "raises ``ValueError`` with a message naming the bad argument for invalid input (never
  a bare torch error, never a silent wrong answer)".
- Hypothesis (property-based testing): each public callable is called with a valid set of
  arguments in which one or two are replaced by what a hostile caller would pass (wrong ranks and
  dtypes, empty tensors, huge and malformed sizes, missing devices, ``valid_lens`` in every wrong
  form, unknown layout or palette names, NaN and inf).

The property, for every call: it returns, or raises ``ValueError`` whose message names one of the
replaced arguments; no other exception escapes. A complex tensor is always refused (pekit is
real-valued; casting would drop the imaginary part silently). When every input is finite, what
comes back is finite too (NaN or inf in an input may come out as NaN or inf). Every callable in
the ``__all__`` of pekit and of its modules must have its hostile calls registered here, so a
new function cannot join an ``__all__`` without them.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import importlib
import io
import math
import os
import re
import shutil
import tempfile
import typing
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pekit
from pekit import attention, binary, charts, complexity, devices, encodings, order, reduce, rotation, seeded
from pekit import families, positions, pretrained, shipped, similarity, tasks, text, timing, tiny, training

# ---------------------------------------------------------------------------------------------
# The contract: the design's names, reachable as pekit.<name> and listed in pekit.__all__

CONTRACT = [
    "sinusoidal_encoding",
    "PositionalEncoding",
    "masked_softmax",
    "DotProductAttention",
    "MultiHeadAttention",
    "binary_encoding",
    "offset_rotation",
    "apply_rope",
    "complexity_table",
]
# The design's contract additions (position schemes, trained and pretrained models). They are
# checked as they arrive: each one that pekit defines must be reachable and listed like the rest.
CONTRACT_ADDITIONS = [
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_buckets",
    "rope_frequencies",
    "train_tiny",
    "evaluate_tiny",
    "pretrained_attention",
    "pretrained_position_table",
]


@pytest.mark.parametrize("name", CONTRACT)
def test_contract_name_is_public(name):
    assert callable(getattr(pekit, name, None)), f"pekit.{name} is missing"
    assert name in pekit.__all__


PACKAGE = Path(pekit.__file__).parent


def defined_in_pekit(name: str) -> bool:
    """Whether a module of the package defines ``name`` at its top level (read from the source,
    so that no module is imported for the question)."""
    pattern = re.compile(rf"^(def|class) {re.escape(name)}\b", re.MULTILINE)
    return any(pattern.search(path.read_text(encoding="utf-8")) for path in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("name", CONTRACT_ADDITIONS)
def test_contract_addition_is_public_once_it_exists(name):
    if not defined_in_pekit(name) and not hasattr(pekit, name):
        pytest.skip(f"{name} is not part of pekit yet")
    assert callable(getattr(pekit, name, None)), f"{name} exists in a module but not as pekit.{name}"
    assert name in pekit.__all__


def test_every_module_is_swept():
    """A new module of pekit joins the sweep below (its callables need hostile calls too)."""
    modules = {f"pekit.{p.stem}" for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    modules |= {f"pekit.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert modules == set(SWEPT_MODULES) - {"pekit"}, f"modules outside the sweep: {modules - set(SWEPT_MODULES)}"


def test_all_lists_only_what_exists():
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(module_name)
        assert len(set(module.__all__)) == len(module.__all__), f"{module_name}.__all__ repeats a name"
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert not missing, f"{module_name}.__all__ lists names it does not define: {missing}"


# ---------------------------------------------------------------------------------------------
# Hostile values

COMPUTATION_MODULES = ["pekit"] + [f"pekit.{m}" for m in (
    "attention", "encodings", "rotation", "binary", "complexity", "similarity", "reduce", "text", "order",
    "seeded", "timing", "devices", "positions", "tasks", "tiny", "training", "shipped", "pretrained", "families")]
SWEPT_MODULES = COMPUTATION_MODULES + ["pekit.charts"]

NAN, INF = float("nan"), float("inf")

# whole numbers: malformed, negative, far too large, and big but plausible
BAD_INTS = [10**12, 2**63, 2**31 - 1, 10**9, 2**16, -1, -(2**63), 0, 1.5, 8.0, "8", b"8", None, NAN, INF, -INF,
            10**400, -(10**400), True, False, 8 + 0j, [8], (8,), {8: 8}, torch.tensor(3.5), torch.tensor([2, 3]),
            torch.tensor(3), np.int64(3), np.float64(3.0)]
# real numbers (base, tolerances, radians)
BAD_REALS = [0, 0.0, -1.0, -0.0, NAN, INF, -INF, 10**400, -(10**400), "10000", None, 1e-300, 1e-7, 1e300, 1e308,
             2.0**1000, True, 1 + 1j, [1.0], torch.tensor(2.0), torch.tensor([1.0, 2.0]), np.float32(3.0)]
PROBABILITIES = [-0.1, 1.5, 1.0, 0.0, 0.5, NAN, INF, "0.1", None, True, 10**400, torch.tensor(0.2), [0.1]]
DTYPES = ["float32", torch.int64, torch.int32, torch.uint8, torch.bool, torch.complex64, torch.float16,
          torch.bfloat16, torch.float64, None, float, int, 5, np.float32, torch.float8_e4m3fn]
DEVICES = ["xla", "cuda:7", 3, "meta", torch.device("meta"), "cuda", "mps", "cpu:1", "", "CPU", "cuda:-1", "ipu",
           "cpu", "cpu:0", torch.device("cpu"), None, b"cpu", ["cpu"], "cpu, cuda", "\x00", 1.5]
PEKIT_DEVICES = ["xla", "cuda:7", "meta", "mps", "cpu:1", "garbage", "cuda", "cpu"]
BOOLS = [True, False, 0, 1, 2, "yes", "False", "", None, 0.5, NAN, [True], torch.tensor([True, False]),
         np.bool_(True)]
NAMES = ["", "INTERLEAVED", "interleaved ", "halves\x00", "tensor2tensor2", "🙂", 3, None, b"adjacent", ["halves"],
         "diverging", "sequential", "adjacent", "halves", "interleaved", "tensor2tensor", "symmetric"]
TEXTS = ["", "x" * 300, None, 3, b"bytes", ["a"], "🙂\x00<script>", float("nan")]
SEQUENCES = ["abc", "", 5, None, {"a": 1}, {1, 2}, [], [0], [-1], [1.5], [10**12], [2**63], [NAN], ["3"], [None],
             [2, "3"], range(1, 4), (2, 3), [[1, 2]], torch.tensor([2, 3]), torch.tensor([[2, 3]]),
             torch.tensor([2.5]), torch.tensor([1 + 1j]), b"ab", np.array([2, 3])]
VALID_LENS = ["abc", "", b"ab", {"a": 1}, {1, 2}, [2.0000001, 3.0], [2.5, 1.0], [10**30, 1], [2**63, 1],
              [10**400, 1], [-1, 2], [1, 2, 3], [[1]], [], 3, 2.0, [NAN, 1], [INF, 1], [None, 1], ["1", "2"],
              [True, False], torch.tensor([1.5, 2.0]), torch.tensor([True, False]), torch.tensor([1 + 0j, 2]),
              torch.tensor([[1, 2, 3]]), torch.zeros(0), torch.tensor([-1, 2]), torch.tensor([2**62, 1]),
              torch.tensor([NAN, 1.0]), torch.ones(2, 3, 4), torch.tensor(2), np.array([1, 2]), [0, 0], [100, 1],
              torch.tensor([0, 1], device="meta"), None]
CALLABLES = [None, 5, "fn", [print], {"a": 1}]
FRAMES = ["abc", None, 5, {"n": [1, 2]}, [[1, 2]], pd.DataFrame(), pd.DataFrame({"other": [1, 2]}),
          torch.zeros(2, 2)]

DTYPES_OF_TENSORS = [torch.float32, torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                     torch.int32, torch.uint8, torch.bool, torch.complex64, torch.float8_e4m3fn]
FILLS = ["normal", "big", "zeros", "nan", "inf", "-inf"]
NOT_TENSORS = ["abc", None, 3.0, [[1.0, 2.0], [3.0, 4.0]], np.ones((2, 3), dtype=np.float32), {"a": 1}]


def make_tensor(shape: tuple[int, ...], dtype: torch.dtype = torch.float32, fill: str = "normal", seed: int = 0,
                device: str = "cpu") -> torch.Tensor:
    """A tensor of ``shape`` and ``dtype``: standard normal (``big``: uniform in ±1e4; ``nan``,
    ``inf``, ``-inf``: one such entry among normal ones); small whole numbers for integer and
    bool dtypes."""
    g = torch.Generator().manual_seed(seed)
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if not dtype.is_floating_point and not dtype.is_complex:
        return torch.randint(0, 5, shape, generator=g).to(dtype)
    if fill == "big" and dtype in (torch.float32, torch.float64):
        x = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * 1e4
    elif fill == "zeros":
        x = torch.zeros(shape, dtype=torch.float64)
    else:
        x = torch.randn(shape, generator=g, dtype=torch.float64)
    if fill in ("nan", "inf", "-inf") and x.numel():
        x.view(-1)[0] = float(fill)
    return x.to(dtype)


@st.composite
def tensors(draw, shape: tuple[int, ...], *, not_tensors: bool = True) -> object:
    """Hostile variants of a tensor of ``shape``: one size changed (to 0, 1 or one more), a rank
    more or less, random small shapes, every dtype, NaN and inf, the meta device, tensors that
    require grad or are not contiguous, non-tensors."""
    kind = draw(st.sampled_from(["same", "size", "rank", "random", "meta", "grad", "strided"]
                                + (["other"] if not_tensors else [])))
    if kind == "other":
        return draw(st.sampled_from(NOT_TENSORS))
    new = list(shape)
    if kind == "size" and new:
        i = draw(st.integers(0, len(new) - 1))
        new[i] = draw(st.sampled_from([0, 1, new[i] + 1, new[i] * 2 + 1]))
    elif kind == "rank":
        new = new[:-1] if draw(st.booleans()) and new else new + [draw(st.integers(1, 3))]
    elif kind == "random":
        new = draw(st.lists(st.integers(0, 5), max_size=4))
    dtype = draw(st.sampled_from(DTYPES_OF_TENSORS))
    fill = draw(st.sampled_from(FILLS))
    x = make_tensor(tuple(new), dtype, fill, seed=draw(st.integers(0, 3)), device="meta" if kind == "meta" else "cpu")
    if kind == "grad" and x.dtype.is_floating_point:
        return x.requires_grad_()
    if kind == "strided" and x.dim() >= 2:  # same shape and values, columns not adjacent in memory
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


def among(*values: object) -> st.SearchStrategy:
    return st.sampled_from(list(values))


def lazy(make: Callable[[], list]) -> st.SearchStrategy:
    """``sampled_from(make())``, made when first drawn: importing this module computes nothing
    (torch work at import would settle the main thread's thread count before the app tests run)."""
    return st.deferred(lambda: st.sampled_from(make()))


INTS = st.one_of(st.sampled_from(BAD_INTS), st.integers(-(2**70), 2**70))
REALS = st.one_of(st.sampled_from(BAD_REALS), st.floats(allow_nan=True, allow_infinity=True))
SIZES = st.one_of(st.sampled_from(BAD_INTS), st.integers(-3, 40))
PROB = st.one_of(st.sampled_from(PROBABILITIES), st.floats(-2, 2))
DTYPE = st.sampled_from(DTYPES)
DEVICE = st.sampled_from(DEVICES)
BOOL = st.sampled_from(BOOLS)
NAME = st.sampled_from(NAMES)
TEXT = st.sampled_from(TEXTS)
SEQ = st.sampled_from(SEQUENCES)
LENS = st.sampled_from(VALID_LENS)
FN = st.sampled_from(CALLABLES)


# ---------------------------------------------------------------------------------------------
# The registry: for each public callable, a valid call and the hostile values of its arguments


@dataclass
class Case:
    """``call(**base())`` is a valid call; ``hostile[name]`` draws bad values for argument ``name``
    (``PEKIT_DEVICE`` stands for the environment variable, with ``device=None``);
    ``finite``: what of the result must be finite for finite input (default: all of it)."""

    target: object
    call: Callable[..., object]
    base: Callable[[], dict]
    hostile: dict[str, st.SearchStrategy]
    label: str = ""
    finite: Callable[[object], object] | None = None


CASES: list[Case] = []


def register(target, hostile, base=dict, *, call=None, label="", finite=None):
    CASES.append(Case(target, call or target, base, hostile, label or getattr(target, "__name__", str(target)),
                      finite))


def T(*shape, dtype=torch.float32, seed=0):
    return make_tensor(shape, dtype, seed=seed)


def device_args(**extra):
    """Hostile values for a ``device`` argument, and for the ``PEKIT_DEVICE`` variable."""
    return {"device": DEVICE, "PEKIT_DEVICE": st.sampled_from(PEKIT_DEVICES), **extra}


# --- devices
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

# --- encodings
TABLE = {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS, "layout": NAME, "dtype": DTYPE,
         **device_args()}
register(encodings.sinusoidal_encoding, TABLE, lambda: {"num_positions": 6, "dim": 8})
register(encodings.sinusoidal_columns, TABLE | {"columns": SEQ},
         lambda: {"num_positions": 6, "dim": 8, "columns": [0, 3, 7]})
register(encodings.binary_encoding, {"num_positions": SIZES, "bits": SIZES, "dtype": DTYPE, **device_args()},
         lambda: {"num_positions": 6, "bits": 3})
for f in (encodings.frequencies, encodings.wavelengths, encodings.frequency_table):
    register(f, {"dim": SIZES, "base": REALS, "layout": NAME}, lambda: {"dim": 8})
register(encodings.compare_layouts, {"num_positions": SIZES, "dim": SIZES, "base": REALS, "start": INTS},
         lambda: {"num_positions": 6, "dim": 8})
for f in (encodings.interleaved_to_concatenated, encodings.concatenated_to_interleaved):
    register(f, {"P": tensors((4, 6))}, lambda: {"P": T(4, 6)})
register(encodings.PositionalEncoding,
         {"num_hiddens": SIZES, "dropout": PROB, "max_len": SIZES, "base": REALS, "layout": NAME, **device_args()},
         lambda: {"num_hiddens": 8, "dropout": 0.0, "max_len": 10}, label="PositionalEncoding()")
register(encodings.PositionalEncoding, {"X": tensors((2, 5, 8))},
         lambda: {"X": T(2, 5, 8)}, call=lambda X: encodings.PositionalEncoding(8, 0.0, 10)(X),
         label="PositionalEncoding.forward")

# --- attention
QKV = {"queries": tensors((2, 3, 8)), "keys": tensors((2, 4, 8)), "values": tensors((2, 4, 8))}


def qkv():
    return {"queries": T(2, 3, 8, seed=1), "keys": T(2, 4, 8, seed=2), "values": T(2, 4, 8, seed=3)}


register(attention.masked_softmax, {"X": tensors((2, 3, 4)), "valid_lens": LENS, "causal": BOOL},
         lambda: {"X": T(2, 3, 4), "valid_lens": torch.tensor([2, 4])})
register(attention.attention_scores, {"queries": QKV["queries"], "keys": QKV["keys"]},
         lambda: {"queries": T(2, 3, 8, seed=1), "keys": T(2, 4, 8, seed=2)})
register(attention.dot_product_attention,
         QKV | {"valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 3, 4)), "dropout": PROB,
                "training": BOOL},
         lambda: qkv() | {"valid_lens": [1, 4], "score_bias": T(3, 4)})
register(attention.DotProductAttention, {"dropout": PROB}, lambda: {"dropout": 0.1}, label="DotProductAttention()")
register(attention.DotProductAttention, QKV | {"valid_lens": LENS},
         lambda: qkv() | {"valid_lens": [1, 4]},
         call=lambda **kw: attention.DotProductAttention(0.0)(**kw), label="DotProductAttention.forward")
register(attention.transpose_qkv, {"X": tensors((2, 3, 8)), "num_heads": SIZES},
         lambda: {"X": T(2, 3, 8), "num_heads": 2})
register(attention.transpose_output, {"X": tensors((4, 3, 4)), "num_heads": SIZES},
         lambda: {"X": T(4, 3, 4), "num_heads": 2})


def weights():
    return {f"W_{n}": T(8, 8, seed=10 + i) * 0.3 for i, n in enumerate("qkvo")}


BIASES = lazy(lambda: [5, "abc", (None,) * 3, (None,) * 5, [None] * 4, (T(7), None, None, None),
                       (T(8, dtype=torch.int64), None, None, None), (T(8, dtype=torch.float64), None, None, None),
                       (T(8) * NAN, None, None, None), (torch.zeros(8, device="meta"), None, None, None), None])
ROTARY = among(None, 5, "rope", lambda x: x, lambda x: x[..., :-1], lambda x: "rotated",
               lambda x: pekit.apply_rope(x))
register(attention.multi_head_attention,
         QKV | {f"W_{n}": tensors((8, 8)) for n in "qkvo"} | {
             "num_heads": SIZES, "biases": BIASES, "valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 2, 3, 4)),
             "rotary": ROTARY, "dropout": PROB, "training": BOOL, "need_weights": BOOL},
         lambda: qkv() | weights() | {"num_heads": 2, "valid_lens": [1, 4]})
register(attention.MultiHeadAttention,
         {"num_hiddens": SIZES, "num_heads": SIZES, "dropout": PROB, "bias": BOOL, "query_size": SIZES,
          "key_size": SIZES, "value_size": SIZES},
         lambda: {"num_hiddens": 8, "num_heads": 2, "dropout": 0.0}, label="MultiHeadAttention()")


def _mha_forward(**kw):
    torch.manual_seed(0)
    return attention.MultiHeadAttention(8, 2, 0.0, bias=True).eval()(**kw)


register(attention.MultiHeadAttention,
         QKV | {"valid_lens": LENS, "causal": BOOL, "score_bias": tensors((2, 2, 3, 4)), "rotary": ROTARY},
         lambda: qkv() | {"valid_lens": [1, 4]}, call=_mha_forward, label="MultiHeadAttention.forward")

# --- rotation
register(rotation.rotation_angles, {"dim": SIZES, "delta": INTS, "base": REALS}, lambda: {"dim": 8, "delta": 3})
register(rotation.split_turns, {"radians": REALS}, lambda: {"radians": 14.5})
register(rotation.angle_table, {"dim": SIZES, "delta": INTS, "base": REALS}, lambda: {"dim": 8, "delta": 3})
register(rotation.offset_rotation, {"dim": SIZES, "delta": INTS, "base": REALS, "dtype": DTYPE, **device_args()},
         lambda: {"dim": 8, "delta": 3})
register(rotation.rotation_block, {"dim": SIZES, "delta": INTS, "pair": SIZES, "base": REALS},
         lambda: {"dim": 8, "delta": 3, "pair": 1})
register(rotation.rotation_residuals,
         {"num_positions": SIZES, "dim": SIZES, "delta": INTS, "base": REALS, "start": INTS, **device_args()},
         lambda: {"num_positions": 5, "dim": 8, "delta": 3})
register(rotation.offset_dot_product, {"dim": SIZES, "deltas": SEQ, "base": REALS},
         lambda: {"dim": 8, "deltas": [0, 1, 5]})
register(rotation.apply_rope, {"x": tensors((2, 5, 8)), "base": REALS, "start": INTS, "pairing": NAME},
         lambda: {"x": T(2, 5, 8)})
for f in (rotation.rope_scores, rotation.additive_scores):
    register(f, {"q": tensors((8,)), "k": tensors((8,)), "num_positions": SIZES, "base": REALS},
             lambda: {"q": T(8, seed=1), "k": T(8, seed=2), "num_positions": 6})
register(rotation.diagonal_spread, {"S": tensors((5, 5))}, lambda: {"S": T(5, 5)})

# --- binary
register(binary.bit_periods, {"bits": SIZES}, lambda: {"bits": 4})
register(binary.bit_wave, {"num_positions": SIZES, "bit": SIZES}, lambda: {"num_positions": 9, "bit": 1})
register(binary.binary_strings, {"num_positions": SIZES, "bits": SIZES, "lsb_first": BOOL},
         lambda: {"num_positions": 9, "bits": 3})
register(binary.match_bits_to_pairs, {"bits": SIZES, "dim": SIZES, "base": REALS, "layout": NAME},
         lambda: {"bits": 4, "dim": 8})
register(binary.pairwise_distances, {"X": tensors((5, 3))}, lambda: {"X": T(5, 3)})
register(binary.distinct_positions, {"X": tensors((5, 3)), "tol": REALS}, lambda: {"X": T(5, 3)},
         finite=lambda r: r[:1] + ((r.min_distance,) if r.distinct >= 2 else ()))
register(binary.dial_encoding, {"num_positions": SIZES, "columns": SIZES}, lambda: {"num_positions": 9, "columns": 3})
register(binary.distances_from_first, {"X": tensors((5, 3))}, lambda: {"X": T(5, 3)})
register(binary.compare_codes, {"n": SIZES, "bits": SIZES, "dim": SIZES, "base": REALS},
         lambda: {"n": 9, "bits": 4, "dim": 8})
register(binary.bits_needed, {"num_positions": SIZES}, lambda: {"num_positions": 9})
register(binary.wavelength_growth, {"dim": SIZES, "base": REALS}, lambda: {"dim": 8})
register(binary.overlay_window, {"num_positions": SIZES, "bit": SIZES}, lambda: {"num_positions": 100, "bit": 2})
register(binary.equal_width, {"n": SIZES, "width": SIZES, "base": REALS}, lambda: {"n": 20, "width": 3},
         finite=lambda r: (r.binary.distinct, r.sinusoidal.distinct))

# --- complexity
NDK = {"n": SIZES, "d": SIZES, "k": SIZES}
for f in (complexity.complexity_table, complexity.cost_terms, complexity.layer_costs):
    register(f, NDK, lambda: {"n": 10, "d": 4})
register(complexity.crossovers, {"d": SIZES, "k": SIZES}, lambda: {"d": 4})
register(complexity.cost_curves, {"ns": SEQ, "d": SIZES, "k": SIZES}, lambda: {"ns": [1, 4, 16], "d": 4})
register(complexity.cost_curve_lengths, NDK | {"points": SIZES}, lambda: {"n": 10, "d": 4})
register(complexity.architecture_graph, {"n": SIZES, "k": SIZES}, lambda: {"n": 6, "k": 3})
register(complexity.attention_weights_bytes, {"n": SIZES, "num_heads": SIZES, "batch": SIZES, "dtype": DTYPE},
         lambda: {"n": 10, "num_heads": 2})
register(complexity.sweep_multiply_adds, {"ns": SEQ, "d": SIZES, "k": SIZES}, lambda: {"ns": [1, 4, 16], "d": 4})
register(complexity.check_sweep,
         {"ns": SEQ, "d": SIZES, "num_heads": SIZES, "budget_bytes": INTS, "k": SIZES, "max_multiply_adds": INTS},
         lambda: {"ns": [1, 4, 16], "d": 4, "num_heads": 2, "budget_bytes": 1 << 20})
register(complexity.sweep_lengths, {"low": SIZES, "high": SIZES}, lambda: {"low": 2, "high": 64})
register(complexity.measure_layers,
         {"ns": SEQ, "d": SIZES, "k": SIZES, "num_heads": SIZES, "repeats": SIZES, "warmup": SIZES,
          "budget_bytes": INTS, "max_multiply_adds": INTS, "seed": INTS, "progress": FN, **device_args()},
         lambda: {"ns": [2, 4], "d": 4, "num_heads": 2, "repeats": 1, "warmup": 0, "device": "cpu"})
register(complexity.fit_slope,
         {"ns": SEQ, "values": SEQ},
         lambda: {"ns": [1, 2, 4], "values": [1.0, 4.0, 16.0]})


def measured_frame():
    return pd.DataFrame({"n": [2, 4, 8] * 2, "layer": ["CNN"] * 3 + ["RNN"] * 3,
                         "seconds": [1e-5, 2e-5, 4e-5, 1e-5, 3e-5, 9e-5], "weights_bytes": [0] * 6})


def _broken_frames():
    frame = measured_frame()
    out = [frame.iloc[:0], frame.assign(n=["a"] * 6), frame.assign(seconds=[-1.0] * 6),
           frame.assign(seconds=[NAN] * 6), frame.assign(seconds=["x"] * 6), frame.drop(columns="weights_bytes"),
           frame.assign(n=[2] * 6), frame.iloc[:1], frame.assign(weights_bytes=[NAN] * 6),
           frame.assign(n=[2.5, 4, 8] * 2), frame.assign(n=[0, 4, 8] * 2)]
    return out


register(complexity.fitted_slopes, {"measured": lazy(lambda: FRAMES + _broken_frames())},
         lambda: {"measured": measured_frame()},
         finite=lambda r: r[["from_n", "to_n", "theory", "weights_bytes"]])
register(complexity.slope_verdicts,
         {"fitted": lazy(lambda: FRAMES + [complexity.fitted_slopes(measured_frame()).drop(columns="theory")]),
          "tolerance": REALS, "decimals": SIZES},
         lambda: {"fitted": complexity.fitted_slopes(measured_frame())})

# --- similarity and reduce
register(similarity.gram_block_means, {"P": tensors((6, 4)), "max_blocks": SIZES},
         lambda: {"P": T(6, 4), "max_blocks": 4}, finite=lambda r: r.mean)
register(similarity.similarity_by_offset, {"P": tensors((6, 4)), "max_offset": SIZES, "num_starts": SIZES},
         lambda: {"P": T(6, 4)})
register(similarity.neighbour_distances, {"P": tensors((6, 4))}, lambda: {"P": T(6, 4)})
register(similarity.encoding_properties, {"num_positions": SIZES, "dim": SIZES, "base": REALS, "layout": NAME},
         lambda: {"num_positions": 12, "dim": 8})
register(reduce.block_summary, {"X": tensors((6, 5)), "max_rows": SIZES, "max_cols": SIZES, "extremes": BOOL},
         lambda: {"X": T(6, 5), "max_rows": 4, "max_cols": 2})
register(reduce.block_edges, {"length": SIZES, "max_blocks": SIZES}, lambda: {"length": 10, "max_blocks": 4})

# --- text
TOKEN_LISTS = among("abc", "", None, 5, ["a", 1], [None], [b"a"], {"a"}, {"a": 1}, ("a", "b"), ["🙂", "\x00"],
                    ["a"] * 50, [], iter(["a"]), np.array(["a", "b"]))
register(text.tokenize, {"text": TEXT, "max_tokens": SIZES}, lambda: {"text": "The cat sat."})
register(text.token_embeddings, {"tokens": TOKEN_LISTS, "dim": SIZES, "seed": INTS, "dtype": DTYPE, **device_args()},
         lambda: {"tokens": ["the", "cat", "the"], "dim": 8})

# --- order


def model():
    return seeded.seeded_attention(8, 2, seed=1)


MODELS = lazy(lambda: [None, "model", attention.DotProductAttention(0.0), torch.nn.Linear(8, 8),
                       attention.MultiHeadAttention(8, 2, 0.0).double(), attention.MultiHeadAttention(4, 2, 0.0),
                       attention.MultiHeadAttention(8, 2, 0.0, query_size=6)])
PERMS = st.one_of(tensors((5,)), lazy(lambda: [
    [4, 3, 2, 1, 0], torch.tensor([0, 0, 1, 2, 3]), torch.tensor([0, 1, 2, 3, 5]), torch.arange(5).flip(0).double(),
    torch.arange(6), torch.arange(5)[None]]))
register(order.self_attention, {"model": MODELS, "X": tensors((5, 8)), "positional": BOOL, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "positional": True})
register(order.order_check, {"model": MODELS, "X": tensors((5, 8)), "perm": PERMS, "positional": BOOL, "base": REALS},
         lambda: {"model": model(), "X": T(5, 8), "perm": torch.tensor([4, 0, 3, 1, 2]), "positional": True})
register(order.masking_steps, {"X": tensors((2, 4, 3)), "valid_lens": LENS},
         lambda: {"X": T(2, 4, 3), "valid_lens": torch.tensor([2, 4])},
         finite=lambda r: (r.scores, r.weights, r.lengths, r.masked_weight, r.row_sums))
register(order.causal_lengths, {"batch_lens": LENS, "queries": SIZES},
         lambda: {"batch_lens": [2, 4], "queries": 4})
register(order.positional_effect, {"model": MODELS, "X": tensors((5, 8)), "base": REALS},
         lambda: {"model": model(), "X": T(5, 8)})
register(order.book_masked_softmax, {"X": tensors((2, 3, 4)), "valid_lens": LENS},
         lambda: {"X": T(2, 3, 4), "valid_lens": [0, 3]})
SEQUENCE_LISTS = lazy(lambda: [
    "abc", None, [], (), [T(3, 4), "x"], [T(3, 4), T(2, 5)], [T(3, 4), T(2, 4, dtype=torch.float64)],
    [T(3, 4, dtype=torch.int64)], [T(3, 4, dtype=torch.complex64)], [T(9, 4)], [T(4)], [T(3, 4) * NAN],
    [torch.zeros(3, 4, device="meta")], T(2, 3, 4)])
register(order.padded_batch, {"sequences": SEQUENCE_LISTS, "steps": SIZES},
         lambda: {"sequences": [T(3, 4), T(2, 4, seed=1)], "steps": 5})

# --- seeded
register(seeded.seeded_attention, {"num_hiddens": SIZES, "num_heads": SIZES, "seed": INTS, **device_args()},
         lambda: {"num_hiddens": 8, "num_heads": 2})
register(seeded.permutation, {"n": SIZES, "seed": INTS}, lambda: {"n": 6, "seed": 3})
register(seeded.seeded_query_key, {"dim": SIZES, "seed": INTS, **device_args()}, lambda: {"dim": 8, "seed": 3})
register(seeded.book_example, {"seed": INTS}, lambda: {"seed": 0})

# --- timing
register(timing.synchronizer, device_args(), lambda: {"device": "cpu"})
TIMED = {"fn": FN, "repeats": SIZES, "warmup": SIZES, **device_args()}
for f in (timing.time_calls, timing.median_seconds):
    register(f, TIMED, lambda: {"fn": lambda: None, "repeats": 2, "warmup": 0, "device": "cpu"})
register(timing.interleaved_medians,
         {"fns": among(None, "fn", [print], {"a": 5}, {}, {1: print}, print), "repeats": SIZES, "warmup": SIZES,
          **device_args()},
         lambda: {"fns": {"a": lambda: None, "b": lambda: None}, "repeats": 2, "warmup": 0, "device": "cpu"})

# --- positions
SCHEME_NAMES = st.one_of(NAME, among("none", "sinusoidal", "learned", "rope", "alibi", "t5", "ALiBi", "rope ",
                                     "rotary", "learned\x00"))


def _masks_as_zero(bias):
    """A causal bias masks later keys with -inf by design; every other entry must be finite."""
    return None if bias is None else bias.masked_fill(bias == -INF, 0.0)


register(positions.alibi_slopes, {"num_heads": SIZES, "dtype": DTYPE, **device_args()}, lambda: {"num_heads": 6})
register(positions.alibi_bias,
         {"num_queries": SIZES, "num_keys": SIZES, "num_heads": SIZES, "causal": BOOL, "dtype": DTYPE, **device_args()},
         lambda: {"num_queries": 4, "num_keys": 5, "num_heads": 2}, finite=_masks_as_zero)
register(positions.t5_relative_buckets,
         {"num_queries": SIZES, "num_keys": SIZES, "bidirectional": BOOL, "num_buckets": SIZES, "max_distance": INTS,
          **device_args()},
         lambda: {"num_queries": 4, "num_keys": 6, "num_buckets": 8, "max_distance": 16})
SCHEME_ARGS = {"num_hiddens": SIZES, "num_heads": SIZES, "causal": BOOL}


def scheme_base(**extra):
    return lambda: {"num_hiddens": 8, "num_heads": 2, **extra}


for f in (positions.PositionScheme, positions.NoPositions, positions.ALiBiPositions):
    register(f, SCHEME_ARGS, scheme_base(), label=f"{f.__name__}()")
for f in (positions.SinusoidalPositions, positions.RotaryPositions):
    register(f, SCHEME_ARGS | {"base": REALS}, scheme_base(), label=f"{f.__name__}()")
register(positions.LearnedPositions, SCHEME_ARGS | {"max_len": SIZES, "std": REALS}, scheme_base(max_len=6),
         label="LearnedPositions()")
register(positions.T5Positions, SCHEME_ARGS | {"num_buckets": SIZES, "max_distance": INTS},
         scheme_base(num_buckets=8, max_distance=16), label="T5Positions()")
register(positions.position_scheme,
         {"positions": SCHEME_NAMES, "num_hiddens": SIZES, "num_heads": SIZES, "max_len": st.one_of(SIZES, among(None)),
          "causal": BOOL, "learned_std": REALS},
         lambda: {"positions": "learned", "num_hiddens": 8, "num_heads": 2, "max_len": 6})
register(positions.check_scheme, {"positions": SCHEME_NAMES}, lambda: {"positions": "rope"})
register(positions.SinusoidalPositions, {"X": tensors((2, 5, 8))}, lambda: {"X": T(2, 5, 8)},
         call=lambda X: positions.SinusoidalPositions(8, 2).embed(X), label="SinusoidalPositions.embed")
register(positions.LearnedPositions, {"X": tensors((2, 5, 8))}, lambda: {"X": T(2, 5, 8)},
         call=lambda X: positions.LearnedPositions(8, 2, max_len=6).embed(X), label="LearnedPositions.embed")
register(positions.RotaryPositions, {"x": tensors((2, 2, 5, 4))}, lambda: {"x": T(2, 2, 5, 4)},
         call=lambda x: positions.RotaryPositions(8, 2).rotary(x), label="RotaryPositions.rotary")
BIAS_SIZES = {"num_queries": SIZES, "num_keys": SIZES}
for make in (lambda: positions.ALiBiPositions(8, 2, causal=True), lambda: positions.T5Positions(8, 2),
             lambda: positions.LearnedPositions(8, 2, max_len=6)):
    scheme = type(make())
    register(scheme, BIAS_SIZES, lambda: {"num_queries": 4, "num_keys": 5},
             call=lambda make=make, **kw: make().bias(**kw), label=f"{scheme.__name__}.bias", finite=_masks_as_zero)

# --- tasks
TASK_NAMES = st.one_of(NAME, among("reverse", "sort", "shift", "histogram", "Reverse", "copy", "sort "))
KIND_NAMES = st.one_of(NAME, among("encoder", "decoder", "Encoder", "both", "decoder "))


def token_ids(*shape, high=4, seed=0):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def token_tensors(*shape):
    """Hostile token ids of ``shape``: every dtype and form of :func:`tensors`, ids out of range,
    too few or too many steps, no examples."""
    batch, steps = shape
    return st.one_of(tensors(shape), lazy(lambda: [
        token_ids(batch, steps), torch.tensor([[-1] + [0] * (steps - 1)]), torch.full((1, steps), 10**12),
        torch.full((1, steps), 64), torch.full((1, steps), 8), token_ids(batch, 0), token_ids(batch, 1),
        token_ids(0, steps), token_ids(batch, 2 * steps), token_ids(batch, 2 * steps + 1), token_ids(batch, steps + 1)]))


register(tasks.check_task, {"task": TASK_NAMES}, lambda: {"task": "sort"})
register(tasks.num_classes, {"task": TASK_NAMES, "vocab": SIZES, "seq_len": SIZES},
         lambda: {"task": "histogram", "vocab": 16, "seq_len": 8})
register(tasks.answers, {"task": TASK_NAMES, "inputs": token_tensors(3, 6)},
         lambda: {"task": "histogram", "inputs": token_ids(3, 6)})
GENERATORS = lazy(lambda: [None, "generator", 5, torch.Generator().manual_seed(1), np.random.default_rng(0),
                           torch.manual_seed])
register(tasks.make_examples,
         {"task": TASK_NAMES, "num_examples": SIZES, "seq_len": SIZES, "vocab": SIZES,
          "seed": st.one_of(INTS, among(None)), "generator": GENERATORS},
         lambda: {"task": "sort", "num_examples": 4, "seq_len": 5, "vocab": 8, "seed": 1})
register(tasks.order_blind_ceiling, {"task": TASK_NAMES, "inputs": token_tensors(3, 6)},
         lambda: {"task": "reverse", "inputs": token_ids(3, 6)})

# --- tiny transformers and their training
# Training in the sweep is kept to a few seconds: models of width 16 with one layer on 4-token
# examples, two steps and small held-out sets in the valid calls.


def small_config(positions="sinusoidal", kind="encoder"):
    return tiny.TinyConfig("reverse", positions, kind, seq_len=4, vocab=8, dim=16, layers=1, heads=2)


@functools.lru_cache(maxsize=None)
def small_model(positions="sinusoidal", kind="encoder", seed=0):
    return tiny.build_model(small_config(positions, kind), seed=seed, device="cpu").eval()


SMALL_TRAINING = {"task": "reverse", "positions": "sinusoidal", "seq_len": 4, "vocab": 8, "dim": 16, "layers": 1,
                  "heads": 2, "max_steps": 2, "batch_size": 8, "test_examples": 16, "device": "cpu"}


@functools.lru_cache(maxsize=1)
def small_run():
    return training.train_tiny(**SMALL_TRAINING)


CONFIG_ARGS = {"task": TASK_NAMES, "positions": SCHEME_NAMES, "kind": KIND_NAMES, "seq_len": SIZES, "vocab": SIZES,
               "dim": SIZES, "layers": SIZES, "heads": SIZES}
register(tiny.TinyConfig, CONFIG_ARGS, lambda: small_config("rope", "decoder").to_dict(), label="TinyConfig()")
CONFIG_DICTS = lazy(lambda: [None, "config", [], {}, {"dim": "64"}, {"heads": 0}, {"extra": 1},
                             {**small_config().to_dict(), "positions": "rotary"}, small_config().to_dict(),
                             tuple(small_config().to_dict().items())])
register(tiny.TinyConfig, {"values": CONFIG_DICTS}, lambda: {"values": small_config().to_dict()},
         call=lambda values: tiny.TinyConfig.from_dict(values), label="TinyConfig.from_dict")
CONFIGS = lazy(lambda: [None, "config", 5, small_config().to_dict(), small_config("learned", "decoder"),
                        pretrained.MiniLMConfig(30, 8, 1, 2, 16, 12, 2, 1e-12)])
register(tiny.TinyTransformer, {"config": CONFIGS}, lambda: {"config": small_config()}, label="TinyTransformer()")
register(tiny.TinyTransformer, {"inputs": token_tensors(3, 4)}, lambda: {"inputs": token_ids(3, 4)},
         call=lambda inputs: small_model("learned")(inputs), label="TinyTransformer.forward")
register(tiny.Block, {"dim": SIZES, "heads": SIZES}, lambda: {"dim": 16, "heads": 2})
register(tiny.build_model, {"config": CONFIGS, "seed": INTS, **device_args()},
         lambda: {"config": small_config(), "seed": 1, "device": "cpu"})

# step caps of a few steps at most: a valid cap of 65 536 steps would train for minutes
STEP_CAPS = st.one_of(st.sampled_from([v for v in BAD_INTS if not (isinstance(v, int) and 40 < v <= training.MAX_STEPS)]),
                      st.integers(-3, 40))
register(training.train_tiny,
         CONFIG_ARGS | {"max_steps": STEP_CAPS, "seed": INTS, "target": st.one_of(PROB, among(None)), "callback": FN,
                        "max_seconds": st.one_of(REALS, among(None)), "batch_size": SIZES, "lr": REALS,
                        "weight_decay": REALS, "test_examples": SIZES, **device_args()},
         lambda: dict(SMALL_TRAINING),
         finite=lambda r: (r.token_accuracy, r.seq_accuracy, r.seconds, [list(row) for row in r.history]))


def run_fields():
    run = small_run()
    return {f.name: getattr(run, f.name) for f in dataclasses.fields(training.TrainResult)}


HISTORIES = lazy(lambda: [None, "history", [], small_run().history * 2, [tuple(row) for row in small_run().history],
                          tuple(small_run().history), [training.HistoryRow(1, NAN, 0.5, 0.0)] * 2])
register(training.TrainResult,
         {"config": CONFIGS, "seed": INTS, "token_accuracy": PROB, "seq_accuracy": PROB, "steps": SIZES, "seconds": REALS,
          "stopped": st.one_of(NAME, among(*training.STOP_REASONS)), "message": TEXT, "history": HISTORIES,
          "model": lazy(lambda: [None, "model", small_model("rope"), torch.nn.Linear(2, 2)]),
          "settings": among(None, {}, [], "settings", {"lr": NAN})},
         run_fields, finite=lambda r: (r.token_accuracy, r.seq_accuracy, r.seconds))
SMALL_MODELS = lazy(lambda: [None, "model", torch.nn.Linear(4, 4), attention.MultiHeadAttention(8, 2, 0.0),
                             small_model("learned"), small_model("t5", "decoder"), small_run()])


def held_out_pairs():
    x, y = tasks.make_examples("reverse", 5, 4, 8, seed=2)
    return [None, "pairs", (x,), (x, y), [x, y], (x.float(), y), (x, y[:, :3]), (x[:, :3], y[:, :3]), (x, "y"),
            (x + 8, y), (x, y, y), (torch.zeros(0, 4, dtype=torch.long),) * 2, (x, y.double())]


register(training.evaluate_tiny,
         {"model": SMALL_MODELS, "task": TASK_NAMES, "seq_len": SIZES, "num_examples": SIZES, "seed": INTS,
          "inputs": lazy(held_out_pairs)},
         lambda: {"model": small_model(), "task": "reverse", "seq_len": 4, "num_examples": 16})
register(training.predict, {"model": SMALL_MODELS, "inputs": token_tensors(3, 4)},
         lambda: {"model": small_model(), "inputs": token_ids(3, 4)})
register(training.extrapolation_lengths, {"seq_len": SIZES, "points": SIZES}, lambda: {"seq_len": 8, "points": 5})
register(training.extrapolation,
         {"model": SMALL_MODELS, "task": TASK_NAMES, "num_examples": SIZES,
          "lengths": st.one_of(SEQ, among(None, [4], [2, 8], [9], [1], list(range(2, 9)), "48", [4.0], [True]))},
         lambda: {"model": small_model("learned"), "task": "reverse", "lengths": [4, 6, 8], "num_examples": 16})
register(training.attention_maps,
         {"model": SMALL_MODELS, "inputs": st.one_of(tensors((4,)), lazy(lambda: [token_ids(4, high=9), token_ids(1),
                                                                               token_ids(12), token_ids(2, 4)]))},
         lambda: {"model": small_model("rope", "decoder"), "inputs": token_ids(4)})
register(training.held_out_example, {"task": TASK_NAMES, "seq_len": SIZES, "vocab": SIZES},
         lambda: {"task": "sort", "seq_len": 6, "vocab": 8})
register(training.compare_attention, {"model": SMALL_MODELS, "seed": INTS}, lambda: {"model": small_model(), "seed": 0})
register(training.held_out_ceiling, {"task": TASK_NAMES, "seq_len": SIZES, "vocab": SIZES, "num_examples": SIZES},
         lambda: {"task": "shift", "seq_len": 6, "vocab": 8, "num_examples": 50})
register(training.source_positions, {"task": TASK_NAMES, "seq_len": SIZES}, lambda: {"task": "reverse", "seq_len": 6})
for f in (training.source_attention, training.clearest_head):
    register(f, {"weights": tensors((1, 2, 4, 4)), "task": TASK_NAMES, "causal": BOOL},
             lambda: {"weights": torch.softmax(T(1, 2, 4, 4), dim=-1), "task": "shift", "causal": False})


def lesson_rows():
    return [{"positions": "none", "token_accuracy": 0.27, "seq_accuracy": 0.0},
            {"positions": "rope", "token_accuracy": 1.0, "seq_accuracy": 0.9}]


LESSON_ROWS = lazy(lambda: [None, "rows", {}, [], [{}], [{"positions": "none"}], [("none", 0.5, 0.5)], lesson_rows()[::-1],
                            [{**lesson_rows()[0], "positions": "rotary"}], [{**lesson_rows()[0], "token_accuracy": NAN}],
                            [{**lesson_rows()[0], "token_accuracy": 1.5}], [{**lesson_rows()[0], "seq_accuracy": "0.5"}],
                            [{**lesson_rows()[0], "positions": None}], lesson_rows()[:1]])
register(training.lesson, {"task": TASK_NAMES, "kind": KIND_NAMES, "rows": LESSON_ROWS, "ceiling": PROB},
         lambda: {"task": "reverse", "kind": "encoder", "rows": lesson_rows(), "ceiling": 0.28})


def extrapolation_rows():
    return {"rope": [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": 0.3}],
            "learned": [{"seq_len": 8, "token_accuracy": 1.0}, {"seq_len": 16, "token_accuracy": None}]}


EXTRAPOLATION_ROWS = lazy(lambda: [None, "rows", [], {}, {"rope": []}, {"rotary": extrapolation_rows()["rope"]},
                                   {5: []}, {"rope": "rows"}, {"rope": [{"seq_len": 8}]},
                                   {"rope": [{"seq_len": 0, "token_accuracy": 0.5}]},
                                   {"rope": [{"seq_len": 8.5, "token_accuracy": 0.5}]},
                                   {"rope": [{"seq_len": 8, "token_accuracy": NAN}]},
                                   {"rope": [{"seq_len": 10**12, "token_accuracy": 0.5}]},
                                   {"learned": extrapolation_rows()["learned"]}])
register(training.extrapolation_lesson, {"rows": EXTRAPOLATION_ROWS, "seq_len": SIZES},
         lambda: {"rows": extrapolation_rows(), "seq_len": 8})

# --- shipped checkpoints
# Retraining the shipped runs takes minutes, so the calls that retrain (retrain, regenerate,
# check, main) run in a small world: the same functions with the defaults of the small runs
# above, one scheme, and the checkpoint folder and metrics file in a temporary folder, so the
# sweep never writes into pekit/checkpoints.
_SCRATCH: list[Path] = []


def scratch() -> Path:
    """A temporary folder for the files the sweep writes, removed when the tests end."""
    if not _SCRATCH:
        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="pekit-contract-")))
        atexit.register(shutil.rmtree, _SCRATCH[0], ignore_errors=True)
    return _SCRATCH[0]


@contextmanager
def small_shipped_world():
    small = {"STEPS": 2, "SCHEMES": ("none",), "CHECKPOINT_DIR": scratch() / "checkpoints",
             "METRICS": scratch() / "checkpoints" / "metrics.json",
             "DEFAULTS": {k: SMALL_TRAINING[k] for k in ("task", "seq_len", "vocab", "dim", "layers", "heads")}
             | {"seed": 0}}
    before = {name: getattr(shipped, name) for name in small}
    for name, value in small.items():
        setattr(shipped, name, value)
    shipped._metrics_text.cache_clear()
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(shipped, name, value)
        shipped._metrics_text.cache_clear()


def in_small_world(f, *, regenerated=False):
    def call(**kwargs):
        with small_shipped_world():
            if regenerated and not shipped.METRICS.is_file():
                shipped.regenerate(out=io.StringIO())
            return f(**kwargs)
    return call


def closed_stream():
    stream = io.StringIO()
    stream.close()
    return stream


OUTS = lazy(lambda: [None, "out", 5, print, [], closed_stream(), io.BytesIO(), io.StringIO()])
register(shipped.default_settings, {"kind": KIND_NAMES}, lambda: {"kind": "decoder"})
register(shipped.checkpoint_path, {"kind": KIND_NAMES, "positions": SCHEME_NAMES},
         lambda: {"kind": "encoder", "positions": "t5"})
register(shipped.load_checkpoint, {"kind": KIND_NAMES, "positions": SCHEME_NAMES, **device_args()},
         lambda: {"kind": "encoder", "positions": "alibi", "device": "cpu"})
register(shipped.recorded_metrics, {})
register(shipped.run_record, {"result": lazy(lambda: [None, "result", small_model(), small_run().summary()])},
         lambda: {"result": small_run()})
PATHS = lazy(lambda: [None, 5, "", b"/tmp/model.pt", scratch(), scratch() / "missing" / "model.pt", "\x00",
                      scratch() / "a\x00b.pt", [str(scratch() / "model.pt")], str(scratch() / "as-text.pt")])
register(shipped.save_checkpoint, {"model": SMALL_MODELS, "path": PATHS},
         lambda: {"model": small_model(), "path": scratch() / "model.pt"})
register(shipped.retrain, {"kind": KIND_NAMES, "positions": SCHEME_NAMES}, lambda: {"kind": "encoder", "positions": "none"},
         call=in_small_world(shipped.retrain), finite=lambda r: (r.token_accuracy, r.seq_accuracy))
register(shipped.regenerate, {"out": OUTS}, lambda: {"out": io.StringIO()}, call=in_small_world(shipped.regenerate))
KIND_LISTS = among(None, "encoder", [], ["encoder"], ["decoder"], ("decoder", "encoder"), [5], {"encoder"}, ["Encoder"])
SCHEME_LISTS = among(None, "none", [], ["none"], ("none",), ["rope"], [None], ["none", "none"])
register(shipped.check, {"kinds": KIND_LISTS, "schemes": SCHEME_LISTS, "out": OUTS},
         lambda: {"kinds": ["encoder"], "schemes": ["none"], "out": io.StringIO()},
         call=in_small_world(shipped.check, regenerated=True))


def state_dicts():
    sd = small_model().state_dict()
    first = next(iter(sd))
    return [None, {}, "state", [("w", T(2))], {"w": T(2)}, {k: v for k, v in sd.items() if k != first},
            sd | {first: sd[first][:1]}, sd | {first: sd[first].to(torch.complex64)}, sd | {first: sd[first] * NAN},
            sd | {first: torch.empty(sd[first].shape, device="meta")}, sd | {first: 1.0}, small_model(seed=1).state_dict()]


register(shipped.weight_difference, {"a": lazy(state_dicts), "b": lazy(state_dicts)},
         lambda: {"a": small_model().state_dict(), "b": small_model(seed=2).state_dict()})
register(shipped.shipped_attention, {"kind": KIND_NAMES, "positions": SCHEME_NAMES},
         lambda: {"kind": "decoder", "positions": "rope"})
# None is left out: it reads the command line, here the test runner's own
register(shipped.main,
         {"argv": among("check", ["regenerate"], ["check"], [], ["--help"], ["check", "extra"], [5], [None], ("check",),
                        b"check", ["CHECK"], ["regenerate", "check"], {"check": 1})},
         lambda: {"argv": ["check"]}, call=in_small_world(shipped.main, regenerated=True))

# --- the pretrained model (loaded once; each valid call is a forward pass on a short text)
SENTENCE = "Tokenization makes unbelievably small pieces."  # words of several pieces: no NaN share


@functools.lru_cache(maxsize=None)
def minilm_result(positions="learned"):
    return pretrained.pretrained_attention(SENTENCE, positions=positions, device="cpu")


def encoded():
    return pretrained.encode_text(SENTENCE, device="cpu")


def broken_encodings():
    e = encoded()
    return [e, pretrained.shuffle_words(e, 1).encoded, e._replace(ids=e.ids[:-1]), e._replace(ids=(30522,) * len(e.ids)),
            e._replace(ids=(-1,) + e.ids[1:]), e._replace(ids=tuple(float(i) for i in e.ids)),
            e._replace(word_ids=(0,) + e.word_ids[1:]), e._replace(word_ids=(None,) * len(e.ids)), e._replace(tokens=None),
            e._replace(word_ids=e.word_ids[:1] + tuple(reversed(e.word_ids[1:-1])) + e.word_ids[-1:]),
            pretrained.Encoded(*(part * 40 for part in e[:4]), 0, False), tuple(e), e._replace(ids=(True,) * len(e.ids))]


ENCODINGS = lazy(broken_encodings)
TEXTS_OR_PIECES = st.one_of(TEXT, ENCODINGS)
MINI_CONFIG = pretrained.MiniLMConfig(vocab_size=30, num_hiddens=8, layers=1, num_heads=2, ffn_hiddens=16,
                                      max_positions=12, type_vocab_size=2, eps=1e-12)
MINI_CONFIGS = among(None, "config", tuple(MINI_CONFIG), MINI_CONFIG._replace(vocab_size=10**9),
                     MINI_CONFIG._replace(num_hiddens=7), MINI_CONFIG._replace(num_hiddens=0),
                     MINI_CONFIG._replace(layers=-1), MINI_CONFIG._replace(eps=NAN), MINI_CONFIG._replace(eps=0.0),
                     MINI_CONFIG._replace(vocab_size=2.5), MINI_CONFIG._replace(ffn_hiddens="16"),
                     MINI_CONFIG._replace(num_hiddens=4096, vocab_size=1 << 20), MINI_CONFIG._replace(layers=True),
                     MINI_CONFIG._replace(max_positions=10**12), MINI_CONFIG._replace(num_heads=4))
for f in (pretrained.BertEmbeddings, pretrained.BertLayer, pretrained.MiniLM):
    register(f, {"config": MINI_CONFIGS}, lambda: {"config": MINI_CONFIG}, label=f"{f.__name__}()")


@functools.lru_cache(maxsize=1)
def mini_model():
    torch.manual_seed(0)
    return pretrained.MiniLM(MINI_CONFIG).eval()


register(pretrained.MiniLM,
         {"ids": st.one_of(tensors((1, 4)), lazy(lambda: [torch.tensor([[30, 1]]), torch.tensor([[-1, 2]]),
                                                          token_ids(1, 13), token_ids(1, 12), token_ids(1, 0)])),
          "positions": BOOL},
         lambda: {"ids": torch.tensor([[1, 5, 7, 2]])}, call=lambda **kw: mini_model()(**kw), label="MiniLM.forward")
register(pretrained.BertLayer, {"X": tensors((1, 4, 8))}, lambda: {"X": T(1, 4, 8)},
         call=lambda X: mini_model().layers[0](X), label="BertLayer.forward")
for f in (pretrained.pretrained_missing, pretrained.pretrained_available, pretrained.model_files):
    register(f, {})
# the weights are the checkpoint's, the same on every call: one table of them stands for all
register(pretrained.load_minilm, device_args(), lambda: {"device": "cpu"},
         finite=lambda model: model.embeddings.position_embeddings.weight)
register(pretrained.encode_text, {"text": TEXT, **device_args()}, lambda: {"text": SENTENCE, "device": "cpu"})
MODEL_POSITIONS = st.one_of(NAME, among("learned", "zero", "Zero", "none"))
register(pretrained.pretrained_attention, {"text": TEXTS_OR_PIECES, "positions": MODEL_POSITIONS, **device_args()},
         lambda: {"text": SENTENCE, "device": "cpu"})
register(pretrained.pretrained_position_table, device_args(), lambda: {"device": "cpu"})
register(pretrained.find_token, {"tokens": TOKEN_LISTS, "word": TEXT},
         lambda: {"tokens": ["[CLS]", "the", "cat", "[SEP]"], "word": "Cat"})


def broken_results():
    r = minilm_result()
    return [None, "result", encoded(), r, minilm_result("zero"), r._replace(attentions=r.attentions[:, :, :-1]),
            r._replace(attentions=r.attentions.long()), r._replace(attentions=r.attentions[:0]),
            r._replace(hidden_states=None), r._replace(hidden_states=r.hidden_states[1:]), r._replace(positions="both"),
            r._replace(tokens=r.tokens[:-1]), r._replace(word_ids=(None,) * len(r.ids)), tuple(r),
            r._replace(attentions=r.attentions.to(torch.complex64)),
            pretrained.pretrained_attention("The cat sat.", device="cpu")]


RESULTS = lazy(broken_results)


def known_patterns(patterns):
    """Shares that exist: "same word" is NaN by design where no word has two pieces."""
    return patterns.shares[..., [i for i, name in enumerate(patterns.names) if name != "same word"]]


register(pretrained.head_patterns, {"result": RESULTS}, lambda: {"result": minilm_result()}, finite=known_patterns)


def broken_patterns():
    p = pretrained.head_patterns(minilm_result())
    return [None, "patterns", p, p._replace(shares=T(2, 3)), p._replace(shares=T(6, 12, 5)),
            p._replace(shares=p.shares.long()), p._replace(names=None), p._replace(names=("a",) * 6),
            p._replace(shares=torch.zeros(0, 12, 6)), p._replace(shares=torch.zeros(6, 12, 0), names=()),
            pretrained.HeadPatterns(p.shares * NAN, p.names)]


PATTERN_RESULTS = lazy(broken_patterns)
THRESHOLDS = st.one_of(PROB, REALS)
register(pretrained.named_heads, {"patterns": PATTERN_RESULTS, "threshold": THRESHOLDS},
         lambda: {"patterns": pretrained.head_patterns(minilm_result())})
register(pretrained.patterns_frame, {"patterns": PATTERN_RESULTS, "threshold": THRESHOLDS},
         lambda: {"patterns": pretrained.head_patterns(minilm_result())},
         finite=lambda frame: frame.drop(columns="same word", errors="ignore"))
register(pretrained.token_attention, {"result": RESULTS, "index": INTS}, lambda: {"result": minilm_result(), "index": 2})


def broken_token_attention():
    ta = pretrained.token_attention(minilm_result(), 2)
    return [None, "ta", ta, ta._replace(mean=T(6)), ta._replace(mean=T(6, 3)), ta._replace(top=[]),
            ta._replace(top=[(99, 0.5)] * 6), ta._replace(index=99), ta._replace(index="2"),
            ta._replace(mean=ta.mean.to(torch.complex64)), tuple(ta)]


register(pretrained.token_attention_frame,
         {"ta": lazy(broken_token_attention),
          "tokens": st.one_of(TOKEN_LISTS, lazy(lambda: [list(minilm_result().tokens), minilm_result().tokens[:-1]]))},
         lambda: {"ta": pretrained.token_attention(minilm_result(), 2), "tokens": list(minilm_result().tokens)})
register(pretrained.shuffle_words, {"encoded": st.one_of(ENCODINGS, TEXT), "seed": INTS},
         lambda: {"encoded": encoded(), "seed": 3})
register(pretrained.order_effect, {"text": TEXTS_OR_PIECES, "seed": INTS, **device_args()},
         lambda: {"text": SENTENCE, "seed": 1, "device": "cpu"})
register(pretrained.positions_effect, {"learned": RESULTS, "zero": RESULTS},
         lambda: {"learned": minilm_result(), "zero": minilm_result("zero")},
         finite=lambda r: (r.change, known_patterns(r.learned), known_patterns(r.zero)))


@functools.lru_cache(maxsize=1)
def effects():
    return (pretrained.order_effect(SENTENCE, 1, device="cpu"),
            pretrained.positions_effect(minilm_result(), minilm_result("zero")))


def order_and_positions():
    return dict(zip(("order", "positions"), effects()))


def broken_effects():
    good = order_and_positions()
    order, effect = good["order"], good["positions"]
    return {"order": [None, "order", effect, order, order._replace(gap={}), order._replace(gap={"learned": T(6)}),
                      order._replace(gap={"learned": T(5), "zero": T(5)}), order._replace(gap=None),
                      order._replace(gap={"learned": T(6).long(), "zero": T(6)})],
            "positions": [None, "positions", order, effect, effect._replace(change=T(6)),
                          effect._replace(change=T(5, 12)), effect._replace(change=None)]}


register(pretrained.layer_effects_frame,
         {"order": lazy(lambda: broken_effects()["order"]), "positions": lazy(lambda: broken_effects()["positions"])},
         order_and_positions)
# periods are inf for a curve without a wave (by design); the rest must be finite
register(pretrained.position_components, {"P": tensors((12, 6)), "k": SIZES}, lambda: {"P": T(12, 6)},
         finite=lambda r: (r.scores, r.explained, r.crossings))
register(pretrained.position_table_summary, {"P": tensors((12, 6)), "max_offset": SIZES, "k": SIZES},
         lambda: {"P": T(12, 6), "max_offset": 5, "k": 2},
         finite=lambda r: (r.value_range, r.norms, r.steps, r.offsets, r.components.scores, r.components.explained))
register(pretrained.colour_range, {"X": tensors((4, 5)), "share": THRESHOLDS, "symmetric": BOOL}, lambda: {"X": T(4, 5)})

# --- charts


def summary():
    return reduce.block_summary(T(6, 5), 3, 2)


BROKEN_SUMMARIES = lazy(lambda: [
    reduce.BlockSummary(T(3, 2), None, None, torch.tensor([0, 2, 4, 6]), torch.tensor([0, 5])),
    reduce.BlockSummary(T(3), None, None, torch.tensor([0, 6]), torch.tensor([0, 5])),
    reduce.BlockSummary("x", None, None, "y", "z"), (T(3, 2),), "abc", None, T(3, 2)])
TITLES = among(None, 5, "", "x" * 300, "<b>bold</b>", ["a"], b"x", "🙂")
DOMAINS = among(None, "symmetric", "auto", (1.0,), (1.0, 0.0), (0.0, 0.0), (NAN, 1.0), (-INF, 1.0), ("a", "b"),
                (0, 1, 2), 5, (0.0, 1e308), (-1e308, 1e308), [0, 1], np.array([0.0, 1.0]))
PIXELS = among((0, 0), (1, 1), (-1, 5), (10**12, 10**12), (1.5, 2), "ab", None, (5,), 5, (2**63, 1), [4, 4])
HEIGHTS = st.one_of(SIZES, among(10**6, 100))
PALETTE = st.one_of(NAME, among("viridis", "Diverging", None))

register(charts.to_spec, {"chart": lazy(lambda: [None, "abc", 5, {"mark": "bar"}, T(2, 2), summary()])},
         lambda: {"chart": charts.heatmap(T(3, 4), x_title="x", y_title="y")})
register(charts.drawing_blocks, {"rows": INTS, "cols": INTS, "max_marks": INTS, "max_pixels": PIXELS},
         lambda: {"rows": 100, "cols": 50, "max_marks": 1000})
register(charts.heatmap_frame, {"summary": BROKEN_SUMMARIES, "row_offset": INTS, "col_offset": INTS},
         lambda: {"summary": summary()})
register(charts.heatmap,
         {"data": st.one_of(tensors((6, 5)), BROKEN_SUMMARIES), "x_title": TITLES, "y_title": TITLES,
          "value_title": TITLES, "palette": PALETTE, "domain": DOMAINS, "row_offset": INTS, "col_offset": INTS,
          "height": HEIGHTS, "max_marks": INTS, "max_pixels": PIXELS},
         lambda: {"data": T(6, 5), "x_title": "x", "y_title": "y", "max_marks": 10, "max_pixels": (3, 3)})
LABELS = among("abcd", None, 5, ["a"] * 3, ["a"] * 5, [1, 2, 3, 4], [None] * 4, ("a", "b", "c", "d"),
               ["x" * 500] * 4, ["<script>"] * 4, {"a", "b", "c", "d"})
register(charts.token_heatmap,
         {"M": tensors((4, 4)), "row_labels": LABELS, "col_labels": LABELS, "x_title": TITLES, "y_title": TITLES,
          "value_title": TITLES, "palette": PALETTE, "scale": st.one_of(NAME, among("max", "row", "fixed")),
          "domain": DOMAINS, "cell": SIZES, "title": TITLES, "compact": BOOL, "max_marks": INTS},
         lambda: {"M": torch.softmax(T(4, 4), dim=-1), "row_labels": ["a", "b", "c", "d"],
                  "col_labels": ["a", "b", "c", "d"], "max_marks": 8})
register(charts.column_curves,
         {"values": tensors((20, 3)), "columns": SEQ, "start": INTS, "height": HEIGHTS, "max_points": INTS},
         lambda: {"values": T(20, 3), "columns": [0, 3, 6], "max_points": 30})
SIMS = lazy(lambda: [None, "abc", summary(), similarity.OffsetSimilarity(T(3), T(4), T(3), T(3), T(3), T(3)),
                     similarity.OffsetSimilarity(*(["x"] * 6)), tuple(T(3) for _ in range(6)),
                     similarity.similarity_by_offset(torch.nn.Parameter(T(6, 4)))])
register(charts.offset_similarity_chart, {"sim": SIMS, "height": HEIGHTS},
         lambda: {"sim": similarity.similarity_by_offset(encodings.sinusoidal_encoding(12, 8, device="cpu"))})


def line_frame():
    return pd.DataFrame({"n": list(range(1, 11)) * 2, "value": [float(i * i) for i in range(1, 21)],
                         "series": ["a"] * 10 + ["b"] * 10})


COLUMN_NAMES = among("n", "value", "series", "missing", None, 5, ["n"], "")
LINE_FRAMES = lazy(lambda: FRAMES + [line_frame().iloc[:0], line_frame().assign(value=["x"] * 20),
                                     line_frame().assign(value=[NAN] * 20), line_frame().assign(n=["a"] * 20),
                                     line_frame().assign(value=[-1.0] * 20), line_frame().assign(n=[NAN] * 20),
                                     line_frame().assign(series=["a"] * 19 + [None]),
                                     line_frame().assign(series=[[1]] * 20)])
register(charts.line_chart,
         {"frame": LINE_FRAMES, "x": COLUMN_NAMES, "y": COLUMN_NAMES, "series": COLUMN_NAMES, "x_title": TITLES,
          "y_title": TITLES, "series_title": TITLES, "log_y": BOOL, "log_x": BOOL, "step": BOOL, "points": BOOL,
          "y_domain": DOMAINS, "height": HEIGHTS, "max_points": INTS,
          "marks": among(None, {}, "abc", {"a": 1.0}, {"a": "x"}, {"a": NAN}, {1: 2.0}, [1.0], 5)},
         lambda: {"frame": line_frame(), "x": "n", "y": "value", "series": "series", "series_title": "Series",
                  "max_points": 8})


def frequency_frame():
    table = encodings.frequency_table(8)
    return pd.DataFrame({"pair": table["pair"], "layout": "interleaved", "wavelength": table["wavelength"],
                         "omega": table["omega"]})


register(charts.frequency_chart,
         {"frame": lazy(lambda: FRAMES + [frequency_frame().drop(columns="layout")]), "y": COLUMN_NAMES,
          "height": HEIGHTS},
         lambda: {"frame": frequency_frame()})
register(charts.layout_comparison_chart,
         {"table": lazy(lambda: FRAMES + [encodings.compare_layouts(4, 8).drop(columns="omega_interleaved")]),
          "height": HEIGHTS},
         lambda: {"table": encodings.compare_layouts(6, 8)})


def circle_points():
    P = encodings.sinusoidal_encoding(10, 8, device="cpu", dtype=torch.float64)
    return {"start": P[[0, 2, 4], 2:4], "end": P[[3, 5, 7], 2:4], "positions": [0, 2, 4], "delta": 3}


register(charts.rotation_circle,
         {"start": tensors((3, 2)), "end": tensors((3, 2)), "positions": SEQ, "delta": INTS, "height": HEIGHTS},
         circle_points)
register(charts.architecture_chart, {"graph": lazy(lambda: [None, "abc", 5, (1, 2), summary()])},
         lambda: {"graph": complexity.architecture_graph(5, 3)})
register(charts.matrix_csv,
         {"X": tensors((4, 3)), "row_label": TITLES, "row_start": INTS, "col_prefix": TITLES},
         lambda: {"X": T(4, 3)})

# --- charts of the pretrained model
register(charts.head_gallery,
         {"attentions": tensors((2, 3, 4, 4)),
          "selected": among(None, (0, 0), (1, 2), (2, 0), (-1, 0), (0, 3), "ab", (1,), (1.5, 0), [1, 1], (True, 0), 5,
                            (10**30, 0)),
          "notes": among(None, [["a"] * 3] * 2, [["a"] * 3], [["a"] * 2] * 2, "abc", [[1, 2, 3]] * 2,
                         [["<b>x</b>"] * 3] * 2, ["abc", "def"]),
          "palette": PALETTE, "tile_height": HEIGHTS},
         lambda: {"attentions": torch.softmax(T(2, 3, 4, 4), dim=-1), "selected": (1, 2), "notes": [["a"] * 3] * 2})


def table_similarity(n=12, seed=0):
    return similarity.similarity_by_offset(T(n, 4, seed=seed), max_offset=n - 1, num_starts=n)


SIM_MAPS = lazy(lambda: [None, {}, "sims", {"a": None}, {5: table_similarity()}, [table_similarity()],
                         {"a": table_similarity(), "b": similarity.OffsetSimilarity(*(["x"] * 6))},
                         {"a": table_similarity(), "b": table_similarity(20, seed=1)},
                         {"a": table_similarity()._replace(mean=T(3))}])
register(charts.offset_similarity_comparison, {"sims": SIM_MAPS, "y_title": TITLES, "height": HEIGHTS},
         lambda: {"sims": {"learned": table_similarity(), "sinusoidal": table_similarity(seed=1)}})
register(charts.position_components_chart,
         {"scores": tensors((10, 3)), "explained": st.one_of(tensors((3,)), among(None)), "height": HEIGHTS},
         lambda: {"scores": T(10, 3), "explained": torch.tensor([0.5, 0.3, 0.1])})
register(charts.neighbour_distance_chart,
         {"steps": st.one_of(tensors((11,)).map(lambda t: {"learned": t}),
                             lazy(lambda: [None, {}, "steps", {"a": None}, {5: T(3).abs()}, {"a": torch.zeros(3)},
                                           {"a": -T(3).abs()}, {"a": T(3).abs(), "b": T(4).abs() * INF}])),
          "height": HEIGHTS},
         lambda: {"steps": {"learned": T(11).abs() + 0.1, "sinusoidal": T(11, seed=1).abs() + 0.1}})


# ---------------------------------------------------------------------------------------------
# Checking one call


def is_record(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


def public_callables() -> dict[int, tuple[str, object]]:
    """Every callable (function or class, not a result record or type alias) in the swept ``__all__``s."""
    found = {}
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not is_record(obj) and typing.get_origin(obj) is None:
                found.setdefault(id(obj), (f"{module_name}.{name}", obj))
    return found


def _names(message: str, word: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", message) is not None


def _finite_values(obj: object, seen: int = 0):
    """Every number of ``obj`` that must be finite: tensors, floats, frames, nested containers."""
    if seen > 6 or obj is None:
        return
    if isinstance(obj, torch.Tensor):
        if obj.device.type != "meta" and (obj.dtype.is_floating_point or obj.dtype.is_complex):
            yield obj if obj.dtype in (torch.float32, torch.float64) or obj.is_complex() else obj.float()
    elif isinstance(obj, (bool, int, str, bytes, torch.device, torch.dtype)):
        return
    elif isinstance(obj, float):
        yield torch.tensor(obj)
    elif isinstance(obj, pd.DataFrame):
        numbers = obj.select_dtypes(include="number")
        if numbers.size:
            yield torch.tensor(numbers.to_numpy(dtype="float64"))
    elif isinstance(obj, torch.nn.Module):
        for t in list(obj.parameters()) + list(obj.buffers()):
            yield from _finite_values(t.detach(), seen + 1)
    elif isinstance(obj, Mapping):
        for v in obj.values():
            yield from _finite_values(v, seen + 1)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            yield from _finite_values(v, seen + 1)


def _all_finite(obj: object) -> bool:
    return all(bool(torch.isfinite(t).all()) for t in _finite_values(obj))


def _complex(obj: object) -> bool:
    if isinstance(obj, torch.Tensor):
        return obj.is_complex()
    if isinstance(obj, (tuple, list)):
        return any(_complex(v) for v in obj)
    return False


@contextmanager
def pekit_device(value: str | None):
    before = os.environ.get("PEKIT_DEVICE")
    if value is not None:
        os.environ["PEKIT_DEVICE"] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PEKIT_DEVICE", None)
        else:
            os.environ["PEKIT_DEVICE"] = before


def check_call(case: Case, changed: dict[str, object]) -> None:
    """Call ``case`` with its valid arguments, ``changed`` replacing some, and check the contract."""
    kwargs = case.base()
    kwargs.update((name, value) for name, value in changed.items() if name != "PEKIT_DEVICE")
    env = changed.get("PEKIT_DEVICE")
    if env is not None and "device" not in changed and "device" in kwargs:
        kwargs["device"] = None  # the variable decides where None computes
    finite_in = _all_finite(kwargs)
    with pekit_device(env):
        try:
            result = case.call(**kwargs)
            if isinstance(result, charts.Drawn):
                charts.to_spec(result)  # the chart must also serialise
        except ValueError as err:
            message = str(err)
            assert any(_names(message, name) for name in changed), (
                f"{case.label}: the ValueError does not name {sorted(changed)}: {message!r}")
            return
    assert not any(_complex(v) for v in changed.values()), f"{case.label} accepted a complex tensor"
    if finite_in:
        checked = case.finite(result) if case.finite else result
        assert _all_finite(checked), f"{case.label}: finite input gave non-finite output"


# --- families
register(families.shaw_relative_indices,
         {"num_queries": SIZES, "num_keys": SIZES, "max_distance": SIZES, **device_args()},
         lambda: {"num_queries": 5, "num_keys": 6, "max_distance": 2})
register(families.shaw_parameters, {"max_distance": SIZES, "head_dim": SIZES, "layers": SIZES},
         lambda: {"max_distance": 4, "head_dim": 8})
FAMILY_NAMES = st.one_of(NAME, st.sampled_from(list(families.FAMILIES) + ["rotary", "Shaw"]))
register(families.scheme_parameters,
         {"scheme": FAMILY_NAMES, "num_hiddens": SIZES, "num_heads": SIZES, "max_len": SIZES, "num_buckets": SIZES,
          "max_distance": SIZES, "layers": SIZES},
         lambda: {"scheme": "shaw", "num_hiddens": 16, "num_heads": 4})
register(families.scheme_matrix,
         {"scheme": FAMILY_NAMES, "num_positions": SIZES, "num_heads": SIZES, "num_hiddens": SIZES, "base": REALS,
          "causal": BOOL, "num_buckets": SIZES, "t5_max_distance": SIZES, "shaw_max_distance": SIZES,
          "table": tensors((6, 4))},
         lambda: {"scheme": "learned", "num_positions": 5, "num_heads": 2, "num_hiddens": 8, "table": T(6, 4)},
         finite=lambda r: r[torch.isfinite(r)] if isinstance(r, torch.Tensor) else r)
register(families.alibi_slope_table, {"num_heads": SIZES}, lambda: {"num_heads": 6})
register(families.t5_bucket_curve, {"max_offset": SIZES, "num_buckets": SIZES, "max_distance": SIZES},
         lambda: {"max_offset": 20})
register(families.rope_pair_permutation, {"dim": SIZES}, lambda: {"dim": 8})
register(families.rope_pairing_check, {"dim": SIZES, "num_positions": SIZES, "seed": INTS, "base": REALS},
         lambda: {"dim": 8, "num_positions": 5})
SCALING_NAMES = st.one_of(NAME, st.sampled_from(list(families.SCALINGS) + [None, "NTK", "longrope"]))
ROPE_SCALING = {"dim": SIZES, "base": REALS, "scaling": SCALING_NAMES, "factor": REALS, "original_max_len": INTS,
                "seq_len": st.one_of(INTS, st.none()), "beta_fast": REALS, "beta_slow": REALS}
for f in (families.rope_scaling, families.rope_frequencies):
    register(f, ROPE_SCALING, lambda: {"dim": 8, "scaling": "yarn", "factor": 4.0, "original_max_len": 64})
register(families.beyond_training,
         {"position": SIZES, "train_len": SIZES, "num_hiddens": SIZES, "num_heads": SIZES, "base": REALS,
          "num_buckets": SIZES, "t5_max_distance": SIZES, "shaw_max_distance": SIZES},
         lambda: {"position": 30, "train_len": 12, "num_hiddens": 16, "num_heads": 2})


# ---------------------------------------------------------------------------------------------
# The sweep

HOSTILE_CASES = [c for c in CASES if c.hostile]
# The same examples on every run (a test suite that passes or fails by chance helps nobody);
# PEKIT_SWEEP_RANDOM=1 explores fresh ones, PEKIT_SWEEP_EXAMPLES sets how many per callable.
SWEEP_FIXED = not os.environ.get("PEKIT_SWEEP_RANDOM")
SWEEP_EXAMPLES = int(os.environ.get("PEKIT_SWEEP_EXAMPLES", "30"))


def test_every_public_callable_has_hostile_calls():
    registered = {id(c.target) for c in CASES}
    missing = [name for key, (name, _) in public_callables().items() if key not in registered]
    assert not missing, f"public callables without hostile calls in tests/test_contract.py: {missing}"


def test_the_records_left_out_are_result_types():
    """Named-tuple results (``BlockSummary``, ``Drawn``, ...) hold what a function computed; they
    are the only callables in an ``__all__`` that the sweep does not call."""
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and (is_record(obj) or typing.get_origin(obj) is not None):
                assert is_record(obj) or typing.get_origin(obj) is typing.Literal, f"{module_name}.{name}"


@pytest.mark.parametrize("case", [c for c in CASES if not c.hostile], ids=lambda c: c.label)
def test_calls_without_arguments(case):
    check_call(case, {})


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda c: c.label)
@settings(max_examples=SWEEP_EXAMPLES, deadline=None, derandomize=SWEEP_FIXED, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(data=st.data())
def test_hostile_calls_keep_the_contract(case, data):
    names = sorted(case.hostile)
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(2, len(names)), unique=True),
                       label="arguments")
    changed = {name: data.draw(case.hostile[name], label=name) for name in chosen}
    check_call(case, changed)


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda c: c.label)
def test_the_valid_call_works(case):
    """The base call of every case is valid, so each hostile value is the only thing wrong."""
    result = case.call(**case.base())
    assert _all_finite(case.finite(result) if case.finite else result)


# ---------------------------------------------------------------------------------------------
# The breaks named in the issue, one assertion each


def raises_naming(call: Callable[[], object], *words: str) -> str:
    """Run ``call``; it must raise ``ValueError`` whose message names every one of ``words``."""
    with pytest.raises(ValueError) as err:
        call()
    message = str(err.value)
    assert all(_names(message, w) for w in words), message
    return message


def test_attention_scores_on_mismatched_shapes():
    raises_naming(lambda: attention.attention_scores(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6)), "queries", "keys")


def test_transpose_qkv_with_heads_that_do_not_divide():
    raises_naming(lambda: attention.transpose_qkv(torch.zeros(2, 3, 10), 4), "num_heads")


def test_transpose_output_with_heads_that_do_not_divide():
    raises_naming(lambda: attention.transpose_output(torch.zeros(3, 5, 4), 2), "num_heads")


def test_transpose_qkv_with_no_heads():
    raises_naming(lambda: attention.transpose_qkv(torch.zeros(2, 3, 8), 0), "num_heads")


def test_binary_encoding_with_a_dtype_name():
    raises_naming(lambda: pekit.binary_encoding(8, dtype="float32"), "dtype")


def test_unknown_chart_palette():
    raises_naming(lambda: charts.heatmap(torch.zeros(3, 3), x_title="x", y_title="y", palette="viridis"), "palette")


def test_token_embeddings_of_a_string():
    raises_naming(lambda: text.token_embeddings("abc", 8), "tokens")


def test_multi_head_valid_lens_message_shows_the_shapes_given():
    X = torch.zeros(2, 3, 8)
    message = raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, X, torch.tensor([1, 2, 3])), "valid_lens")
    assert "must have shape (2,) or (2, 3)" in message  # batch 2, not batch × heads = 4


def test_huge_sinusoidal_table_is_refused_before_allocating():
    raises_naming(lambda: pekit.sinusoidal_encoding(10**12, 8), "num_positions", "dim")


def test_huge_binary_table_is_refused_before_allocating():
    raises_naming(lambda: pekit.binary_encoding(10**8), "num_positions", "bits")


def test_huge_multi_head_layer_is_refused_before_allocating():
    raises_naming(lambda: pekit.MultiHeadAttention(10**5, 1, 0.0), "num_hiddens")


def test_huge_positional_encoding_is_refused_before_allocating():
    raises_naming(lambda: pekit.PositionalEncoding(8, 0.0, max_len=10**9), "max_len", "num_hiddens")


def test_more_threads_than_cores_are_refused():
    raises_naming(lambda: pekit.limit_threads(2**31 - 1), "num_threads")


def test_a_device_that_is_not_there():
    raises_naming(lambda: pekit.resolve_device("xla"), "device")


def test_a_pekit_device_variable_that_is_not_there():
    with pekit_device("xla"):
        raises_naming(pekit.default_device, "PEKIT_DEVICE")


def test_a_base_too_large_for_a_float():
    raises_naming(lambda: pekit.sinusoidal_encoding(4, 8, base=10**400), "base")


@pytest.mark.parametrize("valid_lens", ["ab", {"a": 1}, ["1", "2"], [10**400, 1]], ids=["string", "dict", "strings",
                                                                                       "huge"])
def test_valid_lens_in_forms_that_are_not_lengths(valid_lens):
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(2, 3, 4), valid_lens), "valid_lens")


def test_valid_lens_longer_than_the_keys_masks_nothing():
    X = torch.randn(2, 3, 4)
    assert torch.equal(pekit.masked_softmax(X, [2**64, 2]), pekit.masked_softmax(X, [4, 2]))


def test_valid_lens_that_are_nearly_whole_are_not_rounded():
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(2, 3, 4), [2.0000001, 3.0]), "valid_lens")


@pytest.mark.parametrize("dtype", [torch.int64, torch.float64])
def test_multi_head_attention_on_other_dtypes_is_refused_by_name(dtype):
    X = torch.zeros(2, 3, 8, dtype=dtype)
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, X), "queries")


def test_dot_product_attention_on_integers_is_refused_by_name():
    X = torch.zeros(2, 3, 8, dtype=torch.int64)
    raises_naming(lambda: pekit.DotProductAttention(0.0)(X, X, X), "queries")


def test_dot_product_attention_on_float64_computes_in_float64():
    q, k, v = (torch.randn(2, 3, 8, dtype=torch.float64) for _ in range(3))
    weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(8), dim=-1)
    assert torch.allclose(pekit.DotProductAttention(0.0)(q, k, v), weights @ v, atol=1e-12, rtol=0)


def test_positional_encoding_on_integers_is_refused():
    raises_naming(lambda: pekit.PositionalEncoding(8, 0.0)(torch.zeros(1, 4, 8, dtype=torch.int64)), "X")


def test_sinusoidal_columns_of_no_positions():
    assert pekit.sinusoidal_columns(0, 8, [0, 3]).shape == (0, 2)


# ---------------------------------------------------------------------------------------------
# Breaks the sweep found, one assertion each


def test_block_edges_refuse_more_blocks_than_pekit_allocates():
    raises_naming(lambda: reduce.block_edges(10**12, 10**12), "length", "max_blocks")


def test_measure_layers_refuses_a_width_whose_layers_do_not_fit():
    # nn.Conv1d(65536, 65536, 3) alone would hold 1.3e10 weights
    raises_naming(lambda: complexity.measure_layers([2], 2**16, num_heads=1, repeats=1, warmup=0), "d")


def test_a_flag_given_as_text_is_refused():
    # bool("False") is True: a string flag would silently turn causal masking on
    raises_naming(lambda: pekit.masked_softmax(torch.zeros(1, 2, 2), causal="False"), "causal")


def test_a_bias_flag_given_as_text_is_refused():
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0, bias="False"), "bias")


def test_complex_tensors_are_refused():
    # casting to a real dtype would drop the imaginary part without a word
    raises_naming(lambda: binary.pairwise_distances(torch.ones(3, 2, dtype=torch.complex64)), "X")


def test_meta_tensors_are_refused():
    raises_naming(lambda: pekit.masked_softmax(torch.empty(2, 3, 4, device="meta")), "X")


def test_float8_is_not_a_dtype_pekit_computes_in():
    raises_naming(lambda: pekit.sinusoidal_encoding(4, 8, dtype=torch.float8_e4m3fn), "dtype")


def test_a_mismatched_input_is_named_not_the_weight_behind_it():
    X = torch.zeros(2, 3, 8)
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0)(X, X, torch.zeros(2, 3, 9)), "values")


def test_the_size_of_a_huge_input_projection_is_named():
    raises_naming(lambda: pekit.MultiHeadAttention(8, 2, 0.0, key_size=10**12), "key_size")


def test_rope_names_the_width_of_x():
    raises_naming(lambda: pekit.apply_rope(torch.zeros(2, 5)), "x")


def test_fitted_slopes_names_the_frame():
    frame = pd.DataFrame({"n": [2, 4], "layer": ["CNN"] * 2, "seconds": [0.0, 1.0], "weights_bytes": [0, 0]})
    raises_naming(lambda: complexity.fitted_slopes(frame), "measured")


def test_chart_builders_name_what_they_were_given():
    raises_naming(lambda: charts.line_chart(pd.DataFrame({"n": [1, 2]}), x="n", y="value"), "y", "frame")


# ---------------------------------------------------------------------------------------------
# Breaks the sweep found in the position schemes, the tiny transformers and the pretrained model


def test_a_causal_flag_given_as_text_is_refused_by_the_schemes():
    # bool("False") is True: ALiBi would mask every later key without a word
    raises_naming(lambda: pekit.alibi_bias(3, 3, 2, causal="False"), "causal")
    raises_naming(lambda: pekit.t5_relative_buckets(3, 3, bidirectional="False"), "bidirectional")
    raises_naming(lambda: positions.ALiBiPositions(8, 2, causal="False"), "causal")


def test_a_base_given_as_text_is_refused_by_the_schemes():
    raises_naming(lambda: positions.SinusoidalPositions(8, 2, base="10000"), "base")
    raises_naming(lambda: positions.RotaryPositions(8, 2, base="abc"), "base")


def test_a_learned_table_of_nan_is_refused():
    raises_naming(lambda: positions.LearnedPositions(8, 2, max_len=4, std=NAN), "std")
    raises_naming(lambda: positions.position_scheme("learned", 8, 2, max_len=4, learned_std=NAN), "learned_std")


def test_score_bias_sizes_that_are_not_numbers():
    raises_naming(lambda: positions.ALiBiPositions(8, 2).bias("4", 4), "num_queries")


def test_t5_distances_without_a_log_bucket_are_refused_when_the_scheme_is_made():
    raises_naming(lambda: positions.T5Positions(8, 2, num_buckets=32, max_distance=4), "max_distance")


def test_a_learned_table_names_the_input_it_has_no_rows_for():
    raises_naming(lambda: positions.LearnedPositions(8, 2, max_len=4).embed(torch.zeros(1, 5, 8)), "X")


def test_task_sizes_given_as_text_are_refused():
    raises_naming(lambda: tasks.num_classes("reverse", "16", 8), "vocab")


def test_histogram_answers_do_not_grow_with_the_square_of_the_steps():
    x = torch.randint(0, 3, (1, 300_000))  # a (batch, steps, steps) comparison would hold 9e10 bools
    y = tasks.answers("histogram", x)
    assert torch.equal(y[0, :5], (x[0, :5, None] == x[0, None, :]).sum(-1))


def test_examples_from_something_that_is_not_a_generator():
    raises_naming(lambda: tasks.make_examples("sort", 2, 4, 8, generator="seed"), "generator")


def test_order_blind_ceiling_of_token_ids_out_of_range():
    # the counts would have had one column per id up to 10**12
    raises_naming(lambda: tasks.order_blind_ceiling("shift", torch.tensor([[10**12, 1, 2]])), "inputs")
    raises_naming(lambda: tasks.order_blind_ceiling("shift", torch.tensor([[-1, 1, 2]])), "inputs")


def test_a_config_of_text_sizes_is_refused_when_made():
    raises_naming(lambda: tiny.TinyConfig(seq_len="8"), "seq_len")
    raises_naming(lambda: tiny.TinyConfig.from_dict({"dim": "64"}), "values", "dim")


def test_a_model_of_something_that_is_not_a_config():
    raises_naming(lambda: tiny.TinyTransformer({"dim": 16}), "config")
    raises_naming(lambda: tiny.Block(10**6, 2), "dim")


def test_a_tiny_model_reads_token_ids_of_any_integer_dtype():
    x = token_ids(2, 4)
    assert torch.equal(small_model()(x.to(torch.uint8)), small_model()(x))


def test_evaluation_names_the_length_a_learned_table_has_no_rows_for():
    raises_naming(lambda: training.evaluate_tiny(small_model("learned"), "reverse", seq_len=5), "seq_len")


def test_evaluation_on_no_examples_is_refused():
    no_examples = (torch.zeros(0, 4, dtype=torch.long),) * 2
    raises_naming(lambda: training.evaluate_tiny(small_model(), "reverse", seq_len=4, inputs=no_examples), "inputs")


def test_extrapolation_of_a_learned_table_does_not_swallow_a_bad_task():
    # every ValueError of a learned model used to become a row saying it had no positions
    raises_naming(lambda: training.extrapolation(small_model("learned"), "copy"), "task")
    raises_naming(lambda: training.extrapolation(small_model(), "reverse", "48"), "lengths")


def test_extrapolation_lengths_with_one_point():
    raises_naming(lambda: training.extrapolation_lengths(8, points=1), "points")  # was a division by zero
    raises_naming(lambda: training.extrapolation_lengths(8, points=10**12), "points")  # was a loop of 10**12


def test_source_positions_of_an_unknown_task():
    raises_naming(lambda: training.source_positions("copy", 4), "task")  # was None: "copies no fixed position"
    raises_naming(lambda: training.source_positions("reverse", 10**12), "seq_len")


def test_clearest_head_of_no_heads():
    raises_naming(lambda: training.clearest_head(torch.zeros(0, 2, 4, 4), "reverse", causal=False), "weights")


def test_lessons_from_rows_without_the_numbers():
    raises_naming(lambda: training.lesson("reverse", "encoder", [{"positions": "none"}], 0.3), "rows")
    raises_naming(lambda: training.extrapolation_lesson({"rope": []}, 0), "seq_len")


def test_a_train_result_of_the_wrong_parts():
    raises_naming(lambda: training.TrainResult(**(run_fields() | {"stopped": "bored"})), "stopped")


def test_training_with_a_learning_rate_too_large_for_float32():
    raises_naming(lambda: training.train_tiny(**(SMALL_TRAINING | {"lr": 1e300})), "lr")


def test_a_checkpoint_written_to_a_folder():
    raises_naming(lambda: shipped.save_checkpoint(small_model(), scratch()), "path")


# the shipped calls below run in the small world too: should a check ever let the call through,
# it trains small models into the temporary folder instead of retraining pekit/checkpoints


def test_checking_kinds_given_as_one_string():
    # "encoder" was read letter by letter, as the kinds "e", "n", "c", ...
    with small_shipped_world():
        raises_naming(lambda: shipped.check(kinds="encoder"), "kinds")


def test_regenerating_to_something_that_cannot_be_written_to_is_refused_before_training():
    # the checkpoints used to be written first, and the print to "log.txt" to fail after them
    with small_shipped_world():
        raises_naming(lambda: shipped.regenerate(out="log.txt"), "out")


def test_weight_difference_of_empty_and_mismatched_state_dicts():
    raises_naming(lambda: shipped.weight_difference({}, {}), "a")
    raises_naming(lambda: shipped.weight_difference({"w": torch.zeros(2)}, {"w": torch.zeros(3)}), "a", "b")


def test_the_command_line_refuses_a_string_and_extra_words():
    with small_shipped_world():
        raises_naming(lambda: shipped.main("check"), "argv")
        assert shipped.main(["check", "extra"]) == 2  # it used to run check and drop the extra word


def test_a_minilm_config_too_large_to_allocate():
    big = MINI_CONFIG._replace(vocab_size=10**6, num_hiddens=4096)  # 4e9 weights in the word table alone
    raises_naming(lambda: pretrained.MiniLM(big), "config")


def test_minilm_ids_beyond_its_vocabulary_or_positions():
    raises_naming(lambda: mini_model()(torch.tensor([[30, 1]])), "ids")
    raises_naming(lambda: mini_model()(token_ids(1, 13)), "ids")


def test_word_pieces_that_are_not_whole_numbers_are_refused():
    e = encoded()
    raises_naming(lambda: pretrained.pretrained_attention(e._replace(ids=tuple(i + 0.5 for i in e.ids))), "text")


def test_pretrained_results_of_the_wrong_kind():
    raises_naming(lambda: pretrained.head_patterns("result"), "result")
    raises_naming(lambda: pretrained.find_token(None, "cat"), "tokens")


def test_a_threshold_given_as_a_flag_is_refused():
    raises_naming(lambda: pretrained.named_heads(pretrained.head_patterns(minilm_result()), threshold=True),
                  "threshold")


def test_components_of_a_constant_table_are_zero_not_nan():
    assert torch.equal(pretrained.position_components(torch.ones(6, 4), k=2).explained, torch.zeros(2))
    raises_naming(lambda: pretrained.position_components(torch.full((6, 4), NAN)), "P")


def test_colour_range_of_a_table_larger_than_torch_quantile_takes():
    X = torch.linspace(-1, 1, (1 << 24) + 2)  # torch.quantile stops at 2**24 entries
    r = pretrained.colour_range(X, share=0.5)
    assert r.low == pytest.approx(-0.5, abs=1e-6) and r.high == pytest.approx(0.5, abs=1e-6)
    raises_naming(lambda: pretrained.colour_range(X[:4], symmetric="False"), "symmetric")


def test_head_gallery_names_what_it_cannot_draw():
    A = torch.softmax(torch.zeros(2, 3, 4, 4), dim=-1)
    raises_naming(lambda: charts.head_gallery(A, selected="ab"), "selected")
    raises_naming(lambda: charts.head_gallery(A, tile_height=10**9), "tile_height")


def test_neighbour_distances_of_zero_on_a_log_axis():
    raises_naming(lambda: charts.neighbour_distance_chart({"a": torch.zeros(3)}), "steps")


def test_the_book_masked_softmax_in_float16():
    X = torch.zeros(1, 2, 3, dtype=torch.float16)  # -1e6 is no float16
    assert order.book_masked_softmax(X, [1])[0, :, 1:].eq(0).all()


def test_wavelength_growth_too_large_for_a_float():
    raises_naming(lambda: binary.wavelength_growth(1, base=1e200), "base", "dim")
