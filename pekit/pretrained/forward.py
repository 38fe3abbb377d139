"""all-MiniLM-L6-v2 on one text: every layer's attention weights and hidden states, with the
learned positions or with them removed.

Shapes use the book's words: ``T`` word pieces (``[CLS]`` first and ``[SEP]`` last),
``num_hiddens`` = 384, ``num_heads`` = 12, ``layers`` = 6.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_int
from ..devices import resolve_device
from .loading import _load
from .wordpieces import Encoded, _check_encoded, encode_text

__all__ = ["POSITIONS", "PretrainedAttention", "pretrained_attention", "weights_only", "head_weights"]

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
    ids = torch.tensor([encoded.ids], dtype=torch.long, device=dev)  # (1, T)
    with torch.inference_mode():
        states, weights = loaded.model(ids, positions=positions == "learned")
    return PretrainedAttention(encoded.tokens, weights[:, 0], states[:, 0], encoded.word_ids, encoded.ids,
                               positions, encoded.cut, encoded.clipped)


def _check_result(name: str, result: object) -> PretrainedAttention:
    """``result`` as the :class:`PretrainedAttention` it must be, or ``ValueError`` naming ``name``."""
    if not isinstance(result, PretrainedAttention):
        raise ValueError(f"{name} must come from pretrained_attention; got a {type(result).__name__}")
    return result


def weights_only(result: PretrainedAttention) -> PretrainedAttention:
    """``result`` as a page keeps it: its attention weights on the CPU and no hidden states (an
    empty ``(0, T, num_hiddens)`` tensor of their dtype, on the CPU); everything else as it was."""
    result = _check_result("result", result)
    return result._replace(attentions=result.attentions.cpu(), hidden_states=result.hidden_states[:0].cpu())


def head_weights(result: PretrainedAttention, layer: int, head: int) -> Tensor:
    """One head's weights, ``(T, T)`` (rows are queries), of layer ``layer`` (``0 .. layers - 1``),
    on the CPU."""
    result = _check_result("result", result)
    layers, heads = result.attentions.shape[:2]
    layer = check_int("layer", layer, minimum=0, maximum=layers - 1)
    head = check_int("head", head, minimum=0, maximum=heads - 1)
    return result.attentions[layer, head].cpu()
