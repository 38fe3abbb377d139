"""The Live attention page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import torch

import pekit
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved


class Shuffled(NamedTuple):
    """Multi-head self-attention (no positions) on t random tokens and on the same tokens in a
    random order: the largest gap between the shuffled run's weights and the original weights
    reordered the same way, and between the two unreordered weight matrices."""

    tokens: int
    reordered_gap: float
    plain_gap: float


@functools.lru_cache(maxsize=32)
def shuffled(tokens: int, seed: int = 0) -> Shuffled:
    if tokens < 2:
        raise ValueError("tokens must be at least 2")
    generator = torch.Generator().manual_seed(seed)
    layer = pekit.MultiHeadAttention(32, 4, 0.0).eval()
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) / math.sqrt(p.shape[-1]))
        X = torch.randn(1, tokens, 32, generator=generator)
        order = torch.randperm(tokens, generator=generator)
        while tokens > 1 and bool((order == torch.arange(tokens)).all()):
            order = torch.randperm(tokens, generator=generator)
        layer(X, X, X)
        W = layer.attention_weights.clone()
        Xs = X[:, order]
        layer(Xs, Xs, Xs)
        Ws = layer.attention_weights
    reordered = W[:, :, order][:, :, :, order]
    return Shuffled(tokens, float((Ws - reordered).abs().max()), float((Ws - W).abs().max()))


def shuffle_answer(result: Shuffled) -> int:
    """0: the weights move with the tokens and nothing else changes; 2: the same matrix; 1: new values."""
    if result.reordered_gap <= 1e-5:
        return 0
    return 2 if result.plain_gap <= 1e-5 else 1


def shuffle_sentence(result: Shuffled) -> str:
    return _("With {tokens} random tokens in a new order, the weights of the shuffled sentence are the old ones with "
             "rows and columns reordered the same way, to {gap} (float rounding), while the matrix as it stands "
             "changed by up to {moved}. Without positions, a token's weights follow the token, not its place.").format(
        tokens=result.tokens, gap=number(result.reordered_gap, ".1e"), moved=number(result.plain_gap, ".2g"))


def _solve_shuffle() -> Solved:
    result = shuffled(8)
    return Solved(shuffle_answer(result), shuffle_sentence(result))


def empty_rows(keys: int) -> tuple[float, ...]:
    """masked_softmax's weights for one query with a valid length of 0 over ``keys`` keys."""
    if keys < 1:
        raise ValueError("keys must be at least 1")
    scores = torch.randn(1, 1, keys, generator=torch.Generator().manual_seed(keys))
    return tuple(pekit.masked_softmax(scores, torch.tensor([0]))[0, 0].tolist())


def empty_answer(row: tuple[float, ...]) -> int:
    """0: all zeros, 1: NaN, 2: 1/n each, 3: one on the first key."""
    if any(math.isnan(v) for v in row):
        return 1
    if all(v == 0 for v in row):
        return 0
    if all(abs(v - 1 / len(row)) < 1e-6 for v in row):
        return 2
    return 3


def empty_sentence(row: tuple[float, ...]) -> str:
    return _("`masked_softmax` gives the row {row}, summing to {total}: with no key to attend to, the layer averages "
             "nothing and its output is a zero vector, not the 0/0 (NaN) a plain softmax of all −∞ scores gives.").format(
        row="(" + "; ".join(number(v, "g") for v in row) + ")", total=number(sum(row), "g"))


def _solve_empty() -> Solved:
    row = empty_rows(4)
    return Solved(empty_answer(row), empty_sentence(row))


QUESTIONS: tuple[Check, ...] = (
    Check("attention-permute", "live_attention",
          N_("Without positional encoding, you shuffle the tokens of the sentence. What happens to the attention "
             "weights?"),
          (N_("they move with the tokens; nothing else changes"), N_("they change to new values"),
           N_("they stay exactly as they were")), _solve_shuffle, {"view": "Order"}),
    Check("attention-empty", "live_attention",
          N_("A sequence's valid length is 0: every key is masked. Which weights does `masked_softmax` give?"),
          (N_("all zeros"), N_("NaN (0/0)"), N_("1/n on every key"), N_("1 on the first key")), _solve_empty,
          {"view": "Masking"}),
)
