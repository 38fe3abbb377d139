"""One copy of the model per device and process: the checkpoint read into a :class:`MiniLM`,
its tokenizer, and the learned position table on its own.

The one loaded copy is shared by every caller in the process (and by the threads of a server);
a lock makes sessions that ask at the same time wait for the first load instead of loading twice.
The Hugging Face libraries' offline switches are set before any file is read.

References
- Hugging Face ``safetensors``: the checkpoint's tensors, read without ``transformers``.
- Hugging Face ``tokenizers``: the WordPiece tokenizer, read from the ``tokenizer.json`` shipped
  with the model (nothing here splits text by hand).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import NamedTuple

import torch
from torch import Tensor

from ..devices import resolve_device
from .files import _go_offline, model_files
from .minilm import MiniLM, MiniLMConfig, _rename

__all__ = ["load_minilm", "pretrained_position_table"]

MAX_PIECES = 128  # word pieces the model reads, [CLS] and [SEP] included (its tokenizer's limit)


class _Loaded(NamedTuple):
    model: MiniLM
    tokenizer: object  # tokenizers.Tokenizer, truncating at MAX_PIECES
    counter: object  # the same tokenizer without truncation, to count what was cut


_LOCK = threading.Lock()
_LOADED: dict[str, _Loaded] = {}


def _tokenizers(path: Path) -> tuple[object, object]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_PIECES)
    counter = Tokenizer.from_file(str(path))
    counter.no_padding()
    counter.no_truncation()
    return tokenizer, counter


def _load(device: torch.device) -> _Loaded:
    key = str(device)
    with _LOCK:  # one copy per device and process, even when sessions ask at the same time
        if key not in _LOADED:
            _go_offline()
            from safetensors.torch import load_file

            files = model_files()
            config = MiniLMConfig.from_file(files["config.json"])
            # built on the CPU and then handed the checkpoint's tensors (assign=True: no copy); the
            # meta device would skip the random initialisation but imports seconds of torch internals
            model = MiniLM(config)
            weights = _rename(load_file(str(files["model.safetensors"]), device="cpu"))
            try:
                model.load_state_dict(weights, strict=True, assign=True)
            except RuntimeError as err:
                raise ValueError(f"{files['model.safetensors']} does not fit a {config}: {err}") from None
            model = model.to(device).eval().requires_grad_(False)
            _LOADED[key] = _Loaded(model, *_tokenizers(files["tokenizer.json"]))
        return _LOADED[key]


def load_minilm(device: str | torch.device | None = None) -> MiniLM:
    """The encoder with the checkpoint's weights, on ``device``; loaded once per device and
    process and shared afterwards. Raises ``RuntimeError`` naming the pip command when the
    model package is not installed."""
    return _load(resolve_device(device)).model


_TABLE: dict[str, Tensor] = {}


def pretrained_position_table(*, device: str | torch.device | None = None) -> Tensor:
    """The learned position embeddings of all-MiniLM-L6-v2, ``(512, 384)``: row ``i`` is what
    the model adds to the word piece in slot ``i``. Read from the checkpoint alone (the rest of
    the model is not loaded); a copy, so changing it changes nothing else."""
    dev = resolve_device(device)
    with _LOCK:
        if "cpu" not in _TABLE:
            _go_offline()
            from safetensors import safe_open

            with safe_open(str(model_files()["model.safetensors"]), framework="pt") as f:
                _TABLE["cpu"] = f.get_tensor("embeddings.position_embeddings.weight")
    return _TABLE["cpu"].to(dev, copy=True)
