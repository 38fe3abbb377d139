"""The Offset rotation page's questions (see :mod:`lab.views.questions`)."""

from __future__ import annotations

from typing import NamedTuple

import torch

import pekit
from lab.display import number
from lab.i18n import N_, _
from lab.views.questions import Check, Solved, compare


class ShiftTurn(NamedTuple):
    """What T(δ) does to pair ``pair`` of P's rows (width d, positions 0 .. n−1): its angle,
    the largest gap between P[i+δ] and T(δ)·P[i], and how much the pair's length changes."""

    d: int
    delta: int
    pair: int
    n: int
    angle: float
    gap: float
    stretch: float


def shift_turn(d: int, delta: int, pair: int, n: int = 64) -> ShiftTurn:
    if d < 2 or d % 2 or not 0 <= pair < d // 2 or delta < 0 or n < 1:
        raise ValueError("d must be even, pair within 0 .. d/2 − 1, delta and n at least 0 and 1")
    P = pekit.sinusoidal_encoding(n + delta, d, dtype=torch.float64)
    T = pekit.offset_rotation(d, delta, dtype=torch.float64)
    moved = P[:n] @ T.T
    gap = float((P[delta:delta + n] - moved).abs().max())
    lengths = P[:n, 2 * pair:2 * pair + 2].norm(dim=1), moved[:, 2 * pair:2 * pair + 2].norm(dim=1)
    angle = delta * float(pekit.frequencies(d)[pair])  # δ·ω_pair
    return ShiftTurn(d, delta, pair, n, angle, gap, float((lengths[0] - lengths[1]).abs().max()))


def turn_answer(turn: ShiftTurn) -> int:
    """0: a rotation by an angle of δ alone (T(δ) maps every row, lengths kept); 3 otherwise."""
    return 0 if turn.gap <= 1e-9 and turn.stretch <= 1e-9 else 3


def turn_sentence(turn: ShiftTurn) -> str:
    return _("T(δ) turns pair {pair} by δ·ω{pair} = {angle} radian, the same angle at every position: over positions "
             "0 to {last}, P(i+δ) and T(δ)·P(i) differ by at most {gap}, and no pair's length changes by more than "
             "{stretch}.").format(pair=turn.pair, angle=number(turn.angle, ".4g"), last=turn.n - 1,
                                  gap=number(turn.gap, ".1e"), stretch=number(turn.stretch, ".1e"))


def _solve_turn() -> Solved:
    turn = shift_turn(16, 3, 1)
    return Solved(turn_answer(turn), turn_sentence(turn))


class RopeScores(NamedTuple):
    """The RoPE score of seeded q and k (width d, float64) at positions (i, j) and at (i+c, j+c)."""

    d: int
    i: int
    j: int
    shift: int
    before: float
    after: float


def rope_scores(d: int, i: int, j: int, shift: int, seed: int = 0) -> RopeScores:
    if d < 2 or d % 2 or min(i, j, shift) < 0:
        raise ValueError("d must be even and the positions and shift at least 0")
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, d, generator=generator, dtype=torch.float64)

    def score(a: int, b: int) -> float:
        return float(pekit.apply_rope(q, start=a)[0] @ pekit.apply_rope(k, start=b)[0])

    return RopeScores(d, i, j, shift, score(i, j), score(i + shift, j + shift))


def rope_answer(scores: RopeScores) -> int:
    """0: the same score (to float64 rounding), 1: larger, 2: smaller."""
    return {0: 0, 1: 1, -1: 2}[compare(scores.before, scores.after)]


def rope_sentence(scores: RopeScores) -> str:
    return _("With random q and k of width {d}: the score is {before} at positions {i} and {j}, and {after} at {i2} "
             "and {j2} (a difference of {gap}, float rounding). RoPE turns q and k by angles of their own positions, "
             "and a dot product sees only the angle between them, set by the offset {offset}.").format(
        d=scores.d, before=number(scores.before, ".6g"), after=number(scores.after, ".6g"), i=scores.i, j=scores.j,
        i2=scores.i + scores.shift, j2=scores.j + scores.shift, gap=number(abs(scores.after - scores.before), ".1e"),
        offset=number(scores.j - scores.i))


def _solve_rope() -> Solved:
    scores = rope_scores(16, 2, 5, 100)
    return Solved(rope_answer(scores), rope_sentence(scores))


QUESTIONS: tuple[Check, ...] = (
    Check("rotation-shift", "offset_rotation",
          N_("Shift a position by δ = 3 (d = 16). What happens to the sine/cosine pair j = 1 of its row?"),
          (N_("it turns by an angle that depends on δ alone"), N_("it is stretched by δ"),
           N_("it slides along a straight line"), N_("it changes in a way that depends on the position")),
          _solve_turn, {"d": "16", "delta": "3", "pair": "1"}),
    Check("rotation-rope", "offset_rotation",
          N_("With RoPE, a query at position 2 and a key at position 5 have the score s. Move both by 100, to 102 "
             "and 105: what is their score now?"),
          (N_("s again"), N_("larger than s"), N_("smaller than s")), _solve_rope, opens=("rotation.rope",)),
)
