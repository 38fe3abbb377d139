r"""Why self-attention "ignores order", measured; and ``valid_lens`` masking, step by step.

Without positions, self-attention is permutation equivariant: shuffling the input rows
shuffles the output rows and the weight matrix the same way and changes nothing else,
:math:`f(\Pi X) = \Pi f(X)`, so no output can depend on where a token stood. Adding the
positional table breaks this, because a token's vector then depends on its slot.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .attention import MultiHeadAttention, attention_scores, masked_softmax
from .encodings import sinusoidal_encoding

__all__ = ["self_attention", "OrderCheck", "order_check", "MaskingSteps", "masking_steps", "causal_lengths", "padded_batch"]


class OrderCheck(NamedTuple):
    """``output``/``weights``: for the tokens as given, ``(n, num_hiddens)`` and
    ``(heads, n, n)``; ``output_gap``/``weights_gap``: the largest difference between the
    shuffled run and the un-shuffled one moved into the shuffled order."""

    output: Tensor
    weights: Tensor
    output_gap: float
    weights_gap: float


def self_attention(model: MultiHeadAttention, X: Tensor, *, positional: bool, base: float = 10000.0) -> tuple[Tensor, Tensor]:
    """Self-attention of one sequence ``X`` (``(n, num_hiddens)``), optionally with the sinusoidal
    table added by slot; returns the output ``(n, num_hiddens)`` and weights ``(heads, n, n)``."""
    n, d = X.shape
    if positional:
        X = X + sinusoidal_encoding(n, d, base=base, device=X.device, dtype=X.dtype)
    with torch.inference_mode():
        inp = X[None]  # (1, n, d)
        out = model(inp, inp, inp)[0]
        return out, model.attention_weights[0]


def order_check(model: MultiHeadAttention, X: Tensor, perm: Tensor, *, positional: bool, base: float = 10000.0) -> OrderCheck:
    """Run self-attention on ``X`` (``(n, num_hiddens)`` token embeddings) and on ``X[perm]``,
    optionally adding the sinusoidal table (by slot, so it is not shuffled), and compare the
    shuffled results with the original ones shuffled."""
    out, weights = self_attention(model, X, positional=positional, base=base)
    out_s, weights_s = self_attention(model, X[perm], positional=positional, base=base)
    n = X.shape[0]
    output_gap = float((out_s - out[perm]).abs().max()) if n else 0.0
    weights_gap = float((weights_s - weights[:, perm][:, :, perm]).abs().max()) if n else 0.0
    return OrderCheck(out, weights, output_gap, weights_gap)


def causal_lengths(batch_lens: Tensor, queries: int) -> Tensor:
    """Per-query valid lengths ``(batch, queries)``: query ``i`` sees keys ``0 .. i``, never past
    its sequence's own length."""
    i = torch.arange(1, queries + 1)[None, :]  # (1, queries)
    return torch.minimum(i, torch.as_tensor(batch_lens)[:, None])


def padded_batch(sequences: list[Tensor], steps: int) -> Tensor:
    """Stack sequences ``(length_b, d)`` into one zero-padded batch ``(batch, steps, d)``."""
    if not sequences:
        raise ValueError("sequences must hold at least one sequence")
    d = sequences[0].shape[1]
    batch = torch.zeros(len(sequences), steps, d, dtype=sequences[0].dtype, device=sequences[0].device)
    for b, seq in enumerate(sequences):
        if seq.shape[0] > steps:
            raise ValueError(f"sequence {b} has {seq.shape[0]} steps, more than steps={steps}")
        batch[b, : seq.shape[0]] = seq
    return batch


class MaskingSteps(NamedTuple):
    """``scores`` before masking, ``masked`` (masked entries set to -inf, for display),
    ``weights`` after the masked softmax: each ``(batch, queries, keys)``;
    ``lengths``: the valid length of every query ``(batch, queries)``; ``masked_weight``: the
    total weight that fell on masked keys, per sequence ``(batch,)`` (0 exactly);
    ``row_sums``: the weights' sum per query ``(batch, queries)`` (1, or 0 for length 0)."""

    scores: Tensor
    masked: Tensor
    weights: Tensor
    lengths: Tensor
    masked_weight: Tensor
    row_sums: Tensor


def masking_steps(X: Tensor, valid_lens: Tensor) -> MaskingSteps:
    """Scaled dot-product self-attention scores of a padded batch ``X`` (``(batch, steps, d)``),
    the same scores with the keys beyond each valid length masked out, and the weights."""
    scores = attention_scores(X, X)  # (batch, queries, keys)
    weights = masked_softmax(scores, valid_lens)
    lens = torch.as_tensor(valid_lens, device=X.device)
    if lens.dim() == 1:
        lens = lens[:, None].expand(X.shape[0], X.shape[1])
    keep = torch.arange(X.shape[1], device=X.device)[None, None, :] < lens[..., None]  # (batch, queries, keys)
    masked = scores.masked_fill(~keep, float("-inf"))
    masked_weight = torch.where(keep, torch.zeros_like(weights), weights).abs().sum(dim=(1, 2))
    return MaskingSteps(scores, masked, weights, lens, masked_weight, weights.sum(dim=2))


def book_example(seed: int = 0) -> tuple[tuple[int, ...], tuple[int, ...], list, list]:
    """The chapter's run: ``MultiHeadAttention(100, 5, 0.5)`` (eval) on ``ones(2, 4, 100)`` with
    ``valid_lens = [3, 2]``. Returns the output shape, the weights' shape and head 0's weights
    for both sequences (all inputs equal, so each valid key gets 1/3 resp. 1/2)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attention = MultiHeadAttention(100, 5, 0.5)
    attention.eval()
    X = torch.ones((2, 4, 100))
    with torch.inference_mode():
        out = attention(X, X, X, torch.tensor([3, 2]))
    w = attention.attention_weights
    return tuple(out.shape), tuple(w.shape), w[0, 0].tolist(), w[1, 0].tolist()
