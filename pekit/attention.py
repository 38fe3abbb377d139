r"""Scaled dot-product attention with ``valid_lens`` masking, and multi-head attention.

References
- Vaswani et al., "Attention Is All You Need" (2017), sections 3.2.1-3.2.2:
  :math:`\mathrm{softmax}(QK^\top/\sqrt{d})V`, heads concatenated then projected by :math:`W_o`.
- Dive into Deep Learning, "Attention Scoring Functions" and "Multi-Head Attention": the
  signatures, the parameter names ``W_q, W_k, W_v, W_o`` and ``transpose_qkv`` /
  ``transpose_output``, so a state dict saved from the book's classes loads here.
- The Annotated Transformer: a plain ``attention(query, key, value, mask)`` function under the
  module. Here :func:`multi_head_attention` is that function; :class:`MultiHeadAttention`
  only holds the parameters and calls it.

Where positions enter. :func:`multi_head_attention` takes two optional hooks used by the
position schemes of :mod:`pekit.positions`: ``rotary`` turns the queries and keys of every head
(RoPE), ``score_bias`` is added to the scaled scores (ALiBi, T5's relative buckets); a ``-inf``
in the bias masks that key like ``valid_lens`` does. ``causal=True`` lets query ``i`` see keys
``0 .. i`` only (a decoder).

On a GPU no call waits for the device by reading values from Python: masks are built with
tensor operations whatever the data hold, and only a ``valid_lens`` tensor not seen before is
read, once, for the ``ValueError`` the contract asks of bad lengths (see :mod:`pekit._masking`).

Shapes use the book's words: ``(batch, queries, num_hiddens)`` for queries,
``(batch, keys, num_hiddens)`` for keys and values.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import MAX_ELEMENTS, check_bool, check_data, check_int, check_probability
from ._masking import (  # _masked_softmax and _valid_lengths are also used by pekit.order and pekit.llama
    ValidLens,
    _check_3d,
    _describe,
    _keep_mask,
    _masked_softmax,
    _reads_are_free,
    _valid_lengths,
    masked_softmax,
)

__all__ = [
    "masked_softmax",
    "attention_scores",
    "dot_product_attention",
    "DotProductAttention",
    "transpose_qkv",
    "transpose_output",
    "multi_head_attention",
    "MultiHeadAttention",
]

def _check_qkv(queries: Tensor, keys: Tensor, values: Tensor) -> None:
    what = "(batch, steps, features)"
    for name, t in (("queries", queries), ("keys", keys), ("values", values)):
        _check_3d(name, t, what)
    if not queries.shape[0] == keys.shape[0] == values.shape[0]:
        raise ValueError(
            f"queries, keys and values must share the batch size; got {queries.shape[0]}, {keys.shape[0]}, {values.shape[0]}"
        )
    if keys.shape[1] != values.shape[1]:
        raise ValueError(f"keys ({keys.shape[1]} steps) and values ({values.shape[1]} steps) must have as many steps")
    if not queries.dtype == keys.dtype == values.dtype:
        raise ValueError(f"queries, keys and values must share a dtype; got {queries.dtype}, {keys.dtype}, {values.dtype}")
    if not queries.device == keys.device == values.device:
        raise ValueError(f"queries, keys and values must be on one device; got {queries.device}, {keys.device}, {values.device}")


def attention_scores(queries: Tensor, keys: Tensor) -> Tensor:
    r"""Scaled dot products :math:`QK^\top/\sqrt{d}`: ``(batch, queries, d)`` x ``(batch, keys, d)``
    -> ``(batch, queries, keys)``."""
    _check_3d("queries", queries, "(batch, queries, d)")
    _check_3d("keys", keys, "(batch, keys, d)")
    if queries.shape[0] != keys.shape[0]:
        raise ValueError(f"queries ({queries.shape[0]} sequences) and keys ({keys.shape[0]}) must share the batch size")
    _check_width(queries, keys)
    if queries.dtype != keys.dtype or queries.device != keys.device:
        raise ValueError("queries and keys must share a dtype and a device")
    return _scores(queries, keys)


def _check_width(queries: Tensor, keys: Tensor) -> None:
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError(f"queries have {queries.shape[-1]} features but keys have {keys.shape[-1]}; they must match")


def _scores(queries: Tensor, keys: Tensor) -> Tensor:
    """:func:`attention_scores` of checked tensors."""
    d = max(queries.shape[-1], 1)
    return torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)  # (batch, queries, keys)


def _check_bias(score_bias: object, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> Tensor:
    if not isinstance(score_bias, Tensor) or not score_bias.dtype.is_floating_point:
        raise ValueError(f"score_bias must be a floating-point tensor; got {_describe(score_bias)}")
    check_data("score_bias", score_bias)
    if score_bias.device != device:
        raise ValueError(f"score_bias is on {score_bias.device} but the scores are on {device}")
    try:
        return torch.broadcast_to(score_bias, shape).to(dtype)
    except RuntimeError as err:
        raise ValueError(f"score_bias of shape {tuple(score_bias.shape)} does not broadcast to the shape {shape} of the "
                         "scores of queries and keys") from err


def dot_product_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    valid_lens: ValidLens = None,
    *,
    causal: bool = False,
    score_bias: Tensor | None = None,
    dropout: float = 0.0,
    training: bool = False,
) -> tuple[Tensor, Tensor]:
    r""":math:`\mathrm{softmax}(QK^\top/\sqrt{d} + B)\,V` with ``valid_lens`` (and causal) masking.

    ``score_bias`` (``B``) broadcasts to ``(batch, queries, keys)``; ``-inf`` entries mask.
    Returns ``(output, weights)``: ``(batch, queries, value_dim)`` and ``(batch, queries, keys)``.
    Dropout (only when ``training``) acts on the weights used for the output, as in the book;
    the returned weights are the ones before dropout.
    """
    _check_qkv(queries, keys, values)
    dropout = check_probability("dropout", dropout)
    causal, training = check_bool("causal", causal), check_bool("training", training)
    lens = None if valid_lens is None else _valid_lengths(valid_lens, queries.shape[0], queries.shape[1],
                                                          keys.shape[1], queries.device, "queries")
    _check_width(queries, keys)
    scores_shape = (queries.shape[0], queries.shape[1], keys.shape[1])
    bias = None if score_bias is None else _check_bias(score_bias, scores_shape, queries.dtype, queries.device)
    return _attend(queries, keys, values, lens, causal, bias, dropout, training)


def _attend(queries: Tensor, keys: Tensor, values: Tensor, lens: Tensor | None, causal: bool, bias: Tensor | None,
            dropout: float, training: bool) -> tuple[Tensor, Tensor]:
    """:func:`dot_product_attention` of checked arguments: ``lens`` ``(batch, queries)`` int64 or
    None, ``bias`` of the scores' shape or None."""
    scores = _scores(queries, keys)  # (batch, queries, keys)
    if bias is not None:
        scores = scores + bias
    weights = _masked_softmax(scores, lens, causal)  # (batch, queries, keys)
    dropped = F.dropout(weights, p=dropout, training=training) if dropout else weights
    return _weighted_values(dropped, values), weights


def _weighted_values(weights: Tensor, values: Tensor) -> Tensor:
    """``weights @ values`` where a key of weight exactly 0 (masked) adds nothing, even when its
    value is NaN or infinite (0 · NaN would be NaN); a non-finite value that a query does see
    (weight not 0) makes that feature of its output NaN."""
    bad = ~torch.isfinite(values)
    if _reads_are_free(values) and not bool(bad.any()):
        return torch.bmm(weights, values)  # what the lines below give, without computing it
    out = torch.bmm(weights, values.masked_fill(bad, 0.0))  # (batch, queries, value_dim)
    # products of 0s and 1s: a count > 0 stays > 0 in any precision, so half precision is exact here
    half = torch.float16 if weights.is_cuda else weights.dtype
    seen = torch.bmm((weights != 0).to(half), bad.to(half)) > 0
    return out.masked_fill(seen, float("nan"))


class DotProductAttention(nn.Module):
    """The book's ``DotProductAttention(dropout)``; ``attention_weights`` holds the last weights."""

    attention_weights: Tensor

    def __init__(self, dropout: float) -> None:
        super().__init__()
        self.dropout = check_probability("dropout", dropout)

    def forward(self, queries: Tensor, keys: Tensor, values: Tensor, valid_lens: ValidLens = None) -> Tensor:
        # Shapes: queries (batch, queries, d), keys (batch, keys, d), values (batch, keys, v)
        output, self.attention_weights = dot_product_attention(
            queries, keys, values, valid_lens, dropout=self.dropout, training=self.training
        )
        return output  # (batch, queries, v)


def _check_heads(X: object, num_heads: object, name: str) -> tuple[Tensor, int]:
    if not isinstance(X, Tensor) or X.dim() != 3:
        raise ValueError(f"X must be a tensor of shape {name}; got {_describe(X)}")
    check_data("X", X)
    num_heads = check_int("num_heads", num_heads, minimum=1, maximum=MAX_ELEMENTS)
    return X, num_heads


def transpose_qkv(X: Tensor, num_heads: int) -> Tensor:
    """Split the last axis into heads: ``(batch, steps, num_hiddens)`` ->
    ``(batch * num_heads, steps, num_hiddens / num_heads)``. Inverse: :func:`transpose_output`."""
    X, num_heads = _check_heads(X, num_heads, "(batch, steps, num_hiddens)")
    if X.shape[-1] % num_heads:
        raise ValueError(f"X has num_hiddens={X.shape[-1]} features, not divisible by num_heads={num_heads}")
    return _split_heads(X, num_heads)


def _split_heads(X: Tensor, num_heads: int) -> Tensor:
    """:func:`transpose_qkv` of a checked ``X`` whose width ``num_heads`` divides."""
    batch, steps, num_hiddens = X.shape
    X = X.reshape(batch, steps, num_heads, num_hiddens // num_heads)  # (batch, steps, num_heads, hs)
    X = X.permute(0, 2, 1, 3)  # (batch, num_heads, steps, hs)
    return X.reshape(batch * num_heads, steps, num_hiddens // num_heads)


def transpose_output(X: Tensor, num_heads: int) -> Tensor:
    """Merge heads back: ``(batch * num_heads, steps, hs)`` -> ``(batch, steps, num_heads * hs)``.
    Inverse: :func:`transpose_qkv`."""
    X, num_heads = _check_heads(X, num_heads, "(batch * num_heads, steps, hs)")
    if X.shape[0] % num_heads:
        raise ValueError(f"X has {X.shape[0]} rows in its first axis, not a multiple of num_heads={num_heads}")
    return _merge_heads(X, num_heads)


def _merge_heads(X: Tensor, num_heads: int) -> Tensor:
    """:func:`transpose_output` of a checked ``X`` whose first axis ``num_heads`` divides."""
    bh, steps, hs = X.shape
    X = X.reshape(bh // num_heads, num_heads, steps, hs)  # (batch, num_heads, steps, hs)
    X = X.permute(0, 2, 1, 3)  # (batch, steps, num_heads, hs)
    return X.reshape(bh // num_heads, steps, num_heads * hs)


def _check_projection(name: str, W: object, source: str, in_features: int, bias: object, dtype: torch.dtype,
                      device) -> None:
    """``W`` projects the input ``source`` (``in_features`` wide, ``dtype`` on ``device``)."""
    if not isinstance(W, Tensor) or W.dim() != 2:
        raise ValueError(f"{name} must be a 2-D weight tensor (out_features, in_features); got {_describe(W)}")
    check_data(name, W)
    if W.shape[1] != in_features:
        raise ValueError(f"{name} takes {W.shape[1]} input features; {source} has {in_features}")
    if W.dtype != dtype or W.device != device:
        raise ValueError(
            f"{name} is {W.dtype} on {W.device} but {source} is {dtype} on {device}; convert one to match "
            "(e.g. the inputs with .float(), or the layer with .double())"
        )
    if bias is not None and (not isinstance(bias, Tensor) or tuple(bias.shape) != (W.shape[0],)
                             or bias.dtype != W.dtype or bias.device != W.device):
        raise ValueError(f"biases: the bias of {name} must be a {W.dtype} tensor of shape ({W.shape[0]},) on "
                         f"{W.device}; got {_describe(bias)}")
    if bias is not None:
        check_data("biases", bias)


def multi_head_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor,
    *,
    num_heads: int,
    biases: tuple[Tensor | None, Tensor | None, Tensor | None, Tensor | None] | None = None,
    valid_lens: ValidLens = None,
    causal: bool = False,
    score_bias: Tensor | None = None,
    rotary: Callable[[Tensor], Tensor] | None = None,
    dropout: float = 0.0,
    training: bool = False,
    need_weights: bool = True,
) -> tuple[Tensor, Tensor | None]:
    r""":math:`[\mathrm{head}_1;\dots;\mathrm{head}_h]W_o^\top` with
    :math:`\mathrm{head}_i = \mathrm{softmax}(Q_iK_i^\top/\sqrt{d/h} + B_i)V_i`,
    :math:`Q = \text{queries}\,W_q^\top` (and likewise K, V), each split into ``num_heads`` heads.

    Weights are stored as ``nn.Linear`` stores them: ``W_q`` is ``(num_hiddens, query_size)``;
    ``biases`` holds the four biases (or ``None``). ``rotary`` maps the per-head queries and
    keys ``(batch, num_heads, steps, num_hiddens / num_heads)`` to the same shape (RoPE).
    ``score_bias`` broadcasts to ``(batch, num_heads, queries, keys)``. Returns the output
    ``(batch, queries, num_hiddens)`` and the weights ``(batch, num_heads, queries, keys)``.

    ``need_weights=False`` computes the same output with torch's fused
    ``scaled_dot_product_attention``, which never stores the ``(queries, keys)`` weights (its
    memory grows linearly with the length), and returns ``None`` for them. On that path a NaN or
    inf in a key or value that a query's mask lets it see makes the query's whole output NaN.
    """
    _check_qkv(queries, keys, values)
    num_heads = check_int("num_heads", num_heads, minimum=1)
    dropout = check_probability("dropout", dropout)
    causal, training = check_bool("causal", causal), check_bool("training", training)
    need_weights = check_bool("need_weights", need_weights)
    if rotary is not None and not callable(rotary):
        raise ValueError(f"rotary must be a function of the per-head queries or keys, or None; got a {type(rotary).__name__}")
    if biases is not None and (not isinstance(biases, (tuple, list)) or len(biases) != 4):
        raise ValueError("biases must be None or the four biases of W_q, W_k, W_v and W_o (each a tensor or None)")
    b_q, b_k, b_v, b_o = biases if biases is not None else (None, None, None, None)
    for name, W, source, t, b in (("W_q", W_q, "queries", queries, b_q), ("W_k", W_k, "keys", keys, b_k),
                                  ("W_v", W_v, "values", values, b_v)):
        _check_projection(name, W, source, t.shape[-1], b, queries.dtype, queries.device)
    num_hiddens = W_q.shape[0]
    if W_k.shape[0] != num_hiddens or W_v.shape[0] != num_hiddens:
        raise ValueError(f"W_q, W_k and W_v must have as many rows; got {W_q.shape[0]}, {W_k.shape[0]}, {W_v.shape[0]}")
    _check_projection("W_o", W_o, "the heads' output (the rows of W_q)", num_hiddens, b_o, queries.dtype,
                      queries.device)
    if num_hiddens % num_heads:
        raise ValueError(f"num_hiddens={num_hiddens} is not divisible by num_heads={num_heads}")
    batch, n_q, n_k, h = queries.shape[0], queries.shape[1], keys.shape[1], num_heads
    lens = None if valid_lens is None else _valid_lengths(valid_lens, batch, n_q, n_k, queries.device, "queries")
    q = _split_heads(F.linear(queries, W_q, b_q), h)  # (batch * num_heads, queries, hs)
    k = _split_heads(F.linear(keys, W_k, b_k), h)  # (batch * num_heads, keys, hs)
    v = _split_heads(F.linear(values, W_v, b_v), h)  # (batch * num_heads, keys, hs)
    if rotary is not None:
        q = _rotate(rotary, q, batch, h)
        k = _rotate(rotary, k, batch, h)
    bias = None
    if score_bias is not None:
        bias = _check_bias(score_bias, (batch, h, n_q, n_k), q.dtype, q.device).reshape(batch * h, n_q, n_k)
    if lens is not None:  # (batch * num_heads, queries), as repeat_interleave
        lens = lens[:, None].expand(batch, h, n_q).reshape(batch * h, n_q)
    if not need_weights:
        out = _fused(q, k, v, lens, causal, bias, dropout if training else 0.0)
        return F.linear(_merge_heads(out, h), W_o, b_o), None
    out, weights = _attend(q, k, v, lens, causal, bias, dropout, training)  # (batch * num_heads, queries, hs)
    output = F.linear(_merge_heads(out, h), W_o, b_o)  # (batch, queries, num_hiddens)
    return output, weights.reshape(batch, h, n_q, n_k)


def _fused(q: Tensor, k: Tensor, v: Tensor, lens: Tensor | None, causal: bool, bias: Tensor | None,
           dropout: float) -> Tensor:
    """``scaled_dot_product_attention`` with pekit's masking: a query with no visible key gets
    an output of zeros (its weights are all zero), never NaN. A NaN or inf in a masked key or
    value never reaches the output (the kernel would add the mask to NaN scores and multiply 0
    by NaN values): such keys and values enter the kernel as zeros, and a query whose mask lets
    it see one gets NaN (the kernel keeps no weights to tell which keys it actually weighed)."""
    plain = lens is None and bias is None
    if plain and not causal:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout)
    finite_k, finite_v = torch.isfinite(k), torch.isfinite(v)
    clean = _reads_are_free(k) and bool(finite_k.all()) and bool(finite_v.all())  # else the same without reading
    if not clean:
        bad = ~(finite_k.all(-1) & finite_v.all(-1))  # (batch * num_heads, keys)
        k, v = k.masked_fill(~finite_k, 0.0), v.masked_fill(~finite_v, 0.0)
    if plain and q.shape[1] == k.shape[1]:
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True)
        # query i sees keys 0 .. i
        return out if clean else out.masked_fill((bad.cumsum(-1) > 0)[..., None], float("nan"))
    scores_shape = (q.shape[0], q.shape[1], k.shape[1])
    mask = torch.zeros(scores_shape, dtype=q.dtype, device=q.device) if bias is None else bias
    keep = _keep_mask(mask, lens, causal)
    if keep is None:  # every key visible (only where reading is free)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout)
        return out if clean else out.masked_fill(bad.any(-1)[:, None, None], float("nan"))
    mask = mask.masked_fill(~keep, float("-inf"))
    empty = ~keep.any(dim=-1, keepdim=True)  # (batch * num_heads, queries, 1): nothing to attend to
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.masked_fill(empty, 0.0), dropout_p=dropout)
    out = out.masked_fill(empty, 0.0)
    return out if clean else out.masked_fill((keep & bad[:, None, :]).any(-1, keepdim=True), float("nan"))


def _rotate(rotary: Callable[[Tensor], Tensor], X: Tensor, batch: int, num_heads: int) -> Tensor:
    per_head = X.unflatten(0, (batch, num_heads))  # (batch, num_heads, steps, hs)
    turned = rotary(per_head)
    if not isinstance(turned, Tensor) or turned.shape != per_head.shape:
        raise ValueError(f"rotary must return a tensor of the shape it was given, {tuple(per_head.shape)}")
    if turned.dtype != per_head.dtype or turned.device != per_head.device:
        raise ValueError(f"rotary must return a tensor of the dtype and device it was given, {per_head.dtype} on "
                         f"{per_head.device}; got {turned.dtype} on {turned.device}")
    return turned.flatten(0, 1)


class MultiHeadAttention(nn.Module):
    r"""The book's ``MultiHeadAttention(num_hiddens, num_heads, dropout, bias=False)``.

    Holds the four projections ``W_q, W_k, W_v, W_o`` (``nn.Linear``, the book's names) and
    calls :func:`multi_head_attention`. The input sizes default to ``num_hiddens`` (the book
    infers them lazily); pass ``query_size``, ``key_size`` or ``value_size`` for other
    widths. After a forward, ``attention_weights`` holds ``(batch, num_heads, queries, keys)``.
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
        params = num_hiddens * (sum(sizes.values()) + num_hiddens)
        if params > MAX_ELEMENTS:
            named = ", ".join(f"{k}={v:,}" for k, v in ({"num_hiddens": num_hiddens} | sizes).items()
                              if k == "num_hiddens" or v != num_hiddens)
            raise ValueError(f"{named} would need {params:,} weights, over the {MAX_ELEMENTS:,} "
                             "pekit allocates in one layer")
        bias = check_bool("bias", bias)
        self.num_hiddens, self.num_heads = num_hiddens, num_heads
        self.dropout = check_probability("dropout", dropout)
        self.W_q = nn.Linear(sizes["query_size"], num_hiddens, bias=bool(bias))
        self.W_k = nn.Linear(sizes["key_size"], num_hiddens, bias=bool(bias))
        self.W_v = nn.Linear(sizes["value_size"], num_hiddens, bias=bool(bias))
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bool(bias))

    def forward(
        self,
        queries: Tensor,
        keys: Tensor,
        values: Tensor,
        valid_lens: ValidLens = None,
        *,
        causal: bool = False,
        score_bias: Tensor | None = None,
        rotary: Callable[[Tensor], Tensor] | None = None,
    ) -> Tensor:
        # Shapes: queries (batch, queries, query_size), keys (batch, keys, key_size),
        # values (batch, keys, value_size); valid_lens (batch,) or (batch, queries)
        output, self.attention_weights = multi_head_attention(
            queries, keys, values, self.W_q.weight, self.W_k.weight, self.W_v.weight, self.W_o.weight,
            num_heads=self.num_heads,
            biases=(self.W_q.bias, self.W_k.bias, self.W_v.bias, self.W_o.bias),
            valid_lens=valid_lens, causal=causal, score_bias=score_bias, rotary=rotary,
            dropout=self.dropout, training=self.training,
        )
        return output  # (batch, queries, num_hiddens)
