"""The harness of the contract checks: the hostile values, the registry of calls, and the check of
one call.

References
- The design's "public API of pekit (the contract)": every function "raises ``ValueError`` with a
  message naming the bad argument for invalid input (never a bare torch error, never a silent
  wrong answer)".
- Hypothesis (property-based testing): each public callable is called with a valid set of
  arguments in which one or two are replaced by what a hostile caller would pass (wrong ranks and
  dtypes, empty tensors, huge and malformed sizes, missing devices, ``valid_lens`` in every wrong
  form, unknown layout or palette names, NaN and inf).

The property, for every call: it returns, or raises ``ValueError`` whose message names one of the
replaced arguments; no other exception escapes. A complex tensor is always refused (pekit is
real-valued; casting would drop the imaginary part silently). When every input is finite, what
comes back is finite too (NaN or inf in an input may come out as NaN or inf).

Each module of pekit has its own file beside this one, ``test_<module>.py``, which registers the
calls of that module in its ``CASES`` and turns them into tests with :func:`sweep`; it also holds
the regression examples of that module, one assertion each.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pekit import attention, charts, pretrained, tiny, training

# ---------------------------------------------------------------------------------------------
# Hostile values

NAN, INF = float("nan"), float("inf")

# whole numbers: malformed, negative, far too large, and big but plausible
BAD_INTS = [10**12, 2**63, 2**31 - 1, 10**9, 2**16, -1, -(2**63), 0, 1.5, 8.0, "8", b"8", None, NAN, INF, -INF,
            10**400, -(10**400), True, False, 8 + 0j, [8], (8,), {8: 8}, torch.tensor(3.5), torch.tensor([2, 3]),
            torch.tensor(3), np.int64(3), np.float64(3.0), 2**52, 2**52 + 1, 2**53, -(2**52), 2**62, 2**14, 2**14 + 1,
            2**28, 2**28 + 1]
# real numbers (base, tolerances, radians)
BAD_REALS = [0, 0.0, -1.0, -0.0, NAN, INF, -INF, 10**400, -(10**400), "10000", None, 1e-300, 1e-7, 1e300, 1e308,
             2.0**1000, True, 1 + 1j, [1.0], torch.tensor(2.0), torch.tensor([1.0, 2.0]), np.float32(3.0),
             5e-324, 1e-320, 2.2250738585072014e-308, 1e-6, 1e6, -5e-324]
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
TEXTS = ["", "x" * 300, None, 3, b"bytes", ["a"], "🙂\x00<script>", float("nan"), "\ud800", "a\udfffb c", "\udc80" * 3]
SEQUENCES = ["abc", "", 5, None, {"a": 1}, {1, 2}, [], [0], [-1], [1.5], [10**12], [2**63], [NAN], ["3"], [None],
             [2, "3"], range(1, 4), (2, 3), [[1, 2]], torch.tensor([2, 3]), torch.tensor([[2, 3]]),
             torch.tensor([2.5]), torch.tensor([1 + 1j]), b"ab", np.array([2, 3])]
VALID_LENS = ["abc", "", b"ab", {"a": 1}, {1, 2}, [2.0000001, 3.0], [2.5, 1.0], [10**30, 1], [2**63, 1],
              [10**400, 1], [-1, 2], [1, 2, 3], [[1]], [], 3, 2.0, [NAN, 1], [INF, 1], [None, 1], ["1", "2"],
              [True, False], torch.tensor([1.5, 2.0]), torch.tensor([True, False]), torch.tensor([1 + 0j, 2]),
              torch.tensor([[1, 2, 3]]), torch.zeros(0), torch.tensor([-1, 2]), torch.tensor([2**62, 1]),
              torch.tensor([NAN, 1.0]), torch.ones(2, 3, 4), torch.tensor(2), np.array([1, 2]), [0, 0], [100, 1],
              torch.tensor([0, 1], device="meta"), None]
def _returns(value):
    return lambda *args, **kwargs: value


# functions that return the wrong thing: None, a string, a number, a tensor of the wrong shape, NaN
CALLABLES = [None, 5, "fn", [print], {"a": 1}, _returns(None), _returns("x"), _returns(3.0),
             _returns(torch.zeros(1)), lambda *a, **k: a[0] * NAN if a and isinstance(a[0], torch.Tensor) else None,
             lambda *a, **k: a[0].double() if a and isinstance(a[0], torch.Tensor) else None,
             lambda *a, **k: (i for i in range(3))]  # a generator: its work has not run when it returns
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


class Cases(list[Case]):
    """The registered calls of one module of pekit."""

    def register(self, target, hostile, base=dict, *, call=None, label="", finite=None):
        self.append(Case(target, call or target, base, hostile, label or getattr(target, "__name__", str(target)),
                         finite))


def T(*shape, dtype=torch.float32, seed=0):
    return make_tensor(shape, dtype, seed=seed)


def device_args(**extra):
    """Hostile values for a ``device`` argument, and for the ``PEKIT_DEVICE`` variable."""
    return {"device": DEVICE, "PEKIT_DEVICE": st.sampled_from(PEKIT_DEVICES), **extra}


# ---------------------------------------------------------------------------------------------
# Values the cases of several modules share

TOKEN_LISTS = among("abc", "", None, 5, ["a", 1], [None], [b"a"], {"a"}, {"a": 1}, ("a", "b"), ["🙂", "\x00"],
                    ["a"] * 50, [], iter(["a"]), np.array(["a", "b"]))
SCHEME_NAMES = st.one_of(NAME, among("none", "sinusoidal", "learned", "rope", "alibi", "t5", "ALiBi", "rope ",
                                     "rotary", "learned\x00"))
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
CONFIGS = lazy(lambda: [None, "config", 5, small_config().to_dict(), small_config("learned", "decoder"),
                        pretrained.MiniLMConfig(30, 8, 1, 2, 16, 12, 2, 1e-12)])
SMALL_MODELS = lazy(lambda: [None, "model", torch.nn.Linear(4, 4), attention.MultiHeadAttention(8, 2, 0.0),
                             small_model("learned"), small_model("t5", "decoder"), small_run()])


# ---------------------------------------------------------------------------------------------
# Checking one call


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


def raises_naming(call: Callable[[], object], *words: str) -> str:
    """Run ``call``; it must raise ``ValueError`` whose message names every one of ``words``."""
    with pytest.raises(ValueError) as err:
        call()
    message = str(err.value)
    assert all(_names(message, w) for w in words), message
    return message


# ---------------------------------------------------------------------------------------------
# The sweep

# The same examples on every run (a test suite that passes or fails by chance helps nobody);
# PEKIT_SWEEP_RANDOM=1 explores fresh ones, PEKIT_SWEEP_EXAMPLES sets how many per callable.
SWEEP_FIXED = not os.environ.get("PEKIT_SWEEP_RANDOM")
SWEEP_EXAMPLES = int(os.environ.get("PEKIT_SWEEP_EXAMPLES", "30"))


def sweep(cases: list[Case]) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two tests of a module's ``cases``, for its file to hold under these names: every valid
    call works, and every case with hostile arguments keeps the contract on the hostile calls."""

    @pytest.mark.parametrize("case", cases, ids=lambda c: c.label)
    def test_the_valid_call_works(case):
        """The base call of every case is valid, so each hostile value is the only thing wrong."""
        result = case.call(**case.base())
        assert _all_finite(case.finite(result) if case.finite else result)

    @pytest.mark.parametrize("case", [c for c in cases if c.hostile], ids=lambda c: c.label)
    @settings(max_examples=SWEEP_EXAMPLES, deadline=None, derandomize=SWEEP_FIXED, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(data=st.data())
    def test_hostile_calls_keep_the_contract(case, data):
        names = sorted(case.hostile)
        chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(2, len(names)), unique=True),
                           label="arguments")
        changed = {name: data.draw(case.hostile[name], label=name) for name in chosen}
        check_call(case, changed)

    return test_the_valid_call_works, test_hostile_calls_keep_the_contract
