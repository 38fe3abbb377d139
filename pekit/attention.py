r"""Scaled dot-product attention with ``valid_lens`` masking, and multi-head attention.

References
- Vaswani et al., "Attention Is All You Need" (2017), sections 3.2.1-3.2.2:
  :math:`\mathrm{softmax}(QK^\top/\sqrt{d})V` and heads concatenated then projected by
  :math:`W_o`.
- Dive into Deep Learning, "Attention Scoring Functions" and "Multi-Head Attention": the
  signatures, the parameter names ``W_q, W_k, W_v, W_o`` and ``transpose_qkv`` /
  ``transpose_output``, so a state dict saved from the book's classes loads here.

Shapes use the book's words: ``(batch, queries, num_hiddens)`` for queries,
``(batch, keys, num_hiddens)`` for keys and values.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_int, check_probability

__all__ = [
    "masked_softmax",
    "attention_scores",
    "dot_product_attention",
    "DotProductAttention",
    "transpose_qkv",
    "transpose_output",
    "MultiHeadAttention",
]


def _check_valid_lens(valid_lens: Tensor | list | tuple, batch: int, queries: int, device) -> Tensor:
    """Validate ``valid_lens`` and return it as an int64 tensor of shape (batch, queries)."""
    lens = torch.as_tensor(valid_lens, device=device)
    if lens.dtype == torch.bool or lens.is_complex():
        raise ValueError(f"valid_lens must hold whole numbers; got dtype {lens.dtype}")
    if lens.dim() == 1:
        if lens.shape[0] != batch:
            raise ValueError(f"valid_lens of shape {tuple(lens.shape)} must have shape ({batch},)")
        lens = lens[:, None].expand(batch, queries)
    elif lens.dim() == 2:
        if tuple(lens.shape) != (batch, queries):
            raise ValueError(
                f"valid_lens of shape {tuple(lens.shape)} must have shape ({batch},) "
                f"or ({batch}, {queries})"
            )
    else:
        raise ValueError(
            f"valid_lens must have shape ({batch},) or ({batch}, {queries}); got {tuple(lens.shape)}"
        )
    if lens.dtype.is_floating_point:
        if not bool(torch.isfinite(lens).all()) or bool((lens != lens.round()).any()):
            raise ValueError("valid_lens must hold whole numbers (lengths of sequences)")
    if lens.numel() and bool((lens < 0).any()):
        raise ValueError(f"valid_lens must be >= 0; got minimum {lens.min().item()}")
    return lens.to(torch.int64)


def masked_softmax(X: Tensor, valid_lens: Tensor | list | tuple | None = None) -> Tensor:
    r"""Softmax over the last axis of ``X`` that gives keys at index ``>= valid_len`` weight 0.

    ``X``: ``(batch, queries, keys)``. ``valid_lens``: ``None``, ``(batch,)`` (one length per
    sequence) or ``(batch, queries)`` (one per query). Masked keys get weight exactly 0; a row
    whose valid length is 0 is all zeros, never NaN.
    """
    if not isinstance(X, Tensor) or X.dim() != 3:
        shape = tuple(X.shape) if isinstance(X, Tensor) else type(X).__name__
        raise ValueError(f"X must be a tensor of shape (batch, queries, keys); got {shape}")
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    batch, queries, keys = X.shape
    lens = _check_valid_lens(valid_lens, batch, queries, X.device)  # (batch, queries)
    keep = torch.arange(keys, device=X.device) < lens[..., None]  # (batch, queries, keys)
    # A finite fill keeps fully masked rows free of NaN (also in the backward pass);
    # exp(min - max) underflows to exactly 0, and torch.where zeroes those rows outright.
    filled = X.masked_fill(~keep, torch.finfo(X.dtype).min)
    return torch.where(keep, F.softmax(filled, dim=-1), torch.zeros((), dtype=X.dtype, device=X.device))


def _check_qkv(queries: Tensor, keys: Tensor, values: Tensor) -> None:
    for name, t in (("queries", queries), ("keys", keys), ("values", values)):
        if not isinstance(t, Tensor) or t.dim() != 3:
            shape = tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(f"{name} must be a tensor of shape (batch, steps, features); got {shape}")
    if queries.shape[0] != keys.shape[0] or keys.shape[0] != values.shape[0]:
        raise ValueError(
            f"queries, keys and values must share the batch size; got "
            f"{queries.shape[0]}, {keys.shape[0]}, {values.shape[0]}"
        )
    if keys.shape[1] != values.shape[1]:
        raise ValueError(f"keys ({keys.shape[1]} steps) and values ({values.shape[1]}) must have as many steps")


def attention_scores(queries: Tensor, keys: Tensor) -> Tensor:
    r"""Scaled dot products :math:`QK^\top/\sqrt{d}`: ``(batch, queries, d)`` x ``(batch, keys, d)``
    -> ``(batch, queries, keys)``."""
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError(
            f"queries have {queries.shape[-1]} features but keys have {keys.shape[-1]}; they must match"
        )
    d = queries.shape[-1]
    return torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)


def dot_product_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    valid_lens: Tensor | None = None,
    *,
    dropout: float = 0.0,
    training: bool = False,
) -> tuple[Tensor, Tensor]:
    r""":math:`\mathrm{softmax}(QK^\top/\sqrt{d})\,V` with ``valid_lens`` masking.

    Returns ``(output, weights)``: ``(batch, queries, value_dim)`` and ``(batch, queries, keys)``.
    Dropout (only when ``training``) acts on the weights used for the output, as in the book;
    the returned weights are the ones before dropout.
    """
    _check_qkv(queries, keys, values)
    weights = masked_softmax(attention_scores(queries, keys), valid_lens)  # (batch, queries, keys)
    dropped = F.dropout(weights, p=dropout, training=training) if dropout else weights
    return torch.bmm(dropped, values), weights


class DotProductAttention(nn.Module):
    """The book's ``DotProductAttention(dropout)``; ``attention_weights`` holds the last weights."""

    attention_weights: Tensor

    def __init__(self, dropout: float) -> None:
        super().__init__()
        self.dropout = check_probability("dropout", dropout)

    def forward(
        self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None
    ) -> Tensor:
        # Shapes: queries (batch, queries, d), keys (batch, keys, d), values (batch, keys, v)
        output, self.attention_weights = dot_product_attention(
            queries, keys, values, valid_lens, dropout=self.dropout, training=self.training
        )
        return output  # (batch, queries, v)


def transpose_qkv(X: Tensor, num_heads: int) -> Tensor:
    """Split the last axis into heads: ``(batch, steps, num_hiddens)`` ->
    ``(batch * num_heads, steps, num_hiddens / num_heads)``. Inverse: :func:`transpose_output`."""
    batch, steps, num_hiddens = X.shape
    X = X.reshape(batch, steps, num_heads, num_hiddens // num_heads)  # (batch, steps, heads, hs)
    X = X.permute(0, 2, 1, 3)  # (batch, heads, steps, hs)
    return X.reshape(batch * num_heads, steps, num_hiddens // num_heads)


def transpose_output(X: Tensor, num_heads: int) -> Tensor:
    """Merge heads back: ``(batch * num_heads, steps, hs)`` -> ``(batch, steps, num_heads * hs)``.
    Inverse: :func:`transpose_qkv`."""
    bh, steps, hs = X.shape
    X = X.reshape(bh // num_heads, num_heads, steps, hs)  # (batch, heads, steps, hs)
    X = X.permute(0, 2, 1, 3)  # (batch, steps, heads, hs)
    return X.reshape(bh // num_heads, steps, num_heads * hs)


class MultiHeadAttention(nn.Module):
    r"""The book's ``MultiHeadAttention(num_hiddens, num_heads, dropout, bias=False)``.

    :math:`\mathrm{MultiHead}(Q,K,V) = W_o[\mathrm{head}_1;\dots;\mathrm{head}_h]`, with
    :math:`\mathrm{head}_i = \mathrm{attention}(QW_q^{(i)}, KW_k^{(i)}, VW_v^{(i)})`.
    The input sizes default to ``num_hiddens`` (the book infers them lazily); pass
    ``query_size``, ``key_size`` or ``value_size`` for other widths. After a forward,
    ``attention_weights`` holds ``(batch, num_heads, queries, keys)``.
    """

    attention_weights: Tensor

    def __init__(
        self,
        num_hiddens: int,
        num_heads: int,
        dropout: float,
        bias: bool = False,
        *,
        query_size: int | None = None,
        key_size: int | None = None,
        value_size: int | None = None,
    ) -> None:
        super().__init__()
        num_hiddens = check_int("num_hiddens", num_hiddens, minimum=1)
        num_heads = check_int("num_heads", num_heads, minimum=1)
        if num_hiddens % num_heads:
            raise ValueError(f"num_hiddens={num_hiddens} is not divisible by num_heads={num_heads}")
        sizes = {}
        for name, size in (("query_size", query_size), ("key_size", key_size), ("value_size", value_size)):
            sizes[name] = num_hiddens if size is None else check_int(name, size, minimum=1)
        self.num_hiddens, self.num_heads = num_hiddens, num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(sizes["query_size"], num_hiddens, bias=bias)
        self.W_k = nn.Linear(sizes["key_size"], num_hiddens, bias=bias)
        self.W_v = nn.Linear(sizes["value_size"], num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(
        self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: Tensor | None = None
    ) -> Tensor:
        # Shapes: queries (batch, queries, query_size), keys (batch, keys, key_size),
        # values (batch, keys, value_size); valid_lens (batch,) or (batch, queries)
        _check_qkv(queries, keys, values)
        for name, t, layer in (("queries", queries, self.W_q), ("keys", keys, self.W_k), ("values", values, self.W_v)):
            if t.shape[-1] != layer.in_features:
                raise ValueError(f"{name} have {t.shape[-1]} features; this layer expects {layer.in_features}")
        h = self.num_heads
        q = transpose_qkv(self.W_q(queries), h)  # (batch * heads, queries, hs)
        k = transpose_qkv(self.W_k(keys), h)  # (batch * heads, keys, hs)
        v = transpose_qkv(self.W_v(values), h)  # (batch * heads, keys, hs)
        if valid_lens is not None:
            valid_lens = torch.as_tensor(valid_lens, device=queries.device)
            if valid_lens.dim() not in (1, 2) or valid_lens.shape[0] != queries.shape[0]:
                raise ValueError(
                    f"valid_lens of shape {tuple(valid_lens.shape)} must have shape "
                    f"({queries.shape[0]},) or ({queries.shape[0]}, {queries.shape[1]})"
                )
            valid_lens = torch.repeat_interleave(valid_lens, repeats=h, dim=0)
        output = self.attention(q, k, v, valid_lens)  # (batch * heads, queries, hs)
        batch, n_q, n_k = queries.shape[0], queries.shape[1], keys.shape[1]
        self.attention_weights = self.attention.attention_weights.reshape(batch, h, n_q, n_k)
        return self.W_o(transpose_output(output, h))  # (batch, queries, num_hiddens)
