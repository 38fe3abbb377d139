"""Named head patterns: how much weight each head puts on the previous or next word piece, on
``[CLS]`` or ``[SEP]``, within a word, or on itself.

References
- Clark et al., "What Does BERT Look At?" (2019): heads that attend to the previous or next
  token, to ``[SEP]`` or ``[CLS]`` as a resting place, or within a word; the patterns
  :func:`head_patterns` measures.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_float
from .forward import PretrainedAttention, _check_result

__all__ = ["PATTERNS", "HeadPatterns", "head_patterns", "NamedHead", "named_heads", "patterns_frame"]

PATTERNS = ("previous token", "next token", "[CLS]", "[SEP]", "same word", "itself")


class HeadPatterns(NamedTuple):
    """``shares``: ``(layers, num_heads, len(PATTERNS))``, the mean weight a word piece puts on
    the previous piece, the next piece, ``[CLS]``, ``[SEP]``, the other pieces of its own word
    and itself (NaN for "same word" when no word has two pieces). ``names``: :data:`PATTERNS`.
    Averaged over the word pieces as queries (not ``[CLS]``/``[SEP]``); the kinds can overlap
    (the first piece's previous token is ``[CLS]``). A text of one word piece has no other piece
    before or after it: its previous and next token would be ``[CLS]`` and ``[SEP]`` themselves,
    so those two shares are NaN there (a head is not named after them by a tie)."""

    shares: Tensor
    names: tuple[str, ...]


def head_patterns(result: PretrainedAttention) -> HeadPatterns:
    """Measure :class:`HeadPatterns` on every head of ``result``."""
    _check_result("result", result)
    A = result.attentions.double()  # (layers, heads, T, T)
    T = A.shape[-1]
    q = torch.arange(1, T - 1, device=A.device)  # the word pieces, as queries
    words = torch.tensor([-1 if w is None else w for w in result.word_ids], device=A.device)
    same = (words[:, None] == words[None, :]) & (words[:, None] >= 0)
    same.fill_diagonal_(False)  # (T, T): other pieces of the query's word
    same = same[q]
    in_long_word = same.any(dim=1)
    rows = A[:, :, q]  # (layers, heads, queries, T)
    shares = [rows[..., torch.arange(len(q)), q - 1].mean(-1),  # previous
              rows[..., torch.arange(len(q)), q + 1].mean(-1),  # next
              rows[..., 0].mean(-1),
              rows[..., T - 1].mean(-1),
              (rows * same).sum(-1)[..., in_long_word].mean(-1) if bool(in_long_word.any())
              else torch.full(A.shape[:2], float("nan"), dtype=A.dtype, device=A.device),
              rows[..., torch.arange(len(q)), q].mean(-1)]
    stacked = torch.stack(shares, dim=-1)
    if T == 3:  # one word piece: its neighbours are [CLS] and [SEP], counted under their own names
        stacked[..., :2] = float("nan")
    return HeadPatterns(stacked.float().cpu(), PATTERNS)


def _check_patterns(name: str, patterns: object) -> HeadPatterns:
    if not isinstance(patterns, HeadPatterns):
        raise ValueError(f"{name} must come from head_patterns; got a {type(patterns).__name__}")
    return patterns


class NamedHead(NamedTuple):
    layer: int
    head: int
    pattern: str
    share: float


def named_heads(patterns: HeadPatterns, *, threshold: float = 0.5) -> list[NamedHead]:
    """Heads whose word pieces put at least ``threshold`` of their weight, on average, on one
    kind of token, each with its strongest such pattern; strongest first."""
    _check_patterns("patterns", patterns)
    threshold = check_float("threshold", threshold, positive=True, maximum=1.0)
    shares = torch.nan_to_num(patterns.shares, nan=-1.0)
    best, which = shares.max(dim=-1)  # (layers, heads)
    found = [NamedHead(layer, head, patterns.names[int(which[layer, head])], float(best[layer, head]))
             for layer in range(best.shape[0]) for head in range(best.shape[1]) if best[layer, head] >= threshold]
    return sorted(found, key=lambda h: (-h.share, h.layer, h.head))


def patterns_frame(patterns: HeadPatterns, *, threshold: float = 0.5):
    """A table with one row per head: ``layer``, ``head``, the share of every pattern, and
    ``named``: the strongest pattern when its share reaches ``threshold`` (else empty)."""
    import pandas as pd

    _check_patterns("patterns", patterns)
    named = {(h.layer, h.head): h.pattern for h in named_heads(patterns, threshold=threshold)}
    layers, heads, _ = patterns.shares.shape
    frame = pd.DataFrame({"layer": [layer for layer in range(layers) for _ in range(heads)],
                          "head": [head for _ in range(layers) for head in range(heads)]})
    for p, name in enumerate(patterns.names):
        frame[name] = patterns.shares[:, :, p].double().flatten().numpy()
    frame["named"] = [named.get((layer, head), "") for layer, head in zip(frame["layer"], frame["head"])]
    return frame
