"""The Offset rotation page's questions (see :mod:`lab.views.questions`): each answer and
explanation is read from the views the page draws at the question's settings, so the revealed page
shows the explanation's numbers."""

from __future__ import annotations

from typing import NamedTuple

from lab.claims import Claim, Reference, Said
from lab.display import number
from lab.i18n import N_, _
from lab.views.offset_rotation import PairTurn, RotationView, pair_turn, rotation_view
from lab.views.questions import Check, Solved
from pekit import rotation, seeded

# the page's defaults, which the questions' settings keep
BASE, FIRST, COUNT, SEED = 10000, 0, 12, 0
TURN = {"d": 16, "delta": 3, "pair": 1}  # the shift question's settings
ROPE = {"d": 16, "count": 128, "i": 2, "j": 5, "shift": 100}  # the RoPE question's: 102 and 105 on the map


def turn_views(d: int, delta: int, pair: int) -> tuple[PairTurn, RotationView]:
    """The circle's and the residuals' views the page draws at these settings (its defaults else)."""
    return pair_turn(d, BASE, delta, pair, COUNT, FIRST), rotation_view(d, BASE, delta, FIRST, COUNT)


def turn_answer(turn: PairTurn, view: RotationView) -> int:
    """0: a turn by an angle of δ alone (every arrow sweeps δ·ω_j, one T for every position, to
    rounding); 3 otherwise."""
    return 0 if turn.arrows.gap <= turn.arrows.rounding and view.within else 3


def turn_sentence(turn: PairTurn, view: RotationView) -> Said:
    """The circle's angle and the residuals the revealed page shows, each against its rounding."""
    return Said(_("T(δ) turns pair {pair} by δ·ω_{pair} = {angle} rad at every position: each arrow on its circle sweeps "
                  "that angle to within {arrows} rad, and over the {count} positions shown ({first} to {last}) "
                  "T(δ)·P[i] and P[i+δ] differ by at most {gap}, within float32 round-off (up to {bound} there)."
                  ).format(pair=turn.pair, angle=number(turn.turn.radians, ".6g"), arrows=number(turn.arrows.gap, ".1e"),
                           count=view.count, first=view.first, last=view.last, gap=number(view.max_residual, ".1e"),
                           bound=number(view.rounding, ".1e")), [
        Claim("largest gap between an arrow's turn and δ·ω_j", turn.arrows.gap, "at most",
              Reference(turn.arrows.rounding, "float32 rounding of the drawn points")),
        Claim("largest error over its position's rounding bound", view.excess, "at most",
              Reference(1.0, "each position's float32 rounding bound of T(δ)·P[i] − P[i+δ]"))])


def _solve_turn() -> Solved:
    turn, view = turn_views(**TURN)
    return Solved(turn_answer(turn, view), turn_sentence(turn, view))


class RopeScores(NamedTuple):
    """Two entries of the page's RoPE map (its q and k of width d from seed 0, ``count`` positions,
    float32 as drawn): the score at (i, j) and at (i + shift, j + shift), and the map's float32
    round-off (its largest |float32 − float64| score)."""

    d: int
    i: int
    j: int
    shift: int
    before: float
    after: float
    rounding: float


def rope_scores(d: int, i: int, j: int, shift: int, count: int) -> RopeScores:
    if d < 2 or d % 2 or min(i, j, shift) < 0 or max(i, j) + shift >= count:
        raise ValueError("d must be even, and the positions and shift at least 0 and on the map")
    q, k = seeded.seeded_query_key(d, SEED)
    S = rotation.rope_scores(q, k, count, base=BASE)  # (count, count): the page's map
    exact = rotation.score_rounding(q, k, count, base=BASE)
    return RopeScores(d, i, j, shift, float(S[i, j]), float(S[i + shift, j + shift]), exact.rope_rounding)


def rope_answer(scores: RopeScores) -> int:
    """0: the same score (the two differ by no more than twice the map's round-off: in exact
    arithmetic they are equal), 1: larger, 2: smaller."""
    if abs(scores.after - scores.before) <= 2 * scores.rounding:
        return 0
    return 1 if scores.after > scores.before else 2


def rope_sentence(scores: RopeScores) -> Said:
    gap = abs(scores.after - scores.before)
    return Said(_("On the page's RoPE map (its q and k of width {d}): the score is {before} at positions {i} and {j}, and "
                  "{after} at {i2} and {j2}, a difference of {gap}, within the map's float32 round-off ({rounding}). RoPE "
                  "turns q and k by angles of their own positions, and a dot product sees only the angle between them, "
                  "set by the offset {offset}.").format(
        d=scores.d, before=number(scores.before, ".6g"), after=number(scores.after, ".6g"), i=scores.i, j=scores.j,
        i2=scores.i + scores.shift, j2=scores.j + scores.shift, gap=number(gap, ".1e"),
        rounding=number(scores.rounding, ".1e"), offset=number(scores.j - scores.i)), [
        Claim("difference of the two scores", gap, "at most",
              Reference(2 * scores.rounding, "twice the map's float32 round-off (float64 scores are equal)"))])


def _solve_rope() -> Solved:
    scores = rope_scores(ROPE["d"], ROPE["i"], ROPE["j"], ROPE["shift"], ROPE["count"])
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
          (N_("s again"), N_("larger than s"), N_("smaller than s")), _solve_rope, {"count": "128"},
          opens=("rotation.rope",)),
)
