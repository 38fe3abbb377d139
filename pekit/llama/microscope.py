r"""A microscope for position inside a RoPE model: what shifting every position changes, how a
head's score moves with the offset when the content is held fixed, where heads look (the first
token, the previous one, how far back), how each head spreads its norm over the rotary pairs, and
what the pairing convention is worth.

RoPE turns pair ``j`` of a query at position ``m`` and of a key at position ``n`` by
:math:`m\theta_j` and :math:`n\theta_j`; written as complex numbers (pair ``j`` of ``x`` is
:math:`x_{2j} + i\,x_{2j+1}`) the score is

.. math:: s(m, n) = \tfrac{1}{\sqrt{d}}\,\mathrm{Re}\sum_j q_j\,\overline{k_j}\,e^{i(m-n)\theta_j},

a function of the offset :math:`\delta = m - n` and the content alone.

References
- Su et al., "RoFormer" (2021), section 3.4.3: long-term decay, the bound
  :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|` with :math:`S_j = \sum_{k<j} e^{i\delta\theta_k}`.
- Xiao et al., "Efficient Streaming Language Models with Attention Sinks" (2023): heads that put
  most of their weight on the first token.
- Barbero et al., "Round and Round We Go! What makes Rotary Positional Encodings useful?" (2024):
  the high-frequency pairs serve positional heads, the low-frequency pairs carry meaning and take
  most of the queries' and keys' norm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from .._checks import check_float, check_int, check_memory, check_tensor
from .loaded import MAX_POSITION, SmolLM2

__all__ = [
    "ShiftEffect",
    "shift_effect",
    "HeadHabits",
    "head_habits",
    "HabitCounts",
    "habit_counts",
    "as_drawn",
    "OffsetScores",
    "offset_scores",
    "PairShares",
    "pair_shares",
    "mean_pair_shares",
    "perplexity",
    "Conventions",
    "conventions",
    "RoundingControl",
    "rounding_control",
    "MAX_OFFSET",
    "MAX_PERPLEXITY",
]

MAX_OFFSET = 1 << 16  # offsets of a score curve: 65,536 (eight times the context)
MAX_PERPLEXITY = 1e30  # the largest perplexity perplexity() reports


def _check_model(model: object) -> SmolLM2:
    if not isinstance(model, SmolLM2):
        raise ValueError(f"model must be the loaded model pekit.smollm2() returns; got {type(model).__name__}")
    return model


class ShiftEffect(NamedTuple):
    """The same tokens at positions ``shift .. shift + T - 1`` against ``0 .. T - 1``: the largest
    change of a logit (``logit_gap``, beside the largest logit ``logit_scale``) and of an attention
    weight (``attention_gap``; per layer ``layer_gaps`` ``(layers,)`` float64), and how many of the
    ``T`` next-token predictions (the top token) changed."""

    shift: int
    tokens: int
    logit_gap: float
    logit_scale: float
    attention_gap: float
    changed_predictions: int
    layer_gaps: Tensor


def _logits_and_maps(model: SmolLM2, ids: Sequence[int] | Tensor, position_ids: Sequence[int] | None = None, *,
                     pairing: str = "adjacent", reorder: bool = False) -> tuple[Tensor, Tensor]:
    """One run's logits and attention maps (``SmolLM2.logits`` and ``SmolLM2.attentions`` make a
    run each): both from the explicit attention path, so that two runs compared this way differ
    by what changed between them and rounding, not by the path."""
    logits, maps = model._run(ids, position_ids, None, pairing, reorder, True)
    return logits, torch.stack(maps).float().cpu()


def shift_effect(model: SmolLM2, ids: Sequence[int] | Tensor, shift: int) -> ShiftEffect:
    model = _check_model(model)
    T = len(model._ids(ids))
    shift = check_int("shift", shift, minimum=0, maximum=MAX_POSITION - T)
    moved = list(range(shift, shift + T))
    (base_logits, base_maps), (moved_logits, moved_maps) = (_logits_and_maps(model, ids),
                                                            _logits_and_maps(model, ids, moved))
    per_layer = (moved_maps - base_maps).abs().flatten(1).max(dim=1).values.to(torch.float64)
    return ShiftEffect(
        shift, T, float((moved_logits - base_logits).abs().max()), float(base_logits.abs().max()),
        float(per_layer.max()), int((moved_logits.argmax(-1) != base_logits.argmax(-1)).sum()), per_layer)


class HeadHabits(NamedTuple):
    """Where each head of a causal model looks, averaged over the queries ``2 .. T - 1`` (query 0
    can only look at itself, and for query 1 the first token is also the one just before):
    ``sink`` the weight on the first token, ``previous`` the weight on the token just before,
    ``distance`` the mean offset back (``sum_j w_ij (i - j)``), each ``(layers, heads)`` float64.
    A head cannot put more than half of its weight on both."""

    sink: Tensor
    previous: Tensor
    distance: Tensor


def head_habits(attentions: Tensor) -> HeadHabits:
    """From causal attention weights ``(layers, heads, T, T)``, ``T >= 3``."""
    check_tensor("attentions", attentions, dims=4, floating=True, what="(layers, heads, T, T)")
    layers, heads, T, keys = attentions.shape
    if T != keys or T < 3 or layers == 0 or heads == 0:
        raise ValueError(f"attentions must have shape (layers, heads, T, T) with T >= 3; got {tuple(attentions.shape)}")
    check_memory({"layers": layers, "heads": heads, "T²": T * T}, 8 * 3)  # float64 copy and its products
    if not bool(torch.isfinite(attentions).all()) or bool((attentions < 0).any()):
        raise ValueError("attentions must hold finite, non-negative weights")
    A = attentions.detach().to(torch.float64)[:, :, 2:, :]  # queries 2 .. T-1
    i = torch.arange(2, T, dtype=torch.float64, device=A.device)
    offsets = i[:, None] - torch.arange(T, dtype=torch.float64, device=A.device)[None, :]  # (T-2, T): i - j
    previous = torch.diagonal(A, offset=1, dim1=-2, dim2=-1)  # A[:, :, q, q+1] is query q+2's weight on key q+1
    return HeadHabits(A[..., 0].mean(-1), previous.mean(-1), (A * offsets.clamp_min(0)).sum(-1).mean(-1))


class HabitCounts(NamedTuple):
    """:class:`HeadHabits` counted against a threshold (a share of a head's weight): ``heads`` and
    ``layers`` of the model; ``sinks``, how many heads put more than it on the first token, and
    ``sink_layers``, the layers holding one (ascending); ``previous``, the ``(layer, head)`` of each
    head putting more than it on the token just before (layer-major). The boundary heads of each
    count: ``least_sink`` / ``least_previous``, the least weight of a head counted, and
    ``most_other_sink`` / ``most_other_previous``, the most of a head not counted (``None`` where
    no head is in that group). ``farthest``, the ``(layer, head)`` looking farthest back on
    average (the first in layer-major order on a tie), its mean distance ``farthest_distance``,
    and ``largest_distance``, the largest of any head."""

    heads: int
    layers: int
    sinks: int
    sink_layers: tuple[int, ...]
    previous: tuple[tuple[int, int], ...]
    least_sink: float | None
    most_other_sink: float | None
    least_previous: float | None
    most_other_previous: float | None
    farthest: tuple[int, int]
    farthest_distance: float
    largest_distance: float


def habit_counts(habits: HeadHabits, threshold: float) -> HabitCounts:
    """:class:`HabitCounts` of ``habits`` (three ``(layers, heads)`` tensors, at least one head)
    above ``threshold``: a head counts where its weight is strictly above it."""
    if not isinstance(habits, HeadHabits):
        raise ValueError(f"habits must be the HeadHabits head_habits returns; got {type(habits).__name__}")
    threshold = check_float("threshold", threshold)
    for name in HeadHabits._fields:
        check_tensor(f"habits.{name}", getattr(habits, name), dims=2, floating=True, what="(layers, heads)")
    shape = habits.sink.shape
    if shape[0] == 0 or shape[1] == 0 or habits.previous.shape != shape or habits.distance.shape != shape:
        raise ValueError("habits must hold three (layers, heads) tensors of one shape with at least one head; got "
                         f"{[tuple(getattr(habits, n).shape) for n in HeadHabits._fields]}")
    sink, previous, distance = (getattr(habits, n).detach() for n in HeadHabits._fields)
    sinks, before = sink > threshold, previous > threshold

    def boundaries(weights: Tensor, counted: Tensor) -> tuple[float | None, float | None]:
        inside, outside = weights[counted], weights[~counted]
        return (float(inside.min()) if inside.numel() else None, float(outside.max()) if outside.numel() else None)

    far = int(distance.flatten().argmax())
    layer, head = divmod(far, shape[1])
    return HabitCounts(sink.numel(), shape[0], int(sinks.sum()), tuple(sinks.any(dim=1).nonzero().flatten().tolist()),
                       tuple((int(lay), int(h)) for lay, h in before.nonzero().tolist()), *boundaries(sink, sinks),
                       *boundaries(previous, before), (layer, head), float(distance[layer, head]),
                       float(distance.max()))


def as_drawn(x: Tensor) -> Tensor:
    """``x`` in float32 on the CPU, detached: the precision the page's maps are drawn in (the
    model's; the microscope's float64 measures rounded to it)."""
    check_tensor("x", x, floating=True)
    return x.detach().float().cpu()


class OffsetScores(NamedTuple):
    """Per query head, the score of the text's mean query against its mean key put ``offsets``
    apart (``scores`` ``(heads, offsets)`` float64; the content is held fixed, only the offset
    changes), and RoFormer's bound on how a score's size can decay with the offset, scaled to 1 at
    offset 0 (``bound``)."""

    offsets: Tensor
    scores: Tensor
    bound: Tensor


def _complex_pairs(x: Tensor) -> Tensor:
    """``(..., dim)`` real -> ``(..., dim/2)`` complex: pair ``j`` is ``x[2j] + i x[2j+1]``."""
    return torch.view_as_complex(x.to(torch.float64).unflatten(-1, (-1, 2)).contiguous())


def _check_qk(queries: object, keys: object, inv_freq: object, *, dims: int) -> tuple[Tensor, Tensor, Tensor]:
    what = "(layers, heads, T, head_dim)" if dims == 4 else "(heads, T, head_dim)"
    check_tensor("queries", queries, dims=dims, floating=True, what=what)
    check_tensor("keys", keys, dims=dims, floating=True, what=what.replace("heads", "kv_heads"))
    check_tensor("inv_freq", inv_freq, dims=1, floating=True, what="(head_dim/2,)")
    qs, ks = queries.shape, keys.shape
    if (qs[:-3] != ks[:-3] or qs[-2:] != ks[-2:] or qs[-1] % 2 or qs[-1] == 0 or qs[-2] == 0 or ks[-3] == 0
            or qs[-3] == 0 or qs[-3] % ks[-3] or any(n == 0 for n in qs[:-3])):
        raise ValueError(f"queries {tuple(qs)} and keys {tuple(ks)} must share their T and an even head_dim, with "
                         "the query heads a multiple of the key heads")
    if queries.device != keys.device or inv_freq.device != queries.device:
        raise ValueError(f"queries, keys and inv_freq must be on one device; got {queries.device}, {keys.device} "
                         f"and {inv_freq.device}")
    if inv_freq.numel() != qs[-1] // 2:
        raise ValueError(f"inv_freq must hold {qs[-1] // 2} frequencies, one per rotary pair; got {inv_freq.numel()}")
    for name, t in (("queries", queries), ("keys", keys), ("inv_freq", inv_freq)):
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite")
    return queries.detach(), keys.detach(), inv_freq.detach().to(torch.float64)


def offset_scores(queries: Tensor, keys: Tensor, inv_freq: Tensor, max_offset: int) -> OffsetScores:
    """From one layer's queries ``(heads, T, head_dim)`` and keys ``(kv_heads, T, head_dim)``
    *before* rotation (query head ``h`` reads key head ``h // (heads / kv_heads)``), offsets
    ``0 .. max_offset``."""
    q, k, theta = _check_qk(queries, keys, inv_freq, dims=3)
    max_offset = check_int("max_offset", max_offset, minimum=0, maximum=MAX_OFFSET)
    heads, kv, hd = q.shape[0], k.shape[0], q.shape[-1]
    check_memory({"heads": heads, "offsets": max_offset + 1, "pairs": hd // 2}, 16 * 2)
    qc = _complex_pairs(q).mean(dim=1)  # (heads, pairs): the mean query
    kc = _complex_pairs(k).mean(dim=1).repeat_interleave(heads // kv, dim=0)  # (heads, pairs)
    offsets = torch.arange(max_offset + 1, dtype=torch.int64)
    turn = torch.polar(torch.ones((), dtype=torch.float64), offsets[:, None].to(torch.float64) * theta[None, :])
    scores = ((qc * kc.conj())[:, None, :] * turn[None]).real.sum(-1) / math.sqrt(hd)  # (heads, offsets)
    partial = torch.cumsum(turn, dim=-1).abs()  # |S_j|, j = 1 .. pairs
    bound = partial.mean(-1)
    return OffsetScores(offsets, scores, bound / bound[0])


class PairShares(NamedTuple):
    """How each head spreads its norm over the rotary pairs, fastest pair first (``frequencies``,
    radians per position): pair ``j``'s share of the sum over pairs of the mean (over tokens) length
    of the 2-D pair, ``query`` ``(layers, heads, pairs)`` and ``key`` ``(layers, kv_heads, pairs)``."""

    frequencies: Tensor
    query: Tensor
    key: Tensor


def pair_shares(queries: Tensor, keys: Tensor, inv_freq: Tensor) -> PairShares:
    """From every layer's queries ``(layers, heads, T, head_dim)`` and keys ``(layers, kv_heads, T,
    head_dim)`` before rotation (pair ``j`` = dimensions ``(2j, 2j+1)``)."""
    q, k, theta = _check_qk(queries, keys, inv_freq, dims=4)

    def shares(x: Tensor) -> Tensor:
        lengths = _complex_pairs(x).abs().mean(dim=-2)  # (layers, heads, pairs)
        return lengths / lengths.sum(-1, keepdim=True).clamp_min(torch.finfo(torch.float64).tiny)

    return PairShares(theta, shares(q), shares(k))


def mean_pair_shares(shares: PairShares) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Each rotary pair's share of the norm averaged over every layer and head: ``(queries, keys)``,
    one entry per pair, fastest first."""
    if not isinstance(shares, PairShares):
        raise ValueError(f"shares must be the PairShares pair_shares returns; got {type(shares).__name__}")
    check_tensor("shares.query", shares.query, dims=3, floating=True, what="(layers, heads, pairs)")
    check_tensor("shares.key", shares.key, dims=3, floating=True, what="(layers, kv_heads, pairs)")
    if shares.query.shape[-1] != shares.key.shape[-1]:
        raise ValueError(f"shares.query and shares.key must have as many pairs; got {shares.query.shape[-1]} and "
                         f"{shares.key.shape[-1]}")
    return (tuple(shares.query.detach().mean(dim=(0, 1)).tolist()), tuple(shares.key.detach().mean(dim=(0, 1)).tolist()))


def perplexity(loss: float) -> float:
    """``exp(loss)`` of a mean next-token loss (nats per token), in float32 like the losses the
    model computes, at most :data:`MAX_PERPLEXITY` (``1e30``: a loss above about 69 is reported
    there; float32 itself overflows above about 88.7)."""
    if isinstance(loss, float) and loss == math.inf:
        return MAX_PERPLEXITY
    loss = check_float("loss", loss)
    return min(float(torch.tensor(loss).exp()), MAX_PERPLEXITY)


class Conventions(NamedTuple):
    """Mean next-token loss (nats) over the ``scored`` tokens with the file's pairing (``right``),
    with split halves of the file's rows (``wrong``), and with split halves after reordering each
    head's rows as ``transformers`` does (``reordered``); ``reordered_gap``: the largest logit
    difference between the last and the right one, beside the largest logit ``logit_scale``."""

    scored: int
    right: float
    wrong: float
    reordered: float
    reordered_gap: float
    logit_scale: float


def conventions(model: SmolLM2, ids: Sequence[int] | Tensor) -> Conventions:
    model = _check_model(model)
    tokens = model._ids(ids, minimum=2)
    right = model.logits(tokens)
    again = model.logits(tokens, pairing="halves", reorder=True)
    target = tokens[1:].to(right.device)

    def loss(logits: Tensor) -> float:
        return float(torch.nn.functional.cross_entropy(logits[:-1], target))

    return Conventions(len(tokens) - 1, loss(right), loss(model.logits(tokens, pairing="halves")), loss(again),
                       float((again - right).abs().max()), float(right.abs().max()))


class RoundingControl(NamedTuple):
    """What float32 rounding alone changes on one text: the largest change of a logit
    (``logit_gap``) and of an attention weight (``attention_gap``) between the run with the file's
    pairing and the same run with each head's rows reordered into split halves (the same rotation
    of the same numbers, computed in another order)."""

    logit_gap: float
    attention_gap: float


def rounding_control(model: SmolLM2, ids: Sequence[int] | Tensor) -> RoundingControl:
    """The rounding-only control of :func:`shift_effect` on ``ids``, at positions ``0 .. T - 1``."""
    model = _check_model(model)
    tokens = model._ids(ids)
    (reordered_logits, reordered_maps), (logits, maps) = (_logits_and_maps(model, tokens, pairing="halves",
                                                                           reorder=True),
                                                          _logits_and_maps(model, tokens))
    return RoundingControl(float((reordered_logits - logits).abs().max()), float((reordered_maps - maps).abs().max()))
