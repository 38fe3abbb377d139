"""The Fixed or learned positions page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

import functools

import torch

import pekit
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved


@functools.lru_cache(maxsize=1)
def _learned_table() -> torch.Tensor:
    return pekit.pretrained_position_table().double()


PARAMETER_OPTIONS = (0, 384, 512, 196_608)


def parameters_answer(count: int) -> int:
    return PARAMETER_OPTIONS.index(count) if count in PARAMETER_OPTIONS else -1


def parameters_sentence(rows: int, width: int) -> str:
    return _("MiniLM's table has {rows} rows of {width} numbers: {count} numbers learned in training. The sinusoidal "
             "table of the same shape has none to learn: a formula writes it, for any position.").format(
        rows=rows, width=width, count=number(rows * width, ","))


def _solve_parameters() -> Solved:
    rows, width = _learned_table().shape
    return Solved(parameters_answer(rows * width), parameters_sentence(rows, width))


def mean_similarity(table: torch.Tensor, offsets: tuple[int, ...]) -> tuple[float, ...]:
    """The mean cosine similarity of rows ``δ`` apart, for each ``δ`` of ``offsets``."""
    if any(not 0 < offset < table.shape[0] for offset in offsets):
        raise ValueError("offsets must be between 1 and the number of rows − 1")
    unit = table / table.norm(dim=1, keepdim=True).clamp_min(1e-30)
    return tuple(float((unit[:-o] * unit[o:]).sum(dim=1).mean()) for o in offsets)


NEAR_OFFSETS = (1, 16, 256)


def near_answer(similarities: tuple[float, ...]) -> int:
    """0: similarity falls with the offset, 2: it rises, 1: about the same (within 0.1)."""
    if similarities[0] - similarities[-1] > 0.1:
        return 0
    return 2 if similarities[-1] - similarities[0] > 0.1 else 1


def near_sentence(offsets: tuple[int, ...], similarities: tuple[float, ...]) -> str:
    pairs = "; ".join(_("{similarity} at δ = {offset}").format(similarity=number(s, ".2f"), offset=o)
                      for o, s in zip(offsets, similarities))
    return _("The mean cosine similarity of two rows of MiniLM's learned table, δ positions apart: {pairs}. Nothing "
             "in the table's design asks for this order (any row may hold any numbers): training put it there.").format(
        pairs=pairs)


def _solve_near() -> Solved:
    similarities = mean_similarity(_learned_table(), NEAR_OFFSETS)
    return Solved(near_answer(similarities), near_sentence(NEAR_OFFSETS, similarities))


QUESTIONS: tuple[Check, ...] = (
    Check("learned-params", "fixed_or_learned",
          N_("How many numbers does MiniLM learn for its positions (512 positions, width 384)?"),
          ("0", "384", "512", N_("196,608")), _solve_parameters),
    Check("learned-near", "fixed_or_learned",
          N_("In MiniLM's learned table, are rows of nearby positions more alike than rows far apart?"),
          (N_("yes: similarity falls with the distance"), N_("no: all rows are about equally alike"),
           N_("no: nearby rows are the least alike")), _solve_near),
)
