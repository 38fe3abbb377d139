"""Where one word piece looks: its weights on every piece, in every layer and head, and the
piece it looks at most in each layer."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_int
from .forward import PretrainedAttention, _check_result
from .wordpieces import _check_tokens

__all__ = ["TokenAttention", "token_attention", "token_attention_frame"]


class TokenAttention(NamedTuple):
    """The weights of the query at ``index`` on every word piece: ``mean`` ``(layers, T)``
    averaged over heads, ``per_head`` ``(layers, num_heads, T)``; ``top``: per layer, the piece
    (other than ``[CLS]``, ``[SEP]`` and the query itself) with the most mean weight, and that
    weight."""

    index: int
    token: str
    mean: Tensor
    per_head: Tensor
    top: list[tuple[int, float]]


def token_attention(result: PretrainedAttention, index: int) -> TokenAttention:
    """Where the word piece at ``index`` looks, in every layer and head of ``result``."""
    _check_result("result", result)
    T = len(result.tokens)
    index = check_int("index", index, minimum=0, maximum=T - 1)
    per_head = result.attentions[:, :, index, :].float().cpu()  # (layers, heads, T)
    mean = per_head.mean(dim=1)  # (layers, T)
    others = torch.ones(T, dtype=torch.bool)
    others[[0, T - 1, index]] = False
    top = []
    for layer in range(mean.shape[0]):
        if bool(others.any()):
            masked = torch.where(others, mean[layer], torch.full_like(mean[layer], -1.0))
            j = int(masked.argmax())
            top.append((j, float(mean[layer, j])))
        else:
            top.append((index, float(mean[layer, index])))
    return TokenAttention(index, result.tokens[index], mean, per_head, top)


def token_attention_frame(ta: TokenAttention, tokens: tuple[str, ...] | list[str]):
    """One row per layer: the piece (besides ``[CLS]``, ``[SEP]`` and the query itself) with the
    most weight averaged over heads, that weight, and the weight on ``[CLS]``, ``[SEP]`` and itself."""
    import pandas as pd

    if not isinstance(ta, TokenAttention):
        raise ValueError(f"ta must come from token_attention; got a {type(ta).__name__}")
    T = ta.mean.shape[1]
    tokens = _check_tokens("tokens", tokens)
    if len(tokens) != T:
        raise ValueError(f"tokens must hold the {T} word pieces the weights of ta are over; got {len(tokens)}")
    return pd.DataFrame({
        "layer": list(range(ta.mean.shape[0])),
        "most weight on": [f"{j} {tokens[j]}" for j, _ in ta.top],
        "its weight": [w for _, w in ta.top],
        "on [CLS]": ta.mean[:, 0].double().numpy(),
        "on [SEP]": ta.mean[:, T - 1].double().numpy(),
        "on itself": ta.mean[:, ta.index].double().numpy(),
    })
