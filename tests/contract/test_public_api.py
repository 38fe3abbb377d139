"""pekit's public API as a whole: the design's names at the top level, each ``__all__`` listing only
what exists, and every module of pekit swept by a contract file of its own, in which each public
callable has hostile calls.

References
- The design's "public API of pekit (the contract)" and its "contract additions (position schemes,
  trained and pretrained models)": the names below are fixed there.
"""

from __future__ import annotations

import importlib
import typing
from pathlib import Path

import pytest

import pekit

from .sweep import Case

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
    # the contract additions
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_buckets",
    "rope_frequencies",
    "train_tiny",
    "evaluate_tiny",
    "pretrained_attention",
    "pretrained_position_table",
]

PACKAGE = Path(pekit.__file__).parent
# the modules of pekit: its public files and its subpackages
MODULES = sorted({p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
                 | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()})
SWEPT_MODULES = ["pekit"] + [f"pekit.{m}" for m in MODULES]


@pytest.mark.parametrize("name", CONTRACT)
def test_contract_name_is_public(name):
    assert callable(getattr(pekit, name, None)), f"pekit.{name} is missing"
    assert name in pekit.__all__


def test_every_module_is_swept():
    """A new module of pekit gets a contract file of its own (its callables need hostile calls too)."""
    here = Path(__file__)
    files = {p.stem for p in here.parent.glob("test_*.py")} - {here.stem}
    expected = {f"test_{m}" for m in MODULES}
    assert files == expected, (f"modules without a contract file: {sorted(expected - files)}; "
                               f"contract files of no module: {sorted(files - expected)}")


def test_all_lists_only_what_exists():
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(module_name)
        assert len(set(module.__all__)) == len(module.__all__), f"{module_name}.__all__ repeats a name"
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert not missing, f"{module_name}.__all__ lists names it does not define: {missing}"


def swept_cases() -> list[Case]:
    """The cases registered in the contract file of every module."""
    return [case for m in MODULES for case in importlib.import_module(f".test_{m}", __package__).CASES]


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


def test_every_public_callable_has_hostile_calls():
    registered = {id(c.target) for c in swept_cases()}
    missing = [name for key, (name, _) in public_callables().items() if key not in registered]
    assert not missing, f"public callables without hostile calls in tests/contract/test_<module>.py: {missing}"


def test_the_records_left_out_are_result_types():
    """Named-tuple results (``BlockSummary``, ``Drawn``, ...) hold what a function computed; they
    are the only callables in an ``__all__`` that the sweep does not call."""
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and (is_record(obj) or typing.get_origin(obj) is not None):
                assert is_record(obj) or typing.get_origin(obj) is typing.Literal, f"{module_name}.{name}"
