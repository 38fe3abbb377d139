"""all-MiniLM-L6-v2 on one text: every layer's attention weights and hidden states, with the
learned positions or with them removed.

Shapes use the book's words: ``T`` word pieces (``[CLS]`` first and ``[SEP]`` last),
``num_hiddens`` = 384, ``num_heads`` = 12, ``layers`` = 6.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_tensor
from ..devices import resolve_device
from .loading import _load
from .wordpieces import Encoded, _check_encoded, _check_pieces, encode_text

__all__ = ["POSITIONS", "PretrainedAttention", "pretrained_attention"]

POSITIONS = ("learned", "zero")


class PretrainedAttention(NamedTuple):
    """all-MiniLM-L6-v2 on one text. ``tokens``: ``T`` word pieces, ``[CLS]`` first, ``[SEP]``
    last; ``attentions``: ``(layers, num_heads, T, T)`` (rows are queries and sum to 1);
    ``hidden_states``: ``(layers + 1, T, num_hiddens)``, the embeddings first;
    ``word_ids``: the word of each piece (``None`` for ``[CLS]``/``[SEP]``); ``positions``:
    ``"learned"`` or ``"zero"`` (position embeddings removed); ``cut``/``clipped``: as in
    :class:`Encoded`."""

    tokens: tuple[str, ...]
    attentions: Tensor
    hidden_states: Tensor
    word_ids: tuple[int | None, ...]
    ids: tuple[int, ...]
    positions: str
    cut: int
    clipped: bool


def pretrained_attention(text: str | Encoded, *, positions: str = "learned",
                         device: str | torch.device | None = None) -> PretrainedAttention:
    """Run all-MiniLM-L6-v2 on ``text`` (or on word pieces from :func:`encode_text` or
    :func:`shuffle_words`) and return every layer's attention weights and hidden states.

    ``positions="zero"`` removes the learned position embeddings (the rest of the model is
    unchanged), to see what the model makes of the words without their order.
    """
    if not isinstance(positions, str) or positions not in POSITIONS:
        raise ValueError(f"positions={str(positions)[:40]!r} must be one of {', '.join(POSITIONS)}")
    dev = resolve_device(device)
    encoded = _check_encoded("text", text) if isinstance(text, Encoded) else encode_text(text, device=dev)
    loaded = _load(dev)
    if max(encoded.ids) >= loaded.model.config.vocab_size:
        raise ValueError(f"text holds word-piece ids beyond the model's {loaded.model.config.vocab_size:,}")
    ids = torch.tensor([encoded.ids], dtype=torch.long, device=dev)  # (1, T)
    with torch.inference_mode():
        states, weights = loaded.model(ids, positions=positions == "learned")
    return PretrainedAttention(encoded.tokens, weights[:, 0], states[:, 0], encoded.word_ids, encoded.ids,
                               positions, encoded.cut, encoded.clipped)


def _check_result(name: str, result: object) -> PretrainedAttention:
    """``result`` as a :class:`PretrainedAttention` whose parts fit together, or ``ValueError``."""
    if not isinstance(result, PretrainedAttention):
        raise ValueError(f"{name} must come from pretrained_attention; got a {type(result).__name__}")
    T = _check_pieces(name, {"tokens": result.tokens, "ids": result.ids, "word_ids": result.word_ids})
    A = check_tensor(f"{name}.attentions", result.attentions, dims=4, floating=True, what="(layers, num_heads, T, T)")
    if A.shape[-2:] != (T, T) or A.shape[0] < 1 or A.shape[1] < 1:
        raise ValueError(f"{name}.attentions must have shape (layers, num_heads, {T}, {T}); got {tuple(A.shape)}")
    H = check_tensor(f"{name}.hidden_states", result.hidden_states, dims=3, floating=True,
                     what="(layers + 1, T, num_hiddens)")
    if H.shape[1] != T or H.shape[0] not in (0, A.shape[0] + 1):  # none: a caller that keeps the weights only
        raise ValueError(f"{name}.hidden_states must have shape ({A.shape[0] + 1}, {T}, num_hiddens), or none of "
                         f"them; got {tuple(H.shape)}")
    if not isinstance(result.positions, str) or result.positions not in POSITIONS:
        raise ValueError(f"{name}.positions must be one of {', '.join(POSITIONS)}")
    return result
